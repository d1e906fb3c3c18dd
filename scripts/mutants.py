"""Mutation testing of the core modules: a seeded sample of mutmut's one-line mutants, per module.

    .venv/bin/python scripts/mutants.py [--per-module 10] [--seed 40] [--timeout 300] [MODULE ...]

For each module (``dpmarkov/MODULE.py``) the script lists every mutant mutmut 2.x would make
(``mutmut.list_mutations``: a flipped operator, a changed number, ``and``/``or``, a dropped
keyword, a swapped comparison, ...: one line each), drops those that only change the text of a
string (an error message, a format: ``XX...XX`` inserted), draws a seeded sample, and runs that
module's fast unit tests (``TESTS`` below, not the whole suite) against each mutant, one at a
time, with ``pytest -x`` and a timeout (a timeout counts as killed: mutmut's convention).  The
work happens in a copy of the repository (``--copy``, default a temporary directory), so the
working tree is never touched.  It prints one line per mutant (killed / survived, the diff) and
the kill rate; ``--json FILE`` appends the rows to FILE (JSON lines) as they come.  mutmut's own runner (``mutmut run``) mutates every
line of every file in place; this script only borrows its mutation operators, to keep the run
to a few hundred mutants on a shared machine.  README.md, "Mutation testing", has the measured rate.
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
from pathlib import Path

import mutmut

ROOT = Path(__file__).resolve().parent.parent

# each core module and the unit tests that are its own (fast, no notebooks)
TESTS = {
    "privacy": ["test_privacy.py", "test_delta.py", "test_worst_case.py", "test_bound_mutants.py"],
    "profile": ["test_profile.py", "test_tiny_values.py"],
    "exit_probability": ["test_delta.py", "test_tiny_values.py", "test_bound_mutants.py"],
    "loss": ["test_worst_case.py", "test_guards.py", "test_bound_mutants.py"],
    "mechanism": ["test_mechanism.py", "test_guard_mutants.py"],
    "chain": ["test_chain.py", "test_guard_mutants.py"],
    "stationary": ["test_chain.py"],
    "ergodicity": ["test_chain.py"],
    "composition": ["test_composition.py", "test_claim_mutants.py"],
    "_numerics": ["test_privacy.py", "test_roots.py", "test_tiny_values.py", "test_bound_mutants.py"],
    "_checks": ["test_guard_mutants.py", "test_simplex.py", "test_privacy.py", "test_chain.py"],
    "display": ["test_display.py", "test_tiny_values.py"],
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
    """True if the tests fail (the mutant is killed) or time out."""
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x", "-q", "--no-header",
           *[f"tests/{t}" for t in tests]]
    env = dict(os.environ, PYTHONPATH=str(copy))
    try:
        proc = subprocess.run(cmd, check=False, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return True, "timeout"
    last = proc.stdout.strip().splitlines()[-1:] or [""]
    return proc.returncode != 0, last[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", default=list(TESTS))
    parser.add_argument("--per-module", type=int, default=10)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--copy", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    copy = args.copy or Path(tempfile.mkdtemp(prefix="dpmarkov-mutants-"))
    for part in ("dpmarkov", "tests", "pyproject.toml"):
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
        failed, last = run_tests(copy, tests, args.timeout)
        if failed:                                  # a kill would mean nothing: say so, go on
            print(f"{module}: SKIPPED, the tests fail without a mutant ({last})", flush=True)
            continue
        source, found = mutants(target)
        sample = random.Random(f"{args.seed}:{module}").sample(found, min(args.per_module, len(found)))
        sample.sort(key=lambda pair: pair[0].line_number)
        try:
            for mid, mutated in sample:
                target.write_text(mutated)
                killed, last = run_tests(copy, tests, args.timeout)
                diff = [d for d in difflib.unified_diff(source.split("\n"), mutated.split("\n"), lineterm="", n=0)
                        if d[:1] in "+-" and d[:3] not in ("+++", "---")]
                row = {"module": module, "line": mid.line_number + 1, "killed": killed,
                       "tests": last, "diff": diff, "of": len(found)}
                rows.append(row)
                if args.json:                       # row by row: a stopped run keeps its rows
                    with args.json.open("a") as f:
                        f.write(json.dumps(row) + "\n")
                print(f"{module}:{row['line']} {'killed' if killed else 'SURVIVED'}  {' | '.join(diff)}",
                      flush=True)
        finally:
            target.write_text(source)
    killed = sum(r["killed"] for r in rows)
    print(f"killed {killed} of {len(rows)} ({100 * killed / max(len(rows), 1):.1f} %)")


if __name__ == "__main__":
    main()
