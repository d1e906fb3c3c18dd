"""Helpers shared by several parts of the claims registry (small designs, the taxi chain)."""
from __future__ import annotations

from functools import lru_cache


import numpy as np

from ... import chain, composition, privacy, stationary
from ._core import SEED, TAXI_GAMMA

__all__ = ["ILLUSTRATIVE_GRADES"]

_N_BIG = 10**12                            # "continuous" eta: eta*N a whole number, N huge


# ----------------------------------------------------------------------------- helpers
def leaky_rr(N, eps0, leak):
    """A discrete (eps0, leak)-probabilistically private row (book: private_chains)."""
    m = N + 1
    rr = np.ones((m, m))
    rr[np.diag_indices(m)] = np.exp(eps0)
    rr /= rr.sum(axis=1, keepdims=True)
    return np.hstack([(1 - leak) * rr, leak * np.eye(m)])


def line_chain(N):
    return np.array([(c, c + 1) for c in range(N)])


JOINT_SPECS = [(2, 1.1, 0.02), (3, 0.4, 0.05), (2, 0.7, 0.03)]     # three rows (N_i, eps_i, delta_i)


@lru_cache(maxsize=None)
def joint_chain():
    rows = [leaky_rr(*s) for s in JOINT_SPECS]
    joint = composition.compose_parallel(*rows)
    pairs = composition.parallel_adjacency([line_chain(N) for N, _, _ in JOINT_SPECS],
                                           [N + 1 for N, _, _ in JOINT_SPECS])
    return rows, joint, pairs


@lru_cache(maxsize=None)
def taxi_chain():
    """The book's Manhattan chain (TLC sample, t = 15, >= 100 departures; taxi chapter).

    Cached, like the taxi Monte Carlo below: loading and sampling happen once per session.
    """
    from ...datasets import load_taxi_counts, prepare_chain
    counts_all, _ = load_taxi_counts("Manhattan")
    K, _ = prepare_chain(counts_all, min_count=15, min_row=100)
    eta = chain.row_eta(K)
    return float(counts_all.sum()), K, eta, 1.5 / eta


@lru_cache(maxsize=None)
def taxi_tv(scale: float, draws: int = 200):
    """Monte Carlo E||pi - pi~||_TV of the taxi chain at k_i = scale * k_min,i."""
    _, K, _, kmin = taxi_chain()
    pi = stationary.stationary_distribution(K / K.sum(axis=1, keepdims=True))
    pis = stationary.stationary_distribution(chain.privatize_chain(K, scale * kmin, support=K > 0, size=draws,
                                                              rng=SEED))
    tv = 0.5 * np.abs(pis - pi).sum(axis=-1)
    return float(tv.mean()), float(tv.std(ddof=1) / np.sqrt(draws))


@lru_cache(maxsize=None)
def taxi_spread(scale: float, draws: int = 1000):
    """z-score of the releases' total variance against Dir(k_i C_i)'s, taxi chain at scale * k_min.

    Row i of a release is Dir(k_i C_i), so sum_j Var(P~_ij) = (1 - sum_j C_ij^2)/(k_i + 1);
    the sum over rows is compared with the sum of the sample variances of the ``draws``
    releases (the seed of ``taxi_tv``).  The standard error is the delta method's: the
    total sample variance is the mean of d_r = sum_ij (P~_rij - mean_ij)^2 (times M/(M-1)),
    so its standard error is std(d_r)/sqrt(M), estimated from the same draws.  Measured: every
    k_i 5 % too large moves z to -12, the rows' k_i in reverse order to about +20.
    """
    _, K, _, kmin = taxi_chain()
    k = scale * kmin
    C = K / K.sum(axis=1, keepdims=True)
    theory = float(((1 - (C * C).sum(axis=1)) / (k + 1)).sum())
    P = chain.privatize_chain(K, k, support=K > 0, size=draws, rng=SEED)
    d = ((P - P.mean(axis=0)) ** 2).sum(axis=(1, 2)) * draws / (draws - 1)
    return float((d.mean() - theory) / (d.std(ddof=1) / np.sqrt(draws)))


def clear_caches():
    """Forget the cached chains and Monte Carlo (a test that plants a bug must see them anew)."""
    for f in (joint_chain, taxi_chain, taxi_tv, taxi_spread):
        f.cache_clear()


def taxi_eps(scale: float) -> float:
    _, K, eta, kmin = taxi_chain()
    return composition.chain_privacy(K, scale * kmin, eta, TAXI_GAMMA,
                        support=K > 0).epsilon


def delta_star(eta, n, s=1.0):
    """delta of eq. (7) at k = s * 3/(2 eta), with eta*N whole for a huge N (taxi chapter)."""
    eta = round(eta * _N_BIG) / _N_BIG
    return privacy.delta(s * 1.5 / eta, eta, _N_BIG, n, TAXI_GAMMA)


def brentq(f, a, b, **options):
    """scipy.optimize.brentq, imported on first use (scipy.optimize costs 0.7 s to import)."""
    from scipy.optimize import brentq as scipy_brentq
    return scipy_brentq(f, a, b, **options)


def eta_for_delta(target, n):
    f = lambda le: np.log(delta_star(np.exp(le), n)) - np.log(target)   # noqa: E731
    return float(np.exp(brentq(f, np.log(1e-10), np.log(0.9 / n), xtol=1e-13)))


def m_for_eps(target, eta, n):
    """The (real) rarest count m at which a row of share eta has eps* = target."""
    f = lambda m: privacy.epsilon_paper(1.5 / eta, eta, round(m / eta), n, TAXI_GAMMA) - target  # noqa
    return brentq(f, 2.0, 1e4, xtol=1e-6)


def taxi_pair(eps_, delta_):
    """What eqs. (6)-(7) say about one of the paper's taxi (eps, delta) pairs (n_i = 65):
    (2.68, 0.0214), (3.73, 3e-6) or (3.73, 6e-6).

    Not cached, so that a change of eq. (6) or (7) shows up in every check that uses it.
    """
    e_ = eta_for_delta(delta_, 65)
    m_ = m_for_eps(eps_, e_, 65)
    return dict(eta=e_, m=m_, N_row=m_ / e_, delta_14=delta_star(e_, 65, 1.4))


ILLUSTRATIVE_GRADES = np.array([30, 33, 19, 8, 8.0])     # N = 98, every count >= 8 (intro)
