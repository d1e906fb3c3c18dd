"""The grading gates (scripts/grading/hidden.py): fresh hidden inputs that honest work passes.

The master notebooks' own solutions (trusted code, run here) pass every gate under several
instructor seeds, so no seed costs an honest student a point; each typical mistake of
assignments/assignments.yml that changes a gated function fails the same gates under every
seed, so what a mistake costs does not depend on the seed (tests/test_assignments.py checks
the cost itself at one seed); and FORBIDDEN names exactly the functions whose hidden tests
watch for calls into dpmarkov.
"""
from __future__ import annotations

import contextlib
import io
import re
import sys
import warnings
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from grading import hidden

MASTERS = ROOT / "assignments"
ASSIGNMENTS = yaml.safe_load((MASTERS / "assignments.yml").read_text())
SEEDS = [0, 1, 2, 3, 2**63 + 5]


def _master_cells(name: str) -> list[str]:
    master = nbformat.read(MASTERS / name / f"{name}.ipynb", as_version=4)
    return [c.source for c in master.cells if c.cell_type == "code"
            and not c.source.startswith('""" # BEGIN TEST CONFIG')]


def _functions(name: str, replace: tuple[str, str] | None = None) -> dict:
    """The master's code run here (its test cells left out), one line optionally replaced."""
    env: dict = {"__name__": "__master__"}
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for source in _master_cells(name):
            if replace:
                source = source.replace(*replace)
            with contextlib.suppress(Exception):
                exec(compile(source, "<master>", "exec"), env)  # noqa: S102 - trusted master
    return env


def _failing(name: str, env: dict, seed: int) -> set:
    def call(function, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # a mistaken formula may warn (log of 0/0)
            return env[function](*args)
    return {key for key, gate in hidden.GATES[name].items()
            if not hidden.passes(gate, call, hidden.gate_rng(seed, name, *key))}


@pytest.mark.parametrize("name", [a["folder"] for a in ASSIGNMENTS])
def test_the_solutions_pass_every_gate_under_every_seed(name):
    env = _functions(name)
    for seed in SEEDS:
        assert _failing(name, env, seed) == set(), (name, seed)


def _changes_a_gated_function(name: str, mistake: dict) -> bool:
    """True if the mistake's line is in the body (indented) of a gated function's cell."""
    cell = next(c for c in _master_cells(name) if mistake["solution"] in c)
    line = next(t for t in cell.splitlines() if mistake["solution"] in t)
    return line.startswith(" ") and any(f"def {g.function}(" in cell
                                        for g in hidden.GATES[name].values())


GATED_MISTAKES = [(a["folder"], m) for a in ASSIGNMENTS for m in a["mistakes"]
                  if _changes_a_gated_function(a["folder"], m)]


@pytest.mark.parametrize("name, mistake", [(n, m) for n, m in GATED_MISTAKES
                                           if not m.get("delegates")],
                         ids=lambda x: x if isinstance(x, str) else x["what"][:40])
def test_a_mistake_fails_the_same_gates_under_every_seed(name, mistake):
    env = _functions(name, (mistake["solution"], mistake["mistake"]))
    failing = [_failing(name, env, seed) for seed in SEEDS]
    assert failing[0] and all(f == failing[0] for f in failing), failing


def test_a_wrong_function_fails_its_gate():
    """The gates are not vacuous: for each gated function, a wrong one fails every gate it has."""
    for name, gates in hidden.GATES.items():
        for key, gate in gates.items():
            def wrong(function, *args):
                return 0.123
            assert not hidden.passes(gate, wrong, hidden.gate_rng(0, name, *key)), (name, key)


def test_forbidden_functions_are_those_the_hidden_tests_watch():
    for entry in ASSIGNMENTS:
        name = entry["folder"]
        text = "\n".join(c.source for c in nbformat.read(
            MASTERS / name / f"{name}.ipynb", as_version=4).cells)
        watched = set(re.findall(r'"(\w+) calls dpmarkov"', text))
        assert hidden.FORBIDDEN[name] == watched, name


def test_every_gate_guards_a_case_that_calls_its_function():
    """A gate sits on test case ``i`` of its question (otter's order: the public case first,
    then the hidden ones in the master's order), and that case calls the function."""
    for name, gates in hidden.GATES.items():
        master = nbformat.read(MASTERS / name / f"{name}.ipynb", as_version=4)
        cases, question = {}, None
        for cell in master.cells:
            if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
                question = yaml.safe_load(cell.source.split("\n", 1)[1])["name"]
            elif cell.cell_type == "raw" and cell.source.startswith("# BEGIN TESTS"):
                cases[question] = []
            elif cell.cell_type == "raw" and cell.source.startswith("# END TESTS"):
                question = None
            elif cell.cell_type == "code" and question in cases:
                cases[question].append(cell.source)
        for (q, i), gate in gates.items():
            assert f"{gate.function}(" in cases[q][i], (name, q, i)
