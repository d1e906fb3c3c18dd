"""Grade a folder of submitted assignment notebooks into one CSV; student code never runs here.

    ./run.sh grade FOLDER [CSV] [--seed N] [--unsafe-no-sandbox]
    ./run.sh grade --export-written FOLDER OUT        (written answers, one file per question)
    ./run.sh grade --merge-hand SCORES_CSV HAND_CSV [OUT_CSV]   (hand scores into the scores)

Every ``*.ipynb`` below FOLDER is one submission (CSV defaults to FOLDER/scores.csv). Its
assignment is the name otter wrote into the student notebook's metadata
(``otter.assignment_name``); its tests are the autograder's
(``_build/assignments/<name>/autograder/*.zip``, built by ``./run.sh assignments``).

How a submission is scored (``score``):

1. its code cells run, in order with errors ignored (as ``otter run`` runs them), in a
   sandbox (``scripts/grading/sandbox.py``: bubblewrap on Linux, no network, no file of the
   repository, limits on CPU time, memory and processes), which sends back the notebook's
   variables as plain data (numbers, strings, numeric arrays) and marks its functions;
2. the autograder's test files run here, with otter's own test classes, on a namespace of
   those data, of the master notebook's setup cell (run here: the assignment's given data
   and imports, which a submission cannot replace) and of stand-ins for the submission's
   functions that call them in the sandbox and bring the value back as data; a function the
   question forbids to use ``dpmarkov`` (``grading.hidden.FORBIDDEN``) is called in a second
   sandbox that has no ``dpmarkov``;
3. a test case that calls a student function counts only if that function also agrees with
   a value computed here on inputs drawn from the instructor's seed (``--seed``, or the
   environment variable ``DPMARKOV_GRADING_SEED``; fresh entropy if neither):
   ``grading.hidden.GATES``;
4. the assignment's cells of given data (its counts, sizes, parameters) are replaced, before
   the submission's cells run, by a variant of the same kind drawn from the same seed, which
   the grader also runs here; a test case that checks an answer computed from those data is
   decided here on the variant, with the test's tolerance (``grading.variants.VARIANTS``), so
   a typed answer read from the public tests earns nothing.

The CSV has one row per submission and one column per question: the autograded score, or an
empty cell for a question graded by hand (``manual: true`` in the master notebook), then the
autograded total and what was possible. ``--export-written`` and ``--merge-hand``
(``scripts/grading/handwork.py``) are the route for the questions graded by hand.
"""
from __future__ import annotations

import builtins
import contextlib
import csv
import io
import os
import re
import secrets
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path

import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading import handwork, hidden, variants
from grading.sandbox import (
    DEFAULT_LIMITS,
    Limits,
    Sandbox,
    SandboxError,
    SandboxUnavailable,
)

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "_build" / "assignments"
MASTERS = ROOT / "assignments"
# otter's own lines in a student notebook: its import and the grader it makes
OTTER_LINE = re.compile(r"^\s*(import otter|grader\s*=\s*otter\.Notebook\(.*\))\s*$")
BUILTIN_NAMES = frozenset(dir(builtins))
# the notebook's `grader.check(...)` cells do nothing in the sandbox
GRADER_STUB = ("class _NoGrader:\n    def __getattr__(self, name):\n"
               "        return lambda *args, **kwargs: None\n\n\ngrader = _NoGrader()\n")


def quiet(function, *args, **kwargs):
    """Call ``function`` with its printed output and its warnings dropped."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def test_files(autograder_zip: Path, into: Path) -> list[Path]:
    """The autograder's test files (tests/q*.py), extracted into ``into``."""
    with zipfile.ZipFile(autograder_zip) as z:
        names = sorted(n for n in z.namelist() if n.startswith("tests/") and n.endswith(".py"))
        z.extractall(into, members=names)
    return [into / n for n in names]


def code_cells(nb, replacements: dict[str, str] | None = None) -> list[str]:
    """The notebook's code cells as the sandbox runs them (otter's own lines dropped).

    A cell whose text is a key of ``replacements`` (a cell of the master's given data; the
    text compared without surrounding blank space) runs as its value (the variant's cell).
    """
    replace = {key.strip(): value for key, value in (replacements or {}).items()}
    cells = [GRADER_STUB]
    for cell in nb.cells:
        if cell.cell_type == "code":
            source = "\n".join(line for line in cell.source.splitlines()
                               if not OTTER_LINE.match(line))
            cells.append(replace.get(source.strip(), source))
    return cells


def setup_namespace(name: str, masters: Path = MASTERS,
                    replacements: dict[str, str] | None = None) -> dict:
    """The master notebook's first code cell (the given data and imports), run here; the
    variant's cell instead where ``replacements`` replaces it."""
    master = nbformat.read(masters / name / f"{name}.ipynb", as_version=4)
    first = next(c for c in master.cells if c.cell_type == "code")
    replace = {key.strip(): value for key, value in (replacements or {}).items()}
    env: dict = {"__name__": "__grading__"}
    quiet(exec, compile(replace.get(first.source.strip(), first.source), f"<{name} setup>",
                        "exec"), env)
    return env


class Remote:
    """Stands in, in the grader, for a submission's function: calls it in its sandbox."""

    def __init__(self, name: str, sandbox):
        self._name, self._sandbox = name, sandbox

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError("keyword arguments are not sent to a submission")
        return self._sandbox().call(self._name, *args)


class Submission:
    """One submission's sandboxes: the main one, and one without dpmarkov when needed."""

    def __init__(self, cells: list[str], limits: Limits, unsafe: bool):
        self.cells, self.limits, self.unsafe = cells, limits, unsafe
        self.main = Sandbox(cells, limits=limits, unsafe=unsafe)
        self._without = None

    def without_dpmarkov(self) -> Sandbox:
        if self._without is None:
            self._without = Sandbox(self.cells, forbid=True, limits=self.limits,
                                    unsafe=self.unsafe)
        return self._without

    def call(self, forbidden: set[str]):
        def call(function, *args):
            box = self.without_dpmarkov() if function in forbidden else self.main
            return box.call(function, *args)
        return call

    def close(self) -> None:
        for box in (self.main, self._without):
            if box is not None:
                box.close()


def score(nb, autograder_zip: Path, scratch: Path, *, seed: int | None = None,
          limits: Limits = DEFAULT_LIMITS, unsafe: bool = False,
          masters: Path = MASTERS, notes: list | None = None) -> dict[str, tuple[float, float]]:
    """{question: (score, possible)} of notebook ``nb`` (see the module's docstring).

    ``seed`` draws the hidden inputs (``None``: fresh entropy). A submission whose notebook
    does not finish within its limits scores 0, as the blank notebook does; why is appended
    to ``notes``.

    Raises
    ------
    ValueError
        A test file of the autograder raises when loaded (a broken autograder, not a
        submission's doing).
    grading.sandbox.SandboxUnavailable
        No sandbox on this system and ``unsafe`` is False.
    """
    from otter.test_files.ok_test import OKTestFile

    name = nb.metadata.get("otter", {}).get("assignment_name")
    forbidden = hidden.FORBIDDEN.get(name, set())
    gates = hidden.GATES.get(name, {})
    seed = secrets.randbits(64) if seed is None else seed
    variant = variants.VARIANTS.get(name)
    replacements = {} if variant is None else \
        variants.draw(variant, variants.variant_rng(seed, name))
    checks = {} if variant is None else variant.checks
    tests = []
    for path in test_files(autograder_zip, scratch):
        try:
            tests.append(OKTestFile.from_file(str(path)))
        except Exception as error:
            raise ValueError(f"the autograder's test file {path.name} ({autograder_zip.name}) "
                             f"raises {type(error).__name__}: {error}") from error
    try:
        submission = Submission(code_cells(nb, replacements), limits, unsafe)
    except SandboxError as error:
        submission = None
        if notes is not None:
            notes.append(f"scored as blank: {error}")
    try:
        env: dict = {}
        if submission is not None:
            for var, value in submission.main.variables.items():
                if var in BUILTIN_NAMES:
                    continue         # a test's abs, all, len, ... stay Python's own
                if value is Sandbox.CALLABLE:
                    box = submission.without_dpmarkov if var in forbidden else \
                        (lambda: submission.main)
                    env[var] = Remote(var, box)
                else:
                    env[var] = value
        setup = setup_namespace(name, masters, replacements)
        env.update(setup)                                # trusted names win
        env.update(quiet(variants.given, replacements, setup))
        out = {}
        for test in tests:
            possible = float(test.possible)
            if submission is None:
                out[test.name] = (0.0, possible)
                continue
            # otter's doctest runner fails a case whose code raises, and runs the others
            quiet(test.run, env)
            passed = []
            for i, result in enumerate(test.test_case_results):
                gate, check = gates.get((test.name, i)), checks.get((test.name, i))
                # an answer computed from the given data is checked on the variant, here
                passed_here = check(env) if check is not None else result.passed
                ok = passed_here and (gate is None or hidden.passes(
                    gate, submission.call(forbidden), hidden.gate_rng(seed, name, test.name, i)))
                passed.append(ok)
            if test.all_or_nothing:
                got = possible if all(passed) else 0.0
            else:
                got = float(sum(tc.points for tc, ok in zip(test.test_cases, passed) if ok))
            out[test.name] = (got, possible)
        return out
    finally:
        if submission is not None:
            submission.close()


def manual_questions(name: str, masters: Path = MASTERS) -> dict[str, float]:
    """{question: points} of the questions graded by hand in assignment ``name``'s master."""
    master = nbformat.read(masters / name / f"{name}.ipynb", as_version=4)
    out = {}
    for cell in master.cells:
        if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
            config = yaml.safe_load(cell.source.split("\n", 1)[1])
            if config.get("manual"):
                out[config["name"]] = config["points"]
    return out


def question_order(name: str, masters: Path = MASTERS) -> list[str]:
    master = nbformat.read(masters / name / f"{name}.ipynb", as_version=4)
    return [yaml.safe_load(c.source.split("\n", 1)[1])["name"] for c in master.cells
            if c.cell_type == "raw" and c.source.startswith("# BEGIN QUESTION")]


def autograder(name: str, built: Path = BUILT) -> Path:
    zips = sorted((built / name / "autograder").glob("*.zip"))
    if not zips:
        raise FileNotFoundError(f"no autograder for assignment {name!r} in {built}: "
                                "run ./run.sh assignments first")
    return zips[-1]


def grade_folder(folder: Path, out_csv: Path, built: Path = BUILT, *, seed: int | None = None,
                 limits: Limits = DEFAULT_LIMITS, unsafe: bool = False) -> list[dict]:
    """Grade every notebook below ``folder`` into ``out_csv``; return the rows."""
    rows, columns = [], []
    seed = secrets.randbits(64) if seed is None else seed
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(handwork.submissions(folder)):
            nb = nbformat.read(path, as_version=4)
            name = nb.metadata.get("otter", {}).get("assignment_name")
            row = {"submission": path.relative_to(folder).as_posix(), "assignment": name or ""}
            if name not in hidden.FORBIDDEN:
                row["note"] = "not an assignment notebook (no known otter assignment name)"
                rows.append(row)
                continue
            manual = manual_questions(name)
            notes: list[str] = []
            result = score(nb, autograder(name, built), Path(tmp) / str(i), seed=seed,
                           limits=limits, unsafe=unsafe, notes=notes)
            if notes:
                row["note"] = "; ".join(notes)
            for q in question_order(name):
                column = f"{q} (by hand, of {manual[q]:g})" if q in manual else q
                if column not in columns:
                    columns.append(column)
                row[column] = "" if q in manual else f"{result[q][0]:g}"
            row["autograded"] = f"{sum(s for s, _ in result.values()):g}"
            row["possible"] = f"{sum(p for _, p in result.values()):g}"
            rows.append(row)
    header = ["submission", "assignment", *columns, "autograded", "possible", "note"]
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    with out_csv.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header, restval="")
        writer.writeheader()
        writer.writerows(rows)
    return rows


def main(argv: list[str]) -> int:
    usage = __doc__.split("\n\n")[1]
    args = list(argv)
    unsafe = "--unsafe-no-sandbox" in args
    if unsafe:
        args.remove("--unsafe-no-sandbox")
    seed = os.environ.get("DPMARKOV_GRADING_SEED")
    if "--seed" in args:
        i = args.index("--seed")
        if i + 1 >= len(args):
            print(usage, file=sys.stderr)
            return 2
        seed = args[i + 1]
        del args[i:i + 2]
    if args[:1] == ["--export-written"] and len(args) == 3:
        files = handwork.export_written(Path(args[1]), Path(args[2]))
        print(f"wrote {len(files)} files of written answers -> {args[2]}")
        return 0
    if args[:1] == ["--merge-hand"] and len(args) in (3, 4):
        out = Path(args[3]) if len(args) == 4 else Path(args[1])
        handwork.merge_hand_scores(Path(args[1]), Path(args[2]), out)
        print(f"merged hand scores -> {out}")
        return 0
    if not 1 <= len(args) <= 2 or args[0].startswith("--"):
        print(usage, file=sys.stderr)
        return 2
    folder = Path(args[0])
    if not folder.is_dir():
        print(f"FOLDER={folder} is not a folder", file=sys.stderr)
        return 2
    try:
        seed = secrets.randbits(64) if seed is None else int(seed)
    except ValueError:
        print(f"seed={seed!r} is not an integer", file=sys.stderr)
        return 2
    out = Path(args[1]) if len(args) == 2 else folder / "scores.csv"
    try:
        rows = grade_folder(folder, out, seed=seed, unsafe=unsafe)
    except SandboxUnavailable as error:
        print(error, file=sys.stderr)
        return 2
    print(f"graded {len(rows)} notebooks -> {out} (hidden inputs from --seed {seed}: keep it "
          "private; it draws the same inputs again)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
