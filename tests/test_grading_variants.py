"""The variants of the assignments' given data (scripts/grading/variants.py), without a sandbox.

``./run.sh grade`` replaces each cell of an assignment's given data by a variant drawn from
the instructor's seed and decides the hidden test cases that check an answer computed from
those data on the variant. Here, in this process (the masters' own solution code, trusted):

- every hidden case that reads an answer variable (a name a solution cell sets, not a
  function) is decided on the variant; a variant that forgets one is caught (fixture);
- the solutions' answers, computed on the variant, pass every such case, for several seeds;
- the answers computed on the published data fail every such case on every variant: the
  variant differs from the published data in every value an answer depends on.

The sandboxed route (typed answers scoring what the blank notebook scores, the solution full
marks on another seed) is in tests/test_assignments.py.
"""
from __future__ import annotations

import ast
import importlib.util
import sys
import warnings
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("grade", ROOT / "scripts" / "grade.py")
grading = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(grading)
variants = sys.modules["grading.variants"]
NAMES = [a["folder"] for a in yaml.safe_load((ROOT / "assignments" / "assignments.yml").read_text())]
SEEDS = list(range(8))


def _master(name: str):
    return nbformat.read(ROOT / "assignments" / name / f"{name}.ipynb", as_version=4)


def _answer_names(nb) -> set[str]:
    """Names a solution cell sets at top level, other than functions."""
    names, inside = set(), False
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.startswith("# BEGIN SOLUTION"):
            inside = True
        elif cell.cell_type == "raw" and cell.source.startswith("# END SOLUTION"):
            inside = False
        elif inside and cell.cell_type == "code":
            for node in ast.parse(cell.source).body:
                targets = node.targets if isinstance(node, ast.Assign) else []
                for target in targets:
                    names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def answer_cases(nb) -> set[tuple[str, int]]:
    """(question, case) of every test case that reads an answer variable (case 0 is the
    public test, then the hidden ones in order, as otter numbers them)."""
    answers, out = _answer_names(nb), set()
    question, case, inside = None, 0, False
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
            question = yaml.safe_load(cell.source.split("\n", 1)[1])["name"]
        elif cell.cell_type == "raw" and cell.source.startswith("# BEGIN TESTS"):
            inside, case = True, 0
        elif cell.cell_type == "raw" and cell.source.startswith("# END TESTS"):
            inside = False
        elif inside and cell.cell_type == "code":
            read = {n.id for n in ast.walk(ast.parse(cell.source)) if isinstance(n, ast.Name)}
            if "hidden: true" in cell.source and read & answers:
                out.add((question, case))
            case += 1
    return out


def uncovered(name: str, variant) -> set[tuple[str, int]]:
    return answer_cases(_master(name)) - set(variant.checks)


@pytest.mark.parametrize("name", NAMES)
def test_every_answer_from_the_data_is_checked_on_the_variant(name):
    variant = variants.VARIANTS[name]
    assert answer_cases(_master(name)), name
    assert uncovered(name, variant) == set()
    # the fixture it must fail: the same variant without one of its checks
    case = sorted(variant.checks)[0]
    short = variants.Variant(variant.cells, {c: f for c, f in variant.checks.items() if c != case})
    assert uncovered(name, short) == {case}


def _run(name: str, replacements: dict[str, str]) -> dict:
    """The master's solution, run here on the given data of ``replacements``."""
    replace = {k.strip(): v for k, v in replacements.items()}
    env: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cell in _master(name).cells:
            if cell.cell_type == "code" and "TEST CONFIG" not in cell.source \
                    and not cell.source.startswith("assert"):
                grading.quiet(exec, replace.get(cell.source.strip(), cell.source), env)
    return env


@pytest.fixture(scope="module")
def published():
    return {name: _run(name, {}) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_the_solution_passes_on_every_variant_and_the_published_answers_never(name, published):
    variant = variants.VARIANTS[name]
    answers = _answer_names(_master(name))
    for seed in SEEDS:
        cells = variants.draw(variant, variants.variant_rng(seed, name))
        given = variants.given(cells)
        honest = _run(name, cells)
        assert {c: check({**honest, **given}) for c, check in variant.checks.items()} == \
            dict.fromkeys(variant.checks, True), (name, seed)
        typed = {k: v for k, v in published[name].items() if k in answers}
        assert {c: check({**honest, **typed, **given}) for c, check in variant.checks.items()} \
            == dict.fromkeys(variant.checks, False), (name, seed)
