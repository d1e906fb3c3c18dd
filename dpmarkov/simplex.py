"""Count vectors and the (bordered) unit simplex.

Paper: Definition 1 (unit simplex), Definition 2 (bordered simplex), eq. (3)
(the count vector C(D, rho)).  Book: chapter "Preliminaries".
"""
from __future__ import annotations

import numpy as np

from . import _checks


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
    return arr / arr.sum(axis=-1, keepdims=True)


def in_simplex(x, *, atol: float = 1e-12) -> np.ndarray:
    """Whether each vector along the last axis lies in Delta_n (Definition 1)."""
    arr = _checks.as_float_array("x", x)
    return np.all(arr >= -atol, axis=-1) & (np.abs(arr.sum(axis=-1) - 1) <= atol * arr.shape[-1])


def in_bordered_simplex(x, eta: float, *, atol: float = 1e-12) -> np.ndarray:
    """Whether each vector lies in Delta_n^(eta) (Definition 2): in Delta_n, every entry >= eta."""
    arr = _checks.as_float_array("x", x)
    eta = float(_checks.as_float_array("eta", eta))
    return in_simplex(arr, atol=atol) & np.all(arr >= eta - atol, axis=-1)


def check_assumption_3(counts, eta: float) -> np.ndarray:
    """Return the counts if every category holds at least eta*N records (Assumption 3).

    Raises ``ValueError`` naming the first category below the border.
    """
    arr = _checks.counts_array("counts", counts)
    eta_arr = _checks.eta_ok(eta)
    totals = arr.sum(axis=-1, keepdims=True)
    bad = arr < eta_arr * totals * (1 - 1e-12)
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"counts{list(idx)}={arr[idx]:.0f} is below eta*N={float(eta_arr * totals[idx[:-1]][0]):.6g} "
            f"(eta={float(eta_arr)!r}, N={float(totals[idx[:-1]][0]):.0f}; Assumption 3)")
    return arr
