"""Count vectors (eq. 3), the simplex checks (Defs 1-2) and Assumption 3."""
import warnings

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


# --- issue 10, section 2: the validation layer ----------------------------------------------

def test_count_vector_huge_counts_do_not_overflow():
    # the old code divided by an overflowing sum and returned [0, 0]
    assert dm.count_vector([1e308, 1e308]).tolist() == [0.5, 0.5]
    np.testing.assert_allclose(dm.count_vector([1.5e308, 0.5e308, 1e308]), [0.5, 1 / 6, 1 / 3])


@pytest.mark.parametrize("counts, error, match", [
    ([1 + 2j, 3], TypeError, "complex"),              # the old code dropped the imaginary part
    (np.array([1, 2], dtype=complex), TypeError, "complex"),
    ([True, False, True], TypeError, "boolean"),       # the old code read True as 1
    (True, TypeError, "bool"),
    ([10**400, 1], ValueError, "too large for a double"),   # the old code raised OverflowError
    (10**400, ValueError, "too large for a double"),
    (np.array([1, "2"], dtype=object), TypeError, "real number"),
    ([[1, 2], [3]], ValueError, "rectangular"),
    (np.float64(3.0), ValueError, "array of counts"),  # 0-d: never an IndexError
    (np.array("3"), TypeError, "text"),
])
def test_count_vector_refuses_what_is_not_counts(counts, error, match):
    with pytest.raises(error, match=match) as info:
        dm.count_vector(counts)
    assert "counts" in str(info.value)


def test_in_simplex_and_border_are_checked():
    with pytest.raises(ValueError, match="atol=-1"):
        dm.in_simplex([0.5, 0.5], atol=-1)
    with pytest.raises(ValueError, match="eta=2.0"):
        dm.in_bordered_simplex([0.5, 0.5], 2.0)
    assert not dm.in_simplex([1e308, 1e308])          # an overflowing sum is not 1


def test_public_boundary_turns_a_stray_warning_into_a_named_error():
    from dpmarkov import _checks

    @_checks.public
    def f(x):
        return np.exp(x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"f\(x=1000.0\).*overflow"):
            f(1000.0)
        with pytest.raises(ValueError, match="not finite"):
            _checks.public(lambda x: x / 0.0 if False else np.inf)(1)
