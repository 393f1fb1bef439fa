"""BookSim2's routing and node numbering for a topology, as the booksim kernel reads them.

The routings are registered algorithms of the routing contract
(:mod:`fattree.routing.booksim`): ``booksim-nca`` for the families BookSim2 builds
itself (``fattree.topology.family.BOOKSIM_NATIVE``: kant, its ``topology = fattree``),
``booksim-min`` (the anynet table) for every other family. :func:`booksim_net` compiles
the one BookSim2 would use with :func:`~fattree.routing.compile_routing` and lays it out
for the kernel's fast paths:

* ``nca``: the down port by the range of BookSim2 ids below each port (two cache lines
  per lookup, no table of routers x nodes; checked against ``route_ports`` in
  tests/sim/test_booksim_routes.py), the up ports of each switch for the random draw,
  and BookSim2's node numbering ``b = (C mod k^(n-1))·k + C div k^(n-1)``
  (docs/booksim.md);
* ``min``: the compiled table's next hops between switches (switches² int16).

References
----------
BookSim2 commit 28f4329: ``src/routefunc.cpp`` (``fattree_nca``), ``src/networks/anynet.cpp``
(``buildRoutingTable``, ``route``); docs/booksim.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ...errors import ParameterError
from ...routing import CompiledRouting, compile_routing
from ...routing.booksim import MAX_TABLE_SWITCHES
from ...topology.core import PORT_UP
from ...topology.family import BOOKSIM_NATIVE

R_NCA = 0  # kernel selector: down-port ranges of BookSim2 ids + random up port
R_TABLE = 1  # kernel selector: next-hop table per (router, destination router)
__all__ = [
    "BsNet",
    "MAX_TABLE_SWITCHES",
    "anynet_min_routing",
    "booksim_digits",
    "booksim_net",
    "booksim_routing",
]


@dataclass(frozen=True, eq=False)
class BsNet:
    """What the kernel needs to route like BookSim2 on one topology.

    Attributes
    ----------
    routing : str
        ``nca`` or ``min`` (BookSim2's names).
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
        ``min``: the port of router s towards router s2 (s2 != s, s2 holding nodes).
    booksim_of : (N,) int64
        BookSim2's id of each of our nodes (identity for anynet files).
    compiled : CompiledRouting or None
        The registered routing this was laid out from.
    """

    routing: str
    kind: int
    port_lo: np.ndarray
    port_hi: np.ndarray
    up_n: np.ndarray
    up_ports: np.ndarray
    next_hop: np.ndarray
    booksim_of: np.ndarray
    compiled: CompiledRouting | None = None


#: BookSim2's ``k`` and ``n`` when its configuration does not set them
#: (``src/booksim_config.cpp``): what its digit patterns read on an anynet file.
ANYNET_DIGITS = (8, 2)


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
    if topo.family in BOOKSIM_NATIVE:
        k, n = BOOKSIM_NATIVE.get(topo.family)(topo)
        return int(k), int(n)
    return ANYNET_DIGITS


def booksim_routing(topo) -> str:
    """The registered routing BookSim2 uses for ``topo``: ``booksim-nca`` on its built-in
    fat tree, ``booksim-min`` on the anynet file ``fattree export --format booksim`` writes.

    Parameters
    ----------
    topo : Topology

    Returns
    -------
    str

    Examples
    --------
    >>> import fattree
    >>> booksim_routing(fattree.build("kant:k=2,n=2")), booksim_routing(fattree.build("mikant:k=2,n=2"))
    ('booksim-nca', 'booksim-min')
    """
    return "booksim-nca" if topo.family in BOOKSIM_NATIVE else "booksim-min"


def booksim_net(topo, cr: CompiledRouting | None = None, seed: int = 0) -> BsNet:
    """The routing BookSim2 uses for ``topo``, laid out for the booksim kernel.

    Parameters
    ----------
    topo : Topology
    cr : CompiledRouting, optional
        ``booksim-nca`` or ``booksim-min`` compiled for ``topo``; compiled here (the one
        :func:`booksim_routing` names) when omitted.
    seed : int
        The routing's seed when it is compiled here.

    Returns
    -------
    BsNet

    Raises
    ------
    ParameterError
        A routing other than BookSim2's; the anynet table above ``MAX_TABLE_SWITCHES``.
    """
    if cr is None:
        cr = compile_routing(topo, booksim_routing(topo), seed=seed)
    if cr.algorithm == "booksim-nca":
        return _fattree_nca(topo, cr)
    if cr.algorithm == "booksim-min":
        return _anynet_min(topo, cr)
    raise ParameterError(
        f"algorithm={cr.algorithm!r} is invalid for model='booksim': it routes with "
        "BookSim2's booksim-nca (kant) or booksim-min (anynet)"
    )


_EMPTY16 = np.zeros(0, np.int16)
_EMPTY32 = np.zeros(0, np.int32)
_EMPTY64 = np.zeros(0, np.int64)


def _fattree_nca(topo, cr) -> BsNet:
    k, n = booksim_digits(topo)
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
    return BsNet("nca", R_NCA, lo, hi, up_n, up_ports.ravel(), _EMPTY16, b, cr)


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


def _anynet_min(topo, cr) -> BsNet:
    """The compiled ``booksim-min`` table (switches x nodes) as the kernel's next hops
    between switches: the port towards a switch is the port towards any of its nodes."""
    S, N = topo.n_switches, topo.n_nodes
    if S > MAX_TABLE_SWITCHES:  # (the compiler refuses first; a table from elsewhere too)
        raise ParameterError(
            f"topology={topo.spec!r} has {S:,} switches: above {MAX_TABLE_SWITCHES:,}"
        )
    ns = np.asarray(topo.node_switch, np.int64)
    first = np.full(S, -1, np.int64)  # a node of each switch (the lowest id)
    first[ns[::-1]] = np.arange(N - 1, -1, -1)
    has = first >= 0
    nh = np.full((S, S), -1, np.int16)
    nh[:, has] = cr.table[:, first[has]]
    np.fill_diagonal(nh, -1)  # (at its own switch a packet leaves by its node's port)
    return BsNet(
        "min",
        R_TABLE,
        _EMPTY64,
        _EMPTY64,
        _EMPTY32,
        _EMPTY32,
        nh.ravel(),
        np.arange(N, dtype=np.int64),
        cr,
    )


def anynet_min_routing(topo) -> CompiledRouting:
    """BookSim2's anynet ``min`` routing as a :class:`~fattree.routing.CompiledRouting`
    (``booksim-min``: a next-hop table per switch and destination node), for the
    channel-load bound of what BookSim2 does with an exported anynet file.

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
    return compile_routing(topo, "booksim-min")
