"""Give every book notebook a first cell that explains what to do when dpmarkov is missing.

A reader who downloads a chapter and runs it without the package would otherwise meet a
bare ``ModuleNotFoundError: No module named 'dpmarkov'`` somewhere in the middle.  This
script inserts (or refreshes) one small code cell at the top of every notebook in
``book/`` that has code: it imports dpmarkov and, if that fails, stops with a message that
says how to install the wheel the book offers (page "Run a chapter yourself").  The cell
is tagged ``remove-cell`` (it is not shown in the HTML book; it is in the downloads) and
carries the marker comment below, so running the script twice changes nothing.

Usage:  python scripts/import_guard.py [NOTEBOOK ...]   (default: book/*.ipynb)
Notebooks that changed must then be re-executed (scripts/run_notebook.py): the new cell
shifts every execution count by one.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
MARKER = "# dpmarkov import guard (scripts/import_guard.py)"
TAG = "remove-cell"
SOURCE = f'''{MARKER}
try:
    import dpmarkov  # noqa: F401
except ImportError:
    raise ModuleNotFoundError(
        "This notebook needs the dpmarkov package, which is not installed "
        "in this kernel's environment. Download the wheel and "
        "reader-requirements.txt from the book's page 'Run a chapter "
        "yourself', then run: python -m pip install -r "
        "reader-requirements.txt dpmarkov-*.whl (in the environment of "
        "this kernel) and restart the kernel."
    ) from None'''   # as ruff formats it at 79 columns (ruff.toml)


def is_guard(cell) -> bool:
    return cell.cell_type == "code" and cell.source.startswith(MARKER)


def has_guard(nb) -> bool:
    """True when the notebook's first cell is the guard cell, exactly as this script writes it."""
    return bool(nb.cells) and is_guard(nb.cells[0]) and nb.cells[0].source == SOURCE


def add_guard(nb) -> bool:
    """Put the guard cell first in ``nb`` (in place); return True when ``nb`` changed.

    A notebook without code cells is left alone (it imports nothing).  Stale or
    misplaced guard cells are removed before the current one is inserted.
    """
    if has_guard(nb) and not any(is_guard(c) for c in nb.cells[1:]):
        return False
    others = [c for c in nb.cells if not is_guard(c)]
    if not any(c.cell_type == "code" for c in others):
        if len(others) == len(nb.cells):
            return False
        nb.cells = others
        return True
    cell = nbformat.v4.new_code_cell(SOURCE, metadata={"tags": [TAG]})
    if nb.nbformat_minor >= 5:
        cell["id"] = "dpmarkov-import-guard"  # fixed, so the script is idempotent
    else:
        cell.pop("id", None)
    nb.cells = [cell] + others
    return True


def main(paths: list[Path]) -> int:
    changed = 0
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if add_guard(nb):
            nbformat.write(nb, path)
            changed += 1
            print(f"guard added: {path}")
    print(f"{changed} of {len(paths)} notebooks changed (re-execute them with scripts/run_notebook.py)")
    return 0


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]] or sorted((ROOT / "book").glob("*.ipynb"))
    sys.exit(main(args))
