"""The printed book (issue 29, part 1), checked on the PDF that ``./run.sh pdf`` makes.

- Each entry of the contents (read with pdftotext) names the page on which its chapter
  starts: the page that begins with the chapter's title set as a heading (every chapter
  starts a new page; word heights from ``pdftotext -bbox``), not a page where the title is
  quoted in prose, even at the top of the page.
- No code frame is printed empty: a tinted code box with no text in it for an inch or more
  (the theme kept a code block whole and moved it to the next page, leaving its frame
  behind), found on the pages rendered at 30 dpi (pdftoppm).
- No interface text is printed: the toggles, buttons and navigation of the web page
  ("Show code cell source", "Copy to clipboard", ...) mean nothing on paper.
- No page inside a chapter is more than half blank: the empty band at the foot of a page's
  text area (rendered at 30 dpi, from the last row with ink down to the bottom margin) is at
  most half of it, except on the page before a chapter starts (every chapter starts a new
  page) and in the front matter.  A block kept whole (a figure, a code cell, a box) that does
  not fit moves to the next page and leaves such a band behind.

``./run.sh pdf`` runs this file after printing; elsewhere its checks of the book are skipped
unless ``_build/pdf/dpmarkov-book.pdf`` and poppler-utils (pdftotext, pdftoppm) are there (the
detectors' fixtures need only poppler-utils).
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("book_pdf", ROOT / "scripts" / "book_pdf.py")
book_pdf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(book_pdf)

PDF = book_pdf.PDF
POPPLER = bool(shutil.which("pdftotext") and shutil.which("pdftoppm"))
#: Checks of the printed book; the detectors' own fixtures need only poppler-utils.
needs_pdf = pytest.mark.skipif(
    not PDF.is_file() or not POPPLER,
    reason="no printed book: ./run.sh pdf (installs poppler-utils) makes it and runs this")
needs_poppler = pytest.mark.skipif(not POPPLER, reason="poppler-utils (pdftoppm) missing")

#: Web-page controls that must not reach paper.
INTERFACE_TEXT = ("Show code cell", "Hide code cell", "Copy to clipboard", "Skip to main content",
                  "Back to top", "Ctrl+K", "Toggle navigation", "Download this page",
                  "Open in Colab", "Launch Binder", "Edit this page", "Fullscreen mode",
                  "Toggle hidden content", "Click to show", "Click to hide")

#: Empty-frame detector (tests/test_pdf.py renders at DPI): a pixel row is inside an empty
#: frame when at least 40% of it has the light tint of a code box (grey 225-252 of 255) and
#: nothing between its first and last tinted pixel is darker than 215 (a line of code,
#: even at 30 dpi, has glyph pixels near black).  An inch of such rows in a row is an
#: empty frame; code has a line every 0.17 inch, so even five blank lines stay below it.
DPI, TINT, INK, EMPTY_INCHES = 30, (225, 252), 215, 1.0


@pytest.fixture(scope="module")
def pages() -> list[str]:
    return book_pdf.pdf_pages(PDF)


@pytest.fixture(scope="module")
def chapters() -> dict:
    root = yaml.safe_load((ROOT / "_toc.yml").read_text())["root"]
    index = book_pdf.OUT / "_build" / "singlehtml" / f"{root}.html"
    return book_pdf.chapter_titles(index.read_text())


def contents_entries(pages, chapters) -> dict[str, int]:
    """docname -> the page number the contents print for it."""
    first = next(i for i, t in enumerate(pages) if t.startswith("Contents"))
    intro = book_pdf.title_key(chapters[book_pdf.parts()[0][1][0]][2])
    last = next(i for i in range(first + 1, len(pages)) if pages[i].startswith(intro))
    text = " ".join(pages[first:last])
    out = {}
    for _, docs in book_pdf.parts():
        for doc in docs:
            title = book_pdf._norm(chapters[doc][2])
            m = re.search(re.escape(title) + r" (\d+)\b", text)
            assert m, f"the contents have no page number for '{title}'"
            out[doc] = int(m.group(1))
    return out


@needs_pdf
def test_every_contents_entry_names_the_page_its_chapter_starts_on(pages, chapters):
    entries = contents_entries(pages, chapters)
    assert len(entries) == sum(len(docs) for _, docs in book_pdf.parts()) >= 30
    words = book_pdf.pdf_words(PDF)
    wrong = []
    for doc, number in entries.items():
        title = book_pdf.title_key(chapters[doc][2])
        starts = [i + 1 for i, w in enumerate(words) if book_pdf.starts_with_heading(w, title)]
        if number not in starts:
            wrong.append(f"'{title}': contents say {number}, its heading opens page {starts}")
    assert not wrong, "\n".join(wrong)
    assert list(entries.values()) == sorted(entries.values()), "contents out of book order"


def test_a_sentence_that_begins_with_a_title_is_not_the_chapter_start():
    # "The Dirichlet mechanism needs the same device" opened a page of the chapter before
    # "The Dirichlet mechanism", and the contents named that page
    body = [(w, 11.3) for w in "needs the same device . Its log-density".split()]
    prose = [(w, 11.3) for w in ("The", "Dirichlet", "mechanism")] + body
    heading = [(w, 26.0) for w in ("The", "Dirichlet", "mechanism")] + body
    assert not book_pdf.starts_with_heading(prose, "The Dirichlet mechanism")
    assert book_pdf.starts_with_heading(heading, "The Dirichlet mechanism")
    assert not book_pdf.starts_with_heading(heading, "The Dirichlet mechanism needs")


@needs_pdf
def test_no_interface_text_is_printed(pages):
    found = [f"page {i + 1}: '{s}'" for i, t in enumerate(pages) for s in INTERFACE_TEXT if s in t]
    assert not found, "\n".join(found)


def empty_frames(pdf: Path, tmp: Path) -> list[tuple[int, float]]:
    """(page, inches) of every empty code frame at least EMPTY_INCHES tall."""
    from PIL import Image

    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", str(pdf), str(tmp / "p")], check=True)
    found = []
    for path in tmp.glob("p-*.pgm"):
        image = Image.open(path)
        width, height = image.size
        pixels = image.load()
        run = longest = 0
        for y in range(height):
            row = [pixels[x, y] for x in range(width)]
            tinted = [x for x, v in enumerate(row) if TINT[0] <= v <= TINT[1]]
            empty = len(tinted) >= 0.4 * width and min(row[tinted[0]:tinted[-1] + 1]) >= INK
            run = run + 1 if empty else 0
            longest = max(longest, run)
        if longest >= EMPTY_INCHES * DPI:
            found.append((int(path.stem.split("-")[1]), round(longest / DPI, 1)))
    return sorted(found)


@needs_pdf
def test_no_code_frame_is_printed_empty(tmp_path):
    found = empty_frames(PDF, tmp_path)
    assert not found, f"{len(found)} pages with an empty code frame (page, inches): {found}"


@needs_poppler
def test_empty_frame_detector_sees_an_empty_frame(tmp_path):
    # the check must be able to fail: a page with an empty grey box and one with a full one
    from PIL import Image, ImageDraw

    w, h = int(8.27 * DPI), int(11.69 * DPI)
    empty, full = Image.new("L", (w, h), 255), Image.new("L", (w, h), 255)
    for image in (empty, full):
        ImageDraw.Draw(image).rectangle([20, 60, w - 20, 60 + 3 * DPI], fill=243)
    for y in range(64, 60 + 3 * DPI, 5):   # a line of "code" every 5 pixel rows
        ImageDraw.Draw(full).line([30, y, 120, y], fill=40)
    pdf = tmp_path / "probe.pdf"
    empty.save(pdf, save_all=True, append_images=[full], resolution=DPI)
    (tmp_path / "r").mkdir()
    found = empty_frames(pdf, tmp_path / "r")
    assert [page for page, _ in found] == [1] and 2.9 <= found[0][1] <= 3.1, found


#: The text area of a printed page (scripts/book_pdf.py's ``@page``: A4, margins 18 mm at
#: the top and 20 mm at the bottom; the page number is printed in the bottom margin).
PAGE_MM, TOP_MM, BOTTOM_MM = 297.0, 18.0, 20.0
#: A pixel darker than this is ink (text is near black; the lightest tint a box or a table
#: stripe prints, 243 of 255, is not, so an empty box counts as blank).
BLANK_INK = 200
#: The most of a text area a page inside a chapter may leave blank at its foot.
MOST_BLANK = 0.5


def blank_tails(pdf: Path, tmp: Path) -> dict[int, float]:
    """page -> the fraction of its text area left blank below its last row with ink."""
    from PIL import Image

    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", str(pdf), str(tmp / "b")], check=True)
    out = {}
    for path in tmp.glob("b-*.pgm"):
        image = Image.open(path)
        width, height = image.size
        pixels = image.load()
        top = round(height * TOP_MM / PAGE_MM)
        bottom = height - round(height * BOTTOM_MM / PAGE_MM)
        last = next((y for y in range(bottom - 1, top - 1, -1)
                     if min(pixels[x, y] for x in range(width)) < BLANK_INK), top - 1)
        out[int(path.stem.split("-")[1])] = (bottom - 1 - last) / (bottom - top)
    return dict(sorted(out.items()))


def half_blank_pages(tails: dict[int, float], chapter_starts, front: int) -> list:
    """(page, blank fraction) of the pages inside a chapter more than MOST_BLANK blank: not
    the front matter (pages up to ``front``), not a page before a chapter start, not the
    last page."""
    allowed = {start - 1 for start in chapter_starts} | {max(tails)}
    return [(page, round(blank, 2)) for page, blank in tails.items()
            if page > front and page not in allowed and blank > MOST_BLANK]


@needs_pdf
def test_no_page_inside_a_chapter_is_half_blank(tmp_path, chapters):
    starts = book_pdf.chapter_pages(PDF, chapters)
    found = half_blank_pages(blank_tails(PDF, tmp_path), starts.values(), min(starts.values()) - 1)
    assert not found, f"{len(found)} pages inside a chapter more than half blank: {found}"


@needs_poppler
def test_half_blank_detector_measures_the_blank_foot(tmp_path):
    # the check must be able to fail: pages filled to 30%, 60% and 95% of the text area (a
    # grey box below the last line counts as blank, the page number in the margin is not
    # ink of the text area)
    from PIL import Image, ImageDraw

    w, h = int(8.27 * DPI), int(11.69 * DPI)
    top, bottom = round(h * TOP_MM / PAGE_MM), h - round(h * BOTTOM_MM / PAGE_MM)
    images = []
    for filled in (0.3, 0.6, 0.95):
        image = Image.new("L", (w, h), 255)
        draw = ImageDraw.Draw(image)
        last = top + int(filled * (bottom - top))
        for y in range(top, last, 5):
            draw.line([30, y, w - 30, y], fill=30)
        draw.rectangle([20, last + 3, w - 20, bottom - 2], fill=243)
        draw.line([w // 2 - 3, h - 10, w // 2 + 3, h - 10], fill=0)
        images.append(image)
    pdf = tmp_path / "probe.pdf"
    images[0].save(pdf, save_all=True, append_images=images[1:] + [images[2]], resolution=DPI)
    (tmp_path / "r").mkdir()
    tails = blank_tails(pdf, tmp_path / "r")
    assert [round(t, 1) for t in tails.values()] == [0.7, 0.4, 0.1, 0.1], tails
    # page 1 is more than half blank; so is it when it ends the front matter or precedes a
    # chapter start, where it is allowed
    assert half_blank_pages(tails, [4], front=0) == [(1, 0.7)]
    assert half_blank_pages(tails, [2], front=0) == []
    assert half_blank_pages(tails, [4], front=1) == []
