"""The registry's record type, verdicts, severities and look-ups (book: "Verification report")."""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable

import numpy as np


#: The five verdicts, from best to worst.
VERDICTS = ("holds", "holds but loose", "fails", "not reproducible",
            "inconsistent within the paper")
#: The severity each verdict carries, the same everywhere in the book: a verdict box in a
#: chapter shows the verdict and this word, both taken from here (``verdict_md``). A claim we
#: cannot check without the authors' data is a remark, not an erratum of the paper.
SEVERITY = {"holds": "confirmed", "holds but loose": "remark", "fails": "erratum",
            "not reproducible": "remark", "inconsistent within the paper": "erratum"}
#: How a claim was checked.
METHODS = ("symbolic", "high precision", "brute force", "Monte Carlo", "reproduction",
           "consistency")
#: What kind of support a verdict has, shown with it everywhere (``verdict_text``):
#: a proof (in the book, or symbolic), a counterexample, a computation of the paper's own
#: formulas at its own parameters, numerical evidence only (sampling or a finite search: no
#: counterexample found, nothing proved), the paper's own text, or data we do not have.
SUPPORTS = ("proof", "counterexample", "computation", "numerical evidence only",
            "the paper's own text", "data unavailable")
#: The default support of each method; a claim may state a stronger one (e.g. a proof in the book).
DEFAULT_SUPPORT = {"symbolic": "proof", "high precision": "computation",
                   "brute force": "computation", "Monte Carlo": "numerical evidence only",
                   "reproduction": "data unavailable", "consistency": "the paper's own text"}

# Section 6.1 (grade distribution): the paper's parameters.
GRADE = dict(eta=0.073, N=98, n=5, gamma=4e-4)
GRADE_MIN_COUNT = 8                       # ceil(0.073 * 98) = ceil(7.154): Assumption 3
K_GRID = np.round(np.arange(20.6, 110.6 + 1e-9, 1.0), 1)    # {20.6, 21.6, ..., 110.6}
# Section 6.2 (taxis)
TAXI_N_PAPER = 2_933_898
TAXI_GAMMA = 1e-8
SEED = 20260611                            # checks are seeded: for testing only

# Chapters (docnames under book/) that hold each part's evidence.
PRELIM = "preliminaries"
MECH = "dirichlet_mechanism"
CHAINS = "private_chains"
STAT = "stationary"
TAXI = "taxi_case_study"
REPORT = "verification_report"
AUDIT = "privacy_audit"
ERRATA = "errata"
# Privacy part (eq. 6, eq. 7, the exact worst case, the tight profile)
PRIV_LOSS = "privacy_loss"
PRIV_EPS = "worst_case"
PRIV_N2 = "worst_case"
PRIV_DELTA = "delta"
PRIV_PROFILE = "privacy_profile"
# Accuracy part (Theorem 2, Corollary 1, Section 6.1)
ACC = "expected_kl"
KLW = "kl_worst_case"
GRADES = "grades_case_study"


@dataclass(frozen=True)
class Claim:
    """One claim of the paper with its verdict and a check that recomputes the evidence.

    ``chapter`` is a docname under ``book/``; the test suite checks it is in ``_toc.yml``.
    """
    id: str
    ref: str
    claim: str
    method: str
    verdict: str
    evidence: str
    chapter: str
    check: Callable[[], tuple[dict, bool]] = field(repr=False, compare=False)
    support: str = ""

    @property
    def severity(self) -> str:
        """``SEVERITY[verdict]``: confirmed, remark or erratum."""
        return SEVERITY[self.verdict]

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict={self.verdict!r} of claim {self.id!r} must be one of "
                             f"{VERDICTS}")
        if self.method not in METHODS:
            raise ValueError(f"method={self.method!r} of claim {self.id!r} must be one of "
                             f"{METHODS}")
        if not self.support:
            object.__setattr__(self, "support", DEFAULT_SUPPORT[self.method])
        if self.support not in SUPPORTS:
            raise ValueError(f"support={self.support!r} of claim {self.id!r} must be one of "
                             f"{SUPPORTS}")


CLAIMS: list[Claim] = []


def add_claim(id, ref, claim, method, verdict, evidence, chapter, support=""):
    """Register the decorated function as the ``check`` of a new ``Claim``."""
    def register(fn):
        if any(c.id == id for c in CLAIMS):
            raise ValueError(f"id={id!r} is registered twice")
        CLAIMS.append(Claim(id, ref, claim, method, verdict, evidence, chapter, fn, support))
        return fn
    return register


def get(claim_id: str) -> Claim:
    """The claim with this id (``ValueError`` if there is none).  Book: "Verification report"."""
    for c in CLAIMS:
        if c.id == claim_id:
            return c
    raise ValueError(f"claim_id={claim_id!r} is not in the registry")


def verdict_text(claim_id: str) -> str:
    """The verdict line a chapter shows for a claim, with its severity and kind of support.

    E.g. ``**fails** (erratum; support: counterexample; claim `thm-1-n2`)``.  Chapters paste it
    through ``verdict_md``; no page types a verdict word by hand.
    """
    c = get(claim_id)
    return f"**{c.verdict}** ({c.severity}; support: {c.support}; claim `{c.id}`)"


def verdict_md(claim_id: str):
    """``verdict_text`` as Markdown to glue: ``glue("verdict-" + id, verdict_md(id), display=False)``

    and paste in the chapter's verdict box with ``{glue:md}`verdict-<id>:myst```.
    """
    from IPython.display import Markdown
    return Markdown(verdict_text(claim_id))


def run_all(claims=None):
    """Run every check; a list of ``(claim, evidence, supports_verdict)``.

    This is the table of the book's chapter "Verification report", which calls it.
    """
    out = []
    for c in (CLAIMS if claims is None else claims):
        evidence, ok = c.check()
        out.append((c, evidence, bool(ok)))
    return out


def format_evidence(evidence: dict) -> str:
    """``name=value`` pairs with 4 significant digits, for the verification report's table."""
    parts = []
    for key, value in evidence.items():
        if isinstance(value, (bool, np.bool_)):
            parts.append(f"{key}={bool(value)}")
        elif isinstance(value, (int, np.integer)):
            parts.append(f"{key}={int(value):,}")
        else:
            parts.append(f"{key}={float(value):.4g}")
    return ", ".join(parts)




def agrees(value, quoted: str, se: float = 0.0) -> bool:
    """True when ``value`` is the number an evidence sentence quotes, to the quote's last digit.

    The tolerance is derived, not chosen: half a unit in the last digit of ``quoted`` (the
    rounding of the quote), plus, for a Monte Carlo estimate with standard error ``se``,
    5 * sqrt(2) * se (the quote is itself one seeded estimate; a re-run with another stream
    differs from it by a difference of two independent estimates).  So a check pins the
    numbers its evidence prints instead of testing a one-sided inequality.
    """
    q = Decimal(quoted)
    half_ulp = 0.5 * 10.0 ** q.as_tuple().exponent
    return bool(abs(float(value) - float(q)) <= half_ulp * (1 + 1e-9) + 5 * 2 ** 0.5 * se)
