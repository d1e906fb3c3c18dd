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
(``two_category_max``).  Book: chapter "The tight privacy profile", which derives
this, finds the worst pair and checks everything by quadrature and Monte Carlo.
"""
from __future__ import annotations

import numpy as np

from . import _checks, _pairs
from ._numerics import MAX_SHAPE
from ._pairs import (MAX_LIST, MAX_N_TWO, pair_profile_at, pair_terms, profile_one_k,
                     scalar_pair_design, two_categories_exact, two_category_max)
from .loss import adjacent_indices

@_checks.public
def hockey_stick(epsilon, counts, counts_prime, k):
    """H_eps(Dir(k c/N) || Dir(k c'/N)) for adjacent counts: the exact delta of one pair.

    The smallest delta such that P(T) <= e^eps Q(T) + delta for every set T
    (Definition 4 restricted to this pair); computed as
    P(1 - V < u) - e^eps Q(1 - V < u) with Beta tails, in logarithms so that a tail
    at u below the smallest double (small k) is still exact (book: tight profile chapter).
    The result is rounded outward by a bound on its own floating-point error (the Beta
    tails' budget and every rounding after them; ``_pairs.pair_profile_at``): never
    below the divergence, which is > 0 (a value that underflows is the smallest double).
    Broadcasts over ``epsilon`` (>= 0).  Book: "The tight privacy profile".

    Parameters
    ----------
    epsilon : float or array_like
        The epsilons, finite and >= 0.
    counts : array_like of shape (n,)
        The count vector c: whole numbers >= 0, at least 2 categories.
    counts_prime : array_like of shape (n,)
        An adjacent count vector c' = c + e_i - e_j (Definition 3), with c_i >= 1 and
        c_j >= 2 (both laws need positive parameters there).
    k : float
        The Dirichlet parameter (Definition 5), > 0 (one number).

    Returns
    -------
    float or numpy.ndarray
        The divergence at each epsilon, in (0, 1]; of ``epsilon``'s shape.

    Raises
    ------
    ValueError
        If the counts are not adjacent count vectors, the changing categories hold too
        few records (c_i = 0 or c'_j = 0), k is not one positive number, or some epsilon
        is negative or not finite.
    TypeError
        If an argument is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> h = dm.hockey_stick(1.0, [8, 9, 8, 8, 65], [9, 8, 8, 8, 65], 20.6)
    >>> round(h, 6), bool(h == dm.privacy_profile(1.0, 20.6, 98, 5, 8))
    (9.1e-05, True)
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
    out = _pairs.pair_profile(eps.ravel(), c[i], c[j], float(k), c.sum())[:, 0].reshape(eps.shape)
    return out if out.ndim else float(out)


def _epsilons(epsilon):
    eps = _checks.as_float_array("epsilon", epsilon)
    bad = eps < 0
    if np.any(bad):
        raise ValueError(f"epsilon={_checks.first_bad(eps, bad)!r} must be >= 0")
    return eps


def _design(k, N, n, min_count):
    """Checked (k array, N, n, m): k broadcasts, N, n and min_count are scalars."""
    _, N, n, m = scalar_pair_design(1.0, N, n, min_count,
                                    "only epsilon (or delta) and k broadcast")
    k = _checks.positive("k", k)
    two_categories_exact(N, n)
    return k, N, n, m


def _together(name, x, k):
    """x and k broadcast against each other, or a ValueError naming both shapes."""
    try:
        return np.broadcast_arrays(x, k)
    except ValueError:
        raise ValueError(f"{name} (shape {x.shape}) and k (shape {k.shape}) do not broadcast "
                         "together") from None


@_checks.public
def pair_profile(epsilon, c_i, c_j, k, N):
    """The hockey-stick divergence of one adjacent pair, given by its two changing counts.

    H_eps(Dir(k c/N) || Dir(k c'/N)) for c' = c + e_i - e_j, where only c_i and c_j
    enter: 1 - V with V = x_j / (x_i + x_j) is Beta(k c_i/N, k c_j/N) under the first law
    and Beta(k (c_i + 1)/N, k (c_j - 1)/N) under the second, and H_eps is a difference of
    their lower tails (Definition 4; book: "The tight privacy profile", the Beta-tail
    proposition).  ``hockey_stick`` gives the same numbers from two whole count vectors;
    this form takes many pairs and many epsilons at once, as the branch and bound does.
    Book: "The tight privacy profile".

    Parameters
    ----------
    epsilon : float or 1-d array
        The epsilons; any real number (for epsilon < 0 the divergence is also defined).
    c_i, c_j : int or 1-d array of one shape
        The counts that gain and lose a record, c_i >= 1, c_j >= 2, c_i + c_j <= N.
    k : float
        The Dirichlet parameter, > 0 (one number).
    N : int
        The number of records, 2 <= N <= 2**53 (one number).

    Returns
    -------
    numpy.ndarray or float
        Shape ``epsilon.shape + c_i.shape``: one row per epsilon, one column per pair;
        a float when both are scalars.  Values in [0, 1].

    Raises
    ------
    ValueError
        A count, k or N outside its range, c_i + c_j > N, or k/N below the smallest
        normal float.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> h = dm.pair_profile(1.0, 8, 9, 20.6, 98)
    >>> bool(h == dm.privacy_profile(1.0, 20.6, 98, 5, 8))
    True
    """
    eps = _checks.array("epsilon", epsilon, min_ndim=0, max_ndim=1)
    c_i = _checks.integer_at_least("c_i", c_i, 1)
    c_j = _checks.integer_at_least("c_j", c_j, 2)
    k = _checks.scalar("k", _checks.positive("k", k))
    N = _checks.scalar("N", _checks.integer_at_least("N", N, 2))
    if N > MAX_N_TWO:
        raise ValueError(f"N={N:.0f} exceeds 2**53: counts above it are not exact in double "
                         "precision")
    for name, v in (("c_i", c_i), ("c_j", c_j)):
        if v.ndim > 1:
            raise ValueError(f"{name} has shape {v.shape}: one count or a 1-d array is meant")
    if c_i.shape != c_j.shape:
        raise ValueError(f"c_i (shape {c_i.shape}) and c_j (shape {c_j.shape}) must have one "
                         "shape")
    bad = c_i + c_j > N
    if np.any(bad):
        raise ValueError(f"c_i + c_j = {_checks.first_bad(c_i + c_j, bad)!r} exceeds N={N:.0f}")
    _checks.k_scale_ok(k, N)
    out = _pairs.pair_profile(eps.ravel(), c_i.ravel(), c_j.ravel(), k, N)
    out = out.reshape(eps.shape + c_i.shape)
    return out if out.ndim else float(out)


@_checks.public
def two_category_search(epsilon, k, N, min_count):
    """The tight privacy profile for n = 2, and how many pairs the exact search evaluated.

    For two categories every adjacent pair has c_i + c_j = N, and ``privacy_profile``
    finds the largest hockey-stick divergence over the N - 2m pairs (c, N - c),
    m <= c <= N - m - 1, without a scan: a branch and bound bounds a block of pairs by
    one evaluation (book: "The tight privacy profile", "The worst pair for two
    categories").  This returns the same profile together with the number of pairs
    (bounds included) it evaluated, the measure of that search's cost; up to 2048
    pairs are all evaluated at once instead.  Book: "The tight privacy profile".

    Parameters
    ----------
    epsilon : float or 1-d array
        The epsilons, >= 0.
    k : float
        The Dirichlet parameter, > 0 (one number).
    N : int
        The number of records, 2 <= N <= 2**53, with N >= 2 min_count + 1.
    min_count : int
        The smallest count a category may hold, >= 1 (ceil(eta N) under Assumption 3).

    Returns
    -------
    delta : numpy.ndarray
        The profile at each epsilon, as ``privacy_profile(epsilon, k, N, 2, min_count)``
        (shape of ``epsilon`` as a 1-d array).
    evaluated : int
        The number of pair evaluations.

    Raises
    ------
    ValueError
        An argument outside its range, or no two adjacent count vectors (N < 2 m + 1).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> delta, evaluated = dm.two_category_search(1.0, 3000.0, 4000, 200)
    >>> bool(delta[0] == dm.privacy_profile(1.0, 3000.0, 4000, 2, 200))
    True
    >>> evaluated < (4000 - 2 * 200) // 10          # a tenth of the 3600 pairs at most
    True
    """
    eps = _checks.array("epsilon", epsilon, min_ndim=0, max_ndim=1).ravel()
    _epsilons(eps)
    k, N, _, m = _design(k, N, 2, min_count)
    k = _checks.scalar("k", k)
    best, evaluated = two_category_max(eps, k, N, m)
    return best, int(evaluated)


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
    Definition 4 (the hockey-stick divergence).  Book: "The tight privacy profile".

    Parameters
    ----------
    N : int
        The number of records, a whole number >= 2 (one number; at most 2**53 for n = 2).
    n : int
        The number of categories, a whole number >= 2 (one number).
    min_count : int
        The fewest records a category may hold, a whole number >= 1 (one number), with
        N >= n*min_count + 1.

    Returns
    -------
    tuple of numpy.ndarray
        (c_i, c_j), two float arrays of one length: the candidate pairs.

    Raises
    ------
    ValueError
        If a parameter is not one whole number in its range; if N < n*min_count + 1 (no
        two adjacent count vectors differ); for n = 2, if N exceeds 2**53 or there are
        more than 2e6 pairs to list.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> c_i, c_j = dm.profile_pairs(20, 2, 8)
    >>> c_i.tolist(), c_j.tolist()
    ([8.0, 9.0, 10.0, 11.0], [12.0, 11.0, 10.0, 9.0])
    """
    _, N, n, m = _design(1.0, N, n, min_count)
    if n >= 3:
        return np.array([float(m)]), np.array([float(m + 1)])
    if N - 2 * m > MAX_LIST:
        raise ValueError(f"N={N}, min_count={m}: n=2 has {N - 2 * m} adjacent pairs, more "
                         f"than {MAX_LIST} to list (privacy_profile needs no list)")
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
    evaluations at any N up to 2**53).  Rounded outward, never below the real value: each
    pair's divergence carries a bound on its own floating-point error (the Beta tails'
    budget ``_numerics.betainc_budget``, or the series in logs below 1e-200, and every
    rounding after them; ``pair_profile``), as ``epsilon`` does, down to the smallest double
    (a subnormal value is raised by the spacings its roundings can lose).  Where the Beta shapes
    k (c_i + c_j)/N exceed 2^53 (``_numerics.MAX_SHAPE``) no tail is certified in double
    precision and the profile is the trivial bound 1.  ``epsilon`` (>= 0) and ``k`` broadcast
    together; ``N``, ``n``, ``min_count`` are scalars.  Book: "The tight privacy profile".

    Parameters
    ----------
    epsilon : float or array_like
        The epsilons, finite and >= 0.
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0; broadcasts with ``epsilon``.
    N : int
        The number of records, a whole number >= 2 (at most 2**53 for n = 2).
    n : int
        The number of categories, a whole number >= 2.
    min_count : int
        The fewest records a category may hold, a whole number >= 1, with
        N >= n*min_count + 1.

    Returns
    -------
    float or numpy.ndarray
        delta(epsilon), in [0, 1]; of the broadcast shape of ``epsilon`` and ``k``.

    Raises
    ------
    ValueError
        If some epsilon is negative or not finite, some k is not positive, epsilon and k
        do not broadcast, N, n or min_count is not one whole number in its range, no two
        adjacent count vectors differ (N < n*min_count + 1), or n = 2 with N above 2**53.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.privacy_profile(1.0, 20.6, 98, 5, 8), 6)
    9.1e-05
    """
    k, N, n, m = _design(k, N, n, min_count)
    eps, k = _together("epsilon", _epsilons(epsilon), k)
    # [book:privacy_profile]
    out = np.empty(eps.shape)
    for kv in np.unique(k):
        at = k == kv
        out[at] = profile_one_k(eps[at], float(kv), N, n, m)
    return out if out.ndim else float(out)


#: ``_root`` looks for its bracket among the powers of two 2^0 ... 2^MAX_POWER.
MAX_POWER = 1023


def _root(func, target, h, k):
    """An eps >= 0 with func(eps) <= target next to the crossing, func decreasing, func(0) > target.

    The bracket is [2^(p-1), 2^p] for the first power 2^p with func(2^p) <= target ([0, 1]
    when p = 0).  The search for p starts at the power of two next below h = k/N, the
    scale of the loss L = D + h logit(V) (at large k the root is a few h/100), and walks up
    or down from there one power at a time: a few evaluations where a walk up from 1 takes
    about log2(h) (1000 at k near the float maximum), and never one far above the crossing,
    where the outward-rounded tails lose their bounds (eps/h beyond about 700) and func is
    the trivial 1.  Brent's method stops within its tolerance of the crossing, on either
    side; a step up by that tolerance (doubling) until func(eps) <= target puts the result
    on the safe side, at most a few tolerances above the crossing.  ``k`` is only named in
    the error raised when no power up to 2^MAX_POWER qualifies."""
    from scipy.optimize import brentq   # imported here: scipy.optimize costs 0.7 s to import

    def above(p):                       # p = -1 stands for eps = 0, where func > target
        return p < 0 or func(2.0 ** p) > target
    p = min(max(int(np.floor(np.log2(h))), 0), MAX_POWER)
    if above(p):
        while above(p):
            if p == MAX_POWER:
                raise ValueError(
                    f"delta={target!r}, k={k!r}: the privacy profile's certified bound stays "
                    f"above delta at every epsilon up to 2**{MAX_POWER} (at k*c/N near the "
                    "float maximum the Beta tails' error bounds overflow), so no epsilon can "
                    "be certified")
            p += 1
    else:
        while not above(p - 1):
            p -= 1
    e = brentq(lambda e: func(e) - target, 2.0 ** (p - 1) if p > 0 else 0.0, 2.0 ** p,
               xtol=1e-12, rtol=1e-12)
    step = 2e-12 + 4e-12 * e
    while func(e) > target:
        e, step = e + step, 2 * step
    return e


def _epsilon_one(target, k, N, n, m):
    """epsilon_for_delta for one (delta, k)."""
    c_i, c_j = float(m), float(m + 1 if n >= 3 else N - m)
    terms = pair_terms(np.array([c_i]), np.array([c_j]), k, N)

    def pair(e):                      # H_e of the pair (m, m+1) or (m, N-m)
        return pair_profile_at(np.array([e]), *terms)[0, 0]
    # the profile at 0 is >= the pair's: search the other pairs only if the pair is <= target
    pair_below = pair(0.0) <= target
    if pair_below and profile_one_k(np.array([0.0]), k, N, n, m)[0] <= target:
        return 0.0
    if n >= 3:
        return _root(pair, target, terms[0], k)
    # n = 2: solve on the pair (m, N - m), then check by branch and bound that no other
    # pair is larger there; the profile is >= that pair's H everywhere, so then the two
    # roots coincide.  Otherwise (rounding noise of H at tiny eps, or in principle a
    # different worst pair) step up from that root, doubling the step, to the first eps
    # where the profile is <= delta, and bisect to 1e-6 relative: an eps where the
    # profile is <= delta, never below the profile's root.
    def full(x):
        return two_category_max(np.array([x]), k, N, m)[0][0]
    if pair_below:          # another pair is the worst at eps = 0: solve on the whole profile
        return _root(full, target, terms[0], k)
    e = _root(pair, target, terms[0], k)
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
    by bracketing and Brent's method (absolute and relative tolerance 1e-12) on the
    outward-rounded profile, then stepped up to where that profile is <= delta: never
    below the real root (the profile is rounded outward, ``privacy_profile``).  For
    n = 2 the root is taken on the pair (m, N - m) and a branch and bound checks that
    it is the worst pair there; if not (at tiny epsilon other pairs can exceed it by
    rounding noise, about 1e-8 relative at N = 1e9, or a flat profile's bound by 1e-6),
    an epsilon above it at which the whole profile is <= delta, within 1e-6 relative
    of the crossing.  The bracket search starts at the power of two below k/N (``_root``),
    so a huge k costs a few evaluations.  Returns 0 when
    delta is at least the profile at epsilon = 0 (the total variation distance).
    ``delta`` in (0, 1) and ``k`` broadcast together; ``N``, ``n``, ``min_count`` are
    scalars.  Book: "The tight privacy profile".

    Parameters
    ----------
    delta : float or array_like
        The deltas, 0 < delta < 1.
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0; broadcasts with ``delta``.
    N : int
        The number of records, a whole number >= 2 (at most 2**53 for n = 2).
    n : int
        The number of categories, a whole number >= 2.
    min_count : int
        The fewest records a category may hold, a whole number >= 1, with
        N >= n*min_count + 1.

    Returns
    -------
    float or numpy.ndarray
        The tight epsilon, >= 0; of the broadcast shape of ``delta`` and ``k``.

    Raises
    ------
    ValueError
        If some delta is outside (0, 1) or not finite, some k is not positive, delta and
        k do not broadcast, N, n or min_count is not one whole number in its range, no
        two adjacent count vectors differ (N < n*min_count + 1), n = 2 with N above
        2**53, or k (c_i + c_j)/N of the worst pair above 2**53 (no tail certified there).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> eps = dm.epsilon_for_delta(1e-3, 20.6, 98, 5, 8)
    >>> round(eps, 4), bool(dm.privacy_profile(eps, 20.6, 98, 5, 8) <= 1e-3)
    (0.6953, True)
    """
    d = _checks.as_float_array("delta", delta)
    bad = (d <= 0) | (d >= 1)
    if np.any(bad):
        raise ValueError(f"delta={_checks.first_bad(d, bad)!r} must satisfy 0 < delta < 1")
    k, N, n, m = _design(k, N, n, min_count)
    d, k = _together("delta", d, k)
    # the worst pair's Beta shapes k (c_i + c_j)/N: beyond MAX_SHAPE no tail is certified
    # and the profile is the trivial 1 at every epsilon; refused before any search
    with np.errstate(over="ignore"):
        widest = k / N * ((2 * m + 1) if n >= 3 else N)
    if np.any(widest > MAX_SHAPE):
        raise ValueError(
            f"k={_checks.first_bad(k, widest > MAX_SHAPE)!r} with N={N}, n={n}, "
            f"min_count={m}: the Beta shapes k*(c_i + c_j)/N exceed 2**53, where the "
            "profile's tails are not certified in double precision, so no epsilon can be")
    out = np.array([_epsilon_one(float(t), float(kv), N, n, m)
                    for t, kv in zip(d.ravel(), k.ravel())]).reshape(d.shape)
    return out if out.ndim else float(out)
