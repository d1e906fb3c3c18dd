"""Baseline mechanisms for releasing a count vector, to compare with the Dirichlet mechanism.

The paper (Section 1) sets additive-noise mechanisms aside for simplex-valued queries:
their outputs can leave the simplex, and projecting them back is reported to cost
accuracy (Gohari et al. 2021).  This module implements them, with their privacy
accounting, so the book can compare them at matched (epsilon, delta).
Book: chapters "Baselines at matched privacy" (book/baselines.ipynb: the mechanisms,
their calibration and checks) and "Baselines on real data" (book/baselines_experiments.ipynb).

Adjacency is the paper's (Definition 3): one record changes its category inside a row,
and the row's size N is public.  The count vector c (whole numbers, summing to N) then
moves by +1 in one entry and -1 in another, so

- the L1 sensitivity of c is 2 (2/N on the proportions C = c/N),
- the L2 sensitivity of c is sqrt(2).

Mechanisms (each takes counts of shape (..., n); a stack of rows is a Markov-chain count
matrix, privatised row by row, and by parallel composition the whole release keeps the
per-row guarantee):

- ``laplace_clip``, ``laplace_project``: Laplace noise of scale 2/epsilon on the counts,
  pure epsilon-DP (Dwork et al. 2006), then clip-and-renormalise or Euclidean projection.
- ``geometric_clip``, ``geometric_project``: two-sided geometric (discrete Laplace) noise
  with ratio exp(-epsilon/2), pure epsilon-DP, then clip or project.
- ``gaussian_project``: the analytic Gaussian mechanism (Balle & Wang 2018), sigma from
  the exact (epsilon, delta) condition, then projection.
- ``privatize_rows``: any of these applied to a transition-count matrix, row by row on
  the public support (Assumption 6), as Algorithm 2 does for the Dirichlet mechanism.
- ``dirichlet_k_theorem1``, ``dirichlet_k_tight``: the largest Dirichlet parameter k that
  meets a target (epsilon, delta) through Theorem 1 (eqs. 6-7) or through the exact
  privacy profile (``dpmarkov.profile``).

Post-processing (clipping, projection, the uniform fallback) never weakens differential
privacy, so every released vector keeps its noise's guarantee.

Randomness: ``rng=None`` (the default) draws fresh OS entropy, which is what a real
release must use; a seed is for teaching and testing only.

One module per idea: ``projection`` (back onto the simplex), ``laplace`` (floating-point
Laplace, for comparison, and the attack on it), ``geometric`` (exact integer noise),
``gaussian`` (the analytic Gaussian), ``rows`` (a chain row by row) and ``calibration``
(the Dirichlet mechanism at a target (epsilon, delta)); every public name is importable
from ``dpmarkov.baselines`` itself.
"""
from ._common import L1_SENSITIVITY, L2_SENSITIVITY
from .calibration import certify_theorem1_calibration, dirichlet_k_theorem1, dirichlet_k_tight
from .gaussian import (analytic_gaussian_delta, analytic_gaussian_sigma, gaussian_counts_comparison,
                       gaussian_project_comparison)
from .geometric import (discrete_laplace_parameter, geometric_clip, geometric_counts,
                        geometric_project, geometric_ratio)
from .laplace import (laplace_clip_comparison, laplace_counts_comparison, laplace_float_attack,
                      laplace_project_comparison, laplace_scale, numpy_laplace_noise)
from .projection import clip_to_simplex, project_to_simplex
from .rows import privatize_rows

__all__ = [
    "L1_SENSITIVITY", "L2_SENSITIVITY",
    "project_to_simplex", "clip_to_simplex",
    "laplace_scale", "laplace_counts_comparison", "laplace_clip_comparison",
    "laplace_project_comparison", "numpy_laplace_noise", "laplace_float_attack",
    "discrete_laplace_parameter", "geometric_ratio", "geometric_counts", "geometric_clip",
    "geometric_project",
    "analytic_gaussian_delta", "analytic_gaussian_sigma", "gaussian_counts_comparison",
    "gaussian_project_comparison",
    "privatize_rows",
    "dirichlet_k_theorem1", "dirichlet_k_tight", "certify_theorem1_calibration",
]
