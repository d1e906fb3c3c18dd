"""Chapters link to the API reference (issue 29, item 5; issue 35, item 5): a public function's
first mention in a chapter's prose is a ``{py:func}`` (or ``{py:class}``) role to its entry.

A chapter names package functions as ``dm.epsilon`` or ``bl.geometric_clip`` in inline code;
the first such mention of each name must be the link (``{py:func}`dm.epsilon
<dpmarkov.epsilon>```), later ones may stay plain.  The build runs with ``-n``, so a link to a
name that is not documented fails it.

The prose is read as MyST reads it (tests/myst_text.py: myst-parser's markdown-it parser,
directive bodies parsed recursively): a line scan that toggled on every fence once took a
directive's closing fence for an opening one and skipped the rest of the chapter.  The
fixtures below are a chapter whose unlinked first mention follows a directive, one inside an
admonition and one after a link that comes later; the rule must find each.
"""
import json
import re
from pathlib import Path

import dpmarkov as dm
import dpmarkov.baselines as bl
import myst_text

ROOT = Path(__file__).resolve().parents[1]
SPAN = re.compile(r"^(dm|bl)\.([A-Za-z_]\w*)(?:\(.*\))?$")
TARGET = re.compile(r"<?~?dpmarkov\.(?:baselines\.)?(\w+)>?$")
PUBLIC = {"dm": set(dm.__all__), "bl": set(bl.__all__)}


def mentions(text):
    """("link" | "plain", name) for each mention of a public function, in reading order."""
    for kind, piece in myst_text.pieces(text):
        if kind != "inline":
            continue
        for token in piece.children or ():
            if token.type == "myst_role" and token.meta.get("name") in ("py:func", "py:class"):
                target = TARGET.search(token.content.strip())
                if target:
                    yield "link", target.group(1)
            elif token.type == "code_inline":
                span = SPAN.match(token.content.strip())
                if span and span.group(2) in PUBLIC[span.group(1)]:
                    yield "plain", span.group(2)


def plain_first_mentions(path):
    """Names whose first mention in the chapter's prose is plain code, not the link."""
    linked, bad = set(), []
    for text in myst_text.markdown_cells(path):
        for kind, name in mentions(text):
            if kind == "plain" and name not in linked:
                bad.append(name)
            linked.add(name)
    return bad


def _chapter(tmp_path, markdown):
    path = tmp_path / "fixture.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {},
                                           "source": markdown}]}))
    return path


def test_the_rule_sees_the_order_and_the_whole_chapter(tmp_path):
    link = "{py:func}`dm.epsilon <dpmarkov.epsilon>`"
    # a first mention after a directive (the old line scan stopped reading at its fence)
    after = "```{prf:remark} R\nText.\n```\n\nThen `dm.delta` plain.\n"
    assert plain_first_mentions(_chapter(tmp_path, after)) == ["delta"]
    # inside an admonition (a colon fence) and in a list item
    inside = ":::{admonition} A\n:class: tip\n\n- Use `dm.delta()`.\n:::\n"
    assert plain_first_mentions(_chapter(tmp_path, inside)) == ["delta"]
    # plain before the link fails, the link first passes; code blocks do not count
    assert plain_first_mentions(_chapter(tmp_path, f"`dm.epsilon` then {link}.")) == ["epsilon"]
    assert plain_first_mentions(_chapter(tmp_path, f"{link} then `dm.epsilon`.")) == []
    assert plain_first_mentions(_chapter(tmp_path, "```python\nx = `dm.delta`\n```\n")) == []


def test_first_mentions_link_to_the_api():
    chapters = [p for p in sorted((ROOT / "book").glob("*.ipynb")) if not p.stem.startswith("api_")]
    bad = {p.stem: names for p in chapters if (names := plain_first_mentions(p))}
    assert not bad, bad
