"""Tests for dpmarkov.composition: Theorem 3 and the exact discrete tools behind Lemma 1.

Everything here is an exact finite sum: no Monte Carlo, tolerances are rounding only.
"""
from __future__ import annotations

import numpy as np
import pytest

import dpmarkov as dm


def leaky_rr(N, eps, leak):
    """A row that releases its count c in 0..N: with prob. `leak` the true c (tagged), else
    (N+1)-ary randomized response with P(y = c) = e^eps / (e^eps + N).

    (eps, leak)-probabilistic DP for adjacency c <-> c +- 1: the tagged outputs are Omega_2.
    Inputs 0..N; outputs 0..N (randomized response) then N+1..2N+1 (leaks).
    """
    m = N + 1
    rr = np.full((m, m), 1.0)
    rr[np.diag_indices(m)] = np.exp(eps)
    rr /= rr.sum(axis=1, keepdims=True)
    return np.hstack([(1 - leak) * rr, leak * np.eye(m)])


def line_pairs(N):
    return np.array([(c, c + 1) for c in range(N)])


# --------------------------------------------------------------------------- hockey stick
def test_hockey_stick_basics():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    assert dm.hockey_stick_discrete(p, q, 0) == pytest.approx(0.3)  # = total variation
    assert dm.hockey_stick_discrete(p, p, 0) == 0
    assert dm.hockey_stick_discrete(p, q, np.log(2.5)) == pytest.approx(0.0)
    assert dm.hockey_stick_discrete(p, q, np.log(2)) == pytest.approx(0.1)
    out = dm.hockey_stick_discrete(p, q, [0, np.log(2), 5])
    assert out.shape == (3,) and np.allclose(out, [0.3, 0.1, 0])
    # the smallest delta with P(T) <= e^eps Q(T) + delta for all T: check over all 8 sets T
    eps = 0.3
    worst = max(p[list(T)].sum() - np.exp(eps) * q[list(T)].sum()
                for T in [[], [0], [1], [2], [0, 1], [0, 2], [1, 2], [0, 1, 2]])
    assert dm.hockey_stick_discrete(p, q, eps) == pytest.approx(worst)


@pytest.mark.parametrize("p, q, eps, match", [
    ([0.5, 0.6], [0.5, 0.5], 0, "sums to"),
    ([1.5, -0.5], [0.5, 0.5], 0, ">= 0"),
    ([0.5, 0.5], [1.0, 0, 0], 0, "outcomes"),
    ([0.5, 0.5], [0.5, 0.5], -1, "eps=-1.0 must be >= 0"),
    ([0.5, np.nan], [0.5, 0.5], 0, "finite"),
    (0.5, [0.5, 0.5], 0, "probability vector"),
])
def test_hockey_stick_rejects(p, q, eps, match):
    with pytest.raises(ValueError, match=match):
        dm.hockey_stick_discrete(p, q, eps)


def test_profile_and_probabilistic_delta_of_one_row():
    N, eps, leak = 3, 0.7, 0.05
    M = leaky_rr(N, eps, leak)
    pairs = line_pairs(N)
    # conventional DP: delta(eps) = leak exactly; below eps the RR part adds to it
    assert dm.profile_discrete(M, pairs, eps) == pytest.approx(leak)
    assert dm.profile_discrete(M, pairs, 0.2) > leak
    assert dm.profile_discrete(M, pairs, [0.2, eps]).shape == (2,)
    # probabilistic DP (Definition 6): Omega_2 = the leak outputs, delta = leak
    assert dm.probabilistic_delta(M, pairs, eps) == pytest.approx(leak)
    assert dm.probabilistic_delta(M, pairs, 0.5) == pytest.approx(1.0)  # every output bad


@pytest.mark.parametrize("M, pairs, match", [
    (np.ones(3) / 3, [(0, 1)], "matrix"),
    (np.eye(2), [(0, 2)], "inputs are 0..1"),
    (np.eye(2), [(0, 1, 1)], r"\(p, 2\)"),
    (np.eye(2), np.zeros((0, 2), int), r"\(p, 2\)"),
    (np.eye(2), [(0.0, 1.0)], "integers"),
    ([[0.5, 0.6], [0.5, 0.5]], [(0, 1)], "sums to"),
])
def test_profile_rejects(M, pairs, match):
    with pytest.raises(ValueError, match=match):
        dm.profile_discrete(M, pairs, 1.0)
    with pytest.raises(ValueError, match=match):
        dm.probabilistic_delta(M, pairs, 1.0)


def test_probabilistic_delta_rejects_negative_eps():
    with pytest.raises(ValueError, match=">= 0"):
        dm.probabilistic_delta(np.eye(2), [(0, 1)], -0.1)


# --------------------------------------------------------------------------- composition
def test_compose_parallel_is_the_independent_joint_law():
    A, B = leaky_rr(2, 0.5, 0.1), leaky_rr(1, 1.0, 0.2)
    J = dm.compose_parallel(A, B)
    assert J.shape == (3 * 2, 6 * 4)
    a, b, y, z = 2, 1, 4, 3
    row = np.ravel_multi_index((a, b), (3, 2))
    col = np.ravel_multi_index((y, z), (6, 4))
    assert J[row, col] == pytest.approx(A[a, y] * B[b, z])
    assert np.allclose(J.sum(axis=1), 1)
    with pytest.raises(ValueError, match="at least one"):
        dm.compose_parallel()
    with pytest.raises(ValueError, match="mechanism 1"):
        dm.compose_parallel(A, [[0.5, 0.6]])


def test_compose_parallel_refuses_a_result_that_cannot_fit_at_once(work):
    # five 10 x 10 mechanisms compose to 1e5 x 1e5 = 1e10 entries (80 GB): refused before
    # anything is allocated (it used to raise MemoryError after 30 s).  Work counted, no
    # clock (the refusal makes 3e3 calls and allocates 0.3 MB, imports included)
    M = np.full((10, 10), 0.1)
    with work(calls=100_000, memory=64 * 2**20):
        with pytest.raises(ValueError, match="mechanisms of shapes 10x10 x .* 10000000000 entries"):
            dm.compose_parallel(*[M] * 5)
    assert dm.compose_parallel(*[M] * 3).shape == (1000, 1000)


def test_parallel_adjacency_changes_exactly_one_part():
    sizes = (3, 2, 4)
    parts = [line_pairs(2), line_pairs(1), line_pairs(3)]
    pairs = dm.parallel_adjacency(parts, sizes)
    assert len(pairs) == 2 * 8 + 1 * 12 + 3 * 6
    for a, b in pairs:
        ta, tb = np.unravel_index(a, sizes), np.unravel_index(b, sizes)
        diff = [i for i in range(3) if ta[i] != tb[i]]
        assert len(diff) == 1 and abs(ta[diff[0]] - tb[diff[0]]) == 1
    with pytest.raises(ValueError, match="adjacency lists"):
        dm.parallel_adjacency(parts[:2], sizes)


def test_lemma_1_exactly_for_three_rows():
    specs = [(2, 0.4, 0.02), (3, 1.1, 0.05), (1, 0.7, 0.03)]  # (N_i, eps_i, delta_i)
    rows = [leaky_rr(*s) for s in specs]
    J = dm.compose_parallel(*rows)
    sizes = [N + 1 for N, _, _ in specs]
    pairs = dm.parallel_adjacency([line_pairs(N) for N, _, _ in specs], sizes)
    eps_max, delta_max = max(s[1] for s in specs), max(s[2] for s in specs)
    # conventional DP of the composition: exactly (max eps, max delta) -- the lemma's claim
    assert dm.profile_discrete(J, pairs, eps_max) == pytest.approx(delta_max)
    # the composed profile is the max of the parts' profiles at every eps
    for e in (0.0, 0.3, 0.8, 2.0):
        parts = max(dm.profile_discrete(M, line_pairs(N), e) for M, (N, _, _) in zip(rows, specs))
        assert dm.profile_discrete(J, pairs, e) == pytest.approx(parts)
    # probabilistic DP of the composition: delta = 1 - prod(1 - delta_i) > max delta_i,
    # so the proof's step P(M(D) in Omega_2) <= max delta_i is false
    pd = dm.probabilistic_delta(J, pairs, eps_max)
    assert pd == pytest.approx(1 - np.prod([1 - s[2] for s in specs]))
    assert pd > delta_max + 0.04


def test_a_record_moving_between_rows_breaks_the_max_rule():
    # two rows of 2 binary records each; a record moves from row 0 (its count drops) to
    # row 1 (its count rises): both parts change at once
    eps, leak = 0.8, 0.05
    M = leaky_rr(2, eps, leak)
    J = dm.compose_parallel(M, M)
    moved = np.array([(np.ravel_multi_index((c0, c1), (3, 3)),
                       np.ravel_multi_index((c0 - 1, c1 + 1), (3, 3)))
                      for c0 in (1, 2) for c1 in (0, 1)])
    d_max = dm.profile_discrete(J, moved, eps)
    assert d_max > leak + 0.03          # the max rule fails ...
    # ... the pair is (2 eps, 1 - (1 - delta)^2)-DP exactly (<= sum of deltas)
    d_sum = dm.profile_discrete(J, moved, 2 * eps)
    assert d_sum == pytest.approx(1 - (1 - leak) ** 2, abs=1e-12)


# --------------------------------------------------------------------------- Theorem 3
def test_chain_privacy_is_the_max_over_rows():
    counts = np.array([[6, 3, 0, 1], [2, 2, 4, 0], [0, 0, 7, 0], [1, 1, 1, 1]], float)
    eta = np.array([0.1, 0.2, 0.2, 0.2])
    k = np.array([15.0, 7.5, 10.0, 7.5])
    gamma = 0.01
    out = dm.chain_privacy(counts, k, eta, gamma, support=counts > 0)
    # n_i >= 3: eq. (6) as printed, rounded outward by dm.epsilon (never below it)
    paper = [dm.epsilon_paper(15, 0.1, 10, 3, gamma), dm.epsilon_paper(7.5, 0.2, 8, 3, gamma), 0,
             dm.epsilon_paper(7.5, 0.2, 4, 4, gamma)]
    expect_eps = [dm.epsilon(15, 0.1, 10, 3, gamma), dm.epsilon(7.5, 0.2, 8, 3, gamma), 0,
                  dm.epsilon(7.5, 0.2, 4, 4, gamma)]
    assert np.all(np.array(expect_eps) >= paper) and np.allclose(expect_eps, paper, rtol=1e-12, atol=0)
    expect_delta = [dm.delta(15, 0.1, 10, 3, gamma), dm.delta(7.5, 0.2, 8, 3, gamma), 0,
                    dm.delta(7.5, 0.2, 4, 4, gamma)]
    assert np.allclose(out.epsilon_rows, expect_eps)
    assert np.allclose(out.delta_rows, expect_delta)
    assert out.epsilon == max(expect_eps) and out.delta == max(expect_delta)
    assert np.array_equal(out.n_rows, [3, 3, 1, 4])


@pytest.mark.parametrize("k, eta, gamma, match", [
    (20.0, 0.15, 0.01, "Assumption 3 on the support of row 0"),
    (5.0, 0.1, 0.01, r"row 0 .*below 3/\(2\*eta\)"),
    (20.0, 0.1, 0.34, r"row 0 .*1/n"),
    ([20.0, 20.0], 0.1, 0.01, "one per row"),
])
def test_chain_privacy_rejects(k, eta, gamma, match):
    counts = np.array([[6, 3, 1], [2, 2, 4], [3, 3, 3]], float)
    with pytest.raises(ValueError, match=match):
        dm.chain_privacy(counts, k, eta, gamma, support=counts > 0)


# --------------------------------------------------------------------------- support, bounds
def test_chain_privacy_says_which_bound_each_row_used():
    counts = np.array([[10, 67, 0], [20, 30, 50], [0, 0, 9]], float)
    out = dm.chain_privacy(counts, 25.0, 0.1, 1e-3, support=counts > 0)
    assert out.bound_rows.tolist() == ["corrected eq. (6)", "eq. (6)", "none (one transition)"]
    # the n = 2 row is never below its exact worst case (eq. (6) would be)
    assert out.epsilon_rows[0] >= dm.epsilon_exact(25.0, 77, 2, 1e-3, 8)
    assert out.epsilon_rows[0] > dm.epsilon_paper(25.0, 0.1, 77, 2, 1e-3)
    assert out.epsilon_rows[1] == pytest.approx(dm.epsilon_paper(25.0, 0.1, 100, 3, 1e-3),
                                                rel=1e-14)


def test_support_is_required_and_checked():
    counts = np.array([[5, 5, 0], [3, 3, 4], [2, 2, 6]], float)
    with pytest.raises(TypeError):
        dm.chain_privacy(counts, 15.0, 0.2, 0.01)                          # keyword required
    support = np.ones((3, 3), bool)
    with pytest.raises(ValueError, match=r"counts\[0, 2\]=0 inside the support"):
        dm.chain_privacy(counts, 15.0, 0.2, 0.01, support=support)
    support = counts > 0
    support[1, 2] = False
    with pytest.raises(ValueError, match=r"counts\[1, 2\]=4 lies outside the support"):
        dm.chain_privacy(counts, 15.0, 0.2, 0.01, support=support)
    with pytest.raises(TypeError, match="boolean"):
        dm.chain_privacy(counts, 15.0, 0.2, 0.01, support=(counts > 0).astype(int))
    with pytest.raises(ValueError, match="shape"):
        dm.check_support(counts, np.ones((2, 2), bool))
    assert np.array_equal(dm.check_support(counts, counts > 0), counts > 0)   # the checked support


def test_chain_privacy_rows_equal_one_broadcast_evaluation():
    rng = np.random.default_rng(4)
    counts = rng.integers(20, 60, size=(40, 40)).astype(float)
    counts[rng.random((40, 40)) < 0.5] = 0
    counts[np.arange(40), np.arange(40)] = 30
    eta = counts.min(axis=1, initial=np.inf, where=counts > 0) / counts.sum(axis=1)
    out = dm.chain_privacy(counts, 1.5 / eta, eta, 1e-3, support=counts > 0)
    N, n = counts.sum(axis=1), (counts > 0).sum(axis=1)
    assert np.array_equal(out.epsilon_rows, dm.epsilon(1.5 / eta, eta, N, n, 1e-3))
    assert np.array_equal(out.delta_rows, dm.delta(1.5 / eta, eta, N, n, 1e-3))


def _full_check_error(counts, support):
    """(type, message) of the error the full checks give (check_support, check_counts), or None."""
    try:
        dm.check_support(counts, support)
        dm.check_counts(counts)
    except (ValueError, TypeError) as err:
        return type(err), str(err)
    return None


def _bad_count_matrices():
    base = np.array([[6.0, 3.0, 1.0, 0.0], [2.0, 4.0, 0.0, 4.0], [1.0, 5.0, 4.0, 0.0],
                     [0.0, 5.0, 5.0, 5.0]])
    cases = {}
    for name, (i, j, value) in {"nan outside": (0, 3, np.nan), "nan inside": (0, 0, np.nan),
                                "-1 outside": (0, 3, -1.0), "-inf outside": (0, 3, -np.inf),
                                "inf inside": (1, 1, np.inf), "0.5 inside": (1, 1, 0.5),
                                "2.5 outside": (2, 3, 2.5), "3 outside": (2, 3, 3.0),
                                "0 inside": (0, 0, 0.0), "-3 inside": (0, 0, -3.0)}.items():
        counts = base.copy()
        counts[i, j] = value
        cases[name] = (counts, base > 0)
    empty = base.copy()
    empty[3] = 0
    cases["empty row"] = (empty, empty > 0)
    cases["support of another shape"] = (base, np.ones((3, 3), bool))
    cases["integer support"] = (base, (base > 0).astype(np.int8))
    cases["three axes"] = (base[None], base[None] > 0)
    return cases


@pytest.mark.parametrize("name", list(_bad_count_matrices()))
def test_chain_privacy_lean_count_checks_agree_with_the_full_ones(name):
    # chain_privacy checks a float (n, n) matrix and its boolean support in a few passes
    # and falls back to check_support/check_counts for the message.  Each case must fail
    # with exactly their error.  Rules this rules out for the lean pass: "positive exactly
    # on the support" alone (accepts -1, -inf or NaN outside it: min >= 0 is needed),
    # wholeness not checked (accepts 0.5 inside), row totals not checked (accepts inf
    # inside, since inf > 0), and a wrong shape or dtype taken as it comes.
    counts, support = _bad_count_matrices()[name]
    expected = _full_check_error(counts, support)
    assert expected is not None
    with pytest.raises(expected[0]) as err:
        dm.chain_privacy(counts, 20.0, 0.1, 1e-3, support=support)
    assert str(err.value) == expected[1]


def test_chain_privacy_same_numbers_for_every_layout_and_integer_counts():
    # the lean pass takes float and integer arrays in any memory layout; lists and
    # overflowing row totals go through the full checks; the numbers never change
    counts = np.array([[6, 3, 1, 0], [2, 4, 0, 4], [1, 5, 4, 0], [0, 5, 5, 5]])
    support = counts > 0
    ref = dm.chain_privacy(counts.astype(float), 20.0, 0.1, 1e-3, support=support)
    for variant in (counts, counts.astype(np.int32), np.asfortranarray(counts.astype(float)),
                    counts.astype(float).tolist(), np.array(-0.0) + counts):
        out = dm.chain_privacy(variant, 20.0, 0.1, 1e-3, support=support)
        assert np.array_equal(out.epsilon_rows, ref.epsilon_rows)
        assert np.array_equal(out.delta_rows, ref.delta_rows)
        assert out.bound_rows.tolist() == ref.bound_rows.tolist()
    with pytest.raises(ValueError):             # row totals beyond the float range
        dm.chain_privacy(counts * 2.5e307, 20.0, 0.1, 1e-3, support=support)


def _outcome(call):
    """The result of ``call()`` or the (type, message) of its error."""
    try:
        return call()
    except (ValueError, TypeError) as err:
        return type(err), str(err)


def _same_outcome(a, b):
    if isinstance(a, tuple) and isinstance(a[0], type):
        return a == b
    return (not (isinstance(b, tuple) and isinstance(b[0], type))
            and np.array_equal(a.epsilon_rows, b.epsilon_rows)
            and np.array_equal(a.delta_rows, b.delta_rows) and a.epsilon == b.epsilon
            and a.delta == b.delta and np.array_equal(a.n_rows, b.n_rows)
            and a.bound_rows.tolist() == b.bound_rows.tolist())


_ROWS = np.array([[6.0, 3.0, 1.0, 0.0], [2.0, 4.0, 0.0, 4.0], [1.0, 5.0, 4.0, 0.0],
                  [0.0, 5.0, 5.0, 5.0]])


@pytest.mark.parametrize("k, eta, gamma", [
    (20.0, 0.1, 1e-3), (20, 0.1, 1e-3), (np.float64(20.0), 0.1, 1e-3),
    (np.array([20.0, 16.0, 30.0, 15.0]), np.array([0.1, 0.1, 0.1, 0.2]), 1e-3),
    (np.array([20.0, 16.0, 30.0, 15.0], np.float32), 0.1, 1e-3),
    (np.nan, 0.1, 1e-3), (np.inf, 0.1, 1e-3), (20.0, np.nan, 1e-3), (20.0, np.inf, 1e-3),
    (20.0, -np.inf, 1e-3), (20.0, 0.1, np.nan), (20.0, 0.1, np.inf), (20.0, 0.1, -1e-3),
    (np.array([20.0, np.inf, 30.0, 15.0]), 0.1, 1e-3),
    (20.0, np.array([0.1, 0.1, np.nan, 0.1]), 1e-3),
    (20.0, 0.1, np.array([1e-3, 1e-3, 1e-3, np.nan])),
    (20.0, 0.0, 1e-3), (20.0, -0.1, 1e-3), (20.0, 0.25, 1e-3), (20.0, 0.1, 0.34),
    (20.0, 0.1, 0.0), (14.9, 0.1, 1e-3), (-20.0, 0.1, 1e-3), (True, 0.1, 1e-3),
    ("20", 0.1, 1e-3), (10**400, 0.1, 1e-3), ([20.0, 20.0], 0.1, 1e-3),
    (np.full((4, 1), 20.0), 0.1, 1e-3), (np.array(20.0), 0.1, 1e-3), (20.0, 0.1, 1j),
])
def test_chain_privacy_lean_parameter_checks_agree_with_the_full_ones(k, eta, gamma,
                                                                     monkeypatch):
    # chain_privacy takes plain numbers and float64 vectors through one lean pass
    # (composition._lean_inputs) and everything else, or anything that fails, through the
    # full checks.  Each case must give exactly what the full checks give: the same
    # numbers, or the same error and message.  A lean pass that skipped the finiteness of
    # k or gamma would turn "k contains inf" into a per-row message, one that took eta
    # unchecked would accept eta <= 0 (every count is above a border <= 0).
    lean = _outcome(lambda: dm.chain_privacy(_ROWS, k, eta, gamma, support=_ROWS > 0))
    if not isinstance(lean, tuple):              # accepted: by the lean pass where it applies
        taken = type(k) is not np.ndarray or k.dtype == np.float64
        assert (dm.composition._lean_inputs(_ROWS, _ROWS > 0, k, eta, gamma) is None) != taken
    monkeypatch.setattr(dm.composition, "_lean_inputs", lambda *args: None)
    full = _outcome(lambda: dm.chain_privacy(_ROWS, k, eta, gamma, support=_ROWS > 0))
    assert _same_outcome(lean, full), (lean, full)


def test_chain_privacy_lean_pass_sparse_and_dense_supports(monkeypatch):
    # the lean pass gathers the supported entries of a sparse support (at most a quarter of
    # the matrix) and checks a dense one entry by entry; both give the full checks' numbers,
    # and each bad entry is refused with the full checks' message
    rng = np.random.default_rng(7)
    routes = set()
    for density in (0.02, 0.1, 0.5, 1.0):
        counts = rng.integers(3, 40, size=(30, 30)).astype(float)
        counts[rng.random((30, 30)) > density] = 0
        counts[np.arange(30), (np.arange(30) + 1) % 30] = 30
        counts[np.arange(30), np.arange(30)] = 31
        eta = counts.min(axis=1, initial=np.inf, where=counts > 0) / counts.sum(axis=1)
        eta = np.minimum(eta, 0.24)
        assert dm.composition._lean_inputs(counts, counts > 0, 1.5 / eta, eta, 1e-3) is not None
        routes.add(4 * np.count_nonzero(counts) <= counts.size)
        cases = [counts]
        for i, j, value in ((3, 3, 2.5), (4, 4, -31.0), (5, 5, np.nan), (6, 6, 0.0)):
            bad = counts.copy()
            bad[i, j] = value
            cases.append(bad)
        outside = np.flatnonzero(counts[7] == 0)
        if outside.size:
            for value in (-1.0, 1.0, np.nan):
                bad = counts.copy()
                bad[7, outside[0]] = value
                cases.append(bad)
        below = counts.copy()
        below[8, 8] = 1.0
        cases.append(below)
        for case in cases:
            args = (case, 1.5 / eta, eta, 1e-3)
            with monkeypatch.context() as patch:
                lean = _outcome(lambda: dm.chain_privacy(*args, support=counts > 0))
                patch.setattr(dm.composition, "_lean_inputs", lambda *a: None)
                full = _outcome(lambda: dm.chain_privacy(*args, support=counts > 0))
            assert _same_outcome(lean, full), (density, lean, full)
    assert routes == {True, False}


def test_chain_privacy_rows_without_two_count_vectors_and_single_transitions():
    # row 0: n = 3, N = 9, m = ceil(0.24 * 9) = 3: one count vector above the minimum, no
    # adjacent pair with different counts (the guard of dm.epsilon is skipped there); row 1:
    # n = 2; row 2: a single transition (released exactly).  The lean evaluation of all rows
    # gives dm.epsilon's and dm.delta's numbers bit for bit.
    counts = np.array([[3.0, 3.0, 3.0], [5.0, 0.0, 15.0], [0.0, 0.0, 4.0]])
    eta = np.array([0.24, 0.24, 0.24])
    out = dm.chain_privacy(counts, 7.0, eta, 1e-3, support=counts > 0)
    assert np.array_equal(out.epsilon_rows[:2],
                          dm.epsilon(7.0, 0.24, np.array([9.0, 20.0]), np.array([3, 2]), 1e-3))
    assert np.array_equal(out.delta_rows[:2],
                          dm.delta(7.0, 0.24, np.array([9.0, 20.0]), np.array([3, 2]), 1e-3))
    assert out.epsilon_rows[2] == 0 and out.delta_rows[2] == 0


@pytest.mark.parametrize("eta", [0.0, -0.1, np.array([0.1, -0.1, 0.1, 0.1])])
def test_chain_privacy_bad_counts_named_before_a_bad_eta(eta, monkeypatch):
    # with eta <= 0 every count meets the border, so the lean pass must not take "every
    # supported count >= eta N" as proof that the counts are positive: -3 inside the
    # support is named as a count, as the full checks do, not as a bad eta of some row
    counts = _ROWS.copy()
    counts[1, 1] = -3.0
    lean = _outcome(lambda: dm.chain_privacy(counts, 20.0, eta, 1e-3, support=_ROWS > 0))
    monkeypatch.setattr(dm.composition, "_lean_inputs", lambda *args: None)
    full = _outcome(lambda: dm.chain_privacy(counts, 20.0, eta, 1e-3, support=_ROWS > 0))
    assert lean == full and "counts must be >= 0" in full[1]


# ------------------------------------------------ probabilities and edges (issue 27, item 2)
# a stochastic row whose float sum rounds to 1 + 2^-52 (a normalised Dirichlet draw)
ROW = np.array([0.14860368825942719, 0.22283980047416202, 0.004328879253440985,
                0.0004959766010795302, 0.12028113433722673, 0.3562344388012206,
                0.14721608227344313])


def test_probabilistic_delta_and_dobrushin_never_exceed_1():
    assert ROW.sum() > 1                       # the rounding the functions must not pass on
    zeros = np.zeros_like(ROW)
    M = np.array([np.r_[ROW, zeros], np.r_[zeros, ROW]])     # disjoint supports
    # every output is in Omega_2 (log-ratio infinite): delta is the whole mass, 1
    assert dm.composition.probabilistic_delta(M, np.array([[0, 1]]), 1.0) == 1.0
    P = np.zeros((14, 14))
    P[:7, :] = M[0]
    P[7:, :] = M[1]
    assert 0.5 * np.abs(P[0] - P[7]).sum() > 1  # the direct formula rounds above 1
    assert dm.dobrushin_coefficient(P) == 1.0
    # a matrix that is not stochastic keeps its value (no clipping of a real number > 1)
    assert dm.dobrushin_coefficient(np.array([[3.0, 0.0], [0.0, 3.0]])) == 3.0


def test_hockey_stick_at_epsilon_beyond_the_exponent_range():
    # e^eps overflows beyond eps = 709.78; the divergence still exists: 0 when q > 0 is
    # normal (e^eps q > 1 > p), p where q = 0, and p (1 - e^eps q / p) for a subnormal q
    p, q = np.array([0.5, 0.5]), np.array([1e-320, 1 - 1e-320])
    eps = np.array([709.0, 710.0, 730.0, 800.0, 1e6])
    got = dm.hockey_stick_discrete(p, q, eps)
    import mpmath as mp
    with mp.workdps(30):
        want = [sum(max(mp.mpf(a) - mp.exp(e) * mp.mpf(b), 0) for a, b in zip(p, q))
                for e in eps]
    assert np.allclose(got, [float(w) for w in want], rtol=1e-12, atol=0)
    assert got[-1] == 0.0 and got[1] > 0.49
    assert dm.hockey_stick_discrete([0.3, 0.7], [0.0, 1.0], 1e4) == pytest.approx(0.3)
    assert dm.hockey_stick_discrete([0.3, 0.7], [0.2, 0.8], 710.0) == 0.0
    M = np.array([p, q])
    assert list(dm.composition.profile_discrete(M, np.array([[0, 1]]), [710.0, 1e3])) == \
        pytest.approx([float(want[1]), 0.0], rel=1e-12)
    assert dm.composition.probabilistic_delta(M, np.array([[0, 1]]), 710.0) == 0.5
    assert dm.composition.probabilistic_delta(M, np.array([[0, 1]]), 800.0) == 0.0


# A row total must be exact: from 2**53 on a float sum is rounded (counts 2**52 + 1 and
# 2**52 sum to 2**53, not 2**53 + 1), and chain_privacy's bounds would rest on an N_i that
# is not the data's.  Refused on the lean path (a float64 array and a boolean support,
# dense and sparse) and on the full one (a list), with the parameter, the value and the
# rule; accepted one below the limit (counts 2**52 and 2**52 - 1: total 2**53 - 1, exact).
def _big_row_counts(top, n):
    counts = np.zeros((n, n))
    counts[0, :2] = top, 2.0 ** 52
    for i in range(1, n):
        counts[i, i] = counts[i, (i + 1) % n] = 50.0
    return counts


@pytest.mark.parametrize("n", [2, 8])            # n = 8: 16 transitions of 64, the sparse checks
@pytest.mark.parametrize("kind", [np.asarray, lambda c: c.astype(np.int64).tolist()])
def test_chain_privacy_refuses_a_row_total_from_2_to_the_53(n, kind):
    over = _big_row_counts(2.0 ** 52 + 1, n)
    assert over.sum(axis=1)[0] == 2.0 ** 53        # rounded: the true total is 2**53 + 1
    with pytest.raises(ValueError, match=r"counts row 0 sums to N_i=9007199254740992 .*below 2\*\*53"):
        dm.chain_privacy(kind(over), 100.0, 0.1, 0.1, support=over > 0)
    with pytest.raises(ValueError, match=r"counts row 0 sums to N_i=9007199254740992 .*below 2\*\*53"):
        dm.row_kl_bounds(kind(over), 100.0)
    under = _big_row_counts(2.0 ** 52 - 1, n)
    result = dm.chain_privacy(kind(under), 100.0, 0.1, 0.1, support=under > 0)
    assert np.isfinite(result.epsilon) and result.epsilon > 0
    assert np.isfinite(dm.row_kl_bounds(kind(under), 100.0)).all()
