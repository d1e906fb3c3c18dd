"""Fit the book's code cells to the code column where a formatter cannot (issue 35, item 2).

``ruff format book`` (ruff.toml: 79 columns) splits statements but never strings or
comments.  This script does the rest, before the formatter runs:

1. a trailing comment that would make the formatter split its statement moves above it;
2. a comment line wider than the column is re-wrapped into comment lines that fit;
3. a docstring with a line wider than the column is re-wrapped (its words unchanged);
4. a string wider than the column is cut, at spaces outside any ``{...}`` field, into
   adjacent literals (implicit concatenation: the same value), which the formatter then puts
   on lines of their own.

Each cell's code keeps its meaning: the abstract syntax tree (where adjacent literals are
one constant) is compared before and after, and a cell that would change is left alone.

    .venv/bin/python scripts/fit_code.py book/*.ipynb && .venv/bin/ruff format book

(run both twice: the formatter's splits can make new long lines for the script).

On step 1:

A formatter keeps a trailing comment attached to its line; when the line with its comment is
wider than the code column (ruff.toml's line-length), it splits the statement instead, and
an inline comment turns a one-line assignment into three.  This moves such a comment (on a
single-line statement wider than the column, or on the last line of a statement the
formatter has split) above the statement, at its indentation; run it before
``ruff format book``:

    .venv/bin/python scripts/comments_above.py book/*.ipynb && .venv/bin/ruff format book

Comments inside a bracketed statement's middle lines stay where they are (they label items).
"""
from __future__ import annotations

import ast
import io
import json
import sys
import textwrap
import tokenize
from pathlib import Path

WIDTH = 79


def _tokens(source: str) -> list | None:
    """The cell's Python tokens, or None when it is not plain Python (magics)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return _join_fstrings(tokens, source)


def _join_fstrings(tokens: list, source: str) -> list:
    """Each f-string as one STRING token, as Python 3.11 gives it.

    Python 3.12 and later split an f-string into FSTRING_START, its parts and FSTRING_END
    (PEP 701); without joining them back the script would not see f-strings as strings there.
    """
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    if fstring_start is None:
        return tokens
    lines = source.splitlines(keepends=True)
    out, depth, first = [], 0, None
    for tok in tokens:
        if tok.type == fstring_start:
            first = tok if depth == 0 else first
            depth += 1
        elif depth and tok.type == tokenize.FSTRING_END:
            depth -= 1
            if depth == 0:
                (r1, c1), (r2, c2) = first.start, tok.end
                text = "".join(lines[r1 - 1:r2])
                text = text[c1:len(text) - len(lines[r2 - 1]) + c2]
                out.append(tokenize.TokenInfo(tokenize.STRING, text, first.start, tok.end,
                                              first.line))
        elif depth == 0:
            out.append(tok)
    return out


def move_comments(source: str, width: int = WIDTH) -> str:
    """``source`` with the trailing comments that would split their statement moved above."""
    tokens = _tokens(source)
    if tokens is None:
        return source                       # a cell with magics: leave it alone
    lines = source.splitlines()
    above: dict[int, list[str]] = {}        # row index -> comments to put above it
    start, trailing = None, []
    for tok in tokens:
        if start is None and tok.type not in SKIP:
            start = tok.start[0] - 1
        if tok.type == tokenize.COMMENT and start is not None:
            row, col = tok.start[0] - 1, tok.start[1]
            if lines[row][:col].strip():    # a trailing comment
                trailing.append((row, col))
        if tok.type == tokenize.NEWLINE:
            end = tok.start[0] - 1
            for row, col in trailing:
                if row == end and (start != end or len(lines[row]) > width):
                    indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
                    above.setdefault(start, []).append(indent + lines[row][col:].strip())
                    lines[row] = lines[row][:col].rstrip()
            start, trailing = None, []
    if not above:
        return source
    out = []
    for i, line in enumerate(lines):
        out.extend(above.get(i, []))
        out.append(line)
    return "\n".join(out) + ("\n" if source.endswith("\n") else "")


SKIP = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)


def wrap_comments(source: str, width: int = WIDTH) -> str:
    """Full-line comments wider than ``width`` re-wrapped into comment lines that fit."""
    out = []
    for line in source.split("\n"):
        body = line.lstrip()
        if len(line) > width and body.startswith("#") and not body.startswith("#!"):
            indent = line[: len(line) - len(body)]
            text = body.lstrip("#").strip()
            out += textwrap.wrap(text, width - len(indent) - 2, initial_indent=indent + "# ",
                                 subsequent_indent=indent + "# ", break_long_words=False,
                                 break_on_hyphens=False) or [line]
        else:
            out.append(line)
    return "\n".join(out)


def _cut_points(body: str, is_f: bool) -> list[int]:
    """Indices just after a space in ``body`` where a literal may be cut: outside any
    ``{...}`` field of an f-string and not inside an escape sequence."""
    depth, i, points = 0, 0, []
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if is_f and ch in "{}":
            if body[i:i + 2] in ("{{", "}}") and depth == 0:
                i += 2
                continue
            depth += 1 if ch == "{" else -1
        elif ch == " " and depth == 0:
            points.append(i + 1)
        i += 1
    return points


def split_string(token: str, room: int) -> list[str] | None:
    """``token`` (one string literal) as adjacent literals of at most about ``room``
    characters each, or None when it cannot be cut (triple quotes, bytes, no space)."""
    prefix = token[: len(token) - len(token.lstrip("rRbBfFuU"))]
    rest = token[len(prefix):]
    if rest[:3] in ('"""', "'''") or "b" in prefix.lower() or len(rest) < 2:
        return None
    quote, body = rest[0], rest[1:-1]
    is_f = "f" in prefix.lower()
    points = _cut_points(body, is_f)
    pieces, start = [], 0
    while len(body) - start + len(prefix) + 2 > room:
        fit = [p for p in points if start < p and p - start + len(prefix) + 2 <= room]
        if not fit:
            nxt = [p for p in points if p > start]
            if not nxt:
                break
            fit = nxt[:1]
        pieces.append(body[start:fit[-1]])
        start = fit[-1]
    pieces.append(body[start:])
    if len(pieces) == 1:
        return None
    out = []
    for piece in pieces:
        p = prefix
        if is_f and "{" not in piece and "}" not in piece:
            p = prefix.replace("f", "").replace("F", "")
        out.append(f"{p}{quote}{piece}{quote}")
    return out


def split_strings(source: str, width: int = WIDTH) -> str:
    """String literals on lines wider than ``width`` cut into adjacent literals."""
    tokens = _tokens(source)
    if tokens is None:
        return source                       # a cell with magics: leave it alone
    lines = source.split("\n")
    edits = []
    for tok in tokens:
        if tok.type != tokenize.STRING or tok.start[0] != tok.end[0]:
            continue
        row, col = tok.start[0] - 1, tok.start[1]
        if len(lines[row]) <= width:
            continue
        indent = len(lines[row]) - len(lines[row].lstrip()) + 4
        parts = split_string(tok.string, width - indent - 1)
        if parts:
            edits.append((row, col, tok.end[1], " ".join(parts)))
    for row, a, b, text in sorted(edits, reverse=True):
        lines[row] = lines[row][:a] + text + lines[row][b:]
    return "\n".join(lines)


def wrap_docstrings(source: str, width: int = WIDTH) -> str:
    """Docstrings with a line wider than ``width`` re-wrapped, paragraph by paragraph."""
    tokens = _tokens(source)
    if tokens is None:
        return source                       # a cell with magics: leave it alone
    lines = source.split("\n")
    edits = []
    for tok in tokens:
        s = tok.string
        if tok.type != tokenize.STRING or s[:3] not in ('"""', "'''") or s[-3:] != s[:3]:
            continue
        first, last = tok.start[0] - 1, tok.end[0] - 1
        if all(len(line) <= width for line in lines[first:last + 1]):
            continue
        if lines[first][: tok.start[1]].strip() or lines[last][tok.end[1]:].strip():
            continue                        # not a docstring on lines of its own
        indent = " " * tok.start[1]
        paragraphs = [" ".join(p.split()) for p in s[3:-3].split("\n\n")]
        out = []
        for i, para in enumerate(paragraphs):
            lead = indent + (s[:3] if i == 0 else "")
            wrapped = textwrap.wrap(para, width - 3, initial_indent=lead, subsequent_indent=indent,
                                    break_long_words=False, break_on_hyphens=False) or [lead]
            out += ([""] if i else []) + wrapped
        out[-1] += s[:3]                    # fits: lines are wrapped 3 short
        edits.append((first, last, out))
    for first, last, out in sorted(edits, reverse=True):
        lines[first:last + 1] = out
    return "\n".join(lines)


def _meaning(source: str) -> str:
    """The code's syntax tree, with every docstring's whitespace collapsed."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                value.value = " ".join(value.value.split())
    return ast.dump(tree)


def fit(source: str, width: int = WIDTH) -> str:
    """All four steps, or ``source`` unchanged if they would change the code's meaning."""
    new = move_comments(source, width)
    new = split_strings(wrap_docstrings(wrap_comments(new, width), width), width)
    try:
        same = _meaning(new) == _meaning(source)
    except SyntaxError:
        return source
    return new if same else source


def main(paths: list[str]) -> int:
    for name in paths:
        path = Path(name)
        nb = json.loads(path.read_text())
        changed = False
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            new = fit(source)
            if new != source:
                cell["source"] = new.splitlines(True)
                changed = True
        if changed:
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
