"""The Dirichlet mechanism calibrated to a target (epsilon, delta), and its certificate.

The largest Dirichlet parameter k that meets (epsilon, delta) through Theorem 1 (eqs. 6-7,
``dirichlet_k_theorem1``) or through the exact privacy profile (``dirichlet_k_tight``),
many rows at once, and an interval-arithmetic certificate of a Theorem 1 calibration.
Book: chapter "Baselines at matched privacy" (the calibrations at matched privacy).
"""
from __future__ import annotations

import math

import numpy as np

from .. import _checks, _pairs, exit_probability, privacy
from .._numerics import MAX_SHAPE, push_upper_end, root_on_safe_side
from ._common import scalar_delta, scalar_epsilon


# ------------------------------------------------ the Dirichlet mechanism, calibrated
#: What the calibrations do for a row that no k serves: raise (the default) or return NaN.
_UNREACHABLE = ("raise", "nan")
#: The search on log k stops at this width: k within a relative 1e-10 of the crossing.
_LOG_K_WIDTH = 1e-10
#: The tight calibration keeps the profile <= delta (1 - _PROFILE_MARGIN) (``dirichlet_k_tight``).
_PROFILE_MARGIN = 1e-12


def _rows(**arrays):
    """The named arrays broadcast together and flattened: (shape, [flat arrays])."""
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        shown = ", ".join(f"{name} {a.shape}" for name, a in arrays.items())
        raise ValueError(f"the shapes {shown} do not broadcast together") from None
    return shape, [np.broadcast_to(a, shape).ravel() for a in arrays.values()]


def _shaped(values, shape):
    """A flat result in the broadcast shape: a float for scalar arguments."""
    out = values.reshape(shape)
    return float(out) if out.ndim == 0 else out


def _theorem1_cores(eps, eta, N, n):
    """log gamma(k) and the calibration's gap for rows of checked (eta, N, n), at target epsilon.

    Both call the cores of ``privacy.epsilon`` and ``exit_probability.delta`` (their inputs are
    checked once by the caller, so no step re-validates them); ``rows`` indexes the rows.
    """
    g0 = 0.5 / n                          # any gamma < 1/n: (1 - (n-1) g0)/g0 = n + 1

    def sound_epsilon(k, g, rows):
        out = privacy.sound_epsilon(k, eta[rows], N[rows], n[rows], g)
        if not np.all(np.isfinite(out)):
            bad = k[~np.isfinite(out)][0]
            raise ValueError(f"k={bad!r} gives epsilon beyond the largest float (1.8e308) "
                             f"while calibrating to epsilon={eps!r}")
        return out

    def log_gamma(k, rows):
        """log gamma(k); NaN where gamma(k) >= 1/n (epsilon is not reachable at this k)."""
        Nr, nr = N[rows], n[rows]
        b = sound_epsilon(k, g0[rows], rows) - k / Nr * np.log(nr + 1)
        r = (eps - b) * Nr / k
        out = np.full(k.shape, np.nan)
        up = r > 0
        out[up] = -(r[up] + np.log1p((nr[up] - 1) * np.exp(-r[up])))
        return out

    def delta_at(k, g, rows):
        return exit_probability.delta_union(k, eta[rows], N[rows], n[rows], g)

    return sound_epsilon, log_gamma, delta_at


@_checks.public(finite=False)
def dirichlet_k_theorem1(epsilon, delta, eta, N, n, *, on_unreachable="raise"):
    """(k, gamma) of the most accurate Dirichlet mechanism that Theorem 1 certifies (epsilon, delta)-DP.

    Theorem 1 ties three numbers: the sound eq. (6) (``dm.epsilon``: eq. (6) as printed
    for n >= 3, the corrected eq. (6) for n = 2, where the printed one can understate
    the loss) gives epsilon(k, gamma) = b(k) + (k/N) log((1 - (n-1) gamma)/gamma), with b(k)
    the Beta-function term; eq. (7) gives
    delta(k, gamma), the chance of leaving Omega_1 = {x : every x_i >= gamma}.  For a
    target epsilon, eq. (6) solves in closed form for gamma:

        gamma(k) = 1 / (exp((epsilon - b(k)) N / k) + n - 1),

    which grows with k (and reaches 1/n when b(k) = epsilon).  Along this level set
    delta(k, gamma(k)) grows with k (checked in the tests and the book), so the most
    accurate admissible mechanism is the largest k >= 3/(2 eta) (Assumption 4) with
    ``privacy.delta(k, eta, N, n, gamma(k))`` <= delta: bracketed by doubling k, found by
    a bracketing search on log k (``_largest_feasible_log_k``) to a width of 1e-10 (k
    within a relative 1e-10 of the crossing) from the feasible side, then gamma is stepped
    up until the sound epsilon is <= the target (and k down if delta then exceeds its
    target), so the pair meets both as computed.

    ``epsilon`` and ``delta`` are numbers; ``eta``, ``N`` and ``n`` broadcast, one row per
    element (e.g. the rows of a chain), all calibrated at once by one vectorised search
    on the cores of ``dm.epsilon`` and ``dm.delta`` (inputs checked once).  Returns
    ``(k, gamma)``: floats, or arrays of the broadcast shape.  Where no k qualifies
    (epsilon below epsilon_star for every gamma < 1/n, or delta below what Theorem 1
    certifies at epsilon) ``on_unreachable="raise"`` (the default) raises ``ValueError``
    naming the first such row, and ``on_unreachable="nan"`` returns NaN for k and gamma
    there (a marker, never a parameter to release with).
    Book: chapters "Baselines at matched privacy" and "Baselines on real data".

    Parameters
    ----------
    epsilon : float
        The target epsilon, one finite number > 0.
    delta : float
        The target delta, one number with 0 < delta < 1.
    eta : float or array_like of float
        The smallest share of a category (Assumption 3), 0 < eta < 1/4; broadcasts.
    N : int or array_like of int
        The row sizes (number of records), whole numbers >= 2; broadcasts.
    n : int or array_like of int
        The numbers of categories, whole numbers >= 2; broadcasts.
    on_unreachable : {"raise", "nan"}, optional
        Keyword only: raise ``ValueError`` (the default) or return NaN for a row that no
        k serves.

    Returns
    -------
    k : float or numpy.ndarray
        The largest admissible Dirichlet parameter, >= 3/(2 eta) (NaN only where
        unreachable with ``on_unreachable="nan"``).
    gamma : float or numpy.ndarray
        The matching gamma of Theorem 1, with the sound eq. (6) <= epsilon and eq. (7)
        <= delta at (k, gamma).

    Raises
    ------
    TypeError
        If an argument is a bool, text or not real numbers.
    ValueError
        If ``epsilon`` is not a single number > 0 or ``delta`` not a single number in
        (0, 1); if some ``eta`` is outside (0, 1/4), some ``N`` or ``n`` is not a whole
        number >= 2, or no count vector of N records in n categories has every count
        >= eta N (Assumption 3); if ``eta``, ``N`` and ``n`` do not broadcast; if
        ``on_unreachable`` is neither "raise" nor "nan"; or, with "raise", if some row is
        unreachable (epsilon below epsilon_star, or delta below what Theorem 1 certifies
        with k >= 3/(2 eta)).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> k, gamma = dm.baselines.dirichlet_k_theorem1(2.0, 1e-5, 0.1, 1000, 3)
    >>> round(k, 1), round(gamma, 4)
    (394.6, 0.0459)
    """
    eps = scalar_epsilon(epsilon)
    d = scalar_delta(delta)
    mode = _checks.choice("on_unreachable", on_unreachable, _UNREACHABLE)
    shape, (eta_f, N_f, n_f) = _rows(eta=_checks.eta_ok(eta),
                                     N=_checks.integer_at_least("N", N, 2),
                                     n=_checks.integer_at_least("n", n, 2))
    _checks.design_ok(eta_f, N_f, n_f)
    k_lo = np.asarray(privacy.k_min(eta_f), float)
    _checks.theorem1_flat_design(k_lo, eta_f, N_f, n_f, 0.5 / n_f)      # what dm.epsilon checks
    sound_epsilon, log_gamma, delta_at = _theorem1_cores(eps, eta_f, N_f, n_f)

    def gap(log_k, rows, lg=None):
        """log(delta(k, gamma(k)) / target); -log target where gamma(k) >= 1/n (delta = 1)."""
        k = np.exp(log_k)
        lg = log_gamma(k, rows) if lg is None else lg
        out = np.full(k.shape, -np.log(d))
        under = lg < -700                 # gamma underflows: delta = 0
        out[under] = -1e300
        at = lg >= -700
        dd = delta_at(k[at], np.exp(lg[at]), rows[at])
        out[at] = np.log(np.maximum(dd, 1e-300)) - np.log(d)
        return out

    everything = np.arange(k_lo.size)
    lo = np.log(k_lo)
    lg_lo = log_gamma(k_lo, everything)
    far = np.isnan(lg_lo)
    gap_lo = gap(lo, everything, lg_lo)   # evaluated once: it is also the error message's number
    ok = ~far & (gap_lo <= 0)
    if mode == "raise" and not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        where = f"(eta={float(eta_f[i])!r}, N={N_f[i]:.0f}, n={n_f[i]:.0f})"
        if far[i]:
            raise ValueError(f"epsilon={eps!r} is below epsilon_star for every gamma < 1/n "
                             f"{where}: Theorem 1 cannot certify it")
        raise ValueError(
            f"no gamma gives delta <= {d!r} at epsilon={eps!r} {where}: the "
            f"smallest delta Theorem 1 certifies there is {np.exp(gap_lo[i]) * d:.3g}")
    rows = np.flatnonzero(ok)
    log_k = _largest_feasible_log_k(lambda x, r: gap(x, rows[r]), lo[rows], gap_lo[rows],
                                    lo[rows] + np.log(2.0), np.log(2.0))
    k_out, g_out = np.full(k_lo.size, np.nan), np.full(k_lo.size, np.nan)
    k_out[rows], g_out[rows] = _theorem1_adjust(eps, d, log_k, rows, sound_epsilon,
                                                log_gamma, delta_at)
    # a delta met only at k_lo: the adjustment (gamma up for epsilon, then k down for delta)
    # can end below k_lo = 3/(2 eta), where Assumption 4 fails (dm.delta refuses the pair);
    # no k >= k_lo meets both targets there, so the row is unreachable
    below = k_out < k_lo * (1 - _checks.REL_SLACK)
    if below.any():
        if mode == "raise":
            i = int(np.flatnonzero(below)[0])
            raise ValueError(
                f"no gamma gives delta <= {d!r} at epsilon={eps!r} (eta={float(eta_f[i])!r}, "
                f"N={N_f[i]:.0f}, n={n_f[i]:.0f}) with k >= 3/(2*eta)={k_lo[i]:.6g} "
                "(Assumption 4): delta is met only at the smallest k, and not once epsilon is "
                "met there")
        k_out[below], g_out[below] = np.nan, np.nan
    return _shaped(k_out, shape), _shaped(g_out, shape)


def _theorem1_adjust(eps, d, log_k, rows, sound_epsilon, log_gamma, delta_at):
    """The calibrated (k, gamma) of each row from the search's log k (feasible side).

    The closed form puts epsilon(k, gamma) on the target up to rounding: step gamma up by
    a relative 1e-13 (epsilon falls, delta rises) until the sound epsilon is <= target
    (1 - 1e-14), and k down by 1e-10 max(1, |log k|) if delta then exceeds its target.
    """
    log_k = log_k.copy()
    k, g = np.exp(log_k), np.exp(log_gamma(np.exp(log_k), rows))
    todo = np.arange(rows.size)
    while todo.size:
        kk, gg, rr = k[todo], g[todo], rows[todo]
        high = sound_epsilon(kk, gg, rr) > eps * (1 - 1e-14)
        while high.any():
            gg[high] *= 1 + 1e-13
            high[high] = sound_epsilon(kk[high], gg[high], rr[high]) > eps * (1 - 1e-14)
        g[todo] = gg
        todo = todo[delta_at(kk, gg, rr) > d]
        log_k[todo] -= 1e-10 * np.maximum(1.0, np.abs(log_k[todo]))
        k[todo] = np.exp(log_k[todo])
        g[todo] = np.exp(log_gamma(k[todo], rows[todo]))
    return k, g


def _tight_profile(eps, k, N, n, m):
    """``privacy_profile(eps, k_i, N_i, n_i, m_i)`` for each row i (checked rows, flat arrays).

    n >= 3: the pair (m, m + 1) of every row in one vectorised call of the profile's core;
    n = 2: the profile's branch and bound, row by row.
    """
    out = np.empty(k.shape)
    three = n >= 3
    if three.any():
        m3 = m[three]
        out[three] = _pairs.pair_profile(np.array([eps]), m3, m3 + 1.0, k[three],
                                            N[three])[0]
    for i in np.flatnonzero(~three):
        out[i] = _pairs.profile_one_k(np.array([eps]), float(k[i]), int(N[i]), 2,
                                         int(m[i]))[0]
    return out


@_checks.public(finite=False)
def dirichlet_k_tight(epsilon, delta, N, n, min_count, *, on_unreachable="raise"):
    """The largest k for which the Dirichlet mechanism is (epsilon, delta)-DP by its tight profile.

    Uses ``profile.privacy_profile(epsilon, k, N, n, min_count)``, the exact
    delta(epsilon) over adjacent count vectors (Definition 3) whose counts are all
    >= ``min_count`` (Assumption 3 with min_count = ceil(eta N)).  The profile grows
    with k (checked in the tests and the book), so the k with profile = delta is
    bracketed (k multiplied by 10 until the profile exceeds delta) and found by a
    bracketing search on log k (``_largest_feasible_log_k``) to a width of 1e-10 (k
    within a relative 1e-10 of the crossing), keeping the profile <= delta (1 - 1e-12):
    the margin covers the last-bit differences of numpy's exp and log between evaluating
    one row and many at once.  No Assumption 4 is needed: Theorem 1's floor
    epsilon_star does not apply.  But as k -> 0 the profile does not vanish (the
    privacy loss keeps an exponential tail: its limit is e^(-m epsilon)/(2m + 1) with
    m = min_count, as the book's baselines chapter derives and checks), so a delta
    below that floor cannot be reached.  The search starts at k = max(1, epsilon N / 500):
    smaller k are useless (outputs pile up near the vertices) and there the profile's
    Beta tail underflows to 0 in floating point, which would fake a feasible k.

    ``epsilon`` and ``delta`` are numbers; ``N``, ``n`` and ``min_count`` broadcast, one
    row per element (e.g. the rows of a chain), all calibrated at once by one vectorised
    search on the profile's core (inputs checked once).  Returns a float, or an array
    of the broadcast shape.  Where the floor is above delta, ``on_unreachable="raise"``
    (the default) raises ``ValueError`` naming the first such row and
    ``on_unreachable="nan"`` returns NaN there (a marker, never a k to release with).
    Book: chapters "Baselines at matched privacy" and "Baselines on real data".

    Parameters
    ----------
    epsilon : float
        The target epsilon, one finite number > 0.
    delta : float
        The target delta, one number with 0 < delta < 1.
    N : int or array_like of int
        The row sizes (number of records), whole numbers >= 2; broadcasts.
    n : int or array_like of int
        The numbers of categories, whole numbers >= 2; broadcasts.
    min_count : int or array_like of int
        The smallest count of a category, a whole number >= 1 with N >= n min_count + 1
        (e.g. ceil(eta N)); broadcasts.
    on_unreachable : {"raise", "nan"}, optional
        Keyword only: raise ``ValueError`` (the default) or return NaN for a row that no
        k serves.

    Returns
    -------
    float or numpy.ndarray
        The largest k whose privacy profile at epsilon is <= delta (NaN only where
        unreachable with ``on_unreachable="nan"``).

    Raises
    ------
    TypeError
        If an argument is a bool, text or not real numbers.
    ValueError
        If ``epsilon`` is not a single number > 0 or ``delta`` not a single number in
        (0, 1); if some ``N`` or ``n`` is not a whole number >= 2 or ``min_count`` not a
        whole number >= 1; if N < n min_count + 1 (no two adjacent count vectors differ),
        or n = 2 with N > 2^53; if the arguments do not broadcast; if ``on_unreachable`` is
        neither "raise" nor "nan"; or, with "raise", if delta is below the profile's
        floor for some row.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.baselines.dirichlet_k_tight(2.0, 1e-5, 1000, 3, 100))
    12623
    """
    eps = scalar_epsilon(epsilon)
    d = scalar_delta(delta)
    mode = _checks.choice("on_unreachable", on_unreachable, _UNREACHABLE)
    shape, (N_f, n_f, m_f) = _rows(N=_checks.integer_at_least("N", N, 2),
                                   n=_checks.integer_at_least("n", n, 2),
                                   min_count=_checks.integer_at_least("min_count", min_count, 1))
    _pairs.pairs_exist(N_f, n_f, m_f, "min_count")
    _pairs.two_categories_exact(N_f, n_f)

    # the target is delta (1 - 1e-12): numpy's exp and log may differ in the last bits
    # between one row and many at once, so the margin keeps the k found for many rows
    # within delta also when its row's profile is evaluated alone (``privacy_profile``)
    target = d * (1 - _PROFILE_MARGIN)

    # [book:dirichlet_k_tight]
    def gap(log_k, rows):
        prof = _tight_profile(eps, np.exp(log_k), N_f[rows], n_f[rows],
                              m_f[rows])
        return np.log(np.maximum(prof, 1e-300)) - np.log(target)

    k_lo = np.maximum(1.0, eps * N_f / 500.0)
    lo = np.log(k_lo)
    # evaluated once: it is also the error message's number
    gap_lo = gap(lo, np.arange(lo.size))
    ok = gap_lo <= 0
    # [/book:dirichlet_k_tight]
    if mode == "raise" and not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise ValueError(
            f"delta={d!r} is below the Dirichlet mechanism's profile at epsilon={eps!r} even "
            f"for k={k_lo[i]:.4g} ({np.exp(gap_lo[i]) * target:.3g}; N={N_f[i]:.0f}, "
            f"n={n_f[i]:.0f}, min_count={m_f[i]:.0f}): no useful k reaches this "
            "(epsilon, delta)")
    rows = np.flatnonzero(ok)
    # the profile tends to TV = 1 as k grows, so an upper bracket exists
    log_k = _largest_feasible_log_k(lambda x, r: gap(x, rows[r]), lo[rows], gap_lo[rows],
                                    np.log(np.maximum(10.0 * N_f[rows], 10.0)), np.log(10.0),
                                    limit=np.log(1e300))
    out = np.full(k_lo.size, np.nan)
    out[rows] = np.exp(log_k)
    return _shaped(out, shape)


def _largest_feasible_log_k(gap, lo, f_lo, hi, step, *, limit=None):
    """Per row, the largest log k with gap(log k) <= 0, for gaps that grow with k, gap(lo) <= 0.

    ``gap(x, rows)`` evaluates the rows ``rows`` (indices into ``lo``) at log k = x;
    ``f_lo`` is gap(lo).  Where gap(hi) <= 0 the bracket moves up by ``step`` (past
    ``limit`` is an error).  Then every row is narrowed at once by the package's
    bracketing solver (``_numerics.root_on_safe_side``: the Illinois method, with bisection
    where interpolation stalls), keeping gap <= 0 at the lower end and > 0 at the upper
    end, until the bracket is at most 1e-10 wide.  Returns the lower end: on the feasible
    side, never violating the target, and within 1e-10 of the crossing in log k (k
    within a relative 1e-10).  Shared by both calibrations.
    """
    lo, f_lo = np.array(lo, float), np.array(f_lo, float)
    hi = np.array(np.broadcast_to(hi, lo.shape), float)
    lo, f_lo, hi, f_hi = push_upper_end(gap, lo, f_lo, hi, lambda x: x + step, limit=limit)
    return root_on_safe_side(gap, lo, hi, f_lo, f_hi, rtol=0.0, xtol=_LOG_K_WIDTH)


#: The most series terms of ``_arb_betainc`` one certificate may sum (a few seconds of arb
#: arithmetic): estimated before the first one, counted while summing.
_MAX_SERIES_TERMS = 2_000_000


def _series_terms(a, b, x, cap=_MAX_SERIES_TERMS):
    """How many terms ``_arb_betainc`` sums for I_x(a, b), from the same ratios in floats:
    until the ratio is < 1 and the term is 1e-40 below the largest one (at most ``cap``).
    The ratios are formed for the first 1024 terms, then 8 times as many until the rule is
    met, so a short series costs a short array; a series not done within 2^20 terms (or
    ``cap``) counts as ``cap``."""
    size, longest = 1024, min(cap, 2 ** 20)
    while True:
        j = np.arange(float(min(size, longest)))
        log_r = math.log(x) + np.log(a + b + j) - np.log(a + 1 + j)
        log_t = np.concatenate([[0.0], np.cumsum(log_r)[:-1]])
        done = (log_r < 0) & (log_t < np.maximum.accumulate(log_t) - 92.2)
        if done.any():
            return int(np.argmax(done)) + 1
        if size >= longest:
            return cap
        size *= 8


#: The work estimate evaluates the series length at most at this many of the intervals.
_ESTIMATE_SAMPLES = 64


def _estimated_terms(eps, k0, g0, eta, N, n, shares, edges):
    """The series terms a certificate sums, estimated in floats before any arb arithmetic.

    The returned pair's check: each share's tail at (k0, g0).  Each interval [a, c] of
    ``edges``: the tails at the shapes (c s, a (1 - s)) and the gamma(a) of eq. (6)'s level
    set (gamma grows with k' towards 1/n and the tails' points with it, so the series
    lengthen from interval to interval; none where epsilon is out of reach).  The lengths are
    taken at up to ``_ESTIMATE_SAMPLES`` intervals, each standing for the intervals up to it
    (the longest series of its block).  Intervals that bisection splits are not foreseen:
    the count while summing (``_arb_betainc``'s budget) covers them.
    """
    lows = edges[:-1]
    picks = np.unique(np.linspace(0, lows.size - 1, min(lows.size, _ESTIMATE_SAMPLES))
                      .round().astype(int))
    _, log_gamma, _ = _theorem1_cores(eps, *(np.array([float(v)]) for v in (eta, N, n)))
    with np.errstate(over="ignore", invalid="ignore"):
        try:
            gammas = np.exp(log_gamma(lows[picks], np.zeros(picks.size, int)))
        except ValueError:          # epsilon beyond the float range at some k': no estimate
            return math.inf
    total = sum(_series_terms(k0 * s, k0 * (1 - s), g0) for s in shares)
    for i, block, g in zip(picks, np.diff(picks, prepend=-1), gammas):
        if np.isfinite(g) and 0 < g < 1:
            total += block * sum(_series_terms(edges[i + 1] * s, lows[i] * (1 - s), g)
                                 for s in shares)
            if total > _MAX_SERIES_TERMS:
                break
    return total


def _arb_betainc(a, b, x, budget=None):
    """Enclosure of the regularised incomplete Beta I_x(a, b) for balls a, b > 0, 0 < x < 1.

    I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * sum_j t_j, t_0 = 1,
    t_(j+1) = t_j x (a + b + j)/(a + 1 + j) (DLMF 8.17.8 with 2F1(a+b, 1; a+1; x)).
    Summed until the ratio bound rho = x * max(1, (a+b+J)/(a+1+J)) is < 1 and the
    term is negligible; the remaining tail is at most t_J / (1 - rho) and is added as
    the ball [0, t_J/(1 - rho)].  Only arb's arithmetic, exp, log and lgamma are used.
    ``budget``: [terms left, the design for the message]; a ValueError when it runs out.
    """
    from flint import arb

    one = arb(1)
    total, term, j = arb(0), arb(1), 0
    while True:
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                raise ValueError(f"{budget[1]}: the certificate needs more than "
                                 f"{_MAX_SERIES_TERMS} series terms of I_x(a, b); raise "
                                 "rel_width or lower k_max_factor")
        ratio = x * (a + b + j) / (a + 1 + j)
        rho = x.upper() * max(one, ((a + b + j) / (a + 1 + j)).upper())
        if rho < 1 and term.upper() < 1e-40 * max(total.lower(), arb(1e-300)):
            tail = term / (1 - rho)
            total = total + arb(0.5) * tail + arb(0, 0.5 * tail.upper())  # ball [0, tail]
            break
        total = total + term
        term = term * ratio
        j += 1
    log_pre = (a * arb.log(x) + b * arb.log(1 - x) - arb.log(a)
               - arb.lgamma(a) - arb.lgamma(b) + arb.lgamma(a + b))
    return arb.exp(log_pre) * total


@_checks.public
def certify_theorem1_calibration(epsilon, delta, eta, N, n, *, k_max_factor=100.0,
                                 rel_width=1e-3, prec=128):
    """Rigorous interval-arithmetic certificate for ``dirichlet_k_theorem1`` (python-flint arb).

    ``dirichlet_k_theorem1`` returns the largest admissible k if delta(k, gamma(k)) grows
    along the epsilon-level set, a premise seen on grids but not proved.  Instead of the
    premise this certifies its consequence on a stated range, with arb ball arithmetic
    (every operation returns an interval that contains the exact value):

    1. at the returned (k, gamma) the sound eq. (6) is <= epsilon and eq. (7) (union
       bound at ``privacy.worst_counts``) is <= delta, exactly as real numbers;
    2. for every k' in [k (1 + 1e-9), k_max_factor * k] the mechanism is not admissible:
       either b(k') >= epsilon (no gamma < 1/n reaches epsilon) or
       delta(k', gamma(k')) > delta.  The range is cut into intervals of relative width
       ``rel_width``, each bisected until it is decided: b in centred form (digamma slope),
       delta from below by monotonicity of I_x(a, b) in x, a and b at the corners.

    Here b(k) is the Beta term of the sound eq. (6) (top share 1 - 2 eta for n >= 3,
    1 - (n-1) eta for n = 2) and gamma(k) = 1/(exp((epsilon - b(k)) N / k) + n - 1).
    Returns a dict with ``k``, ``gamma``, the range and the number of intervals used.
    Raises ``ArithmeticError`` if an interval cannot be decided at width 1e-14 k, and a
    ValueError at once when the estimated work (the series terms of every tail, each
    interval at its own gamma: ``_estimated_terms``) exceeds
    ``_MAX_SERIES_TERMS`` (or when the count of terms summed does) or the range reaches
    k' above 2^53 (where the float eq. (7) is not certified and the calibration stops):
    every input is checked before python-flint sees it.
    Book: chapter "Baselines at matched privacy" (Theorem 1, eqs. (6)-(7)).

    Parameters
    ----------
    epsilon : float
        The target epsilon, one finite number > 0.
    delta : float
        The target delta, one number with 0 < delta < 1.
    eta : float
        The smallest share of a category (Assumption 3), one number with 0 < eta < 1/4.
    N : int
        The row size, one whole number >= 2.
    n : int
        The number of categories, one whole number >= 2.
    k_max_factor : float, optional
        Keyword only: the range certified is [k (1 + 1e-9), k_max_factor k], with
        1 < k_max_factor <= 1e6 (default 100).
    rel_width : float, optional
        Keyword only: the relative width of the starting intervals,
        1e-8 <= rel_width < 1 (default 1e-3).
    prec : int, optional
        Keyword only: arb's working precision in bits, an int in [53, 4096] (default 128).

    Returns
    -------
    dict
        ``k`` and ``gamma`` (those of ``dirichlet_k_theorem1``), ``k_range`` (the
        certified range of k') and ``intervals`` (the number of intervals decided).

    Raises
    ------
    TypeError
        If an argument is a bool, text or not a real number, or ``prec`` is not an int.
    ValueError
        If ``k_max_factor``, ``rel_width`` or ``prec`` is out of its range; if ``eta``,
        ``N`` or ``n`` is not one number; for every reason ``dirichlet_k_theorem1``
        raises; if the estimated work exceeds the series-term budget; or if
        k_max_factor * k exceeds 2**53.
    ArithmeticError
        If the returned pair cannot be certified, or an interval cannot be decided at
        width 1e-14 k.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> cert = dm.baselines.certify_theorem1_calibration(2.0, 1e-5, 0.1, 1000, 3,
    ...                                                  k_max_factor=10.0, rel_width=1e-2)
    >>> round(cert["k"], 1), round(cert["k_range"][1] / cert["k"], 6)
    (394.6, 10.0)
    """
    from flint import arb, ctx

    factor = _checks.scalar("k_max_factor", k_max_factor)
    if not 1 < factor <= 1e6:
        raise ValueError(f"k_max_factor={factor!r} must satisfy 1 < k_max_factor <= 1e6")
    width = _checks.scalar("rel_width", rel_width)
    if not 1e-8 <= width < 1:
        raise ValueError(f"rel_width={width!r} must satisfy 1e-8 <= rel_width < 1")
    prec = _checks.whole("prec", prec, 53, highest=4096)
    k_max_factor, rel_width = factor, width
    for name, value in (("eta", eta), ("N", N), ("n", n)):
        _checks.scalar(name, value)          # one design: the certificate is for one row
    k0, g0 = dirichlet_k_theorem1(epsilon, delta, eta, N, n)
    eps, d = scalar_epsilon(epsilon), scalar_delta(delta)
    eta_f, N_i, n_i = float(eta), int(N), int(n)
    counts = privacy.worst_counts(eta_f, N_i, n_i)
    # the work, estimated before any arb arithmetic: the series terms of every tail the
    # certificate sums (``_estimated_terms``), at least one per share and interval
    lo, hi = k0 * (1 + 1e-9), k0 * float(k_max_factor)
    intervals = int(np.ceil(np.log(hi / lo) / rel_width))
    design = (f"epsilon={eps!r}, delta={d!r}, eta={eta_f!r}, N={N_i}, n={n_i} (k = {k0:.4g}) "
              f"with k_max_factor={k_max_factor!r}, rel_width={rel_width!r}")
    if hi > MAX_SHAPE:
        # eq. (7)'s Beta tails have shapes summing to k': above 2**53 the float delta is the
        # trivial 1, so dirichlet_k_theorem1 stops below it and larger k' may be admissible
        raise ValueError(f"{design}: the range reaches k' = {hi:.4g}, above 2**53, where "
                         "eq. (7) is not certified in double precision (the calibration stops "
                         "below it): lower k_max_factor or epsilon")
    shares = np.unique(counts) / N_i
    terms = intervals * shares.size
    if terms <= _MAX_SERIES_TERMS:
        terms = _estimated_terms(eps, k0, g0, eta_f, N_i, n_i, shares,
                                 np.geomspace(lo, hi, intervals + 1))
    if terms > _MAX_SERIES_TERMS:
        raise ValueError(f"{design}: the certificate needs about {terms:.3g} series terms "
                         f"({intervals} intervals), more than {_MAX_SERIES_TERMS}; "
                         "raise rel_width or lower k_max_factor")
    budget = [_MAX_SERIES_TERMS, design]
    old = ctx.prec
    ctx.prec = prec
    try:
        E, D, ETA, NN = arb(eps), arb(d), arb(eta_f), arb(N_i)
        top = 1 - 2 * ETA if n_i >= 3 else 1 - (n_i - 1) * ETA
        values, mults = np.unique(counts, return_counts=True)
        shares = [(arb(int(c)) / NN, int(m)) for c, m in zip(values, mults)]

        def b_point(K):
            H = K / NN
            return (arb.lgamma(K * ETA) + arb.lgamma(K * top)
                    - arb.lgamma(K * ETA + H) - arb.lgamma(K * top - H))

        def b(lo_k, hi_k):
            # centred form: b(K) lies in b(m) + b'(K) (K - m), m the midpoint, with
            # b'(k) = eta psi(k eta) + T psi(k T) - (eta + 1/N) psi(k (eta + 1/N))
            #         - (T - 1/N) psi(k (T - 1/N)) enclosed on the whole interval K
            K = arb.union(arb(lo_k), arb(hi_k))
            m = arb(0.5 * (lo_k + hi_k))
            u, v = ETA + 1 / NN, top - 1 / NN
            slope = (ETA * arb.digamma(K * ETA) + top * arb.digamma(K * top)
                     - u * arb.digamma(K * u) - v * arb.digamma(K * v))
            return b_point(m) + slope * (K - m)

        def delta_of(K, G):
            return sum(arb(mult) * _arb_betainc(K * s, K * (1 - s), G)
                       for s, mult in shares)

        # 1. the returned pair, as exact reals
        K0, G0 = arb(k0), arb(g0)
        eps_at = b_point(K0) + K0 / NN * arb.log((1 - (n_i - 1) * G0) / G0)
        ok1 = (eps_at <= E) and (delta_of(K0, G0) <= D)
        if not ok1:
            raise ArithmeticError(f"the returned k={k0!r}, gamma={g0!r} is not certified")
        # 2. no k' in the range is admissible
        edges = np.geomspace(lo, hi, intervals + 1)
        todo, used = list(zip(edges[:-1], edges[1:]))[::-1], 0
        while todo:
            a, c = todo.pop()
            used += 1
            K = arb.union(arb(a), arb(c))
            r = (E - b(a, c)) * NN / K
            if r <= 0:                      # epsilon unreachable on the whole interval
                continue
            # where r(k') > 0, gamma(k') >= G_lo = 1/(exp(r_max) + n - 1); I_x(a, b) grows
            # with x and b and falls with a, so on the interval [a, c] the union bound is at
            # least sum_i I_{G_lo}(c s_i, a (1 - s_i)): evaluated at points, hence tight
            G_lo = 1 / (arb.exp(arb(r.upper())) + n_i - 1)
            low = sum(arb(mult) * _arb_betainc(arb(c) * sh, arb(a) * (1 - sh), G_lo, budget)
                      for sh, mult in shares)
            if low > D:
                continue
            if c - a < 1e-14 * c:
                raise ArithmeticError(f"cannot decide k in [{a!r}, {c!r}]")
            mid = 0.5 * (a + c)
            todo += [(a, mid), (mid, c)]
    finally:
        ctx.prec = old
    return dict(k=k0, gamma=g0, k_range=(float(lo), float(hi)), intervals=used)
