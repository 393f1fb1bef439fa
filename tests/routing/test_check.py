"""All-pairs verification: the numba kernel against BFS, networkx and a slow
pure-Python transcription of the rules as the papers state them."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fattree
from fattree.errors import ParameterError, ResourceError, UnknownNameError
from fattree.routing import algorithms_for, compile_routing, default_algorithm, route
from fattree.routing.check import check

TREE_ALGS = ("alg1", "dmodk", "smodk", "random", "adaptive")


@pytest.mark.slow
@pytest.mark.parametrize("family", ["kant", "clos", "mikant"])
@pytest.mark.parametrize(
    "k,n", [(2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (3, 4), (4, 2), (4, 3), (4, 4)]
)
def test_all_pairs_delivered_and_minimal(family, k, n):
    t = fattree.build(f"{family}:k={k},n={n}")
    for alg in TREE_ALGS + (("minimal-all", "dmodk-bal") if family == "mikant" else ()):
        rep = check(t, alg, count_paths=False)
        assert rep.ok, (alg, rep.examples)
        assert rep.pairs == t.n_nodes * (t.n_nodes - 1) == rep.delivered
        assert rep.non_minimal == 0 and rep.hist == rep.bfs_hist


# ---------------------------------------------------------------- pure-Python references
def _a1_ref(G, L, D, T, k, n, policy, S):
    """000 Algorithm 1 as mikant-routing-spec.md §2 writes it, with the up-port policy
    inside a group. D = (D_{n-2}, ..., D_0); T, S = (G, C_{n-1}, ..., C_0)."""
    w = lambda i: D[n - 2 - i]  # noqa: E731
    tt = lambda i: T[1 + n - 1 - i]  # noqa: E731
    ss = lambda i: S[1 + n - 1 - i]  # noqa: E731
    if G == T[0] and all(w(i) == tt(i) for i in range(L, n - 1)):
        return tt(L - 1) if L >= 1 else tt(n - 1)
    if L == n - 2 or policy == "alg1":
        return k + tt(L)
    src = ss if policy == "smodk" else tt
    return k + (src(L - 1) if L >= 1 else src(n - 1))


def _tree_ref(family, sw_digits, T, S, k, n, policy):
    """Nearest-common-ancestor up*/down* on kant/clos labels (000 Fig. 1-2)."""
    if family == "kant":
        stage, D = sw_digits[0], sw_digits[1:]
        side, lev, C, g = 0, stage, T, 0
        src = S
    else:
        stage, D = sw_digits[0], sw_digits[1:]
        mid = n - 1
        g, C, src = T[0], T[1:], S[1:]
        if stage == mid:
            return C[1] + (k if g == 1 else 0)  # digit n-2 of the destination
        side, lev = (0, stage) if stage < mid else (1, 2 * n - 2 - stage)
    w = lambda i: D[n - 2 - i]  # noqa: E731
    tt = lambda i: C[n - 1 - i]  # noqa: E731
    if side == g and all(w(i) == tt(i) for i in range(lev, n - 1)):
        return tt(lev - 1) if lev >= 1 else tt(n - 1)
    if policy == "alg1":
        return k + tt(lev)
    c = tt if policy == "dmodk" else (lambda i: src[n - 1 - i])
    return k + (c(lev - 1) if lev >= 1 else c(n - 1))


def _walk_ref(t, family, s, d, policy):
    k, n = t.params["k"], t.params["n"]
    T = tuple(t.node_digits[d].tolist())
    S = tuple(t.node_digits[s].tolist())
    sw = int(t.node_switch[s])
    ports = []
    for _ in range(4 * n + 4):
        dig = tuple(t.switch_digits[sw].tolist())
        if family == "mikant":
            p = _a1_ref(dig[0], dig[1], dig[2:], T, k, n, policy, S)
        else:
            p = _tree_ref(family, dig, T, S, k, n, policy)
        ports.append(p)
        v = int(t.port_peer[sw, p])
        if v == d:
            return ports
        assert v >= t.n_nodes, "reference walked into a wrong node"
        sw = v - t.n_nodes
    raise AssertionError("reference loops")


@pytest.mark.parametrize(
    "spec",
    [
        "mikant:k=3,n=3",
        "mikant:k=2,n=4",
        "mikant:k=3,n=2",
        "kant:k=3,n=3",
        "kant:k=2,n=4",
        "clos:k=3,n=3",
        "clos:k=2,n=2",
    ],
)
@pytest.mark.parametrize("policy", ["alg1", "dmodk", "smodk"])
def test_kernel_matches_pure_python_reference(spec, policy):
    t = fattree.build(spec)
    cr = compile_routing(t, policy)
    for s in range(t.n_nodes):
        for d in range(t.n_nodes):
            if s != d:
                assert route(t, cr, s, d).ports == _walk_ref(t, t.family, s, d, policy), (s, d)


def test_dmodk_spreads_a_leafs_nodes_over_k_spines():
    # the k nodes of one leaf are reached through k different roots (dmodk) or one (alg1)
    t = fattree.build("kant:k=4,n=3")
    leaf_nodes = [d for d in range(t.n_nodes) if t.node_switch[d] == 5]
    for alg, expect in (("dmodk", 4), ("alg1", 1)):
        roots = {route(t, alg, 0, d).switches[2] for d in leaf_nodes}
        assert len(roots) == expect


# ---------------------------------------------------------------- networkx cross-check
@settings(max_examples=40, deadline=None)
@given(
    fam=st.sampled_from(["kant", "clos", "mikant"]),
    k=st.integers(2, 4),
    n=st.integers(2, 4),
    alg=st.sampled_from(TREE_ALGS),
    data=st.data(),
)
def test_random_pairs_follow_graph_shortest_paths(fam, k, n, alg, data):
    t = fattree.build(f"{fam}:k={k},n={n}")
    s = data.draw(st.integers(0, t.n_nodes - 1))
    d = data.draw(st.integers(0, t.n_nodes - 1))
    key = data.draw(st.integers(0, 2**40))
    r = route(t, compile_routing(t, alg, seed=3), s, d, pkt_key=key)
    g = _graph(fam, k, n)
    assert r.delivered and r.path[0] == t.node_label(s) and r.path[-1] == t.node_label(d)
    assert all(g.has_edge(a, b) for a, b in zip(r.path, r.path[1:]))
    assert r.hops == nx.shortest_path_length(g, r.path[0], r.path[-1])


_GRAPHS: dict = {}


def _graph(fam, k, n):
    key = (fam, k, n)
    if key not in _GRAPHS:
        _GRAPHS[key] = fattree.build(f"{fam}:k={k},n={n}").to_networkx()
    return _GRAPHS[key]


def test_random_varies_per_packet_and_is_reproducible():
    t = fattree.build("kant:k=4,n=3")
    cr = compile_routing(t, "random", seed=11)
    routes = {tuple(route(t, cr, 0, 63, pkt_key=key).switches) for key in range(200)}
    assert len(routes) == 16  # every (level-1, root) choice: k^(n-1) minimal paths
    assert route(t, cr, 0, 63, pkt_key=5).switches == route(t, cr, 0, 63, pkt_key=5).switches
    other = compile_routing(t, "random", seed=12)
    assert any(
        route(t, cr, 0, 63, pkt_key=x).switches != route(t, other, 0, 63, pkt_key=x).switches
        for x in range(20)
    )


# ---------------------------------------------------------------- path diversity
def test_minimal_all_uses_every_shortest_path_adaptive_fewer():
    t = fattree.build("mikant:k=3,n=3")
    full = check(t, "minimal-all")
    assert full.pairs_all_shortest == full.pairs
    assert full.paths_mean == pytest.approx(full.sp_paths_mean)
    ad = check(t, "adaptive")
    # Algorithm 1's crossing rule gives up the k-1 other roots of a root crossing
    assert 1 < ad.paths_mean < full.paths_mean
    assert check(t, "random").paths_mean == pytest.approx(ad.paths_mean)
    assert check(t, "alg1").paths_max == 1


def test_kant_adaptive_paths_equal_graph_count():
    rep = check(fattree.build("kant:k=3,n=3"), "adaptive")
    assert rep.pairs_all_shortest == rep.pairs and rep.paths_max == 9


# ---------------------------------------------------------------- generic tables
def _ring_edgelist(tmp_path, m=6):
    lines = [f"n{i} s{i}" for i in range(m)] + [f"s{i} s{(i + 1) % m}" for i in range(m)]
    lines += ["s0 s3", "n6 s2"]  # a chord and a second node on s2: irregular
    f = tmp_path / "ring.txt"
    f.write_text("\n".join(lines) + "\n")
    return f


@pytest.mark.slow
@pytest.mark.parametrize("alg", ["shortest", "updown"])
def test_tables_on_an_imported_irregular_graph(tmp_path, alg):
    t = fattree.build(f"graph:file={_ring_edgelist(tmp_path)}")
    assert alg in algorithms_for(t.family) and default_algorithm(t.family) == "shortest"
    rep = check(t, alg)
    assert rep.delivered == rep.pairs == t.n_nodes * (t.n_nodes - 1)
    if alg == "shortest":
        assert rep.ok and rep.non_minimal == 0


def test_tables_on_trees_are_valid():
    for spec in ("mikant:k=3,n=3", "clos:k=2,n=3", "kant:k=3,n=2"):
        t = fattree.build(spec)
        assert check(t, "shortest").ok
        assert check(t, "updown").delivered == t.n_nodes * (t.n_nodes - 1)


def test_table_too_big_is_refused(monkeypatch):
    from fattree.routing import algorithms as mod

    monkeypatch.setattr(mod, "TABLE_LIMIT_BYTES", 1000)
    with pytest.raises(ResourceError, match="next-hop table"):
        compile_routing(fattree.build("mikant:k=3,n=3"), "shortest")


# ---------------------------------------------------------------- faults and errors
def test_failed_link_blocks_oblivious_routes():
    t = fattree.build("kant:k=2,n=3")
    link = int(t.link_index[t.n_switches - 1, 0])  # a root's down link
    rep = check(t, "alg1", failed_links=[link])
    assert rep.no_route > 0 and not rep.ok
    ad = check(t, "adaptive", failed_links=[link])
    assert ad.no_route < rep.no_route  # adaptive steers around it when it can


def test_bad_arguments():
    t = fattree.build("kant:k=2,n=2")
    with pytest.raises(UnknownNameError, match="valid for kant: alg1"):
        compile_routing(t, "nope")
    with pytest.raises(ParameterError, match="not defined for family 'kant'"):
        compile_routing(t, "minimal-all")
    with pytest.raises(ParameterError, match="seed"):
        compile_routing(t, "random", seed=-1)
    with pytest.raises(ParameterError, match="destinations"):
        check(t, "alg1", destinations=[99])
    with pytest.raises(ParameterError, match="is a switch"):
        route(t, "alg1", 0, t.n_nodes)
    with pytest.raises(ParameterError, match="failed_links"):
        check(t, "alg1", failed_links=np.zeros(3, bool))
