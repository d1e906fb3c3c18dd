"""Pages that fit, measured in a real browser (issue 14, part 5; issue 29, parts 2, 4 and 6).

Every page of the built site is opened at a 1400 px and an 800 px window in headless
Chromium (scripts/page_fit.py):

- no display formula may be wider than its column (cut or scrolled sideways), and no
  output block wider than its box;
- no code block (code cell or listing) wraps its lines at either width (a wrapped line
  breaks mid-token); at 1400 px none scrolls sideways either, and the code column holds at
  least the formatter's 79 characters (issue 35, item 2); at 800 px a long line may scroll;
- no table cell splits a word across lines at either width (a wide table scrolls inside its
  box instead; issue 35, item 3);
- the text of every figure is at least 9 pt on screen: its smallest font (figure points,
  from the plotting cell) times the scale it is shown at (the width the browser gives the
  image over the figure's width in inches at 96 px to the inch);
- the search page's summaries show formulas as text, never as raw TeX;
- every page passes axe-core's WCAG 2.1 A and AA rules (issue 35, item 6; axe-core from npm,
  ``scripts/page_fit.py``, injected into each page in Chromium).

Needs the built book and Debian's chromium, and costs a few minutes of CPU, so it runs from
``./run.sh test-install`` (the slow reader checks, DPMARKOV_TEST_INSTALL=1), which installs
chromium when it is missing.
"""
from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(os.environ.get("DPMARKOV_TEST_INSTALL") != "1",
                                reason="slow, needs chromium: ./run.sh test-install")

_spec = importlib.util.spec_from_file_location("page_fit", ROOT / "scripts" / "page_fit.py")
page_fit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page_fit)

#: The formatter's width (ruff.toml): a code line of this many characters must fit the code
#: column at a 1400 px window.
CODE_WIDTH = 79


@pytest.fixture(scope="module")
def found():
    assert (ROOT / "_build" / "html" / "index.html").is_file(), "build the book first"
    assert page_fit.chromium(), "Debian's chromium is needed (./run.sh test-install installs it)"
    pages = sorted(f"book/{p.name}" for p in (ROOT / "_build" / "html" / "book").glob("*.html"))
    assert len(pages) >= 29
    result = page_fit.measure(pages, axe=True)
    assert set(result) == set(page_fit.WIDTHS)
    for width, by_page in result.items():
        assert set(by_page) == set(pages), f"the harness did not measure every page at {width} px"
    return result


def test_no_formula_or_output_wider_than_its_column(found):
    problems = [f"{width} px: {page}: {kind} {w} px in {box} px: {what}"
                for width, by_page in found.items() for page, result in by_page.items()
                for kind, w, box, what in result["bad"] if kind in ("formula", "output")]
    assert not problems, "\n".join(problems)


def _problems(found, kinds, widths=page_fit.WIDTHS):
    return [f"{width} px: {page}: {kind} {w} px in {box} px: {what}"
            for width in widths for page, result in found[width].items()
            for kind, w, box, what in result["bad"] if kind in kinds]


#: Pages whose code the chapters' formatter does not reach, with the reason: the API pages
#: show the package's docstring examples, written to the package's width and indented in
#: the entry (they scroll); the instructor guide (course) is rewritten by another task of
#: issue 35.
SCROLL_ALLOWED = {"book/api_core.html", "book/api_baselines.html", "book/api_datasets.html",
                  "book/api_claims.html", "book/instructor_guide.html"}


def test_no_code_line_wraps_and_none_scrolls_at_1400_px(found):
    # no block may wrap its lines at any width (a wrapped line breaks mid-token); at 1400 px
    # none may scroll either: the 79-column code fits; at 800 px a long line may scroll
    scrolls = [p for p in _problems(found, ("code",), (1400,))
               if p.split(": ")[1] not in SCROLL_ALLOWED]
    problems = _problems(found, ("code-wrap",)) + scrolls
    assert not problems, "\n".join(problems)


def test_the_code_column_holds_the_formatter_width_at_1400_px(found):
    chars = {r["codeChars"] for r in found[1400].values() if r["code"]}
    assert chars and min(chars) >= CODE_WIDTH, chars


def test_no_table_splits_a_word(found):
    problems = _problems(found, ("table",))
    assert not problems, "\n".join(problems)


def test_every_page_passes_axe_wcag21_aa(found):
    # axe-core's WCAG 2.1 A and AA rules (contrast, names, ARIA, ...) on every page at 1400 px
    problems = [f"{page}: {rule} ({impact}, {nodes} element(s)), first {target}: {html}"
                for page, result in found[page_fit.WIDTHS[0]].items()
                for rule, impact, nodes, target, html in result.get("axe", [])]
    assert all("axe" in r for r in found[page_fit.WIDTHS[0]].values()), "axe did not run"
    assert not problems, "\n".join(problems)


def test_figure_text_is_at_least_9_pt_on_screen(found):
    figures = page_fit.figures()
    small, seen = [], set()
    for width, by_page in found.items():
        for page, result in by_page.items():
            for name, natural, shown in result["images"]:
                assert name in figures, f"{page}: an image outside a named figure ({name!r})"
                fig = figures[name]
                assert natural == fig["pixels"], f"{name}: the page shows another image"
                seen.add(name)
                pt = page_fit.text_on_screen_pt(fig["font"], fig["inches"], shown)
                if pt < page_fit.MIN_SCREEN_PT:
                    small.append(f"{width} px: {fig['notebook']} cell {fig['cell']} ({name}): "
                                 f"{fig['font']:g} pt text in a {fig['inches']:.2f} in figure "
                                 f"shown {shown:.0f} px wide reads {pt:.1f} pt")
    assert seen == set(figures), f"figures not found on the pages: {set(figures) - seen}"
    assert not small, f"{len(small)} figure texts below 9 pt on screen:\n" + "\n".join(small)


def test_search_summaries_show_no_raw_tex():
    summaries = page_fit.search_summaries("epsilon")
    assert len(summaries) >= 10, "the search page showed (almost) no results"
    raw = [s[:120] for s in summaries if "\\(" in s or "\\[" in s or "\\epsilon" in s]
    assert not raw, "\n".join(raw)
    assert any("ε" in s for s in summaries)


def test_the_measurement_sees_wide_formulas_wrapping_code_and_split_words():
    # the check must be able to fail: a page with a formula and a code line far wider than
    # any column, a code block that wraps, and a narrow table that breaks its words
    html = page_fit.HTML / "book" / "_fit_probe.html"
    source = (page_fit.HTML / "book" / "notation.html").read_text()
    wide = " + ".join(f"x_{{{i}}}" for i in range(200))
    # (the book's CSS keeps code on its lines: these blocks opt out, as a page without that
    # rule would show them)
    code = ('<div class="highlight"><pre style="white-space: pre; overflow-wrap: normal">'
            + "x = 1 + " * 60 + "1</pre></div>"
            + '<div class="highlight"><pre style="white-space: pre-wrap">'
            + "y = 2 + " * 60 + "2</pre></div>")
    table = ('<table style="width: 60px"><tr><td style="word-break: break-all">'
             "Foundations of differential privacy</td></tr></table>")
    faint = '<p style="color: #bbbbbb; background: #ffffff">faint text</p>'
    # the colour-mode button as it was when Font Awesome turned a titled icon into an <svg>
    # before the icon was marked aria-hidden: it shows "Light", its name is "Color mode"
    mode = ('<button aria-label="Color mode"><svg class="svg-inline--fa fa-sun fa-lg" '
            'aria-labelledby="probe-t" role="img" xmlns="http://www.w3.org/2000/svg" '
            'viewBox="0 0 512 512"><title id="probe-t">Light</title>'
            '<path fill="currentColor" d="M0 0h512v512H0z"></path></svg></button>')
    html.write_text(source.replace(
        "</article>", f"<p>$$ {wide} $$</p>{code}{table}{faint}{mode}</article>", 1))
    try:
        found = page_fit.measure(["book/_fit_probe.html"], axe=True)
    finally:
        html.unlink()
    for width in page_fit.WIDTHS:
        bad = found[width]["book/_fit_probe.html"]["bad"]
        assert any(kind == "formula" and w > box for kind, w, box, _ in bad), bad
        assert any(kind == "code" and w > box for kind, w, box, _ in bad), bad
        wraps = [what for kind, _, _, what in bad if kind == "code-wrap"]
        # only the probe wraps: the notation page's own blocks keep their lines
        assert wraps and all(what.startswith("y = 2") for what in wraps), bad
        assert any(kind == "table" for kind, *_ in bad), bad
    # axe sees the faint paragraph (contrast about 1.9:1, AA asks 4.5:1) and the button
    # whose name lacks the text it shows (label in name)
    rules = {rule for rule, *_ in found[page_fit.WIDTHS[0]]["book/_fit_probe.html"]["axe"]}
    assert {"color-contrast", "label-content-name-mismatch"} <= rules, rules


def test_the_colour_mode_buttons_icons_are_decoration_in_the_markup():
    # Font Awesome turns a titled icon into an <svg> holding the title as text; marked
    # aria-hidden only by a script, the button's visible text ("Light") and name ("Color
    # mode") differed on the pages where Font Awesome ran first (axe flaked on 1-3 pages a
    # run). _ext/templates/theme-switcher.html states it in the markup: every page's button
    # holds three icons, each aria-hidden and without a title.
    pages = sorted((ROOT / "_build" / "html" / "book").glob("*.html"))
    assert len(pages) >= 29
    for page in pages:
        button = re.search(r'<button[^>]*theme-switch-button.*?</button>', page.read_text(),
                           re.DOTALL)
        assert button, f"{page.name}: no colour-mode button"
        icons = re.findall(r"<i [^>]*>", button.group(0))
        assert len(icons) == 3, (page.name, icons)
        bad = [i for i in icons if 'aria-hidden="true"' not in i or "title=" in i]
        assert not bad, (page.name, bad)


def test_small_figure_text_is_seen():
    # 9 pt text in a 10.9 in figure shown 756 px wide (the column at 1400 px) reads 6.5 pt
    assert round(page_fit.text_on_screen_pt(9, 10.9, 756), 1) == 6.5
    assert page_fit.text_on_screen_pt(9, 7.3, 705) >= page_fit.MIN_SCREEN_PT
    assert page_fit.smallest_font_pt('ax.legend(fontsize=9)\nax.text(0, 0, "a", fontsize="small")') == 8.33
    assert page_fit.smallest_font_pt("plt.plot(x)") == page_fit.DEFAULT_FONT_PT
