"""Channel dependency graphs of fault-tolerant routing (spec §6), the escape VC rule, and
route explanations."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.faults import ft_route
from fattree.faults.cdg import (
    algorithms_for_deadlock,
    classes_bound,
    ft_deadlock,
    ft_dependency_graph,
    ft_rank,
    ft_vc,
    route_vcs,
    walk_vcs,
)
from fattree.faults.explain import explain_route, resolve_route_algorithm
from fattree.faults.links import mikant_link_id, random_faults
from fattree.faults.montecarlo import draw_trial

VECTORS = Path(__file__).resolve().parents[1] / "data" / "mikant-routing-vectors.json"
NAMES = {
    "SP": "sp",
    "GNS": "gns",
    "GDL": "gdl",
    "TT": "tt",
    "GNS+XT": "gns+xt",
    "ALL": "gns+tt+xt+gdl",
    "ALL+ROOT": "gns+tt+xt+gdl+root",
    "ALL+UPALT": "gns+tt+xt+gdl+upalt",
}
ALL_ALGS = algorithms_for_deadlock("mikant", "all")


def _vectors(kind):
    if not VECTORS.exists():
        return []
    return [v for v in json.loads(VECTORS.read_text())["vectors"] if v["kind"] == kind]


def _topo(spec, _cache={}):  # noqa: B006  (a memo on purpose)
    if spec not in _cache:
        _cache[spec] = fattree.build(spec)
    return _cache[spec]


def _mask(t, ids):
    m = np.zeros(t.n_links, bool)
    for lid in ids:
        m[mikant_link_id(t, lid)] = True
    return m


def _lab(prefix, digits):
    return prefix + ".".join(map(str, digits))


def _channel(t, ch, V=1):
    """(switch label, port) of channel id ch."""
    sw, p = divmod(ch // V, t.max_ports)
    return t.switch_label(sw), p


def _route_deps(t, sws, ports):
    """Consecutive (switch label, port) pairs of one route."""
    hops = list(zip(sws, ports))
    return list(zip(hops[:-1], hops[1:]))


# --------------------------------------------------------------- spec §6 vectors


@pytest.mark.parametrize("vec", _vectors("cdg"), ids=lambda v: v["id"])
def test_spec_cdg_vector(vec):
    t = _topo(f"mikant:k={vec['k']},n={vec['n']}")
    bad = _mask(t, vec["faulty_links"])
    r = ft_deadlock(t, NAMES[vec["algorithm"]], bad)
    assert r.acyclic == (not vec["expected"]["cycle"])
    if r.acyclic:
        assert r.not_delivered == 0 and r.delivered == t.n_nodes * (t.n_nodes - 1)
        return
    want = [(_lab("s", s), p) for s, p in vec["expected"]["dependency_cycle"]]
    got = [_channel(t, c) for c in r.cycle_ids]
    # the reported (shortest) cycle is the spec's, channel for channel, up to rotation
    i = got.index(want[0])
    assert got[i:] + got[:i] == want
    # every dependency is created by the route reported for it, and by one of the spec's routes
    prefix = vec["id"].split("-")[0] + "-deadlock-route"
    named = [v for v in _vectors("route") if v["id"].startswith(prefix)]
    assert named
    spec_deps = set()
    for rv in named:
        fr = ft_route(
            t,
            NAMES[rv["algorithm"]],
            t.find(_lab("n", rv["src"])),
            t.find(_lab("n", rv["dst"])),
            bad,
        )
        assert fr.success
        spec_deps |= set(_route_deps(t, [p for p in fr.path if p.startswith("s")], fr.ports))
    ring = want + want[:1]
    for (a, b), w in zip(zip(ring[:-1], ring[1:]), r.routes):
        assert (a, b) in spec_deps
        sws = [p for p in w["path"] if p.startswith("s")]
        assert (a, b) in _route_deps(t, sws, w["ports"])


def test_spec_counterexamples_acyclic_with_the_escape_rule():
    t = _topo("mikant:k=3,n=3")
    refused = {}
    for vec in _vectors("cdg"):
        if vec["n"] != 3 or not vec["faulty_links"]:
            continue
        bad = _mask(t, vec["faulty_links"])
        alg = NAMES[vec["algorithm"]]
        r = ft_deadlock(t, alg, bad, vcs=2)
        assert r.acyclic and r.vc_rule == "escape"
        refused[alg] = r.refused
        full = ft_deadlock(t, alg, bad, vcs=classes_bound(alg, 3))
        assert full.acyclic and full.refused == 0 and full.delivered == r.delivered
    # TT's group-1 same-group routes over the faulty crossing make two turns
    assert refused == {"tt": 54, "gns": 0, "gdl": 0}


def test_alg1_fault_free_is_class_0_everywhere():
    for spec in ("mikant:k=3,n=3", "mikant:k=3,n=4", "mikant:k=2,n=2"):
        t = _topo(spec)
        for alg in ("sp", "gns+tt+xt+gdl", "escape"):
            r = ft_deadlock(t, alg, vcs=2)
            N = t.n_nodes
            assert r.acyclic and r.delivered == N * (N - 1) and r.classes == [N * (N - 1), 0]


# --------------------------------------------------------------- the escape rule


def _py_rank(t, sw, port):
    """The rank from the switch label (spec §1.2 port table), independently of ft_rank."""
    k, n = t.params["k"], t.params["n"]
    g, L, *d = t.switch_digits[sw].tolist()
    if port < k:
        return 2 * n + 2 - L
    if L < n - 2:
        return L
    straight = port - k == d[0]
    return n - 2 + 2 * straight + g


@pytest.mark.parametrize(
    "spec", ["mikant:k=3,n=3", "mikant:k=2,n=4", "mikant:k=4,n=3", "mikant:k=3,n=2"]
)
def test_ft_vc_matches_a_python_reference(spec):
    t = _topo(spec)
    k, n = t.params["k"], t.params["n"]
    N = t.n_nodes
    for sw in range(t.n_switches):
        L = int(t.switch_level[sw])
        for out in range(2 * k):
            assert ft_rank(k, n, sw, out) == _py_rank(t, sw, out)
            for ip in range(-1, 2 * k):
                injected = ip < 0 or int(t.port_peer[sw, ip]) < N
                r_in = (
                    None
                    if injected
                    else _py_rank(t, int(t.port_peer[sw, ip]) - N, int(t.port_peer_port[sw, ip]))
                )
                for vc in range(3):
                    want = 0 if injected else vc + (_py_rank(t, sw, out) <= r_in)
                    assert ft_vc(k, n, sw, ip, vc, out, 3) == (want if want < 3 else -1)
                    assert L >= 0


def _phi_increases(g):
    """Every dependency climbs (class, rank): the invariant behind the proof."""
    t, V = g.topo, g.vcs
    k, n = t.params["k"], t.params["n"]
    R = t.max_ports
    c, j = np.nonzero(g.adj)
    for a, q in zip(c.tolist(), j.tolist()):
        sw, p = divmod(a // V, R)
        nxt = int(t.port_peer[sw, p]) - t.n_nodes
        before = (a % V, ft_rank(k, n, sw, p))
        after = (q % V, ft_rank(k, n, nxt, q // V))
        if not after > before:
            return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["mikant:k=3,n=3", "mikant:k=3,n=4"])
def test_random_fault_sets_all_algorithms_acyclic_with_2_vcs(spec):
    """50 fault sets at 5-20 %: with 2 VCs every algorithm's graph is acyclic (routes that
    need a third class are refused and counted); with the bound's classes nothing is
    refused; the papers' algorithms are cyclic on 1 VC for many of these sets."""
    t = _topo(spec)
    n = t.params["n"]
    cyclic_1vc = {a: 0 for a in ALL_ALGS}
    refused = {a: 0 for a in ALL_ALGS}
    for i in range(50):
        bad = random_faults(t, 0.05 + 0.15 * i / 49, seed=1000 + i)
        for a in ALL_ALGS:
            r2 = ft_deadlock(t, a, bad, vcs=2)
            assert r2.acyclic, (a, i, r2.cycle)
            refused[a] += r2.refused
            if i % 10 == 0:
                assert _phi_increases(ft_dependency_graph(t, a, bad, vcs=2))
            if i % 5:
                continue
            b = classes_bound(a, n)
            if b is not None:  # (ROOT's loose bound exceeds 8 VCs; it needs at most 6 here)
                rb = ft_deadlock(t, a, bad, vcs=min(b, 8))
                assert rb.acyclic and rb.refused == 0 and rb.delivered == r2.delivered
            cyclic_1vc[a] += not ft_deadlock(t, a, bad).acyclic
    assert cyclic_1vc["sp"] == 0 and cyclic_1vc["upalt"] == 0
    for a in ("gns", "gns+tt+xt+gdl", "tt", "escape"):
        assert cyclic_1vc[a] >= 3, (a, cyclic_1vc)
    # one turn per detour: GNS never needs a second class-up on these sizes
    assert refused["sp"] == refused["gns"] == refused["upalt"] == 0
    assert refused["gns+tt+xt+gdl"] > 0


@pytest.mark.slow
def test_observed_classes_never_exceed_the_bound():
    rng = np.random.default_rng(3)
    for spec in ("mikant:k=2,n=3", "mikant:k=2,n=4", "mikant:k=3,n=2"):
        t = _topo(spec)
        n = t.params["n"]
        seen = {}
        for _ in range(40):
            bad = random_faults(t, float(rng.uniform(0.02, 0.4)), seed=int(rng.integers(1 << 30)))
            for a in ALL_ALGS:
                for m in ("local", "lookahead"):
                    g = ft_dependency_graph(t, a, bad, model=m, vcs=8)
                    used = np.nonzero(g.classes)[0]
                    c = int(used[-1]) + 1 if used.size else 0
                    b = classes_bound(a, n)
                    if b is not None:
                        assert g.stats[1] == 0 and c <= b, (spec, a, m, c, b)
                    seen[a] = max(seen.get(a, 0), c)
        # the bounds of the papers' single detours are reached
        assert seen["gns"] == classes_bound("gns", n) or n == 2
        assert seen["tt"] == classes_bound("tt", n)


def test_classes_bound_values():
    assert [classes_bound(a, 3) for a in ("sp", "gns", "gdl", "gns+gdl", "tt", "gns+xt")] == [
        1,
        2,
        2,
        3,
        3,
        4,
    ]
    assert classes_bound("gdl", 4) == 3 and classes_bound("gns+tt+xt+gdl", 4) == 6
    assert classes_bound("escape", 3) is None and classes_bound("upalt", 3) == 2


def test_naive_escape_vc_is_not_deadlock_free():
    """VC 1 from the first detour hop to the end (the obvious escape channel) leaves cycles
    on VC 1; the turn rule does not."""
    t = _topo("mikant:k=3,n=3")
    bad = random_faults(t, 0.05 + 0.15 * 29 / 49, seed=1029)
    naive = ft_deadlock(t, "gns+gdl", bad, vcs=2, vc_rule="detour")
    assert not naive.acyclic
    assert all(c.endswith("vc1") for c in naive.cycle)
    assert ft_deadlock(t, "gns+gdl", bad, vcs=3).acyclic


def test_cycle_against_networkx():
    t = _topo("mikant:k=3,n=3")
    for seed in range(4):
        bad = random_faults(t, 0.1, seed=seed)
        for a, V in (("gns+tt+xt+gdl", 1), ("tt", 1), ("escape", 2), ("gns+gdl", 2)):
            g = ft_dependency_graph(t, a, bad, vcs=V, vc_rule="detour" if V == 2 else "auto")
            R = t.max_ports
            c, j = np.nonzero(g.adj)
            sw, p = np.divmod(c // V, R)
            nxt = t.port_peer[sw, p] - t.n_nodes
            G = nx.DiGraph()
            G.add_edges_from(zip(c.tolist(), ((nxt * R + j // V) * V + j % V).tolist()))
            r = ft_deadlock(t, a, bad, vcs=V, vc_rule="detour" if V == 2 else "auto")
            assert r.acyclic == nx.is_directed_acyclic_graph(G)
            if not r.acyclic:
                ring = r.cycle_ids + r.cycle_ids[:1]
                assert all(G.has_edge(x, y) for x, y in zip(ring[:-1], ring[1:]))
                assert len(r.cycle) == min(len(cy) for cy in _some_cycles(G, r.cycle_ids))


def _some_cycles(G, through):
    """Shortest cycles through each channel of ``through`` (networkx)."""
    out = []
    for c in through:
        for pred in G.predecessors(c):
            try:
                out.append(nx.shortest_path(G, c, pred))
            except nx.NetworkXNoPath:
                pass
    return out


def test_graph_equals_a_python_build_from_ft_route():
    """Slow reference: the dependencies of every delivered ft_route, pair by pair."""
    t = _topo("mikant:k=2,n=3")
    N = t.n_nodes
    for seed, alg, model in (
        (1, "gns+tt+xt+gdl", "local"),
        (2, "gns+xt", "lookahead"),
        (3, "escape", "local"),
    ):
        bad = random_faults(t, 0.15, seed=seed)
        want = set()
        for s in range(N):
            for d in range(N):
                if s != d:
                    r = ft_route(t, alg, s, d, bad, model=model)
                    if r.success:
                        sws = [t.find(x) - N for x in r.path[1:-1]]
                        want |= set(_route_deps(t, sws, r.ports))
        g = ft_dependency_graph(t, alg, bad, model=model)
        c, j = np.nonzero(g.adj)
        sw, p = np.divmod(c, t.max_ports)
        nxt = t.port_peer[sw, p] - N
        got = {((int(a), int(b)), (int(x), int(y))) for a, b, x, y in zip(sw, p, nxt, j)}
        assert got == want


@pytest.mark.parametrize("alg", ["minimal", "detour", "adaptive", "updown-table", "oracle"])
def test_walk_vcs_refuses_what_the_paper_walk_does_not_route(alg):
    t = _topo("mikant:k=3,n=3")
    bad = np.zeros(t.n_links, bool)
    with pytest.raises(ParameterError, match=f"algorithm='{alg}' is invalid for walk_vcs"):
        walk_vcs(t, alg, 0, 5, bad)
    assert walk_vcs(t, "sp", 0, 5, bad)[0] == 0  # the paper walk's own still route


def test_walk_vcs_and_route_vcs_agree():
    t = _topo("mikant:k=3,n=3")
    k, n = 3, 3
    bad = random_faults(t, 0.15, seed=11)
    for s, d in ((0, 30), (5, 50), (27, 3), (40, 41)):
        st, sw, ports, vc = walk_vcs(t, "gns+tt+xt+gdl", s, d, bad, vcs=4)
        if st != 0:
            continue
        out = np.empty(len(sw), np.int64)
        top = route_vcs(k, n, np.array(sw), np.array(ports), len(sw), t.port_peer_port, 4, out)
        assert out.tolist() == vc and top == max(vc)
        assert vc == sorted(vc)  # classes never decrease along a route


def test_errors():
    t = _topo("mikant:k=3,n=3")
    with pytest.raises(ParameterError, match="oracle"):
        ft_deadlock(t, "oracle")
    with pytest.raises(ParameterError, match="vcs=0"):
        ft_deadlock(t, "gns", vcs=0)
    with pytest.raises(ParameterError, match="vc_rule='x'"):
        ft_deadlock(t, "gns", vcs=2, vc_rule="x")
    # one entry for every family: on kant, 001's walks are not algorithms of the family
    with pytest.raises(ParameterError, match="'gns' is not defined for family 'kant'"):
        ft_deadlock(_topo("kant:k=2,n=2"), "gns")
    assert ft_deadlock(_topo("kant:k=2,n=2"), "detour").acyclic  # the generic CDG
    with pytest.raises(ParameterError, match="cube ranks are not defined"):
        ft_deadlock(_topo("mikantc:k=2,n=2"), "sp")
    with pytest.raises(ParameterError, match="model='global'"):
        ft_deadlock(t, "gns", model="global")
    with pytest.raises(ParameterError, match="shape"):
        ft_deadlock(t, "gns", np.zeros(3, bool))


# --------------------------------------------------------------- explanations


def _explain_vec(vid):
    (v,) = [v for v in _vectors("route") if v["id"] == vid]
    t = _topo(f"mikant:k={v['k']},n={v['n']}")
    bad = _mask(t, v["faulty_links"])
    src = t.find(_lab("n", v["src"])) if "src" in v else None
    start = t.find(_lab("s", v["start_switch"])) - t.n_nodes if "start_switch" in v else None
    e = explain_route(
        t,
        NAMES[v["algorithm"]],
        src,
        t.find(_lab("n", v["dst"])),
        bad,
        model=v.get("model", "local"),
        start_switch=start,
    )
    assert e.success == v["expected"]["success"]
    assert e.switches == [_lab("s", s) for s in v["expected"]["switches"]]
    return e, [(ev["event"], ev["algorithm"]) for ev in e.events]


def test_explain_the_papers_examples():
    e, ev = _explain_vec("001-sec4.2.1-GNS-example")
    assert ev == [("fault", None), ("detour", "GNS")]
    assert [r["rule"] for r in e.rows] == ["GNS g1", "GNS g2", "GNS g3 (A1)", "A1", "A1"]
    assert e.events[0]["fault_class"] == "a cross-group crossing"
    assert e.events[0]["link"] == ["s0.1.0.0", "s1.1.0.0"]

    e, ev = _explain_vec("001-sec4.2.2-GDL-example")
    assert ev == [("fault", None), ("detour", "GDL")]
    assert e.events[0]["fault_class"] == "a down-phase hop"

    e, ev = _explain_vec("001-sec4.2.3-XT-template-local")  # GNS+XT: GNS cannot start
    assert ev == [("fault", None), ("skip", "GNS"), ("detour", "XT")]
    assert [r["rule"] for r in e.rows][:5] == ["XT x1", "XT x2", "XT x3", "XT x4", "XT x5 (A1)"]

    e, ev = _explain_vec("ALL-precedence-TT-before-XT")
    assert ev == [("fault", None), ("skip", "GNS"), ("detour", "TT/XT"), ("decide", "TT")]

    e, ev = _explain_vec("001-sec4.2.3-XT-precondition-local")
    assert ev == [("fault", None), ("detour", "GNS"), ("fail", None)]
    assert e.status == "detour dead end" and "step g3" in e.events[-1]["text"]

    e, ev = _explain_vec("001-sec4.2.3-XT-precondition-lookahead")
    assert ev == [("fault", None), ("skip", "GNS"), ("detour", "XT")]
    assert "lookahead" in e.events[1]["text"]

    e, ev = _explain_vec("root-crossing-strict")
    assert ev == [("fault", None), ("fail", None)]
    assert e.events[0]["fault_class"] == "a root crossing"
    assert e.status == "no applicable detour"

    e, ev = _explain_vec("root-crossing-ALL+UPALT")
    assert ("upalt", "UPALT") in ev

    e, ev = _explain_vec("uncovered-stage0-up-link")
    assert e.events[0]["fault_class"] == "an up link below the crossing"
    assert "UPALT" in e.events[0]["text"]


def test_explain_node_links_and_escape():
    t = _topo("mikant:k=3,n=3")
    bad = np.zeros(t.n_links, bool)
    bad[t.find("n0.0.0.0")] = True  # node links are links 0..N-1
    e = explain_route(t, "escape", t.find("n0.0.0.0"), t.find("n1.2.2.2"), bad)
    assert not e.success and e.events[0]["text"].startswith("the source's node link")
    e = explain_route(t, "escape", t.find("n1.2.2.2"), t.find("n0.0.0.0"), bad)
    assert not e.success and e.events[0]["fault_class"] == "the destination's node link"
    e = explain_route(t, "gns", 5, 5, bad)
    assert e.success and e.path == ["n0.0.1.2"] and e.hops == 0 and e.rows == []
    # escape's misroute, found among random fault sets, is explained as such
    found = False
    for seed in range(200):
        bad = random_faults(t, 0.2, seed=seed)
        for s, d in ((0, 53), (10, 40), (20, 30)):
            e = explain_route(t, "escape", s, d, bad)
            if any(ev["event"] == "misroute" for ev in e.events):
                assert "misroute" in [r["rule"] for r in e.rows]
                found = True
                break
        if found:
            break
    assert found


@pytest.mark.slow
def test_explain_agrees_with_ft_route():
    for spec in ("mikant:k=3,n=3", "mikantc:k=3,n=3"):
        t = _topo(spec)
        algs = algorithms_for_deadlock(t.family, "all")
        for tr in range(60):
            bad, s, d = draw_trial(t, 7, 3, tr, 0.15)
            for a in algs:
                r = ft_route(t, a, s, d, bad)
                e = explain_route(t, a, s, d, bad)
                assert (e.path, e.ports, e.hops, e.status) == (r.path, r.ports, r.hops, r.status)
                assert len(e.rows) == len(e.ports)
                assert any(ev["event"] == "fail" for ev in e.events) == (not e.success)


def test_explain_mikantc_multipath():
    t = _topo("mikantc:k=4,n=3")
    found = False
    for tr in range(400):
        bad, s, d = draw_trial(t, 1, 2, tr, 0.1)
        e = explain_route(t, "cube+gns+xt+gdl", s, d, bad)
        if any(ev["event"] == "multipath" for ev in e.events):
            assert "cube multipath" in [r["rule"] for r in e.rows]
            assert e.events[0]["fault_class"] == "a cube hop"
            found = True
            break
    assert found


def test_resolve_route_algorithm():
    t = _topo("mikant:k=3,n=3")
    assert resolve_route_algorithm(t, "alg1", False) == ("routing", "alg1")
    assert resolve_route_algorithm(t, None, True) == ("faults", "sp")
    assert resolve_route_algorithm(t, "ALL4", True) == ("faults", "gns+tt+xt+gdl")
    assert resolve_route_algorithm(t, "escape", False) == ("faults", "escape")
    assert resolve_route_algorithm(t, "dmod", False) == ("routing", "dmod")  # routing's error
    with pytest.raises(ParameterError, match="without fault handling.*valid: sp, gns"):
        resolve_route_algorithm(t, "dmodk", True)
    # issue 11: every family has fault-tolerant routing (no name: the family's default)
    assert resolve_route_algorithm(_topo("clos:k=2,n=2"), "alg1", True) == ("faults", "sp")
    assert resolve_route_algorithm(_topo("clos:k=2,n=2"), None, True) == ("faults", "detour")
    with pytest.raises(ParameterError, match="valid: sp, minimal, detour"):
        resolve_route_algorithm(_topo("clos:k=2,n=2"), "gns", True)
