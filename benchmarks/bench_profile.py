"""Benchmark: the tight privacy profile (issue 15, first bullet); not part of the tests.

Run with ``PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_profile.py``.

Times, in CPU seconds of the process (``time.process_time``: the machine is shared, wall
time mostly measures the queue for a core), the best of ``REPEATS`` runs of

- ``dm.privacy_profile(1.0, k, N, n, m)`` and ``dm.epsilon_for_delta(1e-6, k, N, n, m)``
  (branch and bound for n = 2, the pair (m, m + 1) for n >= 3);
- the full scan they replaced (``dpmarkov.verify.bruteforce.profile_scan`` and
  ``epsilon_for_delta_scan``: every adjacent pair, Brent's method on the scan);
- a plain scipy scan: ``gammaln`` for the data term and two ``betainc`` for the Beta tails
  over every pair, vectorised, no checks and no log-space tails (and Brent's method on it);

at m = ceil(0.1 N) and k/N = 0.015 (k = 1500 at N = 1e5, the design of bench_privacy.py
(c)), for N = 1e4 ... 1e9, and on the hardest case met in the tests, k = N = 1e9 with m
near N/2 (a nearly flat profile).  A scan of 8e8 pairs is not run: its time is the time
at N = 1e6 times 1000 (the scan is linear in N - 2m), marked "extrapolated".  Old
``epsilon_for_delta`` above N = 1e5 is likewise the number of scans Brent needs times one
scan.  Values are compared as well (new against the scan: relative difference).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import math  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from scipy.optimize import brentq  # noqa: E402
from scipy.special import betainc, expit, gammaln  # noqa: E402

import dpmarkov as dm  # noqa: E402
from dpmarkov.verify import bruteforce as bf  # noqa: E402

REPEATS = 3


def best_of(func, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        t = time.process_time()
        value = func()
        times.append(time.process_time() - t)
    return min(times), value


def scipy_scan(eps, k, N, m):
    """max over c in [m, N - m - 1] of H_eps(c, N - c): plain scipy, one vectorised pass."""
    c = np.arange(m, N - m, dtype=float)
    h, a_i, a_j = k / N, k * c / N, k * (N - c) / N
    data = gammaln(a_i + h) - gammaln(a_i) - (gammaln(a_j) - gammaln(a_j - h))
    u = expit((data - eps) / h)
    return float(np.max(betainc(a_i, a_j, u) - math.exp(eps) * betainc(a_i + h, a_j - h, u)))


def inverse(profile, delta):
    """Brent's method on a decreasing profile, as epsilon_for_delta; returns (root, calls)."""
    calls = [0]

    def gap(e):
        calls[0] += 1
        return profile(e) - delta
    if gap(0.0) <= 0:
        return 0.0, calls[0]
    hi = 1.0
    while gap(hi) > 0:
        hi *= 2
    return brentq(gap, hi / 2 if hi > 1 else 0.0, hi, xtol=1e-12, rtol=1e-12), calls[0]


def row(N, n, k, m, eps=1.0, delta=1e-6):
    t_new, v_new = best_of(lambda: dm.privacy_profile(eps, k, N, n, m))
    t_inv, e_new = best_of(lambda: dm.epsilon_for_delta(delta, k, N, n, m))
    out = dict(N=N, n=n, k=k, m=m, new=t_new, new_inv=t_inv, value=v_new, eps=e_new)
    if n >= 3:
        return out
    pairs = N - 2 * m
    scan_N = N if pairs <= 2_000_000 else 10**6
    scale = pairs / (scan_N - 2 * math.ceil(0.1 * scan_N)) if scan_N != N else 1.0
    m_s = m if scan_N == N else math.ceil(0.1 * scan_N)
    k_s = k if scan_N == N else k * scan_N / N
    t_scan, v_scan = best_of(lambda: bf.profile_scan(eps, k_s, scan_N, 2, m_s), 1)
    t_sp, v_sp = best_of(lambda: scipy_scan(eps, k_s, scan_N, m_s), 1)
    out.update(scan=t_scan * scale, scipy=t_sp * scale, extrapolated=scan_N != N)
    if scan_N == N:
        out.update(rel=abs(v_new - v_scan) / max(v_scan, 1e-300),
                   rel_scipy=abs(v_sp - v_scan) / max(v_scan, 1e-300))
    # old epsilon_for_delta: Brent on the scan; run it where one scan is cheap, else count
    if pairs <= 200_000:
        t_old_inv, (e_old, _) = best_of(lambda: inverse(
            lambda e: bf.profile_scan(e, k, N, 2, m), delta), 1)
        t_sp_inv, (e_sp, _) = best_of(lambda: inverse(lambda e: scipy_scan(e, k, N, m), delta), 1)
        out.update(scan_inv=t_old_inv, scipy_inv=t_sp_inv, rel_inv=abs(e_new - e_old) / max(e_old, 1e-300))
    else:
        _, calls = inverse(lambda e: dm.privacy_profile(e, k, N, 2, m), delta)
        out.update(scan_inv=calls * out["scan"], scipy_inv=calls * out["scipy"], inv_calls=calls)
    return out


def show(r):
    line = (f"N={r['N']:.0e} n={r['n']} k={r['k']:.3g} m={r['m']}: privacy_profile {r['new']:.4f} s, "
            f"epsilon_for_delta {r['new_inv']:.4f} s")
    print(line)
    if "scan" in r:
        ext = " (extrapolated)" if r["extrapolated"] else ""
        print(f"    profile: old scan {r['scan']:.3g} s{ext} = {r['scan'] / r['new']:.0f}x, "
              f"plain scipy scan {r['scipy']:.3g} s{ext} = {r['scipy'] / r['new']:.0f}x")
        note = f" ({r['inv_calls']} scans, estimated)" if "inv_calls" in r else ""
        print(f"    inverse: old {r['scan_inv']:.3g} s{note} = {r['scan_inv'] / r['new_inv']:.0f}x, "
              f"plain scipy {r['scipy_inv']:.3g} s = {r['scipy_inv'] / r['new_inv']:.0f}x")
        if "rel" in r:
            print(f"    new vs old scan: relative difference {r['rel']:.1e}"
                  + (f", inverse {r['rel_inv']:.1e}" if "rel_inv" in r else "")
                  + f"; plain scipy vs old scan {r['rel_scipy']:.1e}")


def main():
    print("tight privacy profile, CPU seconds (best of", REPEATS, "runs)")
    for N in (10**4, 10**5, 10**6, 10**9):
        m = math.ceil(0.1 * N)
        k = 0.015 * N
        for n in (2, 3):
            show(row(N, n, k, m))
    print("hardest case met in the tests: k = N = 1e9, m near N/2, epsilon near 0")
    for m in (10**9 // 4, 10**9 // 2 - 10**6):
        for eps in (0.0, 1e-6):
            t, v = best_of(lambda: dm.privacy_profile(eps, 1e9, 10**9, 2, m))
            print(f"    m={m} eps={eps:g}: privacy_profile {t:.3f} s")
        for d in (1e-5, 1e-7, 1e-12):
            t, v = best_of(lambda: dm.epsilon_for_delta(d, 1e9, 10**9, 2, m))
            print(f"    m={m} delta={d:g}: epsilon_for_delta {t:.3f} s")


if __name__ == "__main__":
    main()
