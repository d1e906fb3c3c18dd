"""The registry's record type, verdicts, severities and look-ups (book: "Verification report")."""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable

import re

import numpy as np


#: The verdicts, from best to worst: what we conclude about a claim's *truth*. How that
#: conclusion is supported is a separate field (``SUPPORTS``), and ``RULES`` says which support
#: each verdict needs for each kind of claim: a statement is filed as true only with a proof.
VERDICTS = ("holds", "holds but loose", "supported numerically, not proved", "fails",
            "not reproducible", "inconsistent within the paper")
#: The severity each verdict carries, the same everywhere in the book: a verdict box in a
#: chapter shows the verdict and this word, both taken from here (``verdict_md``). A claim we
#: cannot check without the authors' data, or can only support numerically, is a remark, not an
#: erratum of the paper.
SEVERITY = {"holds": "confirmed", "holds but loose": "remark",
            "supported numerically, not proved": "remark", "fails": "erratum",
            "not reproducible": "remark", "inconsistent within the paper": "erratum"}
#: What is claimed: a definition (also an assumption, an algorithm or a parameter choice:
#: nothing to prove, the verdict says whether it is well posed and adequate), a statement (a
#: theorem, lemma, corollary, step of a proof, rate or trend over a range of inputs: true only
#: with a proof), or a number (a figure at stated parameters or from stated data).
KINDS = ("definition", "statement", "number")
#: How a verdict is supported, shown with it everywhere (in words by ``verdict_text``): a
#: proof in the book (``proof`` names its label), the paper's own proof read step by step, a
#: counterexample, a computation (the paper's formulas evaluated exactly, with a
#: high-precision or exhaustive twin), numerical evidence only (sampling or a finite search
#: over the range ``checked``: no counterexample found, nothing proved), the definition itself
#: (the check tests that the package implements it), the paper's own text, or data we do not
#: have.
SUPPORTS = ("our proof", "the paper's proof, checked step by step", "counterexample",
            "computation", "numerical evidence only", "definition", "the paper's own text",
            "data unavailable")
PROOFS = ("our proof", "the paper's proof, checked step by step")
#: RULES[verdict][kind]: the supports that may carry that verdict for that kind of claim
#: (tests/test_claims.py enforces it for every claim; ``Claim`` refuses any other pairing).
RULES = {
    "holds": {"definition": ("definition", "computation") + PROOFS,
              "statement": PROOFS,
              "number": ("computation",) + PROOFS},
    "supported numerically, not proved": {"statement": ("numerical evidence only",)},
    "fails": {"definition": ("counterexample", "computation"),
              "statement": ("counterexample",) + PROOFS,
              "number": ("computation",) + PROOFS},
    "not reproducible": {"number": ("data unavailable",)},
    "inconsistent within the paper": {"number": ("the paper's own text", "computation"),
                                      "statement": ("the paper's own text", "computation")},
}
RULES["holds but loose"] = RULES["holds"]
#: How a claim was checked (the kind of computation its ``check`` runs).
METHODS = ("symbolic", "high precision", "brute force", "Monte Carlo", "reproduction",
           "consistency")

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
STAT_BOUNDS = "stationary_bounds"
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
    """One claim of the paper with its verdict, its support and a check that recomputes the evidence.

    ``chapter`` is the docname under ``book/`` of the chapter that recomputes and shows the
    evidence; the test suite checks it is in ``_toc.yml``.  ``kind`` is what is claimed
    (``KINDS``), ``verdict`` what we conclude (``VERDICTS``), ``support`` how (``SUPPORTS``);
    ``RULES`` says which support each verdict needs for each kind.  ``proof`` names the book's
    label(s) of the proof when the support is a proof (comma-separated); ``checked`` states
    the range checked when the support is numerical evidence only.
    """
    # [book:Claim]
    id: str
    ref: str
    claim: str
    method: str
    verdict: str
    evidence: str
    chapter: str
    check: Callable[[], tuple[dict, bool]] = field(repr=False, compare=False)
    support: str = ""
    kind: str = ""
    proof: str = ""
    checked: str = ""
    # [/book:Claim]

    @property
    def severity(self) -> str:
        """``SEVERITY[verdict]``: confirmed, remark or erratum."""
        return SEVERITY[self.verdict]

    def __post_init__(self):
        for name, allowed in (("verdict", VERDICTS), ("method", METHODS), ("kind", KINDS),
                              ("support", SUPPORTS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}={getattr(self, name)!r} of claim {self.id!r} must be "
                                 f"one of {allowed}")
        allowed = RULES[self.verdict].get(self.kind, ())
        if self.support not in allowed:
            raise ValueError(f"support={self.support!r} of claim {self.id!r} cannot carry the "
                             f"verdict {self.verdict!r} for a {self.kind}: it needs one of "
                             f"{allowed} (RULES)")
        if (self.support in PROOFS) != bool(self.proof):
            raise ValueError(f"proof={self.proof!r} of claim {self.id!r}: a proof's label is "
                             f"given exactly when the support is a proof {PROOFS}")
        if (self.support == "numerical evidence only") != bool(self.checked):
            raise ValueError(f"checked={self.checked!r} of claim {self.id!r}: the range checked "
                             f"is stated exactly when the support is numerical evidence only")


CLAIMS: list[Claim] = []


def add_claim(id, ref, claim, method, verdict, evidence, chapter, *, kind, support, proof="",
           checked=""):
    """Register the decorated function as the ``check`` of a new ``Claim``."""
    def register(fn):
        if any(c.id == id for c in CLAIMS):
            raise ValueError(f"id={id!r} is registered twice")
        CLAIMS.append(Claim(id, ref, claim, method, verdict, evidence, chapter, fn, support,
                            kind, proof, checked))
        return fn
    return register


def get(claim_id: str) -> Claim:
    """The claim with this id (``ValueError`` if there is none).  Book: "Verification report"."""
    for c in CLAIMS:
        if c.id == claim_id:
            return c
    raise ValueError(f"claim_id={claim_id!r} is not in the registry")


#: How each severity reads in a chapter's verdict box (``verdict_text``).
SEVERITY_WORDS = {"confirmed": "confirmed", "remark": "a remark",
                  "erratum": "an erratum of the paper"}
#: How each kind of support reads in a chapter's verdict box (``verdict_text``): the evidence
#: in words.  The codes themselves (``SUPPORTS``) are the verification report's table's.
SUPPORT_WORDS = {
    "our proof": "proved in this book",
    "the paper's proof, checked step by step": "the paper's proof, checked step by step",
    "counterexample": "shown by a counterexample",
    "computation": "checked by computation with the paper's formulas",
    "numerical evidence only": "checked numerically on",
    "definition": "true by definition, and implemented as stated",
    "the paper's own text": "shown by the paper's own statements, side by side",
    "data unavailable": "it needs data the book does not have",
}


def verdict_text(claim_id: str) -> str:
    """The verdict a chapter shows for a claim: what holds and on what evidence, in words.

    The words come from the registry's fields: the verdict, its severity
    (``SEVERITY_WORDS``) and its support (``SUPPORT_WORDS``), with a link to the book's
    proof when the support is one and the range checked when it is numerical evidence only.
    Registry ids and support codes stay in the verification report's table
    (``verdict_record``).  Chapters paste it through ``verdict_md``; no page types a verdict
    word by hand.

    Parameters
    ----------
    claim_id : str
        A registered claim's id.

    Returns
    -------
    str
        MyST markdown (a proof is a ``{prf:ref}`` to its label).

    Raises
    ------
    ValueError
        If no claim has this id.

    Examples
    --------
    >>> verdict_text("thm-1-n2")
    '**fails**, an erratum of the paper; shown by a counterexample'
    >>> verdict_text("thm-2")
    '**holds**, confirmed; proved in this book ({prf:ref}`prop-thm2-general`)'
    """
    c = get(claim_id)
    evidence = SUPPORT_WORDS[c.support]
    if c.proof:
        evidence += " (" + ", ".join(f"{{prf:ref}}`{label.strip()}`"
                                     for label in c.proof.split(",")) + ")"
    if c.checked:
        evidence += f" {c.checked}"
    return f"**{c.verdict}**, {SEVERITY_WORDS[c.severity]}; {evidence}"


def verdict_record(claim_id: str) -> str:
    """The registry's record of a verdict, for the verification report's table of claims.

    Verdict, severity, support code (with the range checked) and id, e.g. ``**fails**
    (erratum; support: counterexample; claim `thm-1-n2`)``.  Chapters show ``verdict_text``.

    Parameters
    ----------
    claim_id : str
        A registered claim's id.

    Returns
    -------
    str
        Markdown: the verdict in bold, then severity, support code and id in parentheses.

    Raises
    ------
    ValueError
        If no claim has this id.

    Examples
    --------
    >>> verdict_record("thm-1-n2")
    '**fails** (erratum; support: counterexample; claim `thm-1-n2`)'
    """
    c = get(claim_id)
    support = f"{c.support}, checked on {c.checked}" if c.checked else c.support
    return f"**{c.verdict}** ({c.severity}; support: {support}; claim `{c.id}`)"


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


#: Evidence entries whose name says they are rounding-error sizes (a residual, a largest
#: error, a gap between two evaluations of one number, a float minus its 30-digit value):
#: their digits depend on the CPU and the library versions, so they are shown as a bound.
NOISE_KEY = re.compile(r"error|gap|_minus_")
#: The bound such entries are shown under (each check asserts its own, tighter, tolerance).
NOISE_BOUND = 1e-12


def is_rounding_noise(key: str) -> bool:
    """True when the evidence entry ``key`` is a rounding-error size (see ``NOISE_KEY``)."""
    return bool(NOISE_KEY.search(key))


def format_evidence(evidence: dict) -> str:
    """``name=value`` pairs with 4 significant digits, for the verification report's table.

    Rounding-error sizes (``is_rounding_noise``) are shown as "below 1e-12", the same on
    every machine (``dpmarkov.display.below`` raises if one is not).
    """
    from ...display import below
    parts = []
    for key, value in evidence.items():
        if is_rounding_noise(key) and not isinstance(value, (bool, np.bool_)):
            parts.append(f"{key} {below(value, NOISE_BOUND)}")
        elif isinstance(value, (bool, np.bool_)):
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
    tolerance = half_ulp * (1 + 1e-9) + 5 * 2 ** 0.5 * se
    return bool(abs(float(value) - float(q)) <= tolerance)
