"""The package reads bottom-up: no import cycle, no module reaching into another's private names.

Parses ``dpmarkov/`` with ``ast`` (nothing is imported) and checks three rules of issue 26:

- the imports between the package's modules form no cycle (imports inside functions count
  too: a lazy import is still a dependency);
- no module uses another module's underscore name, neither ``from .x import _name`` nor
  ``x._name`` (a module's own underscore names, and private *modules* such as ``_checks``
  with their public-internal names, are fine: that is what they are for);
- the chapters (``book/*.ipynb``) and the assignments (``assignments/**/*.ipynb``) use public
  names only: no ``dm._name``, no ``from dpmarkov... import _name``, no ``module._name`` on a
  dpmarkov module, no private module imported.

Each checker is first run on a small snippet that breaks its rule, so a checker that
finds nothing because it is broken fails here too.  The imports also go down the layers that
ARCHITECTURE.md lists (every module must be placed there).
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dpmarkov"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name of a (possibly relative) ``from ... import`` source."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def scan_source(module: str, source: str, known: set[str], *, is_package: bool = False):
    """(edges, violations) of one module's source.

    ``edges``: the package modules it imports (anywhere in the file).  ``violations``:
    ``"line: text"`` for each use of another package module's underscore name.
    """
    tree = ast.parse(source)
    edges, violations, alias = set(), [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            src = _absolute(module, is_package, node.level, node.module)
            if src.split(".")[0] != "dpmarkov":
                continue
            for a in node.names:
                full = f"{src}.{a.name}"
                if full in known:                      # a module: an edge to it
                    edges.add(full)
                    alias[a.asname or a.name] = full
                    continue
                edges.add(src)
                if _is_private(a.name) and src != module:
                    violations.append(f"{node.lineno}: from {src} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "dpmarkov":
                    edges.add(a.name)
                    if a.asname:
                        alias[a.asname] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in alias and _is_private(node.attr)):
            target = alias[node.value.id]
            if target != module and f"{target}.{node.attr}" not in known:
                violations.append(f"{node.lineno}: {node.value.id}.{node.attr} ({target})")
    edges.discard(module)
    return edges & known, violations


def _graph():
    known = set(_modules())
    graph, violations = {}, {}
    for name, path in _modules().items():
        edges, bad = scan_source(name, path.read_text(), known,
                                 is_package=path.name == "__init__.py")
        # a package's __init__ importing its own submodules is how a package is built;
        # an edge *into* a package's __init__ from inside it is what makes a cycle
        graph[name] = edges
        if bad:
            violations[name] = bad
    return graph, violations


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of nodes (first == last), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_checkers_find_what_they_look_for():
    known = {"dpmarkov", "dpmarkov.a", "dpmarkov.b", "dpmarkov._c"}
    edges, bad = scan_source(
        "dpmarkov.a", "from .b import _hidden, shown\nfrom . import b, _c\n"
        "def f():\n    return b._inner + _c.ok + _c._secret\n", known)
    assert edges == {"dpmarkov.b", "dpmarkov._c"}
    assert sorted(bad) == ["1: from dpmarkov.b import _hidden", "4: _c._secret (dpmarkov._c)",
                           "4: b._inner (dpmarkov.b)"]
    assert find_cycle({"x": {"y"}, "y": {"z"}, "z": {"x"}}) == ["x", "y", "z", "x"]
    assert find_cycle({"x": {"y"}, "y": {"z"}, "z": set()}) is None
    assert notebook_violations({"cells": [{"cell_type": "code", "source":
                                           "import dpmarkov as dm\n%matplotlib inline\n"
                                           "from dpmarkov.profile import _pair\n"
                                           "from dpmarkov import _checks\ndm._x(1)\n"}]}) == [
        "cell 0: from dpmarkov.profile import _pair", "cell 0: from dpmarkov import _checks",
        "cell 0: dm._x (dpmarkov)"]


def test_no_import_cycle_in_the_package():
    graph, _ = _graph()
    assert len(graph) > 30                       # the whole package was read
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_module_uses_another_modules_private_names():
    _, violations = _graph()
    assert not violations, violations


def notebook_violations(nb: dict) -> list[str]:
    """Uses of private dpmarkov names in a notebook's code cells (IPython magics skipped)."""
    known = set(_modules())
    out = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        lines = ["" if line.lstrip().startswith(("%", "!")) else line
                 for line in source.splitlines()]
        tree = ast.parse("\n".join(lines))
        alias = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpmarkov"):
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if _is_private(a.name) or any(_is_private(p) for p in node.module.split(".")):
                        out.append(f"cell {i}: from {node.module} import {a.name}")
                    elif full in known or full == "dpmarkov.verify":
                        alias[a.asname or a.name] = full
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("dpmarkov"):
                        if any(_is_private(p) for p in a.name.split(".")):
                            out.append(f"cell {i}: import {a.name}")
                        alias[a.asname or a.name.split(".")[0]] = (
                            a.name if a.asname else "dpmarkov")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in alias and _is_private(node.attr)):
                out.append(f"cell {i}: {node.value.id}.{node.attr} ({alias[node.value.id]})")
    return out


def test_chapters_and_assignments_use_public_names_only():
    notebooks = sorted(ROOT.glob("book/*.ipynb")) + sorted(ROOT.glob("assignments/**/*.ipynb"))
    assert len(notebooks) > 25
    found = {}
    for path in notebooks:
        bad = notebook_violations(json.loads(path.read_text()))
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert not found, found


def test_import_dpmarkov_is_lazy_and_complete():
    """``import dpmarkov`` imports no submodule and neither numpy nor scipy (PEP 562); every
    name of ``__all__`` resolves on first use to the object its module defines, and ``dir``
    lists them all."""
    import subprocess
    import sys
    probe = ("import sys, dpmarkov as dm; "
             "print(sorted(m for m in sys.modules if m.startswith(('numpy', 'scipy', 'dpmarkov.'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT, env={**__import__("os").environ,
                                                    "PYTHONPATH": str(ROOT)}).stdout
    assert out.strip() == "[]", out
    import importlib
    import dpmarkov as dm
    assert set(dm.__all__) == set(dm._WHERE) | {"baselines"}
    assert len(dm.__all__) == len(set(dm.__all__))
    for name in dm.__all__:
        value = getattr(dm, name)
        if name in dm._WHERE:
            assert value is getattr(importlib.import_module(f"dpmarkov.{dm._WHERE[name]}"), name)
    assert set(dm.__all__) <= set(dir(dm))
    assert {"datasets", "accounting", "verify"} <= set(dir(dm))
    try:
        dm.no_such_name
    except AttributeError as err:
        assert "no_such_name" in str(err)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def architecture_layers(text: str) -> dict[str, int]:
    """{top-level module: layer} from the numbered list of ARCHITECTURE.md (``N. **Name** —
    `a`, `b`: ...``; the modules are the back-quoted names before the first colon)."""
    import re
    layers = {}
    for line in text.splitlines():
        m = re.match(r"(\d+)\. \*\*[^*]+\*\*[^`]*((?:`[\w.]+`,? ?)+):", line)
        if m:
            for name in re.findall(r"`([\w.]+)`", m.group(2)):
                layers[name] = int(m.group(1))
    return layers


def _top(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def upward_edges(graph: dict[str, set[str]], layers: dict[str, int]) -> list[str]:
    """The imports that go from a module to one of a higher layer."""
    return sorted(f"{m} -> {t}" for m, targets in graph.items() for t in targets
                  if _top(m) and _top(t) and layers[_top(t)] > layers[_top(m)])


def test_imports_go_down_the_layers_of_architecture_md():
    layers = architecture_layers((ROOT / "ARCHITECTURE.md").read_text())
    assert layers["_checks"] == 1 and layers["verify"] == 6 and len(layers) >= 20
    # the check bites: the floor importing a layer-3 module is reported
    assert upward_edges({"dpmarkov._numerics": {"dpmarkov.privacy"}}, layers) == [
        "dpmarkov._numerics -> dpmarkov.privacy"]
    graph, _ = _graph()
    unplaced = sorted({_top(m) for m in graph if _top(m) and _top(m) not in layers})
    assert not unplaced, f"modules missing from ARCHITECTURE.md: {unplaced}"
    assert not upward_edges(graph, layers), upward_edges(graph, layers)
