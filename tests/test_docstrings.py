"""Every public function has a numpydoc docstring with a runnable example (issue 29, item 5).

Public: the functions and classes in ``dpmarkov.__all__``, ``dpmarkov.baselines.__all__`` and
``dpmarkov.datasets.__all__``.  Each docstring has the sections Parameters, Returns, Raises
and Examples, and its examples run as doctests (seeded, printing only portable values).
"""
import doctest
import inspect

import pytest

import dpmarkov as dm
import dpmarkov.baselines as bl
import dpmarkov.datasets as ds

SECTIONS = ("Parameters", "Returns", "Raises", "Examples")


def _public():
    out = {}
    for prefix, module in (("dm", dm), ("bl", bl), ("ds", ds)):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) or inspect.isbuiltin(obj):
                out[f"{prefix}.{name}"] = obj
    return out


PUBLIC = _public()


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_docstring_has_the_numpydoc_sections(name):
    doc = inspect.getdoc(PUBLIC[name]) or ""
    lines = doc.splitlines()
    # a loader without parameters has nothing to describe or to refuse
    takes = bool(inspect.signature(PUBLIC[name]).parameters)
    wanted = SECTIONS if takes else ("Returns", "Examples")
    missing = [s for s in wanted
               if not any(a.strip() == s and b.strip().startswith("---")
                          for a, b in zip(lines, lines[1:]))]
    assert not missing, f"{name}: no {missing} section"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_examples_run(name):
    func = inspect.unwrap(PUBLIC[name])
    tests = doctest.DocTestFinder(recurse=False).find(func, name, globs={"dm": dm, "np": __import__("numpy")})
    assert tests and tests[0].examples, f"{name}: no example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} failing example(s)"
