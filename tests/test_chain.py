"""Tests for dpmarkov.chain: counts, Algorithm 2, GTH, Definition 7, Theorems 4-5.

Statistical tests use fixed seeds; their tolerances are 5 standard errors of the
Monte Carlo mean (estimated from the same sample), as stated at each assert.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

import dpmarkov as dm
from dpmarkov import chain as ch
from dpmarkov import stationary as st

SE = 5  # standard errors allowed in every Monte Carlo comparison


def random_chain(rng, n, zeros=0.0):
    P = rng.dirichlet(np.ones(n), size=n)
    if zeros:
        P[rng.random((n, n)) < zeros] = 0
        P[np.arange(n), (np.arange(n) + 1) % n] += 0.1  # a cycle keeps it irreducible
        P /= P.sum(axis=1, keepdims=True)
    return P


# --------------------------------------------------------------------------- counts
def test_transition_counts_one_sequence_and_lists():
    assert np.array_equal(dm.transition_counts([0, 1, 1, 0], 2), [[0, 1], [1, 1]])
    # no transition is counted across the boundary of two sequences
    two = dm.transition_counts([[0, 1, 2, 2], [1, 0]], 3)
    assert np.array_equal(two, [[0, 1, 0], [1, 0, 1], [0, 0, 1]])
    arr = dm.transition_counts(np.array([[0, 1], [1, 1]]), 2)
    assert np.array_equal(arr, [[0, 1], [0, 1]])
    assert np.array_equal(dm.transition_counts(np.array([2, 0]), 3), [[0, 0, 0]] * 2 + [[1, 0, 0]])
    assert dm.transition_counts([[0], [1]], 2).sum() == 0  # length-1 sequences: no transition


def test_transition_counts_matches_a_loop():
    rng = np.random.default_rng(0)
    seq = rng.integers(0, 4, size=500)
    expect = np.zeros((4, 4))
    for a, b in zip(seq[:-1], seq[1:]):
        expect[a, b] += 1
    assert np.array_equal(dm.transition_counts(seq, 4), expect)
    assert np.array_equal(dm.transition_counts_from_pairs(seq[:-1], seq[1:], 4), expect)


@pytest.mark.parametrize("args, match", [
    (([0, 3], 3), "state 3"),
    (([0, -1], 3), "state -1"),
    (([0, 1.5], 3), "non-integer"),
    (([0, 1], 0), "n=0 must be a whole number >= 1"),
    ((5, 3), "sequence of states"),
    (([[0, 1], [[0, 1]]], 3), "1-D"),
])
def test_transition_counts_rejects(args, match):
    with pytest.raises(ValueError, match=match):
        dm.transition_counts(*args)


def test_transition_counts_from_pairs_rejects_unpaired():
    with pytest.raises(ValueError, match="pair up"):
        dm.transition_counts_from_pairs([0, 1], [1], 2)


# --------------------------------------------------------------------------- checks
@pytest.mark.parametrize("counts, match", [
    ([[1, 2, 3]], "square"),
    ([[1, -1], [1, 1]], ">= 0"),
    ([[1, 0.5], [1, 1]], "whole numbers"),
    ([[1, 1], [0, 0]], "row 1 .* all zero"),
    ([[1, np.nan], [1, 1]], "finite"),
    (np.ones((2, 2, 2)), "one \\(n, n\\)"),
])
def test_check_counts_rejects(counts, match):
    with pytest.raises(ValueError, match=match):
        dm.check_counts(counts)


def test_check_feasible_observed():
    counts = np.array([[0, 2], [1, 1]])
    feasible = counts > 0
    assert np.array_equal(dm.check_feasible_observed(counts, feasible), counts)
    assert np.array_equal(dm.check_feasible_observed(counts), counts)
    with pytest.raises(ValueError, match="0->0 is feasible but was never observed"):
        dm.check_feasible_observed(counts, np.ones((2, 2), bool))
    with pytest.raises(ValueError, match="1->0 is marked infeasible"):
        dm.check_feasible_observed(counts, np.array([[False, True], [False, True]]))
    with pytest.raises(TypeError, match="feasible must be a boolean array"):
        dm.check_feasible_observed(counts, np.ones((2, 2)))
    with pytest.raises(ValueError, match="all zero"):
        dm.check_feasible_observed([[0, 0], [1, 1]])


def test_check_irreducible():
    P = np.array([[0.5, 0.5, 0], [0, 0.5, 0.5], [0.5, 0, 0.5]])
    assert np.array_equal(dm.check_irreducible(P), P)
    absorbing = np.array([[1, 0, 0], [0.5, 0.5, 0], [0, 0.5, 0.5]])
    with pytest.raises(ValueError, match=r"reducible: 3 communicating classes; states \{0\} form a "
                                         r"closed class .*Assumption 5"):
        dm.check_irreducible(absorbing)
    with pytest.raises(ValueError, match="matrix 1 of the stack"):
        dm.check_irreducible(np.stack([P, absorbing]))
    with pytest.raises(ValueError, match="square"):
        dm.check_irreducible(np.ones(3))


def test_check_stochastic():
    with pytest.raises(ValueError, match=">= 0"):
        dm.check_stochastic([[1.5, -0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="row 1 of P sums to"):
        dm.check_stochastic([[0.5, 0.5], [0.5, 0.6]])


# --------------------------------------------------------------------------- stationary
def power_iteration(P, steps=4000):
    lazy = 0.5 * (P + np.eye(P.shape[-1]))  # same pi, aperiodic
    return np.linalg.matrix_power(lazy, steps)[0]


@pytest.mark.parametrize("n", [2, 3, 7, 20])
def test_stationary_gth_solve_power_agree(n):
    rng = np.random.default_rng(n)
    P = random_chain(rng, n, zeros=0.5 if n > 3 else 0)
    pi = dm.stationary_distribution(P)
    assert pi.shape == (n,) and np.isclose(pi.sum(), 1, atol=1e-14)
    assert np.allclose(pi @ P, pi, atol=1e-14)
    assert np.allclose(pi, dm.stationary_distribution(P, method="solve"), atol=1e-13)
    assert np.allclose(pi, power_iteration(P), atol=1e-12)


def test_stationary_on_a_stack_matches_one_by_one():
    rng = np.random.default_rng(1)
    S = np.stack([[random_chain(rng, 5) for _ in range(3)] for _ in range(2)])  # (2, 3, 5, 5)
    pis = dm.stationary_distribution(S)
    assert pis.shape == (2, 3, 5)
    for idx in itertools.product(range(2), range(3)):
        assert np.allclose(pis[idx], dm.stationary_distribution(S[idx]), atol=1e-15)
    assert np.allclose(dm.stationary_distribution(S, method="solve"), pis, atol=1e-13)


def test_stationary_batches_share_one_scratch_array(monkeypatch):
    # a stack of 11 in batches of 4 (4, 4, 3: the last one shorter, in the same scratch
    # array as the others) gives the bits of the stack in one batch: each matrix's
    # operations do not depend on its batch.  A batch computed on the previous batch's
    # leftovers, or a last batch reading stale rows, would differ
    rng = np.random.default_rng(11)
    stack = np.stack([random_chain(rng, 40, zeros=0.5) for _ in range(11)])
    whole = dm.stationary_distribution(stack)
    monkeypatch.setattr(st, "GTH_BATCH", 4)
    assert np.array_equal(dm.stationary_distribution(stack), whole)
    assert np.array_equal(dm.stationary_distribution(stack[::-1]), whole[::-1])
    assert np.max(np.abs(whole / gth_reference(stack) - 1)) < 1e-13


def test_gth_keeps_relative_accuracy_on_a_nearly_decomposable_chain():
    # birth-death chain with tiny up-rates: pi spans ~1e-60, known by detailed balance
    n, up, down = 6, 1e-12, 0.5
    P = np.zeros((n, n))
    for i in range(n):
        if i < n - 1:
            P[i, i + 1] = up
        if i > 0:
            P[i, i - 1] = down
        P[i, i] = 1 - P[i].sum()
    ratio = up / down
    exact = ratio ** np.arange(n)
    exact /= exact.sum()
    pi = dm.stationary_distribution(P)
    assert np.max(np.abs(pi / exact - 1)) < 1e-12, "GTH loses relative accuracy"
    # a plain solve gets the tiny entries wrong by orders of magnitude
    solve = dm.stationary_distribution(P, method="solve")
    assert np.max(np.abs(solve / exact - 1)) > 1e-6


gth_reference = st.gth_textbook   # textbook GTH, one state at a time


def nearly_decomposable(rng, n, couplings=(1e-3, 1e-9, 1e-14)):
    """Blocks of random chains joined by rare transitions of very different sizes."""
    cuts = np.array_split(np.arange(n), len(couplings) + 1)
    P = np.zeros((n, n))
    for idx in cuts:
        P[np.ix_(idx, idx)] = random_chain(rng, idx.size, zeros=0.3)
    for b, eps in enumerate(couplings):           # block b -> b+1 with eps, back with 0.3
        i, j = cuts[b][-1], cuts[b + 1][0]
        P[i] *= 1 - eps
        P[i, j] += eps
        P[j] *= 0.7
        P[j, i] += 0.3
    return P


def birth_death(n, up, down=0.5):
    P = np.zeros((n, n))
    P[np.arange(n - 1), np.arange(1, n)] = up
    P[np.arange(1, n), np.arange(n - 1)] = down
    P[np.diag_indices(n)] = 1 - P.sum(axis=1)
    exact = (up / down) ** np.arange(n)
    return P, exact / exact.sum()


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("n", [2, 3, 5, 16, 17, 40, 70])
def test_blocked_gth_matches_textbook_gth(n, compact, monkeypatch):
    # the package's GTH regroups the textbook updates into panels and matrix products;
    # both only add, multiply and divide non-negative numbers, so they agree to a few
    # ulps per component whatever the conditioning (1e-13 relative is the budget);
    # compact=True moves the kept block in memory as for big matrices
    monkeypatch.setattr(st, "GTH_COMPACT_FROM", 1 if compact else st.GTH_COMPACT_FROM)
    rng = np.random.default_rng(100 + n)
    stack = np.stack([random_chain(rng, n), random_chain(rng, n, zeros=0.6),
                      nearly_decomposable(rng, n) if n >= 4 else random_chain(rng, n)])
    ref = gth_reference(stack)
    assert np.allclose(np.einsum("bi,bij->bj", ref, stack), ref, rtol=1e-12, atol=0)
    for panel in (1, 3, 16, 24, 64):               # panel 1 is the textbook order
        pi = st._gth(stack.copy(), panel)          # the stack's numpy steps
        assert np.max(np.abs(pi / ref - 1)) < 1e-13, f"panel {panel}"
        for m in range(stack.shape[0]):            # one matrix: BLAS rank-one steps
            pi = st._gth(stack[m:m + 1].copy(), panel)
            assert np.max(np.abs(pi / ref[m:m + 1] - 1)) < 1e-13, f"panel {panel}, matrix {m}"
    assert np.max(np.abs(dm.stationary_distribution(stack) / ref - 1)) < 1e-13


def test_blocked_gth_relative_accuracy_far_below_machine_epsilon():
    # pi_j = (up/down)^j / sum spans 1e-132 .. 1 (detailed balance gives it exactly);
    # a nearly decomposable chain whose pi spans ~1e-14 .. 1
    P, exact = birth_death(50, 1e-3)
    pi = dm.stationary_distribution(P)
    assert exact.min() < 1e-130
    assert np.max(np.abs(pi / exact - 1)) < 1e-13
    assert np.max(np.abs(pi / gth_reference(P[None])[0] - 1)) < 1e-13
    Q = nearly_decomposable(np.random.default_rng(7), 60)
    ref = gth_reference(Q[None])[0]
    assert ref.min() < 1e-12 * ref.max()
    assert np.max(np.abs(dm.stationary_distribution(Q) / ref - 1)) < 1e-13


def test_stationary_periodic_and_trivial():
    assert np.allclose(dm.stationary_distribution([[0, 1], [1, 0]]), [0.5, 0.5])
    assert np.array_equal(dm.stationary_distribution([[1.0]]), [1.0])


def test_stationary_rejects():
    with pytest.raises(ValueError, match="reducible"):
        dm.stationary_distribution([[1, 0], [0.5, 0.5]])
    with pytest.raises(ValueError, match="sums to"):
        dm.stationary_distribution([[0.5, 0.6], [0.5, 0.5]])
    with pytest.raises(ValueError, match="method"):
        dm.stationary_distribution([[0.5, 0.5], [0.5, 0.5]], method="eig")


def test_stationary_checks_a_stack_like_the_public_checks():
    # stationary_distribution validates big stacks in two passes (minimum, row sums);
    # every kind of bad input must still raise the public checks' errors
    rng = np.random.default_rng(5)
    good = np.stack([random_chain(rng, 4) for _ in range(3)])
    mixed = good.copy()
    mixed[1] = random_chain(rng, 4, zeros=0.5)               # another pattern, irreducible
    assert np.allclose(dm.stationary_distribution(mixed)[1], dm.stationary_distribution(mixed[1]))
    reducible = good.copy()
    reducible[2] = [[1, 0, 0, 0], [0.5, 0.5, 0, 0], [0.2, 0.3, 0.5, 0], [0.25] * 4]
    with pytest.raises(ValueError, match=r"reducible \(matrix 2 of the stack\)"):
        dm.stationary_distribution(reducible)
    same_pattern_reducible = np.stack([reducible[2]] * 2)  # one pattern, reducible
    with pytest.raises(ValueError, match="reducible"):
        dm.stationary_distribution(same_pattern_reducible)
    for bad, match in ((np.nan, "finite"), (np.inf, "finite"), (-0.1, ">= 0")):
        B = good.copy()
        B[1, 2, 3] = bad
        with pytest.raises(ValueError, match=match):
            dm.stationary_distribution(B)
    B = good.copy()
    B[2, 1] *= 1.01
    with pytest.raises(ValueError, match="sums to"):
        dm.stationary_distribution(B)
    with pytest.raises(ValueError, match="square"):
        dm.stationary_distribution(np.ones((2, 3, 4)) / 4)
    with pytest.raises((ValueError, TypeError)):
        dm.stationary_distribution([["a", "b"], ["c", "d"]])
    assert dm.stationary_distribution(np.zeros((0, 3, 3))).shape == (0, 3)   # an empty stack


# --------------------------------------------------------------------------- fundamental matrix
def test_fundamental_matrix_identities_and_the_printed_sign():
    rng = np.random.default_rng(3)
    P = random_chain(rng, 6, zeros=0.4)
    pi = dm.stationary_distribution(P)
    Z = dm.fundamental_matrix(P)
    one = np.ones((6, 1))
    I = np.eye(6)
    assert np.allclose(Z @ (I - P + one * pi), I, atol=1e-12)
    assert np.allclose(pi @ Z, pi, atol=1e-12)
    assert np.allclose(Z @ np.ones(6), 1, atol=1e-12)
    A = I - P  # Z - 1 pi^T is the group inverse of I - P
    G = Z - one * pi
    assert np.allclose(A @ G @ A, A, atol=1e-12) and np.allclose(G @ A @ G, G, atol=1e-12)
    assert np.allclose(A @ G, G @ A, atol=1e-12)
    # the perturbation identity pi~ - pi = pi~^T (P~ - P) Z holds with the plus sign ...
    Pt = random_chain(rng, 6)
    pit = dm.stationary_distribution(Pt)
    assert np.allclose(pit - pi, pit @ (Pt - P) @ Z, atol=1e-12)
    # the paper's printed minus sign gives Z - 2 1 pi^T: not the fundamental matrix ...
    Zm = np.linalg.inv(I - P - one * pi)
    assert np.allclose(Zm, Z - 2 * one * pi, atol=1e-12)
    assert np.allclose(pi @ Zm, -pi, atol=1e-12) and np.allclose(Zm @ np.ones(6), -1, atol=1e-12)
    # ... but equal to Z on zero-sum row vectors, so the identity survives; norms differ
    assert np.allclose(pit - pi, pit @ (Pt - P) @ Zm, atol=1e-12)
    assert not np.isclose(np.abs(Zm).sum(axis=0).max(), np.abs(Z).sum(axis=0).max())


def test_fundamental_matrix_stack():
    rng = np.random.default_rng(4)
    S = np.stack([random_chain(rng, 4) for _ in range(3)])
    Z = dm.fundamental_matrix(S)
    assert Z.shape == (3, 4, 4)
    assert np.allclose(Z[2], dm.fundamental_matrix(S[2]))


# --------------------------------------------------------------------------- ergodicity
def tau_by_vertices(G):
    """max ||G^T z||_inf over the vertices of {z in [-1,1]^n, sum z = 0} (brute force)."""
    n = G.shape[0]
    best = 0.0
    h = n // 2
    for plus in itertools.combinations(range(n), h):
        rest = [i for i in range(n) if i not in plus]
        for minus in itertools.combinations(rest, h):
            z = np.zeros(n)
            z[list(plus)], z[list(minus)] = 1, -1
            best = max(best, np.abs(G.T @ z).max())
    return best


def tau_by_lp(G):
    """The same maximum by linear programming: for each column j and sign s, max s G[:,j]^T z."""
    n = G.shape[0]
    best = 0.0
    for j in range(n):
        for s in (1, -1):
            res = linprog(-s * G[:, j], A_eq=np.ones((1, n)), b_eq=[0], bounds=[(-1, 1)] * n)
            best = max(best, -res.fun)
    return best


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_ergodicity_coefficient_closed_form(n):
    rng = np.random.default_rng(10 + n)
    for G in (random_chain(rng, n), random_chain(rng, n, zeros=0.5), rng.normal(size=(n, n))):
        tau = dm.ergodicity_coefficient(G)
        assert np.isclose(tau, tau_by_vertices(G), atol=1e-12)
        assert np.isclose(tau, tau_by_lp(G), atol=1e-8)


def test_ergodicity_coefficient_vs_dobrushin():
    rng = np.random.default_rng(20)
    P2 = random_chain(rng, 2)
    assert np.isclose(dm.ergodicity_coefficient(P2), dm.dobrushin_coefficient(P2))
    assert np.isclose(dm.ergodicity_coefficient(P2), abs(1 - P2[0, 1] - P2[1, 0]))
    # Definition 7 can exceed 1 (n >= 4); Dobrushin never does
    P = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]], float)
    assert dm.ergodicity_coefficient(P) == 2.0 and dm.dobrushin_coefficient(P) == 1.0
    # a rank-one chain (all rows equal) has both = 0
    assert dm.ergodicity_coefficient(np.tile([0.2, 0.3, 0.5], (3, 1))) == 0
    # n = 3: equal (a zero-sum difference of 3 entries has its positive part in one column
    # or its negative part in one column)
    S3 = np.stack([random_chain(rng, 3, zeros=0.3) for _ in range(50)])
    assert np.allclose(dm.ergodicity_coefficient(S3), dm.dobrushin_coefficient(S3), atol=1e-14)
    for n in (4, 5, 8):
        S = np.stack([random_chain(rng, n) for _ in range(20)])
        lam2 = np.sort(np.abs(np.linalg.eigvals(S)), axis=-1)[:, -2]
        tau, dob = dm.ergodicity_coefficient(S), dm.dobrushin_coefficient(S)
        assert tau.shape == (20,) and np.all(lam2 <= tau + 1e-12) and np.all(lam2 <= dob + 1e-12)
        assert np.all(dob <= 1 + 1e-12)
        assert np.any(np.abs(tau - dob) > 1e-3)  # they are different coefficients


def test_dobrushin_is_the_one_norm_coefficient():
    # tau_1(P) = max ||P^T z||_1 over the vertices (e_i - e_l)/2 of {||z||_1 <= 1, sum z = 0}
    rng = np.random.default_rng(21)
    P = random_chain(rng, 5)
    best = max(np.abs(P.T @ (np.eye(5)[i] - np.eye(5)[l]) / 2).sum()
               for i in range(5) for l in range(5))
    assert np.isclose(dm.dobrushin_coefficient(P), best)


def test_dobrushin_over_unordered_pairs_equals_all_ordered_pairs_bit_for_bit():
    # each pair of rows is compared once (l > i); the maximum over every ordered pair (i, l),
    # written out here, must be the same double: skipping a pair, the last row or the
    # first row (an off-by-one in the range) would give a smaller value on some matrix
    rng = np.random.default_rng(22)
    for n in (1, 2, 3, 5, 17):
        S = np.stack([random_chain(rng, n, zeros=0.3) for _ in range(40)]) if n > 1 else \
            np.ones((40, 1, 1))
        full = 0.5 * np.abs(S[:, :, None, :] - S[:, None, :, :]).sum(axis=-1).max(axis=(-2, -1))
        assert np.array_equal(dm.dobrushin_coefficient(S), full)
        assert all(dm.dobrushin_coefficient(S[t]) == full[t] for t in range(3))
    # the largest distance between the first and the last row only
    P = np.array([[1, 0, 0], [0.5, 0.5, 0], [0, 0, 1]], float)
    assert dm.dobrushin_coefficient(P) == 1.0


# --------------------------------------------------------------------------- Algorithm 2
COUNTS = np.array([[6, 3, 0, 1], [2, 2, 4, 0], [0, 5, 5, 10], [1, 1, 1, 1]], float)
#: the public support, fixed before the data: here the design whose counts COUNTS are
SUPPORT = COUNTS > 0


def test_privatize_chain_moments_per_row():
    k = np.array([20.0, 40.0, 80.0, 10.0])
    draws = dm.privatize_chain(COUNTS, support=SUPPORT, k=k, rng=0, size=20000)
    assert draws.shape == (20000, 4, 4)
    assert np.allclose(draws.sum(axis=-1), 1, atol=1e-12)
    C = COUNTS / COUNTS.sum(axis=1, keepdims=True)
    mean, var = draws.mean(axis=0), draws.var(axis=0)
    # Dirichlet moments: E = C, Var = C(1-C)/(k+1); tolerance 5 standard errors of the mean
    se = np.sqrt(C * (1 - C) / (k[:, None] + 1) / 20000)
    assert np.all(np.abs(mean - C) <= SE * se + 1e-15)
    exact_var = C * (1 - C) / (k[:, None] + 1)
    # SE of a sample variance ~ sqrt(2/(m-1)) * var for near-normal entries; allow 5 of them
    assert np.allclose(var, exact_var, rtol=SE * 2 * np.sqrt(2 / 19999), atol=1e-15)


def test_privatize_chain_keeps_zero_support_exactly():
    draws = dm.privatize_chain(COUNTS, support=SUPPORT, k=15, rng=1, size=500)
    assert np.all(draws[:, COUNTS == 0] == 0)
    assert np.all(draws[:, COUNTS > 0] > 0)
    one = dm.privatize_chain([[0, 3], [2, 2]], 10, support=np.array([[False, True], [True, True]]), rng=2)
    assert one.shape == (2, 2) and one[0, 0] == 0 and one[0, 1] == 1  # support of size 1


def test_privatize_chain_stream_is_one_gamma_call():
    # Algorithm 2 draws each batch straight into its slice of the result
    # (standard_gamma(..., out=...)); the numbers are those of one plain standard_gamma
    # call on the whole (size, n, n) parameter array, rows divided by their sums ...
    k = np.array([20.0, 40.0, 80.0, 10.0])
    alpha = k[:, None] * (COUNTS / COUNTS.sum(axis=1, keepdims=True))
    g = np.random.default_rng(12345).standard_gamma(alpha, size=(37, 4, 4))
    g /= g.sum(axis=-1, keepdims=True)
    for batch in (None, 1, 5, 37, 100):
        assert np.array_equal(dm.privatize_chain(COUNTS, support=SUPPORT, k=k, rng=12345, size=37, batch=batch), g)
    # ... and the numbers the version without out= gave for these seeds (recorded from it;
    # rtol 1e-15 only allows for a different libm on another machine)
    assert np.allclose(g[36, 2], [0.0, 0.2385919338502969, 0.21433956032995174, 0.5470685058197513],
                       rtol=1e-15, atol=0)
    assert np.allclose(dm.privatize_chain(COUNTS, support=SUPPORT, k=15, rng=99)[1],
                       [0.19411051232204374, 0.1341838777919431, 0.6717056098860131, 0.0],
                       rtol=1e-15, atol=0)


def test_privatize_chain_batching_is_invisible():
    whole = dm.privatize_chain(COUNTS, support=SUPPORT, k=12, rng=7, size=25)
    batched = dm.privatize_chain(COUNTS, support=SUPPORT, k=12, rng=7, size=25, batch=4)
    assert np.array_equal(whole, batched)
    blocks = list(dm.iter_privatize_chain(COUNTS, 12, support=SUPPORT, size=25, batch=10, rng=7))
    assert [b.shape[0] for b in blocks] == [10, 10, 5]
    assert np.array_equal(np.concatenate(blocks), whole)
    first = dm.privatize_chain(COUNTS, support=SUPPORT, k=12, rng=7)
    assert np.array_equal(first, whole[0])


def test_privatize_chain_per_row_k_matters():
    # a row with 10x larger k has 10x-ish smaller variance; rows are independent draws
    draws = dm.privatize_chain([[5, 5], [5, 5]], [10.0, 100.0], support=np.ones((2, 2), bool), rng=3, size=4000)
    v0, v1 = draws[:, 0, 0].var(), draws[:, 1, 0].var()
    assert abs(v0 - 0.25 / 11) < SE * 0.25 / 11 * np.sqrt(2 / 3999)
    assert abs(v1 - 0.25 / 101) < SE * 0.25 / 101 * np.sqrt(2 / 3999)
    assert abs(np.corrcoef(draws[:, 0, 0], draws[:, 1, 0])[0, 1]) < SE / np.sqrt(4000)


@pytest.mark.parametrize("kwargs, match", [
    (dict(counts=[[1, 1], [0, 0]], k=10), "all zero"),
    (dict(counts=COUNTS, k=[1.0, 2.0]), "one per row"),
    (dict(counts=COUNTS, k=0), "must be > 0"),
    (dict(counts=COUNTS, k=10, size=0), "size=0 must be a whole number >= 1"),
    (dict(counts=COUNTS, k=10, size=3, batch=0), "batch=0 must be a whole number >= 1"),
    (dict(counts=COUNTS, k=100, eta=0.2), "Assumption 3 on the support of row 0"),
    (dict(counts=COUNTS, k=10, eta=0.1), r"below 3/\(2\*eta\)"),
    (dict(counts=COUNTS, k=10, eta=0.3), "Assumption 3"),
])
def test_privatize_chain_rejects(kwargs, match):
    support = np.asarray(kwargs["counts"]) > 0
    with pytest.raises(ValueError, match=match):
        dm.privatize_chain(rng=0, support=support, **kwargs)


def test_transition_counts_rejects_non_int_n_and_text_states():
    with pytest.raises(TypeError, match="n=2.5 must be an int"):
        dm.transition_counts([0, 1], 2.5)
    with pytest.raises(TypeError, match="n=True"):
        dm.transition_counts([0, 1], True)
    with pytest.raises(TypeError, match="holds text"):
        dm.transition_counts(["a", "b"], 2)
    with pytest.raises(TypeError, match="boolean"):
        dm.transition_counts(np.array([True, False]), 2)
    with pytest.raises(ValueError, match="n=10000000000 must be at most"):
        dm.transition_counts([0, 1], 10**10)


# --- issue 10, section 3: the log-space sampler and the public support -----------------------

def test_tiny_k_never_fails_and_never_gives_a_zero_on_the_support():
    # the old sampler (standard_gamma, then divide by the row sum) failed for 140 of these
    # 200 seeds ("a privatized row underflowed") and gave exact zeros on the support
    counts = np.ones((2, 2))
    for seed in range(200):
        P = dm.privatize_chain(counts, 1e-3, support=counts > 0, rng=seed)
        assert np.all(P > 0) and np.allclose(P.sum(axis=1), 1, atol=1e-15)
    P = dm.privatize_chain([[1, 1], [1, 1]], 1e-300, support=counts > 0, rng=0, size=5)
    assert np.all(P > 0) and np.all(np.isfinite(P))


def test_tiny_k_law_is_right():
    # Dir(a, a) with a = k/2 = 0.25: X_1 ~ Beta(0.25, 0.25); KS test at level 1e-3, and
    # power against the law the old sampler had at this k (same law; so use Beta(0.5, 0.5))
    from scipy import stats
    P = dm.privatize_chain(np.ones((2, 2)), 0.5, support=np.ones((2, 2), bool), rng=4,
                           size=4000)
    assert stats.kstest(P[:, 0, 0], stats.beta(0.25, 0.25).cdf).pvalue > 1e-3
    assert stats.kstest(P[:, 0, 0], stats.beta(0.5, 0.5).cdf).pvalue < 1e-3
    # batching stays invisible on the log-space path too
    again = np.concatenate(list(dm.iter_privatize_chain(np.ones((2, 2)), 0.5, size=4000,
                                                        support=np.ones((2, 2), bool),
                                                        batch=999, rng=4)))
    assert np.array_equal(P, again)


def test_support_is_required_and_checked():
    with pytest.raises(TypeError, match="support"):
        dm.privatize_chain(COUNTS, 10, rng=0)                        # no default
    with pytest.raises(TypeError, match="support"):
        dm.iter_privatize_chain(COUNTS, 10, size=2, rng=0)
    wider = np.ones((4, 4), bool)
    with pytest.raises(ValueError, match=r"counts\[0, 2\]=0 inside the support"):
        dm.privatize_chain(COUNTS, 10, support=wider, rng=0)
    narrower = SUPPORT.copy()
    narrower[0, 0] = False
    with pytest.raises(ValueError, match=r"counts\[0, 0\]=6 lies outside the support"):
        dm.privatize_chain(COUNTS, 10, support=narrower, rng=0)
    with pytest.raises(TypeError, match="boolean"):
        dm.privatize_chain(COUNTS, 10, support=SUPPORT.astype(int), rng=0)
    with pytest.raises(ValueError, match="shape"):
        dm.privatize_chain(COUNTS, 10, support=SUPPORT[:3], rng=0)
    P = dm.privatize_chain(COUNTS, 10, support=SUPPORT, rng=0, size=50)
    assert np.all(P[:, ~SUPPORT] == 0) and np.all(P[:, SUPPORT] > 0)


@pytest.mark.parametrize("rng, error", [(True, TypeError), (False, TypeError), (-1, ValueError),
                                        ("0", TypeError), (1.5, TypeError)])
def test_seed_rule(rng, error):
    with pytest.raises(error, match="rng="):
        dm.privatize_chain(COUNTS, 10, support=SUPPORT, rng=rng)


@pytest.mark.parametrize("size", [1.7, "3", True, 3.0])
def test_size_must_be_an_int(size):
    with pytest.raises(TypeError, match="size="):
        dm.privatize_chain(COUNTS, 10, support=SUPPORT, rng=0, size=size)


def test_privatize_chain_eta_accepted_on_support():
    eta = np.minimum(dm.row_eta(COUNTS), 0.24)
    assert np.allclose(dm.row_eta(COUNTS), [0.1, 0.25, 0.25, 0.25])
    out = dm.privatize_chain(COUNTS, support=SUPPORT, k=1.5 / eta, eta=eta, rng=0)
    assert np.allclose(out.sum(axis=1), 1)


# --------------------------------------------------------------------------- Theorems 4-5
def test_row_kl_bounds_are_corollary_1_on_the_support():
    L = dm.row_kl_bounds(COUNTS, 30)
    assert np.isclose(L[0], dm.kl_bound(30, 10, 3))   # row 0: N=10 on 3 observed categories
    assert np.isclose(L[3], dm.kl_bound(30, 4, 4))
    assert dm.row_kl_bounds([[0, 4], [1, 1]], 30)[0] == 0  # one feasible transition: exact


def test_printed_bounds_formula():
    counts = np.array([[8, 2], [3, 7]], float)
    k = 25.0
    P = counts / counts.sum(axis=1, keepdims=True)
    pi = dm.stationary_distribution(P)
    Z = dm.fundamental_matrix(P)
    L = pi @ np.array([dm.kl_bound(k, 10, 2)] * 2)
    assert np.isclose(dm.ergodicity_bound(counts, k), np.sqrt(2 * L))
    assert np.isclose(dm.stationary_tv_bound(counts, k),
                      0.5 * np.abs(Z).sum(axis=0).max() * np.sqrt(2 * L))
    assert np.isclose(dm.stationary_tv_bound(counts, k, z_norm="inf"),
                      0.5 * np.abs(Z).sum(axis=1).max() * np.sqrt(2 * L))
    with pytest.raises(ValueError, match="z_norm"):
        dm.stationary_tv_bound(counts, k, z_norm="2")
    with pytest.raises(ValueError, match="coefficient"):
        dm.ergodicity_bound_corrected(counts, k, coefficient="tau")


def mc(counts, k, size, seed):
    counts = np.asarray(counts, float)
    P = counts / counts.sum(axis=1, keepdims=True)
    Pt = dm.privatize_chain(counts, k, support=counts > 0, rng=seed, size=size)
    pi, pit = dm.stationary_distribution(P), dm.stationary_distribution(Pt)
    tv = 0.5 * np.abs(pit - pi).sum(axis=-1)
    dtau = np.abs(dm.ergodicity_coefficient(Pt) - dm.ergodicity_coefficient(P))
    ddob = np.abs(dm.dobrushin_coefficient(Pt) - dm.dobrushin_coefficient(P))
    return [(x.mean(), x.std(ddof=1) / np.sqrt(size)) for x in (tv, dtau, ddob)]


@pytest.mark.parametrize("counts, k", [
    ([[8, 2], [3, 7]], 25.0),
    ([[5, 3, 2], [1, 6, 3], [2, 2, 6]], 40.0),
    ([[20, 1, 1], [1, 20, 1], [1, 1, 20]], [70.0, 70.0, 70.0]),
])
def test_corrected_bounds_hold_by_monte_carlo(counts, k):
    (tv, s_tv), (dt, s_dt), (dd, s_dd) = mc(counts, k, 4000, 0)
    # a bound holds if the MC mean is below it up to 5 standard errors
    assert tv <= dm.stationary_tv_bound_corrected(counts, k) + SE * s_tv
    assert tv <= dm.stationary_tv_bound(counts, k) + SE * s_tv  # the printed one holds here too
    assert dt <= dm.ergodicity_bound_corrected(counts, k) + SE * s_dt
    assert dd <= dm.ergodicity_bound_corrected(counts, k, coefficient="dobrushin") + SE * s_dd


def test_theorem_5_as_printed_fails_for_definition_7():
    # rank-one chain, every row (n-1, 1, ..., 1): tau_inf(P) = 0, noise piles up in column 0
    n = 20
    counts = np.tile([n - 1] + [1] * (n - 1), (n, 1)).astype(float)
    k = 3 * (n - 1)  # = 3/(2 eta) with eta = 1/(2(n-1)): the strongest privacy allowed
    _, (dt, s_dt), (dd, s_dd) = mc(counts, k, 300, 1)
    printed = dm.ergodicity_bound(counts, k)
    assert dt - SE * s_dt > printed, f"E|dtau|={dt:.3f} should exceed sqrt(2L)={printed:.3f}"
    assert dt <= dm.ergodicity_bound_corrected(counts, k) + SE * s_dt
    assert dd <= dm.ergodicity_bound_corrected(counts, k, coefficient="dobrushin") + SE * s_dd


def test_theorem_5_as_printed_fails_for_a_rarely_visited_noisy_row():
    # two states (n = 2: Definition 7 = Dobrushin): state 1 is rare and its row is noisy,
    # so the pi-weighted L hides its noise
    counts = np.array([[99800, 200], [1, 9]], float)
    k = np.array([1e4, 15.0])
    _, (dt, s_dt), (dd, s_dd) = mc(counts, k, 4000, 2)
    printed = dm.ergodicity_bound(counts, k)
    assert dt - SE * s_dt > printed
    assert np.isclose(dt, dd)
    assert dt <= dm.ergodicity_bound_corrected(counts, k) + SE * s_dt


def test_credit_ratings_break_assumptions_5_and_6():
    from dpmarkov.datasets import load_credit_ratings
    counts, names = load_credit_ratings()
    assert names == ("AAA", "AA", "A", "BBB", "BB", "B", "C", "D") and counts.sum() == 6473
    with pytest.raises(ValueError, match="row 7 of counts is all zero"):
        dm.check_counts(counts)
    with pytest.raises(ValueError, match=r"states \{7\} form a closed class"):
        dm.check_irreducible(counts)
    with pytest.raises(ValueError, match="all zero"):
        dm.privatize_chain(counts, 100, support=counts > 0, rng=0)


def test_underflow_and_shape_errors():
    with pytest.raises(ValueError, match="square"):
        dm.ergodicity_coefficient(np.ones((2, 3)))
    with pytest.raises(ValueError, match="square"):
        dm.dobrushin_coefficient(np.ones(3))
    with pytest.raises(ValueError, match="reducible"):
        dm.fundamental_matrix([[1, 0], [0, 1]])


def test_iter_privatize_chain_checks_inputs_at_the_call():
    with pytest.raises(ValueError, match="all zero"):
        dm.iter_privatize_chain([[0, 0], [1, 1]], 10, support=np.ones((2, 2), bool), size=3)   # no next() needed


# --------------------------------------------------------------------------- extreme inputs (issue 10)
def test_stationary_with_subnormal_coupling_is_exact_not_nan():
    # two states joined by the smallest double: pi = (1/2, 1/2) exactly by symmetry; the
    # blocked GTH's probes would need 1/5e-324 (overflow), so the textbook order takes over
    P = [[1, 5e-324], [5e-324, 1]]
    assert np.array_equal(dm.stationary_distribution(P), [0.5, 0.5])
    assert np.array_equal(dm.stationary_distribution(np.stack([P, P])), [[0.5, 0.5]] * 2)
    # asymmetric: pi proportional to (b, a) for P = [[1-a, a], [b, 1-b]] (detailed balance)
    a, b = 3e-320, 1e-320
    Q = np.array([[1, a], [b, 1]])
    pi = dm.stationary_distribution(Q)
    assert np.allclose(pi, [0.25, 0.75], rtol=1e-3)      # a, b subnormal: ~3 digits
    # a plain solve cannot resolve it: a ValueError, never NaN or a negative probability
    with pytest.raises(ValueError, match="method='solve'.*method='gth'"):
        dm.stationary_distribution(P, method="solve")
    with pytest.raises(ValueError, match="singular"):
        dm.fundamental_matrix(P)


def test_stationary_solve_never_returns_a_negative_probability():
    # birth-death chain with pi down to ~1e-165: rounding in a plain solve makes most of
    # the tiny components negative (about -1e-16); the solve must refuse, GTH must get
    # them right
    P, exact = birth_death(62, 1e-3, 0.5)
    assert exact.min() < 1e-160
    pi = dm.stationary_distribution(P)
    assert np.max(np.abs(pi / exact - 1)) < 1e-12
    try:
        solved = dm.stationary_distribution(P, method="solve")
    except ValueError as err:
        assert "method='gth'" in str(err)
    else:
        assert np.all(solved >= 0) and np.all(np.isfinite(solved))


def test_stationary_reducible_detected_by_gth_itself():
    # the default method decides irreducibility from GTH's own zeros and infinities;
    # every reducible shape must still give the named ValueError
    two_closed = np.array([[0.5, 0.5, 0, 0], [0.5, 0.5, 0, 0], [0, 0, 0.3, 0.7], [0, 0, 1, 0]])
    transient = np.array([[1.0, 0, 0], [0.2, 0.3, 0.5], [0.5, 0.5, 0]])
    absorbing_last = np.array([[0.5, 0.5, 0], [0.2, 0.3, 0.5], [0, 0, 1.0]])
    for P in (two_closed, transient, absorbing_last, two_closed[::-1, ::-1]):
        with pytest.raises(ValueError, match="reducible"):
            dm.stationary_distribution(P)
        big = np.eye(40)                       # the same inside a bigger, multi-panel chain
        big[:P.shape[0], :P.shape[0]] = P
        big[P.shape[0]:] = np.roll(np.eye(40), 1, axis=1)[P.shape[0]:]   # a cycle back ...
        big[P.shape[0]:, :] = 0
        big[P.shape[0]:, 0] = 1                                          # ... into state 0
        with pytest.raises(ValueError, match="reducible"):
            dm.stationary_distribution(big)
        cycle = np.roll(np.eye(40), 1, axis=1)                           # irreducible
        with pytest.raises(ValueError, match=r"reducible \(matrix 1 of the stack\)"):
            dm.stationary_distribution(np.stack([cycle, big, cycle]))  # the stack's steps


def test_ergodicity_coefficient_overflow_is_an_error():
    with pytest.raises(ValueError, match="overflows"):
        dm.ergodicity_coefficient([[1e308, -1e308], [-1e308, 1e308]])


# ---------------------------------------------- a large chain in slices (issue 27, item 4)
def test_privatize_chain_in_slices_is_the_same_draw_and_stays_small(monkeypatch):
    # above chain._SLICE entries the matrices are drawn in slices of rows: the same streams
    # in the same order, so the same matrices bit for bit (both samplers: k C >= 1 and the
    # log-space one for k C < 1, with zeros outside the support); and the peak memory of a
    # 1500 x 1500 release stays below 5 times its 18 MB result (it was 7 to 8 times)
    import tracemalloc

    from dpmarkov import chain
    c = np.array([[5, 0, 3], [1, 1, 0], [2, 2, 2]], float)
    for k in (0.01, 20.0):
        whole = dm.privatize_chain(c, k, support=c > 0, rng=3, size=7)
        monkeypatch.setattr(chain, "_SLICE", 4)
        sliced = dm.privatize_chain(c, k, support=c > 0, rng=3, size=7)
        monkeypatch.undo()
        assert np.array_equal(whole, sliced), k
    n = 1500
    counts = np.random.default_rng(0).integers(1, 50, size=(n, n)).astype(float)
    tracemalloc.start()
    P = dm.privatize_chain(counts, 2000.0, support=np.ones((n, n), bool), rng=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5 * P.nbytes, peak / P.nbytes


def test_rows_all_small_mixed_and_large_have_their_laws():
    # row 0 mixed (alpha = (4.55, 0.30, 0.15)), row 1 all below 1 (drawn wholly in logs),
    # row 2 all above 1 (plain gamma variates): each entry has the Beta marginal of its row,
    # mean a_ij/A_i and E[log X_ij] = psi(a_ij) - psi(A_i); 5 standard errors of the sample
    # means, estimated from the same sample (fixed seed).
    from scipy.special import digamma
    counts = np.array([[30.0, 2, 1], [1, 1, 2], [40, 50, 60]])
    k = np.array([5.0, 0.5, 100.0])
    P = dm.privatize_chain(counts, k, support=counts > 0, rng=2, size=100_000)
    for i in range(3):
        a = k[i] * counts[i] / counts[i].sum()
        x = P[:, i]
        se = x.std(axis=0) / np.sqrt(len(x))
        assert np.all(np.abs(x.mean(axis=0) - a / a.sum()) < 5 * se), i
        logs = np.log(x)
        se_log = logs.std(axis=0) / np.sqrt(len(x))
        assert np.all(np.abs(logs.mean(axis=0) - (digamma(a) - digamma(a.sum()))) < 5 * se_log), i
    # batching is invisible on the mixed path too
    again = np.concatenate(list(dm.iter_privatize_chain(counts, k, support=counts > 0,
                                                        size=2000, batch=333, rng=2)))
    assert np.array_equal(P[:2000], again)


def _outcome(call):
    """The shape and bytes of ``call()``'s array, or the (type, message) of its error."""
    try:
        result = call()
    except (ValueError, TypeError) as err:
        return type(err), str(err)
    return result.shape, result.tobytes()


_C = np.array([[6.0, 3.0, 1.0, 0.0], [2.0, 4.0, 0.0, 4.0], [1.0, 5.0, 4.0, 0.0],
               [0.0, 5.0, 5.0, 5.0]])


def _with(i, j, value, base=_C):
    out = base.copy()
    out[i, j] = value
    return out


@pytest.mark.parametrize("counts, k, support, taken", [
    (_C, 20.0, _C > 0, True), (_C, 3, _C > 0, True), (_C, np.float64(0.5), _C > 0, True),
    (_C, np.array([1.0, 20.0, 300.0, 0.01]), _C > 0, True), (np.ones((3, 3)), 1e300, None, True),
    (_C, 2**63, _C > 0, False), (_C, 10**400, _C > 0, False), (_C, True, _C > 0, False),
    (_C, 0.0, _C > 0, False), (_C, -2.0, _C > 0, False), (_C, np.inf, _C > 0, False),
    (_C, np.nan, _C > 0, False), (_C, "20", _C > 0, False), (_C, [20.0] * 4, _C > 0, False),
    (_C, np.array([1.0, 20.0, np.inf, 1.0]), _C > 0, False),
    (_C, np.array([1.0, 20.0, 0.0, 1.0]), _C > 0, False), (_C, np.ones(3), _C > 0, False),
    (_C, np.ones((4, 1)), _C > 0, False), (_C, 1e-310, _C > 0, False),       # k C below TINY
    (_with(0, 0, 2.5), 20.0, _C > 0, False), (_with(0, 0, -6.0), 20.0, _C > 0, False),
    (_with(0, 0, np.nan), 20.0, _C > 0, False), (_with(0, 0, np.inf), 20.0, _C > 0, False),
    (_with(0, 3, 2.0), 20.0, _C > 0, False), (_with(0, 0, 0.0), 20.0, _C > 0, False),
    (np.vstack([_C[:3], np.zeros((1, 4))]), 20.0, _C > 0, False),    # a row without data
    (np.full((2, 2), 1e308), 20.0, None, False),                        # a total overflows
    (_C.astype(int), 20.0, _C > 0, False), (_C.tolist(), 20.0, _C > 0, False),
    (_C, 20.0, (_C > 0).astype(int), False), (_C, 20.0, (_C > 0)[:3], False),
    (_C, 20.0, (_C > 0).tolist(), False),
])
def test_lean_design_checks_agree_with_the_full_ones(counts, k, support, taken, monkeypatch):
    # privatize_chain takes a float64 count matrix, a boolean support and a plain k (or a
    # float64 vector of n) through one lean pass (chain._lean_design, issue 38) and
    # everything else, or anything that fails, through the full checks.  Each case must
    # give exactly what the full checks give: the same bits, or the same error and
    # message.  A lean pass that skipped the wholeness of the counts would accept 2.5, one
    # that compared the support with counts >= 0 would accept a zero inside it, one that
    # skipped the row totals would divide by 0 or by inf
    support = np.asarray(counts) > 0 if support is None else support
    assert (ch._lean_design(counts, k, support) is not None) == taken
    for size in (None, 3):
        def call(size=size):
            return dm.privatize_chain(counts, k, support=support, rng=4, size=size)
        lean = _outcome(call)
        with monkeypatch.context() as patch:
            patch.setattr(ch, "_lean_design", lambda *args: None)
            full = _outcome(call)
        assert lean == full


@pytest.mark.parametrize("k", [0.05, 3.0, 40.0, 1e4, np.array([0.05, 3.0, 40.0, 0.3])])
def test_one_matrix_drawn_over_its_parameters_is_the_same_draw(k, monkeypatch):
    # privatize_chain(size=None) draws its one matrix into the memory of its parameters
    # (issue 38: one array of the matrix's size per call), in slices of parameters copied
    # before they are overwritten; every sampler (k C >= 1, mixed, all below 1 in logs)
    # must give the bits of the same draw made into a separate array (size=1), also in
    # slices smaller than a row and with rows drawn in slices (chain._SLICE), and the
    # caller's counts stay untouched.  Reading a parameter after its slice was overwritten
    # (a gamma variate taken for alpha) changes the draw and fails here
    from dpmarkov import mechanism
    rng = np.random.default_rng(2)
    dense = rng.integers(1, 60, size=(9, 9)).astype(float)
    sparse = dense * (rng.random((9, 9)) < 0.5)
    sparse[np.arange(9), (np.arange(9) + 1) % 9] = 11.0
    sparse[:, 0] += 7.0
    for counts in (dense, sparse):
        kk = np.resize(k, 9) if np.ndim(k) else k
        kept = counts.copy()
        separate = dm.privatize_chain(counts, kk, support=counts > 0, rng=5, size=1)[0]
        for slice_, rows in ((8192, 2**20), (5, 2**20), (4, 20)):
            monkeypatch.setattr(mechanism, "_OVERWRITE_SLICE", slice_)
            monkeypatch.setattr(ch, "_SLICE", rows)
            assert np.array_equal(dm.privatize_chain(counts, kk, support=counts > 0, rng=5),
                                  separate), (slice_, rows)
        assert np.array_equal(counts, kept)


@pytest.mark.parametrize("k", [0.05, 3.0, 40.0, np.array([0.05, 3.0, 40.0, 0.3])])
def test_the_masks_handed_to_the_sampler_are_its_own(k, monkeypatch):
    # privatize_chain forms the masks alpha > 0 and alpha >= 1 once per call (chain._streams,
    # issue 38) and hands them to sample_dirichlet, also sliced by rows when a matrix is drawn
    # in slices (chain._SLICE).  The draws must be the bits the sampler gives when it forms
    # the masks itself: masks handed swapped, or sliced one row off, put the mixed sampler's
    # exponentials on other entries (or take the log-space path) and fail here
    rng = np.random.default_rng(3)
    dense = rng.integers(1, 60, size=(9, 9)).astype(float)
    sparse = dense * (rng.random((9, 9)) < 0.5)
    sparse[np.arange(9), (np.arange(9) + 1) % 9] = 11.0
    own = ch.sample_dirichlet

    def forming_its_own(*args, masks=None, **kwargs):
        return own(*args, **kwargs)
    for counts, rows, size in itertools.product((dense, sparse), (2**20, 2), (None, 3)):
        kk = np.resize(k, 9) if np.ndim(k) else k
        monkeypatch.setattr(ch, "_SLICE", rows)
        handed = dm.privatize_chain(counts, kk, support=counts > 0, rng=7, size=size)
        with monkeypatch.context() as patch:
            patch.setattr(ch, "sample_dirichlet", forming_its_own)
            formed = dm.privatize_chain(counts, kk, support=counts > 0, rng=7, size=size)
        assert np.array_equal(handed, formed), (rows, size)
