"""The book's code fits the page's code column (issue 29, item 2; issue 35, item 2).

The code column at a 1400 px window holds about 85 characters (scripts/page_fit.py measures
it; tests/test_browser.py checks in Chromium that no code line wraps or scrolls there), so the
code is formatted to 79 columns by a standard formatter: ``ruff format`` (Black's style,
``ruff.toml``) must leave every notebook in book/ unchanged.  A formatter splits statements,
not strings or comments; ``scripts/fit_code.py`` does those (trailing comments above their
statement, long comments and docstrings re-wrapped, long strings cut into adjacent
literals, the code's syntax tree unchanged), so no visible code line is wider than 79.

    .venv/bin/python scripts/fit_code.py book/*.ipynb && .venv/bin/ruff format book
"""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import myst_text
import ruff  # noqa: F401  (the formatter; its import keeps this file out of test-oldest)

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 79
_spec = importlib.util.spec_from_file_location("fit_code", ROOT / "scripts" / "fit_code.py")
fit_code = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit_code)


def test_the_formatter_width_is_the_column_width():
    assert f"line-length = {WIDTH}\n" in (ROOT / "ruff.toml").read_text()
    assert fit_code.WIDTH == WIDTH


def test_notebooks_are_formatted():
    run = subprocess.run([sys.executable, "-m", "ruff", "format", "--check", "book"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def long_lines(path, width=WIDTH):
    """Visible code lines (not in cells whose input is removed) wider than ``width``."""
    out = []
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "code" and not {"remove-cell", "remove-input"} & set(
            cell["metadata"].get("tags", [])
        ):
            out += [f"{path.stem}: {line}" for line in "".join(cell["source"]).splitlines()
                    if len(line) > width]
    return out


#: Pages other tasks rewrite (issue 35 is fixed there): the instructor guide (course) and
#: "Run a chapter yourself" (portable).
OTHERS = {"instructor_guide", "run_locally"}


def long_block_lines(path, width=WIDTH):
    """Lines wider than ``width`` in the code blocks of a notebook's prose (```python,
    ```bash, a code directive; read as MyST reads them, directive bodies included)."""
    return [f"{path.stem}: {line}" for text in myst_text.markdown_cells(path)
            for kind, code in myst_text.pieces(text) if kind == "code"
            for line in code.splitlines() if len(line) > width]


def test_no_visible_code_line_is_wider_than_the_column():
    found = [line for path in sorted((ROOT / "book").glob("*.ipynb")) for line in long_lines(path)]
    found += [line for path in sorted((ROOT / "book").glob("*.ipynb"))
              if path.stem not in OTHERS for line in long_block_lines(path)]
    assert not found, "\n".join(found)


def _notebook(tmp_path, source, tags=()):
    path = tmp_path / "fixture.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {"tags": list(tags)},
                                           "source": source, "outputs": []}]}))
    return path


def test_a_long_line_fails_unless_its_input_is_hidden(tmp_path):
    line = "x = 1  # " + "a comment that runs past the column " * 3
    assert long_lines(_notebook(tmp_path, line))
    assert not long_lines(_notebook(tmp_path, line, ["remove-input"]))
    prose = tmp_path / "prose.ipynb"
    block = (f"Text.\n\n```bash\n{line}\n```\n\n```{{prf:remark}} Title\n{line}\n```\n\n"
             f":::{{admonition}} A\n:class: tip\n\n```python\n{line}\n```\n:::\n")
    prose.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {},
                                            "source": block}]}))
    # the bash block and the block inside the admonition are code and count; the remark's
    # body is prose and does not
    assert len(long_block_lines(prose)) == 2


def test_fit_code_moves_wraps_and_cuts_without_changing_the_code(monkeypatch):
    source = ("k, c = (20.0, 3)  # adjacent: one record moved, a comment long enough to split it\n"
              "print(f\"{k:.1f} records in {c} categories: a message long enough to be cut, twice "
              "over, by the script\")\n"
              "def f():\n"
              '    """A docstring line long enough to pass the column of seventy-nine chars."""\n')
    # the script, then the formatter (which puts the cut pieces on lines of their own)
    fitted = subprocess.run([sys.executable, "-m", "ruff", "format", "--stdin-filename",
                             "fixture.py", "-"], input=fit_code.fit(source), cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    assert all(len(line) <= WIDTH for line in fitted.splitlines()), fitted
    moved = "# adjacent: one record moved, a comment long enough to split it"
    assert fitted.splitlines()[0] == moved
    assert fit_code._meaning(fitted) == fit_code._meaning(source)
    # the meaning: docstring line breaks do not count, a string's characters do
    two_lines, one_line = 'def f():\n    """a\n    b"""', 'def f():\n    """a b"""'
    assert fit_code._meaning(two_lines) == fit_code._meaning(one_line)
    assert fit_code._meaning("x = 'a b'") != fit_code._meaning("x = 'ab'")
    # a step that changed the meaning (a cut that drops the space) is refused: the cell stays
    monkeypatch.setattr(fit_code, "split_strings",
                        lambda s, w: s.replace("cut, twice", "cut,twice"))
    assert fit_code.fit(source) == source
