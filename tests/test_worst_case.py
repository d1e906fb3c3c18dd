"""The exact worst-case privacy loss (dpmarkov/loss.py) and Theorem 1's eq. (6) against it.

Brute force (every adjacent pair of count vectors, every vertex of Omega_1, the loss
from two Dirichlet log-densities) checks the reduction behind epsilon_exact; mpmath
twins check the float code; eq. (6) is compared with the exact value for n = 2..6.
Book: chapters "The privacy loss of the Dirichlet mechanism" and "The exact worst case".
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import dpmarkov as dm
from dpmarkov.verify import bruteforce as bf
from dpmarkov.verify import highprec_privacy as hp

SMALL = [(N, n, m) for N in (5, 8, 11) for n in (2, 3, 4) for m in (1, 2, 3) if N >= n * m + 1]


@pytest.mark.parametrize("N, n, m", SMALL)
@pytest.mark.parametrize("k, gamma", [(0.7, 0.01), (12.0, 0.1), (300.0, 1e-6)])
def test_epsilon_exact_equals_brute_force(N, n, m, k, gamma):
    if gamma >= 1 / n:
        pytest.skip("gamma must be < 1/n")
    value, c, cp = bf.max_privacy_loss(k, N, n, gamma, m)
    assert dm.epsilon_exact(k, N, n, gamma, m) == pytest.approx(value, rel=1e-12, abs=1e-12)
    wc, wcp = dm.worst_pair(N, n, m)
    x = bf.omega1_vertices(n, gamma)[1]          # x_1 = 1-(n-1) gamma, the rest gamma
    assert dm.privacy_loss(x, wc, wcp, k) == pytest.approx(value, rel=1e-12, abs=1e-12)


def test_output_term_maximised_at_a_vertex():
    # log x_j - log x_i <= log(1-(n-1) gamma) - log gamma on Omega_1; random points never exceed.
    rng = np.random.default_rng(0)
    n, gamma = 4, 0.05
    y = rng.dirichlet(np.full(n, 0.3), size=200_000)
    x = gamma + (1 - n * gamma) * y                      # uniform-ish cover of Omega_1
    spread = np.log(x[:, None, :]) - np.log(x[:, :, None])
    bound = math.log((1 - (n - 1) * gamma) / gamma)
    assert spread.max() <= bound + 1e-12
    assert spread.max() > bound - 0.05                   # and the bound is approached


def test_privacy_loss_splits_into_data_and_output_terms():
    c, cp = np.array([8.0, 9, 30, 51]), np.array([8.0, 10, 29, 51])   # i = 1, j = 2
    x = dm.privatize(c, 20.0, rng=1, size=5)
    k, N = 20.0, 98
    expected = dm.loss_data_term(9, 30, k, N) + k / N * (np.log(x[:, 2]) - np.log(x[:, 1]))
    assert np.allclose(dm.privacy_loss(x, c, cp, k), expected, rtol=1e-12, atol=1e-12)
    assert dm.adjacent_indices(c, cp) == (1, 2)


def test_data_term_monotone_in_both_counts():
    ci = np.arange(1, 80)
    up = dm.loss_data_term(ci, 10, 30.0, 98)
    assert np.all(np.diff(up) > 0)
    cj = np.arange(2, 80)
    down = dm.loss_data_term(10, cj, 30.0, 98)
    assert np.all(np.diff(down) < 0)


GRID = [(k, N, n, g, m) for k in (2.0, 20.6, 1e4, 1e7) for N in (98, 10**4, 10**8)
        for n in (2, 3, 5, 50) for g in (1e-12, 1e-3) for m in (1, 8, 1000) if N >= n * m + 1]


def test_epsilon_exact_matches_mpmath_twin():
    # the naive mpmath formula (full multivariate Beta functions, 40 digits); measured
    # float error is below 1e-12 relative; we require 1e-10.
    for k, N, n, g, m in GRID:
        got = dm.epsilon_exact(k, N, n, g, m)
        assert got == pytest.approx(float(hp.epsilon_exact(k, N, n, g, m)), rel=1e-10), (k, N, n, m)


def test_mpmath_log_beta_is_the_plain_sum_bit_for_bit():
    # the twin's log B(alpha) evaluates log Gamma once per distinct alpha; the value must be
    # the plain fsum over every alpha (a term counted once instead of n - 2 times would differ)
    import mpmath as mp
    with mp.workdps(hp.DPS):
        for counts in ([91, 1, 1, 1, 1, 1, 1, 1], [97, 8, 8, 8, 8], [3, 4], [5, 5, 5]):
            alphas = [mp.mpf("20.6") * c / 98 for c in counts]
            plain = mp.fsum(mp.loggamma(a) for a in alphas) - mp.loggamma(mp.fsum(alphas))
            assert hp.log_beta(alphas) == plain


def test_epsilon_corrected_matches_mpmath_twin():
    for k in (20.6, 1e4):
        for n in (2, 3, 5):
            got = dm.epsilon_corrected(k, 0.073, 98, n, 4e-4)
            assert got == pytest.approx(float(hp.epsilon_corrected(k, 0.073, 98, n, 4e-4)),
                                        rel=1e-11)


# --- Theorem 1 against the exact worst case ------------------------------------------------------

CASES = [(N, eta) for N in (20, 98, 100, 1000, 10**6) for eta in (0.05, 0.073, 0.1, 0.2)]


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_eq6_is_an_upper_bound_for_n_at_least_3(n):
    for N, eta in CASES:
        m = math.ceil(eta * N - 1e-9)
        if N < n * m + 1 or 3 * eta + 1 / N > 1:
            continue
        for k in (1.5 / eta, 3 / eta, 30 / eta):
            exact = dm.epsilon_exact(k, N, n, 1e-3, m)
            assert dm.epsilon_paper(k, eta, N, n, 1e-3) >= exact - 1e-12 * abs(exact)
            assert dm.epsilon_corrected(k, eta, N, n, 1e-3) >= exact - 1e-12 * abs(exact)


def test_eq6_is_exact_for_n_3_when_eta_N_is_whole():
    for N, eta in [(100, 0.1), (1000, 0.2), (20, 0.15)]:
        m = round(eta * N)
        for k in (1.5 / eta, 100.0):
            assert dm.epsilon_paper(k, eta, N, 3, 1e-3) == pytest.approx(
                dm.epsilon_exact(k, N, 3, 1e-3, m), rel=1e-12)


def test_eq6_fails_for_n_2():
    # Counterexample: N = 100, eta = 0.1, n = 2, gamma = 1e-3, k = 3/(2 eta) = 15.
    k, eta, N, gamma = 15.0, 0.1, 100, 1e-3
    paper = dm.epsilon_paper(k, eta, N, 2, gamma)
    exact = dm.epsilon_exact(k, N, 2, gamma, 10)
    assert exact > paper + 0.005
    # the loss is attained: a concrete pair of databases and an output in Omega_1
    c, cp = np.array([89.0, 11.0]), np.array([90.0, 10.0])
    x = np.array([gamma, 1 - gamma])
    assert dm.privacy_loss(x, c, cp, k) == pytest.approx(exact, rel=1e-12)
    assert dm.privacy_loss(x, c, cp, k) > paper
    # the corrected bound covers it
    assert dm.epsilon_corrected(k, eta, N, 2, gamma) == pytest.approx(exact, rel=1e-12)


def test_eq6_fails_for_n_2_on_many_designs():
    fails = 0
    for N, eta in CASES:
        m = math.ceil(eta * N - 1e-9)
        if N < 2 * m + 1 or 3 * eta + 1 / N > 1:
            continue
        exact = dm.epsilon_exact(1.5 / eta, N, 2, 1e-3, m)
        fails += dm.epsilon_paper(1.5 / eta, eta, N, 2, 1e-3) < exact
    assert fails >= 10


def test_corrected_vs_exact_and_vs_eq6():
    for N, eta in CASES:
        m = math.ceil(eta * N - 1e-9)
        for n in (2, 3, 4):
            if N < n * m + 1 or 3 * eta + 1 / N > 1:
                continue
            k = 2 / eta
            corr = dm.epsilon_corrected(k, eta, N, n, 1e-3)
            assert corr >= dm.epsilon_exact(k, N, n, 1e-3, m) * (1 - 1e-12)
            if n == 3:
                assert corr == pytest.approx(dm.epsilon_paper(k, eta, N, n, 1e-3), rel=1e-12)
            if n == 4:
                assert corr < dm.epsilon_paper(k, eta, N, n, 1e-3)


def test_epsilon_exact_broadcasts():
    out = dm.epsilon_exact(np.array([20.6, 50.0]), 98, np.array([[3], [5]]), 4e-4, 8)
    assert out.shape == (2, 2)
    assert out[1, 0] == dm.epsilon_exact(20.6, 98, 5, 4e-4, 8)


# --- input checks ---------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    ((20.6, 98, 5, 4e-4, 0), ">= 1"),
    ((20.6, 98, 5, 4e-4, 2.5), "whole number"),
    ((20.6, 98, 5, 4e-4, 20), "no two adjacent databases have different count vectors"),
    ((20.6, 10, 5, 0.01, 2), "no two adjacent databases have different count vectors"),
    ((20.6, 98, 5, 0.2, 8), "1/n"),
    ((0.0, 98, 5, 4e-4, 8), "must be > 0"),
    ((np.nan, 98, 5, 4e-4, 8), "finite"),
    ((20.6, 98.5, 5, 4e-4, 8), "whole number"),
    ((20.6, 98, 1, 4e-4, 8), ">= 2"),
])
def test_epsilon_exact_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        dm.epsilon_exact(*args)


@pytest.mark.parametrize("args, message", [
    ((20.6, 0.3, 98, 5, 4e-4), "Assumption 3"),
    ((20.6, 0.073, 98, 20, 1e-4), "Assumption 3 cannot hold"),
    ((20.6, 0.2, 10, 5, 0.01), "no two adjacent databases have different count vectors"),
    ((-1.0, 0.073, 98, 5, 4e-4), "must be > 0"),
    ((20.6, 0.073, 98, 5, np.inf), "finite"),
])
def test_epsilon_corrected_rejects_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        dm.epsilon_corrected(*args)


def test_corrected_does_not_need_assumption_4():
    assert dm.epsilon_corrected(1.0, 0.073, 98, 5, 4e-4) > 0


@pytest.mark.parametrize("c, cp", [([5, 5], [5, 5]), ([5, 5], [7, 3]), ([4, 5, 6], [6, 5, 4]),
                                   ([5, 5], [6, 4, 0]), ([4, 5, 6], [5, 6, 4])])
def test_adjacency_checked(c, cp):
    with pytest.raises(ValueError):
        dm.adjacent_indices(c, cp)
    with pytest.raises(ValueError):
        dm.privacy_loss([0.5] * len(c), c, cp, 10.0)


def test_data_term_rejects_bad_counts():
    with pytest.raises(ValueError, match="exceeds"):
        dm.loss_data_term(60, 50, 10.0, 98)
    with pytest.raises(ValueError, match=">= 2"):
        dm.loss_data_term(5, 1, 10.0, 98)
    with pytest.raises(ValueError, match=">= 1"):
        dm.loss_data_term(0, 5, 10.0, 98)


def test_worst_pair_is_adjacent_and_feasible():
    c, cp = dm.worst_pair(98, 5, 8)
    assert dm.adjacent_indices(c, cp) == (0, 1)
    assert c.sum() == cp.sum() == 98 and c.min() >= 8 and cp.min() >= 8
    with pytest.raises(ValueError, match="no two adjacent databases"):
        dm.worst_pair(40, 5, 8)


# --------------------------------------------------------------------------- Theorem 1 in SymPy
@pytest.fixture(scope="module")
def derived():
    """The SymPy derivation of Theorem 1 (dpmarkov.verify.symbolic_privacy), run once."""
    from dpmarkov.verify import symbolic_privacy as sy
    _, data, _ = sy.privacy_loss_expression()      # raises unless the ratio splits as claimed
    sy.monotonicity_derivatives()                  # raises unless they are digamma differences
    assert sy.paper_form_matches_derivation() == 0
    v = (sy.k, sy.N, sy.n, sy.gamma)
    return {
        "data": sy.as_mpmath(data, (sy.c_i, sy.c_j, sy.k, sy.N)),
        "exact": sy.as_mpmath(sy.worst_case_expression(), v + (sy.m,)),
        "paper": sy.as_mpmath(sy.bound_expression("paper"), (sy.k, sy.eta, sy.N, sy.n, sy.gamma)),
        "corrected": sy.as_mpmath(sy.bound_expression("corrected"),
                                  (sy.k, sy.eta, sy.N, sy.n, sy.gamma)),
    }


_POINTS = [(25.0, 6 / 77, 77, 2, 1e-3), (20.55, 0.073, 98, 5, 4e-4), (3e4, 0.1, 100, 3, 0.01),
           (150.0, 0.01, 1000, 4, 1e-6), (2e6, 0.2, 10**7, 3, 0.05)]


@pytest.mark.parametrize("k, eta, N, n, gamma", _POINTS)
def test_float_and_mpmath_code_equal_the_sympy_derivation(derived, k, eta, N, n, gamma):
    # 40-digit evaluation of the derived expressions; the float code is good to ~1e-13
    # relative (a sign or a 1/N slip in either the code or the derivation is far larger)
    import mpmath as mp
    from dpmarkov.verify import highprec_privacy as hp
    m = int(dm.min_count(eta, N))
    with mp.workdps(40):
        K, E, NN, G = (mp.mpf(str(v)) for v in (k, eta, N, gamma))
        want = {name: derived[name](K, E, NN, n, G) for name in ("paper", "corrected")}
        want["exact"] = derived["exact"](K, NN, n, G, m)
        want["data"] = derived["data"](N - (n - 1) * m - 1, m + 1, K, NN)
    assert dm.epsilon_paper(k, eta, N, n, gamma) == pytest.approx(float(want["paper"]), rel=1e-12)
    assert dm.epsilon_corrected(k, eta, N, n, gamma) == pytest.approx(float(want["corrected"]),
                                                                      rel=1e-12)
    assert dm.epsilon_exact(k, N, n, gamma, m) == pytest.approx(float(want["exact"]), rel=1e-12)
    assert dm.loss_data_term(N - (n - 1) * m - 1, m + 1, k, N) == pytest.approx(
        float(want["data"]), rel=1e-12, abs=1e-13)
    assert float(hp.epsilon_exact(k, N, n, gamma, m)) == pytest.approx(float(want["exact"]),
                                                                      rel=1e-25)
    assert float(hp.epsilon_corrected(k, eta, N, n, gamma)) == pytest.approx(
        float(want["corrected"]), rel=1e-25)
    # dm.epsilon, the one releases are calibrated with, is the derived bound (eq. (6) for
    # n >= 3, the corrected form for n = 2), never below the derived exact loss, rounded
    # outward: at or above the 40-digit value, by at most its error bound (< 1e-10 relative).
    # Returning eq. (6) for n = 2 fails here, and so does the plain float (3e-17 relative
    # below the target at the n = 2 design); the guard's own edge is in tests/test_guards.py.
    with mp.workdps(40):
        target = max(want["corrected"] if n == 2 else want["paper"], want["exact"])
        sound = dm.epsilon(k, eta, N, n, gamma)
        assert target <= mp.mpf(sound) <= target * (1 + mp.mpf("1e-10"))


@pytest.mark.parametrize("N, n, m", [(12, 3, 2), (10, 4, 1), (9, 2, 1), (13, 5, 2), (7, 3, 2)])
def test_vectorised_brute_force_equals_the_pair_by_pair_loop(N, n, m):
    # the array version must enumerate exactly the generator's vectors (a missed or repeated
    # vector would change the maximum somewhere) and its maximum must equal the loop over
    # adjacent_pairs with the package's two-density privacy_loss
    assert np.array_equal(bf.composition_array(N, n, m), np.array(list(bf.compositions(N, n, m))))
    x = bf.omega1_vertices(n, 0.01)
    loop = max(float(np.max(dm.privacy_loss(x, c, cp, 7.0))) for c, cp in bf.adjacent_pairs(N, n, m))
    assert bf.max_privacy_loss(7.0, N, n, 0.01, m)[0] == pytest.approx(loop, rel=1e-13)
