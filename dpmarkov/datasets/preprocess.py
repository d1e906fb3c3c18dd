"""From raw transition counts to a chain that meets Assumptions 5 and 6.

The paper's Supplement E (how the taxi data was pre-processed) is missing; this
is the book's own recipe, used by the chapters "Case study: NYC taxis" and
"Another chain".  A transition seen fewer than ``min_count`` times is treated as
infeasible (its records are dropped), a state with fewer than ``min_row``
departures is dropped, and only the largest strongly connected set of states is
kept, repeating until nothing changes.  What is left is irreducible
(Assumption 5) and every transition it keeps has been observed (Assumption 6).

Privacy note: the support of the result (which transitions are feasible) is
computed from the data and then treated as public, as Assumption 6 does; the
guarantee of Theorem 3 covers the counts on that support, not the choice of the
support itself.
"""
from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import connected_components

from .. import _checks


@_checks.public
def prepare_chain(counts, *, min_count=1, min_row=1):
    """Prune rare transitions and small states; keep the largest strongly connected part.

    Transitions seen fewer than ``min_count`` times become infeasible, states with
    fewer than ``min_row`` departures are dropped, and the largest strongly connected
    set of states is kept, repeating until nothing changes, so the result meets
    Assumptions 5 and 6.  Ties between strongly connected parts of the same size go to
    the one with more records.
    Book: chapter "Case study: NYC taxis" (our stand-in for the missing Supplement E).

    Parameters
    ----------
    counts : array_like of int, shape (n, n)
        Transition counts: whole numbers >= 0 and <= 2^53 (rows may be all zero).
    min_count : int, optional
        Keyword only, a whole number >= 1 (default 1): transitions observed fewer than
        ``min_count`` times become zeros (infeasible).  ``1`` keeps every observed
        transition.
    min_row : int, optional
        Keyword only, a whole number >= 1 (default 1): states with fewer than
        ``min_row`` departures (after pruning) are dropped.

    Returns
    -------
    kept_counts : numpy.ndarray of int64, shape (m, m)
        The counts among the kept states; every row has >= ``min_row`` records and
        the support graph is strongly connected (Assumption 5).
    kept : numpy.ndarray of int, shape (m,)
        Indices of the kept states in ``counts``.

    Raises
    ------
    TypeError
        If ``counts``, ``min_count`` or ``min_row`` is a bool, text or not real numbers.
    ValueError
        If ``counts`` is not a square matrix of finite whole numbers in [0, 2^53]; if
        ``min_count`` or ``min_row`` is not one whole number >= 1; or if fewer than 2
        states survive.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> kept_counts, kept = dm.datasets.prepare_chain([[5, 1, 0], [2, 3, 0], [0, 0, 4]])
    >>> kept_counts.tolist(), kept.tolist()
    ([[5, 1], [2, 3]], [0, 1])
    """
    arr = _checks.as_float_array("counts", counts)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"counts has shape {arr.shape}: a transition count matrix is n x n")
    if np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ValueError("counts must be whole numbers >= 0")
    if np.any(arr > 2.0**53):
        raise ValueError(f"counts contains {arr[arr > 2.0**53][0]!r}: counts above 2**53 are not "
                         "exact whole numbers in doubles")
    min_count = _checks.whole_number("min_count", min_count, 1)
    min_row = _checks.whole_number("min_row", min_row, 1)
    # [book:prepare_chain]
    work = np.where(arr >= min_count, arr, 0.0)
    kept = np.arange(arr.shape[0])
    while True:
        sub = work[np.ix_(kept, kept)]
        big = sub.sum(axis=1) >= min_row
        if big.sum() >= 1:
            sub_big = sub[np.ix_(big, big)]
            _, label = connected_components(sub_big > 0, directed=True,
                                            connection="strong")
            size = np.bincount(label)
            mass = np.bincount(label, weights=sub_big.sum(axis=1))
            best = np.lexsort((mass, size))[-1]
            new = kept[big][label == best]
        else:
            new = kept[:0]
        if new.size == kept.size:
            break
        kept = new
        if kept.size < 2:
            break
    # [/book:prepare_chain]
    if kept.size < 2:
        raise ValueError(f"only {kept.size} state(s) survive min_count={min_count}, "
                         f"min_row={min_row}: a chain needs at least 2 (Assumption 5)")
    return work[np.ix_(kept, kept)].astype(np.int64), kept
