"""Routing of the cube, hybrid and MIN families: delivery, minimality, deadlock freedom
with the virtual channels each declares, and the papers' label invariants."""

from __future__ import annotations

import pytest

import fattree
from fattree.routing import algorithms_for, compile_routing, default_algorithm, route
from fattree.routing.check import check
from fattree.routing.deadlock import deadlock

CASES = [
    ("hypercube:d=4,p=2", "ecube"),
    ("hypercube:d=3", "ecube"),
    ("torus:k=4,n=2", "dor"),
    ("torus:k=5,n=2,p=2", "dor"),
    ("torus:k=3,n=3", "dor"),
    ("torus:k=2,n=3", "dor"),
    ("torus:k=6,n=2", "dor"),
    ("cat:k=2,n=2", "cube-tree"),
    ("cat:k=3,n=3", "cube-tree"),
    ("micat:k=2,n=3", "cube-tree"),
    ("micat:k=3,n=2", "cube-tree"),
    ("kantc:k=3,n=3", "cube-tree"),
    ("kantc:k=4,n=3", "cube-tree"),
    ("kantc:k=5,n=2", "cube-tree"),
    ("mikantc:k=3,n=3", "cube-tree"),
    ("mikantc:k=4,n=2", "cube-tree"),
    ("mikantc:k=5,n=2", "cube-tree"),
    ("minft:clients=8", "summit"),
    ("minft:clients=32", "summit"),
    ("minft:clients=32", "partial-group"),
    ("rsminft:clients=8", "lateral"),
    ("rsminft:clients=64", "lateral"),
]


@pytest.mark.parametrize("spec,alg", CASES)
def test_delivered_minimal_and_deadlock_free(spec, alg):
    t = fattree.build(spec)
    assert default_algorithm(t.family) == alg or alg == "partial-group"
    cr = compile_routing(t, alg)
    rep = check(t, cr, count_paths=False)
    assert rep.ok and rep.delivered == t.n_nodes * (t.n_nodes - 1)
    assert cr.minimal and rep.non_minimal == 0
    assert deadlock(t, cr, vcs=cr.vcs_required).acyclic


@pytest.mark.parametrize(
    "spec,alg",
    [
        ("torus:k=4,n=2", "dor"),
        ("torus:k=5,n=2,p=2", "dor"),
        ("kantc:k=5,n=2", "cube-tree"),
        ("mikantc:k=5,n=2", "cube-tree"),
    ],
)
def test_two_vcs_are_needed(spec, alg):
    t = fattree.build(spec)
    assert compile_routing(t, alg).vcs_required == 2
    rep = deadlock(t, alg, vcs=1)
    assert not rep.acyclic and rep.routes


def test_generic_algorithms_are_offered_everywhere():
    for fam in ("hypercube", "torus", "cat", "kantc", "minft", "rsminft"):
        names = algorithms_for(fam)
        assert names[0] == default_algorithm(fam) and "shortest" in names and "updown" in names


def test_ecube_flips_lowest_bit_first():
    t = fattree.build("hypercube:d=4")
    r = route(t, "ecube", "n0.0.0.0.0", "n1.0.1.1.0")
    # bits 0 and 1 and 3 differ: ports 0, 1, 3 then the node port (4)
    assert r.ports == [0, 1, 3, 4]


def test_torus_takes_the_shorter_way_in_dimension_order():
    t = fattree.build("torus:k=6,n=2")
    r = route(t, "dor", "n0.0.0", "n4.1.0")
    # dimension 0 first: 0 -> 1 (+), then dimension 1: 0 -> 5 -> 4 (the - way)
    assert [t.switch_label(s) for s in r.switches] == ["s0.0", "s0.1", "s5.1", "s4.1"]
    assert r.ports == [0, 3, 3, 4]


@pytest.mark.parametrize(
    "spec", ["cat:k=3,n=3", "micat:k=2,n=3", "kantc:k=3,n=3", "mikantc:k=3,n=3"]
)
def test_cube_hops_keep_the_cube_tree_hops_keep_the_corner(spec):
    """001 §2.1: 'in the routing within a k-cube part the label D will not change;
    similarly the label C will not change when routing in the fat-tree part'. (KANTC's
    level-0 label T is the nearest intermediate's position, so there the cube is T
    without T_0, and a tree hop from intermediate I_j changes C from I_j to 0.)"""
    t = fattree.build(spec)
    cr = compile_routing(t, "cube-tree")
    k, n = t.params["k"], t.params["n"]
    g = 1 if t.family in ("cat", "micat") else 0  # T digits that name the cube
    pre = t.meta["groups"] - 1  # the G column
    for s in range(0, t.n_nodes, 7):
        for d in range(0, t.n_nodes, 5):
            if s == d:
                continue
            r = route(t, cr, s, d)
            for a, p in zip(r.switches, r.ports[:-1]):
                b = int(t.port_peer[a, p]) - t.n_nodes
                da, db = t.switch_digits[a].tolist(), t.switch_digits[b].tolist()
                if t.port_kind[a, p] == 2:  # a cube hop: same group, level 0, same cube
                    assert da[: pre + 1] == db[: pre + 1] and da[pre] == 0
                    assert da[pre + 1 : pre + n - 1 + g] == db[pre + 1 : pre + n - 1 + g]
                elif g:  # a tree hop of CAT/MiCAT: the corner stays all-zero
                    assert da[-k:] == db[-k:] == [0] * k


def test_cat_leaves_a_cube_through_its_transit_switch():
    t = fattree.build("cat:k=3,n=2")
    r = route(t, "cube-tree", "n0.1.1.1.2", "n2.1.0.1.0")
    corners = [tuple(t.switch_digits[s][-3:].tolist()) for s in r.switches]
    levels = [int(t.switch_level[s]) for s in r.switches]
    up = levels.index(1)
    assert corners[up - 1] == (0, 0, 0) and corners[up + 1] == (0, 0, 0)
    assert r.hops == check(t, "cube-tree", sources=[r.src], destinations=[r.dst]).mean_bfs


def test_min_paths():
    t = fattree.build("minft:clients=16")
    summit = [route(t, "summit", 0, d).switches for d in range(1, 16)]
    assert summit == [route(t, "partial-group", 0, d).switches for d in range(1, 16)]
    # across the halves the summit is the top row
    assert max(int(t.switch_level[s]) for s in route(t, "summit", 0, 15).switches) == 3
    rs = fattree.build("rsminft:clients=16")
    r = route(rs, "lateral", 0, 15)
    kinds = [int(rs.port_kind[s, p]) for s, p in zip(r.switches, r.ports)]
    first = kinds.index(2)  # the lateral hop (PORT_CUBE) ...
    assert all(k in (0, 3) for k in kinds[first + 1 :])  # ... then only down
    assert r.hops < route(t, "summit", 0, 15).hops
