"""delta of Theorem 1 (eq. 7): the worst count vector and the exact exit probability.

exit_probability_exact against mpmath quadrature (n = 2, 3) and Monte Carlo (n = 4);
worst_counts against exhaustive search over all integer count vectors with exact
probabilities; the spreading lemma behind the proof; delta(method=...) and its checks.
Book: chapter "delta".
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import betainc

import dpmarkov as dm
from dpmarkov.verify import bruteforce as bf
from dpmarkov.verify import highprec_privacy as hp


@pytest.mark.parametrize("counts, k, gamma", [
    ([3, 7], 5.0, 0.2), ([8, 90], 20.6, 4e-4), ([3, 4, 5], 5.0, 0.2), ([8, 8, 82], 20.6, 4e-4),
    ([1, 1, 10], 0.8, 0.1), ([10, 20, 30], 200.0, 0.15)])
def test_exact_matches_mpmath_quadrature(counts, k, gamma):
    # scipy quadrature at relative tolerance 1e-11 against mpmath at 40 digits: 1e-9.
    got = dm.exit_probability_exact(counts, k, gamma)
    assert got == pytest.approx(float(hp.exit_probability(counts, k, gamma)), rel=1e-9)


def test_exact_n2_is_the_sum_of_two_beta_cdfs():
    # for n = 2 the events {X_1 < g} and {X_2 < g} are disjoint (g < 1/2): Boole is exact
    assert dm.exit_probability_exact([3, 7], 5.0, 0.2) == pytest.approx(
        betainc(1.5, 3.5, 0.2) + betainc(3.5, 1.5, 0.2), rel=1e-14)
    assert dm.exit_probability_exact([3, 7], 5.0, 0.2) == pytest.approx(
        dm.exit_probability_union([3, 7], 5.0, 0.2), rel=1e-14)


@pytest.mark.parametrize("counts, k, gamma", [([2, 3, 4, 6], 5.0, 0.1), ([3, 3, 3, 11], 12.0, 0.12),
                                              ([5, 5, 30], 8.0, 0.1)])
def test_exact_matches_monte_carlo(counts, k, gamma):
    draws = 100_000
    x = dm.privatize(counts, k, rng=11, size=draws)
    hits = (x.min(axis=1) < gamma).mean()
    exact = dm.exit_probability_exact(counts, k, gamma)
    se = np.sqrt(exact * (1 - exact) / draws)
    assert abs(hits - exact) < 5 * se            # 5 standard errors
    union = dm.exit_probability_union(counts, k, gamma)
    assert union >= exact - 1e-12
    assert exact >= max(betainc(k * np.array(counts) / sum(counts),
                                k * (1 - np.array(counts) / sum(counts)), gamma)) - 1e-12


def test_union_minus_exact_is_the_pairwise_mass():
    # n = 3 with gamma < 1/3: no triple overlaps, so Boole - exact = sum of pairwise terms > 0
    counts, k, gamma = [3, 4, 5], 5.0, 0.2
    gap = dm.exit_probability_union(counts, k, gamma) - dm.exit_probability_exact(counts, k, gamma)
    x = dm.privatize(counts, k, rng=5, size=100_000)
    below = x < gamma
    pairs = sum((below[:, i] & below[:, j]).mean() for i in range(3) for j in range(i + 1, 3))
    se = np.sqrt(gap / 100_000) * 2              # conservative: sum of 3 binomial SEs
    assert gap > 0 and abs(pairs - gap) < 5 * se


@pytest.mark.parametrize("N, n, m", [(12, 2, 1), (12, 2, 3), (12, 3, 1), (12, 3, 2), (8, 4, 1),
                                     (11, 4, 2)])
@pytest.mark.parametrize("k, gamma", [(2.0, 0.1), (15.0, 0.05), (60.0, 0.2)])
def test_worst_counts_maximise_exact_exit_probability(N, n, m, k, gamma):
    if gamma >= 1 / n:
        pytest.skip("gamma must be < 1/n")
    if n == 4 and (N, k) != (11, 15.0):
        pytest.skip("n = 4 costs two nested quadratures per vector: one design suffices")
    value, counts = bf.max_exit_probability(dm.exit_probability_exact, k, N, n, gamma, m)
    eta = m / N - 1e-9                         # ceil(eta N) = m
    worst = dm.worst_counts(eta, N, n)
    assert worst.min() == m
    assert dm.exit_probability_exact(worst, k, gamma) == pytest.approx(value, rel=1e-9)


@pytest.mark.parametrize("s", [1.0, 3.0, 20.0, 300.0])
def test_spreading_lemma(s):
    # P(t <= B <= 1-t) for B ~ Beta(a, s-a) does not increase as |a - s/2| grows (book: delta).
    a = np.linspace(s / 2, s * 0.999, 300)
    for t in (0.01, 0.2, 0.45):
        inside = betainc(a, s - a, 1 - t) - betainc(a, s - a, t)
        assert np.all(np.diff(inside) <= 1e-13)


def test_delta_exact_is_exit_probability_at_worst_counts():
    for n in (2, 3, 4):
        d = dm.delta(20.6, 0.073, 98, n, 4e-4, method="exact")
        assert d == dm.exit_probability_exact(dm.worst_counts(0.073, 98, n), 20.6, 4e-4)
        assert d <= dm.delta(20.6, 0.073, 98, n, 4e-4)


def test_delta_broadcasts_with_exact_method():
    out = dm.delta(np.array([20.6, 30.0]), 0.073, 98, 3, 4e-4, method="exact")
    assert out.shape == (2,) and out[1] < out[0]


def test_continuous_reading_gives_larger_delta():
    # C = (eta, ..., eta, 1-(n-1) eta) written as integer counts out of 1000
    k, gamma = 20.6, 4e-4
    cont = dm.exit_probability_union([73, 73, 73, 73, 708], k, gamma)
    integer = dm.delta(k, 0.073, 98, 5, gamma)
    assert cont == pytest.approx(1.9967e-3, rel=1e-4)
    assert integer == pytest.approx(7.305e-4, rel=1e-3)
    assert cont > integer


def test_exact_rejects_bad_input():
    assert 0 < dm.exit_probability_exact([1, 1, 1, 1, 6], 10.0, 0.01) <= 1   # n = 5 is allowed now
    with pytest.raises(ValueError, match="zero count"):
        dm.exit_probability_exact([0, 3, 4], 10.0, 0.01)
    with pytest.raises(ValueError, match="one count vector"):
        dm.exit_probability_exact([[1, 2], [3, 4]], 10.0, 0.01)
    with pytest.raises(ValueError, match="scalars"):
        dm.exit_probability_exact([1, 2, 3], [10.0, 20.0], 0.01)
    with pytest.raises(ValueError, match="1/n"):
        dm.exit_probability_exact([1, 2, 3], 10.0, 0.34)
    with pytest.raises(ValueError, match="must be > 0"):
        dm.exit_probability_exact([1, 2, 3], -1.0, 0.01)
    with pytest.raises(ValueError, match="finite"):
        dm.exit_probability_exact([1, 2, 3], 10.0, np.nan)
    assert 0 < dm.delta(20.6, 0.073, 98, 5, 4e-4, method="exact") <= dm.delta(20.6, 0.073, 98, 5,
                                                                             4e-4)


# --------------------------------------------------------------------------- every k, every n
@pytest.mark.parametrize("counts, k, gamma", [([2, 2, 2, 4], 60.0, 0.2)])
def test_exact_n4_matches_mpmath_double_integral(counts, k, gamma):
    # mpmath double integral of the Dirichlet chain rule at 20 digits (no inclusion-exclusion);
    # the float quadrature is good to about 1e-13, so 1e-11 rejects any wrong term sign
    import mpmath as mp
    with mp.workdps(20):
        ref = hp._exit_probability_4([mp.mpf(k) * c / sum(counts) for c in counts], mp.mpf(gamma))
    assert dm.exit_probability_exact(counts, k, gamma) == pytest.approx(float(ref), rel=1e-11)


def test_exact_small_alpha_matches_mpmath():
    # a Dirichlet parameter of 0.067: most of the mass sits at x < 1e-10 (the old quadrature
    # and a plain grid in x both miss it)
    assert dm.exit_probability_exact([1, 1, 10], 0.8, 0.1) == pytest.approx(
        float(hp.exit_probability([1, 1, 10], 0.8, 0.1)), rel=1e-12)


@pytest.mark.parametrize("counts, k, gamma", [([1, 1, 1, 381], 14855.4, 0.1368),
                                              ([2, 2, 2, 4], 1e5, 0.2),
                                              ([5, 5, 5, 85], 3e3, 0.02)])
def test_exact_large_k_in_range_and_within_the_union_bound(counts, k, gamma):
    # the old code returned -5.2e42, NaN after 180 s; the value must lie between the largest
    # single tail and Boole's bound
    got = dm.exit_probability_exact(counts, k, gamma)
    C = np.array(counts) / sum(counts)
    single = betainc(k * C, k * (1 - C), gamma)
    assert np.isfinite(got) and single.max() - 1e-15 <= got <= min(single.sum(), 1.0) + 1e-15


def test_exact_large_k_against_monte_carlo():
    # ([2,2,2,4], 1e5, 0.2): every small coordinate sits at its mean 0.2 = gamma
    draws = 200_000
    x = dm.privatize([2, 2, 2, 4], 1e5, rng=3, size=draws)
    hits = (x.min(axis=1) < 0.2).mean()
    exact = dm.exit_probability_exact([2, 2, 2, 4], 1e5, 0.2)
    assert abs(hits - exact) < 5 * np.sqrt(exact * (1 - exact) / draws)   # 5 standard errors


def test_delta_exact_at_large_k_is_not_nan():
    d = dm.delta(2.4e3, 0.1, 100, 3, 1e-3, method="exact")
    assert d == 0.0 or 0 < d <= dm.delta(2.4e3, 0.1, 100, 3, 1e-3)
    d = dm.delta([30.0, 300.0, 3e4], 0.1, 100, 3, 0.05, method="exact")
    assert np.all(np.isfinite(d)) and np.all(d <= dm.delta([30.0, 300.0, 3e4], 0.1, 100, 3, 0.05))


@pytest.mark.parametrize("counts, k, gamma", [([3, 3, 3, 3, 8], 12.0, 0.06),
                                              ([2, 3, 4, 5, 6, 10], 8.0, 0.04)])
def test_bonferroni_bracket_for_n_at_least_5_contains_monte_carlo(counts, k, gamma):
    lo, hi = dm.exit_probability_bounds(counts, k, gamma)
    assert 0 <= lo <= hi <= min(dm.exit_probability_union(counts, k, gamma), 1.0)
    assert dm.exit_probability_exact(counts, k, gamma) == hi
    draws = 200_000
    x = dm.privatize(counts, k, rng=7, size=draws)
    hits = (x.min(axis=1) < gamma).mean()
    se = np.sqrt(hits * (1 - hits) / draws)
    assert lo - 5 * se <= hits <= hi + 5 * se          # 5 standard errors


def test_bracket_is_exact_for_n_at_most_4_and_tiny_for_small_probabilities():
    lo, hi = dm.exit_probability_bounds([3, 4, 5, 6], 10.0, 0.05)
    assert lo == hi
    lo, hi = dm.exit_probability_bounds([8] * 5 + [60], 40.0, 0.01)   # a delta-sized probability
    assert 0 < hi - lo <= hi ** 3        # the width is at most S3, of order S1^3


def test_delta_exact_n5_uses_two_distinct_counts_at_any_n():
    # the worst vector has n-1 equal counts: the bracket needs a few terms even at n = 40
    d_exact = dm.delta(60.0, 0.025, 2000, 40, 1e-3, method="exact")
    d_union = dm.delta(60.0, 0.025, 2000, 40, 1e-3)
    assert 0 < d_exact <= d_union


# ------------------------------------------------ outward rounding (issue 27, item 1)
def _delta_designs():
    """k, eta, N, n, gamma over a grid with n = 2, 3 and 5, Assumption 4 (k >= 3/(2 eta))
    and a valid design; plus the design the held-out audit found below its 40-digit value."""
    import itertools
    out = [(100.0, 0.1, 100, 2, 1e-3)]
    for k, eta, N, n, g in itertools.product([20.6, 100.0, 1000.0], [0.05, 0.1, 0.2],
                                             [20, 98, 1000, 10**5], [2, 3, 5], [1e-3, 1e-5]):
        if k >= 1.5 / eta and n * np.ceil(eta * N) + 1 <= N and g < 1 / n:
            out.append((k, eta, N, n, g))
    return out


def test_delta_is_never_below_its_high_precision_value():
    # eq. (7)'s union bound at the worst vector in 60-digit mpmath (its incomplete Beta) is the
    # number delta must never fall below; before the outward rounding 5 of 12 designs of the
    # held-out audit were below it (by up to 3e-14 relative), and 1000, 0.1, 20, 2, 1e-5
    # (true value 5.7e-361) returned 0.  Tight: at most 1e-10 above (betainc_budget is 1e-12
    # plus 5.7e-14 |log I|, below 5e-11 here, plus the shapes' rounding), or the smallest
    # double where the true value underflows.
    import mpmath as mp

    from dpmarkov.verify import highprec as hpu
    tiny = float(np.finfo(float).smallest_subnormal)
    checked = 0
    for k, eta, N, n, g in _delta_designs():
        got = dm.delta(k, eta, N, n, g)
        ref = min(hpu.exit_probability_union(dm.worst_counts(eta, N, n), k, g), mp.mpf(1))
        assert got >= ref, (k, eta, N, n, g, got, ref)
        assert got <= max(ref * (1 + mp.mpf(1e-10)), tiny), (k, eta, N, n, g, got, ref)
        checked += 1
    assert checked > 150
    assert dm.delta(100, 0.1, 100, 2, 1e-3) >= 1.43682794155477673e-17
    assert dm.delta(1000.0, 0.1, 20, 2, 1e-5) == tiny


# ------------------------------------------------ the negligible tail (issue 38, row 4)
def test_log_betainc_upper_is_a_bound_within_its_remainder_of_the_tail():
    # log_betainc_upper: the series' first term, its remainder's bound r_0/(1 - R_0), the
    # prefix's rounding and 1 of slack.  Against the whole series summed in 50-digit mpmath
    # (``highprec.log_lower_tail``, itself checked against mpmath's betainc where that
    # converges) it must be at or above log I (dropping the remainder's log1p fails where R_0
    # is near 1/2, using log instead of log1p fails where it is small) and at most
    # log I + 1 - log(1 - R_0) + 1e-9 above it (first term <= I, rest <= R_0/(1 - R_0)): an
    # upper bound that is far above the tail (a constant, a sign error in a piece of the
    # prefix) fails that.  No bound (+inf) where R_0 >= 1 or a + b > 2^53.
    import mpmath as mp

    from dpmarkov._numerics import MAX_SHAPE, log_betainc_upper
    from dpmarkov.verify import highprec as hpu
    cases = [(a, b, x) for a in (0.3, 1.5, 20.0, 1e3, 1e5) for b in (0.7, 2.0, 150.0, 1e4, 1e6)
             for x in (1e-8, 1e-3, 0.05, 0.3)]
    checked = 0
    for a, b, x in cases:
        upper = float(log_betainc_upper(np.array([a]), np.array([b]), np.array([x]))[0])
        worst = max((a + b) * x / (a + 1), x)
        if worst >= 1:
            assert upper == np.inf, (a, b, x)
            continue
        true = hpu.log_lower_tail(a, b, x, dps=50)
        assert upper >= true, (a, b, x, upper, true)
        assert upper <= true + 1 - np.log1p(-worst) + 1e-9, (a, b, x, upper, true)
        checked += 1
    assert checked > 40
    with mp.workdps(50):
        for a, b, x in [(1.5, 150.0, 1e-3), (20.0, 2.0, 0.3), (0.3, 1e4, 1e-8)]:
            direct = mp.log(mp.betainc(a, b, 0, x, regularized=True))
            assert abs(hpu.log_lower_tail(a, b, x, dps=50) - direct) < 1e-40
    huge = log_betainc_upper(np.array([2.0]), np.array([MAX_SHAPE]), np.array([1e-20]))
    assert huge[0] == np.inf


def test_delta_leaves_out_only_a_negligible_tail_and_is_tight_there():
    # delta_union leaves out the tail at the large count where a cheap bound puts it e^40
    # below the other term (its error included).  (1) Where both tails matter (n = 2, eta =
    # 0.24, gamma = 0.4: the large count's tail is 3% of the sum) delta must still be their
    # 50-digit sum, rounded outward: leaving it out always, or without the margin, fails.
    # (1b) k = 20, gamma = 0.2: that tail is 6e-9 of the sum (e^-18.9), so a margin cut to
    # e^-10 or e^-17 (leaving out 6e-9 > the 1e-10 allowed) fails as well.  (2) Where it is
    # left out (k = 1e5, the tail near e^-1.4e6), delta must be within 2e-10 relative of the
    # 50-digit value: its budget there is betainc_budget's on the small tail (the shapes 2 and
    # 99998 are whole: 1e-12 + 8u 1e5 = 9.0e-11) plus shape roundings below 1e-13; counting
    # the left-out tail's own size and error, as every tail was counted before, overstated it
    # by 8.0e-9, and computing it does too.
    import mpmath as mp

    from dpmarkov.verify import highprec as hpu
    for k, eta, N, n, g, rel in [(6.25, 0.24, 100, 2, 0.4, 1e-10),
                                 (20.0, 0.2, 100, 2, 0.2, 1e-10),
                                 (1e5, 2e-5, 10**6, 2, 1e-6, 2e-10),
                                 (1e5, 2e-5, 10**6, 4, 1e-6, 2e-10)]:
        ref = hpu.exit_probability_union(dm.worst_counts(eta, N, n), k, g)
        got = dm.delta(k, eta, N, n, g)
        assert ref <= got <= ref * (1 + mp.mpf(rel)), (k, eta, N, n, g, got, ref)
    # (1)'s large-count tail is not negligible: the design really tests the sum of both
    m = dm.min_count(0.24, 100)
    share = betainc(6.25 * (100 - m) / 100, 6.25 * m / 100, 0.4)
    assert share > 0.03 * betainc(6.25 * m / 100, 6.25 * (100 - m) / 100, 0.4)


# ------------------------------------------------ scipy's incomplete Beta and its budget
#: Where scipy.special.betainc (scipy 1.17, Boost's ibeta) was measured furthest from the
#: 40-digit value: whole shapes (Boost's binomial sum in powers of 1 - x, rounded once), a
#: design of delta at k = 1e7 (a = 10, b = 9999990, 2.7e-12) and the deepest generic error
#: found (1.1e-12), each above the budget log_betainc had allowed (1e-12 + 4u |log I|).
_BETAINC_WORST = [(23.0, 983412000.0, 2.381e-08), (10.0, 482160000.0, 2.083e-08),
                  (10.0, 9999990.0, 2e-6),
                  (3081.9886637819727, 2983.8293444024434, 0.3838420191251433)]


def test_lower_tail_reference_agrees_with_mpmath_and_an_exact_binomial_sum():
    # highprec.lower_tail (DLMF 8.17.8, or 1 - the other tail where that series is shorter) against
    # mpmath's hypergeometric betainc where that converges, on both branches and in a deep
    # tail (1e-56, where the complement's 20 guard digits would not suffice and the direct
    # series must be used: taking the complement there gave 3.4e-56 for 6.4e-56); and, for
    # whole shapes, against the exact finite sum I_x(a, b) = P(Binomial(a + b - 1, x) >= a).
    # Taking the complement of a tiny tail (no fallback to the direct series) fails the 1e-35
    # agreement, and so does dropping the guard digits (the binomial cases are then 8e-32 off).
    import mpmath as mp

    from dpmarkov.verify import highprec as hpu
    with mp.workdps(40):
        for a, b, x in [(1.5, 150.0, 1e-3), (20.0, 2.0, 0.3), (2.0, 3.0, 0.9), (50.0, 50.0, 0.5),
                        (1e3, 10.0, 0.999), (1000.0, 0.001, 0.5), (1.56e5, 26.44, 0.9987)]:
            direct = mp.betainc(a, b, 0, x, regularized=True)
            assert abs(hpu.lower_tail(a, b, x, dps=40) / direct - 1) < 1e-35, (a, b, x)
        for a, b, x in _BETAINC_WORST[:2]:
            n, y = int(a + b - 1), mp.mpf(x)
            exact = 1 - mp.fsum(mp.binomial(n, j) * y ** j * (1 - y) ** (n - j)
                                for j in range(int(a)))
            assert abs(hpu.lower_tail(a, b, x, dps=40) / exact - 1) < 1e-35, (a, b, x)
        # where mpmath's own betainc gives up (a design of delta at k = 1e7, N = 1e9)
        with pytest.raises(mp.libmp.NoConvergence):
            mp.betainc(1e4, 1e7 - 1e4, 0, 1e-3, regularized=True)
        assert 0 < hpu.lower_tail(1e4, 1e7 - 1e4, 1e-3, dps=40) < 1


def _scipy_error_and_budget(a, b, x):
    """scipy's betainc(a, b, x), the error of its logarithm against the 40-digit
    ``highprec.lower_tail``, and the budget ``log_betainc`` allows it."""
    import mpmath as mp

    from dpmarkov._numerics import betainc_budget
    from dpmarkov.verify import highprec as hpu
    got = betainc(a, b, x)
    error = abs(float(mp.log(got) - mp.log(hpu.lower_tail(a, b, x, dps=40))))
    return got, error, float(betainc_budget(a, b, np.log(got)))


def test_betainc_budget_covers_scipys_measured_errors():
    # log_betainc trusts scipy's betainc above 1e-200 within betainc_budget.  At each of the
    # measured worst cases scipy's error must be within the budget; at the three with whole
    # shapes above the old one (1e-12 + 4u |log I|), which therefore fails this test, and at
    # the generic one above 1e-12 (1.14e-12 under scipy 1.17 and 1.18: a budget without a
    # term in |log I| fails).  Where the shapes are not whole the budget must stay below
    # 1e-10 for |log I| <= 200 (a budget that covers whole shapes by being huge everywhere
    # fails that).
    from dpmarkov._numerics import BETAINC_REL, U, betainc_budget
    for a, b, x in _BETAINC_WORST:
        got, error, budget = _scipy_error_and_budget(a, b, x)
        assert error <= budget, (a, b, x, error, budget)
        old = BETAINC_REL + 4 * U * abs(np.log(got)) if a == int(a) else BETAINC_REL
        assert error > old, (a, b, x, error)
    generic = betainc_budget(np.array([3081.5, 10.5, 0.7]), np.array([2984.5, 9999990.5, 1e9]),
                             np.array([-200.0, -0.005, -30.0]))
    assert (generic < 1e-10).all()
    # whole shapes: 8u (a + b) more, 4.3e-7 at the second worst case (2.1e-8 measured)
    assert float(betainc_budget(10.0, 482160000.0, 0.0)) == pytest.approx(
        BETAINC_REL + 8 * U * 482160010.0, rel=1e-12)


@pytest.mark.parametrize("k, eta, N, n, g", [
    (1e7, 1e-6, 10**9, 2, 2e-6),        # scipy 2.7e-12 low at a = 10: delta was 1.6e-12 low
    (1e7, 1e-5, 10**9, 3, 1e-6),
    (1e6, 0.05, 10**9, 2, 0.04),        # mpmath's betainc does not converge
    (1e7, 0.2, 10**9, 3, 0.19)])
def test_delta_is_never_below_its_high_precision_value_at_large_k(k, eta, N, n, g):
    # The designs of k = 1e6 and 1e7, N = 1e9, which mpmath's betainc could not check (the
    # reference now sums the series itself).  The first had delta 1.6e-12 below eq. (7)'s
    # union bound before the budget covered whole shapes.  Tight: within the budget (the
    # whole-shape term there is 8u 1e7 = 8.9e-9) plus 1e-10.  The last two have tails far
    # below the smallest double: they check that the reference finishes there.
    import mpmath as mp

    from dpmarkov.verify import highprec as hpu
    ref = min(hpu.exit_probability_union(dm.worst_counts(eta, N, n), k, g), mp.mpf(1))
    got = dm.delta(k, eta, N, n, g)
    tiny = float(np.finfo(float).smallest_subnormal)
    assert got >= ref, (got, ref)
    assert got <= max(ref * (1 + mp.mpf(1e-8)), tiny), (got, ref)


#: Large shapes where scipy's error exceeds the budget without its large-shape term
#: (``BETAINC_SHAPE_REL``): 1.9e-11 and 6.1e-12 against 5.3e-12 (I = 1.8e-33 and 1.6e-33).
_BETAINC_LARGE = [(3.6e7, 4.3e7, 0.455023805), (1.15e7, 4.8e7, 0.1926630183)]


def test_betainc_budget_covers_scipys_errors_at_large_shapes():
    # Both shapes above 1e7: the budget's term sqrt(min(a, b)) (1 + sqrt(2 |log I|)) must
    # cover scipy's error, which is above the rest of the budget there (so a budget without
    # that term fails); and it must stay below 1e-9 at these shapes (a term growing like
    # a + b would be 1e-7 here and fails that).
    from dpmarkov._numerics import BETAINC_LOG_REL, BETAINC_REL, U
    for a, b, x in _BETAINC_LARGE:
        got, error, budget = _scipy_error_and_budget(a, b, x)
        rest = BETAINC_REL + (BETAINC_LOG_REL + 4 * U) * abs(np.log(got))
        assert rest < error <= budget < 1e-9, (a, b, x, error, budget)


@pytest.mark.parametrize("a, b, z", [(300.0, 1000.0, -8.0), (1000.0, 10.0, -20.0),
                                     (50.0, 0.7, -3.0), (2000.0, 2000.0, 0.0), (0.5, 3.0, 1.0)])
def test_shape_error_bounds_the_derivatives_of_the_tail(a, b, z):
    # betainc_shape_error(..., log_value=log I) bounds |a d log I/da| and |b d log I/db| (the
    # effect of a relative error in each shape): checked against mpmath's derivatives, in
    # deep tails (z standard deviations below the mean), at the mean and above it.  A bound
    # that undershoots the derivative fails; so does the crude bound alone at and below the
    # mean, where the test asks for the derivatives within 30% (measured: 0.3% in the deep
    # tails, 27% at the mean; the crude one is 6.6 times it at a = 300, b = 1000, z = -8).
    import mpmath as mp

    from dpmarkov._numerics import betainc_shape_error
    x = a / (a + b) + z * math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    with mp.workdps(40):
        def log_tail(aa, bb):
            return mp.log(mp.betainc(aa, bb, 0, x, regularized=True))
        log_value = float(log_tail(a, b))
        true_a = abs(float(mp.diff(lambda t: log_tail(t, mp.mpf(b)), mp.mpf(a)))) * a
        true_b = abs(float(mp.diff(lambda t: log_tail(mp.mpf(a), t), mp.mpf(b)))) * b
    bound_a, bound_b = (float(betainc_shape_error(np.float64(a), np.float64(b), np.float64(x),
                                                  ra, rb, None, np.float64(log_value)))
                        for ra, rb in ((1.0, 0.0), (0.0, 1.0)))
    assert true_a <= bound_a and true_b <= bound_b, (true_a, bound_a, true_b, bound_b)
    if z <= 0:
        assert bound_a <= 1.3 * true_a and bound_b <= 1.3 * true_b, (bound_a, true_a)


def test_shape_error_is_positive_where_the_tail_rounds_to_one():
    # log I computed as 0 (I within half an ulp of 1): sqrt((1 - I)/I) would be 0, but the
    # derivative is not; 1 - I is taken as at least 1e-3 (a bound of 0 fails)
    from dpmarkov._numerics import betainc_shape_error
    bound = betainc_shape_error(np.float64(1e6), np.float64(1e6), np.float64(0.52),
                                3 * 2.0**-53, 3 * 2.0**-53, None, np.float64(-0.0))
    assert bound > 1e-15
