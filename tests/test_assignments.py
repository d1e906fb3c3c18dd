"""The graded assignments (assignments/, otter-grader) tell right, wrong and blank work apart.

For every assignment in assignments/assignments.yml, `otter assign` (as `./run.sh assignments`
runs it) builds the student notebook and the autograder; then

- the autograder gives full marks to the solution notebook, zero to the blank student
  notebook, and to the solution with each of the manifest's typical mistakes exactly the
  marks the mistake does not touch (its ``costs`` below full marks); among the mistakes are
  answers handed to ``dpmarkov`` where the question forbids it, which the hidden tests catch
  (they compare with values computed independently of the package, by mpmath, scipy or
  plain Python, and watch for calls into it);
- every assignment has a written question graded by hand (otter's manual questions) whose
  model answer and rubric are in the instructor's (autograder) notebook and not in the
  student's;
- ``./run.sh grade FOLDER`` (scripts/grade.py) grades a folder with the solution, blank and
  mistaken notebooks into one CSV of scores per question;
- the student notebook holds no line of any solution and no hidden test, while the
  autograder keeps every hidden test;
- the book's exercises an assignment grades are listed in the manifest, exist in the book,
  and are exactly those the assignment's text names.

Grading is scripts/grade.py's: the notebook's code cells run in a sandbox
(scripts/grading/sandbox.py), and the autograder's own test files run here, with otter's
own test-file classes, on the plain data the sandbox sends back, plus hidden inputs drawn
from a seed (``SEED`` here; tests/test_grading_forgery.py tries to forge scores). One real
`otter run` (a kernel, the autograder zip; the first typical mistake of the Privacy
assignment) checks that this gives the scores `otter run` gives.
"""
from __future__ import annotations

import ast
import csv
import importlib.util
import os
import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "assignments"
ASSIGNMENTS = yaml.safe_load((FOLDER / "assignments.yml").read_text())
NAMES = [a["folder"] for a in ASSIGNMENTS]
# an exercise label as the chapters write it: ex-<chapter>-<number>
EXERCISE = re.compile(r"\bex-[a-z-]+-\d+\b")
MISTAKES = [(a, m) for a in ASSIGNMENTS for m in a["mistakes"]]
SEED = 20260402   # the hidden inputs of the grading gates (scripts/grading/hidden.py)

_spec = importlib.util.spec_from_file_location("grade", ROOT / "scripts" / "grade.py")
grading = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(grading)
# honest scores hold on either route: the sandbox where bubblewrap runs (Linux; ./run.sh test
# installs it), else the plain child process of --unsafe-no-sandbox (macOS, Windows)
UNSAFE = not sys.modules["grading.sandbox"].bwrap_available()
variants = sys.modules["grading.variants"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """otter assign on every master notebook -> {name: (student nb, autograder nb, zip)}."""
    otter_assign = pytest.importorskip("otter.assign")   # imported here: it takes seconds
    out = tmp_path_factory.mktemp("assignments")
    result = {}
    for name in NAMES:
        dest = out / name
        grading.quiet(otter_assign.main, str(FOLDER / name / f"{name}.ipynb"), str(dest),
                      no_run_tests=True)
        zips = list((dest / "autograder").glob("*.zip"))
        assert len(zips) == 1, f"{name}: autograder zips {zips}"
        result[name] = (dest / "student" / f"{name}.ipynb", dest / "autograder" / f"{name}.ipynb",
                        zips[0])
    return result


def grade(nb, autograder_zip: Path, scratch: Path) -> tuple[float, float]:
    """(score, possible) of notebook ``nb`` by the autograder's tests, like `otter run`."""
    result = grading.score(nb, autograder_zip, scratch, seed=SEED, unsafe=UNSAFE)
    return sum(s for s, _ in result.values()), sum(p for _, p in result.values())


def _with_mistake(autograder_nb: Path, folder: str, mistake: dict):
    nb = nbformat.read(autograder_nb, as_version=4)
    good, bad = mistake["solution"], mistake["mistake"]
    hits = [c for c in nb.cells if c.cell_type == "code" and good in c.source]
    assert len(hits) == 1 and hits[0].source.count(good) == 1, \
        f"{folder}: the mistake's solution line must occur exactly once"
    hits[0].source = hits[0].source.replace(good, bad)
    return nb


@pytest.mark.parametrize("entry", ASSIGNMENTS, ids=NAMES)
def test_solution_scores_full_and_blank_zero(entry, built, tmp_path):
    student, autograder, zip_path = built[entry["folder"]]
    right = grade(nbformat.read(autograder, as_version=4), zip_path, tmp_path / "right")
    blank = grade(nbformat.read(student, as_version=4), zip_path, tmp_path / "blank")
    assert right[1] > 0 and blank[1] == right[1]
    assert right[0] == right[1], f"solution scored {right}"
    assert blank[0] == 0, f"blank notebook scored {blank}"


@pytest.mark.parametrize("entry, mistake", MISTAKES,
                         ids=[f"{a['folder']}-{i}" for i, (a, _) in enumerate(MISTAKES)])
def test_a_mistake_costs_its_share(entry, mistake, built, tmp_path):
    """Every hidden test of the part a mistake breaks fails, and no other: the score is
    full marks less exactly ``costs`` (proportionate, not one test case's worth)."""
    _, autograder, zip_path = built[entry["folder"]]
    score, possible = grade(_with_mistake(autograder, entry["folder"], mistake), zip_path,
                            tmp_path)
    assert score == possible - mistake["costs"], f"{mistake['what']}: {score} of {possible}"


@pytest.mark.parametrize("entry", ASSIGNMENTS, ids=NAMES)
def test_the_solution_scores_full_on_another_variant(entry, built, tmp_path):
    """Another seed draws other given data (scripts/grading/variants.py): the solution,
    which computes every answer from the given variables, still scores full marks."""
    _, autograder, zip_path = built[entry["folder"]]
    result = grading.score(nbformat.read(autograder, as_version=4), zip_path, tmp_path,
                           seed=SEED + 1, unsafe=UNSAFE)
    assert all(got == possible for got, possible in result.values()), result


def _published_values(nb) -> dict:
    """The plain-data variables the notebook leaves on the published data (no variant)."""
    box = grading.Sandbox(grading.code_cells(nb), unsafe=UNSAFE)
    try:
        return {k: v for k, v in box.variables.items() if v is not grading.Sandbox.CALLABLE}
    finally:
        box.close()


def _typed(values: dict) -> str:
    """A cell that types the values as literals (arrays of up to 1000 numbers)."""
    import numpy as np
    lines = ["import numpy as np"]
    for name, value in values.items():
        if isinstance(value, np.ndarray):
            if value.size <= 1000:
                lines.append(f"{name} = np.array({value.tolist()!r}, dtype={value.dtype.str!r})")
        else:
            lines.append(f"{name} = {value!r}")
    return "\n".join(lines)


@pytest.mark.parametrize("with_given", [False, True], ids=["answers", "answers-and-data"])
@pytest.mark.parametrize("name", NAMES)
def test_typed_published_answers_score_no_more_than_blank(name, with_given, built, tmp_path):
    """The blank notebook with every answer the solution computes on the published data typed
    as a literal (and, the second time, the published given data put back too) scores no
    more than the blank notebook: 0. Such answers are checked on a variant of the data."""
    student, autograder, zip_path = built[name]
    values = _published_values(nbformat.read(autograder, as_version=4))
    given = set(variants.given({cell: cell for cell in variants.VARIANTS[name].cells}))
    if not with_given:
        values = {k: v for k, v in values.items() if k not in given}
    nb = nbformat.read(student, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(_typed(values)))
    assert grade(nb, zip_path, tmp_path)[0] == 0


@pytest.mark.parametrize("name", NAMES)
def test_the_autograder_zip_installs_what_the_tests_need(name, built, tmp_path):
    """Gradescope builds the zip's environment.yml (setup.sh) and copies ``files/`` into the
    submission's folder: the environment must hold the package's own dependencies (exactly
    pyproject's, so they cannot drift) besides otter, and ``files/dpmarkov`` the whole package
    (its modules and shipped data), importable from that folder as the notebook imports it."""
    import subprocess
    import tomllib
    import zipfile
    zip_path = built[name][2]
    with zipfile.ZipFile(zip_path) as z:
        names = set(z.namelist())
        environment = yaml.safe_load(z.read("environment.yml"))
        z.extractall(tmp_path, members=[n for n in names if n.startswith("files/")])
    pip = next(d["pip"] for d in environment["dependencies"] if isinstance(d, dict))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert pip[0].startswith("otter-grader") and pip[1:] == project["dependencies"]
    package = {p.relative_to(ROOT).as_posix() for p in (ROOT / "dpmarkov").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert {f"files/{p}" for p in package} <= names
    run = subprocess.run([sys.executable, "-c", "import dpmarkov, sys; print(dpmarkov.__file__)"],
                         cwd=tmp_path / "files", capture_output=True, text=True, check=True,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert Path(run.stdout.strip()).resolve() == (tmp_path / "files/dpmarkov/__init__.py").resolve()


def test_every_forbidden_delegation_is_tried():
    """Each assignment whose questions forbid `dm` has a mistake that delegates to it."""
    for entry in ASSIGNMENTS:
        master = nbformat.read(FOLDER / entry["folder"] / f"{entry['folder']}.ipynb", as_version=4)
        forbids = any(re.search(r"not\s+`dm", c.source) for c in master.cells if c.cell_type == "markdown")
        delegates = any(m.get("delegates") for m in entry["mistakes"])
        assert forbids == delegates, entry["folder"]


@pytest.mark.parametrize("name", NAMES)
def test_a_written_question_with_its_rubric(name, built):
    """A manual question per assignment; its model answer and rubric only for the teacher."""
    student, autograder, _ = built[name]
    manual = grading.manual_questions(name)
    assert manual and all(points > 0 for points in manual.values()), name
    teacher = "\n".join(c.source for c in nbformat.read(autograder, as_version=4).cells)
    pupil = "\n".join(c.source for c in nbformat.read(student, as_version=4).cells)
    assert teacher.count("**Rubric") == len(manual) and "**Model answer.**" in teacher
    assert "Rubric" not in pupil and "Model answer" not in pupil


@pytest.mark.parametrize("name", NAMES)
def test_the_student_notebook_names_its_assignment(name, built):
    """./run.sh grade finds a submission's autograder by this name (the master's config)."""
    student = nbformat.read(built[name][0], as_version=4)
    assert student.metadata["otter"]["assignment_name"] == name
    assert not any("grader.export" in c.source for c in student.cells)   # export_cell: false


def test_grade_a_folder_into_one_csv(built, tmp_path):
    """./run.sh grade: solution, blank and mistaken notebooks -> one row each, per question."""
    entry = next(a for a in ASSIGNMENTS if a["folder"] == "privacy")
    student, autograder, zip_path = built["privacy"]
    folder = tmp_path / "submissions"
    for who, nb in [("solution", nbformat.read(autograder, as_version=4)),
                    ("blank", nbformat.read(student, as_version=4)),
                    ("mistaken", _with_mistake(autograder, "privacy", entry["mistakes"][0]))]:
        (folder / who).mkdir(parents=True)
        nbformat.write(nb, folder / who / "privacy.ipynb")
    built_root = zip_path.parents[2]
    grading.grade_folder(folder, tmp_path / "scores.csv", built=built_root, seed=SEED,
                         unsafe=UNSAFE)
    rows = {r["submission"]: r for r in csv.DictReader((tmp_path / "scores.csv").open())}
    assert sorted(rows) == ["blank/privacy.ipynb", "mistaken/privacy.ipynb",
                            "solution/privacy.ipynb"]
    full = {"q1": "3", "q2": "3", "q3": "2"}
    manual = "q4 (by hand, of 3)"
    assert {q: rows["solution/privacy.ipynb"][q] for q in full} == full
    assert {q: rows["blank/privacy.ipynb"][q] for q in full} == dict.fromkeys(full, "0")
    assert rows["mistaken/privacy.ipynb"]["q1"] == "0" and rows["mistaken/privacy.ipynb"]["q2"] == "3"
    assert [rows[k]["autograded"] for k in sorted(rows)] == ["0", "5", "8"]
    assert all(r[manual] == "" and r["possible"] == "8" for r in rows.values())


def _solution_lines(master) -> set[str]:
    """Every line a solution consists of: marked `# SOLUTION` or inside BEGIN/END SOLUTION."""
    lines, inside = set(), False
    for cell in master.cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            text = line.strip()
            if text.startswith("# BEGIN SOLUTION"):
                inside = True
            elif text == "# END SOLUTION":
                inside = False
            elif inside or text.endswith("# SOLUTION"):
                code = text.removesuffix("# SOLUTION").strip()
                if code and code != "...":
                    lines.add(code)
    return lines


def _statements(code: str) -> set[str]:
    """The statements of ``code`` in ast's normal form (otter rewrites test code so)."""
    return {ast.unparse(node) for node in ast.parse(code).body}


def _doctest_code(case: dict) -> str:
    return "\n".join(line[4:] for line in case["code"].splitlines())


def _cases(test: dict, hidden: bool) -> list[str]:
    return [_doctest_code(case) for suite in test["suites"] for case in suite["cases"]
            if case["hidden"] == hidden]


def _hidden_asserts(master) -> set[str]:
    """The assert statements of the master's hidden tests."""
    out = set()
    for cell in master.cells:
        if cell.cell_type == "code" and cell.source.startswith('""" # BEGIN TEST CONFIG') \
                and re.search(r"^hidden:\s*true", cell.source, re.M):
            body = cell.source.split('""" # END TEST CONFIG', 1)[1]
            out |= {s for s in _statements(body) if s.startswith("assert")}
    return out


def _autograder_tests(zip_path: Path, into: Path) -> list[dict]:
    tests = []
    for path in grading.test_files(zip_path, into):
        env: dict = {}
        exec(path.read_text(), env)
        tests.append(env["test"])
    return tests


@pytest.mark.parametrize("name", NAMES)
def test_student_version_has_no_solution_and_no_hidden_test(name, built, tmp_path):
    student, _, zip_path = built[name]
    master = nbformat.read(FOLDER / name / f"{name}.ipynb", as_version=4)
    solution, hidden = _solution_lines(master), _hidden_asserts(master)
    assert solution and hidden, f"{name}: the master has no solution or no hidden test"
    nb = nbformat.read(student, as_version=4)
    lines = {t.strip() for c in nb.cells for t in c.source.splitlines()}
    assert not solution & lines, f"{name}: solution lines in the student notebook"
    public = [code for t in nb.metadata["otter"]["tests"].values() for code in _cases(t, False)]
    hidden_there = [code for t in nb.metadata["otter"]["tests"].values() for code in _cases(t, True)]
    assert public and not hidden_there
    seen = set().union(*(_statements(code) for code in public),
                       *(_statements(c.source) for c in nb.cells if c.cell_type == "code"))
    assert not hidden & seen, f"{name}: a hidden test is in the student notebook"
    # the autograder keeps every hidden test
    graded = set().union(*(_statements(code) for t in _autograder_tests(zip_path, tmp_path)
                           for code in _cases(t, True)))
    assert hidden <= graded, f"{name}: hidden tests missing from the autograder"


def _book_exercise_labels() -> set[str]:
    labels = set()
    for path in (ROOT / "book").glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                labels |= set(re.findall(r"\{exercise(?:-start)?\}[^\n]*\n:label:\s*([\w-]+)",
                                         cell.source))
    return labels


def test_manifest_matches_the_folders_and_the_book():
    assert sorted(p.name for p in FOLDER.iterdir()
                  if p.is_dir() and not p.name.startswith(".")) == sorted(NAMES)
    assert [a["part"] for a in ASSIGNMENTS] == ["Foundations", "Privacy", "Accuracy",
                                                "Markov chains", "Comparisons",
                                                "Beyond the paper"]
    book = _book_exercise_labels()
    for entry in ASSIGNMENTS:
        master = nbformat.read(FOLDER / entry["folder"] / f"{entry['folder']}.ipynb", as_version=4)
        named = set(EXERCISE.findall("\n".join(c.source for c in master.cells
                                               if c.cell_type == "markdown")))
        assert named == set(entry["exercises"]), entry["folder"]
        assert set(entry["exercises"]) <= book, f"{entry['folder']}: unknown exercise labels"


# otter's own result table uses a pandas call that pandas has deprecated
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.drop:Warning")
def test_otter_run_gives_the_sandboxed_score(built, tmp_path, monkeypatch):
    """One real `otter run` (a kernel, the autograder zip) agrees with ``grade`` on a partial score."""
    from otter.run import main as otter_run
    monkeypatch.setenv("PATH", os.environ.get("PATH", ""))   # otter run prepends to PATH
    entry = next(a for a in ASSIGNMENTS if a["folder"] == "privacy")
    _, autograder, zip_path = built["privacy"]
    submission = tmp_path / "privacy.ipynb"
    mistaken = _with_mistake(autograder, "privacy", entry["mistakes"][0])
    nbformat.write(mistaken, submission)
    results = grading.quiet(otter_run, str(submission), autograder=str(zip_path), output_dir=None,
                     no_logo=True)
    score, possible = grade(mistaken, zip_path, tmp_path / "sandboxed")
    assert (results.total, results.possible) == pytest.approx((score, possible))
    assert 0 < score < possible
