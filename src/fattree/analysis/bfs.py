"""Breadth-first search kernels over :attr:`Topology.csr` (numba).

Hops count links, node links included (000 §III, Theorem 2). Shortest paths are
counted as link sequences, so parallel links multiply the count.

The numba kernels (``_bfs_kernels``) are private and take fixed-dtype arrays;
:func:`bfs` and :func:`node_pair_stats` validate their arguments and convert. A small
search (``fattree info`` on a symmetric family: one source, a few hundred vertices) runs
level by level in numpy instead (:func:`_pair_stats_numpy`), so that it neither imports
numba nor loads a compiled kernel (together about 0.9 s); the tests hold both equal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError

# Path counts above this are treated as an int64 overflow risk: two such values
# still add without wrapping, and the caller then recounts in float64.
_INT_LIMIT = 2**61
# Searches up to this many (source, vertex) pairs go level by level in numpy
_NUMPY_MAX_WORK = 1 << 16


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
    from ._bfs_kernels import _bfs_count

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
    if src.size * nv <= _NUMPY_MAX_WORK:
        out = _pair_stats_numpy(indptr, indices, n, node_switch, src, w)
        if out is not None:
            return out
    from ._bfs_kernels import _node_pair_stats

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


def _pair_stats_numpy(indptr, indices, n_nodes, node_switch, sources, weights):
    """:func:`node_pair_stats` level by level in numpy (the same rules as the kernel:
    compute nodes other than the source are not expanded); None when a path count
    reaches 2^53, where float64 stops counting exactly (the kernel then answers)."""
    nv = indptr.shape[0] - 1
    m = sources.shape[0]
    deg = np.diff(indptr)
    hist = np.zeros(nv + 1, np.int64)
    dist_sum, ecc, unreached = (np.zeros(m, np.int64) for _ in range(3))
    sig_all, sig_other = np.zeros(m, np.int64), np.zeros(m, np.int64)
    for i, s in enumerate(sources.tolist()):
        dist = np.full(nv, -1, np.int64)
        sigma = np.zeros(nv)
        dist[s], sigma[s] = 0, 1.0
        front, d = np.array([s]), 0
        while front.size:
            # expand the frontier's switches (and the source): every link out of them
            front = front[(front >= n_nodes) | (front == s)]
            counts = deg[front]
            tail = np.repeat(front, counts)
            starts = np.repeat(indptr[front] - np.cumsum(counts) + counts, counts)
            head = indices[np.arange(tail.size) + starts]
            new = head[dist[head] < 0]
            dist[new] = d + 1
            onto = dist[head] == d + 1
            np.add.at(sigma, head[onto], sigma[tail[onto]])
            front, d = np.unique(new), d + 1
        if sigma.max() >= 2.0**53:
            return None
        nodes = dist[:n_nodes]
        seen = nodes >= 0
        hist += np.bincount(nodes[seen], minlength=nv + 1) * weights[i]
        dist_sum[i], ecc[i] = nodes[seen].sum(), nodes[seen].max()
        unreached[i] = n_nodes - int(seen.sum())
        counted = np.flatnonzero(seen)
        counted = counted[counted != s]
        sig = sigma[counted].astype(np.int64)
        if sig.size and int(sig.max()) * sig.size >= _INT_LIMIT:
            return None
        sig_all[i] = sig.sum()
        sig_other[i] = sig[node_switch[counted] != node_switch[s]].sum()
    last = int(np.nonzero(hist)[0].max()) + 1
    return PairStats(
        sources, weights, dist_sum, ecc, unreached, sig_all, sig_other, hist[:last], True
    )
