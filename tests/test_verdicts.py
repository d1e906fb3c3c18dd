"""The book states a verdict on the paper only through the registry (issue 36, item 1).

A sentence that puts a verdict-like phrase ("holds", "true but loose", "fails", "a bound",
"cannot", "proved") within ``NEAR`` characters of a reference to a paper result (Theorem,
Lemma, Corollary, Figure, Section, eq., or a ``{prf:ref}`` to the paper's ``thm-``, ``lem-``,
``cor-`` labels) is a hand-typed verdict, unless the phrase comes from the registry: glued
text (``{glue:md}`verdict-...``` and other glue roles) is taken out before the scan.  Such a
sentence must glue the verdict, or say what the book shows without a verdict word.

Links to a claim's evidence go to the chapter the registry names: a sentence that pastes a
claim's verdict and links chapters (``{doc}``) links that claim's chapter (unless it is that
chapter), as tests/test_claims.py requires of the verdict pages' boxes.

A scan that missed sentences split across lines, list items or a reference written as a
role would pass a hand-typed verdict: the fixtures below are such sentences, and the scan must
find them; a glued verdict beside the same reference must pass.
"""
import json
import re
from pathlib import Path

from dpmarkov.verify import claims as cl

ROOT = Path(__file__).resolve().parents[1]
#: The verdict phrases: the registry's words, and the verbs of issue 36's referee findings
#: ("Theorems 4 and 5 bound the error", "proves the result private", "bounds how far",
#: "both bounds hold", "must hold").
PHRASE = re.compile(r"\b(?:holds|true but loose|fails|a bound|cannot|proved|proves (?:the|it)"
                    r"|(?:must|still|bounds?|both) hold|(?<!Theorem )\d hold|bounds? (?:the error|how))\b",
                    re.I)
REF = re.compile(r"\b(?:Theorem|Lemma|Corollary|Figure|Section)s?\s+\d[\d.]*"
                 r"|\beqs?\.\s*\(\d+\)|\{prf:ref\}`(?:thm|lem|cor)-[^`]*`")
GLUE = re.compile(r"\{glue(?::[a-z]+)?\}`[^`]*`")
VERDICT_GLUE = re.compile(r"\{glue:md\}`verdict-([^`:]+):myst`")
DOC = re.compile(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`")
IDS = {c.id for c in cl.CLAIMS}
#: How close (characters) a phrase and a reference must be to count as one verdict.
NEAR = 80
#: Pages other tasks rewrite (issue 36 is fixed there): the instructor guide (course), the
#: privacy audit chapter (audit), "Run a chapter yourself" (portable).
OTHERS = {"instructor_guide", "run_locally"}


def prose(text):
    """A markdown cell's text without code blocks and display math."""
    text = re.sub(r"(`{3,}|~{3,})(?!\{).*?\1", " ", text, flags=re.S)   # plain code blocks
    text = re.sub(r"```\{(?:code-cell|code-block|code|literalinclude)\}.*?```", " ", text,
                  flags=re.S)
    return re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)


def units(text):
    """Paragraphs, list items and table rows of ``text`` (line breaks inside them joined)."""
    for block in re.split(r"\n\s*\n|\n\s*(?=[-*|] |\d+\. )", text):
        yield " ".join(block.split())


def sentences(unit):
    """The sentences of a paragraph: one ends before a capital, not before "(" (so
    "eq. (6)" goes on)."""
    return re.split(r"(?<=[.;!?])\s+(?=[A-Z*{])", unit)


def hand_typed_verdicts(text):
    """Sentences of ``text`` with a verdict phrase next to a paper reference, not glued."""
    found = []
    for unit in units(GLUE.sub(" [registry] ", prose(text))):
        for sentence in sentences(unit):
            refs = [r.span() for r in REF.finditer(sentence)]
            if any(max(a, p.start()) - min(b, p.end()) <= NEAR
                   for p in PHRASE.finditer(sentence) for a, b in refs):
                found.append(sentence)
    return found


def misdirected_links(text, page):
    """(claim, its chapter, chapters linked) for sentences of ``page`` that paste a claim's
    verdict and link chapters but not the claim's."""
    out = []
    for unit in units(text):
        for sentence in sentences(unit):
            docs = set(DOC.findall(sentence))
            for cid in sorted(set(VERDICT_GLUE.findall(sentence)) & IDS):
                chapter = cl.get(cid).chapter
                if docs and chapter != page and chapter not in docs:
                    out.append((cid, chapter, sorted(docs)))
    return out


def markdown_cells(path):
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            yield "".join(cell["source"])


def chapters():
    return [p for p in sorted((ROOT / "book").glob("*.ipynb")) if p.stem not in OTHERS]


def test_no_hand_typed_verdict_on_a_paper_result():
    found = [f"{path.stem}: {s}" for path in chapters() for text in markdown_cells(path)
             for s in hand_typed_verdicts(text)]
    assert not found, "\n\n".join(found)


def test_the_readme_types_no_verdict_on_a_paper_result():
    assert not hand_typed_verdicts((ROOT / "README.md").read_text())


def test_the_assignments_type_no_verdict_on_a_paper_result():
    """Teaching material too (issue 36, item 1): the assignments' questions and model answers."""
    notebooks = sorted((ROOT / "assignments").glob("*/*.ipynb"))
    assert len(notebooks) >= 6
    found = [f"{path.stem}: {s}" for path in notebooks for text in markdown_cells(path)
             for s in hand_typed_verdicts(text)]
    assert not found, "\n\n".join(found)


def test_links_to_a_claims_evidence_go_to_its_chapter():
    bad = [(path.stem, *m) for path in chapters() for text in markdown_cells(path)
           for m in misdirected_links(text, path.stem)]
    assert not bad, bad


def test_hand_typed_verdicts_are_found():
    fixtures = [
        "Theorem 5 fails for the three-state chain.",
        "We checked it:\n- the sign of $Z$ in\n  Theorem 4 gives a bound that is looser.",
        "The conclusion of {prf:ref}`lem-1` holds, with equality.",
        "The printed pair is true but loose as far as eq. (6) goes.",
        "Section 6.2's pair cannot be reached.",
        # the referee's findings of issue 36, as they were written
        "**Correction.** Theorems 4 and 5 bound the error by a constant times $k^{-1/2}$.",
        ("3. privatizes a whole transition matrix row by row and proves the result private by "
         "parallel composition (Lemma 1, Theorem 3),"),
        "4. bounds how far privacy moves the stationary distribution (Theorems 4 and 5),",
        "- At fixed $\\epsilon$ the error falls; Theorems 4 and 5 hold on these chains.",
        "On these chains both of the paper's bounds hold, unlike on the taxi chain (Theorem 4).",
        "information that Theorem 1 never accounts for: the theorem holds for a fixed $k$.",
    ]
    for text in fixtures:
        assert hand_typed_verdicts(text), text
    # the registry's words, glued, pass; so do a distant phrase and a plain code block
    assert not hand_typed_verdicts("Theorem 5: {glue:md}`verdict-thm-5:myst`.")
    assert not hand_typed_verdicts("Theorem 5 is stated in Section 5. " + "x" * 100
                                   + " The grid cannot show more.")
    assert not hand_typed_verdicts("```\nTheorem 5 fails\n```")
    # a category that can hold the rest of the mass is no verdict
    assert not hand_typed_verdicts("For Theorem 1 a third category can hold the remaining mass.")
    assert not hand_typed_verdicts("Corollary 1 begins: let the conditions of Theorem 2 hold.")


def test_a_link_to_the_wrong_chapter_is_found():
    chapter = cl.get("thm-5").chapter
    wrong = "Theorem 5: {glue:md}`verdict-thm-5:myst` (see {doc}`preliminaries`)."
    assert misdirected_links(wrong, "intro") == [("thm-5", chapter, ["preliminaries"])]
    right = wrong.replace("preliminaries", chapter)
    assert misdirected_links(right, "intro") == []


#: A comparison of the book's corrected Theorem 4 bound with the printed one ...
CORRECTED = re.compile(r"corrected|prop-corrected-bounds", re.IGNORECASE)
COMPARED = re.compile(r"\b(?:larger|weaker|looser|smaller|tighter|stronger)\b", re.IGNORECASE)
#: ... must say where it holds: neither bound is always the larger (the registry's thm-4
#: check pins a five-state chain inside the assumptions where the corrected one is smaller).
SCOPED = re.compile(r"not (?:on )?every chain|not always"
                    r"|(?:larger|smaller|weaker)\b[^.;]{0,20}\bon (?:this|that|the taxi) chain", re.IGNORECASE)


def unscoped_comparisons(text):
    """Sentences of ``text`` that compare the corrected and printed Theorem 4 bounds with no
    word of the chains it holds on."""
    return [s for unit in units(prose(text)) for s in sentences(unit)
            if CORRECTED.search(s) and COMPARED.search(s) and not SCOPED.search(s)
            and re.search(r"Theorem 4|thm-4|stationary|right-hand side|\\tilde\\pi|"
                          r"prop-corrected-bounds", s)]


def test_the_corrected_theorem_4_bound_is_compared_only_where_it_was():
    """Issue 36, H2: "the corrected bound is larger" is false on some chains (registry thm-4).

    Every chapter, assignment and the registry's own evidence compare the two bounds only with
    the chains the comparison was made on.
    """
    pages = chapters() + sorted((ROOT / "assignments").glob("*/*.ipynb"))
    found = [f"{path.stem}: {s}" for path in pages for text in markdown_cells(path)
             for s in unscoped_comparisons(text)]
    found += [f"{c.id}: {s}" for c in cl.CLAIMS
              for s in unscoped_comparisons(f"{c.id} (Theorem 4): {c.evidence}")
              if c.id.startswith("thm-4")]
    assert not found, "\n\n".join(found)


def test_an_unscoped_comparison_is_found():
    # the four places the referee quoted, as they were written
    fixtures = [
        "Theorem 4: not proved, and the book proves only a corrected, larger bound.",
        ("It is not proved: on the taxi chain it gives 1.48 for an error of 0.023; the book "
         "proves a corrected bound ({doc}`stationary_bounds`), which is larger "
         "({glue:md}`r_t4_c:myst` there)."),
        ("What *is* proved is a weaker bound, {prf:ref}`prop-corrected-bounds` below, valid "
         "for every $k$."),
        ("2. Theorem 4 as printed gives 0.31; the corrected right-hand side is 0.52, larger "
         "because it weights the rows' errors by the private $\\tilde\\pi$."),
    ]
    for text in fixtures:
        assert unscoped_comparisons(text), text
    assert not unscoped_comparisons(
        "The corrected bound of {doc}`stationary_bounds` is larger on this chain, though not "
        "on every chain (Theorem 4).")


#: Issue 36, second referee N1: ``dm.stationary_tv_bound`` computes Theorem 4's right-hand side
#: in the book's reading (Z with a plus sign, n_i in L_i), not as the paper prints it.
AS_PRINTED = re.compile(r"as (?:the paper )?print(?:s|ed)\b|Theorem 4 prints"
                        r"|printed (?:bound|right-hand side)", re.I)
TV_BOUND = re.compile(r"stationary_tv_bound(?!_corrected)|right-hand side of Theorem 4"
                      r"|Theorem 4's right-hand side|right-hand side Theorem 4")


def printed_label_for_the_reading(text):
    """Sentences of ``text`` that call ``dm.stationary_tv_bound`` (or Theorem 4's right-hand
    side) "as printed"."""
    return [s for unit in units(prose(text)) for s in sentences(unit)
            if TV_BOUND.search(s) and AS_PRINTED.search(s)]


def test_theorem_4_in_the_books_reading_is_not_called_as_printed():
    pages = (sorted((ROOT / "book").glob("*.ipynb"))
             + sorted((ROOT / "assignments").glob("*/*.ipynb")))
    found = [f"{path.stem}: {s}" for path in pages for text in markdown_cells(path)
             for s in printed_label_for_the_reading(text)]
    import dpmarkov as dm
    found += [f"docstring: {s}"
              for s in printed_label_for_the_reading(dm.stationary_tv_bound.__doc__)]
    assert not found, "\n\n".join(found)


def test_an_as_printed_label_for_the_reading_is_found():
    # the places the second referee quoted (N1), as they were written
    fixtures = [
        ("2. Compute the right-hand side of Theorem 4 as the paper prints it "
         "({py:func}`dm.stationary_tv_bound <dpmarkov.stationary_tv_bound>`) and the book's "
         "corrected right-hand side."),
        ("`bound` to the right-hand side of\nTheorem 4 as the paper prints it "
         "(`dm.stationary_tv_bound(counts, k)`); and"),
        ("The right-hand side of Theorem 4 ({prf:ref}`thm-4`) as printed is {py:func}"
         "`dm.stationary_tv_bound <dpmarkov.stationary_tv_bound>`; the corrected bound."),
        ("set the right-hand side Theorem 4 prints ({py:func}`dm.stationary_tv_bound "
         "<dpmarkov.stationary_tv_bound>`) next to the book's corrected one."),
        "Theorem 4's right-hand side as printed: (1/2) ||Z||_1 sqrt(2 L), L = sum_i pi(i) L_i.",
    ]
    for text in fixtures:
        assert printed_label_for_the_reading(text), text
    assert not printed_label_for_the_reading(
        "Compute the right-hand side of Theorem 4 in the book's reading ({py:func}"
        "`dm.stationary_tv_bound <dpmarkov.stationary_tv_bound>`: the fundamental matrix with "
        "a plus sign).")


#: Issue 36, second referee N3: eq. (6) understates the loss for n = 2 only at some designs
#: (whenever eta N is a whole number; the grade design with n = 2 is a counterexample), so a
#: sentence saying it does for two categories carries a word of scope.
UNDERSTATES = re.compile(r"\bunderstates? the (?:worst |privacy )?loss|\bfails for n = 2"
                         r"|\bis no bound\b|\bits failure for\b", re.I)
TWO = re.compile(r"n_?i? = 2|\$n(?:_i)? = 2\$|two categor|row of two|\bn = 2\b")
N2_SCOPE = re.compile(r"\bcan\b|\bnever\b|\bwhenever\b|whole number|not (?:for )?every|\bsome\b"
                      r"|not a bound at every|not always", re.I)


def unscoped_n2_failures(text):
    """Sentences of ``text`` that say eq. (6) understates the loss for two categories with no
    word of the designs it does so at."""
    return [s for unit in units(prose(text)) for s in sentences(unit)
            if UNDERSTATES.search(s) and TWO.search(s) and not N2_SCOPE.search(s)]


def _docstrings():
    import inspect

    import dpmarkov as dm
    return [(name, inspect.getdoc(getattr(dm, name)) or "") for name in dm.__all__
            if callable(getattr(dm, name))]


def test_eq6_for_two_categories_is_scoped():
    pages = (sorted((ROOT / "book").glob("*.ipynb"))
             + sorted((ROOT / "assignments").glob("*/*.ipynb")))
    found = [f"{path.stem}: {s}" for path in pages for text in markdown_cells(path)
             for s in unscoped_n2_failures(text)]
    found += [f"README: {s}" for s in unscoped_n2_failures((ROOT / "README.md").read_text())]
    docs = _docstrings()
    assert len(docs) > 30 and any("n = 2" in doc for _, doc in docs)   # the scan reads them
    found += [f"{name}: {s}" for name, doc in docs for s in unscoped_n2_failures(doc)]
    found += [f"{c.id}: {s}" for c in cl.CLAIMS for s in unscoped_n2_failures(c.evidence)]
    assert not found, "\n\n".join(found)


def test_an_unscoped_n2_failure_is_found():
    # the places the second referee quoted (N3), as they were written
    fixtures = [
        "for $n = 2$, where it understates the privacy loss: the verdict.",
        "For a row of two categories eq. (6) understates the loss (the verdict, the chapter).",
        "for a row with $n_i = 2$, where eq. (6) as printed understates the worst loss, it uses",
        "For n = 2 use ``k_for_epsilon`` (eq. (6) understates the loss there).",
        "(it is an upper bound for n >= 3 but fails for n = 2).",
        "for a row of two categories eq. (6) is no bound (thm-1-n2), so there the theorem needs",
    ]
    for text in fixtures:
        assert unscoped_n2_failures(text), text
    assert not unscoped_n2_failures(
        "For a row of two categories eq. (6) can understate the loss (the verdict).")
