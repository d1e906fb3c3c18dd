"""Renyi divergence between Dirichlet laws and the Renyi DP curve (dpmarkov/renyi.py).

Closed form against mpmath quadrature (n = 2 and 3) and Monte Carlo; the worst pair
against brute force over every adjacent pair; the finiteness boundary alpha < c_i + 1;
the conversion to (epsilon, delta) against dp_accounting's.  Book: "Many releases".
"""
from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant as rdp_lib

import dpmarkov as dm
from dpmarkov.verify import bruteforce as bf


def _beta_quadrature(alpha, a, b):
    """D_alpha(Beta(a) || Beta(b)) by 30-digit quadrature of p^alpha q^(1-alpha)."""
    mp.mp.dps = 30
    la, lb = mp.log(mp.beta(*a)), mp.log(mp.beta(*b))

    def f(x):
        lp = (a[0] - 1) * mp.log(x) + (a[1] - 1) * mp.log(1 - x) - la
        lq = (b[0] - 1) * mp.log(x) + (b[1] - 1) * mp.log(1 - x) - lb
        return mp.exp(alpha * lp + (1 - alpha) * lq)
    return float(mp.log(mp.quad(f, [0, 0.5, 1])) / (alpha - 1))


def _dirichlet3_quadrature(alpha, a, b):
    """n = 3: the same integral over the 2-simplex (x, y, 1 - x - y) by scipy's dblquad."""
    from scipy.integrate import dblquad
    from scipy.special import gammaln
    lba = gammaln(a).sum() - gammaln(sum(a))
    lbb = gammaln(b).sum() - gammaln(sum(b))
    expo = [alpha * (u - 1) + (1 - alpha) * (v - 1) for u, v in zip(a, b)]

    def f(y, x):
        return x ** expo[0] * y ** expo[1] * max(1 - x - y, 0.0) ** expo[2]
    val, _ = dblquad(f, 0, 1, 0, lambda x: 1 - x, epsabs=0, epsrel=1e-11)
    return (math.log(val) - alpha * lba - (1 - alpha) * lbb) / (alpha - 1)


@pytest.mark.parametrize("alpha, a, b", [(2.0, [2.0, 3.0], [3.0, 2.0]),
                                         (1.5, [0.7, 4.0], [1.2, 3.5]),
                                         (5.0, [20.0, 30.0], [21.0, 29.0]),
                                         (1.01, [3.0, 0.5], [2.5, 1.0])])
def test_closed_form_matches_quadrature_n2(alpha, a, b):
    # a wrong sign of (1 - alpha), or B(a)^alpha B(b)^alpha in the normaliser, misses by > 1e-3
    assert dm.renyi_divergence(alpha, a, b) == pytest.approx(_beta_quadrature(alpha, a, b),
                                                             rel=1e-10)


def test_closed_form_matches_quadrature_n3():
    alpha, a, b = 1.7, [2.0, 3.0, 4.0], [3.0, 2.0, 4.0]
    assert dm.renyi_divergence(alpha, a, b) == pytest.approx(
        _dirichlet3_quadrature(alpha, a, b), rel=1e-8)


def test_closed_form_matches_monte_carlo():
    # D_alpha = log E_Q[(p/q)^alpha] / (alpha - 1); the MC mean of (p/q)^alpha under Q has a
    # standard error we estimate from the draws: the check allows 5 of them on the mean.
    alpha, a, b = 1.5, np.array([2.0, 3.0, 4.0]), np.array([3.0, 2.5, 3.5])
    rng = np.random.default_rng(11)
    x = rng.dirichlet(b, size=400_000)
    from scipy.stats import dirichlet
    ratio = np.exp(alpha * (dirichlet.logpdf(x.T, a) - dirichlet.logpdf(x.T, b)))
    mean, se = ratio.mean(), ratio.std(ddof=1) / math.sqrt(len(ratio))
    exact = math.exp((alpha - 1) * dm.renyi_divergence(alpha, a, b))
    assert abs(mean - exact) < 5 * se


def test_infinite_exactly_where_the_mixture_leaves_the_orthant():
    # alpha a + (1 - alpha) b = 3*2 - 2*3 = 0 in the first coordinate: divergent integral
    assert dm.renyi_divergence(3.0, [2.0, 3.0], [3.0, 2.0]) == math.inf
    assert math.isfinite(dm.renyi_divergence(2.999, [2.0, 3.0], [3.0, 2.0]))
    assert dm.renyi_divergence(2.0, [1.0, 1.0], [1.0, 1.0]) == 0.0


def test_large_parameters_keep_their_accuracy():
    # a and b differ by one unit at 1e6: two log Beta values of size 1e7 would cancel to
    # ~1e-9; the increments keep full precision (mpmath at 40 digits as reference)
    mp.mp.dps = 40
    a, b, alpha = [1e6, 2e6, 3e6], [1e6 + 1, 2e6 - 1, 3e6], 2.0
    lb = lambda v: sum(mp.loggamma(mp.mpf(t)) for t in v) - mp.loggamma(mp.mpf(sum(v)))
    c = [alpha * x + (1 - alpha) * y for x, y in zip(a, b)]
    exact = (lb(c) - alpha * lb(a) - (1 - alpha) * lb(b)) / (alpha - 1)
    assert dm.renyi_divergence(alpha, a, b) == pytest.approx(float(exact), rel=1e-9)


@pytest.mark.parametrize("N, n, m", [(9, 2, 1), (10, 2, 3), (9, 3, 1), (11, 3, 2), (9, 4, 1),
                                     (13, 4, 2)])
@pytest.mark.parametrize("k", [0.7, 6.0, 80.0])
def test_rdp_epsilon_equals_brute_force_over_all_pairs(N, n, m, k):
    # every ordered adjacent pair, both orders; orders avoid the boundary alpha = m + 1,
    # where float division k*c/N decides the sign of a zero mixture
    alpha = np.array([1.2, 1.5, 1.9, 2.5, 3.2])
    pairs = list(bf.adjacent_pairs(N, n, m))
    c = np.array([p[0] for p in pairs])[None] * k / N
    cp = np.array([p[1] for p in pairs])[None] * k / N
    best = dm.renyi_divergence(alpha[:, None], c, cp).max(axis=1)
    got = dm.rdp_epsilon(alpha, k, N, n, m)
    assert np.array_equal(np.isfinite(best), np.isfinite(got))
    fin = np.isfinite(best)
    # rdp_epsilon is rounded outward (about 1e-12 relative on these designs)
    assert np.all(got[fin] >= best[fin] * (1 - 1e-14))
    assert np.allclose(got[fin], best[fin], rtol=1e-10, atol=0)


def test_rdp_finite_iff_alpha_below_min_count_plus_one():
    got = dm.rdp_epsilon([1.5, 8.999, 9.0, 12.0], 20.6, 98, 5, 8)
    assert np.isfinite(got[:2]).all() and np.isinf(got[2:]).all()


def test_rdp_is_increasing_in_alpha_and_k():
    alpha = np.linspace(1.05, 7.9, 40)
    r = dm.rdp_epsilon(alpha, 20.6, 98, 5, 8)
    assert np.all(np.diff(r) > 0)
    assert dm.rdp_epsilon(2.0, 40.0, 98, 5, 8) > dm.rdp_epsilon(2.0, 20.6, 98, 5, 8)


def test_conversion_matches_dp_accounting():
    alpha = np.linspace(1.1, 7.5, 60)
    r = dm.rdp_epsilon(alpha, 20.6, 98, 5, 8)
    ours, order = dm.rdp_to_dp(alpha, r, 1e-5)
    theirs, their_order = rdp_lib.compute_epsilon(alpha, r, 1e-5)
    assert ours == pytest.approx(theirs, rel=1e-12) and order == their_order
    classic, _ = dm.rdp_to_dp(alpha, r, 1e-5, conversion="classic")
    assert classic > ours      # the improved conversion is never worse


@pytest.mark.parametrize("call, match", [
    (lambda: dm.renyi_divergence(1.0, [1, 2], [2, 1]), "alpha=1.0 must be > 1"),
    (lambda: dm.renyi_divergence(2.0, [1, 2], [2, 1, 3]), "must agree"),
    (lambda: dm.renyi_divergence(2.0, [0, 2], [2, 1]), "must be > 0"),
    (lambda: dm.rdp_epsilon(2.0, 1.0, 10, 3, 4), "N=10 < n\\*min_count\\+1"),
    (lambda: dm.rdp_to_dp([2.0], [0.1], 0.0), "delta=0.0"),
    (lambda: dm.rdp_to_dp([2.0], [-0.1], 1e-5), "must be >= 0"),
])
def test_bad_input_is_rejected_clearly(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("N", [3000, 20_000, 150_000])
@pytest.mark.parametrize("k_per_N", [1e-4, 0.015, 10.0])
def test_rdp_epsilon_two_categories_equals_the_full_scan(N, k_per_N):
    # n = 2 above 2048 pairs: branch and bound on blocks of pairs (c, N - c), each bounded by
    # the pair (c0, N - c1).  It must give exactly the maximum of the full scan.  This checks
    # the wiring: the divergence evaluated with its counts in the wrong order (c_j, c_i) fails
    # every case.  The pruning itself, with maxima inside the range (here the maximum is at an
    # end), is tested in test_profile.py (test_branch_and_bound_finds_an_interior_maximum).
    # Orders include infinite ones (alpha >= m + 1).
    from dpmarkov import renyi
    alpha = np.array([1.05, 1.5, 2.0, 8.0, 50.0, 1e3])
    k = k_per_N * N
    for m in (1, 3, N // 10, N // 2 - 700):
        c = np.arange(m, N - m, dtype=float)
        scan = renyi._pair_divergence(alpha, c, N - c, k, N).max(axis=1)
        assert np.array_equal(dm.rdp_epsilon(alpha, k, N, 2, m), scan), m


def test_rdp_epsilon_two_categories_at_huge_N():
    # N = 1e9 (8e8 pairs) in milliseconds; no sampled pair exceeds the result
    from dpmarkov import renyi
    N, m, k = 10**9, 10**8, 1.5e7
    alpha = np.array([1.5, 2.0, 8.0])
    got = dm.rdp_epsilon(alpha, k, N, 2, m)
    c = np.unique(np.r_[m, N - m - 1, np.random.default_rng(3).integers(m, N - m, 20_000)])
    assert np.all(renyi._pair_divergence(alpha, c.astype(float), (N - c).astype(float), k, N)
                  <= got[:, None])
    # where the divergences are equal to within rounding over millions of pairs, an error
    with pytest.raises(ValueError, match="cannot be located in double precision"):
        dm.rdp_epsilon([2.0, 8.0], 1.5e12, 10**14, 2, 10**13)


@pytest.mark.parametrize("k, N, n, m", [(20.6, 98, 5, 8), (1500.0, 10**5, 3, 10**4),
                                        (15000.0, 10**6, 2, 10**5), (1.5e7, 10**9, 2, 10**8),
                                        (0.7, 9, 2, 1)])
def test_rdp_epsilon_is_never_below_the_real_divergence(k, N, n, m):
    # Pairs (c_i, c_j) -> (c_i + 1, c_j - 1) in 50-digit arithmetic, as Beta pairs of the two
    # counts that change (which have the divergence of the Dirichlet pair; book: "Many
    # releases"): the pair (m, m + 1) for n >= 3 (rdp_pairs), both end pairs for n = 2.
    # The log-integral is of second order in k/N while its terms are of first order, so
    # rounding to nearest can land on either side; rdp_epsilon adds a bound on its rounding
    # error and must not fall below any of them, nor exceed the largest by much.
    alpha = [1.2, 2.0, 8.0]
    got = dm.rdp_epsilon(alpha, k, N, n, m)
    pairs = [(m, m + 1)] if n >= 3 else [(m, N - m), (N - m - 1, m + 1)]
    lb = lambda v: mp.loggamma(v[0]) + mp.loggamma(v[1]) - mp.loggamma(v[0] + v[1])  # noqa
    with mp.workdps(50):
        h = mp.mpf(k) / N
        for a_, g in zip(alpha, got):
            al, reals = mp.mpf(a_), []
            for c_i, c_j in pairs:
                c, cp = [h * c_i, h * c_j], [h * (c_i + 1), h * (c_j - 1)]
                mix = [al * x + (1 - al) * y for x, y in zip(cp, c)]
                reals.append((lb(mix) - al * lb(cp) - (1 - al) * lb(c)) / (al - 1)
                             if min(mix) > 0 else mp.inf)
            real = max(reals)
            assert mp.mpf(g) >= real
            if real != mp.inf:   # the bound is pessimistic; relative to a tiny divergence it grows
                assert (mp.mpf(g) - real) / real < (1e-5 if N <= 10**6 else 1e-2)


def test_infinite_at_extreme_parameters_where_the_mixture_leaves_the_orthant():
    # issue 27: at extreme orders and parameters the closed form's arithmetic overflows,
    # yet where the exact mixture alpha a + (1 - alpha) b has an entry <= 0 the documented
    # answer is +inf (decided in fractions near the border, overflow or underflow)
    from fractions import Fraction
    values = [1e-300, 1e-20, 0.5, 1e20, 1e300]
    checked = 0
    for alpha in (1 + 2**-52, 1.5, 1e6, 1e200, 1e308):
        for a0, a1, b0, b1 in itertools.product(values, repeat=4):
            al = Fraction(alpha)
            if all(al * Fraction(x) + (1 - al) * Fraction(y) > 0 for x, y in ((a0, b0), (a1, b1))):
                continue
            assert dm.renyi_divergence(alpha, [a0, a1], [b0, b1]) == np.inf
            checked += 1
    assert checked > 1500


@pytest.mark.parametrize("conversion", ["improved", "classic"])
def test_conversion_is_never_below_the_real_formula(conversion):
    # rdp_to_dp rounds each order's epsilon outward: never below the 50-digit value of the
    # same formula, and within 1e-14 of it.  At this order the plain double formula is
    # 2.7e-17 (relative) below the improved conversion's value, so leaving the outward step
    # out fails; a step of 1e-12 fails the upper bound.
    import mpmath as mp
    a, r, d = 1.0032302190271334, 4.177494390647248, 4.204650495314e-06
    got, order = dm.rdp_to_dp([a], [r], d, conversion=conversion)
    with mp.workdps(50):
        A, R, D = mp.mpf(a), mp.mpf(r), mp.mpf(d)
        exact = (R + mp.log1p(-1 / A) - mp.log(D * A) / (A - 1) if conversion == "improved"
                 else R + mp.log(1 / D) / (A - 1))
        assert exact <= got <= exact * (1 + mp.mpf(1e-14)), (got, exact)
    if conversion == "improved":
        assert r + np.log1p(-1 / a) - np.log(d * a) / (a - 1) < exact
