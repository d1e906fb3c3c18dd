"""Lemma 1 (parallel composition): the SymPy proof and the exact profile of a joint release.

The symbolic steps are in ``dpmarkov.verify.symbolic_composition``; here they are run,
and the package's float tools (``compose_parallel``, ``parallel_adjacency``,
``profile_discrete``, ``probabilistic_delta``) are checked against the 50-digit brute
force on ASYMMETRIC mechanisms: H(P || Q) differs from H(Q || P), so an implementation
that looks at one order of each adjacent pair gets a different number and fails.
"""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

import dpmarkov as dm
from dpmarkov.verify import symbolic_composition as sc

# two asymmetric parts: 2 inputs x 3 outputs and 3 inputs (a path 0-1-2) x 2 outputs
M1 = np.array([[0.6, 0.3, 0.1],
               [0.2, 0.5, 0.3]])
M2 = np.array([[0.9, 0.1],
               [0.5, 0.5],
               [0.25, 0.75]])
PAIRS1 = [(0, 1)]
PAIRS2 = [(0, 1), (1, 2)]


def test_conditioning_step_is_an_identity_for_symbolic_L():
    out = sc.conditioning_step()
    assert isinstance(out["slack"], sp.Sum)


def test_relaxation_step():
    out = sc.relaxation_step()
    assert sp.simplify(out["difference"] - out["as_sum_of_nonnegatives"]) == 0


def test_union_step_induction():
    out = sc.union_step()
    assert out["step"] == 0


def test_paper_union_step_understates():
    # two parts with delta = 0.1: the bad set of the joint release has probability up to
    # 0.19, the paper's product gives 0.01 and even max delta = 0.1 is exceeded
    union, over_product, over_max = sc.paper_union_gap([0.1, 0.1])
    assert union == sp.Rational(19, 100)
    assert over_product == sp.Rational(18, 100) and over_max == sp.Rational(9, 100)


@pytest.mark.parametrize("eps", [0.0, 0.3, np.log(2), 1.2])
def test_exact_profile_of_joint_release_is_max_of_parts(eps):
    joint, _ = sc.exact_profile_mp([M1, M2], [PAIRS1, PAIRS2], eps)
    parts = [sc.part_profile_mp(M1, PAIRS1, eps), sc.part_profile_mp(M2, PAIRS2, eps)]
    with mp.workdps(sc.DPS):
        # Lemma 1 with conventional DP: the joint profile is exactly the larger part profile
        assert abs(joint - max(parts)) < mp.mpf(10) ** -45
    # the package's float path agrees to rounding (sums of a few products)
    M = dm.compose_parallel(M1, M2)
    pairs = dm.parallel_adjacency([np.array(PAIRS1), np.array(PAIRS2)], (2, 3))
    assert dm.profile_discrete(M, pairs, eps) == pytest.approx(float(joint), abs=1e-15)


def test_asymmetry_matters_both_orders_are_needed():
    eps = 0.3
    with mp.workdps(sc.DPS):
        A, B, e = sc._mp_matrix(M1)[0], sc._mp_matrix(M1)[1], mp.mpf(eps)
        forward, backward = sc.hockey_stick_mp(A, B, e), sc.hockey_stick_mp(B, A, e)
    assert abs(forward - backward) > 0.05            # a one-order profile would be wrong
    # and the package's profile is the larger of the two
    assert dm.profile_discrete(M1, np.array(PAIRS1), eps) == pytest.approx(
        float(max(forward, backward)), abs=1e-15)


def test_probabilistic_delta_of_joint_release_is_the_union_not_the_product():
    eps = 0.9        # e^eps = 2.46: outputs 0 and 2 of M1 and output 1 of M2 are "bad"
    d1 = dm.probabilistic_delta(M1, np.array(PAIRS1), eps)
    d2 = dm.probabilistic_delta(M2, np.array(PAIRS2), eps)
    M = dm.compose_parallel(M1, M2)
    pairs = dm.parallel_adjacency([np.array(PAIRS1), np.array(PAIRS2)], (2, 3))
    joint = dm.probabilistic_delta(M, pairs, eps)
    # here the worst input of each part is bad with probability delta_i at the same time
    assert joint == pytest.approx(1 - (1 - d1) * (1 - d2), abs=1e-15)
    assert (d1, d2) == (pytest.approx(0.7, abs=1e-15), pytest.approx(0.75, abs=1e-15))
    assert joint == pytest.approx(0.925, abs=1e-15)
    assert joint > max(d1, d2) > d1 * d2
    # while conventional DP composes to the max, as Lemma 1 states
    assert dm.profile_discrete(M, pairs, eps) <= max(d1, d2) + 1e-15
