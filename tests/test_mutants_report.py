"""tests/MUTANTS.md is the output of scripts/mutants.py for the rows in tests/mutants.jsonl.

The measured kill rate is generated, never typed: a hand edit of the table, a row added to the
rows file without regenerating, or an ``EQUIVALENT`` entry added or dropped without
regenerating fails here (README.md, "Mutation testing").
"""
import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("mutmut")


def _script():
    spec = importlib.util.spec_from_file_location("mutants_script", ROOT / "scripts" / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_report_is_generated_from_the_rows():
    m = _script()
    page = (ROOT / "tests" / "MUTANTS.md").read_text()
    assert page == m.report(m.latest(ROOT / "tests" / "mutants.jsonl"))
    # the fixture it must fail: the same page with one count typed differently
    typed = re.sub(r"\| mechanism \| (\d+) \(",
                   lambda hit: f"| mechanism | {int(hit.group(1)) + 1} (", page, count=1)
    assert typed != page and typed != m.report(m.latest(ROOT / "tests" / "mutants.jsonl"))


def test_the_table_counts_each_mutant_once_by_its_last_row(tmp_path):
    m = _script()
    diff = ["-    x = a + 1", "+    x = a - 1"]
    other = ["-    y = 2", "+    y = 3"]
    rows = [{"module": "mod", "line": 3, "killed": False, "diff": diff, "of": 10},
            {"module": "mod", "line": 3, "killed": True, "diff": diff, "of": 10},   # re-run: killed
            {"module": "mod", "line": 5, "killed": False, "diff": other, "of": 10}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    page = m.report(m.latest(path))
    assert "| mod | 2 (10) | 1 | 0 | 1 | 1/2 (50 %) |" in page
    m.EQUIVALENT[("mod", "-y = 2 | +y = 3")] = "a reason"
    try:
        page = m.report(m.latest(path))
    finally:
        del m.EQUIVALENT[("mod", "-y = 2 | +y = 3")]
    assert "| mod | 2 (10) | 1 | 1 | 0 | 1/1 (100 %) |" in page
    assert "`-y = 2 | +y = 3`: a reason" in page
