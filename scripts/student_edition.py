"""Make the student edition's source: the book with the exercise solutions removed.

sphinx-exercise's ``hide_solutions`` option crashes on gated solutions
(``solution-start`` / ``solution-end``) in version 1.2.1, and would in any case
leave the solutions' code cells in the downloadable notebooks.  This script
copies the book to OUT (default ``_build/student_src``), deletes everything
between each ``solution-start`` and its ``solution-end`` (markdown and code
cells alike), turns execution off (the stored outputs of the remaining cells are
kept), leaves a short note where each solution was and rewords what the book says
about its solutions (``EDITION_TEXT``).  ``./run.sh student``
then builds OUT.

The graded assignments (``assignments/assignments.yml``) name the book's
exercises they grade.  Their solutions are never in the student edition, and
their note says which assignment grades them.  With ``--practice-solutions`` the
solutions of all other exercises stay (an edition for self-study alongside the
graded work); without it every solution goes.  The assignments' master
notebooks (solutions and hidden tests) are not copied.

Usage: python scripts/student_edition.py [OUT] [--practice-solutions]
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
START = re.compile(r"^(`{3,}|:{3,})\{solution-start\}[ \t]*([\w-]*).*?^\1\s*$", re.M | re.S)
END = re.compile(r"^(`{3,}|:{3,})\{solution-end\}.*?^\1\s*$", re.M | re.S)
EXERCISE_LABEL = re.compile(r"^(`{3,}|:{3,})\{exercise(?:-start)?\}[^\n]*\n:label:\s*([\w-]+)", re.M)
NOTE = "*The solution is hidden in the student edition.*"
GRADED_NOTE = "*This exercise is graded in the assignment {part}: its solution is not in the student edition.*"
# never copied: build output, environments, and the assignments' solutions and hidden tests
#: What the book says about its solutions, and what each edition says instead: notebook ->
#: [(the book's words, without solutions, with the practice solutions kept)].  The book's
#: words must be found (a reworded sentence fails the script and tests/test_student_edition.py
#: rather than telling students of dropdowns they do not have).
EDITION_TEXT = {
    "intro.ipynb": [(
        "exercises whose solutions are hidden in dropdowns (and run as code)",
        "exercises (this student edition leaves out their solutions)",
        "exercises whose solutions are hidden in dropdowns (and run as code), except those of "
        "the graded assignments, which this student edition leaves out")],
}
IGNORE = shutil.ignore_patterns(".venv", "_build", ".git", "__pycache__", ".pytest_cache",
                                "assignments")


def graded_exercises(manifest: Path = ROOT / "assignments" / "assignments.yml") -> dict[str, str]:
    """Exercise label -> the part of the book whose assignment grades it."""
    if not manifest.exists():
        return {}
    return {label: entry["part"] for entry in yaml.safe_load(manifest.read_text())
            for label in entry.get("exercises", [])}


def exercise_labels(book: Path = ROOT / "book") -> set[str]:
    """Every exercise label the chapters define."""
    return {m.group(2) for path in book.glob("*.ipynb")
            for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown"
            for m in EXERCISE_LABEL.finditer(cell.source)}


def strip_solutions(nb, graded: dict[str, str] | None = None, *, practice: bool = False) -> int:
    """Remove gated solutions from ``nb`` in place; return how many were removed.

    ``graded`` maps the labels of exercises an assignment grades to the assignment's
    part: those solutions are always removed, with a note naming the assignment.  With
    ``practice=True`` the solutions of the other exercises are kept.
    """
    graded = graded or {}
    cells, inside, removing, removed, label = [], False, False, 0, ""
    for cell in nb.cells:
        if cell.cell_type == "code":
            if not (inside and removing):
                cells.append(cell)
            continue
        text, kept = cell.source, []
        while text:
            if inside:
                m = END.search(text)
                if not m:
                    if not removing:
                        kept.append(text)
                    text = ""
                    break
                if removing:
                    part = graded.get(label)
                    kept.append("\n" + (GRADED_NOTE.format(part=part) if part else NOTE) + "\n")
                else:
                    kept.append(text[:m.end()])
                text, inside = text[m.end():], False
            else:
                m = START.search(text)
                if not m:
                    kept.append(text)
                    break
                label = m.group(2)
                removing = label in graded or not practice
                kept.append(text[:m.start()] if removing else text[:m.end()])
                text, inside = text[m.end():], True
                removed += removing
        source = "".join(kept).strip()
        if source:
            cell.source = source
            cells.append(cell)
    if inside:
        raise ValueError("a solution-start has no matching solution-end")
    nb.cells = cells
    return removed


def reword(nb, name: str, *, practice: bool = False) -> int:
    """Replace in ``nb`` (the notebook ``name``) what the book says about its solutions with
    what the student edition says (``EDITION_TEXT``); return how many sentences changed.
    Raises ValueError when a sentence to replace is not in the notebook."""
    changed = 0
    for book_words, without, with_practice in EDITION_TEXT.get(name, []):
        cells = [c for c in nb.cells if c.cell_type == "markdown" and book_words in c.source]
        if not cells:
            raise ValueError(f"{name} no longer says {book_words!r}: update EDITION_TEXT in "
                             "scripts/student_edition.py to what the book says now")
        for cell in cells:
            cell.source = cell.source.replace(book_words, with_practice if practice else without)
            changed += 1
    return changed


def main(out: Path, *, practice: bool = False) -> None:
    graded = graded_exercises()
    unknown = sorted(set(graded) - exercise_labels())
    if unknown:
        raise ValueError(f"assignments/assignments.yml grades exercises {unknown}, which no "
                         "chapter defines: correct the labels there")
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(ROOT, out, ignore=IGNORE)
    total = 0
    for path in sorted((out / "book").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        total += strip_solutions(nb, graded, practice=practice)
        reword(nb, path.name, practice=practice)
        nbformat.write(nb, path)
    # the assignments' student notebooks (no solutions), which the page "Run a chapter yourself"
    # offers, built here from the masters, which stay out of the copy; with the manifest
    (out / "assignments").mkdir()
    shutil.copy2(ROOT / "assignments" / "assignments.yml", out / "assignments" / "assignments.yml")
    spec = importlib.util.spec_from_file_location("dpmarkov_book", ROOT / "_ext" / "dpmarkov_book.py")
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    ext.build_student_assignments(out / ext.STUDENT_NOTEBOOKS)
    config = yaml.safe_load((out / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"
    config["title"] = config["title"] + " (student edition)"
    (out / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    print(f"student edition source in {out}: {total} solutions removed")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=ROOT / "_build" / "student_src")
    parser.add_argument("--practice-solutions", action="store_true",
                        help="keep the solutions of exercises that no assignment grades")
    args = parser.parse_args()
    main(args.out, practice=args.practice_solutions)
