"""Grade a folder of submitted assignment notebooks into one CSV, without Docker.

    ./run.sh grade FOLDER [CSV]        (CSV defaults to FOLDER/scores.csv)

Every ``*.ipynb`` below FOLDER is one submission. Its assignment is the name otter wrote
into the student notebook's metadata (``otter.assignment_name``); its autograder is
``_build/assignments/<name>/autograder/*.zip`` (``./run.sh assignments`` builds them). Each
submission runs in a child process forked from this one, in its own folder: its code cells
run in order with errors ignored, as ``otter run`` runs them, then every test file of the
autograder runs on the final variables with otter's own test classes. The CSV has one row
per submission and one column per question: the autograded score, or an empty cell for a
question graded by hand (``manual: true`` in the master notebook), then the autograded
total and what was possible.

``tests/test_assignments.py`` grades the solution, blank and mistaken notebooks with
``score`` and checks once that ``otter run`` gives the same scores. Like ``otter run``, this
executes the submitted code with your permissions: grade in a separate account or a
container if you cannot trust the submissions.
"""
from __future__ import annotations

import contextlib
import csv
import io
import multiprocessing
import os
import re
import sys
import warnings
import zipfile
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "_build" / "assignments"
MASTERS = ROOT / "assignments"
# otter's own lines in a student notebook: its import and the grader it makes
OTTER_LINE = re.compile(r"^\s*(import otter|grader\s*=\s*otter\.Notebook\(.*\))\s*$")
TIMEOUT = 900   # seconds a submission may run


class _Grader:
    """Stands in for ``otter.Notebook``: the notebook's check cells do nothing here."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def quiet(function, *args, **kwargs):
    """Call ``function`` with its printed output and its warnings (a submission's) dropped."""
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


def run_cells(nb) -> dict:
    """The variables a notebook leaves: its code cells run in order, errors ignored."""
    env = {"__name__": "__main__", "grader": _Grader()}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not OTTER_LINE.match(line))
        try:
            quiet(exec, compile(source, f"<cell {i}>", "exec"), env)
        except BaseException:  # noqa: BLE001 - `otter run` ignores errors in a cell too
            pass
    return env


def score(nb, autograder_zip: Path, scratch: Path) -> dict[str, tuple[float, float]]:
    """{question: (score, possible)} of notebook ``nb`` by the autograder's test files."""
    from otter.test_files.ok_test import OKTestFile
    env = run_cells(nb)
    out = {}
    for path in test_files(autograder_zip, scratch):
        test = OKTestFile.from_file(str(path))
        try:
            quiet(test.run, env)
            out[test.name] = (float(test.score), float(test.possible))
        except BaseException:  # noqa: BLE001 - a submission that breaks the tests scores 0
            out[test.name] = (0.0, float(test.possible))
    return out


def manual_questions(name: str) -> dict[str, float]:
    """{question: points} of the questions graded by hand in assignment ``name``'s master."""
    master = nbformat.read(MASTERS / name / f"{name}.ipynb", as_version=4)
    out = {}
    for cell in master.cells:
        if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
            config = yaml.safe_load(cell.source.split("\n", 1)[1])
            if config.get("manual"):
                out[config["name"]] = config["points"]
    return out


def question_order(name: str) -> list[str]:
    master = nbformat.read(MASTERS / name / f"{name}.ipynb", as_version=4)
    return [yaml.safe_load(c.source.split("\n", 1)[1])["name"] for c in master.cells
            if c.cell_type == "raw" and c.source.startswith("# BEGIN QUESTION")]


def autograder(name: str, built: Path = BUILT) -> Path:
    zips = sorted((built / name / "autograder").glob("*.zip"))
    if not zips:
        raise FileNotFoundError(f"no autograder for assignment {name!r} in {built}: "
                                "run ./run.sh assignments first")
    return zips[-1]


def _child(path: Path, zip_path: Path, scratch: Path, queue) -> None:
    os.chdir(path.parent)            # a submission reads its files from its own folder
    os.environ["MPLBACKEND"] = "Agg"
    queue.put(score(nbformat.read(path, as_version=4), zip_path, scratch))


def grade_one(path: Path, zip_path: Path, scratch: Path) -> dict[str, tuple[float, float]] | None:
    """``score`` of one submission in a forked child (its state dies with it); None if it
    does not finish within TIMEOUT seconds."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(path.resolve(), zip_path.resolve(), scratch, queue))
    child.start()
    try:
        result = queue.get(timeout=TIMEOUT)
    except Exception:  # noqa: BLE001 - queue.Empty: the submission ran too long or crashed
        result = None
    child.join(5)
    if child.is_alive():
        child.kill()
        child.join()
    return result


def grade_folder(folder: Path, out_csv: Path, built: Path = BUILT) -> list[dict]:
    """Grade every notebook below ``folder`` into ``out_csv``; return the rows."""
    import tempfile

    import otter.test_files.ok_test  # noqa: F401 - imported once, before the children fork
    rows, columns = [], []
    paths = sorted(p for p in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(paths):
            name = nbformat.read(path, as_version=4).metadata.get("otter", {}) \
                .get("assignment_name")
            row = {"submission": path.relative_to(folder).as_posix(), "assignment": name or ""}
            if name is None:
                row["note"] = "not an assignment notebook (no otter metadata)"
                rows.append(row)
                continue
            manual = manual_questions(name)
            result = grade_one(path, autograder(name, built), Path(tmp) / str(i))
            for q in question_order(name):
                column = f"{q} (by hand, of {manual[q]:g})" if q in manual else q
                if column not in columns:
                    columns.append(column)
                row[column] = "" if q in manual or result is None else f"{result[q][0]:g}"
            if result is None:
                row["note"] = f"did not finish in {TIMEOUT} s"
            else:
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
    if not 1 <= len(argv) <= 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    folder = Path(argv[0])
    if not folder.is_dir():
        print(f"FOLDER={folder} is not a folder", file=sys.stderr)
        return 2
    out = Path(argv[1]) if len(argv) == 2 else folder / "scores.csv"
    rows = grade_folder(folder, out)
    print(f"graded {len(rows)} notebooks -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
