"""Sound numbers at the edges of the doubles (issue 37 items 2-3).

- delta, the tight profile and its inverse are never below their high-precision values where
  those are tiny but representable (1e-250 down to the subnormals 1e-323), the range in which
  scipy's incomplete Beta function loses digits or returns 0 and relative error bounds
  underflow;
- a discrete hockey-stick divergence or profile never exceeds 1;
- ``display.below`` never prints a bound the value is not below;
- values that exist are returned, not refused: the profile at k near the float maximum and
  the analytic Gaussian delta where it underflows.
"""
from __future__ import annotations

from decimal import Decimal

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpmarkov as dm
from dpmarkov.display import below
from dpmarkov.verify import highprec as hpu
from dpmarkov.verify import highprec_privacy as hp

TINY = float(np.finfo(float).smallest_subnormal)

# (k, eta, N, n, gamma) where eq. (7)'s union bound is subnormal (1e-313) or near 1e-300;
# the first four were up to one TINY below their 40-digit value before the last subnormal
# spacing was covered (outward rounding by relative bounds alone)
_DELTA_DESIGNS = [
    (6996.039539352727, 0.073, 98, 2, 0.01),
    (869.9570185780863, 0.1, 20, 5, 1e-5),
    (869.9570185780863, 0.1, 1000, 5, 1e-5),
    (6996.039539352727, 0.073, 98, 5, 0.01),
    (860.0, 0.1, 20, 5, 1e-5),
    (880.0, 0.1, 20, 5, 1e-5),
    (6900.0, 0.073, 98, 2, 0.01),
]


@pytest.mark.parametrize("design", _DELTA_DESIGNS)
def test_delta_is_never_below_its_value_in_the_subnormal_range(design):
    k, eta, N, n, g = design
    got = dm.delta(k, eta, N, n, g)
    ref = hpu.exit_probability_union(dm.worst_counts(eta, N, n), k, g)
    assert 1e-330 < ref < 1e-290                     # the range this test is about
    assert got >= ref
    # tight: within the tails' relative budget plus the few subnormal spacings added
    assert got <= ref * (1 + mp.mpf(1e-9)) + 4 * TINY


def _eps_where_profile_is(value, k, N, n, m):
    """An eps at which the package's profile is near ``value`` (bisection in eps)."""
    lo, hi = 0.0, 1.0
    while dm.privacy_profile(hi, k, N, n, m) > value:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if dm.privacy_profile(mid, k, N, n, m) > value else (lo, mid)
    return hi


_PROFILE_DESIGNS = [(20.6, 98, 5, 8), (2000.0, 1000, 3, 100), (50.0, 40, 2, 4)]


def _pair(N, n, m):
    if n >= 3:
        return [m, m + 1, N - 2 * m - 1], [m + 1, m, N - 2 * m - 1]
    return [m, N - m], [m + 1, N - m - 1]


@pytest.mark.parametrize("design", _PROFILE_DESIGNS)
@pytest.mark.parametrize("level", [1e-300, 1e-308, 1e-312, 1e-318])
def test_profile_and_its_inverse_are_never_below_their_value_near_the_smallest_double(
        design, level):
    k, N, n, m = design
    c, cp = _pair(N, n, m)
    eps = _eps_where_profile_is(level, k, N, n, m)
    got = dm.privacy_profile(eps, k, N, n, m)
    ref = hp.hockey_stick(eps, c, cp, k)             # 40-digit quadrature (the worst pair)
    assert got >= ref, (design, eps, got, ref)
    assert got <= ref * (1 + mp.mpf(1e-6)) + 4 * TINY
    # the inverse: the real profile at the epsilon returned is at most the delta asked for
    e = dm.epsilon_for_delta(level, k, N, n, m)
    assert hp.hockey_stick(e, c, cp, k) <= level


def test_an_underflowing_profile_is_the_smallest_double_not_more():
    # the real value (about 1e-1629) is below TINY / 2: it rounds up to TINY exactly
    assert dm.privacy_profile(468.5, 20.6, 98, 5, 8) == TINY


def test_profile_at_k_near_the_float_maximum_is_returned():
    # was NumericalFailure (k c overflowed before the division by N): the laws are points at
    # different count vectors, so the profile at moderate eps is 1 (rounded outward)
    for k in (5e307, 1.7976931348623157e308):
        got = dm.privacy_profile([0.0, 1.0, 30.0], k, 98, 5, 8)
        assert np.array_equal(got, [1.0, 1.0, 1.0])


def test_hockey_stick_discrete_and_profile_discrete_never_exceed_one():
    # the terms of this law sum to 1.0000000000000002 in floating point (disjoint supports:
    # the divergence at eps = 0 is the total variation, exactly 1)
    p = [0.381, 0.092, 0.109, 0.091, 0.125, 0.071, 0.13100000000000012, 0.0]
    q = [0.0] * 7 + [1.0]
    assert np.sum(p) > 1.0                        # what the guard is for
    assert dm.hockey_stick_discrete(p, q, 0.0) == 1.0
    assert dm.profile_discrete([p, q], [[0, 1]], [0.0, 0.0]).tolist() == [1.0, 1.0]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0.0, 1.0, allow_subnormal=True), min_size=1, max_size=6),
       st.floats(0.0, 3.0))
def test_discrete_profile_is_a_probability(weights, eps):
    w = np.array(weights)
    if w.sum() == 0:
        w[0] = 1.0
    p = np.append(w / w.sum(), 0.0)
    q = np.append(np.zeros(len(w)), 1.0)
    assert 0.0 <= dm.hockey_stick_discrete(p, q, eps) <= 1.0
    assert 0.0 <= dm.profile_discrete([p, q], [[0, 1]], eps) <= 1.0


def test_analytic_gaussian_delta_underflows_to_zero_instead_of_failing():
    from dpmarkov.baselines import analytic_gaussian_delta
    # delta < Phi(a), a = D/(2 sigma) - eps sigma/D, and Phi(a) <= e^(-a^2/2) for a < 0, far
    # below TINY / 2 here (a <= -7e9, in mpmath): the nearest double of delta is 0
    with mp.workdps(30):
        for sigma, eps in ((1e300, 1.0), (1.0, 1e300), (1e10, 1e300), (1e300, 1e-10)):
            a = mp.sqrt(2) / (2 * sigma) - mp.mpf(eps) * sigma / mp.sqrt(2)
            assert a < 0 and -a ** 2 / 2 < mp.log(mp.mpf(TINY) / 2)
            assert analytic_gaussian_delta(sigma, eps) == 0.0
    # and where it is representable the formula is unchanged
    assert analytic_gaussian_delta(3.0, 1.0) == pytest.approx(0.004634954964224822, rel=1e-14)


# ------------------------------------------------------------------ display.below
@settings(max_examples=2000, deadline=None)
@given(st.floats(0.0, 1e300, allow_subnormal=True),
       st.floats(5e-324, 1e300, allow_subnormal=True))
def test_below_prints_only_true_statements(value, bound):
    pytest.importorskip("IPython")      # markdown=True (not in test-oldest)
    if value < bound:
        text = below(value, bound)
        printed = Decimal(text.removeprefix("below "))
        assert Decimal(value) < printed, (value, bound, text)
        tex = below(value, bound, markdown=True).data
        assert tex.startswith("below $") and tex.endswith("$")
    else:
        with pytest.raises(ValueError, match="is not below bound"):
            below(value, bound)


def test_below_keeps_the_bound_it_was_given():
    pytest.importorskip("IPython")      # markdown=True (not in test-oldest)
    # the pair: the old one-digit rounding printed "below 1e-15", which is false
    assert below(1.4e-15, 1.5e-15) == "below 1.5e-15"
    assert below(1.4e-15, 1.5e-15, markdown=True).data == r"below $1.5 \times 10^{-15}$"
    assert below(1.1e-16, 1e-15) == "below 1e-15"
    assert below(1e-17, 4e-16, markdown=True).data == r"below $4 \times 10^{-16}$"


def test_below_refuses_a_value_at_or_above_its_bound():
    # the refusal is the guard: a wrong number must not print as noise; at the boundary too
    for value in (1e-15, -1e-15, [0.0, 2e-15], 1.0):
        with pytest.raises(ValueError, match=r"is not below bound=1e-15"):
            below(value, 1e-15)
    assert below(np.nextafter(1e-15, 0), 1e-15) == "below 1e-15"
    assert below([-np.nextafter(1e-15, 0), 0.0], 1e-15) == "below 1e-15"
    for bad in (0.0, -1e-15):
        with pytest.raises(ValueError, match="must be positive"):
            below(0.0, bad)
