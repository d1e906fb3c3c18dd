"""Baseline mechanisms for releasing a count vector, to compare with the Dirichlet mechanism.

The paper (Section 1) dismisses additive-noise mechanisms for simplex-valued queries
because their outputs leave the simplex; this module implements them properly, with
their privacy accounting, so the book can compare them at matched (epsilon, delta).
Book: chapter "Baselines at matched privacy" (book/baselines.ipynb).

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

import numpy as np
from scipy.optimize import brentq
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
    eps = float(_checks.positive("epsilon", epsilon))
    return eps


def _delta(delta) -> float:
    d = float(_checks.as_float_array("delta", delta))
    if not 0 < d < 1:
        raise ValueError(f"delta={d!r} must satisfy 0 < delta < 1")
    return d


def _shape(size) -> tuple:
    if size is None:
        return ()
    shape = tuple(int(s) for s in np.atleast_1d(size))
    if any(s < 0 for s in shape):
        raise ValueError(f"size={size!r} must be non-negative")
    return shape


# ------------------------------------------------------------------ post-processing
def project_to_simplex(v) -> np.ndarray:
    """Euclidean projection of each vector (last axis) onto the unit simplex (Definition 1).

    The sort-based algorithm (Held, Wolfe & Crowder 1974; Duchi et al. 2008): sort v
    in decreasing order u, find rho = max{j : u_j - (sum_{i<=j} u_i - 1)/j > 0}, set
    theta = (sum_{i<=rho} u_i - 1)/rho and return max(v - theta, 0).  The result is
    the unique minimiser of ||x - v||_2 over the simplex; it satisfies the KKT
    conditions x_i > 0 => v_i - x_i = theta and x_i = 0 => v_i <= theta.
    The simplex is Definition 1 of the paper; Section 1 mentions projection as the
    way to repair additive noise.  Book: chapter "Baselines at matched privacy".
    """
    v = _checks.as_float_array("v", v)
    if v.ndim == 0 or v.shape[-1] < 1:
        raise ValueError(f"v={v!r} must be an array of vectors (last axis)")
    n = v.shape[-1]
    u = -np.sort(-v, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    j = np.arange(1, n + 1)
    positive = u - css / j > 0
    rho = n - np.argmax(positive[..., ::-1], axis=-1)       # last index where positive
    theta = np.take_along_axis(css, (rho - 1)[..., None], axis=-1) / rho[..., None]
    return np.maximum(v - theta, 0.0)


def clip_to_simplex(v) -> np.ndarray:
    """Clip negative entries to 0 and renormalise each vector (last axis) to sum to 1.

    If every entry of a vector is <= 0 there is nothing to renormalise; that vector is
    replaced by the uniform vector (1/n, ..., 1/n).  This choice uses no data, so it
    is post-processing and the release keeps its privacy guarantee; how often it
    happens is reported in the book.  The simplex is Definition 1.
    Book: chapter "Baselines at matched privacy".
    """
    v = _checks.as_float_array("v", v)
    if v.ndim == 0 or v.shape[-1] < 1:
        raise ValueError(f"v={v!r} must be an array of vectors (last axis)")
    x = np.maximum(v, 0.0)
    total = x.sum(axis=-1, keepdims=True)
    empty = total == 0
    n = v.shape[-1]
    return np.where(empty, 1.0 / n, x / np.where(empty, 1.0, total))


# ----------------------------------------------------------------- Laplace noise
def laplace_scale(epsilon, sensitivity=L1_SENSITIVITY) -> float:
    """Scale b = sensitivity/epsilon of the Laplace mechanism (pure epsilon-DP).

    With L1 sensitivity 2 (one record changes category, N public) the log density
    ratio of two adjacent outputs is at most (|z_i| - |z_i - 1| + |z_j| - |z_j + 1|)/b
    <= 2/b = epsilon (Dwork et al. 2006); adjacency as in Definition 3, N public.
    Book: "Baselines at matched privacy".
    """
    return float(_checks.positive("sensitivity", sensitivity)) / _epsilon(epsilon)


def laplace_counts(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Counts plus independent Laplace(0, 2/epsilon) noise: epsilon-DP, not yet on the simplex.

    ``counts`` has shape (..., n); the result has shape ``size + counts.shape``.
    ``rng=None`` uses fresh OS entropy (a seed is for teaching/testing only).
    The paper's Section 1 names this mechanism as the usual alternative.
    Book: "Baselines at matched privacy".
    """
    c = _checks.counts_array("counts", counts)
    b = laplace_scale(epsilon)
    shape = _shape(size) + c.shape
    return c + _generator(rng).laplace(0.0, b, size=shape)


def laplace_clip(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Laplace mechanism on the counts, negatives clipped to 0, renormalised (epsilon-DP).

    Noise of scale 2/epsilon (``laplace_scale``) makes the noisy counts epsilon-DP;
    ``clip_to_simplex`` is post-processing (a row whose noisy counts are all <= 0 is
    released as the uniform vector).  A baseline for Algorithm 1 (paper, Section 1).
    ``rng=None`` uses fresh OS entropy (a seed is for teaching/testing only).
    Book: "Baselines at matched privacy".
    """
    return clip_to_simplex(laplace_counts(counts, epsilon, rng=rng, size=size))


def laplace_project(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Laplace mechanism on the counts, divided by the public N, projected onto the simplex.

    Pure epsilon-DP (``laplace_scale``); the projection (``project_to_simplex``) is
    post-processing.  A baseline for Algorithm 1 (paper, Section 1).
    ``rng=None`` uses fresh OS entropy (a seed is for teaching/testing only).
    Book: "Baselines at matched privacy".
    """
    c = _checks.counts_array("counts", counts)
    noisy = laplace_counts(c, epsilon, rng=rng, size=size)
    return project_to_simplex(noisy / c.sum(axis=-1, keepdims=True))


# ---------------------------------------------------------------- geometric noise
def geometric_ratio(epsilon, sensitivity=L1_SENSITIVITY) -> float:
    """alpha = exp(-epsilon/sensitivity) of the two-sided geometric mechanism.

    P(Z = z) = (1 - alpha)/(1 + alpha) * alpha^|z| on the integers (Ghosh, Roughgarden
    & Sundararajan 2012).  A +1/-1 move of two counts changes the log probability by at
    most 2*log(1/alpha) = epsilon: pure epsilon-DP under the adjacency of Definition 3.
    Book: "Baselines at matched privacy".
    """
    return float(np.exp(-_epsilon(epsilon) / float(_checks.positive("sensitivity", sensitivity))))


def geometric_counts(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Counts plus independent two-sided geometric noise (integers): epsilon-DP.

    The noise is G1 - G2 with G1, G2 independent geometric on {1, 2, ...} with success
    probability 1 - alpha, ``alpha = geometric_ratio(epsilon)``.  A baseline for
    Algorithm 1 (paper, Section 1); ``rng=None`` uses fresh OS entropy.
    Book: "Baselines at matched privacy".
    """
    c = _checks.counts_array("counts", counts)
    p = 1.0 - geometric_ratio(epsilon)
    gen = _generator(rng)
    shape = _shape(size) + c.shape
    return c + (gen.geometric(p, size=shape) - gen.geometric(p, size=shape)).astype(float)


def geometric_clip(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Geometric mechanism on the counts, then ``clip_to_simplex`` (epsilon-DP).

    A baseline for Algorithm 1 (paper, Section 1); ``rng=None`` uses fresh OS entropy.
    Book: "Baselines at matched privacy".
    """
    return clip_to_simplex(geometric_counts(counts, epsilon, rng=rng, size=size))


def geometric_project(counts, epsilon, *, rng=None, size=None) -> np.ndarray:
    """Geometric mechanism on the counts, divided by N, then ``project_to_simplex`` (epsilon-DP).

    A baseline for Algorithm 1 (paper, Section 1); ``rng=None`` uses fresh OS entropy.
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


def analytic_gaussian_sigma(epsilon, delta, sensitivity=L2_SENSITIVITY) -> float:
    """The smallest sigma for which N(0, sigma^2 I) noise is (epsilon, delta)-DP (Balle & Wang 2018).

    ``analytic_gaussian_delta`` decreases strictly in sigma, so the root of
    delta(sigma) = delta is found by bisection on log sigma (to relative width 1e-15);
    the upper end of the final bracket is returned, so the guarantee holds.  Results
    are cached per (epsilon, delta, sensitivity).  The Gaussian mechanism is the other
    alternative named in the paper's Section 1.  Book: "Baselines at matched privacy".
    """
    eps = _epsilon(epsilon)
    d = _delta(delta)
    D = float(_checks.positive("sensitivity", sensitivity))
    return _gaussian_sigma(eps, d, D)


def gaussian_counts(counts, epsilon, delta, *, rng=None, size=None) -> np.ndarray:
    """Counts plus N(0, sigma^2) noise, sigma = ``analytic_gaussian_sigma(epsilon, delta)``.

    (epsilon, delta)-DP (paper, Section 1 names the Gaussian mechanism);
    ``rng=None`` uses fresh OS entropy.  Book: "Baselines at matched privacy".
    """
    c = _checks.counts_array("counts", counts)
    sigma = analytic_gaussian_sigma(epsilon, delta)
    shape = _shape(size) + c.shape
    return c + _generator(rng).normal(0.0, sigma, size=shape)


def gaussian_project(counts, epsilon, delta, *, rng=None, size=None) -> np.ndarray:
    """Analytic Gaussian mechanism on the counts, divided by N, projected onto the simplex.

    (epsilon, delta)-DP with the exact calibration of Balle & Wang (2018); the
    projection is post-processing.  A baseline for Algorithm 1 (paper, Section 1);
    ``rng=None`` uses fresh OS entropy.  Book: "Baselines at matched privacy".
    """
    c = _checks.counts_array("counts", counts)
    noisy = gaussian_counts(c, epsilon, delta, rng=rng, size=size)
    return project_to_simplex(noisy / c.sum(axis=-1, keepdims=True))


# ----------------------------------------------------------- Markov chains
def privatize_rows(counts, mechanism, *args, support="observed", rng=None, size=None) -> np.ndarray:
    """Release a transition-count matrix row by row with a baseline ``mechanism`` (cf. Algorithm 2).

    Row i of ``counts`` (shape (m, n)) is the database D_i of departures from state i
    (eq. (4)).  By default (``support="observed"``), as in Assumption 6, the support
    {j : counts[i, j] > 0} (the feasible transitions) is treated as public: the
    mechanism sees only the supported counts of each row and the unsupported entries
    stay 0, exactly as the Dirichlet mechanism keeps them, so the release reveals the
    support and the guarantee covers only neighbours with the same support.  A row with a single feasible transition is released as 1 there (it
    holds no private information once the support is public).  The rows are disjoint
    databases, so by parallel composition (Lemma 1) the matrix keeps the per-row
    guarantee of ``mechanism``.

    With ``support="all"`` the support is *not* used: every row is released on all n
    entries (zeros included), so the pattern of zeros of the data is not published and
    the per-row guarantee holds for every pair of adjacent rows, with no public-support
    assumption.  The Dirichlet mechanism cannot do this (a zero count gives no
    Dirichlet parameter).

    ``mechanism`` is one of this module's releases (e.g. ``laplace_project``) and
    ``args`` its privacy parameters (``epsilon`` or ``epsilon, delta``).  Returns shape
    ``size + (m, n)``.  ``rng=None`` uses fresh OS entropy (a seed is for
    teaching/testing only).  Book: "Baselines at matched privacy".
    """
    c = _checks.as_float_array("counts", counts)
    if c.ndim != 2:
        raise ValueError(f"counts has shape {c.shape}: a transition-count matrix is (m, n)")
    c = _checks.counts_array("counts", c)
    if not callable(mechanism):
        raise TypeError(f"mechanism={mechanism!r} must be a function such as laplace_project")
    if not isinstance(support, str) or support not in ("observed", "all"):
        raise ValueError(f"support={support!r} must be 'observed' (release on the public "
                         "observed support, Assumption 6) or 'all' (release every entry)")
    gen = _generator(rng)
    shape = _shape(size)
    out = np.zeros(shape + c.shape)
    for i, row in enumerate(c):
        cols = np.flatnonzero(row > 0) if support == "observed" else np.arange(row.size)
        if cols.size == 1:
            out[..., i, cols[0]] = 1.0
            continue
        out[..., i, cols] = mechanism(row[cols], *args, rng=gen,
                                      size=None if size is None else shape)
    return out


# ------------------------------------------------ the Dirichlet mechanism, calibrated
def dirichlet_k_theorem1(epsilon, delta, eta, N, n):
    """(k, gamma) of the most accurate Dirichlet mechanism that Theorem 1 certifies (epsilon, delta)-DP.

    Theorem 1 ties three numbers: eq. (6) gives epsilon(k, gamma) = b(k) +
    (k/N) log((1 - (n-1) gamma)/gamma), with b(k) the Beta-function term; eq. (7) gives
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

    def log_gamma(k):
        """log gamma(k), or None when gamma(k) >= 1/n (epsilon not reachable at this k)."""
        b = privacy.epsilon_paper(k, eta_f, N_f, n_f, g0) - k / N_f * np.log(n_f + 1)
        r = (eps - b) * N_f / k
        if r <= 0:
            return None
        return -(r + np.log1p((n_f - 1) * np.exp(-r)))

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
    if gap(lo) > 0:
        smallest = np.exp(gap(lo)) * d
        raise ValueError(
            f"no gamma gives delta <= {d!r} at epsilon={eps!r} (eta={eta_f!r}, N={N_f:.0f}, "
            f"n={n_f:.0f}): the smallest delta Theorem 1 certifies there is {smallest:.3g}")
    k = float(np.exp(_largest_feasible_log_k(gap, lo, lo + np.log(2.0), np.log(2.0))))
    return k, float(np.exp(log_gamma(k)))


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

    def gap(log_k):
        return np.log(max(privacy_profile(eps, float(np.exp(log_k)), N_i, n_i, m), 1e-300)) \
            - np.log(d)

    k_lo = max(1.0, eps * N_i / 500.0)
    lo = np.log(k_lo)
    if gap(lo) > 0:
        raise ValueError(
            f"delta={d!r} is below the Dirichlet mechanism's profile at epsilon={eps!r} even "
            f"for k={k_lo:.4g} ({privacy_profile(eps, k_lo, N_i, n_i, m):.3g}; N={N_i}, n={n_i}, "
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
    while gap(hi) <= 0:
        lo, hi = hi, hi + step
        if limit is not None and hi > limit:  # pragma: no cover
            raise ValueError("no upper bracket for k")
    log_k = brentq(gap, lo, hi, xtol=1e-10, rtol=1e-12)
    while gap(log_k) > 0:
        log_k -= 1e-10 * max(1.0, abs(log_k))
    return log_k
