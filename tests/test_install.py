"""Run it yourself (issue 14, part 3): what the site offers is enough to run a chapter.

Builds the wheel, checks that it carries every dataset file, installs it with
reader-requirements.txt into a fresh virtual environment (from the package registry; no
file of the repository is on the path there), and executes notebooks downloaded from the
built site (_build/html/_sources, what the page's download button serves) in that
environment, top to bottom; and runs each graded assignment's student notebook as the site
offers it (reader-requirements.txt includes otter-grader) up to its first question and
its public tests.  Slow and needs the registry: it runs only from
``./run.sh test-install`` (DPMARKOV_TEST_INSTALL=1), which .ci/run calls after ``./run.sh test``.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from test_reader_setup import install_lines, page_text

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
# a case study that reads the shipped data, and a chapter that imports most of the package
NOTEBOOKS = os.environ.get("DPMARKOV_INSTALL_NOTEBOOKS", "grades_case_study dirichlet_mechanism").split()

pytestmark = pytest.mark.skipif(os.environ.get("DPMARKOV_TEST_INSTALL") != "1",
                                reason="slow, installs from the registry: ./run.sh test-install")

import docutils  # noqa: E402,F401  (the book's extension, loaded below, needs it; keeps test-oldest off)

_spec = importlib.util.spec_from_file_location("dpmarkov_book", ROOT / "_ext" / "dpmarkov_book.py")
ext = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ext)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return ext.build_wheel(tmp_path_factory.mktemp("wheel"))


def test_wheel_carries_every_dataset_file(wheel):
    data = ROOT / "dpmarkov" / "datasets" / "data"
    shipped = {p.relative_to(ROOT).as_posix() for p in data.rglob("*") if p.is_file()}
    assert shipped, "no dataset files found"
    names = set(zipfile.ZipFile(wheel).namelist())
    assert shipped <= names, f"missing from the wheel: {sorted(shipped - names)[:10]}"


def _clean_env(venv: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "JUPYTER", "CONDA"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["MPLBACKEND"] = "Agg"
    return env


@pytest.fixture(scope="module")
def reader_env(tmp_path_factory, wheel):
    """A fresh venv holding only the wheel and reader-requirements.txt (as the page says)."""
    home = tmp_path_factory.mktemp("reader")
    venv = home / "dpmarkov-env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    env = _clean_env(venv)
    shutil.copy2(ROOT / "reader-requirements.txt", home)
    shutil.copy2(wheel, home)
    # the page's own install lines, the same in every shell (tests/test_reader_setup.py)
    for line in install_lines(page_text()):
        assert line.startswith("python ")
        subprocess.run([str(py), *line.split()[1:], "--quiet"], check=True, cwd=home, env=env)
    return home, py, env


def test_the_package_comes_from_the_wheel(reader_env):
    home, py, env = reader_env
    where = subprocess.run([str(py), "-c", "import dpmarkov, dpmarkov.datasets as d; "
                            "print(dpmarkov.__file__); print(len(d.load_grades()))"],
                           cwd=home, env=env, capture_output=True, text=True, check=True).stdout
    assert "site-packages" in where and str(ROOT) not in where, where


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_downloaded_notebook_runs(reader_env, name):
    home, py, env = reader_env
    src = HTML / "_sources" / "book" / f"{name}.ipynb"
    if not src.is_file():  # no built site: its source is the same file
        src = ROOT / "book" / f"{name}.ipynb"
    work = home / "chapter"
    work.mkdir(exist_ok=True)
    shutil.copy2(src, work / src.name)
    code = ("import nbformat, nbclient; nb = nbformat.read('{0}', 4); "
            "nbclient.NotebookClient(nb, timeout=900, kernel_name='python3').execute(); "
            "errs = [o for c in nb.cells for o in c.get('outputs', []) "
            "if o.get('output_type') == 'error']; assert not errs, errs; print('ran', '{0}')")
    run = subprocess.run([str(py), "-c", code.format(src.name)], cwd=work, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]


ASSIGNMENTS = [a["folder"] for a in ext.assignments()]


def _offered_student_notebook(name: str, tmp: Path) -> Path:
    """The student notebook of assignment ``name`` as the built site offers it (the page
    "Run a chapter yourself" links it; Sphinx serves it from _downloads), else built the same way."""
    offered = sorted((HTML / "_downloads").glob(f"*/{name}.ipynb"))
    if offered:
        return offered[0]
    return next(p for p in ext.build_student_assignments(tmp) if p.stem == name)


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_a_downloaded_assignment_runs_its_public_tests(reader_env, name, tmp_path):
    """The blank student notebook, in the reader's environment: everything up to its first
    question runs without error (otter starts), and every `grader.check` cell runs the
    public tests of its question (they fail, the answers being blank)."""
    home, py, env = reader_env
    work = home / f"assignment-{name}"
    work.mkdir(exist_ok=True)
    shutil.copy2(_offered_student_notebook(name, tmp_path), work / f"{name}.ipynb")
    code = ("import json, nbformat, nbclient; nb = nbformat.read('{0}.ipynb', 4); "
            "nbclient.NotebookClient(nb, timeout=900, kernel_name='python3', "
            "allow_errors=True).execute(); "
            "print(json.dumps([[c.source, [o.get('output_type') for o in c.outputs], "
            "''.join(o.get('text', '') + str(o.get('data', {{}}).get('text/plain', '')) "
            "for o in c.outputs)] for c in nb.cells if c.cell_type == 'code']))")
    run = subprocess.run([str(py), "-c", code.format(name)], cwd=work, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    cells = json.loads(run.stdout.strip().splitlines()[-1])
    first_check = next(i for i, (src, _, _) in enumerate(cells) if "grader.check(" in src)
    for src, kinds, _ in cells[:first_check + 1]:
        assert "error" not in kinds, f"{name}: a cell before the first question failed: {src[:80]}"
    checks = [(src, text) for src, _, text in cells if "grader.check(" in src]
    assert checks and all(re.search(r"q\d+ results", text) for _, text in checks), checks
