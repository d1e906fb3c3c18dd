"""Count vectors (eq. 3), the simplex checks (Defs 1-2) and Assumption 3."""
import numpy as np
import pytest

import dpmarkov as dm


def test_count_vector_divides_by_total():
    C = dm.count_vector([2, 1, 1])
    np.testing.assert_array_equal(C, [0.5, 0.25, 0.25])
    stack = dm.count_vector([[1, 3], [5, 5]])
    np.testing.assert_array_equal(stack, [[0.25, 0.75], [0.5, 0.5]])


def test_count_vector_allows_empty_categories_but_not_empty_databases():
    np.testing.assert_array_equal(dm.count_vector([0, 4]), [0.0, 1.0])
    with pytest.raises(ValueError, match="sums to 0"):
        dm.count_vector([0, 0, 0])
    with pytest.raises(ValueError, match=r"index \(1,\)"):
        dm.count_vector([[1, 2], [0, 0]])


@pytest.mark.parametrize("bad, rule", [
    ([1, -1, 3], ">= 0"),
    ([1, 2.5, 3], "whole numbers"),
    ([1, np.nan, 3], "finite"),
    ([1, np.inf, 3], "finite"),
    ([5], "at least 2"),
    (7, "array of counts"),
])
def test_count_vector_rejects_bad_counts(bad, rule):
    with pytest.raises(ValueError, match=rule):
        dm.count_vector(bad)


def test_count_vector_rejects_non_numeric():
    with pytest.raises(TypeError, match="holds text"):
        dm.count_vector(["a", "b"])


def test_simplex_membership():
    assert dm.in_simplex([0.2, 0.8])
    assert not dm.in_simplex([0.3, 0.8])
    assert not dm.in_simplex([-0.1, 1.1])
    np.testing.assert_array_equal(dm.in_simplex([[0.5, 0.5], [0.6, 0.6]]), [True, False])
    assert dm.in_bordered_simplex([0.3, 0.7], 0.2)
    assert not dm.in_bordered_simplex([0.1, 0.9], 0.2)


def test_assumption_3():
    counts = dm.check_assumption_3([8, 8, 8, 8, 66], 0.073)
    assert counts.sum() == 98
    with pytest.raises(ValueError, match=r"counts\[0\]=7 is below eta\*N=7.154"):
        dm.check_assumption_3([7, 9, 8, 8, 66], 0.073)
    with pytest.raises(ValueError, match="Assumption 3"):
        dm.check_assumption_3([8, 8], 0.3)
