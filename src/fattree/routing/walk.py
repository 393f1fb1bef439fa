"""Follow one route hop by hop with the kernel: :func:`route` and :class:`RouteResult`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import ParameterError
from ..topology.core import Topology
from .compiled import CompiledRouting, compile_routing
from .kernel import route_ports

# walk status codes
DELIVERED = 0
NO_ROUTE = 1  # the rule returned no port
HOP_LIMIT = 2  # a loop, or a route longer than the limit
BAD_PORT = 3  # an unused port, or a node other than the destination
STATUS = ("delivered", "no route", "hop limit (loop)", "bad port")


@njit(cache=True)
def _walk(
    code,
    iparams,
    table,
    port_peer,
    peer_port,
    n_nodes,
    sw,
    src,
    dst,
    pkt_key,
    hop_limit,
    sw_out,
    port_out,
):
    """First-preference walk from switch ``sw``; returns (switches visited, status)."""
    cand = np.empty(port_peer.shape[1] + 1, np.int64)
    in_port = -1
    for h in range(hop_limit):
        c = route_ports(code, iparams, table, port_peer, sw, in_port, src, dst, pkt_key, cand)
        sw_out[h] = sw
        if c <= 0:
            return h + 1, NO_ROUTE
        p = cand[0]
        port_out[h] = p
        v = port_peer[sw, p]
        if v == dst:
            return h + 1, DELIVERED
        if v < n_nodes:
            return h + 1, BAD_PORT
        in_port = peer_port[sw, p]
        sw = v - n_nodes
    return hop_limit, HOP_LIMIT


@dataclass(frozen=True)
class RouteResult:
    """One route: the labels from source to destination and the ports taken.

    ``hops`` counts links, both node links included (000 Table II: 6 switches,
    path length 7). ``ports[i]`` is the output port at ``switches[i]``; the last one
    is the ejection port.
    """

    path: list[str]
    switches: list[int]
    ports: list[int]
    hops: int
    delivered: bool
    status: str
    src: int
    dst: int
    algorithm: str

    def to_dict(self, topo: Topology) -> dict:
        return {
            "algorithm": self.algorithm,
            "src": self.path[0],
            "dst": topo.node_label(self.dst),
            "delivered": self.delivered,
            "status": self.status,
            "path": self.path,
            "switches": [topo.switch_label(s) for s in self.switches],
            "ports": self.ports,
            "hops": self.hops,
        }


def _vertex(topo: Topology, v, param: str) -> int:
    if isinstance(v, str):
        return topo.find(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise ParameterError(f"{param}={v!r} is invalid: expected a label or a vertex id")
    if not 0 <= int(v) < topo.n_vertices:
        raise ParameterError(f"{param}={v!r} is invalid: vertex ids are 0..{topo.n_vertices - 1}")
    return int(v)


def route(
    topo: Topology,
    cr: CompiledRouting | str | None,
    src,
    dst,
    *,
    pkt_key: int = 0,
    hop_limit: int | None = None,
) -> RouteResult:
    """Route one packet with the first-preference port at every switch.

    Parameters
    ----------
    topo : Topology
    cr : CompiledRouting or str or None
        Compiled routing, or an algorithm name (compiled with seed 0).
    src : int or str
        Source node (label or vertex id). A switch starts the route at that switch
        (the 001 §4.2 examples start at a switch); the path then begins there.
    dst : int or str
        Destination node.
    pkt_key : int
        Packet identity for per-packet random choices.
    hop_limit : int, optional
        Switches visited before the walk is declared a loop (default ``4S + 8``, at
        most 65,536).

    Returns
    -------
    RouteResult

    Examples
    --------
    >>> import fattree
    >>> from fattree.routing import route
    >>> t = fattree.build("mikant:k=3,n=4")
    >>> r = route(t, "alg1", "n0.2.0.0.0", "n1.2.2.2.2")
    >>> r.path[1:-1], r.ports, r.hops
    (['s0.0.0.0.0', 's0.1.0.0.2', 's0.2.0.2.2', 's1.2.2.2.2', 's1.1.2.2.2', 's1.0.2.2.2'], [5, 5, 5, 2, 2, 2], 7)

    References
    ----------
    000 Table II; docs/mikant-routing.md §2.
    """
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    if not isinstance(cr, CompiledRouting):
        cr = compile_routing(topo, cr)
    s = _vertex(topo, src, "src")
    d = _vertex(topo, dst, "dst")
    if d >= topo.n_nodes:
        raise ParameterError(
            f"dst={topo.vertex_label(d)!r} is a switch, a compute node is expected "
            f"(e.g. {topo.node_label(0)!r})"
        )
    N = topo.n_nodes
    limit = min(4 * topo.n_switches + 8, 1 << 16) if hop_limit is None else int(hop_limit)
    if limit < 1:
        raise ParameterError(f"hop_limit={hop_limit!r} is invalid: expected a positive integer")
    if s == d:
        return RouteResult(
            [topo.node_label(s)], [], [], 0, True, STATUS[DELIVERED], s, d, cr.algorithm
        )
    start = int(topo.node_switch[s]) if s < N else s - N
    sw_out = np.empty(limit, np.int64)
    port_out = np.full(limit, -1, np.int64)
    peer = topo.port_peer
    count, status = _walk(
        cr.code,
        cr.iparams,
        cr.table,
        peer,
        topo.port_peer_port,
        N,
        start,
        s if s < N else -1,
        d,
        int(pkt_key),
        limit,
        sw_out,
        port_out,
    )
    sws = sw_out[:count].tolist()
    ports = port_out[:count].tolist()
    if ports and ports[-1] < 0:
        ports = ports[:-1]
    path = ([topo.node_label(s)] if s < N else []) + [topo.switch_label(x) for x in sws]
    ok = status == DELIVERED
    if ok:
        path.append(topo.node_label(d))
    hops = len(ports) + (1 if s < N else 0)
    return RouteResult(path, sws, ports, hops, ok, STATUS[status], s, d, cr.algorithm)


__all__ = ["DELIVERED", "NO_ROUTE", "HOP_LIMIT", "BAD_PORT", "STATUS", "RouteResult", "route"]
