"""Privacy parameters of the Dirichlet mechanism: Theorem 1, eqs. (6)-(7).

Book: chapters "The Dirichlet mechanism" (what the numbers mean) and the
privacy part (where each formula is checked).  Every function broadcasts over
array arguments and rejects parameters outside Assumptions 2-4.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from scipy.special import betainc, gammaln

from . import _checks

# Stirling series for log Gamma(x) - [(x - 1/2) log x - x + log(2 pi)/2]; below
# _STIRLING_FROM we call gammaln directly.
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188)
_STIRLING_FROM = 10.0


def _stirling_tail(x):
    x2 = x * x
    s, p = 0.0, x
    for c in _STIRLING:
        s = s + c / p
        p = p * x2
    return s


def lgamma_increment(x, h):
    """log Gamma(x + h) - log Gamma(x) without cancellation for large x.

    For x >= 10 the difference is taken term by term from Stirling's series,
    (x + h - 1/2) log1p(h/x) + h log x - h + [tail(x + h) - tail(x)], so a small
    increment of a huge argument (k = 1e7, h = k/N) keeps its relative accuracy.
    """
    x, h = np.broadcast_arrays(np.asarray(x, float), np.asarray(h, float))
    big = (x >= _STIRLING_FROM) & (x + h >= _STIRLING_FROM)
    out = np.empty(x.shape)
    xb, hb = x[big], h[big]
    out[big] = ((xb + hb - 0.5) * np.log1p(hb / xb) + hb * np.log(xb) - hb
                + (_stirling_tail(xb + hb) - _stirling_tail(xb)))
    small = ~big
    out[small] = gammaln(x[small] + h[small]) - gammaln(x[small])
    return out


def _design(k, eta, N, n, gamma):
    """Validate and broadcast (k, eta, N, n, gamma) against Assumptions 2-4."""
    k = _checks.positive("k", k)
    eta = _checks.eta_ok(eta)
    N = _checks.integer_at_least("N", N, 2)
    n = _checks.integer_at_least("n", n, 2)
    gamma = _checks.gamma_ok(gamma, n)
    _checks.design_ok(eta, N, n)
    _checks.k_meets_assumption_4(k, eta)
    return k, eta, N, n, gamma


def epsilon(k, eta, N, n, gamma):
    """epsilon of Theorem 1, eq. (6), for the Dirichlet mechanism with parameter k.

    epsilon = log[ B(k eta, k(1-2 eta)) / B(k(eta + 1/N), k(1 - 2 eta - 1/N)) ]
              + (k/N) log[(1 - (n-1) gamma) / gamma]

    Both Beta functions have the same argument sum k(1 - eta), so the log-ratio is
    two increments of log Gamma, computed without cancellation.

    Parameters are the Dirichlet parameter ``k``, the border ``eta`` of
    Assumption 3 (every count >= eta*N, 0 < eta < 1/4), the number of records
    ``N``, of categories ``n``, and the border ``gamma`` of Omega_1 (Assumption 2,
    and gamma < 1/n).  Requires k >= 3/(2 eta) (Assumption 4).  Broadcasts.
    """
    k, eta, N, n, gamma = _design(k, eta, N, n, gamma)
    h = k / N
    a, b = k * eta, k * (1 - 2 * eta)
    beta_term = lgamma_increment(b - h, h) - lgamma_increment(a, h)
    ratio_term = h * (np.log1p(-(n - 1) * gamma) - np.log(gamma))
    out = beta_term + ratio_term
    return out if out.ndim else float(out)


def k_min(eta):
    """The smallest k allowed by Assumption 4: 3/(2 eta)."""
    return 1.5 / _checks.eta_ok(eta)


def epsilon_star(eta, N, n, gamma):
    """The smallest epsilon Theorem 1 offers: eq. (6) at k = 3/(2 eta) (Section 3.1)."""
    return epsilon(k_min(eta), eta, N, n, gamma)


def k_for_epsilon(epsilon_target, eta, N, n, gamma):
    """The k at which eq. (6) equals ``epsilon_target`` (the inverse of eq. (6)).

    eq. (6) is strictly increasing in k (book: the privacy-loss chapter proves it and
    checks it numerically), so the root is unique; it is found by bracketing and
    Brent's method to a relative tolerance of 1e-13.  A target below
    epsilon_star raises ``ValueError``: no k allowed by Assumption 4 reaches it.
    """
    target = _checks.positive("epsilon", epsilon_target)
    shape = np.broadcast(target, eta, N, n, gamma).shape
    t, e, NN, nn, g = (np.broadcast_to(np.asarray(v, float), shape).ravel()
                       for v in (target, eta, N, n, gamma))
    out = np.empty(t.shape)
    for i in range(t.size):
        lo = float(k_min(e[i]))
        floor = epsilon(lo, e[i], NN[i], nn[i], g[i])
        if t[i] < floor:
            raise ValueError(
                f"epsilon={t[i]!r} is below epsilon_star={floor:.6g}, the smallest epsilon "
                f"Theorem 1 gives for eta={e[i]!r}, N={NN[i]:.0f}, n={nn[i]:.0f}, "
                f"gamma={g[i]!r} (Assumption 4: k >= 3/(2*eta))")
        hi = 2 * lo
        while epsilon(hi, e[i], NN[i], nn[i], g[i]) < t[i]:
            hi *= 2
        out[i] = brentq(lambda kk: epsilon(kk, e[i], NN[i], nn[i], g[i]) - t[i],
                        lo, hi, xtol=1e-300, rtol=1e-13, maxiter=500)
    out = out.reshape(shape)
    return out if out.ndim else float(out)


def worst_counts(eta, N, n):
    """The count vector that makes leaving Omega_1 most likely (the minimiser in eq. (7)).

    Our reading of eq. (7): the minimum runs over every count vector of N records in
    n categories allowed by Assumption 3, i.e. integer counts c_i >= ceil(eta*N)
    summing to N.  The minimiser puts the fewest records allowed, m = ceil(eta*N),
    in n-1 categories and the rest, N - (n-1) m, in the last (book: the delta
    chapter proves this and checks it by exhaustive search).
    """
    eta = float(_checks.eta_ok(eta))
    N = int(_checks.integer_at_least("N", N, 2))
    n = int(_checks.integer_at_least("n", n, 2))
    _checks.design_ok(np.asarray(eta), np.asarray(float(N)), np.asarray(float(n)))
    m = int(np.ceil(eta * N - 1e-9))
    return np.array([m] * (n - 1) + [N - (n - 1) * m], dtype=float)


def exit_probability_union(counts, k, gamma):
    """Boole's bound on P(Dir(k C) not in Omega_1) = P(some X_i < gamma).

    sum_i P(X_i < gamma) with X_i ~ Beta(k C_i, k (1 - C_i)) the Dirichlet
    marginal.  It is an upper bound on the exact probability, and exceeds it by
    at most the sum of the pairwise probabilities P(X_i < gamma, X_j < gamma).
    """
    arr = _checks.counts_array("counts", counts)
    k = _checks.positive("k", k)
    C = arr / arr.sum(axis=-1, keepdims=True)
    kk = k[..., None] if k.ndim else k
    n = arr.shape[-1]
    gamma = _checks.gamma_ok(gamma, np.asarray(float(n)))
    gg = gamma[..., None] if gamma.ndim else gamma
    out = np.minimum(betainc(kk * C, kk * (1 - C), gg).sum(axis=-1), 1.0)
    return out if out.ndim else float(out)


def delta(k, eta, N, n, gamma):
    """delta of Theorem 1, eq. (7), as a guaranteed upper bound.

    delta = 1 - min_C P(Dir(k C) in Omega_1): the largest probability, over the
    count vectors allowed by Assumption 3 (see ``worst_counts``), that the output
    falls outside Omega_1 = {x : every x_i >= gamma}.  The probability is replaced
    by Boole's bound (``exit_probability_union``), so the value returned is never
    below eq. (7)'s delta: the guarantee is not weakened.  The book's delta chapter
    measures the gap to the exact value.  Broadcasts over all arguments.
    """
    k, eta, N, n, gamma = _design(k, eta, N, n, gamma)
    shape = np.broadcast(k, eta, N, n, gamma).shape
    args = [np.broadcast_to(v, shape).ravel() for v in (k, eta, N, n, gamma)]
    out = np.array([exit_probability_union(worst_counts(e, NN, nn), kk, g)
                    for kk, e, NN, nn, g in zip(*args)]).reshape(shape)
    return out if out.ndim else float(out)
