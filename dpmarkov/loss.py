"""The privacy loss of the Dirichlet mechanism and its exact worst case (Theorem 1 revisited).

Two adjacent databases (Definition 3: one record changes category, N fixed) have
count vectors c and c' = c + e_i - e_j.  For an output x the privacy loss is

    L(x) = log f_c(x) - log f_c'(x)
         = [log B(k c'/N) - log B(k c/N)] + (k/N) (log x_j - log x_i),

a data term that depends on the counts only through (c_i, c_j) and an output term
that is linear in log x.  Book: chapters "The privacy loss of the Dirichlet
mechanism" (privacy_loss) and "The exact worst case" (worst_case), where every
claim used below is proved and checked by brute force.
"""
from __future__ import annotations

import numpy as np

from . import _checks
from .mechanism import log_density
from ._numerics import exact_loss, increment_difference, output_term
from ._pairs import adjacent_indices_named, pairs_exist


@_checks.public
def adjacent_indices(counts, counts_prime):
    """(i, j) with counts_prime = counts + e_i - e_j: adjacency of Definition 3 on counts.

    Raises ``ValueError`` unless the two count vectors have the same length and the
    same total N and differ by one record moved from category j to category i.
    """
    return adjacent_indices_named(counts, counts_prime, "counts_prime")


@_checks.public
def privacy_loss(x, counts, counts_prime, k):
    """log f_c(x) - log f_c'(x): the privacy loss of Definition 6 for the Dirichlet mechanism.

    ``counts`` and ``counts_prime`` are adjacent (Definition 3); ``x`` is one output
    or a stack ``(..., n)`` of outputs.  Equals ``loss_data_term(c_i, c_j, k, N) +
    (k/N) * (log x_j - log x_i)`` (book: privacy-loss chapter).
    """
    adjacent_indices(counts, counts_prime)
    return log_density(x, counts, k) - log_density(x, counts_prime, k)


@_checks.public
def loss_data_term(c_i, c_j, k, N):
    """log B(k c'/N) - log B(k c/N) for c' = c + e_i - e_j: the data part of the privacy loss.

    Only the two counts that change enter:
    lgamma(k(c_i+1)/N) - lgamma(k c_i/N) - [lgamma(k c_j/N) - lgamma(k(c_j-1)/N)],
    taken as two cancellation-free increments of log Gamma.  It increases with c_i
    and decreases with c_j (log Gamma is convex), which is the reduction behind
    ``epsilon_exact`` and Theorem 1, eq. (6).  Needs c_i >= 1 and c_j >= 2.  Broadcasts.
    """
    c_i = _checks.integer_at_least("c_i", c_i, 1)
    c_j = _checks.integer_at_least("c_j", c_j, 2)
    k = _checks.positive("k", k)
    N = _checks.integer_at_least("N", N, 2)
    bad = c_i + c_j > N
    if np.any(bad):
        raise ValueError(f"c_i + c_j = {_checks.first_bad(c_i + c_j, bad)!r} exceeds "
                         f"N={_checks.first_bad(N, bad)!r}")
    _checks.k_scale_ok(k, N)
    h = k / N
    out = increment_difference(h * c_i, h * (c_j - 1), h)
    return _checks.finite_result("the data term", out, k)


@_checks.public
def worst_pair(N, n, min_count):
    """The adjacent pair (c, c') with the largest privacy loss on Omega_1 (book: worst case).

    c = (N-(n-1)m-1, m+1, m, ..., m) and c' = (N-(n-1)m, m, m, ..., m), m = min_count:
    one record moves into the largest category (i = 0) out of a category that
    then sits at the minimum (j = 1).  It maximises ``loss_data_term`` over every
    adjacent pair whose counts are all >= m, the data part of Theorem 1's proof.
    """
    N = _checks.whole_number("N", N, 2)
    n = _checks.length("n", _checks.whole_number("n", n, 2))
    m = _checks.whole_number("min_count", min_count, 1)
    pairs_exist(np.asarray(N), np.asarray(n), np.asarray(m), "min_count")
    big = N - (n - 1) * m
    c = np.array([big - 1, m + 1] + [m] * (n - 2), dtype=float)
    cp = np.array([big, m] + [m] * (n - 2), dtype=float)
    return c, cp


@_checks.public
def epsilon_exact(k, N, n, gamma, min_count):
    """The exact largest privacy loss of the Dirichlet mechanism over Omega_1 (Theorem 1, tight).

    max over adjacent count vectors c, c' (Definition 3) with every count >=
    ``min_count`` and over x in Omega_1 = {x in the simplex : x_i >= gamma} of
    log f_c(x) - log f_c'(x).  The maximum is attained by ``worst_pair`` and a vertex
    of Omega_1 (book: "The exact worst case" proves both and checks them by brute
    force), so

        epsilon_exact = loss_data_term(N-(n-1)m-1, m+1, k, N) + (k/N) log((1-(n-1)gamma)/gamma).

    This is the smallest epsilon for which (epsilon, delta)-probabilistic DP
    (Definition 6) holds with this Omega_1; eq. (6) is compared with it in the book
    (it is an upper bound for n >= 3 but fails for n = 2).  ``min_count`` is the
    smallest count a category may hold, ceil(eta N) under Assumption 3.  No
    condition on k (Assumption 4) is needed.  Broadcasts.
    """
    k = _checks.positive("k", k)
    N = _checks.integer_at_least("N", N, 2)
    n = _checks.integer_at_least("n", n, 2)
    gamma = _checks.gamma_ok(gamma, n)
    m = _checks.integer_at_least("min_count", min_count, 1)
    pairs_exist(N, n, m, "min_count")
    _checks.k_scale_ok(k, N)
    return _checks.finite_result("epsilon_exact", exact_loss(k, N, n, gamma, m), k)


@_checks.public
def epsilon_corrected(k, eta, N, n, gamma):
    """Theorem 1, eq. (6), corrected so that it holds for every n >= 2.

    eq. (6) with 1 - 2 eta replaced by 1 - (n-1) eta, the largest share a category
    can hold when all others hold at least eta:

        log[ B(k eta, k(1-(n-1)eta)) / B(k(eta + 1/N), k(1-(n-1)eta - 1/N)) ]
          + (k/N) log((1 - (n-1) gamma) / gamma).

    It equals eq. (6) for n = 3, is smaller (tighter) for n >= 4 and larger for
    n = 2, where eq. (6) is not an upper bound (book: "The exact worst case").  It is
    >= ``epsilon_exact(k, N, n, gamma, ceil(eta N))`` with equality when eta N is
    a whole number.  Needs Assumption 3 feasible with an adjacent pair
    (N >= n ceil(eta N) + 1); Assumption 4 is not needed.  Broadcasts.
    """
    k, eta, N, n, gamma = _checks.theorem1_design(k, eta, N, n, gamma, assumption_4=False)
    pairs_exist(N, n, _checks.min_count(eta, N), "ceil(eta*N)")
    _checks.k_scale_ok(k, N)
    h = k / N
    top = k * (1 - (n - 1) * eta)
    with np.errstate(over="ignore", invalid="ignore"):
        out = increment_difference(top - h, k * eta, h) + output_term(h, n, gamma)
    return _checks.finite_result("epsilon_corrected", out, k)
