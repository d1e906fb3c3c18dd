"""Credit-rating migration counts: a real chain that breaks Assumptions 5 and 6.

Book: chapter "Stationary distribution and convergence".  Shipped data and
licence: ``data/PROVENANCE-credit.md``.
"""
from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from .. import _checks

_FILE = resources.files("dpmarkov.datasets") / "data" / "credit_rating_transitions.csv"


@_checks.public
def load_credit_ratings():
    """One-year rating migrations: ``(counts, names)``.

    ``counts`` is an (8, 8) float array, counts[i, j] = number of firm-years that
    moved from rating ``names[i]`` to ``names[j]`` (names = AAA, AA, A, BBB, BB,
    B, C, D).  N = 6,473.  The row of D (default) is all zero: D is absorbing,
    so the chain is reducible (Assumption 5 fails) and D_D is empty (Assumption
    6 / eq. (3) fail) -- the book uses it to show what the checks report.

    Book: chapter "Stationary distribution and convergence"; data and licence in
    ``data/PROVENANCE-credit.md``.

    Returns
    -------
    counts : numpy.ndarray of float, shape (8, 8)
        The migration counts, counts[i, j] from rating ``names[i]`` to ``names[j]``.
    names : tuple of str
        The ratings ("AAA", "AA", "A", "BBB", "BB", "B", "C", "D").

    Raises
    ------
    ValueError
        If the shipped table is damaged (its row names differ from its columns).

    Examples
    --------
    >>> import dpmarkov as dm
    >>> counts, names = dm.datasets.load_credit_ratings()
    >>> counts.shape, int(counts.sum()), names[-1], int(counts[-1].sum())
    ((8, 8), 6473, 'D', 0)
    """
    with _FILE.open("r") as fh:
        table = pd.read_csv(fh, index_col="from")
    names = tuple(table.columns)
    if tuple(table.index) != names:
        raise ValueError(f"{_FILE.name}: row names {tuple(table.index)} differ from columns")
    return table.to_numpy(dtype=float), names
