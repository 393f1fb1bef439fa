"""Channel dependency graph (Dally & Seitz 1987) of a routing algorithm, its cycles,
and the routes that close them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..topology.core import Topology
from ._cdg import _cdg_states, _cdg_walks, _find_cycle, _witness_walks
from .check import _diameter_bound, fail_mask
from .compiled import CompiledRouting, compile_routing
from .kernel import route_ports

MAX_VCS = 8


@dataclass
class DeadlockReport:
    """Result of :func:`deadlock`. ``cycle`` lists channels as ``"sA→sB vc0"``;
    ``routes`` gives, for each dependency of the cycle, one route that creates it;
    ``cycle_ids`` are the channel ids ``(sw * R + port) * vcs + vc``."""

    spec: str
    algorithm: str
    vcs: int
    vcs_required: int
    acyclic: bool
    channels: int
    dependencies: int
    method: str
    undelivered_pairs: int
    cycle: list[str] = field(default_factory=list)
    cycle_ids: list[int] = field(default_factory=list)
    routes: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def channel_label(topo: Topology, ch: int, vcs: int) -> str:
    """``"sA→sB vcW"`` for channel id ``(sw * R + port) * vcs + vc``."""
    R = topo.max_ports
    w = ch % vcs
    sw, p = divmod(ch // vcs, R)
    return f"{topo.switch_label(sw)}→{topo.vertex_label(int(topo.port_peer[sw, p]))} vc{w}"


@dataclass
class DependencyGraph:
    """The channel dependency graph: ``adj[c, q * vcs + w]`` for channel c to port q
    of the next switch on VC w; ``used[c]`` for every channel some route takes."""

    cr: CompiledRouting
    graph_cr: CompiledRouting
    vcs: int
    adj: np.ndarray
    used: np.ndarray
    fail: np.ndarray
    hop_limit: int
    by_states: bool
    method: str
    lost: int

    def edges(self, topo: Topology) -> np.ndarray:
        """(m, 2) channel ids of every dependency."""
        c, j = np.nonzero(self.adj)
        R, V = topo.max_ports, self.vcs
        sw, p = np.divmod(c // V, R)
        nxt = topo.port_peer[sw, p].astype(np.int64) - topo.n_nodes
        return np.stack([c, (nxt * R + j // V) * V + j % V], axis=1)


def dependency_graph(
    topo: Topology,
    algorithm: str | CompiledRouting | None = None,
    *,
    vcs: int = 1,
    seed: int = 0,
    failed_links=None,
) -> DependencyGraph:
    """Build the channel dependency graph that :func:`deadlock` searches (see there).

    Examples
    --------
    >>> import fattree
    >>> from fattree.routing.deadlock import dependency_graph
    >>> t = fattree.build("kant:k=2,n=2")
    >>> g = dependency_graph(t, "alg1")
    >>> g.edges(t).shape, int(g.used.sum())
    ((6, 2), 8)

    References
    ----------
    Dally & Seitz (1987).
    """
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    if isinstance(vcs, bool) or not isinstance(vcs, (int, np.integer)) or not 1 <= vcs <= MAX_VCS:
        raise ParameterError(f"vcs={vcs!r} is invalid: expected an integer 1..{MAX_VCS}")
    cr = (
        algorithm
        if isinstance(algorithm, CompiledRouting)
        else compile_routing(topo, algorithm, seed)
    )
    graph_cr = cr
    if not cr.adaptive and cr.support:
        graph_cr = compile_routing(topo, cr.support, cr.seed)
    fail = fail_mask(topo, failed_links)
    S, R = topo.port_peer.shape
    V = int(vcs)
    adj = np.zeros((S * R * V, R * V), np.bool_)
    used = np.zeros(S * R * V, np.bool_)
    hop_limit = 4 * _diameter_bound(topo, fail) + 8
    args = (
        topo.port_peer,
        topo.port_peer_port,
        fail,
        topo.n_nodes,
        topo.node_switch,
        topo.node_port,
    )
    by_states = graph_cr.adaptive or (not cr.per_packet and failed_links is None)
    lost = 0
    if by_states:
        method = f"states of {graph_cr.algorithm}"
        n_states = S * (R + 1) * (V + 1)
        parent = np.empty(n_states, np.int64)
        start = np.empty(n_states, np.int64)
        _cdg_states(
            graph_cr.code, graph_cr.iparams, graph_cr.table, *args, V, adj, used, -1, parent, start
        )
    else:
        method = "routes"
        lost = int(_cdg_walks(cr.code, cr.iparams, cr.table, *args, V, hop_limit, adj, used))
    return DependencyGraph(cr, graph_cr, V, adj, used, fail, hop_limit, by_states, method, lost)


def deadlock(
    topo: Topology,
    algorithm: str | CompiledRouting | None = None,
    *,
    vcs: int = 1,
    seed: int = 0,
    failed_links=None,
) -> DeadlockReport:
    """Build the channel dependency graph of all node-to-node routes and look for a cycle.

    Channels are (directed switch output link, virtual channel); the VC of every hop
    comes from :func:`fattree.routing.kernel.next_vc`. Every candidate transition of
    every state (switch, in port, in VC) reachable towards each destination is a
    dependency; ``random`` uses the adaptive candidates it draws from. Algorithms
    that depend on the source (``smodk``), and any oblivious algorithm when links
    have failed, instead add the dependencies of every delivered route. An acyclic
    graph proves deadlock freedom (Dally & Seitz).

    Parameters
    ----------
    topo : Topology
    algorithm : str or CompiledRouting, optional
    vcs : int
        Virtual channels per link, 1..8.
    seed : int
        Seed of ``random``'s per-packet choices.
    failed_links : bool (E,) or link ids, optional
        Failed links: routes that would cross one add nothing (oblivious algorithms),
        adaptive candidates on them are skipped.

    Returns
    -------
    DeadlockReport

    Examples
    --------
    >>> import fattree
    >>> from fattree.routing.deadlock import deadlock
    >>> t = fattree.build("mikant:k=3,n=3")
    >>> deadlock(t, "alg1").acyclic
    True
    >>> r = deadlock(t, "minimal-all", vcs=1)
    >>> r.acyclic, len(r.cycle) == len(r.routes)
    (False, True)
    >>> deadlock(t, "minimal-all", vcs=2).acyclic
    True

    References
    ----------
    W. J. Dally, C. L. Seitz, "Deadlock-free message routing in multiprocessor
    interconnection networks", IEEE TC 36(5), 1987; docs/mikant-routing.md §6.
    """
    t0 = time.perf_counter()
    g = dependency_graph(topo, algorithm, vcs=vcs, seed=seed, failed_links=failed_links)
    cr, graph_cr, V, adj, used = g.cr, g.graph_cr, g.vcs, g.adj, g.used
    args = (
        topo.port_peer,
        topo.port_peer_port,
        g.fail,
        topo.n_nodes,
        topo.node_switch,
        topo.node_port,
    )
    fail, hop_limit, by_states, method, lost = g.fail, g.hop_limit, g.by_states, g.method, g.lost
    cyc = _find_cycle(topo.port_peer, topo.n_nodes, V, adj, used)
    report = DeadlockReport(
        spec=topo.spec,
        algorithm=cr.algorithm,
        vcs=V,
        vcs_required=cr.vcs_required,
        acyclic=cyc.size == 0,
        channels=int(used.sum()),
        dependencies=int(adj.sum()),
        method=method,
        undelivered_pairs=lost,
    )
    if cyc.size:
        report.cycle = [channel_label(topo, int(c), V) for c in cyc]
        report.cycle_ids = [int(c) for c in cyc]
        ring = np.append(cyc, cyc[0])
        for a, b in zip(ring[:-1].tolist(), ring[1:].tolist()):
            report.routes.append(
                _witness(topo, graph_cr, cr, fail, V, hop_limit, a, b, args, by_states)
            )
    report.seconds = time.perf_counter() - t0
    return report


def _witness(topo, graph_cr, cr, fail, V, hop_limit, a, b, args, by_states) -> dict:
    """One route that creates the dependency a -> b, as labels."""
    R = topo.max_ports
    a_sw, a_p = divmod(a // V, R)
    b_sw, b_p = divmod(b // V, R)
    dep = f"{channel_label(topo, a, V)} ⇒ {channel_label(topo, b, V)}"
    N = topo.n_nodes
    if not by_states:
        s, t = _witness_walks(cr.code, cr.iparams, cr.table, *args, hop_limit, a_sw, a_p, b_p)
        if s < 0:
            return {"dependency": dep, "src": None, "dst": None, "path": []}
        sws, ports = _walk(topo, cr, fail, int(topo.node_switch[s]), -1, int(s), int(t), hop_limit)
        return _as_route(topo, dep, int(s), int(t), sws, ports)
    S = topo.n_switches
    n_states = S * (R + 1) * (V + 1)
    parent = np.empty(n_states, np.int64)
    start = np.empty(n_states, np.int64)
    adj = np.zeros((S * R * V, R * V), np.bool_)
    used = np.zeros(S * R * V, np.bool_)
    target = a * R * V + b_p * V + b % V
    t, st = _cdg_states(
        graph_cr.code, graph_cr.iparams, graph_cr.table, *args, V, adj, used, target, parent, start
    )
    if t < 0:
        return {"dependency": dep, "src": None, "dst": None, "path": []}
    chain = []
    x = st
    while x >= 0:
        chain.append(x)
        x = parent[x]
    chain.reverse()
    V1, R1 = V + 1, R + 1
    sws = [c // (V1 * R1) for c in chain]
    ports = [
        int(topo.port_peer_port[sws[i + 1], (chain[i + 1] // V1) % R1 - 1])
        for i in range(len(chain) - 1)
    ]
    ports.append(b_p)
    nxt = int(topo.port_peer[b_sw, b_p])
    s = int(start[st])
    if nxt == t:
        return _as_route(topo, dep, s, int(t), sws, ports)
    rest_sw, rest_p = _walk(
        topo, graph_cr, fail, nxt - N, int(topo.port_peer_port[b_sw, b_p]), -1, int(t), hop_limit
    )
    return _as_route(topo, dep, s, int(t), sws + rest_sw, ports + rest_p)


def _walk(topo, cr, fail, sw, in_port, src, t, hop_limit):
    """First healthy candidate at every hop, from switch ``sw`` (Python loop: witnesses only)."""
    sws, ports = [], []
    cand = np.empty(topo.max_ports + 1, np.int64)
    for _ in range(hop_limit):
        c = route_ports(cr.code, cr.iparams, cr.table, topo.port_peer, sw, in_port, src, t, 0, cand)
        ok = [int(p) for p in cand[:c] if not fail[sw, p]]
        sws.append(sw)
        if not ok:
            break
        ports.append(ok[0])
        v = int(topo.port_peer[sw, ok[0]])
        if v == t or v < topo.n_nodes:
            break
        in_port = int(topo.port_peer_port[sw, ok[0]])
        sw = v - topo.n_nodes
    return sws, ports


def _as_route(topo, dep, s, t, sws, ports) -> dict:
    path = [topo.node_label(s)] + [topo.switch_label(x) for x in sws] + [topo.node_label(t)]
    return {
        "dependency": dep,
        "src": topo.node_label(s),
        "dst": topo.node_label(t),
        "path": path,
        "ports": [int(p) for p in ports],
    }


__all__ = ["deadlock", "dependency_graph", "DeadlockReport", "DependencyGraph", "channel_label"]
