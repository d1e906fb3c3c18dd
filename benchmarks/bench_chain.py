"""Benchmark: Algorithm 2 and stationary distributions on a 265-state chain.

Run with ``./run.sh bench`` (or ``.venv/bin/python benchmarks/bench_chain.py``); not part
of the tests.  Three questions (GitHub issue 5):

(a) 1,000 private copies of a 265 x 265 chain: ``dm.privatize_chain`` against the same
    gamma variates drawn by plain numpy and normalised row by row (target: <= 1.3x);
(b) the stationary distributions of those 1,000 chains: ``dm.stationary_distribution``
    (blocked GTH, stacked, input checks included) against numpy's batched dense solve
    with the normalisation folded in, (I - P + 1 1^T)^T pi = 1 (target: <= 2x), the
    textbook one-state-at-a-time GTH as a reference, and the accuracy of all three on
    two chains whose pi is known exactly;
(c) peak memory (tracemalloc, which sees numpy's allocations) of one-shot and batched
    draws: 1000 x 265 x 265 doubles are 562 MB, and streaming the batches keeps the
    whole pipeline far below 1 GiB;
(d) ``dm.stationary_distribution`` side by side with quantecon's jitted ``gth_solve``
    (a benchmark-only dependency, benchmarks/requirements.txt) and numpy's solve, in the
    same run (GitHub issue 15): one 265-state chain (target <= 1.0x quantecon), a stack
    of 265-state chains and n = 1000, 2000, 4000 (targets <= 0.5x quantecon), the
    growth exponent of the time in n, peak memory at n = 4000 (target <= 1.5x the
    input), a stack of 1000 265-state chains against numpy's batched solve (target
    <= 2x) and the accuracy of all three on a nearly decomposable and a birth-death
    chain (``versus_quantecon(small_only=True)``: the 265-state cases only);
(e) the samplers where some Dirichlet parameters are below 1 (GitHub issue 26):
    ``dm.privatize_chain`` at k = 1,000 against numpy's gamma variates normalised, and
    ``dm.privatize`` against ``Generator.dirichlet`` (targets <= 1.3x numpy);
    ``--small-parameters`` runs (e) alone.

The chain is synthetic and dense (every count 1..199, as many states as the TLC zone
table) -- the hardest case for both steps.  Timings are the best of ``REPEATS`` runs for
(a); in (b) the methods are alternated for ``ROUNDS`` rounds (best and median reported,
and the per-round ratio), and the slow textbook GTH is timed once on a subset.
"""
from __future__ import annotations

import os

# One BLAS thread unless the caller says otherwise: the machine is shared, and
# multithreaded BLAS under load mostly spins.  (Run without OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE overrides, see README.md.)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import platform  # noqa: E402
import resource  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

import dpmarkov as dm  # noqa: E402
from dpmarkov import chain, stationary  # noqa: E402

N_STATES = 265
DRAWS = 1000
REPEATS = 3
ROUNDS = 5             # interleaved rounds of (b)
TEXTBOOK_SUBSET = 100  # chains the slow textbook GTH is timed on
SEED = 20260226


def best_time(fn, repeats=REPEATS):
    """Smallest wall time of ``repeats`` calls, and the last result."""
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def synthetic_counts(n=N_STATES, seed=SEED):
    rng = np.random.default_rng(seed)
    return rng.integers(1, 200, size=(n, n)).astype(float)


def numpy_privatize(counts, k, size, seed):
    """The baseline: one standard_gamma call on the Dirichlet parameters, rows normalised."""
    alpha = k[:, None] * (counts / counts.sum(axis=1, keepdims=True))   # same rounding as dm
    g = np.random.default_rng(seed).standard_gamma(alpha, size=(size,) + alpha.shape)
    g /= g.sum(axis=-1, keepdims=True)
    return g


def numpy_stationary(P):
    """The baseline: batched LAPACK solve of (I - P + 1 1^T)^T pi = 1."""
    n = P.shape[-1]
    A = np.eye(n) - P + 1.0
    return np.linalg.solve(np.swapaxes(A, -1, -2), np.ones(P.shape[:-1] + (1,)))[..., 0]


gth_textbook = stationary.gth_textbook   # the previous, unblocked GTH (reference)


def gth_textbook_stack(P, batch=8):
    out = np.empty(P.shape[:-1])
    for s in range(0, P.shape[0], batch):
        out[s:s + batch] = gth_textbook(P[s:s + batch])
    return out


def interleaved(fns, rounds):
    """Run the functions in turn ``rounds`` times: per-function times, and the last results.

    Alternating the methods exposes them to the same background load, so the
    per-round ratios are fairer than separate best-of runs on a shared machine.
    """
    times = {name: [] for name in fns}
    out = {}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            out[name] = fn()
            times[name].append(time.perf_counter() - t0)
    return {name: np.array(t) for name, t in times.items()}, out


def ncd_chain(n=N_STATES, coupling=1e-13, seed=SEED):
    """Nearly decomposable and doubly stochastic: two blocks joined by ``coupling``; pi = 1/n."""
    rng = np.random.default_rng(seed)
    blocks = []
    for m in (n // 2, n - n // 2):
        perms = [np.eye(m)[rng.permutation(m)] for _ in range(3)]
        blocks.append((np.eye(m) + sum(perms)) / 4)      # doubly stochastic, irreducible
    B = np.zeros((n, n))
    B[:n // 2, :n // 2] = blocks[0]
    B[n // 2:, n // 2:] = blocks[1]
    return (1 - coupling) * B + coupling / n, np.full(n, 1 / n)


def birth_death_chain(n=N_STATES, up=0.1):
    """Up with prob. ``up``, down with 1 - up: pi_j proportional to (up/(1-up))^j (to 1e-253)."""
    P = np.zeros((n, n))
    idx = np.arange(n - 1)
    P[idx, idx + 1] = up
    P[idx + 1, idx] = 1 - up
    P[0, 0] = 1 - up
    P[n - 1, n - 1] = up
    r = up / (1 - up)
    logw = np.arange(n) * np.log(r)
    w = np.exp(logw - logw.max())
    return P, w / w.sum()


def relative_error(pi, exact):
    return float(np.max(np.abs(pi - exact) / exact))


def peak_mib(fn):
    """Peak traced memory (MiB) while ``fn`` runs; its result is dropped."""
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def cpu_rounds(fns, rounds, inner=1):
    """Interleaved rounds like ``interleaved``, timed in CPU seconds of this process.

    Every contender runs single-threaded (one BLAS thread; numba's loop is serial),
    so process CPU time measures the work itself, not the waiting for a core on a
    shared machine; wall times are reported next to it.
    """
    cpu = {name: [] for name in fns}
    wall = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(inner):
                fn()
            cpu[name].append((time.process_time() - c0) / inner)
            wall[name].append((time.perf_counter() - w0) / inner)
    return ({k: np.array(v) for k, v in cpu.items()}, {k: np.array(v) for k, v in wall.items()})


def random_chain(n, seed=SEED):
    rng = np.random.default_rng(seed + n)
    counts = rng.integers(1, 200, size=(n, n)).astype(float)
    return counts / counts.sum(axis=1, keepdims=True)


def versus_quantecon(small_only=False):
    """(d): stationary distributions against quantecon's gth_solve and numpy's solve.

    ``small_only=True`` runs only the 265-state cases and the accuracy checks (for
    iterating); the table in benchmarks/README.md comes from the full run.
    """
    try:
        from quantecon.markov import gth_solve
    except ImportError:
        print("\n(d) skipped: quantecon is not installed "
              "(pip install -r benchmarks/requirements.txt)")
        return
    import quantecon
    print(f"\n(d) dm.stationary_distribution vs quantecon {quantecon.__version__} gth_solve "
          "(numba) vs numpy solve; CPU time, interleaved rounds (best / median of the "
          "per-round ratios)")
    gth_solve(np.array([[0.5, 0.5], [0.5, 0.5]]))                  # compile outside the timing

    def row(label, cpu, wall, target=None):
        r_best = cpu["dm"].min() / cpu["qe"].min()
        r_med = np.median(cpu["dm"] / cpu["qe"])
        extra = "" if "np" not in cpu else (
            f"; numpy solve {cpu['np'].min() * 1e3:8.2f} ms (dm / numpy "
            f"{cpu['dm'].min() / cpu['np'].min():.1f}x)")
        aim = "" if target is None else f" (target <= {target}x)"
        print(f"    {label:28s} dm {cpu['dm'].min() * 1e3:9.2f} ms, quantecon "
              f"{cpu['qe'].min() * 1e3:9.2f} ms: dm / quantecon best {r_best:.2f}x, "
              f"median {r_med:.2f}x{aim}{extra}; wall ratio of medians "
              f"{np.median(wall['dm']) / np.median(wall['qe']):.2f}x")
        return r_best, r_med

    P = random_chain(N_STATES)
    cpu, wall = cpu_rounds({"dm": lambda: dm.stationary_distribution(P),
                            "qe": lambda: gth_solve(P),
                            "np": lambda: numpy_stationary(P)}, rounds=40, inner=5)
    row(f"one {N_STATES}-state chain", cpu, wall, 1.0)

    stack = np.stack([random_chain(N_STATES, SEED + i) for i in range(100)])
    cpu, wall = cpu_rounds({"dm": lambda: dm.stationary_distribution(stack),
                            "qe": lambda: [gth_solve(m) for m in stack],
                            "np": lambda: numpy_stationary(stack)}, rounds=5)
    row(f"stack of 100 x {N_STATES}", cpu, wall, 0.5)

    if not small_only:
        big = np.stack([random_chain(N_STATES, SEED + i) for i in range(DRAWS)])
        cpu, wall = cpu_rounds({"dm": lambda: dm.stationary_distribution(big),
                                "np": lambda: numpy_stationary(big)}, rounds=3)
        r = cpu["dm"] / cpu["np"]
        print(f"    stack of {DRAWS} x {N_STATES} against numpy's batched solve: dm "
              f"{cpu['dm'].min():.2f} s, numpy {cpu['np'].min():.2f} s: best "
              f"{cpu['dm'].min() / cpu['np'].min():.2f}x, median {np.median(r):.2f}x "
              "(target <= 2x)")
        del big

        sizes, t_dm = [], []
        for n in (1000, 2000, 4000):
            P = random_chain(n)
            rounds = 3 if n <= 2000 else 1
            cpu, wall = cpu_rounds({"dm": lambda: dm.stationary_distribution(P),
                                    "qe": lambda: gth_solve(P)}, rounds=rounds)
            row(f"one chain, n = {n}", cpu, wall, 0.5)
            sizes.append(n)
            t_dm.append(cpu["dm"].min())
        slope = np.polyfit(np.log(sizes), np.log(t_dm), 1)[0]
        print(f"    dm time grows as n^{slope:.2f} over n = {sizes[0]}..{sizes[-1]} (O(n^3) flops)")

        P = random_chain(4000)
        tracemalloc.start()
        pi = dm.stationary_distribution(P)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"    peak memory at n = 4000: {peak / P.nbytes:.2f}x the input "
              f"({P.nbytes / 2**20:.0f} MiB; target <= 1.5x); quantecon copies the matrix "
              "once (1x, numba allocations are not traced)")
        print(f"    max |pi_dm / pi_quantecon - 1| at n = 4000: "
              f"{np.max(np.abs(pi / gth_solve(P) - 1)):.1e}")

    for name, (Pm, exact) in {"nearly decomposable chain (coupling 1e-13, pi = 1/n)": ncd_chain(),
                              "birth-death chain (pi down to 1e-253)": birth_death_chain()}.items():
        print(f"    accuracy on the {name}, max relative error: "
              f"dm {relative_error(dm.stationary_distribution(Pm), exact):.1e}, "
              f"quantecon {relative_error(gth_solve(Pm), exact):.1e}, "
              f"numpy solve {relative_error(numpy_stationary(Pm), exact):.1e}")


def small_parameters(draws=DRAWS, rounds=3):
    """(e) The samplers where some Dirichlet parameters are below 1 (GitHub issue 26).

    Algorithm 2 at k = 1,000 on the 265-state chain (13% of the parameters below 1: those
    entries are drawn as G(a + 1) U^(1/a), the others as plain gamma variates) against
    numpy's gamma variates with rows divided by their sums; Algorithm 1 (``dm.privatize``,
    ``draws`` releases) on a 60-category and a 265-category vector with parameters on both
    sides of 1 against ``Generator.dirichlet`` and against numpy's gamma variates normalised.
    Methods alternate for ``rounds`` rounds (the same background load); best times and the
    per-round median ratio.  Target: <= 1.3x numpy.
    """
    counts = synthetic_counts()
    k = np.full(N_STATES, 1000.0)
    alpha = k[:, None] * (counts / counts.sum(axis=1, keepdims=True))
    print(f"\n(e) samplers with parameters below 1: chain k = 1000 "
          f"({np.mean(alpha < 1):.0%} of the 265 x 265 parameters below 1)")
    times, _ = interleaved({"dm": lambda: dm.privatize_chain(counts, k, support=counts > 0,
                                                             size=draws, rng=SEED),
                            "numpy": lambda: numpy_privatize(counts, k, draws, SEED)}, rounds)
    ratio = times["dm"] / times["numpy"]
    print(f"    dm.privatize_chain, {draws} chains   best {times['dm'].min():7.3f} s; numpy gamma + "
          f"normalise {times['numpy'].min():7.3f} s; ratio best {times['dm'].min() / times['numpy'].min():.2f}x, "
          f"per-round median {np.median(ratio):.2f}x (target <= 1.3x)")
    rng = np.random.default_rng(SEED)
    vectors = {"n = 60, k = 200": (rng.integers(1, 400, size=60).astype(float), 200.0),
               "n = 265, k = 1000": (counts[0], 1000.0)}
    for label, (c, kk) in vectors.items():
        a = dm.dirichlet_parameters(c, kk)
        gen = np.random.default_rng(SEED)

        def gamma_normalised(a=a, gen=gen):
            g = gen.standard_gamma(a, size=(draws,) + a.shape)
            g /= g.sum(axis=-1, keepdims=True)
            return g
        reps = max(rounds, 20)
        times, _ = interleaved({"dm": lambda c=c, kk=kk, gen=gen: dm.privatize(c, kk, rng=gen,
                                                                               size=draws),
                                "dirichlet": lambda a=a, gen=gen: gen.dirichlet(a, size=draws),
                                "gamma": gamma_normalised}, reps)
        r_dir, r_gam = times["dm"] / times["dirichlet"], times["dm"] / times["gamma"]
        print(f"    dm.privatize {label} ({np.mean(a < 1):.0%} below 1), {draws} releases: "
              f"best {times['dm'].min() * 1e3:.2f} ms; Generator.dirichlet "
              f"{times['dirichlet'].min() * 1e3:.2f} ms (median ratio {np.median(r_dir):.2f}x); "
              f"gamma + normalise {times['gamma'].min() * 1e3:.2f} ms "
              f"(median ratio {np.median(r_gam):.2f}x)")


def main():
    print(f"# bench_chain: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"numpy {np.__version__}, python {platform.python_version()}, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}, "
          f"load average {os.getloadavg()[0]:.1f}")
    counts = synthetic_counts()
    eta = chain.row_eta(counts)
    k = 1.5 / eta                                         # k_min per row (Assumption 4)
    print(f"chain: {N_STATES} states, dense synthetic counts, N_i {counts.sum(1).min():.0f}.."
          f"{counts.sum(1).max():.0f}, k_i = 3/(2 eta_i) in {k.min():.0f}..{k.max():.0f}")

    # (a) Algorithm 2
    t_dm, P = best_time(lambda: dm.privatize_chain(counts, k, support=counts > 0, size=DRAWS, rng=SEED))
    t_np, _ = best_time(lambda: numpy_privatize(counts, k, DRAWS, SEED))
    same = np.array_equal(P[:50], numpy_privatize(counts, k, 50, SEED))
    print(f"\n(a) {DRAWS} private {N_STATES}x{N_STATES} chains")
    print(f"    dm.privatize_chain        {t_dm:7.3f} s")
    print(f"    numpy gamma + normalise   {t_np:7.3f} s")
    print(f"    ratio {t_dm / t_np:.2f}x (target <= 1.3x); same draws for the same seed: {same}")

    # (b) stationary distributions
    times, res = interleaved({"gth": lambda: dm.stationary_distribution(P),
                              "numpy": lambda: numpy_stationary(P),
                              "dm_solve": lambda: dm.stationary_distribution(P, method="solve")},
                             ROUNDS)
    pi_gth, pi_sol = res["gth"], res["numpy"]
    sub = TEXTBOOK_SUBSET
    t_txt, pi_txt = best_time(lambda: gth_textbook_stack(P[:sub]), repeats=1)
    ratios = times["gth"] / times["numpy"]
    print(f"\n(b) stationary distributions of the {DRAWS} private chains "
          f"({ROUNDS} interleaved rounds: best / median)")
    for name, label in (("gth", "dm.stationary_distribution (GTH)  "),
                        ("dm_solve", "dm.stationary_distribution (solve)"),
                        ("numpy", "numpy batched solve               ")):
        print(f"    {label}  {times[name].min():7.3f} s / {np.median(times[name]):7.3f} s")
    print(f"    textbook GTH (one state at a time)  {t_txt * DRAWS / sub:7.3f} s  "
          f"(timed on {sub} chains, scaled)")
    print(f"    ratio GTH / numpy: best {times['gth'].min() / times['numpy'].min():.2f}x, "
          f"per-round median {np.median(ratios):.2f}x, "
          f"range {ratios.min():.2f}-{ratios.max():.2f}x "
          f"(target <= 2x); textbook GTH / GTH {t_txt * DRAWS / sub / times['gth'].min():.1f}x")
    print(f"    max |pi_GTH - pi_textbook| / pi_textbook = "
          f"{np.max(np.abs(pi_gth[:sub] - pi_txt) / pi_txt):.1e}; "
          f"max |pi_GTH - pi_solve| = {np.abs(pi_gth - pi_sol).max():.1e}")
    del P, res
    for name, (Pm, exact) in {"nearly decomposable, coupling 1e-13 (pi = 1/n)": ncd_chain(),
                              "birth-death, pi_j ~ (1/9)^j (pi down to 1e-253)":
                                  birth_death_chain()}.items():
        e_gth = relative_error(dm.stationary_distribution(Pm), exact)
        e_sol = relative_error(numpy_stationary(Pm), exact)
        e_txt = relative_error(gth_textbook(Pm[None])[0], exact)
        print(f"    accuracy, {name}:\n      max relative error: GTH {e_gth:.1e}, "
              f"textbook GTH {e_txt:.1e}, numpy solve {e_sol:.1e}")

    # (c) memory
    small = 100
    print(f"\n(c) peak traced memory (tracemalloc; {DRAWS}x{N_STATES}x{N_STATES} doubles = "
          f"{DRAWS * N_STATES**2 * 8 / 2**20:.0f} MiB)")
    m_np = peak_mib(lambda: numpy_privatize(counts, k, DRAWS, SEED))
    m_dm = peak_mib(lambda: dm.privatize_chain(counts, k, support=counts > 0, size=DRAWS, rng=SEED))

    def streamed():
        total = np.zeros(N_STATES)
        for block in chain.iter_privatize_chain(counts, k, support=counts > 0, size=DRAWS,
                                                rng=SEED):
            total += dm.stationary_distribution(block).sum(axis=0)
        return total / DRAWS

    m_stream = peak_mib(streamed)
    m_small = peak_mib(lambda: dm.privatize_chain(counts, k, support=counts > 0, size=small, rng=SEED))
    print(f"    numpy one-shot draw                       {m_np:7.0f} MiB")
    print(f"    dm.privatize_chain(size={DRAWS})            {m_dm:7.0f} MiB")
    print(f"    dm.privatize_chain(size={small})             {m_small:7.0f} MiB")
    print(f"    batches -> stationary (iter_privatize_chain) "
          f"{m_stream:5.0f} MiB")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"    process peak RSS (ru_maxrss, whole run)  {rss:7.0f} MiB  (includes (b): the "
          "stack of private chains and the solve baseline's I - P + 1 1^T, 536 MiB each)")
    assert m_dm < 1024 and m_stream < 1024, "batching should keep the draws under 1 GiB"

    versus_quantecon()
    small_parameters()
    print(f"\n# load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["--small-parameters"]:          # only section (e)
        print(f"# load average {os.getloadavg()[0]:.1f}")
        small_parameters()
        print(f"# load average at the end {os.getloadavg()[0]:.1f}")
    else:
        main()
