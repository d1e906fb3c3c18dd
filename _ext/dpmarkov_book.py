"""Book-wide Sphinx extension of the dpmarkov book (issue 14, "the reader's book").

Loaded from _config.yml (``sphinx.local_extensions``).  It does six things:

1. **Macros from one definition.**  ``macros.tex`` (top level) is the only place the
   book's macros are defined; :func:`read_macros` parses it and the extension writes
   them into ``mathjax3_config["tex"]["macros"]`` (HTML) and into the LaTeX preamble
   (``latex_elements["preamble"]``) so both renderers know the same set.
2. **MathJax with no network.**  MathJax 3 comes from the PyPI package
   ``django-static-mathjax`` (a plain copy of MathJax 3.2.2; it needs no Django); its
   ``es5`` files are copied to ``_static/mathjax`` of the built site and
   ``mathjax_path`` points there.  MathJax is loaded on every page (the sidebar's
   chapter titles carry formulas even where the page has none).  The launch/thebe
   configuration that declared ``THEBE_JS_URL`` twice (a JS error on every page) is
   dropped: the book has no live-code button.
3. **The wheel for download.**  The package is built into ``_build/wheel`` when the
   book is built; the page "Run a chapter yourself" links it with ``{download}``
   through the substitution ``{{ wheel_download }}``.  The student notebooks of the
   graded assignments (``otter assign`` on assignments/, no solutions, public tests
   only) are built beside it and linked through ``{{ assignment_downloads }}``.
4. **The API reference.**  The directive ``dpmarkov-api`` documents every public
   name of a module (its ``__all__``) with autosummary + autodoc; docstrings are
   parsed by napoleon (numpydoc style).  A docstring's ``Book: "chapter title"``
   names (and, for names without one, the module map :data:`MODULE_CHAPTERS`) become
   links to the chapters, so API entries link to the book and chapters link to the
   API with ``{py:func}`dpmarkov.epsilon```.
5. **Page fit.**  ``_static/dpmarkov.css`` (picked up by Jupyter Book) wraps wide
   tables and output blocks.
6. **Build speed.**  Doctrees that Sphinx unpickles once per lookup are shared
   (:func:`_share_doctrees`), code cells are highlighted by Pygments' Python lexer
   (:data:`CODE_CELL_LEXER`), and Python's cyclic garbage collector runs less often
   (:data:`GC_THRESHOLDS`).
"""
from __future__ import annotations

import gc
import importlib
import inspect
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from pygments.lexers import PythonLexer
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[1]
#: templates that replace the theme's (searched before the theme's own)
TEMPLATES = Path(__file__).resolve().parent / "templates"
MACROS_FILE = ROOT / "macros.tex"
MATHJAX_DIR = "mathjax"               # under _static
MATHJAX_ENTRY = "tex-chtml.js"
# MathJax's own pieces the CHTML bundle loads on demand (extensions, fonts, menu).
MATHJAX_PARTS = ("tex-chtml.js", "input", "output/chtml", "a11y", "ui", "adaptors", "sre")

NEWCOMMAND = re.compile(r"^\\newcommand\{\\([A-Za-z]+)\}(?:\[(\d)\])?\{(.*)\}\s*$")

# API pages: module -> chapters that explain it (docnames), used where a docstring has
# no 'Book: "..."' line of its own.
MODULE_CHAPTERS = {
    "dpmarkov.simplex": ["book/preliminaries"],
    "dpmarkov.mechanism": ["book/dirichlet_mechanism"],
    "dpmarkov.privacy": ["book/dirichlet_mechanism", "book/privacy_loss", "book/worst_case"],
    "dpmarkov.exit_probability": ["book/delta"],
    "dpmarkov.loss": ["book/privacy_loss", "book/worst_case"],
    "dpmarkov.profile": ["book/privacy_profile"],
    "dpmarkov.accuracy": ["book/expected_kl", "book/kl_worst_case"],
    "dpmarkov.chain": ["book/private_chains", "book/stationary"],
    "dpmarkov.stationary": ["book/stationary"],
    "dpmarkov.ergodicity": ["book/stationary", "book/stationary_bounds"],
    "dpmarkov.composition": ["book/private_chains"],
    "dpmarkov.audit": ["book/privacy_audit"],
    "dpmarkov.baselines": ["book/baselines", "book/baselines_experiments"],
    "dpmarkov.datasets": ["book/grades_case_study", "book/taxi_case_study",
                          "book/another_chain"],
    "dpmarkov.verify.claims": ["book/verification_report"],
}


# ---------------------------------------------------------------- 1. macros
def read_macros(path: Path = MACROS_FILE) -> dict[str, tuple[str, int]]:
    """Parse ``macros.tex``: name -> (body, number of arguments).  Raises on a bad line."""
    macros = {}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        m = NEWCOMMAND.match(line)
        if not m:
            raise ValueError(f"{path.name}:{lineno}: not a one-line \\newcommand: {line!r}")
        name, nargs, body = m.group(1), int(m.group(2) or 0), m.group(3)
        if name in macros:
            raise ValueError(f"{path.name}:{lineno}: \\{name} defined twice")
        macros[name] = (body, nargs)
    return macros


def mathjax_macros(macros) -> dict:
    """The MathJax 3 form: ``{"R": "\\mathbb{R}", "f": ["...#1...", 1]}``."""
    return {name: (body if nargs == 0 else [body, nargs]) for name, (body, nargs) in macros.items()}


def latex_preamble(macros) -> str:
    """The LaTeX form: one ``\\providecommand``+``\\renewcommand`` pair per macro (safe
    whether or not a package already defines the name, e.g. ``\\R``)."""
    lines = ["% the book's macros, generated from macros.tex by _ext/dpmarkov_book.py",
             "\\usepackage{amsmath,amssymb}"]
    for name, (body, nargs) in macros.items():
        arity = f"[{nargs}]" if nargs else ""
        lines.append(f"\\providecommand{{\\{name}}}{{}}\\renewcommand{{\\{name}}}{arity}{{{body}}}")
    return "\n".join(lines) + "\n"


def parse_latex_preamble(text: str) -> dict[str, tuple[str, int]]:
    """Inverse of :func:`latex_preamble` (used by the test that the two sets agree)."""
    pat = re.compile(r"\\renewcommand\{\\([A-Za-z]+)\}(?:\[(\d)\])?\{(.*)\}$")
    out = {}
    for line in text.splitlines():
        m = pat.search(line)
        if m:
            out[m.group(1)] = (m.group(3), int(m.group(2) or 0))
    return out


def _config_inited(app, config):
    macros = read_macros()
    mj = dict(config.mathjax3_config or {})
    tex = dict(mj.get("tex", {}))
    if tex.get("macros"):
        raise ValueError("define macros in macros.tex only, not in _config.yml's mathjax3_config")
    tex["macros"] = mathjax_macros(macros)
    mj["tex"] = tex
    config.mathjax3_config = mj
    latex = dict(config.latex_elements or {})
    latex["preamble"] = latex.get("preamble", "") + latex_preamble(macros)
    config.latex_elements = latex
    # 2. MathJax from _static (a relative mathjax_path is relative to _static)
    config.mathjax_path = f"{MATHJAX_DIR}/{MATHJAX_ENTRY}"
    # 3. the wheel, linked from the "Run a chapter yourself" page
    subs = dict(config.myst_substitutions or {})
    wheel = wheel_name()
    subs["wheel_name"] = wheel
    subs["wheel_download"] = f"{{download}}`{wheel} <../_build/wheel/{wheel}>`"
    # 3b. the graded assignments' student notebooks, linked from the same page
    subs["assignment_downloads"] = "\n".join(
        f"- {a['part']}: {{download}}`{a['folder']}.ipynb <../{STUDENT_NOTEBOOKS}/{a['folder']}.ipynb>`"
        for a in assignments())
    config.myst_substitutions = subs
    # 4. templates that replace the theme's (_ext/templates: the colour-mode button's icons
    # are decoration in the markup itself, WCAG 2.5.3; see the template's comment)
    config.templates_path = [str(TEMPLATES)] + list(config.templates_path or [])


# ---------------------------------------------------------------- 2. MathJax offline
def mathjax_source() -> Path:
    """The es5 folder of the MathJax 3 copy shipped by the ``django-static-mathjax`` wheel."""
    try:
        import mathjax  # the django-static-mathjax distribution's package
    except ImportError as exc:
        raise RuntimeError("MathJax is missing: pip install -r requirements.txt "
                           "(django-static-mathjax ships MathJax 3 for offline use)") from exc
    es5 = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (es5 / MATHJAX_ENTRY).is_file():
        raise RuntimeError(f"no {MATHJAX_ENTRY} in {es5}")
    return es5


def _copy_mathjax(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    src, dest = mathjax_source(), Path(app.outdir) / "_static" / MATHJAX_DIR
    for part in MATHJAX_PARTS:
        s, d = src / part, dest / part
        d.parent.mkdir(parents=True, exist_ok=True)
        if s.is_dir():
            shutil.copytree(s, d, dirs_exist_ok=True)
        else:
            shutil.copy2(s, d)


def _drop_thebe(app, pagename, templatename, context, doctree):
    """sphinx-book-theme and sphinx-thebe each declare ``const THEBE_JS_URL``; the
    second declaration is a SyntaxError on load.  The book launches no live kernel, so
    no thebe script is kept (it would also point at a CDN)."""
    for key in ("script_files", "js_files"):
        files = context.get(key)
        if not files:
            continue
        kept = [f for f in files if "thebe" not in str(getattr(f, "filename", f) or "")
                and "THEBE" not in str(getattr(f, "attributes", {}).get("body", ""))]
        files[:] = kept


# ---------------------------------------------------------------- 3. the wheel
def project_version() -> str:
    text = (ROOT / "pyproject.toml").read_text()
    return re.search(r'^version\s*=\s*"([^"]+)"', text, re.M).group(1)


def wheel_name() -> str:
    return f"dpmarkov-{project_version()}-py3-none-any.whl"


def build_wheel(outdir: Path) -> Path:
    """Build the package's wheel into ``outdir`` from a clean copy of the sources (so
    the work tree gets no build/ or egg-info), with the current interpreter's setuptools."""
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
        shutil.copytree(ROOT / "dpmarkov", src / "dpmarkov", ignore=ignore)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, src / name)
        # setuptools' PEP 517 backend, called directly: what `pip wheel --no-deps
        # --no-build-isolation` runs (the same files), without pip's start-up (2.8 s -> 0.9 s CPU)
        subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                        "build_meta.build_wheel(sys.argv[1])", str(outdir.resolve())],
                       cwd=src, check=True, stdout=subprocess.DEVNULL)
    path = outdir / wheel_name()
    if not path.is_file():
        raise RuntimeError(f"the wheel build did not make {path}")
    return path


# ------------------------------------------------- 3b. the assignments' student notebooks
STUDENT_NOTEBOOKS = "_build/student_assignments"


def assignments() -> list[dict]:
    import yaml
    return yaml.safe_load((ROOT / "assignments" / "assignments.yml").read_text())


def build_student_assignments(outdir: Path) -> list[Path]:
    """``otter assign`` (without running the tests) on every master notebook in
    assignments/, in one child process; the student notebooks land in ``outdir``: no
    solution, public tests only, what a student downloads from the book."""
    outdir.mkdir(parents=True, exist_ok=True)
    names = [a["folder"] for a in assignments()]
    code = ("import contextlib, io, shutil, sys, tempfile; from pathlib import Path; "
            "import otter.assign\n"
            "root, out = Path(sys.argv[1]), Path(sys.argv[2])\n"
            "for name in sys.argv[3:]:\n"
            "    with tempfile.TemporaryDirectory() as tmp, "
            "contextlib.redirect_stdout(io.StringIO()):\n"
            "        otter.assign.main(str(root / name / f'{name}.ipynb'), tmp, no_run_tests=True)\n"
            "        shutil.copy2(Path(tmp) / 'student' / f'{name}.ipynb', out / f'{name}.ipynb')\n")
    subprocess.run([sys.executable, "-c", code, str(ROOT / "assignments"), str(outdir.resolve()),
                    *names], check=True)
    return [outdir / f"{name}.ipynb" for name in names]


def _builder_inited(app):
    if app.builder.name == "singlehtml":
        # sphinx-proof registers its nodes for "html" only, and because other extensions
        # register "singlehtml" handlers Sphinx does not fall back to the html ones: share
        # them (the PDF prints the single-page book).
        handlers = app.registry.translation_handlers
        single = handlers.setdefault("singlehtml", {})
        for node, funcs in handlers.get("html", {}).items():
            single.setdefault(node, funcs)
    app.set_html_assets_policy("always")  # MathJax on every page (sidebar titles)
    build_wheel(Path(app.srcdir) / "_build" / "wheel")
    out = Path(app.srcdir) / STUDENT_NOTEBOOKS
    if any((ROOT / "assignments").glob("*/*.ipynb")):
        build_student_assignments(out)
    else:   # the student edition's copy: scripts/student_edition.py built them from the masters
        missing = [a["folder"] for a in assignments()
                   if not (out / f"{a['folder']}.ipynb").is_file()]
        if missing:
            raise RuntimeError(f"no master notebooks in {ROOT / 'assignments'} and no student "
                               f"notebooks of {missing} in {out}")


# ---------------------------------------------------------------- 4. API reference
def public_names(modname: str) -> list[str]:
    """The public names of a module, in order: its ``__all__`` if it has one, else the
    functions and classes defined in it whose names do not start with ``_``.
    Submodules are left out (each is documented on its own page)."""
    mod = importlib.import_module(modname)
    if hasattr(mod, "__all__"):
        candidates = list(mod.__all__)
    else:
        candidates = [name for name, obj in vars(mod).items()
                      if not name.startswith("_") and callable(obj)
                      and getattr(obj, "__module__", None) == modname]
    return [name for name in candidates if not inspect.ismodule(getattr(mod, name))]


def api_modules() -> list[str]:
    """Every module whose public names the API reference documents."""
    return ["dpmarkov", "dpmarkov.baselines", "dpmarkov.datasets", "dpmarkov.verify.claims"]


def summary_line(obj) -> str:
    """The first paragraph of a docstring, on one line (our docstrings open with a summary)."""
    doc = inspect.getdoc(obj) or ""
    return " ".join(doc.split("\n\n")[0].split())


class DpmarkovApi(SphinxDirective):
    """``dpmarkov-api`` MODULE: a summary table and full entries for MODULE's public names.

    The table is built from nodes (the summaries are shown as plain text, never parsed,
    so ``|x|`` or ``k*C`` in a summary cannot break the build); the entries come from
    autodoc (``autofunction``/``autoclass``), with napoleon reading numpydoc sections."""

    required_arguments = 1

    def run(self):
        from sphinx import addnodes
        modname = self.arguments[0]
        mod = importlib.import_module(modname)
        names = public_names(modname)
        table = nodes.table(classes=["dpmarkov-api-summary"])
        group = nodes.tgroup(cols=2)
        table += group
        group += nodes.colspec(colwidth=30)
        group += nodes.colspec(colwidth=70)
        body = nodes.tbody()
        group += body
        for name in names:
            ref = addnodes.pending_xref("", refdomain="py", reftype="obj",
                                        reftarget=f"{modname}.{name}", refexplicit=True,
                                        refwarn=True)
            ref += nodes.literal(name, name)
            row = nodes.row()
            row += nodes.entry("", nodes.paragraph("", "", ref))
            para = nodes.paragraph()
            for part in LITERAL.split(summary_line(getattr(mod, name))):  # ``x`` -> code
                para += nodes.literal(part[2:-2], part[2:-2]) if part.startswith("``") else nodes.Text(part)
            row += nodes.entry("", para)
            body += row
        lines = [f".. currentmodule:: {modname}", ""]
        for name in names:
            obj = getattr(mod, name)
            kind = "autoclass" if isinstance(obj, type) else (
                "autofunction" if callable(obj) else "autodata")
            lines += [f".. {kind}:: {name}"]
            if kind == "autoclass":
                lines += ["   :members:"]
            lines.append("")
        holder = nodes.section()
        holder.document = self.state.document
        self.state.nested_parse(StringList(lines, source=f"<dpmarkov-api {modname}>"),
                                self.content_offset, holder, match_titles=False)
        return [table, *holder.children]


def chapter_titles(srcdir: Path) -> dict[str, str]:
    """normalised chapter title -> docname, from each notebook's first '# ' heading."""
    out = {}
    for path in sorted((srcdir / "book").glob("*.ipynb")):
        try:
            cells = json.loads(path.read_text())["cells"]
        except (OSError, ValueError, KeyError):
            continue
        for cell in cells:
            if cell.get("cell_type") != "markdown":
                continue
            m = re.search(r"^#\s+(.+)$", "".join(cell["source"]), re.M)
            if m:
                out[_norm(m.group(1))] = f"book/{path.stem}"
                break
    return out


def _norm(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", re.sub(r"\$[^$]*\$", "", title.lower())).strip()


def book_links(lines: list[str], modname: str, titles: dict[str, str]) -> list[str]:
    """docnames of the chapters a docstring names on its 'Book:' lines, else those of
    its module (MODULE_CHAPTERS)."""
    text = " ".join(line.strip() for line in lines)
    found = []
    for m in re.finditer(r"Book:(.*?)(?:\.(?:\s|$)|$)", text):
        for quoted in re.findall(r'"([^"]+)"', m.group(1)):
            key = _norm(quoted)
            doc = titles.get(key) or next((d for t, d in titles.items() if t.startswith(key)), None)
            if doc and doc not in found:
                found.append(doc)
    if not found:
        found = next((docs for mod, docs in sorted(MODULE_CHAPTERS.items(), key=lambda i: -len(i[0]))
                      if modname == mod or modname.startswith(mod + ".")), [])
    return found


def _process_docstring(app, what, name, obj, options, lines):
    if not name.startswith("dpmarkov") or what == "module":
        return
    titles = app.env.dpmarkov_titles if hasattr(app.env, "dpmarkov_titles") else None
    if titles is None:
        titles = app.env.dpmarkov_titles = chapter_titles(Path(app.srcdir))
    modname = getattr(obj, "__module__", None) or name.rpartition(".")[0]
    docs = book_links(lines, modname, titles)
    if docs:
        links = ", ".join(f":doc:`/{doc}`" for doc in docs)
        lines += ["", f"**In the book:** {links}", ""]


# ---------------------------------------------------------------- bibliography labels
def _author_year_style():
    """A pybtex style whose labels are "Benvenuti et al., 2026", matching the book's
    author-year citations (``bibtex_reference_style: author_year``), sorted by author."""
    from pybtex.richtext import Text
    from pybtex.style.formatting.plain import Style as PlainStyle
    from pybtex.style.labels import BaseLabelStyle

    from pybtex.backends.plaintext import Backend
    plain = Backend()     # render_as("text") would look the backend up among every
                          # installed package's entry points on each call (50 ms)

    def surname(person):
        raw = " ".join(person.prelast_names + person.last_names)
        return Text.from_latex(raw).render(plain)

    class AuthorYearLabels(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            labels = [self.format_label(e) for e in sorted_entries]
            seen = {}
            for label in labels:
                seen[label] = seen.get(label, 0) + 1
            suffix = {}
            for label in labels:  # "Dwork et al., 2006a", "... 2006b" when two collide
                if seen[label] > 1:
                    suffix[label] = suffix.get(label, 0) + 1
                    yield f"{label}{chr(ord('a') + suffix[label] - 1)}"
                else:
                    yield label

        def format_label(self, entry):
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            if not people:
                who = Text.from_latex(entry.fields.get("organization", entry.key)).render(plain)
            elif len(people) == 1:
                who = surname(people[0])
            elif len(people) == 2:
                who = f"{surname(people[0])} and {surname(people[1])}"
            else:
                who = f"{surname(people[0])} et al."
            return f"{who}, {entry.fields.get('year', 'n.d.')}"

    class AuthorYearStyle(PlainStyle):
        default_label_style = "dpmarkov_authoryear"

    return AuthorYearLabels, AuthorYearStyle


def _cache_plugin_lookups():
    """pybtex finds each plugin class (a backend, a style) by scanning the entry points of
    every installed distribution, on every lookup: sphinxcontrib-bibtex looks the plaintext
    backend up once per citation (50 ms each, about 3 s of the build).  The installed
    distributions do not change during a build, so the scan's answers are cached."""
    import functools

    import pybtex.plugin
    if not hasattr(pybtex.plugin.entry_points, "cache_info"):
        pybtex.plugin.entry_points = functools.lru_cache(maxsize=None)(pybtex.plugin.entry_points)


def _register_bib_style():
    from pybtex.plugin import register_plugin
    labels, style = _author_year_style()
    register_plugin("pybtex.style.labels", "dpmarkov_authoryear", labels, force=True)
    register_plugin("pybtex.style.formatting", "dpmarkov_authoryear", style, force=True)


LITERAL = re.compile(r"(``.+?``)")


def _escape_bars(app, what, name, obj, options, lines):
    """Docstrings write |x| for absolute values in plain text; reST would read
    ``|x|`` as a substitution reference.  Escape bars outside ``literals``."""
    if not name.startswith("dpmarkov"):
        return
    for i, line in enumerate(lines):
        if "|" in line:
            parts = LITERAL.split(line)
            lines[i] = "".join(p if p.startswith("``") else p.replace("|", "\\|") for p in parts)


def _share_doctrees():
    """Unpickle each page's doctree once per build for the two read-only lookups that
    Sphinx 7.4 makes on every page, instead of once per lookup.

    ``TocTreeCollector.assign_figure_numbers`` (after reading, with ``numfig``) walks every
    page's doctree to number its figures, and ``StandardDomain._resolve_numref_xref``
    (while writing) calls ``env.get_doctree`` on the target's page for every numbered
    reference, only to read the target node (its type and its id for the number).  Each
    ``get_doctree`` call unpickles the whole page again: about 10 s of the build's CPU with
    about 150 references, and about 1.3 s more for the figure numbers.  Both only read the
    nodes, so they share one unpickled copy per page; every other ``get_doctree`` caller
    (such as writing a page, which transforms its doctree) still gets a fresh copy.
    """
    from sphinx.domains.std import StandardDomain
    from sphinx.environment.collectors.toctree import TocTreeCollector

    if getattr(StandardDomain._resolve_numref_xref, "shares_doctrees", False):
        return
    pages = {}

    def sharing(method):
        def with_shared_doctrees(self, env, *args, **kwargs):
            fresh = env.get_doctree

            def shared(docname):
                if (id(env), docname) not in pages:
                    pages[id(env), docname] = fresh(docname)
                return pages[id(env), docname]

            env.get_doctree = shared           # an instance attribute, for this call only
            try:
                return method(self, env, *args, **kwargs)
            finally:
                del env.get_doctree

        with_shared_doctrees.shares_doctrees = True
        with_shared_doctrees.clear = pages.clear
        return with_shared_doctrees

    StandardDomain._resolve_numref_xref = sharing(StandardDomain._resolve_numref_xref)
    TocTreeCollector.assign_figure_numbers = sharing(TocTreeCollector.assign_figure_numbers)


def _forget_shared_doctrees(app, *_):
    """The shared doctrees live from the figure numbers to the end of the write phase
    (cleared when a read ends, since it may change any page, and when the build ends)."""
    from sphinx.domains.std import StandardDomain
    clear = getattr(StandardDomain._resolve_numref_xref, "clear", None)
    if clear is not None:
        clear()


#: The lexer for code cells: the notebooks declare ``ipython3``, but every chapter is plain
#: Python (``tests/test_book_structure.py`` rejects magics, shell escapes and lines ending
#: in ``?``, the only syntax IPython's lexer adds), which Pygments' own Python lexer
#: highlights the same way in about 60% of the time (3 s of the build's CPU before).
CODE_CELL_LEXER = "ipython3"


#: ``gc.set_threshold`` for the build process, instead of Python's (700, 10, 10).  The build
#: keeps every page's doctree alive to the end, millions of objects that each full collection
#: walks again: with the defaults, 2,700 collections took 5-6.6 s of the build's 26-29 s of CPU;
#: with these, 36 collections, 1.9 s.  Collections free only unreachable cycles, so the pages
#: are the same; the cost is some memory held a little longer.
GC_THRESHOLDS = (50_000, 20, 100)


def setup(app):
    gc.set_threshold(*GC_THRESHOLDS)
    app.add_lexer(CODE_CELL_LEXER, PythonLexer)
    _share_doctrees()
    app.connect("env-updated", _forget_shared_doctrees)
    app.connect("build-finished", _forget_shared_doctrees)
    _cache_plugin_lookups()
    _register_bib_style()
    app.connect("config-inited", _config_inited)
    app.connect("builder-inited", _builder_inited)
    app.connect("build-finished", _copy_mathjax)
    app.connect("html-page-context", _drop_thebe, priority=900)
    app.connect("autodoc-process-docstring", _escape_bars, priority=400)  # before napoleon
    app.connect("autodoc-process-docstring", _process_docstring)
    app.add_directive("dpmarkov-api", DpmarkovApi)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
