"""Floating-point Laplace noise on the counts: for comparison only, and the attack on it.

Laplace noise of scale 2/epsilon (L1 sensitivity 2) is pure epsilon-DP in exact arithmetic
(Dwork et al. 2006), but the doubles numpy returns are open to Mironov's (2012) attack
(``laplace_float_attack``, on numpy's own sampler replicated bit for bit by
``numpy_laplace_noise``).  Paper: Section 1 (the additive-noise mechanisms it sets aside).
Book: chapter "Baselines at matched privacy" (the floating-point attack).
"""
from __future__ import annotations

import math

import numpy as np

from .. import _checks
from ._common import L1_SENSITIVITY, scalar_epsilon, size_shape
from .projection import clip_to_simplex, project_to_simplex


# ------------------------------------------- continuous noise: comparison only
# Floating-point Laplace and Gaussian noise are open to Mironov's (2012) attack: the set
# of doubles a release can take depends on the true count, so an output can rule out a
# neighbouring count with certainty (``laplace_float_attack``).  These functions are kept
# for comparison in the book and are named ``..._comparison``: do not release with them.
@_checks.public
def laplace_scale(epsilon, sensitivity=L1_SENSITIVITY) -> float:
    """Scale b = sensitivity/epsilon of the Laplace mechanism (pure epsilon-DP over the reals).

    With L1 sensitivity 2 (one record changes category, N public) the log density
    ratio of two adjacent outputs is at most (|z_i| - |z_i - 1| + |z_j| - |z_j + 1|)/b
    <= 2/b = epsilon (Dwork et al. 2006); adjacency as in Definition 3, N public.
    The guarantee is for real-valued noise; floating-point samples do not have it
    (``laplace_float_attack``).  Book: "Baselines at matched privacy".

    Parameters
    ----------
    epsilon : float
        The privacy parameter, one finite number > 0.
    sensitivity : float, optional
        The query's L1 sensitivity, one finite number > 0 (default ``L1_SENSITIVITY`` = 2).

    Returns
    -------
    float
        The Laplace scale b = sensitivity / epsilon.

    Raises
    ------
    TypeError
        If an argument is a bool, text or not a real number.
    ValueError
        If ``epsilon`` or ``sensitivity`` is not a single finite number > 0.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.baselines.laplace_scale(0.5)
    4.0
    """
    return _checks.positive_scalar("sensitivity", sensitivity) / scalar_epsilon(epsilon)


@_checks.public
def laplace_counts_comparison(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """COMPARISON ONLY: counts plus floating-point Laplace(0, 2/epsilon) noise.

    Over the reals this is epsilon-DP (``laplace_scale``); in floating point it is not:
    the doubles it can output depend on the true counts, and Mironov's (2012) attack
    (``laplace_float_attack``) rules out a neighbouring count from most single outputs.
    Use ``geometric_counts`` (exact integer noise) to release.  ``counts`` has shape
    (..., n); the result has shape ``size + counts.shape``.  The paper's Section 1
    names the Laplace mechanism as the usual alternative.
    Book: "Baselines at matched privacy" (the floating-point attack).

    Parameters
    ----------
    counts : array_like of int, shape (..., n)
        Category counts: whole numbers >= 0, n >= 2, each vector holding at least one record.
    epsilon : float
        The privacy parameter, one finite number > 0 (noise scale 2/epsilon).
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
        If ``counts`` or ``epsilon`` is not real numbers, ``rng`` is a bool or of an
        unsupported type, or ``size`` is not None, an int or a tuple of ints.
    ValueError
        If ``counts`` has negative, non-whole or non-finite entries, fewer than 2
        categories or a vector summing to 0; if ``epsilon`` is not a single number > 0;
        if an int ``rng`` is negative, or ``size`` is negative or too large.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.baselines.laplace_counts_comparison([5, 3, 2], 1.0, rng=0, size=4).shape
    (4, 3)
    """
    c = _checks.counts_array("counts", counts)
    b = laplace_scale(epsilon)
    shape = size_shape(size, c.size) + c.shape
    return c + _checks.generator(rng).laplace(0.0, b, size=shape)


@_checks.public
def laplace_clip_comparison(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """COMPARISON ONLY: floating-point Laplace noise on the counts, then ``clip_to_simplex``.

    epsilon-DP over the reals, not in floating point (``laplace_counts_comparison``);
    kept to compare accuracy with Algorithm 1 (paper, Section 1).  The safe release
    with the same accuracy is ``geometric_clip``.  Book: "Baselines at matched privacy".

    Parameters
    ----------
    counts : array_like of int, shape (..., n)
        Category counts: whole numbers >= 0, n >= 2, each vector holding at least one record.
    epsilon : float
        The privacy parameter, one finite number > 0 (noise scale 2/epsilon).
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
        If ``counts`` or ``epsilon`` is not real numbers, ``rng`` is a bool or of an
        unsupported type, or ``size`` is not None, an int or a tuple of ints.
    ValueError
        If ``counts`` has negative, non-whole or non-finite entries, fewer than 2
        categories or a vector summing to 0; if ``epsilon`` is not a single number > 0;
        if an int ``rng`` is negative, or ``size`` is negative or too large.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> x = dm.baselines.laplace_clip_comparison([5, 3, 2], 1.0, rng=0, size=4)
    >>> x.shape, bool(abs(x.sum(axis=-1) - 1).max() < 1e-12)
    ((4, 3), True)
    """
    return clip_to_simplex(laplace_counts_comparison(counts, epsilon, rng=rng, size=size))


@_checks.public
def laplace_project_comparison(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """COMPARISON ONLY: floating-point Laplace noise, divided by N, projected onto the simplex.

    epsilon-DP over the reals, not in floating point (``laplace_counts_comparison``);
    kept to compare accuracy with Algorithm 1 (paper, Section 1).  The safe release
    with the same accuracy is ``geometric_project``.  Book: "Baselines at matched privacy".

    Parameters
    ----------
    counts : array_like of int, shape (..., n)
        Category counts: whole numbers >= 0, n >= 2, each vector holding at least one record.
    epsilon : float
        The privacy parameter, one finite number > 0 (noise scale 2/epsilon).
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
        If ``counts`` or ``epsilon`` is not real numbers, ``rng`` is a bool or of an
        unsupported type, or ``size`` is not None, an int or a tuple of ints.
    ValueError
        If ``counts`` has negative, non-whole or non-finite entries, fewer than 2
        categories or a vector summing to 0; if ``epsilon`` is not a single number > 0;
        if an int ``rng`` is negative, or ``size`` is negative or too large.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> x = dm.baselines.laplace_project_comparison([5, 3, 2], 1.0, rng=0, size=4)
    >>> x.shape, bool(abs(x.sum(axis=-1) - 1).max() < 1e-12)
    ((4, 3), True)
    """
    c = _checks.counts_array("counts", counts)
    noisy = laplace_counts_comparison(c, epsilon, rng=rng, size=size)
    return project_to_simplex(noisy / c.sum(axis=-1, keepdims=True))


@_checks.public
def numpy_laplace_noise(k, scale) -> np.ndarray:
    """The double numpy's ``Generator.laplace(0, scale)`` returns for the raw draw U = k 2^-53.

    A replica of numpy's C sampler (``random_laplace`` in numpy/random/src/distributions):
    U = k 2^-53 is ``next_double``'s value; the noise is 0 - scale log(2 - U - U) for
    U >= 1/2 and 0 + scale log(U + U) otherwise.  The logarithm is the C library's
    ``log``, which numpy's C code calls and Python's ``math.log`` calls too; numpy's
    vectorised ``np.log`` is not used, since its SIMD code paths (AVX-512 among them) can
    differ from the C library in the last bit.  Sums, differences and products are
    IEEE-exact roundings in both, so the replica gives the same doubles on every CPU and
    under any numpy dispatch level (``tests/test_baselines.py`` checks this, also with
    numpy's SIMD cut to the baseline).  Paper: Section 1 (the additive-noise mechanisms it
    sets aside).  Book: "Baselines at matched privacy" (the floating-point attack).

    Parameters
    ----------
    k : int or array_like of int
        The raw draws' 53-bit integers, 1 <= k <= 2^53 - 1 (numpy rejects U = 0).
    scale : float
        The Laplace scale b > 0.

    Returns
    -------
    numpy.ndarray
        The noise doubles, of ``k``'s shape.

    Raises
    ------
    ValueError
        If some k is not a whole number in [1, 2^53 - 1], or ``scale`` is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmarkov.baselines import numpy_laplace_noise
    >>> raw = np.random.default_rng(0).bit_generator.random_raw(5) >> np.uint64(11)
    >>> z = numpy_laplace_noise(raw.astype(np.int64), 10.0)
    >>> bool(np.array_equal(z, np.random.default_rng(0).laplace(0.0, 10.0, size=5)))
    True
    """
    draws = _checks.integer_at_least("k", k, 1)
    if np.any(draws > 2.0 ** 53 - 1):
        bad = draws[draws > 2.0 ** 53 - 1].flat[0]
        raise ValueError(f"k={bad!r} exceeds 2^53 - 1: next_double draws 53 bits")
    b = _checks.positive_scalar("scale", scale)
    return _laplace_from_draws(np.asarray(draws, np.int64), b)


def _laplace_from_draws(k: np.ndarray, scale: float) -> np.ndarray:
    """``numpy_laplace_noise`` without the checks (the attack's bisection calls it 53 times)."""
    u = k * 2.0 ** -53
    upper = u >= 0.5
    arg = np.where(upper, 2.0 - u - u, u + u)
    logs = np.fromiter(map(math.log, arg.ravel().tolist()), float, arg.size).reshape(arg.shape)
    return np.where(upper, 0.0 - scale * logs, 0.0 + scale * logs)


@_checks.public
def laplace_float_attack(outputs, count, epsilon):
    """Mironov's (2012) attack: which floating-point Laplace outputs ``count`` cannot produce.

    ``laplace_counts_comparison`` returns y = fl(c + z) with z the double numpy's
    ``Generator.laplace`` computes from U = k 2^-53, k in {1, ..., 2^53 - 1} (z = b log 2U
    for U < 1/2, -b log(2 - 2U) otherwise).  y -> fl(count + z(k)) is non-decreasing in
    k, so a bisection over k finds whether some k gives exactly y.  Returns a boolean
    array: True where y is impossible from ``count``, i.e. the output rules that count
    out with certainty (the likelihood ratio is infinite, so no epsilon holds).  Exact
    for numpy's sampler (the book checks the replica against ``Generator.laplace`` bit
    for bit).  Adjacency as in Definition 3 moves a count by 1.
    Book: "Baselines at matched privacy" (the floating-point attack).

    Parameters
    ----------
    outputs : array_like of float
        Released values y of ``laplace_counts_comparison`` (finite reals, any shape).
    count : float
        The candidate true count c, one finite number.
    epsilon : float
        The epsilon the release was made with (scale 2/epsilon), one finite number > 0.

    Returns
    -------
    numpy.ndarray of bool
        Of ``outputs``' shape: True where no draw of numpy's sampler maps ``count`` to y.

    Raises
    ------
    TypeError
        If an argument is a bool, text or not real numbers.
    ValueError
        If ``outputs`` holds NaN or an infinity, ``count`` is not one finite number, or
        ``epsilon`` is not a single number > 0.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> y = dm.baselines.laplace_counts_comparison([5, 3], 1.0, rng=0)
    >>> dm.baselines.laplace_float_attack(y[0], 5, 1.0).tolist()
    False
    """
    y = _checks.as_float_array("outputs", outputs)
    c = _checks.scalar("count", count)
    b = laplace_scale(epsilon)
    lo = np.ones(y.shape, np.int64)
    hi = np.full(y.shape, 2 ** 53 - 1, np.int64)
    while np.any(open_ := lo < hi):           # smallest k with fl(c + z(k)) >= y
        mid = (lo + hi) // 2
        ge = (c + _laplace_from_draws(mid, b)) >= y
        hi = np.where(open_ & ge, mid, hi)    # a finished bracket (lo = hi) stays put: else
        lo = np.where(open_ & ~ge, mid + 1, lo)   # lo could pass 2^53 - 1 (log 0)
    return (c + _laplace_from_draws(lo, b)) != y
