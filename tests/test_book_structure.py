"""The book's notebooks are regression tests: check they are complete and consistent.

- every chapter in _toc.yml is a committed .ipynb, and every .ipynb in book/ is in the toc
  (nbval only tests what it is pointed at, so an unlisted notebook would go untested);
- each notebook was executed top to bottom: code-cell execution counts are 1..n;
- no stored output is an error;
- every {prf:ref} target is a label defined somewhere in the book.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"


def _toc_files(node) -> list[str]:
    out = []
    if isinstance(node, dict):
        if "file" in node:
            out.append(node["file"])
        if "root" in node:
            out.append(node["root"])
        for value in node.values():
            if isinstance(value, (list, dict)):
                out.extend(_toc_files(value))
    elif isinstance(node, list):
        for item in node:
            out.extend(_toc_files(item))
    return out


TOC = _toc_files(yaml.safe_load((ROOT / "_toc.yml").read_text()))
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))


def test_toc_and_notebooks_match():
    assert NOTEBOOKS, "no notebooks in book/"
    in_toc = {Path(f).with_suffix("").as_posix() for f in TOC}
    on_disk = {p.relative_to(ROOT).with_suffix("").as_posix() for p in NOTEBOOKS}
    assert in_toc == on_disk, f"only in toc: {in_toc - on_disk}; only on disk: {on_disk - in_toc}"
    assert not list(BOOK.glob("*.md")), "chapters are .ipynb (nbval reads only notebooks)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_in_order_without_errors(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: execution counts {counts}"
    for cell in code:
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", f"{path.name}: stored error {out.get('ename')}"


LABEL = re.compile(r":label:\s*([\w-]+)")
PRF_REF = re.compile(r"\{prf:ref\}`(?:[^`<]*<)?([\w-]+)>?`")


def _markdown(path):
    nb = nbformat.read(path, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_every_prf_reference_has_a_label():
    text = {p.name: _markdown(p) for p in NOTEBOOKS}
    labels = {m for t in text.values() for m in LABEL.findall(t)}
    missing = [(name, ref) for name, t in text.items() for ref in PRF_REF.findall(t)
               if ref not in labels]
    assert not missing, f"prf:ref targets without a label: {missing}"
    assert PRF_REF.findall("see {prf:ref}`thm-1` and {prf:ref}`Lemma <lem-1>`") == ["thm-1", "lem-1"]


GLUE_MD = re.compile(r"\{glue:md\}`([^`]*)`")


def test_glued_markdown_is_pasted_as_myst():
    # {glue:md}`key` parses the glued text as CommonMark, so $...$ prints as text; the
    # :myst format renders the math that dpmarkov.display.md_number glues
    plain = [(p.name, key) for p in NOTEBOOKS for key in GLUE_MD.findall(_markdown(p))
             if not key.endswith(":myst")]
    assert not plain, f"{{glue:md}} without :myst: {plain[:10]}"


PRF_BOX = re.compile(r"(?:`{3,}|:{3,})\{prf:(\w+)\}([^\n]*)\n((?::[\w-]+:[^\n]*\n)*)")
PAPER_SERIES = ("theorem", "definition", "algorithm", "lemma", "corollary", "assumption")


def test_numbered_boxes_carry_the_papers_numbers():
    # sphinx-proof numbers each kind of box in one series across the book, in toc order.
    # The paper's series (Theorem, Definition, ...) may only hold restatements whose rendered
    # number equals the paper's ("(paper: Theorem 3)" must render as Theorem 3); the book's
    # own results are propositions or carry :nonumber:, so no "Theorem 6" stands next to the
    # paper's five.  A box added, moved or relabelled out of order fails here.
    counters = {kind: 0 for kind in PAPER_SERIES}
    for name in TOC:
        for box in PRF_BOX.finditer(_markdown(BOOK / f"{name.split('/')[-1]}.ipynb")):
            kind, title, options = box.groups()
            if kind not in PAPER_SERIES or ":nonumber:" in options:
                continue
            counters[kind] += 1
            paper = re.search(rf"paper: {kind.capitalize()} (\d+)", title)
            assert paper, f"{name}: numbered {kind} box '{title.strip()}' is not the paper's"
            assert int(paper.group(1)) == counters[kind], (
                f"{name}: '{title.strip()}' would render as {kind} {counters[kind]}")
