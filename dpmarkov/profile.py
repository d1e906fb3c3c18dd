"""The tight privacy profile of the Dirichlet mechanism: the exact delta(epsilon).

Theorem 1 gives one (epsilon, delta) pair through probabilistic DP (Definition 6),
which only upper-bounds what Definition 4 asks.  The mechanism is (epsilon, delta)-DP
exactly when delta >= sup over adjacent c, c' of the hockey-stick divergence

    H_eps(P || Q) = sup_T [P(T) - e^eps Q(T)] = E_P[(1 - e^(eps - L))_+],

with P = Dir(k c/N), Q = Dir(k c'/N) and L the privacy loss.  For c' = c + e_i - e_j the
loss depends on x only through B = x_j / (x_i + x_j), which is Beta(k c_j/N, k c_i/N)
under P and Beta(k(c_j - 1)/N, k(c_i + 1)/N) under Q, so H_eps is a difference of two
Beta tail probabilities.  Book: chapter "The tight privacy profile", which derives
this, finds the worst pair and checks everything by quadrature and Monte Carlo.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from scipy.special import betainc, betaln

from . import _checks
from .loss import adjacent_indices, scalar_pair_design
from .privacy import lgamma_increment

# n = 2 is solved by scanning every adjacent pair: at most this many pairs.
_MAX_SCAN = 2_000_000


def _log_lower_tail(a, b, log_u):
    """log P(Beta(a, b) < u) given log u, also when u underflows.

    For log u < -700, I_u(a, b) = u^a / (a B(a, b)) * (1 + O(u)) and the O(u) term is
    below 1e-300: the leading term is exact in double precision.  This matters for a
    small k, where the tail that decides L > eps sits at 1 - B < e^(-1000) and more.
    """
    tiny = log_u < -700.0
    with np.errstate(divide="ignore"):
        regular = np.log(betainc(a, b, np.exp(np.where(tiny, -700.0, log_u))))
    asymptotic = a * log_u - np.log(a) - betaln(a, b)
    return np.where(tiny, asymptotic, regular)


def _pair_profile(eps, c_i, c_j, k, N):
    """H_eps for c = (.., c_i, .., c_j, ..) -> c' = c + e_i - e_j; eps (m,) x pairs (p,) -> (m, p).

    L = D + h logit(B), D = loss data term, h = k/N; L > eps iff 1 - B < u with
    u = expit((D - eps)/h); 1 - B is Beta(a_i, a_j) under P and Beta(a_i + h, a_j - h)
    under Q, so H = P(1-B < u) - e^eps Q(1-B < u) = P(..) (1 - e^(eps + log Q - log P)).
    """
    h = k / N
    a_i, a_j = k * c_i / N, k * c_j / N
    data = lgamma_increment(a_i, h) - lgamma_increment(a_j - h, h)
    eps = np.asarray(eps, float)[:, None]
    log_u = -np.logaddexp(0.0, (eps - data) / h)
    log_p = _log_lower_tail(a_i, a_j, log_u)
    log_q = _log_lower_tail(a_i + h, a_j - h, log_u)
    with np.errstate(invalid="ignore"):
        out = np.exp(log_p) * -np.expm1(eps + log_q - log_p)
    out = np.where(np.isneginf(log_p), 0.0, out)
    return np.maximum(out, 0.0)


@_checks.public
def hockey_stick(epsilon, counts, counts_prime, k):
    """H_eps(Dir(k c/N) || Dir(k c'/N)) for adjacent counts: the exact delta of one pair.

    The smallest delta such that P(T) <= e^eps Q(T) + delta for every set T
    (Definition 4 restricted to this pair); computed as
    P(1 - B < u) - e^eps Q(1 - B < u) with Beta tails, in logarithms so that a tail
    at u below the smallest double (small k) is still exact (book: tight profile chapter).
    Rounding can leave a result of order 1e-16 below 0 when the divergence is 0; it
    is returned as 0.  Broadcasts over ``epsilon`` (>= 0).
    """
    i, j = adjacent_indices(counts, counts_prime)
    c = _checks.counts_array("counts", counts)
    k = _checks.positive("k", k)
    if k.ndim:
        raise ValueError(f"k={k!r} must be a scalar")
    eps = _epsilons(epsilon)
    if c[j] < 2:
        raise ValueError(f"counts_prime has a zero count in category {j}: Dir(k*C') needs "
                         "every count > 0 (Assumption 3)")
    if c[i] < 1:
        raise ValueError(f"counts has a zero count in category {i}: Dir(k*C) needs every "
                         "count > 0 (Assumption 3)")
    out = _pair_profile(eps.ravel(), c[i], c[j], float(k), c.sum())[:, 0].reshape(eps.shape)
    return out if out.ndim else float(out)


def _epsilons(epsilon):
    eps = _checks.as_float_array("epsilon", epsilon)
    bad = eps < 0
    if np.any(bad):
        raise ValueError(f"epsilon={_checks._first_bad(eps, bad)!r} must be >= 0")
    return eps


def _design(k, N, n, min_count):
    k, N, n, m = scalar_pair_design(k, N, n, min_count,
                                    "privacy_profile broadcasts over epsilon only")
    if n == 2 and N - 2 * m > _MAX_SCAN:
        raise ValueError(f"n=2 with N={N}, min_count={m}: the worst pair is found by scanning "
                         f"all {N - 2 * m} adjacent pairs, more than {_MAX_SCAN}")
    return float(k), N, n, m


@_checks.public
def profile_pairs(N, n, min_count):
    """The (c_i, c_j) that can be the worst adjacent pair for ``privacy_profile``.

    c' = c + e_i - e_j.  For n >= 3 the single pair (m, m+1): the divergence does
    not increase when either count grows (book: a Beta-multiplication kernel maps
    the pair (c_i, c_j) onto (c_i + t, c_j) and (c_i, c_j + t), and the hockey-stick
    divergence cannot grow under post-processing), and (m, m+1) is feasible when
    n >= 3.  For n = 2, c_i + c_j = N is forced and every c_i in [m, N-m-1] is
    returned (scanned exhaustively).  Assumption 3: m = ceil(eta N).
    """
    _, N, n, m = _design(1.0, N, n, min_count)
    if n >= 3:
        return np.array([float(m)]), np.array([float(m + 1)])
    c_i = np.arange(m, N - m, dtype=float)
    return c_i, N - c_i


@_checks.public
def privacy_profile(epsilon, k, N, n, min_count):
    """The tight delta(epsilon) of the Dirichlet mechanism (Definition 4; compare Theorem 1).

    delta(eps) = max over adjacent count vectors c, c' (Definition 3) with every
    count >= ``min_count`` (= ceil(eta N) under Assumption 3) of the hockey-stick
    divergence H_eps(Dir(k c/N) || Dir(k c'/N)).  The mechanism is (eps, delta)-DP
    if and only if delta >= privacy_profile(eps, ...).  n enters only through which
    pairs are feasible (``profile_pairs``).  Broadcasts over ``epsilon`` (>= 0);
    ``k``, ``N``, ``n``, ``min_count`` are scalars.  Book: "The tight privacy profile".
    """
    k, N, n, m = _design(k, N, n, min_count)
    eps = _epsilons(epsilon)
    c_i, c_j = profile_pairs(N, n, m)
    flat = eps.ravel()
    out = np.empty(flat.shape)
    step = max(1, 200_000 // max(len(c_i), 1))
    for start in range(0, len(flat), step):
        block = flat[start:start + step]
        best = np.zeros(len(block))
        for lo in range(0, len(c_i), 200_000):
            h = _pair_profile(block, c_i[lo:lo + 200_000], c_j[lo:lo + 200_000], k, N)
            best = np.maximum(best, h.max(axis=1))
        out[start:start + step] = best
    out = out.reshape(eps.shape)
    return out if out.ndim else float(out)


@_checks.public
def epsilon_for_delta(delta, k, N, n, min_count):
    """The smallest epsilon >= 0 with privacy_profile(epsilon) <= delta: the inverse profile.

    The tight epsilon at a given delta (Definition 4), to compare with Theorem 1's
    eq. (6).  The profile decreases in epsilon, so the root is unique; it is found
    by bracketing and Brent's method (absolute tolerance 1e-12).  Returns 0 when
    delta is at least the profile at epsilon = 0 (the total variation distance).
    ``delta`` in (0, 1) broadcasts.  Book: "The tight privacy profile".
    """
    d = _checks.as_float_array("delta", delta)
    bad = (d <= 0) | (d >= 1)
    if np.any(bad):
        raise ValueError(f"delta={_checks._first_bad(d, bad)!r} must satisfy 0 < delta < 1")
    k, N, n, m = _design(k, N, n, min_count)
    out = np.empty(d.size)
    for idx, target in enumerate(d.ravel()):
        def gap(e):
            return privacy_profile(e, k, N, n, m) - target
        if gap(0.0) <= 0:
            out[idx] = 0.0
            continue
        hi = 1.0
        while gap(hi) > 0:
            hi *= 2
        out[idx] = brentq(gap, hi / 2 if hi > 1 else 0.0, hi, xtol=1e-12, rtol=1e-12)
    out = out.reshape(d.shape)
    return out if out.ndim else float(out)
