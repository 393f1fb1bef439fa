"""Next-hop tables for irregular graphs: shortest paths and up*/down* (numba).

``table[s, t]`` is the output port of switch ``s`` for destination node ``t`` (the
ejection port at t's own switch, -1 where t is unreachable). Both builders run one
search per destination switch over the switch graph given by ``port_peer``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _bfs_switches(port_peer, n_nodes, root, dist, queue):
    """BFS over switches from ``root``; ``dist`` must be -1 where it will reach.
    Returns how many switches were reached (listed in ``queue``)."""
    head = 0
    tail = 1
    queue[0] = root
    dist[root] = 0
    R = port_peer.shape[1]
    while head < tail:
        s = queue[head]
        head += 1
        for p in range(R):
            v = port_peer[s, p]
            if v >= n_nodes:
                u = v - n_nodes
                if dist[u] < 0:
                    dist[u] = dist[s] + 1
                    queue[tail] = u
                    tail += 1
    return tail


@njit(cache=True)
def _fill_column(table, s, node_ptr, node_list, t, port):
    for j in range(node_ptr[t], node_ptr[t + 1]):
        table[s, node_list[j]] = port


@njit(cache=True)
def _eject_column(table, node_ptr, node_list, node_port, t):
    for j in range(node_ptr[t], node_ptr[t + 1]):
        table[t, node_list[j]] = node_port[node_list[j]]


@njit(cache=True)
def _shortest_table(port_peer, n_nodes, node_ptr, node_list, node_port, table):
    """Deterministic shortest paths: the lowest port that gets one hop closer."""
    S, R = port_peer.shape
    dist = np.full(S, -1, np.int32)
    queue = np.empty(S, np.int64)
    for t in range(S):
        if node_ptr[t] == node_ptr[t + 1]:
            continue
        reached = _bfs_switches(port_peer, n_nodes, t, dist, queue)
        _eject_column(table, node_ptr, node_list, node_port, t)
        for q in range(1, reached):
            s = queue[q]
            for p in range(R):
                v = port_peer[s, p]
                if v >= n_nodes and dist[v - n_nodes] == dist[s] - 1:
                    _fill_column(table, s, node_ptr, node_list, t, p)
                    break
        for q in range(reached):
            dist[queue[q]] = -1


@njit(cache=True)
def _updown_table(port_peer, n_nodes, root, node_ptr, node_list, node_port, table):
    """up*/down* (Autonet) on the BFS tree from ``root``.

    Rank = (BFS level, switch id); a hop towards a lower rank is "up". A switch
    from which t is reachable by down hops only goes down (shortest such path);
    any other switch climbs to the up-neighbour that is cheapest, where the cost is
    the down-only distance of the first switch reached that has one. So every
    route is up* then down* whatever the switch the packet is at (no phase state).
    """
    S, R = port_peer.shape
    lvl = np.full(S, -1, np.int32)
    queue = np.empty(S, np.int64)
    _bfs_switches(port_peer, n_nodes, root, lvl, queue)
    rank = np.empty(S, np.int64)
    for s in range(S):
        rank[s] = (lvl[s] if lvl[s] >= 0 else S) * np.int64(S) + s
    order = np.argsort(rank)
    big = np.int64(1) << 40
    ddist = np.full(S, -1, np.int64)
    cost = np.empty(S, np.int64)
    for t in range(S):
        if node_ptr[t] == node_ptr[t + 1] or lvl[t] < 0:
            continue
        # switches that reach t going down only: search t's lower-rank side
        head = 0
        tail = 1
        queue[0] = t
        ddist[t] = 0
        while head < tail:
            v = queue[head]
            head += 1
            for p in range(R):
                w = port_peer[v, p]
                if w >= n_nodes:
                    u = w - n_nodes
                    if ddist[u] < 0 and rank[u] < rank[v]:
                        ddist[u] = ddist[v] + 1
                        queue[tail] = u
                        tail += 1
        for i in range(S):
            s = order[i]
            if lvl[s] < 0:
                cost[s] = big
                continue
            if ddist[s] >= 0:
                cost[s] = ddist[s]
                continue
            best = big
            for p in range(R):
                w = port_peer[s, p]
                if w >= n_nodes and rank[w - n_nodes] < rank[s]:
                    c = cost[w - n_nodes] + 1
                    if c < best:
                        best = c
            cost[s] = best
        _eject_column(table, node_ptr, node_list, node_port, t)
        for s in range(S):
            if s == t or lvl[s] < 0 or cost[s] >= big:
                continue
            for p in range(R):
                w = port_peer[s, p]
                if w < n_nodes:
                    continue
                u = w - n_nodes
                if ddist[s] >= 0:
                    ok = rank[u] > rank[s] and ddist[u] == ddist[s] - 1
                else:
                    ok = rank[u] < rank[s] and cost[u] == cost[s] - 1
                if ok:
                    _fill_column(table, s, node_ptr, node_list, t, p)
                    break
        for q in range(tail):
            ddist[queue[q]] = -1


@njit(cache=True)
def _eccentricities(port_peer, n_nodes, sources):
    """Eccentricity in the switch graph of each switch of ``sources`` (``S + 1`` where the
    graph is disconnected): 64 breadth-first searches at once, one bit each per switch,
    a level of all 64 in one pass over the links."""
    S, R = port_peer.shape
    ecc = np.empty(sources.shape[0], np.int64)
    seen = np.empty(S, np.uint64)
    front = np.empty(S, np.uint64)
    nxt = np.empty(S, np.uint64)
    one = np.uint64(1)
    for b0 in range(0, sources.shape[0], 64):
        nb = min(64, sources.shape[0] - b0)
        full = ~np.uint64(0) if nb == 64 else (one << np.uint64(nb)) - one
        seen[:] = 0
        front[:] = 0
        for j in range(nb):
            seen[sources[b0 + j]] |= one << np.uint64(j)
            front[sources[b0 + j]] |= one << np.uint64(j)
        ecc[b0 : b0 + nb] = 0
        level = 0
        moved = True
        while moved:
            moved = False
            level += 1
            nxt[:] = 0
            for s in range(S):
                f = front[s]
                if f == 0:
                    continue
                for p in range(R):
                    v = port_peer[s, p]
                    if v >= n_nodes:
                        nxt[v - n_nodes] |= f
            reached = np.uint64(0)  # the searches that reached a switch at this level
            for u in range(S):
                new = nxt[u] & ~seen[u]
                front[u] = new
                seen[u] |= new
                reached |= new
            if reached != 0:
                moved = True
                for j in range(nb):
                    if (reached >> np.uint64(j)) & one:
                        ecc[b0 + j] = level
        for u in range(S):  # a search that missed a switch: disconnected
            if seen[u] & full != full:
                for j in range(nb):
                    ecc[b0 + j] = S + 1
                break
    return ecc
