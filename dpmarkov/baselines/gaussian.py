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
    """Unchecked float core of ``analytic_gaussian_delta`` (broadcasts)."""
    a = D / (2 * s) - eps * s / D
    b = -D / (2 * s) - eps * s / D
    la = log_ndtr(a)
    return np.exp(la) * -np.expm1(eps + log_ndtr(b) - la)


@_checks.public
def analytic_gaussian_delta(sigma, epsilon, sensitivity=L2_SENSITIVITY):
    """The exact delta(epsilon) of the Gaussian mechanism N(0, sigma^2 I) (Balle & Wang 2018, Thm 8).

    delta = Phi(D/(2 sigma) - epsilon sigma/D) - e^epsilon Phi(-D/(2 sigma) - epsilon sigma/D)

    with D the L2 sensitivity (sqrt(2) for counts under Definition 3, N public).  It is
    the smallest delta for which the mechanism is (epsilon, delta)-DP, i.e. its privacy
    profile.  Computed as Phi(a) * (-expm1(epsilon + log Phi(b) - log Phi(a))) to avoid
    cancellation.  Broadcasts.  Book: "Baselines at matched privacy".
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
    """
    c = _checks.counts_array("counts", counts)
    noisy = gaussian_counts_comparison(c, epsilon, delta, rng=rng, size=size)
    return project_to_simplex(noisy / c.sum(axis=-1, keepdims=True))
