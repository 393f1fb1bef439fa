"""The import structure: layers (an import-linter contract in pyproject.toml), no import
cycles, no private names imported across subpackages, every module importable on its own."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PKG = SRC / "fattree"


def _modules() -> list[tuple[str, Path]]:
    out = []
    for p in sorted(PKG.rglob("*.py")):
        parts = list(p.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((".".join(parts), p))
    return out


def _subpackage(module: str) -> str:
    """``fattree.sim.engine`` -> ``sim``; top-level modules (``fattree.api``) are their own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports_from(module: str, path: Path):
    """(line, imported module, name) of every ``from X import name`` inside the package."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        if target == "fattree" or target.startswith("fattree."):
            for alias in node.names:
                yield node.lineno, target, alias.name


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports_across() -> list[str]:
    """``from X import _name`` (or from a private module ``X._mod``) where X is in another
    subpackage than the importing module."""
    bad = []
    for module, path in _modules():
        for line, target, name in _imports_from(module, path):
            if _subpackage(target) == _subpackage(module):
                continue
            private_module = any(_private(p) for p in target.split(".")[1:])
            if _private(name) or private_module:
                bad.append(f"{path.relative_to(ROOT)}:{line}: from {target} import {name}")
    return bad


def test_no_private_names_imported_across_subpackages():
    assert private_imports_across() == []


def test_the_private_import_check_finds_one(tmp_path):
    # the checker itself: a cross-subpackage private import is reported, a same-package one not
    mod = tmp_path / "m.py"
    mod.write_text("from ..analysis.cost import _x\nfrom .engine import _y\n")
    found = [(t, n) for _, t, n in _imports_from("fattree.sim.m", mod)]
    assert found == [("fattree.analysis.cost", "_x"), ("fattree.sim.engine", "_y")]
    assert _subpackage("fattree.analysis.cost") != _subpackage("fattree.sim.m")
    assert _subpackage("fattree.sim.engine") == _subpackage("fattree.sim.m")


def test_no_import_cycles():
    """No strongly connected component of the module import graph (imports inside functions
    included), so no module depends on the order the others are imported in."""
    grimp = pytest.importorskip("grimp")
    import networkx as nx

    graph = grimp.build_graph("fattree")
    g = nx.DiGraph()
    for m in graph.modules:
        for imported in graph.find_modules_directly_imported_by(m):
            g.add_edge(m, imported)
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert cycles == []


def test_layers_contract():
    """The layers in pyproject.toml's ``[tool.importlinter]`` hold (``lint-imports``)."""
    cli = pytest.importorskip("importlinter.cli")
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        rc = cli.lint_imports(
            config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True
        )
    finally:
        os.chdir(cwd)
    assert rc == 0, "import-linter contract broken (run `lint-imports` for the chains)"


# Run in a new interpreter that has imported the third-party libraries but nothing of
# fattree; it forks one child per module, which imports that module first and alone (the
# libraries are shared so that 130 fresh imports take seconds, not minutes).
_ISOLATED = r"""
import importlib, os, sys, traceback
for lib in ("numpy", "numba", "scipy.sparse", "scipy.sparse.csgraph", "networkx", "pandas",
            "pyarrow", "typer", "rich", "matplotlib.figure"):
    try:
        importlib.import_module(lib)
    except ImportError:
        pass
try:  # numba's compiler, set up once here rather than in every child (0.2 s each)
    import numba
    numba.njit(lambda x: x)(1)
except ImportError:
    pass
import gc
gc.freeze()  # the libraries' objects: never traversed by the children's collections
assert not any(m == "fattree" or m.startswith("fattree.") for m in sys.modules)
failed, running, todo = [], {}, list(sys.argv[1:])
while todo or running:
    while todo and len(running) < max(2, os.cpu_count() or 2):
        name = todo.pop(0)
        pid = os.fork()
        if pid == 0:
            try:
                importlib.import_module(name)
            except BaseException:
                traceback.print_exc()
                os._exit(1)
            os._exit(0)
        running[pid] = name
    pid, status = os.wait()
    if status != 0:
        failed.append(running[pid])
    del running[pid]
failed.sort()
print("FAILED:", " ".join(failed))
sys.exit(1 if failed else 0)
"""


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_every_module_imports_in_a_fresh_interpreter():
    """Each module imported first, alone, in a new process: an import that works only
    after some other module was imported (an import-order-dependent cycle) fails here."""
    names = [m for m, _ in _modules() if not m.endswith("__main__")]
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(
            [str(SRC)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        ),
    )
    r = subprocess.run(
        [sys.executable, "-c", _ISOLATED, *names],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0 and r.stdout.split() == ["FAILED:"], r.stdout + r.stderr[-4000:]


@pytest.mark.slow
def test_the_isolated_import_check_fails_on_a_broken_module(tmp_path):
    pkg = tmp_path / "brokenpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import B\nA = 1\n")
    (pkg / "b.py").write_text("from .a import A\nB = 2\n")  # a cycle: neither imports first
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    r = subprocess.run(
        [sys.executable, "-c", _ISOLATED, "brokenpkg.a", "brokenpkg.b"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 1
    assert r.stdout.split() == ["FAILED:", "brokenpkg.a", "brokenpkg.b"]


def test_the_layers_outside_the_cache_key_hold_no_compiled_code():
    """``compiling.ABOVE_KERNELS`` (left out of the numba cache's source key) are layers
    that no kernel layer may import, and define no compiled code themselves: an edit
    there cannot change a kernel, so keeping the cache is safe."""
    import tomllib

    from fattree.compiling import ABOVE_KERNELS

    layers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"
    ][0]["layers"]
    flat = [[m.strip() for m in layer.split("|")] for layer in layers]
    rank = {m: i for i, layer in enumerate(flat) for m in layer}
    lowest_above = max(rank[f"fattree.{name.removesuffix('.py')}"] for name in ABOVE_KERNELS)
    assert lowest_above < rank["fattree.sim"] and lowest_above < rank["fattree.analysis"]
    compiled = ("njit", "numba.jit", "@jit", "overload", "intrinsic", "cfunc", "vectorize")
    for name in ABOVE_KERNELS:
        paths = [PKG / name] if name.endswith(".py") else sorted((PKG / name).rglob("*.py"))
        assert paths, name
        for p in paths:
            text = p.read_text(encoding="utf-8")
            assert not [w for w in compiled if w in text], p
