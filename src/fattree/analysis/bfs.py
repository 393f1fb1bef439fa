"""Breadth-first search kernels over :attr:`Topology.csr` (numba).

Hops count links, node links included (000 §III, Theorem 2). Shortest paths are
counted as link sequences, so parallel links multiply the count.

The kernels are private and take fixed-dtype arrays; :func:`bfs` and
:func:`node_pair_stats` validate their arguments and convert.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ..errors import ParameterError

# Path counts above this are treated as an int64 overflow risk: two such values
# still add without wrapping, and the caller then recounts in float64.
_INT_LIMIT = 2**61


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


def _csr(topo):
    indptr, indices = topo.csr
    return np.ascontiguousarray(indptr, np.int64), np.ascontiguousarray(indices, np.int64)


def bfs(topo, source: int, *, counts: str = "int64") -> tuple[np.ndarray, np.ndarray]:
    """Distances and shortest-path counts from one vertex to every vertex.

    Parameters
    ----------
    topo : Topology
    source : int
        Vertex id (nodes ``0..N-1``, switch ``s`` is ``N + s``).
    counts : {"int64", "float64"}
        dtype of the path counts; int64 raises if a count could overflow.

    Returns
    -------
    dist : (V,) int32
        Hops (links) from ``source``; -1 where unreachable.
    sigma : (V,) int64 or float64
        Number of shortest paths from ``source``.

    Examples
    --------
    >>> import fattree
    >>> from fattree.analysis.bfs import bfs
    >>> t = fattree.build("mikant:k=2,n=3")
    >>> d, p = bfs(t, 0)
    >>> int(d[:t.n_nodes].max()), int(p[t.find("n1.1.1.1")])
    (6, 2)

    References
    ----------
    000 §III (hop counting, Theorem 2); 001 §3.3 (shortest-path counts).
    """
    if counts not in ("int64", "float64"):
        raise ParameterError(f"counts={counts!r} is invalid: use 'int64' or 'float64'")
    v = _as_vertex(topo, source)
    indptr, indices = _csr(topo)
    nv = topo.n_vertices
    dist = np.full(nv, -1, np.int32)
    sigma = np.zeros(nv, np.dtype(counts))
    queue = np.empty(nv, np.int64)
    limit = _INT_LIMIT if counts == "int64" else np.inf
    _, overflow = _bfs_count(
        indptr, indices, topo.n_nodes, v, dist, sigma, queue, sigma.dtype.type(limit)
    )
    if overflow and counts == "int64":
        raise ParameterError(
            f"counts='int64' overflows on {topo.spec} (more than 2^61 shortest paths); use 'float64'"
        )
    return dist, sigma


def _as_vertex(topo, source) -> int:
    try:
        v = int(source)
    except (TypeError, ValueError):
        raise ParameterError(f"source={source!r} is invalid: expected a vertex id") from None
    if not 0 <= v < topo.n_vertices:
        raise ParameterError(f"source={v} is invalid: vertex ids are 0..{topo.n_vertices - 1}")
    return v


@dataclass(frozen=True)
class PairStats:
    """Per-source node-to-node statistics (see :func:`node_pair_stats`)."""

    sources: np.ndarray
    weights: np.ndarray
    dist_sum: np.ndarray
    eccentricity: np.ndarray
    unreached: np.ndarray
    sigma_sum: np.ndarray
    sigma_other_switch: np.ndarray
    histogram: np.ndarray
    exact_counts: bool


def node_pair_stats(topo, sources, weights=None) -> PairStats:
    """BFS from each source node and gather node-to-node distance and path-count sums.

    Path counts are kept in int64 (exact); if any could overflow, the whole run is
    repeated in float64 and ``exact_counts`` is False.

    Parameters
    ----------
    topo : Topology
    sources : array of int
        Compute node ids.
    weights : array of int, optional
        Multiplicity of each source in the histogram (class sizes); default 1.

    Examples
    --------
    >>> import fattree
    >>> from fattree.analysis.bfs import node_pair_stats
    >>> st = node_pair_stats(fattree.build("kant:k=2,n=2"), [0])
    >>> st.histogram.tolist(), int(st.dist_sum[0]), int(st.sigma_other_switch[0])
    ([1, 0, 1, 0, 2], 10, 4)

    References
    ----------
    000 §III (average distance, eq. 1); 001 §3.3 (path diversity).
    """
    src = np.asarray(sources, np.int64).ravel()
    n = topo.n_nodes
    if src.size == 0 or src.min() < 0 or src.max() >= n:
        raise ParameterError(
            f"sources={src.tolist()[:5]}... is invalid: expected compute node ids 0..{n - 1}"
        )
    w = np.ones(src.size, np.int64) if weights is None else np.asarray(weights, np.int64).ravel()
    if w.shape != src.shape or (w < 0).any():
        raise ParameterError("weights is invalid: one non-negative integer per source")
    indptr, indices = _csr(topo)
    node_switch = np.ascontiguousarray(topo.node_switch, np.int64)
    nv = topo.n_vertices
    exact = True
    for dtype, limit in ((np.int64, np.int64(_INT_LIMIT)), (np.float64, np.float64(np.inf))):
        hist = np.zeros(nv + 1, np.int64)
        out = _node_pair_stats(
            indptr, indices, n, node_switch, src, w, np.zeros(nv, dtype), limit, hist
        )
        if not out[5]:
            break
        exact = False
    dist_sum, ecc, unreached, sig_all, sig_other, _ = out
    last = int(np.nonzero(hist)[0].max()) + 1
    return PairStats(src, w, dist_sum, ecc, unreached, sig_all, sig_other, hist[:last], exact)
