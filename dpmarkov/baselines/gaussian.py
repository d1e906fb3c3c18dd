"""The analytic Gaussian mechanism (Balle and Wang 2018) on the counts.

sigma from the exact (epsilon, delta) condition at L2 sensitivity sqrt(2); the
floating-point releases are for comparison only (see ``laplace``).  Paper: Section 1.
Book: chapter "Baselines at matched privacy".
"""
from __future__ import annotations

import functools

import numpy as np
from scipy.special import log_ndtr

from .. import _checks
from ._common import L2_SENSITIVITY, scalar_delta, scalar_epsilon, size_shape
from .projection import project_to_simplex


# ------------------------------------------------------------ analytic Gaussian
def _gaussian_delta(s, eps, D):
    """Unchecked float core of ``analytic_gaussian_delta`` (broadcasts).

    Where eps s / D overflows or Phi(a) is below the smallest double (log Phi(a) = -inf),
    delta < Phi(a) underflows too: its nearest double is 0, returned as such.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        a = D / (2 * s) - eps * s / D
        b = -D / (2 * s) - eps * s / D
        la = log_ndtr(a)
        out = np.exp(la) * -np.expm1(eps + log_ndtr(b) - la)
    return np.where(np.isneginf(la), 0.0, out)


@_checks.public
def analytic_gaussian_delta(sigma, epsilon, sensitivity=L2_SENSITIVITY):
    """The exact delta(epsilon) of the Gaussian mechanism N(0, sigma^2 I) (Balle & Wang 2018, Thm 8).

    delta = Phi(D/(2 sigma) - epsilon sigma/D) - e^epsilon Phi(-D/(2 sigma) - epsilon sigma/D)

    with D the L2 sensitivity (sqrt(2) for counts under Definition 3, N public).  It is
    the smallest delta for which the mechanism is (epsilon, delta)-DP, i.e. its privacy
    profile.  Computed as Phi(a) * (-expm1(epsilon + log Phi(b) - log Phi(a))) to avoid
    cancellation.  Broadcasts.  Book: "Baselines at matched privacy".

    Parameters
    ----------
    sigma : float or array_like of float
        The noise standard deviation(s), finite and > 0.
    epsilon : float or array_like of float
        The privacy parameter(s), finite and > 0.
    sensitivity : float or array_like of float, optional
        The L2 sensitivity D, finite and > 0 (default ``L2_SENSITIVITY`` = sqrt(2)).

    Returns
    -------
    float or numpy.ndarray
        delta(epsilon) in [0, 1): a float for scalar inputs, else the broadcast array.

    Raises
    ------
    TypeError
        If an argument is a bool, text or not real numbers.
    ValueError
        If some ``sigma``, ``epsilon`` or ``sensitivity`` is not finite and > 0, or the
        arguments do not broadcast.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.baselines.analytic_gaussian_delta(3.0, 1.0), 6)
    0.004635
    """
    s = _checks.positive("sigma", sigma)
    eps = _checks.positive("epsilon", epsilon)
    D = _checks.positive("sensitivity", sensitivity)
    out = _gaussian_delta(s, eps, D)
    return out if np.ndim(out) else float(out)


@functools.lru_cache(maxsize=256)
def _gaussian_sigma(eps: float, d: float, D: float) -> float:
    lo, hi = D * 1e-3, D
    while _gaussian_delta(lo, eps, D) <= d:
        lo /= 10
    while _gaussian_delta(hi, eps, D) > d:
        hi *= 10
    lo, hi = np.log(lo), np.log(hi)
    while hi - lo > 1e-15 * max(1.0, abs(hi)):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if _gaussian_delta(np.exp(mid), eps, D) > d:
            lo = mid
        else:
            hi = mid
    return float(np.exp(hi))


@_checks.public
def analytic_gaussian_sigma(epsilon, delta, sensitivity=L2_SENSITIVITY) -> float:
    """The smallest sigma for which N(0, sigma^2 I) noise is (epsilon, delta)-DP (Balle & Wang 2018).

    ``analytic_gaussian_delta`` decreases strictly in sigma, so the root of
    delta(sigma) = delta is found by bisection on log sigma (to relative width 1e-15);
    the upper end of the final bracket is returned, so the guarantee holds (over the
    reals: floating-point Gaussian samples are for comparison only).  Results are
    cached per (epsilon, delta, sensitivity).  The Gaussian mechanism is the other
    alternative named in the paper's Section 1.  Book: "Baselines at matched privacy".

    Parameters
    ----------
    epsilon : float
        The privacy parameter, one finite number > 0.
    delta : float
        The target delta, one number with 0 < delta < 1.
    sensitivity : float, optional
        The L2 sensitivity D, one finite number > 0 (default ``L2_SENSITIVITY`` = sqrt(2)).

    Returns
    -------
    float
        The smallest sigma with ``analytic_gaussian_delta(sigma, epsilon) <= delta``
        (rounded up, to relative 1e-15).

    Raises
    ------
    TypeError
        If an argument is a bool, text or not a real number.
    ValueError
        If ``epsilon`` or ``sensitivity`` is not a single finite number > 0, or ``delta``
        is not a single number in (0, 1).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.baselines.analytic_gaussian_sigma(1.0, 1e-5), 3)
    5.276
    """
    eps = scalar_epsilon(epsilon)
    d = scalar_delta(delta)
    D = _checks.positive_scalar("sensitivity", sensitivity)
    with np.errstate(all="ignore"):
        return _gaussian_sigma(eps, d, D)


@_checks.public
def gaussian_counts_comparison(counts, epsilon, delta, *, rng=None, size=None) -> np.ndarray:
    """COMPARISON ONLY: counts plus floating-point N(0, sigma^2) noise, sigma analytic.

    sigma = ``analytic_gaussian_sigma(epsilon, delta)`` makes real-valued noise
    (epsilon, delta)-DP; floating-point Gaussian samples are open to the same kind of
    attack as floating-point Laplace samples (Mironov 2012; the book shows the Laplace
    case), so this is kept for comparison, not for release.  Paper, Section 1 names
    the Gaussian mechanism; ``rng=None`` uses fresh OS entropy.
    Book: "Baselines at matched privacy".

    Parameters
    ----------
    counts : array_like of int, shape (..., n)
        Category counts: whole numbers >= 0, n >= 2, each vector holding at least one record.
    epsilon : float
        The privacy parameter, one finite number > 0.
    delta : float
        The privacy parameter delta, one number with 0 < delta < 1.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        None (the default) draws fresh OS entropy; an int >= 0 seeds (teaching only).
    size : None, int or tuple of int, optional
        How many independent releases: the result has shape ``size + counts.shape``.

    Returns
    -------
    numpy.ndarray
        The noisy counts (floats, possibly negative), of shape ``size + counts.shape``.

    Raises
    ------
    TypeError
        If ``counts``, ``epsilon`` or ``delta`` is not real numbers, ``rng`` is a bool or
        of an unsupported type, or ``size`` is not None, an int or a tuple of ints.
    ValueError
        If ``counts`` has negative, non-whole or non-finite entries, fewer than 2
        categories or a vector summing to 0; if ``epsilon`` is not a single number > 0,
        or ``delta`` not a single number in (0, 1); if an int ``rng`` is negative, or
        ``size`` is negative or too large.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.baselines.gaussian_counts_comparison([5, 3, 2], 1.0, 1e-5, rng=0, size=4).shape
    (4, 3)
    """
    c = _checks.counts_array("counts", counts)
    sigma = analytic_gaussian_sigma(epsilon, delta)
    shape = size_shape(size, c.size) + c.shape
    return c + _checks.generator(rng).normal(0.0, sigma, size=shape)


@_checks.public
def gaussian_project_comparison(counts, epsilon, delta, *, rng=None, size=None) -> np.ndarray:
    """COMPARISON ONLY: floating-point analytic Gaussian noise, divided by N, projected.

    (epsilon, delta)-DP over the reals with the exact calibration of Balle & Wang (2018);
    not a safe release in floating point (``gaussian_counts_comparison``).  A baseline
    for Algorithm 1 (paper, Section 1); ``rng=None`` uses fresh OS entropy.
    Book: "Baselines at matched privacy".

    Parameters
    ----------
    counts : array_like of int, shape (..., n)
        Category counts: whole numbers >= 0, n >= 2, each vector holding at least one record.
    epsilon : float
        The privacy parameter, one finite number > 0.
    delta : float
        The privacy parameter delta, one number with 0 < delta < 1.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        None (the default) draws fresh OS entropy; an int >= 0 seeds (teaching only).
    size : None, int or tuple of int, optional
        How many independent releases: the result has shape ``size + counts.shape``.

    Returns
    -------
    numpy.ndarray
        Vectors on the simplex, of shape ``size + counts.shape``.

    Raises
    ------
    TypeError
        If ``counts``, ``epsilon`` or ``delta`` is not real numbers, ``rng`` is a bool or
        of an unsupported type, or ``size`` is not None, an int or a tuple of ints.
    ValueError
        If ``counts`` has negative, non-whole or non-finite entries, fewer than 2
        categories or a vector summing to 0; if ``epsilon`` is not a single number > 0,
        or ``delta`` not a single number in (0, 1); if an int ``rng`` is negative, or
        ``size`` is negative or too large.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> x = dm.baselines.gaussian_project_comparison([5, 3, 2], 1.0, 1e-5, rng=0, size=4)
    >>> x.shape, bool(abs(x.sum(axis=-1) - 1).max() < 1e-12)
    ((4, 3), True)
    """
    c = _checks.counts_array("counts", counts)
    noisy = gaussian_counts_comparison(c, epsilon, delta, rng=rng, size=size)
    return project_to_simplex(noisy / c.sum(axis=-1, keepdims=True))
