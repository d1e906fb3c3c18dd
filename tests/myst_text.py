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
``math_inline``); display math is skipped.
"""
from __future__ import annotations

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


def _body(content: str) -> str:
    """A directive's content without its leading ``:option:`` lines (and a YAML block)."""
    lines = content.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[end + 1:]
    while lines and OPTION.match(lines[0]):
        lines.pop(0)
    return "\n".join(lines)


def pieces(text: str):
    """Code blocks and inline runs of MyST ``text``, directive bodies included."""
    for token in _MD.parse(text):
        if token.type in ("fence", "colon_fence"):
            info = token.info.strip()
            match = re.match(r"\{([^}]+)\}\s*(.*)", info)
            if not match:
                yield "code", token.content
            elif match.group(1) in CODE:
                yield "code", _body(token.content)
            elif match.group(1) not in SKIP:
                if match.group(2):
                    yield from pieces(match.group(2))
                yield from pieces(_body(token.content))
        elif token.type == "code_block":
            yield "code", token.content
        elif token.type == "inline":
            yield "inline", token


def markdown_cells(path: Path):
    """The source of each markdown cell of a notebook."""
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            yield "".join(cell["source"])
