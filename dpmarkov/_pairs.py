"""Internal: adjacent pairs of count vectors and the exact search for the worst one.

Not part of the public API (nothing here is exported from ``dpmarkov``); the names without a
leading underscore are the interface that ``loss``, ``privacy``, ``profile``, ``renyi``,
``accounting``, ``baselines``, ``audit`` and ``verify`` share:

- adjacency of Definition 3 on counts (``adjacent_indices_named``), when two different
  adjacent count vectors exist (``pairs_exist``), and the checked scalar design of a
  worst-pair computation (``scalar_pair_design``, ``rdp_design``);
- the hockey-stick divergence of one adjacent pair from two Beta tails (``pair_profile``,
  split as ``pair_terms`` and ``pair_profile_at`` for a root search over epsilon);
- the exact search over the n = 2 pairs without a scan: ``branch_and_bound`` on any
  value that does not increase in either count (the privacy profile's and the Renyi DP
  curve's), ``two_category_max`` and ``profile_one_k`` for the profile.

Book: "The tight privacy profile" (the Beta tails, the worst pair and the branch and
bound), "Many releases" (the same search for the Renyi DP curve).
"""
from __future__ import annotations

import numpy as np

from . import _checks
from ._numerics import (TINY, U, above_floor, betainc_shape_error, increment_difference,
                        log_lower_tail, outward)

def adjacent_indices_named(counts, counts_prime, prime_name):
    """``adjacent_indices`` with the caller's name for the second vector in its messages
    (the audit's functions call it ``counts_adjacent``)."""
    c = _checks.counts_array("counts", counts)
    cp = _checks.counts_array(prime_name, counts_prime)
    if c.ndim != 1 or cp.shape != c.shape:
        raise ValueError(f"counts (shape {c.shape}) and {prime_name} (shape {cp.shape}) must be "
                         "two count vectors of the same length")
    diff = cp - c
    up, down = np.flatnonzero(diff == 1), np.flatnonzero(diff == -1)
    if len(up) != 1 or len(down) != 1 or np.count_nonzero(diff) != 2:
        raise ValueError(f"counts={c.tolist()} and {prime_name}={cp.tolist()} are not adjacent: "
                         "adjacent count vectors differ by one record moving between two "
                         "categories, N fixed (Definition 3)")
    return int(up[0]), int(down[0])


def pairs_exist(N, n, m, what, where=True):
    """Two different count vectors c, c + e_i - e_j with every count >= m exist iff N >= n m + 1.

    Otherwise adjacent databases (Definition 3) still exist, but a record can only be
    replaced by one in the same category, so every privacy loss is 0.  Checked where
    ``where`` holds.
    """
    bad = (N < n * m + 1) & where
    if np.any(bad):
        NN, nn, mm = (_checks.first_bad(np.asarray(v), bad) for v in (N, n, m))
        raise ValueError(
            f"N={NN:.0f} < n*{what}+1={nn * mm + 1:.0f} with n={nn:.0f}, {what}={mm:.0f}: "
            "at most one count vector has every count >= the minimum, so no two adjacent "
            "databases have different count vectors (Definition 3), every privacy loss is 0 "
            "and there is nothing to bound")


def scalar_pair_design(k, N, n, min_count, broadcasts):
    """Scalar (k, N, n, min_count) of a worst-pair computation, checked, with adjacent pairs.

    ``broadcasts`` names what the caller broadcasts over, for the message.  Shared by the
    tight privacy profile and the Renyi DP curve.
    """
    k = _checks.positive("k", k)
    N = _checks.integer_at_least("N", N, 2)
    n = _checks.integer_at_least("n", n, 2)
    m = _checks.integer_at_least("min_count", min_count, 1)
    for name, v in (("k", k), ("N", N), ("n", n), ("min_count", m)):
        if v.ndim:
            raise ValueError(f"{name}={v!r} must be a scalar ({broadcasts})")
    pairs_exist(N, n, m, "min_count")
    return float(k), int(N), int(n), int(m)



def rdp_design(k, N, n, min_count):
    """``scalar_pair_design`` for the Renyi DP curve, also refusing a subnormal k/N."""
    k, N, n, m = scalar_pair_design(k, N, n, min_count, "rdp_epsilon broadcasts over alpha")
    if k / N < 1e-300:
        raise ValueError(f"k={k!r} gives k/N={k / N:.3g}: below 1e-300 the Dirichlet "
                         "parameters k*c/N are subnormal and the divergence cannot be "
                         "computed in double precision")
    return k, N, n, m



# profile_pairs lists every adjacent pair for n = 2: at most this many.
MAX_LIST = 2_000_000
# n = 2: counts are handled as doubles, exact up to 2**53.
MAX_N_TWO = 2 ** 53
# branch and bound (n = 2): a block is dropped when its bound is below the best value
# found by this relative margin, far above the evaluation error of H (1e-9 relative
# against 40-digit quadrature, tests/test_profile.py; about 1e-8 between tied pairs
# at N = 1e9), so a dropped block never holds a larger computed value either and the
# result is the full scan's, to the last bit.
MARGIN = 1e-6
# after this many evaluations a block whose bound is within the margin above the best
# value is no longer split: its bound is taken instead (a profile flat to 1e-6 over
# thousands of pairs, m within about 1e-3 N of N/2; the result then exceeds the
# maximum by at most the margin, never falls below it)
BUDGET = 512
# at most this many pairs (N - 2m) are evaluated all at once, as the full scan does
SCAN = 2048
# a kept block of at most this many pairs is evaluated pair by pair instead of halved
LEAF = 16
# the branch and bound gives up (ValueError) after this many evaluations: values equal to
# within their rounding error over so many pairs cannot be ranked in double precision
MAX_EVALUATIONS = 1_000_000


def pair_profile(eps, c_i, c_j, k, N):
    """H_eps for c = (.., c_i, .., c_j, ..) -> c' = c + e_i - e_j; eps (m,) x pairs (p,) -> (m, p).

    L = D + h logit(V), D = loss data term, h = k/N; L > eps iff 1 - V < u with
    u = expit((D - eps)/h); 1 - V is Beta(a_i, a_j) under P and Beta(a_i + h, a_j - h)
    under Q, so H = P(1-V < u) - e^eps Q(1-V < u) = P(..) (1 - e^(eps + log Q - log P)).
    """
    return pair_profile_at(eps, *pair_terms(c_i, c_j, k, N))


def pair_terms(c_i, c_j, k, N):
    """What ``pair_profile`` needs besides eps: (h, a_i, a_j, D), D the loss data term.

    D costs two ``lgamma_increment`` calls, most of an evaluation at one eps: a root
    search over eps on one pair computes these once (``_epsilon_one``)."""
    h = k / N
    with np.errstate(over="ignore"):
        a_i, a_j = k * c_i / N, k * c_j / N
    if not (np.isfinite(a_i).all() and np.isfinite(a_j).all()):   # k c overflows, k c/N not
        a_i, a_j = h * c_i, h * c_j
    return h, a_i, a_j, increment_difference(a_i, a_j - h, h)   # no overflowing h psi


def pair_profile_at(eps, h, a_i, a_j, data):
    """``pair_profile`` from its ``pair_terms``: the same numbers, bit for bit.

    Rounded outward (never below H_eps of the pair): H = P (1 - e^r), r = eps + log Q -
    log P, with the error bounds e_P, e_Q of the two logarithms (``log_lower_tail``) has
    an absolute error of at most H (e_P + 4u) + e^eps Q (e_P + e_Q + 4u (|eps| + |log P|
    + |log Q|)), plus the rounding of the sum.  e_P and e_Q include the effect of the
    rounding of the shapes (``betainc_shape_error``): a_i = k c_i / N and a_j carry 2u each,
    a_i + h and a_j - h (h = k/N) 3u and 3u a_j / (a_j - h); counted as 3u, 3u, 4u and
    4u a_j / (a_j - h), which also covers the rounding of that factor.  The threshold u
    comes from the data term D, whose rounding moves u for both laws alike: at the optimal
    u, where the two densities times (1, e^eps) are equal, that changes H only to second
    order.  H > 0 (the loss is unbounded), so a value that underflows is rounded up to the
    smallest double; a subnormal value is raised by three spacings (``above_floor``: the
    exponential, the product and the error terms, whose relative size underflows there).
    """
    eps = np.asarray(eps, float)[:, None]
    log_u = -np.logaddexp(0.0, (eps - data) / h)
    log_p, err_p = log_lower_tail(a_i, a_j, log_u, error=True)
    log_q, err_q = log_lower_tail(a_i + h, a_j - h, log_u, error=True)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        u = np.exp(log_u)
        err_p = err_p + betainc_shape_error(a_i, a_j, u, 3.0 * U, 3.0 * U, log_u, log_p)
        err_q = err_q + betainc_shape_error(a_i + h, a_j - h, u, 4.0 * U,
                                            4.0 * U * a_j / (a_j - h), log_u, log_q)
        r = eps + log_q - log_p
        p = np.exp(log_p)
        out = p * -np.expm1(r)
        weighted_q = p * np.exp(r)                    # e^eps Q
        err_r = err_p + err_q + 4.0 * U * (np.abs(eps) + np.abs(log_p) + np.abs(log_q))
        error = out * (err_p + 4.0 * U) + np.where(weighted_q > 0, weighted_q * err_r, 0.0)
        # the exponential and the product may each round a subnormal result down by a TINY
        bound = above_floor(outward(np.maximum(out, 0.0), error), slack=3)
    bound = np.where(np.isneginf(log_p), 0.0, bound)
    # no usable tail (k near the float maximum: the bounds overflow): the trivial bound
    bound = np.where(np.isfinite(err_p) & np.isfinite(err_q) & ~np.isnan(bound), bound, 1.0)
    return np.minimum(np.maximum(bound, TINY), 1.0)


def two_categories_exact(N, n):
    """For n = 2 the counts are handled as doubles, exact up to 2**53: refuse a larger N.

    N and n are checked scalars or arrays (one design per element).
    """
    huge = (np.asarray(n) == 2) & (np.asarray(N) > MAX_N_TWO)
    if np.any(huge):
        first = np.broadcast_to(N, huge.shape)[huge][0] if huge.ndim else N
        raise ValueError(f"N={first:.0f} with n=2 exceeds 2**53: counts above it are not "
                         "exact in double precision")


def two_category_max(eps, k, N, m):
    """max over c in [m, N-m-1] of H_eps(c, N - c) for each eps (1-d), and the pairs evaluated.

    Branch and bound (book: "The worst pair for two categories").  H(c_i, c_j) does not
    increase in either count (``profile_pairs``), so on a block c0 <= c <= c1 of pairs
    (c, N - c) it is at most H(c0, N - c1), one evaluation.  Start from the two end
    pairs; a block whose bound is below the best value found (by the margin
    ``MARGIN``) for every eps is dropped, any other is halved (listed pair by pair
    once it is short); a block of one pair has its bound equal to its value.  After
    ``BUDGET`` evaluations, a block whose bound is at most 1 + ``MARGIN`` times the
    best value is no longer split and its bound counts as a value (a profile flat to
    1e-6 over thousands of pairs, m close to N/2: the result is then above the
    maximum by at most that margin, never below it).  At
    eps = 0 (total variation, symmetric) the pairs c and N - 1 - c have the same H
    (mirror x_j/(x_i + x_j)), so only c <= (N - 1)/2 is searched.  The result is the
    maximum over all N - 2m pairs (up to the flat case).  At most ``SCAN`` pairs are
    simply all evaluated in one vectorised call.
    """
    if N - 2 * m <= SCAN:                       # few pairs: one vectorised evaluation
        c = np.arange(m, N - m, dtype=float)
        return pair_profile(eps, c, N - c, k, N).max(axis=1), c.size
    best = np.empty(eps.shape)
    count = 0
    for zero in (True, False):
        at = (eps == 0) == zero
        if at.any():
            top = (N - 1) // 2 if zero else N - m - 1
            e = eps[at]
            best[at], used = branch_and_bound(
                lambda c_i, c_j: pair_profile(e, c_i, c_j, k, N), N, m, top)
            count += used
    return best, count


def branch_and_bound(value, N, m, top):
    """max over c in [m, top] and c = N - m - 1 of value(c, N - c); see ``two_category_max``.

    ``value(c_i, c_j)`` maps two arrays of counts (p,) to an array (e, p) of values >= 0
    that do not increase in c_i nor in c_j (one row per epsilon).  Returns the row
    maxima (e,) and the number of pairs evaluated.  If the values are too flat to rank
    (more than ``MAX_EVALUATIONS`` evaluations: their rounding errors exceed their
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
    # [book:branch_and_bound]
    while c0.size:
        bound = value(c0, N - c1)
        count += c0.size
        single = c0 == c1
        if single.any():
            best = np.maximum(best, bound[:, single].max(axis=1))
        keep = ~single & np.any(bound > best[:, None] * (1 - MARGIN), axis=0)
        # flat profile: stop at the margin, from above
        if count > BUDGET:
            flat = keep & np.all(bound <= best[:, None] * (1 + MARGIN), axis=0)
            if flat.any():
                ceiling = np.maximum(ceiling, bound[:, flat].max(axis=1))
            keep &= ~flat
        c0, c1 = c0[keep], c1[keep]
        if count > MAX_EVALUATIONS and c0.size:
            raise ValueError(
                f"N={N:.0f}, min_count={m:.0f}: the n = 2 pairs' values differ by less than "
                f"their rounding error over more than {MAX_EVALUATIONS} pairs, so their maximum "
                "cannot be located in double precision (try a smaller N)")
        # list the pairs of a short block one by one
        short = c1 - c0 < LEAF
        pts = np.concatenate([np.arange(a, b + 1)
                              for a, b in zip(c0[short], c1[short])]
                             + [np.empty(0)])
        c0, c1 = c0[~short], c1[~short]
        mid = np.floor((c0 + c1) / 2)
        c0, c1 = np.concatenate([c0, mid + 1, pts]), np.concatenate([mid, c1, pts])
    # [/book:branch_and_bound]
    return np.maximum(best, ceiling), count


def profile_one_k(eps, k, N, n, m):
    """privacy_profile for one k and a 1-d array of epsilons."""
    if n >= 3:
        return pair_profile(eps, np.array([float(m)]), np.array([m + 1.0]), k, N)[:, 0]
    return two_category_max(eps, k, N, m)[0]

