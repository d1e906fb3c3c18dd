"""Baseline mechanisms for releasing a count vector, to compare with the Dirichlet mechanism.

The paper (Section 1) dismisses additive-noise mechanisms for simplex-valued queries
because their outputs leave the simplex; this module implements them properly, with
their privacy accounting, so the book can compare them at matched (epsilon, delta).
Book: chapters "Baselines at matched privacy" (book/baselines.ipynb: the mechanisms,
their calibration and checks) and "Baselines on real data" (book/baselines_experiments.ipynb).

Adjacency is the paper's (Definition 3): one record changes its category inside a row,
and the row's size N is public.  The count vector c (whole numbers, summing to N) then
moves by +1 in one entry and -1 in another, so

- the L1 sensitivity of c is 2 (2/N on the proportions C = c/N),
- the L2 sensitivity of c is sqrt(2).

Mechanisms (each takes counts of shape (..., n); a stack of rows is a Markov-chain count
matrix, privatised row by row, and by parallel composition the whole release keeps the
per-row guarantee):

- ``laplace_clip``, ``laplace_project``: Laplace noise of scale 2/epsilon on the counts,
  pure epsilon-DP (Dwork et al. 2006), then clip-and-renormalise or Euclidean projection.
- ``geometric_clip``, ``geometric_project``: two-sided geometric (discrete Laplace) noise
  with ratio exp(-epsilon/2), pure epsilon-DP, then clip or project.
- ``gaussian_project``: the analytic Gaussian mechanism (Balle & Wang 2018), sigma from
  the exact (epsilon, delta) condition, then projection.
- ``privatize_rows``: any of these applied to a transition-count matrix, row by row on
  the public support (Assumption 6), as Algorithm 2 does for the Dirichlet mechanism.
- ``dirichlet_k_theorem1``, ``dirichlet_k_tight``: the largest Dirichlet parameter k that
  meets a target (epsilon, delta) through Theorem 1 (eqs. 6-7) or through the exact
  privacy profile (``dpmarkov.profile``).

Post-processing (clipping, projection, the uniform fallback) never weakens differential
privacy, so every released vector keeps its noise's guarantee.

Randomness: ``rng=None`` (the default) draws fresh OS entropy, which is what a real
release must use; a seed is for teaching and testing only.
"""
from __future__ import annotations

import functools
from fractions import Fraction
import math
from math import factorial, gcd

import numpy as np
from scipy.special import log_ndtr

from . import _checks, _pairs, privacy
from ._numerics import push_upper_end, root_on_safe_side

#: L1 sensitivity of a count vector when one record changes category (N public).
L1_SENSITIVITY = 2.0
#: L2 sensitivity of a count vector when one record changes category (N public).
L2_SENSITIVITY = float(np.sqrt(2.0))


# --------------------------------------------------------------------------- checks
def _epsilon(epsilon) -> float:
    arr = _checks.positive("epsilon", epsilon)
    if arr.ndim:
        raise ValueError(f"epsilon={epsilon!r} must be a single number")
    return float(arr)


def _delta(delta) -> float:
    arr = _checks.as_float_array("delta", delta)
    if arr.ndim:
        raise ValueError(f"delta={delta!r} must be a single number")
    d = float(arr)
    if not 0 < d < 1:
        raise ValueError(f"delta={d!r} must satisfy 0 < delta < 1")
    return d


def _shape(size, per_draw=1) -> tuple:
    """``size`` as a shape: None, a whole number >= 0 or a tuple of them (no bool, float, str).

    The release (``per_draw`` numbers a draw) must fit in ``MAX_ELEMENTS`` doubles: a larger
    ``size`` is refused before anything is drawn or allocated."""
    if size is None:
        return ()
    items = size if isinstance(size, (tuple, list)) else (size,)
    for s in items:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"size={size!r} must be None, a whole number or a tuple of "
                            "whole numbers (an int, not a float, str or bool)")
        if s < 0:
            raise ValueError(f"size={size!r} must be non-negative")
    shape = tuple(int(s) for s in items)
    total = math.prod(shape) * per_draw
    if total > _checks.MAX_ELEMENTS:
        raise ValueError(f"size={size!r} asks for {total} numbers: at most "
                         f"{_checks.MAX_ELEMENTS} (2 GiB) per call")
    return shape


# ------------------------------------------------------------------ post-processing
@_checks.public
def project_to_simplex(v) -> np.ndarray:
    """Euclidean projection of each vector (last axis) onto the unit simplex (Definition 1).

    The sort-based algorithm (Held, Wolfe & Crowder 1974; Duchi et al. 2008): sort v
    in decreasing order u, find rho = max{j : u_j - (sum_{i<=j} u_i - 1)/j > 0}, set
    theta = (sum_{i<=rho} u_i - 1)/rho and return max(v - theta, 0).  The result is
    the unique minimiser of ||x - v||_2 over the simplex; it satisfies the KKT
    conditions x_i > 0 => v_i - x_i = theta and x_i = 0 => v_i <= theta.

    Large entries: the projection of v + s(1, ..., 1) is that of v, and an entry more
    than 1 below the largest is 0 in the result (theta >= max v - 1), so each vector is
    first shifted by its largest entry and clamped to [-1, 0]; nothing overflows and
    every result lies on the simplex, e.g. for entries near 1e308.
    The simplex is Definition 1 of the paper; Section 1 mentions projection as the
    way to repair additive noise.  Book: chapter "Baselines at matched privacy".
    """
    v = _checks.as_float_array("v", v)
    if v.ndim == 0 or v.shape[-1] < 1:
        raise ValueError(f"v={v!r} must be an array of vectors (last axis)")
    n = v.shape[-1]
    with np.errstate(over="ignore"):          # v - max may overflow to -inf: clamped next
        w = np.maximum(v - v.max(axis=-1, keepdims=True), -1.0)
    u = -np.sort(-w, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    j = np.arange(1, n + 1)
    positive = u - css / j > 0
    rho = n - np.argmax(positive[..., ::-1], axis=-1)       # last index where positive
    theta = np.take_along_axis(css, (rho - 1)[..., None], axis=-1) / rho[..., None]
    return np.maximum(w - theta, 0.0)


@_checks.public
def clip_to_simplex(v) -> np.ndarray:
    """Clip negative entries to 0 and renormalise each vector (last axis) to sum to 1.

    If every entry of a vector is <= 0 there is nothing to renormalise; that vector is
    replaced by the uniform vector (1/n, ..., 1/n).  This choice uses no data, so it
    is post-processing and the release keeps its privacy guarantee; how often it
    happens is reported in the book.  Each vector is divided by its largest entry
    before summing, so entries near 1e308 do not overflow.  The simplex is Definition 1.
    Book: chapter "Baselines at matched privacy".
    """
    v = _checks.as_float_array("v", v)
    if v.ndim == 0 or v.shape[-1] < 1:
        raise ValueError(f"v={v!r} must be an array of vectors (last axis)")
    x = np.maximum(v, 0.0)
    top = x.max(axis=-1, keepdims=True)
    empty = top == 0
    x = x / np.where(empty, 1.0, top)
    total = x.sum(axis=-1, keepdims=True)
    n = v.shape[-1]
    return np.where(empty, 1.0 / n, x / np.where(empty, 1.0, total))


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
    """
    return _checks.positive_scalar("sensitivity", sensitivity) / _epsilon(epsilon)


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
    """
    c = _checks.counts_array("counts", counts)
    b = laplace_scale(epsilon)
    shape = _shape(size, c.size) + c.shape
    return c + _checks.generator(rng).laplace(0.0, b, size=shape)


@_checks.public
def laplace_clip_comparison(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """COMPARISON ONLY: floating-point Laplace noise on the counts, then ``clip_to_simplex``.

    epsilon-DP over the reals, not in floating point (``laplace_counts_comparison``);
    kept to compare accuracy with Algorithm 1 (paper, Section 1).  The safe release
    with the same accuracy is ``geometric_clip``.  Book: "Baselines at matched privacy".
    """
    return clip_to_simplex(laplace_counts_comparison(counts, epsilon, rng=rng, size=size))


@_checks.public
def laplace_project_comparison(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """COMPARISON ONLY: floating-point Laplace noise, divided by N, projected onto the simplex.

    epsilon-DP over the reals, not in floating point (``laplace_counts_comparison``);
    kept to compare accuracy with Algorithm 1 (paper, Section 1).  The safe release
    with the same accuracy is ``geometric_project``.  Book: "Baselines at matched privacy".
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
    """
    eps = _epsilon(epsilon)
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
    out = np.empty(m, np.int64)
    filled = 0
    while filled < m:
        need = m - filled
        U = gen.integers(0, t, size=int(1.1 * need / p_keep) + 16)
        U = U[_bernoulli_exp(gen, U, t)]                  # D: accepted with prob. exp(-U/t)
        Y = U + t * _geometric_exp1(gen, U.size)          # X
        if s > 1:
            Y //= s
        neg = gen.integers(0, 2, size=U.size) == 1
        z = np.where(neg, -Y, Y)[~neg | (Y != 0)][:need]  # reject (B = -, Y = 0)
        out[filled:filled + z.size] = z
        filled += z.size
    return out


@_checks.public
def geometric_ratio(epsilon, sensitivity=L1_SENSITIVITY) -> float:
    """beta = exp(-epsilon/sensitivity) of the two-sided geometric (discrete Laplace) mechanism.

    P(xi = t) = (1 - beta)/(1 + beta) * beta^|t| on the integers (Ghosh, Roughgarden
    & Sundararajan 2012; the book writes beta, since alpha is the Dirichlet parameter).
    A +1/-1 move of two counts changes the log probability by at
    most 2*log(1/beta) = epsilon: pure epsilon-DP under the adjacency of Definition 3.
    ``geometric_counts`` samples with beta = exp(-s/t), ``discrete_laplace_parameter``,
    which is this ratio up to a relative 2^-30/epsilon (on the safe side).
    Book: "Baselines at matched privacy".
    """
    return float(np.exp(-_epsilon(epsilon) / _checks.positive_scalar("sensitivity", sensitivity)))


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
    """
    c = _checks.counts_array("counts", counts)
    s, t = discrete_laplace_parameter(epsilon)
    shape = _shape(size, c.size) + c.shape
    m = int(np.prod(shape, dtype=np.int64))
    noise = _discrete_laplace(_checks.generator(rng), s, t, m).reshape(shape)
    return c + noise.astype(float)


@_checks.public
def geometric_clip(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Geometric mechanism on the counts, then ``clip_to_simplex`` (epsilon-DP, exact noise).

    A baseline for Algorithm 1 (paper, Section 1); the clip is post-processing of an
    integer vector, so the release keeps the guarantee.  ``rng=None`` uses fresh OS
    entropy.  Book: "Baselines at matched privacy".
    """
    return clip_to_simplex(geometric_counts(counts, epsilon, rng=rng, size=size))


@_checks.public
def geometric_project(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Geometric mechanism on the counts, divided by N, then ``project_to_simplex`` (epsilon-DP).

    The noise is exact integer noise (``geometric_counts``); dividing by the public N
    and projecting are post-processing of that integer vector.  The recommended
    baseline for Algorithm 1 (paper, Section 1); ``rng=None`` uses fresh OS entropy.
    Book: "Baselines at matched privacy".
    """
    c = _checks.counts_array("counts", counts)
    noisy = geometric_counts(c, epsilon, rng=rng, size=size)
    return project_to_simplex(noisy / c.sum(axis=-1, keepdims=True))


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
    eps = _epsilon(epsilon)
    d = _delta(delta)
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
    shape = _shape(size, c.size) + c.shape
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


# ----------------------------------------------------------- Markov chains
@_checks.public
def privatize_rows(counts, mechanism, *args, support, rng=None, size=None) -> np.ndarray:
    """Release a transition-count matrix row by row with a baseline ``mechanism`` (cf. Algorithm 2).

    Row i of ``counts`` (shape (m, n)) is the database D_i of departures from state i
    (eq. (4)).  ``support`` (required, keyword) says which entries may be released, and
    must be fixed before the data are seen (as for ``dm.privatize_chain``):

    - ``support="all"``: every row is released on all n entries, so nothing about the
      pattern of zeros of the data is published and the per-row guarantee holds for
      every pair of adjacent rows.  The Dirichlet mechanism cannot do this (a zero count
      gives no Dirichlet parameter).
    - a boolean array of shape (m, n), the public feasible transitions (Assumption 6):
      row i is released on {j : support[i, j]}, the other entries are 0.  A count outside
      the support is an error (the support would not describe the data); a zero inside
      it is fine for additive noise.  A row with a single supported entry is released
      as 1 there: it holds no private information once the support is public.

    The rows are disjoint databases, so by parallel composition (Lemma 1) the matrix
    keeps the per-row guarantee of ``mechanism``, which is one of this module's
    releases (e.g. ``geometric_project``) with privacy parameters ``args``.  Like them
    it must release each vector of a stack (..., r) independently: the rows with the
    same number r of supported entries are released by one call on their stack (g, r)
    (each row's law is that of the mechanism on the row alone).  Returns
    shape ``size + (m, n)``.  ``rng=None`` uses fresh OS entropy (a seed is for
    teaching/testing only).  Book: "Baselines at matched privacy".
    """
    c = _checks.as_float_array("counts", counts)
    if c.ndim != 2:
        raise ValueError(f"counts has shape {c.shape}: a transition-count matrix is (m, n)")
    c = _checks.counts_array("counts", c)
    if not callable(mechanism):
        raise TypeError(f"mechanism={mechanism!r} must be a function such as geometric_project")
    if isinstance(support, str):
        if support != "all":
            raise ValueError(f"support={support!r} must be 'all' or a boolean (m, n) array "
                             "of public feasible transitions fixed before seeing the data")
        mask = np.ones(c.shape, bool)
    else:
        mask = np.asarray(support)
        if mask.dtype != bool:
            raise TypeError(f"support of dtype {mask.dtype} must be 'all' or a boolean array")
        if mask.shape != c.shape:
            raise ValueError(f"support has shape {mask.shape}: it must match counts {c.shape}")
        outside = (c > 0) & ~mask
        if np.any(outside):
            i, j = (int(x) for x in np.argwhere(outside)[0])
            raise ValueError(f"counts[{i}, {j}]={c[i, j]:g} lies outside the support: the "
                             "support must contain every observed transition")
    gen = _checks.generator(rng)
    shape = _shape(size, c.size)
    out = np.zeros(shape + c.shape)
    width = mask.sum(axis=1)
    for r in np.unique(width):
        rows = np.flatnonzero(width == r)
        cols = np.nonzero(mask[rows])[1].reshape(rows.size, r)     # each row's supported columns
        if r == 1:
            out[..., rows, cols[:, 0]] = 1.0
            continue
        # the rows with r supported entries as one stack (g, r): one call of the mechanism
        out[..., rows[:, None], cols] = mechanism(c[rows[:, None], cols], *args, rng=gen,
                                                  size=None if size is None else shape)
    return out


# ------------------------------------------------ the Dirichlet mechanism, calibrated
#: What the calibrations do for a row that no k serves: raise (the default) or return NaN.
_UNREACHABLE = ("raise", "nan")
#: The search on log k stops at this width: k within a relative 1e-10 of the crossing.
_LOG_K_WIDTH = 1e-10
#: The tight calibration keeps the profile <= delta (1 - _PROFILE_MARGIN) (``dirichlet_k_tight``).
_PROFILE_MARGIN = 1e-12


def _rows(**arrays):
    """The named arrays broadcast together and flattened: (shape, [flat arrays])."""
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        shown = ", ".join(f"{name} {a.shape}" for name, a in arrays.items())
        raise ValueError(f"the shapes {shown} do not broadcast together") from None
    return shape, [np.broadcast_to(a, shape).ravel() for a in arrays.values()]


def _shaped(values, shape):
    """A flat result in the broadcast shape: a float for scalar arguments."""
    out = values.reshape(shape)
    return float(out) if out.ndim == 0 else out


def _theorem1_cores(eps, eta, N, n):
    """log gamma(k) and the calibration's gap for rows of checked (eta, N, n), at target epsilon.

    Both call the cores of ``privacy.epsilon`` and ``privacy.delta`` (their inputs are
    checked once by the caller, so no step re-validates them); ``rows`` indexes the rows.
    """
    g0 = 0.5 / n                          # any gamma < 1/n: (1 - (n-1) g0)/g0 = n + 1

    def sound_epsilon(k, g, rows):
        out = privacy.sound_epsilon(k, eta[rows], N[rows], n[rows], g)
        if not np.all(np.isfinite(out)):
            bad = k[~np.isfinite(out)][0]
            raise ValueError(f"k={bad!r} gives epsilon beyond the largest float (1.8e308) "
                             f"while calibrating to epsilon={eps!r}")
        return out

    def log_gamma(k, rows):
        """log gamma(k); NaN where gamma(k) >= 1/n (epsilon is not reachable at this k)."""
        Nr, nr = N[rows], n[rows]
        b = sound_epsilon(k, g0[rows], rows) - k / Nr * np.log(nr + 1)
        r = (eps - b) * Nr / k
        out = np.full(k.shape, np.nan)
        up = r > 0
        out[up] = -(r[up] + np.log1p((nr[up] - 1) * np.exp(-r[up])))
        return out

    def delta_at(k, g, rows):
        return privacy.delta_union(k, eta[rows], N[rows], n[rows], g)

    return sound_epsilon, log_gamma, delta_at


@_checks.public(finite=False)
def dirichlet_k_theorem1(epsilon, delta, eta, N, n, *, on_unreachable="raise"):
    """(k, gamma) of the most accurate Dirichlet mechanism that Theorem 1 certifies (epsilon, delta)-DP.

    Theorem 1 ties three numbers: the sound eq. (6) (``dm.epsilon``: eq. (6) as printed
    for n >= 3, the corrected eq. (6) for n = 2, where the printed one understates the
    loss) gives epsilon(k, gamma) = b(k) + (k/N) log((1 - (n-1) gamma)/gamma), with b(k)
    the Beta-function term; eq. (7) gives
    delta(k, gamma), the chance of leaving Omega_1 = {x : every x_i >= gamma}.  For a
    target epsilon, eq. (6) solves in closed form for gamma:

        gamma(k) = 1 / (exp((epsilon - b(k)) N / k) + n - 1),

    which grows with k (and reaches 1/n when b(k) = epsilon).  Along this level set
    delta(k, gamma(k)) grows with k (checked in the tests and the book), so the most
    accurate admissible mechanism is the largest k >= 3/(2 eta) (Assumption 4) with
    ``privacy.delta(k, eta, N, n, gamma(k))`` <= delta: bracketed by doubling k, found by
    a bracketing search on log k (``_largest_feasible_log_k``) to a width of 1e-10 (k
    within a relative 1e-10 of the crossing) from the feasible side, then gamma is stepped
    up until the sound epsilon is <= the target (and k down if delta then exceeds its
    target), so the pair meets both as computed.

    ``epsilon`` and ``delta`` are numbers; ``eta``, ``N`` and ``n`` broadcast, one row per
    element (e.g. the rows of a chain), all calibrated at once by one vectorised search
    on the cores of ``dm.epsilon`` and ``dm.delta`` (inputs checked once).  Returns
    ``(k, gamma)``: floats, or arrays of the broadcast shape.  Where no k qualifies
    (epsilon below epsilon_star for every gamma < 1/n, or delta below what Theorem 1
    certifies at epsilon) ``on_unreachable="raise"`` (the default) raises ``ValueError``
    naming the first such row, and ``on_unreachable="nan"`` returns NaN for k and gamma
    there (a marker, never a parameter to release with).
    Book: chapters "Baselines at matched privacy" and "Baselines on real data".
    """
    eps = _epsilon(epsilon)
    d = _delta(delta)
    mode = _checks.choice("on_unreachable", on_unreachable, _UNREACHABLE)
    shape, (eta_f, N_f, n_f) = _rows(eta=_checks.eta_ok(eta),
                                     N=_checks.integer_at_least("N", N, 2),
                                     n=_checks.integer_at_least("n", n, 2))
    _checks.design_ok(eta_f, N_f, n_f)
    k_lo = np.asarray(privacy.k_min(eta_f), float)
    privacy.flat_design(k_lo, eta_f, N_f, n_f, 0.5 / n_f)      # what dm.epsilon checks
    sound_epsilon, log_gamma, delta_at = _theorem1_cores(eps, eta_f, N_f, n_f)

    def gap(log_k, rows, lg=None):
        """log(delta(k, gamma(k)) / target); -log target where gamma(k) >= 1/n (delta = 1)."""
        k = np.exp(log_k)
        lg = log_gamma(k, rows) if lg is None else lg
        out = np.full(k.shape, -np.log(d))
        under = lg < -700                 # gamma underflows: delta = 0
        out[under] = -1e300
        at = lg >= -700
        dd = delta_at(k[at], np.exp(lg[at]), rows[at])
        out[at] = np.log(np.maximum(dd, 1e-300)) - np.log(d)
        return out

    everything = np.arange(k_lo.size)
    lo = np.log(k_lo)
    lg_lo = log_gamma(k_lo, everything)
    far = np.isnan(lg_lo)
    gap_lo = gap(lo, everything, lg_lo)   # evaluated once: it is also the error message's number
    ok = ~far & (gap_lo <= 0)
    if mode == "raise" and not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        where = f"(eta={float(eta_f[i])!r}, N={N_f[i]:.0f}, n={n_f[i]:.0f})"
        if far[i]:
            raise ValueError(f"epsilon={eps!r} is below epsilon_star for every gamma < 1/n "
                             f"{where}: Theorem 1 cannot certify it")
        raise ValueError(
            f"no gamma gives delta <= {d!r} at epsilon={eps!r} {where}: the "
            f"smallest delta Theorem 1 certifies there is {np.exp(gap_lo[i]) * d:.3g}")
    rows = np.flatnonzero(ok)
    log_k = _largest_feasible_log_k(lambda x, r: gap(x, rows[r]), lo[rows], gap_lo[rows],
                                    lo[rows] + np.log(2.0), np.log(2.0))
    k_out, g_out = np.full(k_lo.size, np.nan), np.full(k_lo.size, np.nan)
    k_out[rows], g_out[rows] = _theorem1_adjust(eps, d, log_k, rows, sound_epsilon,
                                                log_gamma, delta_at)
    return _shaped(k_out, shape), _shaped(g_out, shape)


def _theorem1_adjust(eps, d, log_k, rows, sound_epsilon, log_gamma, delta_at):
    """The calibrated (k, gamma) of each row from the search's log k (feasible side).

    The closed form puts epsilon(k, gamma) on the target up to rounding: step gamma up by
    a relative 1e-13 (epsilon falls, delta rises) until the sound epsilon is <= target
    (1 - 1e-14), and k down by 1e-10 max(1, |log k|) if delta then exceeds its target.
    """
    log_k = log_k.copy()
    k, g = np.exp(log_k), np.exp(log_gamma(np.exp(log_k), rows))
    todo = np.arange(rows.size)
    while todo.size:
        kk, gg, rr = k[todo], g[todo], rows[todo]
        high = sound_epsilon(kk, gg, rr) > eps * (1 - 1e-14)
        while high.any():
            gg[high] *= 1 + 1e-13
            high[high] = sound_epsilon(kk[high], gg[high], rr[high]) > eps * (1 - 1e-14)
        g[todo] = gg
        todo = todo[delta_at(kk, gg, rr) > d]
        log_k[todo] -= 1e-10 * np.maximum(1.0, np.abs(log_k[todo]))
        k[todo] = np.exp(log_k[todo])
        g[todo] = np.exp(log_gamma(k[todo], rows[todo]))
    return k, g


def _tight_profile(eps, k, N, n, m):
    """``privacy_profile(eps, k_i, N_i, n_i, m_i)`` for each row i (checked rows, flat arrays).

    n >= 3: the pair (m, m + 1) of every row in one vectorised call of the profile's core;
    n = 2: the profile's branch and bound, row by row.
    """
    out = np.empty(k.shape)
    three = n >= 3
    if three.any():
        m3 = m[three]
        out[three] = _pairs.pair_profile(np.array([eps]), m3, m3 + 1.0, k[three],
                                            N[three])[0]
    for i in np.flatnonzero(~three):
        out[i] = _pairs.profile_one_k(np.array([eps]), float(k[i]), int(N[i]), 2,
                                         int(m[i]))[0]
    return out


@_checks.public(finite=False)
def dirichlet_k_tight(epsilon, delta, N, n, min_count, *, on_unreachable="raise"):
    """The largest k for which the Dirichlet mechanism is (epsilon, delta)-DP by its tight profile.

    Uses ``profile.privacy_profile(epsilon, k, N, n, min_count)``, the exact
    delta(epsilon) over adjacent count vectors (Definition 3) whose counts are all
    >= ``min_count`` (Assumption 3 with min_count = ceil(eta N)).  The profile grows
    with k (checked in the tests and the book), so the k with profile = delta is
    bracketed (k multiplied by 10 until the profile exceeds delta) and found by a
    bracketing search on log k (``_largest_feasible_log_k``) to a width of 1e-10 (k
    within a relative 1e-10 of the crossing), keeping the profile <= delta (1 - 1e-12):
    the margin covers the last-bit differences of numpy's exp and log between evaluating
    one row and many at once.  No Assumption 4 is needed: Theorem 1's floor
    epsilon_star does not apply.  But as k -> 0 the profile does not vanish (the
    privacy loss keeps an exponential tail: its limit is e^(-m epsilon)/(2m + 1) with
    m = min_count, as the book's baselines chapter derives and checks), so a delta
    below that floor cannot be reached.  The search starts at k = max(1, epsilon N / 500):
    smaller k are useless (outputs pile up near the vertices) and there the profile's
    Beta tail underflows to 0 in floating point, which would fake a feasible k.

    ``epsilon`` and ``delta`` are numbers; ``N``, ``n`` and ``min_count`` broadcast, one
    row per element (e.g. the rows of a chain), all calibrated at once by one vectorised
    search on the profile's core (inputs checked once).  Returns a float, or an array
    of the broadcast shape.  Where the floor is above delta, ``on_unreachable="raise"``
    (the default) raises ``ValueError`` naming the first such row and
    ``on_unreachable="nan"`` returns NaN there (a marker, never a k to release with).
    Book: chapters "Baselines at matched privacy" and "Baselines on real data".
    """
    eps = _epsilon(epsilon)
    d = _delta(delta)
    mode = _checks.choice("on_unreachable", on_unreachable, _UNREACHABLE)
    shape, (N_f, n_f, m_f) = _rows(N=_checks.integer_at_least("N", N, 2),
                                   n=_checks.integer_at_least("n", n, 2),
                                   min_count=_checks.integer_at_least("min_count", min_count, 1))
    _pairs.pairs_exist(N_f, n_f, m_f, "min_count")
    _pairs.two_categories_exact(N_f, n_f)

    # the target is delta (1 - 1e-12): numpy's exp and log may differ in the last bits
    # between one row and many at once, so the margin keeps the k found for many rows
    # within delta also when its row's profile is evaluated alone (``privacy_profile``)
    target = d * (1 - _PROFILE_MARGIN)

    def gap(log_k, rows):
        prof = _tight_profile(eps, np.exp(log_k), N_f[rows], n_f[rows], m_f[rows])
        return np.log(np.maximum(prof, 1e-300)) - np.log(target)

    k_lo = np.maximum(1.0, eps * N_f / 500.0)
    lo = np.log(k_lo)
    gap_lo = gap(lo, np.arange(lo.size))  # evaluated once: it is also the error message's number
    ok = gap_lo <= 0
    if mode == "raise" and not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise ValueError(
            f"delta={d!r} is below the Dirichlet mechanism's profile at epsilon={eps!r} even "
            f"for k={k_lo[i]:.4g} ({np.exp(gap_lo[i]) * target:.3g}; N={N_f[i]:.0f}, "
            f"n={n_f[i]:.0f}, min_count={m_f[i]:.0f}): no useful k reaches this "
            "(epsilon, delta)")
    rows = np.flatnonzero(ok)
    # the profile tends to TV = 1 as k grows, so an upper bracket exists
    log_k = _largest_feasible_log_k(lambda x, r: gap(x, rows[r]), lo[rows], gap_lo[rows],
                                    np.log(np.maximum(10.0 * N_f[rows], 10.0)), np.log(10.0),
                                    limit=np.log(1e300))
    out = np.full(k_lo.size, np.nan)
    out[rows] = np.exp(log_k)
    return _shaped(out, shape)


def _largest_feasible_log_k(gap, lo, f_lo, hi, step, *, limit=None):
    """Per row, the largest log k with gap(log k) <= 0, for gaps that grow with k, gap(lo) <= 0.

    ``gap(x, rows)`` evaluates the rows ``rows`` (indices into ``lo``) at log k = x;
    ``f_lo`` is gap(lo).  Where gap(hi) <= 0 the bracket moves up by ``step`` (past
    ``limit`` is an error).  Then every row is narrowed at once by the package's
    bracketing solver (``_numerics.root_on_safe_side``: the Illinois method, with bisection
    where interpolation stalls), keeping gap <= 0 at the lower end and > 0 at the upper
    end, until the bracket is at most 1e-10 wide.  Returns the lower end: on the feasible
    side, never violating the target, and within 1e-10 of the crossing in log k (k
    within a relative 1e-10).  Shared by both calibrations.
    """
    lo, f_lo = np.array(lo, float), np.array(f_lo, float)
    hi = np.array(np.broadcast_to(hi, lo.shape), float)
    lo, f_lo, hi, f_hi = push_upper_end(gap, lo, f_lo, hi, lambda x: x + step, limit=limit)
    return root_on_safe_side(gap, lo, hi, f_lo, f_hi, rtol=0.0, xtol=_LOG_K_WIDTH)


#: The most series terms of ``_arb_betainc`` one certificate may sum (a few seconds of arb
#: arithmetic): estimated before the first one, counted while summing.
_MAX_SERIES_TERMS = 2_000_000


def _series_terms(a, b, x, cap=_MAX_SERIES_TERMS):
    """How many terms ``_arb_betainc`` sums for I_x(a, b), from the same ratios in floats:
    until the ratio is < 1 and the term is 1e-40 below the largest one (at most ``cap``)."""
    j = np.arange(float(min(cap, 10**6)))
    log_r = math.log(x) + np.log(a + b + j) - np.log(a + 1 + j)
    log_t = np.concatenate([[0.0], np.cumsum(log_r)[:-1]])
    done = (log_r < 0) & (log_t < np.maximum.accumulate(log_t) - 92.2)
    return int(np.argmax(done)) + 1 if done.any() else cap


def _arb_betainc(a, b, x, budget=None):
    """Enclosure of the regularised incomplete Beta I_x(a, b) for balls a, b > 0, 0 < x < 1.

    I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * sum_j t_j, t_0 = 1,
    t_(j+1) = t_j x (a + b + j)/(a + 1 + j) (DLMF 8.17.8 with 2F1(a+b, 1; a+1; x)).
    Summed until the ratio bound rho = x * max(1, (a+b+J)/(a+1+J)) is < 1 and the
    term is negligible; the remaining tail is at most t_J / (1 - rho) and is added as
    the ball [0, t_J/(1 - rho)].  Only arb's arithmetic, exp, log and lgamma are used.
    ``budget``: [terms left, the design for the message]; a ValueError when it runs out.
    """
    from flint import arb

    one = arb(1)
    total, term, j = arb(0), arb(1), 0
    while True:
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                raise ValueError(f"{budget[1]}: the certificate needs more than "
                                 f"{_MAX_SERIES_TERMS} series terms of I_x(a, b); raise "
                                 "rel_width or lower k_max_factor")
        ratio = x * (a + b + j) / (a + 1 + j)
        rho = x.upper() * max(one, ((a + b + j) / (a + 1 + j)).upper())
        if rho < 1 and term.upper() < 1e-40 * max(total.lower(), arb(1e-300)):
            tail = term / (1 - rho)
            total = total + arb(0.5) * tail + arb(0, 0.5 * tail.upper())  # ball [0, tail]
            break
        total = total + term
        term = term * ratio
        j += 1
    log_pre = (a * arb.log(x) + b * arb.log(1 - x) - arb.log(a)
               - arb.lgamma(a) - arb.lgamma(b) + arb.lgamma(a + b))
    return arb.exp(log_pre) * total


@_checks.public
def certify_theorem1_calibration(epsilon, delta, eta, N, n, *, k_max_factor=100.0,
                                 rel_width=1e-3, prec=128):
    """Rigorous interval-arithmetic certificate for ``dirichlet_k_theorem1`` (python-flint arb).

    ``dirichlet_k_theorem1`` returns the largest admissible k if delta(k, gamma(k)) grows
    along the epsilon-level set, a premise seen on grids but not proved.  Instead of the
    premise this certifies its consequence on a stated range, with arb ball arithmetic
    (every operation returns an interval that contains the exact value):

    1. at the returned (k, gamma) the sound eq. (6) is <= epsilon and eq. (7) (union
       bound at ``privacy.worst_counts``) is <= delta, exactly as real numbers;
    2. for every k' in [k (1 + 1e-9), k_max_factor * k] the mechanism is not admissible:
       either b(k') >= epsilon (no gamma < 1/n reaches epsilon) or
       delta(k', gamma(k')) > delta.  The range is cut into intervals of relative width
       ``rel_width``, each bisected until it is decided: b in centred form (digamma slope),
       delta from below by monotonicity of I_x(a, b) in x, a and b at the corners.

    Here b(k) is the Beta term of the sound eq. (6) (top share 1 - 2 eta for n >= 3,
    1 - (n-1) eta for n = 2) and gamma(k) = 1/(exp((epsilon - b(k)) N / k) + n - 1).
    Returns a dict with ``k``, ``gamma``, the range and the number of intervals used.
    Raises ``ArithmeticError`` if an interval cannot be decided at width 1e-14 k, and a
    ValueError at once when the estimated work (intervals times series terms) exceeds
    ``_MAX_SERIES_TERMS`` (or when the count of terms summed does): every input is
    checked before python-flint sees it.
    Book: chapter "Baselines at matched privacy" (Theorem 1, eqs. (6)-(7)).
    """
    from flint import arb, ctx

    factor = _checks.scalar("k_max_factor", k_max_factor)
    if not 1 < factor <= 1e6:
        raise ValueError(f"k_max_factor={factor!r} must satisfy 1 < k_max_factor <= 1e6")
    width = _checks.scalar("rel_width", rel_width)
    if not 1e-8 <= width < 1:
        raise ValueError(f"rel_width={width!r} must satisfy 1e-8 <= rel_width < 1")
    prec = _checks.whole("prec", prec, 53, highest=4096)
    k_max_factor, rel_width = factor, width
    for name, value in (("eta", eta), ("N", N), ("n", n)):
        _checks.scalar(name, value)          # one design: the certificate is for one row
    k0, g0 = dirichlet_k_theorem1(epsilon, delta, eta, N, n)
    eps, d = _epsilon(epsilon), _delta(delta)
    eta_f, N_i, n_i = float(eta), int(N), int(n)
    counts = privacy.worst_counts(eta_f, N_i, n_i)
    # the work, estimated before any arb arithmetic: intervals times the series terms of
    # each tail at the largest k (more terms there), against the budget
    intervals = int(np.ceil(np.log(k_max_factor * (1 - 1e-9)) / rel_width))
    per_interval = sum(_series_terms(k0 * k_max_factor * c / N_i,
                                     k0 * k_max_factor * (1 - c / N_i), g0)
                       for c in np.unique(counts))
    design = (f"epsilon={eps!r}, delta={d!r}, eta={eta_f!r}, N={N_i}, n={n_i} (k = {k0:.4g}) "
              f"with k_max_factor={k_max_factor!r}, rel_width={rel_width!r}")
    if intervals * per_interval > _MAX_SERIES_TERMS:
        raise ValueError(f"{design}: the certificate needs about {intervals * per_interval:.3g} "
                         f"series terms ({intervals} intervals), more than {_MAX_SERIES_TERMS}; "
                         "raise rel_width or lower k_max_factor")
    budget = [_MAX_SERIES_TERMS, design]
    old = ctx.prec
    ctx.prec = prec
    try:
        E, D, ETA, NN = arb(eps), arb(d), arb(eta_f), arb(N_i)
        top = 1 - 2 * ETA if n_i >= 3 else 1 - (n_i - 1) * ETA
        values, mults = np.unique(counts, return_counts=True)
        shares = [(arb(int(c)) / NN, int(m)) for c, m in zip(values, mults)]

        def b_point(K):
            H = K / NN
            return (arb.lgamma(K * ETA) + arb.lgamma(K * top)
                    - arb.lgamma(K * ETA + H) - arb.lgamma(K * top - H))

        def b(lo_k, hi_k):
            # centred form: b(K) lies in b(m) + b'(K) (K - m), m the midpoint, with
            # b'(k) = eta psi(k eta) + T psi(k T) - (eta + 1/N) psi(k (eta + 1/N))
            #         - (T - 1/N) psi(k (T - 1/N)) enclosed on the whole interval K
            K = arb.union(arb(lo_k), arb(hi_k))
            m = arb(0.5 * (lo_k + hi_k))
            u, v = ETA + 1 / NN, top - 1 / NN
            slope = (ETA * arb.digamma(K * ETA) + top * arb.digamma(K * top)
                     - u * arb.digamma(K * u) - v * arb.digamma(K * v))
            return b_point(m) + slope * (K - m)

        def delta_of(K, G):
            return sum(arb(mult) * _arb_betainc(K * s, K * (1 - s), G)
                       for s, mult in shares)

        # 1. the returned pair, as exact reals
        K0, G0 = arb(k0), arb(g0)
        eps_at = b_point(K0) + K0 / NN * arb.log((1 - (n_i - 1) * G0) / G0)
        ok1 = (eps_at <= E) and (delta_of(K0, G0) <= D)
        if not ok1:
            raise ArithmeticError(f"the returned k={k0!r}, gamma={g0!r} is not certified")
        # 2. no k' in the range is admissible
        lo, hi = k0 * (1 + 1e-9), k0 * float(k_max_factor)
        edges = np.geomspace(lo, hi, int(np.ceil(np.log(hi / lo) / rel_width)) + 1)
        todo, used = list(zip(edges[:-1], edges[1:]))[::-1], 0
        while todo:
            a, c = todo.pop()
            used += 1
            K = arb.union(arb(a), arb(c))
            r = (E - b(a, c)) * NN / K
            if r <= 0:                      # epsilon unreachable on the whole interval
                continue
            # where r(k') > 0, gamma(k') >= G_lo = 1/(exp(r_max) + n - 1); I_x(a, b) grows
            # with x and b and falls with a, so on the interval [a, c] the union bound is at
            # least sum_i I_{G_lo}(c s_i, a (1 - s_i)): evaluated at points, hence tight
            G_lo = 1 / (arb.exp(arb(r.upper())) + n_i - 1)
            low = sum(arb(mult) * _arb_betainc(arb(c) * sh, arb(a) * (1 - sh), G_lo, budget)
                      for sh, mult in shares)
            if low > D:
                continue
            if c - a < 1e-14 * c:
                raise ArithmeticError(f"cannot decide k in [{a!r}, {c!r}]")
            mid = 0.5 * (a + c)
            todo += [(a, mid), (mid, c)]
    finally:
        ctx.prec = old
    return dict(k=k0, gamma=g0, k_range=(float(lo), float(hi)), intervals=used)
