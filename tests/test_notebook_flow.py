"""The test command runs every notebook once; check that neither check got weaker.

``./run.sh test`` runs nbval on every notebook (executes it, compares each output with
the stored one) and then builds the book from the stored outputs with execution off,
using the configuration ``scripts/stored_outputs_config.py`` derives from _config.yml.
These tests pin the two halves: the derived configuration differs from _config.yml in
nothing but execution, and nbval, run exactly as run.sh runs it, fails on a notebook
whose stored output differs from what its code prints.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _load_script():
    spec = importlib.util.spec_from_file_location(
        "stored_outputs_config", ROOT / "scripts" / "stored_outputs_config.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stored_outputs_config_differs_only_in_execution(tmp_path):
    script = _load_script()
    original = yaml.safe_load((ROOT / "_config.yml").read_text())
    out = tmp_path / "cfg.yml"
    assert script.main([str(out)]) == 0
    derived = yaml.safe_load(out.read_text())
    assert derived["execute"]["execute_notebooks"] == "off"
    assert original["execute"]["execute_notebooks"] != "off", "./run.sh book must execute"
    derived["execute"]["execute_notebooks"] = original["execute"]["execute_notebooks"]
    for name, path in ((derived.get("sphinx") or {}).get("local_extensions") or {}).items():
        assert Path(path).is_absolute()              # resolved against _config.yml's folder
        derived["sphinx"]["local_extensions"][name] = original["sphinx"]["local_extensions"][name]
    assert derived == original
    # the build keeps failing on warnings and on a failing cell
    assert original["sphinx"]["config"]["nb_execution_raise_on_error"] is True
    assert original["execute"]["stderr_output"] == "warn"
    run_sh = (ROOT / "run.sh").read_text()
    test_cmd = run_sh[run_sh.index("  test)"):run_sh.index(";;", run_sh.index("  test)"))]
    # every pass over the notebooks runs nbval with the one set of options, NBVAL
    options = next(line for line in run_sh.splitlines() if line.startswith("NBVAL=("))
    assert "--nbval " in options and "--nbval-sanitize-with tests/sanitize.cfg" in options
    assert "--dist loadfile" in options
    assert '"${NBVAL[@]}"' in test_cmd and "notebook_order.py" in test_cmd
    # the second nbval pass at numpy's baseline dispatch (./run.sh test-dispatch, which .ci/run
    # runs right after ./run.sh test); OpenBLAS left as the machine has it
    start = run_sh.index("  test-dispatch)")
    dispatch_cmd = run_sh[start:run_sh.index(";;", start)]
    assert '"${NBVAL[@]}"' in dispatch_cmd and "notebook_order.py" in dispatch_cmd
    assert "NPY_DISABLE_CPU_FEATURES" in dispatch_cmd and "baseline_dispatch.py" in dispatch_cmd
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci.index("./run.sh test-dispatch") == ci.index("./run.sh test") + 1
    assert "OPENBLAS_CORETYPE" not in run_sh
    assert "stored_outputs_config.py" in test_cmd and "-W" in test_cmd and "--all" in test_cmd


def test_notebook_order_lists_every_notebook_once():
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "notebook_order.py")],
                         capture_output=True, text=True, check=True)
    listed = run.stdout.split()
    assert sorted(listed) == sorted(f"book/{p.name}" for p in (ROOT / "book").glob("*.ipynb"))
    assert len(set(listed)) == len(listed)


def test_nbval_fails_on_a_changed_stored_output(tmp_path):
    # one kernel, two cells: nbval checks each cell's stored output on its own
    nb = nbformat.v4.new_notebook()
    for count, stored in ((1, "42\n"), (2, "43\n")):  # the second stores what 6*7 no longer gives
        cell = nbformat.v4.new_code_cell("print(6 * 7)", execution_count=count)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=stored)]
        nb.cells.append(cell)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, tmp_path / "tiny.ipynb")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", "tiny.ipynb",
         "--nbval-sanitize-with", str(ROOT / "tests" / "sanitize.cfg"),
         "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "--rootdir", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    report = run.stdout + run.stderr
    assert run.returncode == 1, report
    assert "1 failed, 1 passed" in report, report
    assert "Cell 1" in report and "43" in report, report
