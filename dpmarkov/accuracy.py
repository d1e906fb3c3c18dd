"""Accuracy of the Dirichlet mechanism: Theorem 2 (eq. (8)) and Corollary 1.

Book: chapter "The Dirichlet mechanism" (first use) and the accuracy part.
"""
from __future__ import annotations

import numpy as np
from scipy.special import digamma, xlogy

from . import _checks


def expected_kl(C, k):
    """E[ KL(C || C~) ] for C~ ~ Dir(k C): Theorem 2, eq. (8).

    sum_i C_i (log C_i + psi(k) - psi(k C_i)), using E[log C~_i] = psi(k C_i) - psi(k)
    for the Dirichlet marginal.  ``C`` is a count vector (or stack of them) with
    every entry > 0 (a zero entry makes Dir(k C) undefined); ``k`` > 0 broadcasts.
    """
    C = _checks.as_float_array("C", C)
    if C.ndim == 0 or C.shape[-1] < 2:
        raise ValueError(f"C={C!r} must be a vector of at least 2 probabilities")
    bad = C <= 0
    if np.any(bad):
        raise ValueError(f"C contains {C[bad].flat[0]!r}: every entry must be > 0 "
                         "(Dir(k*C) is undefined for a zero entry)")
    sums = C.sum(axis=-1)
    if np.any(np.abs(sums - 1) > 1e-9):
        raise ValueError(f"C sums to {np.ravel(sums)[0]!r}: a count vector sums to 1 (eq. 3)")
    k = _checks.positive("k", k)
    kk = k[..., None] if k.ndim else k
    out = np.sum(C * (np.log(C) - digamma(kk * C)), axis=-1) + digamma(k)
    return out if np.ndim(out) else float(out)


def kl_bound(k, N, n):
    """Corollary 1: the worst-case E[KL] over count vectors of N records in n categories.

    (n-1)/N zeta(0) + (N-n+1)/N zeta(N-n) + psi(k), with
    zeta(x) = log((x+1)/N) - psi((x+1) k / N): eq. (8) evaluated at
    C = (1/N, ..., 1/N, (N-n+1)/N).  Needs N >= n (each category holds a record).
    """
    k = _checks.positive("k", k)
    N = _checks.integer_at_least("N", N, 2)
    n = _checks.integer_at_least("n", n, 2)
    bad = N < n
    if np.any(bad):
        raise ValueError(f"N={N[bad].flat[0] if N.ndim else float(N)!r} is below n: "
                         "every category needs at least one record")

    def zeta(x):
        return np.log((x + 1) / N) - digamma((x + 1) * k / N)

    out = (n - 1) / N * zeta(0.0) + (N - n + 1) / N * zeta(N - n) + digamma(k)
    return out if np.ndim(out) else float(out)


def kl_divergence(p, q):
    """KL(p || q) = sum_i p_i log(p_i / q_i) along the last axis, with 0 log 0 = 0.

    The divergence of the paper's Notation paragraph (Section 1), used in Theorem 2.
    """
    p = _checks.as_float_array("p", p)
    q = _checks.as_float_array("q", q)
    with np.errstate(divide="ignore"):
        out = np.sum(xlogy(p, p) - xlogy(p, q), axis=-1)
    return out
