"""Guards that had no test failing without them (issue 40, item 2).

Each test names the one-line bug it catches:

- the registry's ``RULES``: an erratum ("fails", "inconsistent within the paper") resting on
  numerical evidence alone, or a statement filed as true without a proof, must be refused by
  ``Claim`` whatever ``RULES`` says; the table is written out here from the principles, not
  read from ``RULES`` (a test comparing ``RULES`` with itself passes any edit of it);
- the size refusals count numbers, not draws, and sit exactly at the limit (tested on both
  sides, with the limit lowered so the accepted side is small);
- the sliced sampler of Algorithm 2 decides log space once per call: with a matrix whose
  slices differ in kind (rows whose parameters are all < 1 next to rows with parameters
  >= 1), drawing in slices gives the draws of one call.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import dpmarkov as dm
from dpmarkov import _checks, chain
from dpmarkov.verify import claims as cl

PROOFS = ("our proof", "the paper's proof, checked step by step")
# what each verdict may rest on, per kind, written from the book's rules (verification report):
# a statement is true only with a proof; numerical evidence gives "supported numerically"; an
# erratum needs a counterexample, an exact computation or a proof, never sampling alone
EXPECTED = {
    ("holds", "definition"): {"definition", "computation", *PROOFS},
    ("holds", "statement"): set(PROOFS),
    ("holds", "number"): {"computation", *PROOFS},
    ("holds but loose", "definition"): {"definition", "computation", *PROOFS},
    ("holds but loose", "statement"): set(PROOFS),
    ("holds but loose", "number"): {"computation", *PROOFS},
    ("supported numerically, not proved", "statement"): {"numerical evidence only"},
    ("fails", "definition"): {"counterexample", "computation"},
    ("fails", "statement"): {"counterexample", *PROOFS},
    ("fails", "number"): {"computation", *PROOFS},
    ("not reproducible", "number"): {"data unavailable"},
    ("inconsistent within the paper", "number"): {"the paper's own text", "computation"},
    ("inconsistent within the paper", "statement"): {"the paper's own text", "computation"},
}


def _claim(verdict, kind, support):
    return cl.Claim("x", "ref", "claim", "consistency", verdict, "ev", "errata",
                    lambda: ({}, True), support=support, kind=kind,
                    proof="prf-x" if support in PROOFS else "",
                    checked="k in [1, 2]" if support == "numerical evidence only" else "")


@pytest.mark.parametrize("verdict, kind, support",
                         list(itertools.product(cl.VERDICTS, cl.KINDS, cl.SUPPORTS)))
def test_claim_accepts_exactly_the_supports_each_verdict_needs(verdict, kind, support):
    # catches any edit of RULES (an erratum on numerical evidence, a statement "holds" on
    # Monte Carlo, a number "not reproducible" on consistency) and a dropped check in Claim
    if support in EXPECTED.get((verdict, kind), set()):
        assert _claim(verdict, kind, support).verdict == verdict
    else:
        with pytest.raises(ValueError, match=r"cannot carry the verdict .*\(RULES\)"):
            _claim(verdict, kind, support)


def test_an_erratum_on_numerical_evidence_alone_is_refused():
    for verdict, kind in itertools.product(("fails", "inconsistent within the paper"), cl.KINDS):
        assert cl.SEVERITY[verdict] == "erratum"
        for support in ("numerical evidence only", "data unavailable"):
            with pytest.raises(ValueError, match="RULES"):
                _claim(verdict, kind, support)


@pytest.mark.parametrize("limit", [60, 64])
def test_size_refusals_count_numbers_not_draws_on_both_sides_of_the_limit(monkeypatch, limit):
    # with the limit lowered to `limit` numbers: n = 4 entries a draw, so `limit // 4` draws
    # are accepted and one more is refused; counting draws (or > instead of >=) is caught
    monkeypatch.setattr(_checks, "MAX_ELEMENTS", limit)
    draws = limit // 4
    assert dm.privatize([5, 6, 7, 8], 20.0, rng=0, size=draws).shape == (draws, 4)
    with pytest.raises(ValueError, match=rf"asks for {4 * (draws + 1)} numbers: at most {limit}"):
        dm.privatize([5, 6, 7, 8], 20.0, rng=0, size=draws + 1)
    # a tuple size: the product of its parts times the draw's numbers
    with pytest.raises(ValueError, match="numbers: at most"):
        dm.privatize([5, 6, 7, 8], 20.0, rng=0, size=(draws, 2))
    # Algorithm 2: n * n numbers a matrix
    counts = np.array([[3, 1], [2, 2]])
    matrices = limit // 4
    assert dm.privatize_chain(counts, 20.0, support=counts > 0, rng=0,
                              size=matrices).shape == (matrices, 2, 2)
    with pytest.raises(ValueError, match=rf"size={matrices + 1} matrices .* more than {limit}"):
        dm.privatize_chain(counts, 20.0, support=counts > 0, rng=0, size=matrices + 1)


def test_sliced_sampler_decides_log_space_once_per_call(monkeypatch):
    # rows 0-1: every k C_ij < 1 (k = 1e-3); rows 2-3: every k C_ij >= 1.  Drawn in slices of
    # two rows, the first slice alone would take the log-space path: deciding per slice
    # consumes the uniforms differently and changes the draws (checked: a sampler told
    # in_logs=None per slice gives other matrices)
    counts = np.array([[5, 3, 2, 1], [2, 2, 2, 2], [40, 30, 20, 10], [10, 20, 30, 40]])
    k = np.array([1e-3, 1e-3, 50.0, 80.0])
    whole = dm.privatize_chain(counts, k, support=counts > 0, rng=7, size=3)
    monkeypatch.setattr(chain, "_SLICE", 8)           # 2 rows of 4 a slice
    sliced = dm.privatize_chain(counts, k, support=counts > 0, rng=7, size=3)
    assert np.array_equal(sliced, whole)
    # and the rows of each kind are draws of their own law: rows sum to 1, every supported
    # entry is > 0 (the small rows are nearly vertices)
    assert np.allclose(whole.sum(axis=-1), 1.0) and np.all(whole > 0)
    assert np.all(whole[:, :2].max(axis=-1) > 0.5)
