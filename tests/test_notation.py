"""The notation page (book/notation.ipynb): one meaning per symbol, every chapter covered
(issue 25, item 4).

The page's tables list each symbol once; every chapter of the book is named on
it (in a table or among the chapters without symbols of their own); the letters that used to
carry several meanings (alpha, beta, pi) now appear only in the chapters of their one meaning;
and the many-releases chapter, which used to reuse letters of the page with other meanings,
uses the page's letters.
"""
import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PAGE = "".join("".join(c["source"]) for c in
               json.loads((ROOT / "book" / "notation.ipynb").read_text())["cells"]
               if c["cell_type"] == "markdown")


def _symbols():
    """The symbols of the first column of every table, one entry per symbol."""
    out = []
    for line in PAGE.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) == 3 and cells[0] not in ("Symbol", "---"):
            # "$\epsilon$, $\delta$" -> two symbols; a function's argument is not a new symbol
            out += sorted({re.sub(r"\(.*\)$", "", s) for s in re.findall(r"\$([^$]+)\$", cells[0])})
    return out


def _math(chapter):
    """The markdown formulas of a chapter, inline and displayed."""
    cells = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())["cells"]
    md = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return re.findall(r"\$\$.*?\$\$|\$[^$]+\$", md, re.S)


def test_every_symbol_is_listed_once():
    symbols = _symbols()
    assert len(symbols) > 60
    repeated = sorted({s for s in symbols if symbols.count(s) > 1})
    assert not repeated, f"listed twice on the notation page: {repeated}"


def test_the_page_covers_every_chapter():
    # every notebook of book/ is a chapter of the toc (tests/test_book_structure.py)
    chapters = {path.stem for path in (ROOT / "book").glob("*.ipynb")}
    named = set(re.findall(r"\{doc\}`([\w]+)`", PAGE)) | set(re.findall(r":label: (\S+)", PAGE))
    # a proposition's label names its chapter too
    labels = {}
    for path in (ROOT / "book").glob("*.ipynb"):
        for label in re.findall(r":label: ([\w-]+)", path.read_text()):
            labels[label] = path.stem
    named |= {labels[x] for x in re.findall(r"\{prf:ref\}`([\w-]+)`", PAGE) if x in labels}
    # the exams (the toc's part "Instructor edition only") are not in the public site, where a
    # link to them would break the build; they use the chapters' notation
    instructor = {Path(ch["file"]).name
                  for part in yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]
                  if part["caption"] == "Instructor edition only" for ch in part["chapters"]}
    assert instructor == {"exam_midterm", "exam_final"}
    missing = chapters - named - {"notation"} - instructor
    assert not missing, f"chapters the notation page does not cover: {sorted(missing)}"


#: The letters that used to carry several meanings, and the only chapters whose formulas may use
#: them now: alpha is the Renyi order (the Dirichlet parameter is a, the audit's error
#: probability beta), beta the audit's error probability (the geometric law's ratio is written
#: out as e^{-epsilon/2}, or r inside one exercise), pi the stationary distribution (the audit's
#: atom probability is phi).  The notation page itself names them all.
ONE_MEANING = {
    r"\alpha": {"many_releases"},
    r"\beta": {"privacy_audit"},
    # the stationary distribution, and the number pi (pi^2/3, sqrt(2/pi)) in two chapters
    r"\pi": {"preliminaries", "stationary", "stationary_bounds", "another_chain", "taxi_case_study",
              "baselines_experiments", "errata", "verification_report",
              "privacy_loss", "expected_kl", "exam_final"},
}


def _chapters_using(macro):
    pattern = re.compile(re.escape(macro) + r"(?![A-Za-z])")
    return {path.stem for path in (ROOT / "book").glob("*.ipynb")
            if path.stem != "notation" and any(pattern.search(m) for m in _math(path.stem))}


def test_no_letter_has_two_meanings():
    assert "two meanings" not in PAGE
    for macro, chapters in ONE_MEANING.items():
        strays = _chapters_using(macro) - chapters
        assert not strays, f"{macro} appears with another meaning in {sorted(strays)}"
    # the Dirichlet law's parameter is a everywhere; the Renyi order alpha is on the page
    assert r"| $\Dir(a)$ |" in PAGE and r"| $\alpha$ | the order of a Rényi divergence" in PAGE
    assert r"| $\beta$ | the error probability of the audit" in PAGE


def test_the_sensitivities_are_stated_in_one_unit():
    for name in ("GS}_1", "GS}_2"):
        row = next(line for line in PAGE.splitlines() if name in line and line.startswith("|"))
        assert "the counts $c$" in row and "the count vector $C$" in row, row


def test_many_releases_uses_the_pages_letters():
    """rho is the category set, L_i Corollary 1's bound, b the Laplace scale, T a set of
    outputs, c counts: the many-releases chapter no longer gives them other meanings."""
    maths = _math("many_releases")
    for pattern, meaning in ((r"\\rho\b", "the Renyi DP level is epsilon_R"),
                             (r"(?<![\\\w ])L(?![\w])", "the privacy loss is \\mathcal L"),
                             (r"(?<![\\\w])b(?![\w])", "the pseudocount is m"),
                             (r"(?<![\\\w])D(?![\w_])", "the data part of the loss is nu_2"),
                             (r"T\s*=|T\\(?:epsilon|delta|rho)|\dT\b|2T", "a number of releases is R")):
        hits = [m for m in maths if re.search(pattern, m)]
        assert not hits, f"{meaning}: {hits[:3]}"
    # c stays a vector of counts: the mixture of two Dirichlet parameters is a_alpha
    assert not [m for m in maths if re.search(r"c = \\alpha", m)]


# ------------------------------------------------- what a reader sees besides formulas (36.3)
#: Calls whose string arguments are figure text (axes, titles, legends, annotations).
FIGURE_CALL = re.compile(r"\b(?:set_xlabel|set_ylabel|set_title|suptitle|text|annotate|legend)"
                         r"\(|\b(?:label|title)=")
#: In the many-releases chapter: the letter, what it means on the notation page, and the
#: pattern of its old meaning in figure text and printed outputs.
MANY_RELEASES_TEXT = (
    (r"\\rho\(|\brho against\b", "rho is the category set; the Renyi DP curve is epsilon_R"),
    (r"\$b\s*=|\bb\s*=\s*\d|\bb equal to\b|\bpseudocounts? \$?b\b", "the pseudocount is m"),
    (r"\$T\$|releases \(\$T|\bT\s*=\s*\d|^\s*T\s+Thm", "a number of releases is R"),
)


def _strings(source):
    """The string literals of the figure calls of a cell's code (roughly: the rest of the
    line after each call), as a reader sees them in the figure."""
    return [line[m.start():] for line in source.splitlines() for m in FIGURE_CALL.finditer(line)]


def seen_text(nb):
    """Figure captions, alt texts, figure-call strings and printed outputs of a notebook."""
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        meta = cell["metadata"].get("mystnb", {})
        out += [meta.get("figure", {}).get("caption", ""), meta.get("image", {}).get("alt", "")]
        out += _strings("".join(cell["source"]))
        for o in cell.get("outputs", []):
            out.append("".join(o.get("text", "")))
            out.append("".join(o.get("data", {}).get("text/plain", "")))
    return [t for t in out if t]


def letter_clashes(nb):
    return [(meaning, text[:80]) for pattern, meaning in MANY_RELEASES_TEXT
            for text in seen_text(nb) if re.search(pattern, text, re.M)]


def dirichlet_alpha_names(nb):
    """Names in a notebook's visible code that call the Dirichlet parameter alpha (a keyword
    argument alpha= is matplotlib's transparency, not a name)."""
    import ast
    names = []
    for cell in nb["cells"]:
        tags = set(cell["metadata"].get("tags", []))
        if cell["cell_type"] != "code" or tags & {"remove-input", "remove-cell"}:
            continue
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:
            continue
        names += [n.id if isinstance(n, ast.Name) else n.arg for n in ast.walk(tree)
                  if isinstance(n, (ast.Name, ast.arg))
                  and "alpha" in (n.id if isinstance(n, ast.Name) else n.arg).lower()]
    return names


def _nb(name):
    return json.loads((ROOT / "book" / f"{name}.ipynb").read_text())


def test_many_releases_figures_and_outputs_use_the_pages_letters():
    assert not letter_clashes(_nb("many_releases"))


def test_visible_code_never_names_the_dirichlet_parameter_alpha():
    # alpha is the Renyi order, in the many-releases chapter only
    found = {p.stem: names for p in sorted((ROOT / "book").glob("*.ipynb"))
             if p.stem != "many_releases" and (names := dirichlet_alpha_names(_nb(p.stem)))}
    assert not found, found


def test_the_seen_text_checks_fail_on_their_fixtures():
    def cell(source, caption="", outputs=()):
        return {"cell_type": "code", "metadata": {"mystnb": {"figure": {"caption": caption}}},
                "source": source, "outputs": [{"text": t} for t in outputs]}
    bad = {"cells": [cell('ax.set_ylabel(r"$\\rho(\\alpha)$")'),
                     cell("", caption="for three pseudocounts $b$"),
                     cell("", outputs=["b= 20: largest s = 0.13\n", "  T  Thm 1 basic\n"])]}
    assert len(letter_clashes(bad)) == 4
    good = {"cells": [cell('ax.set_ylabel(r"$\\epsilon_{\\mathrm R}(\\alpha)$")',
                           caption="after $R$ monthly releases ($m = 20$)",
                           outputs=["m = 20: largest s = 0.13\n"])]}
    assert letter_clashes(good) == []
    code = {"cells": [cell("alpha = 15 * C\nax.scatter(x, y, alpha=0.4)")]}
    assert dirichlet_alpha_names(code) == ["alpha"]
