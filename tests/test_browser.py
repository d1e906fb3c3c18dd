"""Pages that fit, measured in a real browser (issue 14, part 5).

Every page of the built site is opened at a 1400 px window in headless Chromium
(scripts/page_fit.py); no display formula may be wider than its column (cut or scrolled
sideways) and no output block wider than its box.  Needs the built book and Debian's
chromium, and costs about a minute of CPU, so it runs from ``./run.sh test-install`` (the
slow reader checks, DPMARKOV_TEST_INSTALL=1), which installs chromium when it is missing.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(os.environ.get("DPMARKOV_TEST_INSTALL") != "1",
                                reason="slow, needs chromium: ./run.sh test-install")

_spec = importlib.util.spec_from_file_location("page_fit", ROOT / "scripts" / "page_fit.py")
page_fit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page_fit)


def test_no_formula_or_output_wider_than_its_column():
    assert (ROOT / "_build" / "html" / "index.html").is_file(), "build the book first"
    assert page_fit.chromium(), "Debian's chromium is needed (./run.sh test-install installs it)"
    pages = sorted(f"book/{p.name}" for p in (ROOT / "_build" / "html" / "book").glob("*.html"))
    assert len(pages) >= 29
    found = page_fit.measure(pages)
    assert set(found) == set(pages), "the harness did not measure every page"
    problems = [f"{page}: {kind} {w} px in {box} px: {what}"
                for page, bad in found.items() for kind, w, box, what in bad]
    assert not problems, "\n".join(problems)


def test_the_measurement_sees_a_wide_formula(tmp_path):
    # the check must be able to fail: a page with a formula far wider than any column
    html = page_fit.HTML / "book" / "_fit_probe.html"
    source = (page_fit.HTML / "book" / "notation.html").read_text()
    wide = " + ".join(f"x_{{{i}}}" for i in range(200))
    html.write_text(source.replace("</article>", f"<p>$$ {wide} $$</p></article>", 1))
    try:
        bad = page_fit.measure(["book/_fit_probe.html"])["book/_fit_probe.html"]
    finally:
        html.unlink()
    assert any(kind == "formula" and w > box for kind, w, box, _ in bad), bad
