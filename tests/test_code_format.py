"""The book's code is formatted to 88 columns by a standard formatter (issue 29, item 2).

``ruff format`` (Black's style, ``ruff.toml``: 88 columns) must leave every notebook in book/
unchanged: run ``.venv/bin/ruff format book`` after editing a chapter.  A formatter does not
split long strings and comments, so the lines it leaves over 88 columns are counted, and the
count may only fall (``LONG_LINES_TODAY``; the browser check in ./run.sh test-install
measures what a reader sees at 1400 and 800 px).
"""
import json
import subprocess
import sys
from pathlib import Path

import ruff  # noqa: F401  (the formatter; its import keeps this file out of test-oldest)

ROOT = Path(__file__).resolve().parents[1]
#: Visible code lines (not in cells whose input is removed) over 88 columns that the
#: formatter cannot split (strings, comments).
LONG_LINES_TODAY = 194


def test_notebooks_are_formatted():
    run = subprocess.run([sys.executable, "-m", "ruff", "format", "--check", "book"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_long_lines_do_not_grow():
    long_lines = []
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code" and not {"remove-cell", "remove-input"} & set(
                cell["metadata"].get("tags", [])
            ):
                long_lines += [f"{path.stem}: {line}" for line in "".join(cell["source"]).splitlines()
                               if len(line) > 88]
    assert len(long_lines) <= LONG_LINES_TODAY, "\n".join(long_lines)
