"""The claims registry (dpmarkov/verify/claims.py): every verdict is a test.

For each claim of the paper, ``check()`` recomputes the evidence with dpmarkov and
must support the recorded verdict, so a code change that flips a verdict fails here.
Further tests: every paper item is covered, every chapter named exists in the toc,
the checks do notice a wrong formula or a broken sampler, and the audit catches
mechanisms that break their claimed guarantee.
"""
from pathlib import Path

import numpy as np
import pytest
import yaml

import dpmarkov as dm
from dpmarkov import mechanism, privacy
from dpmarkov.audit import audit_hockey_stick, chosen_set_divergence
from dpmarkov.verify import claims as cl

ROOT = Path(__file__).resolve().parents[1]


def _toc_files(node):
    if isinstance(node, dict):
        out = [node[key] for key in ("file", "root") if key in node]
        return out + [f for v in node.values() if isinstance(v, (list, dict)) for f in _toc_files(v)]
    if isinstance(node, list):
        return [f for item in node for f in _toc_files(item)]
    return []


TOC = {Path(f).with_suffix("").as_posix() for f in _toc_files(yaml.safe_load((ROOT / "_toc.yml").read_text()))}


@pytest.mark.parametrize("claim", cl.CLAIMS, ids=lambda c: c.id)
def test_check_reproduces_the_verdict(claim):
    evidence, ok = claim.check()
    assert ok, f"{claim.id}: recomputed evidence {cl.format_evidence(evidence)} no longer supports " \
               f"the verdict {claim.verdict!r}"
    assert evidence and all(np.isfinite(float(v)) for v in evidence.values())


def test_every_required_paper_item_is_covered():
    ids = [c.id for c in cl.CLAIMS]
    assert len(ids) == len(set(ids)), "duplicate claim ids"
    missing = set(cl.REQUIRED_IDS) - set(ids)
    assert not missing, f"paper items without a claim: {sorted(missing)}"
    # the list itself names every numbered item of the paper
    for prefix, count in (("def", 7), ("asm", 6), ("thm", 5)):
        assert {f"{prefix}-{i}" for i in range(1, count + 1)} <= set(cl.REQUIRED_IDS)
    assert {"lem-1", "cor-1", "alg-1", "alg-2"} <= set(cl.REQUIRED_IDS)


def test_every_chapter_named_exists_in_the_toc():
    for claim in cl.CLAIMS:
        assert (ROOT / "book" / f"{claim.chapter}.ipynb").exists(), (claim.id, claim.chapter)
        assert f"book/{claim.chapter}" in TOC, (claim.id, claim.chapter)


def test_fields_are_filled_and_verdicts_are_known():
    for claim in cl.CLAIMS:
        assert claim.verdict in cl.VERDICTS and claim.method in cl.METHODS
        assert claim.ref and claim.claim and claim.evidence
    used = {c.verdict for c in cl.CLAIMS}
    assert used == set(cl.VERDICTS), f"verdicts never used: {set(cl.VERDICTS) - used}"


def test_bad_records_are_rejected():
    with pytest.raises(ValueError, match="verdict"):
        cl.Claim("x", "ref", "claim", "symbolic", "true-ish", "ev", "errata", lambda: ({}, True))
    with pytest.raises(ValueError, match="method"):
        cl.Claim("x", "ref", "claim", "intuition", "holds", "ev", "errata", lambda: ({}, True))
    with pytest.raises(ValueError, match="not in the registry"):
        cl.get("thm-99")
    assert cl.get("thm-1").ref.startswith("Thm. 1")


def test_format_evidence():
    text = cl.format_evidence({"a": 0.123456, "b": 3, "c": True})
    assert text == "a=0.1235, b=3, c=True"


# --------------------------------------------------------------------------- the checks bite
def test_a_wrong_epsilon_formula_flips_verdicts(monkeypatch):
    """If eq. (6) were implemented 2% too large, it would 'reproduce' 2.255 and the check says so."""
    right = privacy.epsilon_paper
    monkeypatch.setattr(privacy, "epsilon_paper", lambda *a, **kw: 1.0195 * right(*a, **kw))
    _, ok = cl.get("sec6.1-eps").check()
    assert not ok


def test_a_broken_sampler_flips_verdicts(monkeypatch):
    """A sampler with 30 times less noise fails the Algorithm 1 and Theorem 2 checks."""
    right = mechanism.privatize
    monkeypatch.setattr(mechanism, "privatize",
                        lambda counts, k, **kw: right(counts, 30 * np.asarray(k), **kw))
    assert not cl.get("alg-1").check()[1]
    assert not cl.get("thm-2").check()[1]


def test_a_wrong_delta_formula_flips_a_verdict(monkeypatch):
    """If eq. (7) returned 0.0026 (the paper's number), the erratum check would notice."""
    monkeypatch.setattr(privacy, "delta", lambda *a, **kw: 0.0026)
    assert not cl.get("sec6.1-delta").check()[1]


# --------------------------------------------------------------------------- the audit
GRADE = cl.GRADE
C, C_ADJ = cl.AUDIT_COUNTS, cl.AUDIT_ADJACENT


def test_audit_catches_a_sampler_that_ignores_k():
    """A mechanism that always uses k = 400 while claiming Theorem 1's guarantee for k = 20.6."""
    k = 20.6
    eps, dlt = dm.epsilon_paper(k, **GRADE), dm.delta(k, **GRADE)

    def ignores_k(c, size, gen):
        return dm.privatize(c, 400.0, rng=gen, size=size)
    r = audit_hockey_stick(C, C_ADJ, eps, mechanism=ignores_k, samples=50_000, rng=5)
    assert r.refutes(dlt), r


def test_audit_catches_a_wrong_profile_formula():
    """A 'profile' 100 times too small at eps = 0.2 is refuted; the exact one is not."""
    k, eps = 20.6, 0.2
    exact = dm.hockey_stick(eps, C, C_ADJ, k)
    r = audit_hockey_stick(C, C_ADJ, eps, k=k, samples=50_000, rng=6)
    assert r.refutes(exact / 100)
    assert not r.refutes(exact)


def test_audit_estimate_matches_the_exact_value_of_its_set():
    """The estimate is unbiased for the chosen set's exact divergence: 5 standard errors."""
    k, eps = 20.6, 0.5
    r = audit_hockey_stick(C, C_ADJ, eps, k=k, samples=50_000, rng=8)
    value, p, q = chosen_set_divergence(r, C, C_ADJ, k)
    se = np.sqrt(p * (1 - p) + np.exp(2 * eps) * q * (1 - q)) / np.sqrt(r.samples)
    assert abs(r.estimate - value) < 5 * se
    assert value <= dm.hockey_stick(eps, C, C_ADJ, k) + 1e-12


def test_chosen_set_divergence_checks_its_input():
    r = audit_hockey_stick(C, C_ADJ, 0.5, k=20.6, samples=1000, rng=1)
    with pytest.raises(TypeError, match="AuditResult"):
        chosen_set_divergence(0.5, C, C_ADJ, 20.6)
    with pytest.raises(ValueError, match="k="):
        chosen_set_divergence(r, C, C_ADJ, -1.0)
    with pytest.raises(ValueError, match="not adjacent"):
        chosen_set_divergence(r, C, C, 20.6)
    with pytest.raises(ValueError, match="positive"):
        chosen_set_divergence(r, [1, 0, 5], [0, 1, 5], 20.6)


def test_the_theorem_5_check_bites(monkeypatch):
    """If sqrt(2L) were twice as large, the three-state chain would no longer refute Theorem 5."""
    from dpmarkov import chain
    right = chain.ergodicity_bound
    monkeypatch.setattr(chain, "ergodicity_bound", lambda *a, **kw: 2 * right(*a, **kw))
    assert not cl.get("thm-5").check()[1]


def test_the_theorem_5_counterexample_meets_every_assumption():
    """The registry's Theorem 5 evidence is a chain inside every assumption, read literally."""
    evidence, ok = cl.get("thm-5").check()
    assert ok and evidence["literal_assumptions"]
    assert evidence["monte_carlo"] - 5 * evidence["se"] > evidence["bound"]
