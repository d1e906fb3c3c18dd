"""Input checks shared by every public function.

Each check raises ``ValueError`` (or ``TypeError``) with a message that names the
parameter, the offending value and the rule it breaks, e.g.
``k=10.0 is below 3/(2*eta)=20.55 (Assumption 4)``.  Nothing is clipped and no
NaN is returned: a guarantee computed from a bad input would be a wrong number.
"""
from __future__ import annotations

import numpy as np


def _first_bad(values: np.ndarray, bad: np.ndarray):
    """The first offending entry of ``values`` where the mask ``bad`` is true."""
    return np.broadcast_to(values, bad.shape)[bad].flat[0].item()


def as_float_array(name: str, value) -> np.ndarray:
    """``value`` as a float array; rejects NaN and infinities."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name}={value!r} is not numeric") from err
    if arr.size and not np.all(np.isfinite(arr)):
        bad = _first_bad(arr, ~np.isfinite(arr))
        raise ValueError(f"{name} contains {bad!r}: every entry must be finite")
    return arr


def positive(name: str, value) -> np.ndarray:
    """Finite and strictly positive, elementwise."""
    arr = as_float_array(name, value)
    bad = arr <= 0
    if np.any(bad):
        raise ValueError(f"{name}={_first_bad(arr, bad)!r} must be > 0")
    return arr


def integer_at_least(name: str, value, lowest: int) -> np.ndarray:
    """Whole numbers (int or integral float) that are >= ``lowest``."""
    arr = as_float_array(name, value)
    bad = arr != np.round(arr)
    if np.any(bad):
        raise ValueError(f"{name}={_first_bad(arr, bad)!r} must be a whole number")
    bad = arr < lowest
    if np.any(bad):
        raise ValueError(f"{name}={_first_bad(arr, bad)!r} must be >= {lowest}")
    return arr


def counts_array(name: str, counts, *, min_categories: int = 2) -> np.ndarray:
    """Category counts along the last axis: finite, non-negative whole numbers.

    Every vector along the last axis must hold at least one record (an empty
    database has no count vector, eq. (3)).
    """
    arr = as_float_array(name, counts)
    if arr.ndim == 0:
        raise ValueError(f"{name}={counts!r} must be an array of counts, one per category")
    if arr.shape[-1] < min_categories:
        raise ValueError(
            f"{name} has {arr.shape[-1]} categories: at least {min_categories} are needed")
    bad = arr < 0
    if np.any(bad):
        raise ValueError(f"{name} contains {_first_bad(arr, bad)!r}: counts must be >= 0")
    bad = arr != np.round(arr)
    if np.any(bad):
        raise ValueError(
            f"{name} contains {_first_bad(arr, bad)!r}: counts must be whole numbers")
    totals = arr.sum(axis=-1)
    if np.any(totals == 0):
        where = np.argwhere(np.atleast_1d(totals == 0))[0]
        at = "" if arr.ndim == 1 else f" at index {tuple(int(i) for i in where)}"
        raise ValueError(f"{name}{at} sums to 0: an empty database has no count vector (eq. 3)")
    return arr


def eta_ok(eta) -> np.ndarray:
    """Assumption 3: 0 < eta < 1/4."""
    arr = as_float_array("eta", eta)
    bad = (arr <= 0) | (arr >= 0.25)
    if np.any(bad):
        raise ValueError(f"eta={_first_bad(arr, bad)!r} must satisfy 0 < eta < 1/4 (Assumption 3)")
    return arr


def k_meets_assumption_4(k: np.ndarray, eta: np.ndarray) -> None:
    """Assumption 4: k >= 3/(2*eta) (a relative slack of 1e-12 absorbs rounding)."""
    k_min = 1.5 / eta
    bad = np.broadcast_to(k, np.broadcast(k, k_min).shape) < k_min * (1 - REL_SLACK)
    if np.any(bad):
        kb = _first_bad(np.asarray(k), bad)
        mb = _first_bad(np.asarray(k_min), bad)
        raise ValueError(f"k={kb!r} is below 3/(2*eta)={mb:.6g} (Assumption 4)")


def gamma_ok(gamma, n: np.ndarray) -> np.ndarray:
    """Assumption 2 (gamma <= 1/(n-1)) and the stricter gamma < 1/n.

    The paper allows gamma up to 1/(n-1), but for gamma >= 1/n the set
    Omega_1 = {x : x_i >= gamma} is empty or a single point, so delta = 1 and
    there is no guarantee: such gamma are rejected too (book, Preliminaries).
    """
    g = positive("gamma", gamma)
    upper = 1.0 / (n - 1)
    bad = g > upper
    if np.any(bad):
        raise ValueError(
            f"gamma={_first_bad(g, bad)!r} exceeds 1/(n-1)={_first_bad(upper, bad):.6g} "
            "(Assumption 2)")
    bad = g >= 1.0 / n
    if np.any(bad):
        raise ValueError(
            f"gamma={_first_bad(g, bad)!r} is >= 1/n={_first_bad(1.0 / n, bad):.6g}: "
            "then Omega_1 = {x : every x_i >= gamma} has probability 0 and delta = 1 "
            "(Assumption 2 as printed allows it; the book requires gamma < 1/n)")
    return g


#: Rounding policy for the borders of Assumptions 3 and 4.  eta*N and 3/(2*eta) are float
#: results (eta = 0.07 is stored as 0.07000000000000000666..., so 0.07*100 = 7.000000000000001);
#: a count c meets Assumption 3 when c >= eta*N*(1 - REL_SLACK) and k meets Assumption 4 when
#: k >= 3/(2*eta)*(1 - REL_SLACK).  The slack is below one record for every N < 1e12 and
#: far below any k a user would type, and every guarantee is computed for the minimum
#: count ``min_count`` this policy gives, so the slack never makes a bound unsound.
REL_SLACK = 1e-12


def min_count(eta, N) -> np.ndarray:
    """The fewest records a category may hold under Assumption 3: ceil(eta*N) (policy above).

    The smallest integer m with m >= eta*N*(1 - REL_SLACK): for eta*N = 7.5 it is 8, for
    eta*N = 7 (also when the float product is 7.000000000000001) it is 7.  The one rule
    every function of the package uses (book: "delta", "The exact worst case").
    """
    return np.ceil(np.asarray(eta, float) * np.asarray(N, float) * (1 - REL_SLACK))


def design_ok(eta: np.ndarray, N: np.ndarray, n: np.ndarray) -> None:
    """Some count vector of N records in n categories has every count >= eta*N."""
    smallest = min_count(eta, N)
    bad = n * smallest > N
    if np.any(bad):
        raise ValueError(
            f"no count vector of N={_first_bad(N, bad):.0f} records in n={_first_bad(n, bad):.0f} "
            f"categories has every count >= eta*N with eta={_first_bad(eta, bad)!r} "
            "(Assumption 3 cannot hold)")
