"""mpmath twins of the privacy functions added for the privacy part of the book.

Naive transcriptions at DPS digits (no cancellation tricks), to judge the float
code: the exact worst-case loss and the corrected eq. (6) of Theorem 1, the exit
probability of eq. (7) for n <= 3 by mpmath quadrature, and the hockey-stick
divergence of one adjacent pair by quadrature of (p - e^eps q)_+, or, for shapes too
large for the quadrature, from the two Beta tails at the optimal threshold.
Book: "The exact worst case", "delta", "The tight privacy profile".
"""
from __future__ import annotations

import mpmath as mp

from . import highprec

DPS = 40


def _mp(*values):
    return [mp.mpf(str(v)) for v in values]


def log_beta(alphas):
    """log of the multivariate Beta function B(alpha).

    log Gamma is evaluated once per distinct alpha (the worst pair repeats m in n - 2
    categories); the sum still runs over every alpha, so the value is the same.
    """
    log_gamma = {}
    for a in alphas:
        if a not in log_gamma:
            log_gamma[a] = mp.loggamma(a)
    return mp.fsum(log_gamma[a] for a in alphas) - mp.loggamma(mp.fsum(alphas))


def epsilon_exact(k, N, n, gamma, min_count):
    """log B(k c'/N) - log B(k c/N) at the worst pair plus (k/N) log((1-(n-1)gamma)/gamma)."""
    with mp.workdps(DPS):
        k, N, n, gamma, m = _mp(k, N, n, gamma, min_count)
        big = N - (n - 1) * m
        c = [big - 1, m + 1] + [m] * int(n - 2)
        cp = [big, m] + [m] * int(n - 2)
        data = log_beta([k * v / N for v in cp]) - log_beta([k * v / N for v in c])
        return +(data + k / N * mp.log((1 - (n - 1) * gamma) / gamma))


def epsilon_corrected(k, eta, N, n, gamma):
    """eq. (6) with 1 - 2 eta replaced by 1 - (n-1) eta."""
    with mp.workdps(DPS):
        k, eta, N, n, gamma = _mp(k, eta, N, n, gamma)
        top = 1 - (n - 1) * eta
        data = (mp.log(mp.beta(k * eta, k * top))
                - mp.log(mp.beta(k * (eta + 1 / N), k * (top - 1 / N))))
        return +(data + k / N * mp.log((1 - (n - 1) * gamma) / gamma))


def exit_probability(counts, k, gamma):
    """P(some X_i < gamma), X ~ Dir(k C), n = 2, 3 or 4, by mpmath.

    n = 2: two Beta CDFs.  n = 3: 1 - P(every X_i >= gamma), the inner probability
    as one integral over x_1 in [gamma, 1 - 2 gamma] of the Beta(a_1, a_2 + a_3)
    density times P(gamma <= X_2 <= 1 - x_1 - gamma | x_1) (a Beta(a_2, a_3) law
    for X_2 / (1 - x_1)).  No inclusion-exclusion, unlike the float code.
    """
    with mp.workdps(DPS):
        counts = _mp(*counts)
        k, gamma = _mp(k, gamma)
        total = mp.fsum(counts)
        a = [k * c / total for c in counts]
        if len(a) == 2:
            return +(mp.betainc(a[0], a[1], 0, gamma, regularized=True)
                     + mp.betainc(a[1], a[0], 0, gamma, regularized=True))
        if len(a) == 4:
            return _exit_probability_4(a, gamma)
        if len(a) != 3:
            raise ValueError("n must be 2, 3 or 4")
        b = a[1] + a[2]
        norm = mp.beta(a[0], b)

        def f(x):
            y_lo, y_hi = gamma / (1 - x), (1 - x - gamma) / (1 - x)
            inner = mp.betainc(a[1], a[2], y_lo, y_hi, regularized=True)
            return x ** (a[0] - 1) * (1 - x) ** (b - 1) / norm * inner
        lo, hi = gamma, 1 - 2 * gamma
        mode = min(max((a[0] - 1) / (a[0] + b - 2), lo), hi) if a[0] + b > 2 else (lo + hi) / 2
        pts = sorted({lo, mode, hi})
        inside = mp.quad(f, pts, maxdegree=10)
        return +(1 - inside)


def _exit_probability_4(a, gamma):
    """n = 4: 1 - P(every X_i >= gamma) as a double integral over (x_1, x_2) of the Dirichlet
    chain rule (x_1 ~ Beta(a_1, a_2+a_3+a_4), x_2/(1-x_1) ~ Beta(a_2, a_3+a_4)) times the
    probability that x_3/(1-x_1-x_2) ~ Beta(a_3, a_4) keeps x_3 and x_4 >= gamma."""
    b1, b2 = a[1] + a[2] + a[3], a[2] + a[3]
    n1, n2 = mp.beta(a[0], b1), mp.beta(a[1], b2)

    def inner(x1):
        r = 1 - x1

        def g(y):                     # y = x_2 / (1 - x_1)
            s = r * (1 - y)           # x_3 + x_4
            lo, hi = gamma / s, (s - gamma) / s
            return (y ** (a[1] - 1) * (1 - y) ** (b2 - 1) / n2
                    * mp.betainc(a[2], a[3], lo, hi, regularized=True))
        return mp.quad(g, [gamma / r, (r - 2 * gamma) / r])

    def f(x1):
        return x1 ** (a[0] - 1) * (1 - x1) ** (b1 - 1) / n1 * inner(x1)
    return +(1 - mp.quad(f, [gamma, 1 - 3 * gamma]))


def hockey_stick(epsilon, counts, counts_prime, k):
    """H_eps between the laws of B = x_j/(x_i+x_j) under c and c' by quadrature of (p - e^eps q)_+.

    c' = c + e_i - e_j; the loss depends on x only through B (book: tight profile).
    The integral is taken in z = logit(B), where the densities decay exponentially,
    from the root z* of log p(z) - log q(z) = eps (found by bracketing and bisection
    on the numerically evaluated log-densities) to infinity.
    """
    with mp.workdps(DPS):
        diff = [float(b) - float(a) for a, b in zip(counts, counts_prime)]
        i, j = diff.index(1.0), diff.index(-1.0)
        c, cp = _mp(*counts), _mp(*counts_prime)
        k, eps = _mp(k, epsilon)
        N = mp.fsum(c)
        p = (k * c[j] / N, k * c[i] / N)
        q = (k * cp[j] / N, k * cp[i] / N)

        log_beta = {ab: mp.log(mp.beta(*ab)) for ab in (p, q)}   # once, not per point

        def log_dens(z):
            # densities of z = logit(B) for B ~ Beta(ab): b^a (1-b)^beta / B(a, beta), under c
            # and under c' (ab = p, q); log b and log(1 - b) are computed once for both
            log_b, log_1mb = -mp.log1p(mp.exp(-z)), -mp.log1p(mp.exp(z))
            return [ab[0] * log_b + ab[1] * log_1mb - log_beta[ab] for ab in (p, q)]

        def gap(z):
            log_p, log_q = log_dens(z)
            return log_p - log_q - eps
        lo, hi = mp.mpf(-1), mp.mpf(1)
        while gap(lo) > 0:
            lo *= 2
        while gap(hi) < 0:
            hi *= 2
        for _ in range(400):
            mid = (lo + hi) / 2
            if mid == lo or mid == hi:    # lo, hi adjacent: further steps leave (lo + hi)/2 = mid
                break
            if gap(mid) < 0:
                lo = mid
            else:
                hi = mid
        start = (lo + hi) / 2
        # mp.quad's stopping rule is absolute: scale the integrand to order one first
        scale = log_dens(start)[0]

        def integrand(z):
            log_p, log_q = log_dens(z)
            return mp.exp(log_p - scale) - mp.exp(eps + log_q - scale)
        return +(mp.exp(scale) * mp.quad(integrand, [start, start + 1, start + 10, mp.inf]))


def pair_hockey_stick(epsilon, c_i, c_j, k, N, dps=30):
    """H_eps of the pair c -> c + e_i - e_j from the Beta tails: P(U < u) - e^eps Q(U < u).

    U = 1 - x_j/(x_i + x_j) is Beta(a_i, a_j) under c and Beta(a_i + h, a_j - h) under c',
    a = k c/N and h = k/N exactly (the arguments are taken as the doubles they are), and u
    is the threshold where the loss reaches eps, from the exact log-gamma data term (book:
    "The tight privacy profile"; ``dpmarkov.profile.pair_profile`` in floating point).  The
    tails are ``highprec.lower_tail``'s series, which also converge for shapes of 1e8.
    """
    with mp.workdps(dps + 20):
        k, N, c_i, c_j, eps = (mp.mpf(float(v)) for v in (k, N, c_i, c_j, epsilon))
        a, b, h = k * c_i / N, k * c_j / N, k / N
        data = mp.loggamma(a + h) + mp.loggamma(b - h) - mp.loggamma(a) - mp.loggamma(b)
        u = 1 / (1 + mp.exp((eps - data) / h))
        return (highprec.lower_tail(a, b, u, dps)
                - mp.exp(eps) * highprec.lower_tail(a + h, b - h, u, dps))
