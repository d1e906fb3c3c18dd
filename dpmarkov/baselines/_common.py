"""Internal: what the baselines share (sensitivities and the scalar checks of their arguments).

Not part of the public API; the names without a leading underscore are the interface of
the ``baselines`` modules (``L1_SENSITIVITY`` and ``L2_SENSITIVITY`` are also exported by
``dpmarkov.baselines``).  Adjacency is Definition 3's: one record changes its category, N
public, so a count vector moves by +1 in one entry and -1 in another.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _checks

#: L1 sensitivity of a count vector when one record changes category (N public).
L1_SENSITIVITY = 2.0
#: L2 sensitivity of a count vector when one record changes category (N public).
L2_SENSITIVITY = float(np.sqrt(2.0))


# --------------------------------------------------------------------------- checks
def scalar_epsilon(epsilon) -> float:
    arr = _checks.positive("epsilon", epsilon)
    if arr.ndim:
        raise ValueError(f"epsilon={epsilon!r} must be a single number")
    return float(arr)


def scalar_delta(delta) -> float:
    arr = _checks.as_float_array("delta", delta)
    if arr.ndim:
        raise ValueError(f"delta={delta!r} must be a single number")
    d = float(arr)
    if not 0 < d < 1:
        raise ValueError(f"delta={d!r} must satisfy 0 < delta < 1")
    return d


def size_shape(size, per_draw=1) -> tuple:
    """``size`` as a shape: None, a whole number >= 0 or a tuple of them (no bool, float, str).

    The release (``per_draw`` numbers a draw) must fit in ``MAX_ELEMENTS`` doubles: a larger
    ``size`` is refused before anything is drawn or allocated."""
    if size is None:
        return ()
    items = size if isinstance(size, (tuple, list)) else (size,)
    for s in items:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"size={size!r} must be None, a whole number or a tuple of "
                            "whole numbers (an int, not a float, str or bool)")
        if s < 0:
            raise ValueError(f"size={size!r} must be non-negative")
    shape = tuple(int(s) for s in items)
    total = math.prod(shape) * per_draw
    if total > _checks.MAX_ELEMENTS:
        raise ValueError(f"size={size!r} asks for {total} numbers: at most "
                         f"{_checks.MAX_ELEMENTS} (2 GiB) per call")
    return shape
