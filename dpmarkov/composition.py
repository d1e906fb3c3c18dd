"""Parallel composition: Lemma 1, Theorem 3, and exact tools for small discrete mechanisms.

Paper: Lemma 1 (parallel composition of (eps_i, delta_i)-probabilistic DP
mechanisms), Theorem 3 (the privacy of Algorithm 2), supplement C.4-C.5.
Book: chapter "Private transition matrices".

A *discrete mechanism* here is a matrix ``M`` with one row per possible input
(database) and one column per possible output: ``M[a, y] = P(M(a) = y)``.  An
*adjacency* is an integer array of pairs ``(a, b)`` of inputs that are adjacent.
For such mechanisms every privacy quantity is a finite sum, so the book can
check Lemma 1 exactly instead of by sampling.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _checks
from .chain import check_counts, check_support, check_support_border
from .privacy import BOUND_CORRECTED, BOUND_EQ6
from .privacy import epsilon_and_delta
from .privacy import delta as _delta
from .privacy import epsilon as _epsilon

#: Probability rows must sum to 1 within this absolute tolerance.
SUM_ATOL = 1e-9


# --------------------------------------------------------------------------- Theorem 3
class ChainPrivacy(NamedTuple):
    """Privacy of Algorithm 2: the chain's (epsilon, delta), the per-row values and bounds.

    ``bound_rows[i]`` names the bound row i's epsilon comes from: ``"eq. (6)"`` (n_i >= 3),
    ``"corrected eq. (6)"`` (n_i = 2, where eq. (6) can understate the loss) or
    ``"none (one transition)"`` (a row released exactly, eps_i = delta_i = 0).
    """

    epsilon: float
    delta: float
    epsilon_rows: np.ndarray
    delta_rows: np.ndarray
    n_rows: np.ndarray
    bound_rows: np.ndarray


#: ``ChainPrivacy.bound_rows`` of a row with a single feasible transition.
BOUND_NONE = "none (one transition)"
_BOUNDS = np.array([BOUND_NONE, BOUND_CORRECTED, BOUND_EQ6], dtype=object)


@_checks.public
def chain_privacy(counts, k, eta, gamma, *, support) -> ChainPrivacy:
    """Theorem 3: Algorithm 2 is (max_i eps_i, max_i delta_i)-DP; returns both levels.

    Row i is the Dirichlet mechanism with k_i on the n_i transitions of the public
    ``support`` (a boolean (n, n) array fixed before the data are seen, Assumption 6;
    ``check_support`` rejects counts outside it and zeros inside it), so
    eps_i = ``epsilon(k_i, eta_i, N_i, n_i, gamma_i)``, the sound bound (eq. (6) for
    n_i >= 3, the corrected eq. (6) for n_i = 2; ``bound_rows`` says which), and
    delta_i = ``delta(k_i, eta_i, N_i, n_i, gamma_i)`` (eq. (7), Boole's bound).  A row
    with a single feasible transition is released exactly and costs nothing
    (eps_i = delta_i = 0).  ``k``, ``eta``, ``gamma``: one value or one per row.
    Assumption 3 (supported counts >= eta_i N_i, rounding policy of ``min_count``),
    Assumption 4 (k_i >= 3/(2 eta_i)) and gamma_i < 1/n_i are checked per row.  All
    rows are evaluated in one broadcast call.

    The adjacency is the paper's Definition 3: one record changes its category
    *within* its row, every N_i is fixed and public.  If a record can move to
    another row, two rows change and the guarantee degrades (book: about
    eps_i + eps_l); see the chapter "Private transition matrices".

    Parameters
    ----------
    counts : array_like, shape (n, n)
        Transition counts: whole numbers >= 0, every row with data, positive exactly
        on the support.
    k : float or array_like, shape (n,)
        The Dirichlet parameter, > 0, one for all rows or one per row; k_i >= 3/(2 eta_i)
        (Assumption 4).
    eta : float or array_like, shape (n,)
        The border of Assumption 3, 0 < eta_i < 1/4, one for all rows or one per row;
        every supported count of row i must be >= eta_i N_i.
    gamma : float or array_like, shape (n,)
        The gamma of Theorem 1, one for all rows or one per row, with gamma_i < 1/n_i.
    support : array_like of bool, shape (n, n), keyword only
        The public support of Algorithm 2, fixed before the data are seen.

    Returns
    -------
    ChainPrivacy
        A named tuple: ``epsilon`` and ``delta`` of the chain (the largest per-row
        values), ``epsilon_rows``, ``delta_rows``, ``n_rows`` (n_i) and ``bound_rows``
        (which bound each row's epsilon comes from).

    Raises
    ------
    ValueError
        If ``counts`` fails ``check_counts`` or ``check_support`` (counts outside the
        support, a zero inside it); if ``k``, ``eta`` or ``gamma`` has the wrong shape;
        if a row breaks Assumption 3 (a supported count below eta_i N_i), Assumption 4
        (k_i < 3/(2 eta_i)), 0 < eta_i < 1/4 or gamma_i < 1/n_i (the message names the
        row); if a row total N_i is 2**53 or more (not exact in double precision); or if
        a row's epsilon or delta has no finite value in double precision.
    TypeError
        If ``support`` is not a boolean array, or an entry of ``counts``, ``k``,
        ``eta`` or ``gamma`` is not a real number.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> import numpy as np
    >>> counts = np.array([[300, 100, 200], [50, 550, 100], [200, 200, 200]])
    >>> result = dm.chain_privacy(counts, 100.0, 0.07, 0.1, support=counts > 0)
    >>> round(result.epsilon, 4), list(result.bound_rows)
    (0.7736, ['eq. (6)', 'eq. (6)', 'eq. (6)'])
    """
    checked = _lean_inputs(counts, support, k, eta, gamma)
    if checked is None:                         # something to name, or an unusual input
        mask = check_support(counts, support)
        arr = check_counts(counts)
        N = _checks.exact_row_totals("counts", arr)      # the lean checks' N_i < 2**53 too
        k_rows, eta_rows, gamma_rows = (_per_row(name, v, arr.shape[0]) for name, v in
                                        (("k", k), ("eta", eta), ("gamma", gamma)))
        n_rows = _row_sizes(mask)
        check_support_border(arr, eta_rows)
    else:
        N, n_rows, k_rows, eta_rows, gamma_rows = checked
    n = N.shape[0]
    every = n_rows.min() >= 2                   # usually every row: no copies
    rows = slice(None) if every else np.flatnonzero(n_rows >= 2)
    args = (k_rows[rows], eta_rows[rows], N[rows], n_rows[rows], gamma_rows[rows])
    try:
        if every:
            eps, dlt = epsilon_and_delta(*args)
        else:
            eps, dlt = np.zeros(n), np.zeros(n)
            eps[rows], dlt[rows] = epsilon_and_delta(*args)
    except ValueError:
        for i in np.arange(n)[rows]:            # name the first row that fails
            try:
                _epsilon(k_rows[i], eta_rows[i], N[i], n_rows[i], gamma_rows[i])
                _delta(k_rows[i], eta_rows[i], N[i], n_rows[i], gamma_rows[i])
            except ValueError as err:
                raise ValueError(f"row {i} (N_i={N[i]:.0f}, n_i={n_rows[i]}): {err}") from err
        raise
    bounds = _BOUNDS[np.minimum(n_rows, 3) - 1]            # n_i = 1, 2, >= 3
    return ChainPrivacy(float(eps.max()), float(dlt.max()), eps, dlt, n_rows, bounds)


def _lean_inputs(counts, support, k, eta, gamma):
    """All input checks of chain_privacy in a few passes, for the usual input; else None.

    Taken: a float or integer (n, n) array, a boolean support of its shape, and k, eta,
    gamma each a finite float or int or a finite float64 vector of length n.  Returns
    (N_i, n_i, k_i, eta_i, gamma_i), the values the full checks (``check_support``,
    ``check_counts``, ``_per_row``, ``check_support_border``) give, when all of them pass:
    every row has a transition; the row totals N_i are positive and below 2^53 (then,
    every entry being a whole number >= 0, they are exact in any order of summation, so
    equal to the row sums); eta_i N_i (1 - 1e-12) > 0; no supported entry below its row's
    border (so each is positive) and no nonzero entry outside the support; whole numbers.
    A sparse support (at most a quarter of the entries) is checked on its entries, gathered
    once row by row (sums and minima per row), with one count of the nonzero entries of the
    matrix; a dense one entry by entry.  None when anything fails or the input is of
    another kind: chain_privacy then runs the full checks, which raise the message naming
    the parameter, the value and the rule (or accept).
    """
    if not (type(counts) is np.ndarray and type(support) is np.ndarray
            and counts.dtype.kind in "fiu" and counts.dtype.itemsize <= 8
            and support.dtype == bool and counts.ndim == 2 and counts.shape == support.shape
            and counts.shape[0] == counts.shape[1] and 0 < counts.size <= _checks.MAX_ELEMENTS):
        return None
    n = counts.shape[0]
    rows = [_lean_row_values(v, n) for v in (k, eta, gamma)]
    if any(r is None for r in rows):
        return None
    k_rows, eta_rows, gamma_rows = rows
    arr = counts.astype(float, copy=False)
    transitions = np.count_nonzero(support)
    with np.errstate(all="ignore"):            # a failure is refused, then named
        if 4 * transitions <= arr.size:        # sparse: the supported entries, row by row
            where = support.ravel().nonzero()[0]
            edges = where.searchsorted(np.arange(0, arr.size + 1, n))    # row i: [e_i, e_i+1)
            starts, n_rows = edges[:-1], edges[1:] - edges[:-1]
            if n_rows.min() < 1:
                return None
            values = arr.ravel().take(where)
            N = np.add.reduceat(values, starts)
            low = np.minimum.reduceat(values, starts)
        else:
            n_rows = _row_sizes(support)
            if n_rows.min() < 1:
                return None
            values = arr
            N = arr @ np.ones(n)
            low = None
        if not (N.min() > 0 and N.max() < 2.0 ** 53):
            return None
        border = eta_rows * N * (1 - _checks.REL_SLACK)    # as check_support_border
        if not (border > 0).all():
            return None
        if low is None:         # dense: nonzero exactly on the support, none below its border
            fails = (not ((arr != 0) == support).all()
                     or np.count_nonzero(arr < border[:, None]) != arr.size - transitions)
        else:                   # sparse: supported entries >= border > 0, no other nonzero
            fails = not (low >= border).all() or np.count_nonzero(arr != 0) != transitions
        if fails or (counts.dtype.kind == "f" and not (values == np.rint(values)).all()):
            return None
    return N, n_rows, k_rows, eta_rows, gamma_rows


def _lean_row_values(value, n):
    """``_per_row`` for a finite plain number or float64 vector of length n; None otherwise."""
    if type(value) in (float, int, np.float64):
        try:
            value = float(value)
        except OverflowError:
            return None
        return np.full(n, value) if math.isfinite(value) else None
    if (type(value) is np.ndarray and value.dtype == np.float64 and value.shape == (n,)
            and np.isfinite(value).all()):
        return value
    return None


def _row_sizes(mask: np.ndarray) -> np.ndarray:
    """n_i, the number of transitions of each row's support (a square boolean mask)."""
    # summed as bytes into uint16 (a square mask has at most 16384 columns under
    # MAX_ELEMENTS), several times faster than summing the booleans as integers
    return mask.view(np.uint8).sum(axis=1, dtype=np.uint16).astype(np.int64)


def _per_row(name: str, value, n: int) -> np.ndarray:
    arr = _checks.as_float_array(name, value)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != n):
        raise ValueError(f"{name} has shape {arr.shape}: give one value or one per row ({n},)")
    return np.full(n, float(arr)) if arr.ndim == 0 else arr.astype(float)


# --------------------------------------------------------------------------- exact tools
def _distribution(name: str, p) -> np.ndarray:
    arr = _checks.as_float_array(name, p)
    if arr.ndim == 0:
        raise ValueError(f"{name}={p!r} must be a probability vector")
    bad = arr < 0
    if np.any(bad):
        raise ValueError(f"{name} contains {arr[bad][0]!r}: probabilities must be >= 0")
    sums = arr.sum(axis=-1)
    bad = np.abs(sums - 1) > SUM_ATOL
    if np.any(bad):
        raise ValueError(f"{name} sums to {np.ravel(sums[bad])[0]!r}: a distribution sums to 1")
    return arr


@_checks.public
def hockey_stick_discrete(p, q, eps):
    """Hockey-stick divergence H_eps(p || q) = sum_y max(p_y - e^eps q_y, 0) of two discrete laws.

    A mechanism is (eps, delta)-DP (Definition 4) iff H_eps(M(D) || M(D')) <= delta
    for every ordered adjacent pair; this is the smallest such delta for one pair.
    ``p``, ``q``: probability vectors over the same outputs (last axis); ``eps``
    (>= 0) broadcasts: the result has the shape of ``eps``.

    Parameters
    ----------
    p : array_like, shape (..., m)
        A probability vector (entries >= 0, summing to 1 within ``SUM_ATOL``).
    q : array_like, shape (..., m)
        A probability vector over the same m outputs.
    eps : float or array_like
        eps >= 0; broadcasts.

    Returns
    -------
    float or numpy.ndarray
        H_eps(p || q) in [0, 1], of the shape of ``eps`` (a float for one eps and one
        pair of laws).

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector (0-d, a negative entry, not
        summing to 1, NaN or an infinity), they have different numbers of outcomes,
        or some eps < 0.
    TypeError
        If an entry is not a real number (a bool, text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> round(dm.hockey_stick_discrete([0.75, 0.25], [0.25, 0.75], 0.5), 4)
    0.3378
    """
    p = _distribution("p", p)
    q = _distribution("q", q)
    if p.shape[-1] != q.shape[-1]:
        raise ValueError(f"p has {p.shape[-1]} outcomes but q has {q.shape[-1]}")
    e = _eps_array(eps)
    # a divergence of probability laws is at most 1; the sum of rounded terms can exceed it
    # by an ulp (1.0000000000000002), which no probability may
    out = np.minimum(_hockey_terms(p, q, e[..., None]).sum(axis=-1), 1.0)
    return out if np.ndim(out) else float(out)


def _hockey_terms(p, q, eps):
    """max(p - e^eps q, 0) elementwise, also where e^eps overflows (eps > 709.78): there the
    term is p (1 - e^(eps + log q - log p))_+, 0 unless q is subnormal or 0 (then p)."""
    with np.errstate(over="ignore"):
        ee = np.exp(eps)
    if np.all(np.isfinite(ee)):
        return np.maximum(p - ee * q, 0.0)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        direct = np.maximum(p - ee * q, 0.0)
        r = eps + np.log(q) - np.log(p)          # log(e^eps q / p); -inf where q = 0
        far = p * -np.expm1(np.minimum(r, 0.0))
    return np.where(np.isfinite(ee), direct, np.where(p > 0, far, 0.0))


def _eps_array(eps) -> np.ndarray:
    e = _checks.as_float_array("eps", eps)
    if np.any(e < 0):
        raise ValueError(f"eps={float(e[e < 0].flat[0])!r} must be >= 0")
    return e


def _mechanism(M) -> np.ndarray:
    arr = _distribution("M", M)
    if arr.ndim != 2:
        raise ValueError(f"M has shape {arr.shape}: a discrete mechanism is a matrix "
                         "(inputs x outputs)")
    return arr


def _pairs(pairs, n_inputs: int) -> np.ndarray:
    try:
        arr = np.asarray(pairs)
    except (ValueError, TypeError) as err:
        raise ValueError(f"pairs={_checks.show(pairs)} is not a (p, 2) array of adjacent "
                         "input indices") from err
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] == 0:
        raise ValueError(f"pairs has shape {arr.shape}: expected a non-empty (p, 2) array of "
                         "adjacent input indices")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"pairs has dtype {arr.dtype}: input indices are integers")
    bad = (arr < 0) | (arr >= n_inputs)
    if np.any(bad):
        raise ValueError(f"pairs contains input {arr[bad][0]!r}: inputs are 0..{n_inputs - 1}")
    return arr


@_checks.public
def profile_discrete(M, pairs, eps):
    """delta(eps) = max over adjacent pairs, both orders, of H_eps(M(a) || M(b)).

    The exact smallest delta for which the discrete mechanism ``M`` is
    (eps, delta)-DP (Definition 4) under the adjacency ``pairs``.  ``eps`` broadcasts.

    Parameters
    ----------
    M : array_like, shape (inputs, outputs)
        A discrete mechanism: ``M[a, y] = P(M(a) = y)``, entries >= 0, every row
        summing to 1 within ``SUM_ATOL``.
    pairs : array_like of int, shape (p, 2)
        The adjacent inputs ``(a, b)``, p >= 1, each index in 0..inputs-1; both orders
        of each pair are taken.
    eps : float or array_like
        eps >= 0, any shape.

    Returns
    -------
    float or numpy.ndarray
        delta(eps) in [0, 1], of the shape of ``eps`` (a float for one eps).

    Raises
    ------
    ValueError
        If ``M`` is not a matrix of probability rows (a negative entry, a row not
        summing to 1, NaN or an infinity), ``pairs`` is not a non-empty (p, 2)
        integer array of valid input indices, or some eps < 0.
    TypeError
        If an entry of ``M`` or ``eps`` is not a real number (a bool, text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> rr = [[0.75, 0.25], [0.25, 0.75]]          # randomized response
    >>> dm.profile_discrete(rr, [[0, 1]], [0.0, 0.5]).round(4)
    array([0.5   , 0.3378])
    """
    M = _mechanism(M)
    pr = _pairs(pairs, M.shape[0])
    a, b = np.concatenate([pr[:, 0], pr[:, 1]]), np.concatenate([pr[:, 1], pr[:, 0]])
    e = _eps_array(eps)
    p, q = M[a], M[b]
    out = np.empty(e.shape)
    for i, ee in np.ndenumerate(e):           # one eps at a time: (pairs, outputs) arrays
        out[i] = _hockey_terms(p, q, ee).sum(axis=-1).max()
    np.minimum(out, 1.0, out=out)             # a probability: never 1 + ulp (hockey_stick_discrete)
    return out if np.ndim(out) else float(out)


@_checks.public
def probabilistic_delta(M, pairs, eps) -> float:
    """The smallest delta of (eps, delta)-probabilistic DP (Definition 6) for a discrete mechanism.

    Definition 6 asks for ONE output set Omega_2, the same for every input, with
    P(M(a) in Omega_2) <= delta for all a and log-ratio <= eps outside Omega_2
    for all adjacent pairs.  Every output y with M[a, y] > e^eps M[b, y] for some
    adjacent (a, b) (either order) must be in Omega_2, and adding more outputs
    only raises the probabilities, so the optimal Omega_2 is exactly that set and
    delta = max_a P(M(a) in Omega_2).  Returns that delta (scalar eps).

    Parameters
    ----------
    M : array_like, shape (inputs, outputs)
        A discrete mechanism: ``M[a, y] = P(M(a) = y)``, entries >= 0, every row
        summing to 1 within ``SUM_ATOL``.
    pairs : array_like of int, shape (p, 2)
        The adjacent inputs ``(a, b)``, p >= 1, each index in 0..inputs-1; both orders
        of each pair are taken.
    eps : float
        One eps >= 0.

    Returns
    -------
    float
        The smallest delta in [0, 1] of (eps, delta)-probabilistic DP.

    Raises
    ------
    ValueError
        If ``M`` is not a matrix of probability rows (a negative entry, a row not
        summing to 1, NaN or an infinity), ``pairs`` is not a non-empty (p, 2)
        integer array of valid input indices, or ``eps`` is not one
        number >= 0.
    TypeError
        If an entry of ``M`` or ``eps`` is not a real number (a bool, text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> M = [[0.6, 0.3, 0.1], [0.3, 0.6, 0.1]]
    >>> round(dm.probabilistic_delta(M, [[0, 1]], 0.5), 4)
    0.9
    """
    M = _mechanism(M)
    pr = _pairs(pairs, M.shape[0])
    e = _checks.scalar("eps", eps)
    if e < 0:
        raise ValueError(f"eps={e!r} must be >= 0")
    # [book:probabilistic_delta]
    a = np.concatenate([pr[:, 0], pr[:, 1]])
    b = np.concatenate([pr[:, 1], pr[:, 0]])
    Ma, Mb = M[a], M[b]
    if e <= 709.0:
        bad = Ma > math.exp(e) * Mb * (1 + 1e-12)
    else:
        # e^eps overflows: compare logarithms
        with np.errstate(divide="ignore", invalid="ignore"):
            bad = (Ma > 0) & ((Mb == 0) | (np.log(Ma) - np.log(Mb) > e + 1e-12))
    bad_out = np.any(bad, axis=0)
    # a probability: rows may sum to 1 + SUM_ATOL, and a sum of many terms
    # rounds up
    return min(float(M[:, bad_out].sum(axis=1).max()), 1.0)


@_checks.public
def compose_parallel(*mechanisms) -> np.ndarray:
    """The joint release (M_1(D_1), ..., M_m(D_m)) of independent mechanisms (Lemma 1).

    Each argument is a discrete mechanism matrix (inputs_i x outputs_i).  The
    result is their Kronecker product: a mechanism whose input is the tuple
    (a_1, ..., a_m), indexed by ``np.ravel_multi_index((a_1, ..., a_m), sizes)``
    with ``sizes`` the numbers of inputs, and whose output is the tuple of
    outputs, indexed the same way; entry = prod_i M_i[a_i, y_i] (independence).

    Parameters
    ----------
    *mechanisms : array_like, shape (inputs_i, outputs_i)
        One or more discrete mechanisms (entries >= 0, rows summing to 1 within
        ``SUM_ATOL``).

    Returns
    -------
    numpy.ndarray, shape (prod inputs_i, prod outputs_i)
        The composed mechanism (their Kronecker product).

    Raises
    ------
    ValueError
        If no mechanism is given, one is not a matrix of probability rows (the message
        names which), or the result would exceed ``MAX_ELEMENTS`` entries (2 GiB).
    TypeError
        If an entry of a mechanism is not a real number (a bool, text).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> rr = [[0.75, 0.25], [0.25, 0.75]]
    >>> dm.compose_parallel(rr, rr).shape
    (4, 4)
    """
    if not mechanisms:
        raise ValueError("compose_parallel needs at least one mechanism")
    checked = []
    for s, M in enumerate(mechanisms):
        try:
            checked.append(_mechanism(M))
        except (ValueError, TypeError) as err:
            raise type(err)(f"mechanism {s}: {err}") from err
    # the result has prod(inputs) x prod(outputs) entries: refuse at once if it cannot fit
    entries = math.prod(M.shape[0] for M in checked) * math.prod(M.shape[1] for M in checked)
    if entries > _checks.MAX_ELEMENTS:
        shapes = " x ".join(f"{M.shape[0]}x{M.shape[1]}" for M in checked)
        raise ValueError(f"mechanisms of shapes {shapes} compose to a matrix of {entries} "
                         f"entries: at most {_checks.MAX_ELEMENTS} (2 GiB) are handled")
    out = np.ones((1, 1))
    for M in checked:
        out = np.kron(out, M)
    return out


@_checks.public
def parallel_adjacency(pairs_per_part, sizes) -> np.ndarray:
    """Adjacent pairs of the composed input: change ONE part along one of its adjacent pairs.

    ``pairs_per_part[i]`` is the adjacency of part i (a (p_i, 2) array over
    0..sizes[i]-1); every other part takes every value, the same in both inputs.
    This is Definition 3's adjacency (one record changes, inside its own D_i).
    Returns a (p, 2) array of composite indices (see ``compose_parallel``).

    Parameters
    ----------
    pairs_per_part : list of array_like of int, each of shape (p_i, 2)
        One adjacency per part, each a non-empty integer array of pairs of inputs in
        0..sizes[i]-1.
    sizes : list of int
        The number of inputs of each part, whole numbers >= 1 (a 1-d list, tuple or
        array); their product is at most ``MAX_ELEMENTS``.

    Returns
    -------
    numpy.ndarray of int, shape (p, 2)
        The adjacent pairs of composite inputs, indexed as in ``compose_parallel``.

    Raises
    ------
    ValueError
        If a size is not a whole number >= 1, the composed input has more than
        ``MAX_ELEMENTS`` values, the numbers of adjacencies and of sizes differ, or an
        adjacency is not a non-empty (p_i, 2) integer array of valid inputs (the
        message names the part).
    TypeError
        If ``sizes`` is not a 1-d list, tuple or array, or ``pairs_per_part`` is not a
        list or tuple.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.parallel_adjacency([[[0, 1]], [[0, 1]]], [2, 2]).tolist()
    [[0, 2], [1, 3], [0, 1], [2, 3]]
    """
    if not isinstance(sizes, (list, tuple, np.ndarray)) or np.ndim(sizes) != 1:
        raise TypeError(f"sizes={_checks.show(sizes)} must be a list of ints, one per part")
    sizes = tuple(_checks.whole("sizes", s, 1) for s in sizes)
    if int(np.prod(sizes, dtype=object)) > _checks.MAX_ELEMENTS:
        raise ValueError(f"sizes={sizes!r}: the composed input would have more than "
                         f"{_checks.MAX_ELEMENTS} values")
    if not isinstance(pairs_per_part, (list, tuple)):
        raise TypeError(f"pairs_per_part={_checks.show(pairs_per_part)} must be a list of "
                        "(p, 2) integer arrays, one per part")
    if len(pairs_per_part) != len(sizes):
        raise ValueError(f"pairs_per_part has {len(pairs_per_part)} adjacency lists for "
                         f"{len(sizes)} parts (sizes)")
    checked = []
    for i, pairs in enumerate(pairs_per_part):
        try:
            checked.append(_pairs(pairs, sizes[i]))
        except (ValueError, TypeError) as err:
            raise type(err)(f"pairs_per_part[{i}]: {err}") from err
    out = []
    for i, pr in enumerate(checked):
        others = [range(s) for j, s in enumerate(sizes) if j != i]
        grid = np.array(np.meshgrid(*others, indexing="ij")).reshape(len(others), -1).T \
            if others else np.zeros((1, 0), dtype=int)
        for a, b in pr:
            ia = np.insert(grid, i, a, axis=1)
            ib = np.insert(grid, i, b, axis=1)
            out.append(np.stack([np.ravel_multi_index(ia.T, sizes),
                                 np.ravel_multi_index(ib.T, sizes)], axis=1))
    return np.concatenate(out)
