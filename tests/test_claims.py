"""The claims registry (dpmarkov/verify/claims.py): every verdict is a test.

For each claim of the paper, ``check()`` recomputes the evidence with dpmarkov and
must support the recorded verdict, so a code change that flips a verdict fails here.
Further tests: every paper item is covered, every chapter named exists in the toc,
the checks do notice a wrong formula or a broken sampler, and the audit catches
mechanisms that break their claimed guarantee.
"""
import dataclasses
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
    log_ratio = dataclasses.replace(r, family="thresholds", kind="above", coordinate=None,
                                    threshold=0.5)
    with pytest.raises(ValueError, match="positive"):
        chosen_set_divergence(log_ratio, [1, 0, 5], [0, 1, 5], 20.6)
    with pytest.raises(ValueError, match="coordinate 4.*3 categories"):
        chosen_set_divergence(dataclasses.replace(log_ratio, coordinate=4), [1, 2, 5],
                              [2, 1, 5], 20.6)


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


# --------------------------------------------------------------------------- numbers are pinned
def test_agrees_uses_the_rounding_of_the_quote():
    assert cl.agrees(2.2124, "2.212") and not cl.agrees(2.2126, "2.212")
    assert cl.agrees(7.34e-4, "7.3e-4") and not cl.agrees(7.36e-4, "7.3e-4")
    # a Monte Carlo estimate: 5 sqrt(2) standard errors on top of the rounding
    assert cl.agrees(0.0250, "0.023", se=0.0003) and not cl.agrees(0.0250, "0.023", se=0.0001)


def test_every_claim_states_its_support_and_shows_it():
    for claim in cl.CLAIMS:
        assert claim.support in cl.SUPPORTS
        text = cl.verdict_text(claim.id)
        assert text.startswith(f"**{claim.verdict}** ({claim.severity}; support: {claim.support};")
    # Theorem 4 rests on Monte Carlo only: its verdict line says so
    assert cl.get("thm-4").support == "numerical evidence only"
    for cid in ("thm-1-n2", "thm-5", "lem-1-proof"):
        assert cl.get(cid).support == "counterexample"
    with pytest.raises(ValueError, match="support"):
        cl.Claim("x", "ref", "claim", "symbolic", "holds", "ev", "errata", lambda: ({}, True),
                 support="a hunch")


def test_every_erratum_is_a_counterexample_a_computation_or_a_proof():
    """No claim 'fails' on Monte Carlo evidence alone or on nothing."""
    for claim in cl.CLAIMS:
        if claim.verdict == "fails":
            assert claim.support in ("counterexample", "computation", "proof"), claim.id


def _scaled(f, factor):
    return lambda *a, **kw: factor * f(*a, **kw)


def _mutations():
    """(module, function, wrong version, claims that must notice): one plausible slip each."""
    from dpmarkov import accuracy, chain, composition, loss, profile, simplex
    P_, A_, CH_, CO_, L_, PR_, S_, M_ = privacy, accuracy, chain, composition, loss, profile, \
        simplex, mechanism

    def one_order(M, pairs, eps):            # parallel composition, one order of each pair
        M = np.asarray(M, float)
        pr = np.asarray(pairs)
        e = np.exp(np.asarray(eps, float))[..., None, None]
        return np.clip(M[pr[:, 0]] - e * M[pr[:, 1]], 0, None).sum(-1).max(-1)

    def minus_sign_Z(P):                     # the paper's printed sign
        P = np.asarray(P, float)
        pi = chain.stationary_distribution(P)
        return np.linalg.inv(np.eye(len(P)) - P - np.outer(np.ones(len(P)), pi))

    right = {name: getattr(mod, name) for mod, name in (
        (P_, "epsilon_paper"), (P_, "delta"), (P_, "epsilon_star_paper"), (P_, "k_for_epsilon_paper"),
        (P_, "exit_probability_union"), (A_, "expected_kl"), (A_, "kl_bound"),
        (A_, "kl_bound_bordered"), (M_, "privatize"), (M_, "log_density"), (L_, "epsilon_exact"),
        (L_, "privacy_loss"), (PR_, "privacy_profile"), (PR_, "epsilon_for_delta"),
        (CO_, "compose_parallel"), (CO_, "probabilistic_delta"), (CH_, "stationary_distribution"),
        (CH_, "ergodicity_coefficient"), (CH_, "stationary_tv_bound"), (CH_, "ergodicity_bound"),
        (CH_, "stationary_tv_bound_corrected"), (CH_, "ergodicity_bound_corrected"),
        (CH_, "privatize_chain"), (CH_, "row_eta"), (S_, "count_vector"),
        (S_, "in_bordered_simplex"))}
    r = right
    return [
        (P_, "epsilon_paper", _scaled(r["epsilon_paper"], 1.01), ["sec6.1-eps"]),
        (P_, "epsilon_paper", lambda k, eta, N, n, g: r["epsilon_paper"](k, eta, N, n + 1, g),
         ["thm-1"]),                                                     # n for n - 1
        (P_, "epsilon_paper", lambda k, eta, N, n, g: r["epsilon_paper"](k, eta, N + 1, n, g),
         ["thm-1"]),                                                     # N + 1 for N
        (P_, "delta", _scaled(r["delta"], 1.01), ["sec6.1-gamma"]),
        (P_, "epsilon_star_paper", _scaled(r["epsilon_star_paper"], 1.01), ["sec6.1-k-grid"]),
        (P_, "k_for_epsilon_paper", _scaled(r["k_for_epsilon_paper"], 1.01), ["sec6.1-eps"]),
        (A_, "expected_kl", _scaled(r["expected_kl"], 1.01), ["thm-2"]),
        (A_, "kl_bound", lambda k, N, n: r["kl_bound"](k, N, n + 1), ["cor-1"]),   # n for n - 1
        (A_, "kl_bound_bordered", _scaled(r["kl_bound_bordered"], 1.01), ["cor-1"]),
        (M_, "privatize", lambda c, k, **kw: r["privatize"](c, 1.05 * np.asarray(k), **kw),
         ["alg-1"]),                                                     # 5% too little noise
        (M_, "log_density", lambda x, c, k: r["log_density"](x, c, k + 1), ["def-5"]),
        (L_, "epsilon_exact", _scaled(r["epsilon_exact"], 1.01), ["thm-1"]),
        (L_, "privacy_loss", lambda x, c, cp, k: r["privacy_loss"](x, cp, c, k), ["thm-1-n2"]),
        (PR_, "privacy_profile", _scaled(r["privacy_profile"], 1.01), ["thm-1-delta"]),
        (PR_, "epsilon_for_delta", _scaled(r["epsilon_for_delta"], 1.01), ["thm-1"]),
        (CO_, "profile_discrete", one_order, ["lem-1"]),
        (CO_, "compose_parallel", lambda *m: r["compose_parallel"](*m[::-1]), ["lem-1"]),
        (CO_, "probabilistic_delta", _scaled(r["probabilistic_delta"], 1.01), ["lem-1-proof"]),
        (CH_, "stationary_distribution",
         lambda P: r["stationary_distribution"](np.swapaxes(P, -1, -2)
                                                / np.swapaxes(P, -1, -2).sum(-1, keepdims=True)),
         ["thm-4-Z"]),                                                   # columns for rows
        (CH_, "fundamental_matrix", minus_sign_Z, ["thm-4-Z"]),
        (CH_, "ergodicity_coefficient", _scaled(r["ergodicity_coefficient"], 0.5), ["def-7"]),
        (CH_, "stationary_tv_bound", _scaled(r["stationary_tv_bound"], 1.01), ["thm-4"]),
        (CH_, "stationary_tv_bound_corrected", _scaled(r["stationary_tv_bound_corrected"], 1.01),
         ["thm-4"]),
        (CH_, "ergodicity_bound", _scaled(r["ergodicity_bound"], 1.01), ["thm-5"]),
        (CH_, "ergodicity_bound_corrected", _scaled(r["ergodicity_bound_corrected"], 1.01),
         ["thm-5"]),
        (CH_, "privatize_chain",                                         # k_i of the wrong rows
         lambda c, k, **kw: r["privatize_chain"](c, np.asarray(k)[::-1], **kw), ["alg-2"]),
        (CH_, "row_eta", _scaled(r["row_eta"], 1.01), ["thm-5"]),
        (S_, "count_vector", lambda c: np.asarray(c, float) / (np.sum(c) + 1), ["asm-1"]),
        (S_, "in_bordered_simplex", lambda x, eta: r["in_bordered_simplex"](x, eta * (1 + 1e-9)),
         ["def-2"]),
    ]


MUTATIONS = _mutations()


@pytest.mark.parametrize("module, name, wrong, catchers", MUTATIONS,
                         ids=[f"{m.__name__.split('.')[-1]}.{n}-{i}"
                              for i, (m, n, _, _) in enumerate(MUTATIONS)])
def test_a_wrong_formula_is_noticed(monkeypatch, module, name, wrong, catchers):
    """Each core formula of the package, made plausibly wrong, flips some claim's check."""
    monkeypatch.setattr(module, name, wrong)
    verdicts = {}
    for cid in catchers:
        try:
            verdicts[cid] = bool(cl.get(cid).check()[1])
        except (ValueError, TypeError, FloatingPointError):
            verdicts[cid] = False                        # a crash also notices
    assert not all(verdicts.values()), f"{module.__name__}.{name} changed, checks still pass"


def test_the_mutations_cover_every_module_with_mathematics():
    covered = {m.__name__.split(".")[-1] for m, _, _, _ in MUTATIONS}
    assert {"privacy", "accuracy", "mechanism", "loss", "profile", "composition", "chain",
            "simplex"} <= covered


# --------------------------------------------------------------------------- one verdict everywhere
import json  # noqa: E402
import re  # noqa: E402

BOOK = sorted((ROOT / "book").glob("*.ipynb"))
ADMONITION = re.compile(r"(?P<fence>:{3,}|`{3,})\{admonition\}(?P<title>[^\n]*)\n(?P<body>.*?)\n(?P=fence)",
                        re.S)
VERDICT_GLUE = re.compile(r"\{glue:md\}`verdict-(?P<id>[^`:]+)(?::myst)?`")
# a verdict or severity word typed by hand (the registry's words, and their severities)
TYPED = re.compile(r"\b(holds|fails|loose|not reproducible|inconsistent within the paper|"
                   r"erratum|confirmed)\b", re.I)


def _cells(path):
    return json.loads(path.read_text())["cells"]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _glued_markdown(cells):
    """{key: text} of every glue stored in the notebook's outputs (text/markdown or text/plain)."""
    out = {}
    for cell in cells:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                data = o.get("data", {})
                text = data.get("application/papermill.record/text/markdown",
                                data.get("application/papermill.record/text/plain", ""))
                out[name] = "".join(text) if isinstance(text, list) else text
    return out


def _verdict_boxes(path):
    for cell in _cells(path):
        if cell["cell_type"] != "markdown":
            continue
        for m in ADMONITION.finditer(_source(cell)):
            if re.search(r"^:class:.*\bverdict\b", m["body"], re.M):
                yield m["title"], m["body"]


@pytest.mark.parametrize("path", BOOK, ids=lambda p: p.stem)
def test_verdict_boxes_paste_the_registry(path):
    """Every ``:class: verdict`` box pastes verdict-<id> glued from verdict_md, and types no verdict."""
    cells = _cells(path)
    glued = _glued_markdown(cells)
    code = "\n".join(_source(c) for c in cells if c["cell_type"] == "code")
    for title, body in _verdict_boxes(path):
        ids = VERDICT_GLUE.findall(body)
        assert ids, f"{path.name}: verdict box {title!r} pastes no {{glue:md}}`verdict-<id>`"
        for cid in ids:
            cl.get(cid)                                   # a registered claim
            assert "verdict_md" in code, f"{path.name}: verdict-{cid} is not glued from verdict_md"
            assert f"verdict-{cid}" in glued, f"{path.name}: verdict-{cid} is pasted, never glued"
            assert glued[f"verdict-{cid}"].strip() == cl.verdict_text(cid), \
                f"{path.name}: stored verdict-{cid} differs from the registry (re-execute)"
        typed = TYPED.findall(title + "\n" + VERDICT_GLUE.sub("", body))
        assert not typed, f"{path.name}: verdict box {title!r} types {typed} by hand"


@pytest.mark.parametrize("path", BOOK, ids=lambda p: p.stem)
def test_no_page_retypes_a_verdict_next_to_a_claim_id(path):
    """Prose that names a claim id (`thm-5`, claim thm-5) takes its verdict from the registry."""
    ids = sorted((c.id for c in cl.CLAIMS), key=len, reverse=True)
    alt = "|".join(map(re.escape, ids))
    pattern = re.compile(r"`(" + alt + r")`|\bclaims? (" + alt + r")(?![\w.-])")
    for cell in _cells(path):
        if cell["cell_type"] != "markdown":
            continue
        text = VERDICT_GLUE.sub("", _source(cell))
        text = re.sub(r"\{(?:prf:ref|ref|numref|doc)\}`[^`]*`", "", text)    # labels, not ids
        for m in pattern.finditer(text):
            window = text[max(0, m.start() - 60):m.end() + 60]
            typed = TYPED.findall(window)
            assert not typed, f"{path.name}: {typed} typed next to claim {m[0]!r}: {window!r}"


def test_the_verdict_pages_glue_every_verdict_they_show():
    """The verification report and the errata glue verdict words from the registry only."""
    for name in ("verification_report", "errata"):
        code = "\n".join(_source(c) for c in _cells(ROOT / "book" / f"{name}.ipynb")
                         if c["cell_type"] == "code")
        for verdict in cl.VERDICTS:
            assert f'"{verdict}"' not in code and f"'{verdict}'" not in code, (name, verdict)


def test_the_errata_page_boxes_every_erratum_of_the_registry():
    boxed = {cid for _, body in _verdict_boxes(ROOT / "book" / "errata.ipynb")
             for cid in VERDICT_GLUE.findall(body)}
    assert boxed == {c.id for c in cl.CLAIMS if c.severity == "erratum"}
