"""BookSim2's routing and node numbering for a topology (the booksim model).

Two routings, registered per family with :func:`register_net`:

* ``nca`` (BookSim2's built-in ``fattree``, ``routing_function = nca``): a packet whose
  destination is below the router goes down its unique port; otherwise up through a
  port drawn uniformly at random, at every router. Used for ``kant``, with BookSim2's
  node numbering ``b = (C mod k^(n-1))·k + C div k^(n-1)`` (docs/booksim.md).
* ``min`` (``topology = anynet; routing_function = min``): a fixed table from a
  Dijkstra per router whose ties go to the lowest router id (``AnyNet::route``). Used
  for every other family: what BookSim2 does with our ``--format booksim`` export.

References
----------
BookSim2 commit 28f4329: ``src/routefunc.cpp`` (``fattree_nca``), ``src/networks/anynet.cpp``
(``buildRoutingTable``, ``route``); docs/booksim.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...errors import ParameterError
from ...registry import Registry
from ...topology.core import PORT_UP

R_NCA = 0  # kernel selector: down-port ranges of BookSim2 ids + random up port
R_TABLE = 1  # kernel selector: next-hop table per (router, destination router)
MAX_TABLE_SWITCHES = 1 << 15  # the anynet table: switches² int16 next hops, 2 GiB here


@dataclass(frozen=True, eq=False)
class BsNet:
    """What the kernel needs to route like BookSim2 on one topology.

    Attributes
    ----------
    routing : str
        ``nca`` or ``min``.
    kind : int
        ``R_NCA`` or ``R_TABLE``.
    port_lo, port_hi : (S*R,) int64
        ``nca``: the BookSim2 ids of the nodes below each port form the range
        ``port_lo .. port_hi`` (BookSim2's fat tree numbers every subtree contiguously);
        ``-1, -2`` for up and unused ports. A packet goes down the port whose range holds
        its destination (no table of routers x nodes: two cache lines per lookup).
    up_n, up_ports : (S,), (S*R,) int32
        ``nca``: the up ports of each router.
    next_hop : (S*S,) int16
        ``min``: the port of router s towards router s2 (s2 != s).
    booksim_of : (N,) int64
        BookSim2's id of each of our nodes (identity for anynet files).
    """

    routing: str
    kind: int
    port_lo: np.ndarray
    port_hi: np.ndarray
    up_n: np.ndarray
    up_ports: np.ndarray
    next_hop: np.ndarray
    booksim_of: np.ndarray


NETS: Registry[Callable] = Registry("BookSim2 routing")
DIGITS: Registry[Callable] = Registry("BookSim2 k and n")

#: BookSim2's ``k`` and ``n`` when its configuration does not set them
#: (``src/booksim_config.cpp``): what its digit patterns read on an anynet file.
ANYNET_DIGITS = (8, 2)


def register_net(*families: str, digits: Callable | None = None):
    """Register the builder of a family's BookSim2 routing (a decorator).

    Parameters
    ----------
    *families : str
        The families whose networks BookSim2 builds itself.
    digits : callable or None
        ``digits(topo) -> (k, n)``: the ``k`` and ``n`` of BookSim2's configuration for
        this network, which its digit patterns (``tornado``, ``neighbor``) read.

    Returns
    -------
    callable
        The decorator; it returns the builder unchanged.
    """

    def deco(fn):
        for f in families:
            NETS.add(f, fn)
            if digits is not None:
                DIGITS.add(f, digits)
        return fn

    return deco


def booksim_digits(topo) -> tuple[int, int]:
    """BookSim2's ``k`` and ``n`` for ``topo``: the built-in fat tree's, or BookSim2's
    defaults (8, 2) for an anynet file, whose configuration does not set them.

    Parameters
    ----------
    topo : Topology

    Returns
    -------
    (int, int)

    Examples
    --------
    >>> import fattree
    >>> booksim_digits(fattree.build("kant:k=4,n=3")), booksim_digits(fattree.build("torus:k=8,n=2"))
    ((4, 3), (8, 2))
    """
    if topo.family in DIGITS:
        return DIGITS.get(topo.family)(topo)
    return ANYNET_DIGITS


def booksim_net(topo) -> BsNet:
    """The routing BookSim2 uses for ``topo``: ``nca`` for kant, the anynet ``min`` table
    for every other family (the file ``fattree export --format booksim`` writes)."""
    build = NETS.get(topo.family) if topo.family in NETS else _anynet_min
    return build(topo)


_EMPTY16 = np.zeros(0, np.int16)
_EMPTY32 = np.zeros(0, np.int32)
_EMPTY64 = np.zeros(0, np.int64)


@register_net("kant", digits=lambda topo: (int(topo.params["k"]), int(topo.params["n"])))
def _fattree_nca(topo) -> BsNet:
    k, n = int(topo.params["k"]), int(topo.params["n"])
    S, R, N = topo.n_switches, topo.max_ports, topo.n_nodes
    kind = np.asarray(topo.port_kind)
    peer = np.asarray(topo.port_peer, np.int64)
    up = (kind == PORT_UP) & (peer >= N)
    up_n = up.sum(axis=1).astype(np.int32)
    # each switch's up ports in port order, then -1
    order = np.argsort(~up, axis=1, kind="stable")
    up_ports = np.where(np.arange(R)[None, :] < up_n[:, None], order, -1).astype(np.int32)
    c = np.arange(N, dtype=np.int64)
    kn1 = k ** (n - 1)
    b = (c % kn1) * k + c // kn1
    lo, hi, count = _down_ranges(
        S,
        R,
        N,
        peer,
        np.asarray(topo.port_peer_port, np.int64),
        up.astype(np.int8),
        np.asarray(topo.node_switch, np.int64),
        np.asarray(topo.node_port, np.int64),
        b,
    )
    used = count > 0
    if not np.array_equal(hi[used] - lo[used] + 1, count[used]):
        raise AssertionError("kant: a subtree is not contiguous in BookSim2's numbering")
    lo[~used], hi[~used] = -1, -2
    return BsNet("nca", R_NCA, lo, hi, up_n, up_ports.ravel(), _EMPTY16, b)


@njit(cache=True)
def _down_ranges(S, R, N, peer, peer_port, up, node_switch, node_port, b):
    """For every port, the least and greatest BookSim2 id ``b`` of the nodes below it and
    their number. Each switch's subtree is the union of its children's: switches are
    taken children first (Kahn's order over the up links), each adding its subtree to
    the port above it and to its parent, so the cost is one pass over the ports (a walk
    up from every node would cost nodes x ancestors: minutes at 65,536 nodes)."""
    BIG = np.int64(1) << 62
    lo = np.full(S * R, BIG, np.int64)
    hi = np.full(S * R, -1, np.int64)
    count = np.zeros(S * R, np.int64)
    slo = np.full(S, BIG, np.int64)  # each switch's subtree
    shi = np.full(S, -1, np.int64)
    scount = np.zeros(S, np.int64)
    for d in range(N):
        s = node_switch[d]
        x = s * R + node_port[d]
        lo[x] = min(lo[x], b[d])
        hi[x] = max(hi[x], b[d])
        count[x] += 1
        slo[s] = min(slo[s], b[d])
        shi[s] = max(shi[s], b[d])
        scount[s] += 1
    waiting = np.zeros(S, np.int64)  # children not yet taken
    for s in range(S):
        for p in range(R):
            if up[s, p]:
                waiting[peer[s, p] - N] += 1
    order = np.empty(S, np.int64)
    n = 0
    for s in range(S):
        if waiting[s] == 0:
            order[n] = s
            n += 1
    i = 0
    while i < n:
        s = order[i]
        i += 1
        for p in range(R):
            if up[s, p]:
                q = peer[s, p] - N
                x = q * R + peer_port[s, p]
                lo[x] = min(lo[x], slo[s])
                hi[x] = max(hi[x], shi[s])
                count[x] += scount[s]
                slo[q] = min(slo[q], slo[s])
                shi[q] = max(shi[q], shi[s])
                scount[q] += scount[s]
                waiting[q] -= 1
                if waiting[q] == 0:
                    order[n] = q
                    n += 1
    return lo, hi, count


def _anynet_min(topo) -> BsNet:
    S, R, N = topo.n_switches, topo.max_ports, topo.n_nodes
    if S > MAX_TABLE_SWITCHES:
        raise ParameterError(
            f"topology={topo.spec!r} has {S:,} switches: model='booksim' routes it as "
            f"BookSim2's anynet does, by a table of switches² next hops ({2 * S * S / 2**30:,.0f} "
            f"GiB), allowed up to {MAX_TABLE_SWITCHES:,} switches; simulate it with "
            "model='papers' (or kant with BookSim2's nca routing)"
        )
    peer = np.asarray(topo.port_peer, np.int64)
    nh = _min_table(S, R, N, peer)
    return BsNet(
        "min", R_TABLE, _EMPTY64, _EMPTY64, _EMPTY32, _EMPTY32, nh, np.arange(N, dtype=np.int64)
    )


def anynet_min_routing(topo):
    """BookSim2's anynet ``min`` routing as a :class:`~fattree.routing.CompiledRouting`
    (a next-hop table per switch and destination node), for the channel-load bound of
    what BookSim2 does with an exported anynet file.

    Parameters
    ----------
    topo : Topology

    Returns
    -------
    CompiledRouting
        ``algorithm = "booksim-min"``; deterministic and minimal.

    Raises
    ------
    ParameterError
        More switches than the anynet table allows (``MAX_TABLE_SWITCHES``).
    ResourceError
        The switches x nodes table does not fit the memory limit of table routings.

    Examples
    --------
    >>> import fattree
    >>> from fattree.routing.load import channel_load
    >>> t = fattree.build("kant:k=4,n=3")
    >>> round(channel_load(t, anynet_min_routing(t)).bound, 4)  # vs 1.0 with dmodk
    0.082

    References
    ----------
    BookSim2 commit 28f4329, ``src/networks/anynet.cpp`` (``buildRoutingTable``); docs/booksim.md.
    """
    from dataclasses import replace

    from ...routing import compile_routing

    net = _anynet_min(topo)
    S, N = topo.n_switches, topo.n_nodes
    cr = compile_routing(topo, "shortest")  # the table routing's kernel code and checks
    ns = np.asarray(topo.node_switch, np.int64)
    nh = net.next_hop.reshape(S, S).astype(np.int32)
    table = np.ascontiguousarray(nh[:, ns])  # (S, N): the port towards each destination's switch
    table[ns, np.arange(N)] = np.asarray(topo.node_port, np.int32)
    return replace(cr, algorithm="booksim-min", table=table)


@njit(cache=True)
def _min_table(S, R, N, peer):
    """BookSim2's ``AnyNet::route``: from every router a Dijkstra (unit link latency)
    that pops the lowest router id among equals, so that the predecessor of a router is
    its lowest-id neighbour one step closer; the first hop of each path is tabled."""
    # neighbour lists in ascending id, and the (lowest) port towards each neighbour
    nb = np.full((S, R), -1, np.int64)
    nbp = np.full((S, R), -1, np.int64)
    deg = np.zeros(S, np.int64)
    for s in range(S):
        for p in range(R):
            v = peer[s, p]
            if v >= N:
                q = v - N
                seen = False
                for i in range(deg[s]):
                    if nb[s, i] == q:
                        seen = True
                if not seen:
                    nb[s, deg[s]] = q
                    nbp[s, deg[s]] = p
                    deg[s] += 1
        order = np.argsort(nb[s, : deg[s]])
        a = nb[s, : deg[s]][order].copy()
        b = nbp[s, : deg[s]][order].copy()
        nb[s, : deg[s]] = a
        nbp[s, : deg[s]] = b
    nh = np.full(S * S, -1, np.int16)
    dist = np.empty(S, np.int64)
    first = np.empty(S, np.int64)
    level = np.empty(S, np.int64)
    nxt = np.empty(S, np.int64)
    for r in range(S):
        dist[:] = -1
        dist[r] = 0
        level[0] = r
        nl = 1
        d = 0
        while nl:
            nn = 0
            for i in range(nl):  # ascending ids within a level: the lowest id claims first
                u = level[i]
                for j in range(deg[u]):
                    v = nb[u, j]
                    if dist[v] < 0:
                        dist[v] = d + 1
                        first[v] = v if u == r else first[u]
                        nxt[nn] = v
                        nn += 1
            level[:nn] = np.sort(nxt[:nn])
            nl = nn
            d += 1
        for v in range(S):
            if v != r and dist[v] > 0:
                f = first[v]
                for j in range(deg[r]):
                    if nb[r, j] == f:
                        nh[r * S + v] = nbp[r, j]
    return nh
