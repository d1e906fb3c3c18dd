"""dpmarkov: differentially private Markov chain models with the Dirichlet mechanism.

The package behind the book that checks Benvenuti et al. (2026), "Differentially
Private Data-Driven Markov Chain Modeling" (arXiv 2602.22443).  One module per idea:

- ``simplex``: count vectors (eq. 3) and the (bordered) simplex (Defs 1-2)
- ``mechanism``: the Dirichlet mechanism (Def 5, Algorithm 1)
- ``privacy``: epsilon of Theorem 1 (eq. 6), sound by default, and its inverse
- ``exit_probability``: delta of Theorem 1 (eq. 7): the probability of leaving Omega_1
- ``loss``: the privacy loss, its exact worst case, a corrected eq. (6)
- ``profile``: the tight privacy profile delta(epsilon) (hockey-stick divergence)
- ``accuracy``: expected KL divergence (Theorem 2, Corollary 1)
- ``chain``: transition counts and their checks, Algorithm 2 (Section 4)
- ``stationary``: the stationary distribution (GTH) and the fundamental matrix (Section 5)
- ``ergodicity``: ergodicity coefficients (Def 7) and the bounds of Theorems 4-5
- ``composition``: parallel composition (Lemma 1, Theorem 3), exact discrete tools
- ``baselines``: Laplace, geometric and analytic Gaussian releases, simplex projection,
  and the Dirichlet mechanism calibrated to a target (epsilon, delta) (Section 1)
- ``verify``: high-precision and symbolic twins used by the tests and the book

Internal modules (not exported; their names without a leading underscore are the interface
the modules above share): ``_checks`` (the input policy and the ``public`` boundary),
``_numerics`` (certified increments of log Gamma with error bounds, outward rounding,
safe-side roots, Beta tails in logs) and ``_pairs`` (adjacent count vectors, the
hockey-stick divergence of one pair, the exact search for the worst pair).  ARCHITECTURE.md gives the
layers, bottom to top, and where a new function belongs.

Seeded randomness (``rng=0``) is for teaching and testing; a real release uses
the default ``rng=None`` (fresh OS entropy).

Imports are lazy (PEP 562): ``import dpmarkov`` loads nothing else, and ``dm.epsilon`` (or any
name of ``__all__``) imports its module, with what that module needs, on first use; so a
notebook pays only for the modules it uses.  ``dir(dpmarkov)`` and ``__all__`` list every name.
"""
import importlib as _importlib

__version__ = "0.1.0"

#: Where each public name lives: the module that defines it (imported on first use).
_EXPORTS = {
    "accuracy": ("coordinate_variance", "expected_kl", "expected_l1", "expected_tv",
                 "expected_tv_bound", "k_for_kl", "kl_bound", "kl_bound_bordered",
                 "kl_divergence", "tail_bound", "tail_bound_subgaussian"),
    "audit": ("audit_hockey_stick",),
    "chain": ("check_counts", "check_feasible_observed", "check_irreducible", "check_stochastic",
              "check_support", "iter_privatize_chain", "privatize_chain", "row_eta", "row_kl_bounds",
              "transition_counts", "transition_counts_from_pairs"),
    "composition": ("ChainPrivacy", "chain_privacy", "compose_parallel",
                    "hockey_stick_discrete", "parallel_adjacency", "probabilistic_delta",
                    "profile_discrete"),
    "ergodicity": ("dobrushin_coefficient", "ergodicity_bound", "ergodicity_bound_corrected",
                   "ergodicity_coefficient", "stationary_tv_bound",
                   "stationary_tv_bound_corrected"),
    "exit_probability": ("delta", "exit_probability_bounds", "exit_probability_exact",
                         "exit_probability_union", "min_count", "worst_counts"),
    "loss": ("adjacent_indices", "epsilon_corrected", "epsilon_exact", "loss_data_term",
             "privacy_loss", "worst_pair"),
    "mechanism": ("dirichlet_parameters", "log_density", "privatize"),
    "privacy": ("bound_name", "epsilon", "epsilon_paper", "epsilon_star", "epsilon_star_paper",
                "k_for_epsilon", "k_for_epsilon_paper", "k_min"),
    "profile": ("epsilon_for_delta", "hockey_stick", "pair_profile", "privacy_profile",
                "profile_pairs", "two_category_search"),
    "renyi": ("rdp_epsilon", "rdp_pairs", "rdp_to_dp", "renyi_divergence"),
    "simplex": ("check_assumption_3", "count_vector", "in_bordered_simplex", "in_simplex"),
    "stationary": ("fundamental_matrix", "stationary_distribution"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
#: The package's public modules and subpackages, reachable as ``dm.<name>`` (imported on first
#: use); ``baselines`` is also in ``__all__``.
_SUBMODULES = frozenset(_EXPORTS) | {"accounting", "baselines", "datasets", "display", "verify"}

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
    """Import a public name's module on first use (PEP 562) and keep the name here."""
    if name in _WHERE:
        value = getattr(_importlib.import_module(f".{_WHERE[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = _importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'dpmarkov' has no attribute {name!r}")
    globals()[name] = value            # the next lookup is an ordinary attribute
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)
