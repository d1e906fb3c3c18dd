"""A catalogue of attempts to forge a score; each scores no more than the blank notebook.

Every attempt is the blank student notebook of the Foundations assignment with one cell
added at its end, graded by scripts/grade.py as ``./run.sh grade`` grades (the sandbox of
scripts/grading/sandbox.py, tight limits so the catalogue stays quick). Under the old
in-process grader each of the tampering attempts took full marks; here the tests run in the
grader's process on plain data, so none can reach them. Honest right, blank and partly wrong
submissions keep their scores: tests/test_assignments.py.

Beside the catalogue: the sandbox itself (no repository files, no network, no new process, no
dpmarkov where a question forbids it, plain data only), the grader's branch for an
autograder test file that raises, and the structure of otter's autograder zip, which is
Gradescope's format (the LMS route in README).
"""
from __future__ import annotations

import base64
import importlib.util
import json
import sys
import textwrap
import zipfile
from pathlib import Path

import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("grade", ROOT / "scripts" / "grade.py")
grading = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(grading)
sandbox = sys.modules["grading.sandbox"]
variants = sys.modules["grading.variants"]

pytestmark = pytest.mark.skipif(not sandbox.bwrap_available(),
                                reason="the sandbox needs Linux and bubblewrap "
                                       "(./run.sh grade installs it)")
SEED = 7
# CPU seconds for a whole sandbox and for one cell or call; 1.5 GiB of address space (numpy,
# scipy and dpmarkov need about 0.6); the wall limit only backs the CPU limits up
LIMITS = sandbox.Limits(cpu=20, cpu_per_step=2, memory=3 * 2**29, wall=120)

# the dpmarkov call that the question forbids, to be hidden in several ways
DELEGATE = "def shares(counts):\n    return dm.count_vector(counts)\n"

FORGERIES = {
    # tampering with the test machinery, as the old grader allowed
    "otter's test runner patched": """
        import otter.test_files.ok_test as ok
        ok.run_doctest = lambda *args, **kwargs: (True, "")
        import otter.test_files.abstract_test as at
        at.TestFile.score = property(lambda self: self.possible)
        """,
    "numpy's comparisons patched": """
        import numpy as np
        for name in ("allclose", "isclose", "array_equal", "all", "any", "shape", "ndim"):
            setattr(np, name, lambda *args, **kwargs: True)
        """,
    "builtins patched": """
        import builtins
        builtins.abs = lambda x: 0
        builtins.all = lambda x: True
        builtins.AssertionError = type("Never", (Exception,), {})
        """,
    "sys.modules replaced": """
        import sys, types
        fake = types.ModuleType("numpy")
        fake.allclose = fake.isclose = lambda *a, **k: True
        sys.modules["numpy"] = fake
        sys.modules["fractions"] = fake
        sys.setprofile = lambda *args: None
        """,
    "builtins shadowed by the notebook's own": """
        def abs(x):
            return 0.0
        def all(x):
            return True
        def isinstance(*args):
            return True
        eta_max = k_floor = p_exact = 1.0
        """,
    # the forbidden call, hidden from a watchdog
    "dpmarkov by importlib": """
        import importlib
        def shares(counts):
            return importlib.import_module("dpm" + "arkov").count_vector(counts)
        C = shares(counts)
        """,
    "dpmarkov by __import__": """
        def shares(counts):
            return __import__("dpmarkov").count_vector(counts)
        """,
    "dpmarkov by exec of base64": f"""
        import base64
        exec(base64.b64decode({base64.b64encode(DELEGATE.encode())!r}).decode())
        """,
    "dpmarkov by a path of its own": """
        import sys
        sys.path[:0] = ["/work", "/work/wt/grade", "/work/main", "/repo", "."]
        import dpmarkov as dm2
        def shares(counts):
            return dm2.count_vector(counts)
        """,
    # answers that compare equal to anything
    "__eq__ always True": """
        class Anything(float):
            __eq__ = __le__ = __ge__ = __lt__ = __gt__ = lambda self, other: True
            __ne__ = lambda self, other: False
            __sub__ = __rsub__ = lambda self, other: Anything(0.0)
            __abs__ = lambda self: Anything(0.0)
            __bool__ = lambda self: True
        eta_max = k_floor = p_exact = p_mc = Anything(0.0)
        def shares(counts):
            return Anything(0.0)
        def in_bordered(x, eta):
            return Anything(1.0)
        def dirichlet_var(C, k):
            return Anything(0.0)
        """,
    "numpy subclass equal to anything": """
        import numpy as np
        class Anything(np.ndarray):
            def __eq__(self, other): return np.ones(np.shape(other), bool)
            def __sub__(self, other): return np.zeros(np.shape(other)).view(Anything)
            __rsub__ = __sub__
            def __abs__(self): return self
            def __le__(self, other): return True
            __lt__ = __le__
        anything = np.zeros(5).view(Anything)
        C = var_hat = anything
        eta_max = k_floor = p_exact = np.zeros(()).view(Anything)
        def shares(counts):
            return np.zeros(len(counts)).view(Anything)
        def dirichlet_var(C, k):
            return np.zeros(len(C)).view(Anything)
        """,
    # reading the tests: take the solution from any file that holds it
    "reading the tests and the master": f"""
        import glob, json
        found = [p for p in ({str(ROOT / "assignments/foundations/foundations.ipynb")!r},
                             "/work/main/assignments/foundations/foundations.ipynb")
                 + tuple(glob.glob("/tmp/**/foundations.ipynb", recursive=True))
                 + tuple(glob.glob({str(ROOT / "_build/**/*.zip")!r}, recursive=True))
                 + tuple(glob.glob({str(ROOT / "tests/*.py")!r}))]
        for path in found:
            if path.endswith("foundations.ipynb"):
                master = json.load(open(path))
                for cell in master["cells"]:
                    if cell["cell_type"] == "code" and "SOLUTION" in "".join(cell["source"]):
                        exec("".join(cell["source"]))
        """,
    # answers computed from the published data, typed (grading runs on a variant of the data)
    "the published answers typed": """
        import numpy as np
        C_ = np.array([28, 31, 21, 9, 9]) / 98
        eta_max = 9 / 98
        k_floor = 1.5 / 0.073
        var_hat = C_ * (1 - C_) / 51
        p_exact = p_mc = 0.75 ** 4
        """,
    "the published data put back, the answers computed from it": """
        import numpy as np
        counts = np.array([28, 31, 21, 9, 9])
        eta2, R, k, n, eta, R4 = 0.073, 20_000, 50.0, 5, 0.05, 100_000
        C_ = counts / counts.sum()
        eta_max, k_floor = C_.min(), 3 / (2 * eta2)
        var_hat = C_ * (1 - C_) / (k + 1)
        p_exact = p_mc = (1 - n * eta) ** (n - 1)
        """,
    # stalling the class
    "an infinite loop": """
        while True:
            pass
        """,
    "an infinite loop in the graded function": """
        def shares(counts):
            while True:
                pass
        """,
    "sleeping forever": """
        import time
        time.sleep(10**6)
        """,
    "a memory bomb": """
        hog = []
        while True:
            hog.append(bytearray(2**26))
        """,
    "a fork bomb": """
        import os
        while True:
            os.fork()
        """,
    # speaking for the sandbox
    "flooding the grader with deep and endless lines": """
        import os
        deep = b"[" * 10**6 + b"]" * 10**6 + b"\\n"
        for fd in range(3, 20):
            try:
                os.write(fd, deep)
                while True:
                    os.write(fd, b"1" * 2**24)
            except OSError:
                pass
        """,
    "fake JSON results on stdout": """
        import json, os, sys
        fake = {"variables": {"eta_max": 1.0}, "q1": [2, 2], "score": 8, "id": 1,
                "value": [1.0]}
        print(json.dumps(fake))
        sys.__stdout__.write(json.dumps(fake) + "\\n")
        os.write(1, (json.dumps(fake) + "\\n").encode())
        for fd in range(3, 20):
            try:
                os.write(fd, (json.dumps({"variables": {}}) + "\\n").encode())
            except OSError:
                pass
        """,
}


@pytest.fixture(scope="module")
def foundations(tmp_path_factory):
    """otter assign on the Foundations master -> (student notebook, autograder nb, zip)."""
    otter_assign = pytest.importorskip("otter.assign")
    out = tmp_path_factory.mktemp("built") / "foundations"
    grading.quiet(otter_assign.main, str(ROOT / "assignments" / "foundations" / "foundations.ipynb"),
                  str(out), no_run_tests=True)
    (zip_path,) = (out / "autograder").glob("*.zip")
    return out / "student" / "foundations.ipynb", out / "autograder" / "foundations.ipynb", zip_path


def _score(nb, zip_path, scratch) -> float:
    result = grading.score(nb, zip_path, scratch, seed=SEED, limits=LIMITS)
    return sum(s for s, _ in result.values())


@pytest.fixture(scope="module")
def blank_score(foundations, tmp_path_factory):
    student, _, zip_path = foundations
    return _score(nbformat.read(student, as_version=4), zip_path, tmp_path_factory.mktemp("b"))


@pytest.mark.parametrize("what", list(FORGERIES))
def test_a_forgery_scores_no_more_than_blank(what, foundations, blank_score, tmp_path):
    student, _, zip_path = foundations
    nb = nbformat.read(student, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(textwrap.dedent(FORGERIES[what])))
    assert _score(nb, zip_path, tmp_path) <= blank_score == 0


@pytest.fixture(scope="module")
def right_scores(foundations, tmp_path_factory):
    _, autograder, zip_path = foundations
    return grading.score(nbformat.read(autograder, as_version=4), zip_path,
                         tmp_path_factory.mktemp("r"), seed=SEED, limits=LIMITS)


def test_the_delegation_itself_loses_exactly_its_questions(foundations, right_scores, tmp_path):
    """The forbidden call in plain sight costs the two hidden cases of Question 1 (so the
    catalogue's hidden variants score 0 there because of the sandbox, not by accident)."""
    _, autograder, zip_path = foundations
    nb = nbformat.read(autograder, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(DELEGATE))
    wrong = grading.score(nb, zip_path, tmp_path, seed=SEED, limits=LIMITS)
    assert wrong == {**right_scores, "q1": (0.0, 2.0)} and right_scores["q1"] == (2.0, 2.0)


def test_an_answer_for_the_published_inputs_only_scores_nothing(foundations, right_scores,
                                                                 tmp_path):
    """A function that returns the hidden tests' expected values for their published inputs
    and garbage otherwise passes otter's own tests, and fails the seeded gates."""
    from fractions import Fraction
    _, autograder, zip_path = foundations
    nb = nbformat.read(autograder, as_version=4)
    published = {tuple(c): [float(Fraction(x, sum(c))) for x in c]
                 for c in ([28, 31, 21, 9, 9], [1, 999], [10**9, 3, 0, 7, 123456789, 5, 5, 1])}
    nb.cells.append(nbformat.v4.new_code_cell(textwrap.dedent(f"""
        import numpy as np
        _table = {published!r}
        def shares(counts):
            return np.array(_table.get(tuple(int(c) for c in counts), [0.5] * len(counts)))
        """)))
    right = right_scores
    tailored = grading.score(nb, zip_path, tmp_path / "t", seed=SEED, limits=LIMITS)
    assert right["q1"] == (2.0, 2.0) and tailored["q1"] == (0.0, 2.0)
    assert {q: v for q, v in tailored.items() if q != "q1"} == \
        {q: v for q, v in right.items() if q != "q1"}


# -- the sandbox itself ---------------------------------------------------------------------
PROBE = """
import os, socket, sys
listing = sorted(os.listdir("/"))
try:
    work = sorted(os.listdir(%r))
except FileNotFoundError:          # nothing of the repository mounted at all
    work = []
uid = os.getuid()
try:
    socket.create_connection(("1.1.1.1", 53), timeout=1)
    network = True
except OSError:
    network = False
try:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    forked = True
except OSError:
    forked = False
try:
    import dpmarkov
    dpmarkov.count_vector([1, 1])
    has_dpmarkov = True
except ImportError:
    has_dpmarkov = False
"""


@pytest.mark.parametrize("forbid", [False, True])
def test_the_sandbox_sees_nothing_of_the_repository(forbid):
    with sandbox.Sandbox([PROBE % str(ROOT)], forbid=forbid, limits=LIMITS) as box:
        v = box.variables
    # the repository shows only the Python environment the grader runs in (.venv, or
    # .venv-3.12 ... under ./run.sh test-pythons), read-only, and the package unless forbidden
    prefix = Path(sys.prefix).resolve()
    python = [prefix.relative_to(ROOT).parts[0]] if prefix.is_relative_to(ROOT) else []
    assert v["work"] == sorted(python + ([] if forbid else ["dpmarkov"]))
    assert "home" not in v["listing"] and "etc" not in v["listing"]
    assert v["uid"] == 65534 and v["network"] is False and v["forked"] is False
    assert v["has_dpmarkov"] is (not forbid)


def test_only_plain_data_crosses():
    cells = [textwrap.dedent("""
        import numpy as np
        class F(float):
            __eq__ = lambda s, o: True
        f, s, obj = F(1.0), 'x', object()
        a = np.arange(3).view(type('A', (np.ndarray,), {}))
        def g(x):
            return F(2.0)
        """)]
    with sandbox.Sandbox(cells, limits=LIMITS) as box:
        v = box.variables
        assert "f" not in v and "obj" not in v and v["s"] == "x"
        assert type(v["a"]) is np.ndarray and v["a"].tolist() == [0, 1, 2]
        with pytest.raises(sandbox.SandboxError):
            box.call("g", 1.0)
    # what the grader accepts from the sandbox: nothing but plain data
    assert sandbox.decode({"__ndarray__": [[1, 2]], "dtype": "<f8"}).dtype == np.float64
    for bad in ({"__ndarray__": ["x"], "dtype": "<U1"}, {"__ndarray__": [1], "dtype": "O"},
                {"__class__": "F"}, {"__ndarray__": [[1], [1, 2]], "dtype": "<f8"}):
        with pytest.raises((sandbox.SandboxError, TypeError)):
            sandbox.decode(bad)


def test_the_seccomp_filter_refuses_processes_on_both_machines():
    """x86_64 has fork and vfork, aarch64 only clone: each program ends in allow/refuse."""
    for machine in ("x86_64", "aarch64"):
        prog = sandbox.seccomp_filter(machine)
        assert len(prog) % 8 == 0
        rets = [int.from_bytes(prog[i + 4:i + 8], sys.byteorder) for i in range(0, len(prog), 8)
                if prog[i] == 0x06]
        assert rets[0] == 0x80000000 and rets[-1] == 0x00050001
    with pytest.raises(sandbox.SandboxUnavailable, match="machine='riscv64'"):
        sandbox.seccomp_filter("riscv64")


# -- a test file that raises ------------------------------------------------------------------
def _zip_with(tmp_path, source: str, question: str = "q1") -> Path:
    path = tmp_path / "autograder.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"tests/{question}.py", source)
    return path


def _notebook(code: str):
    nb = nbformat.v4.new_notebook()
    # an assignment of the grader, whose q9 (none) has no gate and no check on a variant
    nb.metadata["otter"] = {"assignment_name": "comparisons"}
    nb.cells = [nbformat.v4.new_code_cell(code)]
    return nb


def test_a_test_file_that_raises_names_itself(tmp_path):
    broken = _zip_with(tmp_path, "raise RuntimeError('half-written test file')\n")
    with pytest.raises(ValueError, match=r"test file q1\.py .*RuntimeError: half-written"):
        grading.score(_notebook("x = 1"), broken, tmp_path / "s", seed=SEED, limits=LIMITS)


def test_a_case_that_raises_fails_alone(tmp_path):
    """A case whose code raises (here: the submission's function fails in the sandbox)
    scores 0 and the other cases of the file still score."""
    spec = {"name": "q9", "points": [1, 2, 4], "suites": [{"type": "doctest", "cases": [
        {"code": ">>> broken(1)", "hidden": False, "locked": False},
        {"code": ">>> assert abs(answer - 0.5) <= 1e-15", "hidden": True, "locked": False},
        {"code": ">>> raise RuntimeError('a raising case')", "hidden": True, "locked": False},
    ]}]}
    zip_path = _zip_with(tmp_path, f"test = {spec!r}\n", "q9")
    nb = _notebook("def broken(x):\n    raise ValueError(x)\n\nanswer = 0.5\n")
    assert grading.score(nb, zip_path, tmp_path / "s", seed=SEED, limits=LIMITS) == \
        {"q9": (2.0, 7.0)}


# -- the LMS route: otter's autograder zip is Gradescope's format -----------------------------
def test_the_autograder_zip_has_gradescopes_structure(foundations):
    """Gradescope runs ``run_autograder`` after ``setup.sh`` in its image; otter's zip holds
    both, the environment to build, its config (the assignment's name) and one test file per
    autograded question, and nothing of the solution."""
    _, _, zip_path = foundations
    with zipfile.ZipFile(zip_path) as z:
        names = set(z.namelist())
        config = json.loads(z.read("otter_config.json"))
        run = z.read("run_autograder").decode()
        # files/ is the package (tests/test_assignments.py checks it), the rest otter's own
        everything = "\n".join(z.read(n).decode() for n in names if not n.startswith("files/"))
    questions = grading.question_order("foundations")
    auto = [q for q in questions if q not in grading.manual_questions("foundations")]
    assert {"run_autograder", "setup.sh", "run_otter.py", "environment.yml",
            "otter_config.json"} <= names
    assert {n for n in names if n.startswith("tests/")} == {f"tests/{q}.py" for q in auto}
    assert config["assignment_name"] == "foundations" and "run_otter.py" in run
    assert "counts / counts.sum()" not in everything     # Question 1's solution line


def test_the_written_question_of_a_notebook_otter_built(foundations):
    """handwork reads the written question where otter puts it: one per manual question, the
    placeholder answer read as no answer (tests/test_grading_handwork.py has the rest)."""
    student, _, _ = foundations
    nb = nbformat.read(student, as_version=4)
    written = sys.modules["grading.handwork"].written_answers(nb)
    assert len(written) == len(grading.manual_questions("foundations")) == 1
    prompt, answer = written[0]
    assert "graded by hand" in prompt and answer == ""


def test_without_bubblewrap_grading_needs_the_explicit_unsafe_flag(foundations, tmp_path,
                                                                  monkeypatch, capsys):
    """macOS and Windows (no bubblewrap): ./run.sh grade refuses and names the flag; with
    --unsafe-no-sandbox the runner is a plain child process with the same protocol."""
    student, _, zip_path = foundations
    monkeypatch.setattr(grading, "autograder", lambda name, built=None: zip_path)
    (tmp_path / "in").mkdir()
    nbformat.write(nbformat.read(student, as_version=4), tmp_path / "in" / "a.ipynb")
    monkeypatch.setattr(sandbox, "bwrap_available", lambda: False)
    assert grading.main([str(tmp_path / "in")]) == 2
    assert "--unsafe-no-sandbox" in capsys.readouterr().err
    assert not (tmp_path / "in" / "scores.csv").exists()
    with sandbox.Sandbox(["x = [1, 2.5]\nimport os\npid = os.getpid()\n"], limits=LIMITS,
                         unsafe=True) as box:
        assert box.variables["x"] == [1, 2.5] and box.variables["pid"] != __import__("os").getpid()


# -- answers computed from the given data: graded on a variant drawn from the seed ----------
VARIANT_CASES = {("q2", 2), ("q2", 3), ("q3", 3), ("q4", 1), ("q4", 2)}


def test_the_foundations_variant_covers_every_answer_from_the_data():
    """Each hidden case that checks a value computed from the given data (not a function on
    inputs of its own) is decided on the variant; the variant's data differ from the
    published data for every seed tried, and keep their kind (five categories, n eta < 1)."""
    variant = variants.VARIANTS["foundations"]
    assert set(variant.checks) == VARIANT_CASES
    for seed in range(20):
        cells = variants.draw(variant, variants.variant_rng(seed, "foundations"))
        assert all(cells[k].strip() != k.strip() for k in cells)
        given = variants.given(cells)
        assert np.shape(given["counts"]) == (5,) and min(given["counts"]) > 0
        assert 0 < given["n"] * given["eta"] < 1 and given["n"] >= 3


@pytest.mark.parametrize("seed", [1, 2])
def test_an_honest_notebook_scores_full_on_any_variant(seed, foundations, tmp_path):
    _, autograder, zip_path = foundations
    result = grading.score(nbformat.read(autograder, as_version=4), zip_path, tmp_path,
                           seed=seed, limits=LIMITS)
    assert all(got == possible for got, possible in result.values()), result


def test_typed_answers_in_a_right_notebook_lose_exactly_their_cases(foundations, right_scores,
                                                                    tmp_path):
    """The right notebook with its answers from the data replaced by the published values
    loses one point per variant case (each is worth 1) and nothing else."""
    _, autograder, zip_path = foundations
    nb = nbformat.read(autograder, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(textwrap.dedent(
        FORGERIES["the published answers typed"])))
    typed = grading.score(nb, zip_path, tmp_path, seed=SEED, limits=LIMITS)
    lost = {q: right_scores[q][0] - typed[q][0] for q in right_scores}
    assert lost == {"q1": 0, "q2": 2, "q3": 1, "q4": 2}     # q5 is graded by hand
