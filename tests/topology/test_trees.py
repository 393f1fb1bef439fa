"""kant, clos and mikant: structure, labels, ports and the papers' connection examples."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fattree
from fattree.errors import ParameterError, ResourceError, UnknownNameError
from fattree.topology import PORT_NODE, PORT_UP

from ..conftest import assert_ports_consistent

SIZES = [(k, n) for k in (2, 3, 4) for n in (2, 3, 4)]
VECTORS = Path(__file__).resolve().parents[1] / "data" / "mikant-routing-vectors.json"


@pytest.mark.parametrize("family", ["kant", "clos", "mikant"])
@pytest.mark.parametrize("k,n", SIZES)
def test_counts_ports_and_labels(family, k, n):
    t = fattree.build(f"{family}:k={k},n={n}")
    expected = {
        "kant": (k**n, n * k ** (n - 1), n * k**n),
        "clos": (2 * k**n, (2 * n - 1) * k ** (n - 1), 2 * n * k**n),
        "mikant": (2 * k**n, 2 * (n - 1) * k ** (n - 1), (2 * n - 1) * k**n),
    }[family]
    assert (t.n_nodes, t.n_switches, t.n_links) == expected
    assert_ports_consistent(t)
    for v in range(t.n_vertices):
        assert t.find(t.vertex_label(v)) == v
    g = t.to_networkx()
    assert nx.is_connected(g)
    assert g.number_of_edges() == t.n_links


def test_mikant_000_connection_example():
    # 000 §II: <0,2,0,0,0> of MiKANT(3,4) connects to <1,2,0..2,0,0,0> and <0,1,0,0..2,0>.
    t = fattree.build("mikant:k=3,n=4")
    s = t.find("s0.2.0.0.0") - t.n_nodes
    peers = {t.vertex_label(int(v)) for v in t.port_peer[s]}
    assert peers == {
        "s1.2.0.0.0",
        "s1.2.1.0.0",
        "s1.2.2.0.0",
        "s0.1.0.0.0",
        "s0.1.0.1.0",
        "s0.1.0.2.0",
    }
    # cross links are up ports at both ends
    assert all(t.port_kind[s, 3:] == PORT_UP)
    other = t.find("s1.2.1.0.0") - t.n_nodes
    assert t.port_kind[other, t.port_peer_port[s, 4]] == PORT_UP


def test_mikant_ports_follow_000_sec4():
    # up port k+i leads to digit value i; down port j to digit j; node C at port C_{n-1}.
    t = fattree.build("mikant:k=3,n=4")
    w = t.find("s0.1.0.2.2") - t.n_nodes
    assert t.vertex_label(int(t.port_peer[w, 3 + 1])) == "s0.2.0.1.2"
    assert t.vertex_label(int(t.port_peer[w, 2])) == "s0.0.0.2.2"
    node = t.find("n1.2.2.2.2")
    assert t.switch_label(int(t.node_switch[node])) == "s1.0.2.2.2"
    assert t.node_port[node] == 2
    assert t.port_kind[t.node_switch[node], 2] == PORT_NODE


def _vectors(kind):
    data = json.loads(VECTORS.read_text())
    return [v for v in data["vectors"] if v["kind"] == kind and v["topology"] == "MiKANT"]


def test_adjacency_vectors_of_the_spec():
    vecs = _vectors("adjacency")
    assert len(vecs) >= 2
    for vec in vecs:
        t = fattree.build(f"mikant:k={vec['k']},n={vec['n']}")
        s = t.find("s" + ".".join(map(str, vec["switch"]))) - t.n_nodes
        for port, label in vec["expected"]["ports"].items():
            got = t.vertex_label(int(t.port_peer[s, int(port)]))
            assert got == "s" + ".".join(map(str, label)), (vec["id"], port)


def test_property_vectors_of_the_spec():
    vecs = _vectors("property")
    assert len(vecs) >= 5
    for vec in vecs:
        t = fattree.build(f"mikant:k={vec['k']},n={vec['n']}")
        e = vec["expected"]
        assert (t.n_switches, t.n_nodes, t.n_links) == (e["switches"], e["nodes"], e["links"])


def test_kant_roots_have_k_ports_and_radix():
    t = fattree.build("kant:k=4,n=3")
    assert t.radix.max() == 8 and t.radix.min() == 4
    roots = np.nonzero(t.switch_level == 2)[0]
    assert np.all(t.radix[roots] == 4)


def test_clos_halves_are_kary_ntrees():
    # removing the group-1 half's stages leaves a classical k-ary n-tree (000 §II)
    t = fattree.build("clos:k=3,n=3")
    g = t.to_networkx()
    keep = [
        v
        for v, d in g.nodes(data=True)
        if (d["kind"] == "node" and v.startswith("n0."))
        or (d["kind"] == "switch" and int(v[1:].split(".")[0]) <= 2)
    ]
    sub = g.subgraph(keep)
    ref = fattree.build("kant:k=3,n=3").to_networkx()
    # VF2++ with nodes matched to nodes and switches to switches (plain VF2 takes seconds
    # on these symmetric graphs)
    assert nx.vf2pp_is_isomorphic(sub, ref, node_label="kind")


def test_mikant_contains_two_kary_ntrees():
    # 000 §II: group 0 plus stage n-2 of group 1 forms a classical k-ary n-tree.
    t = fattree.build("mikant:k=3,n=3")
    g = t.to_networkx()
    keep = [v for v in g if v.startswith("n0.") or v.startswith("s0.") or v.startswith("s1.1.")]
    ref = fattree.build("kant:k=3,n=3").to_networkx()
    assert nx.vf2pp_is_isomorphic(g.subgraph(keep), ref, node_label="kind")
    # the check can fail: one link less is another graph
    broken = nx.Graph(g.subgraph(keep))
    broken.remove_edge(*next(iter(broken.edges)))
    assert not nx.vf2pp_is_isomorphic(broken, ref, node_label="kind")


@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 5), n=st.integers(2, 4), data=st.data())
def test_label_round_trip_random(k, n, data):
    t = fattree.build(f"mikant:k={k},n={n}")
    v = data.draw(st.integers(0, t.n_vertices - 1))
    assert t.find(t.vertex_label(v)) == v


def test_arrays_are_immutable():
    t = fattree.build("mikant:k=2,n=3")
    with pytest.raises(ValueError):
        t.port_peer[0, 0] = 5
    with pytest.raises(AttributeError):
        t.family = "kant"


@pytest.mark.parametrize(
    "spec,fragment",
    [
        ("mikant:k=1,n=3", "k=1 is too small"),
        ("mikant:k=3", "missing parameter 'n'"),
        ("mikant:k=3,n=1", "n=1 is too small"),
        ("mikant:k=x,n=3", "not an integer"),
        ("mikant:k=3,n=3,q=2", "unknown parameter 'q'"),
        ("mikant:k=3;n=3", "not an integer"),
        ("mikant:k3,n=3", "not key=value"),
    ],
)
def test_bad_parameters(spec, fragment):
    with pytest.raises(ParameterError, match=fragment):
        fattree.build(spec)


def test_unknown_family_lists_valid_ones():
    with pytest.raises(UnknownNameError) as exc:
        fattree.build("mikan:k=3,n=3")
    msg = str(exc.value)
    assert "did you mean 'mikant'" in msg and "kant" in msg and "clos" in msg


def test_too_big_is_refused_before_allocating():
    with pytest.raises(ResourceError, match="GiB"):
        fattree.build("mikant:k=64,n=8")


def test_bad_labels():
    t = fattree.build("mikant:k=3,n=4")
    with pytest.raises(ParameterError, match="does not exist"):
        t.find("n0.3.0.0.0")
    with pytest.raises(ParameterError, match="must start with"):
        t.find("x0.1")
    with pytest.raises(ParameterError, match="is a switch"):
        t.find_node("s0.0.0.0.0")
