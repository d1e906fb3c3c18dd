"""Privacy parameters of the Dirichlet mechanism: Theorem 1, eqs. (6)-(7).

Book: chapters "The Dirichlet mechanism" (what the numbers mean) and the
privacy part (where each formula is checked: "The privacy loss of the Dirichlet
mechanism" for eq. (6), "delta" for eq. (7), worst_counts and the exact exit
probability).  Functions broadcast over array arguments unless their docstring
says otherwise, and reject parameters outside Assumptions 2-4.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import betainc, betaln, gammaln, polygamma

from . import _checks
from .accuracy import _SERIES_FROM, _lgamma_remainder

# lgamma_increment: Stirling's series from _SERIES_FROM on (the remainder R of
# accuracy.py), a Taylor series for increments below _TAYLOR_RATIO * x.
_TAYLOR_RATIO = 1e-3


def lgamma_increment(x, h):
    """log Gamma(x + h) - log Gamma(x) without cancellation for large x.

    For x >= 10 the difference is taken term by term from Stirling's series,
    (x + h - 1/2) log1p(h/x) + h log x - h + [tail(x + h) - tail(x)], so a small
    increment of a huge argument (k = 1e7, h = k/N) keeps its relative accuracy.
    For h <= 1e-3 x (a huge N) a six-term Taylor series in polygamma functions
    replaces the difference of two nearly equal values.
    """
    x, h = np.broadcast_arrays(np.asarray(x, float), np.asarray(h, float))
    taylor = np.abs(h) <= _TAYLOR_RATIO * x
    big = (x >= _SERIES_FROM) & (x + h >= _SERIES_FROM) & ~taylor
    out = np.empty(x.shape)
    xb, hb = x[big], h[big]
    out[big] = ((xb + hb - 0.5) * np.log1p(hb / xb) + hb * np.log(xb) - hb
                + (_lgamma_remainder(xb + hb) - _lgamma_remainder(xb)))
    # A tiny increment: Taylor series sum_j h^j/j! psi^(j-1)(x); after six terms the
    # remainder is about (h/x)^6 <= 1e-18 relative to the first term when h <= 1e-3 x.
    xt, ht = x[taylor], h[taylor]
    acc, power = np.zeros(xt.shape), np.ones(xt.shape)
    for j in range(1, 7):
        power = power * ht / j
        acc = acc + power * polygamma(j - 1, xt)
    out[taylor] = acc
    small = ~big & ~taylor
    out[small] = gammaln(x[small] + h[small]) - gammaln(x[small])
    return out


def _design(k, eta, N, n, gamma, *, assumption_4=True):
    """Validate and broadcast (k, eta, N, n, gamma) against Assumptions 2-4 (4 optional)."""
    k = _checks.positive("k", k)
    eta = _checks.eta_ok(eta)
    N = _checks.integer_at_least("N", N, 2)
    n = _checks.integer_at_least("n", n, 2)
    gamma = _checks.gamma_ok(gamma, n)
    _checks.design_ok(eta, N, n)
    if assumption_4:
        _checks.k_meets_assumption_4(k, eta)
    return k, eta, N, n, gamma


@_checks.public
def epsilon_paper(k, eta, N, n, gamma):
    """epsilon of Theorem 1, eq. (6) as printed, for the Dirichlet mechanism with parameter k.

    epsilon = log[ B(k eta, k(1-2 eta)) / B(k(eta + 1/N), k(1 - 2 eta - 1/N)) ]
              + (k/N) log[(1 - (n-1) gamma) / gamma]

    Both Beta functions have the same argument sum k(1 - eta), so the log-ratio is
    two increments of log Gamma, computed without cancellation.

    Parameters are the Dirichlet parameter ``k``, the border ``eta`` of
    Assumption 3 (every count >= eta*N, 0 < eta < 1/4), the number of records
    ``N``, of categories ``n``, and the border ``gamma`` of Omega_1 (Assumption 2,
    and gamma < 1/n).  Requires k >= 3/(2 eta) (Assumption 4) and
    3 eta + 1/N <= 1 (else the proof's interval [eta + 1/N, 1 - 2 eta - 1/N] is
    empty and eq. (6) can be negative; only N <= 3 is affected).  Broadcasts.

    This is the paper's formula as printed.  The book ("The exact worst case")
    shows it is an upper bound on the privacy loss over Omega_1 for n >= 3 but
    not for n = 2; ``epsilon_corrected`` and ``epsilon_exact`` hold for every n.
    """
    k, eta, N, n, gamma = _design(k, eta, N, n, gamma)
    bad = 3 * eta + 1 / N > 1 + 1e-12
    if np.any(bad):
        raise ValueError(
            f"N={_checks._first_bad(N, bad):.0f} and eta={_checks._first_bad(eta, bad)!r} give "
            "3*eta + 1/N > 1: the proof of Theorem 1 needs 1 - 2*eta - 1/N >= eta, and eq. (6) "
            "can be negative here (use epsilon_exact)")
    h = k / N
    a, b = k * eta, k * (1 - 2 * eta)
    beta_term = lgamma_increment(b - h, h) - lgamma_increment(a, h)
    ratio_term = h * (np.log1p(-(n - 1) * gamma) - np.log(gamma))
    out = beta_term + ratio_term
    return out if out.ndim else float(out)


@_checks.public
def k_min(eta):
    """The smallest k allowed by Assumption 4: 3/(2 eta)."""
    return 1.5 / _checks.eta_ok(eta)


@_checks.public
def epsilon_star_paper(eta, N, n, gamma):
    """The smallest epsilon Theorem 1 offers: eq. (6) as printed at k = 3/(2 eta) (Section 3.1)."""
    return epsilon_paper(k_min(eta), eta, N, n, gamma)


def _k_for(bound, epsilon_target, eta, N, n, gamma):
    """The k at which ``bound`` (eq. (6) or its sound version) equals ``epsilon_target``."""
    target = _checks.positive("epsilon", epsilon_target)
    eta = _checks.eta_ok(eta)
    N = _checks.integer_at_least("N", N, 2)
    n = _checks.integer_at_least("n", n, 2)
    gamma = _checks.gamma_ok(gamma, n)
    shape = np.broadcast(target, eta, N, n, gamma).shape
    t, e, NN, nn, g = (np.broadcast_to(np.asarray(v, float), shape).ravel()
                       for v in (target, eta, N, n, gamma))
    out = np.empty(t.shape)
    for i in range(t.size):
        lo = float(k_min(e[i]))
        floor = bound(lo, e[i], NN[i], nn[i], g[i])
        if t[i] < floor:
            raise ValueError(
                f"epsilon={t[i]!r} is below epsilon_star={floor:.6g}, the smallest epsilon "
                f"Theorem 1 gives for eta={e[i]!r}, N={NN[i]:.0f}, n={nn[i]:.0f}, "
                f"gamma={g[i]!r} (Assumption 4: k >= 3/(2*eta))")
        hi = 2 * lo
        while bound(hi, e[i], NN[i], nn[i], g[i]) < t[i]:
            hi *= 2
        out[i] = brentq(lambda kk: bound(kk, e[i], NN[i], nn[i], g[i]) - t[i],
                        lo, hi, xtol=1e-300, rtol=1e-13, maxiter=500)
    out = out.reshape(shape)
    return out if out.ndim else float(out)


@_checks.public
def k_for_epsilon_paper(epsilon_target, eta, N, n, gamma):
    """The k at which eq. (6) as printed equals ``epsilon_target`` (the inverse of eq. (6)).

    eq. (6) is strictly increasing in k (book: the privacy-loss chapter proves it and
    checks it numerically), so the root is unique; it is found by bracketing and
    Brent's method to a relative tolerance of 1e-13.  A target below
    epsilon_star raises ``ValueError``: no k allowed by Assumption 4 reaches it.
    """
    return _k_for(epsilon_paper, epsilon_target, eta, N, n, gamma)


@_checks.public
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
    n = _checks.length("n", int(_checks.integer_at_least("n", n, 2)))
    _checks.design_ok(np.asarray(eta), np.asarray(float(N)), np.asarray(float(n)))
    m = int(np.ceil(eta * N - 1e-9))
    return np.array([m] * (n - 1) + [N - (n - 1) * m], dtype=float)


@_checks.public
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


# exit_probability_exact: largest n it supports (inclusion-exclusion with nested quadrature);
# relative tolerance of the outer quadrature, and of the inner one (tighter, so that the
# outer integrand is smooth to well below the outer tolerance).
_EXACT_MAX_N = 4
_QUAD_RTOL = 1e-10
_INNER_RTOL = 1e-13


def _all_below(alphas, rest, t, rtol=_QUAD_RTOL):
    """P(Y_l < t for every l in the block) for Y ~ Dir(alphas, rest); rest > 0 is the remainder.

    Conditioning on the first coordinate x ~ Beta(a, b), the others divided by (1 - x)
    are again Dirichlet (alphas[1:], rest), so one quadrature per extra coordinate.
    The factor x^(a-1) (singular when a < 1) is the algebraic weight of QUADPACK's
    QAWS rule, so the integrand left is smooth.
    """
    a, others = alphas[0], alphas[1:]
    b = sum(others) + rest
    if not others:
        return float(betainc(a, b, t))

    def inner(x):
        return (1.0 - x) ** (b - 1.0) * _all_below(others, rest, t / (1.0 - x), _INNER_RTOL)
    value, _ = quad(inner, 0.0, t, weight="alg", wvar=(a - 1.0, 0.0), epsabs=0.0,
                    epsrel=rtol, limit=200)
    return float(np.exp(-betaln(a, b)) * value)


@_checks.public
def exit_probability_exact(counts, k, gamma):
    """P(Dir(k C) not in Omega_1) = P(some X_i < gamma), exactly, for n <= 4 categories.

    The probability in eq. (7) of Theorem 1.  Inclusion-exclusion over the events
    {X_i < gamma}: the single terms are Beta CDFs, the pairwise (n >= 3) and triple
    (n = 4) terms are one- and two-dimensional integrals done by adaptive
    quadrature to a relative tolerance of about 1e-10 (book: delta chapter, where
    the result is checked against mpmath and Monte Carlo).  All n events cannot
    occur together because gamma < 1/n.  ``counts`` is one count vector, ``k`` and
    ``gamma`` scalars.  For n > 4 use ``exit_probability_union`` (an upper bound).
    """
    arr = _checks.counts_array("counts", counts)
    if arr.ndim != 1:
        raise ValueError(f"counts has shape {arr.shape}: exit_probability_exact takes one "
                         "count vector")
    n = arr.shape[-1]
    if n > _EXACT_MAX_N:
        raise ValueError(f"counts has n={n} categories: exit_probability_exact supports "
                         f"n <= {_EXACT_MAX_N} (use exit_probability_union, an upper bound)")
    if np.any(arr == 0):
        raise ValueError(f"counts={arr.tolist()} has a zero count: Dir(k*C) needs every "
                         "count > 0 (Assumption 3)")
    k = _checks.positive("k", k)
    gamma = _checks.gamma_ok(gamma, np.asarray(float(n)))
    if k.ndim or gamma.ndim:
        raise ValueError(f"k={k!r} and gamma={gamma!r} must be scalars for "
                         "exit_probability_exact")
    k, gamma = float(k), float(gamma)
    alpha = k * arr / arr.sum()
    total = 0.0
    for size in range(1, n):
        sign = 1.0 if size % 2 else -1.0
        for block in combinations(range(n), size):
            rest = alpha.sum() - alpha[list(block)].sum()
            total += sign * _all_below([float(alpha[i]) for i in block], float(rest), gamma)
    return total


_DELTA_METHODS = ("union", "exact")


@_checks.public
def delta(k, eta, N, n, gamma, *, method="union"):
    """delta of Theorem 1, eq. (7): the largest probability of leaving Omega_1.

    delta = 1 - min_C P(Dir(k C) in Omega_1), the minimum over the count vectors
    allowed by Assumption 3 (integer counts >= ceil(eta N) summing to N).  The
    minimiser is ``worst_counts`` (book: the delta chapter proves it and checks it
    by exhaustive search), so delta is the exit probability at that vector.

    ``method="union"`` (default) replaces the probability by Boole's bound
    (``exit_probability_union``): never below eq. (7)'s delta, so the guarantee is
    not weakened.  ``method="exact"`` computes it by ``exit_probability_exact``
    (n <= 4 only).  Broadcasts over all arguments.
    """
    if method not in _DELTA_METHODS:
        raise ValueError(f"method={method!r} must be one of {_DELTA_METHODS}")
    k, eta, N, n, gamma = _design(k, eta, N, n, gamma)
    exit_probability = exit_probability_union if method == "union" else exit_probability_exact
    shape = np.broadcast(k, eta, N, n, gamma).shape
    args = [np.broadcast_to(v, shape).ravel() for v in (k, eta, N, n, gamma)]
    out = np.array([exit_probability(worst_counts(e, NN, nn), kk, g)
                    for kk, e, NN, nn, g in zip(*args)]).reshape(shape)
    return out if out.ndim else float(out)


# --- sound by default ------------------------------------------------------------------------
# eq. (6) as printed is not an upper bound on the privacy loss for n = 2 (book: "The exact
# worst case"); the functions a release is calibrated with use a bound that holds for every n.


@_checks.public
def epsilon(k, eta, N, n, gamma):
    """A sound epsilon for Theorem 1: eq. (6) where it is an upper bound, else the corrected eq. (6).

    For n >= 3 this is eq. (6) as printed (``epsilon_paper``), an upper bound on the
    privacy loss over Omega_1.  For n = 2, where eq. (6) understates the loss, it is
    ``epsilon_corrected`` (1 - 2 eta replaced by 1 - (n-1) eta), which holds for
    every n.  Broadcasts.  Book: "The exact worst case".
    """
    from .loss import epsilon_corrected
    paper = np.asarray(epsilon_paper(k, eta, N, n, gamma))
    n_arr = np.broadcast_to(np.asarray(n, float), paper.shape)
    out = paper.copy()
    two = n_arr == 2
    if np.any(two):
        corrected = np.broadcast_to(np.asarray(epsilon_corrected(k, eta, N, n, gamma)), paper.shape)
        out[two] = corrected[two]
    return out if out.ndim else float(out)


@_checks.public
def epsilon_star(eta, N, n, gamma):
    """The smallest sound epsilon at k = 3/(2 eta): ``epsilon`` at Assumption 4's floor."""
    return epsilon(k_min(eta), eta, N, n, gamma)


@_checks.public
def k_for_epsilon(epsilon_target, eta, N, n, gamma):
    """The k at which the sound ``epsilon`` equals ``epsilon_target``: never an unsound k.

    For n >= 3 this is the inverse of eq. (6) (``k_for_epsilon_paper``); for n = 2 the
    inverse of the corrected eq. (6), since eq. (6) understates the loss there.
    """
    return _k_for(epsilon, epsilon_target, eta, N, n, gamma)
