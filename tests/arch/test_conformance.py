"""Every registered family declares each facet (topology.family.Facets), and each declaration
agrees with the registry that implements it, both ways: a new family cannot silently lack a
default routing, closed forms, fault tolerance, advisor shapes or a drawing, and no registry
holds an entry that no family declares."""

from __future__ import annotations

import numpy as np
import pytest

import fattree
from fattree.analysis.advisor import SHAPES
from fattree.analysis.closed_forms import FORMS, closed_forms
from fattree.faults.algorithms import resolve_algorithms
from fattree.faults.rules import FAMILY_RULES, rules_for
from fattree.report.draw import layout
from fattree.routing import ALGORITHMS, compile_routing, default_algorithm
from fattree.topology import FAMILIES, Facets

NAMES = list(FAMILIES)


def _facets(name: str) -> Facets:
    facets = FAMILIES.get(name).facets
    assert isinstance(facets, Facets), f"family {name!r} declares no Facets"
    return facets


def _example(name: str):
    ex = _facets(name).example
    return None if ex is None else fattree.build(ex)


@pytest.mark.parametrize("name", NAMES)
def test_family_declares_its_default_routing(name):
    f = _facets(name)
    assert default_algorithm(name) == f.routing
    assert ALGORITHMS.get(f.routing).supports(name)
    t = _example(name)
    if t is not None:
        assert compile_routing(t, f.routing, seed=0).algorithm == f.routing


@pytest.mark.parametrize("name", NAMES)
def test_family_declares_its_closed_forms(name):
    f = _facets(name)
    if f.forms is None:
        assert name not in FORMS
        return
    assert f.forms in FORMS
    t = _example(name)
    if t is not None:
        forms = closed_forms(f.forms, t.params)
        assert forms["nodes"].value == t.n_nodes and forms["switches"].value == t.n_switches


@pytest.mark.parametrize("name", NAMES)
def test_family_declares_its_fault_tolerance(name):
    f = _facets(name)
    assert f.fault_tolerance in ("rules", "generic", "none")
    assert (name in FAMILY_RULES) == (f.fault_tolerance == "rules")
    algs = resolve_algorithms("all", name) if f.fault_tolerance != "none" else []
    assert bool(algs) == (f.fault_tolerance != "none")
    if f.fault_tolerance == "generic":
        assert rules_for(name).routing is None  # the generic kernel over the default routing


@pytest.mark.parametrize("name", NAMES)
def test_family_declares_its_fault_walk(name):
    """A paper walk plugs into every consumer through its name: the Monte Carlo loop's
    kernel registry and the simulator's engines hold it, and its algorithms run on it."""
    from fattree.faults.montecarlo import STUDY_KERNELS  # (its registration module)
    from fattree.faults.walks import FAULT_WALKS, GENERIC_ENGINE, engine_of
    from fattree.sim.faulthop import _WALKED

    f = _facets(name)
    if f.fault_walk is None:
        assert engine_of(name) == GENERIC_ENGINE
        return
    assert f.fault_walk in FAULT_WALKS and f.fault_walk in STUDY_KERNELS
    assert f.fault_walk in _WALKED
    assert any(a.walked_on(name) for a in resolve_algorithms("all", name))


@pytest.mark.parametrize("name", NAMES)
def test_family_declares_its_advisor_shapes(name):
    f = _facets(name)
    assert isinstance(f.advisor, tuple)
    assert set(f.advisor) == {s for s, shape in SHAPES.items() if shape.forms_family == name}


@pytest.mark.parametrize("name", NAMES)
def test_family_declares_its_drawing(name):
    f = _facets(name)
    assert f.drawing in ("layered", "none")
    t = _example(name)
    if f.drawing == "layered" and t is not None:
        lay = layout(t)
        assert lay.x.shape == lay.y.shape == (t.n_nodes + t.n_switches,)
        assert np.isfinite(lay.x).all() and np.isfinite(lay.y).all()


def test_every_registry_entry_is_declared_by_a_family():
    declared_forms = {_facets(n).forms for n in NAMES} - {None}
    assert set(FORMS) == declared_forms
    declared_shapes = [s for n in NAMES for s in _facets(n).advisor]
    assert sorted(SHAPES) == sorted(declared_shapes)  # each shape by exactly one family
    assert set(FAMILY_RULES) == {n for n in NAMES if _facets(n).fault_tolerance == "rules"}
    from fattree.faults.walks import FAULT_WALKS

    assert set(FAULT_WALKS) == {_facets(n).fault_walk for n in NAMES} - {None}


def test_registering_a_family_without_facets_fails():
    with pytest.raises(TypeError, match="facets"):
        fattree.topology.register_family("x", title="x", paper="x", params=[])  # facets required
