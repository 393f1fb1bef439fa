"""House style, enforced: ruff clean, ``__all__`` and numpydoc Parameters on the public API,
``make clean`` clears numba's caches."""

from __future__ import annotations

import ast
import importlib
import inspect
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
#: packages whose ``__init__`` re-exports the public API
API_PACKAGES = (
    "fattree",
    "fattree.topology",
    "fattree.routing",
    "fattree.faults",
    "fattree.sim",
    "fattree.traffic",
    "fattree.analysis",
    "fattree.sweep",
    "fattree.report",
)


def public_modules() -> list[str]:
    """The modules a package ``__init__`` re-exports names from (``from .x import ...``, or
    on first use through its ``_LAZY`` table of name -> module)."""
    mods = set()
    for pkg in API_PACKAGES:
        tree = ast.parse((SRC / Path(*pkg.split(".")) / "__init__.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level >= 1 and node.module:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                mods.add(".".join(base + [node.module]))
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            if any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in targets):
                mods.update(ast.literal_eval(node.value).values())
    return sorted(mods)


def undocumented(module) -> list[str]:
    """Functions in ``module.__all__`` (defined there) that take parameters but whose
    docstring has no numpydoc ``Parameters`` section."""
    out = []
    for name in module.__all__:
        obj = getattr(module, name)
        if not inspect.isfunction(obj) or obj.__module__ != module.__name__:
            continue
        params = [p for p in inspect.signature(obj).parameters if p not in ("self", "cls")]
        doc = inspect.getdoc(obj) or ""
        if params and "\nParameters\n----------\n" not in "\n" + doc:
            out.append(name)
    return out


def test_public_modules_are_found():
    mods = public_modules()
    assert {
        "fattree.api",
        "fattree.topology.family",
        "fattree.sim.engine",
        "fattree.traffic.patterns",
        "fattree.routing.compiled",
    } <= set(mods)


@pytest.mark.parametrize("name", public_modules())
def test_public_module_has_all_and_documented_parameters(name):
    module = importlib.import_module(name)
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__"
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert missing == [], f"{name}.__all__ names what it does not define"
    assert undocumented(module) == []


def test_the_parameters_check_finds_a_missing_section():
    mod = type(sys)("fake")

    def documented(x):
        """Do.

        Parameters
        ----------
        x : int
        """

    def bare(x):
        """Do."""

    for f in (documented, bare):
        f.__module__ = "fake"
        setattr(mod, f.__name__, f)
    mod.__all__ = ["documented", "bare"]
    assert undocumented(mod) == ["bare"]


def test_ruff_clean():
    """``ruff check src tests benchmarks`` with the rules of pyproject.toml."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    r = subprocess.run(
        [ruff, "check", "--no-cache", "src", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]


def test_ruff_formatted():
    """``ruff format --check src tests benchmarks``: the code is in the formatter's style."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    r = subprocess.run(
        [ruff, "format", "--check", "--no-cache", "src", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]


def test_make_clean_clears_numba_caches():
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    r = subprocess.run([make, "-n", "clean"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "*.nbi" in r.stdout and "*.nbc" in r.stdout
