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
timed separately, uncached.

Two more tables (issue 15): ``privatize_rows`` on a 58 x 58 chain whose rows have 6 to 58
supported entries (200 releases, geometric noise), against bare numpy (float geometric
differences on every supported entry at once, each row projected alone); and the two
Dirichlet calibrations of 72 rows (N = 50-20,000, n = 5, smallest count N/25) at
(epsilon, 1e-6): all rows in one vectorised call, one call per row, and the search they
replace (one Brent search per row over the checked public formulas, kept as
``dpmarkov.verify.scalar_calibrations``).

Usage: .venv/bin/python benchmarks/bench_baselines.py
"""
from __future__ import annotations

import time

import numpy as np

import dpmarkov as dm
from dpmarkov import baselines as bl
from dpmarkov.baselines import gaussian as bl_gaussian
from dpmarkov.verify import scalar_calibrations  # the per-row Brent search replaced

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


def rows_and_calibrations():
    """privatize_rows on a chain with ragged supports; both calibrations of 72 rows."""
    rng = np.random.default_rng(2)
    n = 58
    width = rng.integers(6, n + 1, size=n)
    counts = np.zeros((n, n))
    for i, w in enumerate(width):
        counts[i, rng.choice(n, w, replace=False)] = rng.integers(15, 400, size=w)
    support = counts > 0
    gen = np.random.default_rng(3)
    p = 1 - np.exp(-EPS / 2)

    def numpy_rows():
        v = np.full((200, n, n), -np.inf)
        N = counts.sum(axis=1, keepdims=True)
        noise = gen.geometric(p, (200, support.sum())) - gen.geometric(p, (200, support.sum()))
        v[:, support] = (counts[support] + noise) / np.broadcast_to(N, counts.shape)[support]
        out = np.zeros_like(v)
        for i in range(n):
            out[:, i, support[i]] = np_project(v[:, i, support[i]])
        return out

    t_rows = best_time(lambda: bl.privatize_rows(counts, bl.geometric_project, EPS,
                                                 support=support, rng=gen, size=200), repeat=3)
    t_np = best_time(numpy_rows, repeat=3)
    N = np.round(np.geomspace(50, 20000, 72))
    m = np.ceil(N / 25)
    table = []
    for eps in (1.0, 4.0):
        for name, vec, one, old in (
                ("dirichlet_k_tight", lambda: bl.dirichlet_k_tight(eps, DELTA, N, 5, m,
                                                                   on_unreachable="nan"),
                 lambda i: bl.dirichlet_k_tight(eps, DELTA, N[i], 5, m[i]),
                 lambda i: scalar_calibrations.tight(eps, DELTA, N[i], 5, m[i])),
                ("dirichlet_k_theorem1", lambda: bl.dirichlet_k_theorem1(
                    eps, DELTA, m / N, N, 5, on_unreachable="nan"),
                 lambda i: bl.dirichlet_k_theorem1(eps, DELTA, m[i] / N[i], N[i], 5),
                 lambda i: scalar_calibrations.theorem1(eps, DELTA, m[i] / N[i], N[i], 5))):
            def each(f=one):
                for i in range(N.size):
                    try:
                        f(i)
                    except ValueError:
                        pass
            t_vec = best_time(vec, repeat=3)
            t_each = best_time(each, repeat=3)
            t_old = best_time(lambda: [old(i) for i in range(N.size)], repeat=3)
            table.append((name, eps, t_vec, t_each, t_old))
    return t_rows, t_np, table


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
    t_sigma = best_time(lambda: bl_gaussian._gaussian_sigma.__wrapped__(EPS, DELTA, bl.L2_SENSITIVITY))

    print(f"dpmarkov.baselines: time per privatization call (best of 5), epsilon={EPS}, "
          f"delta={DELTA}, Dirichlet k={K}")
    print(f"{'shape':<11}{'mechanism':<42}{'dpmarkov':>12}{'numpy':>12}{'ratio':>8}")
    for label, name, t_ours, t_np in rows:
        print(f"{label:<11}{name:<42}{t_ours * 1e6:>10.1f}us{t_np * 1e6:>10.1f}us"
              f"{t_ours / t_np:>8.2f}")
    print(f"analytic_gaussian_sigma, uncached bisection (paid once per (eps, delta)): "
          f"{t_sigma * 1e6:.0f}us")
    t_rows, t_np, table = rows_and_calibrations()
    print(f"privatize_rows(geometric_project), 58 x 58 chain, ragged supports, 200 releases: "
          f"{t_rows * 1e3:.1f}ms; numpy {t_np * 1e3:.1f}ms; ratio {t_rows / t_np:.2f}")
    print(f"calibrating 72 rows at (eps, {DELTA:g}): all at once, one call per row, and one "
          "Brent search per row (before)")
    print(f"{'function':<22}{'eps':>5}{'all rows':>11}{'per row':>11}{'Brent':>11}"
          f"{'Brent/all':>11}")
    for name, eps, t_vec, t_each, t_old in table:
        print(f"{name:<22}{eps:>5g}{t_vec * 1e3:>9.1f}ms{t_each * 1e3:>9.1f}ms"
              f"{t_old * 1e3:>9.1f}ms{t_old / t_vec:>11.1f}")


if __name__ == "__main__":
    main()
