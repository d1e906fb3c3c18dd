"""No chapter refers to a definition or an assumption before the book states it (issue 35,
item 4).

Reading order is ``_toc.yml``'s: the landing page, then the parts' chapters in turn, each
page from top to bottom.

*Stating.* The book states a definition or an assumption where its first ``prf:definition``
or ``prf:assumption`` directive stands: the one with its label, or an earlier restatement, a
directive of the same kind and title without a label (the preliminaries state probabilistic
DP unnumbered before the next chapter gives it the paper's number).  The label ``def-N`` or
``asm-N`` is the paper's Definition N or Assumption N; any other label is the book's own.

*Referring.* The paper's name in the prose ("Assumption 3", "Assumptions 1-6", "Definitions
3 and 4", "Def. 7", "Asm. 4"), also in a directive's title and in a glued value the prose
pastes, or a ``{prf:ref}`` to a stated label.  Mathematics and code are not prose.  A
reference inside the statement counts as after it (a title "(paper: Definition 5)").

*Before.* A reference that comes before the statement is allowed only when the reader is told
where the statement is:

- its unit (a paragraph, a list item, a table row, a directive's title) links a chapter
  that states it (first, or later with its label) with ``{doc}`` ("Assumption 6 (stated in
  {doc}`stationary`)"; the landing page's map of the paper links every chapter it names);
- or the statement is further down the same page and the unit says so ("below");
- or it is in the page's "Learning objectives" admonition, which announces what the page
  states.

The prose is read as MyST reads it (tests/myst_text.py), so a reference inside an admonition
or an exercise counts; the fixtures below are forward references the rule must find, and the
same text in the other order, or with the link, must pass.
"""
import json
import re
from pathlib import Path

import pytest
import yaml

import myst_text

ROOT = Path(__file__).resolve().parents[1]
STATING = {"prf:definition", "prf:assumption"}
WORD = {"Definition": "def", "Def.": "def", "Assumption": "asm", "Asm.": "asm"}
#: The paper's name, with its numbers: "Assumption 3", "Assumptions 1-6", "Definitions 3 and
#: 4", "Assumptions 1, 3, 4", "Def. 7".
NAMED = re.compile(r"\b(Definitions?|Def\.|Assumptions?|Asm\.)[ \u00a0~]+"
                   r"(\d+(?:\s*(?:[-\u2013]|,\s*and|,|and)\s*\d+)*)")


def named_labels(text):
    """The labels (``def-N``, ``asm-N``) that the paper's names in ``text`` refer to."""
    for m in NAMED.finditer(text):
        prefix = WORD[m.group(1).rstrip("s") if m.group(1).endswith("s") else m.group(1)]
        numbers = []
        for part in re.split(r"\s*(?:,\s*and|,|and)\s*", m.group(2)):
            ends = [int(x) for x in re.split(r"\s*[-\u2013]\s*", part)]
            numbers += list(range(ends[0], ends[-1] + 1))
        yield from (f"{prefix}-{n}" for n in numbers)


def _target(role_content):
    """The target of a role: ``title <target>`` or ``target``."""
    return re.sub(r"^.*<(.*)>$", r"\1", role_content.strip())


def _unit(tokens, pasted):
    """(labels referred to, chapters linked, says "below") of one unit's inline tokens."""
    labels, docs, below = [], set(), False
    for token in tokens:
        role = token.meta.get("name") if token.type == "myst_role" else None
        if token.type == "text":
            labels += named_labels(token.content)
            below = below or bool(re.search(r"\bbelow\b", token.content))
        elif role == "prf:ref":
            labels.append(_target(token.content))
        elif role == "doc":
            docs.add(_target(token.content))
        elif role in ("glue", "glue:md", "glue:text"):
            key = token.content.strip().split(":")[0]
            labels += [e[1] for e in events(pasted.get(key, ""), {}) if e[0] == "refer"]
    return labels, docs, below


def events(text, pasted):
    """What MyST ``text`` states and refers to, in reading order: ``("state", label or
    None, (directive, title))`` and ``("refer", label, chapters linked, says "below", in the
    learning objectives)``."""
    stack, unit = [], []

    def flush():
        labels, docs, below = _unit([t for piece in unit for t in piece.children or ()],
                                    pasted)
        unit.clear()
        objectives = any(name == "admonition" and title.strip() == "Learning objectives"
                         for name, title in stack)
        return [("refer", label, docs, below, objectives) for label in labels]

    for kind, piece in myst_text.pieces(text):
        if unit and not (kind == "inline" and "row" in piece.meta
                         and piece.meta["row"] == unit[-1].meta.get("row")):
            yield from flush()
        if kind == "directive":
            name, options, title = piece
            stack.append((name, title))
            if name in STATING:
                yield "state", options.get("label"), (name, title.strip())
        elif kind == "end":
            stack.pop()
        elif kind == "inline":
            unit.append(piece)
    if unit:
        yield from flush()


def reading_order(toc=ROOT / "_toc.yml"):
    """The book's pages (notebook paths) in the order of ``_toc.yml``."""
    data = yaml.safe_load(toc.read_text())
    names = [data["root"]] + [c["file"] for part in data.get("parts", [])
                              for c in part["chapters"]]
    return [ROOT / f"{name}.ipynb" for name in names]


def forward_references(pages):
    """"page: label (stated in chapter)" for each reference that comes before the statement
    it refers to and does not say where that is."""
    found, refs = [], []
    for path in pages:
        cells = json.loads(path.read_text())["cells"]
        pasted = myst_text.glued(cells)
        for cell in cells:
            if cell["cell_type"] != "markdown":
                continue
            for event in events("".join(cell["source"]), pasted):
                if event[0] == "state":
                    found.append((path.stem, len(refs), event))
                else:
                    refs.append((path.stem, event))
    # a label is stated by its directive, or earlier by one of the same kind and title
    titled = {directive: label for _, _, (_, label, directive) in found if label}
    stated, pages_stating = {}, {}
    for page, where, (_, label, directive) in found:
        label = label or titled.get(directive)
        stated.setdefault(label, (where, page))
        pages_stating.setdefault(label, set()).add(page)
    bad = []
    for i, (page, (_, label, docs, below, objectives)) in enumerate(refs):
        if label not in stated:
            continue
        where, chapter = stated[label]
        if where <= i or docs & pages_stating[label] or (chapter == page and (below or objectives)):
            continue
        bad.append(f"{page}: {label} (stated in {chapter})")
    return bad


def test_the_paper_and_the_book_state_what_they_refer_to():
    """Every definition and assumption of the paper (Definitions 1-7, Assumptions 1-6) is
    stated in the book, so the rule below sees every reference to them."""
    labels = {event[1] for path in reading_order() for text in myst_text.markdown_cells(path)
              for event in events(text, {}) if event[0] == "state"}
    assert {f"def-{n}" for n in range(1, 8)} | {f"asm-{n}" for n in range(1, 7)} <= labels


@pytest.mark.parametrize("text, labels", [
    ("Assumption 3 and Def. 7", ["asm-3", "def-7"]),
    ("Assumptions 1-6, Definitions 3 and 4", [f"asm-{n}" for n in range(1, 7)]
     + ["def-3", "def-4"]),
    ("Assumptions 1, 3, and 4; Asm. 2", ["asm-1", "asm-3", "asm-4", "asm-2"]),
    ("Theorem 3 and Section 4", []),
])
def test_the_papers_names_are_read(text, labels):
    assert list(named_labels(text)) == labels


def _book(tmp_path, pages):
    paths = []
    for name, cells in pages.items():
        path = tmp_path / f"{name}.ipynb"
        path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {},
                                               "source": text} for text in cells]}))
        paths.append(path)
    return paths


STATE = "```{prf:assumption} Feasible transitions\n:label: asm-6\n\nEvery count is positive.\n```\n"
OBJECTIVES = ":::{admonition} Learning objectives\n:class: tip\n\n- state Assumption 6;\n:::\n"


def test_a_forward_reference_is_found(tmp_path):
    early = {
        "in prose": ["Zeros are harmless under Assumption 6."],
        "in a range": ["Assumptions 5-6 hold."],
        "as a link": ["See {prf:ref}`asm-6`."],
        "in a box's title": [":::{admonition} Assumption 6 and the zeros\n:class: verdict\n\n"
                             "Text, see {doc}`late`.\n:::\n"],
        "in an exercise": ["```{exercise} E\n:label: ex-e\n\nUse Asm. 6.\n```\n"],
        "in a glued value": ["Zeros: {glue:md}`why:myst`."],
        "linked elsewhere": ["Assumption 6 (see {doc}`intro`)."],
        "in a table row": ["| Paper | Where |\n|---|---|\n| Assumption 6 | {doc}`intro` |\n"
                           "| Theorem 3 | {doc}`late` |\n"],
        "objectives of another page": [OBJECTIVES],
        "below, on another page": ["Assumption 6, below."],
    }
    for name, cells in early.items():
        paths = _book(tmp_path, {"early": cells, "late": [STATE]})
        if name == "in a glued value":
            nb = json.loads(paths[0].read_text())
            nb["cells"].append({"cell_type": "code", "metadata": {}, "source": "", "outputs": [
                {"output_type": "display_data", "metadata": {"scrapbook": {"name": "why"}},
                 "data": {"application/papermill.record/text/markdown": "Assumption 6"}}]})
            paths[0].write_text(json.dumps(nb))
        assert forward_references(paths) == ["early: asm-6 (stated in late)"], name
    # on the page that states it, further down (also in the same cell), without saying so
    for cells in (["First Assumption 6.", STATE], ["First Assumption 6.\n\n" + STATE]):
        paths = _book(tmp_path, {"page": cells})
        assert forward_references(paths) == ["page: asm-6 (stated in page)"], cells
    # after the statement, inside it, in a restatement without a label, with a link to the
    # chapter that states it (also from another cell of a table row), "below" on the
    # stating page and in its learning objectives: fine
    restated = STATE.replace(":label: asm-6\n", "")
    fine = [{"early": [STATE], "late": ["Under Assumption 6 and {prf:ref}`asm-6`."]},
            {"early": [STATE.replace("Every count", "Assumption 6: every count")]},
            {"early": [restated, "Assumption 6."], "late": [STATE]},
            {"early": ["Assumption 6 ({doc}`late`)."], "mid": [restated], "late": [STATE]},
            {"early": ["Assumption 6 (stated in {doc}`late`)."], "late": [STATE]},
            {"early": ["| Paper | Where |\n|---|---|\n| Assumption 6 | {doc}`late` |\n"],
             "late": [STATE]},
            {"page": [OBJECTIVES, "Assumption 6 (stated below).", STATE]}]
    for pages in fine:
        assert forward_references(_book(tmp_path, pages)) == [], pages


def test_no_forward_reference_to_a_definition_or_assumption():
    bad = forward_references(reading_order())
    assert not bad, "\n".join(bad)
