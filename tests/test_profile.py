"""The tight privacy profile (dpmarkov/profile.py): exact hockey-stick divergences.

The Beta-tail formula against mpmath quadrature and against Monte Carlo estimates from
samples of the mechanism; the worst pair against brute force over every adjacent pair;
the post-processing lemma; the inverse; the paper's (epsilon, delta) against the profile.
Book: chapter "The tight privacy profile".
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import dpmarkov as dm
from dpmarkov.verify import bruteforce as bf
from dpmarkov.verify import highprec_privacy as hp

PAIRS = [([8, 9, 81], [9, 8, 81], 20.6), ([3, 7], [4, 6], 5.0), ([2, 8], [1, 9], 0.9),
         ([200, 201, 599], [201, 200, 599], 15.0), ([10, 11, 79], [11, 10, 79], 1e4),
         ([8, 9, 81], [9, 8, 81], 0.05)]    # small k: the deciding tail sits below 1e-308


@pytest.mark.parametrize("c, cp, k", PAIRS)
@pytest.mark.parametrize("eps", [0.0, 0.3, 2.2])
def test_hockey_stick_matches_mpmath_quadrature(c, cp, k, eps):
    # closed form (two Beta tails) vs quadrature of (p - e^eps q)_+ at 40 digits
    exact = float(hp.hockey_stick(eps, c, cp, k))
    got = dm.hockey_stick(eps, c, cp, k)
    assert got == pytest.approx(exact, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("c, cp, k, eps", [([8, 9, 81], [9, 8, 81], 20.6, 0.3),
                                           ([3, 7], [4, 6], 5.0, 0.2),
                                           ([5, 6, 9], [6, 5, 9], 8.0, 0.0)])
def test_hockey_stick_matches_monte_carlo(c, cp, k, eps):
    # E_P[(1 - e^(eps - L))_+] from draws of the mechanism itself; tolerance 5 standard errors
    x = dm.privatize(c, k, rng=7, size=100_000)
    loss = dm.privacy_loss(x, c, cp, k)
    terms = np.maximum(1 - np.exp(eps - loss), 0)
    mean, se = terms.mean(), terms.std(ddof=1) / np.sqrt(len(terms))
    assert abs(mean - dm.hockey_stick(eps, c, cp, k)) < 5 * se


def test_hockey_stick_equals_sup_over_sets():
    # H = P(L > eps) - e^eps Q(L > eps): the set {L > eps} attains the supremum (MC check)
    c, cp, k, eps = [3, 7], [4, 6], 5.0, 0.2
    rng = np.random.default_rng(3)
    xp = dm.privatize(c, k, rng=rng, size=200_000)
    xq = dm.privatize(cp, k, rng=rng, size=200_000)
    lp, lq = dm.privacy_loss(xp, c, cp, k), dm.privacy_loss(xq, c, cp, k)
    est = (lp > eps).mean() - math.exp(eps) * (lq > eps).mean()
    se = math.sqrt((lp > eps).var() / 2e5 + math.exp(2 * eps) * (lq > eps).var() / 2e5)
    assert abs(est - dm.hockey_stick(eps, c, cp, k)) < 5 * se


@pytest.mark.parametrize("N, n, m", [(9, 2, 1), (10, 2, 3), (9, 3, 1), (11, 3, 2), (9, 4, 1),
                                     (12, 4, 2)])
@pytest.mark.parametrize("k", [0.7, 6.0, 80.0])
def test_profile_equals_brute_force_over_all_pairs(N, n, m, k):
    for eps in (0.0, 0.4, 2.0):
        value, _, _ = bf.max_hockey_stick(eps, k, N, n, m)
        assert dm.privacy_profile(eps, k, N, n, m) == pytest.approx(value, rel=1e-12, abs=1e-300)


def test_worst_pair_for_n_at_least_3_is_m_m_plus_1():
    ci, cj = dm.profile_pairs(98, 5, 8)
    assert ci.tolist() == [8.0] and cj.tolist() == [9.0]
    ci, cj = dm.profile_pairs(20, 2, 3)
    assert ci.tolist() == list(range(3, 17)) and np.all(ci + cj == 20)


@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0])
def test_post_processing_lemma_divergence_falls_as_counts_grow(eps):
    # H(c_i + t, c_j) <= H(c_i, c_j) and H(c_i, c_j + t) <= H(c_i, c_j) (Beta-product kernel)
    k, N = 20.0, 200
    base = lambda ci, cj: dm.hockey_stick(eps, [ci, cj, N - ci - cj], [ci + 1, cj - 1, N - ci - cj], k)
    row = [base(ci, 10) for ci in range(5, 60)]
    col = [base(10, cj) for cj in range(6, 60)]
    assert np.all(np.diff(row) <= 1e-15) and np.all(np.diff(col) <= 1e-15)


def test_profile_broadcasts_and_decreases():
    eps = np.linspace(0, 5, 11).reshape(11, 1)
    out = dm.privacy_profile(eps, 20.6, 98, 5, 8)
    assert out.shape == (11, 1)
    assert np.all(np.diff(out[:, 0]) < 0) and out[-1, 0] > 0
    assert isinstance(dm.privacy_profile(1.0, 20.6, 98, 5, 8), float)


def test_profile_at_zero_is_total_variation():
    # TV(P, Q) = integral of (p - q)_+, checked against quadrature
    c, cp = [8, 9, 81], [9, 8, 81]
    assert dm.privacy_profile(0.0, 20.6, 98, 3, 8) == pytest.approx(
        float(hp.hockey_stick(0, c, cp, 20.6)), rel=1e-9)


def test_epsilon_for_delta_round_trip():
    for n in (2, 5):
        for d in (1e-2, 7.3e-4, 1e-9):
            e = dm.epsilon_for_delta(d, 20.6, 98, n, 8)
            assert dm.privacy_profile(e, 20.6, 98, n, 8) == pytest.approx(d, rel=1e-8)
    assert dm.epsilon_for_delta(0.5, 20.6, 98, 5, 8) == 0.0        # delta >= TV
    out = dm.epsilon_for_delta(np.array([1e-3, 1e-6]), 20.6, 98, 5, 8)
    assert out.shape == (2,) and out[1] > out[0]


def test_papers_epsilon_delta_hold_on_the_grade_parameters():
    # Section 6.1: N = 98, n = 5, eta = 0.073, gamma = 4e-4; the tight delta at the
    # paper's epsilon is far below the paper's delta, and the tight epsilon below eq. (6).
    m = math.ceil(0.073 * 98)
    for k in np.linspace(20.6, 110.6, 10):
        eps = dm.epsilon_paper(k, 0.073, 98, 5, 4e-4)
        d = dm.delta(k, 0.073, 98, 5, 4e-4)
        assert dm.privacy_profile(eps, k, 98, 5, m) < d
        assert dm.epsilon_for_delta(d, k, 98, 5, m) < eps


@pytest.mark.parametrize("call, message", [
    (lambda: dm.privacy_profile(-0.1, 20.6, 98, 5, 8), ">= 0"),
    (lambda: dm.privacy_profile(np.nan, 20.6, 98, 5, 8), "finite"),
    (lambda: dm.privacy_profile(1.0, 0.0, 98, 5, 8), "must be > 0"),
    (lambda: dm.privacy_profile(1.0, [1.0, 2.0], 98, 5, 8), "scalar"),
    (lambda: dm.privacy_profile(1.0, 20.6, 98, 5, 0), ">= 1"),
    (lambda: dm.privacy_profile(1.0, 20.6, 98, 5, 20), "no two adjacent databases have different count vectors"),
    (lambda: dm.privacy_profile(1.0, 20.6, 98.5, 5, 8), "whole number"),
    (lambda: dm.privacy_profile(1.0, 20.6, 10**8, 2, 1), "scanning"),
    (lambda: dm.epsilon_for_delta(0.0, 20.6, 98, 5, 8), "0 < delta < 1"),
    (lambda: dm.epsilon_for_delta(1.0, 20.6, 98, 5, 8), "0 < delta < 1"),
    (lambda: dm.epsilon_for_delta(np.inf, 20.6, 98, 5, 8), "finite"),
    (lambda: dm.hockey_stick(1.0, [3, 7], [3, 7], 5.0), "not adjacent"),
    (lambda: dm.hockey_stick(1.0, [3, 1], [4, 0], 5.0), "zero count"),
    (lambda: dm.hockey_stick(-1.0, [3, 7], [4, 6], 5.0), ">= 0"),
    (lambda: dm.hockey_stick(1.0, [3, 7], [4, 6], np.array([5.0, 6.0])), "scalar"),
])
def test_bad_input_rejected(call, message):
    with pytest.raises(ValueError, match=message):
        call()
