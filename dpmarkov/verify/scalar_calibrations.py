"""The baselines' Dirichlet calibrations as they were before they were vectorised.

One row at a time, Brent's method on log k (xtol 1e-10, rtol 1e-12) over the public,
checked formulas (``dm.epsilon``, ``dm.delta``, ``dm.profile.privacy_profile``), then
stepped down onto the feasible side: the code of ``baselines`` at commit 229e117.  The
vectorised ``baselines.dirichlet_k_theorem1`` and ``dirichlet_k_tight`` must return the
same k to that tolerance (``tests/test_baselines.py``), and ``benchmarks/bench_baselines.py``
times them against it.  Each function returns k, or None where no k qualifies.
"""
from __future__ import annotations

import numpy as np

from .. import privacy
from ..profile import privacy_profile


def _largest_feasible_log_k(gap, lo, hi, step):
    """Widen [lo, hi] by ``step`` until gap(hi) > 0, Brent, then step down to gap <= 0."""
    from scipy.optimize import brentq
    while gap(hi) <= 0:
        lo, hi = hi, hi + step
    log_k = brentq(gap, lo, hi, xtol=1e-10, rtol=1e-12)
    while gap(log_k) > 0:
        log_k -= 1e-10 * max(1.0, abs(log_k))
    return log_k


def theorem1(eps, d, eta, N, n):
    """k of Theorem 1's calibration (``baselines.dirichlet_k_theorem1``) for one row."""
    g0 = 0.5 / n

    def log_gamma(k):
        b = privacy.epsilon(k, eta, N, n, g0) - k / N * np.log(n + 1)
        r = (eps - b) * N / k
        return None if r <= 0 else -(r + np.log1p((n - 1) * np.exp(-r)))

    def gap(log_k):
        k = float(np.exp(log_k))
        lg = log_gamma(k)
        if lg is None:
            return -np.log(d)
        if lg < -700:
            return -1e300
        return np.log(max(privacy.delta(k, eta, N, n, float(np.exp(lg))), 1e-300)) - np.log(d)

    lo = np.log(float(privacy.k_min(eta)))
    if log_gamma(np.exp(lo)) is None or gap(lo) > 0:
        return None
    return float(np.exp(_largest_feasible_log_k(gap, lo, lo + np.log(2.0), np.log(2.0))))


def tight(eps, d, N, n, m):
    """k of the tight calibration (``baselines.dirichlet_k_tight``) for one row."""
    def gap(log_k):
        return np.log(max(privacy_profile(eps, float(np.exp(log_k)), N, n, m),
                          1e-300)) - np.log(d)
    lo = np.log(max(1.0, eps * N / 500.0))
    if gap(lo) > 0:
        return None
    return float(np.exp(_largest_feasible_log_k(gap, lo, np.log(max(10.0 * N, 10.0)),
                                                np.log(10.0))))
