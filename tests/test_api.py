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


#: Public functions not yet behind the boundary: their module is another branch's (issue 10).
NOT_YET_WRAPPED = {"audit_hockey_stick"}      # audit.py: branch h3


def test_every_public_function_is_behind_the_boundary():
    """``_checks.public`` wraps every public function: no numeric warning, no NaN escapes."""
    import dpmarkov.datasets as ds
    names = [(n, getattr(dm, n)) for n in dm.__all__ if inspect.isfunction(getattr(dm, n))]
    names += [(n, getattr(ds, n)) for n in ds.__all__ if inspect.isfunction(getattr(ds, n))]
    bare = [n for n, f in names if not hasattr(f, "__wrapped__") and n not in NOT_YET_WRAPPED]
    assert not bare, f"public functions without the boundary: {bare}"


def test_rng_and_size_rules_are_shared():
    """One seed rule and one size rule for every sampler (a bool is never a seed)."""
    import pytest
    for call in (lambda r: dm.privatize([3, 4], 10.0, rng=r),
                 lambda r: dm.privatize_chain([[1, 2], [3, 4]], 10.0,
                                              support=[[True, True], [True, True]], rng=r)):
        with pytest.raises(TypeError, match="rng=True is a bool"):
            call(True)
