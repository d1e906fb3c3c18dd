"""Accuracy of the Dirichlet mechanism: Theorem 2 (eq. (8)), Corollary 1, and more.

The private output C~ ~ Dir(k C) is compared with the count vector C it hides.
Theorem 2 gives E[KL(C || C~)]; Corollary 1 bounds it without knowing C; the
other functions give the variance, the expected L1 / total-variation error and
tail bounds, all from the Beta marginals X_i = C~_i ~ Beta(k C_i, k (1 - C_i)).

Book: chapters "Expected KL divergence" (Theorem 2 and the other measures),
"The worst case" (Corollary 1, the inverse k(KL)) and the grade case study.

Two remainders keep the formulas free of cancellation for large arguments:
r(x) = psi(x) - log x and R(x) = log Gamma(x) - [(x - 1/2) log x - x + log(2 pi)/2],
each summed from its asymptotic (Bernoulli) series for x >= 10.
"""
from __future__ import annotations

import numpy as np
from scipy.special import betainc, betaincc, digamma, gammaln, xlogy

from . import _checks
from ._numerics import LGAMMA_SERIES, SERIES_FROM, root_on_safe_side

#: k_for_kl searches log k in this range (k from about 1e-290 to 1e290).
_LOG_K_LOW, _LOG_K_HIGH = -668.0, 668.0
# psi(x) - log x = -1/(2x) - sum_j B_2j / (2j x^2j)
_PSI_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
def _series(x, coefficients, first_power):
    """sum_j c_j / x^(first_power + 2 j) for x >= SERIES_FROM (Horner in 1/x^2)."""
    inv = 1.0 / x
    inv2 = inv * inv          # 1/x^2 without forming x^2 (no overflow for huge x)
    # Horner in place (no temporaries on large stacks); the first step 0 * inv2 + c is c
    s = np.full(np.shape(inv2), coefficients[-1])
    for c in reversed(coefficients[:-1]):
        s *= inv2
        s += c
    return s * inv ** first_power


def _by_size(x, series, direct):
    """series(x) where x >= SERIES_FROM, direct(x) elsewhere (x as a float array).

    Each formula is evaluated only on the entries it serves; both are elementwise, so the
    numbers are those of evaluating both everywhere and choosing.
    """
    x = np.asarray(x, dtype=float)
    big = x >= SERIES_FROM
    out = np.empty(x.shape)
    out[big] = series(x[big])
    small = ~big
    out[small] = direct(x[small])
    return out


def _psi_minus_log(x):
    """r(x) = psi(x) - log(x) for x > 0, accurate also when psi(x) ~ log(x)."""
    return _by_size(x, lambda xb: -0.5 / xb - _series(xb, _PSI_SERIES, 2),
                    lambda xs: digamma(xs) - np.log(xs))


def _lgamma_remainder(x):
    """R(x) = log Gamma(x) - [(x - 1/2) log x - x + log(2 pi)/2] for x > 0."""
    return _by_size(x, lambda xb: _series(xb, LGAMMA_SERIES, 1),
                    lambda xs: gammaln(xs) - ((xs - 0.5) * np.log(xs) - xs
                                              + 0.5 * np.log(2 * np.pi)))


def _scalar_or_array(out):
    out = np.asarray(out, dtype=float)
    return out if out.ndim else float(out)


def _probability_vector(C) -> np.ndarray:
    """A count vector (or stack) with every entry > 0 that sums to 1 (eq. 3)."""
    C = _checks.array("C", C)
    if C.shape[-1] < 2:
        raise ValueError(f"C={_checks.show(C)} must be a vector of at least 2 probabilities")
    bad = C <= 0
    if np.any(bad):
        raise ValueError(f"C contains {float(C[bad].flat[0])!r}: every entry must be > 0 "
                         "(Dir(k*C) is undefined for a zero entry)")
    sums = C.sum(axis=-1)
    if np.any(np.abs(sums - 1) > 1e-9):
        raise ValueError(f"C sums to {float(np.ravel(sums)[0])!r}: "
                         "a count vector sums to 1 (eq. 3)")
    return C


def _k_last_axis(k):
    """k > 0 with a trailing axis so that it broadcasts against C[..., i]."""
    k = _checks.positive("k", k)
    return k, (k[..., None] if k.ndim else k)


def _records(N, n):
    """N records in n categories, every category holding at least one (N >= n)."""
    N = _checks.integer_at_least("N", N, 2)
    n = _checks.integer_at_least("n", n, 2)
    bad = N < n
    if np.any(bad):
        raise ValueError(f"N={float(_checks.first_bad(N, bad))!r} is below n="
                         f"{float(_checks.first_bad(n, bad))!r}: every category needs at "
                         "least one record (a zero count leaves Dir(k*C) undefined)")
    return N, n


def _eq8(k, C, weights=None):
    """Eq. (8) along the last axis of C (k broadcasts against C[..., i]).

    E[KL] = r(k) - sum_i w_i C_i r(k C_i), with multiplicities w_i (default 1).  For
    k C_i < 1e-300, psi(x) ~ -1/x overflows; there psi(x) = psi(x + 1) - 1/x gives
    E[KL] = psi(k+1) - sum_i w_i C_i psi(k C_i + 1) + (n-1)/k + sum_i w_i C_i log C_i
    with n = sum_i w_i, which has no overflow until (n-1)/k itself exceeds 1.8e308.
    """
    # [book:_eq8]
    w = np.ones(C.shape[-1]) if weights is None else weights
    kmin = k * C.min(axis=-1)
    tiny = kmin < 1e-300
    ks = np.where(tiny, 1.0, k)[..., None]
    regular = (_psi_minus_log(ks[..., 0])
               - np.sum(w * C * _psi_minus_log(ks * C), axis=-1))
    # [/book:_eq8]
    if not np.any(tiny):
        return regular
    kt = np.where(tiny, k, 1.0)
    n = np.sum(np.broadcast_to(w, C.shape), axis=-1)
    with np.errstate(over="ignore"):
        small = (digamma(kt + 1) - np.sum(w * C * digamma(kt[..., None] * C + 1), axis=-1)
                 + (n - 1) / kt + np.sum(w * xlogy(C, C), axis=-1))
    out = np.where(tiny, small, regular)
    if not np.all(np.isfinite(out)):
        bad = _checks.first_bad(np.broadcast_to(k, out.shape), ~np.isfinite(out))
        raise ValueError(f"k={bad!r} is so small that E[KL] ~ (n-1)/k exceeds the largest "
                         "double (1.8e308)")
    return out


@_checks.public
def expected_kl(C, k):
    """E[ KL(C || C~) ] for C~ ~ Dir(k C): Theorem 2, eq. (8).

    sum_i C_i (log C_i + psi(k) - psi(k C_i)), from E[log C~_i] = psi(k C_i) - psi(k)
    for the Beta marginal.  Written as r(k) - sum_i C_i r(k C_i) with
    r(x) = psi(x) - log x, which is the same number without the cancellation of
    psi(k) against log k when k is large (E[KL] ~ (n-1)/(2k)).

    ``C`` is a count vector (or a stack of them, last axis) with every entry > 0
    (a zero entry makes Dir(k C) undefined); ``k`` > 0 broadcasts against the stack.
    Book: chapter "Expected KL divergence".

    Parameters
    ----------
    C : array_like
        A count vector (eq. (3)): at least 2 entries, each > 0, summing to 1 (within
        1e-9); or a stack ``(..., n)`` of them.
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0; an array gives one k per count
        vector (broadcast against ``C.shape[:-1]``).

    Returns
    -------
    float or numpy.ndarray
        E[KL], one value per count vector.

    Raises
    ------
    ValueError
        If ``C`` is not an array of probability vectors with every entry > 0; if some k
        is not positive; if k and C do not broadcast; or if k is so small that E[KL]
        exceeds the largest double.
    TypeError
        If an argument is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.expected_kl([0.2, 0.3, 0.5], 50.0), 6)
    0.020311
    """
    C = _probability_vector(C)
    k, _ = _k_last_axis(k)
    try:
        kb, Cb = np.broadcast_arrays(k[..., None] if k.ndim else k, C)
    except ValueError as err:
        raise ValueError(f"k has shape {k.shape} and C {C.shape}: they do not broadcast "
                         "(one k per count vector)") from err
    return _scalar_or_array(_eq8(kb[..., 0], Cb))


def _kl_at_vertex(k, N, n, m):
    """eq. (8) at the count vector with m records in n-1 categories and N-(n-1)m in the last."""
    k, N, n, m = np.broadcast_arrays(k, N, n, m)
    C = np.stack([m / N, (N - (n - 1) * m) / N], axis=-1)
    w = np.stack([n - 1, np.ones_like(n)], axis=-1)
    return _eq8(k, C, w)


@_checks.public
def kl_bound(k, N, n):
    """Corollary 1: the largest E[KL] over count vectors of N records in n categories.

    (n-1)/N zeta(0) + (N-n+1)/N zeta(N-n) + psi(k), with
    zeta(x) = log((x+1)/N) - psi((x+1) k / N): eq. (8) evaluated at
    C = (1/N, ..., 1/N, (N-n+1)/N).  The maximum runs over every count vector whose
    counts are all >= 1 (N >= n); the book proves that this vertex is the maximiser
    (eq. (8) is a sum of strictly convex functions of the C_i).  It does not use
    Assumption 3; see ``kl_bound_bordered`` for the smaller set Theorem 1 covers.
    Broadcasts.  Book: chapter "The worst case".

    Parameters
    ----------
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0.
    N : int or array_like
        The number of records, a whole number >= 2 and >= n.
    n : int or array_like
        The number of categories, a whole number >= 2.

    Returns
    -------
    float or numpy.ndarray
        The bound; an array of the broadcast shape if an argument is one.

    Raises
    ------
    ValueError
        If k is not positive, N or n is not a whole number >= 2, N < n, or k is so
        small that the bound exceeds the largest double.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.kl_bound(50.0, 100, 3), 6)
    0.025408
    """
    k = _checks.positive("k", k)
    N, n = _records(N, n)
    return _scalar_or_array(_kl_at_vertex(k, N, n, 1.0))


@_checks.public
def kl_bound_bordered(k, N, n, eta):
    """The largest E[KL] over the count vectors allowed by Assumption 3.

    Assumption 3 (every count c_i >= eta*N, integer counts summing to N) gives
    m = ceil(eta*N) records at least per category; the maximiser of eq. (8) is then
    the vertex (m, ..., m, N-(n-1)m) / N, the same vector ``privacy.worst_counts``
    returns.  Never larger than ``kl_bound``.  Broadcasts.
    Book: chapter "The worst case".

    Parameters
    ----------
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0.
    N : int or array_like
        The number of records, a whole number >= 2 and >= n.
    n : int or array_like
        The number of categories, a whole number >= 2.
    eta : float or array_like
        The border of Assumption 3, 0 < eta < 1/4, with n ceil(eta N) <= N.

    Returns
    -------
    float or numpy.ndarray
        The bound; an array of the broadcast shape if an argument is one.

    Raises
    ------
    ValueError
        If k is not positive, N or n is not a whole number >= 2, N < n, eta is not in
        (0, 1/4), or no count vector has every count >= eta*N (Assumption 3 cannot hold).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.kl_bound_bordered(50.0, 100, 3, 0.2), 6)
    0.020355
    """
    k = _checks.positive("k", k)
    N, n = _records(N, n)
    eta = _checks.eta_ok(eta)
    _checks.design_ok(eta, N, n)
    m = np.ceil(eta * N - 1e-9)
    return _scalar_or_array(_kl_at_vertex(k, N, n, m))


@_checks.public
def k_for_kl(target, N, n, *, eta=None):
    """The smallest k whose worst-case E[KL] is at most ``target`` (inverse of Corollary 1).

    The bound is strictly decreasing in k (book, chapter "The worst case": d/dk of
    eq. (8) is psi'(k) - sum_i C_i^2 psi'(k C_i) < 0 because x psi'(x) decreases),
    runs from +inf (k -> 0) to 0 (k -> inf), so the root is unique; it is found for all
    elements at once by bracketing log k and the Illinois method, to 1e-15 + 1e-14 |log k|
    in log k, on the safe side: the bound at the k returned, as evaluated in floating point
    (not rounded outward), is at most ``target``.
    With ``eta`` the Assumption-3 worst case ``kl_bound_bordered`` is inverted instead
    of ``kl_bound``.

    The result ignores privacy: for a release that also meets a privacy goal, k
    must lie in [k_for_kl(target, ...), k_for_epsilon(epsilon, ...)] and be
    >= 3/(2*eta) (Assumption 4); an empty interval means the two goals conflict.
    Broadcasts over all arguments.  Book: chapter "The worst case".

    Parameters
    ----------
    target : float or array_like
        The largest E[KL] allowed, > 0.
    N : int or array_like
        The number of records, a whole number >= 2 and >= n.
    n : int or array_like
        The number of categories, a whole number >= 2.
    eta : float or array_like, optional
        The border of Assumption 3, 0 < eta < 1/4, with n ceil(eta N) <= N; if given,
        ``kl_bound_bordered`` is inverted.

    Returns
    -------
    float or numpy.ndarray
        k; an array of the broadcast shape if an argument is one.

    Raises
    ------
    ValueError
        If target is not positive, N or n is not a whole number >= 2, N < n, eta is not
        in (0, 1/4) or Assumption 3 cannot hold; or if the k needed lies beyond double
        precision (below about 1e-290 or above about 1e290).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> k = dm.k_for_kl(0.05, 100, 3)
    >>> round(k, 3), bool(dm.kl_bound(k, 100, 3) <= 0.05)
    (27.91, True)
    """
    target = _checks.positive("target", target)
    N, n = _records(N, n)
    if eta is None:
        def bound(kk, NN, nn, _e):
            return kl_bound(kk, NN, nn)
        e = np.zeros(np.broadcast(target, N, n).shape)
    else:
        e = _checks.eta_ok(eta)
        _checks.design_ok(e, N, n)
        bound = kl_bound_bordered
    shape = np.broadcast(target, N, n, e).shape
    t, NN, nn, ee = (np.broadcast_to(v, shape).ravel() for v in (target, N, n, e))

    def f(logk, idx):
        return np.asarray(bound(np.exp(logk), NN[idx], nn[idx], ee[idx]), float) - t[idx]

    # E[KL] ~ (n-1)/k for small k and ~ (n-1)/(2k) for large k: start near k = (n-1)/target
    # and widen the bracket [lo, hi] of log k until f(lo) > 0 >= f(hi), for all elements
    guess = np.clip(np.log(nn - 1) - np.log(t), _LOG_K_LOW + 2, _LOG_K_HIGH - 2)
    lo, hi = guess - 2.0, guess + 2.0
    f_lo, f_hi = np.empty(t.size), np.empty(t.size)
    for end, values, step, wrong in ((lo, f_lo, -2.0, lambda v: v <= 0),
                                     (hi, f_hi, 2.0, lambda v: v > 0)):
        idx = np.arange(t.size)
        while idx.size:
            values[idx] = f(end[idx], idx)
            idx = idx[wrong(values[idx])]
            end[idx] += step
            out_of_range = (end[idx] < _LOG_K_LOW) | (end[idx] > _LOG_K_HIGH)
            if out_of_range.any():
                i = idx[np.flatnonzero(out_of_range)[0]]
                if step < 0:
                    raise ValueError(f"target={float(t[i])!r} needs k below "
                                     f"{np.exp(_LOG_K_LOW):.3g} (beyond double precision): "
                                     "no such k can be computed")
                raise ValueError(f"target={float(t[i])!r} is so small that k would exceed "
                                 f"{np.exp(_LOG_K_HIGH):.3g} (beyond double precision)")
    # the bound decreases in k: the safe side (bound <= target) is the upper end
    out = np.exp(root_on_safe_side(f, hi, lo, f_hi, f_lo, rtol=1e-14, xtol=1e-15))
    return _scalar_or_array(out.reshape(shape))


@_checks.public
def coordinate_variance(C, k):
    """Var(C~_i) = C_i (1 - C_i) / (k + 1) for C~ ~ Dir(k C) (Definition 5), every coordinate.

    The variance of the Beta(k C_i, k (1 - C_i)) marginal (the same marginal that
    gives Theorem 2); the sum over i,
    (1 - sum_i C_i^2) / (k + 1), is E||C~ - C||_2^2 because E[C~] = C.
    Returns an array shaped like ``C`` (broadcast against ``k``).
    Book: chapter "Expected KL divergence".

    Parameters
    ----------
    C : array_like
        A count vector (eq. (3)): at least 2 entries, each > 0, summing to 1 (within
        1e-9); or a stack ``(..., n)`` of them.
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0; an array gives one k per count vector.

    Returns
    -------
    numpy.ndarray
        The variances, shaped like ``C`` (broadcast against ``k``).

    Raises
    ------
    ValueError
        If ``C`` is not an array of probability vectors with every entry > 0, or some k
        is not positive.
    TypeError
        If an argument is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.coordinate_variance([0.2, 0.3, 0.5], 49.0).round(6).tolist()
    [0.0032, 0.0042, 0.005]
    """
    C = _probability_vector(C)
    _, kk = _k_last_axis(k)
    return C * (1 - C) / (kk + 1)


@_checks.public
def expected_l1(C, k):
    """E||C~ - C||_1 for C~ ~ Dir(k C), exactly: an L1 companion of Theorem 2.

    Each term is the mean absolute deviation of X ~ Beta(a, b) about its mean
    a/(a+b): 2 a^a b^b / (B(a, b) (a+b)^(a+b+1)), here with a = k C_i, b = k(1-C_i),
    computed as sqrt(2/pi) sqrt(C_i (1-C_i)/k) exp(R(k) - R(a) - R(b)) with the
    log-Gamma remainder R (no overflow, no cancellation).  As k grows the term
    tends to sqrt(2/pi) times the standard deviation, as for a normal law.
    Book: chapter "Expected KL divergence".

    Parameters
    ----------
    C : array_like
        A count vector (eq. (3)): at least 2 entries, each > 0, summing to 1 (within
        1e-9); or a stack ``(..., n)`` of them.
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0; an array gives one k per count vector.

    Returns
    -------
    float or numpy.ndarray
        E||C~ - C||_1, one value per count vector.

    Raises
    ------
    ValueError
        If ``C`` is not an array of probability vectors with every entry > 0, some k is
        not positive, or a Beta parameter k*C_i or k*(1-C_i) is below the smallest
        normal double.
    TypeError
        If an argument is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.expected_l1([0.2, 0.3, 0.5], 50.0), 6)
    0.152265
    """
    C = _probability_vector(C)
    _, kk = _k_last_axis(k)
    # [book:expected_l1]
    # at most one per vector: 1 - C_i from the others
    big = C > 0.5
    others = np.sum(np.where(big, 0.0, C), axis=-1, keepdims=True)
    rest = np.where(big, others, 1 - C)
    a, b = kk * C, kk * rest
    _checks.at_least_tiny("k", kk, np.minimum(a, b), "a Beta parameter k*C_i or k*(1-C_i)")
    log_mad = (0.5 * (np.log(2 / np.pi) + np.log(C) + np.log(rest) - np.log(kk))
               + _lgamma_remainder(kk) - _lgamma_remainder(a)
               - _lgamma_remainder(b))
    return _scalar_or_array(np.exp(log_mad).sum(axis=-1))


@_checks.public
def expected_tv(C, k):
    """E[TV(C, C~)] = E||C~ - C||_1 / 2 for C~ ~ Dir(k C), exactly (see ``expected_l1``).

    A total-variation companion of Theorem 2 (the distance Theorem 4 uses for chains).

    Book: chapter "Expected KL divergence".

    Parameters
    ----------
    C : array_like
        A count vector (eq. (3)): at least 2 entries, each > 0, summing to 1 (within
        1e-9); or a stack ``(..., n)`` of them.
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0; an array gives one k per count vector.

    Returns
    -------
    float or numpy.ndarray
        E[TV], one value per count vector.

    Raises
    ------
    ValueError
        As ``expected_l1``: C not an array of positive probability vectors, k not
        positive, or a Beta parameter below the smallest normal double.
    TypeError
        If an argument is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.expected_tv([0.2, 0.3, 0.5], 50.0), 6)
    0.076133
    """
    return _scalar_or_array(0.5 * np.asarray(expected_l1(C, k)))


@_checks.public
def expected_tv_bound(k, n):
    """A bound on E[TV(C, C~)] that does not depend on C: sqrt((n-1)/(k+1)) / 2.

    By Jensen, E|C~_i - C_i| <= sqrt(Var C~_i); by Cauchy-Schwarz,
    sum_i sqrt(C_i(1-C_i)) <= sqrt(n (1 - sum_i C_i^2)) <= sqrt(n - 1).
    Like Corollary 1 it can be published next to the private output.
    Book: chapter "Expected KL divergence".

    Parameters
    ----------
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0.
    n : int or array_like
        The number of categories, a whole number >= 2.

    Returns
    -------
    float or numpy.ndarray
        The bound; an array of the broadcast shape if an argument is one.

    Raises
    ------
    ValueError
        If some k is not positive or some n is not a whole number >= 2.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.expected_tv_bound(50.0, 3), 6)
    0.099015
    """
    k = _checks.positive("k", k)
    n = _checks.integer_at_least("n", n, 2)
    return _scalar_or_array(0.5 * np.sqrt(n - 1) / np.sqrt(k + 1))


@_checks.public
def tail_bound(C, k, t):
    """An upper bound on P(max_i |C~_i - C_i| >= t) for C~ ~ Dir(k C).

    Boole's inequality over the n coordinates, each tail exact from its Beta
    marginal: sum_i [ I_{C_i - t}(a_i, b_i) + 1 - I_{C_i + t}(a_i, b_i) ] with
    a_i = k C_i, b_i = k (1 - C_i) (a tail beyond 0 or 1 is empty); capped at 1.  An upper
    bound in exact arithmetic, evaluated with SciPy's incomplete Beta function (not rounded
    outward).
    Depends on the secret C; ``tail_bound_subgaussian`` does not.
    Book: chapter "Expected KL divergence".

    Parameters
    ----------
    C : array_like
        A count vector (eq. (3)): at least 2 entries, each > 0, summing to 1 (within
        1e-9); or a stack ``(..., n)`` of them.
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0; an array gives one k per count vector.
    t : float or array_like
        The deviation, > 0; an array gives one t per count vector.

    Returns
    -------
    float or numpy.ndarray
        The bound, in [0, 1], one value per count vector.

    Raises
    ------
    ValueError
        If ``C`` is not an array of probability vectors with every entry > 0, or some k
        or t is not positive.
    TypeError
        If an argument is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.tail_bound([0.2, 0.3, 0.5], 50.0, 0.2), 6)
    0.006306
    """
    C = _probability_vector(C)
    _, kk = _k_last_axis(k)
    t = _checks.positive("t", t)
    tt = t[..., None] if t.ndim else t
    a, b = kk * C, kk * (1 - C)
    lower = betainc(a, b, np.clip(C - tt, 0, 1))    # P(X_i <= C_i - t); 0 if C_i <= t
    upper = betaincc(a, b, np.clip(C + tt, 0, 1))   # P(X_i >= C_i + t); 0 if C_i + t >= 1
    return _scalar_or_array(np.minimum((lower + upper).sum(axis=-1), 1.0))


@_checks.public
def tail_bound_subgaussian(k, n, t):
    """A C-free bound on P(max_i |C~_i - C_i| >= t): min(1, 2 n exp(-2 (k+1) t^2)).

    Every Beta(a, b) law is sub-Gaussian with variance proxy 1/(4 (a+b+1))
    (Marchal and Arbel, 2017); the marginals of Dir(k C) have a + b = k, so
    P(|C~_i - C_i| >= t) <= 2 exp(-2 (k+1) t^2), and Boole's inequality over the n
    coordinates gives the bound.  The book checks the variance proxy numerically.
    Book: chapter "Expected KL divergence".

    Parameters
    ----------
    k : float or array_like
        The Dirichlet parameter (Definition 5), > 0.
    n : int or array_like
        The number of categories, a whole number >= 2.
    t : float or array_like
        The deviation, > 0.

    Returns
    -------
    float or numpy.ndarray
        The bound, in [0, 1]; an array of the broadcast shape if an argument is one.

    Raises
    ------
    ValueError
        If some k or t is not positive or some n is not a whole number >= 2.
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.tail_bound_subgaussian(50.0, 3, 0.2), 6)
    0.101445
    """
    k = _checks.positive("k", k)
    n = _checks.integer_at_least("n", n, 2)
    t = _checks.positive("t", t)
    with np.errstate(over="ignore"):      # (k+1) t^2 = inf only makes the bound 0
        log_bound = np.log(2.0) + np.log(n) - 2 * (k + 1) * t * t
    return _scalar_or_array(np.minimum(np.exp(log_bound), 1.0))


@_checks.public
def kl_divergence(p, q):
    """KL(p || q) = sum_i p_i log(p_i / q_i) along the last axis, with 0 log 0 = 0.

    The divergence whose mean Theorem 2 computes, for Monte Carlo checks of eq. (8).
    Book: chapter "Expected KL divergence".

    Parameters
    ----------
    p : array_like
        A probability vector (entries >= 0 summing to 1 within 1e-9) or a stack of them.
    q : array_like
        Another, with as many entries per vector; broadcasts against ``p``.

    Returns
    -------
    float or numpy.ndarray
        KL(p || q) >= 0, one value per (broadcast) pair of vectors.

    Raises
    ------
    ValueError
        If p or q is not an array of probability vectors, their lengths differ or they
        do not broadcast, or q is 0 where p is > 0 (the divergence is infinite).
    TypeError
        If an argument is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.kl_divergence([0.5, 0.5], [0.25, 0.75]), 6)
    0.143841
    """
    p = _distribution("p", p)
    q = _distribution("q", q)
    if p.shape[-1] != q.shape[-1]:
        raise ValueError(f"p has {p.shape[-1]} entries per vector and q {q.shape[-1]}: "
                         "KL compares two distributions on the same categories")
    try:
        pb, qb = np.broadcast_arrays(p, q)
    except ValueError as err:
        raise ValueError(f"p has shape {p.shape} and q {q.shape}: they do not broadcast") from err
    missing = (qb == 0) & (pb > 0)
    if np.any(missing):
        i = tuple(int(v) for v in np.argwhere(missing)[0])
        raise ValueError(f"q{list(i)}=0 where p{list(i)}={pb[i]!r} > 0: KL(p || q) is infinite")
    with np.errstate(divide="ignore"):
        out = np.sum(xlogy(pb, pb) - xlogy(pb, qb), axis=-1)
    # KL >= 0 exactly (Gibbs' inequality): a negative value is rounding of a true 0-ish value
    return _scalar_or_array(np.maximum(out, 0.0))


def _distribution(name: str, p) -> np.ndarray:
    """Probability vectors along the last axis: entries >= 0 summing to 1 (within 1e-9)."""
    arr = _checks.array(name, p)
    bad = arr < 0
    if np.any(bad):
        raise ValueError(f"{name} contains {_checks.first_bad(arr, bad)!r}: probabilities "
                         "are >= 0")
    sums = arr.sum(axis=-1)
    bad = np.abs(sums - 1) > 1e-9
    if np.any(bad):
        raise ValueError(f"{name} sums to {_checks.first_bad(sums, bad)!r}: a probability "
                         "vector sums to 1")
    return arr
