"""Privacy parameters of the Dirichlet mechanism: Theorem 1's epsilon, eq. (6), and its inverse.

eq. (6) as printed (``epsilon_paper``), the sound epsilon a release is calibrated with
(``epsilon``: eq. (6), corrected for n = 2, rounded outward), their smallest values at
Assumption 4's floor and their inverses k(epsilon).  Theorem 1's delta, eq. (7), is in
``exit_probability``; its names are imported here too, so ``dpmarkov.privacy`` still
offers the whole of Theorem 1.  Book: chapters "The Dirichlet mechanism" (what the
numbers mean), "The privacy loss of the Dirichlet mechanism" (eq. (6) and its inverse)
and "The exact worst case" (the sound epsilon).  Functions broadcast over array
arguments unless their docstring says otherwise, and reject parameters outside
Assumptions 2-4.
"""
from __future__ import annotations

import numpy as np

from . import _checks
from ._numerics import (increment_difference, increment_error, mean_digamma, outward, output_logs,
                        output_term, output_term_error, push_upper_end, root_on_safe_side,
                        scaled_difference)
from ._pairs import pairs_exist
from .exit_probability import delta_union
# Theorem 1's delta (eq. (7)) and the increments of log Gamma behind eq. (6), importable from
# here as before (``dpmarkov.privacy.delta``, ``dpmarkov.privacy.lgamma_increment``, ...)
from ._numerics import lgamma_increment, lgamma_increment_scaled  # noqa: F401
from .exit_probability import (delta, exit_probability_bounds, exit_probability_exact,  # noqa: F401
                               exit_probability_union, min_count, worst_counts)


def _eq6_interval_ok(eta, N, where=True):
    """eq. (6) needs 3 eta + 1/N <= 1 (the proof's interval [eta + 1/N, 1 - 2 eta - 1/N]).

    Checked where ``where`` holds.
    """
    bad = (3 * eta + 1 / N > 1 + 1e-12) & where
    if np.any(bad):
        raise ValueError(
            f"N={_checks.first_bad(N, bad):.0f} and eta={_checks.first_bad(eta, bad)!r} give "
            "3*eta + 1/N > 1: the proof of Theorem 1 needs 1 - 2*eta - 1/N >= eta, and eq. (6) "
            "can be negative here (use epsilon_exact)")


@_checks.public
def epsilon_paper(k, eta, N, n, gamma):
    """epsilon of Theorem 1, eq. (6) as printed, for the Dirichlet mechanism with parameter k.

    epsilon = log[ B(k eta, k(1-2 eta)) / B(k(eta + 1/N), k(1 - 2 eta - 1/N)) ]
              + (k/N) log[(1 - (n-1) gamma) / gamma]

    Both Beta functions have the same argument sum k(1 - eta), so the log-ratio is
    two increments of log Gamma, computed without cancellation.

    This is the paper's formula as printed.  The book ("The exact worst case")
    shows it is an upper bound on the privacy loss over Omega_1 for n >= 3 but
    not for every n = 2 design (it fails whenever eta*N is a whole number);
    ``epsilon_corrected`` and ``epsilon_exact`` hold for every n.
    Book: "The privacy loss of the Dirichlet mechanism" (eq. (6)).

    Parameters
    ----------
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0 and k >= 3/(2 eta) (Assumption 4).
    eta : float or array_like
        The border of Assumption 3 (every count >= eta*N), 0 < eta < 1/4.
    N : int or array_like
        The number of records, a whole number >= 2.
    n : int or array_like
        The number of categories, a whole number >= 2.
    gamma : float or array_like
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n.

    Returns
    -------
    float or numpy.ndarray
        eq. (6); an array of the arguments' broadcast shape if any is an array.

    Raises
    ------
    ValueError
        If a parameter breaks the rules above; if no count vector of N records in n
        categories has every count >= eta*N (Assumption 3 cannot hold); if
        3 eta + 1/N > 1 (the proof's interval [eta + 1/N, 1 - 2 eta - 1/N] is empty and
        eq. (6) can be negative; only N <= 3 is affected); or if the value exceeds the
        largest float.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.epsilon_paper(20.6, 0.073, 98, 5, 4e-4), 4)
    2.2119
    """
    k, eta, N, n, gamma = _checks.theorem1_design(k, eta, N, n, gamma)
    _eq6_interval_ok(eta, N)
    # [book:epsilon_paper]
    h = k / N
    a, b = k * eta, k * (1 - 2 * eta)
    beta_term = increment_difference(b - h, a, h)
    with np.errstate(over="ignore", invalid="ignore"):
        out = beta_term + output_term(h, n, gamma)
    # [/book:epsilon_paper]
    return _checks.finite_result("epsilon", out, k)


@_checks.public
def k_min(eta):
    """The smallest k allowed by Assumption 4: 3/(2 eta).

    Book: "The privacy loss of the Dirichlet mechanism" (Section 3.1, the smallest
    epsilon).

    Parameters
    ----------
    eta : float or array_like
        The border of Assumption 3, 0 < eta < 1/4.

    Returns
    -------
    float or numpy.ndarray
        3/(2 eta), of ``eta``'s shape.

    Raises
    ------
    ValueError
        If some eta is not finite or not in (0, 1/4).
    TypeError
        If ``eta`` is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> float(dm.k_min(0.075))
    20.0
    """
    return 1.5 / _checks.eta_ok(eta)


@_checks.public
def epsilon_star_paper(eta, N, n, gamma):
    """The smallest epsilon Theorem 1 offers: eq. (6) as printed at k = 3/(2 eta) (Section 3.1).

    ``epsilon_paper`` at ``k_min(eta)``; for n = 2 it can understate the loss
    (``epsilon_star`` is the sound counterpart).  Book: "The privacy loss of the
    Dirichlet mechanism".

    Parameters
    ----------
    eta : float or array_like
        The border of Assumption 3, 0 < eta < 1/4.
    N : int or array_like
        The number of records, a whole number >= 2.
    n : int or array_like
        The number of categories, a whole number >= 2.
    gamma : float or array_like
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n.

    Returns
    -------
    float or numpy.ndarray
        eq. (6) at k = 3/(2 eta); an array of the broadcast shape if any argument is one.

    Raises
    ------
    ValueError
        As ``epsilon_paper``: a parameter outside its range, Assumption 3 impossible for
        (eta, N, n), or 3 eta + 1/N > 1.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.epsilon_star_paper(0.073, 98, 5, 4e-4), 4)
    2.2065
    """
    return epsilon_paper(k_min(eta), eta, N, n, gamma)


def _k_for(bound, epsilon_target, eta, N, n, gamma):
    """The largest k (to 1e-13 relative) at which ``bound`` (eq. (6) or its sound version)
    is at most ``epsilon_target``: bound(k) <= target, evaluated, for every element.

    All elements are solved together (``_numerics.root_on_safe_side``): the bracket
    [k_min, 2 k_min] is doubled until bound exceeds the target, then narrowed.
    """
    target = _checks.positive("epsilon_target", epsilon_target)
    eta = _checks.eta_ok(eta)
    N = _checks.integer_at_least("N", N, 2)
    n = _checks.integer_at_least("n", n, 2)
    gamma = _checks.gamma_ok(gamma, n)
    shape = np.broadcast(target, eta, N, n, gamma).shape
    t, e, NN, nn, g = (np.broadcast_to(np.asarray(v, float), shape).ravel()
                       for v in (target, eta, N, n, gamma))

    def f(k, idx):
        return np.asarray(bound(k, e[idx], NN[idx], nn[idx], g[idx]), float) - t[idx]

    every = np.arange(t.size)
    with np.errstate(over="ignore"):
        lo = 1.5 / e                       # k_min, without its public wrapper's name
    if not np.all(np.isfinite(lo)):
        i = int(np.flatnonzero(~np.isfinite(lo))[0])
        raise ValueError(f"eta={float(e[i])!r} puts Assumption 4's smallest k, 3/(2*eta), beyond the "
                         "largest float (1.8e308): no k can be computed for it")
    f_lo = f(lo, every)
    if np.any(f_lo > 0):
        i = int(np.flatnonzero(f_lo > 0)[0])
        raise ValueError(
            f"epsilon_target={t[i]!r} is below epsilon_star={f_lo[i] + t[i]:.6g}, the smallest "
            f"epsilon Theorem 1 gives for eta={e[i]!r}, N={NN[i]:.0f}, n={nn[i]:.0f}, "
            f"gamma={g[i]!r} (Assumption 4: k >= 3/(2*eta))")
    # double k until bound(hi) > target
    lo, f_lo, hi, f_hi = push_upper_end(f, lo, f_lo, 2 * lo, lambda k: 2 * k)
    out = root_on_safe_side(f, lo, hi, f_lo, f_hi, rtol=1e-13).reshape(shape)
    return out if out.ndim else float(out)


@_checks.public
def k_for_epsilon_paper(epsilon_target, eta, N, n, gamma):
    """The k at which eq. (6) as printed equals ``epsilon_target`` (the inverse of eq. (6)).

    eq. (6) is strictly increasing in k (book: the privacy-loss chapter proves it and
    checks it numerically), so the root is unique; it is found by bracketing and the
    Illinois method, for all elements at once, to a relative tolerance of 1e-13, on the
    safe side of eq. (6) as evaluated in floating point: that value at the k returned is
    at most the target (the printed formula itself, not rounded outward, can exceed it by
    an ulp; ``k_for_epsilon`` calibrates with the sound bound).  A target below
    epsilon_star raises ``ValueError``: no k allowed by Assumption 4 reaches it.
    For n = 2 use ``k_for_epsilon`` (eq. (6) can understate the loss there).
    Book: "The privacy loss of the Dirichlet mechanism" (Theorem 1 inverted).

    Parameters
    ----------
    epsilon_target : float or array_like
        The epsilon wanted, > 0 and at least ``epsilon_star_paper(eta, N, n, gamma)``.
    eta : float or array_like
        The border of Assumption 3, 0 < eta < 1/4.
    N : int or array_like
        The number of records, a whole number >= 2.
    n : int or array_like
        The number of categories, a whole number >= 2.
    gamma : float or array_like
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n.

    Returns
    -------
    float or numpy.ndarray
        The largest k (within 1e-13 relative) with eq. (6) at most the target; an array
        of the broadcast shape if any argument is one.

    Raises
    ------
    ValueError
        If ``epsilon_target`` is not positive or is below the smallest epsilon of
        Theorem 1 (at k = 3/(2 eta)); if another parameter is outside its range, or
        3 eta + 1/N > 1.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.k_for_epsilon_paper(3.0, 0.073, 98, 5, 4e-4), 3)
    28.181
    """
    return _k_for(epsilon_paper, epsilon_target, eta, N, n, gamma)


# --- sound by default ------------------------------------------------------------------------
# eq. (6) as printed is not an upper bound on the privacy loss for every n = 2 design (book:
# "The exact worst case"); the functions a release is calibrated with use a bound that holds
# for every n.


#: Names of the bounds ``epsilon`` uses (``bound_name`` and ``ChainPrivacy.bound_rows``).
BOUND_EQ6 = "eq. (6)"
BOUND_CORRECTED = "corrected eq. (6)"


@_checks.public
def bound_name(n):
    """Which bound ``epsilon`` uses for n categories: eq. (6) for n >= 3, corrected for n = 2.

    eq. (6) of Theorem 1 can understate the privacy loss for n = 2 (it is not an upper
    bound for every n = 2 design), so there ``epsilon`` uses
    the corrected eq. (6) (``epsilon_corrected``).  Book: "The exact worst case".

    Parameters
    ----------
    n : int or array_like
        The number of categories, a whole number >= 2.

    Returns
    -------
    str or numpy.ndarray
        ``"eq. (6)"`` or ``"corrected eq. (6)"``; an array of strings of ``n``'s shape if
        ``n`` is an array.

    Raises
    ------
    ValueError
        If some n is not a whole number >= 2.
    TypeError
        If ``n`` is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.bound_name(2), dm.bound_name(5)
    ('corrected eq. (6)', 'eq. (6)')
    """
    n = _checks.integer_at_least("n", n, 2)
    out = np.where(n == 2, BOUND_CORRECTED, BOUND_EQ6)
    return out if out.ndim else str(out)


@_checks.public
def epsilon(k, eta, N, n, gamma):
    """A sound epsilon for Theorem 1: eq. (6) where it is an upper bound, else the corrected eq. (6).

    For n >= 3 this is eq. (6) as printed (``epsilon_paper``), an upper bound on the
    privacy loss over Omega_1 (it is >= the corrected eq. (6), which is >= the exact
    worst case).  For n = 2, where eq. (6) can understate the loss, it is
    ``epsilon_corrected`` (1 - 2 eta replaced by 1 - (n-1) eta), which holds for every
    n and every N, eta*N whole or not.  ``bound_name(n)`` says which.  As a guard
    against rounding, the result is never below ``epsilon_exact`` at the minimum count
    ``min_count(eta, N)`` (they agree to a few ulps when eta*N is whole and n <= 3).
    Each value is rounded outward by a bound on its floating-point error (about 1e-14
    relative in the book's designs, up to a few 1e-11 where the two increments of eq. (6)
    nearly cancel at huge k), so the float returned is never below the real number it
    stands for.  Broadcasts.  Book: "The exact worst case".

    Parameters
    ----------
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0 and k >= 3/(2 eta) (Assumption 4).
    eta : float or array_like
        The border of Assumption 3 (every count >= eta*N), 0 < eta < 1/4.
    N : int or array_like
        The number of records, a whole number >= 2.
    n : int or array_like
        The number of categories, a whole number >= 2.
    gamma : float or array_like
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n.

    Returns
    -------
    float or numpy.ndarray
        The sound epsilon; an array of the arguments' broadcast shape if any is an array.

    Raises
    ------
    ValueError
        If a parameter breaks the rules above; if Assumption 3 cannot hold for
        (eta, N, n); for n >= 3, if 3 eta + 1/N > 1; for n = 2, if no two count vectors
        have every count >= ceil(eta*N) or k/N underflows; or if the value exceeds the
        largest float.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.epsilon(20.6, 0.073, 98, 5, 4e-4), 4)
    2.2119
    """
    shape, (k, eta, N, n, gamma) = _checks.theorem1_flat_design(k, eta, N, n, gamma)
    return _checks.finite_result("epsilon", sound_epsilon(k, eta, N, n, gamma).reshape(shape),
                   k.reshape(shape))


def sound_epsilon(k, eta, N, n, gamma):
    """``epsilon``'s core on checked flat arrays (``_checks.theorem1_flat_design``): eq. (6),
    corrected for n = 2.

    Internal (also used by ``baselines``), not part of the public API.

    Checks what eq. (6) and its corrected form need beyond ``_checks.theorem1_design``
    (3 eta + 1/N <= 1 for n >= 3; two count vectors above the minimum and a normal k/N for n = 2) and
    returns the values, not yet checked to be finite (``_checks.finite_result``).
    """
    two = n == 2
    _eq6_interval_ok(eta, N, where=~two)                # what epsilon_paper requires
    m = _checks.min_count(eta, N)
    pairs_exist(N, n, m, "ceil(eta*N)", where=two)     # what epsilon_corrected requires
    _checks.k_scale_ok(k, N, where=two)
    return _eq6_outward(k, eta, N, n, gamma, m, N >= n * m + 1)


def _eq6_outward(k, eta, N, n, gamma, m, pairs, *, every_guard=False):
    """eq. (6) (n >= 3) or the corrected eq. (6) (n = 2), rounded outward, on checked flat arrays.

    The largest share is 1 - 2 eta for n >= 3 and 1 - (n-1) eta for n = 2; where ``pairs``
    (two count vectors above the minimum count m exist: usually every row) the result is
    also never below the exact loss at m (``loss.epsilon_exact``), a guard against
    rounding: the larger of the two, each rounded outward (``outward``) by the bounds of
    ``increment_error`` and ``output_term_error``.  The guard is evaluated only on the
    rows where it might win: ``_guard_loses`` certifies, before any increment is formed,
    the rows where it provably cannot (most rows with n >= 4), and there the max is eq. (6)
    itself, so the result is bit for bit the max over every row (``every_guard=True``
    evaluates the guard everywhere; the tests compare the two).  The increments of log Gamma
    (eq. (6)'s and those of the guard's rows) come from one kernel call, and every step is
    elementwise, so each row gets the same bits as alone.  Not yet checked to be finite
    (``_checks.finite_result``).
    """
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        h = k / N
        big = N - (n - 1) * m
        top = k * (1 - np.where(n == 2, 1, 2) * eta)
        # eq. (6): increments at x0 and x2; the guard (the exact loss at m): at x1 and x3
        x0, x1, x2, x3 = top - h, h * (big - 1), k * eta, h * m
        if not every_guard:
            pairs = pairs & ~_guard_loses(k, n, h, x0, x1, x2, x3)
        rows = pairs.nonzero()[0]                 # the guard's rows
        size, half = k.size, k.size + rows.size
        hg = h[rows]
        x = np.concatenate([x0, x1[rows], x2, x3[rows]])  # first halves minus second halves
        steps = np.concatenate([h, hg, h, hg])
        scaled = mean_digamma(x, steps, step_positive=True)
        bounds = increment_error(x, steps, scaled, step_positive=True)
        logs = output_logs(n, gamma)
        term, term_error = output_term(h, n, gamma, logs), output_term_error(h, n, logs)
        if rows.size:
            term = np.concatenate([term, term[rows]])
            term_error = np.concatenate([term_error, term_error[rows]])
        out = outward(scaled_difference(steps[:half], scaled[:half], scaled[half:]) + term,
                       bounds[:half] + bounds[half:] + term_error)
        eps = out[:size]
        if rows.size:
            eps[rows] = np.maximum(eps[rows], out[size:])
        return eps


def _guard_loses(k, n, h, x0, x1, x2, x3):
    """Rows where the guard of ``_eq6_outward``, rounded outward, is provably <= eq. (6) rounded outward.

    With inc(x) = log Gamma(x + h) - log Gamma(x) (h > 0, real arithmetic at the float
    arguments x0 ... x3 and h that ``_eq6_outward`` forms), eq. (6) is V0 = inc(x0) -
    inc(x2) + T and the guard V1 = inc(x1) - inc(x3) + T, with the same output term T, so
    G = V0 - V1 = [inc(x0) - inc(x1)] + [inc(x3) - inc(x2)].  d/dt inc(t) = psi(t + h) -
    psi(t) is positive and decreasing in t (psi' > 0 decreasing), and 1/z < psi'(z) <
    1/z + 1/z^2, so for 0 < a <= b: inc(b) - inc(a) >= (b - a)(psi(b + h) - psi(b)) >=
    h (b - a)/(b + h) and inc(a) - inc(b) >= -(b - a)(psi(a + h) - psi(a)) >= -(b - a) h
    (1/a)(1 + 1/a).  Hence, where x0 > x1 >= x3 >= 1 (checked here: gap > 0 gives x0 > x1),
        G / h >= (x0 - x1)/(x0 + h) - 2 max(x2 - x3, 0)/x3 =: gap.
    The outward values: out0 >= V0 (the soundness of ``outward``); the guard's float value
    v1 has |v1 - V1| <= E1 (1 + 3u) + u |v1| (the same bounds, E1 their float sum), so
    out1 = v1 + E1 + 4u |v1| (three roundings) <= V1 + 2.01 E1 + 7u |V1|.  Bounds, for
    k < 1e300 and x1 >= x3 >= 1: x_j + 10 + h <= k (1 + u)^2 + 10 (big <= N), so
    L_j = log(x_j + 10 + h) <= 691; psi >= psi(1) > -0.58 on [1, inf) and psi(z) < log z,
    so |scaled_j| <= L_j (L_j >= log 11) up to the kernel's error and each increment bound
    64u h (2 L_j + |scaled_j|) <= 208.1 u h L_j (a factor 1 + 2^-39 covers the roundings
    and logarithms); |log gamma| <= 745.2 and |log1p(-(n-1) gamma)| <= 37 (1 - (n-1) gamma
    is at least 2^-53 as a float, or eq. (6) is not finite and is refused), so the output
    term's bound is <= 1455.3 (n + 8) u h and E1 <= (2.877e5 + 1455.4 (n + 8)) u h;
    |V1| <= |inc(x1)| + |inc(x3)| + |T| <= h (691 + 691 + 782.2) < 2165 h.  So
    out1 - V1 <= (6.17e5 + 2925.4 n) u h < (6.9e-11 + 3.3e-13 n) h, and
        gap > 1e-10 + 1e-12 n   (as computed; its own rounding is below 1e-15, since both
    of its terms are at most 1 where it passes) gives G > out1 - V1, so
    out1 < V1 + G = V0 <= out0: max(out0, out1) is out0, bit for bit.  NaN inputs fail the
    comparisons (the guard is then evaluated, as before).  Most rows with n >= 4 pass
    (x0 - x1 = k ((n-1) m/N - 2 eta) ~ k eta (n - 3)); rows with n <= 3, where the guard may
    win by an ulp (eta N whole), do not.
    """
    gap = (x0 - x1) / (x0 + h) - 2.0 * np.maximum(x2 - x3, 0.0) / x3
    return (gap > 1e-10 + 1e-12 * n) & (x1 >= x3) & (x3 >= 1.0) & (k < 1e300)


def epsilon_and_delta(k, eta, N, n, gamma):
    """(``epsilon``, ``delta``) of eqs. (6)-(7) for the rows of a chain, validated once.

    Internal (also used by ``composition.chain_privacy``), not part of the public API.

    ``k``, ``eta``, ``gamma`` are finite 1-D float arrays of one length (``as_float_array``),
    ``N`` and ``n`` the rows' totals and sizes from a checked count matrix (whole numbers,
    finite, n >= 2, hence N >= 2).  The same numbers as ``epsilon`` and ``delta`` element
    by element (the same cores ``_eq6_outward`` and ``delta_union``), for
    Theorem 3's rows (``composition.chain_privacy``), with fewer checks.

    The checks are one boolean expression: eta in (0, 1/4), 0 < gamma < 1/n, Assumption 4
    (k >= 3/(2 eta) (1 - REL_SLACK)) and two count vectors above the minimum count m
    (N >= n m + 1), each written as the negation of the check it stands for.  That covers
    the rest: gamma < 1/n gives gamma <= 1/(n-1) and k >= 3/(2 eta) > 6 (1 - REL_SLACK) gives
    k > 0 and k/N >= 3.3e-308 (N <= 1.8e308), a normal float; N >= n m + 1 gives the design
    (n m <= N) and, for n >= 3, 3 eta + 1/N <= 1 + 1e-12 as evaluated: with m >= eta N (1 -
    1e-12)(1 - 3u) and N >= (3 m + 1)(1 - 2u), 3 eta + 1/N <= 1 + 0.75e-12 + 5u, below
    1 + 1e-12 after the sum's own rounding.  If it fails anywhere (also a row with n >= 3
    and no two count vectors, where ``sound_epsilon`` skips its guard) the full checks
    and evaluation run (``_epsilon_and_delta_checked``): they raise the message naming the
    parameter, or give the numbers.
    """
    n = np.asarray(n, float)
    with np.errstate(all="ignore"):                # a failure is refused below, then named
        m = _checks.min_count(eta, N)
        pairs = N >= n * m + 1
        ok = ((eta > 0) & (eta < 0.25) & (gamma > 0) & (gamma < 1.0 / n)
              & (k >= 1.5 / eta * (1 - _checks.REL_SLACK)) & pairs)
    if not ok.all():
        return _epsilon_and_delta_checked(k, eta, N, n, gamma)
    eps = _eq6_outward(k, eta, N, n, gamma, m, pairs)
    return _checks.finite_result("epsilon", eps, k), delta_union(k, eta, N, n, gamma, m)


def _epsilon_and_delta_checked(k, eta, N, n, gamma):
    """``epsilon_and_delta`` through the full checks (``_checks.theorem1_flat_design``, ``sound_epsilon``)."""
    _, args = _checks.theorem1_flat_design(k, eta, N, n, gamma)
    return _checks.finite_result("epsilon", sound_epsilon(*args), args[0]), delta_union(*args)


@_checks.public
def epsilon_star(eta, N, n, gamma):
    """The smallest sound epsilon at k = 3/(2 eta): ``epsilon`` at Assumption 4's floor.

    The sound counterpart of ``epsilon_star_paper`` (Section 3.1): equal to it for
    n >= 3, the corrected eq. (6) for n = 2.  Book: "The exact worst case".

    Parameters
    ----------
    eta : float or array_like
        The border of Assumption 3, 0 < eta < 1/4.
    N : int or array_like
        The number of records, a whole number >= 2.
    n : int or array_like
        The number of categories, a whole number >= 2.
    gamma : float or array_like
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n.

    Returns
    -------
    float or numpy.ndarray
        ``epsilon(k_min(eta), eta, N, n, gamma)``; an array of the broadcast shape if any
        argument is one.

    Raises
    ------
    ValueError
        As ``epsilon``: a parameter outside its range, or a design (eta, N, n) the bound
        cannot be evaluated for.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.epsilon_star(0.073, 98, 5, 4e-4), 4)
    2.2065
    """
    return epsilon(k_min(eta), eta, N, n, gamma)


@_checks.public
def k_for_epsilon(epsilon_target, eta, N, n, gamma):
    """The k at which the sound ``epsilon`` equals ``epsilon_target``: never an unsound k.

    For n >= 3 this is the inverse of eq. (6) (``k_for_epsilon_paper``); for n = 2 the
    inverse of the corrected eq. (6), since eq. (6) can understate the loss there.  The
    root is approached from below: ``epsilon`` at the k returned is at most the target
    and within 1e-13 relative of the root in k.  Broadcasts (all elements solved at once).
    Book: "The exact worst case" (Theorem 1 inverted for calibration).

    Parameters
    ----------
    epsilon_target : float or array_like
        The epsilon wanted, > 0 and at least ``epsilon_star(eta, N, n, gamma)``.
    eta : float or array_like
        The border of Assumption 3, 0 < eta < 1/4.
    N : int or array_like
        The number of records, a whole number >= 2.
    n : int or array_like
        The number of categories, a whole number >= 2.
    gamma : float or array_like
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n.

    Returns
    -------
    float or numpy.ndarray
        The largest k (within 1e-13 relative) with ``epsilon`` at most the target; an
        array of the broadcast shape if any argument is one.

    Raises
    ------
    ValueError
        If ``epsilon_target`` is not positive or is below ``epsilon_star`` (no k allowed
        by Assumption 4 reaches it); if another parameter is outside its range or the
        design (eta, N, n) cannot be evaluated.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> k = dm.k_for_epsilon(3.0, 0.073, 98, 5, 4e-4)
    >>> round(k, 3), bool(dm.epsilon(k, 0.073, 98, 5, 4e-4) <= 3.0)
    (28.181, True)
    """
    return _k_for(epsilon, epsilon_target, eta, N, n, gamma)
