"""Measure what a reader sees at a 1400 px window: clipped formulas and overflowing outputs.

Serves the built site (_build/html) on the loopback address, opens one harness page in
headless Chromium (Debian's package) that loads each chapter in turn in a 1400 x 1000
iframe, waits for MathJax to typeset it, and lists every display formula and every output
block whose content is wider than the box that holds it (the reader would have to scroll
sideways, or the formula is cut).  Prints one line per problem; exit status 1 if any.

    .venv/bin/python scripts/page_fit.py [PAGE ...]     (default: every page in book/)

Used by tests/test_reader.py (issue 14, part 5).
"""
from __future__ import annotations

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
WIDTH, HEIGHT = 1400, 1000

# Runs inside the harness: for each page, load it, wait for MathJax, measure, go on.
HARNESS = """<!doctype html><html><body>
<iframe id="f" style="width:%(w)dpx;height:%(h)dpx;border:0"></iframe>
<pre id="report"></pre>
<script>
const pages = %(pages)s;
const results = {};
function measure(doc) {
  const bad = [];
  for (const m of doc.querySelectorAll('mjx-container[display="true"]')) {
    const box = m.parentElement;
    if (m.scrollWidth > box.clientWidth + 1 || m.scrollWidth > m.clientWidth + 1)
      bad.push(['formula', m.scrollWidth, box.clientWidth,
                m.textContent.slice(0, 60)]);
  }
  for (const pre of doc.querySelectorAll('div.cell_output pre')) {
    if (pre.scrollWidth > pre.clientWidth + 1)
      bad.push(['output', pre.scrollWidth, pre.clientWidth, pre.textContent.split('\\n')[0].slice(0, 60)]);
  }
  return bad;
}
async function run() {
  const f = document.getElementById('f');
  for (const p of pages) {
    await new Promise(res => { f.onload = res; f.src = p; });
    const w = f.contentWindow;
    for (let i = 0; i < 200 && !(w.MathJax && w.MathJax.startup && w.MathJax.startup.promise); i++)
      await new Promise(r => setTimeout(r, 50));
    if (w.MathJax && w.MathJax.startup) await w.MathJax.startup.promise;
    await new Promise(r => setTimeout(r, 100));
    results[p] = measure(f.contentDocument);
  }
  document.getElementById('report').textContent = 'RESULT' + JSON.stringify(results) + 'END';
}
run();
</script></body></html>"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def measure(pages: list[str]) -> dict[str, list]:
    """page name (book/NAME.html) -> list of [kind, content width, box width, what]."""
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            (HTML / "_page_fit.html").write_text(
                HARNESS % {"w": WIDTH, "h": HEIGHT, "pages": json.dumps(pages)})
            url = f"http://127.0.0.1:{server.server_port}/_page_fit.html"
            out = subprocess.run(
                [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                 f"--user-data-dir={tmp}", f"--window-size={WIDTH + 40},{HEIGHT + 200}",
                 "--virtual-time-budget=120000", "--dump-dom", url],
                capture_output=True, text=True, timeout=900).stdout
    finally:
        (HTML / "_page_fit.html").unlink(missing_ok=True)
        server.shutdown()
    found = re.search(r'<pre id="report">RESULT(.*?)END</pre>', out, re.S)
    if not found:
        raise RuntimeError("the harness page did not finish: " + out[-500:])
    return json.loads(html_lib.unescape(found.group(1)))


def main(names: list[str]) -> int:
    pages = [f"book/{n}.html" for n in names] or sorted(
        f"book/{p.name}" for p in (HTML / "book").glob("*.html"))
    problems = 0
    for page, bad in measure(pages).items():
        for kind, content, box, what in bad:
            problems += 1
            print(f"{page}: {kind} {content} px in {box} px: {what!r}")
    print(f"{len(pages)} pages, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
