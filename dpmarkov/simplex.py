"""Count vectors and the (bordered) unit simplex.

Paper: Definition 1 (unit simplex), Definition 2 (bordered simplex), eq. (3)
(the count vector C(D, rho)).  Book: chapter "Preliminaries".
"""
from __future__ import annotations

import numpy as np

from . import _checks


@_checks.public
def count_vector(counts) -> np.ndarray:
    """The count vector C(D, rho) of eq. (3): category counts divided by N.

    ``counts`` holds the number of records in each category (last axis); a
    stack ``(..., n)`` gives one count vector per row.  The result sums to 1
    along the last axis.  Counts must be finite, non-negative whole numbers and
    each vector must hold at least one record.

    >>> count_vector([2, 1, 1])
    array([0.5 , 0.25, 0.25])
    """
    arr = _checks.counts_array("counts", counts)
    return _checks.proportions(arr)


def _atol(atol) -> float:
    value = _checks.scalar("atol", atol)
    if not 0 <= value < 1:
        raise ValueError(f"atol={value!r} must satisfy 0 <= atol < 1")
    return value


@_checks.public
def in_simplex(x, *, atol: float = 1e-12) -> np.ndarray:
    """Whether each vector along the last axis lies in Delta_n (Definition 1)."""
    arr = _checks.array("x", x)
    atol = _atol(atol)
    with np.errstate(over="ignore"):     # a sum that overflows is simply not 1
        sums = arr.sum(axis=-1)
    return np.all(arr >= -atol, axis=-1) & (np.abs(sums - 1) <= atol * arr.shape[-1])


@_checks.public
def in_bordered_simplex(x, eta: float, *, atol: float = 1e-12) -> np.ndarray:
    """Whether each vector lies in Delta_n^(eta) (Definition 2): in Delta_n, every entry >= eta."""
    arr = _checks.array("x", x)
    eta = _checks.scalar("eta", eta)
    if not 0 <= eta <= 1:
        raise ValueError(f"eta={eta!r} must lie in [0, 1] (a border of the simplex)")
    return in_simplex(arr, atol=atol) & np.all(arr >= eta - atol, axis=-1)


@_checks.public
def check_assumption_3(counts, eta: float) -> np.ndarray:
    """Return the counts if every category holds at least eta*N records (Assumption 3).

    Raises ``ValueError`` naming the first category below the border.
    """
    arr = _checks.counts_array("counts", counts)
    eta_arr = _checks.eta_ok(eta)
    if eta_arr.ndim:
        raise ValueError(f"eta has shape {eta_arr.shape}: one border eta is meant")
    with np.errstate(over="ignore"):
        totals = arr.sum(axis=-1, keepdims=True)
    if np.all(np.isfinite(totals)):
        bad = arr < eta_arr * totals * (1 - 1e-12)
    else:                                   # N overflows: compare proportions instead
        bad = _checks.proportions(arr) < eta_arr * (1 - 1e-12)
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"counts{list(idx)}={arr[idx]:.0f} is below eta*N={float(eta_arr * totals[idx[:-1]][0]):.6g} "
            f"(eta={float(eta_arr)!r}, N={float(totals[idx[:-1]][0]):.0f}; Assumption 3)")
    return arr
