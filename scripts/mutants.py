"""Mutation testing of the core modules: a seeded sample of mutmut's one-line mutants, per module.

    nice -n 10 .venv/bin/python scripts/mutants.py [--per-module 10] [--seed 40] [--json F] [MODULE ...]
    .venv/bin/python scripts/mutants.py --json tests/mutants.jsonl --report tests/MUTANTS.md

MODULE is a path under ``dpmarkov/`` without ``.py`` (``privacy``, ``baselines/laplace``,
``verify/claims/taxi``); the default is every module of ``TESTS``, in its order (the
privacy-critical ones first).  For each module the script lists every mutant mutmut 2.x would make
(``mutmut.list_mutations``: a flipped operator, a changed number, ``and``/``or``, a dropped
keyword, a swapped comparison, ...: one line each), drops those that only change the text of a
string (an error message, a format: ``XX...XX`` inserted), draws a seeded sample, and runs that
module's fast unit tests (``TESTS`` below, not the whole suite) against each mutant, one at a
time, with ``pytest -x`` and a timeout (ten times the tests' own time without a mutant, at
least a minute; a timeout counts as killed: mutmut's convention).  The sample is a seeded
shuffle of the module's mutants cut after ``--per-module``, so a smaller run is the start of a
larger one with the same seed (``--per-module 8`` runs the first 8 of ``--per-module 30``).
A survivor listed in ``EQUIVALENT`` (the same results by construction, with the reason) is
reported as equivalent; any other survivor is a gap in the tests.  The
work happens in a copy of the repository (``--copy``, default a temporary directory), so the
working tree is never touched.  It prints one line per mutant (killed / survived, the diff) and
a table per module (killed / equivalent / gap, and the kill rate over the non-equivalent
mutants); ``--list`` only prints the sample; ``--json FILE`` appends the rows to FILE (JSON lines) as they come.  mutmut's own runner (``mutmut run``) mutates every
line of every file in place; this script only borrows its mutation operators, to keep the run
to a few hundred mutants on a shared machine.  ``--survivors`` re-runs only the sample's mutants
that survived in ``--json`` (after a new test; the last row of a mutant counts), and
``--gaps`` re-runs every gap of ``--json`` found by its diff in the source as it is now (its
row replaces the old one also when the line moved; ``REWRITTEN`` maps a gap whose line was
rewritten to the same mutation of the new line), and
``--report FILE`` writes the table of the rows in ``--json`` (``EQUIVALENT`` as it is now) with
every equivalent survivor's reason and every gap: ``tests/MUTANTS.md``, which README.md,
"Mutation testing", points to.
"""

import argparse
import difflib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mutmut

ROOT = Path(__file__).resolve().parent.parent

# each module and the unit tests that exercise it (fast, no notebooks; the quickest and most
# specific first, as ``pytest -x`` stops at the first failure); the privacy-critical modules first
TESTS = {
    "mechanism": ["test_mechanism.py", "test_guard_mutants.py", "test_mutant_survivors.py", "test_api.py"],
    "privacy": ["test_privacy.py", "test_bound_mutants.py", "test_worst_case.py", "test_mutant_survivors.py", "test_api.py"],
    "profile": ["test_mutant_survivors.py", "test_profile.py", "test_tiny_values.py", "test_api.py"],
    "_numerics": ["test_roots.py", "test_privacy.py", "test_bound_mutants.py", "test_tiny_values.py"],
    "accounting": ["test_accounting.py"],
    "composition": ["test_composition.py", "test_claim_mutants.py", "test_mutant_survivors.py", "test_api.py"],
    "renyi": ["test_renyi.py"],
    "chain": ["test_mutant_survivors.py", "test_chain.py", "test_batch_bytes.py", "test_guard_mutants.py", "test_api.py"],
    "display": ["test_display.py", "test_portable_outputs.py", "test_tiny_values.py", "test_mutant_survivors.py"],
    "audit": ["test_audit.py"],
    "verify/claims/_core": ["test_verdicts.py", "test_claims.py", "test_claim_mutants.py"],
    "verify/claims/privacy": ["test_claims.py", "test_claim_mutants.py"],
    "verify/claims/foundations": ["test_claims.py", "test_claim_mutants.py"],
    "verify/claims/chains": ["test_claims.py", "test_claim_mutants.py"],
    "exit_probability": ["test_delta.py", "test_tiny_values.py", "test_bound_mutants.py", "test_mutant_survivors.py", "test_api.py"],
    "loss": ["test_worst_case.py", "test_guards.py", "test_bound_mutants.py"],
    "_pairs": ["test_accounting.py", "test_worst_case.py", "test_profile.py"],
    "_checks": ["test_guard_mutants.py", "test_simplex.py", "test_privacy.py", "test_chain.py"],
    "stationary": ["test_chain.py", "test_mutant_survivors.py", "test_api.py"],
    "ergodicity": ["test_chain.py"],
    "accuracy": ["test_accuracy.py"],
    "simplex": ["test_simplex.py"],
    "baselines/calibration": ["test_mutant_survivors.py", "test_baselines.py", "test_api.py"],
    "baselines/laplace": ["test_baselines.py"],
    "baselines/geometric": ["test_baselines.py"],
    "baselines/gaussian": ["test_baselines.py"],
    "baselines/projection": ["test_baselines.py"],
    "datasets/grades": ["test_datasets_grades.py"],
    "datasets/sequences": ["test_datasets_sequences.py"],
    "datasets/taxi": ["test_datasets_taxi.py", "test_trip_files.py"],
    "datasets/trip_files": ["test_trip_files.py", "test_trip_files_hostile.py"],
}

# survivors that are the same program by construction: (module, the diff as ``key`` writes
# it) -> why.  Keyed by the lines' text, not their numbers, so edits elsewhere keep them.
EQUIVALENT = {
    ("mechanism", ("-elif np.count_nonzero(out != 0) < supported * (out.size // alpha.size): | "
                  "+elif np.count_nonzero(out != 0) <= supported * (out.size // alpha.size):")):
        "the floor then also runs when no entry underflowed: max(out, smallest double) on "
        "supported entries that are already positive and max(0, 0) outside the support change "
        "nothing (the same bits, one more pass)",
    ("composition", ("-every = n_rows.min() >= 2                   # usually every row: no copies | "
                    "+every = n_rows.min() >= 3                   # usually every row: no copies")):
        "a matrix whose smallest row has 2 categories then takes the indexed path, whose rows "
        "are all rows (n_rows >= 2 everywhere): the same epsilon_and_delta on the same rows, "
        "written into zeros at every index (the same numbers)",
    ("mechanism", ("-if np.count_nonzero(out) < np.count_nonzero(support) * (out.size // alpha.size): | "
                  "+if np.count_nonzero(out) < np.count_nonzero(support) * (out.size / alpha.size):")):
        "out has shape shape + alpha.shape, so out.size is a whole multiple of alpha.size and "
        "the float quotient (below 2**53) is the same whole number",
    ("mechanism", "-if width >= 8 or x.ndim < 2: | +if width > 8 or x.ndim < 2:"):
        "in _row_max (line 249): a maximum is exact, so the column-by-column loop and numpy's "
        "max agree at width 8 too (a NaN propagates either way); the same text in _row_sums is "
        "not equivalent and is killed (test_mutant_survivors: numpy adds 8 entries pairwise)",
    ("mechanism", "-support = rows_alpha > 0 | +support = rows_alpha >= 0"):
        "an entry with alpha_i = 0 counted as small is drawn as G(1) U^(1/0) = 0 (and -inf in "
        "logs), the value it has outside the support: the same distribution and the same zeros; "
        "only which random numbers a seed gives each entry moves (no seeded output is promised "
        "across versions)",
    ("privacy", ("-gap = (x0 - x1) / (x0 + h) - 2.0 * np.maximum(x2 - x3, 0.0) / x3 | "
                "+gap = (x0 - x1) / (x0 + h) - 3.0 * np.maximum(x2 - x3, 0.0) / x3")):
        "a stricter certificate that the guard of eq. (6) loses: fewer rows skip the guard, whose "
        "max(out0, out1) is then out0 bit for bit (the docstring's proof), the same epsilon",
    ("privacy", ("-return (gap > 1e-10 + 1e-12 * n) & (x1 >= x3) & (x3 >= 1.0) & (k < 1e300) | "
                 "+return (gap > 1e-10 + 1e-12 * n) & (x1 >= x3) & (x3 > 1.0) & (k < 1e300)")):
        "the same stricter certificate of _guard_loses (rows with x3 = 1 exactly evaluate the "
        "guard, which then loses: the same epsilon)",
    ("stationary", "-pi[:, 0] = 1.0 | +pi[:, 0] = 2.0"):
        "the reference GTH's unnormalised pi scaled by 2, a power of two: every product and sum "
        "is scaled exactly and the final division by the sum removes it, bit for bit",
    ("stationary", "-return 64 | +return 65"):
        "the panel width of the blocked GTH for n >= 512, a speed setting: any width performs "
        "the same eliminations grouped differently (pi to rounding, which the tests bound)",
    ("stationary", "-lo = max(1, hi - panel + 1) | +lo = max(1, hi - panel - 1)"):
        "panels of panel + 2 states instead of panel in the blocked GTH: the same eliminations "
        "grouped differently, as with another panel width (pi to rounding)",
    ("composition", ("-edges = where.searchsorted(np.arange(0, arr.size + 1, n))    # row i: [e_i, e_i+1) | "
                     "+edges = where.searchsorted(np.arange(0, arr.size + 2, n))    # row i: [e_i, e_i+1)")):
        "arange(0, n*n + 1, n) and arange(0, n*n + 2, n) are the same n + 1 row starts for n >= 2 "
        "(n*n + 2 <= n*n + n), and n = 1 never takes this sparse branch (4 transitions > 1 entry)",
    ("composition", ("-fails = not (low >= border).all() or np.count_nonzero(arr != 0) != transitions | "
                     "+fails = not (low > border).all() or np.count_nonzero(arr != 0) != transitions")):
        "a sparse matrix with a count exactly at its row's border (eta N_i (1 - 1e-12), rarely a "
        "whole number) then takes the full checks, which accept it with the same rule and give "
        "the same numbers",
    ("stationary", ("-batch = min(GTH_BATCH, max(1, BATCH_BYTES // (8 * n * n)))   # as Algorithm 2 batches | "
                    "+batch = min(GTH_BATCH, max(1, BATCH_BYTES // (9 * n * n)))   # as Algorithm 2 batches")):
        "how many matrices one GTH call solves (memory only): each matrix is eliminated on its own, "
        "its pi the same to rounding",
    ("baselines/calibration", ("-if rho < 1 and term.upper() < 1e-40 * max(total.lower(), arb(1e-300)): | "
                               "+if rho <= 1 and term.upper() < 1e-40 * max(total.lower(), arb(1e-300)):")):
        "in _arb_betainc, rho = 1 exactly with a negligible term cannot happen: the bounds rho_j "
        "of the term ratios fall with j (or are x), so rho_J = 1 means every earlier ratio was "
        "at least 1 up to the rounding radius (2**-128), t_J >= t_0 = 1 and the sum is at most "
        "J t_J: t_J < 1e-40 of it would take 1e40 terms",
    ("baselines/calibration", ("-lo[rows] + np.log(2.0), np.log(2.0)) | "
                               "+lo[rows] + np.log(2.0), np.log(3.0))")):
        "the step by which dirichlet_k_theorem1's search widens its bracket upwards (log 2 or "
        "log 3): the bracket holds the same crossing and the result is its feasible end within "
        "the search's documented 1e-10 in log k either way (a search setting, as a panel width)",
    ("profile", "-de = 1e-6 * max(e, 1e-12) | +de = 1e-6 * max(e, 2e-12)"):
        "in _epsilon_one's n = 2 step-up, the finite-difference width of the pair's slope, "
        "which only sizes the first step; it differs only where the pair's root e is below "
        "1e-12, and the step then doubles until past the crossing and bisection brings the "
        "result within 1e-6 of it either way (a search setting, not bit for bit)",
    ("chain", "-rows = max(1, _SLICE // alpha.shape[1]) | +rows = max(2, _SLICE // alpha.shape[1])"):
        "differs only for n > 2**20 states (slices of 2 rows instead of 1): the slices consume "
        "the streams in order, so the same draws (memory only)",
    ("chain", "-for r in range(0, alpha.shape[0], rows): | +for r in range(0, alpha.shape[1], rows):"):
        "alpha is the square (n, n) matrix of Algorithm 2: its two dimensions are equal",
    ("chain", ("-pats = (arr > 0).reshape(-1, arr.shape[-1], arr.shape[-1]) | "
               "+pats = (arr > 0).reshape(-1, arr.shape[-1], arr.shape[-2])")):
        "arr comes from _checks.square_matrix: its last two dimensions are equal",
    ("chain", "-return gen, gen.spawn(1)[0] | +return gen, gen.spawn(2)[0]"):
        "spawn(2)[0] is the same first child as spawn(1)[0]: the same draws in this call; a later "
        "call on the same Generator gets its next child, independent either way (the same "
        "distribution; no seeded output is promised across versions)",
}


# gaps whose line was rewritten since their run: (module, the old diff as ``key`` writes it)
# -> the same mutation of the line as it is now, which ``--gaps`` runs in its place
REWRITTEN = {
    ("profile", ("-if pair(0.0) <= target and profile_one_k(np.array([0.0]), k, N, n, m)[0] <= target: | "
                 "+if pair(0.0) < target and profile_one_k(np.array([0.0]), k, N, n, m)[0] <= target:")):
        "-pair_below = pair(0.0) <= target | +pair_below = pair(0.0) < target",
}


def mutants(path):
    """Every mutmut mutant of ``path`` that changes code, not only a string's text: (id, source)."""
    source = path.read_text()
    ids = mutmut.list_mutations(mutmut.Context(source=source, filename=str(path)))
    out = []
    for mid in ids:
        mutated, count = mutmut.mutate(mutmut.Context(source=source, mutation_id=mid, filename=str(path)))
        if count != 1:
            continue
        line = mutated.split("\n")[mid.line_number]
        if "XX" in line and "XX" not in mid.line:
            continue                                # a string's text, not code
        out.append((mid, mutated))
    return source, out


def run_tests(copy, tests, timeout):
    """(killed, last line, seconds): killed if the tests fail or time out."""
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x", "-q", "--no-header",
           *[f"tests/{t}" for t in tests]]
    env = dict(os.environ, PYTHONPATH=str(copy))
    start = time.monotonic()                        # the run's own duration, for the timeout only
    try:
        proc = subprocess.run(cmd, check=False, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return True, "timeout", timeout
    last = proc.stdout.strip().splitlines()[-1:] or [""]
    return proc.returncode != 0, last[0], time.monotonic() - start


def sample(module, found, seed, per_module, skip=0):
    """Entries ``skip`` to ``per_module`` of a seeded shuffle: a smaller run is the start of a
    larger one, and ``--skip`` resumes it (``--per-module 5`` then ``--skip 5 --per-module 10``
    runs the first 10)."""
    order = random.Random(f"{seed}:{module}").sample(found, len(found))
    return order[skip:per_module]


def diff_of(source, mutated):
    return [d for d in difflib.unified_diff(source.split("\n"), mutated.split("\n"), lineterm="", n=0)
            if d[:1] in "+-" and d[:3] not in ("+++", "---")]


def equivalent(module, diff):
    """The reason a survivor is equivalent (``EQUIVALENT``), or None."""
    return EQUIVALENT.get((module, key(diff)))


def key(diff):
    """The diff as one line, stripped of indentation: ``EQUIVALENT``'s key."""
    return " | ".join(d[0] + d[1:].strip() for d in diff)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", default=list(TESTS))
    parser.add_argument("--per-module", type=int, default=10)
    parser.add_argument("--skip", type=int, default=0, help="resume a sample after this many")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per mutant (default: 10 x the tests' time without one, >= 60)")
    parser.add_argument("--copy", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--list", action="store_true", help="print the sample, run nothing")
    parser.add_argument("--survivors", action="store_true",
                        help="run only the sample's mutants that survived in --json (after a new test)")
    parser.add_argument("--gaps", action="store_true",
                        help="re-run every gap left in --json, found by its diff in the source "
                             "as it is now (the nearest line)")
    parser.add_argument("--report", type=Path, default=None,
                        help="write the table of the rows in --json to this Markdown file, run nothing")
    args = parser.parse_args()
    if args.report:
        args.report.write_text(report(latest(args.json)))
        print(args.report.read_text())
        return
    if args.list:
        for module in args.modules:
            source, found = mutants(ROOT / "dpmarkov" / f"{module}.py")
            for mid, mutated in sample(module, found, args.seed, args.per_module, args.skip):
                print(f"{module}:{mid.line_number + 1}  {key(diff_of(source, mutated))}")
        return
    copy = args.copy or Path(tempfile.mkdtemp(prefix="dpmarkov-mutants-"))
    for part in ("dpmarkov", "tests", "scripts", "pyproject.toml"):   # tests run scripts too
        src, dst = ROOT / part, copy / part
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
        else:
            shutil.copy2(src, dst)
    rows = []
    for module in args.modules:
        tests = [t for t in TESTS[module] if (copy / "tests" / t).exists()]
        target = copy / "dpmarkov" / f"{module}.py"
        failed, last, seconds = run_tests(copy, tests, None)
        if failed:                                  # a kill would mean nothing: say so, go on
            print(f"{module}: SKIPPED, the tests fail without a mutant ({last})", flush=True)
            continue
        timeout = args.timeout or max(60.0, 10 * seconds)
        source, found = mutants(target)
        chosen = sample(module, found, args.seed, args.per_module, args.skip)
        moved = {}                                  # mutant id -> the line of its earlier row
        if args.gaps:
            chosen, moved = gaps_in(module, source, found, latest(args.json))
        elif args.survivors:                          # only those the last run left alive
            before = latest(args.json)
            chosen = [(mid, mutated) for mid, mutated in chosen
                      if not before.get((module, mid.line_number + 1, key(diff_of(source, mutated))),
                                      {"killed": True})["killed"]]
        try:
            for mid, mutated in chosen:
                target.write_text(mutated)
                killed, last, _ = run_tests(copy, tests, timeout)
                diff = diff_of(source, mutated)
                why = None if killed else equivalent(module, diff)
                row = {"module": module, "line": mid.line_number + 1, "killed": killed,
                       "equivalent": why, "tests": last, "diff": diff, "of": len(found)}
                if id(mid) in moved and moved[id(mid)] != [row["line"], key(diff)]:
                    row["replaces"] = moved[id(mid)]
                rows.append(row)
                if args.json:                       # row by row: a stopped run keeps its rows
                    with args.json.open("a") as f:
                        f.write(json.dumps(row) + "\n")
                state = "killed" if killed else "equivalent" if why else "SURVIVED"
                print(f"{module}:{row['line']} {state}  {' | '.join(diff)}", flush=True)
        finally:
            target.write_text(source)
    print(table(rows))


def gaps_in(module, source, found, before):
    """``--gaps``: each gap of ``module`` in the rows ``before`` (not killed, not equivalent),
    as the mutant of the current source with the same diff on the nearest line (an edit
    elsewhere in the module may have moved it): the mutants and, by ``id``, the line of the
    row each replaces.  A gap whose diff no longer exists (its line was rewritten) is left."""
    chosen, moved = [], {}
    for (mod, line, text), r in before.items():
        if mod != module or r["killed"] or equivalent(module, r["diff"]):
            continue
        now = REWRITTEN.get((module, text), text)
        same = [(mid, m) for mid, m in found if key(diff_of(source, m)) == now]
        if same:
            mid, mutated = min(same, key=lambda p: abs(p[0].line_number + 1 - line))
            chosen.append((mid, mutated))
            moved[id(mid)] = [line, text]
    return chosen, moved


def latest(path):
    """The rows of a ``--json`` file, the last one per mutant (module, line, diff): a re-run after
    a new test replaces the earlier verdict (of the same source: an edit that moves lines
    leaves the old rows alone, unless the re-run's row says which line it ``replaces``:
    ``--gaps``)."""
    rows = {}
    if path and path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            if "replaces" in r:                   # [line, diff] of the row it replaces
                old = r["replaces"] if isinstance(r["replaces"], list) else [r["replaces"], key(r["diff"])]
                rows.pop((r["module"], *old), None)
            rows[(r["module"], r["line"], key(r["diff"]))] = r
    return rows


def report(rows):
    """The Markdown page of the measured rate: the table (``EQUIVALENT`` as it is now), then every
    equivalent survivor with its reason and every gap left."""
    rows = list(rows.values())
    for r in rows:
        r["equivalent"] = None if r["killed"] else equivalent(r["module"], r["diff"])
    lines = ["# Mutation testing: the measured rate", "",
             "Generated by `scripts/mutants.py --json tests/mutants.jsonl --report tests/MUTANTS.md`",
             "from the rows of the runs in `tests/mutants.jsonl` (the last run of each mutant counts);",
             "do not edit by hand.  README.md, \"Mutation testing\", says how the sample is drawn.", "",
             table(rows), ""]
    eq = [r for r in rows if r["equivalent"]]
    gaps = [r for r in rows if not r["killed"] and not r["equivalent"]]
    lines += [f"## Equivalent survivors ({len(eq)})", ""]
    lines += [f"- `{r['module']}`:{r['line']} `{key(r['diff'])}`: {r['equivalent']}" for r in eq]
    lines += ["", f"## Gaps ({len(gaps)}): survivors with no test yet", ""]
    lines += [f"- `{r['module']}`:{r['line']} `{key(r['diff'])}`" for r in gaps] or ["None."]
    return "\n".join(lines) + "\n"


def table(rows):
    """The results per module: sampled, killed, equivalent, gaps, kill rate of the non-equivalent."""
    lines = ["| module | mutants (of) | killed | equivalent | gaps | killed of non-equivalent |",
             "|---|---|---|---|---|---|"]
    groups = {}
    for r in rows:
        groups.setdefault(r["module"], []).append(r)
    for module, rs in list(groups.items()) + [("all", rows)]:
        k = sum(r["killed"] for r in rs)
        e = sum(bool(r.get("equivalent")) and not r["killed"] for r in rs)
        n = len(rs) - e
        of = rs[0]["of"] if module != "all" else sum(g[0]["of"] for g in groups.values())
        lines.append(f"| {module} | {len(rs)} ({of}) | {k} | {e} | {n - k} | "
                     f"{k}/{n} ({100 * k / max(n, 1):.0f} %) |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
