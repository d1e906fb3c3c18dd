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

``./run.sh pdf`` runs this file after printing; elsewhere it is skipped unless
``_build/pdf/dpmarkov-book.pdf`` and poppler-utils (pdftotext, pdftoppm) are there.
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
pytestmark = pytest.mark.skipif(
    not PDF.is_file() or not (shutil.which("pdftotext") and shutil.which("pdftoppm")),
    reason="no printed book: ./run.sh pdf (installs poppler-utils) makes it and runs this")

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


def test_no_code_frame_is_printed_empty(tmp_path):
    found = empty_frames(PDF, tmp_path)
    assert not found, f"{len(found)} pages with an empty code frame (page, inches): {found}"


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
