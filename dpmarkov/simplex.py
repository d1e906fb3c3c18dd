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
    each vector must hold at least one record.  Book: "Preliminaries".

    Parameters
    ----------
    counts : array_like
        Records per category along the last axis (at least 2 categories): finite whole
        numbers >= 0, each vector with at least one record.

    Returns
    -------
    numpy.ndarray
        The proportions, of ``counts``' shape, summing to 1 along the last axis.

    Raises
    ------
    ValueError
        If ``counts`` is a single number, has fewer than 2 categories, holds a negative,
        fractional or non-finite entry, is empty, or a vector sums to 0.
    TypeError
        If ``counts`` is a bool, text or not numbers.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.count_vector([2, 1, 1])
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
    """Whether each vector along the last axis lies in Delta_n (Definition 1).

    Entries >= -atol and a sum within atol*n of 1.  Book: "Preliminaries".

    Parameters
    ----------
    x : array_like
        A vector or a stack ``(..., n)`` of vectors, finite numbers.
    atol : float, optional
        The tolerance, 0 <= atol < 1 (default 1e-12).

    Returns
    -------
    numpy.bool_ or numpy.ndarray of bool
        One answer per vector (shape ``x.shape[:-1]``).

    Raises
    ------
    ValueError
        If ``x`` is a single number, empty, not rectangular or not finite, or atol is
        outside [0, 1).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.in_simplex([[0.5, 0.5], [0.6, 0.6]]).tolist()
    [True, False]
    """
    arr = _checks.array("x", x)
    atol = _atol(atol)
    # [book:in_simplex]
    with np.errstate(over="ignore"):     # a sum that overflows is simply not 1
        sums = arr.sum(axis=-1)
    near_one = np.abs(sums - 1) <= atol * arr.shape[-1]
    return np.all(arr >= -atol, axis=-1) & near_one


@_checks.public
def in_bordered_simplex(x, eta: float, *, atol: float = 1e-12) -> np.ndarray:
    """Whether each vector lies in Delta_n^(eta) (Definition 2): in Delta_n, every entry >= eta.

    Book: "Preliminaries" (the bordered simplex Assumption 3 puts count vectors in).

    Parameters
    ----------
    x : array_like
        A vector or a stack ``(..., n)`` of vectors, finite numbers.
    eta : float
        The border, 0 <= eta <= 1 (one number).
    atol : float, optional
        The tolerance, 0 <= atol < 1 (default 1e-12), for the sum and the border.

    Returns
    -------
    numpy.bool_ or numpy.ndarray of bool
        One answer per vector (shape ``x.shape[:-1]``).

    Raises
    ------
    ValueError
        If ``x`` is not a finite non-empty array of vectors, eta is not one number in
        [0, 1], or atol is outside [0, 1).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.in_bordered_simplex([[0.3, 0.7], [0.2, 0.8]], 0.25).tolist()
    [True, False]
    """
    arr = _checks.array("x", x)
    eta = _checks.scalar("eta", eta)
    if not 0 <= eta <= 1:
        raise ValueError(f"eta={eta!r} must lie in [0, 1] (a border of the simplex)")
    return in_simplex(arr, atol=atol) & np.all(arr >= eta - atol, axis=-1)


@_checks.public
def check_assumption_3(counts, eta: float) -> np.ndarray:
    """Return the counts if every category holds at least eta*N records (Assumption 3).

    Raises ``ValueError`` naming the first category below the border (rounding policy
    of ``min_count``: a relative slack of 1e-12).  Book: "Preliminaries".

    Parameters
    ----------
    counts : array_like
        Records per category along the last axis (at least 2 categories): finite whole
        numbers >= 0, each vector with at least one record; a stack is checked row by row.
    eta : float
        The border, 0 < eta < 1/4 (one number).

    Returns
    -------
    numpy.ndarray
        The counts, as floats, unchanged.

    Raises
    ------
    ValueError
        If ``counts`` is not a count array, eta is not one number in (0, 1/4), or some
        count is below eta*N (the message names it, eta and N).
    TypeError
        If an argument is a bool, text or not a number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.check_assumption_3([8, 10, 12], 0.2).tolist()
    [8.0, 10.0, 12.0]
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
