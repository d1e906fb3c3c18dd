"""Cost of one privatization with each mechanism of dpmarkov.baselines, against plain numpy.

For each mechanism and each shape (a grade distribution with n = 5 categories, a taxi-sized
row with n = 60, a batch of 1,000 releases of the n = 5 row) we time the dpmarkov call and,
in the same run, a bare numpy version of the same computation (noise draw, then the same
post-processing written inline, no input checks), and print the ratio dpmarkov / numpy.
The geometric release uses an exact integer sampler (Canonne, Kamath & Steinke 2020); its
numpy column is the inexact float-based difference of two numpy geometrics, so its ratio
is the price of exactness, not overhead.
The Dirichlet mechanism (``dm.privatize``) is timed against ``Generator.dirichlet``.
The Gaussian sigma is computed once (and cached) for both columns; its bisection is
timed separately, uncached, on the last line.

Usage: .venv/bin/python benchmarks/bench_baselines.py
"""
from __future__ import annotations

import time

import numpy as np

import dpmarkov as dm
from dpmarkov import baselines as bl

EPS, DELTA, K = 1.0, 1e-6, 200.0


def best_time(fn, repeat=5, min_total=0.05):
    """Best per-call time over ``repeat`` rounds of enough calls to last ``min_total`` s."""
    calls = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        if time.perf_counter() - t0 >= min_total / repeat:
            break
        calls *= 2
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def np_project(v):
    """Sort-based simplex projection, bare numpy (the reference for project_to_simplex)."""
    u = -np.sort(-v, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    j = np.arange(1, v.shape[-1] + 1)
    rho = v.shape[-1] - np.argmax((u - css / j > 0)[..., ::-1], axis=-1)
    theta = np.take_along_axis(css, (rho - 1)[..., None], axis=-1) / rho[..., None]
    return np.maximum(v - theta, 0.0)


def np_clip(v):
    x = np.maximum(v, 0.0)
    t = x.sum(axis=-1, keepdims=True)
    return np.where(t == 0, 1.0 / v.shape[-1], x / np.where(t == 0, 1.0, t))


def main():
    rng = np.random.default_rng(0)
    grade = np.array([30.0, 35, 20, 8, 5])
    taxi = rng.integers(1, 400, size=60).astype(float)
    sigma = bl.analytic_gaussian_sigma(EPS, DELTA)
    b = 2 / EPS
    p = 1 - np.exp(-EPS / 2)
    cases = [("n=5", grade, None), ("n=60", taxi, None), ("n=5 x1000", grade, 1000)]
    gen = np.random.default_rng(1)

    def shape(c, size):
        return c.shape if size is None else (size,) + c.shape

    rows = []
    for label, c, size in cases:
        N = c.sum()
        alpha = K * c / N
        mechs = {
            "laplace_clip_comparison": (
                lambda: bl.laplace_clip_comparison(c, EPS, rng=gen, size=size),
                             lambda: np_clip(c + gen.laplace(0, b, shape(c, size)))),
            "laplace_project_comparison": (
                lambda: bl.laplace_project_comparison(c, EPS, rng=gen, size=size),
                                lambda: np_project((c + gen.laplace(0, b, shape(c, size))) / N)),
            # exact integer sampler (CKS 2020) vs numpy's float-based geometric difference
            "geometric_project (exact)": (
                lambda: bl.geometric_project(c, EPS, rng=gen, size=size),
                lambda: np_project((c + gen.geometric(p, shape(c, size))
                                    - gen.geometric(p, shape(c, size))) / N)),
            "gaussian_project_comparison": (
                lambda: bl.gaussian_project_comparison(c, EPS, DELTA, rng=gen, size=size),
                lambda: np_project((c + gen.normal(0, sigma, shape(c, size))) / N)),
            "dirichlet (dm.privatize)": (
                lambda: dm.privatize(c, K, rng=gen, size=size),
                lambda: gen.dirichlet(alpha, size=size)),
        }
        for name, (ours, plain) in mechs.items():
            t_ours, t_np = best_time(ours), best_time(plain)
            rows.append((label, name, t_ours, t_np))
    # the bisection itself (analytic_gaussian_sigma caches it per (eps, delta, D))
    t_sigma = best_time(lambda: bl._gaussian_sigma.__wrapped__(EPS, DELTA, bl.L2_SENSITIVITY))

    print(f"dpmarkov.baselines: time per privatization call (best of 5), epsilon={EPS}, "
          f"delta={DELTA}, Dirichlet k={K}")
    print(f"{'shape':<11}{'mechanism':<42}{'dpmarkov':>12}{'numpy':>12}{'ratio':>8}")
    for label, name, t_ours, t_np in rows:
        print(f"{label:<11}{name:<42}{t_ours * 1e6:>10.1f}us{t_np * 1e6:>10.1f}us"
              f"{t_ours / t_np:>8.2f}")
    print(f"analytic_gaussian_sigma, uncached bisection (paid once per (eps, delta)): "
          f"{t_sigma * 1e6:.0f}us")


if __name__ == "__main__":
    main()
