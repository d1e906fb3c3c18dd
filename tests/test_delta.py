"""delta of Theorem 1 (eq. 7): the worst count vector and the exact exit probability.

exit_probability_exact against mpmath quadrature (n = 2, 3) and Monte Carlo (n = 4);
worst_counts against exhaustive search over all integer count vectors with exact
probabilities; the spreading lemma behind the proof; delta(method=...) and its checks.
Book: chapter "delta".
"""
from __future__ import annotations

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
    with pytest.raises(ValueError, match="zero count"):
        dm.exit_probability_exact([1, 1, 1, 1, 6], 10.0, 0.01)
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
    with pytest.raises(ValueError, match="zero count"):
        dm.delta(20.6, 0.073, 98, 5, 4e-4, method="exact")
