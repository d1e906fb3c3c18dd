"""dpmarkov: differentially private Markov chain models with the Dirichlet mechanism.

The package behind the book that checks Benvenuti et al. (2026), "Differentially
Private Data-Driven Markov Chain Modeling" (arXiv 2602.22443).  One module per idea:

- ``simplex``: count vectors (eq. 3) and the (bordered) simplex (Defs 1-2)
- ``mechanism``: the Dirichlet mechanism (Def 5, Algorithm 1)
- ``privacy``: epsilon and delta of Theorem 1 (eqs. 6-7)
- ``accuracy``: expected KL divergence (Theorem 2, Corollary 1)
- ``verify``: high-precision and symbolic twins used by the tests and the book

Seeded randomness (``rng=0``) is for teaching and testing; a real release uses
the default ``rng=None`` (fresh OS entropy).
"""
from .accuracy import expected_kl, kl_bound, kl_divergence
from .mechanism import dirichlet_parameters, log_density, privatize
from .privacy import (delta, epsilon, epsilon_star, exit_probability_union, k_for_epsilon,
                      k_min, worst_counts)
from .simplex import check_assumption_3, count_vector, in_bordered_simplex, in_simplex

__version__ = "0.1.0"

__all__ = [
    "check_assumption_3", "count_vector", "delta", "dirichlet_parameters", "epsilon",
    "epsilon_star", "exit_probability_union", "expected_kl", "in_bordered_simplex",
    "in_simplex", "k_for_epsilon", "k_min", "kl_bound", "kl_divergence", "log_density",
    "privatize", "worst_counts",
]
