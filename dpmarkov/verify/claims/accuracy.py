"""Claims about accuracy: Theorem 2 and Corollary 1."""
from __future__ import annotations

import numpy as np

from ... import accuracy, mechanism, simplex
from .. import bruteforce, highprec
from ._core import SEED, ACC, KLW, add_claim, agrees
from ._shared import ILLUSTRATIVE_GRADES


# ============================================================================ Accuracy
@add_claim("thm-2", "Thm. 2, eq. (8)", "E[KL(C || C~)] = sum_i C_i (log C_i + psi(k) - psi(k C_i)).",
        "Monte Carlo", "holds",
        "40,000 draws agree within 5 standard errors; the mpmath twin to 1e-12; Theorem 1's "
        "conditions are not needed (the book derives eq. (8) from the Dirichlet law)", ACC,
        support="proof")
def _thm2():
    C = simplex.count_vector(ILLUSTRATIVE_GRADES)
    k = 20.6
    x = mechanism.privatize(ILLUSTRATIVE_GRADES, k, rng=SEED + 1, size=40_000)
    kl = accuracy.kl_divergence(C, x)
    closed = accuracy.expected_kl(C, k)
    z = (kl.mean() - closed) / (kl.std(ddof=1) / np.sqrt(len(kl)))
    twin = float(highprec.expected_kl(C, k))
    return (dict(closed_form=closed, monte_carlo=float(kl.mean()), z_score=float(z)),
            abs(z) < 5 and abs(twin - closed) < 1e-12)


@add_claim("cor-1", "Cor. 1", "E[KL] is largest at C = (1/N, ..., 1/N, 1-(n-1)/N), which gives "
        "the printed bound.", "brute force", "holds but loose",
        "the maximiser is right (exhaustive search), but it ignores Assumption 3: at the grade "
        "parameters the bound is 0.142 while the largest E[KL] of an allowed vector is 0.107",
        KLW)
def _cor1():
    N, n, k = 12, 3, 7.0
    best = max(accuracy.expected_kl(c / N, k) for c in bruteforce.compositions(N, n, 1))
    bound = accuracy.kl_bound(k, N, n)
    grade = accuracy.kl_bound(20.6, 98, 5)
    bordered = accuracy.kl_bound_bordered(20.6, 98, 5, 0.073)
    return (dict(bound_grade=grade, bordered_bound_grade=bordered),
            abs(best - bound) < 1e-12 and agrees(grade, "0.142") and agrees(bordered, "0.107"))


