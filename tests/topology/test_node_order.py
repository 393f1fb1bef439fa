"""Node numbering and the leaf-major order, on every family; placement of a pattern's ranks."""

from __future__ import annotations

import numpy as np
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.topology import FAMILIES
from fattree.topology.core import PLACEMENTS
from fattree.traffic import make_traffic, place
from fattree.traffic.patterns import _PLACEMENTS

EXAMPLES = [
    FAMILIES.get(name).facets.example
    for name in FAMILIES.names()
    if FAMILIES.get(name).facets.example is not None
] + ["kant:k=4,n=3", "xgft:m=3.3.3,w=1.2.2", "mikant:k=3,n=3", "clos:k=3,n=3"]


@pytest.mark.parametrize("spec", EXAMPLES)
def test_leaf_major_order_groups_each_leaf(spec):
    t = fattree.build(spec)
    order = t.leaf_major_order()
    assert sorted(order.tolist()) == list(range(t.n_nodes))
    sw = t.node_switch[order]
    assert np.all(np.diff(sw) >= 0)  # leaf by leaf, in switch order
    for s in np.unique(sw):  # within a leaf, by port
        ports = t.node_port[order[sw == s]]
        assert np.all(np.diff(ports) > 0)
    assert not order.flags.writeable
    assert t.node_order("leaf").tolist() == order.tolist()
    assert t.node_order("id").tolist() == list(range(t.n_nodes))


def test_graph_family_has_a_leaf_major_order_too(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("s0 n1\ns1 n0\ns0 n2\ns0 s1\n")
    t = fattree.build(f"graph:file={f}")
    order = t.leaf_major_order()
    assert np.all(np.diff(t.node_switch[order]) >= 0)


@pytest.mark.parametrize(
    "spec,interleaved",
    [
        ("kant:k=4,n=3", True),
        ("clos:k=2,n=3", True),
        ("mikant:k=2,n=3", True),
        ("xgft:m=2.2,w=1.2", True),
        ("minft:clients=8", False),
        ("torus:k=3,n=2,p=2", False),
    ],
)
def test_documented_numbering(spec, interleaved):
    # docs/families/trees.md, "Node numbering": the port digit first in the tree families
    t = fattree.build(spec)
    assert bool(t.node_switch[0] != t.node_switch[1]) is interleaved


def test_kant_numbering_rule():
    t = fattree.build("kant:k=4,n=3")  # node C on leaf C mod k^(n-1), port C div k^(n-1)
    c = np.arange(64)
    assert t.node_switch.tolist() == (c % 16).tolist()
    assert t.leaf_major_order().tolist() == [(r % 4) * 16 + r // 4 for r in range(64)]


def test_placement_names_agree():
    assert PLACEMENTS == _PLACEMENTS
    with pytest.raises(ParameterError, match="placement='diag' is invalid; allowed: id, leaf"):
        fattree.build("kant:k=2,n=2").node_order("diag")


def test_placed_pattern_renames_ranks():
    t = fattree.build("kant:k=4,n=3")
    order = t.leaf_major_order()
    base = make_traffic("ringneighbor", 64)
    tr = make_traffic("ringneighbor:placement=leaf", 64, topology=t)
    assert tr.spec == "ringneighbor:placement=leaf"
    for r in range(64):  # rank r sends to rank r + 1, both placed leaf-major
        assert tr.table[order[r]] == order[base.table[r]]
    # ranks 4j..4j+3 share a leaf: three of every four packets stay on their leaf switch
    same = t.node_switch[np.arange(64)] == t.node_switch[tr.table]
    assert int(same.sum()) == 48 and int((t.node_switch == t.node_switch[base.table]).sum()) == 0
    hot = make_traffic("hotspot:node=1,placement=leaf", 64, topology=t)
    assert int(hot.iparams[0]) == int(order[1])
    one = make_traffic("alltoone:node=1,placement=leaf", 64, topology=t)
    assert set(one.table.tolist()) == {int(order[1])}
    assert make_traffic("uniform:placement=leaf", 64, topology=t).iparams.tolist() == [0, 0, 0]


def test_placed_trace_renames_sources_and_destinations(tmp_path):
    f = tmp_path / "t.trace"
    f.write_text("0 0 1\n5 1 2\n7 1 3\n")
    t = fattree.build("kant:k=2,n=2")  # leaf-major order [0, 2, 1, 3]
    tr = make_traffic(f"trace:file={f},placement=leaf", 4, topology=t)
    cycle, src, dst = tr.trace
    assert src.tolist() == [0, 2, 2] and dst.tolist() == [2, 1, 3]
    assert tr.active.tolist() == [True, False, True, False]


def test_placement_needs_the_network_and_a_known_name():
    with pytest.raises(ParameterError, match="needs the network"):
        make_traffic("bitcomp:placement=leaf", 8)
    assert make_traffic("bitcomp:placement=leaf", 8, validate_only=True).spec == "bitcomp"
    with pytest.raises(ParameterError, match="placement='rows' is invalid"):
        make_traffic("bitcomp:placement=rows", 8)
    with pytest.raises(ParameterError, match="permutation"):
        place(make_traffic("bitcomp", 4), np.array([0, 0, 1, 2]))


def test_routing_load_cli_with_leaf_placement(capsys):
    from fattree.cli import main

    assert main(["routing", "load", "kant:k=4,n=3", "-t", "ringneighbor:placement=leaf"]) == 0
    out = capsys.readouterr().out
    assert "traffic ringneighbor:placement=leaf" in out and "mean hops 2.6250" in out


def test_simulate_with_leaf_placement_end_to_end(capsys):
    from fattree.cli import main

    base = fattree.simulate("kant:k=4,n=3", load=0.1, traffic="ringneighbor", packets_per_source=20)
    leaf = fattree.simulate(
        "kant:k=4,n=3", load=0.1, traffic="ringneighbor:placement=leaf", packets_per_source=20
    )
    assert leaf.traffic == "ringneighbor:placement=leaf"
    # 3 of 4 packets stay on their leaf switch (2 links): the channel-load means of
    # `routing load` (2.625 against 4.5 hops)
    assert leaf.avg_hops == pytest.approx(2.625) and base.avg_hops == pytest.approx(4.5)
    argv = ["simulate", "kant:k=4,n=3", "-t", "bitcomp:placement=leaf", "--load", "0.1", "-P", "5"]
    assert main(argv) == 0
    assert "bitcomp:placement=leaf" in capsys.readouterr().out
