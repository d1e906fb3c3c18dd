"""Tests for the survivors of the mutation run that were real gaps (README, "Mutation testing").

scripts/mutants.py runs a seeded sample of mutmut's one-line mutants of the core modules
against each module's own unit tests; a survivor is either equivalent (listed in README with
the reason) or a missing test, added here.  Each test names the mutant that survived without it.
"""
import numpy as np
import pytest

import dpmarkov as dm


# profile.two_category_search: ``k = _checks.scalar("k", k)`` replaced by ``k = None`` survived
# (only the doctest called the function).  It must give privacy_profile's numbers for n = 2
# with fewer evaluations than pairs, and refuse a k that is not one number, naming k.
def test_two_category_search_is_the_n2_profile_and_takes_one_k():
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    delta, evaluated = dm.two_category_search(eps, 3000.0, 4000, 200)
    expected = dm.privacy_profile(eps, 3000.0, 4000, 2, 200)
    assert np.array_equal(delta, expected)
    assert 0 < evaluated < 4000 - 2 * 200
    with pytest.raises(ValueError, match=r"k=.*one number"):
        dm.two_category_search(eps, [3000.0, 4000.0], 4000, 200)


# privacy._epsilon_and_delta_checked: ``finite_result(..., args[0])`` replaced by ``args[1]``
# survived: the message of an epsilon beyond the float range would name eta's value as k.
# The checked path runs when the fast checks fail but the design is valid: here a row with
# n = 5, eta = 0.2, N = 100, whose only count vector is (20, ..., 20) (no two above the minimum).
def test_an_overflowing_epsilon_on_the_checked_path_names_k():
    from dpmarkov import privacy
    args = [np.array([v]) for v in (1e308, 0.2, 100.0, 5.0, 1e-300)]
    with pytest.raises(ValueError, match=r"^k=1e\+308 gives epsilon beyond the largest float"):
        privacy.epsilon_and_delta(*args)


# chain.iter_privatize_chain: ``min(batch, size) * alpha.size`` replaced by ``/`` survived (the
# batched sampler's size refusal was not tested).  With the limit lowered to 64 numbers and
# 2 x 2 matrices, a batch of 16 matrices is accepted and a batch of 17 refused, before any draw.
def test_the_batched_sampler_refuses_a_batch_beyond_the_limit_at_its_edge(monkeypatch):
    from dpmarkov import _checks
    monkeypatch.setattr(_checks, "MAX_ELEMENTS", 64)
    counts = np.array([[3, 1], [2, 2]])
    batches = dm.iter_privatize_chain(counts, 20.0, support=counts > 0, size=40, batch=16, rng=0)
    assert [b.shape[0] for b in batches] == [16, 16, 8]
    with pytest.raises(ValueError, match=r"batch=17 matrices of shape \(2, 2\) need more than 64"):
        dm.iter_privatize_chain(counts, 20.0, support=counts > 0, size=40, batch=17, rng=0)
    # the smaller of batch and size counts: one matrix of a batch of 17 is one matrix
    assert len(list(dm.iter_privatize_chain(counts, 20.0, support=counts > 0, size=1,
                                            batch=17, rng=0))) == 1


# ergodicity.dobrushin_coefficient caps rounding above 1 only for stochastic matrices: its
# test ``& np.all(|row sum - 1| <= 1e-9)`` survived as ``| ...`` and as ``|row sum + 1|``.
# Two stochastic rows with disjoint supports whose |differences| sum to 2 + 4e-16 in floats
# give exactly 1 (without the cap 1.0000000000000002); a matrix that is not stochastic
# keeps its value, 2 for 2 I (0.5 max_{i,l} sum_j |G_ij - G_lj|).
def test_the_dobrushin_cap_applies_to_stochastic_matrices_only():
    a = [0.26763058142424095, 0.6118729779290406, 0.12049644064671851]
    b = [0.2228750199880266, 0.3434976460117791, 0.4336273340001944]
    P = np.zeros((6, 6))
    P[0, :3], P[1, 3:] = a, b
    P[2:, :] = 1 / 6
    assert 0.5 * np.abs(P[0] - P[1]).sum() > 1.0         # the fixture: rounding above 1
    assert dm.dobrushin_coefficient(P) == 1.0
    assert dm.dobrushin_coefficient(2 * np.eye(2)) == 2.0


# _checks.show abbreviates an array of more than 6 entries in an error message: threshold=6
# replaced by 7 survived.  Six entries are shown whole, seven as the two at each end.
def test_error_messages_abbreviate_arrays_beyond_six_entries():
    from dpmarkov import _checks
    assert _checks.show(np.arange(6.0)) == "[0. 1. 2. 3. 4. 5.]"
    assert _checks.show(np.arange(7.0)) == "[0. 1. ... 5. 6.]"
