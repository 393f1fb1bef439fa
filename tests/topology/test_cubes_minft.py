"""hypercube, torus, minft and rsminft: counts, distances vs closed forms, ports, labels.

Distances are brute force (scipy BFS over the whole graph, node links count as hops);
closed forms are derived here, independently of the library.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from scipy.sparse.csgraph import connected_components, shortest_path

import fattree
from fattree.cli import main
from fattree.errors import ParameterError, ResourceError
from fattree.topology import FAMILIES, PORT_CUBE, PORT_DOWN, PORT_NODE, PORT_NONE, PORT_UP

from ..conftest import assert_ports_consistent

MIN_SIZES = [8, 16, 32, 64, 128]
# 003 Table 2 (router counts; the caption says "hop count", see errata)
TABLE2 = {8: (12, 8), 16: (32, 24), 32: (80, 64), 64: (192, 160), 128: (448, 384)}
# 003 Table 1: maximum hop count (routers visited): reduced-switch, MIN fat-tree
TABLE1 = {8: (4, 5), 16: (6, 7), 32: (8, 9), 64: (10, 11), 128: (12, 13)}


# ------------------------------------------------------------------ helpers
def adjacency(topo, links=None):
    e = topo.links if links is None else links
    v = topo.n_vertices
    a = sp.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(v, v))
    return (a + a.T).tocsr()


def node_distances(topo):
    """(N, N) hop counts between compute nodes (node links included)."""
    d = shortest_path(
        adjacency(topo), unweighted=True, directed=False, indices=np.arange(topo.n_nodes)
    )
    return d[:, : topo.n_nodes].astype(np.int64)


def assert_port_kinds_symmetric(topo):
    n = topo.n_nodes
    s, p = np.nonzero(topo.port_peer >= n)
    far_s = topo.port_peer[s, p] - n
    far_p = topo.port_peer_port[s, p]
    mine, theirs = topo.port_kind[s, p], topo.port_kind[far_s, far_p]
    opposite = {PORT_UP: PORT_DOWN, PORT_DOWN: PORT_UP, PORT_CUBE: PORT_CUBE}
    assert all(opposite[int(a)] == int(b) for a, b in set(zip(mine.tolist(), theirs.tolist())))
    assert np.all((topo.port_kind == PORT_NONE) == (topo.port_peer < 0))
    assert np.all((topo.port_kind == PORT_NODE) == ((topo.port_peer >= 0) & (topo.port_peer < n)))


def assert_labels_round_trip(topo):
    labels = topo.vertex_labels()
    assert len(set(labels)) == topo.n_vertices
    for v, lab in enumerate(labels):
        assert topo.find(lab) == v
        assert topo.vertex_label(v) == lab


def assert_node_classes_exact(topo):
    """Representative-BFS statistics (family.node_classes) equal the all-pairs ones."""
    dist = node_distances(topo)
    reps, sizes = FAMILIES.get(topo.family).node_classes(topo)
    assert sizes.sum() == topo.n_nodes
    bins = dist.max() + 1
    all_hist = np.bincount(dist.ravel(), minlength=bins)
    rep_hist = sum(w * np.bincount(dist[r], minlength=bins) for r, w in zip(reps, sizes))
    assert np.array_equal(all_hist, rep_hist)
    # stronger: every node sees the same distance distribution as its representative
    for row in dist:
        assert np.array_equal(
            np.bincount(row, minlength=bins), np.bincount(dist[reps[0]], minlength=bins)
        )


# ------------------------------------------------------------------ MIN fat trees
@pytest.mark.parametrize("clients", MIN_SIZES)
def test_min_trees_counts_hops_ports_labels(clients):
    n = clients.bit_length() - 1
    full, red = fattree.build(f"minft:clients={clients}"), fattree.build("rsminft", clients=clients)
    assert (full.n_switches, red.n_switches) == TABLE2[clients]
    assert full.n_switches == n * 2 ** (n - 1) and red.n_switches == (n - 1) * 2 ** (n - 1)
    for t, max_routers in ((full, 2 * n - 1), (red, 2 * n - 2)):
        assert t.n_nodes == clients
        ncomp, _ = connected_components(adjacency(t), directed=False)
        assert ncomp == 1
        # a shortest node-to-node path of h links visits h-1 routers
        assert node_distances(t).max() - 1 == max_routers
        assert_ports_consistent(t)
        assert_port_kinds_symmetric(t)
        assert_labels_round_trip(t)
    assert (node_distances(red).max() - 1, node_distances(full).max() - 1) == TABLE1[clients]


@pytest.mark.parametrize("clients", MIN_SIZES)
def test_min_tree_links_and_radix(clients):
    n = clients.bit_length() - 1
    C = clients // 2
    full, red = (
        fattree.build(f"minft:clients={clients}"),
        fattree.build(f"rsminft:clients={clients}"),
    )
    # butterfly: 2 up links per router below the top row; rsminft adds C/2 lateral links per row
    assert full.n_switch_links == 2 * C * (n - 1)
    assert red.n_switch_links == 2 * C * (n - 2) + (n - 1) * C // 2
    assert sorted(set(full.radix.tolist())) == [2, 4]
    assert sorted(set(red.radix.tolist())) == [3, 5]
    # exactly one lateral link per router, inside its row, on port 4
    lat = red.port_kind == PORT_CUBE
    assert np.array_equal(np.nonzero(lat)[1], np.full(red.n_switches, 4))
    peer = red.port_peer[:, 4] - red.n_nodes
    assert np.array_equal(red.switch_level[peer], red.switch_level)
    assert not np.any(full.port_kind == PORT_CUBE)


@pytest.mark.parametrize("family", ["minft", "rsminft"])
@pytest.mark.parametrize("clients", [8, 32])
def test_min_tree_port_numbering(family, clients):
    # down port j -> child whose bit r-1 is j; up port 2+i -> parent whose bit r is i;
    # client 2c+s on port s of leaf (0, c)
    t = fattree.build(f"{family}:clients={clients}")
    N, C, n = t.n_nodes, t.meta["columns"], t.meta["n"]
    s_ids = np.arange(t.n_switches)
    r, c = s_ids // C, s_ids % C  # switch index r*C + c
    for s in range(t.n_switches):
        # label: row, then the n-1 bits of c, most significant first
        assert t.switch_label(s) == "s" + ".".join([str(r[s])] + list(format(c[s], f"0{n - 1}b")))
        for j in range(2):
            v = int(t.port_peer[s, j])
            if r[s] == 0:
                assert v == 2 * c[s] + j
                assert t.node_label(v) == "n" + ".".join(format(v, f"0{n}b"))
            else:
                assert r[v - N] == r[s] - 1 and (c[v - N] >> (r[s] - 1)) & 1 == j
            u = int(t.port_peer[s, 2 + j])
            if r[s] < t.meta["rows"] - 1:
                assert r[u - N] == r[s] + 1 and (c[u - N] >> r[s]) & 1 == j
                # 003 §3.1: the two parents are (r+1, c) and (r+1, c -+ 2^r)
                assert c[u - N] in (c[s], c[s] ^ (1 << r[s]))
            else:
                assert u == -1


@pytest.mark.parametrize("clients", MIN_SIZES)
def test_minft_is_the_2ary_ntree_relabelled(clients):
    # minft router (r,c) = kant switch <r, c>; client 2c+s = kant node s*K + c
    n = clients.bit_length() - 1
    K = clients // 2
    t, kt = fattree.build(f"minft:clients={clients}"), fattree.build(f"kant:k=2,n={n}")
    addr = np.arange(clients)
    to_kant = np.concatenate([(addr & 1) * K + (addr >> 1), clients + np.arange(t.n_switches)])
    mapped = np.where(t.port_peer >= 0, to_kant[np.maximum(t.port_peer, 0)], -1)
    assert np.array_equal(mapped, kt.port_peer)
    assert np.array_equal(t.port_peer_port, kt.port_peer_port)


def test_rsminft_003_worked_example():
    # 003 §4.3: routers 1-4 lowest level, 5-8 top; new links 1&3, 2&4, 5&7, 6&8
    t = fattree.build("rsminft:clients=8")
    N = t.n_nodes
    pairs = {tuple(sorted((s + 1, int(t.port_peer[s, 4]) - N + 1))) for s in range(t.n_switches)}
    assert pairs == {(1, 3), (2, 4), (5, 7), (6, 8)}


def _lateral_links(topo, bits):
    C = topo.meta["columns"]
    N = topo.n_nodes
    s = np.arange(topo.n_switches)
    r, c = s // C, s % C
    other = r * C + (c ^ (1 << np.asarray(bits)[r]))
    keep = s < other
    return np.stack([N + s[keep], N + other[keep]], axis=1)


def _components_with(topo, bits):
    # keep the butterfly part (everything but the port-4 lateral links), add the rule's
    lat = topo.link_index[:, 4]
    keep = np.ones(topo.n_links, bool)
    keep[lat] = False
    links = np.concatenate([topo.links[keep], _lateral_links(topo, bits)])
    return connected_components(adjacency(topo, links), directed=False)[0]


@pytest.mark.parametrize("clients", MIN_SIZES)
def test_rsminft_eq3_reading(clients):
    # errata: eq. (3) with levels from 1 connects; from 0 it disconnects for N >= 16;
    # the prose rule ("R_i+4 above level 2 when H <= 4", ...) disconnects for N >= 32.
    t = fattree.build(f"rsminft:clients={clients}")
    rows = t.meta["rows"]
    H = rows  # 003: m = 2^h clients, height H = h - 1
    ours = [1 if L == 1 else L - 1 for L in range(1, rows + 1)]
    assert tuple(ours) == t.meta["lateral_bits"]
    from_zero = [1 if r == 0 else r - 1 for r in range(rows)]
    prose = [1 if L <= 2 else 1 + (H - 1) // 2 for L in range(1, rows + 1)]
    assert _components_with(t, ours) == 1
    assert (_components_with(t, from_zero) == 1) == (clients < 16)
    assert (_components_with(t, prose) == 1) == (clients < 32)


def test_rsminft_prose_examples_agree_where_valid():
    # prose: H=2 -> Ri,Ri+2 at both levels; H=3 -> Ri+4 at level 3
    assert fattree.build("rsminft:clients=8").meta["lateral_bits"] == (1, 1)
    assert fattree.build("rsminft:clients=16").meta["lateral_bits"] == (1, 1, 2)
    assert fattree.build("rsminft:clients=128").meta["lateral_bits"] == (1, 1, 2, 3, 4, 5)


@pytest.mark.parametrize("family", ["minft", "rsminft"])
@pytest.mark.parametrize("clients", [8, 16, 32, 64])
def test_min_tree_node_classes(family, clients):
    assert_node_classes_exact(fattree.build(f"{family}:clients={clients}"))


# ------------------------------------------------------------------ hypercube
def hypercube_closed_form(d, p):
    N = p * 2**d
    # pairs on one switch: 2 hops; others: Hamming distance + 2 node links
    per_node = 2 * (p - 1) + p * (d * 2 ** (d - 1) + 2 * (2**d - 1))
    return {
        "nodes": N,
        "switches": 2**d,
        "links": N + d * 2 ** (d - 1),
        "diameter": d + 2,
        "avg": per_node / N,
        "avg_ne": per_node / (N - 1),
    }


@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 7), p=st.integers(1, 3))
def test_hypercube_vs_closed_form(d, p):
    t = fattree.build(f"hypercube:d={d},p={p}")
    cf = hypercube_closed_form(d, p)
    assert (t.n_nodes, t.n_switches, t.n_links) == (cf["nodes"], cf["switches"], cf["links"])
    dist = node_distances(t)
    assert dist.max() == cf["diameter"]
    N = t.n_nodes
    assert dist.sum() / N**2 == pytest.approx(cf["avg"], rel=1e-12)
    assert dist.sum() / (N * (N - 1)) == pytest.approx(cf["avg_ne"], rel=1e-12)
    assert np.all(t.radix == d + p)
    assert_ports_consistent(t)
    assert_port_kinds_symmetric(t)


@pytest.mark.parametrize("d,p", [(1, 1), (3, 2), (4, 1)])
def test_hypercube_ports_and_labels(d, p):
    t = fattree.build("hypercube", d=d, p=p)
    N = t.n_nodes
    for s in range(t.n_switches):
        bits = t.switch_digits[s]
        for i in range(d):
            other = t.switch_digits[int(t.port_peer[s, i]) - N]
            flipped = bits.copy()
            flipped[d - 1 - i] ^= 1  # MSB first: bit i is digit d-1-i
            assert np.array_equal(other, flipped)
            assert t.port_peer_port[s, i] == i and t.port_kind[s, i] == PORT_CUBE
        for j in range(p):
            v = int(t.port_peer[s, d + j])
            assert v == s * p + j and t.port_kind[s, d + j] == PORT_NODE
            assert np.array_equal(t.node_digits[v], np.append(bits, j))
    assert_labels_round_trip(t)
    assert t.meta["cube_ports"] == d and t.meta["node_port_base"] == d


def test_hypercube_switch_graph_is_nx_hypercube():
    t = fattree.build("hypercube:d=4,p=2")
    g = t.to_networkx()
    g.remove_nodes_from([v for v, k in g.nodes(data="kind") if k == "node"])
    assert nx.is_isomorphic(g, nx.hypercube_graph(4))


# ------------------------------------------------------------------ torus
def torus_closed_form(k, n, p):
    S = k**n
    N = p * S
    ring = (k * k) // 4  # sum over x of min(x, k-x)
    per_node = 2 * (p - 1) + p * (n * k ** (n - 1) * ring + 2 * (S - 1))
    cube_links = n * S if k > 2 else n * S // 2
    return {
        "nodes": N,
        "switches": S,
        "links": N + cube_links,
        "diameter": n * (k // 2) + 2,
        "avg": per_node / N,
        "radix": (2 * n if k > 2 else n) + p,
    }


@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 7), n=st.integers(1, 3), p=st.integers(1, 2))
def test_torus_vs_closed_form(k, n, p):
    if k**n > 216:
        n = 2
    t = fattree.build(f"torus:k={k},n={n},p={p}")
    cf = torus_closed_form(k, n, p)
    assert (t.n_nodes, t.n_switches, t.n_links) == (cf["nodes"], cf["switches"], cf["links"])
    assert np.all(t.radix == cf["radix"])
    dist = node_distances(t)
    assert dist.max() == cf["diameter"]
    assert dist.sum() / t.n_nodes**2 == pytest.approx(cf["avg"], rel=1e-12)
    assert_ports_consistent(t)
    assert_port_kinds_symmetric(t)


@pytest.mark.parametrize("k,n,p", [(3, 2, 1), (4, 2, 2), (5, 1, 1), (2, 3, 1)])
def test_torus_ports_and_labels(k, n, p):
    t = fattree.build(f"torus:k={k},n={n},p={p}")
    N = t.n_nodes
    ppd = t.meta["ports_per_dim"]
    assert ppd == (1 if k == 2 else 2)
    for s in range(t.n_switches):
        a = t.switch_digits[s].astype(np.int64)
        for i in range(n):
            col = n - 1 - i  # digit i (weight k^i) is label position n-1-i
            for q, step in enumerate((1, -1)[:ppd]):
                port = ppd * i + q
                b = t.switch_digits[int(t.port_peer[s, port]) - N].astype(np.int64)
                expect = a.copy()
                expect[col] = (a[col] + step) % k
                assert np.array_equal(b, expect)
        for j in range(p):
            assert int(t.port_peer[s, ppd * n + j]) == s * p + j
    assert_labels_round_trip(t)


@pytest.mark.parametrize("d", [1, 2, 5])
def test_torus_k2_is_the_hypercube(d):
    # decision: for k = 2 the +1/-1 neighbours coincide, so one link per dimension
    t, h = fattree.build(f"torus:k=2,n={d}"), fattree.build(f"hypercube:d={d}")
    for name in ("port_peer", "port_peer_port", "port_kind", "switch_digits", "node_digits"):
        assert np.array_equal(getattr(t, name), getattr(h, name)), name


@pytest.mark.parametrize("k,n", [(3, 2), (4, 2), (3, 3), (5, 2)])
def test_torus_switch_graph_is_nx_torus(k, n):
    g = fattree.build(f"torus:k={k},n={n}").to_networkx()
    g.remove_nodes_from([v for v, kind in g.nodes(data="kind") if kind == "node"])
    assert nx.is_isomorphic(g, nx.grid_graph([k] * n, periodic=True))


@pytest.mark.parametrize(
    "spec",
    [
        "hypercube:d=3,p=1",
        "hypercube:d=4,p=3",
        "torus:k=3,n=2,p=2",
        "torus:k=4,n=2,p=1",
        "torus:k=2,n=3,p=2",
        "torus:k=5,n=1,p=3",
    ],
)
def test_cube_node_classes(spec):
    assert_node_classes_exact(fattree.build(spec))


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "spec,words",
    [
        ("minft:clients=12", ["clients=12", "power of two"]),
        ("rsminft:clients=100", ["clients=100", "power of two"]),
        ("minft:clients=4", ["clients=4", "too small", "power of two"]),
        ("rsminft:clients=eight", ["clients='eight'", "not an integer"]),
        ("hypercube:d=0", ["d=0", "too small"]),
        ("hypercube:d=3,p=0", ["p=0", "too small"]),
        ("torus:k=1,n=2", ["k=1", "too small"]),
        ("torus:k=3,n=0", ["n=0", "too small"]),
        ("torus:k=4096,n=3", ["vertices", "int32"]),
        ("hypercube:d=30,p=2", ["vertices", "int32"]),
        ("minft:clientz=8", ["clientz", "clients"]),
    ],
)
def test_bad_parameters(spec, words):
    with pytest.raises(ParameterError) as exc:
        fattree.build(spec)
    for w in words:
        assert w in str(exc.value)


def test_refused_before_allocating():
    with pytest.raises(ResourceError, match="GiB"):
        fattree.build("hypercube:d=29")


def test_cli_lists_families(capsys):
    assert main(["families"]) == 0
    out = capsys.readouterr().out
    for name in ("hypercube", "torus", "minft", "rsminft"):
        assert name in out


@pytest.mark.slow
def test_min_labels_beyond_int16():
    # 65,536 clients: addresses and columns exceed int16, bit labels do not
    t = fattree.build("rsminft:clients=65536")
    assert t.switch_digits.max() == t.meta["rows"] - 1 and t.node_digits.max() == 1
    for v in (t.n_nodes - 1, 40_000, t.n_vertices - 1, t.n_nodes + 12_345):
        assert t.find(t.vertex_label(v)) == v
    assert t.vertex_label(t.n_vertices - 1) == "s14." + ".".join("1" * 15)
