"""Post-processing of a noisy count vector back onto the simplex: projection and clipping.

Additive noise leaves the simplex (Definition 1); the paper (Section 1) names this as the
reason to prefer the Dirichlet mechanism.  Euclidean projection and clip-and-renormalise
repair it without touching privacy (post-processing).  Book: chapter "Baselines at
matched privacy".
"""
from __future__ import annotations

import numpy as np

from .. import _checks


# ------------------------------------------------------------------ post-processing
@_checks.public
def project_to_simplex(v) -> np.ndarray:
    """Euclidean projection of each vector (last axis) onto the unit simplex (Definition 1).

    The sort-based algorithm (Held, Wolfe & Crowder 1974; Duchi et al. 2008): sort v
    in decreasing order u, find rho = max{j : u_j - (sum_{i<=j} u_i - 1)/j > 0}, set
    theta = (sum_{i<=rho} u_i - 1)/rho and return max(v - theta, 0).  The result is
    the unique minimiser of ||x - v||_2 over the simplex; it satisfies the KKT
    conditions x_i > 0 => v_i - x_i = theta and x_i = 0 => v_i <= theta.

    Large entries: the projection of v + s(1, ..., 1) is that of v, and an entry more
    than 1 below the largest is 0 in the result (theta >= max v - 1), so each vector is
    first shifted by its largest entry and clamped to [-1, 0]; nothing overflows and
    every result lies on the simplex, e.g. for entries near 1e308.
    The simplex is Definition 1 of the paper; Section 1 mentions projection as the
    way to repair additive noise.  Book: chapter "Baselines at matched privacy".

    Parameters
    ----------
    v : array_like of float, shape (..., n)
        Real, finite vectors along the last axis, n >= 1 (e.g. noisy proportions).

    Returns
    -------
    numpy.ndarray
        The projections, of ``v``'s shape: non-negative, each summing to 1.

    Raises
    ------
    TypeError
        If ``v`` is a bool, text, complex or otherwise not real numbers.
    ValueError
        If ``v`` is a scalar or has an empty last axis, or holds NaN or an infinity.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.baselines.project_to_simplex([0.7, 0.5, -0.2]).round(3).tolist()
    [0.6, 0.4, 0.0]
    """
    v = _checks.as_float_array("v", v)
    if v.ndim == 0 or v.shape[-1] < 1:
        raise ValueError(f"v={v!r} must be an array of vectors (last axis)")
    # [book:project_to_simplex]
    n = v.shape[-1]
    # v - max may overflow to -inf: clamped next
    with np.errstate(over="ignore"):
        w = np.maximum(v - v.max(axis=-1, keepdims=True), -1.0)
    u = -np.sort(-w, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    j = np.arange(1, n + 1)
    positive = u - css / j > 0
    # the last index where positive
    rho = n - np.argmax(positive[..., ::-1], axis=-1)
    theta = np.take_along_axis(css, (rho - 1)[..., None], axis=-1) / rho[..., None]
    return np.maximum(w - theta, 0.0)


@_checks.public
def clip_to_simplex(v) -> np.ndarray:
    """Clip negative entries to 0 and renormalise each vector (last axis) to sum to 1.

    If every entry of a vector is <= 0 there is nothing to renormalise; that vector is
    replaced by the uniform vector (1/n, ..., 1/n).  This choice uses no data, so it
    is post-processing and the release keeps its privacy guarantee; how often it
    happens is reported in the book.  Each vector is divided by its largest entry
    before summing, so entries near 1e308 do not overflow.  The simplex is Definition 1.
    Book: chapter "Baselines at matched privacy".

    Parameters
    ----------
    v : array_like of float, shape (..., n)
        Real, finite vectors along the last axis, n >= 1.

    Returns
    -------
    numpy.ndarray
        The clipped, renormalised vectors, of ``v``'s shape, each summing to 1 (the
        uniform vector where every entry of ``v`` was <= 0).

    Raises
    ------
    TypeError
        If ``v`` is a bool, text, complex or otherwise not real numbers.
    ValueError
        If ``v`` is a scalar or has an empty last axis, or holds NaN or an infinity.

    Examples
    --------
    >>> import dpmarkov as dm
    >>> dm.baselines.clip_to_simplex([[3.0, -1.0, 1.0], [-2.0, -1.0, 0.0]]).round(3).tolist()
    [[0.75, 0.0, 0.25], [0.333, 0.333, 0.333]]
    """
    v = _checks.as_float_array("v", v)
    if v.ndim == 0 or v.shape[-1] < 1:
        raise ValueError(f"v={v!r} must be an array of vectors (last axis)")
    # [book:clip_to_simplex]
    x = np.maximum(v, 0.0)
    top = x.max(axis=-1, keepdims=True)
    empty = top == 0
    x = x / np.where(empty, 1.0, top)
    total = x.sum(axis=-1, keepdims=True)
    n = v.shape[-1]
    return np.where(empty, 1.0 / n, x / np.where(empty, 1.0, total))
