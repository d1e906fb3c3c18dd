"""Tests of dpmarkov.baselines: privacy accounting, projection, sampling, input checks.

Statistical tests use fixed seeds and tolerances of 5 standard errors of the Monte
Carlo estimate (a false alarm has probability < 1e-6 per test), computed from the
sample itself.
"""
from __future__ import annotations

import inspect
import itertools
import re
from math import factorial

import mpmath as mp
import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import norm

import dpmarkov as dm
from dpmarkov import baselines as bl
from dpmarkov.baselines import calibration, geometric
from dpmarkov.verify import scalar_calibrations

COUNTS = np.array([30, 35, 20, 8, 5])
Z_SE = 5.0  # tolerance in standard errors for every Monte Carlo check


# ------------------------------------------------------------------ API and docs
def test_module_is_exported_and_documented():
    assert dm.baselines is bl
    anchor = re.compile(r"Definition \d|Section \d|Theorem \d|Algorithm \d|eq\. ?\(\d+\)")
    public = [getattr(bl, name) for name in bl.__all__ if inspect.isfunction(getattr(bl, name))]
    assert len(public) >= 12
    # every public function of the package's modules is exported by dpmarkov.baselines
    import pkgutil
    import importlib
    defined = {f"{mod.name}.{name}" for mod in pkgutil.iter_modules(bl.__path__)
               if not mod.name.startswith("_")
               for name, f in inspect.getmembers(importlib.import_module(f"{bl.__name__}.{mod.name}"),
                                                 inspect.isfunction)
               if not name.startswith("_") and f.__module__ == f"{bl.__name__}.{mod.name}"}
    assert defined == {f"{f.__module__.rpartition('.')[2]}.{f.__name__}" for f in public}
    for f in public:
        doc = inspect.getdoc(f) or ""
        assert anchor.search(doc), f"{f.__name__}: no paper anchor in its docstring"
        assert "Baselines at matched privacy" in doc, f"{f.__name__}: no book chapter"


def test_sensitivities():
    # a record moving from category i to j: c' = c + e_j - e_i
    c = COUNTS.astype(float)
    c2 = c.copy()
    c2[0] -= 1
    c2[3] += 1
    assert np.abs(c - c2).sum() == bl.L1_SENSITIVITY
    assert np.isclose(np.linalg.norm(c - c2), bl.L2_SENSITIVITY, rtol=0, atol=1e-15)


# -------------------------------------------------------------- the projection
def _brute_force_projection(v):
    """Try every support S: x_S = v_S - (sum v_S - 1)/|S|; keep feasible, nearest."""
    n = len(v)
    best, best_d = None, np.inf
    for r in range(1, n + 1):
        for S in itertools.combinations(range(n), r):
            S = list(S)
            x = np.zeros(n)
            x[S] = v[S] - (v[S].sum() - 1) / r
            if np.all(x[S] >= -1e-12):
                d = np.sum((x - v) ** 2)
                if d < best_d:
                    best, best_d = x, d
    return best


def test_projection_matches_brute_force_and_qp():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = rng.integers(2, 7)
        v = rng.normal(0, 1, n) * rng.choice([0.1, 1, 10])
        x = bl.project_to_simplex(v)
        assert np.allclose(x, _brute_force_projection(v), atol=1e-12)
    for _ in range(10):  # an independent QP solver
        v = rng.normal(0.2, 0.5, 5)
        qp = minimize(lambda x: np.sum((x - v) ** 2), np.full(5, 0.2), method="SLSQP",
                      bounds=[(0, None)] * 5,
                      constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
                      options={"ftol": 1e-14, "maxiter": 500})
        assert np.allclose(bl.project_to_simplex(v), qp.x, atol=1e-6)


def test_projection_kkt_idempotent_and_stacked():
    rng = np.random.default_rng(2)
    V = rng.normal(0.1, 0.3, size=(500, 6))
    V[::7, 2] = V[::7, 3]                     # ties
    X = bl.project_to_simplex(V)
    assert X.shape == V.shape
    assert np.all(X >= 0) and np.allclose(X.sum(axis=1), 1, atol=1e-12)
    # KKT: x = max(v - theta, 0) for one theta per row
    theta = np.array([np.mean((v - x)[x > 0]) for v, x in zip(V, X)])
    for v, x, t in zip(V, X, theta):
        assert np.allclose((v - x)[x > 0], t, atol=1e-12)
        assert np.all(v[x == 0] <= t + 1e-12)
    assert np.allclose(bl.project_to_simplex(X), X, atol=1e-15)        # idempotent
    assert np.allclose(X[17], bl.project_to_simplex(V[17]), atol=0)    # stack = row by row
    inside = rng.dirichlet(np.ones(6), size=50)
    assert np.allclose(bl.project_to_simplex(inside), inside, atol=1e-15)
    assert np.allclose(bl.project_to_simplex([5.0, 1.0]), [1.0, 0.0])
    assert np.allclose(bl.project_to_simplex([0.0, 0.0, 0.0]), [1 / 3] * 3)


def test_clip_to_simplex_and_uniform_fallback():
    assert np.allclose(bl.clip_to_simplex([3.0, -1.0, 1.0]), [0.75, 0.0, 0.25])
    assert np.allclose(bl.clip_to_simplex([[-2.0, -1.0, 0.0, -0.5], [1.0, 1.0, 2.0, 0.0]]),
                       [[0.25] * 4, [0.25, 0.25, 0.5, 0.0]])


# ------------------------------------------------------------------- Laplace
@pytest.mark.parametrize("eps", [0.1, 1.0, 8.0])
def test_laplace_scale_and_exact_density_ratio(eps):
    b = bl.laplace_scale(eps)
    assert b == 2.0 / eps
    c = COUNTS.astype(float)
    c2 = c.copy()
    c2[1] -= 1
    c2[4] += 1

    def log_density(y, centre):  # product of Laplace(centre_i, b) densities
        return np.sum(-np.abs(y - centre) / b - np.log(2 * b), axis=-1)

    rng = np.random.default_rng(3)
    y = c + rng.laplace(0, 3 * b, size=(20000, 5))
    ratio = log_density(y, c) - log_density(y, c2)
    assert np.max(np.abs(ratio)) <= eps * (1 + 1e-12)
    assert np.isclose(log_density(c, c) - log_density(c, c2), eps, rtol=1e-12)  # attained


def test_laplace_noise_has_the_stated_scale():
    eps, m = 0.7, 40000
    noise = bl.laplace_counts_comparison(COUNTS, eps, rng=4, size=m) - COUNTS
    a = np.abs(noise).ravel()          # E|Z| = b for Laplace(0, b)
    se = a.std(ddof=1) / np.sqrt(a.size)
    assert abs(a.mean() - 2 / eps) < Z_SE * se


# ------------------------------------------------------------------ geometric
@pytest.mark.parametrize("eps", [0.2, 1.0, 6.0])
def test_geometric_exact_probability_ratio(eps):
    alpha = bl.geometric_ratio(eps)
    assert np.isclose(alpha, np.exp(-eps / 2), rtol=1e-15)

    def log_pmf(z):
        return np.log((1 - alpha) / (1 + alpha)) + np.abs(z) * np.log(alpha)

    z = np.arange(-2000, 2001) if eps < 1 else np.arange(-200, 201)
    assert np.isclose(np.exp(log_pmf(z)).sum(), 1.0, rtol=1e-10)
    # two coordinates move: count i by -1, count j by +1; every integer output y
    yi, yj = np.meshgrid(np.arange(-30, 31), np.arange(-30, 31))
    lr = (log_pmf(yi) + log_pmf(yj)) - (log_pmf(yi + 1) + log_pmf(yj - 1))
    assert np.max(np.abs(lr)) <= eps * (1 + 1e-12)
    assert np.isclose(np.max(lr), eps, rtol=1e-12)


def test_geometric_noise_distribution():
    eps, m = 1.3, 40000
    alpha = bl.geometric_ratio(eps)
    z = (bl.geometric_counts(COUNTS, eps, rng=5, size=m) - COUNTS).ravel()
    assert np.all(z == np.round(z))
    p0 = (1 - alpha) / (1 + alpha)
    se = np.sqrt(p0 * (1 - p0) / z.size)
    assert abs(np.mean(z == 0) - p0) < Z_SE * se
    var = 2 * alpha / (1 - alpha) ** 2
    se_var = np.sqrt(np.var(z ** 2) / z.size)
    assert abs(np.mean(z ** 2) - var) < Z_SE * se_var


# ------------------------------------------------------------ analytic Gaussian
def _mp_delta(sigma, eps, D):
    mp.mp.dps = 50
    s, e, D = mp.mpf(sigma), mp.mpf(eps), mp.mpf(D)
    return mp.ncdf(D / (2 * s) - e * s / D) - mp.e ** e * mp.ncdf(-D / (2 * s) - e * s / D)


@pytest.mark.parametrize("eps,delta", [(0.05, 1e-3), (0.5, 1e-6), (1.0, 1e-5), (4.0, 1e-9),
                                       (8.0, 1e-6), (20.0, 1e-12)])
def test_gaussian_sigma_solves_the_exact_condition_and_is_smallest(eps, delta):
    D = bl.L2_SENSITIVITY
    s = bl.analytic_gaussian_sigma(eps, delta)
    # the float profile agrees with a 50-digit evaluation
    assert np.isclose(bl.analytic_gaussian_delta(s, eps), float(_mp_delta(s, eps, D)), rtol=1e-9)
    assert abs(float(_mp_delta(s, eps, D)) - delta) <= 1e-9 * delta      # equality
    assert bl.analytic_gaussian_delta(s, eps) <= delta * (1 + 1e-12)       # guarantee holds
    assert float(_mp_delta(s * (1 - 1e-9), eps, D)) > delta                # and is the smallest
    if eps <= 1:  # the classical calibration (Dwork & Roth Thm A.1) is looser
        assert s < np.sqrt(2 * np.log(1.25 / delta)) * D / eps


def test_gaussian_profile_monte_carlo_with_exact_densities():
    # delta(eps) = E_{Y ~ P}[(1 - exp(eps - L(Y)))_+], L the exact log density ratio of the
    # outputs of two adjacent count vectors: a histogram-free estimate of the profile.
    eps, delta_target, m = 1.0, 1e-2, 200000
    s = bl.analytic_gaussian_sigma(eps, delta_target)
    c = COUNTS.astype(float)
    c2 = c.copy()
    c2[0] -= 1
    c2[2] += 1
    rng = np.random.default_rng(6)
    y = bl.gaussian_counts_comparison(c, eps, delta_target, rng=rng, size=m)
    L = (np.sum((y - c2) ** 2, axis=1) - np.sum((y - c) ** 2, axis=1)) / (2 * s ** 2)
    for e in (0.5, 1.0, 2.0):
        h = np.maximum(0.0, -np.expm1(e - L))
        se = h.std(ddof=1) / np.sqrt(m)
        assert abs(h.mean() - bl.analytic_gaussian_delta(s, e)) < Z_SE * se
    # the noise itself has the stated sigma
    z = (y - c).ravel()
    se_var = np.sqrt(np.var(z ** 2) / z.size)
    assert abs(np.mean(z ** 2) - s ** 2) < Z_SE * se_var


def test_gaussian_delta_decreases_in_sigma_and_epsilon():
    sig = np.geomspace(0.3, 20, 200)      # delta from 1 - 1e-7 down to 1e-67, no underflow
    d = bl.analytic_gaussian_delta(sig, 1.0)
    assert np.all(np.diff(d) < 0) and np.all(d > 0)
    d_eps = bl.analytic_gaussian_delta(2.0, np.linspace(0.1, 5, 50))
    assert np.all(np.diff(d_eps) < 0)


# --------------------------------------------------------------- mechanisms
MECHS = {
    "laplace_clip": lambda c, **kw: bl.laplace_clip_comparison(c, 1.0, **kw),
    "laplace_project": lambda c, **kw: bl.laplace_project_comparison(c, 1.0, **kw),
    "geometric_clip": lambda c, **kw: bl.geometric_clip(c, 1.0, **kw),
    "geometric_project": lambda c, **kw: bl.geometric_project(c, 1.0, **kw),
    "gaussian_project": lambda c, **kw: bl.gaussian_project_comparison(c, 1.0, 1e-6, **kw),
}


@pytest.mark.parametrize("name", MECHS)
def test_outputs_on_simplex_shapes_and_seeding(name):
    f = MECHS[name]
    one = f([3, 1, 0, 2], rng=0)
    assert one.shape == (4,) and dm.in_simplex(one)
    many = f(COUNTS, rng=1, size=300)
    assert many.shape == (300, 5) and np.all(dm.in_simplex(many))
    grid = f(COUNTS, rng=1, size=(2, 3))
    assert grid.shape == (2, 3, 5)
    matrix = np.array([[5, 1, 0], [0, 2, 9], [1, 1, 1]])
    P = f(matrix, rng=2, size=50)
    assert P.shape == (50, 3, 3) and np.all(dm.in_simplex(P))
    assert np.array_equal(f(COUNTS, rng=7, size=4), f(COUNTS, rng=7, size=4))
    assert np.array_equal(f(COUNTS, rng=np.random.default_rng(7), size=4),
                          f(COUNTS, rng=7, size=4))
    assert not np.array_equal(f(COUNTS, rng=7, size=4), f(COUNTS, rng=8, size=4))
    assert not np.array_equal(f(COUNTS, size=4), f(COUNTS, size=4))  # OS entropy
    # large counts: the release concentrates on C
    big = f(COUNTS * 10000, rng=3, size=20)
    assert np.max(np.abs(big - COUNTS / COUNTS.sum())) < 1e-3


def test_clip_uniform_fallback_happens_and_is_uniform():
    # one record in 3 categories at a tiny epsilon: all noisy counts <= 0 is common
    out = bl.laplace_clip_comparison([1, 0, 0], 0.05, rng=9, size=2000)
    uniform = np.all(out == 1 / 3, axis=1)
    assert 0 < uniform.mean() < 1
    noisy = bl.laplace_counts_comparison([1, 0, 0], 0.05, rng=9, size=2000)
    assert np.array_equal(uniform, np.all(noisy <= 0, axis=1))


def test_project_is_clip_free_of_bias_on_average_in_the_interior():
    # far from the boundary the projection only shifts by the mean noise: unbiased
    c = np.array([4000, 3000, 3000])
    x = bl.laplace_project_comparison(c, 1.0, rng=10, size=20000)
    se = x.std(axis=0, ddof=1) / np.sqrt(len(x))
    assert np.all(np.abs(x.mean(axis=0) - c / c.sum()) < Z_SE * se)


# ------------------------------------------------------ Dirichlet calibration
def test_dirichlet_theorem1_calibration_meets_targets_and_is_tight():
    eta, N, n = 5 / 98, 98, 5
    for eps, d in [(8.0, 1e-6), (4.0, 1e-3), (16.0, 1e-6)]:
        k, g = bl.dirichlet_k_theorem1(eps, d, eta, N, n)
        assert np.isclose(dm.epsilon_paper(k, eta, N, n, g), eps, rtol=1e-12)
        assert dm.delta(k, eta, N, n, g) <= d
        g_up = g * (1 + 1e-6)   # a slightly larger gamma (hence k) breaks the delta target
        assert dm.delta(dm.k_for_epsilon_paper(eps, eta, N, n, g_up), eta, N, n, g_up) > d


def test_dirichlet_theorem1_delta_grows_with_gamma():
    # the calibration's premise: delta(k(gamma), gamma) increases along the eps-level set
    eta, N, n = 5 / 98, 98, 5
    for eps in (4.0, 8.0):
        gs = np.geomspace(1e-10, 0.9 / n, 80)
        gs = gs[dm.epsilon_star_paper(eta, N, n, gs) < eps]      # where eps is reachable
        assert len(gs) > 20
        ds = [dm.delta(dm.k_for_epsilon_paper(eps, eta, N, n, g), eta, N, n, g) for g in gs]
        ds = np.array(ds)
        assert np.all(np.diff(ds[ds < 1]) > 0)


def test_dirichlet_theorem1_infeasible_targets_raise():
    with pytest.raises(ValueError, match="epsilon_star"):
        bl.dirichlet_k_theorem1(0.5, 1e-6, 5 / 98, 98, 5)
    with pytest.raises(ValueError, match="no gamma gives delta"):
        bl.dirichlet_k_theorem1(4.0, 1e-6, 5 / 98, 98, 5)


# --------------------------------------------------------------- input checks
@pytest.mark.parametrize("bad_eps", [0.0, -1.0, np.nan, np.inf])
def test_bad_epsilon(bad_eps):
    for f in (bl.laplace_clip_comparison, bl.laplace_project_comparison, bl.geometric_clip, bl.geometric_project):
        with pytest.raises(ValueError, match="epsilon"):
            f(COUNTS, bad_eps)
    with pytest.raises(ValueError, match="epsilon"):
        bl.gaussian_project_comparison(COUNTS, bad_eps, 1e-6)
    with pytest.raises(ValueError, match="epsilon"):
        bl.analytic_gaussian_sigma(bad_eps, 1e-6)
    with pytest.raises(ValueError, match="epsilon"):
        bl.laplace_scale(bad_eps)
    with pytest.raises(ValueError, match="epsilon"):
        bl.geometric_ratio(bad_eps)
    with pytest.raises(ValueError, match="epsilon"):
        bl.dirichlet_k_theorem1(bad_eps, 1e-6, 0.05, 98, 5)


@pytest.mark.parametrize("bad_delta", [0.0, 1.0, -0.1, 1.5, np.nan])
def test_bad_delta(bad_delta):
    with pytest.raises(ValueError, match="delta"):
        bl.analytic_gaussian_sigma(1.0, bad_delta)
    with pytest.raises(ValueError, match="delta"):
        bl.gaussian_project_comparison(COUNTS, 1.0, bad_delta)
    with pytest.raises(ValueError, match="delta"):
        bl.dirichlet_k_theorem1(8.0, bad_delta, 0.05, 98, 5)


@pytest.mark.parametrize("bad,match", [([3, -1, 2], ">= 0"), ([3, 1.5, 2], "whole"),
                                       ([3, np.nan, 2], "finite"), ([0, 0, 0], "sums to 0"),
                                       (5, "array of counts"), ([[1, 2], [0, 0]], "sums to 0"),
                                       ([4], "categories")])
def test_bad_counts(bad, match):
    for f in MECHS.values():
        with pytest.raises(ValueError, match=match):
            f(bad, rng=0)


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="sensitivity"):
        bl.laplace_scale(1.0, 0.0)
    with pytest.raises(ValueError, match="sensitivity"):
        bl.analytic_gaussian_sigma(1.0, 1e-6, -1.0)
    with pytest.raises(ValueError, match="sigma"):
        bl.analytic_gaussian_delta(0.0, 1.0)
    with pytest.raises(ValueError, match="size"):
        bl.laplace_clip_comparison(COUNTS, 1.0, size=-2)
    with pytest.raises(TypeError, match="rng"):
        bl.laplace_project_comparison(COUNTS, 1.0, rng="seed")
    with pytest.raises(ValueError, match="finite"):
        bl.project_to_simplex([0.2, np.nan])
    with pytest.raises(ValueError, match="vectors"):
        bl.project_to_simplex(0.3)
    with pytest.raises(ValueError, match="vectors"):
        bl.clip_to_simplex(0.3)
    with pytest.raises(ValueError, match="eta"):
        bl.dirichlet_k_theorem1(8.0, 1e-6, 0.3, 98, 5)
    with pytest.raises(ValueError, match="N"):
        bl.dirichlet_k_theorem1(8.0, 1e-6, 0.05, 98.5, 5)


# ------------------------------------------------------------- Markov chains
def test_privatize_rows_public_support_and_seeds():
    counts = np.array([[5, 0, 3, 2], [0, 7, 0, 0], [1, 1, 1, 1], [0, 4, 9, 0]])
    support = np.array([[1, 1, 1, 1], [0, 1, 0, 0], [1, 1, 1, 1], [0, 1, 1, 0]], bool)
    for mech, args in [(bl.geometric_project, (1.0,)), (bl.gaussian_project_comparison, (1.0, 1e-6)),
                       (bl.geometric_clip, (2.0,)), (bl.laplace_clip_comparison, (0.5,))]:
        P = bl.privatize_rows(counts, mech, *args, support=support, rng=0, size=200)
        assert P.shape == (200, 4, 4)
        assert np.all(dm.in_simplex(P))
        assert np.all(P[:, ~support] == 0)                 # outside the public support: 0
        assert np.all(P[:, 1, 1] == 1)                     # a one-transition row is public
        # a zero inside the support is released like any count: it gets mass sometimes
        assert np.mean(P[:, 0, 1] > 0) > 0.01
        assert np.array_equal(P, bl.privatize_rows(counts, mech, *args, support=support,
                                                   rng=0, size=200))
        single = bl.privatize_rows(counts, mech, *args, support=support, rng=3)
        assert single.shape == (4, 4) and np.all(dm.in_simplex(single))
    big = bl.privatize_rows(counts * 1000, bl.geometric_project, 1.0, support=support,
                            rng=1, size=2000)
    se = big[:, 2, 0].std(ddof=1) / np.sqrt(2000)        # row 2 is symmetric: mean 1/4
    assert abs(big[:, 2, 0].mean() - 0.25) < Z_SE * se


def test_privatize_rows_support_all_releases_every_entry():
    counts = np.array([[5, 0, 3, 2], [0, 7, 0, 0], [1, 1, 1, 1], [0, 4, 9, 0]])
    P = bl.privatize_rows(counts, bl.geometric_project, 0.5, support="all", rng=0, size=4000)
    assert P.shape == (4000, 4, 4) and np.all(dm.in_simplex(P))
    # unobserved entries get mass in some releases: the zero pattern is no longer published
    assert np.all(np.mean(P[:, counts == 0] > 0, axis=0) > 0.01)
    assert np.mean(P[:, 1, 1] < 1) > 0.01                  # a one-transition row is now private
    # each row is exactly the mechanism applied to the full row (same generator stream)
    for i in range(4):
        alone = bl.privatize_rows(counts[i:i + 1], bl.geometric_project, 0.5, support="all",
                                  rng=5, size=300)[:, 0]
        assert np.array_equal(alone, bl.geometric_project(counts[i], 0.5, rng=5, size=300))


def test_privatize_rows_bad_inputs():
    ok = np.ones((2, 2), bool)
    with pytest.raises(ValueError, match="matrix"):
        bl.privatize_rows([1, 2, 3], bl.geometric_project, 1.0, support="all")
    with pytest.raises(ValueError, match="sums to 0"):
        bl.privatize_rows([[1, 2], [0, 0]], bl.geometric_project, 1.0, support=ok)
    with pytest.raises(TypeError, match="mechanism"):
        bl.privatize_rows([[1, 2], [3, 4]], "laplace", 1.0, support=ok)
    with pytest.raises(ValueError, match="epsilon"):
        bl.privatize_rows([[1, 2], [3, 4]], bl.geometric_project, -1.0, support=ok)
    with pytest.raises(TypeError, match="support"):          # no default: fixed in advance
        bl.privatize_rows([[1, 2], [3, 4]], bl.geometric_project, 1.0)
    for bad in ("observed", "feasible"):                      # read off the data: not allowed
        with pytest.raises(ValueError, match="support"):
            bl.privatize_rows([[1, 2], [3, 4]], bl.geometric_project, 1.0, support=bad)
    with pytest.raises(TypeError, match="support"):
        bl.privatize_rows([[1, 2], [3, 4]], bl.geometric_project, 1.0, support=[[1, 1], [1, 1]])
    with pytest.raises(ValueError, match="shape"):
        bl.privatize_rows([[1, 2], [3, 4]], bl.geometric_project, 1.0, support=np.ones(2, bool))
    with pytest.raises(ValueError, match=r"counts\[1, 0\]=3 lies outside the support"):
        bl.privatize_rows([[1, 2], [3, 4]], bl.geometric_project, 1.0,
                          support=np.array([[1, 1], [0, 1]], bool))


# ------------------------------------------- the floating-point attack (Mironov 2012)
def _replica_matches_numpy(n_draws: int, seed: int, scale: float) -> bool:
    raw = np.random.default_rng(seed).bit_generator.random_raw(n_draws) >> np.uint64(11)
    lap = np.random.default_rng(seed).laplace(0.0, scale, size=n_draws)
    return bool(np.array_equal(bl.numpy_laplace_noise(raw.astype(np.int64), scale), lap))


def test_attack_replica_is_numpy_laplace_bit_for_bit():
    # the attack reasons about the exact doubles numpy returns: the replica must give them
    # all.  A replica on np.log instead of the C library's log (math.log) differs in the
    # last bit for ~0.3% of draws under AVX-512 dispatch, so 200,000 draws catch it there
    assert _replica_matches_numpy(200_000, 11, 20.0)
    assert _replica_matches_numpy(50_000, 12, 0.37)


def test_attack_replica_is_exact_under_numpy_baseline_dispatch():
    # the same check in a process with numpy's SIMD cut to the baseline: the replica may
    # not depend on which dispatch numpy takes (scripts/baseline_dispatch.py names the
    # features to disable on this machine)
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    disable = subprocess.run([sys.executable, str(root / "scripts" / "baseline_dispatch.py")],
                             capture_output=True, text=True, check=True).stdout.strip()
    code = ("import numpy as np, dpmarkov.baselines as bl\n"
            "raw = np.random.default_rng(11).bit_generator.random_raw(200_000) >> np.uint64(11)\n"
            "lap = np.random.default_rng(11).laplace(0.0, 20.0, size=200_000)\n"
            "assert np.array_equal(bl.numpy_laplace_noise(raw.astype(np.int64), 20.0), lap)\n"
            "from numpy._core._multiarray_umath import __cpu_features__ as f\n"
            "print(sorted(k for k, v in f.items() if v))")
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=disable)
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_replica_refuses_draws_numpy_cannot_make():
    with pytest.raises(ValueError, match="k=0.0 must be >= 1"):
        bl.numpy_laplace_noise([0, 1], 1.0)
    with pytest.raises(ValueError, match="exceeds 2"):
        bl.numpy_laplace_noise(2 ** 53, 1.0)
    with pytest.raises(ValueError, match="scale"):
        bl.numpy_laplace_noise(3, 0.0)


def test_attack_rules_out_the_neighbour_for_float_laplace_only():
    # epsilon = 0.1, count 10: the share of float-Laplace outputs from 10 that no draw
    # could produce from 9 or from 11 (binomial, 20,000 outputs: SE <= 0.0035)
    y = bl.laplace_counts_comparison([10, 10], 0.1, rng=21, size=20_000)[:, 0]
    assert not np.any(bl.laplace_float_attack(y, 10, 0.1))       # the true count: never
    for neighbour in (9, 11):
        rate = bl.laplace_float_attack(y, neighbour, 0.1).mean()
        assert 0.65 < rate < 0.75, rate                          # about 70% (issue 10)
    # the releasing mechanism: integer outputs, every integer possible from every count,
    # so no output rules out anything; the attack's success rate is exactly 0
    g = bl.geometric_counts([10, 10], 0.1, rng=21, size=20_000)[:, 0]
    assert np.all(g == np.round(g))
    assert np.all(np.abs(g) < 2 ** 53)


def test_releasing_functions_have_integer_noise():
    # every public release whose name does not say "comparison" adds whole numbers
    releases = [name for name in bl.__all__ if name.endswith("_counts")]
    assert releases == ["geometric_counts"]
    for eps in (0.1, 1.0, 7.3):
        noisy = bl.geometric_counts(COUNTS, eps, rng=2, size=1000)
        assert np.all(noisy == np.round(noisy))


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 7.3])
def test_discrete_laplace_sampler_matches_its_pmf(eps):
    # chi-square goodness of fit against P(Z = z) = (1-a)/(1+a) a^|z|, a = exp(-s/t);
    # bins with expected count >= 5 plus two tail bins; reject at p < 1e-6 (a correct
    # sampler fails with probability 1e-6; a wrong ratio, e.g. the old exp(-eps) or a
    # one-sided geometric, fails by hundreds of standard deviations at m = 200,000)
    from scipy.stats import chi2
    s, t = bl.discrete_laplace_parameter(eps)
    assert s / t <= eps / 2 < s / t + 2.0 ** -30
    a = np.exp(-s / t)
    m = 200_000
    z = (bl.geometric_counts([5, 5], eps, rng=31, size=m // 2) - 5).ravel().astype(int)
    zmax = int(np.floor(np.log(5 * (1 + a) / (m * (1 - a))) / np.log(a))) if a > 0 else 0
    zs = np.arange(-zmax, zmax + 1)
    p = (1 - a) / (1 + a) * a ** np.abs(zs)
    tail = (1 - p.sum()) / 2
    obs = np.array([np.sum(z < -zmax)] + [np.sum(z == v) for v in zs] + [np.sum(z > zmax)])
    exp = m * np.concatenate([[tail], p, [tail]])
    keep = exp > 0
    stat = np.sum((obs[keep] - exp[keep]) ** 2 / exp[keep])
    assert stat < chi2.isf(1e-6, keep.sum() - 1), (stat, keep.sum())


class _ScriptedGenerator:
    """Returns scripted integers: first the array for the sized call, then one per scalar call."""

    def __init__(self, first, then=()):
        self.first, self.then = np.asarray(first, np.int64), list(then)

    def integers(self, low, high, size=None):
        if size is not None:
            assert (low, high) == (0, factorial(20)) and np.shape(self.first) == np.shape(
                np.empty(size))
            return self.first.copy()
        value = self.then.pop(0)
        assert 0 <= value < high
        return value


def test_bernoulli_exp1_reads_the_cks_loop_off_one_integer():
    # CKS's loop at gamma = 1 passes its j-th test with probability 1/j, so K > j has
    # probability 1/j!: K - 1 = #{j : W < 20!/j!}, and the draw is K odd.  At W = 20!/j! - 1
    # the loop runs to K = j + 1, at W = 20!/j! to K = j (a cut off by one, or a parity
    # flipped, fails here)
    js = np.arange(1, 21)
    W = np.concatenate([factorial(20) // np.array([factorial(j) for j in js], object) - 1,
                        factorial(20) // np.array([factorial(j) for j in js[1:]], object)])
    W = W.astype(np.int64)
    expected = np.concatenate([(js + 1) % 2 == 1, js[1:] % 2 == 1])
    # W = 0 only for j = 20 (K > 20): the loop goes on, Bernoulli(1/21) passes (0), 1/22
    # fails (5): K = 22, even
    then = [0, 5]
    expected[19] = False
    gen = _ScriptedGenerator(W, then)
    got = geometric._bernoulli_exp1(gen, W.shape)
    assert np.array_equal(got, expected) and gen.then == []       # both extra tests drawn
    # and the law: P(odd) = exp(-1) within 5 standard errors
    b = geometric._bernoulli_exp1(np.random.default_rng(8), 400_000)
    assert abs(b.mean() - np.exp(-1)) < Z_SE * np.sqrt(np.exp(-1) * (1 - np.exp(-1)) / b.size)


def test_exact_bernoulli_and_geometric_laws():
    # Bernoulli(exp(-num/den)) at several num/den, and V ~ P(V = v) = (1 - 1/e) e^-v by a
    # chi-square test (reject at p < 1e-6; a wrong ratio, e.g. 1/2 per step, fails by far)
    from scipy.stats import chi2
    gen = np.random.default_rng(12)
    for num, den in [(0, 5), (3, 7), (7, 7), (1, 2 ** 30)]:
        b = geometric._bernoulli_exp(gen, np.full(200_000, num), den)
        p = np.exp(-num / den)
        assert abs(b.mean() - p) <= Z_SE * np.sqrt(p * (1 - p) / b.size) + 1e-15
    V = geometric._geometric_exp1(gen, 200_000)
    vs = np.arange(10)
    expect = V.size * np.append((1 - np.exp(-1)) * np.exp(-vs), np.exp(-10.0))
    obs = np.append([np.sum(V == v) for v in vs], np.sum(V >= 10))
    assert np.sum((obs - expect) ** 2 / expect) < chi2.isf(1e-6, len(obs) - 1)


def test_privatize_rows_releases_each_row_with_the_mechanisms_law():
    # rows with different numbers of supported entries, released in one call per width:
    # every row's mean release equals that of the mechanism on the row alone (independent
    # seeds; 5 standard errors of the difference)
    counts = np.array([[50, 0, 30, 20], [0, 7, 0, 9], [10, 10, 10, 10], [0, 40, 90, 0]])
    P = bl.privatize_rows(counts, bl.geometric_project, 1.0, support=counts > 0, rng=6,
                          size=4000)
    for i, row in enumerate(counts):
        cols = row > 0
        alone = bl.geometric_project(row[cols], 1.0, rng=100 + i, size=4000)
        diff = P[:, i, cols].mean(axis=0) - alone.mean(axis=0)
        se = np.sqrt(P[:, i, cols].var(axis=0, ddof=1) / 4000 + alone.var(axis=0, ddof=1) / 4000)
        assert np.all(np.abs(diff) <= Z_SE * se + 1e-12), (i, diff, se)


def test_discrete_laplace_parameter_bounds():
    assert bl.discrete_laplace_parameter(1.0) == (1, 2)
    assert bl.discrete_laplace_parameter(8.0) == (4, 1)
    s, t = bl.discrete_laplace_parameter(0.1)
    assert s * 20 <= t and t == 2 ** 30 // np.gcd(s, 2 ** 30)
    with pytest.raises(ValueError, match="2\\^-29"):
        bl.discrete_laplace_parameter(1e-10)
    assert bl.discrete_laplace_parameter(1e300) == (2 ** 30, 1)


# ------------------------------------------------------- input policy (issue 10)
@pytest.mark.parametrize("bad", [1.7, "3", True, (2, 1.5), np.float64(2.0)])
def test_size_must_be_whole_numbers(bad):
    for f in MECHS.values():
        with pytest.raises(TypeError, match="size"):
            f(COUNTS, rng=0, size=bad)


def test_rng_bool_is_rejected():
    for f in MECHS.values():
        for bad in (True, False):
            with pytest.raises(TypeError, match="rng"):
                f(COUNTS, rng=bad)


def test_projection_and_clip_stay_on_the_simplex_for_huge_entries():
    for v in ([1e308, 1e308], [1e308, -1e308, 5.0], [-1e308, -1e308], [1.7e308, 1e308, 0.0],
              [1e300, 1e300 + 1e285, -3.0]):
        for f in (bl.project_to_simplex, bl.clip_to_simplex):
            x = f(v)
            assert np.all(np.isfinite(x)) and np.all(x >= 0), (f.__name__, v, x)
            assert abs(x.sum() - 1) < 1e-12, (f.__name__, v, x)
    assert np.allclose(bl.project_to_simplex([1e308, 1e308]), [0.5, 0.5])
    assert np.allclose(bl.project_to_simplex([1e308, -1e308, 5.0]), [1, 0, 0])
    # translation invariance of the projection, exactly what the shift relies on
    rng = np.random.default_rng(4)
    V = rng.normal(0, 1, (200, 5))
    assert np.allclose(bl.project_to_simplex(V + 1e6), bl.project_to_simplex(V), atol=1e-9)


def test_theorem1_calibration_is_sound_for_two_categories():
    # n = 2: eq. (6) as printed understates the loss; the calibration must use the sound
    # epsilon, so the sound epsilon at the returned (k, gamma) meets the target (the old
    # calibration by eq. (6) gave a k whose sound epsilon exceeds it)
    eta, N = 6 / 77, 77
    for eps, d in [(3.0, 1e-3), (6.0, 1e-6)]:
        k, g = bl.dirichlet_k_theorem1(eps, d, eta, N, 2)
        assert dm.epsilon(k, eta, N, 2, g) <= eps
        assert dm.epsilon(k, eta, N, 2, g) > eps * (1 - 1e-9)
        assert dm.delta(k, eta, N, 2, g) <= d
        assert dm.epsilon_paper(k, eta, N, 2, g) < eps            # the paper's is smaller
    for eps, d in [(8.0, 1e-6), (4.0, 1e-3)]:                     # and never above, n = 5
        k, g = bl.dirichlet_k_theorem1(eps, d, 5 / 98, 98, 5)
        assert dm.epsilon(k, 5 / 98, 98, 5, g) <= eps


def test_dirichlet_tight_calibration_meets_delta_and_is_largest():
    from dpmarkov.profile import privacy_profile
    for eps, N, n, m in [(1.0, 212, 5, 12), (4.0, 212, 5, 12), (0.5, 14000, 5, 30),
                         (8.0, 60, 3, 10)]:
        k = bl.dirichlet_k_tight(eps, 1e-6, N, n, m)
        assert privacy_profile(eps, k, N, n, m) <= 1e-6
        assert privacy_profile(eps, k * (1 + 1e-7), N, n, m) > 1e-6
        # the premise: the profile grows with k on the searched range
        ks = np.geomspace(max(1.0, eps * N / 500), 5 * k, 40)
        prof = np.array([privacy_profile(eps, kk, N, n, m) for kk in ks])
        assert np.all(np.diff(prof) > 0)
    # tight beats Theorem 1: a larger k at the same (epsilon, delta)
    k1, _ = bl.dirichlet_k_theorem1(4.0, 1e-6, 12 / 212, 212, 5)
    assert bl.dirichlet_k_tight(4.0, 1e-6, 212, 5, 12) > 5 * k1


def test_dirichlet_tight_calibration_floor_raises():
    # one record in a category: the profile stays ~1e-4 at epsilon = 8 however small k is
    with pytest.raises(ValueError, match="below the Dirichlet mechanism's profile"):
        bl.dirichlet_k_tight(8.0, 1e-6, 21, 5, 1)
    with pytest.raises(ValueError, match="delta"):
        bl.dirichlet_k_tight(1.0, 0.0, 212, 5, 12)
    with pytest.raises(ValueError, match="min_count"):
        bl.dirichlet_k_tight(1.0, 1e-6, 212, 5, 0)
    with pytest.raises(ValueError, match="epsilon"):
        bl.dirichlet_k_tight(-1.0, 1e-6, 212, 5, 12)


def test_dirichlet_tight_floor_message_quotes_the_profile_at_the_smallest_k():
    # the number in the message is the profile at k = max(1, eps N / 500), the smallest k the
    # search tries (at k -> 0 it would be e^-8/3 = 1.118e-4, at k = 1 it is 1.13e-4)
    with pytest.raises(ValueError) as err:
        bl.dirichlet_k_tight(8.0, 1e-6, 21, 5, 1)
    quoted = re.search(r"for k=1 \(([0-9.e+-]+);", str(err.value)).group(1)
    assert quoted == f"{dm.profile.privacy_profile(8.0, 1.0, 21, 5, 1):.3g}"


# The calibrations as they were before they were vectorised (commit 229e117), one row at a
# time by Brent's method over the public formulas: dpmarkov.verify.scalar_calibrations.  The
# vectorised bracketing search must return the same k to that tolerance.
def _random_designs(seed, size):
    """(N, n, m) with N >= n m + 1, m/N < 1/4 and 3 m/N + 1/N <= 1: valid for both calibrations."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < size:
        N = int(np.exp(rng.uniform(np.log(30), np.log(30000))))
        n = int(rng.integers(2, 8))
        m = int(np.exp(rng.uniform(0, np.log(N / (n + 1)))))
        if n * m + 1 <= N and 4 * m < N and 3 * m + 1 <= N:
            out.append((N, n, m))
    return out


# the chapter's cases (median MATH 221 section; Experiment 2's largest row; the smallest
# rows), then random designs: old and new calibrations agree to 3e-10 in log k, the
# bisection width plus Brent's step onto the feasible side (a wrong bracket end or
# stopping a step early would differ by far more)
CHAPTER_CASES = [(98, 5, 5), (25600, 5, 1024), (212, 5, 12), (60, 3, 10), (2792, 4, 600)]


@pytest.mark.parametrize("designs", [CHAPTER_CASES, _random_designs(3, 16)],
                         ids=["chapter", "random"])
def test_vectorised_calibrations_equal_the_scalar_brent_search(designs):
    rng = np.random.default_rng(len(designs))
    N, n, m = (np.array(v, float) for v in zip(*designs))
    for eps, d in [(1.0, 1e-6), (4.0, 1e-6), (8.0, 1e-3), (float(rng.uniform(0.5, 12)), 1e-9)]:
        k_tight = bl.dirichlet_k_tight(eps, d, N, n, m, on_unreachable="nan")
        k1, g1 = bl.dirichlet_k_theorem1(eps, d, m / N, N, n, on_unreachable="nan")
        for i, (Ni, ni, mi) in enumerate(designs):
            for new, ref in ((k_tight[i], scalar_calibrations.tight(eps, d, Ni, ni, mi)),
                             (k1[i], scalar_calibrations.theorem1(eps, d, mi / Ni, Ni, ni))):
                if ref is None:
                    assert np.isnan(new), (eps, d, designs[i], new)
                    continue
                assert abs(np.log(new / ref)) <= 3e-10 * max(1.0, abs(np.log(ref))), \
                    (eps, d, designs[i], new, ref)
            if not np.isnan(k_tight[i]):       # the returned k meets its target
                assert dm.profile.privacy_profile(eps, k_tight[i], Ni, ni, mi) <= d
            if not np.isnan(k1[i]):
                assert dm.epsilon(k1[i], mi / Ni, Ni, ni, g1[i]) <= eps
                assert dm.delta(k1[i], mi / Ni, Ni, ni, g1[i]) <= d


def test_calibrating_rows_at_once_is_calibrating_each_row():
    # every row follows its own search: the same k and gamma as alone (the rows' values
    # differ only by the last bits of a vectorised evaluation), NaN exactly where a row
    # alone raises, the broadcast shape, and "raise" names the first unreachable row
    N = np.array([[212, 21], [98, 14000]], float)
    m = np.array([[12, 1], [5, 30]], float)
    for eps in (1.0, 8.0):
        k = bl.dirichlet_k_tight(eps, 1e-6, N, 5, m, on_unreachable="nan")
        k1, g1 = bl.dirichlet_k_theorem1(eps, 1e-6, m / N, N, 5, on_unreachable="nan")
        assert k.shape == k1.shape == g1.shape == (2, 2)
        for idx in np.ndindex(N.shape):
            args = (eps, 1e-6)
            try:
                alone = bl.dirichlet_k_tight(*args, N[idx], 5, m[idx])
                assert k[idx] == pytest.approx(alone, rel=1e-12)
            except ValueError:
                assert np.isnan(k[idx])
            try:
                alone_k, alone_g = bl.dirichlet_k_theorem1(*args, m[idx] / N[idx], N[idx], 5)
                assert (k1[idx], g1[idx]) == pytest.approx((alone_k, alone_g), rel=1e-12)
            except ValueError:
                assert np.isnan(k1[idx]) and np.isnan(g1[idx])
    with pytest.raises(ValueError, match="N=21, n=5, min_count=1"):
        bl.dirichlet_k_tight(1.0, 1e-6, N, 5, m)
    with pytest.raises(ValueError, match="N=21, n=5"):
        bl.dirichlet_k_theorem1(8.0, 1e-6, m / N, N, 5)
    with pytest.raises(ValueError, match="on_unreachable"):
        bl.dirichlet_k_tight(1.0, 1e-6, 212, 5, 12, on_unreachable="skip")
    with pytest.raises(ValueError, match="broadcast"):
        bl.dirichlet_k_tight(1.0, 1e-6, [212, 98], 5, [12, 5, 3])
    assert isinstance(bl.dirichlet_k_tight(1.0, 1e-6, 212, 5, 12), float)
    assert bl.dirichlet_k_tight(1.0, 1e-6, np.empty(0), 5, 3).shape == (0,)


def test_bracketing_search_returns_the_largest_feasible_point():
    # gap(x) = x - root (smooth) and a step function with a floor of -1e300 below the root
    # (interpolation useless: the search must fall back to halving): the result is <= the
    # root, within the 1e-10 width, for every row at once, with a bracket to widen first
    roots = np.array([0.3, 2.0, 7.77, 50.0, 1e-9])
    lo = np.zeros(roots.size)
    for shape in (lambda x, r: x - roots[r],
                  lambda x, r: np.where(x <= roots[r], -1e300, 1.0)):
        out = calibration._largest_feasible_log_k(shape, lo, shape(lo, np.arange(5)), 1.0, 1.0)
        assert np.all(out <= roots) and np.all(roots - out <= 1e-10), out - roots


# ------------------------------------- the calibration's optimality, certified (arb)
def test_theorem1_calibration_certified_by_interval_arithmetic(monkeypatch):
    # rigorous: the returned pair meets both targets, and no k in (k, 10 k] is admissible
    cert = bl.certify_theorem1_calibration(8.0, 1e-6, 5 / 98, 98, 5, k_max_factor=10,
                                           rel_width=1e-2)
    assert cert["k"] == bl.dirichlet_k_theorem1(8.0, 1e-6, 5 / 98, 98, 5)[0]
    assert cert["intervals"] >= 230
    cert2 = bl.certify_theorem1_calibration(3.0, 1e-3, 6 / 77, 77, 2, k_max_factor=10,
                                            rel_width=1e-2)
    assert cert2["k_range"][1] == pytest.approx(10 * cert2["k"])
    # power: a calibration that stopped short (half the k) is not certified, because
    # the k between it and the true optimum are admissible
    true = bl.dirichlet_k_theorem1

    def short(*args):
        k, g = true(*args)
        k2 = 0.9 * k
        eps, _, eta, N, n = args
        return k2, float(1 / (np.exp((eps - (dm.epsilon(k2, eta, N, n, 0.1) - k2 / N
                                             * np.log(n + 1))) * N / k2) + n - 1))
    monkeypatch.setattr(calibration, "dirichlet_k_theorem1", short)   # what certify calls
    with pytest.raises(ArithmeticError):
        bl.certify_theorem1_calibration(8.0, 1e-6, 5 / 98, 98, 5, k_max_factor=10,
                                        rel_width=1e-2)


# ------------------------------------------------------ big requests fail fast (issue 27)
def test_big_requests_are_refused_before_any_work(work):
    # certify_theorem1_calibration(6229865, 0.5, 0.038, 373, 4) ran past 14 s of CPU (3.7e6
    # calls): its work (intervals x series terms) is estimated first; geometric_clip at size
    # 3.6e12 raised MemoryError: the release (3.6e12 x 5 numbers) is refused before drawing.
    # Work counted, no clock (all five refusals: 2e4 calls, 36 MB, the estimate's arrays)
    with work(calls=100_000, memory=64 * 2**20):
        with pytest.raises(ValueError, match="epsilon=6229865.*k_max_factor.*rel_width"):
            bl.certify_theorem1_calibration(6229865, 0.5, 0.038, 373, 4)
        for sampler in (bl.geometric_clip, bl.geometric_counts, bl.geometric_project,
                        bl.laplace_clip_comparison):
            with pytest.raises(ValueError, match="size=3600000000000 asks for 18000000000000"):
                sampler([3, 4, 5, 6, 7], 1.0, size=3_600_000_000_000)
    # a certificate within the budget still runs (and the sampler at a size that fits)
    assert bl.certify_theorem1_calibration(5.0, 0.01, 0.2, 75, 3, k_max_factor=2.0,
                                           rel_width=0.05)["k"] > 0
    assert bl.geometric_counts([3, 4, 5], 1.0, size=(2, 3), rng=0).shape == (2, 3, 3)


def test_scalar_parameters_given_arrays_name_the_parameter():
    # no numpy conversion message ("only 0-dimensional arrays ...") reaches a user
    for call, name in ((lambda: bl.laplace_scale(1.0, [1.0, 2.0]), "sensitivity"),
                       (lambda: bl.geometric_ratio(1.0, [1.0, 2.0]), "sensitivity"),
                       (lambda: bl.analytic_gaussian_sigma(1.0, 1e-5, [1.0, 2.0]), "sensitivity"),
                       (lambda: dm.k_for_epsilon(0.01, 0.2, 75, 3, 1e-3), "epsilon_target")):
        with pytest.raises(ValueError, match=name):
            call()
