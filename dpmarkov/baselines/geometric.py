"""Exact integer noise: the discrete Laplace (two-sided geometric) releases.

Noise with P(Z = z) proportional to exp(-epsilon |z| / 2), drawn with integer arithmetic
only by the sampler of Canonne, Kamath and Steinke (2020), so no floating-point attack
applies; then clipped or projected onto the simplex.  Pure epsilon-DP at L1 sensitivity 2.
Paper: Section 1.  Book: chapter "Baselines at matched privacy".
"""
from __future__ import annotations

from fractions import Fraction
from math import factorial, gcd

import numpy as np

from .. import _checks
from ._common import L1_SENSITIVITY, scalar_epsilon, size_shape
from .projection import clip_to_simplex, project_to_simplex


# ---------------------------------------------- exact integer noise: releases
#: epsilon/2 is rounded down to a multiple of 2^-_DL_BITS before sampling (more noise).
_DL_BITS = 30


@_checks.public
def discrete_laplace_parameter(epsilon) -> tuple[int, int]:
    """(s, t), coprime integers with s/t <= epsilon/2: the noise has P(Z = z) ~ exp(-|z| s/t).

    s/t = floor(2^30 epsilon/2) / 2^30 (exact integer arithmetic on the double epsilon),
    so the noise is never narrower than the target: the release is (2 s/t)-DP with
    2 s/t <= epsilon, and 2 s/t > epsilon (1 - 2^-29/epsilon).  epsilon below 2^-29 is
    rejected; above 2^31 the ratio is capped at s/t = 2^30 (exp(-2^30) is 0 in any
    double: the noise is 0 with probability 1 - 10^-(4.6e8)).  Used by
    ``geometric_counts`` (Canonne, Kamath & Steinke 2020, Algorithm 2).
    Adjacency as in Definition 3.  Book: "Baselines at matched privacy".

    Parameters
    ----------
    epsilon : float
        The target privacy parameter, one finite number >= 2^-29.

    Returns
    -------
    tuple of (int, int)
        Coprime (s, t), t a power of two, with s/t <= epsilon/2.

    Raises
    ------
    TypeError
        If ``epsilon`` is a bool, text or not a real number.
    ValueError
        If ``epsilon`` is not a single finite number > 0, or is below 2^-29.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.baselines.discrete_laplace_parameter(1.0)
    (1, 2)
    """
    eps = scalar_epsilon(epsilon)
    half = Fraction(eps) / 2
    s = min(int(half * 2 ** _DL_BITS), 2 ** (2 * _DL_BITS))
    if s == 0:
        raise ValueError(f"epsilon={eps!r} is below 2^-29: the discrete Laplace sampler "
                         "works with epsilon/2 on a grid of 2^-30")
    g = gcd(s, 2 ** _DL_BITS)
    return s // g, 2 ** _DL_BITS // g


def _bernoulli_exp(gen, num, den: int):
    """Exact Bernoulli(exp(-num/den)) draws for an integer array 0 <= num <= den (CKS 2020, Alg. 1).

    K = 1; while Bernoulli(gamma/K): K += 1; return K odd.  P(K odd) = exp(-gamma).
    Bernoulli(num/(den K)) is ``integers(0, den K) < num``: integer draws only.  The
    draws still running have all passed the same K - 1 tests, so each round is one
    call with the single bound den K (the first on the whole array).
    """
    num = np.asarray(num, np.int64)
    flat = num.ravel()
    go = gen.integers(0, den, size=flat.size) < flat           # the test at K = 1
    odd = ~go                                                   # ended at K = 1
    active = np.flatnonzero(go)
    k = 2
    while active.size:
        go = gen.integers(0, den * k, size=active.size) < flat[active]
        odd[active[~go]] = k % 2 == 1                           # ended at K = k
        active = active[go]
        k += 1
    return odd.reshape(num.shape)


#: Bernoulli(exp(-1)) from one uniform integer W on {0, ..., 20! - 1}: CKS's loop for
#: gamma = 1 passes its j-th test with probability 1/j, so it reaches K > j with
#: probability 1/j!, which is the event W < 20!/j! for every j <= 20 (nested events of
#: exactly these probabilities).  ``_FACTORIAL_CUTS`` holds 20!/j!, j = 20, ..., 1.
_CUT = {j: factorial(20) // factorial(j) for j in range(1, 21)}
_FACTORIAL_CUTS = np.array([_CUT[j] for j in range(20, 0, -1)], np.int64)


def _bernoulli_exp1(gen, size: int) -> np.ndarray:
    """``size`` exact Bernoulli(exp(-1)) draws: CKS (2020) Algorithm 1 at gamma = 1.

    K - 1 = #{j <= 20 : W < 20!/j!} for one uniform integer W < 20! (``_FACTORIAL_CUTS``),
    and the draw is K odd: W in [20!/3!, 20!/2!), [20!/5!, 20!/4!) or [20!/7!, 20!/6!)
    for K <= 7; the rarer W < 20!/7! (probability 1/7!) are counted against every cut,
    and where W = 0 (K > 20, probability 1/20!) the loop goes on from K = 21 with
    Bernoulli(1/K) tests.  P(K odd) = exp(-1) exactly.
    """
    W = gen.integers(0, factorial(20), size=size)
    odd = (W < _CUT[2]) & (W >= _CUT[3])
    odd |= (W < _CUT[4]) & (W >= _CUT[5])
    odd |= (W < _CUT[6]) & (W >= _CUT[7])
    deep = np.flatnonzero(W < _CUT[7])
    if deep.size:
        K = 1 + (20 - np.searchsorted(_FACTORIAL_CUTS, W[deep], side="right"))
        for i in np.flatnonzero(K > 20):          # the rest of the loop, one draw at a time
            k = 21
            while gen.integers(0, k) == 0:
                k += 1
            K[i] = k
        odd[deep] = K % 2 == 1
    return odd


def _geometric_exp1(gen, size: int) -> np.ndarray:
    """``size`` exact draws of V = successes of Bernoulli(exp(-1)) before the first failure.

    P(V = v) = (1 - e^-1) e^-v.  Each round draws one Bernoulli(exp(-1))
    (``_bernoulli_exp1``) for every draw not yet ended by a failure: the loop of CKS
    (2020, Algorithm 2), run on all draws at once.
    """
    go = _bernoulli_exp1(gen, size)
    V = go.astype(np.int64)
    active = np.flatnonzero(go)
    while active.size:
        active = active[_bernoulli_exp1(gen, active.size)]
        V[active] += 1
    return V


def _discrete_laplace(gen, s: int, t: int, m: int) -> np.ndarray:
    """m exact draws with P(Z = z) = (1 - a)/(1 + a) a^|z|, a = exp(-s/t) (CKS 2020, Alg. 2).

    Repeat: U uniform on {0..t-1}; accept with probability exp(-U/t); V = number of
    successes of Bernoulli(exp(-1)) before the first failure (``_geometric_exp1``, drawn
    for the accepted U only); X = U + tV has P(X = x) ~ exp(-x/t); Y = floor(X/s); a fair
    sign B; reject (B = -, Y = 0).  Only integer draws of ``gen`` are used; no floating
    point touches the noise (floats only size the batches of candidates).
    """
    # a candidate survives with probability P(D) (1 + e^(-s/t))/2, where
    # P(D) = mean of exp(-u/t) over u < t and P(Y = 0 | D) = 1 - e^(-s/t): 10% more
    # candidates than that (plus 16) fill the slots in one round, nearly always
    p_keep = (-np.expm1(-1.0) / (t * -np.expm1(-1.0 / t))) * (1 + np.exp(-s / t)) / 2
    # [book:_discrete_laplace]
    out = np.empty(m, np.int64)
    filled = 0
    while filled < m:
        need = m - filled
        U = gen.integers(0, t, size=int(1.1 * need / p_keep) + 16)
        # D: accepted with probability exp(-U/t); then X
        U = U[_bernoulli_exp(gen, U, t)]
        Y = U + t * _geometric_exp1(gen, U.size)
        if s > 1:
            Y //= s
        neg = gen.integers(0, 2, size=U.size) == 1
        # reject (B = -, Y = 0)
        z = np.where(neg, -Y, Y)[~neg | (Y != 0)][:need]
        out[filled:filled + z.size] = z
        filled += z.size
    return out


@_checks.public
def geometric_ratio(epsilon, sensitivity=L1_SENSITIVITY) -> float:
    """beta = exp(-epsilon/sensitivity) of the two-sided geometric (discrete Laplace) mechanism.

    P(xi = t) = (1 - beta)/(1 + beta) * beta^|t| on the integers (Ghosh, Roughgarden
    & Sundararajan 2012, who call it alpha; the book writes it out as e^(-epsilon/2), since its
    alpha is the Renyi order and its beta the audit's error probability).
    A +1/-1 move of two counts changes the log probability by at
    most 2*log(1/beta) = epsilon: pure epsilon-DP under the adjacency of Definition 3.
    ``geometric_counts`` samples with beta = exp(-s/t), ``discrete_laplace_parameter``,
    which is this ratio up to a relative 2^-30/epsilon (on the safe side).
    Book: "Baselines at matched privacy".

    Parameters
    ----------
    epsilon : float
        The privacy parameter, one finite number > 0.
    sensitivity : float, optional
        The L1 sensitivity, one finite number > 0 (default ``L1_SENSITIVITY`` = 2).

    Returns
    -------
    float
        The ratio beta = exp(-epsilon/sensitivity), in (0, 1].

    Raises
    ------
    TypeError
        If an argument is a bool, text or not a real number.
    ValueError
        If ``epsilon`` or ``sensitivity`` is not a single finite number > 0.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.baselines.geometric_ratio(2.0), 4)
    0.3679
    """
    return float(np.exp(-scalar_epsilon(epsilon) / _checks.positive_scalar("sensitivity", sensitivity)))


@_checks.public
def geometric_counts(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Counts plus independent two-sided geometric (discrete Laplace) noise: epsilon-DP, exactly.

    The noise has P(Z = z) ~ exp(-|z| s/t), (s, t) = ``discrete_laplace_parameter(epsilon)``,
    drawn by the exact sampler of Canonne, Kamath & Steinke (2020, Algorithm 2) from the
    generator's integer draws, with integer arithmetic only: the release is an integer
    vector whose law is exactly the one the privacy proof assumes, so the floating-point
    attack on ``laplace_counts_comparison`` has nothing to find (every integer vector is
    possible from every input).  Returns floats holding whole numbers.  A baseline for
    Algorithm 1 (paper, Section 1); ``rng=None`` uses fresh OS entropy (a seed is for
    teaching and testing only).  Book: "Baselines at matched privacy".

    Parameters
    ----------
    counts : array_like of int, shape (..., n)
        Category counts: whole numbers >= 0, n >= 2, each vector holding at least one record.
    epsilon : float
        The privacy parameter, one finite number >= 2^-29 (noise ratio from
        ``discrete_laplace_parameter``).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        None (the default) draws fresh OS entropy; an int >= 0 seeds (teaching only).
    size : None, int or tuple of int, optional
        How many independent releases: the result has shape ``size + counts.shape``.

    Returns
    -------
    numpy.ndarray
        The noisy counts (floats holding whole numbers, possibly negative), of shape
        ``size + counts.shape``.

    Raises
    ------
    TypeError
        If ``counts`` or ``epsilon`` is not real numbers, ``rng`` is a bool or of an
        unsupported type, or ``size`` is not None, an int or a tuple of ints.
    ValueError
        If ``counts`` has negative, non-whole or non-finite entries, fewer than 2
        categories or a vector summing to 0; if ``epsilon`` is not a single number > 0
        or is below 2^-29; if an int ``rng`` is negative, or ``size`` is negative or too
        large.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> y = dm.baselines.geometric_counts([5, 3, 2], 1.0, rng=0, size=4)
    >>> y.shape, bool((y == y.round()).all())
    ((4, 3), True)
    """
    c = _checks.counts_array("counts", counts)
    s, t = discrete_laplace_parameter(epsilon)
    shape = size_shape(size, c.size) + c.shape
    m = int(np.prod(shape, dtype=np.int64))
    noise = _discrete_laplace(_checks.generator(rng), s, t, m).reshape(shape)
    return c + noise.astype(float)


@_checks.public
def geometric_clip(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Geometric mechanism on the counts, then ``clip_to_simplex`` (epsilon-DP, exact noise).

    A baseline for Algorithm 1 (paper, Section 1); the clip is post-processing of an
    integer vector, so the release keeps the guarantee.  ``rng=None`` uses fresh OS
    entropy.  Book: "Baselines at matched privacy".

    Parameters
    ----------
    counts : array_like of int, shape (..., n)
        Category counts: whole numbers >= 0, n >= 2, each vector holding at least one record.
    epsilon : float
        The privacy parameter, one finite number >= 2^-29 (noise ratio from
        ``discrete_laplace_parameter``).
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
        categories or a vector summing to 0; if ``epsilon`` is not a single number > 0
        or is below 2^-29; if an int ``rng`` is negative, or ``size`` is negative or too
        large.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> x = dm.baselines.geometric_clip([5, 3, 2], 1.0, rng=0, size=4)
    >>> x.shape, bool(abs(x.sum(axis=-1) - 1).max() < 1e-12)
    ((4, 3), True)
    """
    return clip_to_simplex(geometric_counts(counts, epsilon, rng=rng, size=size))


@_checks.public
def geometric_project(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Geometric mechanism on the counts, divided by N, then ``project_to_simplex`` (epsilon-DP).

    The noise is exact integer noise (``geometric_counts``); dividing by the public N
    and projecting are post-processing of that integer vector.  The recommended
    baseline for Algorithm 1 (paper, Section 1); ``rng=None`` uses fresh OS entropy.
    Book: "Baselines at matched privacy".

    Parameters
    ----------
    counts : array_like of int, shape (..., n)
        Category counts: whole numbers >= 0, n >= 2, each vector holding at least one record.
    epsilon : float
        The privacy parameter, one finite number >= 2^-29 (noise ratio from
        ``discrete_laplace_parameter``).
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
        categories or a vector summing to 0; if ``epsilon`` is not a single number > 0
        or is below 2^-29; if an int ``rng`` is negative, or ``size`` is negative or too
        large.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> x = dm.baselines.geometric_project([5, 3, 2], 1.0, rng=0, size=4)
    >>> x.shape, bool(abs(x.sum(axis=-1) - 1).max() < 1e-12)
    ((4, 3), True)
    """
    c = _checks.counts_array("counts", counts)
    # [book:geometric_project]
    noisy = geometric_counts(c, epsilon, rng=rng, size=size)
    return project_to_simplex(noisy / c.sum(axis=-1, keepdims=True))
