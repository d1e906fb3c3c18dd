"""Read a chapter's Markdown as MyST reads it, for the tests that guard the book's text.

A line scan mistakes a directive's closing fence for the start of a code block and stops
reading prose there (tests/test_api_links.py once passed a chapter that way, issue 35 item 5).
Here the cells are parsed by myst-parser's own markdown-it parser with the book's extensions
(``_config.yml``), and the body of every directive that holds prose (admonitions, theorems,
exercises, solutions) is parsed again, recursively, so its paragraphs count as prose too.

``pieces(text)`` yields, in reading order, ``("code", source)`` for every code block (a plain
fenced block or a code directive), ``("inline", token)`` for every run of inline text (a
paragraph, a list item, a table cell, a heading, a directive's title), whose ``children`` are
markdown-it's inline tokens (``text``, ``code_inline``, ``myst_role`` with ``meta["name"]``,
``math_inline``); display math is skipped.  Before the title and body of a directive that holds
prose it yields ``("directive", (name, options, title))``, and ``("end", name)`` after its body,
so a reader of the pieces knows where a statement (``prf:definition`` with ``:label: def-5``)
or an admonition begins and ends.  The inline runs of one table row carry the same
``token.meta["row"]`` (a number), so a reader can take a row as one unit.  ``glued(cells)`` is
the text each glue role of a notebook pastes.
"""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

EXTENSIONS = {"amsmath", "dollarmath", "colon_fence", "deflist", "substitution"}
#: Directives whose body is code, not prose.
CODE = {"code", "code-block", "code-cell", "sourcecode", "literalinclude", "ipython"}
#: Directives whose body is neither prose nor code (mathematics, raw output).
SKIP = {"math", "raw", "glue:figure", "glue:math", "figure", "image", "toctree", "bibliography"}
OPTION = re.compile(r"^:[\w-]+:")

_MD = create_md_parser(MdParserConfig(enable_extensions=EXTENSIONS), RendererHTML)
_ROWS = itertools.count()


def _body(content: str) -> str:
    """A directive's content without its leading ``:option:`` lines (and a YAML block)."""
    lines = content.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[end + 1:]
    while lines and OPTION.match(lines[0]):
        lines.pop(0)
    return "\n".join(lines)


def _options(content: str) -> dict:
    """A directive's leading ``:name: value`` options."""
    options = {}
    for line in content.split("\n"):
        match = re.match(r"^:([\w-]+):\s*(.*)$", line)
        if not match:
            break
        options[match.group(1)] = match.group(2).strip()
    return options


def pieces(text: str):
    """Code blocks and inline runs of MyST ``text``, directive bodies included."""
    row = None
    for token in _MD.parse(text):
        if token.type == "tr_open":
            row = next(_ROWS)
        elif token.type == "tr_close":
            row = None
        elif token.type in ("fence", "colon_fence"):
            info = token.info.strip()
            match = re.match(r"\{([^}]+)\}\s*(.*)", info)
            if not match:
                yield "code", token.content
            elif match.group(1) in CODE:
                yield "code", _body(token.content)
            elif match.group(1) not in SKIP:
                yield "directive", (match.group(1), _options(token.content), match.group(2))
                if match.group(2):
                    yield from pieces(match.group(2))
                yield from pieces(_body(token.content))
                yield "end", match.group(1)
        elif token.type == "code_block":
            yield "code", token.content
        elif token.type == "inline":
            if row is not None:
                token.meta["row"] = row
            yield "inline", token


def markdown_cells(path: Path):
    """The source of each markdown cell of a notebook."""
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            yield "".join(cell["source"])


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def glued(cells) -> dict:
    """{key: the text a glue role pastes} from a notebook's stored outputs (its markdown, or
    else its plain text)."""
    out = {}
    for cell in cells:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            data = o.get("data", {})
            if name:
                out[name] = _text(data.get("application/papermill.record/text/markdown",
                                           data.get("application/papermill.record/text/plain",
                                                    "")))
    return out
