"""Two guards no other test reached (issue 25, item 6): the tolerance of a stochastic matrix's
row sums, and the exact-loss guard inside the sound epsilon.

Each test sits on the guard's edge, so moving or dropping the guard fails it.
"""
import numpy as np
import pytest

import dpmarkov as dm
from dpmarkov import chain


def _rows(excess):
    """A 2 x 2 matrix whose first row sums to 1 + excess (the second to 1)."""
    return np.array([[0.25, 0.75 + excess], [0.5, 0.5]])


def test_row_sums_are_accepted_within_the_tolerance_and_refused_beyond():
    tol = chain.ROW_SUM_ATOL
    for excess in (0.5 * tol, -0.5 * tol):
        assert np.array_equal(dm.check_stochastic(_rows(excess)), _rows(excess))
    for excess in (2 * tol, -2 * tol):
        with pytest.raises(ValueError, match=r"row 0 of P sums to .*tolerance 1e-09"):
            dm.check_stochastic(_rows(excess))
    # the same tolerance for a stack: the offending matrix is found wherever it is
    stack = np.stack([_rows(0.0), _rows(2 * tol)])
    with pytest.raises(ValueError, match="row 0 of P"):
        dm.check_stochastic(stack)


# Designs where eq. (6) and the exact worst loss are the same real number (n = 3, eta*N
# whole, prop-exact-worst-loss) or where the corrected eq. (6) is (n = 2, eta*N whole):
# only the guard (never below dm.epsilon_exact at m = ceil(eta*N)) orders their floats.
EDGE = [(k, m / N, N, n, g) for N, m in ((30, 3), (100, 10), (1000, 50), (98, 7))
        for n in (2, 3) for k in (1.5 * N / m, 40.0, 400.0) for g in (1e-3, 1e-8)]


@pytest.mark.parametrize("k, eta, N, n, gamma", EDGE)
def test_the_sound_epsilon_is_never_below_the_exact_worst_loss(k, eta, N, n, gamma):
    m = int(dm.min_count(eta, N))
    exact = dm.epsilon_exact(k, N, n, gamma, m)
    sound = dm.epsilon(k, eta, N, n, gamma)
    assert sound >= exact
    # and it is the exact value up to its outward rounding (about 1e-14 relative)
    assert sound - exact <= 1e-12 * max(1.0, abs(exact))
