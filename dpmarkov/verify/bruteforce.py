"""Brute-force twins of the privacy results: enumerate every count vector and adjacent pair.

Small N and n only (the number of count vectors grows like N^(n-1)).  Nothing here
uses the reductions proved in the book; each function evaluates the definition
directly, so it can check them.  Book: chapters "The exact worst case", "delta"
and "The tight privacy profile" (Theorem 1, eqs. (6)-(7)).
"""
from __future__ import annotations

from itertools import product

import numpy as np
from scipy.special import gammaln

from ..profile import hockey_stick


def compositions(N: int, n: int, min_count: int = 1):
    """Every integer count vector of N records in n categories with each count >= min_count."""
    free = N - n * min_count
    if free < 0:
        return
    for cut in product(range(free + 1), repeat=n - 1):
        if sum(cut) <= free:
            yield np.array(list(cut) + [free - sum(cut)], dtype=float) + min_count


def adjacent_pairs(N: int, n: int, min_count: int = 1):
    """Every ordered pair (c, c') of count vectors with c' = c + e_i - e_j (Definition 3),
    both with every count >= min_count."""
    for c in compositions(N, n, min_count):
        for i in range(n):
            for j in range(n):
                if i != j and c[j] - 1 >= min_count:
                    cp = c.copy()
                    cp[i] += 1
                    cp[j] -= 1
                    yield c, cp


def omega1_vertices(n: int, gamma: float) -> np.ndarray:
    """The n vertices of Omega_1 = {x in the simplex : x_i >= gamma}: gamma everywhere but one
    entry 1 - (n-1) gamma."""
    return np.full((n, n), gamma) + np.eye(n) * (1 - n * gamma)


def composition_array(N: int, n: int, min_count: int = 1) -> np.ndarray:
    """``compositions`` as one array of shape (number of vectors, n), in the same order."""
    free = N - n * min_count
    if free < 0:
        return np.empty((0, n))
    rows = np.zeros((1, 0), dtype=np.int64)
    for _ in range(n - 1):        # append one more count, keeping the partial sums <= free
        used = rows.sum(axis=1)
        rows = np.concatenate([np.column_stack([rows[used + v <= free],
                                                np.full((int(np.sum(used + v <= free)), 1), v)])
                               for v in range(free + 1)])
        rows = rows[np.lexsort(rows.T[::-1])]
    last = free - rows.sum(axis=1, keepdims=True)
    return np.hstack([rows, last]).astype(float) + min_count


def max_privacy_loss(k: float, N: int, n: int, gamma: float, min_count: int = 1):
    """max over all adjacent pairs and all vertices of Omega_1 of log f_c(x) - log f_c'(x).

    Returns (value, c, c').  Every ordered pair c' = c + e_i - e_j of ``adjacent_pairs`` and
    every vertex x are evaluated at once from the two Dirichlet log-densities written out,
    log f_c(x) = log Gamma(k) - sum_l log Gamma(k c_l/N) + sum_l (k c_l/N - 1) log x_l,
    with scipy's gammaln and none of the package's code or of the reductions it checks.
    """
    vertices = omega1_vertices(n, gamma)
    counts = composition_array(N, n, min_count)
    best = (-np.inf, None, None)
    for i in range(n):
        for j in range(n):
            c = counts[(counts[:, j] - 1 >= min_count) & (i != j)]
            if len(c) == 0:
                continue
            cp = c.copy()
            cp[:, i] += 1
            cp[:, j] -= 1
            a, ap = k * c / N, k * cp / N
            # log f_c(x) - log f_c'(x): the log Gamma(k) terms cancel (both sum to k)
            loss = (gammaln(ap).sum(axis=1) - gammaln(a).sum(axis=1))[:, None] \
                + (a - ap) @ np.log(vertices).T
            row, _ = np.unravel_index(np.argmax(loss), loss.shape)
            if loss[row].max() > best[0]:
                best = (float(loss[row].max()), c[row], cp[row])
    return best


def max_exit_probability(exit_probability, k: float, N: int, n: int, gamma: float,
                         min_count: int = 1):
    """max over count vectors of exit_probability(counts, k, gamma); returns (value, counts)."""
    best = (-np.inf, None)
    for c in compositions(N, n, min_count):
        value = exit_probability(c, k, gamma)
        if value > best[0]:
            best = (value, c)
    return best


def max_hockey_stick(epsilon: float, k: float, N: int, n: int, min_count: int = 1):
    """max over all adjacent pairs of H_eps(Dir(k c/N) || Dir(k c'/N)); returns (value, c, c')."""
    best = (-np.inf, None, None)
    for c, cp in adjacent_pairs(N, n, min_count):
        value = hockey_stick(epsilon, c, cp, k)
        if value > best[0]:
            best = (value, c, cp)
    return best


def profile_scan(epsilon, k: float, N: int, n: int, min_count: int):
    """The tight privacy profile by the full scan it replaced: max of H over every (c_i, c_j).

    n = 2: every c_i in [m, N - m - 1] with c_j = N - c_i (N - 2m pairs); n >= 3: the
    pair (m, m + 1) of the post-processing argument.  One vectorised Beta-tail
    evaluation per pair, no branch and bound: the twin that ``privacy_profile`` must
    equal (book: "The tight privacy profile", the worst pair for two categories).
    """
    from .._pairs import pair_profile
    eps = np.atleast_1d(np.asarray(epsilon, float))
    if n >= 3:
        c_i = np.array([float(min_count)])
        c_j = c_i + 1
    else:
        c_i = np.arange(min_count, N - min_count, dtype=float)
        c_j = N - c_i
    best = np.zeros(eps.shape)
    for lo in range(0, len(c_i), 100_000):
        h = pair_profile(eps, c_i[lo:lo + 100_000], c_j[lo:lo + 100_000], float(k), N)
        best = np.maximum(best, h.max(axis=1))
    return best if np.ndim(epsilon) else float(best[0])


def profile_argmax(epsilon: float, k: float, N: int, min_count: int) -> int:
    """n = 2: the c_i in [m, N - m - 1] of the largest H_eps(c_i, N - c_i), by full scan
    (the first one on a tie)."""
    from .._pairs import pair_profile
    c_i = np.arange(min_count, N - min_count, dtype=float)
    h = pair_profile(np.array([float(epsilon)]), c_i, N - c_i, float(k), N)[0]
    return int(c_i[np.argmax(h)])


def epsilon_for_delta_scan(delta: float, k: float, N: int, n: int, min_count: int) -> float:
    """The inverse of ``profile_scan`` as ``epsilon_for_delta`` did it before: Brent's method
    (tolerances 1e-12) on the full scan at every step."""
    from scipy.optimize import brentq

    def gap(e):
        return profile_scan(e, k, N, n, min_count) - delta
    if gap(0.0) <= 0:
        return 0.0
    hi = 1.0
    while gap(hi) > 0:
        hi *= 2
    return brentq(gap, hi / 2 if hi > 1 else 0.0, hi, xtol=1e-12, rtol=1e-12)
