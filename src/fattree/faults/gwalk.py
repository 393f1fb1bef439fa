"""Routes of the generic fault-tolerant algorithms under one fault set (Python side).

:class:`GenericRouter` binds an algorithm of ``faults/generic.py`` to a topology and a
fault set: the per-hop rules (``sp``, ``minimal``, ``detour``) and the table engines
(``updown-table``, ``shortest-table``) walk in the one walk loop
(:func:`~fattree.faults.walkloop.walk_loop`), the rules with
:func:`~fattree.faults.generic.generic_hop`, the tables with :func:`table_hop` over their
switch × destination forwarding table, first recomputed on the surviving graph
(:func:`forwarding_table`, S × N int32 entries, never per pair). Used by ``route
--faults`` (explain), ``deadlock --faults`` and the simulator's fault routes."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..compiling import nrt_free
from ..errors import ParameterError, ResourceError
from ..topology import Topology
from .algorithms import RULE_SHORTEST_T, TABLE_RULES, FTAlgorithm
from .generic import (
    HOW_TABLE,
    generic_scratch,
    generic_walk,
    loop_scratch,
    shortest_column,
    table_port,
    turn_classes,
    updown_column,
    updown_order,
)
from .hooks import FI_N_NODES, LOOP_ENGINES, NO_RULE, OK, VIEW_FIELDS, LoopEngine
from .walkloop import WalkIn, record_hop, walk_loop
from .links import fault_mask
from .mcdraw import surviving_csr

TABLE_LIMIT_BYTES = 1 << 30
_NO_IP = np.zeros(1, np.int64)  # the walk loop's Algorithm-1 iparams: none here


@njit(cache=True)
def _fill_table(rule, csr, net, order, ordq, table):
    """``table`` from every destination's column (``net``: :func:`table_port`'s; ``ordq``:
    the switches by rank of ``order``)."""
    indptr, nbr, nbr_link = csr
    stamp, N = net[2], net[3]
    V = indptr.shape[0] - 1
    dist, ddown, dall = np.empty(V, np.int64), np.empty(V, np.int64), np.empty(V, np.int64)
    col = (dist, order, ddown, dall)
    queue = np.empty(2 * V + 1, np.int64)
    n_ord = ordq.shape[0]
    for t in range(N):
        if rule == RULE_SHORTEST_T:
            shortest_column(indptr, nbr, nbr_link, stamp, 1, t, dist, queue)
        else:
            queue[:n_ord] = ordq
            updown_column(indptr, nbr, nbr_link, stamp, 1, N, t, order, n_ord, ddown, dall, queue)
        for s in range(table.shape[0]):
            table[s, t] = table_port(rule, net, col, s, t)


def forwarding_table(topo: Topology, rule: int, faulty: np.ndarray, root: int | None = None):
    """The switch × destination forwarding table of a table engine on the surviving graph.

    Returns ``(table, order)``: ``table[s, t]`` the output port of switch ``s`` for node
    ``t`` (-1: ``t`` unreachable from ``s``), ``order`` the up*/down* orientation (BFS
    index from the fault-free up*/down* root over the surviving switches, per vertex;
    -1: cut off from the root), used for the VC layers of ``shortest-table``.

    Examples
    --------
    >>> import fattree, numpy as np
    >>> from fattree.faults.algorithms import RULE_UPDOWN_T
    >>> t = fattree.build("kant:k=2,n=2")
    >>> tab, order = forwarding_table(t, RULE_UPDOWN_T, np.zeros(t.n_links, bool))
    >>> tab.shape, int((tab >= 0).sum()) == t.n_switches * t.n_nodes
    ((4, 4), True)

    References
    ----------
    Schroeder et al., Autonet (1991) §6.6 (up*/down*); docs/faults.md ("Table engines").
    """
    need = 4 * topo.n_switches * topo.n_nodes
    if need > TABLE_LIMIT_BYTES:
        raise ResourceError(
            f"a {topo.n_switches:,} x {topo.n_nodes:,} forwarding table needs "
            f"{need / 2**20:,.0f} MiB (limit {TABLE_LIMIT_BYTES >> 20} MiB) on "
            f"{topo.spec}; use minimal or detour"
        )
    csr, stamp, order, ordq = _orientation(topo, faulty, root)
    table = np.full((topo.n_switches, topo.n_nodes), -1, np.int32)
    net = (topo.port_peer, topo.link_index, stamp, topo.n_nodes)
    _fill_table(rule, csr, net, order, ordq, table)
    return table, order


TableWalk = namedtuple("TableWalk", "k table node_switch n_nodes cap")
TableWalk.__doc__ = (
    "A forwarding table's context in the walk loop: ``k`` 0 (no Algorithm-1 ports row), "
    "the switch x destination table, the nodes' switches, the node count and the room "
    "for switches of the caller's route (a longer route ends with ``TTL``; a table "
    "recomputed on the surviving graph has no loop)."
)
FaultsTable = namedtuple("FaultsTable", VIEW_FIELDS)
FaultsTable.__doc__ = "The simulator's fault view of the table engines (faults/view.py)."


@njit(cache=True, inline="always")
def _begin(wk, flags, src):
    """Nodes, hop limit (``cap`` switches: links ``cap``, plus the node link of ``src``),
    no misroutes, the switch of node ``src`` (-1: none)."""
    at = wk.node_switch[src] if src >= 0 else np.int64(-1)
    return wk.n_nodes, wk.cap + (1 if src >= 0 else 0), np.int64(0), at


@njit(**nrt_free())
def table_hop(wk, w, s, prev, hops, t, state, ports, extra, trace, nsw):
    """The table's entry of switch ``s`` for node ``t``: ``(port, OK)`` or ``(-1,
    NO_RULE)`` where the surviving graph has no route."""
    p = np.int64(wk.table[s, t])
    if p < 0:
        record_hop(trace, nsw, -1, 0, -1, -1)
        return p, NO_RULE
    record_hop(trace, nsw, HOW_TABLE, 0, -1, -1)
    return p, OK


@njit(cache=True, inline="always")
def _of_view(f, src, dst):
    rt = f.ft_rt
    cap = f.ft_ws.shape[1]
    return TableWalk(0, f.ft_tab, rt.node_switch, f.ft_i[FI_N_NODES], cap), np.int64(0)


LOOP_ENGINES.add(
    "table", LoopEngine("table", (TableWalk, FaultsTable), table_hop, _begin, _of_view)
)


class GenericRouter:
    """A generic fault-tolerant algorithm bound to a topology and a fault set.

    Examples
    --------
    >>> import fattree, numpy as np
    >>> from fattree.faults.algorithms import FT_ALGORITHMS
    >>> t = fattree.build("kant:k=2,n=3")
    >>> g = GenericRouter(t, FT_ALGORITHMS.get("detour"), np.zeros(t.n_links, bool))
    >>> st, hops, sws, ports, hows = g.route(0, t.n_nodes - 1)
    >>> st, hops
    (0, 6)

    References
    ----------
    docs/faults.md ("Every family").
    """

    def __init__(
        self, topo: Topology, alg: FTAlgorithm, faulty, model: str = "local", seed: int = 0
    ):
        from .rules import context

        if alg.rule < 0 or alg.is_oracle:
            raise ParameterError(
                f"algorithm={alg.name!r} is not a walkable generic "
                f"fault-tolerant algorithm on {topo.family!r}"
            )
        self.topo, self.alg, self.model = topo, alg, model
        self.ctx = ctx = context(topo, seed)
        self.faulty = fault_mask(topo, faulty)
        self.cap = ctx.ttl + 2
        self.table = None
        # the walk loop's context, input and scratch: set up once, for every route
        if alg.rule in TABLE_RULES:
            self.table, self.order = forwarding_table(topo, alg.rule, self.faulty)
            self._wk = TableWalk(0, self.table, ctx.rt.node_switch, topo.n_nodes, self.cap)
        else:
            # the up*/down* orientation also layers the per-hop rules' VCs (turn classes)
            self.order = _orientation(topo, self.faulty)[2]
            self._wk = generic_walk(ctx.rt, alg.rule, ctx.budget, ctx.ttl, generic_scratch(topo))
        self.stamp = self.faulty.astype(np.int64)
        look = model == "lookahead"
        self._w = WalkIn(_NO_IP, topo.port_peer, topo.link_index, self.stamp, 1, 0, look, 0, 0)
        self._scr = loop_scratch(topo)

    @property
    def is_table(self) -> bool:
        return self.table is not None

    def route(self, src: int | None, dst: int, start: int | None = None):
        """(status, hops, switches, ports, how per port) of one route."""
        sw = np.full(self.cap, -1, np.int64)
        ports = np.full(self.cap, -1, np.int64)
        s = -1 if src is None else int(src)
        st0 = -1 if start is None else int(start)
        trace = np.full((self.cap, 4), -1, np.int64)
        st, hops, nsw = walk_loop(self._wk, self._w, s, st0, int(dst), sw, ports, self._scr, trace)
        nport = nsw if st == OK else max(nsw - 1, 0)
        return int(st), int(hops), sw[:nsw].copy(), ports[:nport].copy(), trace[:nport, 0].copy()

    def classes(self, sws, ports) -> list[int]:
        """VC layer of each hop (up*/down* turn classes; -1 entries: off the orientation)."""
        n = len(ports)
        out = np.zeros(max(n, 1), np.int64)
        sws, ports = np.asarray(sws, np.int64), np.asarray(ports, np.int64)
        m = turn_classes(self.topo.port_peer, self.topo.n_nodes, self.order, sws, ports, n, out)
        return [-1] * n if m < 0 else [int(x) for x in out[:n]]


def _orientation(topo: Topology, faulty, root: int | None = None):
    """(surviving CSR, fault mask as int64 stamp, :func:`updown_order`'s order, the
    switches by rank) of the surviving graph from ``root`` (default: the routing's)."""
    from ..routing.algorithms import updown_root

    csr = surviving_csr(topo)
    stamp = np.asarray(faulty, bool).astype(np.int64)
    root = topo.n_nodes + (updown_root(topo) if root is None else int(root))
    order = np.full(topo.n_vertices, -1, np.int64)
    queue = np.empty(2 * topo.n_vertices + 1, np.int64)
    slevel = topo.switch_level.astype(np.int64)
    n = updown_order(*csr, stamp, 1, topo.n_nodes, root, slevel, order, queue)
    return csr, stamp, order, queue[:n].copy()
