"""run.sh, the one entry point, on the machines readers have (issue 39).

- **macOS** ships bash 3.2 and BSD tools: run.sh and .ci/run use no construct of bash 4 or
  later (``mapfile``, ``$BASHPID``, associative arrays, ``${x,,}``, ``|&``, ...) and no
  GNU-only tool or option without a fallback (``sha256sum`` falls back to macOS's
  ``shasum``).  Checked by a scan with the old run.sh as the fixture it must fail, and by
  sourcing run.sh (which defines its functions and runs nothing) to call ``sha256`` where
  ``sha256sum`` is missing.
- **Other Pythons**: ``find_python`` finds pyenv's interpreter behind a pyenv shim that
  fails, and names what to install when there is none.
- **A read-only home folder**: with run.sh's ``tool_folders``, nbval passes on a chapter that
  plots with matplotlib (whose cache-folder warning would otherwise be an unexpected output).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")

#: Bash 4 and later (with the version that brought it); macOS has bash 3.2.
BASH4 = {
    r"\bmapfile\b|\breadarray\b": "mapfile (4.0)",
    r"\$\{?BASHPID\b": "$BASHPID (4.0)",
    r"\b(?:declare|local|typeset)\s+-\w*[An]": "associative array or nameref (4.0, 4.3)",
    r"\$\{[^}]*(?:,,?|\^\^?)\}": "case modification ${x,,} (4.0)",
    r"\$\{[^}]*@[QEPAaUuLK]\}": "${x@Q} transformation (4.4)",
    r"\|&|&>>|;;&|\bcoproc\b": "|&, &>>, ;;& or coproc (4.0)",
    r"\bshopt\s+-s\s+(?:globstar|lastpipe|autocd|checkjobs|dirspell|direxpand)\b": "shopt (4.x)",
    r"\[\[\s+-v\b|\btest\s+-v\b": "-v test (4.2)",
    r"\$\{\w+\[-\d+\]\}": "negative subscript (4.3)",
    r"\bwait\s+-n\b": "wait -n (4.3)",
    r"\$\{?(?:EPOCHSECONDS|EPOCHREALTIME|SRANDOM|BASH_ARGV0)\b": "bash 5 variable",
    r"%\([^)]*\)T": "printf %(...)T (4.2)",
    r"\{-?\d+\.\.-?\d+\.\.-?\d+\}|\{0\d+\.\.": "brace step or zero padding (4.0)",
    r"\bread\b[^|;&]*\s-\w*i\b": "read -i (4.0)",
}
#: GNU tools and options that macOS lacks.
GNU_ONLY = {
    r"\bsha256sum\b(?!.*\bshasum\b)": "sha256sum without the shasum fallback",
    r"\breadlink\s+-\w*f": "readlink -f",
    r"\bsed\s+(?:-\w+\s+)*-\w*[ir]\b": "sed -i or -r (GNU syntax)",
    r"\bgrep\s+(?:-\w+\s+)*-\w*P": "grep -P",
    r"\bdate\s+-\w*d\b": "date -d",
    r"\bstat\s+-c\b": "stat -c",
    r"\bxargs\s+(?:-\w+\s+)*-\w*r\b": "xargs -r",
    r"\bnproc\b|\btac\b|\btimeout\s+\d": "nproc, tac or timeout",
    r"-printf\b": "find -printf",
}


def code_lines(text: str):
    """Each line without its comment (a # at the start or after a space, outside quotes)."""
    for number, line in enumerate(text.splitlines(), 1):
        quoted, out = None, []
        for i, ch in enumerate(line):
            if quoted:
                quoted = None if ch == quoted else quoted
            elif ch in "'\"":
                quoted = ch
            elif ch == "#" and (i == 0 or line[i - 1] in " \t") and not line[:i].endswith("$"):
                break
            out.append(ch)
        yield number, "".join(out)


def unportable(text: str) -> list[str]:
    """Lines of a bash script that macOS's bash 3.2 or BSD tools would not run."""
    found = []
    for number, line in code_lines(text):
        for pattern, what in {**BASH4, **GNU_ONLY}.items():
            if re.search(pattern, line):
                found.append(f"line {number}: {what}: {line.strip()}")
    return found


@pytest.mark.parametrize("script", ["run.sh", ".ci/run"])
def test_scripts_run_on_bash_3_2_and_bsd_tools(script):
    text = (ROOT / script).read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert unportable(text) == []


def test_the_scan_catches_what_macos_lacks():
    # lines of run.sh before issue 39, and a few more
    fixture = """\
  want="$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
    ( renice -n 10 -p "$BASHPID" >/dev/null     # niced
    mapfile -t notebooks < <("$PY" scripts/notebook_order.py)
declare -A seen
echo "${name,,}" |& tee log
sed -i 's/a/b/' file
here="$(readlink -f "$0")"
"""
    found = unportable(fixture)
    assert [f.split(":")[0] for f in found] == [
        "line 1", "line 2", "line 3", "line 4", "line 5", "line 5", "line 6", "line 7"]
    # comments are not code (a # inside quotes starts none)
    assert unportable('# mapfile and $BASHPID are bash 4\necho "#1"  # mapfile\n') == []
    assert unportable("sha256() { if command -v sha256sum >/dev/null; then sha256sum; "
                      "else shasum -a 256; fi; }\n") == []


def _bin_with(tmp_path: Path, *commands: str) -> Path:
    """A folder of links to ``commands`` only, to serve as PATH."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for command in commands:
        where = shutil.which(command)
        if where is None:
            pytest.skip(f"no {command} here")
        (folder / command).symlink_to(where)
    return folder


def _source_run_sh(snippet: str, env: dict, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([BASH, "-c", f'source "{ROOT}/run.sh" && {snippet}'], env=env,
                          capture_output=True, text=True, **kwargs)


def test_sha256_uses_shasum_where_sha256sum_is_missing(tmp_path):
    want = hashlib.sha256(b"requirements\n").hexdigest()
    macos_like = {"PATH": str(_bin_with(tmp_path, "dirname", "cut", "shasum")), "HOME": "/"}
    assert shutil.which("sha256sum", path=macos_like["PATH"]) is None
    for env in (macos_like, dict(os.environ)):
        run = _source_run_sh("printf 'requirements\\n' | sha256", env)
        assert (run.returncode, run.stdout.strip()) == (0, want), run.stderr
    # the old command, where sha256sum is missing: what macOS users saw
    run = subprocess.run([BASH, "-c", "printf x | sha256sum | cut -d' ' -f1"], env=macos_like,
                         capture_output=True, text=True)
    assert run.returncode != 0 or run.stdout.strip() == ""


def test_find_python_looks_past_a_failing_shim(tmp_path):
    folder = _bin_with(tmp_path, "dirname", "cat")
    # a pyenv shim of a version that is not its global one fails (exit 127), as here
    (folder / "python3.12").write_text("#!/bin/sh\necho 'pyenv: python3.12: command not found' >&2\n"
                                       "exit 127\n")
    (folder / "python3.12").chmod(0o755)
    # pyenv's own interpreter, faked: it answers the version and its path
    real = tmp_path / "pyenv" / "versions" / "3.12.7" / "bin" / "python3.12"
    real.parent.mkdir(parents=True)
    real.write_text('#!/bin/sh\ncase "$2" in *version_info*) echo 3.12 ;; '
                    '*) echo /pyenv/3.12.7/python3.12 ;; esac\n')
    real.chmod(0o755)
    env = {"PATH": str(folder), "HOME": str(tmp_path), "PYENV_ROOT": str(tmp_path / "pyenv")}
    run = _source_run_sh("find_python 3.12", env)
    assert (run.returncode, run.stdout.strip()) == (0, "/pyenv/3.12.7/python3.12"), run.stderr
    # none at all: a clear message, and a failure
    run = _source_run_sh("find_python 3.13", env)
    assert run.returncode != 0 and run.stdout == ""
    assert "Python 3.13 not found" in run.stderr and "pyenv install 3.13" in run.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX home folder")
def test_a_chapter_passes_nbval_with_a_read_only_home(tmp_path):
    # A file as HOME: nothing can be created below it, even by root (for whom a folder's
    # permissions would not count).  Without tool_folders matplotlib warns in the output of
    # the first cell that imports it, and nbval fails the cell.
    pytest.importorskip("nbval")          # the book's tools (not in ./run.sh test-oldest)
    pytest.importorskip("matplotlib")
    home = tmp_path / "home"
    home.write_text("not a folder\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MPL", "IPYTHON", "JUPYTER", "XDG_", "PYTEST_XDIST"))}
    env["HOME"] = str(home)
    nbval = (f'"{sys.executable}" -m pytest -p no:cacheprovider -p no:xdist -q --nbval '
             f'--nbval-sanitize-with tests/sanitize.cfg book/intro.ipynb')
    run = _source_run_sh(f"tool_folders && {nbval}", env, cwd=ROOT)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert "passed" in run.stdout and "not a writable" not in run.stdout + run.stderr
    # the fixture: the same run without tool_folders fails on matplotlib's warning (an
    # output on stderr that the stored notebook does not have)
    run = _source_run_sh(nbval, env, cwd=ROOT)
    assert run.returncode != 0 and "Unexpected output fields from running code: {'stderr'}" \
        in run.stdout, (run.stdout + run.stderr)[-3000:]
    for folder in ("matplotlib", "ipython", "jupyter/runtime"):
        assert (ROOT / ".venv-home" / folder).is_dir()
