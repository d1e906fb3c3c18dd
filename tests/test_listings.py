"""Chapters show the lines that teach, not the package's plumbing (issue 35, item 1).

A ``literalinclude`` of package source in a chapter shows at most ``MAX_LINES`` lines, with no
docstring, no input validation (no ``raise``, no ``_checks`` call) and no line wider
than the code column (``WIDTH``); all listings of all
chapters together stay within ``BUDGET`` lines.  The whole function is one click away: the
API pages carry ``[source]`` links (``sphinx.ext.viewcode`` in ``_config.yml``).

Each listing is read exactly as Sphinx reads it (``LiteralIncludeReader`` with the directive's
own options: ``:pyobject:``, ``:start-after:``/``:end-before:`` markers such as
``# [book:delta]`` in the package source, ``:lines:``), so a marker that moves or a
``:lines:`` range that slides onto a ``raise`` is caught.  A rule that only looked at the
directive's text, not at the lines it produces, would pass a full-function ``:pyobject:``
listing: the fixture below is one, and the checker must refuse it.
"""
import json
import re
from pathlib import Path

from sphinx.config import Config
from sphinx.directives.code import LiteralIncludeReader

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 25
#: The code column at a 1400 px window holds this many characters without wrapping or
#: scrolling (the same width as the code cells, ruff.toml; tests/test_browser.py measures it).
WIDTH = 79
BUDGET = 600

DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{literalinclude\}[ \t]*(\S+)[ \t]*\n"
                       r"((?:[ \t]*:[\w-]+:.*\n)*)", re.MULTILINE)


def listings(path):
    """(argument, options, text, number of lines) of each literalinclude of a notebook."""
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for m in DIRECTIVE.finditer("".join(cell["source"]) + "\n"):
            options = {}
            for line in m.group(3).splitlines():
                key, _, value = line.strip()[1:].partition(":")
                options[key] = value.strip() or None
            text, count = LiteralIncludeReader(str(path.parent / m.group(2)), options,
                                               Config()).read()
            yield m.group(2), options, text, count


def problems(path):
    """What is wrong with the listings of one notebook (empty when nothing is)."""
    out = []
    for arg, options, text, count in listings(path):
        # _checks.min_count is no check: it is m = ceil(eta N), the integer reading (dm.min_count)
        where = f"{path.stem}: {arg} {options.get('pyobject', '')}"
        if count > MAX_LINES:
            out.append(f"{where}: {count} lines (at most {MAX_LINES})")
        wide = [line for line in text.splitlines() if len(line) > WIDTH]
        if wide:
            out.append(f"{where}: {len(wide)} lines over {WIDTH} characters: {wide[0]!r}")
        if '"""' in text or "'''" in text:
            out.append(f"{where}: shows a docstring")
        if re.search(r"\braise\b|\b_checks\.(?!min_count\b)", text):
            out.append(f"{where}: shows input validation (raise / _checks)")
    return out


def chapters():
    return sorted((ROOT / "book").glob("*.ipynb"))


def test_each_listing_shows_only_the_lines_that_teach():
    bad = [p for path in chapters() for p in problems(path)]
    assert not bad, "\n".join(bad)


def test_all_listings_together_stay_within_the_budget():
    total = sum(count for path in chapters() for *_, count in listings(path))
    assert 0 < total <= BUDGET, total


def _chapter(tmp_path, markdown):
    book = tmp_path / "book"
    book.mkdir(parents=True)
    (tmp_path / "dpmarkov").symlink_to(ROOT / "dpmarkov")
    path = book / "fixture.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {},
                                           "source": markdown}]}))
    return path


def test_a_whole_function_listing_fails(tmp_path):
    # the listing this issue removed: privatize with its docstring and its input checks
    path = _chapter(tmp_path, "```{literalinclude} ../dpmarkov/mechanism.py\n"
                              ":pyobject: privatize\n```\n")
    found = problems(path)
    assert any("lines" in p for p in found) and any("docstring" in p for p in found)
    assert any("validation" in p for p in found)
    assert any("characters" in p for p in found)


def test_a_marked_excerpt_passes_and_a_sliding_range_fails(tmp_path):
    excerpt = ("```{literalinclude} ../dpmarkov/mechanism.py\n:pyobject: log_density\n"
               ":start-after: [book:log_density]\n:lines: {}\n:dedent:\n```\n")
    assert problems(_chapter(tmp_path / "a", excerpt.replace("{}", "1, 5-6, 13"))) == []
    # one line off: the range now shows the overflow check's raise
    assert problems(_chapter(tmp_path / "b", excerpt.replace("{}", "1-3, 5-6, 13")))
