"""Composition of the Dirichlet mechanism (dpmarkov/accounting.py) with dp_accounting.

The PLD accountant against the exact privacy profile at T = 1 and against a direct
computation of the two-fold composition at T = 2; RDP against its own closed form;
basic and advanced composition formulas.  Book: "Many releases".
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import expit
from scipy.stats import beta as beta_law

import dpmarkov as dm
from dpmarkov import accounting as acc
from dpmarkov.loss import loss_data_term
from dpmarkov._pairs import pair_profile

DESIGN = (20.6, 98, 5, 8)          # the grade case study's k, N, n and min count


# Why the checks below are tight: the pessimistic PLD rounds every loss up by less than the
# discretisation step, so after T releases the composed loss L' satisfies L <= L' < L + T*step,
# and delta(eps) = E_P[(1 - e^(eps - L))_+] gives
#     delta_exact(eps) <= delta_pld(eps) <= delta_exact(eps - T*step)      (+ tail mass 1e-15).
# A PLD that rounded down, dropped a tail, or used the wrong pair breaks one of the two sides.
STEP = 1e-4


def _one_fold_delta(eps, k, N, m):
    """The exact H_eps of the worst pair (also for eps < 0), from the Beta-tail formula."""
    return float(pair_profile(np.array([eps]), float(m), float(m + 1), k, N)[0, 0])


@pytest.fixture(scope="module")
def one_release():
    return acc.privacy_loss_distribution(*DESIGN, discretization=STEP)


@pytest.fixture(scope="module")
def two_releases():
    a = acc.DirichletPldAccountant(discretization=STEP)
    a.compose(acc.DirichletDpEvent(*DESIGN), 2)
    return a


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.3, 1.0, 2.0])
def test_pld_at_one_release_is_sandwiched_by_the_exact_profile(eps, one_release):
    pld = one_release
    k, N, n, m = DESIGN
    exact = dm.privacy_profile(eps, *DESIGN)
    assert exact == pytest.approx(_one_fold_delta(eps, k, N, m), rel=1e-12)
    got = pld.get_delta_for_epsilon(eps)
    assert exact - 1e-15 <= got <= _one_fold_delta(eps - STEP, k, N, m) + 1e-15


def _two_fold_delta(eps, k, N, m):
    """H_eps(P x P || Q x Q) = E over L1 ~ P of H_{eps - L1}(P || Q), by 1-d quadrature."""
    h, a_i, a_j = k / N, k * m / N, k * (m + 1) / N
    data = loss_data_term(m, m + 1, k, N)

    def integrand(y):            # y = x_i/(x_i + x_j) ~ Beta(a_i, a_j) under P
        loss = data + h * (math.log1p(-y) - math.log(y))
        return beta_law.pdf(y, a_i, a_j) * pair_profile(np.array([eps - loss]),
                                                         float(m), float(m + 1), k, N)[0, 0]
    val, _ = quad(integrand, 0, 1, points=[0.1, 0.3, 0.5, 0.7], limit=400, epsabs=1e-12)
    return val


@pytest.mark.parametrize("eps", [1.0])
def test_pld_at_two_releases_matches_direct_computation(eps, two_releases):
    a = two_releases
    k, N, _, m = DESIGN
    got = a.get_delta(eps)
    # quadrature error is below 1e-12 absolute (epsabs); the sandwich of the comment above
    assert _two_fold_delta(eps, k, N, m) - 1e-11 <= got
    assert got <= _two_fold_delta(eps - 2 * STEP, k, N, m) + 1e-11


def test_rdp_accountant_adds_the_closed_form_curve():
    a = acc.DirichletRdpAccountant(orders=[1.5, 2.0, 4.0])
    a.compose(acc.DirichletDpEvent(*DESIGN), 3)
    assert np.allclose(a._rdp, 3 * dm.rdp_epsilon([1.5, 2.0, 4.0], *DESIGN), rtol=1e-14)


@pytest.mark.parametrize("design", [(5.0, 1000, 5, 100), (3.0, 1e4, 5, 1000),
                                    (10.0, 1e5, 3, 10_000), (20.6, 98, 5, 8)])
def test_rdp_default_orders_reach_the_best_order(design):
    # the conversion over a fine grid of 20,000 orders from 1.001 to 1e10 is (up to that
    # grid) the best any order gives; the default orders must come within 1% of it (the
    # orders that stopped at 64 gave 0.138 where the best is 0.0086 for the second design)
    # and, every order being a valid RDP bound, never below it by more than the grid's gap
    fine = np.geomspace(1.001, 1e10, 20_000)
    best, _ = dm.rdp_to_dp(fine, dm.rdp_epsilon(fine, *design), 1e-6)
    a = acc.DirichletRdpAccountant()
    a.compose(acc.DirichletDpEvent(*design))
    got = a.get_epsilon(1e-6)
    assert best * (1 - 1e-3) <= got <= best * 1.01, (got, best)


def test_accountants_are_ordered_at_many_releases():
    # tight PLD <= RDP conversion; both below advanced composition of the exact one-shot
    # guarantee; basic composition of Theorem 1 is the loosest
    T, delta = 12, 1e-6
    pld = acc.DirichletPldAccountant()
    pld.compose(acc.DirichletDpEvent(*DESIGN), T)
    rdp = acc.DirichletRdpAccountant()
    rdp.compose(acc.DirichletDpEvent(*DESIGN), T)
    e_pld, e_rdp = pld.get_epsilon(delta), rdp.get_epsilon(delta)
    one = dm.epsilon_for_delta(delta / (2 * T), *DESIGN)
    e_adv, _ = acc.advanced_composition(one, delta / (2 * T), T, delta / 2)
    assert e_pld < e_rdp < e_adv


def test_a_loss_range_beyond_the_bin_budget_is_refused_at_once(work):
    # k = 3.4e16: the worst pair's loss spans about 1.4e8 nats, 1.4e11 bins of 1e-3 (this
    # raised MemoryError); refused before allocating, naming k and discretization, while
    # a coarser discretization that fits is accepted.  Work counted, no clock (the refusal
    # makes 600 calls and allocates 50 kB)
    with work(calls=100_000, memory=64 * 2**20):
        with pytest.raises(ValueError, match="k=3.4e.16.*discretization=0.001.*bins"):
            acc.DirichletPldAccountant().compose(acc.DirichletDpEvent(3.4e16, 98, 5, 8))
    k, N = 2000.0, 98
    span = acc.privacy_loss_distribution(k, N, 5, 8, discretization=1e-2)
    assert span is not None


def test_composition_formulas():
    assert acc.basic_composition(0.5, 1e-6, 10) == (5.0, pytest.approx(1e-5))
    eps, d = acc.advanced_composition(0.1, 1e-7, 100, 1e-6)
    assert eps == pytest.approx(math.sqrt(200 * math.log(1e6)) * 0.1 + 100 * 0.1 * math.expm1(0.1))
    assert d == pytest.approx(100 * 1e-7 + 1e-6)


@pytest.mark.parametrize("call, match", [
    (lambda: acc.privacy_loss_distribution(20.6, 98, 2, 8), "n=2"),
    (lambda: acc.privacy_loss_distribution(20.6, 98, 5, 8, tail_mass=0.1), "tail_mass"),
    (lambda: acc.basic_composition(0.5, 1e-6, 0), "T=0"),
    (lambda: acc.advanced_composition(0.5, 1e-6, 3, 0.0), "delta_slack"),
])
def test_bad_input_is_rejected_clearly(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("eps", [0.3, 1.0])
def test_pld_stays_pessimistic_when_k_over_N_is_tiny(eps):
    # k/N = 1e-3 with min count 10: the loss reaches far beyond 745 h, where expit underflows;
    # a linear-space tail put that mass in a low bin and returned delta(1.0) = 0 (review of
    # the chapter); the sandwich of the comment above must hold here too
    N = 69 * 10 + 1
    k = 1e-3 * N
    pld = acc.privacy_loss_distribution(k, N, 69, 10, discretization=1e-3)
    got = pld.get_delta_for_epsilon(eps)
    assert dm.privacy_profile(eps, k, N, 69, 10) - 1e-15 <= got
    assert got <= _one_fold_delta(eps - 1e-3, k, N, 10) + 1e-15


# Releases composed by multiplicity (issue 38): a ComposedDpEvent is composed release by
# distinct release, each with its count, and the curve or PLD of a release is kept.  The
# checks compare with dp_accounting used directly, bit for bit: a multiplicity dropped
# (each distinct release counted once), a release counted twice, an event of another kind
# dropped, or an order filter that changed the minimum would each break an equality.
OTHER = (30.0, 400, 4, 60)


def test_rdp_composes_equal_releases_by_multiplicity():
    from dp_accounting import dp_event
    from dp_accounting.privacy_accountant import NeighboringRelation
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_lib
    orders = acc.DEFAULT_ORDERS
    e1, e2 = acc.DirichletDpEvent(*DESIGN), acc.DirichletDpEvent(*OTHER)
    gauss = dp_event.GaussianDpEvent(3.0)
    a = acc.DirichletRdpAccountant()
    a.compose(dp_event.ComposedDpEvent([e1, e2, gauss, acc.DirichletDpEvent(*DESIGN), e1, e2]), 2)
    ref = rdp_lib.RdpAccountant(orders, NeighboringRelation.REPLACE_ONE)
    ref.compose(gauss, 2)
    curve = ref._rdp + 6 * dm.rdp_epsilon(orders, *DESIGN) + 4 * dm.rdp_epsilon(orders, *OTHER)
    assert np.array_equal(a._rdp, curve)
    for delta in (1e-12, 1e-6, 0.3, 0.999):        # 0.999: the KL shortcut gives epsilon 0
        assert a.get_epsilon_and_optimal_order(delta) == rdp_lib.compute_epsilon(
            orders, curve, delta)
        assert a.get_epsilon(delta) == rdp_lib.compute_epsilon(orders, curve, delta)[0]


def test_rdp_epsilon_over_finite_orders_equals_the_full_conversion():
    # orders above min_count + 1 have infinite RDP and are left out of the conversion; where
    # every order is infinite (all above 9 here) the parent's answer (inf) is returned
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_lib
    for orders in (acc.DEFAULT_ORDERS, [10.0, 20.0, 1e3], [1.5, 9.5, 50.0]):
        a = acc.DirichletRdpAccountant(orders)
        a.compose(acc.DirichletDpEvent(*DESIGN), 12)
        assert np.any(np.isinf(a._rdp))
        for delta in (1e-9, 1e-6):
            assert a.get_epsilon_and_optimal_order(delta) == rdp_lib.compute_epsilon(
                np.asarray(orders), a._rdp, delta)


def test_rdp_curve_is_computed_once_and_kept_read_only():
    a = acc.DirichletRdpAccountant()
    a.compose(acc.DirichletDpEvent(*DESIGN))
    a._rdp += 1.0                                   # the accountant's own array, not the kept one
    kept = acc._rdp_curve(acc.DEFAULT_ORDERS.tobytes(), *DESIGN)
    assert kept is acc._rdp_curve(acc.DEFAULT_ORDERS.tobytes(), *DESIGN)
    assert not kept.flags.writeable
    assert np.array_equal(kept, dm.rdp_epsilon(acc.DEFAULT_ORDERS, *DESIGN))


def test_pld_composes_equal_releases_by_multiplicity():
    from dp_accounting import dp_event
    e1, e2 = acc.DirichletDpEvent(*DESIGN), acc.DirichletDpEvent(*OTHER)
    a = acc.DirichletPldAccountant()
    a.compose(dp_event.ComposedDpEvent([e1, e2, e1, dp_event.NoOpDpEvent(), e1]), 2)
    p1 = acc.privacy_loss_distribution(*DESIGN)
    p2 = acc.privacy_loss_distribution(*OTHER)
    direct = p1.self_compose(6).compose(p2.self_compose(2))
    for delta in (1e-9, 1e-6):
        assert a.get_epsilon(delta) == direct.get_epsilon_for_delta(delta)
    # a second compose convolves with what is there; a fresh accountant starts from the
    # first release itself (as dp_accounting used directly), not from its identity
    a.compose(e2)
    assert a.get_epsilon(1e-6) == direct.compose(p2).get_epsilon_for_delta(1e-6)
    b = acc.DirichletPldAccountant()
    b.compose(e1)
    assert b.get_epsilon(1e-6) == p1.get_epsilon_for_delta(1e-6)


def test_pld_accountant_still_refuses_a_non_dp_event():
    from dp_accounting import dp_event
    a = acc.DirichletPldAccountant()
    a.compose(dp_event.ComposedDpEvent([acc.DirichletDpEvent(*DESIGN),
                                        dp_event.NonPrivateDpEvent()]))
    assert a.get_epsilon(1e-6) == math.inf


@pytest.mark.parametrize("accountant", [acc.DirichletRdpAccountant, acc.DirichletPldAccountant])
@pytest.mark.parametrize("k, error, match", [
    (True, TypeError, "k=True is a bool"),
    (np.array([20.6, 3.0]), ValueError, "k=array.*must be a scalar"),
])
def test_kept_releases_never_skip_the_checks(accountant, k, error, match):
    # a release equal to one already kept (k = True == 1) or one that cannot be a key (an
    # array) still goes through the checks, alone or grouped in a ComposedDpEvent; a cache
    # keyed on equal values would serve k = True the curve of k = 1, and grouping by
    # equality would compose it as k = 1
    # (fresh accountants: dp_accounting's own ledger compares an event with the one before,
    # which an array field cannot answer)
    from dp_accounting import dp_event
    accountant().compose(acc.DirichletDpEvent(1, 98, 5, 8))      # k = 1 is now kept
    for event in (acc.DirichletDpEvent(k, 98, 5, 8),
                  dp_event.ComposedDpEvent([acc.DirichletDpEvent(1, 98, 5, 8),
                                            acc.DirichletDpEvent(k, 98, 5, 8)])):
        with pytest.raises(error, match=match):
            accountant().compose(event)


def test_composition_levels_are_never_below_the_real_numbers():
    # Rounded outward, never below the real formula (fractions, 50-digit mpmath): at these
    # inputs the plain double arithmetic falls below it (T epsilon by half an ulp; the
    # advanced epsilon by 2.2e-16 relative), so an implementation without the outward step
    # fails; and within 4e-15 of it (a step of 1e-12 fails that).  Exact products stay
    # exact: 10 x 0.5 is 5.0.
    from fractions import Fraction

    import mpmath as mp
    eps, _ = acc.basic_composition(1.7119195857184146, 1e-6, 139)
    assert Fraction(139 * 1.7119195857184146) < 139 * Fraction(1.7119195857184146) <= Fraction(eps)
    assert eps == math.nextafter(139 * 1.7119195857184146, math.inf)
    assert acc.basic_composition(0.5, 1e-6, 10)[0] == 5.0
    e, T, s = 1.5750243270306319, 171, 3.814766858789261e-08
    with mp.workdps(50):
        exact = mp.sqrt(2 * T * mp.log(1 / mp.mpf(s))) * e + T * mp.mpf(e) * mp.expm1(mp.mpf(e))
        assert math.sqrt(2 * T * math.log(1 / s)) * e + T * e * math.expm1(e) < exact
        got, d = acc.advanced_composition(e, 1e-9, T, s)
        assert exact <= got <= exact * (1 + mp.mpf(4e-15)), (got, exact)
        assert Fraction(d) >= T * Fraction(1e-9) + Fraction(s)
        # a subnormal epsilon, where a relative margin vanishes (1e-323 for 1.0076e-323)
        tiny, _ = acc.advanced_composition(5e-324, 0.0, 3, 0.5)
        exact = (mp.sqrt(6 * mp.log(2)) * mp.mpf(5e-324)
                 + 3 * mp.mpf(5e-324) * mp.expm1(mp.mpf(5e-324)))
        assert tiny >= exact, (tiny, exact)
