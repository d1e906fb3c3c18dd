"""What a reader installs (reader-requirements.txt) allows what the package allows.

The page "Run a chapter yourself" has the reader install the wheel with
``reader-requirements.txt``.  Where that file names a library the package depends on (its
dependencies and extras in pyproject.toml), its lowest allowed version must be the package's:
a lower floor lets a reader install a version the package was never tested with (scipy 1.13
fails five unit tests, README "Library versions"); a higher one refuses versions
``./run.sh test-oldest`` shows to work.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def floors(requirements: list[str]) -> dict[str, str | None]:
    """Each requirement's canonical name and its lowest allowed version (``>=`` or ``==``)."""
    found = {}
    for line in requirements:
        req = Requirement(line)
        low = [Version(s.version) for s in req.specifier if s.operator in (">=", "==", "~=")]
        found[canonicalize_name(req.name)] = min(low) if low else None
    return found


def floor_mismatches(reader_text: str, pyproject: dict) -> list[str]:
    """The libraries whose floor in ``reader_text`` differs from ``pyproject``'s."""
    project = pyproject["project"]
    package = floors(project["dependencies"]
                     + [r for extra in project["optional-dependencies"].values() for r in extra])
    lines = [line.split("#")[0].strip() for line in reader_text.splitlines()]
    reader = floors([line for line in lines if line])
    return [f"{name}: reader-requirements.txt >= {reader[name]}, pyproject.toml >= {floor}"
            for name, floor in sorted(package.items())
            if name in reader and reader[name] != floor]


def test_reader_floors_equal_the_package_floors():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    reader = (ROOT / "reader-requirements.txt").read_text()
    assert floor_mismatches(reader, pyproject) == []
    # the libraries both name (so the check above is not vacuous)
    assert {"numpy", "scipy", "pyarrow", "duckdb"} <= set(floors(
        [line.split("#")[0] for line in reader.splitlines() if line.split("#")[0].strip()]))


def test_a_lower_or_missing_floor_is_caught():
    pyproject = {"project": {"dependencies": ["numpy>=2.0", "scipy>=1.17", "sympy>=1.12"],
                             "optional-dependencies": {"parquet": ["pyarrow>=16.1"]}}}
    # what the file said before (issue 39): scipy and pyarrow below the package's floors;
    # sympy with no floor at all; numpy's extra upper bound is no mismatch
    fixture = "numpy>=2.0,<3\nscipy>=1.13  # too low\npyarrow>=15\nsympy\nmatplotlib>=3.8\n"
    assert floor_mismatches(fixture, pyproject) == [
        "pyarrow: reader-requirements.txt >= 15, pyproject.toml >= 16.1",
        "scipy: reader-requirements.txt >= 1.13, pyproject.toml >= 1.17",
        "sympy: reader-requirements.txt >= None, pyproject.toml >= 1.12",
    ]
