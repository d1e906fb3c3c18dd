"""One repository setting drives the site's way in; every page names the licences.

``repository.url`` in _config.yml (``_ext/dpmarkov_site.py``) turns on the repository
button and the launch buttons and gives the instructor guide its clone command and the
footer its sources link; empty, the site shows no such button and says how to get the
sources.  Both states are checked here through the extension's functions and
sphinx-book-theme's own button code (``add_launch_buttons``, ``add_source_buttons``), with
the theme options Jupyter Book makes from _config.yml; the built site (when _build/html
exists) is checked against the setting it was built with.  The hosted route's
environment file installs what a reader needs, not the book's whole environment.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from jupyter_book.config import get_final_config
from sphinx_book_theme.header_buttons import update_context_with_repository_info
from sphinx_book_theme.header_buttons.launch import add_launch_buttons
from sphinx_book_theme.header_buttons.source import add_source_buttons

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
_spec = importlib.util.spec_from_file_location("dpmarkov_site", ROOT / "_ext" / "dpmarkov_site.py")
site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site)
URL = "https://github.com/example-org/dpmarkov"


def _theme_options(url: str) -> dict:
    """The theme options Jupyter Book derives from _config.yml with repository.url = url,
    then as the extension leaves them."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["repository"]["url"] = url
    sphinx_config, _ = get_final_config(user_yaml=config, sourcedir=ROOT,
                                        cli_config={"latex_individualpages": False})
    return site.theme_options_for(sphinx_config["html_theme_options"])


class _Config(SimpleNamespace):
    def __getitem__(self, key):
        return getattr(self, key)


def _header_buttons(url: str) -> list[dict]:
    """The header buttons sphinx-book-theme makes for a notebook page."""
    options = _theme_options(url)
    app = SimpleNamespace(config=_Config(html_theme_options=options, html_context={}),
                          builder=SimpleNamespace(theme_options=dict(options)),
                          outdir=str(ROOT / "_build" / "probe"))
    update_context_with_repository_info(app)
    app.env = SimpleNamespace(doc2path=lambda name: str(ROOT / f"{name}.ipynb"),
                              metadata={"book/intro": {"kernelspec": {"name": "python3"}}})
    context = {"pagename": "book/intro", "sourcename": "book/intro.ipynb",
               "page_source_suffix": ".ipynb", "header_buttons": [],
               **app.config.html_context}
    add_launch_buttons(app, "book/intro", "page.html", context, None)
    add_source_buttons(app, "book/intro", "page.html", context, None)
    return context["header_buttons"]


def _links(buttons) -> dict[str, str]:
    out = {}
    for b in buttons:
        for inner in b.get("buttons", [b]):
            out[inner.get("label") or inner["text"]] = inner.get("url", "")
    return out


def test_the_setting_is_empty_or_a_github_repository():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert site.repository_url({"repository_url": config["repository"]["url"]}) in {"", config["repository"]["url"]}
    assert site.repository_url({"repository_url": URL + "/"}) == URL
    for bad in ("github.com/a/b", "https://gitlab.com/a/b", "https://github.com/a", "file:///x"):
        with pytest.raises(ValueError, match="repository.url"):
            site.repository_url({"repository_url": bad})


def test_with_the_setting_empty_no_button_points_nowhere():
    assert _header_buttons("") == []
    sources = site.get_the_sources("")
    assert "git clone" not in sources and "repository.url" in sources
    assert "{doc}`/book/run_locally`" in sources
    footer = site.footer_html("", "../LICENSE.txt", "../CITATION.cff", "guide.html#x")
    assert 'href=""' not in footer and "how to get them" in footer


def test_with_the_setting_set_the_buttons_open_the_repository():
    links = _links(_header_buttons(URL))
    assert links["source-repository-button"] == URL
    assert links["Binder"] == ("https://mybinder.org/v2/gh/example-org/dpmarkov/main"
                               "?urlpath=lab/tree/book/intro.ipynb")
    assert links["Colab"] == ("https://colab.research.google.com/github/example-org/dpmarkov/"
                              "blob/main/book/intro.ipynb")
    assert "JupyterHub" not in links        # only when jupyterhub_url names a hub
    assert f"git clone {URL}.git" in site.get_the_sources(URL)
    assert f'<a href="{URL}">' in site.footer_html(URL, "LICENSE.txt", "CITATION.cff", "g.html")


def test_every_footer_names_both_licences():
    for url in ("", URL):
        footer = site.footer_html(url, "../LICENSE.txt", "../CITATION.cff", "g.html#s")
        assert "MIT License" in footer and "CC BY 4.0" in footer and "CITATION.cff" in footer
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert "CC BY 4.0" in (ROOT / "LICENSE").read_text()


def test_the_guide_shows_the_sources_from_the_setting():
    import nbformat
    guide = nbformat.read(ROOT / "book" / "instructor_guide.ipynb", as_version=4)
    text = "\n".join(c.source for c in guide.cells if c.cell_type == "markdown")
    assert "{{ get_the_sources }}" in text and f"({site.SOURCES_ANCHOR})=" in text
    assert "git clone" not in text         # the command comes from the setting only


def test_the_readme_names_the_setting_and_no_other_address():
    readme = (ROOT / "README.md").read_text()
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert "repository.url" in readme
    clones = re.findall(r"git clone (\S+)", readme)
    assert all(c.rstrip(".git") == config["repository"]["url"] for c in clones), clones


def test_the_hosted_route_installs_only_what_a_reader_needs():
    lines = [line.strip() for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines == ["-r ../reader-requirements.txt", "."]
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
    reader = (ROOT / "reader-requirements.txt").read_text()
    for tool in ("jupyter-book", "nbval", "pyspark", "sphinx-book-theme"):
        assert tool not in reader


BUILT = pytest.mark.skipif(not (HTML / "index.html").is_file(), reason="needs the built book")


@BUILT
def test_the_built_site_follows_its_setting():
    """Every page's footer names the licences; buttons match the setting it was built with
    (the setting is read back from a page: a repository button links it)."""
    pages = sorted((HTML / "book").glob("*.html"))
    assert (HTML / "LICENSE.txt").is_file() and (HTML / "CITATION.cff").is_file()
    repo = set()
    for page in pages:
        text = page.read_text()
        assert "MIT License" in text and "CC BY 4.0" in text, page.name
        repo |= set(re.findall(r'href="(https://github\.com/[^"]+)"[^>]*source-repository', text))
        launch = "launch-buttons" in text
        assert launch == bool(repo) or not repo, page.name
    if not repo:
        assert not any("launch-buttons" in p.read_text() or "mybinder" in p.read_text()
                       for p in pages)
        assert "how to get them" in (HTML / "book" / "intro.html").read_text()
