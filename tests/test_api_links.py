"""Chapters link to the API reference (issue 29, item 5): a public function's first mention in a
chapter's prose is a ``{py:func}`` (or ``{py:class}``) role to its entry.

A chapter names package functions as ``dm.epsilon`` or ``bl.geometric_clip`` in inline code;
the first such mention of each name must be the link (``{py:func}`dm.epsilon
<dpmarkov.epsilon>```), later ones may stay plain.  The build runs with ``-n``, so a link to a
name that is not documented fails it.  A wrong rule would pass a chapter whose first mention is
plain code and a later one the link; the order is checked, not just the presence.
"""
import json
import re
from pathlib import Path

import dpmarkov as dm
import dpmarkov.baselines as bl

ROOT = Path(__file__).resolve().parents[1]
SPAN = re.compile(r"`(dm|bl)\.([A-Za-z_]\w*)(?:\(\))?`")
ROLE = re.compile(r"\{py:(?:func|class)\}`[^`<]*<?~?dpmarkov\.(?:baselines\.)?(\w+)>?`")
PUBLIC = {"dm": set(dm.__all__), "bl": set(bl.__all__)}


def prose_lines(path):
    """The prose lines of a chapter's markdown cells (no code blocks, headings or fences)."""
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        in_code = False
        for line in "".join(cell["source"]).splitlines():
            stripped = line.lstrip()
            if stripped.startswith("```"):
                in_code = (not in_code) if (in_code or not stripped.startswith("```{")) else in_code
                continue
            if not in_code and not stripped.startswith(("#", ":::", ":label:", ":class:")):
                yield line


def plain_first_mentions(path):
    linked, bad = set(), []
    for line in prose_lines(path):
        events = sorted([(m.start(), "link", m.group(1)) for m in ROLE.finditer(line)]
                        + [(m.start(), "plain", m.group(2)) for m in SPAN.finditer(line)
                           if m.group(2) in PUBLIC[m.group(1)]])
        for _, kind, name in events:
            if kind == "plain" and name not in linked:
                bad.append(name)
            linked.add(name)
    return bad


def test_rule_sees_the_order():
    assert not ROLE.search("`dm.epsilon`") and SPAN.search("`dm.epsilon`")
    assert ROLE.search("{py:func}`dm.epsilon <dpmarkov.epsilon>`").group(1) == "epsilon"


def test_first_mentions_link_to_the_api():
    chapters = [p for p in sorted((ROOT / "book").glob("*.ipynb")) if not p.stem.startswith("api_")]
    bad = {p.stem: names for p in chapters if (names := plain_first_mentions(p))}
    assert not bad, bad
