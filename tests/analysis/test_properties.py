"""Properties computed from the graph: closed forms (with the errata), networkx, references."""

from __future__ import annotations

from collections import deque
from fractions import Fraction as F

import networkx as nx
import numpy as np
import pytest

import fattree
from fattree.analysis import bfs as bfs_mod
from fattree.analysis.bfs import bfs, node_pair_stats
from fattree.analysis.properties import formula_checks, properties
from fattree.errors import ParameterError
from fattree.topology import FAMILIES, Topology

KN = [(k, n) for k in (2, 3, 4) for n in (2, 3, 4)]


# ---------------------------------------------------------------- closed forms, inline
# Written here from the papers as corrected in docs/errata.md, independently
# of fattree.analysis.closed_forms: (nodes, switches, links, min radix, max radix,
# diameter, avg distance over all N² pairs incl. s = t, path diversity P̃/N).
def kant_forms(k, n):
    N = k**n
    avg = 2 * n - F(2, k - 1) + F(2, (k - 1) * k**n)  # 000 eq. (3)
    pd = (1 - F(1, k ** (2 * n - 2))) / (k + 1)  # 001 §3.3
    return N, n * k ** (n - 1), n * k**n, k, 2 * k, 2 * n, avg, pd


def clos_forms(k, n):
    N = 2 * k**n
    avg = 2 * n - F(1, k - 1) + F(1, (k - 1) * k**n)  # 000 eq. (2)
    # same-side pairs as in the k-ary n-tree; the k^n x k^n cross pairs have one
    # shortest path per middle switch, k^(n-1)
    same = k ** (3 * n) * kant_forms(k, n)[7]  # sum over one side's ordered pairs: N_side³·PD
    pd = (2 * same + 2 * k**n * k**n * k ** (n - 1)) / F(N) ** 3
    return N, (2 * n - 1) * k ** (n - 1), 2 * n * k**n, 2 * k, 2 * k, 2 * n, avg, pd


def mikant_forms(k, n):
    N = 2 * k**n
    avg = 2 * n - F(1, k - 1) + F(1, (k - 1) * k**n) - F(1, 2)  # 000 Theorem 6
    pd = (1 - F(1, k ** (2 * n - 2))) / (4 * (k + 1)) + F(1, 4 * k**2)  # 001 §3.3
    return N, 2 * (n - 1) * k ** (n - 1), (2 * n - 1) * k**n, 2 * k, 2 * k, 2 * n, avg, pd


FORMS = {"kant": kant_forms, "clos": clos_forms, "mikant": mikant_forms}


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FORMS))
@pytest.mark.parametrize("k,n", KN)
def test_tree_families_match_corrected_closed_forms(family, k, n):
    p = properties(fattree.build(f"{family}:k={k},n={n}"), bisection=False)
    N, S, E, rmin, rmax, diam, avg, pd = FORMS[family](k, n)
    assert (p["nodes"], p["switches"], p["links"]) == (N, S, E)
    assert (p["node_links"], p["switch_links"]) == (N, E - N)
    assert (p["radix"]["min"], p["radix"]["max"]) == (rmin, rmax)
    assert p["diameter"] == diam
    assert p["avg_distance"] == avg
    assert p["avg_distance_excl_self"] == avg * N / (N - 1)
    assert p["path_diversity"] == pd
    assert sum(p["distance_histogram"]) == N * N
    assert p["distance_histogram"][0] == N
    assert p["distances_exact"] and p["path_counts_exact"]


@pytest.mark.parametrize("k,n", KN)
def test_mikant_histogram_is_theorem_6s_count(k, n):
    # 000 Theorem 6: per node, k^i - k^(i-1) same-group nodes at distance 2i, k^n at 2n-1
    hist = properties(fattree.build(f"mikant:k={k},n={n}"), bisection=False)["distance_histogram"]
    N = 2 * k**n
    want = [0] * (2 * n + 1)
    want[0] = N
    for i in range(1, n + 1):
        want[2 * i] += N * (k**i - k ** (i - 1))
    want[2 * n - 1] += N * k**n
    assert hist == want


def test_mikant_vs_kant_average_distance_errata():
    # errata: vs the k-ary n-tree the difference is 1/(k-1) - 1/2 - 1/((k-1)k^n): MiKANT is
    # 0.44 longer at k=2, equal at k=3 (up to the k^-n term), 0.17 shorter at k=4
    diffs = []
    for k in (2, 3, 4):
        m = properties(fattree.build(f"mikant:k={k},n=4"), bisection=False)["avg_distance"]
        c = properties(fattree.build(f"kant:k={k},n=4"), bisection=False)["avg_distance"]
        assert m - c == F(1, k - 1) - F(1, 2) - F(1, (k - 1) * k**4)
        diffs.append(m - c)
    assert (
        round(float(diffs[0]), 2) == 0.44
        and abs(diffs[1]) < 0.01
        and round(float(diffs[2]), 2) == -0.17
    )
    # and exactly 1/2 shorter than the Clos of the same k, n
    for k in (2, 3, 4):
        m = properties(fattree.build(f"mikant:k={k},n=3"), bisection=False)["avg_distance"]
        c = properties(fattree.build(f"clos:k={k},n=3"), bisection=False)["avg_distance"]
        assert c - m == F(1, 2)


# ---------------------------------------------------------------- references
def py_bfs(topo, src):
    """Slow pure-Python BFS with shortest-path counting over the link list."""
    adj = [[] for _ in range(topo.n_vertices)]
    for a, b in topo.links.tolist():
        adj[a].append(b)
        adj[b].append(a)
    dist = [-1] * topo.n_vertices
    sigma = [0] * topo.n_vertices
    dist[src], sigma[src] = 0, 1
    q = deque([src])
    while q:
        v = q.popleft()
        for w in adj[v]:
            if dist[w] < 0:
                dist[w] = dist[v] + 1
                sigma[w] = sigma[v]
                q.append(w)
            elif dist[w] == dist[v] + 1:
                sigma[w] += sigma[v]
    return dist, sigma


SMALL = [
    "kant:k=2,n=3",
    "kant:k=3,n=2",
    "clos:k=2,n=3",
    "clos:k=3,n=2",
    "mikant:k=2,n=3",
    "mikant:k=3,n=3",
    "mikant:k=4,n=2",
]


@pytest.mark.parametrize("spec", SMALL)
def test_bfs_kernel_matches_python_reference(spec):
    t = fattree.build(spec)
    for src in (0, t.n_nodes - 1, t.n_nodes, t.n_vertices - 1):
        d, s = bfs(t, src)
        rd, rs = py_bfs(t, src)
        assert d.tolist() == rd and s.tolist() == rs
        d2, s2 = bfs(t, src, counts="float64")
        assert np.array_equal(d, d2) and np.array_equal(s.astype(float), s2)


@pytest.mark.parametrize(
    "spec", ["kant:k=2,n=3", "mikant:k=2,n=3", "clos:k=2,n=2", "mikant:k=3,n=2"]
)
def test_all_pairs_against_networkx(spec):
    t = fattree.build(spec)
    g = t.to_networkx()
    names = t.vertex_labels()
    nodes = names[: t.n_nodes]
    N = t.n_nodes
    total = 0
    hist: dict[int, int] = {}
    diam = 0
    paths_all = paths_other = 0
    for i, s in enumerate(nodes):
        lengths = nx.single_source_shortest_path_length(g, s)
        for j, tname in enumerate(nodes):
            d = lengths[tname]
            total += d
            hist[d] = hist.get(d, 0) + 1
            diam = max(diam, d)
            if i != j:
                count = sum(1 for _ in nx.all_shortest_paths(g, s, tname))
                paths_all += count
                if t.node_switch[i] != t.node_switch[j]:
                    paths_other += count
    p = properties(t, symmetry=False, bisection=False)
    assert p["avg_distance"] == F(total, N * N)
    assert p["diameter"] == diam
    assert p["distance_histogram"] == [hist.get(d, 0) for d in range(diam + 1)]
    assert p["mean_shortest_paths"] == F(paths_all, N * (N - 1))
    assert p["path_diversity"] == F(paths_other, N**3)


def _class_specs():
    specs = [
        "kant:k=3,n=3",
        "clos:k=3,n=3",
        "mikant:k=3,n=3",
        "mikant:k=2,n=4",
        "cat:k=2,n=2",
        "cat:k=3,n=2",
        "micat:k=2,n=3",
        "kantc:k=2,n=3",
        "kantc:k=3,n=2",
        "mikantc:k=4,n=2",
        "mikantc:k=3,n=3",
        "hypercube:d=3,p=2",
        "torus:k=4,n=2",
        "torus:k=3,n=3,p=2",
        "minft:clients=32",
        "rsminft:clients=32",
        "rsminft:clients=64",
    ]
    return [pytest.param(s, id=s) for s in specs]


@pytest.mark.parametrize("spec", _class_specs())
def test_class_representatives_equal_all_pairs(spec):
    name = spec.split(":")[0]
    if name not in FAMILIES or FAMILIES.get(name).node_classes is None:
        pytest.skip(f"family {name} not available with node classes")
    t = fattree.build(spec)
    sym = properties(t, bisection=False)
    full = properties(t, symmetry=False, bisection=False)
    assert sym["sources"] < full["sources"] == t.n_nodes
    for key in (
        "diameter",
        "avg_distance",
        "avg_distance_excl_self",
        "distance_histogram",
        "path_diversity",
        "mean_shortest_paths",
    ):
        assert sym[key] == full[key], key


# ---------------------------------------------------------------- estimates
def test_sampling_above_exact_limit():
    t = fattree.build("mikant:k=3,n=3")  # 54 nodes
    exact = properties(t, symmetry=False, bisection=False)
    est = properties(t, symmetry=False, bisection=False, exact_limit=10, samples=12, seed=5)
    assert (
        not est["distances_exact"] and est["sources"] == 12 and "sampled" in est["distance_method"]
    )
    # every node of MiKANT sees the same sums, so any sample gives the exact means, zero width
    for key in ("avg_distance", "avg_distance_excl_self", "path_diversity", "mean_shortest_paths"):
        lo, hi = est["ci95"][key]
        assert est[key] == pytest.approx(float(exact[key]))
        assert lo == pytest.approx(hi)
    assert sum(est["distance_histogram"]) == 12 * t.n_nodes


def test_sampling_on_an_irregular_graph_is_seeded_and_its_interval_is_the_per_source_one():
    t = fattree.build("kant:k=3,n=2")  # 9 nodes; roots have radix 3: BFS from sampled nodes
    a = properties(t, symmetry=False, bisection=False, exact_limit=4, samples=5, seed=1)
    b = properties(t, symmetry=False, bisection=False, exact_limit=4, samples=5, seed=1)
    assert a == b
    # recompute the estimate and its interval from the same sources by hand
    rng = np.random.default_rng(1)
    src = np.sort(rng.choice(t.n_nodes, size=5, replace=False))
    per = np.array([sum(py_bfs(t, int(s))[0][: t.n_nodes]) / t.n_nodes for s in src])
    assert a["avg_distance"] == pytest.approx(per.mean())
    half = 1.959963984540054 * per.std(ddof=1) / np.sqrt(5) * np.sqrt((9 - 5) / 8)
    assert a["ci95"]["avg_distance"] == pytest.approx([per.mean() - half, per.mean() + half])


def test_sampling_every_node_is_exact():
    t = fattree.build("kant:k=2,n=3")
    p = properties(t, symmetry=False, bisection=False, exact_limit=2, samples=100)
    q = properties(t, symmetry=False, bisection=False)
    assert p["distances_exact"] and p["avg_distance"] == q["avg_distance"]


# ---------------------------------------------------------------- kernels and edge cases
@pytest.mark.slow
def test_int64_overflow_falls_back_to_float(monkeypatch):
    t = fattree.build("mikant:k=3,n=3")
    exact = node_pair_stats(t, [0, 5])
    monkeypatch.setattr(bfs_mod, "_INT_LIMIT", 2)
    approx = node_pair_stats(t, [0, 5])
    assert exact.exact_counts and not approx.exact_counts
    assert approx.sigma_sum.dtype == np.float64
    assert np.array_equal(approx.sigma_sum, exact.sigma_sum.astype(float))
    assert np.array_equal(approx.dist_sum, exact.dist_sum)
    with pytest.raises(ParameterError, match="float64"):
        bfs(t, 0)


def _two_islands() -> Topology:
    # two switches with two nodes each and no link between them
    peer = np.array([[0, 1], [2, 3]])
    return Topology.create(
        "islands",
        {},
        node_digits=np.arange(4)[:, None],
        switch_digits=np.arange(2)[:, None],
        switch_level=np.zeros(2),
        port_peer=peer,
        port_peer_port=np.zeros((2, 2)),
        port_kind=np.full((2, 2), 3),
    )


def test_disconnected_graph_is_refused():
    with pytest.raises(ParameterError, match="disconnected"):
        properties(_two_islands())


@pytest.mark.parametrize(
    "kwargs,match",
    [({"exact_limit": -1}, "exact_limit"), ({"samples": 0}, "samples"), ({"seed": "x"}, "seed")],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        properties(fattree.build("kant:k=2,n=2"), **kwargs)


def test_bad_bfs_arguments():
    t = fattree.build("kant:k=2,n=2")
    with pytest.raises(ParameterError, match="source"):
        bfs(t, t.n_vertices)
    with pytest.raises(ParameterError, match="counts"):
        bfs(t, 0, counts="int8")
    with pytest.raises(ParameterError, match="sources"):
        node_pair_stats(t, [t.n_nodes])


# ---------------------------------------------------------------- formula agreement
def test_formula_checks_mark_agreement_errata_and_bounds():
    p = properties(fattree.build("clos:k=2,n=3"))
    assert p["bisection_exact"] and p["bisection_width"] == 8
    rows = formula_checks(
        p,
        {
            "bisection_width": {"value": 8, "reference": "000 Table I", "printed": 4},
            "avg_distance": F(1),
            "nodes": 16,
        },
    )
    by = {r["name"]: r for r in rows}
    assert by["bisection_width"]["agrees"] and by["bisection_width"]["errata"]
    assert by["avg_distance"]["mark"] == "✗" and by["nodes"]["mark"] == "✓"
    bound = dict(p, bisection_exact=False)
    assert formula_checks(bound, {"bisection_width": 9})[0]["agrees"] is False
    assert formula_checks(bound, {"bisection_width": 7})[0]["agrees"] is None


@pytest.mark.slow
def test_formula_checks_against_the_closed_forms_module():
    pytest.importorskip("fattree.analysis.closed_forms")
    for spec in ("mikant:k=4,n=3", "kant:k=2,n=4", "clos:k=4,n=2"):
        rows = formula_checks(properties(fattree.build(spec)))
        assert rows, spec
        assert all(r["agrees"] is not False for r in rows), [(r["name"], r["mark"]) for r in rows]


@pytest.mark.parametrize(
    "spec",
    [
        "kant:k=4,n=3",
        "mikant:k=3,n=3",
        "clos:k=4,n=2",
        "xgft:m=4.4,w=1.2",
        "torus:k=4,n=2",
        "hypercube:d=3,p=2",
        "mikantc:k=2,n=2",
        "kantc:k=2,n=2",
    ],
)
def test_the_numpy_search_equals_the_kernel(spec, monkeypatch):
    """Small searches go level by level in numpy; every statistic equals the kernel's."""
    t = fattree.build(spec)
    rng = np.random.default_rng(len(spec))
    src = rng.choice(t.n_nodes, size=min(t.n_nodes, 7), replace=False)
    w = rng.integers(0, 5, src.size)
    small = node_pair_stats(t, src, w)
    monkeypatch.setattr(bfs_mod, "_NUMPY_MAX_WORK", 0)
    big = node_pair_stats(t, src, w)
    for field in (
        "dist_sum",
        "eccentricity",
        "unreached",
        "sigma_sum",
        "sigma_other_switch",
        "histogram",
    ):
        assert np.array_equal(getattr(small, field), getattr(big, field)), field
    assert small.exact_counts and big.exact_counts


def test_info_on_a_small_graph_does_not_import_numba():
    """A symmetric family's properties need one small search: no numba import."""
    import subprocess
    import sys

    code = (
        "import sys, fattree\n"
        "from fattree.analysis.properties import properties\n"
        "p = properties(fattree.build('kant:k=4,n=3'), bisection=False)\n"
        "assert p['diameter'] == 6\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
