"""Bookkeeping stays out of sight (issue 29, item 3): glue calls live in hidden cells.

A chapter quotes its numbers through ``glue``; the calls are plumbing, not the code that
teaches, so they sit in cells tagged ``remove-input`` (or hidden otherwise).  A few remain in
visible cells, inside loops that also compute what a reader should see; their number may
only fall (``VISIBLE_GLUE_TODAY``).  A wrong rule would pass a chapter whose visible cells
gained glue calls; the count catches it.
"""
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = {"remove-input", "hide-input", "remove-cell"}
#: glue calls still in visible code cells (3 December 2026; there were 244 in 79 cells)
VISIBLE_GLUE_TODAY = 0


def visible_glue_calls(paths=None):
    """"chapter cell i" once per glue call in a visible code cell of ``paths`` (default:
    the book's notebooks)."""
    found = []
    for path in paths or sorted((ROOT / "book").glob("*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text())["cells"]):
            if cell["cell_type"] == "code" and not HIDDEN & set(cell["metadata"].get("tags", [])):
                n = len(re.findall(r"(?<![\w.])glue\(", "".join(cell["source"])))
                found += [f"{path.stem} cell {i}"] * n
    return found


def test_glue_calls_are_hidden():
    found = visible_glue_calls()
    assert len(found) <= VISIBLE_GLUE_TODAY, "glue calls in visible cells:\n" + "\n".join(found)


def test_a_visible_glue_call_is_counted(tmp_path):
    # the rule must see a glue call in a visible cell (also as a method call's neighbour and
    # after a hidden cell), and spare hidden cells, a method named *glue and markdown
    cells = [{"cell_type": "code", "metadata": {"tags": ["remove-input"]},
              "source": ['glue("a", 1, display=False)']},
             {"cell_type": "code", "metadata": {},
              "source": ["x = 2\n", 'y = obj.glue("b")\n', 'glue("b", x, display=False)']},
             {"cell_type": "code", "metadata": {"tags": ["hide-input"]},
              "source": ['glue("c", 3)']},
             {"cell_type": "markdown", "metadata": {}, "source": ["glue(d) in prose"]}]
    path = tmp_path / "fixture.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    assert visible_glue_calls([path]) == ["fixture cell 1"]
