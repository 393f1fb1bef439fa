"""The breadth-first search kernels of :mod:`fattree.analysis.bfs` (numba), apart so that
a search small enough for numpy does not import numba."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _bfs_count(indptr, indices, n_nodes, src, dist, sigma, queue, limit):
    """BFS from ``src`` filling ``dist`` (int32, -1 = unseen) and ``sigma``.

    ``dist`` must be -1 and ``sigma`` 0 wherever the search will reach; the first
    ``reached`` entries of ``queue`` list the vertices touched, so a caller can reset
    just those. Compute nodes other than the source are not expanded: their one
    link leads back to a vertex that is already closer.
    Returns ``(reached, overflow)``.
    """
    head = 0
    tail = 1
    queue[0] = src
    dist[src] = 0
    sigma[src] = 1
    overflow = False
    while head < tail:
        v = queue[head]
        head += 1
        if v < n_nodes and v != src:
            continue
        dv = dist[v] + 1
        sv = sigma[v]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if dist[w] < 0:
                dist[w] = dv
                sigma[w] = sv
                queue[tail] = w
                tail += 1
            elif dist[w] == dv:
                sigma[w] += sv
                if sigma[w] > limit:
                    overflow = True
    return tail, overflow


@numba.njit(cache=True)
def _node_pair_stats(indptr, indices, n_nodes, node_switch, sources, weights, sigma, limit, hist):
    """Node-to-node statistics of BFS trees rooted at ``sources``.

    Per source s: the sum of distances to all nodes, the eccentricity among nodes,
    the number of nodes not reached, the sum of shortest-path counts to nodes t != s,
    and the same sum restricted to nodes on another switch than s (the path
    diversity convention of 001 §3.3). ``hist[d] += weights[i]`` for every node at
    distance d from source i. ``sigma`` (int64 or float64, all zero) fixes the
    dtype of the path counts.
    """
    n_vert = indptr.shape[0] - 1
    m = sources.shape[0]
    dist = np.full(n_vert, -1, np.int32)
    queue = np.empty(n_vert, np.int64)
    dist_sum = np.zeros(m, np.int64)
    ecc = np.zeros(m, np.int64)
    unreached = np.zeros(m, np.int64)
    sig_all = np.zeros(m, sigma.dtype)
    sig_other = np.zeros(m, sigma.dtype)
    overflow = False
    for i in range(m):
        s = sources[i]
        reached, ov = _bfs_count(indptr, indices, n_nodes, s, dist, sigma, queue, limit)
        overflow = overflow or ov
        home = node_switch[s]
        seen = 0
        dsum = 0
        emax = 0
        sa = sigma[s] - sigma[s]
        so = sa
        for q in range(reached):
            w = queue[q]
            if w < n_nodes:
                d = dist[w]
                seen += 1
                dsum += d
                if d > emax:
                    emax = d
                hist[d] += weights[i]
                if w != s:
                    sa += sigma[w]
                    if node_switch[w] != home:
                        so += sigma[w]
            dist[w] = -1
            sigma[w] = 0
        if sa > limit:
            overflow = True
        dist_sum[i] = dsum
        ecc[i] = emax
        unreached[i] = n_nodes - seen
        sig_all[i] = sa
        sig_other[i] = so
    return dist_sum, ecc, unreached, sig_all, sig_other, overflow
