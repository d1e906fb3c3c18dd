"""The tight privacy profile of the Dirichlet mechanism: the exact delta(epsilon).

Theorem 1 gives one (epsilon, delta) pair through probabilistic DP (Definition 6),
which only upper-bounds what Definition 4 asks.  The mechanism is (epsilon, delta)-DP
exactly when delta >= sup over adjacent c, c' of the hockey-stick divergence

    H_eps(P || Q) = sup_T [P(T) - e^eps Q(T)] = E_P[(1 - e^(eps - L))_+],

with P = Dir(k c/N), Q = Dir(k c'/N) and L the privacy loss.  For c' = c + e_i - e_j the
loss depends on x only through V = x_j / (x_i + x_j), which is Beta(k c_j/N, k c_i/N)
under P and Beta(k(c_j - 1)/N, k(c_i + 1)/N) under Q, so H_eps is a difference of two
Beta tail probabilities.  The worst adjacent pair is (m, m + 1) for n >= 3 (a proof);
for n = 2 a branch and bound on the same monotonicity certifies it at every call
(``_two_category_max``).  Book: chapter "The tight privacy profile", which derives
this, finds the worst pair and checks everything by quadrature and Monte Carlo.
"""
from __future__ import annotations

import numpy as np
from scipy.special import betainc, betaln

from . import _checks
from .loss import adjacent_indices, scalar_pair_design
from .privacy import lgamma_increment

# profile_pairs lists every adjacent pair for n = 2: at most this many.
_MAX_LIST = 2_000_000
# n = 2: counts are handled as doubles, exact up to 2**53.
_MAX_N_TWO = 2 ** 53
# branch and bound (n = 2): a block is dropped when its bound is below the best value
# found by this relative margin, far above the evaluation error of H (1e-9 relative
# against 40-digit quadrature, tests/test_profile.py; about 1e-8 between tied pairs
# at N = 1e9), so a dropped block never holds a larger computed value either and the
# result is the full scan's, to the last bit.
_MARGIN = 1e-6
# after this many evaluations a block whose bound is within the margin above the best
# value is no longer split: its bound is taken instead (a profile flat to 1e-6 over
# thousands of pairs, m within about 1e-3 N of N/2; the result then exceeds the
# maximum by at most the margin, never falls below it)
_BUDGET = 512
# at most this many pairs (N - 2m) are evaluated all at once, as the full scan does
_SCAN = 2048
# a kept block of at most this many pairs is evaluated pair by pair instead of halved
_LEAF = 16
# the branch and bound gives up (ValueError) after this many evaluations: values equal to
# within their rounding error over so many pairs cannot be ranked in double precision
_MAX_EVALUATIONS = 1_000_000


def _log_lower_tail(a, b, log_u):
    """log P(Beta(a, b) < u) given log u, also when u underflows.

    For log u < -700, I_u(a, b) = u^a / (a B(a, b)) * (1 + O(u)) and the O(u) term is
    below 1e-300: the leading term is exact in double precision.  This matters for a
    small k, where the tail that decides L > eps sits at 1 - V < e^(-1000) and more.
    """
    tiny = log_u < -700.0
    with np.errstate(divide="ignore"):
        regular = np.log(betainc(a, b, np.exp(np.where(tiny, -700.0, log_u))))
    asymptotic = a * log_u - np.log(a) - betaln(a, b)
    return np.where(tiny, asymptotic, regular)


def _pair_profile(eps, c_i, c_j, k, N):
    """H_eps for c = (.., c_i, .., c_j, ..) -> c' = c + e_i - e_j; eps (m,) x pairs (p,) -> (m, p).

    L = D + h logit(V), D = loss data term, h = k/N; L > eps iff 1 - V < u with
    u = expit((D - eps)/h); 1 - V is Beta(a_i, a_j) under P and Beta(a_i + h, a_j - h)
    under Q, so H = P(1-V < u) - e^eps Q(1-V < u) = P(..) (1 - e^(eps + log Q - log P)).
    """
    return _pair_tails(eps, *_pair_terms(c_i, c_j, k, N))


def _pair_terms(c_i, c_j, k, N):
    """The parts of ``_pair_profile`` that do not depend on eps: (a_i, a_j, h, D)."""
    h = k / N
    a_i, a_j = k * c_i / N, k * c_j / N
    return a_i, a_j, h, lgamma_increment(a_i, h) - lgamma_increment(a_j - h, h)


def _pair_tails(eps, a_i, a_j, h, data):
    """``_pair_profile`` from its eps-free terms (``_pair_terms``): the two Beta tails."""
    eps = np.asarray(eps, float)[:, None]
    log_u = -np.logaddexp(0.0, (eps - data) / h)
    log_p = _log_lower_tail(a_i, a_j, log_u)
    log_q = _log_lower_tail(a_i + h, a_j - h, log_u)
    with np.errstate(invalid="ignore"):
        out = np.exp(log_p) * -np.expm1(eps + log_q - log_p)
    out = np.where(np.isneginf(log_p), 0.0, out)
    return np.maximum(out, 0.0)


@_checks.public
def hockey_stick(epsilon, counts, counts_prime, k):
    """H_eps(Dir(k c/N) || Dir(k c'/N)) for adjacent counts: the exact delta of one pair.

    The smallest delta such that P(T) <= e^eps Q(T) + delta for every set T
    (Definition 4 restricted to this pair); computed as
    P(1 - V < u) - e^eps Q(1 - V < u) with Beta tails, in logarithms so that a tail
    at u below the smallest double (small k) is still exact (book: tight profile chapter).
    Rounding can leave a result of order 1e-16 below 0 when the divergence is 0; it
    is returned as 0.  Broadcasts over ``epsilon`` (>= 0).
    """
    i, j = adjacent_indices(counts, counts_prime)
    c = _checks.counts_array("counts", counts)
    k = _checks.positive("k", k)
    if k.ndim:
        raise ValueError(f"k={k!r} must be a scalar")
    eps = _epsilons(epsilon)
    if c[j] < 2:
        raise ValueError(f"counts_prime has a zero count in category {j}: Dir(k*C') needs "
                         "every count > 0 (Assumption 3)")
    if c[i] < 1:
        raise ValueError(f"counts has a zero count in category {i}: Dir(k*C) needs every "
                         "count > 0 (Assumption 3)")
    out = _pair_profile(eps.ravel(), c[i], c[j], float(k), c.sum())[:, 0].reshape(eps.shape)
    return out if out.ndim else float(out)


def _epsilons(epsilon):
    eps = _checks.as_float_array("epsilon", epsilon)
    bad = eps < 0
    if np.any(bad):
        raise ValueError(f"epsilon={_checks._first_bad(eps, bad)!r} must be >= 0")
    return eps


def _design(k, N, n, min_count):
    """Checked (k array, N, n, m): k broadcasts, N, n and min_count are scalars."""
    _, N, n, m = scalar_pair_design(1.0, N, n, min_count,
                                    "only epsilon (or delta) and k broadcast")
    k = _checks.positive("k", k)
    _two_categories_exact(N, n)
    return k, N, n, m


def _two_categories_exact(N, n):
    """For n = 2 the counts are handled as doubles, exact up to 2**53: refuse a larger N.

    N and n are checked scalars or arrays (one design per element).
    """
    huge = (np.asarray(n) == 2) & (np.asarray(N) > _MAX_N_TWO)
    if np.any(huge):
        first = np.broadcast_to(N, huge.shape)[huge][0] if huge.ndim else N
        raise ValueError(f"N={first:.0f} with n=2 exceeds 2**53: counts above it are not "
                         "exact in double precision")


def _together(name, x, k):
    """x and k broadcast against each other, or a ValueError naming both shapes."""
    try:
        return np.broadcast_arrays(x, k)
    except ValueError:
        raise ValueError(f"{name} (shape {x.shape}) and k (shape {k.shape}) do not broadcast "
                         "together") from None


def _two_category_max(eps, k, N, m):
    """max over c in [m, N-m-1] of H_eps(c, N - c) for each eps (1-d), and the pairs evaluated.

    Branch and bound (book: "The worst pair for two categories").  H(c_i, c_j) does not
    increase in either count (``profile_pairs``), so on a block c0 <= c <= c1 of pairs
    (c, N - c) it is at most H(c0, N - c1), one evaluation.  Start from the two end
    pairs; a block whose bound is below the best value found (by the margin
    ``_MARGIN``) for every eps is dropped, any other is halved (listed pair by pair
    once it is short); a block of one pair has its bound equal to its value.  After
    ``_BUDGET`` evaluations, a block whose bound is at most 1 + ``_MARGIN`` times the
    best value is no longer split and its bound counts as a value (a profile flat to
    1e-6 over thousands of pairs, m close to N/2: the result is then above the
    maximum by at most that margin, never below it).  At
    eps = 0 (total variation, symmetric) the pairs c and N - 1 - c have the same H
    (mirror x_j/(x_i + x_j)), so only c <= (N - 1)/2 is searched.  The result is the
    maximum over all N - 2m pairs (up to the flat case).  At most ``_SCAN`` pairs are
    simply all evaluated in one vectorised call.
    """
    if N - 2 * m <= _SCAN:                       # few pairs: one vectorised evaluation
        c = np.arange(m, N - m, dtype=float)
        return _pair_profile(eps, c, N - c, k, N).max(axis=1), c.size
    best = np.empty(eps.shape)
    count = 0
    for zero in (True, False):
        at = (eps == 0) == zero
        if at.any():
            top = (N - 1) // 2 if zero else N - m - 1
            e = eps[at]
            best[at], used = _branch_and_bound(
                lambda c_i, c_j: _pair_profile(e, c_i, c_j, k, N), N, m, top)
            count += used
    return best, count


def _branch_and_bound(value, N, m, top):
    """max over c in [m, top] and c = N - m - 1 of value(c, N - c); see ``_two_category_max``.

    ``value(c_i, c_j)`` maps two arrays of counts (p,) to an array (e, p) of values >= 0
    that do not increase in c_i nor in c_j (one row per epsilon).  Returns the row
    maxima (e,) and the number of pairs evaluated.  If the values are too flat to rank
    (more than ``_MAX_EVALUATIONS`` evaluations: their rounding errors exceed their
    differences over that many pairs), a ValueError says so instead of exhausting memory.
    """
    lo, hi = m, N - m - 1
    ends = np.unique(np.array([lo, hi], dtype=float))
    best = value(ends, N - ends).max(axis=1)
    top = min(top, hi - 1)
    inner = top - lo >= 1                                  # the block [lo + 1, top]
    c0, c1 = np.array([lo + 1.0] * inner), np.array([float(top)] * inner)
    count = ends.size
    ceiling = np.zeros(best.shape)
    while c0.size:
        bound = value(c0, N - c1)
        count += c0.size
        single = c0 == c1
        if single.any():
            best = np.maximum(best, bound[:, single].max(axis=1))
        keep = ~single & np.any(bound > best[:, None] * (1 - _MARGIN), axis=0)
        if count > _BUDGET:                  # flat profile: stop at the margin, from above
            flat = keep & np.all(bound <= best[:, None] * (1 + _MARGIN), axis=0)
            if flat.any():
                ceiling = np.maximum(ceiling, bound[:, flat].max(axis=1))
            keep &= ~flat
        c0, c1 = c0[keep], c1[keep]
        if count > _MAX_EVALUATIONS and c0.size:
            raise ValueError(
                f"N={N:.0f}, min_count={m:.0f}: the n = 2 pairs' values differ by less than "
                f"their rounding error over more than {_MAX_EVALUATIONS} pairs, so their maximum "
                "cannot be located in double precision (try a smaller N)")
        short = c1 - c0 < _LEAF                      # list its pairs one by one
        pts = np.concatenate([np.arange(a, b + 1) for a, b in zip(c0[short], c1[short])]
                             + [np.empty(0)])
        c0, c1 = c0[~short], c1[~short]
        mid = np.floor((c0 + c1) / 2)
        c0, c1 = np.concatenate([c0, mid + 1, pts]), np.concatenate([mid, c1, pts])
    return np.maximum(best, ceiling), count


def _profile_one_k(eps, k, N, n, m):
    """privacy_profile for one k and a 1-d array of epsilons."""
    if n >= 3:
        return _pair_profile(eps, np.array([float(m)]), np.array([m + 1.0]), k, N)[:, 0]
    return _two_category_max(eps, k, N, m)[0]


@_checks.public
def profile_pairs(N, n, min_count):
    """The (c_i, c_j) that can be the worst adjacent pair for ``privacy_profile``.

    c' = c + e_i - e_j.  For n >= 3 the single pair (m, m+1): the divergence does
    not increase when either count grows (book: a Beta-multiplication kernel maps
    the pair (c_i, c_j) onto (c_i + t, c_j) and (c_i, c_j + t), and the hockey-stick
    divergence cannot grow under post-processing), and (m, m+1) is feasible when
    n >= 3.  For n = 2, c_i + c_j = N is forced and every c_i in [m, N-m-1] is
    returned (at most 2e6 of them); ``privacy_profile`` does not scan them but
    bounds blocks of them (branch and bound).  Assumption 3: m = ceil(eta N).
    """
    _, N, n, m = _design(1.0, N, n, min_count)
    if n >= 3:
        return np.array([float(m)]), np.array([float(m + 1)])
    if N - 2 * m > _MAX_LIST:
        raise ValueError(f"N={N}, min_count={m}: n=2 has {N - 2 * m} adjacent pairs, more "
                         f"than {_MAX_LIST} to list (privacy_profile needs no list)")
    c_i = np.arange(m, N - m, dtype=float)
    return c_i, N - c_i


@_checks.public
def privacy_profile(epsilon, k, N, n, min_count):
    """The tight delta(epsilon) of the Dirichlet mechanism (Definition 4; compare Theorem 1).

    delta(eps) = max over adjacent count vectors c, c' (Definition 3) with every
    count >= ``min_count`` (= ceil(eta N) under Assumption 3) of the hockey-stick
    divergence H_eps(Dir(k c/N) || Dir(k c'/N)).  The mechanism is (eps, delta)-DP
    if and only if delta >= privacy_profile(eps, ...).  For n >= 3 the maximum is
    the pair (m, m+1) (``profile_pairs``); for n = 2 it is found exactly, without a
    scan, by a branch and bound on the same monotonicity (a few dozen Beta-tail
    evaluations at any N up to 2**53).  ``epsilon`` (>= 0) and ``k`` broadcast
    together; ``N``, ``n``, ``min_count`` are scalars.  Book: "The tight privacy profile".
    """
    k, N, n, m = _design(k, N, n, min_count)
    eps, k = _together("epsilon", _epsilons(epsilon), k)
    out = np.empty(eps.shape)
    for kv in np.unique(k):
        at = k == kv
        out[at] = _profile_one_k(eps[at], float(kv), N, n, m)
    return out if out.ndim else float(out)


def _root(func, target):
    """The smallest eps >= 0 with func(eps) <= target, func decreasing, func(0) > target."""
    from scipy.optimize import brentq   # imported here: scipy.optimize costs 0.7 s to import
    hi = 1.0
    while func(hi) > target:
        hi *= 2
    return brentq(lambda e: func(e) - target, hi / 2 if hi > 1 else 0.0, hi,
                  xtol=1e-12, rtol=1e-12)


def _epsilon_one(target, k, N, n, m):
    """epsilon_for_delta for one (delta, k)."""
    c_i, c_j = float(m), float(m + 1 if n >= 3 else N - m)
    terms = _pair_terms(np.array([c_i]), np.array([c_j]), k, N)   # once, not per eps tried

    def pair(e):                      # H_e of the pair (m, m+1) or (m, N-m)
        return _pair_tails(np.array([e]), *terms)[0, 0]
    # the profile at 0 is >= the pair's: search the other pairs only if the pair is <= target
    if pair(0.0) <= target and _profile_one_k(np.array([0.0]), k, N, n, m)[0] <= target:
        return 0.0
    if n >= 3:
        return _root(pair, target)
    # n = 2: solve on the pair (m, N - m), then check by branch and bound that no other
    # pair is larger there; the profile is >= that pair's H everywhere, so then the two
    # roots coincide.  Otherwise (rounding noise of H at tiny eps, or in principle a
    # different worst pair) step up from that root, doubling the step, to the first eps
    # where the profile is <= delta, and bisect to 1e-6 relative: an eps where the
    # profile is <= delta, never below the profile's root.
    def full(x):
        return _two_category_max(np.array([x]), k, N, m)[0][0]
    e = _root(pair, target)
    at_e = full(e)
    if at_e <= max(pair(e), target):
        return e
    # first step: twice the secant guess from the pair's slope, at least 1e-9 relative
    de = 1e-6 * max(e, 1e-12)
    slope = (pair(e) - pair(e + de)) / de
    step = max(2 * (at_e - target) / slope if slope > 0 else 0.0, 1e-9 * max(e, 1e-12))
    lo, hi = e, e + step
    while full(hi) > target:
        lo, step = hi, 2 * step
        hi = lo + step
    while hi - lo > 1e-6 * hi:                 # bisect, keeping full(hi) <= delta
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if full(mid) > target else (lo, mid)
    return hi


@_checks.public
def epsilon_for_delta(delta, k, N, n, min_count):
    """The smallest epsilon >= 0 with privacy_profile(epsilon) <= delta: the inverse profile.

    The tight epsilon at a given delta (Definition 4), to compare with Theorem 1's
    eq. (6).  The profile decreases in epsilon, so the root is unique; it is found
    by bracketing and Brent's method (absolute and relative tolerance 1e-12).  For
    n = 2 the root is taken on the pair (m, N - m) and a branch and bound checks that
    it is the worst pair there; if not (at tiny epsilon other pairs can exceed it by
    rounding noise, about 1e-8 relative at N = 1e9, or a flat profile's bound by 1e-6),
    an epsilon above it at which the whole profile is <= delta, within 1e-6 relative
    of the crossing.  Returns 0 when
    delta is at least the profile at epsilon = 0 (the total variation distance).
    ``delta`` in (0, 1) and ``k`` broadcast together; ``N``, ``n``, ``min_count`` are
    scalars.  Book: "The tight privacy profile".
    """
    d = _checks.as_float_array("delta", delta)
    bad = (d <= 0) | (d >= 1)
    if np.any(bad):
        raise ValueError(f"delta={_checks._first_bad(d, bad)!r} must satisfy 0 < delta < 1")
    k, N, n, m = _design(k, N, n, min_count)
    d, k = _together("delta", d, k)
    out = np.array([_epsilon_one(float(t), float(kv), N, n, m)
                    for t, kv in zip(d.ravel(), k.ravel())]).reshape(d.shape)
    return out if out.ndim else float(out)
