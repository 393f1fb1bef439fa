"""BookSim2's routing for the booksim model (``fattree.sim.booksim.routes``).

``nca``'s down-port ranges are checked against a slow pure-Python walk up from every
node (the definition: the BookSim2 ids of the nodes below a port); the children-first
pass that computes them must agree on every kant, and stay linear at 65,536 nodes. The
anynet table's size guard must answer in one line instead of allocating gigabytes.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from fattree.errors import ParameterError
from fattree.sim.booksim.routes import MAX_TABLE_SWITCHES, booksim_net
from fattree.topology import build
from fattree.topology.core import PORT_UP


def _walk_up_ranges(topo, b):
    """Per port (S*R), the least and greatest BookSim2 id below it (-1, -2: none)."""
    S, R, N = topo.n_switches, topo.max_ports, topo.n_nodes
    kind, peer, pport = topo.port_kind, topo.port_peer, topo.port_peer_port
    below = [set() for _ in range(S * R)]
    for d in range(N):
        s = int(topo.node_switch[d])
        below[s * R + int(topo.node_port[d])].add(int(b[d]))
        frontier = {s}
        while frontier:
            nxt = set()
            for s in frontier:
                for p in range(R):
                    if kind[s, p] == PORT_UP and peer[s, p] >= N:
                        q = int(peer[s, p]) - N
                        below[q * R + int(pport[s, p])].add(int(b[d]))
                        nxt.add(q)
            frontier = nxt
    lo = np.array([min(x) if x else -1 for x in below], np.int64)
    hi = np.array([max(x) if x else -2 for x in below], np.int64)
    return lo, hi


@pytest.mark.parametrize(
    "spec", ["kant:k=2,n=1", "kant:k=2,n=3", "kant:k=3,n=3", "kant:k=4,n=3", "kant:k=2,n=5"]
)
def test_nca_down_ranges_are_the_nodes_below_each_port(spec):
    topo = build(spec)
    net = booksim_net(topo)
    lo, hi = _walk_up_ranges(topo, net.booksim_of)
    assert np.array_equal(net.port_lo, lo)
    assert np.array_equal(net.port_hi, hi)


def test_nca_down_ranges_scale_to_65536_nodes():
    topo = build("kant:k=4,n=8")
    t0 = time.process_time()
    net = booksim_net(topo)
    cpu = time.process_time() - t0
    R, N = topo.max_ports, topo.n_nodes
    lo, hi = net.port_lo.reshape(-1, R), net.port_hi.reshape(-1, R)
    top = np.flatnonzero(np.asarray(topo.switch_level) == topo.switch_level.max())
    # each top switch's down ports split all the nodes into k contiguous quarters
    assert np.all(lo[top, :4].min(axis=1) == 0) and np.all(hi[top, :4].max(axis=1) == N - 1)
    assert np.all(hi[top, :4] - lo[top, :4] + 1 == N // 4)
    assert cpu < 20  # (a walk up from every node took minutes here)


def test_anynet_table_too_large_is_one_line():
    topo = build("mikant:k=4,n=7")
    assert topo.n_switches > MAX_TABLE_SWITCHES
    with pytest.raises(ParameterError, match=r"topology='mikant:k=4,n=7' has 49,152 switches"):
        booksim_net(topo)


@pytest.mark.parametrize("spec", ["kant:k=2,n=3", "kant:k=3,n=3", "kant:k=4,n=2"])
def test_nca_fast_path_is_the_registered_routing(spec):
    """The kernel's down-port ranges and up-port lists route as ``booksim-nca`` through
    the routing contract: the same down port wherever the destination is below, and
    every up port among the candidates (its adaptive support) elsewhere."""
    from fattree.routing import compile_routing, route_ports

    topo = build(spec)
    net = booksim_net(topo)
    cr = net.compiled
    assert cr.algorithm == "booksim-nca" and cr.per_packet and cr.support == "adaptive"
    sup = compile_routing(topo, "adaptive")
    S, R, N = topo.n_switches, topo.max_ports, topo.n_nodes
    peer = np.ascontiguousarray(topo.port_peer, np.int32)
    out = np.zeros(R, np.int64)
    lo, hi = net.port_lo.reshape(S, R), net.port_hi.reshape(S, R)
    for s in range(S):
        ups = set(net.up_ports.reshape(S, R)[s, : net.up_n[s]].tolist())
        for d in range(N):
            b = net.booksim_of[d]
            down = [p for p in range(R) if lo[s, p] <= b <= hi[s, p]]
            n = route_ports(cr.code, cr.iparams, cr.table, peer, s, -1, -1, d, 7, out)
            if down:
                assert n == 1 and out[0] == down[0]
            else:
                assert n == 1 and int(out[0]) in ups
                m = route_ports(sup.code, sup.iparams, sup.table, peer, s, -1, -1, d, 7, out)
                assert set(out[:m].tolist()) == ups


def test_min_next_hops_are_the_registered_table():
    """``booksim-min``'s table, read by the kernel as switch-to-switch next hops."""
    from fattree.routing import compile_routing
    from fattree.routing.booksim import min_next_hops

    topo = build("mikant:k=2,n=3")
    net = booksim_net(topo)
    cr = compile_routing(topo, "booksim-min")
    assert net.compiled.algorithm == "booksim-min" and net.routing == "min"
    S = topo.n_switches
    nh, full = net.next_hop.reshape(S, S), min_next_hops(topo).reshape(S, S)
    ns = np.asarray(topo.node_switch)
    for d in range(topo.n_nodes):
        for s in range(S):
            want = topo.node_port[d] if s == ns[d] else full[s, ns[d]]
            assert cr.table[s, d] == want
            if s != ns[d]:
                assert nh[s, ns[d]] == want
