"""Hidden inputs drawn at grading time, and the functions a question forbids to call dpmarkov.

The autograders' hidden tests (``assignments/*``) call a student's function on fixed inputs
that anyone can read in the public repository. ``scripts/grade.py`` therefore attaches to each
such test case a *gate*: the same function, called in the sandbox on inputs drawn from the
instructor's seed (``--seed`` or ``DPMARKOV_GRADING_SEED``; fresh entropy if neither), must
agree with a value computed here, in the grader, independently of ``dpmarkov`` (exact
fractions, mpmath, plain Python). A case scores only if its own test and its gate pass, so an
answer tailored to the published inputs earns nothing.

Each gate draws inputs of the same kind as the case it guards (small k, large k, a pair that is
its own mirror image, ...): an honest function passes both, and a typical mistake that costs a
case in the test costs the same case here and no other (``tests/test_grading_hidden.py``).

``FORBIDDEN`` names, per assignment, the functions whose question forbids the package (their
hidden tests say "calls dpmarkov"): the grader calls them only in a sandbox without dpmarkov.
"""
from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

FORBIDDEN = {
    "foundations": {"shares"},
    "privacy": {"eps6"},
    "accuracy": {"kl_closed", "cor1"},
    "markov_chains": {"count_transitions", "stationary"},
    "comparisons": set(),
    "many_releases": {"renyi_dir"},
}


@dataclass(frozen=True)
class Gate:
    """Fresh inputs for ``function`` and the independent value it must return on each.

    ``draw(rng)`` gives a list of argument tuples; ``reference(*args)`` the right value;
    ``agrees(got, ref)`` decides (``got`` is plain data from the sandbox, any type).
    """

    function: str
    draw: Callable[[np.random.Generator], list[tuple]]
    reference: Callable
    agrees: Callable


def _close(rtol: float, atol: float = 0.0):
    def agrees(got, ref) -> bool:
        got = np.asarray(got, dtype=float)
        ref = np.asarray(ref, dtype=float)
        return got.shape == ref.shape and bool(np.all(np.abs(got - ref) <= atol + rtol * np.abs(ref)))
    return agrees


def _same_bool(got, ref) -> bool:
    return type(got) is bool and got is ref


def _equal_counts(got, ref) -> bool:
    got = np.asarray(got)
    return got.shape == ref.shape and got.dtype.kind in "iuf" and bool(np.all(got == ref))


def _scalar(agrees):
    """``agrees`` for a function that must return one number (not an array of one)."""
    return lambda got, ref: np.ndim(got) == 0 and agrees(got, ref)


# -- foundations ---------------------------------------------------------------------------
def _shares_ref(counts):
    total = int(sum(int(c) for c in counts))
    return [float(Fraction(int(c), total)) for c in counts]


def _shares_small(rng):
    return [(rng.integers(1, 1000, size=rng.integers(2, 9)),) for _ in range(3)]


def _shares_large(rng):
    out = []
    for _ in range(2):
        c = rng.integers(1, 10**9, size=rng.integers(6, 11))
        c[rng.integers(len(c))] = 0
        out.append((c,))
    return out


def _bordered_draw(rng):
    out = []
    for _ in range(6):
        x = rng.dirichlet(np.ones(rng.integers(2, 6)) * 3)
        eta = float(x.min() + rng.choice([-1, 1]) * rng.uniform(0.005, 0.02))
        if rng.random() < 0.3:
            x = x * 1.1                              # clearly off the simplex
        out.append((x.tolist(), max(eta, 1e-3)))
    return out


def _bordered_ref(x, eta):
    return bool(abs(sum(Fraction(v) for v in x) - 1) <= Fraction(1, 10**12)
                and min(x) >= eta)


def _var_ref(C, k):
    return [float(Fraction(c) * (1 - Fraction(c)) / (Fraction(k) + 1)) for c in C]


def _var_draw(low, high):
    return lambda rng: [(rng.dirichlet(np.ones(rng.integers(2, 6))), float(rng.uniform(low, high)))
                        for _ in range(3)]


# -- privacy -------------------------------------------------------------------------------
def _eps6_ref(k, eta, N, n, gamma):
    with mpmath.workdps(40):
        k, e, g = mpmath.mpf(k), mpmath.mpf(eta), mpmath.mpf(gamma)
        inv = mpmath.mpf(1) / N
        return float(mpmath.log(mpmath.beta(k * e, k * (1 - 2 * e))
                                / mpmath.beta(k * (e + inv), k * (1 - 2 * e - inv)))
                     + k * inv * mpmath.log((1 - (n - 1) * g) / g))


def _eps6_draw(k_range, eta_range, N_range, n_range, gamma_range):
    def draw(rng):
        out = []
        for _ in range(3):
            n = int(rng.integers(*n_range))
            gamma = float(rng.uniform(*gamma_range))
            out.append((float(rng.uniform(*k_range)), float(rng.uniform(*eta_range)),
                        int(rng.integers(*N_range)), n, min(gamma, 0.9 / (n - 1))))
        return out
    return draw


# -- accuracy ------------------------------------------------------------------------------
def _kl_ref(C, k):
    with mpmath.workdps(40):
        C = [mpmath.mpf(float(c)) for c in C]
        k = mpmath.mpf(k)
        return float(sum(c * (mpmath.log(c) + mpmath.psi(0, k) - mpmath.psi(0, k * c)) for c in C))


def _kl_draw(kind):
    def draw(rng):
        out = []
        for _ in range(3):
            if kind == "class":
                counts, k = rng.integers(5, 41, size=5), rng.uniform(10, 60)
            elif kind == "small":
                counts, k = rng.integers(1, 5, size=3), rng.uniform(1.5, 6)
            else:
                p = rng.uniform(0.005, 0.05)
                counts, k = np.array([p, 1 - p]), rng.uniform(200, 1000)
            out.append((counts / counts.sum(), float(k)))
        return out
    return draw


def _cor1_ref(k, N, n):
    with mpmath.workdps(40):
        k = mpmath.mpf(k)
        def z(x):
            return mpmath.log(mpmath.mpf(x + 1) / N) - mpmath.psi(0, (x + 1) * k / N)
        return float(mpmath.mpf(n - 1) / N * z(0) + mpmath.mpf(N - n + 1) / N * z(N - n)
                     + mpmath.psi(0, k))


def _cor1_draw(k_range, N_range, n_range):
    return lambda rng: [(float(rng.uniform(*k_range)), int(rng.integers(*N_range)),
                         int(rng.integers(*n_range))) for _ in range(3)]


# -- Markov chains -------------------------------------------------------------------------
def _count_ref(seq, m):
    pairs = Counter(zip(list(seq)[:-1], list(seq)[1:]))
    return np.array([[pairs[(i, j)] for j in range(m)] for i in range(m)])


def _count_draw(rng):
    out = []
    for _ in range(3):
        m = int(rng.integers(2, 6))
        out.append((rng.integers(0, m, size=rng.integers(10, 300)), m))
    return out


def _stationary_ref(P):
    with mpmath.workdps(40):
        m = len(P)
        A = mpmath.matrix(m, m)
        for i in range(m):
            for j in range(m):
                A[i, j] = (mpmath.mpf(float(P[j][i])) - (1 if i == j else 0)) if i < m - 1 else 1
        b = mpmath.matrix([0] * (m - 1) + [1])
        return [float(x) for x in mpmath.lu_solve(A, b)]


def _stationary_draw(rng):
    return [(rng.dirichlet(np.ones(m) * 2, size=m),) for m in rng.integers(2, 6, size=3)]


# -- comparisons ---------------------------------------------------------------------------
def _tv_draw(rng):
    return [(float(rng.uniform(1e-3, 1)), int(rng.integers(2, 11))) for _ in range(3)]


# -- many releases -------------------------------------------------------------------------
def _renyi_ref(alpha, a, a2):
    with mpmath.workdps(50):
        al = mpmath.mpf(alpha)
        a = [mpmath.mpf(float(x)) for x in a]
        a2 = [mpmath.mpf(float(x)) for x in a2]
        def lB(v):
            return sum(mpmath.loggamma(x) for x in v) - mpmath.loggamma(sum(v))
        mix = [al * x + (1 - al) * y for x, y in zip(a, a2)]
        return float((lB(mix) - al * lB(a) - (1 - al) * lB(a2)) / (al - 1))


def _renyi_draw(kind):
    def draw(rng):
        out = []
        while len(out) < 3:
            if kind == "two":
                alpha = rng.uniform(1.5, 3)
                a = rng.uniform(1.5, 5, size=2)
                a2 = a * rng.uniform(0.8, 1.2, size=2)
            elif kind == "mirror":
                alpha = rng.uniform(1.2, 20)
                x = rng.uniform(1, 5)
                a = np.array([x, x * (1 + rng.uniform(-0.04, 0.04)), rng.uniform(1, 5)])
                a2 = a[[1, 0, 2]]
            else:
                alpha = rng.uniform(2, 4)
                a = rng.uniform(20, 300, size=4).round()
                a2 = a + rng.integers(-10, 11, size=4)
            if np.all(alpha * a + (1 - alpha) * a2 > 0.2) and not np.array_equal(a, a2):
                out.append((float(alpha), a.tolist(), a2.tolist()))
        return out
    return draw


GATES: dict[str, dict[tuple[str, int], Gate]] = {
    "foundations": {
        ("q1", 1): Gate("shares", _shares_small, _shares_ref, _close(1e-15)),
        ("q1", 2): Gate("shares", _shares_large, _shares_ref, _close(1e-15)),
        ("q2", 1): Gate("in_bordered", _bordered_draw, _bordered_ref, _same_bool),
        ("q3", 1): Gate("dirichlet_var", _var_draw(0.5, 5), _var_ref, _close(1e-12)),
        ("q3", 2): Gate("dirichlet_var", _var_draw(20, 20000), _var_ref, _close(1e-12)),
    },
    "privacy": {
        ("q1", 1): Gate("eps6", _eps6_draw((20, 300), (0.02, 0.15), (20, 500), (2, 9),
                                           (1e-4, 0.05)), _eps6_ref, _scalar(_close(1e-9))),
        ("q1", 2): Gate("eps6", _eps6_draw((20, 300), (0.02, 0.15), (20, 500), (2, 9),
                                           (1e-4, 0.05)), _eps6_ref, _scalar(_close(1e-9))),
        ("q1", 3): Gate("eps6", _eps6_draw((2e4, 5e4), (0.03, 0.08), (1500, 3001), (3, 11),
                                           (0.01, 0.1)), _eps6_ref, _scalar(_close(1e-9))),
    },
    "accuracy": {
        ("q1", 1): Gate("kl_closed", _kl_draw("class"), _kl_ref, _scalar(_close(1e-10))),
        ("q1", 2): Gate("kl_closed", _kl_draw("small"), _kl_ref, _scalar(_close(1e-10))),
        ("q1", 3): Gate("kl_closed", _kl_draw("lopsided"), _kl_ref, _scalar(_close(1e-10))),
        ("q3", 1): Gate("cor1", _cor1_draw((5, 100), (30, 201), (2, 9)), _cor1_ref,
                        _scalar(_close(1e-10))),
        ("q3", 2): Gate("cor1", _cor1_draw((1000, 5000), (500, 2001), (5, 16)), _cor1_ref,
                        _scalar(_close(1e-10))),
    },
    "markov_chains": {
        ("q1", 1): Gate("count_transitions", _count_draw, _count_ref, _equal_counts),
        ("q3", 1): Gate("stationary", _stationary_draw, _stationary_ref, _close(0, 1e-12)),
    },
    "comparisons": {
        ("q2", 1): Gate("tv_raw", _tv_draw, lambda b, n: n * b / 2, _scalar(_close(1e-12))),
        ("q2", 2): Gate("tv_raw", _tv_draw, lambda b, n: n * b / 2, _scalar(_close(1e-12))),
    },
    "many_releases": {
        ("q1", 1): Gate("renyi_dir", _renyi_draw("two"), _renyi_ref, _scalar(_close(1e-8))),
        ("q1", 2): Gate("renyi_dir", _renyi_draw("mirror"), _renyi_ref, _scalar(_close(1e-8))),
        ("q1", 3): Gate("renyi_dir", _renyi_draw("large"), _renyi_ref, _scalar(_close(1e-6))),
    },
}


def gate_rng(seed: int, assignment: str, question: str, case: int) -> np.random.Generator:
    """The generator of one gate's inputs: the instructor's seed and the case's name."""
    return np.random.default_rng([seed, zlib.crc32(f"{assignment}/{question}/{case}".encode())])


def passes(gate: Gate, call, rng: np.random.Generator) -> bool:
    """True if ``call(gate.function, *args)`` agrees with the reference on every drawn input.

    ``call`` runs the function in the sandbox and returns plain data; any failure (an error,
    a wrong type, a refused answer) is a disagreement.
    """
    for args in gate.draw(rng):
        try:
            got = call(gate.function, *args)
            if not gate.agrees(got, gate.reference(*args)):
                return False
        except Exception:  # noqa: BLE001 - a failed or malformed answer does not agree
            return False
    return True
