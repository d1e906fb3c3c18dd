"""The Dirichlet mechanism: Definition 5 and Algorithm 1.

A count vector C = C(D, rho) is released as one draw from Dir(k*C).  The draw is
made from independent gamma variates G_i ~ Gamma(k*C_i, 1) normalised to sum to
one, which is the textbook construction of the Dirichlet law.
Book: chapter "The Dirichlet mechanism".

Randomness: ``rng=None`` draws fresh entropy from the operating system, which is
what a real release must use.  A seed or ``numpy.random.Generator`` makes the
output reproducible; that is for teaching and testing only, since anyone who
knows the seed can undo the noise.
"""
from __future__ import annotations

import numpy as np
from scipy.special import gammaln, xlogy

from . import _checks
from .simplex import check_assumption_3, in_simplex


def _generator(rng) -> np.random.Generator:
    """``None`` -> fresh OS entropy; an int/SeedSequence -> seeded; a Generator as is."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer, np.random.SeedSequence)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng={rng!r} must be None, an int seed or a numpy.random.Generator")


def dirichlet_parameters(counts, k) -> np.ndarray:
    """The Dirichlet parameters k*C of Definition 5, checked.

    Every count must be positive: a zero count gives a zero Dirichlet
    parameter, for which the mechanism is undefined (and Assumption 3 fails).
    """
    arr = _checks.counts_array("counts", counts)
    k_arr = _checks.positive("k", k)
    zero = arr == 0
    if np.any(zero):
        idx = tuple(int(i) for i in np.argwhere(zero)[0])
        raise ValueError(
            f"counts{list(idx)}=0: the Dirichlet mechanism needs every count > 0 "
            "(a zero count gives parameter k*C_i = 0; Assumption 3)")
    C = arr / arr.sum(axis=-1, keepdims=True)
    if k_arr.ndim > 0:
        k_arr = k_arr[..., None]
    return k_arr * C


def privatize(counts, k, *, eta=None, rng=None, size=None) -> np.ndarray:
    """Algorithm 1: release C(D, rho) privately as a draw from Dir(k * C(D, rho)).

    Parameters
    ----------
    counts : array of shape (n,)
        Records per category (whole numbers, each > 0).
    k : float
        The Dirichlet parameter of Definition 5.  Smaller k: more noise, smaller
        epsilon (eq. (6)).  The privacy guarantee of Theorem 1 needs k >= 3/(2*eta).
    eta : float, optional
        If given, Assumptions 3 and 4 are checked (every count >= eta*N and
        k >= 3/(2*eta)) and a violation raises ``ValueError``.
    rng : None, int or numpy.random.Generator
        ``None`` (the default) uses fresh OS entropy.  Seeded output is for
        teaching and testing only.
    size : int or tuple, optional
        Number of independent releases; the result then has shape ``size + (n,)``.

    Returns
    -------
    numpy.ndarray
        Private count vector(s) on the unit simplex.
    """
    alpha = dirichlet_parameters(counts, k)
    if alpha.ndim != 1:
        raise ValueError(f"counts has shape {np.shape(counts)} and k shape {np.shape(k)}: "
                         "privatize takes one count vector and a scalar k "
                         "(use privatize_chain for matrices)")
    if eta is not None:
        check_assumption_3(counts, eta)
        _checks.k_meets_assumption_4(np.asarray(float(k)), _checks.eta_ok(eta))
    gen = _generator(rng)
    shape = () if size is None else tuple(int(s) for s in np.atleast_1d(size))
    return sample_dirichlet(alpha, shape, gen)


def sample_dirichlet(alpha: np.ndarray, shape: tuple, gen: np.random.Generator) -> np.ndarray:
    """Draws of Dir(alpha) (Definition 5) of shape ``shape + alpha.shape``, from gamma variates.

    X = G / sum(G) with independent G_i ~ Gamma(alpha_i, 1).  When every alpha_i >= 1
    (always so under Assumptions 3-4, where k C_i >= 3/2) this is done directly.  For
    smaller parameters the gamma variates of a draw can all underflow to 0, giving 0/0;
    there we use G(a) = G(a + 1) U^(1/a) with U uniform on (0, 1] and normalise in
    logs, which has the same law and cannot underflow as a whole.
    """
    full = shape + alpha.shape
    if np.all(alpha >= 1):
        g = gen.standard_gamma(alpha, size=full)
        g /= g.sum(axis=-1, keepdims=True)
        return g
    log_g = np.log(gen.standard_gamma(alpha + 1, size=full)) + np.log1p(-gen.random(full)) / alpha
    log_g -= log_g.max(axis=-1, keepdims=True)
    g = np.exp(log_g)
    g /= g.sum(axis=-1, keepdims=True)
    return g


def log_density(x, counts, k) -> np.ndarray:
    """Log of the Dirichlet density of Definition 5 at x (one point or a stack).

    log f(x) = sum_i (k C_i - 1) log x_i - log B(k C).
    """
    alpha = dirichlet_parameters(counts, k)
    x = _checks.as_float_array("x", x)
    if x.shape[-1] != alpha.shape[-1]:
        raise ValueError(f"x has {x.shape[-1]} entries per point but counts has {alpha.shape[-1]}")
    if not np.all(in_simplex(x, atol=1e-9)):
        bad = np.atleast_2d(x)[~np.atleast_1d(in_simplex(x, atol=1e-9))][0]
        raise ValueError(f"x={bad.tolist()} is not in the unit simplex (Definition 1): entries "
                         "must be >= 0 and sum to 1; the density is defined only there")
    log_b = gammaln(alpha).sum(axis=-1) - gammaln(alpha.sum(axis=-1))
    with np.errstate(divide="ignore"):
        return np.sum(xlogy(alpha - 1, x), axis=-1) - log_b
