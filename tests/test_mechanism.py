"""Unit and statistical tests of the Dirichlet mechanism (Definition 5, Algorithm 1).

Book: chapter "The Dirichlet mechanism".  Statistical tests use fixed seeds and
tolerances derived from the sampling error (stated at each test), so a correct
sampler passes deterministically and a wrong law fails by a wide margin.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

import dpmarkov as dm

COUNTS = np.array([20, 30, 50])          # C = (0.2, 0.3, 0.5), N = 100
C = COUNTS / COUNTS.sum()
K = 30.0


# --- shape, support, seeding -------------------------------------------------------------

def test_one_draw_is_a_point_of_the_open_simplex():
    x = dm.privatize(COUNTS, K, rng=1)
    assert x.shape == (3,)
    assert np.all(x > 0)
    assert abs(x.sum() - 1) < 1e-12
    assert dm.in_simplex(x)


@pytest.mark.parametrize("size, shape", [(5, (5, 3)), ((2, 4), (2, 4, 3)), ((7,), (7, 3)),
                                         (0, (0, 3))])
def test_size_prepends_axes(size, shape):
    x = dm.privatize(COUNTS, K, rng=2, size=size)
    assert x.shape == shape
    assert np.all(dm.in_simplex(x))


def test_many_draws_stay_in_the_simplex_at_small_and_large_k():
    for k in (2.0, 30.0, 1e6):
        x = dm.privatize(COUNTS, k, rng=3, size=2000)
        assert np.all(x > 0) and np.all(x < 1)
        np.testing.assert_allclose(x.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_same_seed_same_draws_and_seed_forms_agree():
    a = dm.privatize(COUNTS, K, rng=123, size=4)
    b = dm.privatize(COUNTS, K, rng=123, size=4)
    c = dm.privatize(COUNTS, K, rng=np.random.default_rng(123), size=4)
    d = dm.privatize(COUNTS, K, rng=np.random.SeedSequence(123), size=4)
    assert np.array_equal(a, b) and np.array_equal(a, c) and np.array_equal(a, d)
    assert not np.array_equal(a, dm.privatize(COUNTS, K, rng=124, size=4))


def test_a_generator_is_advanced_not_reset():
    gen = np.random.default_rng(5)
    first = dm.privatize(COUNTS, K, rng=gen)
    second = dm.privatize(COUNTS, K, rng=gen)
    assert not np.array_equal(first, second)


def test_rng_none_draws_fresh_entropy():
    # two continuous draws from OS entropy coincide with probability 0
    a = dm.privatize(COUNTS, K, size=3)
    b = dm.privatize(COUNTS, K, size=3)
    assert not np.array_equal(a, b)


def test_checking_eta_does_not_change_the_draw():
    plain = dm.privatize(COUNTS, K, rng=9, size=3)
    checked = dm.privatize(COUNTS, K, eta=0.1, rng=9, size=3)  # 3/(2*0.1) = 15 <= 30
    assert np.array_equal(plain, checked)


def test_k_at_the_assumption_4_boundary_is_accepted():
    eta = 0.2                                   # k_min = 7.5; every C_i >= 0.2
    x = dm.privatize(COUNTS, 1.5 / eta, eta=eta, rng=0)
    assert dm.in_simplex(x)


# --- the law: moments and marginals --------------------------------------------------------

M = 40_000   # draws for the statistical tests


def _draws():
    return dm.privatize(COUNTS, K, rng=20260222, size=M)


def test_sample_mean_matches_C():
    x = _draws()
    var = C * (1 - C) / (K + 1)               # exact Var(X_i) of Dir(k C)
    se = np.sqrt(var / M)                      # standard error of the sample mean
    assert np.all(np.abs(x.mean(axis=0) - C) < 5 * se), (x.mean(axis=0) - C) / se


def test_sample_covariance_matches_dirichlet_covariance():
    x = _draws()
    exact = (np.diag(C) - np.outer(C, C)) / (K + 1)
    centred = x - x.mean(axis=0)
    prods = centred[:, :, None] * centred[:, None, :]          # (M, n, n)
    sample = prods.mean(axis=0) * M / (M - 1)
    # standard error of each sample covariance: sd of the products over sqrt(M)
    se = prods.std(axis=0, ddof=1) / np.sqrt(M)
    assert np.all(np.abs(sample - exact) < 5 * se), (sample - exact) / se
    # and a wrong law is rejected: the covariance of Dir(k C) is not that of Dir(2k C)
    wrong = (np.diag(C) - np.outer(C, C)) / (2 * K + 1)
    assert np.any(np.abs(sample - wrong) > 5 * se)


@pytest.mark.parametrize("i", range(3))
def test_marginals_are_beta(i):
    # X_i ~ Beta(k C_i, k (1 - C_i)).  KS test at significance 1e-3 with a fixed seed.
    x = _draws()[:5000, i]
    a, b = K * C[i], K * (1 - C[i])
    assert stats.kstest(x, stats.beta(a, b).cdf).pvalue > 1e-3
    # the test has power: the Beta law of Dir(2k C) is rejected
    assert stats.kstest(x, stats.beta(2 * a, 2 * b).cdf).pvalue < 1e-3


# --- input errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("counts, match", [
    ([1, 0, 2], r"counts\[1\]=0"),
    ([1, -1, 2], "must be >= 0"),
    ([1.5, 1, 2], "whole numbers"),
    ([np.nan, 1, 2], "finite"),
    ([np.inf, 1, 2], "finite"),
    ([0, 0, 0], "sums to 0"),
    ([5], "at least 2"),
    ([], "at least 2"),
    (7, "array of counts"),
    ([[1, 2, 3], [4, 5, 6]], "privatize_chain"),
])
def test_bad_counts_are_rejected(counts, match):
    with pytest.raises(ValueError, match=match):
        dm.privatize(counts, K, rng=0)


def test_non_numeric_counts_are_rejected():
    with pytest.raises(TypeError, match="holds text"):
        dm.privatize(["a", "b"], K, rng=0)


@pytest.mark.parametrize("k, match", [(0, "must be > 0"), (-2.0, "must be > 0"),
                                      (np.nan, "finite"), (np.inf, "finite"),
                                      ([10.0, 20.0], "scalar k")])
def test_bad_k_is_rejected(k, match):
    with pytest.raises(ValueError, match=match):
        dm.privatize(COUNTS, k, rng=0)


@pytest.mark.parametrize("counts, k, eta, match", [
    ([20, 30, 50], 10.0, 0.1, r"below 3/\(2\*eta\)=15 \(Assumption 4\)"),
    ([5, 45, 50], 40.0, 0.1, r"counts\[0\]=5 is below eta\*N=10 .*Assumption 3"),
    ([20, 30, 50], 40.0, 0.25, "0 < eta < 1/4"),
    ([20, 30, 50], 40.0, 0.0, "0 < eta < 1/4"),
    ([20, 30, 50], 40.0, -0.1, "0 < eta < 1/4"),
    ([20, 30, 50], 40.0, np.nan, "finite"),
])
def test_assumptions_3_and_4_are_checked_when_eta_is_given(counts, k, eta, match):
    with pytest.raises(ValueError, match=match):
        dm.privatize(counts, k, eta=eta, rng=0)


@pytest.mark.parametrize("rng", ["seed", 1.5, [1, 2], object()])
def test_bad_rng_type_is_rejected(rng):
    with pytest.raises(TypeError, match="rng="):
        dm.privatize(COUNTS, K, rng=rng)


def test_no_nan_when_gamma_variates_underflow():
    # k*C_i = 0.001: plain gamma variates all underflow to 0 in ~11% of draws (0/0 = NaN);
    # the log-space sampler must give valid points with the right mean C = (1/3, 1/3, 1/3).
    x = dm.privatize([1, 1, 1], 0.003, rng=0, size=20_000)
    assert np.all(np.isfinite(x)) and np.allclose(x.sum(axis=-1), 1)
    # each coordinate is Beta(a, 2a) with a = 0.001: variance C(1-C)/(k+1); 5 standard errors
    se = np.sqrt((1 / 3) * (2 / 3) / (0.003 + 1) / len(x))
    assert np.all(np.abs(x.mean(axis=0) - 1 / 3) < 5 * se), x.mean(axis=0)


def test_small_parameter_sampler_has_the_dirichlet_mean_and_variance():
    # mixed parameters below 1 take the log-space path: check mean and variance of each coordinate
    counts, k = np.array([1, 2, 7]), 5.0          # alpha = (0.5, 1, 3.5)
    x = dm.privatize(counts, k, rng=1, size=100_000)
    C = counts / counts.sum()
    var = C * (1 - C) / (k + 1)
    assert np.all(np.abs(x.mean(axis=0) - C) < 5 * np.sqrt(var / len(x)))
    # variance of the sample variance ~ E[(X-m)^4]/n; bound the 4th moment by var (X in [0, 1])
    assert np.all(np.abs(x.var(axis=0) - var) < 5 * np.sqrt(var / len(x)))


# --- dirichlet_parameters and log_density ---------------------------------------------------

def test_dirichlet_parameters_are_k_times_C():
    np.testing.assert_allclose(dm.dirichlet_parameters(COUNTS, K), K * C, rtol=1e-15)
    with pytest.raises(ValueError, match=r"counts\[2\]=0"):
        dm.dirichlet_parameters([3, 4, 0], K)


def test_log_density_matches_scipy_on_points_and_stacks():
    x = dm.privatize(COUNTS, K, rng=11, size=50)
    ours = dm.log_density(x, COUNTS, K)
    theirs = stats.dirichlet.logpdf(x.T, K * C)     # scipy takes points as columns
    assert ours.shape == (50,)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    one = dm.log_density(x[0], COUNTS, K)
    assert np.ndim(one) == 0 and abs(one - theirs[0]) < 1e-12
    # a parameter below 1 (density unbounded at the border) agrees too
    small = dm.log_density(x[:5], COUNTS, 2.0)
    np.testing.assert_allclose(small, stats.dirichlet.logpdf(x[:5].T, 2.0 * C), rtol=1e-12)


def test_log_density_integrates_to_one_on_the_2_simplex():
    # density in the first n-1 coordinates (Definition 5), integrated over the triangle
    def f(x2, x1):
        return np.exp(dm.log_density([x1, x2, 1 - x1 - x2], [2, 3, 4], 9.0))
    total, err = integrate.dblquad(f, 0, 1, 0, lambda x1: 1 - x1, epsabs=1e-10)
    assert abs(total - 1) < 1e-7, (total, err)


def test_log_density_at_the_border_is_minus_infinity_when_parameters_exceed_1():
    assert dm.log_density([0.5, 0.5, 0.0], COUNTS, K) == -np.inf


@pytest.mark.parametrize("x, counts, match", [
    ([0.5, 0.5], COUNTS, "2 entries per point"),
    ([np.nan, 0.5, 0.5], COUNTS, "finite"),
    ([0.2, 0.3, 0.5], [1, 0, 2], r"counts\[1\]=0"),
])
def test_log_density_input_errors(x, counts, match):
    with pytest.raises(ValueError, match=match):
        dm.log_density(x, counts, K)


@pytest.mark.parametrize("x", [[0.5, 0.6, -0.1], [0.5, 0.6, 0.9]])
def test_log_density_off_the_simplex(x):
    with pytest.raises(ValueError, match="not in the unit simplex"):
        dm.log_density(x, COUNTS, K)


# --- issue 10: the log-space sampler, seeds and sizes ----------------------------------------

def test_subnormal_k_is_refused_not_nan():
    # the old sampler returned [nan, nan, nan] for k = 5e-324
    with pytest.raises(ValueError, match=r"k=5e-324 .*smallest normal double"):
        dm.privatize([5, 5, 5], 5e-324, rng=0)


@pytest.mark.parametrize("k", [1e-300, 1e-3, 0.3])
def test_tiny_k_draws_stay_in_the_open_simplex(k):
    x = dm.privatize([5, 5, 5], k, rng=1, size=500)
    assert np.all(x > 0) and np.all(np.isfinite(x))
    np.testing.assert_allclose(x.sum(axis=-1), 1, atol=1e-15)


def test_huge_k_does_not_overflow():
    x = dm.privatize([1, 1, 1], 1.7e308, rng=2, size=10)
    np.testing.assert_allclose(x, 1 / 3, rtol=1e-9)


def test_small_k_law_matches_beta_marginal():
    # k C_i = 0.2: the log-space path; X_1 ~ Beta(0.2, 0.4); KS at level 1e-3 with power
    # against Beta(0.4, 0.8) (the law of twice the parameters)
    x = dm.privatize([1, 1, 1], 0.6, rng=3, size=4000)[:, 0]
    assert stats.kstest(x, stats.beta(0.2, 0.4).cdf).pvalue > 1e-3
    assert stats.kstest(x, stats.beta(0.4, 0.8).cdf).pvalue < 1e-3


@pytest.mark.parametrize("rng, error", [(True, TypeError), (np.bool_(False), TypeError),
                                        (-3, ValueError), (2.0, TypeError), ("7", TypeError)])
def test_seed_rule(rng, error):
    with pytest.raises(error, match="rng="):
        dm.privatize(COUNTS, K, rng=rng)


@pytest.mark.parametrize("size", [1.7, "3", True, (2, 1.5), 3.0])
def test_size_must_be_ints(size):
    with pytest.raises(TypeError, match="size="):
        dm.privatize(COUNTS, K, rng=0, size=size)


def test_huge_size_is_refused_before_allocating():
    with pytest.raises(ValueError, match="size=.*at most"):
        dm.privatize(COUNTS, K, rng=0, size=10**12)


# --- parameters on both sides of 1: log space only where it is needed (issue 26) ------------

def test_mixed_parameters_have_the_dirichlet_law():
    # alpha = (1.5, 0.1, 0.05, 2.5, 0.85): the entries < 1 are drawn as G(a + 1) U^(1/a), the
    # others as G(a).  Each X_i ~ Beta(a_i, A - a_i): mean a_i/A and E[log X_i] = psi(a_i) -
    # psi(A).  Tolerance: 5 standard errors of the sample means (estimated from the same
    # sample; fixed seed).  E[log X_i] is the check that bites on the small entries' tail.
    from scipy.special import digamma
    counts, k = np.array([30, 2, 1, 50, 17.0]), 5.0
    alpha = k * counts / counts.sum()
    assert np.any(alpha < 1) and np.any(alpha >= 1)
    x = dm.privatize(counts, k, rng=1, size=200_000)
    total = alpha.sum()
    se = x.std(axis=0) / np.sqrt(len(x))
    assert np.all(np.abs(x.mean(axis=0) - alpha / total) < 5 * se)
    logs = np.log(x)
    se_log = logs.std(axis=0) / np.sqrt(len(x))
    assert np.all(np.abs(logs.mean(axis=0) - (digamma(alpha) - digamma(total))) < 5 * se_log)
    # power: the law with the small parameters doubled is told apart by the same checks
    wrong = digamma(np.where(alpha < 1, 2 * alpha, alpha))
    wrong -= digamma(np.where(alpha < 1, 2 * alpha, alpha).sum())
    assert np.any(np.abs(logs.mean(axis=0) - wrong) > 50 * se_log)


def _replica(alpha, size, seed):
    """The variates ``sample_dirichlet`` draws for ``privatize`` (uniforms = gen) when some
    alpha_i < 1 and some >= 1, and the draw formed from them in exact logs (float)."""
    gen = np.random.default_rng(seed)
    small = alpha < 1
    g = gen.standard_gamma(np.where(small, alpha + 1, alpha), size=(size, alpha.size))
    e = gen.standard_exponential((size, int(small.sum())))
    with np.errstate(under="ignore", divide="ignore"):
        lin = g.copy()
        lin[:, small] = g[:, small] * np.exp(-e / alpha[small])
        row_sum = lin.sum(axis=1, keepdims=True)
        log_x = np.log(g)
        log_x[:, small] -= e / alpha[small]
    return log_x - np.log(row_sum)


def test_tiny_entries_next_to_large_ones_keep_their_relative_accuracy():
    # alpha = (0.002, 3, 0.3): X_1 < 2.2e-308 (the normal range) in about a quarter of the
    # draws; there the sampler recomputes it in logs.  Against the same variates combined in
    # logs: within 16 u (|log x| + 1) relative wherever the value is a normal double (an
    # exponential exp(t) inherits the rounding of its argument t, about |t| u, in either
    # formula); the rounding up to the smallest positive double below it; never an exact 0.
    alpha = np.array([0.002, 3.0, 0.3])
    counts, k = alpha * 1000, alpha.sum()
    x = dm.privatize(counts, k, rng=7, size=20_000)
    expected_log = _replica(alpha, 20_000, 7)
    normal = expected_log > np.log(2.3e-308)
    assert 0.1 < np.mean(~normal[:, 0]) < 0.5            # the recomputation is exercised
    relative = np.abs(x[normal] / np.exp(expected_log[normal]) - 1)
    assert np.all(relative <= 16 * 2.0**-53 * (np.abs(expected_log[normal]) + 1))
    # subnormal values (4.9e-324 to 2.2e-308): the same relative bound plus two steps of
    # 4.9e-324 (the spacing of subnormal doubles)
    sub = ~normal & (expected_log > np.log(1e-322))
    assert sub.sum() > 100
    y = np.exp(expected_log[sub])
    bound = 2 * np.nextafter(0.0, 1.0) + 16 * 2.0**-53 * (np.abs(expected_log[sub]) + 1) * y
    assert np.all(np.abs(x[sub] - y) <= bound)
    below = expected_log < np.log(4.9e-324) - 1
    assert np.all(x[below] == np.nextafter(0.0, 1.0)) and np.all(x > 0)


@pytest.mark.parametrize("n", [2, 3, 7, 8, 9, 30])
def test_draws_are_numpys_gamma_variates_divided_by_numpys_row_sums(n):
    # the speed-up of short rows (issue 38) adds the columns in turn instead of numpy's
    # row reduction: seeded releases must stay the same bits as standard_gamma divided by
    # sum(axis=-1), on both sides of numpy's pairwise threshold (8); a sum in another
    # order (x0 + (x1 + x2), or pairwise for short rows) changes some last bits and fails
    counts = np.arange(1, n + 1) * 7.0
    for k in (n * (n + 1.0), 1e4):       # every parameter >= 2: gamma variates, divided
        alpha = dm.dirichlet_parameters(counts, k)
        g = np.random.default_rng(5).standard_gamma(alpha, size=(4000, n))
        assert np.array_equal(dm.privatize(counts, k, rng=5, size=4000),
                              g / g.sum(axis=-1, keepdims=True))
        one = np.random.default_rng(6).standard_gamma(alpha)
        assert np.array_equal(dm.privatize(counts, k, rng=6), one / one.sum())


@pytest.mark.parametrize("n", [2, 3, 7, 9])
def test_draws_in_logs_use_numpys_row_maximum_and_sum(n):
    # every parameter below 1: the draw is formed in logs (sample_dirichlet's docstring)
    # from Gamma(a + 1) variates and uniforms of the same generator; short rows take their
    # maximum and sum column by column (issue 38), which must give numpy's reductions bit
    # for bit: a maximum over fewer columns, or a sum in another order, fails here
    counts = np.arange(1, n + 1) * 3.0
    k = 0.5
    a = dm.dirichlet_parameters(counts, k)
    gen = np.random.default_rng(8)
    log_g = np.log(gen.standard_gamma(a + 1, size=(3000, n)))
    log_g -= np.exp(np.log(-np.log1p(-gen.random((3000, n)))) - np.log(a))
    x = np.exp(log_g - log_g.max(axis=-1, keepdims=True))
    x /= x.sum(axis=-1, keepdims=True)
    assert np.array_equal(dm.privatize(counts, k, rng=8, size=3000),
                          np.maximum(x, np.nextafter(0.0, 1.0)))


def _outcome(call):
    """The shape and bytes of ``call()``'s array, or the (type, message) of its error."""
    try:
        result = call()
    except (ValueError, TypeError) as err:
        return type(err), str(err)
    return result.shape, result.tobytes()


_V = np.array([30.0, 50.0, 20.0])


@pytest.mark.parametrize("counts, k, taken", [
    (_V, 10.0, True), (_V, 7, True), (_V, np.float64(0.5), True), (_V, 1e300, True),
    (np.arange(1.0, 300.0), 3.0, True),                  # pairwise total (>= 8 entries)
    (np.array([1.0, 1e15]), 2.0**-900, True),            # smallest parameter near TINY
    (_V, 2**62, True), (_V, 2**63, False), (_V, 10**400, False),    # ints beyond int64
    (_V, True, False), (_V, np.inf, False), (_V, np.nan, False), (_V, 0.0, False),
    (_V, -1.0, False), (_V, "10", False), (_V, np.array(10.0), False), (_V, [10.0], False),
    (np.array([30.0, 0.0, 20.0]), 10.0, False), (np.array([30.0, 2.5, 20.0]), 10.0, False),
    (np.array([30.0, -5.0, 20.0]), 10.0, False), (np.array([30.0, np.nan, 20.0]), 10.0, False),
    (np.array([30.0, np.inf, 20.0]), 10.0, False), (np.array([1e308, 1e308]), 1.0, False),
    (np.array([1.0, 1e300]), 1e-10, False),              # a parameter below TINY
    (np.array([3.0]), 10.0, False), (np.array([[3.0, 1.0]]), 10.0, False),
    (np.array([3, 1]), 10.0, False), (np.array([3.0, 1.0], dtype=np.float32), 10.0, False),
])
def test_lean_parameter_checks_agree_with_the_full_ones(counts, k, taken, monkeypatch):
    # privatize and dirichlet_parameters take one float64 vector and a plain k through a
    # lean pass (mechanism._lean_parameters, issue 38) and everything else, or anything that
    # fails, through the full checks.  Each case must give exactly what the full checks
    # give: the same bits, or the same error and message.  A lean pass that skipped the
    # wholeness of the counts would accept 2.5, one that skipped the finiteness of the
    # total would divide by inf, one that took any int k would raise OverflowError at 10**400
    from dpmarkov import mechanism
    assert (mechanism._lean_parameters(counts, k) is not None) == taken
    for fn in (lambda: dm.dirichlet_parameters(counts, k),
               lambda: dm.privatize(counts, k, rng=3, size=5)):
        lean = _outcome(fn)
        with monkeypatch.context() as patch:
            patch.setattr(mechanism, "_lean_parameters", lambda *args: None)
            full = _outcome(fn)
        assert lean == full
