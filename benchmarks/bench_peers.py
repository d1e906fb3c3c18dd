"""Benchmark: dpmarkov against its peers where they led (GitHub issue 38, rows 1-5).

Run with ``./run.sh bench`` (or ``.venv/bin/python benchmarks/bench_peers.py``; ``--only 3``
runs one row); not part of the tests.  Each row times dpmarkov and its peer in the same
process, alternated round by round (the same background load), in CPU seconds of the process
(``time.process_time``; every contender is single-threaded: one BLAS thread), and reports the
median of the per-round ratios dm / peer (below 1: dpmarkov is faster) and their range.

1. ``dm.privatize`` (checks, sampler) against ``Generator.dirichlet`` with the same ``size``:
   20,000 draws of a 3-category vector and 2,000 of a 265-category vector (a row of the
   synthetic chain of ``bench_chain.py``), k in {0.5, 10, 1e3, 1e6}.  Target <= 1.3x.
2. ``dm.privatize_chain`` of one 265 x 265 chain at k = 1,000 (13% of the parameters below 1)
   against numpy's gamma variates of the same parameters, rows divided by their sums.
   Target <= 1.3x.
3. ``dm.stationary_distribution`` of 200 stacked 265-state chains (GTH, input checks
   included) against numpy's batched solve of (I - P + 1 1^T)^T pi = 1.  Target <= 1.0x.
4. ``dm.chain_privacy`` of the 265-row sparse chain of ``bench_privacy.py`` against the
   plain gammaln/betainc broadcast of eqs. (6)-(7) there.  Target <= 2x.
5. 36 monthly releases (the chapter "Many releases": 69 zones, pseudocount 20, k = 0.1 N),
   composed as one ``ComposedDpEvent`` of 36 ``DirichletDpEvent`` in a fresh
   ``DirichletRdpAccountant`` / ``DirichletPldAccountant``, epsilon at delta = 1e-6, against
   dp_accounting used directly on the same release: RDP, the curve ``dm.rdp_epsilon`` once,
   times 36, into ``rdp_privacy_accountant.compute_epsilon``; PLD,
   ``privacy_loss_distribution`` once, ``self_compose(36)``, ``get_epsilon_for_delta``.
   Every round takes a release not seen before (k a few ulps apart), so the accountants'
   kept curves never spare a computation the direct side makes.  Target <= 1.0x.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import platform
import time

import numpy as np
from bench_chain import numpy_stationary, random_chain, synthetic_counts
from bench_privacy import broadcast_eq6_eq7, chain_counts

import dpmarkov as dm

SEED = 20260226


def cpu_rounds(fns, rounds, inner=1):
    """CPU seconds per call of each function, alternated for ``rounds`` rounds."""
    cpu = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            c0 = time.process_time()
            for _ in range(inner):
                fn()
            cpu[name].append((time.process_time() - c0) / inner)
    return {name: np.array(v) for name, v in cpu.items()}


def report(label, cpu, ours, peer, target):
    r = cpu[ours] / cpu[peer]
    print(f"  {label:44s} dm {np.median(cpu[ours]) * 1e3:8.2f} ms, peer "
          f"{np.median(cpu[peer]) * 1e3:8.2f} ms: median ratio {np.median(r):.2f}x "
          f"(rounds {r.min():.2f}-{r.max():.2f}; target <= {target}x)")
    return float(np.median(r))


def row1(rounds=15):
    print("1. dm.privatize vs Generator.dirichlet (same size)")
    vectors = {3: (np.array([30.0, 50.0, 20.0]), 20_000),
               265: (synthetic_counts()[0], 2_000)}
    for n, (c, draws) in vectors.items():
        for k in (0.5, 10.0, 1e3, 1e6):
            a = dm.dirichlet_parameters(c, k)
            gen = np.random.default_rng(SEED)
            cpu = cpu_rounds({"dm": lambda c=c, k=k, g=gen, d=draws: dm.privatize(c, k, rng=g,
                                                                                  size=d),
                              "np": lambda a=a, g=gen, d=draws: g.dirichlet(a, size=d)},
                             rounds, inner=3)
            report(f"n = {n}, k = {k:g}, {draws} draws ({np.mean(a < 1):.0%} below 1)",
                   cpu, "dm", "np", 1.3)


def row2(rounds=30):
    print("2. dm.privatize_chain, one 265-state chain, k = 1000, vs numpy gamma + normalise")
    counts = synthetic_counts()
    k = np.full(265, 1000.0)
    support = counts > 0
    alpha = k[:, None] * (counts / counts.sum(axis=1, keepdims=True))
    gen = np.random.default_rng(SEED)

    def numpy_chain():
        g = gen.standard_gamma(alpha)
        g /= g.sum(axis=-1, keepdims=True)
        return g
    cpu = cpu_rounds({"dm": lambda: dm.privatize_chain(counts, k, support=support, rng=gen),
                      "np": numpy_chain}, rounds, inner=5)
    report("one chain", cpu, "dm", "np", 1.3)


def row3(rounds=9):
    print("3. dm.stationary_distribution, 200 stacked 265-state chains, vs np.linalg.solve")
    stack = np.stack([random_chain(265, SEED + i) for i in range(200)])
    cpu = cpu_rounds({"dm": lambda: dm.stationary_distribution(stack),
                      "np": lambda: numpy_stationary(stack)}, rounds)
    report("200 x 265", cpu, "dm", "np", 1.0)


def row4(rounds=40):
    print("4. dm.chain_privacy, 265 rows, vs the plain gammaln/betainc broadcast")
    counts = chain_counts()
    support = counts > 0
    N = counts.sum(axis=1)
    eta = np.minimum(counts.min(axis=1, initial=np.inf, where=support) / N, 0.24)
    k = 1.5 / eta
    gamma = 1e-3
    cpu = cpu_rounds({"dm": lambda: dm.chain_privacy(counts, k, eta, gamma, support=support),
                      "np": lambda: broadcast_eq6_eq7(counts, k, eta, gamma)}, rounds, inner=20)
    report("265 rows", cpu, "dm", "np", 2.0)


def row5(rounds=30, months=36, delta=1e-6):
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    from dpmarkov import accounting as acc
    print(f"5. {months} monthly releases composed vs dp_accounting used directly")
    n, b, s = 69, 20, 0.1
    N = n * b + 1
    # one release per round, k a few ulps apart: each round computes its curve from scratch
    # (the accountants keep the curves of releases already seen)
    events = [acc.DirichletDpEvent(s * N * (1 + 1e-15 * r), N, n, b) for r in range(rounds + 1)]
    turn = {name: iter(events) for name in ("rdp", "rdp_direct", "pld", "pld_direct")}

    def ours(name, accountant):
        a = accountant()
        a.compose(dp_event.ComposedDpEvent([next(turn[name])] * months))
        return a.get_epsilon(delta)

    def direct_rdp():
        e = next(turn["rdp_direct"])
        orders = acc.DEFAULT_ORDERS
        curve = dm.rdp_epsilon(orders, e.k, e.N, e.n, e.min_count)
        return rdp_privacy_accountant.compute_epsilon(orders, months * curve, delta)[0]

    def direct_pld():
        e = next(turn["pld_direct"])
        one = acc.privacy_loss_distribution(e.k, e.N, e.n, e.min_count)
        return one.self_compose(months).get_epsilon_for_delta(delta)

    def ours_rdp():
        return ours("rdp", acc.DirichletRdpAccountant)

    def ours_pld():
        return ours("pld", acc.DirichletPldAccountant)
    same = (ours_rdp(), direct_rdp(), ours_pld(), direct_pld())
    print(f"  epsilon: RDP {same[0]:.6f} (direct {same[1]:.6f}), PLD {same[2]:.6f} "
          f"(direct {same[3]:.6f})")
    cpu = cpu_rounds({"rdp": ours_rdp, "rdp_direct": direct_rdp,
                      "pld": ours_pld, "pld_direct": direct_pld}, rounds)
    report("RDP", cpu, "rdp", "rdp_direct", 1.0)
    report("PLD", cpu, "pld", "pld_direct", 1.0)


ROWS = {"1": row1, "2": row2, "3": row3, "4": row4, "5": row5}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(ROWS), action="append")
    args = parser.parse_args(argv)
    print(f"# bench_peers: {platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, "
          f"load average {os.getloadavg()[0]:.1f}")
    for key in args.only or sorted(ROWS):
        ROWS[key]()


if __name__ == "__main__":
    main()
