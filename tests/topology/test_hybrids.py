"""cat, micat, kantc, mikantc: counts, diameters, ports, labels, node classes, paper examples."""

from __future__ import annotations

import re
from functools import cache
from math import comb, factorial

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, shortest_path

import fattree
from fattree.cli import main
from fattree.errors import ParameterError, ResourceError
from fattree.topology import FAMILIES, PORT_CUBE, PORT_DOWN, PORT_NODE, PORT_NONE, PORT_UP
from fattree.topology.families.kantc import intermediate_codes

from ..conftest import assert_ports_consistent

HYBRIDS = ["cat", "micat", "kantc", "mikantc"]
SIZES = [(k, n) for k in (2, 3, 4) for n in (2, 3, 4)]


@cache
def topo(family, k, n):
    return fattree.build(f"{family}:k={k},n={n}")


def table1(family, k, n):
    """001 / 004 Table 1: nodes, switches, links (verified as printed, see errata)."""
    K = k ** (n - 1)
    return {
        "cat": ((2**k - 1) * k**n, (n + 2**k - 1) * K, (3 * 2 ** (k - 1) + n - 2) * k**n),
        "micat": (
            2 * (2**k - 1) * k**n,
            (2 * n - 4 + 2 ** (k + 1)) * K,
            (3 * 2**k + 2 * n - 5) * k**n,
        ),
        "kantc": (
            (2**k - k) * K,
            (n - 1) * K + 2**k * k ** (n - 2),
            (n - 1) * k**n + (2 ** (k - 1) + 2**k - k) * K,
        ),
        "mikantc": (
            2 * (2**k - k) * K,
            (2 * n - 4) * K + 2 ** (k + 1) * k ** (n - 2),
            (2 * n - 3) * k**n + (3 * 2**k - 2 * k) * K,
        ),
    }[family]


def diameter_errata(family, k, n):
    """001 Table 1 (2n+2k, as printed) and the errata's corrected 004 diameters."""
    if family in ("cat", "micat"):
        return 2 * n + 2 * k
    if n >= 3:
        return 2 * n + 2 * (k // 2)
    return k + 2 if family == "kantc" else 2 * (k // 2) + 3


def adjacency(t):
    indptr, idx = t.csr
    return csr_matrix((np.ones(len(idx), np.int8), idx, indptr), shape=(t.n_vertices,) * 2)


def node_distances(t, sources):
    """(len(sources), N) hop counts between nodes, node links included."""
    d = shortest_path(adjacency(t), unweighted=True, indices=np.asarray(sources))
    return d[:, : t.n_nodes]


def max_node_distance(t, chunk=1024):
    out = 0.0
    for lo in range(0, t.n_nodes, chunk):
        out = max(out, node_distances(t, np.arange(lo, min(lo + chunk, t.n_nodes))).max())
    return int(out)


# ----------------------------------------------------------------------------- structure
@pytest.mark.parametrize("family", HYBRIDS)
@pytest.mark.parametrize("k,n", SIZES)
def test_table1_counts_ports_labels(family, k, n):
    t = topo(family, k, n)
    assert (t.n_nodes, t.n_switches, t.n_links) == table1(family, k, n)
    assert t.max_ports == 2 * k and t.radix.max() == 2 * k
    assert_ports_consistent(t)
    for v in range(t.n_vertices):
        assert t.find(t.vertex_label(v)) == v
    assert connected_components(adjacency(t), directed=False)[0] == 1
    # every port kind sits where the documented numbering says
    lvl0 = t.switch_level == 0
    inter = np.asarray(t.meta["intermediate"])
    assert np.array_equal(inter, lvl0 & ~np.any(t.port_kind == PORT_NODE, axis=1))
    assert np.all(t.port_kind[inter, :k] == PORT_CUBE) and np.all(t.port_kind[inter, k:] == PORT_UP)
    other = lvl0 & ~inter
    assert np.all(t.port_kind[other, :k] == PORT_NODE) and np.all(
        t.port_kind[other, k:] == PORT_CUBE
    )
    tree = ~lvl0
    assert np.all(t.port_kind[tree, :k] == PORT_DOWN)
    assert t.meta["cube_dim"] == k and not t.meta["intermediate"].flags.writeable
    assert np.array_equal(
        np.asarray(t.meta["cube_port_base"]), np.where(tree, -1, np.where(inter, 0, k))
    )
    assert np.all(np.isin(t.port_kind[tree, k:], [PORT_UP, PORT_NONE]))


@pytest.mark.slow
@pytest.mark.parametrize("family", HYBRIDS)
@pytest.mark.parametrize("k,n", SIZES)
def test_diameter_by_bfs(family, k, n):
    t = topo(family, k, n)
    if t.n_nodes <= 4000:
        got = max_node_distance(t)
    else:  # MiCAT(4,4): from the class representatives (exact, checked below on smaller sizes)
        got = int(node_distances(t, FAMILIES.get(family).node_classes(t)[0]).max())
    assert got == diameter_errata(family, k, n)


@pytest.mark.parametrize(
    "family,k,n",
    [
        ("kantc", 5, 3),
        ("mikantc", 5, 3),
        ("kantc", 6, 3),
        ("cat", 5, 2),
        ("micat", 5, 2),
        ("kantc", 5, 2),
        ("kantc", 7, 2),
        ("mikantc", 6, 2),
        ("mikantc", 7, 2),
    ],
)
def test_diameter_beyond_k4(family, k, n):
    # from the class representatives (their exactness is tested below); the errata's
    # n = 2 forms were checked for k <= 4 only and still hold here
    t = topo(family, k, n)
    got = int(node_distances(t, FAMILIES.get(family).node_classes(t)[0]).max())
    assert got == diameter_errata(family, k, n)


def test_printed_004_diameter_only_for_even_k():
    # 004 Table 1 prints 2n + k: right for even k (n >= 3), one too long for odd k.
    for family in ("kantc", "mikantc"):
        assert max_node_distance(topo(family, 4, 3)) == 2 * 3 + 4
        assert max_node_distance(topo(family, 3, 3)) == 2 * 3 + 3 - 1


@pytest.mark.parametrize("family", HYBRIDS)
@pytest.mark.parametrize("k,n", [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2), (3, 4), (4, 3)])
def test_cube_ports_and_tree_ports(family, k, n):
    t = topo(family, k, n)
    N = t.n_nodes
    g = 2 if family.startswith("mi") else 1
    c_col = slice(t.switch_digits.shape[1] - k, None)
    corner = t.switch_digits[:, c_col].astype(np.int64) @ (1 << np.arange(k - 1, -1, -1))
    base = np.asarray(t.meta["cube_port_base"])
    lcol = 1 if g == 2 else 0
    tdig = slice(lcol + 1, lcol + n)
    # the cube is named by G and T (CAT) or G and T_{n-2..1} (KANTC: T_0 names an intermediate)
    cube_cols = slice(0, lcol + n - (1 if family.endswith("kantc") else 0))
    for s in np.flatnonzero(t.switch_level == 0):
        for b in range(k):
            v = int(t.port_peer[s, base[s] + b]) - N
            assert corner[v] == corner[s] ^ (1 << b)
            assert t.port_peer_port[s, base[s] + b] == base[v] + b
            assert t.switch_digits[v, cube_cols].tolist() == t.switch_digits[s, cube_cols].tolist()
    # tree positions: down port j to digit L-1 := j, up port k+i to digit L := i (as MiKANT);
    # an intermediate's T is its tree position, so level 1 <-> 0 follows the same rule
    for s in range(t.n_switches):
        L = int(t.switch_level[s])
        d = t.switch_digits[s, tdig][::-1]  # T_0 first
        for p in range(2 * k):
            kind = t.port_kind[s, p]
            if kind not in (PORT_UP, PORT_DOWN):
                continue
            v = int(t.port_peer[s, p]) - N
            dv = t.switch_digits[v, tdig][::-1]
            changed = np.flatnonzero(dv != d).tolist()
            if kind == PORT_UP:
                assert dv[min(L, n - 2)] == p - k and set(changed) <= {min(L, n - 2)}
            else:
                assert dv[L - 1] == p and set(changed) <= {L - 1}


def test_cat_transit_switch_is_the_zero_corner():
    # 001 §2.1: transit (0, D, 0) links to the corners of weight 1; the other corners carry k nodes
    t = topo("cat", 3, 3)
    s = t.find("s0.2.1.0.0.0") - t.n_nodes
    assert t.meta["intermediate"][s]
    peers = [t.vertex_label(int(v)) for v in t.port_peer[s, :3]]
    assert peers == ["s0.2.1.0.0.1", "s0.2.1.0.1.0", "s0.2.1.1.0.0"]
    assert [t.vertex_label(int(v)) for v in t.port_peer[s, 3:]] == [
        "s1.2.0.0.0.0",
        "s1.2.1.0.0.0",
        "s1.2.2.0.0.0",
    ]
    node = t.find("n2.1.1.0.1.2")
    assert t.switch_label(int(t.node_switch[node])) == "s0.2.1.1.0.1"
    assert t.node_port[node] == 2


def test_001_examples():
    # 001 §2.1 Fig. 1: CAT(3,3) has k^(n-1) = 9 transit switches, 8 switches per cube, 189 nodes
    t = topo("cat", 3, 3)
    assert int(np.sum(t.meta["intermediate"])) == 9
    assert int(np.sum(t.switch_level == 0)) == 9 * 8
    assert t.n_nodes == 189
    # 001 §2.2: MiCAT(4,3) has 2k^(n-1) = 32 transit switches
    assert int(np.sum(topo("micat", 4, 3).meta["intermediate"])) == 32
    # 001 §3.4: CAT(3,4) and MiCAT(3,4) have 567 and 1134 nodes
    assert (topo("cat", 3, 4).n_nodes, topo("micat", 3, 4).n_nodes) == (567, 1134)


def _half_is_unmirrored(mirrored, plain):
    """Group 0 plus stage n-2 of group 1 (as roots, level n-1) is the unmirrored family."""
    n = plain.params["n"]
    rename = {}
    for lab in mirrored.vertex_labels():
        parts = lab[1:].split(".")
        if lab[0] == "n" and parts[0] == "0":
            rename[lab] = "n" + ".".join(parts[1:])
        elif lab[0] == "s" and parts[0] == "0":
            rename[lab] = "s" + ".".join(parts[1:])
        elif lab[0] == "s" and parts[:2] == ["1", str(n - 2)]:
            rename[lab] = "s" + ".".join([str(n - 1)] + parts[2:])
    g = nx.relabel_nodes(mirrored.to_networkx().subgraph(rename), rename)
    ref = plain.to_networkx()
    assert set(g.nodes) == set(ref.nodes)
    assert {frozenset(e) for e in g.edges} == {frozenset(e) for e in ref.edges}


def test_001_micat_halves_are_cats():
    # 001 §2.2: "group 0 and the stage 1 switches of group 1 form a CAT(4,3)"
    _half_is_unmirrored(topo("micat", 4, 3), topo("cat", 4, 3))
    _half_is_unmirrored(topo("micat", 2, 4), topo("cat", 2, 4))


def test_004_mikantc_3_4_example():
    # 004 §2.2: MiKANTC(3,4) comprises 18 3-cubes and 270 compute nodes; <0,2,1,1,0,0,0,0>
    # links to <1,2,0..2,1,0,0,0,0>; group 0 with the level-2 switches of group 1 is a KANTC(3,4).
    t = topo("mikantc", 3, 4)
    assert t.n_nodes == 270
    lvl0 = np.flatnonzero(t.switch_level == 0)
    cubes = {(int(r[0]),) + tuple(r[2:4].tolist()) for r in t.switch_digits[lvl0]}
    assert len(cubes) == 18 and len(lvl0) == 18 * 8
    s = t.find("s0.2.1.1.0.0.0.0") - t.n_nodes
    cross = {t.vertex_label(int(v)) for v in t.port_peer[s, 3:]}
    assert cross == {"s1.2.0.1.0.0.0.0", "s1.2.1.1.0.0.0.0", "s1.2.2.1.0.0.0.0"}
    _half_is_unmirrored(t, topo("kantc", 3, 4))


def test_004_kantc_3_3_example():
    # 004 §2.1 Fig. 1: KANTC(3,3) has 3 3-cubes of 8 switches below the tree, 45 nodes
    t = topo("kantc", 3, 3)
    assert t.n_nodes == 45 and int(np.sum(t.switch_level == 0)) == 3 * 8
    assert int(np.sum(t.meta["intermediate"])) == 9


def test_intermediate_codes():
    # 004 §2.1's k = 4 example (0000, 0110, 1001, 1111)
    assert intermediate_codes(4).tolist() == [0b0000, 0b0110, 0b1001, 0b1111]
    for k in range(2, 17):
        c = intermediate_codes(k)
        assert len(c) == k == len(set(c.tolist())) and c[0] == 0
        full = (1 << k) - 1
        assert all(int(c[k - 1 - j]) == int(c[j]) ^ full for j in range(k // 2))
        rev = [int(format(int(x), f"0{k}b")[::-1], 2) for x in c]
        assert rev == c.tolist()  # palindromes: bit order does not matter
        if k <= 10:  # every corner within floor(k/2) of an intermediate: the errata's diameter
            x = np.arange(1 << k)[:, None] ^ c[None, :]
            ham = sum((x >> b) & 1 for b in range(k))
            assert ham.min(axis=1).max() == k // 2


@pytest.mark.parametrize("family", ["kantc", "mikantc"])
@pytest.mark.parametrize("k,n", [(3, 3), (4, 3), (2, 4), (3, 2)])
def test_kantc_grouping_and_T0(family, k, n):
    t = topo(family, k, n)
    N = t.n_nodes
    g = 1 if family == "mikantc" else 0
    codes = intermediate_codes(k)
    inter = np.flatnonzero(t.meta["intermediate"])
    dig = t.switch_digits
    corner = dig[:, -k:].astype(np.int64) @ (1 << np.arange(k - 1, -1, -1))
    # intermediate j is corner codes[j] at tree position T_0 = j (its KANT label)
    assert np.array_equal(codes[dig[inter, g + n - 1]], corner[inter])
    # the k intermediates of one cube share the same k parents: a complete bipartite block
    up = t.port_peer[inter, k:] - N
    key = {}
    for s, parents in zip(inter.tolist(), up.tolist()):
        cube = tuple(dig[s, : g + n - 1].tolist())
        key.setdefault(cube, set()).add(frozenset(parents))
    assert all(len(v) == 1 for v in key.values())
    # T_0 of every level-0 switch names its nearest intermediate (graph distance)
    d = shortest_path(adjacency(t), unweighted=True, indices=N + inter)
    cube_of = [tuple(r) for r in dig[:, : g + n - 1].tolist()]  # group, level 0, T_{n-2..1}
    t0 = g + n - 1
    for s in np.flatnonzero(t.switch_level == 0):
        same = [i for i, x in enumerate(inter) if cube_of[x] == cube_of[s]]
        assert len(same) == k
        mine = [i for i in same if dig[inter[i], t0] == dig[s, t0]]
        assert len(mine) == 1 and d[mine[0], N + s] == d[same, N + s].min()


# ----------------------------------------------------------------------------- node classes
@pytest.mark.slow
@pytest.mark.parametrize("family", HYBRIDS)
@pytest.mark.parametrize("k,n", [(2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (4, 2), (3, 4), (4, 3)])
def test_node_classes_give_all_pairs_statistics(family, k, n):
    t = topo(family, k, n)
    reps, w = FAMILIES.get(family).node_classes(t)
    assert w.sum() == t.n_nodes and np.all(w > 0)
    full = node_distances(t, np.arange(t.n_nodes)).astype(np.int64)
    rep = full[reps]
    assert (rep.sum(axis=1) * w).sum() == full.sum()
    hist_full = np.bincount(full.ravel())
    hist_rep = sum(np.bincount(r, minlength=len(hist_full)) * wi for r, wi in zip(rep, w))
    assert np.array_equal(hist_rep, hist_full)
    # every node of a class has the representative's distance profile
    profiles = {tuple(np.sort(r)) for r in rep}
    assert {tuple(np.sort(r)) for r in full} <= profiles


def test_cat_classes_are_hamming_weights():
    for k in (2, 3, 4, 6):
        t = fattree.build(f"cat:k={k},n=2")
        reps, w = FAMILIES.get("cat").node_classes(t)
        assert len(reps) == k
        assert sorted(w.tolist()) == sorted(comb(k, j) * k * k for j in range(1, k + 1))


def test_node_classes_full_scale():
    for spec in ("kantc:k=8,n=3", "mikantc:k=6,n=3", "micat:k=5,n=3"):
        t = fattree.build(spec)
        reps, w = FAMILIES.get(spec.split(":")[0]).node_classes(t)
        assert w.sum() == t.n_nodes and len(np.unique(reps)) == len(reps)
        assert np.all(t.node_port[reps] == 0)


def _cat_average_distance(k, n, mirrored):
    """Errata: the corrected 001 average distances (mean over N² ordered pairs)."""
    W = k * 2 ** (k - 1) / (2**k - 1)
    C = (
        (2 * (k - 1) / k + 2 ** (k + 1) - 4 + k * 2 ** (k - 1) - W) / (2**k - 1)
        - 2
        - 2 * W
        + 2 / (k - 1)
    )
    if mirrored:
        return 2 * n - 0.5 + 2 * W - 1 / (k - 1) + C / (2 * k ** (n - 1))
    return 2 * n + 2 * W - 2 / (k - 1) + C / k ** (n - 1)


@pytest.mark.parametrize("family", ["cat", "micat"])
@pytest.mark.parametrize("k,n", SIZES)
def test_cat_average_distance_matches_errata(family, k, n):
    # the construction (transit = zero corner) reproduces the brute-force-verified formula
    t = topo(family, k, n)
    reps, w = FAMILIES.get(family).node_classes(t)
    total = (node_distances(t, reps).sum(axis=1) * w).sum()
    assert total / t.n_nodes**2 == pytest.approx(
        _cat_average_distance(k, n, family == "micat"), rel=1e-12
    )


def _shortest_path_counts(t):
    """(N, N) number of shortest paths between nodes (small graphs, dense)."""
    A = adjacency(t).astype(np.float64)
    N, V = t.n_nodes, t.n_vertices
    cnt = np.zeros((N, V))
    cnt[np.arange(N), np.arange(N)] = 1
    seen = cnt > 0
    front = cnt.copy()
    while front.any():
        nxt = np.asarray((A @ front.T).T)
        nxt[seen] = 0
        seen |= nxt > 0
        cnt += nxt
        front = nxt
    return cnt[:, :N]


@pytest.mark.parametrize(
    "family,k,n",
    [
        ("cat", 2, 2),
        ("cat", 2, 3),
        ("cat", 3, 2),
        ("cat", 3, 3),
        ("micat", 2, 2),
        ("micat", 3, 2),
        ("micat", 2, 3),
    ],
)
def test_cat_path_diversity_matches_errata(family, k, n):
    t = topo(family, k, n)
    P = _shortest_path_counts(t)
    same = t.node_switch[:, None] == t.node_switch[None, :]
    P[same] = 0
    pd = P.mean() / t.n_nodes
    K = k ** (n - 1)
    Q = sum(factorial(k) // factorial(k - i) for i in range(1, k + 1))
    den = (2**k - 1) ** 3 * k * K**2
    if family == "cat":
        expect = ((2**k - 2) * Q + k * Q**2 * (K**2 - 1) / (k + 1)) / den
    else:
        expect = ((2**k - 2) * Q + Q**2 * (k * (K**2 - 1) / (k + 1) + K**2 / k)) / (4 * den)
    assert pd == pytest.approx(expect, rel=1e-12)


# ----------------------------------------------------------------------------- input
@settings(max_examples=25, deadline=None)
@given(family=st.sampled_from(HYBRIDS), k=st.integers(2, 5), n=st.integers(2, 3), data=st.data())
def test_label_round_trip_random(family, k, n, data):
    t = topo(family, k, n)
    v = data.draw(st.integers(0, t.n_vertices - 1))
    assert t.find(t.vertex_label(v)) == v


@pytest.mark.parametrize("family", HYBRIDS)
@pytest.mark.parametrize(
    "params,fragment",
    [
        ("k=1,n=3", "k=1 is too small"),
        ("k=17,n=3", "k=17 is too large"),
        ("k=3,n=1", "n=1 is too small"),
        ("k=3", "missing parameter 'n'"),
        ("k=3,n=x", "n='x' is not an integer"),
        ("k=3,n=3,m=2", "unknown parameter 'm'"),
    ],
)
def test_bad_parameters(family, params, fragment):
    with pytest.raises(ParameterError, match=fragment):
        fattree.build(f"{family}:{params}")


@pytest.mark.parametrize("family", HYBRIDS)
def test_too_big_is_refused_before_allocating(family):
    with pytest.raises(ResourceError, match="GiB"):
        fattree.build(f"{family}:k=16,n=6")


def test_bad_labels():
    t = topo("kantc", 3, 3)
    with pytest.raises(ParameterError, match="does not exist"):
        t.find("s0.0.0.1.1.2")  # C digits are bits
    with pytest.raises(ParameterError, match="is a switch"):
        t.find_node("s0.0.0.0.0.0")


def test_cli_lists_the_hybrids(capsys):
    assert main(["families"]) == 0
    out = capsys.readouterr().out
    for name in HYBRIDS:
        assert re.search(rf"^. {name} +.", out, re.M), name
