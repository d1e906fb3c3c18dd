"""The public API: every name of CONVENTIONS.md exists and is documented with its source.

Each public function's docstring must name where it comes from in the paper
(an equation, definition, theorem, lemma, corollary, algorithm or assumption) so
a reader can find the statement it implements.
"""
import inspect
import re

import dpmarkov as dm

CORE = ["count_vector", "privatize", "epsilon", "epsilon_star", "k_for_epsilon", "delta",
        "expected_kl", "kl_bound"]
SOURCE = re.compile(r"eq\. ?\(\d+\)|Definition \d|Def \d|Theorem \d|Lemma \d|Corollary \d|"
                    r"Algorithm \d|Assumption \d|Section \d|Boole", re.I)


def test_core_names_exist():
    for name in CORE:
        assert callable(getattr(dm, name)), name


def test_every_public_function_cites_its_source():
    missing = []
    for name in dm.__all__:
        obj = getattr(dm, name)
        if inspect.isfunction(obj):
            doc = inspect.getdoc(obj) or ""
            if not SOURCE.search(doc):
                missing.append(name)
    assert not missing, f"docstrings without a paper reference: {missing}"
