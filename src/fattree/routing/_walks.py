"""numba walks shared by check, deadlock and load.

``fail[s, p]`` marks ports whose link has failed (all False without faults); a walk
takes the first candidate whose link is healthy. ``home`` is the switch a walk starts
at (the source node's switch) and ``src`` the source node (-1: none).
"""

from __future__ import annotations

from numba import njit

from .kernel import route_ports

DELIVERED = 0
NO_ROUTE = 1
HOP_LIMIT = 2
BAD_PORT = 3


@njit(cache=True)
def _bfs_sigma(port_peer, fail, n_nodes, root, dist, sigma, queue):
    """BFS over healthy switch links from ``root`` with shortest-path counts.
    ``dist`` must be -1 where the search reaches; returns the number reached."""
    head = 0
    tail = 1
    queue[0] = root
    dist[root] = 0
    sigma[root] = 1.0
    R = port_peer.shape[1]
    while head < tail:
        s = queue[head]
        head += 1
        for p in range(R):
            v = port_peer[s, p]
            if v >= n_nodes and not fail[s, p]:
                u = v - n_nodes
                if dist[u] < 0:
                    dist[u] = dist[s] + 1
                    sigma[u] = sigma[s]
                    queue[tail] = u
                    tail += 1
                elif dist[u] == dist[s] + 1:
                    sigma[u] += sigma[s]
    return tail


@njit(cache=True)
def _first_healthy(cand, c, fail, sw):
    for i in range(c):
        if not fail[sw, cand[i]]:
            return cand[i]
    return -1


@njit(cache=True)
def _walk_pair(
    code,
    iparams,
    table,
    port_peer,
    peer_port,
    fail,
    n_nodes,
    home,
    src,
    t,
    pkt_key,
    hop_limit,
    cand,
    sw_out,
    port_out,
):
    """Walk to node ``t`` from switch ``home``; returns (switches visited, status)."""
    sw = home
    in_port = -1
    for h in range(hop_limit):
        c = route_ports(code, iparams, table, port_peer, sw, in_port, src, t, pkt_key, cand)
        sw_out[h] = sw
        p = _first_healthy(cand, c, fail, sw) if c > 0 else -1
        if p < 0:
            return h + 1, NO_ROUTE
        port_out[h] = p
        v = port_peer[sw, p]
        if v == t:
            return h + 1, DELIVERED
        if v < n_nodes:
            return h + 1, BAD_PORT
        in_port = peer_port[sw, p]
        sw = v - n_nodes
    return hop_limit, HOP_LIMIT


@njit(cache=True)
def _count_paths(
    code,
    iparams,
    table,
    port_peer,
    peer_port,
    fail,
    n_nodes,
    home,
    t,
    hop_limit,
    memo,
    touched,
    n_touched,
    f_sw,
    f_ip,
    f_cand,
    f_cnt,
    f_next,
    f_acc,
):
    """Number of distinct routes from (home, injection) to node ``t`` over all
    candidates, memoised in ``memo[sw, in_port + 1]`` (valid for one destination:
    candidates must not depend on the source). Returns (count, n_touched, looped)."""
    R1 = memo.shape[1]
    m0 = memo[home, 0]
    if m0 >= 0:
        return m0, n_touched, False
    looped = False
    top = 0
    f_sw[0] = home
    f_ip[0] = -1
    memo[home, 0] = -2.0
    f_cnt[0] = route_ports(code, iparams, table, port_peer, home, -1, -1, t, 0, f_cand[0])
    f_next[0] = 0
    f_acc[0] = 0.0
    while top >= 0:
        sw = f_sw[top]
        if f_next[top] < f_cnt[top]:
            p = f_cand[top, f_next[top]]
            f_next[top] += 1
            if fail[sw, p]:
                continue
            v = port_peer[sw, p]
            if v == t:
                f_acc[top] += 1.0
                continue
            if v < n_nodes:
                continue
            u = v - n_nodes
            q = peer_port[sw, p]
            m = memo[u, q + 1]
            if m >= 0:
                f_acc[top] += m
            elif m == -2.0 or top + 1 >= hop_limit:
                looped = True
            else:
                top += 1
                f_sw[top] = u
                f_ip[top] = q
                memo[u, q + 1] = -2.0
                f_cnt[top] = route_ports(
                    code, iparams, table, port_peer, u, q, -1, t, 0, f_cand[top]
                )
                f_next[top] = 0
                f_acc[top] = 0.0
        else:
            memo[sw, f_ip[top] + 1] = f_acc[top]
            touched[n_touched] = sw * R1 + f_ip[top] + 1
            n_touched += 1
            top -= 1
            if top >= 0:
                f_acc[top] += f_acc[top + 1]
    return memo[home, 0], n_touched, looped


@njit(cache=True)
def _reset(memo, touched, n_touched):
    R1 = memo.shape[1]
    for i in range(n_touched):
        memo[touched[i] // R1, touched[i] % R1] = -1.0
    return 0
