"""Benchmark: how close the blocked GTH on a stack can come to numpy's batched solve.

Run by hand (``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python
benchmarks/bench_stationary_floor.py [ROUNDS]``); not a test.  Issue 38, row 3: the
stationary distributions of 200 stacked 265-state chains, target <= 1.0x numpy's batched
``np.linalg.solve`` at GTH's accuracy.  Three sides, alternated round by round, in CPU
seconds of the process (one BLAS thread):

* ``dm``: ``dm.stationary_distribution(stack)``, everything included;
* ``floor``: the same call with the panel steps (``_pivots_stack``: the panel rows' sums,
  the eliminations inside the panel, the two triangular solves that give G) replaced by a
  lookup of their results, stored in a first call: what is left is the input checks, the
  copy into the scratch array, the BLAS products of the blocked GTH (numpy's batched
  ``matmul``) and the back substitution, i.e. what the call would cost if the panel steps
  cost nothing;
* ``np``: ``numpy_stationary`` of ``bench_chain.py``, the peer of ``bench_peers.py`` row 3.

If ``floor`` / ``np`` is above 1, no work on the panel steps can meet the target: the
products alone do textbook GTH's n^3/3 multiply-adds (LU's count) plus the products with
G, at the speed of LAPACK's LU.  The lookup reaches into private names of
``dpmarkov.stationary`` on purpose (a measurement, not an API).
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
from bench_chain import numpy_stationary, random_chain

import dpmarkov as dm
from dpmarkov import stationary

SEED = 20260226


def main(rounds: int = 15) -> None:
    stack = np.stack([random_chain(265, SEED + i) for i in range(200)])
    real, stored = stationary._pivots_stack, {}

    def recording(A, lo, k, work):
        key = (A.shape[0], float(A[0, 0, 0]), lo)     # the batch and the panel
        stored[key] = real(A, lo, k, work)
        return stored[key]

    def replaying(A, lo, k, work):
        return stored[A.shape[0], float(A[0, 0, 0]), lo]

    def floor():
        stationary._pivots_stack = replaying
        try:
            return dm.stationary_distribution(stack)
        finally:
            stationary._pivots_stack = real

    stationary._pivots_stack = recording
    try:
        expected = dm.stationary_distribution(stack)
    finally:
        stationary._pivots_stack = real
    # the replayed G are the ones each panel had: the floor computes the same pi
    assert np.array_equal(floor(), expected)
    fns = {"dm": lambda: dm.stationary_distribution(stack), "floor": floor,
           "np": lambda: numpy_stationary(stack)}
    cpu = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            c0 = time.process_time()
            fn()
            cpu[name].append(time.process_time() - c0)
    peer = np.array(cpu["np"])
    print(f"200 x 265 stationary distributions, {rounds} alternated rounds, load average "
          f"{os.getloadavg()[0]:.1f}")
    for name, v in cpu.items():
        v = np.array(v)
        r = v / peer
        print(f"  {name:5s} median {np.median(v) * 1e3:6.1f} ms ({v.min() * 1e3:.0f}-"
              f"{v.max() * 1e3:.0f}); / np: median {np.median(r):.2f}x (rounds "
              f"{r.min():.2f}-{r.max():.2f})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
