"""Every claim of Benvenuti et al. (2026), with a verdict and a quick check that recomputes it.

A machine-readable registry for the book's verification report: each numbered
item of the paper (Definitions 1-7, Assumptions 1-6, Lemma 1, Theorems 1-5,
Corollary 1, Algorithms 1-2), every number of the abstract, Section 6 and the
figures, and the places where the paper contradicts itself.  Each ``Claim``
carries

- ``id``: a stable key (``"thm-1"``, ``"sec6.1-eps"``, ...);
- ``ref``: where the paper says it;
- ``claim``: what it says, in our words;
- ``method``: how we checked it (one of ``METHODS``);
- ``kind``: what is claimed, a definition, a statement or a number (``KINDS``);
- ``verdict``: what we conclude about its truth (``VERDICTS``);
- ``support``: how that conclusion is supported (``SUPPORTS``), with ``proof`` (the book's
  label of the proof) or ``checked`` (the range of numerical evidence); ``RULES`` says which
  support each verdict needs for each kind, so a statement is filed as true only with a proof;
- ``evidence``: a short sentence with the key numbers;
- ``chapter``: the book chapter (a notebook ``book/<chapter>.ipynb``) that recomputes and
  shows the evidence;
- ``check``: a callable that recomputes the evidence with ``dpmarkov`` in under two
  seconds and returns ``(evidence, supports_verdict)``: a dict of named numbers
  and a bool that is True when the recomputed numbers support the recorded verdict.

So a change in the package that flips a verdict makes ``check()`` return False, and
``tests/test_claims.py`` fails.  Monte Carlo checks are seeded (teaching/testing
only) and compare with tolerances of five standard errors.

The registry is split by part of the book, one module per part: ``foundations``
(definitions, assumptions), ``privacy`` (Theorem 1, eqs. (6)-(7), the audit),
``accuracy`` (Theorem 2, Corollary 1), ``chains`` (Lemma 1, Theorems 3-5, Algorithms),
``grades`` (Section 6.1) and ``taxi`` (Section 6.2).  This package collects them in one
list ``CLAIMS`` in that order.

Book: chapters "Verification report", "Privacy audit" and "Errata".
"""
from ._core import (CLAIMS, KINDS, METHODS, NOISE_BOUND, PROOFS, RULES, SEVERITY,
                    SEVERITY_WORDS, SUPPORT_WORDS, SUPPORTS, VERDICTS, Claim, GRADE,
                    GRADE_MIN_COUNT, K_GRID, SEED, TAXI_GAMMA, TAXI_N_PAPER, agrees,
                    format_evidence, get, is_rounding_noise, run_all, verdict_md,
                    verdict_record, verdict_text)
from ._shared import ILLUSTRATIVE_GRADES
from . import foundations, privacy, accuracy, chains, grades, taxi  # noqa: E402  (registers, in order)
from .privacy import AUDIT_ADJACENT, AUDIT_COUNTS
from .chains import STAT_SEED, THM4_COUNTS, THM4_K, THM5_COUNTS

#: Every paper item the registry must cover (tests/test_claims.py checks it).
REQUIRED_IDS = (
    "def-1", "def-2", "def-3", "def-4", "def-5", "def-6", "def-7",
    "asm-1", "asm-2", "asm-3", "asm-4", "asm-5", "asm-6",
    "lem-1", "thm-1", "thm-2", "thm-3", "thm-4", "thm-5", "cor-1", "alg-1", "alg-2",
    "abstract-2pct", "intro-6e-6",
    "sec6.1-N", "sec6.1-n", "sec6.1-eta", "sec6.1-gamma", "sec6.1-k-grid", "sec6.1-eps",
    "sec6.1-kl", "sec6.1-delta", "sec6.1-delta-3.31", "fig-1",
    "sec6.2-2.68", "sec6.2-N", "sec6.2-design", "sec6.2-3.73", "sec6.2-tv", "sec6.2-5.19",
    "fig-2", "fig-3",
    "sec6.2-strongest", "concl-3.73", "thm-4-Z",
)

# the documented API (the data constants are reachable as attributes, documented in the
# modules that define them)
__all__ = ["CLAIMS", "Claim", "get", "run_all", "verdict_text", "verdict_md", "verdict_record",
           "format_evidence", "agrees", "is_rounding_noise"]
