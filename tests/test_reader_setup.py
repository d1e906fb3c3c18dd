"""The reader's set-up: reader-requirements.txt and the commands of "Run a chapter yourself".

The page has the reader make an environment, install ``reader-requirements.txt`` and then the
wheel from the same folder with ``pip install --no-index --find-links . dpmarkov``
(``./run.sh test-install`` runs those very lines, tests/test_install.py).  Checked here:

- where ``reader-requirements.txt`` names a library the package depends on (its
  dependencies and extras in pyproject.toml), its lowest allowed version is the package's:
  a lower floor lets a reader install a version the package was never tested with (scipy
  1.13 fails five unit tests, README "Library versions"), a higher one refuses versions
  ``./run.sh test-oldest`` shows to work; and it names every dependency, which the wheel's
  ``--no-index`` install needs installed;
- the page's commands run in every shell a reader has: bash and zsh, Windows PowerShell and
  cmd.exe.  The install lines are shared, so they hold nothing a shell would read: no file
  pattern (cmd and PowerShell do not expand ``dpmarkov-*.whl``; pip then looks for a file
  of that name), no comment (cmd has no ``#``), no quotes, variables or paths; and each
  shell has its activation line.
"""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "run_locally.ipynb"


# ------------------------------------------------------------------ reader-requirements.txt
def floors(requirements: list[str]) -> dict[str, Version | None]:
    """Each requirement's canonical name and its lowest allowed version (None: no floor)."""
    found = {}
    for line in requirements:
        req = Requirement(line)
        low = [Version(s.version) for s in req.specifier if s.operator in (">=", "==", "~=")]
        found[canonicalize_name(req.name)] = min(low) if low else None
    return found


def requirement_lines(text: str) -> list[str]:
    lines = [line.split("#")[0].strip() for line in text.splitlines()]
    return [line for line in lines if line]


def floor_mismatches(reader_text: str, pyproject: dict) -> list[str]:
    """The package's libraries whose floor in ``reader_text`` differs from ``pyproject``'s,
    and its dependencies that ``reader_text`` leaves out."""
    project = pyproject["project"]
    needed = floors(project["dependencies"])
    package = needed | floors(
        [r for extra in project["optional-dependencies"].values() for r in extra])
    reader = floors(requirement_lines(reader_text))
    found = [f"{name}: reader-requirements.txt >= {reader[name]}, pyproject.toml >= {floor}"
             for name, floor in sorted(package.items())
             if name in reader and reader[name] != floor]
    return found + [f"{name}: missing" for name in sorted(set(needed) - set(reader))]


def test_reader_floors_equal_the_package_floors():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    reader = (ROOT / "reader-requirements.txt").read_text()
    assert floor_mismatches(reader, pyproject) == []
    # pyarrow (an extra) is compared too, so the check is more than the dependencies
    assert "pyarrow" in floors(requirement_lines(reader))


def test_a_lower_or_missing_floor_is_caught():
    pyproject = {"project": {"dependencies": ["numpy>=2.0", "scipy>=1.17", "sympy>=1.12",
                                              "python-flint>=0.7.1,<0.8"],
                             "optional-dependencies": {"parquet": ["pyarrow>=16.1"]}}}
    # what the file said before (issue 39): scipy and pyarrow below the package's floors,
    # python-flint left out; sympy without a floor; numpy's extra upper bound is no mismatch
    fixture = "numpy>=2.0,<3\nscipy>=1.13  # too low\npyarrow>=15\nsympy\nmatplotlib>=3.8\n"
    assert floor_mismatches(fixture, pyproject) == [
        "pyarrow: reader-requirements.txt >= 15, pyproject.toml >= 16.1",
        "scipy: reader-requirements.txt >= 1.13, pyproject.toml >= 1.17",
        "sympy: reader-requirements.txt >= None, pyproject.toml >= 1.12",
        "python-flint: missing",
    ]


# ------------------------------------------------------------------ the page's commands
FENCE = re.compile(r"^[ \t]*```(\w+)[ \t]*\n(.*?)^[ \t]*```", re.MULTILINE | re.DOTALL)
#: What a shell reads in a line: a file pattern, a comment, quotes, a variable, a path, chaining.
SHELL_SYNTAX = re.compile(r"[*?#'\"$%~`&|;<>()\[\]{}]|/|\\")
#: Each shell's activation line.
ACTIVATE = {"bash": "dpmarkov-env/bin/activate", "powershell": r"dpmarkov-env\Scripts\Activate.ps1",
            "bat": r"dpmarkov-env\Scripts\activate.bat"}


def page_text(path: Path = PAGE) -> str:
    nb = json.loads(path.read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def code_blocks(text: str) -> list[tuple[str, list[str]]]:
    """The page's fenced code blocks: (language, lines)."""
    return [(lang, [line.strip() for line in body.splitlines() if line.strip()])
            for lang, body in FENCE.findall(text)]


def install_lines(text: str) -> list[str]:
    """The install commands every shell shares (the block that installs the wheel)."""
    blocks = [lines for _, lines in code_blocks(text) if any("reader-requirements" in line
                                                             for line in lines)]
    assert len(blocks) == 1, blocks
    return blocks[0]


def setup_problems(text: str) -> list[str]:
    """Why the page's set-up would fail in one of the shells (empty: it works in all)."""
    problems = []
    blocks = code_blocks(text)
    shared = install_lines(text)
    for line in shared:
        if SHELL_SYNTAX.search(line):
            problems.append(f"shell syntax in a line every shell runs: {line}")
        if not line.startswith("python -m pip install "):
            problems.append(f"not a pip command: {line}")
    if not any("--find-links ." in line and line.endswith(" dpmarkov") for line in shared):
        problems.append("no line installs dpmarkov from this folder's wheel")
    for lang, activate in ACTIVATE.items():
        if not any(lang == block_lang and any(line.endswith(activate) for line in lines)
                   for block_lang, lines in blocks):
            problems.append(f"no {lang} block activates with {activate}")
    for lang, lines in blocks:
        if lang in ("powershell", "bat", "text"):
            problems += [f"{lang}: {line}" for line in lines if "*" in line or "#" in line]
    return problems


def test_the_setup_commands_run_in_every_shell():
    assert setup_problems(page_text()) == []
    assert install_lines(page_text())[1:3] == [
        "python -m pip install -r reader-requirements.txt",
        "python -m pip install --no-index --find-links . dpmarkov"]


def test_a_command_only_bash_understands_is_caught():
    # the page before issue 39: one bash block, a file pattern and comments on every line
    fixture = """
```bash
python3 -m venv dpmarkov-env                     # a fresh, isolated environment
. dpmarkov-env/bin/activate                       # Windows: see below
python -m pip install -r reader-requirements.txt  # what the notebooks import
python -m pip install dpmarkov-*.whl              # the package and its datasets
```
"""
    problems = setup_problems(fixture)
    assert "no line installs dpmarkov from this folder's wheel" in problems
    assert any("dpmarkov-*.whl" in p for p in problems)
    assert any("not a pip command: python3 -m venv" in p for p in problems)
    assert any("powershell" in p for p in problems) and any("bat" in p for p in problems)
    # one wrong line among right ones is enough
    page = page_text()
    assert setup_problems(page.replace(
        "python -m pip install jupyterlab", "python -m pip install jupyterlab  # to open them")) \
        == ["shell syntax in a line every shell runs: "
            "python -m pip install jupyterlab  # to open them",
            "text: python -m pip install jupyterlab  # to open them"]
