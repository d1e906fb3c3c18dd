"""The site's way in: the licences in every page's footer, and one repository setting.

Loaded from _config.yml (``sphinx.local_extensions``).  ``repository.url`` in _config.yml
(Jupyter Book's ``repository_url`` theme option) is the one place the address of the
book's sources is written.  It drives

- the repository button (sphinx-book-theme's ``use_repository_button``);
- the launch buttons of every notebook page (``launch_buttons`` in _config.yml: Binder,
  Colab, and a JupyterHub when ``jupyterhub_url`` names one), which open the page's
  notebook from the repository; Binder installs ``binder/requirements.txt``;
- the substitution ``{{ get_the_sources }}``: the clone command the instructor guide shows;
- the footer's "sources" link.

With the setting empty the site shows neither a repository button nor launch buttons
(they would point nowhere, and sphinx-book-theme fails on launch buttons without a
repository), and the footer and ``{{ get_the_sources }}`` say how to get the sources
instead.  Every page's footer names the licences: MIT for the code (``LICENSE``, copied to
the site as ``LICENSE.txt``) and CC BY 4.0 for the text and figures, and links the citation
file (``CITATION.cff``, copied to the site).  ``tests/test_site_setting.py`` checks both
states of the setting through these functions and sphinx-book-theme's own button code.
"""
from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

CODE_LICENCE = "MIT License"
TEXT_LICENCE = "CC BY 4.0"
TEXT_LICENCE_URL = "https://creativecommons.org/licenses/by/4.0/"
#: Files of the repository the site serves, under these names.
SERVED = {"LICENSE": "LICENSE.txt", "CITATION.cff": "CITATION.cff"}
#: A repository address the buttons can use: Binder and Colab open notebooks from GitHub.
REPOSITORY = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+")
#: The page (and section) that says how to get the sources when the setting is empty.
SOURCES_PAGE = "book/instructor_guide"
SOURCES_ANCHOR = "get-the-sources"


def repository_url(theme_options: dict) -> str:
    """The repository setting (``repository.url`` of _config.yml), checked: empty, or
    ``https://github.com/OWNER/NAME``.  Raises ValueError naming the setting otherwise."""
    url = (theme_options.get("repository_url") or "").strip().rstrip("/")
    if url and not REPOSITORY.fullmatch(url):
        raise ValueError(f"repository.url={url!r} in _config.yml is not empty and not "
                         "https://github.com/OWNER/NAME (the launch buttons open notebooks "
                         "from GitHub)")
    return url


def theme_options_for(theme_options: dict) -> dict:
    """``theme_options`` with the buttons the repository setting allows: the repository
    button and the launch buttons when it is set, neither when it is empty."""
    url = repository_url(theme_options)
    out = dict(theme_options, repository_url=url, use_repository_button=bool(url))
    if not url:
        out["launch_buttons"] = {}
    return out


def get_the_sources(url: str) -> str:
    """Markdown (a block) saying how to get the sources: the clone command, or, with no
    repository setting, where the parts of the book a reader can have are."""
    if url:
        name = url.rsplit("/", 1)[1]
        return (f"```bash\ngit clone {url}.git\ncd {name}\n./run.sh book\n```\n\n"
                f"The repository is {url}; `./run.sh instructor` builds the instructor "
                "edition and `./run.sh assignments` the assignments' autograders.")
    return ("This copy of the book was built without a repository address (the setting "
            "`repository.url` in `_config.yml` is empty), so it links to no sources. What "
            "it does offer: every chapter's notebook (the download button of its page), and "
            "the package as a wheel with the reader's requirements and the assignments' "
            "student notebooks on the page {doc}`/book/run_locally`. The full sources (the "
            "instructor edition, the assignments' master notebooks and autograders) come "
            "from whoever published this copy: ask them for the repository.")


def footer_html(url: str, licence_href: str, citation_href: str, sources_href: str) -> str:
    """The footer every page shows: the two licences, the citation file and the sources."""
    if url:
        sources = f'sources: <a href="{html.escape(url)}">{html.escape(url)}</a>'
    else:
        sources = f'sources: <a href="{html.escape(sources_href)}">how to get them</a>'
    return (f'Code: <a href="{html.escape(licence_href)}">{CODE_LICENCE}</a>; '
            f'text and figures: <a href="{TEXT_LICENCE_URL}">{TEXT_LICENCE}</a>; '
            f'cite: <a href="{html.escape(citation_href)}">CITATION.cff</a>; {sources}.')


def _config_inited(app, config):
    options = theme_options_for(dict(config.html_theme_options or {}))
    config.html_theme_options = options
    subs = dict(config.myst_substitutions or {})
    subs["get_the_sources"] = get_the_sources(options["repository_url"])
    config.myst_substitutions = subs


def _footer(app, pagename, templatename, context, doctree):
    url = app.config.html_theme_options.get("repository_url", "")
    pathto = context["pathto"]
    context["theme_extra_footer"] = footer_html(
        url, pathto(SERVED["LICENSE"], 1), pathto(SERVED["CITATION.cff"], 1),
        pathto(SOURCES_PAGE) + "#" + SOURCES_ANCHOR)


def _serve_files(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for name, served in SERVED.items():
        shutil.copy2(Path(app.srcdir) / name, Path(app.outdir) / served)


def setup(app):
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _footer)
    app.connect("build-finished", _serve_files)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
