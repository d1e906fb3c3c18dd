"""Claims about accuracy: Theorem 2 and Corollary 1."""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from scipy.special import betaln
from scipy.stats import dirichlet as _scipy_dirichlet

from ... import accuracy, audit, chain, composition, loss, mechanism, privacy, profile, simplex
from ... import _checks
from .. import bruteforce, highprec
from ._core import (GRADE, GRADE_MIN_COUNT, K_GRID, TAXI_N_PAPER, TAXI_GAMMA, SEED,
                    PRELIM, MECH, CHAINS, STAT, TAXI, AUDIT, PRIV_LOSS, PRIV_EPS, PRIV_N2,
                    PRIV_DELTA, PRIV_PROFILE, ACC, KLW, GRADES, _claim, agrees)
from ._shared import *  # noqa: F401,F403  (helpers shared by the parts)
from ._shared import (_leaky_rr, _line, _SPECS, _joint, _taxi, _taxi_tv, _taxi_eps,
                      _delta_star, _eta_for_delta, _m_for_eps, _taxi_pairs)


# ============================================================================ Accuracy
@_claim("thm-2", "Thm. 2, eq. (8)", "E[KL(C || C~)] = sum_i C_i (log C_i + psi(k) - psi(k C_i)).",
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


@_claim("cor-1", "Cor. 1", "E[KL] is largest at C = (1/N, ..., 1/N, 1-(n-1)/N), which gives "
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


