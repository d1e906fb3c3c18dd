"""Measure what a reader sees at a 1400 px and an 800 px window: clipped formulas, code
and outputs that scroll sideways, code that may wrap, table cells that split a word, how many
characters a code line holds, and how far each figure is scaled down.

Serves the built site (_build/html) on the loopback address, opens one harness page in
headless Chromium (Debian's package) that loads each chapter in turn in an iframe of each
window width (1400 x 1000, then 800 x 1000), waits for MathJax to typeset it, and lists
every display formula, code block (a code cell's input or a code listing in the prose) and
output block whose content is wider than the box that holds it (the reader would have to
scroll sideways, or the formula is cut).  It also records every figure's image: its natural
width and the width it is shown at (tests/test_browser.py turns that into the size its text
has on screen).  Prints one line per problem and a count per kind and width; exit status 1
if any.

    .venv/bin/python scripts/page_fit.py [PAGE ...]     (default: every page in book/)

Used by tests/test_browser.py (issue 14, part 5; issue 29, parts 2 and 4).
"""
from __future__ import annotations

import collections
import functools
import html as html_lib
import http.server
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
WIDTHS, HEIGHT = (1400, 800), 1000
WIDTH = WIDTHS[0]
KINDS = ("formula", "code", "code-wrap", "table", "output")

# Runs inside the harness: for each width and page, load it, wait for MathJax, measure.
HARNESS = """<!doctype html><html><body>
<iframe id="f" style="width:1400px;height:%(h)dpx;border:0"></iframe>
<pre id="report"></pre>
<script>
const pages = %(pages)s, widths = %(widths)s;
const results = {};
const first = (pre) => pre.textContent.split('\\n').find(l => l.trim()) || '';
function measure(doc) {
  const bad = [];
  for (const m of doc.querySelectorAll('mjx-container[display="true"]')) {
    const box = m.parentElement;
    if (m.scrollWidth > box.clientWidth + 1 || m.scrollWidth > m.clientWidth + 1)
      bad.push(['formula', m.scrollWidth, box.clientWidth,
                m.textContent.slice(0, 60)]);
  }
  // code: a code cell's source, or a code listing in the prose (never an output); a block
  // that may wrap its lines (white-space other than pre) could break a token: 'code-wrap'
  let code = 0, codeChars = 0;
  for (const pre of doc.querySelectorAll('.bd-article div.highlight pre')) {
    if (pre.closest('.cell_output, div.output')) continue;
    code += 1;
    const style = doc.defaultView.getComputedStyle(pre);
    if (style.whiteSpace !== 'pre')
      bad.push(['code-wrap', pre.scrollWidth, pre.clientWidth, first(pre).slice(0, 60)]);
    if (pre.scrollWidth > pre.clientWidth + 1)
      bad.push(['code', pre.scrollWidth, pre.clientWidth, first(pre).slice(0, 60)]);
    if (!codeChars) {     // how many characters of this font the block's text box holds
      const probe = doc.createElement('span');
      probe.textContent = 'x'.repeat(100);
      pre.appendChild(probe);
      const inner = pre.clientWidth - parseFloat(style.paddingLeft)
                    - parseFloat(style.paddingRight);
      codeChars = Math.floor(inner / (probe.getBoundingClientRect().width / 100));
      probe.remove();
    }
  }
  // tables: a word (a run of characters without space, hyphen or slash) laid out on more
  // than one line was split inside it
  for (const cell of doc.querySelectorAll('.bd-article table td, .bd-article table th')) {
    const walker = doc.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    let node, split = null;
    while (!split && (node = walker.nextNode())) {
      for (const m of node.textContent.matchAll(/[^\\s\\-\\/\\u2010-\\u2014]+/g)) {
        const range = doc.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects(), r => Math.round(r.top)));
        if (tops.size > 1) { split = m[0]; break; }
      }
    }
    if (split) bad.push(['table', cell.scrollWidth, cell.clientWidth, split.slice(0, 60)]);
  }
  for (const box of doc.querySelectorAll('div.cell_output')) {
    for (const el of box.querySelectorAll('pre, table, .output')) {
      if (el.scrollWidth > el.clientWidth + 1 || el.scrollWidth > box.clientWidth + 1) {
        bad.push(['output', el.scrollWidth, Math.min(el.clientWidth, box.clientWidth),
                  el.textContent.trim().split('\\n')[0].slice(0, 60)]);
        break;
      }
    }
  }
  const images = [];
  for (const img of doc.querySelectorAll('.bd-article .cell_output img')) {
    const fig = img.closest('figure');
    images.push([fig ? fig.id : '', img.naturalWidth, img.getBoundingClientRect().width]);
  }
  const article = doc.querySelector('.bd-article');
  return {bad: bad, images: images, code: code, codeChars: codeChars,
          column: article ? article.clientWidth : 0};
}
const axe = %(axe)s;
// the page is measured once it has settled, by events, not by a clock: the document loaded
// (deferred theme scripts, MathJax included, have run), its fonts ready (icon fonts decide
// what a control shows), Font Awesome's icons turned into SVG (its promise; the
// colour-mode button's icons are decoration in the markup,
// _ext/templates/theme-switcher.html), MathJax typeset, and the
// page's own mutation observers (_static/dpmarkov_a11y.js) run. (Animation frames are not
// waited for: headless Chromium stopped drawing them for some pages.)
async function settled(doc, win) {
  if (doc.readyState !== 'complete')
    await new Promise(res => win.addEventListener('load', res, {once: true}));
  if (doc.fonts) await doc.fonts.ready;
  if (win.FontAwesome && win.FontAwesome.dom) {
    win.FontAwesome.config.mutateApproach = 'sync';   // its async mode waits for a frame
    await win.FontAwesome.dom.i2svg();
  }
  // MathJax (a deferred script, so defined by now) typesets after its startup promise
  if (win.MathJax && win.MathJax.startup && win.MathJax.startup.promise)
    await win.MathJax.startup.promise;
  // one task later (a message, not a timer): the mutation observers' callbacks have run;
  // layout is computed when the measurement reads it
  await new Promise(res => { const c = new MessageChannel(); c.port1.onmessage = res;
                             c.port2.postMessage(0); });
}
// axe-core (WCAG 2.1 A and AA rules) in the page itself: its violations, one entry per rule
async function runAxe(doc, win) {
  if (!win.axe) {
    const s = doc.createElement('script');
    s.src = '/_axe.min.js';
    await new Promise((res, rej) => { s.onload = res; s.onerror = rej; doc.head.appendChild(s); });
  }
  const r = await win.axe.run(doc, {runOnly: {type: 'tag',
                                   values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}});
  return r.violations.map(v => [v.id, v.impact, v.nodes.length,
                                v.nodes[0].target.join(' '), v.nodes[0].html.slice(0, 120)]);
}
async function run() {
  const f = document.getElementById('f');
  for (const w of widths) {
    f.style.width = w + 'px';
    results[w] = {};
    for (const p of pages) {
      await new Promise(res => { f.onload = res; f.src = p + '?w=' + w; });
      const win = f.contentWindow;
      await settled(f.contentDocument, win);
      results[w][p] = measure(f.contentDocument);
      if (axe && w === widths[0]) results[w][p].axe = await runAxe(f.contentDocument, win);
    }
  }
  document.getElementById('report').textContent = 'RESULT' + JSON.stringify(results) + 'END';
}
run().catch(e => {
  document.getElementById('report').textContent = 'FAILED ' + e + ' ' + (e && e.stack);
});
</script></body></html>"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _dump_dom(path: str, setup=None, budget_ms: int = 120000, window: int = max(WIDTHS)) -> str:
    """Serve the built site, open ``path`` in headless Chromium and return the DOM it ends
    with; ``setup(path_on_disk)`` may write a page first (removed afterwards)."""
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    written = None
    try:
        if setup is not None:
            written = HTML / path.split("?")[0]
            setup(written)
        with tempfile.TemporaryDirectory() as tmp:
            return subprocess.run(
                [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                 f"--user-data-dir={tmp}", f"--window-size={window + 40},{HEIGHT + 200}",
                 f"--virtual-time-budget={budget_ms}", "--dump-dom",
                 f"http://127.0.0.1:{server.server_port}/{path}"],
                capture_output=True, text=True, timeout=budget_ms // 100).stdout
    finally:
        if written is not None:
            written.unlink(missing_ok=True)
        server.shutdown()


#: axe-core, the accessibility engine (npm package), pinned; fetched once with npm into
#: _build/axe when missing (./run.sh test-install runs the browser tests).
AXE_VERSION = "4.14.1"
AXE_DIR = ROOT / "_build" / "axe"


def axe_script() -> Path:
    """The path of axe.min.js (npm install into _build/axe the first time)."""
    path = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
    if not path.is_file():
        subprocess.run(["npm", "install", "--no-save", "--prefix", str(AXE_DIR),
                        f"axe-core@{AXE_VERSION}"], check=True, capture_output=True)
    return path


def measure(pages: list[str], widths=WIDTHS, axe: bool = False) -> dict[int, dict[str, dict]]:
    """window width -> page name (book/NAME.html) -> {"bad": [[kind, content width, box
    width, what], ...], "images": [[figure id, natural width, shown width], ...],
    "code": how many code blocks, "codeChars": how many characters a code block's line holds,
    "column": the article's width, and with ``axe`` at the first width "axe": [[rule,
    impact, nodes, first target, its html], ...], axe-core's WCAG 2.1 A and AA violations},
    widths in CSS pixels.  Kinds of problem: "formula" (wider
    than its column), "code" (a code block that scrolls sideways), "code-wrap" (a code block
    whose lines may wrap, hence break a token), "table" (a word split across lines in a table
    cell), "output" (an output wider than its box)."""
    harness = HARNESS % {"h": HEIGHT, "pages": json.dumps(pages), "widths": json.dumps(list(widths)),
                         "axe": "true" if axe else "false"}
    script = HTML / "_axe.min.js"
    if axe:
        shutil.copyfile(axe_script(), script)
    try:
        out = _dump_dom("_page_fit.html", lambda path: path.write_text(harness),
                        budget_ms=120000 * len(widths) * (3 if axe else 1))
    finally:
        script.unlink(missing_ok=True)
    found = re.search(r'<pre id="report">RESULT(.*?)END</pre>', out, re.S)
    if not found:
        # the report says where it stopped (FAILED and the script's error, or nothing)
        report = re.search(r'<pre id="report">(.*?)</pre>', out, re.DOTALL)
        raise RuntimeError("the harness page did not finish: "
                           + (report.group(1)[:500] if report else out[-500:]))
    return {int(w): pages for w, pages in json.loads(html_lib.unescape(found.group(1))).items()}


def search_summaries(query: str) -> list[str]:
    """The summaries the site's search page shows for ``query`` (the text under each hit)."""
    out = _dump_dom(f"search.html?q={query}", budget_ms=60000)
    return [html_lib.unescape(re.sub(r"<[^>]+>", "", m))
            for m in re.findall(r'<p class="context"[^>]*>(.*?)</p>', out, re.S)]


#: Matplotlib's named font sizes at its default font.size of 10 pt.
NAMED_SIZES = {"xx-small": 5.79, "x-small": 6.94, "small": 8.33, "medium": 10.0, "large": 12.0,
               "x-large": 14.4, "xx-large": 17.28, "smaller": 8.33, "larger": 12.0}
FONT_ARG = re.compile(r"""\b(?:fontsize|labelsize|title_fontsize)\s*=\s*"""
                      r"""(\d+(?:\.\d+)?|["'][\w-]+["'])|["']size["']\s*:\s*(\d+(?:\.\d+)?)""")
DEFAULT_FONT_PT = 10.0     # matplotlib's font.size (tick labels, axis labels, legends)
MIN_SCREEN_PT = 9.0        # the smallest text a figure may show on screen (CSS points)


def smallest_font_pt(source: str) -> float:
    """The smallest text size (points of the figure) a plotting cell asks for: its explicit
    ``fontsize=``/``labelsize=``/``title_fontsize=``/``{"size": ...}``, or matplotlib's
    default 10 pt for the rest (tick labels, axis labels)."""
    sizes = [DEFAULT_FONT_PT]
    for number, prop in FONT_ARG.findall(source):
        value = number or prop
        sizes.append(NAMED_SIZES[value.strip("\"'")] if value[0] in "\"'" else float(value))
    return min(sizes)


def png_width_inches(png: bytes) -> float:
    """A PNG's width in inches: its pixels over the resolution in its pHYs chunk
    (matplotlib writes the figure's dpi there); 72 dpi when there is none."""
    width, pos, dpi = int.from_bytes(png[16:20], "big"), 8, 72.0
    while pos < len(png):
        length, kind = int.from_bytes(png[pos:pos + 4], "big"), png[pos + 4:pos + 8]
        if kind == b"pHYs" and png[pos + 16] == 1:          # unit: metre
            dpi = int.from_bytes(png[pos + 8:pos + 12], "big") * 0.0254
        pos += 12 + length
    return width / dpi


def figures(book: Path = ROOT / "book") -> dict[str, dict]:
    """Figure name (its HTML id) -> {"notebook", "cell", "inches" (the saved image's width),
    "pixels" (its natural width), "font" (smallest text, figure points)}, for every
    plotted figure of the book's notebooks."""
    import base64

    import nbformat

    out = {}
    for path in sorted(book.glob("*.ipynb")):
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
            pngs = [o["data"]["image/png"] for o in cell.get("outputs", [])
                    if "image/png" in o.get("data", {})]
            if cell.cell_type == "code" and name and pngs:
                png = base64.b64decode(pngs[0])
                out[name] = {"notebook": path.stem, "cell": i, "inches": png_width_inches(png),
                             "pixels": int.from_bytes(png[16:20], "big"),
                             "font": smallest_font_pt(cell.source)}
    return out


def text_on_screen_pt(font_pt: float, inches: float, shown_px: float) -> float:
    """The size on screen (CSS points, 96 px to the inch) of ``font_pt`` text in a figure
    ``inches`` wide shown ``shown_px`` CSS pixels wide: the figure is drawn at
    shown_px / (96 * inches) of its printed size."""
    return font_pt * shown_px / (96.0 * inches)


def counts(found: dict[int, dict[str, dict]]) -> dict[tuple[int, str], int]:
    """(width, kind) -> how many blocks of that kind are too wide at that width."""
    out = collections.Counter({(w, kind): 0 for w in found for kind in KINDS})
    out.update((w, bad[0]) for w, pages in found.items()
               for page in pages.values() for bad in page["bad"])
    return dict(out)


def main(names: list[str]) -> int:
    pages = [f"book/{n}.html" for n in names] or sorted(
        f"book/{p.name}" for p in (HTML / "book").glob("*.html"))
    found = measure(pages)
    for width, by_page in found.items():
        for page, result in by_page.items():
            for kind, content, box, what in result["bad"]:
                print(f"{width} px: {page}: {kind} {content} px in {box} px: {what!r}")
    tally = counts(found)
    for width, by_page in found.items():
        blocks = sum(result["code"] for result in by_page.values())
        print(f"{width} px: {len(pages)} pages; too wide: "
              + ", ".join(f"{tally[width, kind]} {kind}" for kind in KINDS)
              + f" (of {blocks} code blocks)")
    return 1 if any(tally.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
