"""Make the source of a reader's edition of the book: the public site or the student edition.

The repository is the **instructor edition**: every worked solution, and the pages in the
table of contents' part ``INSTRUCTOR_PART`` (the exams, with their solutions and rubrics).
``./run.sh instructor`` builds it as it is.  The editions readers get are built from a copy
that this script writes to OUT:

- ``public`` (``./run.sh book``, the site): the solutions of the exercises the graded
  assignments grade (``assignments/assignments.yml``) are removed, each replaced by a note
  naming its assignment; the other exercises keep their solutions; the notebooks execute
  as ``_config.yml`` says.
- ``student`` (``./run.sh student``): every solution is removed; execution is turned off
  (the stored outputs of the remaining cells are kept).

Both leave out the instructor part (its pages and its entry in ``_toc.yml``), the
assignments' master notebooks (solutions and hidden tests; the students' notebooks are
built from them with ``otter assign`` for the page "Run a chapter yourself"), and reword
what the book says about its solutions (``EDITION_TEXT``).  A solution is removed as a
whole: everything between its ``solution-start`` and its ``solution-end``, markdown and
code cells alike, so it is in no page, no downloadable notebook and no search index
(``tests/test_student_edition.py`` checks the notebooks, and the built site when
``_build/html`` exists).  sphinx-exercise's ``hide_solutions`` would not do: it crashes on
gated solutions in version 1.2.1 and would leave the code cells in the downloads.

Usage: python scripts/student_edition.py [OUT] [--edition public|student]
"""
from __future__ import annotations

import argparse
import html
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
NOTE = "*The solution is not in the student edition.*"
GRADED_NOTE = ("*This exercise is graded in the assignment {part}: its solution is in the "
               "instructor edition only.*")
#: The editions this script makes: whether practice solutions stay, and whether the
#: notebooks execute at build time (``None``: as _config.yml says) or show stored outputs.
EDITIONS = {
    "public": {"practice": True, "execute": None, "title": ""},
    "student": {"practice": False, "execute": "off", "title": " (student edition)"},
}
#: The part of _toc.yml that only the instructor edition has.
INSTRUCTOR_PART = "Instructor edition only"
#: What the book says about its solutions, and what each edition says instead: notebook ->
#: [(the book's words, the public edition's, the student edition's)].  The book's words
#: must be found (a reworded sentence fails the script and tests/test_student_edition.py
#: rather than telling students of dropdowns they do not have).
EDITION_TEXT = {
    "intro.ipynb": [(
        "exercises whose solutions are hidden in dropdowns (and run as code)",
        ("exercises whose solutions are hidden in dropdowns (and run as code), except those "
         "the graded assignments grade, whose solutions only the instructor edition has"),
        "exercises (this student edition leaves out their solutions)")],
}
# never copied: build output, environments, and the assignments' solutions and hidden tests
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


def reword(nb, name: str, edition: str = "student") -> int:
    """Replace in ``nb`` (the notebook ``name``) what the book says about its solutions with
    what ``edition`` says (``EDITION_TEXT``); return how many sentences changed.
    Raises ValueError when a sentence to replace is not in the notebook."""
    changed = 0
    for book_words, public, student in EDITION_TEXT.get(name, []):
        cells = [c for c in nb.cells if c.cell_type == "markdown" and book_words in c.source]
        if not cells:
            raise ValueError(f"{name} no longer says {book_words!r}: update EDITION_TEXT in "
                             "scripts/student_edition.py to what the book says now")
        for cell in cells:
            cell.source = cell.source.replace(book_words, public if edition == "public" else student)
            changed += 1
    return changed


def instructor_pages(toc: dict) -> list[str]:
    """The files (``book/...``, no suffix) of the table of contents' instructor part."""
    return [ch["file"] for part in toc.get("parts", []) if part.get("caption") == INSTRUCTOR_PART
            for ch in part["chapters"]]


def without_instructor_part(toc: dict) -> dict:
    """``toc`` (a parsed _toc.yml) without the instructor part."""
    return {**toc, "parts": [part for part in toc.get("parts", [])
                             if part.get("caption") != INSTRUCTOR_PART]}


def edition_notebooks(edition: str, book: Path = ROOT / "book") -> dict[str, object]:
    """The notebooks of ``edition``, as nbformat objects by file name: the chapters with
    the edition's solutions removed and its words; the instructor part's pages left out.
    Each notebook's ``metadata["edition_removed"]`` says how many solutions went."""
    if edition not in EDITIONS:
        raise ValueError(f"edition={edition!r} is not one of {sorted(EDITIONS)}")
    graded = graded_exercises()
    toc = yaml.safe_load((book.parent / "_toc.yml").read_text())
    hidden = {Path(f).name for f in instructor_pages(toc)}
    out = {}
    for path in sorted(book.glob("*.ipynb")):
        if path.stem in hidden:
            continue
        nb = nbformat.read(path, as_version=4)
        removed = strip_solutions(nb, graded, practice=EDITIONS[edition]["practice"])
        reword(nb, path.name, edition)
        nb.metadata["edition_removed"] = removed
        out[path.name] = nb
    return out


# ------------------------------------------------------------------ leak checks
#: A run of plain words this long is a fingerprint of a solution's prose: long enough
#: that no other page says the same, short enough to survive markup between runs.
FINGERPRINT_WORDS = 8
#: A code line of a solution this long (after stripping) is a fingerprint of its code.
FINGERPRINT_CODE = 30
_WORDS_RUN = re.compile(rf"(?:[A-Za-z][A-Za-z'-]*[,;]? ){{{FINGERPRINT_WORDS - 1},}}[A-Za-z][A-Za-z'-]*")


def _solutions_text(nb) -> dict[str, list[tuple[str, str]]]:
    """label -> [(cell type, text)] of everything inside each gated solution of ``nb``."""
    found, label = {}, None
    for cell in nb.cells:
        text = cell.source
        if cell.cell_type == "code":
            if label:
                found[label].append(("code", text))
            continue
        while text:
            if label:
                m = END.search(text)
                found[label].append(("markdown", text[:m.start()] if m else text))
                if not m:
                    break
                label, text = None, text[m.end():]
            else:
                m = START.search(text)
                if not m:
                    break
                label, text = m.group(2), text[m.end():]
                found.setdefault(label, [])
    return found


def fingerprints(labels, book: Path = ROOT / "book") -> dict[str, set[str]]:
    """label -> the fingerprints of its solution: runs of plain words of its prose (no
    formula, link or markup inside) and its longer code lines, whitespace normalised;
    minus any the book also says outside every solution (an import line, a sentence the
    solution quotes from the chapter), which would prove nothing."""
    prints: dict[str, set[str]] = {label: set() for label in labels}
    notebooks = [nbformat.read(path, as_version=4) for path in sorted(book.glob("*.ipynb"))]
    for nb in notebooks:
        for label, parts in _solutions_text(nb).items():
            if label not in prints:
                continue
            for kind, text in parts:
                if kind == "code":
                    prints[label] |= {" ".join(line.split()) for line in text.splitlines()
                                      if len(line.strip()) >= FINGERPRINT_CODE
                                      and not line.strip().startswith("#")}
                else:
                    plain = re.sub(r"\$[^$]*\$|`[^`]*`|\[[^\]]*\]\([^)]*\)|[*_]", " ", text)
                    prints[label] |= {" ".join(m.group(0).split())
                                      for m in _WORDS_RUN.finditer(" ".join(plain.split()))}
    for nb in notebooks:
        strip_solutions(nb)
    elsewhere = visible_text("\n".join(c.source for nb in notebooks for c in nb.cells))
    return {label: {p for p in ps if p not in elsewhere} for label, ps in prints.items()}


_TAG = re.compile(r"<(?:/?[A-Za-z][^<>]*|!--.*?--)>", re.S)


def visible_text(raw: str) -> str:
    """What a page or file says, for the leak check: tags dropped, entities decoded,
    notebook JSON's escapes undone, whitespace normalised."""
    text = raw.replace("\\n", "\n").replace('\\"', '"')
    text = html.unescape(_TAG.sub("", text))
    return " ".join(text.split())


def leaks(text: str, prints: dict[str, set[str]]) -> dict[str, list[str]]:
    """label -> the fingerprints of its solution found in ``text`` (already ``visible_text``)."""
    return {label: sorted(p for p in ps if p in text) for label, ps in prints.items()
            if any(p in text for p in ps)}


def main(out: Path, edition: str = "student") -> None:
    graded = graded_exercises()
    unknown = sorted(set(graded) - exercise_labels())
    if unknown:
        raise ValueError(f"assignments/assignments.yml grades exercises {unknown}, which no "
                         "chapter defines: correct the labels there")
    notebooks = edition_notebooks(edition)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(ROOT, out, ignore=IGNORE)
    total = 0
    for path in (out / "book").glob("*.ipynb"):
        if path.name in notebooks:
            total += notebooks[path.name].metadata.pop("edition_removed")
            nbformat.write(notebooks[path.name], path)
        else:                                  # a page of the instructor part
            path.unlink()
    toc = yaml.safe_load((out / "_toc.yml").read_text())
    (out / "_toc.yml").write_text(yaml.safe_dump(without_instructor_part(toc), sort_keys=False))
    # the assignments' student notebooks (no solutions), which the page "Run a chapter yourself"
    # offers, built here from the masters, which stay out of the copy; with the manifest
    (out / "assignments").mkdir()
    shutil.copy2(ROOT / "assignments" / "assignments.yml", out / "assignments" / "assignments.yml")
    spec = importlib.util.spec_from_file_location("dpmarkov_book", ROOT / "_ext" / "dpmarkov_book.py")
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    ext.build_student_assignments(out / ext.STUDENT_NOTEBOOKS)
    config = yaml.safe_load((out / "_config.yml").read_text())
    if EDITIONS[edition]["execute"]:
        config["execute"]["execute_notebooks"] = EDITIONS[edition]["execute"]
    config["title"] = config["title"] + EDITIONS[edition]["title"]
    (out / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    print(f"{edition} edition source in {out}: {total} solutions removed")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=None,
                        help="where to write the copy (default _build/<edition>_src)")
    parser.add_argument("--edition", choices=sorted(EDITIONS), default="student")
    args = parser.parse_args()
    main(args.out or ROOT / "_build" / f"{args.edition}_src", args.edition)
