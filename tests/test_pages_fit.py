"""Pages that fit (issue 14, part 5), checked on the committed notebooks.

What a reader sees at a 1400 px window: every figure has a number, a caption and an alt
text (cell metadata read by MyST-NB); legends are at least 9 pt, and every figure's text is
at least 9 pt on screen at a 1400 px and an 800 px window (issue 29, part 4); no printed output line is
wider than the 80 characters a code block shows without sideways scrolling; no chapter title
holds a formula (it would show as raw TeX in the sidebar, the browser tab and the PDF
contents).  Each test names the notebook and cell that break the rule.
"""
from __future__ import annotations

import re
from pathlib import Path

import importlib.util

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
_spec = importlib.util.spec_from_file_location("page_fit", ROOT / "scripts" / "page_fit.py")
page_fit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page_fit)
#: The widest an image is shown (CSS px) at each window width, measured by scripts/page_fit.py
#: (tests/test_browser.py checks the figures at the widths the browser really gives them).
COLUMN_PX = {1400: 756, 800: 705}
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
WIDTH = 80


def _code_cells(path):
    nb = nbformat.read(path, as_version=4)
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def _text_outputs(cell):
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            yield out.get("text", "")
        elif out.get("output_type") in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "text/plain" in data and not set(data) & {"image/png", "text/html", "text/markdown"}:
                yield data["text/plain"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_has_caption_name_and_alt_text(path):
    for i, cell in _code_cells(path):
        if not any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])):
            continue
        meta = cell.metadata.get("mystnb", {})
        figure, image = meta.get("figure", {}), meta.get("image", {})
        assert figure.get("caption") and figure.get("name"), f"{path.stem} cell {i}: no caption/name"
        assert len(image.get("alt", "")) >= 20, f"{path.stem} cell {i}: no real alt text"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_legends_are_legible(path):
    small = re.compile(r"legend\([^()]*fontsize\s*=\s*([0-8](?:\.\d+)?)\b")
    for i, cell in _code_cells(path):
        m = small.search(cell.source)
        assert not m, f"{path.stem} cell {i}: legend at {m.group(1)} pt (at least 9)"


def test_figure_text_is_at_least_9_pt_on_screen():
    # a figure wider than the column is scaled down, and its text with it: its smallest font
    # (figure points) times the scale it is shown at (shown width over its width in inches
    # at 96 px to the inch) must stay at least 9 pt at both window widths
    small = []
    for name, fig in page_fit.figures(BOOK).items():
        for window, column in COLUMN_PX.items():
            shown = min(fig["pixels"], column)
            pt = page_fit.text_on_screen_pt(fig["font"], fig["inches"], shown)
            if pt < page_fit.MIN_SCREEN_PT:
                small.append(f"{fig['notebook']} cell {fig['cell']} ({name}) at {window} px: "
                             f"{fig['font']:g} pt in {fig['inches']:.2f} in reads {pt:.1f} pt")
    assert len(page_fit.figures(BOOK)) >= 40
    assert not small, "\n".join(small)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_printed_outputs_fit_the_column(path):
    for i, cell in _code_cells(path):
        for text in _text_outputs(cell):
            wide = [line for line in text.splitlines() if len(line) > WIDTH]
            assert not wide, f"{path.stem} cell {i}: {len(wide[0])} characters: {wide[0][:60]}..."


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapter_titles_hold_no_formula(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            title = re.search(r"^# (.+)$", cell.source, re.M)
            if title:
                assert "$" not in title.group(1), f"{path.stem}: title '{title.group(1)}'"
                return


E_NOTATION = re.compile(r"\d(?:\.\d+)?e[-+]?\d+")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_glued_numbers_are_typeset(path):
    # a number pasted into prose reads 7.3 x 10^-4 (dpmarkov.display.md_number, pasted with
    # {glue:md}`key:myst`), never the code notation 7.3e-04 of a glued string
    nb = nbformat.read(path, as_version=4)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for _, cell in _code_cells(path):
        for out in cell.get("outputs", []):
            key = out.get("metadata", {}).get("scrapbook", {}).get("name")
            text = out.get("data", {}).get("application/papermill.record/text/plain", "")
            if key and E_NOTATION.search(text) and re.search(
                    r"\{glue(?::text)?\}`" + re.escape(key) + r"[`:]", prose):
                pytest.fail(f"{path.stem}: '{key}' is pasted as {text}")
