"""The up*/down* root: highest level, then smallest eccentricity in the switch graph,
then lowest id, checked against networkx's eccentricities (every switch, so that the
64-searches-at-once kernel is checked across several batches)."""

import networkx as nx
import numpy as np
import pytest

import fattree
from fattree.routing._tables import _eccentricities
from fattree.routing.algorithms import updown_root


def _switch_graph(topo):
    g = nx.Graph()
    g.add_nodes_from(range(topo.n_switches))
    N = topo.n_nodes
    for s in range(topo.n_switches):
        for v in topo.port_peer[s]:
            if v >= N:
                g.add_edge(s, int(v) - N)
    return g


SPECS = [
    "kant:k=4,n=3",
    "xgft:m=4.4.4,w=1.2.4",
    "mikant:k=3,n=3",
    "mikantc:k=3,n=3",
    "cat:k=4,n=3",
    "torus:k=5,n=2",
    "hypercube:d=7",
    "clos:k=4,n=3",
]


@pytest.mark.parametrize("spec", SPECS)
def test_eccentricities_and_root_match_networkx(spec):
    topo = fattree.build(spec)
    g = _switch_graph(topo)
    want = nx.eccentricity(g)
    peer = np.ascontiguousarray(topo.port_peer, np.int32)
    got = _eccentricities(peer, topo.n_nodes, np.arange(topo.n_switches, dtype=np.int64))
    assert got.tolist() == [want[s] for s in range(topo.n_switches)]
    level = topo.switch_level
    best = min(range(topo.n_switches), key=lambda s: (-int(level[s]), want[s], s))
    assert updown_root(topo) == best


def test_a_disconnected_switch_graph_has_no_finite_eccentricity():
    # two switches, one node each, no link between them
    peer = np.array([[0], [1]], np.int32)
    assert _eccentricities(peer, 2, np.arange(2, dtype=np.int64)).tolist() == [3, 3]
