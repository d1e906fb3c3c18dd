"""A privacy audit: a Monte Carlo lower confidence bound on a mechanism's hockey-stick divergence.

For adjacent inputs c, c' a mechanism M is (eps, delta)-DP only if, for every
measurable set T,  P(M(c) in T) - e^eps P(M(c') in T) <= delta  (Definition 4).
The audit draws samples of M(c) and M(c') -- of the mechanism itself, not of a
formula -- and looks for a set T that breaks the claim:

1. a test statistic s(x) orders outputs from "looks like c" to "looks like c'"
   (by default the log-ratio of the two coordinates in which c and c' differ);
2. half of the samples choose the threshold t of T = {s(x) > t} that maximises
   the empirical P(M(c) in T) - e^eps P(M(c') in T);
3. the other half, independent of that choice, give Clopper-Pearson bounds on
   both probabilities, hence a one-sided lower confidence bound on the
   hockey-stick divergence at level 1 - alpha.

If the lower bound exceeds the claimed delta, the claim is refuted at
confidence 1 - alpha.  A lower bound below the claim refutes nothing; the book's
chapter "Privacy audit" (book/privacy_audit) shows that the audit does catch a
mechanism that is broken, and compares it with Theorem 1 and the tight profile.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import betaincc, expit
from scipy.stats import beta as beta_dist

from . import _checks
from .loss import adjacent_indices
from .mechanism import _generator, privatize


@dataclass(frozen=True)
class AuditResult:
    """Outcome of ``audit_hockey_stick`` for one epsilon."""
    epsilon: float
    threshold: float          # t in T = {s(x) > t}, chosen on the first half of the samples
    p_hat: float              # estimate of P(M(c) in T) on the second half
    q_hat: float              # estimate of P(M(c') in T) on the second half
    estimate: float           # p_hat - e^eps q_hat
    lower_bound: float        # one-sided (1 - alpha) lower confidence bound on the divergence
    alpha: float
    samples: int              # samples per input in the second half

    def refutes(self, claimed_delta: float) -> bool:
        """True when the lower confidence bound exceeds ``claimed_delta``."""
        return self.lower_bound > claimed_delta


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """Exact two-sided (1 - alpha) binomial confidence interval (Clopper-Pearson)."""
    lo = 0.0 if successes == 0 else beta_dist.ppf(alpha / 2, successes, trials - successes + 1)
    hi = 1.0 if successes == trials else beta_dist.ppf(1 - alpha / 2, successes + 1,
                                                       trials - successes)
    return float(lo), float(hi)


def log_ratio_statistic(counts, counts_adjacent):
    """s(x) = log x_j - log x_i, where c' = c + e_i - e_j (the record moves from j to i).

    Large s means "looks like c" (more mass on j).  Only the difference of the two
    inputs is used, not the mechanism's density.
    """
    c = np.asarray(counts, float)
    d = np.asarray(counts_adjacent, float) - c
    if not (np.count_nonzero(d) == 2 and d.sum() == 0 and np.abs(d).max() == 1):
        raise ValueError(f"counts={c.tolist()} and counts_adjacent={np.add(c, d).tolist()} "
                         "are not adjacent: one record must move between two categories "
                         "(Definition 3)")
    i, j = int(np.argmax(d)), int(np.argmin(d))

    def statistic(x):
        with np.errstate(divide="ignore"):
            return np.log(x[..., j]) - np.log(x[..., i])
    return statistic


def audit_hockey_stick(counts, counts_adjacent, epsilon, *, mechanism=None, k=None,
                       samples=100_000, alpha=1e-3, statistic=None, rng=None):
    """Monte Carlo (1 - alpha) lower confidence bound on the hockey-stick divergence.

    Parameters
    ----------
    counts, counts_adjacent : adjacent count vectors (Definition 3).
    epsilon : float or sequence of floats; one ``AuditResult`` per value.
    mechanism : callable ``(counts, size, rng) -> samples``; default ``dm.privatize``
        with parameter ``k`` (Algorithm 1).
    samples : samples per input in EACH half (so 2 * samples draws per input).
    alpha : one-sided error probability of the lower bound (split equally between
        the two Clopper-Pearson bounds).
    statistic : callable on samples; default ``log_ratio_statistic``.
    rng : None (fresh OS entropy) or a seed / Generator for a reproducible audit.
    """
    if mechanism is None:
        if k is None:
            raise ValueError("k=None: give the Dirichlet parameter k or a mechanism")
        k_value = float(_checks.positive("k", k))

        def mechanism(c, size, gen):
            return privatize(c, k_value, rng=gen, size=size)
    samples = int(_checks.integer_at_least("samples", samples, 100))
    alpha = float(_checks.positive("alpha", alpha))
    if alpha >= 1:
        raise ValueError(f"alpha={alpha!r} must be < 1")
    eps_values = np.atleast_1d(_checks.as_float_array("epsilon", epsilon))
    gen = _generator(rng)
    stat = statistic or log_ratio_statistic(counts, counts_adjacent)
    s_p = stat(mechanism(counts, 2 * samples, gen))
    s_q = stat(mechanism(counts_adjacent, 2 * samples, gen))
    choose_p, test_p = np.sort(s_p[:samples]), s_p[samples:]
    choose_q, test_q = np.sort(s_q[:samples]), s_q[samples:]
    # candidate thresholds: the chosen half's own sample points (plus -inf)
    candidates = np.concatenate([[-np.inf], choose_p])
    frac_p = 1 - np.searchsorted(choose_p, candidates, side="right") / samples
    frac_q = 1 - np.searchsorted(choose_q, candidates, side="right") / samples
    results = []
    for eps in eps_values:
        t = candidates[int(np.argmax(frac_p - np.exp(eps) * frac_q))]
        hits_p, hits_q = int(np.sum(test_p > t)), int(np.sum(test_q > t))
        p_lo, _ = clopper_pearson(hits_p, samples, alpha)
        _, q_hi = clopper_pearson(hits_q, samples, alpha)
        p_hat, q_hat = hits_p / samples, hits_q / samples
        results.append(AuditResult(float(eps), float(t), p_hat, q_hat,
                                   p_hat - np.exp(eps) * q_hat,
                                   p_lo - np.exp(eps) * q_hi, alpha, samples))
    return results if np.ndim(epsilon) else results[0]


def chosen_set_divergence(result, counts, counts_adjacent, k):
    """Exact P(T) - e^eps Q(T) for the set T = {s(x) > t} an audit of ``dm.privatize`` chose.

    For the Dirichlet mechanism (Definition 5) with the default statistic
    s(x) = log x_j - log x_i, where c' = c + e_i - e_j: s > t iff
    B = x_j / (x_i + x_j) > expit(t), and B is Beta(k c_j/N, k c_i/N) under Dir(k c/N)
    (aggregation property).  Returns ``(value, P(T), Q(T))``.  Because T was chosen
    on the other half of the samples, ``result.estimate`` is an unbiased estimate of
    ``value``, and ``value`` is at most the hockey-stick divergence (Definition 4):
    the book's tests compare the three.  Book: chapter "Privacy audit".
    """
    if not isinstance(result, AuditResult):
        raise TypeError(f"result={result!r} must be an AuditResult from audit_hockey_stick")
    k = float(_checks.positive("k", k))
    i, j = adjacent_indices(counts, counts_adjacent)
    c = np.asarray(counts, float)
    cp = np.asarray(counts_adjacent, float)
    if min(c[i], c[j], cp[i], cp[j]) <= 0:
        raise ValueError(f"counts={c.tolist()} and counts_adjacent={cp.tolist()} need positive "
                         "counts in the two categories that change (Dir(k*C) is undefined at 0)")
    N = c.sum()
    u = expit(result.threshold)
    p_set = float(betaincc(k * c[j] / N, k * c[i] / N, u))
    q_set = float(betaincc(k * cp[j] / N, k * cp[i] / N, u))
    return p_set - float(np.exp(result.epsilon)) * q_set, p_set, q_set
