"""Routes of the generic fault-tolerant algorithms under one fault set (Python side).

:class:`GenericRouter` binds an algorithm of ``faults/generic.py`` to a topology and a
fault set: the per-hop rules (``sp``, ``minimal``, ``detour``) walk with
:func:`~fattree.faults.generic.ft_walk_generic`; the table engines (``updown-table``,
``shortest-table``) first recompute their switch × destination forwarding table on the
surviving graph (:func:`forwarding_table`, S × N int32 entries, never per pair), then
follow it. Used by ``route --faults`` (explain), ``deadlock --faults`` and the
simulator's fault routes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..compiling import nrt_free
from ..errors import ParameterError, ResourceError
from ..topology import Topology
from .algorithms import RULE_SHORTEST_T, RULE_UPDOWN_T, TABLE_RULES, FTAlgorithm
from .generic import (
    HOW_TABLE,
    shortest_column,
    table_port,
    turn_classes,
    updown_column,
    updown_order,
    ft_walk_generic,
    generic_scratch,
)
from .hooks import DEAD_END, NO_RULE, OK, TTL
from .links import fault_mask
from .mcdraw import surviving_csr

TABLE_LIMIT_BYTES = 1 << 30


@njit(cache=True)
def _fill_table(
    rule, indptr, nbr, nbr_link, stamp, N, root, slevel, port_peer, link_index, table, order
):
    V = indptr.shape[0] - 1
    dist = np.empty(V, np.int64)
    ddown = np.empty(V, np.int64)
    dall = np.empty(V, np.int64)
    queue = np.empty(2 * V + 1, np.int64)
    n_ord = 0
    if rule == RULE_UPDOWN_T or rule == RULE_SHORTEST_T:
        n_ord = updown_order(indptr, nbr, nbr_link, stamp, 1, N, N + root, slevel, order, queue)
    ordq = queue[:n_ord].copy()
    for t in range(N):
        if rule == RULE_SHORTEST_T:
            shortest_column(indptr, nbr, nbr_link, stamp, 1, t, dist, queue)
        else:
            queue[:n_ord] = ordq
            updown_column(indptr, nbr, nbr_link, stamp, 1, N, t, order, n_ord, ddown, dall, queue)
        for s in range(port_peer.shape[0]):
            table[s, t] = table_port(
                rule, port_peer, link_index, stamp, 1, N, s, t, dist, order, ddown, dall
            )
    return n_ord


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
    from ..routing.algorithms import updown_root

    need = 4 * topo.n_switches * topo.n_nodes
    if need > TABLE_LIMIT_BYTES:
        raise ResourceError(
            f"a {topo.n_switches:,} x {topo.n_nodes:,} forwarding table needs "
            f"{need / 2**20:,.0f} MiB (limit {TABLE_LIMIT_BYTES >> 20} MiB) on "
            f"{topo.spec}; use minimal or detour"
        )
    indptr, nbr, nbr_link = surviving_csr(topo)
    root = updown_root(topo) if root is None else int(root)
    table = np.full((topo.n_switches, topo.n_nodes), -1, np.int32)
    order = np.full(topo.n_vertices, -1, np.int64)
    _fill_table(
        rule,
        indptr,
        nbr,
        nbr_link,
        np.asarray(faulty, bool).astype(np.int64),
        topo.n_nodes,
        root,
        topo.switch_level.astype(np.int64),
        topo.port_peer,
        topo.link_index,
        table,
        order,
    )
    return table, order


@njit(**nrt_free())
def table_route(table, port_peer, node_switch, stamp, N, src, start, dst, out_sw, out_port):
    """Follow a forwarding table from node ``src`` (or switch ``start``) to node ``dst``;
    returns (status, hops including both node links, switches)."""
    hops = 0
    if src >= 0:
        if stamp[src] == 1:
            return NO_RULE, 0, 0
        sw = node_switch[src]
        hops = 1
    else:
        sw = start
    nsw = 0
    cap = out_sw.shape[0]
    while nsw < cap:
        out_sw[nsw] = sw
        p = table[sw, dst]
        if p < 0:
            return NO_RULE, hops, nsw + 1
        out_port[nsw] = p
        nsw += 1
        hops += 1
        v = port_peer[sw, p]
        if v < N:
            return (OK if v == dst else DEAD_END), hops, nsw
        sw = v - N
    return TTL, hops, nsw


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
        self.topo = topo
        self.alg = alg
        self.model = model
        self.ctx = context(topo, seed)
        self.faulty = fault_mask(topo, faulty)
        self.stamp = self.faulty.astype(np.int64)
        self.cap = self.ctx.ttl + 2
        self.table = None
        self.order = None
        if alg.rule in TABLE_RULES:
            self.table, self.order = forwarding_table(topo, alg.rule, self.faulty)
        elif alg.rule >= 0:
            # the up*/down* orientation also layers the per-hop rules' VCs (turn classes)
            _, self.order = _orientation(topo, self.faulty)

    @property
    def is_table(self) -> bool:
        return self.table is not None

    def route(self, src: int | None, dst: int, start: int | None = None):
        """(status, hops, switches, ports, how per port) of one route."""
        sw = np.full(self.cap, -1, np.int64)
        ports = np.full(self.cap, -1, np.int64)
        how = np.full(self.cap, -1, np.int64)
        s = -1 if src is None else int(src)
        st0 = -1 if start is None else int(start)
        if self.table is not None:
            st, hops, nsw = table_route(
                self.table,
                self.topo.port_peer,
                self.ctx.rt.node_switch,
                self.stamp,
                self.topo.n_nodes,
                s,
                st0,
                int(dst),
                sw,
                ports,
            )
            how[:] = HOW_TABLE
        else:
            st, hops, nsw = ft_walk_generic(
                self.ctx.rt,
                self.alg.rule,
                self.model == "lookahead",
                self.ctx.budget,
                self.ctx.ttl,
                self.stamp,
                1,
                s,
                st0,
                int(dst),
                sw,
                ports,
                how,
                generic_scratch(self.topo),
            )
        nport = nsw if st == OK else max(nsw - 1, 0)
        return int(st), int(hops), sw[:nsw].copy(), ports[:nport].copy(), how[:nport].copy()

    def classes(self, sws, ports) -> list[int]:
        """VC layer of each hop (up*/down* turn classes; -1 entries: off the orientation)."""
        out = np.zeros(max(len(ports), 1), np.int64)
        m = turn_classes(
            self.topo.port_peer,
            self.topo.n_nodes,
            self.order,
            np.asarray(sws, np.int64),
            np.asarray(ports, np.int64),
            len(ports),
            out,
        )
        if m < 0:
            return [-1] * len(ports)
        return [int(x) for x in out[: len(ports)]]


def _orientation(topo: Topology, faulty):
    from ..routing.algorithms import updown_root

    indptr, nbr, nbr_link = surviving_csr(topo)
    order = np.full(topo.n_vertices, -1, np.int64)
    queue = np.empty(2 * topo.n_vertices + 1, np.int64)
    n = updown_order(
        indptr,
        nbr,
        nbr_link,
        np.asarray(faulty, bool).astype(np.int64),
        1,
        topo.n_nodes,
        topo.n_nodes + updown_root(topo),
        topo.switch_level.astype(np.int64),
        order,
        queue,
    )
    return n, order
