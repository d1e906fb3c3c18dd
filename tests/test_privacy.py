"""Tests of eq. (6) and eq. (7) as implemented in dpmarkov/privacy.py (Theorem 1).

Float code against its mpmath twin (dpmarkov.verify.highprec, 60 digits) over an
extreme grid, monotonicity in k (the reason k_for_epsilon is well defined), the
inverse, epsilon_star, the union-bound delta, and every input check.
Book: chapters "The privacy loss of the Dirichlet mechanism" and "delta".
"""
from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

import dpmarkov as dm
from dpmarkov import _checks
from dpmarkov._numerics import lgamma_increment
from dpmarkov.verify import highprec

# The extreme grid of the brief: k up to 1e7, N up to 1e8, gamma down to 1e-12, n 2..500.
ETAS = [1e-6, 1e-3, 0.073, 0.2, 0.249]
NS = [4, 10, 98, 10**4, 10**8]
SMALL_NS = [2, 3, 5, 50, 500]
KS = ["kmin", 100.0, 1e4, 1e7]
GAMMAS = [1e-12, 1e-4, "near 1/n"]


def _grid():
    for eta, N, n, k, g in itertools.product(ETAS, NS, SMALL_NS, KS, GAMMAS):
        k = 1.5 / eta if k == "kmin" else k
        g = 0.9 / n if g == "near 1/n" else g
        if k < 1.5 / eta or n * math.ceil(eta * N - 1e-9) > N or 3 * eta + 1 / N > 1:
            continue
        yield k, eta, N, n, g


GRID = list(_grid())


def test_grid_is_large_and_reaches_the_extremes():
    ks, etas, Ns, ns, gs = map(np.array, zip(*GRID))
    assert len(GRID) > 500
    assert ks.max() == 1e7 and Ns.max() == 1e8 and gs.min() == 1e-12
    assert ns.min() == 2 and ns.max() == 500


def test_epsilon_matches_mpmath_twin_over_extreme_grid():
    # The float path avoids cancellation (increments of log Gamma from Stirling's series,
    # lgamma_increment_scaled); the twin is the naive formula at 60 digits.  Measured worst
    # relative error is about 5e-15 (1.5e-14 with the Taylor branch used before); we
    # require 1e-11.
    # The sound dm.epsilon (eq. (6) for n >= 3, rounded outward) is never below the twin.
    worst = 0.0
    for k, eta, N, n, g in GRID:
        exact = highprec.epsilon(k, eta, N, n, g)
        got = dm.epsilon_paper(k, eta, N, n, g)
        worst = max(worst, abs(got - float(exact)) / abs(float(exact)))
        if n >= 3:
            assert mp.mpf(dm.epsilon(k, eta, N, n, g)) >= exact, (k, eta, N, n, g)
    assert worst < 1e-11, worst


@pytest.mark.parametrize("k, eta, N, n, gamma", [
    (83615.45231797654, 0.2465753424657534, 146, 3, 0.3333333333309431),
    (1e300, 0.2, 5, 3, 0.333333),
    (1e300, 0.2, 10, 2, 0.4999999),
    (20.6, 0.073, 98, 5, 4e-4),
    (25.0, 6 / 77, 77, 2, 1e-3)])
def test_epsilon_is_never_below_the_real_number(k, eta, N, n, gamma, monkeypatch):
    """dm.epsilon >= max(eq. (6) or its corrected form, the exact worst-case loss) in real
    arithmetic (400-digit twins).  The first three inputs (found by an independent review)
    make the two log-Gamma increments of eq. (6) nearly cancel, where rounding to nearest
    alone understated the value by 45, 1200 and 325 ulps; without the outward margin of
    ``_numerics.increment_error`` they fail.  The margin stays below 1e-10 relative."""
    from dpmarkov.verify import highprec_privacy as hp
    monkeypatch.setattr(highprec, "DPS", 400)
    monkeypatch.setattr(hp, "DPS", 400)
    bound = hp.epsilon_corrected(k, eta, N, n, gamma) if n == 2 else highprec.epsilon(
        k, eta, N, n, gamma)
    real = max(bound, hp.epsilon_exact(k, N, n, gamma, int(dm.min_count(eta, N))))
    got = dm.epsilon(k, eta, N, n, gamma)
    assert mp.mpf(got) >= real
    assert (mp.mpf(got) - real) / real < 1e-10


def test_epsilon_broadcasts_over_arrays():
    ks = np.array([20.6, 50.0, 110.6])
    out = dm.epsilon_paper(ks, 0.073, 98, 5, 0.0004)
    assert out.shape == (3,)
    assert np.allclose(out, [dm.epsilon_paper(k, 0.073, 98, 5, 0.0004) for k in ks], rtol=0, atol=0)
    assert isinstance(dm.epsilon_paper(20.6, 0.073, 98, 5, 0.0004), float)


def test_grade_distribution_value():
    # Section 6.1 parameters; the paper prints 2.255 (the accuracy part investigates).
    assert dm.epsilon_paper(20.6, 0.073, 98, 5, 0.0004) == pytest.approx(2.211907528887, rel=1e-11)


@pytest.mark.parametrize("x", [1e-8, 0.1, 1.0, 7.5, 10.0, 1e3, 1e8])
@pytest.mark.parametrize("h", [1e-9, 1e-4, 0.3, 5.0])
def test_lgamma_increment_against_mpmath(x, h):
    with mp.workdps(50):
        exact = mp.loggamma(mp.mpf(x) + mp.mpf(h)) - mp.loggamma(mp.mpf(x))
    got = lgamma_increment(x, h)
    assert abs(got - float(exact)) <= 1e-13 * abs(float(exact)) + 1e-300


_XS = [1e-300, 1e-20, 1e-3, 0.7, 1.0, 1.5, 3.3, 9.99, 10.0, 30.0, 1e4, 1e8, 1e150, 1e308]
_TS = [0.0, 1e-300, 1e-100, 1e-17, 1e-9, 1e-4, 0.1, 1.0, 10.0, 1e3,
       -1e-9, -0.3, -0.5, -0.7, -0.999999]


def test_lgamma_increment_scaled_within_its_error_bound():
    # [log Gamma(x+h) - log Gamma(x)]/h over x from 1e-300 to 1e308 and t = h/x from 1e-300
    # to 1e3 and down to -0.999999 (renyi takes negative steps), h = 0 giving psi(x), and h/x
    # up to 1e301 (the shift product overflows: summed logarithms), in one broadcast call,
    # against mpmath with enough digits for the difference (50 + log10(x/h)); for
    # |t| <= 1e-20 the reference is psi(x) + h psi'(x)/2 (the next term is below t^2 psi).
    # The bound is the docstring's, |error| <= 40u (P + S) with S the shift sum of step 1
    # and P = exact + S; the largest error seen is 1/16 of it.  Wrong formulas it rules out:
    # (1 + t) log1p(t)/t without the -1/(2y) of Stirling (error 1/(2y) >= 0.05/10); the
    # remainder's derivative -ab sum c_j p_j b^(p_j - 1) in place of its difference quotient
    # (off at t >= 1); the shift sum added instead of subtracted; the shift sum as
    # log1p(h/(x+i)) for negative h (h/x = -0.999999 rounded: 1e-10 relative at x = 1); the
    # Taylor branch it replaced cut to its digamma term (off by h psi'(x)/2 at t = 1e-4);
    # and the increment taken as the difference of two log Gamma values (cancellation).
    from dpmarkov._numerics import lgamma_increment_scaled
    pts = [(x, x * t) for x in _XS for t in _TS
           if np.isfinite(x * t) and (t == 0 or abs(x * t) >= np.finfo(float).tiny)]
    pts += [(1e-300, 10.0), (1e-300, 1e300), (1e-5, 1e40), (0.5, 1e300)]
    x, h = np.array(pts).T
    got = lgamma_increment_scaled(x, h)
    # the same bits one point at a time (privacy_profile's branch and bound compares batches
    # bit for bit; np.sum over the shift terms, pairwise for a single column, would not be)
    assert all(lgamma_increment_scaled(xi, hi) == gi for xi, hi, gi in zip(x, h, got))
    u = 2.0 ** -53
    for xi, hi, gi in zip(x, h, got):
        lt = math.log10(abs(hi)) - math.log10(xi) if hi else -math.inf    # log10 |h/x|
        with mp.workdps(50 + (0 if lt <= -20 else math.ceil(max(0.0, -lt)) + 1)):
            X, H = mp.mpf(xi), mp.mpf(hi)
            if lt <= -20:
                exact = mp.digamma(X) + H * mp.psi(1, X) / 2
            else:
                exact = (mp.loggamma(X + H) - mp.loggamma(X)) / H
            x0, h0 = min(X, X + H), abs(H)       # step 1 of the docstring
            m = 10 if x0 < 10 else 0
            S = sum(1 / (x0 + i) if H == 0 else mp.log1p(h0 / (x0 + i)) / h0 for i in range(m))
            bound = 40 * u * (exact + 2 * S)     # 40u (P + S) with P = exact + S
            assert abs(gi - exact) <= bound, (xi, hi, gi, float(exact), float(bound))


# --- monotonicity in k ----------------------------------------------------------------------

@pytest.mark.parametrize("x", [1e-6, 1e-3, 0.5, 1.0, 3.0, 50.0])
def test_convexity_inequality_series(x):
    # g(a) = a psi(k a) is convex because 2 psi'(x) + x psi''(x) = 2 sum_{j>=1} j/(x+j)^3 > 0.
    with mp.workdps(40):
        x = mp.mpf(x)
        value = 2 * mp.psi(1, x) + x * mp.psi(2, x)
        series = 2 * mp.nsum(lambda j: j / (x + j) ** 3, [1, mp.inf])
        assert value > 0
        assert abs(value - series) <= mp.mpf("1e-25") * abs(series)


@pytest.mark.parametrize("x", np.geomspace(1e-8, 1e12, 41))
def test_convexity_inequality_positive_everywhere(x):
    # Large x: 2 psi' + x psi'' = 1/x - 1/(6 x^3) + x^-5/10 + ... (asymptotic series), > 0.
    with mp.workdps(40):
        x = mp.mpf(x)
        value = 2 * mp.psi(1, x) + x * mp.psi(2, x)
        assert value > 0
        if x > 100:
            assert abs(value * x - (1 - 1 / (6 * x ** 2))) <= 0.2 / x ** 4 + mp.mpf("1e-35")


@pytest.mark.parametrize("eta, N, n, gamma", [(0.073, 98, 5, 4e-4), (0.2, 4, 2, 0.3),
                                              (0.001, 10**8, 500, 1e-12), (0.249, 10**4, 3, 0.33)])
def test_epsilon_strictly_increasing_in_k(eta, N, n, gamma):
    ks = np.geomspace(1.5 / eta, 1e7, 400)
    eps = dm.epsilon_paper(ks, eta, N, n, gamma)
    assert np.all(np.diff(eps) > 0)


def test_derivative_in_k_matches_formula_and_is_positive():
    # d eps / dk = g(eta) + g(1-2eta) - g(eta+1/N) - g(1-2eta-1/N) + (1/N) log((1-(n-1)g)/g)
    eta, N, n, gamma = 0.073, 98, 5, 4e-4
    with mp.workdps(50):
        for k in (20.6, 60.0, 1e4):
            k = mp.mpf(k)

            def g(a):
                return a * mp.psi(0, k * a)
            eta_, N_, g_ = mp.mpf(str(eta)), mp.mpf(N), mp.mpf(str(gamma))
            formula = (g(eta_) + g(1 - 2 * eta_) - g(eta_ + 1 / N_) - g(1 - 2 * eta_ - 1 / N_)
                       + mp.log((1 - (n - 1) * g_) / g_) / N_)
            step = mp.mpf("1e-15")   # central difference at 60 digits: error ~ step^2
            numeric = (highprec.epsilon(k + step, eta, N, n, gamma)
                       - highprec.epsilon(k - step, eta, N, n, gamma)) / (2 * step)
            assert formula > 0
            assert abs(formula - numeric) < mp.mpf("1e-20")


# --- inverse and epsilon_star ----------------------------------------------------------------

@pytest.mark.parametrize("eta, N, n, gamma", [(0.073, 98, 5, 4e-4), (0.01, 10**6, 50, 1e-8),
                                              (0.2, 10, 2, 0.1)])
def test_k_for_epsilon_round_trip(eta, N, n, gamma):
    for k in (1.5 / eta, 2.0 / eta, 1e3, 1e6):
        e = dm.epsilon_paper(k, eta, N, n, gamma)
        assert dm.k_for_epsilon_paper(e, eta, N, n, gamma) == pytest.approx(k, rel=1e-10)
    star = dm.epsilon_star_paper(eta, N, n, gamma)
    for target in (star * 1.001, star + 1, 10 * star):
        k = dm.k_for_epsilon_paper(target, eta, N, n, gamma)
        assert dm.epsilon_paper(k, eta, N, n, gamma) == pytest.approx(target, rel=1e-10)


def test_k_for_epsilon_broadcasts():
    targets = np.array([3.0, 4.0, 5.0])
    ks = dm.k_for_epsilon_paper(targets, 0.073, 98, 5, 4e-4)
    assert ks.shape == (3,) and np.all(np.diff(ks) > 0)


@pytest.mark.parametrize("fn, bound", [(dm.k_for_epsilon, dm.epsilon),
                                       (dm.k_for_epsilon_paper, dm.epsilon_paper)])
def test_k_for_epsilon_is_on_the_safe_side_and_tight(fn, bound):
    # the k returned never releases more than the target (bound(k) <= target, as
    # evaluated), and is the root to 1e-13: 2e-13 more k exceeds the target.  A solver
    # that returned the nearest k (Brent's method) fails the first assertion on about
    # half of these designs; one that stopped at 1e-10 fails the second.
    rng = np.random.default_rng(7)
    for _ in range(40):
        eta = rng.uniform(0.01, 0.24)
        N = int(np.ceil(4 / eta) + 10 ** rng.uniform(1, 6))
        n = int(rng.integers(2, int(1 / eta)))
        gamma = rng.uniform(1e-9, 0.9 / n)
        target = dm.epsilon_star(eta, N, n, gamma) * rng.uniform(1, 20)
        k = fn(target, eta, N, n, gamma)
        assert bound(k, eta, N, n, gamma) <= target
        assert bound(k * (1 + 2e-13), eta, N, n, gamma) > target


@pytest.mark.parametrize("target, N", [(5.0, 1e160), (5.0, 1e300), (2e153, 100)])
def test_k_for_epsilon_with_k_beyond_1e154(target, N):
    # the bracket's ends are near 1e154 or beyond: a test of "strictly inside the bracket"
    # written as (x - a)(x - b) < 0 overflowed there (an error instead of a k)
    for fn, bound in ((dm.k_for_epsilon, dm.epsilon), (dm.k_for_epsilon_paper, dm.epsilon_paper)):
        k = fn(target, 0.1, N, 3, 0.2)
        assert bound(k, 0.1, N, 3, 0.2) <= target < bound(k * (1 + 2e-13), 0.1, N, 3, 0.2)


def test_k_for_epsilon_solves_every_element_as_if_alone():
    Ns = np.arange(60, 265, 7)
    ks = dm.k_for_epsilon(np.array([[6.0], [9.0]]), 0.073, Ns, 5, 4e-4)
    alone = [[dm.k_for_epsilon(t, 0.073, N, 5, 4e-4) for N in Ns] for t in (6.0, 9.0)]
    assert ks.shape == (2, Ns.size)
    np.testing.assert_allclose(ks, alone, rtol=2e-13)
    star = dm.k_for_epsilon(dm.epsilon_star(0.1, 100, 3, 0.01), 0.1, 100, 3, 0.01)
    assert star == pytest.approx(15.0, rel=1e-13)          # the target epsilon_star: k_min


def test_k_for_epsilon_rejects_target_below_epsilon_star():
    star = dm.epsilon_star_paper(0.073, 98, 5, 4e-4)
    with pytest.raises(ValueError, match="below epsilon_star"):
        dm.k_for_epsilon_paper(star * 0.99, 0.073, 98, 5, 4e-4)


def test_epsilon_star_is_the_papers_closed_form():
    eta, N, n, gamma = 0.073, 98, 5, 4e-4
    with mp.workdps(40):
        e, NN = mp.mpf(eta), mp.mpf(N)
        closed = (mp.log(mp.beta(mp.mpf(3) / 2, 3 / (2 * e) - 3))
                  - mp.log(mp.beta(mp.mpf(3) / 2 + 3 / (2 * e * NN), 3 / (2 * e) - 3 - 3 / (2 * e * NN)))
                  + 3 / (2 * e * NN) * mp.log((1 - (n - 1) * mp.mpf(gamma)) / mp.mpf(gamma)))
    assert dm.epsilon_star_paper(eta, N, n, gamma) == pytest.approx(float(closed), rel=1e-12)
    assert dm.epsilon_star_paper(eta, N, n, gamma) == dm.epsilon_paper(dm.k_min(eta), eta, N, n, gamma)


# --- delta (eq. 7), union bound -----------------------------------------------------------------

def test_worst_counts_shape_and_sum():
    c = dm.worst_counts(0.073, 98, 5)
    assert c.tolist() == [8, 8, 8, 8, 66]
    assert dm.worst_counts(0.1, 100, 3).tolist() == [10, 10, 80]


@pytest.mark.parametrize("counts, k, gamma", [([8, 8, 8, 8, 66], 20.6, 4e-4),
                                              ([2, 3, 95], 300.0, 0.002), ([50, 50], 1e3, 0.45)])
def test_exit_probability_union_matches_mpmath(counts, k, gamma):
    got = dm.exit_probability_union(counts, k, gamma)
    assert got == pytest.approx(float(highprec.exit_probability_union(counts, k, gamma)),
                                rel=1e-10)


def test_exit_probability_union_is_capped_at_one():
    # Boole's sum exceeds 1 here; a probability bound of 1 is still a valid bound.
    assert float(highprec.exit_probability_union([1, 1, 98], 3.0, 0.01)) > 1
    assert dm.exit_probability_union([1, 1, 98], 3.0, 0.01) == 1.0


def test_delta_union_value_and_broadcast():
    assert dm.delta(20.6, 0.073, 98, 5, 4e-4) == pytest.approx(7.305389608582e-4, rel=1e-9)
    out = dm.delta(np.array([20.6, 40.0]), 0.073, 98, 5, 4e-4)
    assert out.shape == (2,) and out[1] < out[0]


def test_delta_union_is_at_least_exact():
    for n in (2, 3, 4):
        assert dm.delta(20.6, 0.073, 98, n, 4e-4) >= dm.delta(20.6, 0.073, 98, n, 4e-4,
                                                                method="exact")


def _eq6_designs():
    """(k, eta, N, n, gamma) arrays: a dense grid with eta N whole and not whole, n = 2, 3, 4,
    10, 50, N up to 2^52, k from 3/(2 eta) to 1e12 (and 1e299), gamma from 1e-300 to just
    below 1/n, and as many random designs; only those chain_privacy's rows accept
    (Assumptions 2-4 and N >= n m + 1, as ``privacy.epsilon_and_delta`` checks them)."""
    rows = []
    for N in (5, 7, 10, 13, 98, 100, 1000, 12345, 10**6, 10**9 + 7, 2**40 + 3, 2**52):
        etas = [c / N for c in (1, 2, 3, 7, 10, 1000, 10**6) if c < N / 3]   # eta N whole
        etas += [e * f for e in etas for f in (1 - 1e-12, 1 + 1e-13, 1.3)]
        etas += [1e-9, 0.0123, 0.1, 0.2, 0.24]
        for eta, n, k, g in itertools.product(etas, (2, 3, 4, 10, 50),
                                              ("kmin", "kmin+", 2.0, 1e3, 1e12, 1e299),
                                              (1e-300, 1e-3, "near 1/n")):
            k = {"kmin": 1.5 / eta, "kmin+": 1.5 / eta * (1 + 1e-12)}.get(k, k)
            rows.append((max(k, 1.5 / eta), eta, N, n, 0.99 / n if g == "near 1/n" else g))
    rng = np.random.default_rng(5)
    for _ in range(20000):
        N = float(rng.integers(5, 2**rng.integers(3, 53)))
        n = int(rng.choice([2, 3, 4, 5, 10, 100]))
        eta = rng.choice([np.ceil(rng.uniform(0.3, 0.34) * N / n) / N,       # eta N whole
                          rng.uniform(0.001, 1) / (n + 1)])
        k = 1.5 / eta * float(rng.choice([1.0, 1 + rng.uniform(0, 1e-9), 10 ** rng.uniform(0, 9)]))
        rows.append((k, eta, N, n, float(rng.choice([1e-12, 1e-3, rng.uniform(0, 1 / n)]))))
    k, eta, N, n, gamma = np.array(rows).T
    m = _checks.min_count(eta, N)                # the rule, without its input checks
    ok = ((eta > 0) & (eta < 0.25) & (gamma > 0) & (gamma < 1 / n)
          & (k >= 1.5 / eta * (1 - 1e-12)) & (N >= n * m + 1))
    return k[ok], eta[ok], N[ok], n[ok], gamma[ok], m[ok]


def test_guard_is_skipped_only_where_it_cannot_win():
    # _eq6_outward evaluates the guard (the exact loss at m) only on the rows where
    # _guard_loses cannot certify that it stays below eq. (6) after both are rounded
    # outward; there the max of the two is eq. (6) itself.  Bit for bit the same as the max
    # over every row (every_guard=True, the evaluation before), on a dense grid and random
    # designs; most rows with n >= 4 skip it, no row with n <= 3 and eta N whole does.
    from dpmarkov.privacy import _eq6_outward, _guard_loses
    k, eta, N, n, gamma, m = _eq6_designs()
    pairs = N >= n * m + 1
    fast = _eq6_outward(k, eta, N, n, gamma, m, pairs)
    every = _eq6_outward(k, eta, N, n, gamma, m, pairs, every_guard=True)
    assert np.array_equal(fast.view(np.int64), every.view(np.int64))
    assert np.isfinite(fast).all()
    h = k / N
    top = k * (1 - np.where(n == 2, 1, 2) * eta)
    skipped = _guard_loses(k, n, h, top - h, h * (N - (n - 1) * m - 1), k * eta, h * m)
    assert skipped[n >= 4].mean() > 0.9 and len(k) > 20000
    assert not skipped[(n <= 3) & (eta * N == np.rint(eta * N))].any()
    for i in range(0, len(k), 997):               # every row alone: the same bits
        one = _eq6_outward(k[i:i + 1], eta[i:i + 1], N[i:i + 1], n[i:i + 1], gamma[i:i + 1],
                           m[i:i + 1], pairs[i:i + 1])
        assert one[0] == fast[i]


def _rows_outcome(func, *args):
    try:
        return func(*args)
    except ValueError as err:
        return str(err)


def test_rows_of_a_chain_lean_checks_agree_with_the_full_ones():
    # privacy.epsilon_and_delta (chain_privacy's rows) checks the designs in one boolean
    # expression and falls back to the full checks (_epsilon_and_delta_checked); on designs
    # drawn at and around every border (k at 3/(2 eta) and just below, eta near 1/4, gamma
    # near 1/n and 1/(n-1), N near n m + 1 and 3 eta + 1/N near 1, n = 2 ... 5) both must
    # give the same numbers bit for bit or the same message.  A lean check that accepted a
    # design the full checks refuse (e.g. "k >= 3/(2 eta)" without the slack, gamma <= 1/n,
    # or the eq. (6) interval dropped without N >= n m + 1) fails here.
    from dpmarkov.privacy import _epsilon_and_delta_checked, epsilon_and_delta
    rng = np.random.default_rng(11)
    accepted = refused = 0
    for _ in range(500):
        rows = 2
        n = rng.integers(2, 6, rows).astype(np.int64)
        N = rng.choice([2.0, 3.0, 4.0, 5.0, 7.0, 9.0, 10.0, 13.0, 40.0, 1e4, 1e9, 1e9], rows)
        eta = rng.choice([1e-3, 0.05, 0.1, 0.2, 0.24, 0.2499999, 0.25, 1 / 3, 0.0, 0.1, 0.1],
                         rows)
        eta = eta * rng.choice([1.0, 1.0, 1 - 1e-13, 1 + 1e-13], rows)
        k = 1.5 / np.where(eta > 0, eta, 1.0) * rng.choice([1.0, 1.0, 1 - 1e-13, 1 - 1e-11,
                                                             2.0, 1e6], rows)
        gamma = rng.choice([1e-3, 1e-3, 1e-3, 1.0, 1 - 1e-16, 1 + 1e-15], rows) / np.where(
            rng.random(rows) < 0.5, n, n - 1)
        lean = _rows_outcome(epsilon_and_delta, k, eta, N, n, gamma)
        full = _rows_outcome(_epsilon_and_delta_checked, k, eta, N, n, gamma)
        if isinstance(full, str):
            refused += 1
            assert lean == full
        else:
            accepted += 1
            assert not isinstance(lean, str), lean
            assert np.array_equal(lean[0], full[0]) and np.array_equal(lean[1], full[1])
    assert accepted > 20 and refused > 20


# --- input checks -------------------------------------------------------------------------------

GOOD = dict(k=20.6, eta=0.073, N=98, n=5, gamma=4e-4)


@pytest.mark.parametrize("name, value, message", [
    ("k", 0.0, "must be > 0"), ("k", -1.0, "must be > 0"), ("k", np.nan, "finite"),
    ("k", np.inf, "finite"), ("k", 10.0, "Assumption 4"),
    ("eta", 0.0, "Assumption 3"), ("eta", 0.25, "Assumption 3"), ("eta", -0.1, "Assumption 3"),
    ("eta", np.nan, "finite"),
    ("N", 97.5, "whole number"), ("N", 1, ">= 2"), ("N", np.inf, "finite"), ("N", 0, ">= 2"),
    ("n", 2.5, "whole number"), ("n", 1, ">= 2"), ("n", np.nan, "finite"),
    ("gamma", 0.0, "must be > 0"), ("gamma", -1e-3, "must be > 0"), ("gamma", np.nan, "finite"),
    ("gamma", 0.2, "1/n"), ("gamma", 0.25, "Assumption 2"),
])
@pytest.mark.parametrize("func", ["epsilon", "delta"])
def test_bad_inputs_rejected(func, name, value, message):
    args = dict(GOOD, **{name: value})
    with pytest.raises(ValueError, match=message):
        getattr(dm, func)(**args)


def test_gamma_at_one_over_n_rejected_with_the_rule():
    with pytest.raises(ValueError, match=r"1/n=0.2"):
        dm.epsilon_paper(20.6, 0.073, 98, 5, 0.2)


def test_assumption_3_infeasible_rejected():
    # n ceil(eta N) = 20 * 8 = 160 > 98 records
    with pytest.raises(ValueError, match="Assumption 3 cannot hold"):
        dm.epsilon_paper(20.6, 0.073, 98, 20, 1e-4)
    with pytest.raises(ValueError, match="Assumption 3 cannot hold"):
        dm.delta(20.6, 0.073, 98, 20, 1e-4)
    with pytest.raises(ValueError, match="Assumption 3 cannot hold"):
        dm.worst_counts(0.073, 98, 20)


def test_tiny_N_where_eq6_is_not_a_bound_rejected():
    # N = 3, eta = 0.24: 3 eta + 1/N > 1 and eq. (6) would be negative.
    with pytest.raises(ValueError, match="3\\*eta \\+ 1/N > 1"):
        dm.epsilon_paper(10.0, 0.24, 3, 2, 0.4)


def test_delta_method_checked():
    with pytest.raises(ValueError, match="method='boole'"):
        dm.delta(**GOOD, method="boole")


def test_exit_probability_union_checks():
    with pytest.raises(ValueError, match="counts must be >= 0"):
        dm.exit_probability_union([-1, 5], 10.0, 0.1)
    with pytest.raises(ValueError, match="whole numbers"):
        dm.exit_probability_union([1.5, 5], 10.0, 0.1)
    with pytest.raises(ValueError, match="must be > 0"):
        dm.exit_probability_union([1, 5], 0.0, 0.1)
    with pytest.raises(ValueError, match="1/n"):
        dm.exit_probability_union([1, 5], 10.0, 0.5)
    with pytest.raises(ValueError, match="sums to 0"):
        dm.exit_probability_union([0, 0], 10.0, 0.1)


@pytest.mark.parametrize("bad", [np.nan, -1.0, 0.0, np.inf])
def test_k_for_epsilon_rejects_bad_targets(bad):
    with pytest.raises(ValueError):
        dm.k_for_epsilon_paper(bad, 0.073, 98, 5, 4e-4)


def test_k_min_checks_eta():
    assert dm.k_min(0.073) == pytest.approx(1.5 / 0.073)
    with pytest.raises(ValueError, match="Assumption 3"):
        dm.k_min(0.3)


# --------------------------------------------------------------------------- soundness (issue 10)
@pytest.mark.parametrize("n", [2, 3, 4, 6])
@pytest.mark.parametrize("N, eta", [(77, 6 / 77), (77, 0.08), (100, 0.073), (60, 0.1), (41, 0.11)])
def test_epsilon_never_below_brute_force_worst_loss(n, N, eta):
    # brute force over every adjacent pair and every vertex of Omega_1 (eta*N whole or not);
    # a wrong bound (eq. (6) at n = 2, or eta in place of ceil(eta*N)/N in the exact loss)
    # falls below it somewhere in this grid (n = 2, N = 77, eta = 6/77 is the book's case)
    from dpmarkov.verify import bruteforce as bf
    m = int(dm.min_count(eta, N))
    if N < n * m + 1 or math.comb(N - n * m + n - 1, n - 1) > 50_000:
        pytest.skip("no adjacent pair, or too many vectors for brute force")
    for k in (1.5 / eta, 25.0, 300.0):
        k = max(k, 1.5 / eta)
        worst = bf.max_privacy_loss(k, N, n, 1e-3, m)[0]
        assert dm.epsilon(k, eta, N, n, 1e-3) >= worst - 1e-12 * abs(worst)
        assert dm.epsilon_exact(k, N, n, 1e-3, m) == pytest.approx(worst, rel=1e-12)


def test_eq6_understates_n2_and_epsilon_does_not():
    # the book's counterexample: row eps 3.063 from eq. (6), true worst case 3.093
    paper = dm.epsilon_paper(25, 6 / 77, 77, 2, 1e-3)
    exact = dm.epsilon_exact(25, 77, 2, 1e-3, 6)
    assert paper == pytest.approx(3.0631, abs=1e-4) and exact == pytest.approx(3.0927, abs=1e-4)
    assert dm.epsilon(25, 6 / 77, 77, 2, 1e-3) >= exact
    assert dm.bound_name(2) == "corrected eq. (6)" and dm.bound_name(3) == "eq. (6)"
    k = dm.k_for_epsilon(3.0, 6 / 77, 77, 2, 1e-3)
    assert dm.epsilon_exact(k, 77, 2, 1e-3, 6) <= 3.0 + 1e-12     # the calibrated k is sound
    assert dm.epsilon_exact(dm.k_for_epsilon_paper(3.0, 6 / 77, 77, 2, 1e-3), 77, 2, 1e-3, 6) > 3.0


def test_epsilon_for_n2_at_N3_does_not_need_the_papers_interval():
    # eq. (6) as printed needs 3 eta + 1/N <= 1; the corrected bound for n = 2 does not
    assert dm.epsilon(7.5, 0.2, 3, 2, 0.01) >= dm.epsilon_exact(7.5, 3, 2, 0.01, 1)


# --------------------------------------------------------------------------- boundaries
def test_min_count_rule_at_and_just_below_whole_eta_N():
    assert dm.min_count(0.07, 100) == 7            # 0.07*100 = 7.000000000000001 in floats
    assert dm.min_count(0.075, 100) == 8           # 7.5 -> 8
    assert dm.min_count(7 / 100 + 1e-9, 100) == 8  # just above a whole number: the next one
    assert dm.min_count(1e-10, 1e11) == 10
    assert np.array_equal(dm.min_count([0.1, 0.105], 100), [10, 11])


def test_count_exactly_eta_N_accepted_just_below_rejected():
    counts = np.array([[10, 90], [50, 50]], float)
    dm.chain_privacy(counts, 15.0, 0.1, 0.01, support=counts > 0)          # 10 = 0.1*100
    with pytest.raises(ValueError, match="Assumption 3"):
        dm.chain_privacy(counts, 15.0, 0.101, 0.01, support=counts > 0)    # 10 < 10.1
    assert dm.worst_counts(0.1, 100, 3).tolist() == [10, 10, 80]
    assert dm.worst_counts(0.101, 100, 3).tolist() == [11, 11, 78]


def test_assumption_4_at_and_just_below_the_boundary():
    eta = 0.073
    kmin = 1.5 / eta
    assert dm.epsilon(kmin, eta, 98, 5, 4e-4) > 0                  # exactly 3/(2 eta): allowed
    for below in (0.995 * kmin, kmin * (1 - 1e-9)):
        with pytest.raises(ValueError, match=r"below 3/\(2\*eta\)"):
            dm.epsilon(below, eta, 98, 5, 4e-4)
        with pytest.raises(ValueError, match=r"below 3/\(2\*eta\)"):
            dm.delta(below, eta, 98, 5, 4e-4)


# --------------------------------------------------------------------------- extreme scales
@pytest.mark.parametrize("k", [1e300, 1e305, 1.7e308])
def test_epsilon_at_huge_k_is_finite_and_matches_mpmath(k):
    import mpmath as mp
    from dpmarkov.verify import highprec_privacy as hp
    got = dm.epsilon_exact(k, 100, 3, 0.01, 10)
    with mp.workdps(60):
        ref = hp.epsilon_exact(k, 100, 3, 0.01, 10)
    assert np.isfinite(got) and got == pytest.approx(float(ref), rel=1e-12)
    # the sound epsilon is rounded outward: above the real number, by less than 1e-10
    sound = dm.epsilon(k, 0.1, 100, 3, 0.01)
    assert mp.mpf(sound) >= ref and sound == pytest.approx(float(ref), rel=1e-10)
    assert np.isfinite(dm.epsilon(k, 0.1, 100, 2, 0.01))
    assert np.isfinite(dm.chain_privacy(np.array([[10, 90], [50, 50]]), k, 0.1, 0.01,
                                        support=np.ones((2, 2), bool)).epsilon)


def test_epsilon_beyond_the_float_range_is_an_error_naming_k():
    with pytest.raises(ValueError, match=r"k=1e\+308 .*beyond the largest float"):
        dm.epsilon_exact(1e308, 3, 2, 1e-300, 1)


def test_subnormal_k_rejected():
    with pytest.raises(ValueError, match="k=5e-324 is so small"):
        dm.epsilon_exact(5e-324, 10, 3, 0.01, 1)


def test_k_for_epsilon_huge_target_round_trips():
    k = dm.k_for_epsilon(1e100, 0.1, 100, 3, 0.01)
    assert dm.epsilon(k, 0.1, 100, 3, 0.01) == pytest.approx(1e100, rel=1e-12)


def test_worst_counts_huge_n_is_an_error_and_delta_does_not_build_it():
    with pytest.raises(ValueError, match="n=1000000000"):
        dm.worst_counts(1e-10, 1e11, 10**9)
    d = dm.delta(1.5e10, 1e-10, 1e11, 10**9, 1e-10)
    assert 0 <= d <= 1


# k_for_epsilon with a subnormal eta: 3/(2 eta) overflows.  The error names eta, its value
# and the rule, not the internal k_min call it once went through.
@pytest.mark.parametrize("func", [dm.k_for_epsilon, dm.k_for_epsilon_paper])
def test_k_for_epsilon_refuses_an_eta_whose_smallest_k_overflows(func):
    with pytest.raises(ValueError, match=r"eta=5e-324 .*3/\(2\*eta\).*largest float") as err:
        func(5.0, 5e-324, 98, 5, 0.01)
    assert "k_min" not in str(err.value)
    assert func(3.0, 0.073, 98, 5, 4e-4) == pytest.approx(28.181, abs=1e-3)
