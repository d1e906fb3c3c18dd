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


# mechanism._row_sums: ``if width >= 8`` replaced by ``width > 8`` survived.  The row sums
# promise numpy's own sum bit for bit (numpy adds 8 or more entries pairwise, fewer in
# order), so a draw with every k*C_i >= 1 is the textbook construction exactly: gamma
# variates of the generator's stream divided by their sum, for every width across 8.
@pytest.mark.parametrize("n", range(2, 13))
def test_a_draw_is_the_gamma_variates_over_their_numpy_sum_bit_for_bit(n):
    counts = np.arange(1, n + 1)
    k = 10.0 * counts.sum() + 0.37                  # every k*C_i >= 10: the plain gamma path
    alpha = dm.dirichlet_parameters(counts, k)
    g = np.random.default_rng(7).standard_gamma(alpha, size=(64, n))
    assert np.array_equal(dm.privatize(counts, k, rng=7, size=64), g / g.sum(axis=-1, keepdims=True))


# mechanism.sample_dirichlet: ``out.max(axis=-1)`` (rescaling draws whose sum overflows)
# replaced by ``axis=-2`` survived (no test reached the branch with more than one draw).  At
# k = the largest float these 7 counts give gamma variates whose sum rounds to inf (found by
# search; the variates' noise, sqrt(k C_i), is far below their rounding); each row must still
# be its own draw, within 1e-12 of C (a Dirichlet draw's standard deviation is below
# 1/sqrt(k)), not rescaled by the other draws' maxima.
def test_draws_whose_gamma_sum_overflows_are_each_near_c():
    counts = np.array([16, 33, 2, 29, 41, 39, 4])
    k = np.finfo(float).max
    g = np.random.default_rng(0).standard_gamma(dm.dirichlet_parameters(counts, k), size=(5, 7))
    with np.errstate(over="ignore"):
        assert np.isinf(g.sum(axis=-1)).all()       # the branch under test is taken
    x = dm.privatize(counts, k, rng=0, size=5)
    assert np.allclose(x, counts / counts.sum(), rtol=1e-12, atol=0)


# mechanism._sample_mixed: ``np.cumsum(lonely_row) - 1`` (the place of each row whose every
# alpha_i < 1 among those rows) replaced by ``- 2`` survived: with one such row, index -1 is
# index 0.  With two such rows of different supports the rows swap places, so a row gets
# mass outside its own support; every row must keep exactly its support, for any seed.
@pytest.mark.parametrize("seed", range(3))
def test_rows_drawn_in_logs_keep_their_own_support(seed):
    counts = np.array([[1, 0, 1, 0], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 2, 2]])
    k = np.array([0.9, 0.9, 5.0, 0.8])              # rows 0, 1 and 3: every alpha_i < 1
    P = dm.privatize_chain(counts, k, support=counts > 0, rng=seed, size=4)
    assert np.array_equal(P > 0, np.broadcast_to(counts > 0, P.shape))
    assert np.allclose(P.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


# privacy.k_min: dropping ``@_checks.public`` survived (the README once called it equivalent:
# "its body cannot warn").  It can: 3/(2 eta) overflows for a subnormal eta, which is in
# (0, 1/4).  The policy asks for a ValueError naming eta, never inf and a stray warning.
@pytest.mark.parametrize("eta", [5e-324, 1e-310])
def test_k_min_of_a_subnormal_eta_is_refused_not_inf(eta):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=rf"k_min\(eta={eta!r}\).*no finite result"):
            dm.k_min(eta)
    assert dm.k_min(1e-300) == 1.5e300              # small but normal: the formula


# privacy.epsilon_and_delta: its fast path's check made stricter survived (``eta > 1``,
# ``k >= 1.5/eta/(1 - REL_SLACK)`` or ``* (2 - REL_SLACK)``, ``pairs = N >= n m + 2``): every
# row then goes the checked path, which gives the same numbers, only slower.  The fast path is
# the function's reason to exist (Theorem 3 per row of a large chain): every valid design must
# take it, including those at each edge of its check: k at Assumption 4's floor less the
# slack, eta N whole, N = n m + 1 (exactly two count vectors above the minimum m).
def test_every_valid_design_takes_the_fast_path(monkeypatch):
    from dpmarkov import privacy

    def checked(*args):
        raise AssertionError("a valid design left the fast path")

    designs = [(0.2, 5.0, 4.0, 0.2), (0.1, 21.0, 2.0, 0.4), (0.1, 11.0, 5.0, 0.1),
               (0.05, 1000.0, 3.0, 0.3), (0.24, 25.0, 3.0, 0.01)]
    eta, N, n, gamma = (np.array(c) for c in zip(*designs))
    m = np.ceil(eta * N * (1 - 1e-12))
    assert np.array_equal(N >= n * m + 1, np.ones(len(designs), bool))
    assert (N == n * m + 1).sum() >= 2                  # the edge of ``pairs`` is in
    k = 1.5 / eta * (1 - 0.5e-12)                       # below the floor, within the slack
    expected = privacy.epsilon_and_delta(k, eta, N, n, gamma)
    monkeypatch.setattr(privacy, "_epsilon_and_delta_checked", checked)
    got = privacy.epsilon_and_delta(k, eta, N, n, gamma)
    assert all(np.array_equal(a, b) for a, b in zip(got, expected))
    assert np.array_equal(got[0], dm.epsilon(k, eta, N, n, gamma))


# privacy.k_for_epsilon: dropping ``@_checks.public`` survived: a target so large that the
# doubled bracket overflows then escaped as a bare RuntimeWarning (an error under the test
# suite's filters, a stray warning and inf for a user).  It must be a ValueError naming the
# call and epsilon_target, with no warning.
def test_k_for_an_epsilon_beyond_reach_is_refused_naming_the_target():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"k_for_epsilon\(epsilon_target=1e\+308, .*no finite result"):
            dm.k_for_epsilon(1e308, 0.1, 100, 3, 0.1)


# privacy._eq6_interval_ok: its rounding slack ``> 1 + 1e-12`` made ``1 + 2e-12`` survived
# (only designs far outside the interval were tested).  At both sides of the limit: with
# N = 3, 3 eta + 1/N = 1 + 1.5e-12 is refused (the proof's interval is empty) and
# 1 + 0.6e-12 (rounding of a design on the border) is accepted.
def test_the_interval_of_eq6_is_refused_just_beyond_its_slack():
    with pytest.raises(ValueError, match=r"N=3 and eta=0\.2222.* give 3\*eta \+ 1/N > 1"):
        dm.epsilon_paper(20.0, 2 / 9 + 5e-13, 3, 2, 0.3)
    inside = dm.epsilon_paper(20.0, 2 / 9 + 2e-13, 3, 2, 0.3)
    assert np.isclose(inside, dm.epsilon_paper(20.0, 2 / 9, 3, 2, 0.3), rtol=1e-9)


# exit_probability.worst_counts and min_count: their floor N >= 2 raised to 3 survived
# (only larger N were tested).  At both sides of the limit: N = 2 records in n = 2
# categories is a design (m = 1 for every eta < 1/4, one count vector (1, 1)), N = 1 is not.
def test_worst_counts_and_min_count_at_the_smallest_n():
    assert dm.worst_counts(0.1, 2, 2).tolist() == [1.0, 1.0]
    assert dm.worst_counts(0.2499, 2, 2).tolist() == [1.0, 1.0]
    assert dm.min_count(0.2499, 2) == 1
    for f in (lambda: dm.worst_counts(0.1, 1, 2), lambda: dm.min_count(0.1, 1)):
        with pytest.raises(ValueError, match=r"^N=1(\.0)? must be >= 2"):
            f()


# stationary._stochastic_fast: its shape test ``arr.ndim < 2`` made ``<= 2`` survived: one
# matrix then always went through the full ``check_stochastic``, which accepts it too, only
# slower.  A valid matrix, or a stack of them, must be accepted by the two-pass check alone.
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_a_stochastic_matrix_takes_the_fast_check(monkeypatch, shape):
    from dpmarkov import stationary
    P = np.broadcast_to(np.array([[0.5, 0.25, 0.25], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]]), shape)
    expected = dm.stationary_distribution(P)

    def full(*args):
        raise AssertionError("a stochastic matrix left the fast check")

    monkeypatch.setattr(stationary, "check_stochastic", full)
    assert np.array_equal(dm.stationary_distribution(P), expected)


# composition._lean_inputs: its size test ``0 < counts.size <= MAX_ELEMENTS`` made ``<``
# survived, and ``N.min() > 0`` made ``> 1``: a count matrix of exactly the largest size, or
# with a row of one record, then went through the full checks, which accept it too, only
# slower.  With the limit lowered to 9 numbers, valid 3 x 3 matrices (full, diagonal, one
# row of total 1) must take the lean path; a 4 x 4 matrix (16 > 9) must not.
def test_valid_count_matrices_up_to_the_limit_take_the_lean_checks(monkeypatch):
    from dpmarkov import _checks, composition
    dense = np.array([[300, 100, 200], [50, 550, 100], [200, 200, 200]])
    diagonal = np.array([[300, 0, 0], [0, 550, 0], [0, 0, 200]])
    one = np.array([[1, 0, 0], [50, 550, 100], [200, 200, 200]])
    expected = [dm.chain_privacy(c, 100.0, 0.07, 0.1, support=c > 0) for c in (dense, diagonal, one)]
    monkeypatch.setattr(_checks, "MAX_ELEMENTS", 9)

    def full(*args):
        raise AssertionError("a valid count matrix left the lean checks")

    monkeypatch.setattr(composition, "check_support", full)
    for c, e in zip((dense, diagonal, one), expected):
        got = dm.chain_privacy(c, 100.0, 0.07, 0.1, support=c > 0)
        assert np.array_equal(got.epsilon_rows, e.epsilon_rows)
        assert np.array_equal(got.delta_rows, e.delta_rows)
    big = np.full((4, 4), 25)
    with pytest.raises(AssertionError, match="left the lean checks"):
        dm.chain_privacy(big, 100.0, 0.07, 0.1, support=big > 0)


# composition._lean_inputs: ``0 < counts.size`` made ``0 <=`` survived: an empty count
# matrix then reached the lean path and failed as a division by zero.  It must be refused
# by the shape rule, naming counts.
def test_an_empty_count_matrix_is_refused_by_its_shape():
    empty = np.zeros((0, 0))
    with pytest.raises(ValueError, match=r"^counts has shape \(0, 0\): expected a square matrix"):
        dm.chain_privacy(empty, 100.0, 0.07, 0.1, support=empty > 0)


# stationary.stationary_distribution: ``if flat.shape[0] == 1`` (one matrix: its error as
# it is) made ``flat.shape[1] == 1`` survived: one reducible matrix was then reported as
# "matrix 0 of the stack".  One matrix is named as P; in a stack, the failing matrix by index.
def test_a_reducible_matrix_is_named_alone_or_by_its_place_in_the_stack():
    reducible = np.array([[1.0, 0, 0], [0, 0.5, 0.5], [0, 0.5, 0.5]])
    good = np.array([[0.5, 0.25, 0.25], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]])
    with pytest.raises(ValueError, match=r"^P is reducible: 2 communicating classes"):
        dm.stationary_distribution(reducible)
    with pytest.raises(ValueError, match=r"^P is reducible \(matrix 1 of the stack\): 2 communicating"):
        dm.stationary_distribution(np.stack([good, reducible]))


# composition.probabilistic_delta: its rounding slack ``exp(eps) Mb (1 + 1e-12)`` made
# ``2e-12`` survived.  At both sides of the limit, eps = 0 and two outputs: a ratio of
# 1 + 1.5e-12 between the rows is a privacy loss above eps on both outputs (delta = 1), a
# ratio of 1 + 0.5e-12 is rounding (delta = 0).
def test_probabilistic_delta_slack_on_both_sides():
    def mech(r):
        top = 0.5 * (1 + r)
        return [[top, 1 - top], [0.5, 0.5]]

    assert dm.probabilistic_delta(mech(1.5e-12), [[0, 1]], 0.0) == 1.0
    assert dm.probabilistic_delta(mech(0.5e-12), [[0, 1]], 0.0) == 0.0


# chain.check_support_border: the branch for rows whose total overflows (counts near 1e308),
# ``low = (counts > 0) & (proportions < eta slack)``, replaced by ``low = None`` survived:
# Assumption 3 then went unchecked on such rows.  At both sides: a count of 1 next to two of
# 1e308 is far below eta N_i and refused, naming it; 5e307 next to them is 0.2 of the row
# (above eta = 0.1) and accepted.
def test_assumption_3_is_checked_on_rows_whose_total_overflows():
    low = np.array([[1e308, 1e308, 1.0], [1, 1, 1], [1, 1, 1]])
    with pytest.raises(ValueError, match=r"^counts\[0, 2\]=1 is below eta\*N_i=inf"):
        dm.privatize_chain(low, 100.0, support=low > 0, eta=0.1, rng=0)
    fine = np.array([[1e308, 1e308, 5e307], [1, 1, 1], [1, 1, 1]])
    P = dm.privatize_chain(fine, 100.0, support=fine > 0, eta=0.1, rng=0)
    assert np.allclose(P.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


# chain._row_design: ``k_arr.ndim > 1`` (k one number or one per row) made ``> 2``
# survived: a matrix of k's was then taken as rows of k.  It must be refused, naming k's shape.
def test_a_matrix_of_k_is_refused_naming_its_shape():
    counts = np.array([[30, 10], [5, 55]])
    with pytest.raises(ValueError, match=r"^k has shape \(2, 2\): give one k or one per row \(2,\)"):
        dm.privatize_chain(counts, np.full((2, 2), 20.0), support=counts > 0, rng=0)


# chain.row_kl_bounds: dropping ``@_checks.public`` survived: a row total that overflows then
# escaped as a bare RuntimeWarning before the function's own refusal.  It must be a
# ValueError, with no warning.
def test_row_kl_bounds_refuses_an_overflowing_row_without_a_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="overflow"):
            dm.row_kl_bounds(np.array([[1e308, 1e308], [1, 1]]), 5.0)


# chain.check_irreducible: ``first = pats[0]`` (the pattern every matrix of a stack may share,
# then checked once) replaced by ``None`` survived.  A stack whose matrices share one
# reducible pattern is reducible as a whole: it is named as P, without the index the
# mutant adds ("matrix 0 of the stack"); matrices of different patterns are named by index.
def test_a_stack_sharing_one_reducible_pattern_is_named_as_p():
    reducible = np.array([[1.0, 0, 0], [0, 0.5, 0.5], [0, 0.5, 0.5]])
    with pytest.raises(ValueError, match=r"^P is reducible: 2 communicating classes"):
        dm.check_irreducible(np.stack([reducible, [[1.0, 0, 0], [0, 0.3, 0.7], [0, 0.6, 0.4]]]))
    good = np.full((3, 3), 1 / 3)
    with pytest.raises(ValueError, match=r"^P is reducible \(matrix 1 of the stack\)"):
        dm.check_irreducible(np.stack([good, reducible]))


# chain._states: the refusal of a state out of range said ``0..{n - 1}``; ``n + 1`` survived
# (the tests matched the value only).  The rule it states must be the real one: 0..n-1.
def test_a_state_out_of_range_is_refused_with_the_range_it_must_lie_in():
    with pytest.raises(ValueError, match=r"contains state 3: states must lie in 0\.\.2 \(n=3\)"):
        dm.transition_counts([0, 1, 3], 3)
    assert dm.transition_counts([0, 1, 2], 3).sum() == 2


# chain._row_design: ``small = (arr > 0) & (alpha < TINY)`` made ``arr > 1`` survived: a
# count of exactly 1 whose parameter k C_ij is subnormal went unrefused.  Counts of 1 and of
# 2 (both with k C_ij < 2.2e-308) must be refused, naming k and the parameter.
@pytest.mark.parametrize("count", [1, 2])
def test_a_subnormal_parameter_is_refused_for_a_count_of_one(count):
    counts = np.array([[count, 1e300], [1, 1]])
    with pytest.raises(ValueError, match=r"gives a Dirichlet parameter .* below the smallest normal"):
        dm.privatize_chain(counts, 1e-10, support=counts > 0, rng=0)


# baselines.calibration.certify_theorem1_calibration: step 1 (the returned pair meets both
# targets, in arb) had no test of its own: ``b_point(K0) + K0/N log(...)`` made ``-``
# survived (the optimality step still passed).  A pair past the optimum must not be
# certified: k 5 % larger at the same gamma has epsilon above the target, gamma 50 % larger
# at the same k has delta above it.
@pytest.mark.parametrize("scale_k, scale_g", [(1.05, 1.0), (1.0, 1.5)])
def test_the_certificate_refuses_a_pair_that_misses_a_target(monkeypatch, scale_k, scale_g):
    from dpmarkov.baselines import calibration
    true = calibration.dirichlet_k_theorem1
    k, g = true(8.0, 1e-6, 5 / 98, 98, 5)
    assert dm.epsilon(k * scale_k, 5 / 98, 98, 5, g * scale_g) > 8.0 or \
        dm.delta(k * scale_k, 5 / 98, 98, 5, g * scale_g) > 1e-6          # it does miss one
    monkeypatch.setattr(calibration, "dirichlet_k_theorem1",
                        lambda *args, **kw: (k * scale_k, g * scale_g))
    with pytest.raises(ArithmeticError, match="is not certified"):
        calibration.certify_theorem1_calibration(8.0, 1e-6, 5 / 98, 98, 5, k_max_factor=10,
                                                 rel_width=1e-2)


# baselines.calibration._arb_betainc: ``tail = term / (1 - rho)`` made ``term * (1 - rho)``
# survived (an unsound enclosure: the series' remainder understated), and so did
# ``one = arb(1)`` made ``arb(2)`` (rho = 2x: a tail bound 3 times too wide at x = 0.4).  At
# the certificate's 128 bits the remainder (about 1e-40 of the sum) hides inside the
# rounding radius, so the enclosure is taken at 512 bits, where the radius is 1e-150 of it.
# With b < 1 the term ratios x (a + b + j)/(a + 1 + j) rise towards x, so rho = x and the
# remainder R after the last term t_J obeys t_J <= R <= t_J / (1 - x).  The enclosure
# [L, U] = prefactor [S_J, S_J + t_J / (1 - x)] must hold the true I_x(a, b) (an mpmath
# value at 160 digits), and U - T <= t_J x / (1 - x) <= R x / (1 - x), with R = T - L: the
# shrunken tail puts U below T, rho = 2x puts U - T near 2 R (above 0.67 R at x = 0.4).
@pytest.mark.parametrize("a, b, x", [(3.5, 0.75, 0.4), (1.25, 0.5, 0.3), (40.0, 0.9, 0.45)])
def test_the_arb_betainc_tail_bound_holds_the_true_remainder_and_is_tight(a, b, x):
    import mpmath
    from flint import arb, ctx

    from dpmarkov.baselines.calibration import _arb_betainc
    old = ctx.prec
    ctx.prec = 512
    try:
        enc = _arb_betainc(arb(a), arb(b), arb(x))
        lo, up = (v.str(155, radius=False) for v in (enc.lower(), enc.upper()))
    finally:
        ctx.prec = old
    with mpmath.workdps(160):
        lo, up = mpmath.mpf(lo), mpmath.mpf(up)
        true = mpmath.betainc(mpmath.mpf(a), mpmath.mpf(b), 0, mpmath.mpf(x), regularized=True)
        assert lo <= true <= up
        assert 0 < true - lo < 1e-35 * true          # the remainder is resolved at 512 bits
        assert up - true <= (true - lo) * x / (1 - x)


# baselines.calibration.dirichlet_k_tight: ``ok = gap_lo <= 0`` made ``< 0`` survived.  A
# delta met exactly at the search's lower end k_lo (gap 0) is reachable: the calibration
# returns k_lo, not an error.  dirichlet_k_theorem1 at its own gap 0 (delta exactly
# delta(k_lo, gamma(k_lo))): its final adjustment raises gamma to put epsilon on the target,
# delta then exceeds the target and k would step below k_lo = 3/(2 eta), where Assumption 4
# fails (the pair once returned, 3.4e-10 below k_lo, was refused by dm.delta).  That row is
# unreachable: an error naming Assumption 4, or NaN; a delta a relative 1e-9 above it gives
# a k >= k_lo.
def test_a_delta_met_exactly_at_the_lowest_k():
    from dpmarkov import privacy
    from dpmarkov.baselines import calibration
    eps, eta, N, n = 8.0, np.array([5 / 98]), np.array([98.0]), np.array([5.0])
    k_lo = np.asarray(privacy.k_min(eta), float)
    _, log_gamma, delta_at = calibration._theorem1_cores(eps, eta, N, n)
    # the search's gap at its lower end: delta at k = exp(log k_lo), gamma(k_lo), against d
    rows = np.array([0])
    d = float(delta_at(np.exp(np.log(k_lo)), np.exp(log_gamma(k_lo, rows)), rows)[0])
    with pytest.raises(ValueError, match=r"with k >= 3/\(2\*eta\)=29.4 \(Assumption 4\)"):
        dm.baselines.dirichlet_k_theorem1(eps, d, 5 / 98, 98, 5)
    k, g = dm.baselines.dirichlet_k_theorem1(eps, d, 5 / 98, 98, 5, on_unreachable="nan")
    assert np.isnan(k) and np.isnan(g)
    k, g = dm.baselines.dirichlet_k_theorem1(eps, d * (1 + 1e-9), 5 / 98, 98, 5)
    assert k_lo[0] <= k <= k_lo[0] * (1 + 1e-9)
    assert dm.delta(k, 5 / 98, 98, 5, g) <= d * (1 + 1e-9) and dm.epsilon(k, 5 / 98, 98, 5, g) <= eps

    eps, N, n, m = 1.0, 1000, 3, 100
    k_lo = max(1.0, eps * N / 500)                   # the tight search's lower end
    p = float(calibration._tight_profile(eps, np.array([k_lo]), np.array([float(N)]),
                                         np.array([float(n)]), np.array([float(m)]))[0])
    d = p / (1 - calibration._PROFILE_MARGIN)
    assert d * (1 - calibration._PROFILE_MARGIN) == p   # the target is the profile exactly
    assert dm.baselines.dirichlet_k_tight(eps, d, N, n, m) == k_lo


# profile.pair_profile: ``eps = _checks.array("epsilon", ...)`` made ``None`` survived (only
# its doctest called it).  It is privacy_profile's pair (m, m + 1) for n >= 3, one row per
# epsilon, and refuses an epsilon array of more than one dimension, naming epsilon.
def test_pair_profile_is_the_profile_pair_and_checks_epsilon():
    eps = np.array([0.0, 0.5, 2.0])
    out = dm.pair_profile(eps, np.array([8, 3]), np.array([9, 4]), 20.6, 98)
    assert out.shape == (3, 2)
    assert np.array_equal(out[:, 0], dm.privacy_profile(eps, 20.6, 98, 5, 8))
    assert np.array_equal(out[:, 1], dm.privacy_profile(eps, 20.6, 98, 5, 3))
    with pytest.raises(ValueError, match="epsilon"):
        dm.pair_profile(np.zeros((2, 2)), 8, 9, 20.6, 98)


# profile._epsilon_one: ``pair(0.0) <= target`` made ``<`` survived, and so did ``n >= 3``
# made ``n >= 4``.  A delta equal to the profile at epsilon = 0 (for n >= 3 the pair
# (m, m + 1) is the profile) is met at epsilon = 0 exactly; for n = 3 the root is the pair's
# (the n = 2 branch would step and bisect on the two-category profile instead): the
# certified bracket, profile(e) <= delta < profile(e (1 - 1e-9)), a few of Brent's 1e-12
# tolerances wide, holds it.
@pytest.mark.parametrize("k, N, m", [(20.6, 98, 8), (400.0, 1000, 30)])
def test_epsilon_for_delta_at_n3_and_at_the_profile_at_zero(k, N, m):
    d0 = dm.privacy_profile(0.0, k, N, 3, m)
    assert 0 < d0 < 1
    assert dm.epsilon_for_delta(d0, k, N, 3, m) == 0.0
    for d in (1e-3, 1e-7):
        e = dm.epsilon_for_delta(d, k, N, 3, m)
        assert dm.privacy_profile(e, k, N, 3, m) <= d < dm.privacy_profile(e * (1 - 1e-9), k, N, 3, m)


# profile._epsilon_one, n = 2: the branch where another pair than (m, N - m) is the worst
# at the pair's root (step up, doubling, then bisect) is reached by no real design (see the
# comment there), and ``lo, step = hi, 2 * step`` made ``lo, step = None``, the secant
# step's ``/ slope`` made ``* slope`` and the bisection's ``full(mid) > target`` made
# ``>=`` survived.  Here the two-category maximum is replaced by a decreasing stand-in,
# full(x) = H(x / 8) where that is above delta, then exactly delta up to 9 e (a plateau),
# then below: its smallest x with full(x) <= delta is 8 e*, e* the pair's root (the secant
# guess from the pair's slope falls short of it, so the step doubles).  The result must lie
# in [8 e*, 8 e* (1 + 2e-6)] (the bisection's 1e-6, not the plateau's far end) and take few
# evaluations: twice the secant guess is near the crossing (a first step of 1e-9 e would
# need about 30 doublings).
def test_epsilon_for_delta_steps_up_when_another_pair_is_worse(monkeypatch):
    from dpmarkov import profile
    k, N, m, d, S = 50.0, 200, 5, 1e-6, 8
    e = dm.epsilon_for_delta(d, k, N, 2, m)          # the pair's root: (m, N - m) is the worst

    def H(x):
        return float(dm.pair_profile(x, m, N - m, k, N))
    assert H(e) <= d < H(e * (1 - 1e-9))
    calls = []

    def stand_in(x, k_, N_, m_):
        x = float(x[0])
        calls.append(x)
        v = H(x / S)
        return np.array([v if v > d else d if x <= (S + 1) * e else min(v, d / 2)]), 0
    monkeypatch.setattr(profile, "two_category_max", stand_in)
    got = dm.epsilon_for_delta(d, k, N, 2, m)
    assert S * e * (1 - 1e-9) <= got <= S * e * (1 + 2e-6)
    assert stand_in(np.array([got]), k, N, m)[0][0] <= d
    assert len(calls) <= 40


# The same branch with a stand-in the secant guess falls short of: ``lo, step = hi, 2 * step``
# made ``lo, step = None`` survived, as the guess (twice the secant step) was always past the
# crossing.  full(x) = delta exp(-(x - 2 e) r) with r a tenth of the pair's log-slope rate at
# e: the first step falls short of the root 2 e, so the step doubles.
# The result must be the root to the bisection's 1e-6, on the safe side.
def test_epsilon_for_delta_doubles_its_step_up(monkeypatch):
    from dpmarkov import profile
    k, N, m, d = 50.0, 200, 5, 1e-6
    e = dm.epsilon_for_delta(d, k, N, 2, m)

    def H(x):
        return float(dm.pair_profile(x, m, N - m, k, N))
    rate = (np.log(H(e)) - np.log(H(e * 1.001))) / (e * 0.001)
    calls = []

    def stand_in(x, k_, N_, m_):
        calls.append(float(x[0]))
        return np.array([min(1.0, d * np.exp(-(float(x[0]) - 2 * e) * rate / 10))]), 0
    monkeypatch.setattr(profile, "two_category_max", stand_in)
    got = dm.epsilon_for_delta(d, k, N, 2, m)
    assert 2 * e <= got <= 2 * e * (1 + 2e-6)
    # at e, at e + step (short of 2 e), then at e + 3 step (the step doubled, past 2 e)
    assert calls[0] == e and calls[1] < 2 * e < calls[2]
    assert calls[2] - calls[1] == pytest.approx(2 * (calls[1] - calls[0]), rel=1e-12)


# profile._epsilon_one, n = 2: ``pair_below = pair(0.0) <= target`` made ``<`` survived.  At
# delta equal to the pair's H at 0 while another pair is worse there, the root is found on
# the whole profile by Brent's method (1e-12), not by the step-up and bisection (1e-6)
# from the pair's root 0.  Stand-in for the two-category maximum: full(x) = min(1, 2 H(x)),
# root where H(x) = delta / 2 (the pair's own epsilon_for_delta at delta / 2, 1e-12).
def test_epsilon_for_delta_at_the_pairs_value_at_zero(monkeypatch):
    from dpmarkov import profile
    k, N, m = 50.0, 200, 5
    d0 = float(dm.pair_profile(0.0, m, N - m, k, N))
    root = dm.epsilon_for_delta(d0 / 2, k, N, 2, m)     # (m, N - m) is the worst there

    def full(eps):
        return np.minimum(1.0, 2 * dm.pair_profile(np.asarray(eps, float).ravel(), m, N - m, k, N))
    monkeypatch.setattr(profile, "two_category_max", lambda x, k_, N_, m_: (full(x), 0))
    monkeypatch.setattr(profile, "profile_one_k", lambda x, k_, N_, n_, m_: full(x))
    got = dm.epsilon_for_delta(d0, k, N, 2, m)
    assert got == pytest.approx(root, rel=1e-9)


# baselines.calibration.certify_theorem1_calibration's work refusal and input checks:
# ``rel_width < 1`` made ``< 2`` survived (test at both sides of the limit).  1.4e9 intervals
# at rel_width 1e-8 over a factor 1e6 must be refused before a grid of them is built (the
# up-front count; ``test_the_certificate_counts_one_term_per_share_and_interval_up_front``
# is the one at which ``intervals * shares.size`` made ``/`` makes a difference).
def test_the_certificate_checks_rel_width_and_refuses_a_huge_grid_up_front():
    from dpmarkov.baselines import calibration
    for width in (1.0, 1.5, 1e-8 * (1 - 1e-15)):
        with pytest.raises(ValueError, match=r"rel_width=.* must satisfy 1e-8 <= rel_width < 1"):
            calibration.certify_theorem1_calibration(8.0, 1e-6, 5 / 98, 98, 5, rel_width=width)
    with pytest.raises(ValueError, match=r"\(1381551\d* intervals\), more than 2000000"):
        calibration.certify_theorem1_calibration(8.0, 1e-6, 5 / 98, 98, 5, k_max_factor=1e6,
                                                 rel_width=1e-8)


# baselines.calibration._estimated_terms: ``total += block * ...`` made ``total = ...`` and
# ``np.diff(picks, prepend=-1)`` made ``prepend=+1`` survived (the estimate then counts the
# last interval only, or the first block as -1 intervals).  With at most 64 intervals every
# interval is sampled as its own block: the estimate is the series lengths of the returned
# pair's tails plus those of every interval's tails at its gamma, each counted once.
def test_the_work_estimate_counts_every_interval_once():
    from dpmarkov.baselines import calibration
    eps, eta, N, n = 8.0, 5 / 98, 98, 5
    k0, g0 = dm.baselines.dirichlet_k_theorem1(eps, 1e-6, eta, N, n)
    shares = np.unique(dm.worst_counts(eta, N, n)) / N
    edges = np.geomspace(k0 * (1 + 1e-9), 1.5 * k0, 11)      # gamma(k) < 1/n on all of it
    _, log_gamma, _ = calibration._theorem1_cores(eps, *(np.array([float(v)]) for v in (eta, N, n)))
    gammas = np.exp(log_gamma(edges[:-1], np.zeros(10, int)))
    assert ((gammas > 0) & (gammas < 1)).all()
    expected = sum(calibration._series_terms(k0 * s, k0 * (1 - s), g0) for s in shares)
    expected += sum(calibration._series_terms(edges[i + 1] * s, edges[i] * (1 - s), g)
                    for i, g in enumerate(gammas) for s in shares)
    assert calibration._estimated_terms(eps, k0, g0, eta, N, n, shares, edges) == expected


# baselines.calibration.dirichlet_k_tight: the gap's floor ``np.maximum(prof, 1e-300)``
# made ``2e-300`` survived: a delta between the two (1.5e-300) was then refused although the
# profile at the search's lower end k_lo = 16 is far below it (5e-324).  The calibrated k
# meets delta, and k 1 % larger does not (the largest such k, to the search's 1e-10).
def test_the_tight_calibration_reaches_a_delta_near_the_smallest_doubles():
    k = dm.baselines.dirichlet_k_tight(8.0, 1.5e-300, 1000, 3, 100)
    assert dm.privacy_profile(8.0, 16.0, 1000, 3, 100) < 1e-300
    assert dm.privacy_profile(8.0, k, 1000, 3, 100) <= 1.5e-300 < dm.privacy_profile(8.0, 1.01 * k, 1000, 3, 100)


# baselines.calibration._theorem1_adjust: over 201 designs one gamma step of 1e-13 always put
# the sound epsilon on the target, so ``eps * (1 - 1e-14)`` made ``eps * (2 - 1e-14)`` in the
# step loop survived (it stops after one step, whatever epsilon then is), and so did ``>`` made
# ``>=`` there and in the delta check (a target met exactly counts as missed).  The helper is
# called with the real cores of a design (eps 8, eta 5/98, N 98, n 5) and crafted starts:
# a gamma a relative 1e-12 below the closed form needs several steps; an epsilon target equal,
# bit for bit, to the sound epsilon after one step is met there; a delta target equal to the
# delta of the adjusted pair is met by it.  In each case the pair returned is the first of the
# sequence gamma_0 (1 + 1e-13)^j meeting epsilon <= target, and k is the search's k.
def _adjust_design():
    from dpmarkov.baselines import calibration
    eps = 8.0
    cores = calibration._theorem1_cores(eps, np.array([5 / 98]), np.array([98.0]), np.array([5.0]))
    k, _ = dm.baselines.dirichlet_k_theorem1(eps, 1e-6, 5 / 98, 98, 5)
    return calibration._theorem1_adjust, eps, float(k), np.array([0]), cores


def _first_meeting(target, k, g, rows, sound_epsilon):
    """gamma_0 (1 + 1e-13)^j for the least j whose sound epsilon is <= target, and j."""
    j = 0
    while sound_epsilon(k, g, rows)[0] > target:
        g, j = g * (1 + 1e-13), j + 1
    return g, j


def test_the_adjustment_steps_gamma_until_epsilon_is_met():
    adjust, eps, k0, rows, (sound_epsilon, log_gamma, delta_at) = _adjust_design()
    low = lambda k, r: log_gamma(k, r) + np.log1p(-1e-12)     # gamma 1e-12 too small
    log_k = np.array([np.log(k0)])
    k = np.exp(log_k)
    target = eps * (1 - 1e-14)
    want, steps = _first_meeting(target, k, np.exp(low(k, rows)), rows, sound_epsilon)
    assert steps >= 2                                # one step does not reach the target
    got_k, got_g = adjust(eps, 1.0, log_k, rows, sound_epsilon, low, delta_at)
    assert got_k[0] == k[0] and got_g[0] == want[0]
    assert sound_epsilon(got_k, got_g, rows)[0] <= target


def test_the_adjustment_stops_at_an_epsilon_exactly_on_the_target():
    adjust, _, k0, rows, (sound_epsilon, log_gamma, delta_at) = _adjust_design()
    # a k near the design's where the sound epsilon after one step is eps' (1 - 1e-14)
    # for some float eps' (not every float is such a product), the first of 40 such k
    for j in range(40):
        log_k = np.array([np.log(k0 * (1 + j * 1e-7))])
        k = np.exp(log_k)
        g0 = np.exp(log_gamma(k, rows))
        s0, s1 = (sound_epsilon(k, g, rows)[0] for g in (g0, g0 * (1 + 1e-13)))
        e = s1 / (1 - 1e-14)
        near = [e]
        for _ in range(3):
            near = [np.nextafter(near[0], 0)] + near + [np.nextafter(near[-1], np.inf)]
        hit = [v for v in near if v * (1 - 1e-14) == s1 and s0 > s1]
        if hit:
            break
    assert hit, "no k near the design's puts the epsilon after one step on a target"
    target = hit[0] * (1 - 1e-14)
    assert sound_epsilon(k, g0, rows)[0] > target    # the closed form's gamma misses it
    got_k, got_g = adjust(hit[0], 1.0, log_k, rows, sound_epsilon, log_gamma, delta_at)
    assert got_k[0] == k[0] and got_g[0] == g0[0] * (1 + 1e-13)
    assert sound_epsilon(got_k, got_g, rows)[0] == target


def test_the_adjustment_keeps_k_at_a_delta_exactly_on_the_target():
    adjust, eps, k0, rows, (sound_epsilon, log_gamma, delta_at) = _adjust_design()
    log_k = np.array([np.log(k0)])
    k, g = adjust(eps, 1.0, log_k, rows, sound_epsilon, log_gamma, delta_at)
    d = float(delta_at(k, g, rows)[0])               # the adjusted pair's delta, exactly
    assert 0 < d < 1
    got_k, got_g = adjust(eps, d, log_k, rows, sound_epsilon, log_gamma, delta_at)
    assert got_k[0] == k[0] == np.exp(log_k)[0] and got_g[0] == g[0]
    assert delta_at(got_k, got_g, rows)[0] <= d
    # a target a hair below it is missed: k steps down, and the pair then meets both
    got_k, got_g = adjust(eps, d * (1 - 1e-12), log_k, rows, sound_epsilon, log_gamma, delta_at)
    assert got_k[0] < k[0]
    assert delta_at(got_k, got_g, rows)[0] <= d * (1 - 1e-12)
    assert sound_epsilon(got_k, got_g, rows)[0] <= eps * (1 - 1e-14)


# baselines.calibration.certify_theorem1_calibration: ``terms = intervals * shares.size`` made
# ``/`` survived: at 1.4e9 intervals the quotient too is beyond the budget, so the refusal came
# up front either way.  With 1.5e6 intervals and 2 shares (eta 5/98, N 98, n 5) the product,
# 3e6 terms (at least one per share and interval), is beyond the 2e6 budget and the quotient
# (7.5e5) is not: the certificate must refuse without building the grid or sampling it
# (``_estimated_terms`` never called), naming at least intervals * shares terms.
def test_the_certificate_counts_one_term_per_share_and_interval_up_front(monkeypatch):
    import re

    from dpmarkov.baselines import calibration

    def estimate(*args):
        raise AssertionError("the work estimate ran on a grid the count already refuses")

    monkeypatch.setattr(calibration, "_estimated_terms", estimate)
    assert np.unique(dm.worst_counts(5 / 98, 98, 5)).size == 2
    width = np.log(10.0) / 1.5e6
    intervals = int(np.ceil(np.log(10.0 / (1 + 1e-9)) / width))
    assert 1e6 < intervals <= 4e6 and 2 * intervals > calibration._MAX_SERIES_TERMS
    with pytest.raises(ValueError, match=rf"\({intervals} intervals\), more than 2000000") as err:
        calibration.certify_theorem1_calibration(8.0, 1e-6, 5 / 98, 98, 5, k_max_factor=10.0,
                                                 rel_width=width)
    terms = float(re.search(r"about (\S+) series terms", str(err.value)).group(1))
    assert terms == pytest.approx(2 * intervals, rel=5e-3)    # printed to 3 digits
