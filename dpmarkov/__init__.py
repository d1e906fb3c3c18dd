"""dpmarkov: differentially private Markov chain models with the Dirichlet mechanism.

The package behind the book that checks Benvenuti et al. (2026), "Differentially
Private Data-Driven Markov Chain Modeling" (arXiv 2602.22443).  One module per idea:

- ``simplex``: count vectors (eq. 3) and the (bordered) simplex (Defs 1-2)
- ``mechanism``: the Dirichlet mechanism (Def 5, Algorithm 1)
- ``privacy``: epsilon and delta of Theorem 1 (eqs. 6-7)
- ``loss``: the privacy loss, its exact worst case, a corrected eq. (6)
- ``profile``: the tight privacy profile delta(epsilon) (hockey-stick divergence)
- ``accuracy``: expected KL divergence (Theorem 2, Corollary 1)
- ``chain``: transition counts, Algorithm 2, stationary distribution, Def 7, Theorems 4-5
- ``composition``: parallel composition (Lemma 1, Theorem 3), exact discrete tools
- ``baselines``: Laplace, geometric and analytic Gaussian releases, simplex projection,
  and the Dirichlet mechanism calibrated to a target (epsilon, delta) (Section 1)
- ``verify``: high-precision and symbolic twins used by the tests and the book

Internal modules (not exported; their names without a leading underscore are the interface
the modules above share): ``_checks`` (the input policy and the ``public`` boundary),
``_numerics`` (certified increments of log Gamma with error bounds, outward rounding,
safe-side roots, Beta tails in logs) and ``_pairs`` (adjacent count vectors, the
hockey-stick divergence of one pair, the exact search for the worst pair).

Seeded randomness (``rng=0``) is for teaching and testing; a real release uses
the default ``rng=None`` (fresh OS entropy).
"""
from . import baselines
from .accuracy import (coordinate_variance, expected_kl, expected_l1, expected_tv,
                       expected_tv_bound, k_for_kl, kl_bound, kl_bound_bordered, kl_divergence,
                       tail_bound, tail_bound_subgaussian)
from .audit import audit_hockey_stick
from .chain import (check_counts, check_feasible_observed, check_irreducible, check_stochastic,
                    check_support,
                    dobrushin_coefficient, ergodicity_bound, ergodicity_bound_corrected,
                    ergodicity_coefficient, fundamental_matrix, iter_privatize_chain,
                    privatize_chain, row_eta, row_kl_bounds, stationary_distribution,
                    stationary_tv_bound, stationary_tv_bound_corrected, transition_counts,
                    transition_counts_from_pairs)
from .composition import (ChainPrivacy, chain_privacy, check_support, compose_parallel,
                          hockey_stick_discrete, parallel_adjacency, probabilistic_delta,
                          profile_discrete)
from .mechanism import dirichlet_parameters, log_density, privatize
from .loss import (adjacent_indices, epsilon_corrected, epsilon_exact, loss_data_term,
                   privacy_loss, worst_pair)
from .privacy import (bound_name, delta, epsilon, epsilon_paper, epsilon_star, epsilon_star_paper,
                      exit_probability_bounds, exit_probability_exact, exit_probability_union,
                      k_for_epsilon,
                      k_for_epsilon_paper, k_min, min_count, worst_counts)
from .renyi import rdp_epsilon, rdp_pairs, rdp_to_dp, renyi_divergence
from .profile import (epsilon_for_delta, hockey_stick, pair_profile, privacy_profile, profile_pairs,
                      two_category_search)
from .simplex import check_assumption_3, count_vector, in_bordered_simplex, in_simplex

__version__ = "0.1.0"

__all__ = [
    "coordinate_variance", "expected_l1", "expected_tv", "expected_tv_bound", "k_for_kl",
    "kl_bound_bordered", "tail_bound", "tail_bound_subgaussian",
    "baselines",
    "audit_hockey_stick", "check_assumption_3", "count_vector", "delta", "dirichlet_parameters", "epsilon",
    "epsilon_star", "epsilon_paper", "epsilon_star_paper", "k_for_epsilon_paper",
    "exit_probability_union", "expected_kl", "in_bordered_simplex",
    "in_simplex", "k_for_epsilon", "k_min", "kl_bound", "kl_divergence", "log_density",
    "privatize", "worst_counts", "bound_name", "exit_probability_bounds", "min_count",
    # privacy part: exact worst case, exact delta, tight privacy profile
    "adjacent_indices", "epsilon_corrected", "epsilon_exact", "epsilon_for_delta",
    "exit_probability_exact", "hockey_stick", "loss_data_term", "privacy_loss",
    "privacy_profile", "profile_pairs", "worst_pair", "pair_profile", "two_category_search",
    # Markov chains: Algorithm 2, Lemma 1, Theorems 3-5
    "ChainPrivacy", "chain_privacy", "check_support", "check_counts", "check_feasible_observed",
    "check_irreducible", "check_stochastic", "compose_parallel", "dobrushin_coefficient",
    "ergodicity_bound", "ergodicity_bound_corrected", "ergodicity_coefficient",
    "fundamental_matrix", "hockey_stick_discrete", "iter_privatize_chain",
    "parallel_adjacency", "privatize_chain", "probabilistic_delta", "profile_discrete",
    "row_eta", "row_kl_bounds",
    # many releases: Renyi DP (accounting with dp_accounting: dpmarkov.accounting)
    "rdp_epsilon", "rdp_pairs", "rdp_to_dp", "renyi_divergence", "stationary_distribution", "stationary_tv_bound",
    "stationary_tv_bound_corrected", "transition_counts", "transition_counts_from_pairs",
]


def __getattr__(name):
    """``dm.datasets`` and ``dm.accounting`` are imported on first use (they need pandas and
    dp_accounting; the core does not)."""
    if name in ("datasets", "accounting"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'dpmarkov' has no attribute {name!r}")
