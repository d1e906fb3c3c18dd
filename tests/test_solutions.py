"""Worked solutions that state a number also assert it (issue 25, item 3).

A solution's prose may quote a number only if a hidden cell of the solution (tagged
``remove-cell``, so readers do not see it) asserts it: a wrong number then fails the notebook.
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = sorted((ROOT / "book").glob("*.ipynb"))
# a number a reader could check: a decimal, an integer of two or more digits, a power of ten
NUMBER = re.compile(r"(?<![\w.{\\^_])(\d+\.\d+|\d{2,}(?:,\d{3})*|\d+(?:\.\d+)?\s*\\times\s*10\^\{?-?\d+\}?"
                    r"|\d\.?\d*e-?\d+)(?![\w}])")
START = re.compile(r"```\{solution-start\} (\S+)")
#: Solutions that state numbers without a hidden assertion yet (the list only shrinks: the
#: test fails when one of them gets its cell, until it is removed from here).
PENDING: set = set()


def _prose_numbers(text):
    text = re.sub(r"\{[\w:]+\}`[^`]*`", "", text)       # glued values, references, citations
    text = re.sub(r"`[^`]*`", "", text)                  # code
    return NUMBER.findall(text)


def _solutions(path):
    """{label: (numbers stated in its prose, whether a hidden cell asserts)} of a notebook."""
    out, current = {}, None
    for cell in json.loads(path.read_text())["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            for part in re.split(r"(```\{solution-start\} \S+|```\{solution-end\})", source):
                start = START.match(part)
                if start:
                    current = start.group(1)
                    out[current] = ([], False)
                elif part.startswith("```{solution-end}"):
                    current = None
                elif current:
                    out[current][0].extend(_prose_numbers(part))
        elif current and "remove-cell" in cell["metadata"].get("tags", []) \
                and re.search(r"^\s*assert\b", source, re.M):
            out[current] = (out[current][0], True)
    return out


SOLUTIONS = {label: (path.stem, numbers, hidden) for path in BOOK
             for label, (numbers, hidden) in _solutions(path).items()}


def test_solutions_are_found():
    assert len(SOLUTIONS) > 80


@pytest.mark.parametrize("label", sorted(SOLUTIONS))
def test_a_solution_that_states_a_number_asserts_it(label):
    chapter, numbers, hidden = SOLUTIONS[label]
    if label in PENDING:
        assert numbers and not hidden, f"{label} is done: remove it from PENDING"
    elif numbers:
        assert hidden, f"{chapter}: solution {label} states {numbers[:5]} but no hidden cell asserts"
