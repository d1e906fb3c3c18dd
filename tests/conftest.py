"""pytest's configuration for tests/: which files ``./run.sh test-oldest`` collects.

With ``DPMARKOV_UNIT_ONLY=1`` (set by ``./run.sh test-oldest``, which installs the lowest
versions pyproject.toml allows) only the package's own tests run: a test file that imports a
module beyond the package's dependencies, its extras and the standard library (the book's
tooling: nbformat, otter, myst_nb, ...) is left out.  The rule reads each file's imports, so
a new test file is sorted without a list to keep.
"""
import ast
import os
import sys
import tracemalloc
from pathlib import Path

import pytest

#: What the lowest-versions environment has: pyproject.toml's dependencies and its
#: parquet, accounting and test extras (attr comes with dp_accounting).
UNIT_MODULES = {"numpy", "scipy", "mpmath", "sympy", "pandas", "flint", "pyarrow",
                "dp_accounting", "attr", "duckdb", "pytest", "hypothesis", "xdist", "yaml",
                "dpmarkov"}


def imported_modules(path: Path) -> set:
    """The top-level modules a Python file imports (absolute imports only)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def needs_the_book_tooling(path: Path) -> bool:
    """True when ``path`` imports something the unit-test environment does not have."""
    return bool(imported_modules(path) - UNIT_MODULES - set(sys.stdlib_module_names))


collect_ignore = []
if os.environ.get("DPMARKOV_UNIT_ONLY") == "1":
    collect_ignore = [p.name for p in Path(__file__).parent.glob("test_*.py")
                      if needs_the_book_tooling(p)]


# ------------------------------------------------------------------ work, without a clock
class WorkExceeded(BaseException):
    """A block made more function calls than its budget (a BaseException, so that no
    ``except Exception`` in the code under test swallows it)."""


class Work:
    """The work a block of code does, counted without a clock, so the count is the same on a
    fast, slow or loaded machine: the Python and C function calls it makes (``sys.setprofile``
    events "call" and "c_call", in this thread) and the peak of the memory it allocates above
    what it started with (``tracemalloc``, which numpy's arrays report to).

    ``with Work(calls=C, memory=M) as w:`` stops the block with :class:`WorkExceeded` at call
    ``C + 1`` (so a runaway loop ends, where a timer would be needed otherwise) and fails on
    exit when the block made more than ``C`` calls (even if it swallowed the exception) or
    allocated more than ``M`` bytes at its peak.  ``w.calls`` and ``w.peak`` hold the counts.
    Work inside C code that neither calls back nor allocates is not seen: every big request
    allocates (an array of the size asked) or loops in Python.
    """

    def __init__(self, *, calls: int, memory: int):
        self.budget, self.memory, self.calls, self.peak = calls, memory, 0, 0
        self.exceeded = False

    def _count(self, frame, event, arg):
        if event in ("call", "c_call"):
            self.calls += 1
            if self.calls > self.budget and not self.exceeded:
                self.exceeded = True
                raise WorkExceeded(f"more than {self.budget} function calls")

    def __enter__(self):
        self._started = not tracemalloc.is_tracing()
        if self._started:
            tracemalloc.start()
        tracemalloc.reset_peak()
        self._base = tracemalloc.get_traced_memory()[0]
        sys.setprofile(self._count)
        return self

    def __exit__(self, kind, value, traceback):
        sys.setprofile(None)
        self.peak = tracemalloc.get_traced_memory()[1] - self._base
        if self._started:
            tracemalloc.stop()
        if self.exceeded:
            raise AssertionError(f"the call did more work than its budget: more than "
                                 f"{self.budget} function calls") from None
        if self.peak > self.memory:
            raise AssertionError(f"the call allocated {self.peak / 2**20:.0f} MiB at its peak, "
                                 f"more than its budget of {self.memory / 2**20:.0f} MiB")
        return False


@pytest.fixture
def work():
    """``work(calls=C, memory=M)``: a :class:`Work` counter for a ``with`` block."""
    return Work
