"""Generic fault-tolerant routing (issue 11): every family on the routing contract."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.faults.algorithms import FT_ALGORITHMS, RULE_SHORTEST_T, RULE_UPDOWN_T
from fattree.faults.cdg import ft_deadlock
from fattree.faults.gwalk import GenericRouter, forwarding_table
from fattree.faults.mikant import OK
from fattree.faults.links import random_faults
from fattree.faults.montecarlo import draw_trial, evaluate
from fattree.faults.rules import default_ft_algorithm

WALKS = ("sp", "minimal", "detour", "updown-table", "shortest-table")
SPECS = ("kant:k=3,n=3", "clos:k=2,n=3", "hypercube:d=4", "torus:k=4,n=2", "cat:k=3,n=2")


def _ring(tmp_path, m=6):
    lines = [f"n{i} s{i}" for i in range(m)] + [f"s{i} s{(i + 1) % m}" for i in range(m)]
    lines += ["s0 s3", "n6 s2"]
    f = tmp_path / "ring.txt"
    f.write_text("\n".join(lines) + "\n")
    return fattree.build(f"graph:file={f}")


def _surviving(topo, mask):
    g = nx.Graph()
    g.add_nodes_from(range(topo.n_vertices))
    g.add_edges_from((int(a), int(b)) for e, (a, b) in enumerate(topo.links) if not mask[e])
    return g


@pytest.mark.parametrize("spec", SPECS)
def test_monte_carlo_equals_walked_routes_and_bfs(spec):
    """The study kernel (tables from their column, walks from ft_hop) gives, trial by
    trial, the outcome of GenericRouter (walked forwarding tables) and the oracle's BFS."""
    topo = fattree.build(spec)
    rate, trials, seed = 0.15, 60, 11
    st = evaluate(topo, ",".join(WALKS) + ",oracle", [rate], trials, seed)
    rows = {r["algorithm"]: r for r in st.rows}
    succ = {a: 0 for a in WALKS}
    total = {a: 0 for a in WALKS}
    o_succ, o_total = 0, 0
    for tr in range(trials):
        mask, s, t = draw_trial(topo, seed, 0, tr, rate)
        g = _surviving(topo, mask)
        try:
            d = nx.shortest_path_length(g, s, t)
            o_succ += 1
            o_total += d
        except nx.NetworkXNoPath:
            d = None
        for a in WALKS:
            r = GenericRouter(topo, FT_ALGORITHMS.get(a), mask)
            status, hops, *_ = r.route(s, t)
            if status == OK:
                succ[a] += 1
                total[a] += hops
                assert d is not None and hops >= d
                if a == "shortest-table":
                    assert hops == d
    for a in WALKS:
        assert rows[a]["successes"] == succ[a], a
        if succ[a]:
            assert math.isclose(rows[a]["avg_path_length"], total[a] / succ[a]), a
    assert rows["oracle"]["successes"] == o_succ
    assert math.isclose(rows["oracle"]["avg_path_length"], o_total / o_succ)
    # a table engine recomputed on the surviving graph delivers whenever the fat tree
    # stays connected (shortest-table always; both equal the oracle there)
    assert rows["shortest-table"]["successes"] == o_succ


@pytest.mark.parametrize("spec", SPECS)
def test_no_faults_every_algorithm_is_the_routing(spec):
    topo = fattree.build(spec)
    st = evaluate(topo, "all", [0.0], 300, seed=3)
    lens = {r["algorithm"]: r["avg_path_length"] for r in st.rows}
    assert all(r["success_ratio"] == 1.0 for r in st.rows)
    assert lens["sp"] == lens["minimal"] == lens["detour"] == lens["shortest-table"]
    assert lens["oracle"] == lens["sp"]  # every family's routing is minimal here


@pytest.mark.slow
def test_imported_graph(tmp_path):
    topo = _ring(tmp_path)
    st = evaluate(topo, "all", [0.0, 0.2], 400, seed=1)
    r0 = [r for r in st.rows if r["rate"] == 0.0]
    assert all(r["success_ratio"] == 1.0 for r in r0)
    r2 = {r["algorithm"]: r for r in st.rows if r["rate"] == 0.2}
    assert r2["shortest-table"]["successes"] == r2["oracle"]["successes"]
    assert r2["detour"]["success_ratio"] >= r2["sp"]["success_ratio"]


def test_more_knowledge_never_hurts_on_average():
    topo = fattree.build("kant:k=4,n=3")
    st = evaluate(topo, "sp,minimal,detour,updown-table,oracle", [0.1], 3000, seed=5)
    s = {r["algorithm"]: r["success_ratio"] for r in st.rows}
    assert s["sp"] < s["minimal"] < s["detour"] <= s["oracle"]
    assert s["updown-table"] <= s["oracle"]


@pytest.mark.parametrize("spec", ["kant:k=3,n=3", "torus:k=4,n=2"])
@pytest.mark.parametrize("rule", [RULE_UPDOWN_T, RULE_SHORTEST_T])
def test_forwarding_table_is_switch_by_destination(spec, rule):
    topo = fattree.build(spec)
    mask = random_faults(topo, 0.1, 4, switch_only=True)
    table, order = forwarding_table(topo, rule, mask)
    assert table.shape == (topo.n_switches, topo.n_nodes) and table.dtype == np.int32
    g = _surviving(topo, mask)
    for sw in range(0, topo.n_switches, 3):
        for t in range(0, topo.n_nodes, 5):
            p = int(table[sw, t])
            has = nx.has_path(g, topo.n_nodes + sw, t)
            if rule == RULE_SHORTEST_T:
                assert (p >= 0) == has
            if p >= 0:
                assert not mask[topo.link_index[sw, p]]
                if rule == RULE_SHORTEST_T:
                    v = int(topo.port_peer[sw, p])
                    assert (
                        nx.shortest_path_length(g, v, t)
                        == nx.shortest_path_length(g, topo.n_nodes + sw, t) - 1
                    )


@pytest.mark.parametrize("spec", ["kant:k=3,n=3", "clos:k=2,n=3", "torus:k=4,n=2"])
def test_deadlock_updown_acyclic_and_layers_prove_shortest(spec):
    topo = fattree.build(spec)
    for seed in range(3):
        mask = random_faults(topo, 0.1, seed, switch_only=True)
        r = ft_deadlock(topo, "updown-table", mask)
        assert r.acyclic and r.layers_needed == 1
        s = ft_deadlock(topo, "shortest-table", mask)
        lay = ft_deadlock(topo, "shortest-table", mask, vcs=max(2, s.layers_needed))
        assert lay.acyclic and lay.refused == 0
        d = ft_deadlock(topo, "detour", mask, vcs=8)
        assert d.acyclic  # the turn layers make any route set acyclic (refusing the rest)


def test_fat_tree_minimal_routes_need_one_layer():
    topo = fattree.build("kant:k=3,n=3")
    mask = random_faults(topo, 0.1, 2, switch_only=True)
    r = ft_deadlock(topo, "minimal", mask)
    assert r.acyclic and r.layers_needed == 1  # up then down: up*/down* of the tree


def test_torus_dimension_order_cycles_on_one_vc():
    r = ft_deadlock(fattree.build("torus:k=4,n=2"), "sp")
    assert not r.acyclic and len(r.cycle) == 4


def test_disconnecting_faults_are_counted_not_fatal():
    topo = fattree.build("kant:k=3,n=3")
    st = evaluate(topo, "all", [1.0], 50, seed=0)
    assert all(r["successes"] == 0 for r in st.rows)
    mask = np.ones(topo.n_links, bool)
    for a in WALKS:
        status, hops, *_ = GenericRouter(topo, FT_ALGORITHMS.get(a), mask).route(0, 5)
        assert status != OK and hops == 0


def test_detour_goes_around_a_dead_down_link():
    """Standard fat-tree fault tolerance: the NCA's down link is dead; the detour leaves
    the NCA and descends through another ancestor."""
    topo = fattree.build("kant:k=4,n=3")
    s, t = topo.find_node("n0.0.0"), topo.find_node("n3.3.3")
    r0 = GenericRouter(topo, FT_ALGORITHMS.get("sp"), None).route(s, t)
    sws, ports = r0[2], r0[3]
    # kill the down link of the NCA (the highest switch of the route)
    top = int(np.argmax(topo.switch_level[sws]))
    mask = np.zeros(topo.n_links, bool)
    mask[topo.link_index[sws[top], ports[top]]] = True
    assert GenericRouter(topo, FT_ALGORITHMS.get("sp"), mask).route(s, t)[0] != OK
    st, hops, sws2, _, how = GenericRouter(topo, FT_ALGORITHMS.get("detour"), mask).route(s, t)
    assert st == OK and hops > r0[1]


def test_algorithm_not_for_family_lists_valid_ones():
    with pytest.raises(
        ParameterError,
        match="valid: sp, minimal, detour, adaptive, updown-table, shortest-table, oracle",
    ):
        evaluate(fattree.build("torus:k=4,n=2"), "gns", [0.1], 10)


def test_defaults():
    assert default_ft_algorithm("kant") == "detour"
    assert default_ft_algorithm("mikant") == "escape"
    assert default_ft_algorithm("hypercube") == "detour"


@pytest.mark.parametrize("alg", ["detour", "updown-table"])
def test_simulator_routes_are_the_walks(alg):
    """The simulator's source walk (faults/view.py FaultRouter.route) is exactly the
    generic router's route; with several VCs each hop's VC is its up*/down* turn layer."""
    from fattree.faults.view import FS_ADMIT_OK, fault_router

    topo = fattree.build("kant:k=3,n=3")
    mask = random_faults(topo, 0.1, 3)
    fr = fault_router(topo, alg, mask, vcs=4)
    g = GenericRouter(topo, FT_ALGORITHMS.get(alg), mask)
    N = topo.n_nodes
    for s in range(0, N, 4):
        for t in range(1, N, 5):
            if s == t:
                continue
            st, hops, sws, ports, _ = g.route(s, t)
            got, got_ports, got_vcs = fr.route(s, t, 4)
            if st == OK and max(g.classes(sws, ports)) < 4:
                assert got == FS_ADMIT_OK
                assert got_ports == list(ports)
                assert got_vcs == g.classes(sws, ports)
            else:
                assert got != FS_ADMIT_OK
