"""Bisection width: exact by ILP on small instances, an explicit balanced cut above.

A bisection splits the compute nodes into ``A`` with ``floor(N/2)`` nodes and ``B``
with the rest; switches go to either side freely; its width is the number of links
(node links included) between the sides. The minimum over all bisections is found
by an integer program (scipy.optimize.milp / HiGHS) while the instance is small.
Above that, several simple balanced node splits are tried and, for each, the best
placement of the switches is found exactly by a minimum s-t cut; the smallest is
reported as an upper bound, beside the paper's closed form, unless a lower bound from a
uniform multicommodity flow (:func:`flow_lower_bound`) meets it: then it is exact at
any size.

An exact width found by the ILP is kept on disk beside numba's compiled kernels (one small
file per graph, named by a digest of its links and of the package's sources), so that the
same graph asks the ILP once per version of fattree.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError

#: Instances with at most this many switches are solved exactly by the ILP.
ILP_MAX_SWITCHES = 128
#: Branch-and-bound nodes the ILP may explore before its best cut is returned as a bound:
#: a limit on work, so that the same graph gets the same answer on any machine and load
#: (a wall-clock limit proved a width on a quiet machine and not on a busy one).
ILP_NODE_LIMIT = 1000
#: Seconds after which the ILP stops whatever the node count: a safety stop that the
#: node limit keeps out of reach on the instances the ILP is tried on.
ILP_TIME_LIMIT = 120.0
#: Seconds the flow lower bound's linear program may take (an optional, stronger bound).
FLOW_TIME_LIMIT = 10.0
#: Largest switches x nodes for which routings' channel loads are tried as flows.
FLOW_MAX_WORK = 1 << 24
#: Largest number of variables (source switches x arcs) of the flow LP.
FLOW_LP_MAX_VARS = 400_000


@dataclass(frozen=True)
class Bisection:
    """A bisection width and how it was obtained.

    ``width`` is the number of links cut by ``side`` (True = side A, one entry per
    vertex, nodes first). ``exact`` is True only when optimality is proven (by the ILP,
    or by a flow lower bound equal to the cut); otherwise ``width`` is an upper bound
    and ``lower_bound`` the best bound proved (0 if none).
    """

    width: int
    exact: bool
    method: str
    lower_bound: int
    side: np.ndarray


def cut_size(topo, side) -> int:
    """Number of links whose ends lie on different sides (``side``: bool per vertex).

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("kant:k=2,n=1")
    >>> cut_size(t, np.array([True, False, True]))
    1
    """
    side = np.asarray(side, bool)
    if side.shape != (topo.n_vertices,):
        raise ParameterError(
            f"side has shape {side.shape}; expected ({topo.n_vertices},), one per vertex"
        )
    e = topo.links
    return int(np.count_nonzero(side[e[:, 0]] != side[e[:, 1]]))


def bisection(
    topo, *, ilp_max_switches: int = ILP_MAX_SWITCHES, time_limit: float = ILP_TIME_LIMIT
) -> Bisection:
    """Bisection width of a topology: exact ILP when small, else the best explicit cut.

    Parameters
    ----------
    topo : Topology
    ilp_max_switches : int
        Largest number of switches for which the ILP is attempted (0 disables it).
    time_limit : float
        Seconds after which the ILP stops in any case. The ILP looks for a balanced cut
        smaller than the best explicit one (none: the explicit cut is optimal) within
        :data:`ILP_NODE_LIMIT` branch-and-bound nodes, so its answer does not depend on
        the machine's speed; if it stops early the result is the best cut known,
        labelled as an upper bound.

    Examples
    --------
    >>> import fattree
    >>> b = bisection(fattree.build("mikant:k=2,n=3"))
    >>> b.width, b.exact, b.method
    (4, True, 'ilp')
    >>> b = bisection(fattree.build("mikant:k=4,n=3"), ilp_max_switches=0)
    >>> b.width, b.exact
    (32, False)

    References
    ----------
    000 §III Theorem 7 (bisection k^n/2, cut on the top digit; see errata).
    """
    if ilp_max_switches < 0:
        raise ParameterError(f"ilp_max_switches={ilp_max_switches!r} is invalid: must be >= 0")
    if not time_limit > 0:
        raise ParameterError(f"time_limit={time_limit!r} is invalid: must be > 0 seconds")
    if topo.n_nodes < 2:
        raise ParameterError(
            f"{topo.spec} has {topo.n_nodes} compute node(s); a bisection needs at least 2"
        )
    if topo.n_switches > ilp_max_switches:
        return _with_flow_bound(topo, explicit_cut(topo), 0, time_limit)
    memo = _memo_path(topo)
    known = _memo_load(memo, topo.n_vertices)
    if known is not None:
        return known
    best = explicit_cut(topo)
    status, cut, lower = _ilp(topo, time_limit, below=best.width)
    if status == "none":
        return _memo_store(memo, Bisection(best.width, True, "ilp", best.width, best.side))
    if status == "optimal":
        return _memo_store(memo, Bisection(cut.width, True, "ilp", cut.width, cut.side))
    if cut is not None and cut.width < best.width:
        best = Bisection(cut.width, False, "ilp stopped at its limit, upper bound", 0, cut.side)
    proved = f", proved >= {lower}" if lower > 0 else ""
    stop = f"{ILP_NODE_LIMIT} nodes" if status == "nodes" else f"{time_limit:g} s"
    method = f"{best.method}; ilp stopped at the {stop} limit{proved}"
    if best.width == lower:
        found = Bisection(best.width, True, method, lower, best.side)
        # a node limit is the same on any machine; a time limit is not: not kept
        return _memo_store(memo, found) if status == "nodes" else found
    return _with_flow_bound(
        topo, Bisection(best.width, False, method, lower, best.side), lower, time_limit
    )


@functools.cache
def _memo_folder() -> str:
    from ..compiling import kept_folder

    return kept_folder("bisection")


def _memo_path(topo) -> str:
    """The file that keeps ``topo``'s exact width: a digest of the graph (nodes, links)
    and of the ILP's node limit, in the folder of this version's compiled kernels."""
    h = hashlib.blake2b(digest_size=16)
    h.update(np.int64([topo.n_nodes, topo.n_switches, ILP_NODE_LIMIT]).tobytes())
    h.update(np.ascontiguousarray(topo.links, dtype=np.int64).tobytes())
    return os.path.join(_memo_folder(), h.hexdigest() + ".json")


def _memo_load(path: str, n_vertices: int) -> Bisection | None:
    try:
        with open(path) as fh:
            d = json.load(fh)
        bits = np.frombuffer(bytes.fromhex(d["side"]), np.uint8)
        side = np.unpackbits(bits, count=n_vertices).astype(bool)
        return Bisection(int(d["width"]), True, str(d["method"]), int(d["lower"]), side)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent, unreadable or damaged: the ILP answers again


def _memo_store(path: str, b: Bisection) -> Bisection:
    """Keep an exact width (a failure to write is harmless: the ILP answers again)."""
    d = {
        "width": b.width,
        "method": b.method,
        "lower": b.lower_bound,
        "side": np.packbits(b.side).tobytes().hex(),
    }
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w") as fh:
            json.dump(d, fh)
        os.replace(tmp, path)
    except OSError:
        pass
    return b


def _with_flow_bound(topo, best: Bisection, lower: int, time_limit: float) -> Bisection:
    """``best`` made exact when the flow lower bound meets it, else with the better bound."""
    flow, how = flow_lower_bound(
        topo, time_limit=min(time_limit, FLOW_TIME_LIMIT), target=best.width
    )
    if flow >= best.width:
        return Bisection(
            best.width,
            True,
            f"{best.method.replace(', upper bound', '')}; proved optimal by a uniform-flow "
            f"lower bound ({how})",
            best.width,
            best.side,
        )
    if flow > lower:
        return Bisection(
            best.width, False, f"{best.method}; flow lower bound {flow} ({how})", flow, best.side
        )
    return best


def cut_lower_bound(n_nodes: int, load: float) -> int:
    """The bisection lower bound of a uniform flow whose switch-to-switch channels carry at
    most ``load`` (per direction, every node sending 1/(N-1) to each other node).

    A bisection puts ``a = floor(N/2)`` nodes on side A. Let ``m`` nodes hang on switches of
    side A: at least ``|a - m|`` node links are cut, and the flow between those ``m`` nodes
    and the other ``N - m``, ``m (N - m) / (N - 1)`` each way, crosses the cut's switch links,
    each carrying at most ``load``. So the width is at least
    ``min over m of |a - m| + ceil(m (N - m) / ((N - 1) load))``.

    Parameters
    ----------
    n_nodes : int
        N.
    load : float
        The largest load of a switch-to-switch channel (> 0); raised by a relative 1e-7
        (above the solver's tolerance) so that rounding can only lower the bound.

    Returns
    -------
    int

    Examples
    --------
    >>> cut_lower_bound(64, 32 / 63)  # the 6-cube: e-cube loads every channel 32/63
    32

    References
    ----------
    F. T. Leighton, *Introduction to Parallel Algorithms and Architectures* (1992), §1.9
    (congestion of an embedding of the complete graph bounds the bisection width).
    """
    n = int(n_nodes)
    a = n // 2
    m = np.arange(n + 1, dtype=float)
    lam = float(load) * (1 + 1e-7)
    need = np.ceil(m * (n - m) / ((n - 1) * lam) - 1e-9)
    return int(np.min(np.abs(a - m) + need))


def flow_lower_bound(topo, *, time_limit: float = FLOW_TIME_LIMIT, target: int | None = None):
    """A lower bound on the bisection width from a uniform multicommodity flow.

    Three flows are tried, cheapest first, until the bound reaches ``target``: the even
    split of every packet over all shortest paths (ECMP, :func:`ecmp_load`), every routing
    of the family (:mod:`fattree.routing.load`, uniform traffic), and, if the instance is
    small enough (``FLOW_LP_MAX_VARS``), the least possible load of any fractional routing,
    found by a linear program (HiGHS, ``time_limit`` seconds). The least loaded
    switch-to-switch channel of each gives :func:`cut_lower_bound`.

    Parameters
    ----------
    topo : Topology
    time_limit : float
        Seconds for the linear program.
    target : int or None
        Stop as soon as the bound reaches it (the width of a known cut).

    Returns
    -------
    (int, str)
        The bound (0 if none) and how it was obtained.

    Examples
    --------
    >>> import fattree
    >>> flow_lower_bound(fattree.build("torus:k=4,n=3"))
    (32, 'even split over all shortest paths, max switch-channel load 0.5079')

    References
    ----------
    F. T. Leighton, *Introduction to Parallel Algorithms and Architectures* (1992), §1.9.
    """
    from ..routing import algorithms_for
    from ..routing.load import channel_load
    from ..topology.core import PORT_NODE

    n, S = topo.n_nodes, topo.n_switches
    if n < 2 or S < 2:
        return 0, "none"
    best, how = 0, "none"

    def consider(load, what):
        nonlocal best, how
        if load is not None and load > 0:
            b = cut_lower_bound(n, load)
            if b > best:
                best, how = b, f"{what}, max switch-channel load {load:.4f}"
        return target is not None and best >= target

    if consider(ecmp_load(topo), "even split over all shortest paths"):
        return best, how
    sw = (np.asarray(topo.port_kind) != PORT_NODE) & (np.asarray(topo.port_peer) >= n)
    if n * S <= FLOW_MAX_WORK and sw.any():
        for alg in algorithms_for(topo.family):
            try:
                gam = channel_load(topo, alg, "uniform").gamma
            except Exception:  # a routing undefined on this instance gives no flow here
                continue
            if consider(float(np.max(gam[sw])), f"{alg} routing"):
                return best, how
    consider(_min_load_lp(topo, time_limit), "linear program (least possible)")
    return best, how


def ecmp_load(topo, max_work: int = FLOW_MAX_WORK * 8) -> float | None:
    """Largest switch-to-switch channel load when every node sends ``1/(N-1)`` to every
    other node, each packet split evenly over all shortest next hops at every switch.

    Parameters
    ----------
    topo : Topology
    max_work : int
        Refuse (None) above this many (destination switch x arc) steps.

    Returns
    -------
    float or None

    Examples
    --------
    >>> import fattree
    >>> round(ecmp_load(fattree.build("hypercube:d=6,p=1")), 4)  # 32/63 on every channel
    0.5079
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import shortest_path

    n, S = topo.n_nodes, topo.n_switches
    c = np.bincount(np.asarray(topo.node_switch, np.int64), minlength=S).astype(float)
    sw = (topo.links[n:] - n).astype(np.int64)
    arcs = np.concatenate([sw, sw[:, ::-1]])
    dst = np.flatnonzero(c > 0)
    if len(arcs) == 0 or len(dst) * len(arcs) > max_work:
        return None
    adj = coo_matrix((np.ones(len(arcs)), (arcs[:, 0], arcs[:, 1])), shape=(S, S)).tocsr()
    load = np.zeros(len(arcs))
    for t in dst:
        d = shortest_path(adj, unweighted=True, indices=int(t))
        if not np.isfinite(d[dst]).all():
            return None  # a disconnected network: no flow reaches every node
        fin = np.isfinite(d)
        closer = np.zeros(len(arcs), bool)
        closer[fin[arcs[:, 0]]] = d[arcs[fin[arcs[:, 0]], 1]] == d[arcs[fin[arcs[:, 0]], 0]] - 1
        outdeg = np.bincount(arcs[closer, 0], minlength=S)
        f = c * c[t] / (n - 1)
        f[t] = 0.0
        for dist in range(int(d[fin].max()), 0, -1):  # farthest first: inflow is complete
            m = closer & (d[arcs[:, 0]] == dist)
            share = f[arcs[m, 0]] / outdeg[arcs[m, 0]]
            load[m] += share
            np.add.at(f, arcs[m, 1], share)
    return float(load.max())


def _min_load_lp(topo, time_limit: float) -> float | None:
    """The least possible largest switch-to-switch channel load of a fractional routing of
    uniform traffic (source-switch-aggregated flows, HiGHS); None when too large or
    unsolved in time."""
    from scipy.optimize import OptimizeWarning, linprog
    from scipy.sparse import coo_matrix

    n, S = topo.n_nodes, topo.n_switches
    c = np.bincount(np.asarray(topo.node_switch, np.int64), minlength=S).astype(float)
    src = np.flatnonzero(c > 0)
    sw = topo.links[n:] - n
    arcs = np.concatenate([sw, sw[:, ::-1]]).astype(np.int64)  # both directions
    A, K = len(arcs), len(src)
    if A == 0 or K * A + 1 > FLOW_LP_MAX_VARS:
        return None
    # variable k*A + e: flow of source switch src[k] on arc e; the last one: the load bound
    kk = np.repeat(np.arange(K), A)
    ee = np.tile(np.arange(A), K)
    var = kk * A + ee
    # conservation: out - in at switch v = supply of src[k] at v
    rows = np.concatenate([kk * S + arcs[ee, 0], kk * S + arcs[ee, 1]])
    cols = np.concatenate([var, var])
    vals = np.concatenate([np.ones(K * A), -np.ones(K * A)])
    eq = coo_matrix((vals, (rows, cols)), shape=(K * S, K * A + 1)).tocsr()
    supply = -(c[src][:, None] * c[None, :]) / (n - 1)
    supply[np.arange(K), src] = c[src] * (n - c[src]) / (n - 1)
    # capacity: sum over sources of the flow on arc e <= lambda
    cap = coo_matrix(
        (
            np.concatenate([np.ones(K * A), -np.ones(A)]),
            (np.concatenate([ee, np.arange(A)]), np.concatenate([var, np.full(A, K * A)])),
        ),
        shape=(A, K * A + 1),
    ).tocsr()
    cost = np.zeros(K * A + 1)
    cost[-1] = 1.0
    with warnings.catch_warnings():  # HiGHS reads run_crossover; scipy does not list it
        warnings.simplefilter("ignore", OptimizeWarning)
        res = _linprog(linprog, cost, cap, A, eq, supply, time_limit)
    if res.status != 0:
        return None
    return float(res.x[-1])


def _linprog(linprog, cost, cap, A, eq, supply, time_limit):
    return linprog(
        cost,
        A_ub=cap,
        b_ub=np.zeros(A),
        A_eq=eq,
        b_eq=supply.ravel(),
        bounds=(0, None),
        method="highs-ipm",  # interior point: seconds where simplex took minutes
        options={"time_limit": float(time_limit), "run_crossover": "off"},
    )


# ---------------------------------------------------------------- explicit cuts
def candidate_splits(topo) -> list[tuple[str, np.ndarray]]:
    """Balanced node splits to try: index halves, each label digit first, BFS order.

    Each entry is ``(description, boolean mask of the floor(N/2) nodes of side A)``.
    """
    n = topo.n_nodes
    half = n // 2
    out: list[tuple[str, np.ndarray]] = []

    seen: set[bytes] = set()

    def take(order: np.ndarray) -> np.ndarray | None:
        mask = np.zeros(n, bool)
        mask[order[:half]] = True
        key = np.packbits(mask).tobytes()
        if key in seen:  # the same split under another name: one max-flow is enough
            return None
        seen.add(key)
        return mask

    out.append(("node index halves", take(np.arange(n))))
    digits = topo.node_digits if topo.node_names is None else _name_fields(topo.node_names)
    width = digits.shape[1]
    for j in range(width):
        if np.all(digits[:, j] == digits[0, j]):
            continue
        # lexsort: last key is primary; the other digits keep label order as tie-break
        keys = [digits[:, c] for c in range(width - 1, -1, -1) if c != j] + [digits[:, j]]
        out.append((f"node label digit {j} first", take(np.lexsort(keys))))
    from .bfs import bfs

    # only distances are needed: float counts cannot overflow on huge tori
    dist, _ = bfs(topo, 0, counts="float64")
    far = int(np.argmax(np.where(dist[:n] >= 0, dist[:n], -1)))
    dist_far, _ = bfs(topo, far, counts="float64")
    out.append(("nodes nearest a peripheral node", take(np.lexsort((np.arange(n), dist_far[:n])))))
    return [(name, mask) for name, mask in out if mask is not None]


def _name_fields(names) -> np.ndarray:
    """Integer fields of imported node names (``n1.0.2`` -> 1, 0, 2) when all have the same count.

    Imported copies of structured networks keep their labels in the names, and
    their digits give the same good splits as the original labels.
    """
    import re

    fields = [re.findall(r"\d+", name) for name in names]
    width = len(fields[0]) if fields else 0
    if width == 0 or width > 32 or any(len(f) != width for f in fields):
        return np.zeros((len(fields), 0), np.int64)
    return np.array([[float(x) for x in f] for f in fields])  # only sorted, never printed


def _switch_adjacency(topo) -> tuple[np.ndarray, np.ndarray]:
    """Switch-to-switch part of :attr:`Topology.csr`, in switch ids (rows stay sorted)."""
    n = topo.n_nodes
    indptr, indices = topo.csr
    rows = indices[indptr[n] :]
    keep = rows >= n
    ptr = np.zeros(rows.size + 1, np.int64)
    np.cumsum(keep, out=ptr[1:])
    ptr = ptr[indptr[n:] - indptr[n]]  # kept entries before each switch row
    return ptr, rows[keep] - n


def _flow_graph(adj, n_switches: int, a_count: np.ndarray, b_count: np.ndarray):
    """Capacities over the switches plus a source (id S) and a sink (id S+1).

    Nodes are leaves with a fixed side, so they are folded into their switch:
    source -> s with capacity = its side-A nodes (cut when s goes to B), s -> sink
    with its side-B nodes. Switch links have capacity 1 both ways (parallel links
    add up). Rows are built sorted, so scipy need not re-sort millions of entries.
    """
    import scipy.sparse as sp

    S = n_switches
    aptr, acols = adj
    deg = np.diff(aptr)
    to_sink = np.nonzero(b_count)[0]
    from_src = np.nonzero(a_count)[0]
    length = np.zeros(S + 2, np.int64)
    length[:S] = deg
    length[to_sink] += 1
    length[S] = from_src.size
    ptr = np.zeros(S + 3, np.int64)
    np.cumsum(length, out=ptr[1:])
    cols = np.empty(ptr[-1], np.int64)
    cap = np.ones(ptr[-1], np.int32)
    cols[np.repeat(ptr[:S] - aptr[:-1], deg) + np.arange(acols.size)] = acols
    cols[ptr[to_sink] + deg[to_sink]] = S + 1
    cap[ptr[to_sink] + deg[to_sink]] = b_count[to_sink]
    cols[ptr[S] : ptr[S + 1]] = from_src
    cap[ptr[S] : ptr[S + 1]] = a_count[from_src]
    g = sp.csr_matrix((cap, cols.astype(np.int32), ptr.astype(np.int32)), shape=(S + 2, S + 2))
    g.sum_duplicates()
    return g


def min_cut_for_split(
    topo, node_side, *, sides: bool = True, adjacency=None
) -> tuple[int, np.ndarray | None]:
    """Fewest links cut by any switch placement, given the side of every node.

    The switches' best placement is a minimum s-t cut (scipy maximum_flow) in the
    switch graph where each switch hangs on a source by its side-A nodes and on a
    sink by its side-B nodes. Returns the cut size and, if ``sides``, the side of
    every vertex (True = A), recounted on the graph.
    """
    from scipy.sparse.csgraph import breadth_first_order, maximum_flow

    n, S = topo.n_nodes, topo.n_switches
    node_side = np.asarray(node_side, bool)
    if node_side.shape != (n,):
        raise ParameterError(
            f"node_side has shape {node_side.shape}; expected ({n},), one per node"
        )
    ns = topo.node_switch.astype(np.int64)
    a_count = np.bincount(ns[node_side], minlength=S)
    b_count = np.bincount(ns[~node_side], minlength=S)
    g = _flow_graph(adjacency or _switch_adjacency(topo), S, a_count, b_count)
    res = maximum_flow(g, S, S + 1)
    if not sides:
        return int(res.flow_value), None
    residual = g - res.flow
    residual.data = (residual.data > 0).astype(np.int8)
    residual.eliminate_zeros()
    reach = breadth_first_order(residual, S, directed=True, return_predecessors=False)
    side = np.zeros(n + S + 2, bool)
    side[n + reach] = True
    side = side[: n + S]
    side[:n] = node_side
    width = cut_size(topo, side)
    if width != res.flow_value:
        raise AssertionError(f"min cut mismatch on {topo.spec}: {width} vs flow {res.flow_value}")
    return width, side


def explicit_cut(topo) -> Bisection:
    """The smallest cut among :func:`candidate_splits`, each with optimal switch sides.

    Examples
    --------
    >>> import fattree
    >>> b = explicit_cut(fattree.build("clos:k=2,n=3"))
    >>> b.width, b.exact
    (8, False)
    """
    adj = _switch_adjacency(topo)
    widths = [
        (min_cut_for_split(topo, mask, sides=False, adjacency=adj)[0], i, name, mask)
        for i, (name, mask) in enumerate(candidate_splits(topo))
    ]
    width, _, name, mask = min(widths, key=lambda w: w[:2])
    _, side = min_cut_for_split(topo, mask, adjacency=adj)  # recount the winner on the graph
    return Bisection(width, False, f"explicit balanced cut ({name}), upper bound", 0, side)


# ---------------------------------------------------------------- exact ILP
def _ilp(topo, time_limit: float, below: int):
    """Search for a balanced cut of fewer than ``below`` links (scipy.optimize.milp).

    Returns ``(status, cut, lower)``: status ``"none"`` when HiGHS proves that no
    bisection cuts fewer than ``below`` links, ``"optimal"`` with the minimum ``cut``
    when one does, ``"limit"`` when time ran out (``cut`` is the best found or
    None, ``lower`` the proven lower bound on the width).

    Nodes are leaves, so instead of one variable per node each switch s carries
    ``a_s`` = how many of its ``c_s`` nodes are on side A; its node links then cut
    ``|a_s - c_s x_s|`` (x_s = 1: switch on side A). This removes the k!-fold
    symmetry among the nodes of one switch. Variables: x (S, binary), a (S,
    integer), z (S) >= |a - c x|, y (E_sw) >= |x_u - x_v|. Proving infeasibility of
    ``cut <= below - 1`` was about twice as fast as minimising with ``cut <= below``
    on Clos(4,3), MiKANT(3,4) and Clos(2,5).
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    n, S = topo.n_nodes, topo.n_switches
    c = np.bincount(topo.node_switch.astype(np.int64), minlength=S).astype(float)
    sw = topo.links[n:] - n
    E = len(sw)
    nvar = 3 * S + E
    X, A, Z, Y = 0, S, 2 * S, 3 * S
    rows, cols, vals, lo = [], [], [], []
    r = 0

    def at_least_zero(*terms):
        nonlocal r
        cnt = len(terms[0][0])
        for col, val in terms:
            rows.append(r + np.arange(cnt))
            cols.append(col)
            vals.append(np.broadcast_to(np.asarray(val, float), cnt))
        lo.append(np.zeros(cnt))
        r += cnt

    s_ids, e_ids = np.arange(S), np.arange(E)
    at_least_zero((Z + s_ids, 1.0), (A + s_ids, -1.0), (X + s_ids, c))  # z >= a - c x
    at_least_zero((Z + s_ids, 1.0), (A + s_ids, 1.0), (X + s_ids, -c))  # z >= c x - a
    at_least_zero((Y + e_ids, 1.0), (X + sw[:, 0], -1.0), (X + sw[:, 1], 1.0))
    at_least_zero((Y + e_ids, 1.0), (X + sw[:, 0], 1.0), (X + sw[:, 1], -1.0))
    mat = coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, nvar)
    ).tocsr()
    balance = np.zeros(nvar)
    balance[A : A + S] = 1.0
    cost = np.concatenate([np.zeros(2 * S), np.ones(S + E)])
    constraints = [
        LinearConstraint(mat, np.concatenate(lo), np.inf),
        LinearConstraint(balance[None, :], n // 2, n // 2),
        LinearConstraint(cost[None, :], 0, below - 1),
    ]
    lb = np.zeros(nvar)
    ub = np.concatenate([np.ones(S), c, c, np.ones(E)])
    if n % 2 == 0:
        # the complement of a bisection is one too: put the first node's switch on side A
        lb[X + int(topo.node_switch[0])] = 1.0
    integrality = np.concatenate([np.ones(2 * S), np.zeros(S + E)])
    res = milp(
        cost,
        constraints=constraints,
        integrality=integrality,
        bounds=Bounds(lb, ub),
        options={"time_limit": float(time_limit), "node_limit": ILP_NODE_LIMIT, "disp": False},
    )
    if res.status == 2:
        return "none", None, below
    dual = res.get("mip_dual_bound")
    lower = max(math.ceil(dual - 1e-6), 0) if dual is not None and math.isfinite(dual) else 0
    cut = None
    if res.x is not None:
        x = np.round(res.x[X : X + S]).astype(bool)
        a = np.round(res.x[A : A + S]).astype(np.int64)
        side = np.zeros(topo.n_vertices, bool)
        side[n:] = x
        # the first a_s nodes of each switch (in node order) go to side A
        order = np.argsort(topo.node_switch, kind="stable")
        sws = topo.node_switch[order].astype(np.int64)
        rank = np.arange(n) - np.searchsorted(sws, sws)
        side[order] = rank < a[sws]
        cut = Bisection(cut_size(topo, side), res.status == 0, "ilp", 0, side)
    if res.status == 0:
        return "optimal", cut, cut.width
    # HiGHS reports its node limit as "solution limit reached" (scipy's status 4)
    return ("nodes" if res.status == 4 else "limit"), cut, lower
