"""BookSim2's two routings as registered algorithms of the routing contract.

* ``booksim-nca`` (BookSim2's built-in ``fattree``, ``routing_function = nca``): a
  packet whose destination is below the switch goes down its unique port; otherwise up
  through a port drawn at random, at every switch. On a k-ary n-tree this is the kant
  rule with a random up port (``route_ports`` hashes the port from the packet and the
  level, so that walkers, checks and loads never consume a simulator's random stream;
  the booksim model draws it from its own stream, as BookSim2 does).
* ``booksim-min`` (``topology = anynet; routing_function = min``): a fixed next-hop table
  from a Dijkstra per switch whose ties go to the lowest switch id (``AnyNet::route``),
  on any graph: what BookSim2 does with a ``fattree export --format booksim`` file.

Both are listed with the demonstration routings (``include_demo``): they reproduce what
BookSim2 does, they are no design choice (``min`` is degenerate on fat trees,
docs/booksim.md), and no family takes them by default. The booksim model
(``fattree.sim.booksim``) compiles them with :func:`~fattree.routing.compile_routing`;
its kernel reads ``booksim-min``'s table and ``booksim-nca``'s rule through down-port
ranges checked against ``route_ports`` (tests/sim/test_booksim_routes.py).

References
----------
BookSim2 commit 28f4329: ``src/routefunc.cpp`` (``fattree_nca``), ``src/networks/anynet.cpp``
(``buildRoutingTable``, ``route``); docs/booksim.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import ParameterError
from ._consts import CODE_KANT, CODE_TABLE, POL_RANDOM
from .algorithms import _new_table
from .compiled import NO_TABLE, register_algorithm, tree_iparams

#: switches above which BookSim2's anynet table (switches² next hops) is refused: 2 GiB
MAX_TABLE_SWITCHES = 1 << 15


@register_algorithm(
    "booksim-nca",
    title="BookSim2's nca: down if below, else a random up port at every switch",
    paper="BookSim2 28f4329 routefunc.cpp fattree_nca; docs/booksim.md",
    families=("kant",),
    support="adaptive",
    per_packet=True,
    demo=True,
)
def _nca(topo, seed):
    """The kant rule with a random up port per packet and level."""
    return CODE_KANT, tree_iparams(topo, POL_RANDOM, seed), NO_TABLE


@register_algorithm(
    "booksim-min",
    title="BookSim2's anynet min: Dijkstra, ties to the lowest switch id (table)",
    paper="BookSim2 28f4329 anynet.cpp buildRoutingTable; docs/booksim.md",
    demo=True,
)
def _anynet_min(topo, seed):
    """BookSim2's anynet ``min`` table: the switch-to-switch next hops of
    :func:`min_next_hops` spread over the destination nodes, the ejection port at each
    node's own switch."""
    S, N = topo.n_switches, topo.n_nodes
    _check_switches(topo)
    table = _new_table(topo, "booksim-min")  # (S, N) int32, refused beyond the table limit
    nh = min_next_hops(topo).reshape(S, S)
    ns = np.asarray(topo.node_switch, np.int64)
    table[:] = nh[:, ns]  # the port towards each destination's switch
    table[ns, np.arange(N)] = np.asarray(topo.node_port, np.int32)
    return CODE_TABLE, np.array([0, 0, 0, seed], np.int64), table


def min_next_hops(topo) -> np.ndarray:
    """BookSim2's anynet next hops between switches: ``out[s * S + q]`` is the port of
    switch ``s`` towards switch ``q`` (-1 on the diagonal and where ``q`` is unreachable).

    Parameters
    ----------
    topo : Topology

    Returns
    -------
    (S*S,) int16

    Raises
    ------
    ParameterError
        More switches than :data:`MAX_TABLE_SWITCHES`.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("kant:k=2,n=2")
    >>> min_next_hops(t).reshape(4, 4)[0].tolist()  # leaf 0: both roots by its lowest up port
    [-1, 2, 2, 2]
    """
    _check_switches(topo)
    return _min_table(
        topo.n_switches, topo.max_ports, topo.n_nodes, np.asarray(topo.port_peer, np.int64)
    )


def _check_switches(topo) -> None:
    S = topo.n_switches
    if S > MAX_TABLE_SWITCHES:
        raise ParameterError(
            f"topology={topo.spec!r} has {S:,} switches: model='booksim' routes it as "
            f"BookSim2's anynet does, by a table of switches² next hops ({2 * S * S / 2**30:,.0f} "
            f"GiB), allowed up to {MAX_TABLE_SWITCHES:,} switches; simulate it with "
            "model='papers' (or kant with BookSim2's nca routing)"
        )


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


__all__ = ["MAX_TABLE_SWITCHES", "min_next_hops"]
