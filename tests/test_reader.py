"""The reader's book (issue 14): macros, offline pages, the import guard, the API reference.

- the LaTeX preamble and the MathJax configuration carry the same macros, both made
  from macros.tex, and every macro the chapters use that is not standard TeX is there;
- the built site (when _build/html exists: ./run.sh test builds it first) loads nothing
  from the network, ships MathJax, loads it on every page, configures the macros, offers
  the wheel, and declares no script twice (the THEBE_JS_URL error);
- scripts/import_guard.py puts its cell first, idempotently, and the cell fails with the
  helpful message when dpmarkov is missing; every notebook starts with it;
- every public name of dpmarkov is in the API reference.
"""
from __future__ import annotations

import copy
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
BOOK = ROOT / "book"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ext = _load("dpmarkov_book", ROOT / "_ext" / "dpmarkov_book.py")
guard = _load("import_guard", ROOT / "scripts" / "import_guard.py")

BUILT = pytest.mark.skipif(not (HTML / "index.html").is_file(),
                           reason="needs the built book (./run.sh test builds it first)")


# ------------------------------------------------------------------ macros
def test_latex_and_mathjax_macros_agree():
    macros = ext.read_macros()
    assert {"R", "E", "Prob", "Dir", "KL", "TV"} <= set(macros)
    mathjax = ext.mathjax_macros(macros)
    latex = ext.parse_latex_preamble(ext.latex_preamble(macros))
    as_mathjax = {k: (v, 0) if isinstance(v, str) else (v[0], v[1]) for k, v in mathjax.items()}
    assert as_mathjax == latex == macros
    # a macro with arguments keeps its arity in both forms
    one = {"f": ("#1^2", 1)}
    assert ext.mathjax_macros(one) == {"f": ["#1^2", 1]}
    assert ext.parse_latex_preamble(ext.latex_preamble(one)) == one


def test_macros_defined_in_one_place_only():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    tex = config["sphinx"]["config"].get("mathjax3_config", {}).get("tex", {})
    assert not tex.get("macros"), "define macros in macros.tex, not in _config.yml"


def test_read_macros_rejects_bad_lines(tmp_path):
    bad = tmp_path / "m.tex"
    bad.write_text("\\def\\R{\\mathbb{R}}\n")
    with pytest.raises(ValueError, match="newcommand"):
        ext.read_macros(bad)
    bad.write_text("\\newcommand{\\R}{a}\n\\newcommand{\\R}{b}\n")
    with pytest.raises(ValueError, match="twice"):
        ext.read_macros(bad)


# Standard TeX/AMS commands the chapters use; anything else must be one of our macros.
_STANDARD = set("""Vert vert alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda
mu nu xi pi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma
Upsilon Phi Psi Omega frac tfrac dfrac sqrt sum prod int log ln exp min max sup inf lim arg le ge
leq geq ne neq approx sim propto in notin cap cup bigcup setminus subset subseteq to mapsto
leftrightarrow infty partial cdot cdots dots ldots times pm mp ast dagger mid lVert rVert lvert
rvert lceil rceil lfloor rfloor left right big Big bigl bigr Bigl Bigr mathbb mathcal mathrm
mathbf text textstyle displaystyle operatorname tilde hat bar overline underbrace binom qquad
quad tag label begin end square blacksquare models ll gg lesssim gtrsim varnothing tanh cosh
sinh mathsf boldsymbol emptyset forall exists neg land lor iff implies Rightarrow rightarrow
leftarrow Leftarrow ell top intercal nabla circ star bullet det tr operatorname quad mathit
vdots ddots colon lbrace rbrace langle rangle widehat widetilde nolimits limits hfill cr
underset overset stackrel not equiv coloneqq sqrt nonumber notag""".split())


def test_every_custom_macro_the_chapters_use_is_defined():
    defined = set(ext.read_macros())
    used = set()
    for path in sorted(BOOK.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for math in re.findall(r"\$\$(.+?)\$\$|\$(.+?)\$", cell.source, re.S):
                for cmd in re.findall(r"\\([A-Za-z]+)", math[0] or math[1]):
                    used.add(cmd)
    unknown = sorted(used - _STANDARD - defined)
    assert not unknown, f"commands used in formulas but defined nowhere: {unknown} (macros.tex)"


# ------------------------------------------------------------------ the built site
def _pages():
    return sorted(HTML.rglob("*.html"))


_NETWORK = re.compile(r"""<(?:script|link|img|iframe|source|video|audio)\b[^>]*?"""
                      r"""\b(?:src|href|srcset|data)\s*=\s*["']?\s*(?:https?:)?//""", re.I)
_CSS_NETWORK = re.compile(r"""(?:url\(\s*["']?|@import\s+["'])\s*(?:https?:)?//""", re.I)


@BUILT
def test_built_site_loads_nothing_from_the_network():
    assert _NETWORK.search('<script src="https://cdn.example/x.js">')  # the scan itself works
    assert _CSS_NETWORK.search("@font-face{src:url(https://fonts.example/a.woff)}")
    offenders = []
    for page in _pages():
        for m in _NETWORK.finditer(page.read_text(errors="replace")):
            offenders.append(f"{page.relative_to(HTML)}: {m.group(0)[:120]}")
    for css in HTML.rglob("*.css"):
        if _CSS_NETWORK.search(css.read_text(errors="replace")):
            offenders.append(str(css.relative_to(HTML)))
    assert not offenders, "pages load from the network:\n" + "\n".join(offenders[:20])


@BUILT
def test_mathjax_is_shipped_and_loaded_on_every_page_with_the_macros():
    assert (HTML / "_static" / "mathjax" / "tex-chtml.js").is_file()
    fonts = list((HTML / "_static" / "mathjax" / "output" / "chtml" / "fonts").rglob("*.woff"))
    assert fonts, "MathJax's fonts are not shipped"
    macros = ext.mathjax_macros(ext.read_macros())
    # the site is the public edition: the instructor part's pages (the exams) are not on it
    edition = _load("student_edition", ROOT / "scripts" / "student_edition.py")
    instructor = {Path(f).name for f in edition.instructor_pages(
        yaml.safe_load((ROOT / "_toc.yml").read_text()))}
    assert not [n for n in instructor if (HTML / "book" / f"{n}.html").exists()]
    for page in [HTML / "book" / f"{p.stem}.html" for p in BOOK.glob("*.ipynb")
                 if p.stem not in instructor]:
        text = page.read_text()
        assert re.search(r'<script[^>]+src="[./]*_static/mathjax/tex-chtml\.js(\?[^"]*)?"', text), page.name
        config = re.search(r"window\.MathJax = (\{.*?\})</script>", text, re.S)
        assert config, f"{page.name}: no MathJax configuration"
        assert json.loads(config.group(1))["tex"]["macros"] == macros, page.name


@BUILT
def test_no_script_declares_a_constant_twice():
    for page in [HTML / "book" / "intro.html", HTML / "book" / "privacy_loss.html"]:
        text = page.read_text()
        srcs = re.findall(r'<script[^>]+src="([^"?]+)', text)
        assert len(srcs) == len(set(srcs)), f"{page.name}: a script is loaded twice"
        assert "sphinx-thebe.js" not in text and "THEBE_JS_URL" not in text, page.name


#: The files of the site a reader can open or download (text); MathJax's own files are skipped.
SITE_TEXT = {".html", ".ipynb", ".js", ".txt", ".md", ".py", ".json", ".yml", ".csv"}


@BUILT
def test_the_site_holds_no_solution_of_a_graded_exercise():
    """The site is the public edition (./run.sh book, scripts/student_edition.py): no page,
    downloadable notebook or search index holds a fingerprint of the solution of an exercise
    an assignment grades (tests/test_student_edition.py shows the check finds them in the
    instructor's book and through a page's markup)."""
    edition = _load("student_edition", ROOT / "scripts" / "student_edition.py")
    prints = edition.fingerprints(edition.graded_exercises())
    found = {}
    for path in sorted(HTML.rglob("*")):
        if (path.is_file() and path.suffix in SITE_TEXT
                and "mathjax" not in path.relative_to(HTML).parts):
            hits = edition.leaks(edition.visible_text(path.read_text(errors="replace")), prints)
            if hits:
                found[str(path.relative_to(HTML))] = hits
    assert not found, found


@BUILT
def test_the_wheel_is_offered_for_download():
    wheels = list((HTML / "_downloads").rglob(ext.wheel_name()))
    assert wheels, "the wheel is not in the built site"
    page = (HTML / "book" / "run_locally.html").read_text()
    assert re.search(r'href="[./]*_downloads/[0-9a-f]+/' + re.escape(ext.wheel_name()), page)
    assert "reader-requirements.txt" in page


@BUILT
def test_bibliography_labels_are_author_year():
    page = (HTML / "book" / "references.html").read_text()
    labels = re.findall(r'<span class="label"><span class="fn-bracket">\[</span>(.*?)<span', page)
    assert labels and all(re.search(r", \d{4}[a-z]?$", html_unescape(l)) for l in labels), labels
    assert "Benvenuti et al., 2026" in [html_unescape(l) for l in labels]
    assert "\\ell" not in page


def html_unescape(s):
    import html
    return html.unescape(re.sub(r"<[^>]+>", "", s))


def test_author_year_labels():
    from pybtex.database import parse_string
    labels_cls, _ = ext._author_year_style()
    bib = parse_string("""
    @article{a, author={Dwork, Cynthia and Roth, Aaron}, title={T}, year={2014}}
    @article{b, author={Gohari, Parham and Wu, Bo and Hawkins, Calvin}, title={U}, year={2021}}
    @article{c, author={Dwork, Cynthia and Roth, Aaron}, title={V}, year={2014}}
    @article{d, author={von Neumann, John}, title={W}, year={1928}}
    """, "bibtex")
    got = list(labels_cls().format_labels(list(bib.entries.values())))
    assert got == ["Dwork and Roth, 2014a", "Gohari et al., 2021", "Dwork and Roth, 2014b",
                   "von Neumann, 1928"]


# ------------------------------------------------------------------ import guard
def _toy_notebook(n_code=2):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title")]
    nb.cells += [nbformat.v4.new_code_cell(f"x = {i}") for i in range(n_code)]
    return nb


def test_import_guard_is_first_and_idempotent(tmp_path):
    nb = _toy_notebook()
    assert guard.add_guard(nb) is True
    assert guard.has_guard(nb) and nb.cells[0].metadata["tags"] == ["remove-cell"]
    once = copy.deepcopy(nb)
    assert guard.add_guard(nb) is False and nb == once          # second run: no change
    nb.cells.insert(2, copy.deepcopy(nb.cells[0]))                # a stray duplicate
    assert guard.add_guard(nb) is True
    assert sum(guard.is_guard(c) for c in nb.cells) == 1 and guard.has_guard(nb)
    nb.cells[0].source = guard.MARKER + "\nimport dpmarkov"       # stale text is refreshed
    assert guard.add_guard(nb) is True and nb.cells[0].source == guard.SOURCE
    text_only = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Refs")])
    assert guard.add_guard(text_only) is False                    # nothing to guard
    # the script on copies of the real notebooks: valid notebooks, guard first, rerun no-op
    for path in sorted(BOOK.glob("*.ipynb"))[:3]:
        dest = tmp_path / path.name
        dest.write_bytes(path.read_bytes())
    guard.main(sorted(tmp_path.glob("*.ipynb")))
    for dest in sorted(tmp_path.glob("*.ipynb")):
        nb = nbformat.read(dest, as_version=4)
        nbformat.validate(nb)
        has_code = any(c.cell_type == "code" for c in nb.cells[1:])
        assert guard.has_guard(nb) == has_code, dest.name
        before = dest.read_bytes()
        guard.main([dest])
        assert dest.read_bytes() == before


def test_import_guard_message_when_dpmarkov_is_missing():
    code = "import sys; sys.modules['dpmarkov'] = None\n" + guard.SOURCE
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode != 0
    assert "This notebook needs the dpmarkov package" in run.stderr
    assert "Run a chapter yourself" in run.stderr and "pip install" in run.stderr
    ok = subprocess.run([sys.executable, "-c", guard.SOURCE], capture_output=True, text=True,
                        cwd=ROOT)
    assert ok.returncode == 0, ok.stderr                      # silent when dpmarkov is there


@pytest.mark.parametrize("path", sorted(BOOK.glob("*.ipynb")), ids=lambda p: p.name)
def test_every_notebook_with_code_starts_with_the_import_guard(path):
    nb = nbformat.read(path, as_version=4)
    if not any(c.cell_type == "code" for c in nb.cells):
        pytest.skip("no code cells")
    assert guard.has_guard(nb), (f"{path.name}: run python scripts/import_guard.py, then "
                                 "re-execute the notebook")


# ------------------------------------------------------------------ API reference
def _public():
    import dpmarkov
    out = {}
    for modname in ext.api_modules():
        for name in ext.public_names(modname):
            out[f"{modname}.{name}"] = modname
    # dpmarkov.__all__ itself, minus submodules, is covered
    for name in dpmarkov.__all__:
        if not isinstance(getattr(dpmarkov, name), type(dpmarkov)):
            assert f"dpmarkov.{name}" in out
    return out


def test_api_pages_document_every_module():
    pages = {p.stem: p for p in BOOK.glob("api_*.ipynb")}
    text = "\n".join(c.source for p in pages.values()
                     for c in nbformat.read(p, as_version=4).cells)
    for modname in ext.api_modules():
        assert re.search(rf"\.\. dpmarkov-api:: {re.escape(modname)}\s*$", text, re.M), modname
    toc = (ROOT / "_toc.yml").read_text()
    for stem in pages:
        assert f"book/{stem}" in toc
    assert "book/run_locally" in toc


@BUILT
def test_every_public_name_is_in_the_built_api_reference():
    built = "".join((HTML / "book" / f"{p.stem}.html").read_text() for p in BOOK.glob("api_*.ipynb"))
    missing = [full for full in _public() if f'id="{full}"' not in built]
    assert not missing, f"not in the API reference: {missing}"
    assert "In the book:" in built


def test_book_lines_link_to_chapters():
    titles = ext.chapter_titles(ROOT)
    assert titles, "no chapter titles found"
    lines = ['Algorithm 2.  Book: "Private transition', 'matrices".']
    assert ext.book_links(lines, "dpmarkov.chain", titles) == ["book/private_chains"]
    assert ext.book_links(["no book line"], "dpmarkov.baselines", titles) == [
        "book/baselines", "book/baselines_experiments"]
    for docs in ext.MODULE_CHAPTERS.values():
        for doc in docs:
            assert (ROOT / f"{doc}.ipynb").is_file(), doc


# ------------------------------------------------------------------ whole-book PDF
def test_pdf_contents_finds_chapters_with_and_without_a_label():
    # scripts/book_pdf.py locates every chapter in Sphinx's single page for the contents; a
    # page whose title carries a MyST label, "(notation)=", gets an empty <span id> before its
    # heading, which the first version missed (the PDF command then stopped)
    pdf = _load("book_pdf", ROOT / "scripts" / "book_pdf.py")
    page = ('<span id="document-book/notation"></span><section class="x" id="notation">\n'
            '<span id="id1"></span><h2>Notation<a class="headerlink" href="#notation">#</a></h2>'
            '<span id="document-book/delta"></span><section id="delta-the-probability">\n'
            '<h2>delta: the probability of leaving <span class="math notranslate">\\(\\Omega_1\\)'
            '</span><a class="headerlink" href="#d">#</a></h2>')
    found = pdf.chapter_titles(page)
    assert found["book/notation"][::2] == ("notation", "Notation")
    assert found["book/delta"][0] == "delta-the-probability"
    assert found["book/delta"][2] == "delta: the probability of leaving"
