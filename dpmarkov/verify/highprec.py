"""High-precision twins of the closed forms, written straight from the paper with mpmath.

These are deliberately naive transcriptions (no cancellation tricks): at 60
significant digits the naive formula is exact enough to judge the float path.
Each returns an ``mpmath.mpf``.  Book: every chapter's "Verification" section.
"""
from __future__ import annotations

import mpmath as mp

DPS = 60


def epsilon(k, eta, N, n, gamma):
    """eq. (6) of Theorem 1, evaluated with mpmath at DPS digits."""
    with mp.workdps(DPS):
        k, eta, N, n, gamma = (mp.mpf(str(v)) for v in (k, eta, N, n, gamma))
        beta = mp.log(mp.beta(k * eta, k * (1 - 2 * eta))) - mp.log(
            mp.beta(k * (eta + 1 / N), k * (1 - 2 * eta - 1 / N)))
        return +(beta + k / N * mp.log((1 - (n - 1) * gamma) / gamma))


def exit_probability_union(counts, k, gamma):
    """Boole's bound sum_i P(Beta(k C_i, k(1 - C_i)) < gamma), each tail by ``lower_tail``."""
    with mp.workdps(DPS):
        counts = [mp.mpf(str(c)) for c in counts]
        N = mp.fsum(counts)
        k, gamma = mp.mpf(str(k)), mp.mpf(str(gamma))
        return +mp.fsum(lower_tail(k * c / N, k * (1 - c / N), gamma) for c in counts)


def lower_tail(a, b, x, dps=DPS):
    """I_x(a, b) = P(Beta(a, b) < x) at dps digits, by the series of ``log_lower_tail``.

    The series' terms are all positive, so nothing cancels in the sum (its logarithms cancel
    by about log10((a + b) log(a + b)) digits, which the 20 guard digits below cover up to
    a + b near 1e10; beyond that a digit or two of the dps are lost), but it can be slow: it
    has j0 = ((a + b) x - a - 1) / (1 - x) growing terms before its ratios fall below 1, and
    then about sqrt(400 (a + 1 + j0) / (1 - x)) more.  Where the series of the
    other tail needs fewer, the value is 1 - I_(1-x)(b, a) (DLMF 8.17.4) at 20 guard digits,
    kept only if it is above 10^-10 (so the subtraction cost at most 10 of them); a smaller
    tail is always summed directly.  mpmath's own betainc (a hypergeometric series) stops
    with "converges too slowly" at the shapes of k = 1e7, N = 1e9 (tests/test_delta.py);
    this does not.  ``a``, ``b``, ``x``: floats (taken exactly) or mpf.
    """
    with mp.workdps(dps + 20):
        a, b, x = mp.mpf(a), mp.mpf(b), mp.mpf(x)
        value = None
        if series_terms(b, a, 1 - x) < series_terms(a, b, x):
            value = 1 - mp.exp(log_lower_tail(b, a, 1 - x, dps + 20))
        if value is None or value <= mp.mpf(10) ** -10:
            value = mp.exp(log_lower_tail(a, b, x, dps + 20))
    with mp.workdps(dps):
        return +value


def series_terms(a, b, x):
    """About how many terms ``log_lower_tail``'s series needs at (a, b, x) (``lower_tail``)."""
    grow = max((a + b) * x - a - 1, 0) / (1 - x)
    return grow + mp.sqrt(400 * (a + 1 + grow) / (1 - x))


def log_lower_tail(a, b, x, dps=DPS):
    """log I_x(a, b), the lower tail of Beta(a, b) at 0 < x < 1, by DLMF 8.17.8 at dps digits.

    I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) sum_n t_n, t_0 = 1, t_(n+1) = t_n (a + b + n) x /
    (a + 1 + n): every term is positive, so nothing cancels, also where mpmath's own betainc
    does not converge (a = 1e5, b = 1e4, x = 0.3 at 50 digits) or where the tail is far below
    the smallest double.  Summed until a term falls below 10^-dps of the sum (the ratios tend
    to x < 1).  ``a``, ``b``, ``x``: floats (taken exactly) or mpf.
    """
    with mp.workdps(dps):
        a, b, x = mp.mpf(a), mp.mpf(b), mp.mpf(x)
        total, term, j = mp.mpf(1), mp.mpf(1), 0
        while term > mp.mpf(10) ** -dps * total:
            term *= (a + b + j) * x / (a + 1 + j)
            total += term
            j += 1
        return +(a * mp.log(x) + b * mp.log1p(-x) - mp.log(a) - mp.loggamma(a)
                 - mp.loggamma(b) + mp.loggamma(a + b) + mp.log(total))


def expected_kl(C, k):
    """eq. (8) of Theorem 2 with mpmath's digamma."""
    with mp.workdps(DPS):
        C = [mp.mpf(str(c)) for c in C]
        k = mp.mpf(str(k))
        psi_k = mp.digamma(k)       # the same for every term: evaluated once (same value)
        return +mp.fsum(c * (mp.log(c) + psi_k - mp.digamma(k * c)) for c in C)


def kl_bound(k, N, n):
    """Corollary 1 with mpmath's digamma."""
    with mp.workdps(DPS):
        k, N, n = mp.mpf(str(k)), mp.mpf(str(N)), mp.mpf(str(n))

        def zeta(x):
            return mp.log((x + 1) / N) - mp.digamma((x + 1) * k / N)
        return +((n - 1) / N * zeta(0) + (N - n + 1) / N * zeta(N - n) + mp.digamma(k))
