"""Channel-load kernel: expected flits per cycle on every channel per unit injection.

Weights ``w(s, t)`` (flits per cycle from s to t when every node injects one) come
from a uniform part, an optional hot node and an optional permutation table.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._walks import DELIVERED, _bfs_sigma, _walk_pair
from .kernel import route_ports

MODE_UNIFORM = 0
MODE_TABLE = 1

# how a routing is evaluated
EVAL_HOME = 0  # deterministic, source-independent: one walk per (source switch, t)
EVAL_PAIR = 1  # deterministic, source- or packet-dependent: one walk per pair
EVAL_SPLIT = 2  # adaptive (minimal): split mass evenly over the candidates


@njit(cache=True)
def _weight(mode, s, t, n, uni_w, hot, hot_w, perm):
    if s == t:
        return 0.0
    if mode == MODE_TABLE:
        return 1.0 if perm[s] == t else 0.0
    if hot >= 0:
        if s == hot:  # the hot node itself sends uniformly
            return uni_w + hot_w / (n - 1)
        return uni_w + (hot_w if t == hot else 0.0)
    return uni_w


@njit(cache=True)
def _load_kernel(
    code,
    iparams,
    table,
    port_peer,
    peer_port,
    fail,
    n_nodes,
    node_switch,
    node_port,
    how,
    mode,
    uni_w,
    hot,
    hot_w,
    perm,
    hop_limit,
    load,
    inject,
    stats,
):
    """Fill ``load[sw, port]`` and ``inject[s]``; ``stats`` = [offered, delivered,
    unused, order violations (adaptive: a candidate that is not one hop closer)]."""
    S, R = port_peer.shape
    cand = np.empty(R + 1, np.int64)
    sw_out = np.empty(hop_limit, np.int64)
    port_out = np.empty(hop_limit, np.int64)
    mass_home = np.zeros(S, np.float64)
    src_home = np.full(S, -1, np.int64)
    mass = np.zeros((S, R + 1), np.float64)
    dist = np.full(S, -1, np.int64)
    sigma = np.zeros(S, np.float64)
    queue = np.empty(S, np.int64)
    for t in range(n_nodes):
        tsw = node_switch[t]
        for s in range(n_nodes):
            w = _weight(mode, s, t, n_nodes, uni_w, hot, hot_w, perm)
            if w == 0.0:
                continue
            inject[s] += w
            stats[0] += w
            home = node_switch[s]
            if fail[home, node_port[s]]:
                continue
            if how == EVAL_PAIR:
                h, st = _walk_pair(
                    code,
                    iparams,
                    table,
                    port_peer,
                    peer_port,
                    fail,
                    n_nodes,
                    home,
                    s,
                    t,
                    s * n_nodes + t,
                    hop_limit,
                    cand,
                    sw_out,
                    port_out,
                )
                if st == DELIVERED:
                    stats[1] += w
                    for i in range(h):
                        load[sw_out[i], port_out[i]] += w
            elif how == EVAL_HOME:
                mass_home[home] += w
                src_home[home] = s
            else:
                mass[home, 0] += w
        if how == EVAL_HOME:
            for home in range(S):
                w = mass_home[home]
                if w == 0.0:
                    continue
                mass_home[home] = 0.0
                h, st = _walk_pair(
                    code,
                    iparams,
                    table,
                    port_peer,
                    peer_port,
                    fail,
                    n_nodes,
                    home,
                    src_home[home],
                    t,
                    0,
                    hop_limit,
                    cand,
                    sw_out,
                    port_out,
                )
                if st == DELIVERED:
                    stats[1] += w
                    for i in range(h):
                        load[sw_out[i], port_out[i]] += w
        elif how == EVAL_SPLIT:
            reached = _bfs_sigma(port_peer, fail, n_nodes, tsw, dist, sigma, queue)
            for qi in range(reached - 1, -1, -1):
                sw = queue[qi]
                for ip in range(R + 1):
                    m = mass[sw, ip]
                    if m == 0.0:
                        continue
                    mass[sw, ip] = 0.0
                    c = route_ports(code, iparams, table, port_peer, sw, ip - 1, -1, t, 0, cand)
                    ok = 0
                    for i in range(c):
                        if not fail[sw, cand[i]]:
                            ok += 1
                    if ok == 0:
                        continue
                    share = m / ok
                    for i in range(c):
                        p = cand[i]
                        if fail[sw, p]:
                            continue
                        load[sw, p] += share
                        v = port_peer[sw, p]
                        if v == t:
                            stats[1] += share
                        elif v >= n_nodes:
                            u = v - n_nodes
                            if dist[u] != dist[sw] - 1:
                                stats[3] += 1
                            else:
                                mass[u, peer_port[sw, p] + 1] += share
            for qi in range(reached):
                dist[queue[qi]] = -1
                sigma[queue[qi]] = 0.0
    return 0
