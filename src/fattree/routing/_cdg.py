"""Channel dependency graph kernels (numba).

A channel is an output port of a switch on one virtual channel: id
``(sw * R + port) * V + vc``. ``adj[c, q * V + w]`` is True when a packet holding
channel c may request port q of the switch c leads to, on VC w: every dependency
stays inside one switch, so the graph is stored as a dense (C, R*V) bool array.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._walks import DELIVERED, _walk_pair
from .kernel import next_vc, route_ports


@njit(cache=True)
def _vc_set(code, iparams, sw, in_port, in_vc, port, V):
    """Bitmask of the VCs a packet may take on ``port``."""
    vc = next_vc(code, iparams, sw, in_port, in_vc, port, V)
    if vc < 0:
        return (np.int64(1) << V) - 1
    return np.int64(1) << min(vc, V - 1)


@njit(cache=True)
def _cdg_walks(
    code,
    iparams,
    table,
    port_peer,
    peer_port,
    fail,
    n_nodes,
    node_switch,
    node_port,
    V,
    hop_limit,
    adj,
    used,
):
    """Dependencies of every delivered route of a deterministic (oblivious) algorithm.
    Returns how many pairs were not delivered (they add nothing)."""
    S, R = port_peer.shape
    cand = np.empty(R + 1, np.int64)
    sw_out = np.empty(hop_limit, np.int64)
    port_out = np.empty(hop_limit, np.int64)
    lost = 0
    for t in range(n_nodes):
        for s in range(n_nodes):
            if s == t:
                continue
            home = node_switch[s]
            if fail[home, node_port[s]]:
                lost += 1
                continue
            h, status = _walk_pair(
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
            if status != DELIVERED:
                lost += 1
                continue
            _add_path(code, iparams, port_peer, peer_port, V, sw_out, port_out, h, adj, used)
    return lost


@njit(cache=True)
def _add_path(code, iparams, port_peer, peer_port, V, sw_out, port_out, h, adj, used):
    R = port_peer.shape[1]
    prev = _vc_set(code, iparams, sw_out[0], -1, -1, port_out[0], V)
    for w in range(V):
        if prev >> w & 1:
            used[(sw_out[0] * R + port_out[0]) * V + w] = True
    for i in range(1, h):
        sw = sw_out[i]
        ip = peer_port[sw_out[i - 1], port_out[i - 1]]
        cur = np.int64(0)
        for a in range(V):
            if not (prev >> a & 1):
                continue
            m = _vc_set(code, iparams, sw, ip, a, port_out[i], V)
            c = (sw_out[i - 1] * R + port_out[i - 1]) * V + a
            for w in range(V):
                if m >> w & 1:
                    adj[c, port_out[i] * V + w] = True
                    used[(sw * R + port_out[i]) * V + w] = True
            cur |= m
        prev = cur


@njit(cache=True)
def _cdg_states(
    code,
    iparams,
    table,
    port_peer,
    peer_port,
    fail,
    n_nodes,
    node_switch,
    node_port,
    V,
    adj,
    used,
    target,
    parent,
    start_of,
):
    """Dependencies of an adaptive algorithm whose candidates do not depend on the
    source: per destination, every state (switch, in port, in VC) reachable from any
    source, and every candidate from it. With ``target >= 0`` (a dependency index
    ``c * R * V + q * V + w``) stop at the first destination that produces it and
    return it; ``parent`` / ``start_of`` then trace the states back to a source."""
    S, R = port_peer.shape
    R1 = R + 1
    V1 = V + 1
    n_states = S * R1 * V1
    seen = np.zeros(n_states, np.bool_)
    stack = np.empty(n_states, np.int64)
    touched = np.empty(n_states, np.int64)
    cand = np.empty(R + 1, np.int64)
    RV = R * V
    for t in range(n_nodes):
        nt = 0
        top = 0
        for s in range(n_nodes):
            if s == t or fail[node_switch[s], node_port[s]]:
                continue
            st = (node_switch[s] * R1 + 0) * V1 + 0
            if not seen[st]:
                seen[st] = True
                touched[nt] = st
                nt += 1
                stack[top] = st
                top += 1
                parent[st] = -1
                start_of[st] = s
        while top > 0:
            top -= 1
            st = stack[top]
            ivc = st % V1 - 1
            ip = (st // V1) % R1 - 1
            sw = st // (V1 * R1)
            c = route_ports(code, iparams, table, port_peer, sw, ip, -1, t, 0, cand)
            for i in range(c):
                p = cand[i]
                if fail[sw, p]:
                    continue
                m = _vc_set(code, iparams, sw, ip, ivc, p, V)
                for w in range(V):
                    if not (m >> w & 1):
                        continue
                    used[(sw * R + p) * V + w] = True
                    if ip >= 0:
                        prev_sw = port_peer[sw, ip] - n_nodes
                        ch = (prev_sw * R + peer_port[sw, ip]) * V + ivc
                        adj[ch, p * V + w] = True
                        if ch * RV + p * V + w == target:
                            return t, st
                    v = port_peer[sw, p]
                    if v >= n_nodes:
                        nst = ((v - n_nodes) * R1 + peer_port[sw, p] + 1) * V1 + w + 1
                        if not seen[nst]:
                            seen[nst] = True
                            touched[nt] = nst
                            nt += 1
                            parent[nst] = st
                            start_of[nst] = start_of[st]
                            stack[top] = nst
                            top += 1
        for i in range(nt):
            seen[touched[i]] = False
    return -1, -1


@njit(cache=True)
def _find_cycle(port_peer, n_nodes, V, adj, used):
    """One cycle of the channel graph (iterative DFS), as channel ids; empty if none."""
    S, R = port_peer.shape
    C = S * R * V
    RV = R * V
    color = np.zeros(C, np.int8)
    stack = np.empty(C, np.int64)
    pos = np.empty(C, np.int64)
    for root in range(C):
        if color[root] != 0 or not used[root]:
            continue
        top = 0
        stack[0] = root
        pos[0] = 0
        color[root] = 1
        while top >= 0:
            c = stack[top]
            v = port_peer[(c // V) // R, (c // V) % R]
            advanced = False
            if v >= n_nodes:
                base = (v - n_nodes) * RV
                while pos[top] < RV:
                    j = pos[top]
                    pos[top] += 1
                    if not adj[c, j]:
                        continue
                    d = base + j
                    if color[d] == 1:
                        k = 0
                        while stack[k] != d:
                            k += 1
                        return stack[k : top + 1].copy()
                    if color[d] == 0:
                        color[d] = 1
                        top += 1
                        stack[top] = d
                        pos[top] = 0
                        advanced = True
                        break
            if not advanced:
                color[c] = 2
                top -= 1
    return np.empty(0, np.int64)


@njit(cache=True)
def _witness_walks(
    code,
    iparams,
    table,
    port_peer,
    peer_port,
    fail,
    n_nodes,
    node_switch,
    node_port,
    hop_limit,
    a_sw,
    a_p,
    b_p,
):
    """A delivered pair whose route takes port a_p at a_sw then port b_p next."""
    R = port_peer.shape[1]
    cand = np.empty(R + 1, np.int64)
    sw_out = np.empty(hop_limit, np.int64)
    port_out = np.empty(hop_limit, np.int64)
    for t in range(n_nodes):
        for s in range(n_nodes):
            if s == t:
                continue
            h, status = _walk_pair(
                code,
                iparams,
                table,
                port_peer,
                peer_port,
                fail,
                n_nodes,
                node_switch[s],
                s,
                t,
                s * n_nodes + t,
                hop_limit,
                cand,
                sw_out,
                port_out,
            )
            if status != DELIVERED:
                continue
            for i in range(h - 1):
                if sw_out[i] == a_sw and port_out[i] == a_p and port_out[i + 1] == b_p:
                    return s, t
    return -1, -1
