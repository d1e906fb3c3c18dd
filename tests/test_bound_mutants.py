"""Bounds and guards that no printed digit should have to catch (issue 40, items 3 and 4).

Each test names the one-line bug it was checked against: the bug was planted, the test failed,
the bug was removed (the comment says so).  mpmath gives the exact values at 40 digits.
"""
import math

import mpmath
import numpy as np
import pytest

import dpmarkov as dm
from dpmarkov import _checks, _numerics, accounting, privacy

U = 2.0 ** -53


# --- item 3: the exact-loss guard of the sound epsilon ----------------------------------------
#
# Eq. (6) (corrected for n = 2) is >= the exact worst loss as real numbers, and its outward
# rounding already covers its floating-point error, so over 60 000 designs the unguarded value
# was never below the real exact loss (nor below dm.epsilon_exact's float): the guard
# max(eq. (6) outward, exact loss outward) is defence in depth, kept so that the promise "never
# below epsilon_exact at m = ceil(eta N)" does not rest on eq. (6)'s derivation alone (a future
# eq. (6) variant, or an error budget shrunk in one of the two, is still covered by the other).
# Where eq. (6) and the exact loss are the same real number (eta N whole, n = 2 or 3) the guard
# decides the last bits in about 2 % of designs: these are such designs (found by comparing
# privacy._eq6_outward with and without the guard's rows), and the test pins its value, the exact
# loss rounded outward by its own bounds, recomputed here from the kernel.  Checked: with the
# guard's line (``eps[rows] = np.maximum(...)``) removed, or ``_guard_loses`` made true
# everywhere, the first assertion fails on every design below.
GUARD_DECIDES = [(400.0, 2 / 34, 34, 2, 1e-3), (400.0, 2 / 34, 34, 2, 1e-8),
                 (400.0, 1 / 34, 34, 3, 1e-3), (40.0, 6 / 41, 41, 3, 1e-3),
                 (40.0, 4 / 48, 48, 2, 1e-3), (40.0, 6 / 48, 48, 2, 1e-3),
                 (3000.0, 10 / 48, 48, 3, 1e-3), (8.25, 10 / 55, 55, 2, 1e-3)]


def _outward_pair(x, y, h, n, gamma):
    """h (inc(x) - inc(y)) + output term, rounded outward by its bounds (as ``_eq6_outward``)."""
    x, y, h = (np.array([v], float) for v in (x, y, h))
    sx, sy = (_numerics.mean_digamma(v, h, step_positive=True) for v in (x, y))
    value = _numerics.scaled_difference(h, sx, sy) + _numerics.output_term(h, n, gamma)
    error = (_numerics.increment_error(x, h, sx, step_positive=True)
             + _numerics.increment_error(y, h, sy, step_positive=True)
             + _numerics.output_term_error(h, n, _numerics.output_logs(n, gamma)))
    return float(_numerics.outward(value, error)[0])


@pytest.mark.parametrize("k, eta, N, n, gamma", GUARD_DECIDES)
def test_the_guard_gives_the_exact_loss_rounded_outward_where_it_decides(k, eta, N, n, gamma):
    m = int(dm.min_count(eta, N))
    h = k / N
    top = k * (1 - (1 if n == 2 else 2) * eta)
    eq6 = _outward_pair(top - h, k * eta, h, n, gamma)              # eq. (6) alone, outward
    exact = _outward_pair(h * (N - (n - 1) * m - 1), h * m, h, n, gamma)  # the guard's value
    assert exact > eq6                      # the fixture: here the guard is what decides
    assert dm.epsilon(k, eta, N, n, gamma) == exact
    # both are sound: neither is below the real exact loss (40 digits)
    mpmath.mp.dps = 40
    real = (mpmath.log(mpmath.beta(mpmath.mpf(k) * m / N, mpmath.mpf(k) * (N - (n - 1) * m) / N))
            - mpmath.log(mpmath.beta(mpmath.mpf(k) * (m + 1) / N,
                                     mpmath.mpf(k) * (N - (n - 1) * m - 1) / N))
            + mpmath.mpf(k) / N * mpmath.log((1 - (n - 1) * mpmath.mpf(gamma)) / gamma))
    assert eq6 >= real and exact >= real


# --- item 4: the error budget of one log-Gamma increment ---------------------------------------
#
# ``increment_error`` is so pessimistic that a budget 64 times too small (64u -> u) still
# covers the measured errors, so comparing with mpmath alone cannot catch it.  Its docstring
# derives it: the kernel's value P - S has absolute error <= 40u (P + S), then the product by h
# and the subtraction of two such terms add a few u of |h scaled|.  The test computes P + S
# exactly (mpmath) and asserts the budget covers 40u |h| (P + S) + 3u |h scaled|, the terms of
# the derivation, not the returned formula.  Checked: with 64.0 replaced by 1.0 (or by 32.0)
# in ``increment_error`` the test fails.
INCREMENTS = [(x, h) for x in (0.07, 0.9, 3.0, 9.99, 10.0, 57.3, 1e4, 3.2e9)
              for h in (1e-6, 0.01, 0.4, 3.0, 250.0)]


@pytest.mark.parametrize("x, h", INCREMENTS)
def test_the_increment_budget_covers_every_term_of_its_derivation(x, h):
    mpmath.mp.dps = 40
    xm, hm = mpmath.mpf(x), mpmath.mpf(h)
    shifted = x < _numerics.SERIES_FROM
    y = xm + 10 if shifted else xm
    p = (mpmath.loggamma(y + hm) - mpmath.loggamma(y)) / hm               # Stirling's mean P
    s = (sum(mpmath.log1p(hm / (xm + j)) for j in range(10)) / hm) if shifted else 0  # shift S
    scaled = _numerics.mean_digamma(np.array([x]), np.array([h]), step_positive=True)
    budget = float(_numerics.increment_error(np.array([x]), np.array([h]), scaled,
                                             step_positive=True)[0])
    needed = 40 * U * h * (p + s) + 3 * U * abs(h * float(scaled[0]))
    assert budget >= needed
    # and it bounds the actual error of h * scaled (the claim itself)
    assert abs(h * float(scaled[0]) - h * (p - s)) <= budget


# --- item 4: the ends of the privacy loss distribution's grid ------------------------------------
#
# ``accounting.privacy_loss_distribution`` puts the loss on multiples of the discretization
# from ceil(t_lo/step) to ceil(t_hi/step), t_lo and t_hi the losses at the tail_mass/2
# quantiles.  Either end rounded down instead (floor) still gives a pessimistic distribution,
# so no epsilon moves beyond its printed digits; the grid's contract does: the infinite-loss
# mass (above the top end) is at most tail_mass/2, and the first bin (every loss up to the bottom
# end, rounded up into it) holds at least tail_mass/2.  Checked: math.floor at k_hi fails the
# first assertion, math.floor at k_lo the second.
@pytest.mark.parametrize("k, N, n, m, step", [(3.0, 1000, 3, 100, 1e-3), (40.0, 98, 5, 7, 1e-2),
                                              (400.0, 200, 3, 30, 5e-3)])
def test_the_loss_grid_ends_are_rounded_up(k, N, n, m, step):
    tail = 1e-9
    pmf = accounting.privacy_loss_distribution(k, N, n, m, discretization=step,
                                               tail_mass=tail)._pmf_remove
    assert pmf._infinity_mass <= tail / 2 * (1 + 1e-6)
    lowest = min(pmf._loss_probs)
    assert pmf._loss_probs[lowest] >= tail / 2 * (1 - 1e-6)
    # the bins are multiples of step, no more of them than the limit
    assert pmf._discretization == step
    assert max(pmf._loss_probs) - lowest + 1 <= accounting.MAX_BINS


def test_the_guard_designs_are_valid_designs():
    # the designs above pass the public checks and give a finite epsilon (a design they
    # refused would make the guard test vacuous)
    for k, eta, N, n, gamma in GUARD_DECIDES:
        shape, flat = _checks.theorem1_flat_design(k, eta, N, n, gamma)
        assert shape == () and privacy.sound_epsilon(*flat).shape == (1,)
        assert math.isfinite(float(privacy.sound_epsilon(*flat)[0]))
