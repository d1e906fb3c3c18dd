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
from math import gcd

import numpy as np
from scipy.special import log_ndtr

from . import _checks, privacy
from .mechanism import _generator
from .profile import privacy_profile

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


def _shape(size) -> tuple:
    """``size`` as a shape: None, a whole number >= 0 or a tuple of them (no bool, float, str)."""
    if size is None:
        return ()
    items = size if isinstance(size, (tuple, list)) else (size,)
    for s in items:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"size={size!r} must be None, a whole number or a tuple of "
                            "whole numbers (an int, not a float, str or bool)")
        if s < 0:
            raise ValueError(f"size={size!r} must be non-negative")
    return tuple(int(s) for s in items)


def _rng(rng) -> np.random.Generator:
    """A Generator from ``rng``: None (fresh OS entropy), an int, a SeedSequence or a Generator."""
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"rng={rng!r} is a bool: a seed is None, an int, a SeedSequence "
                        "or a numpy.random.Generator")
    return _generator(rng)


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
    return float(_checks.positive("sensitivity", sensitivity)) / _epsilon(epsilon)


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
    shape = _shape(size) + c.shape
    return c + _rng(rng).laplace(0.0, b, size=shape)


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


def _numpy_laplace_noise(k, scale):
    """The double numpy's ``Generator.laplace(0, scale)`` returns for the draw U = k 2^-53."""
    u = np.asarray(k, np.int64) * 2.0 ** -53
    with np.errstate(divide="ignore"):
        return np.where(u >= 0.5, -(scale * np.log(2.0 - u - u)), scale * np.log(u + u))


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
    c = float(_checks.as_float_array("count", count))
    b = laplace_scale(epsilon)
    lo = np.ones(y.shape, np.int64)
    hi = np.full(y.shape, 2 ** 53 - 1, np.int64)
    while np.any(lo < hi):                    # smallest k with fl(c + z(k)) >= y
        mid = (lo + hi) // 2
        ge = (c + _numpy_laplace_noise(mid, b)) >= y
        hi = np.where(ge, mid, hi)
        lo = np.where(ge, lo, mid + 1)
    return (c + _numpy_laplace_noise(lo, b)) != y


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


def _bernoulli_exp(gen, num, den):
    """Exact Bernoulli(exp(-num/den)) draws for integer arrays 0 <= num <= den (CKS 2020, Alg. 1).

    K = 1; while Bernoulli(gamma/K): K += 1; return K odd.  P(K odd) = exp(-gamma).
    Bernoulli(num/(den K)) is ``integers(0, den K) < num``: integer draws only.
    """
    num = np.asarray(num, np.int64)
    den = np.broadcast_to(np.asarray(den, np.int64), num.shape)
    K = np.ones(num.shape, np.int64)
    active = np.arange(num.size)
    flat_num, flat_den, flat_K = num.ravel(), den.ravel(), K.ravel()
    while active.size:
        go = gen.integers(0, flat_den[active] * flat_K[active]) < flat_num[active]
        active = active[go]
        flat_K[active] += 1
    return (flat_K % 2 == 1).reshape(num.shape)


def _discrete_laplace(gen, s: int, t: int, m: int) -> np.ndarray:
    """m exact draws with P(Z = z) = (1 - a)/(1 + a) a^|z|, a = exp(-s/t) (CKS 2020, Alg. 2).

    Repeat: U uniform on {0..t-1}; accept with probability exp(-U/t); V = number of
    successes of Bernoulli(exp(-1)) before the first failure; X = U + tV has
    P(X = x) ~ exp(-x/t); Y = floor(X/s); a fair sign B; reject (B = -, Y = 0).
    Only integer draws of ``gen`` are used; no floating point touches the noise.
    """
    out = np.empty(m, np.int64)
    filled = 0
    while filled < m:
        # each candidate is accepted with probability about 1/2 or more, so 2x + 16 candidates
        # fill the remaining slots in one or two rounds (accepted draws are i.i.d. either way)
        r = 2 * (m - filled) + 16
        U = gen.integers(0, t, size=r)
        D = _bernoulli_exp(gen, U, t)
        V = np.zeros(r, np.int64)
        active = np.arange(r)
        while active.size:
            active = active[_bernoulli_exp(gen, np.ones(active.size, np.int64), 1)]
            V[active] += 1
        Y = (U + t * V) // s
        neg = gen.integers(0, 2, size=r) == 1
        ok = D & ~(neg & (Y == 0))
        z = np.where(neg[ok], -Y[ok], Y[ok])[:m - filled]
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
    return float(np.exp(-_epsilon(epsilon) / float(_checks.positive("sensitivity", sensitivity))))


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
    shape = _shape(size) + c.shape
    m = int(np.prod(shape, dtype=np.int64))
    noise = _discrete_laplace(_rng(rng), s, t, m).reshape(shape)
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
    D = float(_checks.positive("sensitivity", sensitivity))
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
    shape = _shape(size) + c.shape
    return c + _rng(rng).normal(0.0, sigma, size=shape)


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
    releases (e.g. ``geometric_project``) with privacy parameters ``args``.  Returns
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
    gen = _rng(rng)
    shape = _shape(size)
    out = np.zeros(shape + c.shape)
    for i, row in enumerate(c):
        cols = np.flatnonzero(mask[i])
        if cols.size == 1:
            out[..., i, cols[0]] = 1.0
            continue
        out[..., i, cols] = mechanism(row[cols], *args, rng=gen,
                                      size=None if size is None else shape)
    return out


# ------------------------------------------------ the Dirichlet mechanism, calibrated
@_checks.public
def dirichlet_k_theorem1(epsilon, delta, eta, N, n):
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
    ``privacy.delta(k, eta, N, n, gamma(k))`` <= delta, found by Brent's method on log k
    (relative tolerance 1e-10) and nudged down onto the feasible side.

    Returns ``(k, gamma)``.  Raises ``ValueError`` when no k qualifies: epsilon below
    epsilon_star for every gamma < 1/n (the Dirichlet mechanism cannot reach it under
    Theorem 1), or delta below what Theorem 1 certifies at epsilon.
    Book: chapter "Baselines at matched privacy".
    """
    eps = _epsilon(epsilon)
    d = _delta(delta)
    eta_f = float(_checks.eta_ok(eta))
    N_f = float(_checks.integer_at_least("N", N, 2))
    n_f = float(_checks.integer_at_least("n", n, 2))
    _checks.design_ok(np.asarray(eta_f), np.asarray(N_f), np.asarray(n_f))
    g0 = 0.5 / n_f                        # any gamma < 1/n: (1-(n-1) g0)/g0 = n + 1

    # both are memoised: Brent's method re-evaluates its bracket ends, the final loop the
    # root, and each evaluation costs two checked calls of the privacy formulas
    @functools.lru_cache(maxsize=None)
    def log_gamma(k):
        """log gamma(k), or None when gamma(k) >= 1/n (epsilon not reachable at this k)."""
        b = privacy.epsilon(k, eta_f, N_f, n_f, g0) - k / N_f * np.log(n_f + 1)
        r = (eps - b) * N_f / k
        if r <= 0:
            return None
        return -(r + np.log1p((n_f - 1) * np.exp(-r)))

    @functools.lru_cache(maxsize=None)
    def gap(log_k):
        k = float(np.exp(log_k))
        lg = log_gamma(k)
        if lg is None:
            return -np.log(d)             # delta = 1 there
        if lg < -700:
            return -1e300                 # gamma underflows: delta = 0
        dd = privacy.delta(k, eta_f, N_f, n_f, float(np.exp(lg)))
        return np.log(max(dd, 1e-300)) - np.log(d)

    k_lo = float(privacy.k_min(eta_f))
    if log_gamma(k_lo) is None:
        raise ValueError(
            f"epsilon={eps!r} is below epsilon_star for every gamma < 1/n (eta={eta_f!r}, "
            f"N={N_f:.0f}, n={n_f:.0f}): Theorem 1 cannot certify it")
    lo = np.log(k_lo)
    gap_lo = gap(lo)                      # evaluated once: it is also the error message's number
    if gap_lo > 0:
        smallest = np.exp(gap_lo) * d
        raise ValueError(
            f"no gamma gives delta <= {d!r} at epsilon={eps!r} (eta={eta_f!r}, N={N_f:.0f}, "
            f"n={n_f:.0f}): the smallest delta Theorem 1 certifies there is {smallest:.3g}")
    log_k = _largest_feasible_log_k(gap, lo, lo + np.log(2.0), np.log(2.0))
    # the closed form puts epsilon(k, gamma) on the target up to rounding: step gamma up
    # (epsilon falls, delta rises) until the sound epsilon is <= the target, and k down
    # if delta then exceeds its target, so the returned pair meets both, as computed
    while True:
        k = float(np.exp(log_k))
        g = float(np.exp(log_gamma(k)))
        while privacy.epsilon(k, eta_f, N_f, n_f, g) > eps * (1 - 1e-14):
            g *= 1 + 1e-13
        if privacy.delta(k, eta_f, N_f, n_f, g) <= d:
            return k, g
        log_k -= 1e-10 * max(1.0, abs(log_k))


@_checks.public
def dirichlet_k_tight(epsilon, delta, N, n, min_count):
    """The largest k for which the Dirichlet mechanism is (epsilon, delta)-DP by its tight profile.

    Uses ``profile.privacy_profile(epsilon, k, N, n, min_count)``, the exact
    delta(epsilon) over adjacent count vectors (Definition 3) whose counts are all
    >= ``min_count`` (Assumption 3 with min_count = ceil(eta N)).  The profile grows
    with k (checked in the tests and the book), so the k with profile = delta is found
    by Brent's method on log k (relative tolerance 1e-10) and nudged down until the
    profile is <= delta.  No Assumption 4 is needed: Theorem 1's floor epsilon_star does
    not apply.  But as k -> 0 the profile does not vanish (the privacy loss keeps an
    exponential tail: its limit is e^(-m epsilon)/(2m + 1) with m = min_count, as the
    book's baselines chapter derives and checks), so a delta below that floor
    raises ``ValueError``.  The search starts at k = max(1, epsilon N / 500): smaller k
    are useless (outputs pile up near the vertices) and there the profile's Beta tail
    underflows to 0 in floating point, which would fake a feasible k.
    Book: chapter "Baselines at matched privacy".
    """
    eps = _epsilon(epsilon)
    d = _delta(delta)
    N_i = int(_checks.integer_at_least("N", N, 2))
    n_i = int(_checks.integer_at_least("n", n, 2))
    m = int(_checks.integer_at_least("min_count", min_count, 1))

    @functools.lru_cache(maxsize=None)   # Brent's method re-evaluates its bracket ends
    def gap(log_k):
        return np.log(max(privacy_profile(eps, float(np.exp(log_k)), N_i, n_i, m), 1e-300)) \
            - np.log(d)

    k_lo = max(1.0, eps * N_i / 500.0)
    lo = np.log(k_lo)
    gap_lo = gap(lo)                      # evaluated once: it is also the error message's number
    if gap_lo > 0:
        raise ValueError(
            f"delta={d!r} is below the Dirichlet mechanism's profile at epsilon={eps!r} even "
            f"for k={k_lo:.4g} ({np.exp(gap_lo) * d:.3g}; N={N_i}, n={n_i}, "
            f"min_count={m}): no useful k reaches this (epsilon, delta)")
    # the profile tends to TV = 1 as k grows, so an upper bracket exists
    return float(np.exp(_largest_feasible_log_k(gap, lo, np.log(max(10.0 * N_i, 10.0)),
                                                np.log(10.0), limit=np.log(1e300))))


def _largest_feasible_log_k(gap, lo, hi, step, *, limit=None):
    """The largest log k with gap(log k) <= 0, for a gap that grows with k and gap(lo) <= 0.

    Widens [lo, hi] by ``step`` until gap(hi) > 0 (past ``limit`` is an error), finds
    the crossing by Brent's method on log k (xtol 1e-10, rtol 1e-12) and steps down
    until the feasible side is reached, so the result never violates the target.
    Shared by both calibrations of the Dirichlet mechanism.
    """
    from scipy.optimize import brentq   # imported here: scipy.optimize costs 0.7 s to import
    while gap(hi) <= 0:
        lo, hi = hi, hi + step
        if limit is not None and hi > limit:  # pragma: no cover
            raise ValueError("no upper bracket for k")
    log_k = brentq(gap, lo, hi, xtol=1e-10, rtol=1e-12)
    while gap(log_k) > 0:
        log_k -= 1e-10 * max(1.0, abs(log_k))
    return log_k


def _arb_betainc(a, b, x):
    """Enclosure of the regularised incomplete Beta I_x(a, b) for balls a, b > 0, 0 < x < 1.

    I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * sum_j t_j, t_0 = 1,
    t_(j+1) = t_j x (a + b + j)/(a + 1 + j) (DLMF 8.17.8 with 2F1(a+b, 1; a+1; x)).
    Summed until the ratio bound rho = x * max(1, (a+b+J)/(a+1+J)) is < 1 and the
    term is negligible; the remaining tail is at most t_J / (1 - rho) and is added as
    the ball [0, t_J/(1 - rho)].  Only arb's arithmetic, exp, log and lgamma are used.
    """
    from flint import arb

    one = arb(1)
    total, term, j = arb(0), arb(1), 0
    while True:
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
    Raises ``ArithmeticError`` if an interval cannot be decided at width 1e-14 k.
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
    k0, g0 = dirichlet_k_theorem1(epsilon, delta, eta, N, n)
    eps, d = _epsilon(epsilon), _delta(delta)
    eta_f, N_i, n_i = float(eta), int(N), int(n)
    counts = privacy.worst_counts(eta_f, N_i, n_i)
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
            low = sum(arb(mult) * _arb_betainc(arb(c) * sh, arb(a) * (1 - sh), G_lo)
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
