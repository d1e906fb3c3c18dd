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
from pathlib import Path

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
