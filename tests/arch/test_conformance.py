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
    """A paper walk plugs into every consumer through its one record of hooks: the record
    is registered, the simulator's engines and the Monte Carlo loop resolve it by type,
    and its algorithms run on it."""
    from fattree.faults.hooks import walk_by_type
    from fattree.faults.walks import FAULT_WALKS, GENERIC_ENGINE, engine_of
    from fattree.faults.view import ENG_WALKS, VIEWS

    f = _facets(name)
    if f.fault_walk is None:
        assert engine_of(name) == GENERIC_ENGINE
        return
    w = FAULT_WALKS.get(f.fault_walk)
    assert VIEWS[ENG_WALKS[w.name]] is w.sim_view
    assert walk_by_type(w.sim_view) is w and walk_by_type(w.study_type) is w
    assert any(a.walked_on(name) for a in resolve_algorithms("all", name))


def test_every_fault_walk_is_declared_by_a_family_and_complete():
    """The other way: every registered walk is some family's ``Facets.fault_walk``, has
    every hook, and its kernels' types are its own (no two walks share a view or a
    study context, so the type-resolved dispatch is unambiguous)."""
    import dataclasses

    from fattree.faults.walks import FAULT_WALKS

    declared = {_facets(n).fault_walk for n in NAMES}
    types = []
    for name, w in FAULT_WALKS.items():
        assert name == w.name and name in declared, name
        for fld in dataclasses.fields(w):
            if fld.default is dataclasses.MISSING:
                assert getattr(w, fld.name) is not None, (name, fld.name)
        types += [w.sim_view, w.study_type]
        assert w.warmup, name
    assert len(set(types)) == len(types)


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
