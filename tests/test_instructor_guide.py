"""The instructor guide shows exercises by title, stars and kind, never as bare references.

A ``{ref}`` to an exercise label without text renders as "Exercise 37": the guide's tables
and lists (glued from its hidden cells) give each exercise as ``{ref}`★★ Title (kind)
<label>```, and the page prints no raw list of labels.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "book" / "instructor_guide.ipynb"
REF = re.compile(r"\{ref\}`([^`]*)`")
TITLED = re.compile(r"★{1,3} [^<>`]+ \((?:pencil|code)\) <ex-[\w-]+>")


def _shown(cells) -> tuple[list[str], list[str]]:
    """(glued markdown, printed text) of a notebook's stored outputs."""
    glued, printed = [], []
    for cell in cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                printed.append("".join(out["text"]))
            for key, value in out.get("data", {}).items():
                if key.endswith("text/markdown"):
                    glued.append("".join(value) if isinstance(value, list) else value)
    return glued, printed


def bare_references(text: str) -> list[str]:
    """The ``{ref}`` roles of ``text`` that point at an exercise without its titled form."""
    return [m.group(1) for m in REF.finditer(text)
            if "ex-" in m.group(1) and not TITLED.fullmatch(m.group(1))]


def test_the_rule_flags_a_bare_reference():
    assert bare_references("{ref}`ex-prelim-1`, {ref}`Exercise <ex-prelim-2>`") == [
        "ex-prelim-1", "Exercise <ex-prelim-2>"]
    assert not bare_references("{ref}`★★ Beta moments (code) <ex-dirichlet-1>`")


def test_the_guide_lists_exercises_by_title_stars_and_kind():
    cells = json.loads(GUIDE.read_text())["cells"]
    glued, printed = _shown(cells)
    assert not printed, f"the guide prints raw text: {printed[0][:200]}"
    text = "\n".join(glued)
    assert TITLED.search(text), "no titled exercise in the guide's tables"
    assert not bare_references(text), bare_references(text)[:5]
    prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert not bare_references(prose), bare_references(prose)[:5]


def test_each_titled_reference_shows_its_exercises_title():
    """A title typed into the guide's prose is the chapter's own (formulas as plain text),
    so a renamed exercise fails here instead of showing a stale title."""
    titles = {}
    exercise = re.compile(r"\{exercise(?:-start)?\}([^\n]*)\n:label:\s*([\w-]+)")
    for path in (ROOT / "book").glob("*.ipynb"):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                for m in exercise.finditer("".join(cell["source"])):
                    titles[m.group(2)] = m.group(1).strip().replace("$", "")
    cells = json.loads(GUIDE.read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    text += "\n".join(_shown(cells)[0])
    shown = [m.group(1).rsplit(" <", 1) for m in REF.finditer(text) if "<ex-" in m.group(1)]
    assert shown
    wrong = [(title, label) for title, label in shown if titles.get(label.rstrip(">")) != title]
    assert not wrong, wrong
