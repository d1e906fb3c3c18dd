"""Print the whole book to one PDF with headless Chromium: ``./run.sh pdf``.

1. Build the book as a single HTML page (Sphinx's ``singlehtml`` builder through Jupyter
   Book; the notebooks' committed outputs are used, nothing is re-executed) into
   ``_build/pdf``.  MathJax is served from the build itself, so printing needs no network,
   and it typesets the book's macros (macros.tex) exactly as the HTML book does.
2. Prepare the page for print: a title page and a table of contents (parts and chapters),
   every solution and exercise box opened, page numbers in the footer (CSS ``@page``).
   No page inside a chapter is left more than half blank: a block the theme keeps whole
   (a code cell, a box, a table) that is taller than ``TALL_BLOCK_PX`` may break across
   pages, and a figure's image is at most 100 mm tall, so what moves whole to the next
   page is under half the text area.
3. Print with Chromium (``--print-to-pdf``, with a PDF outline from the headings), read
   each chapter's first page back with ``pdftotext`` (poppler-utils: the page that begins
   with the chapter's title set as a heading) and print again with the page numbers in the
   table of contents.  ``tests/test_pdf.py`` checks the result (``./run.sh pdf`` runs it).

Result: ``_build/pdf/dpmarkov-book.pdf``.  Needs ``chromium`` and ``pdftotext`` on PATH
(``./run.sh pdf`` installs Debian's ``chromium`` and ``poppler-utils`` when missing).
"""
from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "pdf"
PDF = OUT / "dpmarkov-book.pdf"

PRINT_CSS = """
<style id="dpmarkov-print">
@page { size: A4; margin: 18mm 16mm 20mm 16mm;
        @bottom-center { content: counter(page); font: 10pt sans-serif; color: #444; } }
@page :first { @bottom-center { content: none; } }
html { font-size: 13px; }
.book-titlepage { break-after: page; text-align: center; padding-top: 30vh; }
.book-titlepage h1 { font-size: 2.4rem; break-before: avoid; display: block !important; }
/* the theme's own print header (page title + a bare chapter list) is replaced by ours */
#jb-print-docs-body, .onlyprint { display: none !important; }
/* ... and it hides the first h1 of the article, which here is the introduction's title */
.bd-main .bd-content .bd-article h1:first-of-type { display: block !important; }
.book-toc { break-after: page; }
.book-toc h2 { font-size: 1.6rem; }
.book-toc .part { font-weight: bold; margin-top: .8em; }
.book-toc .entry { display: flex; margin-left: 1.2em; }
.book-toc .entry a { color: inherit; text-decoration: none; }
.book-toc .entry .dots { flex: 1; border-bottom: 1px dotted #888; margin: 0 .4em .3em; }
span[id^="document-"] + section { break-before: page; }
.toggle-hidden { visibility: visible !important; opacity: 1 !important; height: auto !important; }
.bd-article-container, .bd-main .bd-content { max-width: 100% !important; }
/* code the web page hides behind a toggle stays hidden on paper, toggle and all (no
   "Show code cell source" printed); its output is printed */
details.hide { display: none !important; }
/* a block taller than about half a page may break across pages (OPEN_JS marks it): kept
   whole, it would leave its frame empty on one page and start again on the next */
/* a code cell's frame moves to the next page with its code (as a flex box it stayed behind,
   empty, when the theme moved the code) */
div.cell_input { display: block !important; break-inside: avoid; }
/* the theme keeps whole every div.highlight and its wrapper div.highlight-<language>: a
   block that may break lets both break */
.may-break, .may-break div.highlight, .may-break div[class*=highlight-], .may-break pre {
  break-inside: auto !important; }
.may-break pre { orphans: 3; widows: 3; }
/* a figure is kept whole with its caption and cannot break: one taller than about half the
   text area (259 mm) that does not fit leaves more than half a page blank behind it, so an
   image is at most 100 mm tall (its width scales with it) */
.bd-article img { max-height: 100mm; width: auto !important; height: auto !important;
                  max-width: 100%; }
</style>
"""

#: A block taller than this (CSS px, on the screen layout of the page) may break across
#: pages; an A4 page holds about 980 px of content between its margins.
TALL_BLOCK_PX = 450

OPEN_JS = """
<script>
document.addEventListener('DOMContentLoaded', () => {
  // exercises, solutions and theorem dropdowns open; hidden code cells stay closed
  document.querySelectorAll('details').forEach(d => {
    if (!d.classList.contains('hide') && !d.closest('.cell')) d.open = true;
  });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  // blocks the theme keeps whole (break-inside: avoid) may break when they are long
  const keptWhole = 'div.cell_input, div.highlight, div[class*=highlight-], '
    + '.admonition, div.proof, div.exercise, div.solution, table';
  document.querySelectorAll(keptWhole).forEach(e => {
    if (e.getBoundingClientRect().height > %(tall)d) e.classList.add('may-break');
  });
});
</script>
"""


def parts() -> list[tuple[str, list[str]]]:
    """(part caption, [docname, ...]) in book order, from _toc.yml."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    out = [("", [toc["root"]])]
    for part in toc.get("parts", []):
        out.append((part["caption"], [c["file"] for c in part.get("chapters", [])]))
    return out


def build_singlehtml() -> Path:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"  # the committed outputs are the book
    ext = config["sphinx"].get("local_extensions", {})
    config["sphinx"]["local_extensions"] = {k: str((ROOT / v).resolve()) for k, v in ext.items()}
    OUT.mkdir(parents=True, exist_ok=True)
    cfg = OUT / "pdf_config.yml"
    cfg.write_text(yaml.safe_dump(config, sort_keys=False))
    jb = Path(sys.executable).with_name("jupyter-book")
    subprocess.run([str(jb), "build", str(ROOT), "--config", str(cfg), "--path-output", str(OUT),
                    "--builder", "custom", "--custom-builder", "singlehtml", "--all"], check=True)
    root = yaml.safe_load((ROOT / "_toc.yml").read_text())["root"]
    return OUT / "_build" / "singlehtml" / f"{root}.html"


def chapter_titles(page: str) -> dict[str, tuple[str, str, str]]:
    """docname -> (anchor id, title as HTML, title as plain text without its formulas) of
    each chapter in the single page (the root page first; the others are h2 there).  A page
    whose title carries a label, (notation)=, has an empty <span id> before its heading."""
    out = {}
    pat = re.compile(r'(?:<span id="document-([^"]+)"></span>|<article class="bd-article">)\s*'
                     r'<section[^>]*id="([^"]+)"[^>]*>\s*(?:<span id="[^"]+"></span>\s*)*<h[12]>(.*?)'
                     r'<a class="headerlink"', re.S)
    root = yaml.safe_load((ROOT / "_toc.yml").read_text())["root"]
    for m in pat.finditer(page):
        doc = m.group(1) or root
        title_html = m.group(3).strip()
        plain = re.sub(r'<span class="math[^"]*">.*?</span>', " ", title_html, flags=re.S)
        plain = html.unescape(re.sub(r"<[^>]+>", "", plain)).strip()
        out.setdefault(doc, (m.group(2), title_html, plain))
    return out


def toc_html(chapters, pages: dict[str, int]) -> str:
    lines = ['<nav class="book-toc"><h2>Contents</h2>']
    for caption, docs in parts():
        if caption:
            lines.append(f'<div class="part">{html.escape(caption)}</div>')
        for doc in docs:
            if doc not in chapters:
                continue
            anchor, title, _ = chapters[doc]
            page = pages.get(doc, "")
            lines.append(f'<div class="entry"><a href="#{anchor}">{title}</a>'
                         f'<span class="dots"></span><span>{page}</span></div>')
    lines.append("</nav>")
    return "\n".join(lines)


def prepare(index: Path, pages: dict[str, int]) -> tuple[Path, dict]:
    page = index.read_text()
    chapters = chapter_titles(page)
    missing = [d for _, docs in parts() for d in docs if d not in chapters]
    if missing:
        raise RuntimeError(f"chapters missing from the single page: {missing}")
    title = html.escape(yaml.safe_load((ROOT / "_config.yml").read_text())["title"])
    front = (f'<div class="book-titlepage"><h1>{title}</h1><p>The dpmarkov authors</p></div>'
             + toc_html(chapters, pages))
    page = page.replace("</head>", PRINT_CSS + OPEN_JS % {"tall": TALL_BLOCK_PX} + "</head>", 1)
    page = re.sub(r'(<article class="bd-article"[^>]*>)', lambda m: m.group(1) + front, page, count=1)
    out = OUT / "_build" / "singlehtml" / "print.html"  # beside _static/, as the links expect
    out.write_text(page)
    return out, chapters


def print_pdf(page: Path, pdf: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise RuntimeError("chromium not found (Debian: apt-get install chromium)")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--host-resolver-rules=MAP * ~NOTFOUND",
                    "--run-all-compositor-stages-before-draw", "--virtual-time-budget=90000",
                    "--no-pdf-header-footer", "--generate-pdf-document-outline",
                    f"--print-to-pdf={pdf}", page.resolve().as_uri()],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def pdf_pages(pdf: Path) -> list[str]:
    """The text of each page of ``pdf`` (pdftotext), whitespace runs made single spaces."""
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout
    return [_norm(page) for page in text.split("\f")]


def title_key(plain_title: str) -> str:
    """The start of a chapter title as pdftotext reads it (its first words, up to about 40
    characters, whole words only)."""
    words, out = _norm(plain_title.split("  ")[0]).split(), []
    for word in words:
        if out and len(" ".join(out + [word])) > 40:
            break
        out.append(word)
    return " ".join(out)


def pdf_words(pdf: Path) -> list[list[tuple[str, float]]]:
    """Each page's words with their heights in points (``pdftotext -bbox``), in reading order."""
    text = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout
    word = re.compile(r'<word xMin="[^"]+" yMin="([^"]+)" xMax="[^"]+" yMax="([^"]+)">(.*?)</word>')
    return [[(html.unescape(w), float(y1) - float(y0)) for y0, y1, w in word.findall(page)]
            for page in text.split("<page ")[1:]]


def starts_with_heading(words: list[tuple[str, float]], title: str) -> bool:
    """Whether a page begins with ``title`` set as a heading: its first words are the title's
    and they are at least 1.5 times as tall as the page's typical word, so a sentence that
    happens to begin with the same words ("The Dirichlet mechanism needs ...") is not one."""
    n = len(title.split())
    if len(words) < n or _norm(" ".join(w for w, _ in words[:n])) != title:
        return False
    heights = sorted(h for _, h in words)
    return min(h for _, h in words[:n]) >= 1.5 * heights[len(heights) // 2]


def chapter_pages(pdf: Path, chapters) -> dict[str, int]:
    """The page on which each chapter starts: every chapter begins a new page with its
    title as a heading (the print CSS breaks the page before it), so it is the first page
    after the contents that begins with the title set large (``starts_with_heading``).
    A title quoted in earlier prose, even at the top of a page, is not the start."""
    text, words = pdf_pages(pdf), pdf_words(pdf)
    # search after our contents page (its entries carry every title too)
    start = next((i + 1 for i, t in enumerate(text) if t.startswith("Contents")), 1)
    pages = {}
    for _, docs in parts():
        for doc in docs:
            title = title_key(chapters[doc][2])
            for i in range(start, len(words)):
                if starts_with_heading(words[i], title):
                    pages[doc] = i + 1
                    start = i + 1
                    break
    return pages


def main(reuse: bool = False) -> None:
    root = yaml.safe_load((ROOT / "_toc.yml").read_text())["root"]
    index = OUT / "_build" / "singlehtml" / f"{root}.html"
    if not (reuse and index.is_file()):  # --reuse: print the last single-page build again
        index = build_singlehtml()
    page, chapters = prepare(index, {})
    print_pdf(page, PDF)
    pages = chapter_pages(PDF, chapters)
    missing = [doc for doc in chapters if doc not in pages]
    if missing:
        raise RuntimeError(f"no page starts with the title of {missing}: the contents would "
                           "lack their page numbers")
    page, _ = prepare(index, pages)
    print_pdf(page, PDF)
    info = subprocess.run(["pdfinfo", str(PDF)], capture_output=True, text=True).stdout
    n = re.search(r"Pages:\s+(\d+)", info).group(1)
    print(f"The book is at {PDF} ({n} pages; "
          f"{len(pages)} of {len(chapters)} chapters located for the contents)")


if __name__ == "__main__":
    main(reuse="--reuse" in sys.argv[1:])
