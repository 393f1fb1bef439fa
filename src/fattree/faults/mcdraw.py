"""The Monte Carlo loop's draws (a counter-based generator keyed by (seed, rate index,
trial)), outcome record, per-chunk scratch and oracle search. Trials run in fixed chunks of
``CHUNK``: results never depend on the thread count (docs/faults.md, "Evaluation protocol").
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..topology import Topology
from .hooks import OK, TTL

CHUNK = 512  # trials per parallel task: fixed, so results never depend on thread count


@njit(cache=True, inline="always")
def mix(x):
    # splitmix64 finaliser
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, inline="always")
def _below(state, m):
    """A draw in ``[0, m)`` from the splitmix64 stream ``state``."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    return np.int64(mix(state[0]) % np.uint64(m))


@njit(cache=True)
def draw(seed, rate_idx, tr, perm, swaps, stamp, cur, n_faults, pool, N, state):
    """Mark trial tr's faulty links (stamp == cur) and return its (source, destination)."""
    state[0] = mix(
        np.uint64(seed) * np.uint64(0x100000001B3)
        ^ mix(np.uint64(rate_idx) << np.uint64(40) ^ np.uint64(tr))
    )
    # partial Fisher-Yates over the pool, undone afterwards so perm stays sorted
    for i in range(n_faults):
        j = i + _below(state, pool - i)
        swaps[i] = j
        perm[i], perm[j] = perm[j], perm[i]
        stamp[perm[i]] = cur
    for i in range(n_faults - 1, -1, -1):
        j = swaps[i]
        perm[i], perm[j] = perm[j], perm[i]
    s = _below(state, N)
    t = _below(state, N - 1)
    if t >= s:
        t += 1
    return s, t


def draw_trial(
    topo: Topology, seed: int, rate_idx: int, trial: int, rate: float, switch_only: bool = False
):
    """The faulty-link mask and (source, destination) of one Monte Carlo trial (for checks)."""
    pool_lo = topo.n_nodes if switch_only else 0
    pool = topo.n_links - pool_lo
    f = int(math.floor(pool * rate + 0.5))
    perm, stamp, swaps, *_, state = chunk_scratch(pool_lo, topo.n_links, f, 1)
    s, t = draw(seed, rate_idx, trial, perm, swaps, stamp, 1, f, pool, topo.n_nodes, state)
    return stamp == 1, int(s), int(t)


@njit(cache=True, inline="always")
def record_outcome(st, h, a, tr, succ, length, ttl_count, best):
    """Record walk ``a`` of trial ``tr`` (status ``st``, ``h`` hops); return the shortest
    successful walk so far (-1: none)."""
    ok = st == OK
    succ[a, tr] = ok
    length[a, tr] = h if ok else 0
    if st == TTL:
        ttl_count[a] += 1
    return h if ok and (best < 0 or h < best) else best


@njit(cache=True)
def chunk_scratch(pool_lo, n_links, n_faults, V):
    """One parallel task's arrays: the draws' link permutation, fault stamps and swaps, the
    oracle's distance, visit and queue arrays, the draws' RNG state."""
    perm, stamp = np.arange(pool_lo, n_links), np.zeros(n_links, np.int64)
    swaps = np.empty(max(n_faults, 1), np.int64)
    dist, seen, queue = np.zeros(V, np.int64), np.zeros(V, np.int64), np.empty(V, np.int64)
    return perm, stamp, swaps, dist, seen, queue, np.zeros(1, np.uint64)


def surviving_csr(topo: Topology, switches_only: bool = False):
    """(indptr, neighbours, link ids) over every vertex; ``switches_only``: switch-switch
    links only (node links come first in ``topo.links``, ids kept)."""
    e = topo.links
    first = topo.n_nodes if switches_only else 0  # the orientation never uses node links
    e = e[first:]
    src = np.concatenate([e[:, 0], e[:, 1]])
    dst = np.concatenate([e[:, 1], e[:, 0]])
    ids = np.arange(first, first + len(e))
    lid = np.concatenate([ids, ids])
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(topo.n_vertices + 1, np.int64)
    np.add.at(indptr, src + 1, 1)
    return np.cumsum(indptr), dst[order].astype(np.int64), lid[order].astype(np.int64)


@njit(cache=True, inline="always")
def _level(g, h, tl, mine, other, base, sgn):
    """Expand one level of one side of :func:`oracle_bfs` (queue ``base + sgn * i``, ``i``
    in ``h:tl``): ``(shortest meeting distance or -1, h, tl)``."""
    indptr, nbr, nbr_link, stamp, cur, dist, seen, queue = g
    best = -1
    end = tl
    while h < end:
        v = queue[base + sgn * h]
        h += 1
        for j in range(indptr[v], indptr[v + 1]):
            if stamp[nbr_link[j]] == cur:
                continue
            u = nbr[j]
            if seen[u] == other:
                d = dist[v] + 1 + dist[u]
                if best < 0 or d < best:
                    best = d
            elif seen[u] != mine:
                seen[u] = mine
                dist[u] = dist[v] + 1
                queue[base + sgn * tl] = u
                tl += 1
    return best, h, tl


@njit(cache=True)
def oracle_bfs(indptr, nbr, nbr_link, stamp, cur, src, t, dist, seen, seen_mark, queue):
    """BFS distance from node src to node t on the surviving graph (-1: disconnected).

    Bidirectional: the smaller frontier expands a whole level; the first level meeting the
    other side gives the distance (its minimum). ``seen`` marks ``2*seen_mark`` (source
    side, queued from the start) and ``2*seen_mark + 1`` (from the end): marks only increase.
    """
    if src == t:
        return 0
    V = queue.shape[0]
    ms = 2 * seen_mark
    mt = ms + 1
    seen[src], dist[src], queue[0] = ms, 0, src
    seen[t], dist[t], queue[V - 1] = mt, 0, t
    hs, ts, ht, tt = 0, 1, 0, 1
    g = (indptr, nbr, nbr_link, stamp, cur, dist, seen, queue)
    while hs < ts and ht < tt:
        if ts - hs <= tt - ht:
            best, hs, ts = _level(g, hs, ts, ms, mt, 0, 1)
        else:
            best, ht, tt = _level(g, ht, tt, mt, ms, V - 1, -1)
        if best >= 0:
            return best
    return -1
