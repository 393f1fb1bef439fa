"""Routes of the generic fault-tolerant algorithms under one fault set (:class:`GenericRouter`,
the per-hop rules or a table engine's recomputed table, walked in ``faults/walkloop.py``)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..compiling import nrt_free
from ..errors import ParameterError, ResourceError
from ..topology import Topology
from .algorithms import TABLE_RULES, FTAlgorithm
from .generic import (
    HOW_TABLE,
    fill_table,
    generic_scratch,
    generic_walk,
    loop_scratch,
    turn_classes,
    updown_order,
)
from .hooks import FI_N_NODES, LOOP_ENGINES, NO_RULE, OK, VIEW_FIELDS, LoopEngine
from .walkloop import WalkIn, record_hop, walk_loop
from .links import fault_mask
from .mcdraw import surviving_csr

TABLE_LIMIT_BYTES = 1 << 30
_NO_IP = np.zeros(1, np.int64)  # the walk loop's Algorithm-1 iparams: none here


def forwarding_table(topo: Topology, rule: int, faulty: np.ndarray):
    """``(table, order)`` of ``rule`` on the surviving graph: ``table[s, t]`` the port of
    switch ``s`` for node ``t`` (-1: unreachable; None unless a table engine), ``order``
    the up*/down* orientation (-1: cut off; the VC layers). Autonet (1991) §6.6."""
    from ..routing.algorithms import updown_root

    need = 4 * topo.n_switches * topo.n_nodes
    if rule in TABLE_RULES and need > TABLE_LIMIT_BYTES:
        raise ResourceError(
            f"a {topo.n_switches:,} x {topo.n_nodes:,} forwarding table needs "
            f"{need / 2**20:,.0f} MiB (limit {TABLE_LIMIT_BYTES >> 20} MiB) on "
            f"{topo.spec}; use minimal or detour"
        )
    csr, stamp = surviving_csr(topo), np.asarray(faulty, bool).astype(np.int64)
    order = np.full(topo.n_vertices, -1, np.int64)
    queue = np.empty(2 * topo.n_vertices + 1, np.int64)
    root, slevel = topo.n_nodes + updown_root(topo), topo.switch_level.astype(np.int64)
    n = updown_order(*csr, stamp, 1, topo.n_nodes, root, slevel, order, queue)
    if rule not in TABLE_RULES:
        return None, order
    table = np.full((topo.n_switches, topo.n_nodes), -1, np.int32)
    fill_table(rule, csr, topo.port_peer, topo.link_index, stamp, order, queue[:n], table)
    return table, order


TableWalk = namedtuple("TableWalk", "k table node_switch n_nodes cap")
TableWalk.__doc__ = (
    "A forwarding table's walk context: ``k`` 0, the table, the nodes' switches, the node "
    "count and the room for the route's switches (beyond: ``TTL``; a table has no loop)."
)
FaultsTable = namedtuple("FaultsTable", VIEW_FIELDS)
FaultsTable.__doc__ = "The simulator's fault view of the table engines (faults/view.py)."


@njit(cache=True, inline="always")
def _begin(wk, flags, src):
    """Nodes, hop limit (``cap``, plus the node link of ``src``), no misroutes, the switch
    of node ``src`` (-1: none)."""
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
    wk = TableWalk(0, f.ft_tab, f.ft_rt.node_switch, f.ft_i[FI_N_NODES], f.ft_ws.shape[1])
    return wk, np.int64(0)


LOOP_ENGINES.add(
    "table", LoopEngine("table", (TableWalk, FaultsTable), table_hop, _begin, _of_view)
)


class GenericRouter:
    """A generic fault-tolerant algorithm bound to a topology and a fault set: its routes
    (:meth:`route`) and their VC layers (:meth:`classes`)."""

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
        self.stamp = self.faulty.astype(np.int64)
        self.cap = ctx.ttl + 2
        # the up*/down* orientation also layers the per-hop rules' VCs (turn classes)
        self.table, self.order = forwarding_table(topo, alg.rule, self.faulty)
        # the walk loop's context, input and scratch: set up once, for every route
        if self.is_table:
            self._wk = TableWalk(0, self.table, ctx.rt.node_switch, topo.n_nodes, self.cap)
        else:
            self._wk = generic_walk(ctx.rt, alg.rule, ctx.budget, ctx.ttl, generic_scratch(topo))
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
