"""Export formats (edge list, JSON, GraphML, DOT, BookSim2) and the ``graph`` import family."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.sparse import csgraph

import fattree
from fattree.errors import InputFileError, ParameterError, UnknownNameError
from fattree.topology import FAMILIES, PORT_CUBE, PORT_DOWN, PORT_NODE, PORT_UP
from fattree.topology.export import EXPORTERS, export, export_bytes

TREES = [f"{f}:k={k},n={n}" for f in ("kant", "mikant", "clos") for k in (2, 3) for n in (2, 3)]
OTHERS = [
    "hypercube:d=3,p=2",
    "torus:k=3,n=2",
    "micat:k=2,n=3",
    "mikantc:k=2,n=3",
    "rsminft:clients=16",
]


# ---------------------------------------------------------------------- helpers
def link_set(topo) -> set:
    """Every link as an unordered pair of (label, port) ends: the topology up to vertex ids."""
    lab = topo.vertex_labels()
    out = set()
    for (a, b), (pa, pb) in zip(topo.links.tolist(), topo.link_ports.tolist()):
        out.add(frozenset([(lab[a], pa if a >= topo.n_nodes else 0), (lab[b], pb)]))
    return out


def kind_map(topo) -> dict:
    """(switch label, port) -> port kind."""
    lab = topo.vertex_labels()
    s_idx, p_idx = np.nonzero(topo.port_peer >= 0)
    return {
        (lab[topo.n_nodes + s], p): int(topo.port_kind[s, p])
        for s, p in zip(s_idx.tolist(), p_idx.tolist())
    }


def node_distance_histogram(topo) -> np.ndarray:
    """Histogram of hop distances over all ordered node pairs (scipy, independent of fattree)."""
    e = topo.links
    v = topo.n_vertices
    adj = sp.csr_matrix(
        (np.ones(2 * len(e)), (np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])), shape=(v, v)
    )
    d = csgraph.shortest_path(adj, unweighted=True, indices=np.arange(topo.n_nodes))[
        :, : topo.n_nodes
    ]
    return np.bincount(d.astype(np.int64).ravel())


def write(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text)
    return p


def import_error(path, match: str, **opts) -> str:
    extra = "".join(f",{k}={v}" for k, v in opts.items())
    with pytest.raises(InputFileError, match=match) as info:
        fattree.build(f"graph:file={path}{extra}")
    msg = str(info.value)
    assert "\n" not in msg
    return msg


# ---------------------------------------------------------------------- formats
@pytest.mark.parametrize("spec", TREES + OTHERS)
def test_edgelist_lists_every_link_with_ports(spec):
    t = fattree.build(spec)
    text = export_bytes(t, "edgelist").decode()
    rows = [ln.split() for ln in text.splitlines() if not ln.startswith("#")]
    assert len(rows) == t.n_links and all(len(r) == 4 for r in rows)
    got = {
        frozenset([(a, int(pa) if a.startswith("s") else 0), (b, int(pb))]) for a, b, pa, pb in rows
    }
    assert got == link_set(t)
    assert text.startswith(f"# {t.spec}\n")


@pytest.mark.parametrize("spec", ["kant:k=3,n=3", "mikant:k=3,n=3", "hypercube:d=3,p=2"])
def test_json_document(spec):
    t = fattree.build(spec)
    doc = json.loads(export_bytes(t, "json"))
    assert doc["family"] == t.family and doc["params"] == dict(t.params)
    assert [d["label"] for d in doc["nodes"]] == t.vertex_labels()[: t.n_nodes]
    assert [d["label"] for d in doc["switches"]] == t.vertex_labels()[t.n_nodes :]
    assert [d["level"] for d in doc["switches"]] == t.switch_level.tolist()
    got = {frozenset([(d["a"], d["port_a"]), (d["b"], d["port_b"])]) for d in doc["links"]}
    assert got == link_set(t) and len(doc["links"]) == t.n_links


@pytest.mark.parametrize("spec", ["mikant:k=3,n=3", "clos:k=2,n=3", "micat:k=2,n=3"])
def test_graphml_matches_to_networkx_and_keeps_orientation(spec):
    t = fattree.build(spec)
    data = export_bytes(t, "graphml")
    g = nx.read_graphml(io.BytesIO(data))
    ref = t.to_networkx()
    assert set(g.nodes) == set(ref.nodes) and g.number_of_edges() == t.n_links
    assert all(g.nodes[v]["kind"] == ref.nodes[v]["kind"] for v in ref.nodes)
    assert all(
        g.nodes[v]["level"] == ref.nodes[v]["level"]
        for v in ref.nodes
        if ref.nodes[v]["kind"] == "switch"
    )
    # port_a / kind_a belong to the edge's source: check against the port tables
    ns = "{http://graphml.graphdrawing.org/xmlns}"
    keys = {k.get("id"): k.get("attr.name") for k in ET.fromstring(data).iter(ns + "key")}
    lab = t.vertex_labels()
    kinds = {"down": PORT_DOWN, "up": PORT_UP, "cube": PORT_CUBE, "node": PORT_NODE}
    for e in ET.fromstring(data).iter(ns + "edge"):
        d = {keys[x.get("key")]: x.text for x in e}
        src, dst = t.find(e.get("source")), t.find(e.get("target"))
        if src >= t.n_nodes:
            s, p = src - t.n_nodes, int(d["port_a"])
            assert lab[t.port_peer[s, p]] == e.get("target")
            assert t.port_kind[s, p] == kinds[d["kind_a"]]
        s, p = dst - t.n_nodes, int(d["port_b"])
        assert lab[t.port_peer[s, p]] == e.get("source") and t.port_kind[s, p] == kinds[d["kind_b"]]


def test_dot_has_one_rank_block_per_layer_and_lower_rows_as_tails():
    t = fattree.build("mikant:k=3,n=3")
    text = export_bytes(t, "dot").decode()
    blocks = re.findall(r"\{ rank=same;(.*?)\}", text, flags=re.S)
    members = [re.findall(r'"([^"]+)";', b) for b in blocks]
    # node row below, four switch layers, node row above (000 Fig. 3)
    assert len(members) == 6
    assert all(m.startswith("n0.") for m in members[0]) and all(
        m.startswith("n1.") for m in members[-1]
    )
    lab = t.vertex_labels()
    for layer, m in enumerate(members[1:-1]):
        assert sorted(m) == sorted(
            lab[t.n_nodes + s] for s in np.flatnonzero(t.switch_layer == layer)
        )
    edges = re.findall(r'"([^"]+)" -- "([^"]+)" \[taillabel=(\d+), headlabel=(\d+)\];', text)
    assert len(edges) == t.n_links
    row = {v: i for i, m in enumerate(members) for v in m}
    assert all(row[a] < row[b] for a, b, _, _ in edges)
    got = {
        frozenset([(a, int(pa) if a[0] == "s" else 0), (b, int(pb) if b[0] == "s" else 0)])
        for a, b, pa, pb in edges
    }
    assert got == link_set(t)


def booksim_parse(text: str):
    """BookSim2 anynet's readFile semantics (src/networks/anynet.cpp), reimplemented."""
    node_router: dict[int, int] = {}
    routers: dict[int, set] = {}
    for line in text.split("\n"):
        if line == "":
            continue
        tok = [x for x in line.split(" ") if x]
        assert tok[0] in ("router", "node"), "BookSim asserts on any other head (no comments)"
        head = int(tok[1])
        assert tok[0] == "router"
        routers.setdefault(head, set())
        i = 2
        while i < len(tok):
            kind, ident = tok[i], int(tok[i + 1])
            assert kind in ("router", "node")
            i += 2
            if i < len(tok) and tok[i] not in ("router", "node"):
                i += 1  # optional latency
            if kind == "node":
                assert node_router.get(ident, head) == head, "node connected to two routers"
                node_router[ident] = head
            else:
                routers[head].add(ident)
                routers.setdefault(ident, set()).add(head)
    assert sorted(node_router) == list(range(len(node_router))), "node ids must be 0..N-1"
    assert sorted(routers) == list(range(len(routers))), "router ids must be 0..S-1"
    return node_router, routers


@pytest.mark.parametrize(
    "spec", ["mikant:k=3,n=3", "kant:k=2,n=3", "torus:k=3,n=2", "clos:k=2,n=2"]
)
def test_booksim_anynet_file(spec, tmp_path):
    t = fattree.build(spec)
    n = t.n_nodes
    paths = export(t, "booksim", tmp_path / "net.anynet")
    node_router, routers = booksim_parse(paths[0].read_text())
    assert node_router == {i: int(t.node_switch[i]) for i in range(n)}
    for s in range(t.n_switches):
        peers = t.port_peer[s]
        assert routers[s] == {int(p) - n for p in peers if p >= n}
    # the sidecar names every BookSim id
    side = [ln.split() for ln in paths[1].read_text().splitlines() if not ln.startswith("#")]
    lab = t.vertex_labels()
    assert [(k, int(i), name) for k, i, name in side] == (
        [("node", i, lab[i]) for i in range(n)]
        + [("router", s, lab[n + s]) for s in range(t.n_switches)]
    )


def test_booksim_refuses_parallel_links(tmp_path):
    p = write(tmp_path, "par.txt", "n0 s0\nn1 s1\ns0 s1\ns0 s1\n")
    t = fattree.build(f"graph:file={p}")
    with pytest.raises(ParameterError, match="parallel link"):
        export_bytes(t, "booksim")
    assert export_bytes(t, "edgelist").count(b"s0 s1") == 2  # other formats keep both


def test_unknown_format_lists_valid_ones():
    with pytest.raises(UnknownNameError, match="valid: booksim, dot, edgelist, graphml, json"):
        export_bytes(fattree.build("kant:k=2,n=2"), "xml")
    assert sorted(EXPORTERS) == ["booksim", "dot", "edgelist", "graphml", "json"]


def test_export_refuses_unwritable_paths(tmp_path):
    t = fattree.build("kant:k=2,n=2")
    with pytest.raises(ParameterError, match="does not exist"):
        export(t, "edgelist", tmp_path / "missing" / "x.txt")
    with pytest.raises(ParameterError, match="is a directory"):
        export(t, "edgelist", tmp_path)


def test_names_are_escaped_in_json_graphml_and_dot(tmp_path):
    src = tmp_path / "odd.graphml"
    g = nx.Graph()
    g.add_node('n<a&"b">', kind="node")
    g.add_node("sw one", kind="switch")
    g.add_node("n2", kind="node")
    g.add_edge('n<a&"b">', "sw one")
    g.add_edge("n2", "sw one")
    nx.write_graphml(g, src)
    t = fattree.build(f"graph:file={src}")
    names = {'n<a&"b">', "sw one", "n2"}
    assert {
        d["label"] for k in ("nodes", "switches") for d in json.loads(export_bytes(t, "json"))[k]
    } == names
    assert set(nx.read_graphml(io.BytesIO(export_bytes(t, "graphml")))) == names
    assert '"n<a&\\"b\\">"' in export_bytes(t, "dot").decode()
    with pytest.raises(ParameterError, match="cannot be written to an edge list"):
        export_bytes(t, "edgelist")


# ---------------------------------------------------------------------- round trips
@pytest.mark.parametrize("fmt", ["edgelist", "graphml"])
@pytest.mark.parametrize("spec", TREES)
def test_round_trip_same_network(spec, fmt, tmp_path):
    t = fattree.build(spec)
    path = export(t, fmt, tmp_path / f"net.{fmt}")[0]
    u = fattree.build(f"graph:file={path}")
    assert (u.n_nodes, u.n_switches, u.n_links) == (t.n_nodes, t.n_switches, t.n_links)
    assert link_set(u) == link_set(t)
    assert np.array_equal(node_distance_histogram(u), node_distance_histogram(t))
    assert u.vertex_labels()[: u.n_nodes] == t.vertex_labels()[: t.n_nodes]  # nodes keep their ids
    lab_t, lab_u = t.vertex_labels(), u.vertex_labels()
    level_t = dict(zip(lab_t[t.n_nodes :], t.switch_level.tolist()))
    # GraphML carries the levels; for an edge list they are derived (hops to nearest node - 1)
    # and agree with the papers' stages of these trees (Clos: mirrored around the middle)
    assert dict(zip(lab_u[u.n_nodes :], u.switch_level.tolist())) == level_t
    if fmt == "graphml":
        assert kind_map(u) == kind_map(t)
        assert dict(zip(lab_u[u.n_nodes :], u.switch_layer.tolist())) == dict(
            zip(lab_t[t.n_nodes :], t.switch_layer.tolist())
        )
        assert np.array_equal(u.port_peer, t.port_peer)  # declaration order = id order
    for v in (0, u.n_nodes - 1, u.n_vertices - 1):
        assert u.find(u.vertex_label(v)) == v


@pytest.mark.parametrize("spec", OTHERS)
def test_round_trip_other_families(spec, tmp_path):
    t = fattree.build(spec)
    for fmt in ("edgelist", "graphml"):
        u = fattree.build(f"graph:file={export(t, fmt, tmp_path / ('x.' + fmt))[0]}")
        assert link_set(u) == link_set(t)
        assert np.array_equal(node_distance_histogram(u), node_distance_histogram(t))


def test_imported_graph_has_no_node_classes_and_names_its_source(tmp_path):
    assert FAMILIES.get("graph").node_classes is None
    p = export(fattree.build("kant:k=2,n=2"), "edgelist", tmp_path / "k.txt")[0]
    t = fattree.build(f"graph:file={p}")
    assert t.family == "graph" and t.params["file"] == str(p) and t.meta["format"] == "edgelist"
    assert t.spec.startswith(f"graph:file={p}")
    assert fattree.build("graph", file=str(p)).n_links == t.n_links


def test_ports_in_order_of_appearance_and_levels_from_hops(tmp_path):
    p = write(tmp_path, "tiny.txt", "# a comment\n\nn0 s0\nn1 s0\ns0 s1\nn2 s1\ns1 s2\n")
    t = fattree.build(f"graph:file={p}")
    lab = t.vertex_labels()
    assert lab == ["n0", "n1", "n2", "s0", "s1", "s2"]
    assert [[lab[v] if v >= 0 else None for v in row] for row in t.port_peer.tolist()] == [
        ["n0", "n1", "s1"],
        ["s0", "n2", "s2"],
        ["s1", None, None],
    ]
    assert t.switch_level.tolist() == [0, 0, 1]
    assert t.port_kind[0].tolist() == [PORT_NODE, PORT_NODE, PORT_CUBE]
    assert t.port_kind[1, 2] == PORT_UP and t.port_kind[2, 0] == PORT_DOWN
    assert t.port_peer_port[0, 2] == 0 and t.port_peer_port[1, 0] == 2


def test_given_ports_and_switch_first_lines(tmp_path):
    p = write(tmp_path, "ports.txt", "s0 n0 5 0\ns0 s1 0 3\nn1 s1 0 1\n")
    t = fattree.build(f"graph:file={p}")
    s0, s1 = t.find("s0") - t.n_nodes, t.find("s1") - t.n_nodes
    assert t.vertex_label(int(t.port_peer[s0, 5])) == "n0" and t.node_port[t.find("n0")] == 5
    assert t.port_peer[s0, 0] == t.find("s1") and t.port_peer_port[s0, 0] == 3
    assert t.port_peer[s1, 3] == t.find("s0") and t.radix.tolist() == [2, 2]


def test_node_prefix_option_and_graphml_kind(tmp_path):
    p = write(
        tmp_path, "hosts.txt", "host1 leaf1\nhost2 leaf1\nleaf1 spine\nhost3 leaf2\nleaf2 spine\n"
    )
    t = fattree.build(f"graph:file={p},node_prefix=host")
    assert (t.n_nodes, t.n_switches) == (3, 3)
    import_error(p, "no compute nodes")  # default prefix 'n' finds none
    g = nx.Graph()
    g.add_nodes_from(["a", "b"], kind="node")
    g.add_node("x", kind="switch")
    g.add_edges_from([("a", "x"), ("b", "x")])
    nx.write_graphml(g, tmp_path / "k.graphml")
    u = fattree.build(f"graph:file={tmp_path / 'k.graphml'}")
    assert u.vertex_labels() == ["a", "b", "x"]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    switches=st.integers(1, 8),
    seed=st.integers(0, 2**31 - 1),
    fmt=st.sampled_from(["edgelist", "graphml"]),
)
def test_random_networks_round_trip(switches, seed, fmt, tmp_path_factory):
    rng = np.random.default_rng(seed)
    lines = [f"s{i} s{int(rng.integers(0, i))}" for i in range(1, switches)]  # a random tree
    lines += [f"s{int(a)} s{int(b)}" for a, b in rng.integers(0, switches, (switches, 2)) if a != b]
    lines += [f"n{j} s{int(rng.integers(0, switches))}" for j in range(int(rng.integers(1, 10)))]
    order = rng.permutation(len(lines))
    path = tmp_path_factory.mktemp("rnd") / "g.txt"
    path.write_text("\n".join(lines[i] for i in order) + "\n")
    t = fattree.build(f"graph:file={path}")
    u = fattree.build(f"graph:file={export(t, fmt, path.with_suffix('.' + fmt))[0]}")
    assert link_set(u) == link_set(t)
    assert np.array_equal(node_distance_histogram(u), node_distance_histogram(t))
    assert np.array_equal(u.switch_level, t.switch_level) if fmt == "graphml" else True
    # ports at every switch are 0..degree-1 in order of appearance
    assert np.all(t.radix == (t.port_peer >= 0).sum(axis=1))
    assert np.all((t.port_peer >= 0) == (np.arange(t.max_ports)[None, :] < t.radix[:, None]))


# ---------------------------------------------------------------------- bad files
def test_missing_directory_and_binary_files(tmp_path):
    with pytest.raises(InputFileError, match="does not exist"):
        fattree.build(f"graph:file={tmp_path / 'nope.txt'}")
    with pytest.raises(InputFileError, match="is a directory"):
        fattree.build(f"graph:file={tmp_path}")
    b = tmp_path / "bin.txt"
    b.write_bytes(b"n0 s0\n\xff\xfe\x00")
    import_error(b, r"bin.txt: line 2: not UTF-8")
    with pytest.raises(ParameterError, match="format='csv' is invalid"):
        fattree.build(f"graph:file={b},format=csv")


@pytest.mark.parametrize(
    "text,match",
    [
        ("n0 s0\ns0 s1 s2\n", r"line 2: expected 'a b' or 'a b port_a port_b', got 3 fields"),
        ("n0 s0 0 1\ns0 s1\n", r"line 2: 2 fields, but line 1 has 4"),
        ("n0 s0 0 x\n", r"line 1: ports must be integers"),
        ("n0 s0 0 -1\n", r"line 1: port out of range"),
        ("n0 s0 0 1\nn1 s0 0 1\n", r"line 2: port 1 of switch 's0' is already used on line 1"),
        ("n0 s0\ns0 s0\n", r"line 2: link from 's0' to itself"),
        ("n0 s0\nn0 n1\n", r"line 2: link between two compute nodes 'n0' and 'n1'"),
        ("n0 s0\n# x\nn0 s1\ns0 s1\n", r"line 1: compute node 'n0' has 2 links \(lines 1, 3\)"),
        (
            "n0 s0\nn1 s1\ns1 s2\n",
            r"line 1: the graph is disconnected \(2 components\): vertex 'n0'",
        ),
        ("s0 s1\ns1 s2\n", r"no compute nodes"),
        ("# only a comment\n", r"no links found"),
    ],
)
def test_malformed_edge_lists(tmp_path, text, match):
    msg = import_error(write(tmp_path, "bad.txt", text), match)
    assert "bad.txt" in msg


GRAPHML_HEAD = (
    '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
    '<key id="k" for="node" attr.name="kind" attr.type="string"/>'
)


@pytest.mark.parametrize(
    "body,match",
    [
        (
            '<graph edgedefault="undirected">\n<node id="n0"/>\n<edge source="n0" target="s9"/>',
            r"line 3: edge target 's9' is not a declared <node>",
        ),
        (
            '<graph edgedefault="undirected">\n<node id="n0"/><node id="s0"/>\n<edge source="n0" target="s0">',
            r"line 3: malformed GraphML",
        ),
        (
            '<graph edgedefault="undirected">\n<node id="n0"><data key="k">node</data></node>\n<node id="s0"/>'
            '<edge source="n0" target="s0"/></graph></graphml>',
            r"line 3: vertex 's0' has no 'kind' attribute",
        ),
        (
            '<graph edgedefault="undirected">\n<node id="n0"><data key="k">disk</data></node>'
            "</graph></graphml>",
            r"line 2: vertex 'n0' has kind='disk'",
        ),
        (
            '<graph edgedefault="undirected">\n<node id="n0"/>\n<node id="n1"/><node id="s0"/>'
            '<edge source="n0" target="s0"/></graph></graphml>',
            r"line 3: compute node 'n1' has 0 links",
        ),
    ],
)
def test_malformed_graphml(tmp_path, body, match):
    text = GRAPHML_HEAD + body
    msg = import_error(write(tmp_path, "bad.graphml", text), match)
    assert "bad.graphml" in msg


def test_graphml_defaults_and_partial_ports(tmp_path):
    head = (
        '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key id="k" for="node" attr.name="kind" attr.type="string"><default>switch</default></key>'
        '<key id="p" for="edge" attr.name="port_a" attr.type="int"/>'
        '<key id="q" for="edge" attr.name="port_b" attr.type="int"/>'
        '<graph edgedefault="undirected">\n<node id="h1"><data key="k">node</data></node>\n'
        '<node id="h2"><data key="k">node</data></node>\n<node id="x"/>\n'
    )
    good = head + (
        '<edge source="h1" target="x"><data key="p">0</data><data key="q">4</data></edge>\n'
        '<edge source="x" target="h2"><data key="p">2</data><data key="q">0</data></edge>\n'
        "</graph></graphml>"
    )
    t = fattree.build(f"graph:file={write(tmp_path, 'd.graphml', good)}")
    assert t.vertex_labels() == ["h1", "h2", "x"]  # 'x' is a switch by the key's default
    assert t.port_peer.tolist() == [[-1, -1, 1, -1, 0]]
    bad = head + (
        '<edge source="h1" target="x"><data key="p">0</data><data key="q">4</data></edge>\n'
        '<edge source="x" target="h2"/>\n</graph></graphml>'
    )
    import_error(
        write(tmp_path, "p.graphml", bad), r"p.graphml: line 6: edge without port_a and port_b"
    )


def test_format_is_sniffed_and_can_be_forced(tmp_path):
    data = export_bytes(fattree.build("kant:k=2,n=2"), "graphml")
    p = tmp_path / "net.data"
    p.write_bytes(data)
    assert fattree.build(f"graph:file={p}").meta["format"] == "graphml"
    import_error(p, r"line \d+: expected 'a b'", format="edgelist")


# ---------------------------------------------------------------------- BookSim2 anynet import, .cfg
def _booksim_ports(t):
    """BookSim2's port numbering of every router: its nodes by id, then its routers by id."""
    n = t.n_nodes
    out = {}
    for s in range(t.n_switches):
        peers = [int(p) for p in t.port_peer[s] if p >= 0]
        order = sorted(p for p in peers if p < n) + sorted(p for p in peers if p >= n)
        out[s] = order
    return out


@pytest.mark.parametrize(
    "spec",
    [
        "kant:k=4,n=3",
        "mikant:k=3,n=3",
        "kant:k=2,n=3",
        "torus:k=3,n=2",
        "clos:k=2,n=2",
        "hypercube:d=3,p=2",
    ],
)
def test_anynet_round_trip_keeps_ids_and_takes_booksim_ports(spec, tmp_path):
    t = fattree.build(spec)
    paths = export(t, "booksim", tmp_path / "net.anynet")
    u = fattree.build(f"graph:file={paths[0]}")
    n = t.n_nodes
    assert (u.n_nodes, u.n_switches) == (n, t.n_switches)
    assert u.meta["format"] == "anynet"
    # node I is compute node I, router R switch R: the same links, id for id
    assert np.array_equal(u.node_switch, t.node_switch)

    def same(topo):
        return {tuple(sorted(map(int, e))) for e in topo.links}

    assert same(u) == same(t)
    # ports are BookSim2's, not the papers'
    for s, order in _booksim_ports(t).items():
        assert [int(p) for p in u.port_peer[s] if p >= 0] == order
    # and the peer port tables agree with each other
    for s in range(u.n_switches):
        for p, peer in enumerate(u.port_peer[s]):
            if peer >= n:
                assert u.port_peer[peer - n, u.port_peer_port[s, p]] == n + s


def test_anynet_reads_booksim_forms_latency_one_and_links_named_once(tmp_path):
    # BookSim2's own example style: 'node I router R' lines, links named from one end, latencies 1
    f = tmp_path / "tiny.txt"
    f.write_text("router 0 node 0 node 1 router 1 1\n\nnode 2 router 1\nrouter 1 node 3 1\n")
    t = fattree.build(f"graph:file={f}")  # sniffed: first token 'router' + an integer
    assert (t.n_nodes, t.n_switches, len(t.links)) == (4, 2, 5)
    assert t.node_switch.tolist() == [0, 0, 1, 1]
    assert t.port_peer[1].tolist()[:3] == [2, 3, 4]  # nodes 2, 3 by id, then router 0
    assert fattree.build(f"graph:file={f},format=anynet").n_nodes == 4


@pytest.mark.parametrize(
    "text, line, match",
    [
        ("router 0 node 0 router 1\nswitch 1 node 1\n", 2, "expected 'router R' or 'node I'"),
        ("router 0 node 0 router 1\n# comment\n", 2, "no comments"),
        ("router 0 node 0 router x\n", 1, "non-negative integer id, got 'x'"),
        ("router 0 node 0 router 1 3\nrouter 1 node 1\n", 1, "latency 3 is not supported"),
        ("router 0 node 0 router 1 fast\n", 1, r"expected a link latency \(integer\), got 'fast'"),
        ("router 0 node 0\nnode 1 node 0\n", 2, "two compute nodes"),
        ("router 0 node 0 router 1\nrouter 1 node 0\n", 2, "node 0 is connected to router 1"),
        ("router 0 node 0 router 0\n", 1, "to itself"),
        ("router 0 node 0 router\n", 1, "router without an id"),
    ],
)
def test_anynet_bad_line_names_file_and_line(text, line, match, tmp_path):
    f = tmp_path / "bad.anynet"
    f.write_text(text)
    with pytest.raises(InputFileError, match=match) as info:
        fattree.build(f"graph:file={f}")
    msg = str(info.value)
    assert msg.startswith(f"{f}: line {line}: ") and "\n" not in msg


def test_anynet_id_gaps_are_refused(tmp_path):
    f = tmp_path / "gap.anynet"
    f.write_text("router 0 node 0 node 2 router 1\nrouter 1 node 3\n")
    with pytest.raises(
        InputFileError, match="node ids must be 0..2 without gaps.*node 1 is missing"
    ):
        fattree.build(f"graph:file={f}")


def test_export_booksim_bare_name_writes_anynet_labels_and_cfg(tmp_path):
    t = fattree.build("kant:k=4,n=3")
    paths = export(t, "booksim", tmp_path / "kant43")
    assert [p.name for p in paths] == ["kant43.anynet", "kant43.anynet.labels", "kant43.cfg"]
    text = paths[2].read_text()
    cfg = dict(re.findall(r"^(\w+) = (.*);$", text, re.M))
    # a k-ary n-tree: BookSim2's own fat tree with nca, what --model booksim simulates
    assert (cfg["topology"], cfg["k"], cfg["n"], cfg["routing_function"]) == (
        "fattree",
        "4",
        "3",
        "nca",
    )
    assert "network_file" not in cfg and "our node (b mod 4) * 16 + b div 4" in text
    assert (
        cfg["num_vcs"],
        cfg["vc_buf_size"],
        cfg["packet_size"],
        cfg["injection_rate_uses_flits"],
    ) == ("1", "2", "1", "1")
    with pytest.raises(ParameterError, match="writes its .cfg next to the network file"):
        export(t, "booksim", tmp_path / "net.cfg")


@pytest.mark.parametrize("spec", ["mikant:k=4,n=3", "torus:k=4,n=2", "clos:k=2,n=3"])
def test_export_booksim_other_families_keep_anynet_with_min(spec, tmp_path):
    paths = export(fattree.build(spec), "booksim", tmp_path / "net")
    cfg = dict(re.findall(r"^(\w+) = (.*);$", paths[2].read_text(), re.M))
    assert (cfg["topology"], cfg["network_file"], cfg["routing_function"]) == (
        "anynet",
        "net.anynet",
        "min",
    )


def test_kant_native_numbering_matches_the_model():
    # the .cfg's comment: BookSim2's node b is our (b mod k)·k^(n-1) + b div k
    from fattree.sim.booksim.routes import booksim_net

    t = fattree.build("kant:k=3,n=3")
    ours_of_b = {int(b): c for c, b in enumerate(booksim_net(t).booksim_of)}
    assert all(ours_of_b[b] == (b % 3) * 9 + b // 3 for b in range(27))


def test_export_booksim_cli_says_which_routing_and_its_cost(tmp_path, capsys):
    from fattree.cli import main
    from fattree.routing.load import channel_load
    from fattree.sim.booksim.routes import anynet_min_routing

    assert main(["export", "mikant:k=4,n=3", "--format", "booksim", "-o", str(tmp_path / "m")]) == 0
    err = capsys.readouterr().err
    assert "routing_function = min" in err
    t = fattree.build("mikant:k=4,n=3")
    mine, ours = channel_load(t, anynet_min_routing(t)), channel_load(t)
    assert f"bound {mine.bound:.4f} flits/node/cycle, against {ours.bound:.4f}" in err
    assert f"'{ours.algorithm}'" in err and mine.bound < 0.1 * ours.bound
    assert main(["export", "kant:k=4,n=3", "--format", "booksim", "-o", str(tmp_path / "k")]) == 0
    err = capsys.readouterr().err
    assert "topology = fattree, routing_function = nca" in err
    assert main(["export", "torus:k=4,n=2", "--format", "booksim"]) == 0  # stdout: note too
    assert "routing_function = min" in capsys.readouterr().err


def test_anynet_min_routing_is_the_models_table():
    # one route per pair: the first hop of every route is the model's min next hop
    from fattree.sim.booksim.routes import anynet_min_routing, booksim_net

    t = fattree.build("mikant:k=2,n=3")
    cr, net = anynet_min_routing(t), booksim_net(t)
    S, N = t.n_switches, t.n_nodes
    nh = net.next_hop.reshape(S, S)
    for s in range(S):
        for d in range(N):
            ds = int(t.node_switch[d])
            want = int(t.node_port[d]) if ds == s else int(nh[s, ds])
            assert cr.table[s, d] == want


def test_booksim_config_maps_our_options():
    from fattree.topology.export import BOOKSIM_KEYS, booksim_config

    text = booksim_config(
        None,
        k=4,
        n=3,
        buffer=5,
        vcs=2,
        packet_flits=8,
        speculative=False,
        load=0.25,
        traffic="bitcomp",
        seed=7,
        routing_delay=1,
        credit_delay=2,
    )
    cfg = dict(re.findall(r"^(\w+) = (.*);$", text, re.M))
    assert (cfg["topology"], cfg["k"], cfg["n"], cfg["routing_function"]) == (
        "fattree",
        "4",
        "3",
        "nca",
    )
    assert {ours: cfg[key] for ours, key in BOOKSIM_KEYS.items()} == {
        "load": "0.25",
        "traffic": "bitcomp",
        "packet_flits": "8",
        "buffer": "5",
        "vcs": "2",
        "speculative": "0",
        "routing_delay": "1",
        "credit_delay": "2",
        "seed": "7",
    }
    with pytest.raises(ParameterError, match="unknown setting 'bufer'"):
        booksim_config("x.anynet", bufer=3)
    with pytest.raises(ParameterError, match="no BookSim2 equivalent"):
        booksim_config("x.anynet", traffic="hotspot:node=3")
