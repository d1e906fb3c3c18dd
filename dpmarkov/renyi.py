"""Renyi divergence between Dirichlet laws, and the Renyi DP curve of Algorithm 1.

For alpha > 1 the Renyi divergence of Dir(a) from Dir(b) has a closed form:

    D_alpha(Dir(a) || Dir(b)) = [log B(c) - alpha log B(a) - (1 - alpha) log B(b)] / (alpha - 1),
    c = alpha a + (1 - alpha) b,

where B(v) = prod Gamma(v_i) / Gamma(sum v_i), finite if and only if every c_i > 0 (else
the integral of p^alpha q^(1 - alpha) diverges at a face of the simplex).  For the
Dirichlet mechanism (Definition 5) two adjacent count vectors c, c' = c + e_i - e_j
(Definition 3) differ in two coordinates only, the other terms cancel, and

    D_alpha(Dir(k c/N) || Dir(k c'/N)) is finite iff c_i > alpha - 1,

whatever k.  Book: chapter "Many releases", which derives the closed form with SymPy,
proves the worst adjacent pair and checks everything by quadrature and Monte Carlo.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy.special import gammaln

from . import _checks
from ._numerics import (U, above_floor, increment_error, lgamma_increment,
                        lgamma_increment_scaled, outward)
from ._pairs import MAX_LIST, SCAN, branch_and_bound, rdp_design, two_categories_exact


def _orders(alpha) -> np.ndarray:
    """Renyi orders: finite and > 1."""
    a = _checks.as_float_array("alpha", alpha)
    bad = a <= 1
    if np.any(bad):
        raise ValueError(f"alpha={_checks.first_bad(a, bad)!r} must be > 1 (Renyi order)")
    return a


def _log_integral_terms(alpha, base, shift, *, error=False):
    """sum over the last axis of log Gamma(base + alpha*shift) - alpha log Gamma(base + shift)
    - (1 - alpha) log Gamma(base), as increments of log Gamma (no cancellation of large values).

    With a = base + shift and b = base this is the per-coordinate part of
    log B(alpha a + (1 - alpha) b) - alpha log B(a) - (1 - alpha) log B(b).  With
    ``error=True`` also an upper bound on its absolute rounding error: each increment
    carries the bound of ``_numerics.increment_error`` (the second one times alpha), the
    product and the difference a few u of their sizes.  The two increments nearly cancel
    (their difference is of second order in the shift), so the bound is absolute.
    """
    steps = (alpha * shift, shift)
    scaled = [lgamma_increment_scaled(base, step) for step in steps]
    with np.errstate(over="ignore", invalid="ignore"):      # as in lgamma_increment
        big, small = (step * s for step, s in zip(steps, scaled))
    value = big - alpha * small
    if not error:
        return value
    bound = 0.0
    for inc, step, s, weight in zip((big, small), steps, scaled, (1.0, alpha)):
        bound = bound + weight * (increment_error(base, step, s) + 4 * U * np.abs(inc))
    return value, bound


def _exact_mixture(alpha, a, b):
    """alpha*a + (1 - alpha)*b; entries within rounding of 0 are recomputed exactly (fractions),
    so the sign that decides finiteness is the exact one for the given floats."""
    mix = alpha * a + (1 - alpha) * b
    near = np.abs(mix) <= 1e-12 * (alpha * np.abs(a) + (alpha - 1) * np.abs(b))
    for idx in zip(*np.nonzero(near)):
        al = Fraction(float(alpha[idx]))
        mix[idx] = float(al * Fraction(float(a[idx])) + (1 - al) * Fraction(float(b[idx])))
    return mix


def _mixture_positive(alpha, a, b):
    """Whether alpha*a + (1 - alpha)*b > 0, i.e. alpha a > (alpha - 1) b, exactly for the given
    floats: in floating point where the two sides are normal, finite and apart by more than
    their rounding (a few units in the last place), else in fractions (overflow, underflow
    or a near tie: the finiteness of D_alpha hangs on this sign)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):   # inf - inf: not sure
        lhs, rhs = alpha * a, (alpha - 1) * b
        tiny = np.finfo(float).tiny
        sure = (np.isfinite(lhs) & np.isfinite(rhs) & (lhs > tiny) & (rhs > tiny)
                & (np.abs(lhs - rhs) > 1e-12 * np.maximum(lhs, rhs)))
    out = lhs > rhs
    for idx in zip(*np.nonzero(~sure)):
        al = Fraction(float(alpha[idx]))
        out[idx] = al * Fraction(float(a[idx])) + (1 - al) * Fraction(float(b[idx])) > 0
    return out


@_checks.public(finite=False)      # +inf is a correct divergence; NaN never arises
def renyi_divergence(alpha, a, b):
    """D_alpha(Dir(a) || Dir(b)) for alpha > 1, in closed form (inf where it diverges).

    ``a`` and ``b`` are Dirichlet parameters (last axis, every entry > 0, same shape);
    ``alpha`` broadcasts against the leading axes.  The value is +inf exactly when the
    mixture alpha*a + (1 - alpha)*b has an entry <= 0.  Not in the paper: the mechanism of
    Definition 5 under Renyi DP.  Book: "Many releases".

    Parameters
    ----------
    alpha : float or array_like
        Renyi orders, each > 1 and finite; broadcast against the leading axes of ``a``.
    a : array_like, shape (..., n)
        Parameters of the first Dirichlet law: finite, > 0, n >= 2.
    b : array_like, shape (..., n)
        Parameters of the second Dirichlet law, of the same shape as ``a``, > 0.

    Returns
    -------
    float or numpy.ndarray
        D_alpha(Dir(a) || Dir(b)) >= 0, +inf where it diverges (a float when every
        input is one law and one order).

    Raises
    ------
    ValueError
        If some alpha <= 1, an entry of ``a`` or ``b`` is not finite and > 0, ``a`` has
        fewer than 2 entries on its last axis, or ``a`` and ``b`` differ in shape.
    TypeError
        If an input holds something that is not a real number (a bool, text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.renyi_divergence(2.0, [2.0, 3.0], [3.0, 2.0]), 4)
    1.0986
    >>> dm.renyi_divergence(2.0, [1.0, 3.0], [3.0, 1.0])
    inf
    """
    alpha = _orders(alpha)
    a = _checks.positive("a", a)
    b = _checks.positive("b", b)
    if a.ndim == 0 or a.shape[-1] < 2:
        raise ValueError(f"a has shape {a.shape}: Dirichlet parameters need at least 2 entries")
    if a.shape != b.shape:
        raise ValueError(f"a has shape {a.shape} and b has shape {b.shape}: they must agree")
    alpha, a, b = np.broadcast_arrays(alpha[..., None], a, b)
    finite = np.all(_mixture_positive(alpha, a, b), axis=-1)
    if not finite.all():                         # compute the finite ones only (no overflow)
        keep = finite[..., None]
        alpha, a, b = np.where(keep, alpha, 2.0), np.where(keep, a, 1.0), np.where(keep, b, 1.0)
    mix = _exact_mixture(alpha, a, b)
    d = np.where(mix > 0, a - b, 0.0)            # keep the arithmetic finite where it diverges
    near = (mix > 0) & (mix < 1e-3 * b)          # tiny mixture: log Gamma of it directly
    bn = np.where(near, b, 1.0)
    inc = np.where(near, gammaln(np.where(near, mix, 1.0)) - gammaln(bn),
                   lgamma_increment(b, np.where(near, 0.0, alpha * d)))
    per_coordinate = (inc - alpha * lgamma_increment(b, d)).sum(axis=-1)
    al = alpha[..., 0]
    total = _log_integral_terms(al, b.sum(axis=-1), (a - b).sum(axis=-1))
    with np.errstate(invalid="ignore"):
        value = (per_coordinate - total) / (al - 1)
    out = np.where(finite, np.maximum(value, 0.0), np.inf)
    return out if out.ndim else float(out)


def _pair_divergence(alpha, c_i, c_j, k, N):
    """D_alpha(Dir(k c/N) || Dir(k c'/N)) for c' = c + e_i - e_j; alpha (m,) x pairs (p,) -> (m, p).

    Only coordinates i and j enter: with h = k/N, b_i = k(c_i + 1)/N, b_j = k(c_j - 1)/N,
    the log-integral is [G(b_i - alpha h) - alpha G(b_i - h)] + [G(b_j + alpha h) - alpha G(b_j + h)]
    relative to G(b) (G = log Gamma), and it is finite iff c_i + 1 - alpha > 0.
    The value is rounded outward (``_log_integral_terms`` with ``error=True``): the terms of the
    log-integral nearly cancel, and ``rdp_epsilon``, built on this, must never fall below
    the real divergence.
    """
    h = k / N
    al = np.asarray(alpha, float)[:, None]
    b_i, b_j = k * (c_i + 1) / N, k * (c_j - 1) / N
    finite = c_i + 1 - al > 0
    shift_i = np.where(finite, -h, 0.0)
    (t_i, e_i), (t_j, e_j) = (_log_integral_terms(al, b_i, shift_i, error=True),
                              _log_integral_terms(al, b_j, h, error=True))
    log_int = t_i + t_j
    error = e_i + e_j + 4 * U * np.abs(log_int)
    value = np.maximum((log_int + error) / (al - 1) * (1 + 4 * U), 0.0)
    return np.where(finite, value, np.inf)


@_checks.public
def rdp_pairs(N, n, min_count):
    """The (c_i, c_j) that can be the worst adjacent pair for ``rdp_epsilon``; c' = c + e_i - e_j.

    For n >= 3 the single pair (m, m + 1): D_alpha does not increase when either count
    grows (a Beta-multiplication kernel maps Dir(k c/N), Dir(k c'/N) to the laws with c_i
    or c_j larger, and Renyi divergence cannot grow under post-processing; book: "Many
    releases").  For n = 2, c_i + c_j = N is forced and every c_i in [m, N - m - 1] is
    returned (at most 2e6 of them; ``rdp_epsilon`` does not scan them but bounds blocks of
    them, as ``privacy_profile`` does).  Both orders of every adjacent pair are covered: the
    reverse of (c_i, c_j) is (c_j - 1, c_i + 1), again in the set.  Adjacency of Definition
    3; Algorithm 1.

    Parameters
    ----------
    N : int
        Records in the database, a whole number >= 2.
    n : int
        Categories, a whole number >= 2.
    min_count : int
        The fewest records a category may hold (e.g. ``min_count(eta, N)``), >= 1; some
        adjacent pair with every count >= ``min_count`` must exist.

    Returns
    -------
    tuple of numpy.ndarray
        ``(c_i, c_j)``, two float arrays of equal length: the counts in c of the two
        coordinates that change (c' = c + e_i - e_j: c_i gains a record, c_j loses one).

    Raises
    ------
    ValueError
        If ``N``, ``n`` or ``min_count`` is not a whole number in its range (N >= 2,
        n >= 2, min_count >= 1), if no adjacent pair with every count >= ``min_count``
        exists, or (n = 2) if there are more than 2,000,000 pairs to list.
    TypeError
        If an input is not a real number (a bool, text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.rdp_pairs(100, 3, 5)
    (array([5.]), array([6.]))
    """
    _, N, n, m = rdp_design(1.0, N, n, min_count)
    if n >= 3:
        return np.array([float(m)]), np.array([float(m + 1)])
    if N - 2 * m > MAX_LIST:
        raise ValueError(f"N={N}, min_count={m}: n=2 has {N - 2 * m} adjacent pairs, more "
                         f"than {MAX_LIST} to list (rdp_epsilon needs no list)")
    c_i = np.arange(m, N - m, dtype=float)
    return c_i, N - c_i


@_checks.public(finite=False)      # +inf is a correct divergence; NaN never arises
def rdp_epsilon(alpha, k, N, n, min_count):
    """The Renyi DP curve of Algorithm 1: sup of D_alpha over adjacent count vectors.

    sup over adjacent c, c' (Definition 3, both orders) with every count >= ``min_count``
    of D_alpha(Dir(k c/N) || Dir(k c'/N)), for each order ``alpha`` > 1 (broadcasts).  It is
    +inf for alpha >= min_count + 1 (the worst pair has a count min_count that grows by
    one).  ``k``, ``N``, ``n``, ``min_count`` are scalars.  For n = 2 the N - 2m pairs are
    not scanned: D_alpha does not increase in either count (``rdp_pairs``), so a block of
    pairs (c, N - c), c0 <= c <= c1, is bounded by the one pair (c0, N - c1) (only the two
    counts enter ``_pair_divergence``), and the branch and bound of ``privacy_profile``
    finds the maximum over all of them in a few dozen evaluations at any N up to 2**53.
    Not in the paper (Definition 3's adjacency, Algorithm 1).  Book: "Many releases".

    Parameters
    ----------
    alpha : float or array_like
        Renyi orders, each > 1 and finite (any shape).
    k : float
        The Dirichlet parameter of Algorithm 1, > 0, with k/N >= 1e-300.
    N : int
        Records in the database, a whole number >= 2.
    n : int
        Categories, a whole number >= 2.
    min_count : int
        The fewest records a category may hold (e.g. ``min_count(eta, N)``), >= 1; some
        adjacent pair with every count >= ``min_count`` must exist.

    Returns
    -------
    float or numpy.ndarray
        The RDP epsilon(alpha) of one release, of ``alpha``'s shape (a float for one
        order); +inf for alpha >= min_count + 1.  Rounded outward: never below the true
        supremum.

    Raises
    ------
    ValueError
        If some alpha <= 1 or is not finite; if ``k``, ``N``, ``n`` or ``min_count``
        is not a scalar in its range; if no adjacent pair of N records in n
        categories has every count >= ``min_count``; if k/N is below 1e-300
        (subnormal Dirichlet parameters); or (n = 2) if N exceeds 2**53.
    TypeError
        If an input is not a real number (a bool, text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.rdp_epsilon(2.0, 50.0, 100, 3, 5), 4)
    0.2231
    """
    alpha = _orders(alpha)
    k, N, n, m = rdp_design(k, N, n, min_count)
    flat = alpha.ravel()
    if n == 2 and N - 2 * m > SCAN:
        two_categories_exact(N, n)
        best, _ = branch_and_bound(lambda c_i, c_j: _pair_divergence(flat, c_i, c_j, k, N),
                                    N, m, N - m - 1)
    else:
        c_i, c_j = rdp_pairs(N, n, m)
        best = _pair_divergence(flat, c_i, c_j, k, N).max(axis=1)
    out = best.reshape(alpha.shape)
    return out if out.ndim else float(out)


@_checks.public(finite=False)      # +inf is a correct divergence; NaN never arises
def rdp_to_dp(alpha, rdp, delta, *, conversion="improved"):
    """(epsilon, best alpha) from an RDP curve: the smallest epsilon over the given orders.

    ``conversion="classic"``: epsilon = rdp + log(1/delta)/(alpha - 1) (Mironov 2017,
    Prop. 3).  ``"improved"`` (default): epsilon = rdp + log1p(-1/alpha)
    - log(delta alpha)/(alpha - 1) (Balle et al. 2020; Canonne, Kamath and Steinke 2020),
    the conversion of dp_accounting's RDP accountant.  Each order's epsilon is rounded
    outward by a bound on its floating-point error, so it is never below the formula's real
    value (a few units in the 16th digit above it).  Infinite rdp values are skipped; all
    infinite gives epsilon = inf.  Not in the paper (its Theorem 1 is a single release).

    Parameters
    ----------
    alpha : array_like, shape (m,)
        Renyi orders, each > 1 and finite.
    rdp : array_like, shape (m,)
        The RDP curve at those orders (e.g. ``rdp_epsilon`` times the number of
        releases): >= 0, +inf allowed, no NaN.
    delta : float
        The target delta, 0 < delta < 1.
    conversion : {"improved", "classic"}, optional
        The conversion from RDP to (epsilon, delta)-DP (default ``"improved"``).

    Returns
    -------
    epsilon : float
        The smallest epsilon >= 0 over the orders (inf if every rdp is infinite).
    alpha : float
        The order that attains it.

    Raises
    ------
    ValueError
        If ``conversion`` is not one of the two names, some alpha <= 1, ``alpha`` and
        ``rdp`` are not 1-d of the same length, ``rdp`` has a NaN or a negative entry
        or is not rectangular, or ``delta`` is not in (0, 1).
    TypeError
        If ``alpha``, ``rdp`` or ``delta`` is not a real number (a bool, text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> import numpy as np
    >>> orders = np.array([2.0, 4.0, 8.0, 16.0])
    >>> eps, order = dm.rdp_to_dp(orders, dm.rdp_epsilon(orders, 50.0, 100, 3, 20), 1e-5)
    >>> round(eps, 3), order
    (0.988, 16.0)
    """
    conversion = _checks.choice("conversion", conversion, ("improved", "classic"))
    alpha = _orders(alpha)
    r = _checks.real_float_array("rdp", rdp)    # inf is allowed here, so not as_float_array
    if r.shape != alpha.shape or alpha.ndim != 1:
        raise ValueError(f"alpha (shape {alpha.shape}) and rdp (shape {r.shape}) must be "
                         "1-d arrays of the same length")
    if np.any(np.isnan(r)) or np.any(r < 0):
        raise ValueError(f"rdp={r!r} must be >= 0 (inf allowed)")
    d = _checks.scalar("delta", delta)
    if not 0 < d < 1:
        raise ValueError(f"delta={d!r} must satisfy 0 < delta < 1")
    # each epsilon rounded outward: 8u of each term's size, plus 4u / (alpha - 1) for the
    # roundings of 1/alpha and d alpha, which the logarithms carry divided by alpha - 1
    with np.errstate(invalid="ignore"):
        if conversion == "classic":
            terms = (r, -np.log(d) / (alpha - 1))
        elif conversion == "improved":
            terms = (r, np.log1p(-1 / alpha), -np.log(d * alpha) / (alpha - 1))
        else:
            raise ValueError(f"conversion={conversion!r} must be 'improved' or 'classic'")
        eps = sum(terms)
        error = 8.0 * U * sum(np.abs(t) for t in terms) + 4.0 * U / (alpha - 1)
        eps = np.where(np.isfinite(r), above_floor(outward(eps, error), slack=4), np.inf)
    best = int(np.argmin(eps))
    return max(float(eps[best]), 0.0), float(alpha[best])
