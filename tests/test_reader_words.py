"""Chapters speak to a reader, not to the registry (issue 35, item 4).

A verdict box says in words what holds and on what evidence ("fails, an erratum of the paper;
shown by a counterexample"); the registry's ids (``thm-4-Z``, ``sec6.1-eps``) and its support
codes ("support: computation") belong to the verification report's table of claims, the one
page written for someone rerunning the registry.

The rule reads what a page shows, as MyST reads it (tests/myst_text.py): the inline text of
every markdown cell (directive titles and bodies included), inline code, the glued values a
cell pastes (``{glue:md}`` and ``{glue:text}``, read from the stored outputs), and the
markdown and printed outputs of code cells whose output the page shows.  Roles that render
as something else (``{prf:ref}`thm-1``` shows "Theorem 1", ``{doc}`` a title) are not
shown text, and neither is code.  Wherever shown text holds a registry id as a word of its
own, or the label "support:" with a support code, the page fails.  The fixtures are such
pages, one per way an id can reach a reader; the same ids inside roles and code must pass.
"""
import json
import re
from pathlib import Path

import pytest

import myst_text
from dpmarkov.verify import claims as cl

ROOT = Path(__file__).resolve().parents[1]
#: The page that shows the registry as it is: one card per claim, with its id and support.
REGISTRY_PAGE = "verification_report"
#: Output cells a reader never sees.
UNSEEN = {"remove-output", "remove-cell"}
IDS = sorted((c.id for c in cl.CLAIMS), key=len, reverse=True)
#: A registry id standing as a word of its own (not inside a longer label such as def-5-b).
ID = re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, IDS)) + r")(?![\w-]|\.\d)")
#: The registry's support label, "support: " and a support code (a chain's support, "the
#: support: fixed before the data are seen", is a word of the text).
SUPPORT = re.compile(r"\bsupport:\s*(?:" + "|".join(map(re.escape, cl.SUPPORTS)) + ")", re.I)
GLUE_ROLES = {"glue", "glue:md", "glue:text"}


def _text(value):
    return "".join(value) if isinstance(value, list) else value


def inline_text(markdown, pasted):
    """The text a reader sees in MyST ``markdown``: prose, inline code and pasted glue."""
    for kind, piece in myst_text.pieces(markdown):
        if kind != "inline":
            continue
        for token in piece.children or ():
            if token.type in ("text", "code_inline"):
                yield token.content
            elif token.type == "myst_role" and token.meta.get("name") in GLUE_ROLES:
                key = token.content.strip().split(":")[0]
                yield from inline_text(pasted.get(key, ""), {})


def shown_text(path):
    """(cell index, text) for every piece of text a page shows, in reading order."""
    cells = json.loads(path.read_text())["cells"]
    pasted = myst_text.glued(cells)
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            for text in inline_text(_text(cell["source"]), pasted):
                yield i, text
        elif cell["cell_type"] == "code" and not UNSEEN & set(cell["metadata"].get("tags", [])):
            for o in cell.get("outputs", []):
                if o.get("output_type") == "stream":
                    yield i, _text(o["text"])
                data = o.get("data", {})
                if "text/markdown" in data:
                    for text in inline_text(_text(data["text/markdown"]), pasted):
                        yield i, text
                elif "text/plain" in data and "image/png" not in data:
                    yield i, _text(data["text/plain"])


def registry_words(path):
    """"cell i: what" for every registry id or "support:" label a page shows."""
    found = []
    for i, text in shown_text(path):
        for m in ID.finditer(text):
            found.append(f"cell {i}: id {m[1]!r} in {text.strip()[:120]!r}")
        if SUPPORT.search(text):
            found.append(f"cell {i}: 'support:' in {text.strip()[:120]!r}")
    return found


def chapters():
    return [p for p in sorted((ROOT / "book").glob("*.ipynb")) if p.stem != REGISTRY_PAGE]


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_chapters_show_no_registry_id_or_support_code(path):
    found = registry_words(path)
    assert not found, f"{path.stem}:\n" + "\n".join(found)


def _page(tmp_path, cells):
    path = tmp_path / "fixture.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    return path


def _markdown(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(outputs, tags=()):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": "",
            "outputs": outputs}


def _glue(key, markdown):
    return {"output_type": "display_data", "metadata": {"scrapbook": {"name": key}},
            "data": {"application/papermill.record/text/markdown": markdown}}


def test_an_id_or_support_code_a_reader_sees_is_found(tmp_path):
    old = "**fails** (erratum; support: counterexample; claim `thm-1-n2`)"
    pages = {
        # the old verdict line, glued and pasted in a verdict box
        "glued": [_code([_glue("verdict-thm-1-n2", old)], ["remove-input"]),
                  _markdown(":::{admonition} T\n:class: verdict\n\n"
                            "{glue:md}`verdict-thm-1-n2:myst`\n:::\n")],
        # an id in a sentence inside an exercise, and as inline code in a list
        "prose": [_markdown("```{exercise} E\n:label: ex-x\n\nThe claim sec6.1-eps says.\n```\n")],
        "code span": [_markdown("- see `thm-4-Z` for the sign\n")],
        # a markdown output and a printed line of a visible cell
        "display": [_code([{"output_type": "display_data", "metadata": {},
                            "data": {"text/markdown": "- Thm. 4: holds (claim `thm-4`)"}}])],
        "print": [_code([{"output_type": "stream", "name": "stdout",
                          "text": "support: computation\n"}])],
        # a directive's title
        "title": [_markdown(":::{admonition} Verdict on asm-6\n:class: verdict\n\nText.\n:::\n")],
    }
    for name, cells in pages.items():
        assert registry_words(_page(tmp_path, cells)), name
    # ids inside roles and code, a longer label, hidden outputs and the words pass
    fine = [_markdown("{prf:ref}`thm-1` and {doc}`worst_case`; label `def-5-b`.\n\n"
                      "```python\ncl.get('thm-4-Z')\n```\n"),
            _code([{"output_type": "stream", "name": "stdout", "text": "thm-5\n"}],
                  ["remove-output"]),
            _code([_glue("verdict-thm-5", "**fails**, an erratum of the paper, shown by a "
                                          "counterexample")], ["remove-input"]),
            _markdown("Theorem 5: {glue:md}`verdict-thm-5:myst`."),
            _markdown("### The support: fixed before the data are seen")]
    assert registry_words(_page(tmp_path, fine)) == []
