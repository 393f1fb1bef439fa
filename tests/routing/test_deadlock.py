"""Channel dependency graphs: known results, a pure-Python reference, networkx."""

from __future__ import annotations

import networkx as nx
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.routing import compile_routing, route
from fattree.routing.deadlock import deadlock, dependency_graph


@pytest.mark.parametrize(
    "spec",
    ["mikant:k=3,n=3", "mikant:k=3,n=4", "mikant:k=2,n=3", "mikant:k=4,n=3", "mikant:k=2,n=2"],
)
def test_algorithm1_is_acyclic(spec):
    # 000's claim; mikant-routing-spec.md §6 (checked there for (3,3) and (3,4))
    t = fattree.build(spec)
    for alg in ("alg1", "dmodk", "smodk", "random", "adaptive"):
        rep = deadlock(t, alg)
        assert rep.acyclic and rep.undelivered_pairs == 0, alg


@pytest.mark.parametrize("spec", ["kant:k=3,n=3", "clos:k=3,n=3", "clos:k=2,n=4"])
def test_tree_routings_are_acyclic(spec):
    t = fattree.build(spec)
    for alg in ("alg1", "dmodk", "smodk", "random", "adaptive", "updown"):
        assert deadlock(t, alg).acyclic, alg


def test_all_minimal_paths_with_one_vc_cycle_through_cross_links():
    t = fattree.build("mikant:k=4,n=3")
    rep = deadlock(t, "minimal-all", vcs=1)
    assert not rep.acyclic and len(rep.cycle) >= 2
    R = t.max_ports
    for ch in rep.cycle_ids:
        sw, p = divmod(ch, R)
        peer = int(t.port_peer[sw, p]) - t.n_nodes
        # a cross link: stage n-2 at both ends, in different groups
        assert t.switch_level[sw] == t.switch_level[peer] == 1
        assert t.switch_digits[sw][0] != t.switch_digits[peer][0]
    # each dependency of the cycle is made by a real route of the algorithm
    ring = rep.cycle + rep.cycle[:1]
    for i, r in enumerate(rep.routes):
        a, b = ring[i].split(" ")[0], ring[i + 1].split(" ")[0]
        hops = [f"{x}→{y}" for x, y in zip(r["path"], r["path"][1:])]
        assert a in hops and hops[hops.index(a) + 1] == b
        assert r["path"][0] == r["src"] and r["path"][-1] == r["dst"]
        assert len(r["path"]) - 1 == route(t, "alg1", r["src"], r["dst"]).hops  # minimal
    # the second VC class after the second crossing removes every cycle
    assert deadlock(t, "minimal-all", vcs=2).acyclic


def test_kernel_dependencies_equal_pure_python_ones():
    """Dependencies rebuilt from the routes of every pair, in plain Python."""
    t = fattree.build("mikant:k=3,n=3")
    for alg in ("alg1", "smodk"):
        cr = compile_routing(t, alg)
        R = t.max_ports
        want = set()
        for s in range(t.n_nodes):
            for d in range(t.n_nodes):
                if s != d:
                    r = route(t, cr, s, d)
                    ch = [sw * R + p for sw, p in zip(r.switches, r.ports)]
                    want.update(zip(ch, ch[1:]))
        got = {tuple(e) for e in dependency_graph(t, cr).edges(t).tolist()}
        assert got == want, alg


@pytest.mark.parametrize(
    "alg,vcs",
    [("alg1", 1), ("adaptive", 1), ("minimal-all", 1), ("minimal-all", 2), ("shortest", 1)],
)
def test_cycle_search_agrees_with_networkx(alg, vcs):
    t = fattree.build("mikant:k=3,n=3")
    g = dependency_graph(t, alg, vcs=vcs)
    dg = nx.DiGraph()
    dg.add_edges_from(map(tuple, g.edges(t).tolist()))
    rep = deadlock(t, alg, vcs=vcs)
    assert rep.acyclic == nx.is_directed_acyclic_graph(dg)
    if not rep.acyclic:
        cyc = rep.cycle_ids
        assert all(dg.has_edge(a, b) for a, b in zip(cyc, cyc[1:] + cyc[:1]))


def _ring(tmp_path, m=5):
    f = tmp_path / "ring.txt"
    f.write_text(
        "\n".join([f"n{i} s{i}" for i in range(m)] + [f"s{i} s{(i + 1) % m}" for i in range(m)])
        + "\n"
    )
    return fattree.build(f"graph:file={f}")


def test_shortest_paths_on_a_ring_deadlock_updown_does_not(tmp_path):
    # the classic example: minimal routing on a ring of 5 closes a cycle of channels
    t = _ring(tmp_path)
    rep = deadlock(t, "shortest")
    assert not rep.acyclic and len(rep.cycle) == 5
    assert deadlock(t, "updown").acyclic


def test_failed_links_drop_routes():
    t = fattree.build("mikant:k=2,n=3")
    link = int(t.link_index[t.n_switches - 1, 2])  # a cross link
    rep = deadlock(t, "alg1", failed_links=[link])
    assert rep.undelivered_pairs > 0 and rep.method == "routes" and rep.acyclic


def test_bad_vcs():
    t = fattree.build("kant:k=2,n=2")
    for v in (0, 9, 1.5, True):
        with pytest.raises(ParameterError, match="vcs"):
            deadlock(t, "alg1", vcs=v)
