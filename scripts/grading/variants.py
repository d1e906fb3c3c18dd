"""Given data drawn at grading time: answers computed from the assignment's data cannot be typed.

Some questions' answer is one value computed from an assignment's given data (``eta_max`` is
the smallest share of ``counts``, ``p_exact`` a formula in the given ``n`` and ``eta``, ...),
and the hidden test that checks it shows the value. ``scripts/grade.py`` therefore grades on a
*variant* of the data: each cell of given data in the master notebook (the keys of
``Variant.cells``, matched by their text in the submission) is replaced, before the
submission's cells run in the sandbox, by a cell of the same kind of data drawn from the
instructor's seed (other counts, sizes, parameters). The grader runs the same cells in its own
process, and each test case that checks such an answer (``Variant.checks``: ``(question,
case)`` of the autograder's test files) is decided here instead, on the variant, with the
test's own tolerance, from the submission's values (plain data from the sandbox) and the
given data run here (which win over any name the submission sets).

An honest notebook computes its answers from the given variables, as every assignment's
introduction asks, and scores the same on any variant; a notebook that types the published
answers, or changes the given data back, fails these cases (``tests/test_grading_forgery.py``).
"""
from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np


@dataclass(frozen=True)
class Variant:
    """``cells``: {master cell's text: draw(rng) -> the replacing cell's text};
    ``checks``: {(question, case): check(env) -> bool}, ``env`` holding the submission's
    values and, over them, the variant's given data."""

    cells: dict[str, Callable[[np.random.Generator], str]]
    checks: dict[tuple[str, int], Callable[[dict], bool]]


def variant_rng(seed: int, assignment: str) -> np.random.Generator:
    """The generator of one assignment's given data: the instructor's seed and its name."""
    return np.random.default_rng([seed, zlib.crc32(f"variant/{assignment}".encode())])


def draw(variant: Variant, rng: np.random.Generator) -> dict[str, str]:
    """{master cell's text: the variant's text}, drawn in the order of ``variant.cells``."""
    return {source: make(rng) for source, make in variant.cells.items()}


def given(replacements: dict[str, str]) -> dict:
    """The variant's given data, run here in the grader (the cells are ours, not a student's)."""
    env: dict = {"__name__": "__grading__"}
    for source in replacements.values():
        exec(compile(source, "<variant>", "exec"), env)  # noqa: S102 - the grader's own cells
    return {k: v for k, v in env.items() if not k.startswith("__")}


def _rel(got, ref, rtol: float) -> bool:
    got = np.asarray(got, dtype=float)
    ref = np.asarray(ref, dtype=float)
    return got.shape == ref.shape and bool(np.all(np.abs(got - ref) <= rtol * np.abs(ref)))


def _safe(check: Callable[[dict], bool]) -> Callable[[dict], bool]:
    """A missing, malformed or non-numeric answer fails its case (never raises)."""
    def safe(env: dict) -> bool:
        try:
            return bool(check(env))
        except Exception:  # noqa: BLE001 - a failed or malformed answer does not agree
            return False
    return safe


# -- foundations ---------------------------------------------------------------------------
FOUNDATIONS_SETUP = ("import numpy as np\nimport dpmarkov as dm\n\n"
                     "counts = np.array([28, 31, 21, 9, 9])   # grades A, B, C, D, F of a class of 98")
FOUNDATIONS_Q2 = "eta2 = 0.073"
FOUNDATIONS_Q3 = "R, k = 20_000, 50.0"
FOUNDATIONS_Q4 = "n, eta, R4 = 5, 0.05, 100_000"


def _foundations_setup(rng) -> str:
    counts = rng.integers(4, 41, size=5)
    return ("import numpy as np\nimport dpmarkov as dm\n\n"
            f"counts = np.array({counts.tolist()})   # grades A, B, C, D, F of a class of "
            f"{int(counts.sum())}")


def _foundations_q4(rng) -> str:
    n = int(rng.integers(3, 7))
    eta = round(float(rng.uniform(0.2, 0.8)) / (2 * n), 4)     # 1 - n eta in (0.6, 0.9)
    return f"n, eta, R4 = {n}, {eta}, 100_000"


def _var_hat(env) -> bool:
    # the test's own rule: 5 standard errors of a sample variance, var * sqrt(2 / R)
    c = np.asarray(env["counts"], dtype=float)
    c = c / c.sum()
    v = c * (1 - c) / (env["k"] + 1)
    got = np.asarray(env["var_hat"], dtype=float)
    return got.shape == v.shape and bool(np.all(np.abs(got - v) < 5 * v * np.sqrt(2 / env["R"])))


def _p_mc(env) -> bool:
    # binomial standard error of a proportion from R4 draws; 5 standard errors, as the test
    p = (1 - env["n"] * env["eta"]) ** (env["n"] - 1)
    return np.ndim(env["p_mc"]) == 0 and \
        abs(float(env["p_mc"]) - p) < 5 * np.sqrt(p * (1 - p) / env["R4"])


FOUNDATIONS = Variant(
    cells={
        FOUNDATIONS_SETUP: _foundations_setup,
        FOUNDATIONS_Q2: lambda rng: f"eta2 = {round(float(rng.uniform(0.02, 0.15)), 3)}",
        FOUNDATIONS_Q3: lambda rng: f"R, k = 20_000, {round(float(rng.uniform(20, 120)), 1)}",
        FOUNDATIONS_Q4: _foundations_q4,
    },
    checks={
        ("q2", 2): lambda env: np.ndim(env["eta_max"]) == 0 and abs(
            float(env["eta_max"]) - float(Fraction(int(min(env["counts"])),
                                                   int(sum(env["counts"]))))) <= 1e-15,
        ("q2", 3): lambda env: np.ndim(env["k_floor"]) == 0 and _rel(
            env["k_floor"], 1.5 / env["eta2"], 1e-12),
        ("q3", 3): _var_hat,
        ("q4", 1): lambda env: np.ndim(env["p_exact"]) == 0 and _rel(
            env["p_exact"], (1 - env["n"] * env["eta"]) ** (env["n"] - 1), 1e-12),
        ("q4", 2): _p_mc,
    },
)


VARIANTS: dict[str, Variant] = {
    "foundations": FOUNDATIONS,
}
VARIANTS = {name: Variant(v.cells, {case: _safe(check) for case, check in v.checks.items()})
            for name, v in VARIANTS.items()}
