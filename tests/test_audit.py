"""The privacy audit: valid lower confidence bounds, and it catches broken mechanisms."""
import numpy as np
import pytest
from scipy import integrate, stats

import dpmarkov as dm
from dpmarkov.audit import audit_hockey_stick, clopper_pearson, log_ratio_statistic

PAPER = dict(eta=0.073, N=98, n=5, gamma=4e-4)
C = np.array([8, 8, 8, 8, 66.0])
C_ADJ = C + np.array([1, 0, 0, 0, -1.0])   # one record moves from F to A


def exact_hockey_stick_beta(c, c_adj, k, eps):
    """For n = 2 the mechanism is a Beta law: integrate (f - e^eps g)_+ directly."""
    N = sum(c)
    f = stats.beta(k * c[0] / N, k * c[1] / N).pdf
    g = stats.beta(k * c_adj[0] / N, k * c_adj[1] / N).pdf
    val, _ = integrate.quad(lambda x: max(f(x) - np.exp(eps) * g(x), 0.0), 0, 1, limit=200)
    return val


def test_clopper_pearson_matches_scipy():
    for hits, trials in [(0, 50), (3, 50), (50, 50), (517, 1000)]:
        ci = stats.binomtest(hits, trials).proportion_ci(0.99, method="exact")
        np.testing.assert_allclose(clopper_pearson(hits, trials, 0.01), (ci.low, ci.high), atol=1e-12)


def test_audit_estimate_agrees_with_exact_divergence_n2():
    c, c_adj, k, eps = [5, 15], [6, 14], 20.0, 0.1
    exact = exact_hockey_stick_beta(c, c_adj, k, eps)
    r = audit_hockey_stick(c, c_adj, eps, k=k, samples=50_000, rng=7)
    # the estimate is a difference of two binomial proportions; 5 standard errors of
    # p_hat - e^eps q_hat (each proportion's SE is at most 0.5/sqrt(samples))
    se = np.sqrt(r.p_hat * (1 - r.p_hat) + np.exp(2 * eps) * r.q_hat * (1 - r.q_hat)) / np.sqrt(r.samples)
    assert abs(r.estimate - exact) < 5 * se + 1e-3 * exact, (r.estimate, exact)
    assert r.lower_bound <= exact


def test_correct_mechanism_is_not_refuted_at_theorem_1():
    k = 20.6
    eps, delta = dm.epsilon_paper(k, **PAPER), dm.delta(k, **PAPER)
    r = audit_hockey_stick(C, C_ADJ, eps, k=k, samples=100_000, rng=11)
    assert not r.refutes(delta)


def test_audit_catches_a_mechanism_with_too_little_noise():
    k = 20.6
    eps, delta = dm.epsilon_paper(k, **PAPER), dm.delta(k, **PAPER)

    def broken(c, size, gen):          # draws Dir(30 k C) but claims the guarantee of k
        return dm.privatize(c, 30 * k, rng=gen, size=size)
    r = audit_hockey_stick(C, C_ADJ, eps, mechanism=broken, samples=100_000, rng=11)
    assert r.refutes(delta), r


def test_audit_catches_a_wrong_formula():
    # a "formula" claiming delta = 1e-3 at eps = 0.1 for k = 20.6 is false: the true divergence is ~0.04
    r = audit_hockey_stick(C, C_ADJ, 0.1, k=20.6, samples=100_000, rng=3)
    assert r.refutes(1e-3)


def test_vector_epsilon_gives_one_result_each():
    out = audit_hockey_stick(C, C_ADJ, [0.1, 1.0], k=20.6, samples=1000, rng=0)
    assert [r.epsilon for r in out] == [0.1, 1.0]


def test_bad_input():
    with pytest.raises(ValueError, match="not adjacent"):
        log_ratio_statistic([8, 8, 8], [9, 9, 6])
    with pytest.raises(ValueError, match="k=None"):
        audit_hockey_stick(C, C_ADJ, 1.0)
    with pytest.raises(ValueError, match="alpha"):
        audit_hockey_stick(C, C_ADJ, 1.0, k=20.6, alpha=1.5)
    with pytest.raises(ValueError, match="samples"):
        audit_hockey_stick(C, C_ADJ, 1.0, k=20.6, samples=10)
