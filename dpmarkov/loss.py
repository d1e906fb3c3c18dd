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
    Book: "The privacy loss of the Dirichlet mechanism".

    Parameters
    ----------
    counts : array_like of shape (n,)
        One count vector: finite whole numbers >= 0, at least 2 categories, total > 0.
    counts_prime : array_like of shape (n,)
        Another count vector of the same length.

    Returns
    -------
    tuple of int
        (i, j): the category that gains the record and the one that loses it.

    Raises
    ------
    ValueError
        If either argument is not a count vector, they are not two vectors of one length,
        or they are not adjacent (one record moved, N fixed).
    TypeError
        If an argument is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.adjacent_indices([3, 4, 5], [4, 3, 5])
    (0, 1)
    """
    return adjacent_indices_named(counts, counts_prime, "counts_prime")


@_checks.public
def privacy_loss(x, counts, counts_prime, k):
    """log f_c(x) - log f_c'(x): the privacy loss of Definition 6 for the Dirichlet mechanism.

    ``counts`` and ``counts_prime`` are adjacent (Definition 3); ``x`` is one output
    or a stack ``(..., n)`` of outputs.  Equals ``loss_data_term(c_i, c_j, k, N) +
    (k/N) * (log x_j - log x_i)`` (book: privacy-loss chapter).
    Book: "The privacy loss of the Dirichlet mechanism".

    Parameters
    ----------
    x : array_like
        An output in the unit simplex (Definition 1), or a stack ``(..., n)`` of them.
    counts : array_like of shape (n,)
        The count vector c: whole numbers, each > 0.
    counts_prime : array_like of shape (n,)
        The adjacent count vector c' (one record moved), each count > 0.
    k : float
        The Dirichlet parameter (Definition 5), > 0.

    Returns
    -------
    float or numpy.ndarray
        The loss, one value per output; +-inf only on the simplex's boundary.

    Raises
    ------
    ValueError
        If the counts are not adjacent count vectors with positive entries; k is not
        positive or too small to compute with; or x is not in the simplex, has the wrong
        length or lies where a density has no value (as ``log_density``).
    TypeError
        If an argument is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(float(dm.privacy_loss([0.3, 0.5, 0.2], [30, 50, 20], [31, 49, 20], 20.0)), 4)
    -0.0013
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
    Book: "The exact worst case".

    Parameters
    ----------
    c_i : int or array_like
        The count of the category that gains the record, a whole number >= 1.
    c_j : int or array_like
        The count of the category that loses it, a whole number >= 2.
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0, with k/N a normal float.
    N : int or array_like
        The number of records, a whole number >= 2 and >= c_i + c_j.

    Returns
    -------
    float or numpy.ndarray
        The data term; an array of the broadcast shape if an argument is one.

    Raises
    ------
    ValueError
        If a parameter breaks the rules above (also c_i + c_j > N, or k/N below the
        smallest normal float), or the value exceeds the largest float.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(float(dm.loss_data_term(30, 50, 20.0, 100)), 4)
    -0.1034
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
    # [book:loss_data_term]
    h = k / N
    out = increment_difference(h * c_i, h * (c_j - 1), h)
    # [/book:loss_data_term]
    return _checks.finite_result("the data term", out, k)


@_checks.public
def worst_pair(N, n, min_count):
    """The adjacent pair (c, c') with the largest privacy loss on Omega_1 (book: worst case).

    c = (N-(n-1)m-1, m+1, m, ..., m) and c' = (N-(n-1)m, m, m, ..., m), m = min_count:
    one record moves into the largest category (i = 0) out of a category that
    then sits at the minimum (j = 1).  It maximises ``loss_data_term`` over every
    adjacent pair whose counts are all >= m, the data part of Theorem 1's proof.
    Book: "The exact worst case".

    Parameters
    ----------
    N : int
        The number of records, a whole number >= 2.
    n : int
        The number of categories, a whole number >= 2.
    min_count : int
        The fewest records a category may hold, a whole number >= 1 (ceil(eta N) under
        Assumption 3), with N >= n*min_count + 1 (two adjacent vectors above it).

    Returns
    -------
    tuple of numpy.ndarray
        (c, c'), two count vectors of n floats.

    Raises
    ------
    ValueError
        If a parameter is not a whole number in its range, n is too large to build, or
        N < n*min_count + 1 (every privacy loss is then 0).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> c, c_prime = dm.worst_pair(98, 5, 8)
    >>> c.tolist(), c_prime.tolist()
    ([65.0, 9.0, 8.0, 8.0, 8.0], [66.0, 8.0, 8.0, 8.0, 8.0])
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
    (it is an upper bound for n >= 3 but not for every n = 2 design).  ``min_count`` is the
    smallest count a category may hold, ceil(eta N) under Assumption 3.  No
    condition on k (Assumption 4) is needed.  Broadcasts.  Book: "The exact worst case".

    Parameters
    ----------
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0, with k/N a normal float.
    N : int or array_like
        The number of records, a whole number >= 2.
    n : int or array_like
        The number of categories, a whole number >= 2.
    gamma : float or array_like
        The border of Omega_1 (Assumption 2), 0 < gamma <= 1/(n-1) and gamma < 1/n.
    min_count : int or array_like
        The fewest records a category may hold, a whole number >= 1, with
        N >= n*min_count + 1.

    Returns
    -------
    float or numpy.ndarray
        The exact worst-case loss; an array of the broadcast shape if an argument is one.

    Raises
    ------
    ValueError
        If a parameter breaks the rules above (also N < n*min_count + 1, or k/N below
        the smallest normal float), or the value exceeds the largest float.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.epsilon_exact(20.6, 98, 5, 4e-4, 8), 4)
    2.1302
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
    n = 2, where eq. (6) is not an upper bound for every design (book: "The exact
    worst case").  It is
    >= ``epsilon_exact(k, N, n, gamma, ceil(eta N))`` with equality when eta N is
    a whole number.  Needs Assumption 3 feasible with an adjacent pair
    (N >= n ceil(eta N) + 1); Assumption 4 is not needed.  Broadcasts.
    Book: "The exact worst case".

    Parameters
    ----------
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0, with k/N a normal float.
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
        The corrected eq. (6); an array of the broadcast shape if an argument is one.

    Raises
    ------
    ValueError
        If a parameter breaks the rules above; if N < n ceil(eta N) + 1 (no adjacent
        pair above the minimum count); if k/N underflows; or if the value exceeds the
        largest float.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.epsilon_corrected(20.6, 0.073, 98, 5, 4e-4), 4)
    2.171
    """
    k, eta, N, n, gamma = _checks.theorem1_design(k, eta, N, n, gamma, assumption_4=False)
    pairs_exist(N, n, _checks.min_count(eta, N), "ceil(eta*N)")
    _checks.k_scale_ok(k, N)
    # [book:epsilon_corrected]
    h = k / N
    top = k * (1 - (n - 1) * eta)
    with np.errstate(over="ignore", invalid="ignore"):
        out = increment_difference(top - h, k * eta, h) + output_term(h, n, gamma)
    # [/book:epsilon_corrected]
    return _checks.finite_result("epsilon_corrected", out, k)
