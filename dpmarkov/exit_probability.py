"""The probability of leaving Omega_1 and delta of Theorem 1, eq. (7).

delta is the largest probability, over the count vectors Assumption 3 allows, that the
Dirichlet mechanism's output leaves Omega_1 = {x in the simplex : every x_i >= gamma}.
The minimiser is ``worst_counts`` (n - 1 categories at the minimum count ``min_count``);
the probability is bounded by Boole's inequality (``exit_probability_union``, the default
of ``delta``) or computed by inclusion-exclusion with nested log-space quadrature
(``exit_probability_bounds``, ``exit_probability_exact``).  Book: chapter "delta", which
proves the minimiser and checks every formula against mpmath and by exhaustive search.
Functions broadcast over array arguments unless their docstring says otherwise.
"""
from __future__ import annotations

import numpy as np
from scipy.special import betainc, betaln

from . import _checks
from ._numerics import (
    U,
    betainc_shape_error,
    log_betainc,
    log_betainc_upper,
    outward_probability,
)


@_checks.public
def worst_counts(eta, N, n):
    """The count vector that makes leaving Omega_1 most likely (the minimiser in eq. (7)).

    Our reading of eq. (7): the minimum runs over every count vector of N records in
    n categories allowed by Assumption 3, i.e. integer counts c_i >= ceil(eta*N)
    summing to N.  The minimiser puts the fewest records allowed, m = ceil(eta*N),
    in n-1 categories and the rest, N - (n-1) m, in the last (book: the delta
    chapter proves this and checks it by exhaustive search).  Book: "delta".

    Parameters
    ----------
    eta : float
        The border of Assumption 3, 0 < eta < 1/4 (one number).
    N : int
        The number of records, a whole number >= 2.
    n : int
        The number of categories, a whole number >= 2, at most 1,000,000 (the vector is
        built).

    Returns
    -------
    numpy.ndarray
        The n counts (floats): n-1 times m = ``min_count(eta, N)``, then N - (n-1) m.

    Raises
    ------
    ValueError
        If eta is not in (0, 1/4); N or n is not a whole number >= 2; n exceeds
        1,000,000; or no count vector has every count >= eta*N (n m > N).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.worst_counts(0.073, 98, 5).tolist()
    [8.0, 8.0, 8.0, 8.0, 66.0]
    """
    eta = float(_checks.eta_ok(eta))
    N = _checks.whole_number("N", N, 2)
    n = _checks.length("n", _checks.whole_number("n", n, 2))
    _checks.design_ok(np.asarray(eta), np.asarray(float(N)), np.asarray(float(n)))
    if n > _MAX_VECTOR:
        raise ValueError(f"n={n} categories: worst_counts would build a vector of {n} counts "
                         f"(more than {_MAX_VECTOR}); delta uses its two distinct values "
                         "without building it")
    # [book:worst_counts]
    m = int(_checks.min_count(eta, N))
    return np.array([m] * (n - 1) + [N - (n - 1) * m], dtype=float)


#: worst_counts materialises at most this many categories (8 MB of floats).
_MAX_VECTOR = 1_000_000


@_checks.public
def min_count(eta, N):
    """The fewest records a category may hold under Assumption 3: ceil(eta*N).

    The rounding policy of ``_checks.min_count`` (a relative slack of 1e-12 absorbs the
    float product: eta*N = 7.000000000000001 gives 7), used by every function of the
    package.  Broadcasts.  Book: "delta", "The exact worst case".

    Parameters
    ----------
    eta : float or array_like
        The border of Assumption 3, 0 < eta < 1/4.
    N : int or array_like
        The number of records, whole numbers >= 2.

    Returns
    -------
    float or numpy.ndarray
        ceil(eta*N) as a float; an array of the broadcast shape if an argument is one.

    Raises
    ------
    ValueError
        If some eta is not in (0, 1/4) or some N is not a whole number >= 2.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.min_count(0.07, 100), dm.min_count(0.075, 100)
    (7.0, 8.0)
    """
    out = _checks.min_count(_checks.eta_ok(eta), _checks.integer_at_least("N", N, 2))
    return out if out.ndim else float(out)


@_checks.public
def exit_probability_union(counts, k, gamma):
    """Boole's bound on P(Dir(k C) not in Omega_1) = P(some X_i < gamma).

    sum_i P(X_i < gamma) with X_i ~ Beta(k C_i, k (1 - C_i)) the Dirichlet
    marginal, capped at 1.  It is an upper bound on the exact probability, and
    exceeds it by at most the sum of the pairwise probabilities P(X_i < gamma, X_j < gamma).
    This is the probability inside eq. (7) as ``delta`` bounds it by default.  The value is
    a plain evaluation with SciPy's incomplete Beta function, not rounded outward: it can
    lie below the real sum by SciPy's error (about 1e-12 relative, up to about 1e-8 for
    whole shapes near 1e9).  ``delta`` is the same bound rounded outward, the value to
    release or calibrate with.
    Book: "delta".

    Parameters
    ----------
    counts : array_like
        Records per category (last axis, at least 2 categories): finite whole numbers
        >= 0, each vector with at least one record; a stack ``(..., n)`` gives one bound
        per count vector.  A zero count contributes a term of 1.
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0; an array gives one k per count vector.
    gamma : float or array_like
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n.

    Returns
    -------
    float or numpy.ndarray
        The bound, in [0, 1]; an array of the stack's shape for a stack or array k/gamma.

    Raises
    ------
    ValueError
        If ``counts`` is not a count array (negative, fractional, not finite, fewer than
        2 categories, a vector summing to 0), k is not positive, or gamma is outside
        (0, 1/n).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.exit_probability_union([8, 8, 8, 8, 66], 20.6, 4e-4), 6)
    0.000731
    """
    arr = _checks.counts_array("counts", counts)
    k = _checks.positive("k", k)
    C = arr / arr.sum(axis=-1, keepdims=True)
    kk = k[..., None] if k.ndim else k
    n = arr.shape[-1]
    gamma = _checks.gamma_ok(gamma, np.asarray(float(n)))
    gg = gamma[..., None] if gamma.ndim else gamma
    with np.errstate(all="ignore"):
        terms = np.where(C > 0, betainc(kk * C, kk * (1 - C), gg), 1.0)
    out = np.minimum(terms.sum(axis=-1), 1.0)
    return out if out.ndim else float(out)


# --- the exact exit probability ----------------------------------------------------------------
# P(X_l < t for every l in a block) is a nested integral (one level per extra coordinate).
# Each level integrates over u = log x, in logarithms: the integrand exp(phi(u)) is located by a
# zoom (a grid of _GRID cells on [log t - 36 - log(1 + a + b), log t], shrunk to the cells where phi > max - _DROP
# until that set spans at least a quarter of the grid), then integrated by Gauss-Legendre with
# _NODES nodes per cell.  Below that interval the inner probability and (1 - x)^(b-1) are
# constant to double precision, and the piece is a Beta CDF times the inner probability.  Checked against mpmath (dpmarkov.verify.highprec_privacy).
_GRID = 20


_NODES = 8


_DROP = 80.0


_GL_X, _GL_W = np.polynomial.legendre.leggauss(_NODES)


#: exit_probability_bounds computes the triple terms of the Bonferroni bracket for n >= 5 only
#: when there are at most this many distinct ones (else the upper end is Hunter's bound).
_MAX_TRIPLES = 60


def _log_betainc(a, b, x):
    """log I_x(a, b), -inf where it underflows."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        return np.log(betainc(a, b, x))


def _log_all_below(alphas, rest, log_t):
    """log P(Y_l < t for every l) for Y ~ Dir(alphas, rest), rest > 0; vectorised over log_t.

    Conditioning on the first coordinate x ~ Beta(a, b), b = sum(others) + rest, the
    others divided by 1 - x are Dir(others, rest) and must lie below t/(1 - x).
    """
    a, others = float(alphas[0]), [float(v) for v in alphas[1:]]
    b = sum(others) + rest
    log_t = np.asarray(log_t, float)
    if not others:
        return _log_betainc(a, b, np.exp(log_t))
    log_norm = betaln(a, b)
    flat = log_t.ravel()

    def phi(u, lt):
        """log of the integrand in u = log x (the Jacobian dx = x du gives a u, not (a-1) u)."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            log1m = np.log1p(-np.exp(u))
            inner = _log_all_below(others, rest, lt - log1m)
            return a * u + (b - 1.0) * log1m - log_norm + inner

    # below x_c = t e^-36 / (1 + a + b) the factors (1 - x)^(b-1) and the inner probability at
    # t/(1 - x) equal their values at x = 0 to double precision: that piece is a Beta CDF
    cut = flat - 36.0 - np.log1p(a + b)
    lo = cut.copy()
    hi = flat.copy()
    steps = np.linspace(0.0, 1.0, _GRID + 1)
    active = np.arange(len(flat))
    for _ in range(60):
        la, ha = lo[active], hi[active]
        vals = phi(la[:, None] + (ha - la)[:, None] * steps, flat[active, None])
        top = vals.max(axis=1)
        keep = vals > top[:, None] - _DROP
        first = np.maximum(np.argmax(keep, axis=1) - 1, 0)
        last = np.minimum(_GRID - np.argmax(keep[:, ::-1], axis=1) + 1, _GRID)
        settled = (last - first >= _GRID // 4) | ~np.isfinite(top)
        width = (ha - la) / _GRID
        lo[active] = np.where(settled, la, la + first * width)
        hi[active] = np.where(settled, ha, la + last * width)
        active = active[~settled]
        if not active.size:
            break
    # Gauss-Legendre on the cells of the final interval that touch a grid point with
    # phi > max - _DROP (for a unimodal phi the others hold less than e^-_DROP of the mass)
    rows = len(flat)
    edges = lo[:, None] + (hi - lo)[:, None] * steps
    vals = phi(edges, flat[:, None])
    top = vals.max(axis=1)
    finite = np.isfinite(top)
    keep = vals > np.where(finite, top, np.inf)[:, None] - _DROP
    cell_row, cell = np.nonzero(keep[:, :-1] | keep[:, 1:])
    left, right = edges[cell_row, cell], edges[cell_row, cell + 1]
    half, mid = (right - left) / 2, (right + left) / 2
    nodes = mid[:, None] + half[:, None] * _GL_X
    node_vals = phi(nodes, flat[cell_row, None])
    safe = np.where(finite, top, 0.0)
    with np.errstate(divide="ignore", under="ignore", over="ignore"):
        parts = (half[:, None] * _GL_W * np.exp(node_vals - safe[cell_row, None])).sum(axis=1)
        total = np.zeros(rows)
        np.add.at(total, cell_row, parts)
        body = np.where(finite, safe + np.log(total), -np.inf)
        low = _log_betainc(a, b, np.exp(cut)) + _log_all_below(others, rest, flat)
        out = np.logaddexp(body, low)
    return out.reshape(log_t.shape)


def _exit_terms(values, mult, gamma, size):
    """Inclusion-exclusion terms of one size: (probability, multiplicity) per distinct block.

    ``values`` are the distinct Dirichlet parameters, ``mult`` how often each occurs; a
    block is a multiset of ``size`` parameters, occurring prod_v C(mult_v, r_v) times.
    """
    from itertools import combinations_with_replacement
    from math import comb
    total = float(np.dot(values, mult))
    out = []
    for block in combinations_with_replacement(range(len(values)), size):
        reps = [block.count(v) for v in range(len(values))]
        times = float(np.prod([comb(int(m), r) for m, r in zip(mult, reps)]))
        if times == 0:
            continue
        alphas = [values[v] for v in block]
        rest = total - sum(alphas)
        p = float(np.exp(_log_all_below(alphas, rest, np.log(gamma))))
        out.append((p, times, block))
    return out


def _hunter_upper(values, mult, pair_terms, S1):
    """Hunter's bound S1 - (maximum spanning tree of the pairwise probabilities), n <= 2000."""
    labels = np.repeat(np.arange(len(values)), np.asarray(mult, int))
    n = len(labels)
    W = np.zeros((len(values), len(values)))
    for p, _, (u, v) in pair_terms:
        W[u, v] = W[v, u] = p
    weight = W[labels][:, labels]
    in_tree = np.zeros(n, bool)
    best = weight[0].copy()
    in_tree[0] = True
    tree = 0.0
    for _ in range(n - 1):
        cand = np.where(in_tree, -np.inf, best)
        j = int(np.argmax(cand))
        tree += cand[j]
        in_tree[j] = True
        best = np.maximum(best, weight[j])
    return S1 - tree


def _exit_bounds(values, mult, gamma):
    """(lower, upper) on P(some X_i < gamma), X ~ Dir with parameters ``values`` x ``mult``."""
    values = np.asarray(values, float)
    mult = np.asarray(mult, float)
    n = int(mult.sum())
    total = float(np.dot(values, mult))
    with np.errstate(all="ignore"):
        singles = betainc(values, total - values, gamma)
    S1 = float(np.dot(singles, mult))
    if n == 2:                    # gamma < 1/2: the two events are disjoint
        value = min(S1, 1.0)
        return value, value
    pairs = _exit_terms(values, mult, gamma, 2)
    S2 = sum(p * t for p, t, _ in pairs)
    lower, upper = S1 - S2, S1
    if n <= 4 or len(values) <= 3 or _n_triples(len(values)) <= _MAX_TRIPLES:
        triples = _exit_terms(values, mult, gamma, 3) if n >= 4 else []
        S3 = sum(p * t for p, t, _ in triples)
        upper = S1 - S2 + S3
        if n <= 4:            # gamma < 1/n: all n events never occur together
            lower = upper
    if n >= 5 and n <= 2000:
        upper = min(upper, _hunter_upper(values, mult, pairs, S1))
    floor = float(singles.max())
    lower = min(max(lower, floor, 0.0), 1.0)
    upper = min(max(upper, lower), S1, 1.0)
    return min(lower, upper), upper


def _n_triples(d):
    from math import comb
    return comb(d + 2, 3)


def _exit_args(counts, k, gamma):
    arr = _checks.counts_array("counts", counts)
    if arr.ndim != 1:
        raise ValueError(f"counts has shape {arr.shape}: the exact exit probability takes one "
                         "count vector")
    n = arr.shape[-1]
    if np.any(arr == 0):
        raise ValueError(f"counts={arr.tolist()} has a zero count: Dir(k*C) needs every "
                         "count > 0 (Assumption 3)")
    k = _checks.positive("k", k)
    gamma = _checks.gamma_ok(gamma, np.asarray(float(n)))
    if k.ndim or gamma.ndim:
        raise ValueError(f"k={k!r} and gamma={gamma!r} must be scalars for the exact exit "
                         "probability")
    values, mult = np.unique(arr, return_counts=True)
    alpha = float(k) * values / arr.sum()
    if np.any(alpha < np.finfo(float).tiny):
        raise ValueError(f"k={float(k)!r} makes k*C_i underflow below the smallest normal "
                         "float: Dir(k*C) cannot be evaluated")
    return alpha, mult, float(gamma)


@_checks.public
def exit_probability_bounds(counts, k, gamma):
    """A bracket (lower, upper) on P(Dir(k C) not in Omega_1), any n, valid in real arithmetic.

    Inclusion-exclusion over {X_i < gamma} with S_r the sum of the r-fold terms:
    n = 2, 3, 4 give the exact value (lower = upper: all n events never occur together
    since gamma < 1/n, so P = S1 - S2 + S3 for n = 4).  For n >= 5 the Bonferroni
    inequalities give S1 - S2 <= P <= S1 - S2 + S3, sharpened by Hunter's spanning-tree
    bound and by max_i P(X_i < gamma) <= P <= min(S1, 1); identical counts are grouped,
    so the worst count vector of eq. (7) costs a few terms at any n.  The width of the
    bracket is at most S3 (about S1^3 / 6 for nearly independent coordinates).
    Terms are nested log-space quadratures and SciPy's incomplete Beta function (about 1e-12
    relative, but up to 2e-8 for whole shapes with the smaller below 40 and a sum near 1e9:
    ``_numerics.betainc_budget``); the bracket is not rounded outward.  Book: "delta".

    Parameters
    ----------
    counts : array_like of shape (n,)
        One count vector: finite whole numbers, each > 0, at least 2 categories.
    k : float
        The Dirichlet parameter (Definition 5), > 0 (one number), with every k*C_i
        above the smallest normal float.
    gamma : float
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n (one
        number).

    Returns
    -------
    tuple of float
        (lower, upper), 0 <= lower <= upper <= 1; equal for n <= 4.

    Raises
    ------
    ValueError
        If ``counts`` is not one count vector of positive whole numbers, k is not a
        positive number, gamma is outside (0, 1/n), k or gamma is an array, or some k*C_i
        underflows.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> lower, upper = dm.exit_probability_bounds([10, 20, 30], 20.0, 0.01)
    >>> lower == upper, round(upper, 6)
    (True, 0.000304)
    """
    alpha, mult, gamma = _exit_args(counts, k, gamma)
    return _exit_bounds(alpha, mult, gamma)


@_checks.public
def exit_probability_exact(counts, k, gamma):
    """P(Dir(k C) not in Omega_1) = P(some X_i < gamma): eq. (7)'s probability, for every n.

    Exact for n <= 4 (inclusion-exclusion with nested log-space quadrature, right for
    every k, checked against mpmath in the delta chapter and the tests); for n >= 5 the
    upper end of the bracket of ``exit_probability_bounds``, so never below the true value
    up to the floating-point error of its terms (not rounded outward).  Always in
    [max_i P(X_i < gamma), min(1, Boole's bound)].
    ``counts`` is one count vector, ``k`` and ``gamma`` scalars.  Book: "delta".

    Parameters
    ----------
    counts : array_like of shape (n,)
        One count vector: finite whole numbers, each > 0, at least 2 categories.
    k : float
        The Dirichlet parameter (Definition 5), > 0 (one number).
    gamma : float
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n (one
        number).

    Returns
    -------
    float
        The probability (n <= 4) or the upper end of its bracket (n >= 5), in [0, 1].

    Raises
    ------
    ValueError
        As ``exit_probability_bounds``: counts not one vector of positive whole numbers,
        k not positive, gamma outside (0, 1/n), k or gamma an array, or k*C_i underflowing.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.exit_probability_exact([10, 20, 30], 20.0, 0.01), 6)
    0.000304
    """
    return exit_probability_bounds(counts, k, gamma)[1]


_DELTA_METHODS = ("union", "exact")


#: A bound on the logarithm's share of a tail that ``delta_union`` leaves out (at most e^-40
#: of the sum: log(1 + e^-40) < 2^-57).
_NEGLECTED = 2.0 ** -57


def delta_union(k, eta, N, n, gamma, m=None):
    """eq. (7) with Boole's bound at ``worst_counts``, on checked flat arrays (``delta``'s core).

    Internal (also used by ``baselines``), not part of the public API.

    One broadcast evaluation, in logarithms: (n-1) Beta tails at the minimum count m plus
    the one at N - (n-1) m (``log_betainc``, exact in relative terms also where a tail is
    far below the smallest double), capped at 1, rounded outward (``outward_probability``,
    which also covers the last subnormal spacing) by the tails' error bounds, the effect of
    the rounding of their shapes k c/N and k (1 - c/N) (``betainc_shape_error``, a bound on
    the change of the logarithm; 1 - c/N loses c/(N - c) ulps) and the sum's rounding: never
    below eq. (7)'s union bound (tests: 60-digit mpmath, n = 2 to 5).  The tail at the large
    count is left out, its share counted in the error bound, where ``log_betainc_upper``
    shows it below e^-40 of the sum (most rows of a chain with many transitions;
    tests/test_delta.py).
    ``m``: ``min_count(eta, N)`` when the caller has it already.
    """
    if m is None:
        m = _checks.min_count(eta, N)
    k, N, n, gamma, m = np.broadcast_arrays(k, N, n, gamma, m)

    def shapes(c):
        """The tail's shapes at count c and the bound on the effect of their rounding."""
        a, b = k * (c / N), k * (1 - c / N)
        return a, b, betainc_shape_error(a, b, gamma, 3.0 * U, (3.0 + c / (N - c)) * U)

    with np.errstate(all="ignore"):
        a, b, shape_small = shapes(m)
        small, err_small = log_betainc(a, b, gamma, error=True)
        err_small += shape_small
        head = np.log(n - 1.0) + small
        a, b, shape_large = shapes(N - (n - 1) * m)
        # The tail at the large count (never above the other: a larger first shape, a
        # smaller second) is left out where a cheap bound on it (the series' first term,
        # ``log_betainc_upper``) is e^40 below the other term even after that term's error:
        # the share left out is then below e^-40 < 2^-57 of the sum, which the error bound
        # counts (``_NEGLECTED``).  Only the other rows compute it (scipy's betainc, the
        # series of ``log_betainc`` below 1e-200).
        large, err_large = np.full(a.shape, -np.inf), np.zeros(a.shape)
        need = ~(log_betainc_upper(a, b, gamma) + shape_large < head - err_small - 40.0)
        if need.any():
            tail, err = log_betainc(a[need], b[need], gamma[need], error=True)
            large[need], err_large[need] = tail, err + shape_large[need]
        left_out = ~need
        err_large[left_out] = err_small[left_out] + _NEGLECTED    # the max below takes it
        log_sum = np.logaddexp(head, large)
        # both terms are positive: the sum's logarithm is off by at most the larger error,
        # plus the roundings of log(n - 1), the sum and logaddexp
        # (a tail whose logarithm is -inf weighs nothing in the sum)
        sizes = np.where(np.isfinite(small), np.abs(small), 0.0) + np.where(
            np.isfinite(large), np.abs(large), 0.0)
        error = np.maximum(err_small, err_large) + 8.0 * U * (sizes + 1.0)
    return outward_probability(log_sum, error)


@_checks.public
def delta(k, eta, N, n, gamma, *, method="union"):
    """delta of Theorem 1, eq. (7): the largest probability of leaving Omega_1.

    delta = 1 - min_C P(Dir(k C) in Omega_1), the minimum over the count vectors
    allowed by Assumption 3 (integer counts >= ceil(eta N) summing to N, rounding policy
    of ``min_count``).  The minimiser is ``worst_counts`` (book: the delta chapter proves
    it and checks it by exhaustive search), so delta is the exit probability there.

    ``method="union"`` (default) replaces the probability by Boole's bound
    (``exit_probability_union``): never below eq. (7)'s delta, so the guarantee is
    not weakened, and rounded outward by a bound on its own floating-point error, down to
    the smallest double (tails below 1e-200 are summed in logs, a subnormal value is
    raised by the spacings its roundings can lose): the value to release or calibrate with.  ``method="exact"`` computes it by
    ``exit_probability_exact`` (for n >= 5 the upper end of a Bonferroni bracket), to
    measure how loose Boole's bound is; its quadrature carries no proven error bound,
    so it is not rounded outward and is not meant for a release.  The worst vector has
    two distinct counts, so any n costs the same.  Broadcasts over all arguments.
    Book: "delta".

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
    method : {"union", "exact"}, optional
        Boole's bound, rounded outward (default), or the exact probability.

    Returns
    -------
    float or numpy.ndarray
        delta; an array of the arguments' broadcast shape if any is an array.

    Raises
    ------
    ValueError
        If ``method`` is not "union" or "exact"; if a parameter breaks the rules above;
        or if no count vector of N records in n categories has every count >= eta*N.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.delta(20.6, 0.073, 98, 5, 4e-4), 6)
    0.000731
    """
    method = _checks.choice("method", method, _DELTA_METHODS)
    shape, args = _checks.theorem1_flat_design(k, eta, N, n, gamma)
    if method == "union":
        out = delta_union(*args).reshape(shape)
        return out if out.ndim else float(out)
    out = np.empty(len(args[0]))
    # [book:delta]
    for idx, (kk, e, NN, nn, g) in enumerate(zip(*args)):
        m = float(_checks.min_count(e, NN))
        big = NN - (nn - 1) * m
        values = np.array([m, big]) * kk / NN
        mult = np.array([nn - 1, 1.0])
        if big == m:
            values, mult = values[:1], np.array([nn])
        out[idx] = _exit_bounds(values, mult, g)[1]
    # [/book:delta]
    out = out.reshape(shape)
    return out if out.ndim else float(out)

