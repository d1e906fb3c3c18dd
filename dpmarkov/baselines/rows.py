"""Any baseline applied to a transition-count matrix, row by row on the public support.

As Algorithm 2 does for the Dirichlet mechanism: each row is one database D_i, and by
parallel composition the whole release keeps the per-row guarantee.  Book: chapters
"Baselines at matched privacy" and "Baselines on real data".
"""
from __future__ import annotations

import numpy as np

from .. import _checks
from ._common import size_shape


# ----------------------------------------------------------- Markov chains
@_checks.public
def privatize_rows(counts, mechanism, *args, support, rng=None, size=None) -> np.ndarray:
    """Release a transition-count matrix row by row with a baseline ``mechanism`` (cf. Algorithm 2).

    Row i of ``counts`` (shape (m, n)) is the database D_i of departures from state i
    (eq. (4)).  ``support`` (required, keyword) says which entries may be released, and
    must be fixed before the data are seen (as for ``dm.privatize_chain``):

    - ``support="all"``: every row is released on all n entries, so nothing about the
      pattern of zeros of the data is published and the per-row guarantee holds for
      every pair of adjacent rows.  The Dirichlet mechanism cannot do this (a zero count
      gives no Dirichlet parameter).
    - a boolean array of shape (m, n), the public feasible transitions (Assumption 6):
      row i is released on {j : support[i, j]}, the other entries are 0.  A count outside
      the support is an error (the support would not describe the data); a zero inside
      it is fine for additive noise.  A row with a single supported entry is released
      as 1 there: it holds no private information once the support is public.

    The rows are disjoint databases, so by parallel composition (Lemma 1) the matrix
    keeps the per-row guarantee of ``mechanism``, which is one of this module's
    releases (e.g. ``geometric_project``) with privacy parameters ``args``.  Like them
    it must release each vector of a stack (..., r) independently: the rows with the
    same number r of supported entries are released by one call on their stack (g, r)
    (each row's law is that of the mechanism on the row alone).  Returns
    shape ``size + (m, n)``.  ``rng=None`` uses fresh OS entropy (a seed is for
    teaching/testing only).  Book: "Baselines at matched privacy".

    Parameters
    ----------
    counts : array_like of int, shape (m, n)
        The transition-count matrix: whole numbers >= 0, n >= 2, every row holding at
        least one transition.
    mechanism : callable
        A release of this module taking ``(counts, *args, rng=..., size=...)`` and
        releasing each vector of a stack independently, e.g. ``geometric_project``.
    *args
        The mechanism's privacy parameters, e.g. ``epsilon`` (and ``delta``).
    support : "all" or array_like of bool, shape (m, n)
        Keyword only, required: ``"all"`` or the public feasible transitions
        (Assumption 6), fixed before the data are seen; it must contain every observed
        transition.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        None (the default) draws fresh OS entropy; an int >= 0 seeds (teaching only).
    size : None, int or tuple of int, optional
        How many independent releases: the result has shape ``size + (m, n)``.

    Returns
    -------
    numpy.ndarray
        The released matrices, shape ``size + (m, n)``: each row is the mechanism's
        output on its supported entries and 0 elsewhere.

    Raises
    ------
    TypeError
        If ``counts`` is not real numbers, ``mechanism`` is not callable, ``support`` is
        neither a string nor a boolean array, ``rng`` is a bool or of an unsupported type,
        or ``size`` is not None, an int or a tuple of ints.
    ValueError
        If ``counts`` is not a 2-D matrix of valid counts (whole, >= 0, finite, n >= 2, no
        empty row); if ``support`` is a string other than ``"all"``, ragged, of another
        shape than ``counts`` or misses an observed transition; if ``rng`` or ``size`` is
        out of range; or as ``mechanism`` raises for its parameters ``args``.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> support = [[True, True, False], [False, True, True], [True, False, False]]
    >>> x = dm.baselines.privatize_rows([[3, 1, 0], [0, 2, 2], [1, 0, 0]],
    ...                                 dm.baselines.geometric_project, 1.0,
    ...                                 support=support, rng=0)
    >>> x.shape, x[2].tolist(), bool(abs(x.sum(axis=1) - 1).max() < 1e-12)
    ((3, 3), [1.0, 0.0, 0.0], True)
    """
    c = _checks.as_float_array("counts", counts)
    if c.ndim != 2:
        raise ValueError(f"counts has shape {c.shape}: a transition-count matrix is (m, n)")
    c = _checks.counts_array("counts", c)
    if not callable(mechanism):
        raise TypeError(f"mechanism={mechanism!r} must be a function such as geometric_project")
    if isinstance(support, str):
        if support != "all":
            raise ValueError(f"support={support!r} must be 'all' or a boolean (m, n) array "
                             "of public feasible transitions fixed before seeing the data")
        mask = np.ones(c.shape, bool)
    else:
        mask = _checks.bool_matrix("support", support, c.shape)
        outside = (c > 0) & ~mask
        if np.any(outside):
            i, j = (int(x) for x in np.argwhere(outside)[0])
            raise ValueError(f"counts[{i}, {j}]={c[i, j]:g} lies outside the support: the "
                             "support must contain every observed transition")
    gen = _checks.generator(rng)
    shape = size_shape(size, c.size)
    out = np.zeros(shape + c.shape)
    width = mask.sum(axis=1)
    for r in np.unique(width):
        rows = np.flatnonzero(width == r)
        cols = np.nonzero(mask[rows])[1].reshape(rows.size, r)     # each row's supported columns
        if r == 1:
            out[..., rows, cols[:, 0]] = 1.0
            continue
        # the rows with r supported entries as one stack (g, r): one call of the mechanism
        out[..., rows[:, None], cols] = mechanism(c[rows[:, None], cols], *args, rng=gen,
                                                  size=None if size is None else shape)
    return out
