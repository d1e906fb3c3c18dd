"""Make the student edition's source: the book with every exercise solution removed.

sphinx-exercise's ``hide_solutions`` option crashes on gated solutions
(``solution-start`` / ``solution-end``) in version 1.2.1, and would in any case
leave the solutions' code cells in the downloadable notebooks.  This script
copies the book to OUT (default ``_build/student_src``), deletes everything
between each ``solution-start`` and its ``solution-end`` (markdown and code
cells alike), turns execution off (the stored outputs of the remaining cells are
kept) and leaves a short note where each solution was.  ``./run.sh student``
then builds OUT.
"""
from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
START = re.compile(r"^(`{3,}|:{3,})\{solution-start\}.*?^\1\s*$", re.M | re.S)
END = re.compile(r"^(`{3,}|:{3,})\{solution-end\}.*?^\1\s*$", re.M | re.S)
NOTE = "*The solution is hidden in the student edition.*"


def strip_solutions(nb) -> int:
    """Remove every gated solution from ``nb`` in place; return how many were removed."""
    cells, inside, removed = [], False, 0
    for cell in nb.cells:
        if cell.cell_type == "code":
            if not inside:
                cells.append(cell)
            continue
        text, kept = cell.source, []
        while text:
            if inside:
                m = END.search(text)
                if not m:
                    text = ""
                    break
                text, inside = text[m.end():], False
                kept.append("\n" + NOTE + "\n")
            else:
                m = START.search(text)
                if not m:
                    kept.append(text)
                    break
                kept.append(text[:m.start()])
                text, inside, removed = text[m.end():], True, removed + 1
        source = "".join(kept).strip()
        if source:
            cell.source = source
            cells.append(cell)
    if inside:
        raise ValueError("a solution-start has no matching solution-end")
    nb.cells = cells
    return removed


def main(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    ignore = shutil.ignore_patterns(".venv", "_build", ".git", "__pycache__", ".pytest_cache")
    shutil.copytree(ROOT, out, ignore=ignore)
    total = 0
    for path in sorted((out / "book").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        total += strip_solutions(nb)
        nbformat.write(nb, path)
    config = yaml.safe_load((out / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"
    config["title"] = config["title"] + " (student edition)"
    (out / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    print(f"student edition source in {out}: {total} solutions removed")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "_build" / "student_src")
