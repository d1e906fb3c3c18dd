"""Roots of monotone functions for many parameter sets at once, on the safe side of the root.

The calibrations ``privacy.k_for_epsilon`` (and ``_paper``), ``accuracy.k_for_kl`` and
the baselines' ``dirichlet_k_theorem1`` and ``dirichlet_k_tight`` invert a monotone
function for every element of their (broadcast) arguments.  One bracketing solver runs
on all elements together, so each step is one vectorised evaluation instead of one
scalar call per element and step.

The answer is always the end of the final bracket where the function was *evaluated*
to be <= 0: for k_for_epsilon a k whose epsilon is at most the target (never a k
that releases a little more than asked), for k_for_kl a k whose bound is at most the
target, for the baselines a k that meets its (epsilon, delta).  Book: "The privacy loss
of the Dirichlet mechanism" (the inverse of eq. (6)).
"""
from __future__ import annotations

import numpy as np

#: Steps after which a bracket that has not converged is an error (never reached: every
#: four steps at least halve the bracket, and the callers' brackets reach their tolerance
#: within 60 halvings: k in [k0, 2 k0] to 1e-13, log k in a range of 1336 to 1e-15).
_MAX_STEPS = 400


def push_upper_end(f, lo, f_lo, hi, advance, *, limit=None):
    """For f increasing in x with f(lo) <= 0: move each bracket [lo, hi] up until f(hi) > 0.

    ``f(x, idx)`` as in ``root_on_safe_side``; ``lo``, ``f_lo`` (= f(lo)) and ``hi`` are
    float arrays, updated in place.  Where f(hi) <= 0, lo takes hi's place and value and
    hi becomes ``advance(hi)``; an hi beyond ``limit`` raises ValueError.  Returns
    (lo, f_lo, hi, f_hi), ready for ``root_on_safe_side``.
    """
    f_hi = np.empty(lo.shape)
    idx = np.arange(lo.size)
    while idx.size:
        f_hi[idx] = f(hi[idx], idx)
        idx = idx[f_hi[idx] <= 0]
        lo[idx], f_lo[idx] = hi[idx], f_hi[idx]
        hi[idx] = advance(hi[idx])
        if limit is not None and np.any(hi[idx] > limit):
            raise ValueError("no upper bracket for k")
    return lo, f_lo, hi, f_hi


def root_on_safe_side(f, a, b, fa, fb, *, rtol, xtol=0.0):
    """x with f(x) <= 0 next to the root of f, for every element, by the Illinois method.

    ``f(x, idx)`` evaluates the function at the points ``x`` for the elements ``idx``
    (an index array).  On entry fa = f(a) <= 0 < fb = f(b) for every element (a and b
    in either order).  Each step replaces one end by the regula falsi point, halving
    the other end's value when the same end moved twice (Illinois), and bisects
    instead when the last three steps did not halve the bracket or the point is not
    strictly inside it; so the bracket at least halves every four steps.  It stops, per
    element, when |b - a| <= xtol + rtol max(|a|, |b|) or f(a) = 0, and returns the a's:
    points where f was evaluated to be <= 0, within that distance of a sign change.
    """
    a, b, fa, fb = (np.array(v, dtype=float) for v in (a, b, fa, fb))
    zero = fa == 0                                   # f(a) evaluated to exactly 0: a root
    last = np.zeros(a.shape, dtype=np.int8)          # which end moved last: -1 a, +1 b
    widths = np.full((3,) + a.shape, np.inf)        # the bracket's width 1, 2, 3 steps ago

    def converged(i):
        return zero[i] | (np.abs(b[i] - a[i])
                          <= xtol + rtol * np.maximum(np.abs(a[i]), np.abs(b[i])))

    idx = np.flatnonzero(~converged(np.arange(a.size)))
    for _ in range(_MAX_STEPS):
        if idx.size == 0:
            return a
        A, B, FA, FB = a[idx], b[idx], fa[idx], fb[idx]
        width = np.abs(B - A)
        bisect = width > 0.5 * widths[2, idx]
        widths[:, idx] = np.stack([width, widths[0, idx], widths[1, idx]])
        with np.errstate(all="ignore"):
            x = B - FB * ((B - A) / (FB - FA))       # FB > 0 >= FA
        mid = A + 0.5 * (B - A)
        inside = np.isfinite(x) & (x > np.minimum(A, B)) & (x < np.maximum(A, B))
        x = np.where(bisect | ~inside, mid, x)
        fx = np.asarray(f(x, idx), dtype=float)
        low = fx <= 0
        lo_i, hi_i = idx[low], idx[~low]
        a[lo_i], fa[lo_i], zero[lo_i] = x[low], fx[low], fx[low] == 0
        b[hi_i], fb[hi_i] = x[~low], fx[~low]
        step = np.where(low, -1, 1).astype(np.int8)
        again = last[idx] == step                    # the same end moved twice: Illinois
        fb[idx[low & again]] *= 0.5                  # (fa, fb now weight the interpolation;
        fa[idx[~low & again]] *= 0.5                 # only their signs are f's)
        last[idx] = step
        idx = idx[~converged(idx)]
    raise RuntimeError("root_on_safe_side did not converge")   # pragma: no cover
