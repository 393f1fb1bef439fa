"""Verify a routing algorithm on every (source, destination) pair: delivery, loops,
minimality against BFS, hop-length distribution and path diversity.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ..errors import ParameterError
from ..registry import Registry
from ..topology.core import Topology
from ._walks import DELIVERED, HOP_LIMIT, NO_ROUTE, _bfs_sigma, _count_paths, _reset, _walk_pair
from .compiled import CompiledRouting, compile_routing

# stats slots
_PAIRS, _DELIV, _NOROUTE, _LOOP, _BAD, _NONMIN, _UNREACH, _CLOOP = range(8)


@njit(cache=True)
def _check_kernel(
    code,
    iparams,
    table,
    port_peer,
    peer_port,
    fail,
    n_nodes,
    node_switch,
    node_port,
    dests,
    sources,
    share,
    hop_limit,
    ccode,
    c_iparams,
    c_table,
    hist,
    bfs_hist,
    stats,
    examples,
    div,
):
    """Walk every pair; with ``share`` one walk serves all sources on one switch
    (sources must come sorted by switch)."""
    S, R = port_peer.shape
    dist = np.full(S, -1, np.int64)
    sigma = np.zeros(S, np.float64)
    queue = np.empty(S, np.int64)
    cand = np.empty(R + 1, np.int64)
    sw_out = np.empty(hop_limit, np.int64)
    port_out = np.empty(hop_limit, np.int64)
    count = ccode >= 0
    memo = np.full((S if count else 1, R + 1), -1.0)
    touched = np.empty(memo.size, np.int64)
    f_sw = np.empty(hop_limit + 1, np.int64)
    f_ip = np.empty(hop_limit + 1, np.int64)
    f_cand = np.empty((hop_limit + 1, R + 1), np.int64)
    f_cnt = np.empty(hop_limit + 1, np.int64)
    f_next = np.empty(hop_limit + 1, np.int64)
    f_acc = np.empty(hop_limit + 1, np.float64)
    cur = -1
    reached = 0
    for i in range(dests.shape[0]):
        t = dests[i]
        tsw = node_switch[t]
        if tsw != cur:
            for q in range(reached):
                dist[queue[q]] = -1
                sigma[queue[q]] = 0.0
            reached = _bfs_sigma(port_peer, fail, n_nodes, tsw, dist, sigma, queue)
            cur = tsw
        n_touched = 0
        last_home = -1
        last_h = 0
        last_status = 0
        t_ok = not fail[tsw, node_port[t]]
        for j in range(sources.shape[0]):
            s = sources[j]
            if s == t:
                continue
            stats[_PAIRS] += 1
            home = node_switch[s]
            d_sw = dist[home]
            bfs = d_sw + 2 if (d_sw >= 0 and t_ok and not fail[home, node_port[s]]) else -1
            if bfs >= 0:
                bfs_hist[bfs] += 1
            else:
                stats[_UNREACH] += 1
            if fail[home, node_port[s]]:
                status = NO_ROUTE
                h = 0
            elif share and home == last_home:
                h, status = last_h, last_status
            else:
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
                last_home, last_h, last_status = home, h, status
            if status == DELIVERED:
                stats[_DELIV] += 1
                hops = h + 1
                hist[hops] += 1
                if bfs >= 0 and hops > bfs:
                    stats[_NONMIN] += 1
                    if examples[_NONMIN, 0] < 0:
                        examples[_NONMIN, 0] = s
                        examples[_NONMIN, 1] = t
            else:
                slot = _NOROUTE if status == NO_ROUTE else (_LOOP if status == HOP_LIMIT else _BAD)
                stats[slot] += 1
                if examples[slot, 0] < 0:
                    examples[slot, 0] = s
                    examples[slot, 1] = t
            if bfs < 0 or status != DELIVERED:
                continue
            sp = sigma[home] if home != tsw else 1.0
            npaths = 1.0
            if count:
                npaths, n_touched, looped = _count_paths(
                    ccode,
                    c_iparams,
                    c_table,
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
                )
                if looped:
                    stats[_CLOOP] += 1
            div[0] += npaths
            div[1] = max(div[1], npaths)
            div[2] += sp
            div[3] = max(div[3], sp)
            if npaths >= sp:
                div[4] += 1
            div[5] += 1
        if count:
            _reset(memo, touched, n_touched)
    return 0


def _paper_mikant(k: int, n: int, N: int) -> float:
    # 000 Theorem 6 averages over all 2k^n destinations, the source included
    incl = 2 * n - 1 / (k - 1) + 1 / ((k - 1) * k**n) - 0.5
    return incl * N / (N - 1)


# closed-form average distance over S != T, per family (verified in docs/mikant-routing.md §1.4)
PAPER_AVERAGE: Registry = Registry("average distance formula")
PAPER_AVERAGE.add(
    "mikant",
    ("000 Theorem 6", lambda t: _paper_mikant(int(t.params["k"]), int(t.params["n"]), t.n_nodes)),
)


@dataclass
class CheckReport:
    """What :func:`check` found. ``hist[h]`` counts delivered routes of h hops (links,
    node links included); ``bfs_hist`` the graph's distances over the same pairs."""

    spec: str
    algorithm: str
    minimal_claimed: bool
    pairs: int
    delivered: int
    no_route: int
    loops: int
    bad_port: int
    non_minimal: int
    unreachable: int
    hist: dict[int, int]
    bfs_hist: dict[int, int]
    mean_hops: float
    mean_bfs: float
    paper_mean: float | None
    paper_ref: str | None
    paths_mean: float
    paths_max: float
    sp_paths_mean: float
    sp_paths_max: float
    pairs_all_shortest: int
    paths_counted_by: str
    examples: dict[str, tuple[str, str]] = field(default_factory=dict)
    seconds: float = 0.0
    #: pairs requested with ``sample`` (None: every pair of the chosen nodes)
    sample: int | None = None

    @property
    def ok(self) -> bool:
        """Every pair delivered, and minimal if the algorithm claims it."""
        bad = self.no_route + self.loops + self.bad_port
        return bad == 0 and (self.non_minimal == 0 or not self.minimal_claimed)

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["ok"] = self.ok
        d["hist"] = {str(h): c for h, c in self.hist.items()}
        d["bfs_hist"] = {str(h): c for h, c in self.bfs_hist.items()}
        return d


def fail_mask(topo: Topology, failed_links) -> np.ndarray:
    """(S, R) bool: ports whose link is in ``failed_links`` (bool (E,) or link ids)."""
    mask = np.zeros(topo.port_peer.shape, np.bool_)
    if failed_links is None:
        return mask
    arr = np.asarray(failed_links)
    E = topo.n_links
    if arr.dtype == np.bool_:
        if arr.shape != (E,):
            raise ParameterError(
                f"failed_links has shape {arr.shape}; expected ({E},) booleans "
                f"(one per link of {topo.spec})"
            )
        bad = arr
    else:
        bad = np.zeros(E, np.bool_)
        if arr.size:
            if not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() >= E:
                raise ParameterError(
                    f"failed_links={arr.tolist()[:5]}... is invalid: expected "
                    f"link ids 0..{E - 1} or {E} booleans"
                )
            bad[arr.astype(np.int64)] = True
    li = topo.link_index
    used = li >= 0
    mask[used] = bad[li[used]]
    return mask


def _nodes_arg(topo, nodes, param):
    if nodes is None:
        return np.arange(topo.n_nodes, dtype=np.int64)
    arr = np.unique(np.asarray(nodes, np.int64))
    if arr.size == 0 or arr.min() < 0 or arr.max() >= topo.n_nodes:
        raise ParameterError(f"{param} must be node ids in 0..{topo.n_nodes - 1}")
    return arr


def check(
    topo: Topology,
    algorithm: str | CompiledRouting | None = None,
    *,
    seed: int = 0,
    destinations=None,
    sources=None,
    failed_links=None,
    count_paths: bool = True,
    hop_limit: int | None = None,
    sample: int | None = None,
) -> CheckReport:
    """Walk every (source, destination) pair with the numba kernel and report.

    Parameters
    ----------
    topo : Topology
    algorithm : str or CompiledRouting, optional
        Default: the family's default algorithm.
    seed : int
        Seed of the per-packet choices of ``random``.
    destinations, sources : array of node ids, optional
        Restrict the pairs (default: all N² - N ordered pairs).
    failed_links : bool (E,) or link ids, optional
        Links treated as failed (adaptive candidates skip them); BFS then runs on the
        surviving graph.
    count_paths : bool
        Count the distinct routes an adaptive or random algorithm can take per pair.
    hop_limit : int, optional
        Switches per route before it counts as a loop (default ``4*diameter + 8``).
    sample : int, optional
        Walk about this many pairs instead of all: ``ceil(sqrt(sample))`` destinations
        and as many sources, drawn without replacement with ``seed`` (for networks
        whose N² pairs would take too long; see :func:`estimate_seconds`).

    Returns
    -------
    CheckReport

    Examples
    --------
    >>> import fattree
    >>> from fattree.routing.check import check
    >>> r = check(fattree.build("mikant:k=3,n=3"), "alg1")
    >>> r.ok, r.pairs, r.delivered, r.non_minimal, round(r.mean_hops, 4)
    (True, 2862, 2862, 0, 5.1132)

    References
    ----------
    000 Theorem 6 (average distance); docs/mikant-routing.md §1.4 and §2.
    """
    t0 = time.perf_counter()
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    cr = (
        algorithm
        if isinstance(algorithm, CompiledRouting)
        else compile_routing(topo, algorithm, seed)
    )
    fail = fail_mask(topo, failed_links)
    if sample is not None:
        destinations, sources = _sample_nodes(topo.n_nodes, sample, seed)
    dests = _nodes_arg(topo, destinations, "destinations")
    dests = dests[np.argsort(topo.node_switch[dests], kind="stable")]
    srcs = _nodes_arg(topo, sources, "sources")
    srcs = srcs[np.argsort(topo.node_switch[srcs], kind="stable")]
    peer = topo.port_peer
    if hop_limit is None:
        hop_limit = 4 * _diameter_bound(topo, fail) + 8
    ccode, c_ip, c_tab, counted_by = -1, cr.iparams, cr.table, "deterministic (1 per pair)"
    if count_paths and (cr.adaptive or cr.support):
        sup = cr if cr.adaptive else compile_routing(topo, cr.support, cr.seed)
        ccode, c_ip, c_tab, counted_by = sup.code, sup.iparams, sup.table, sup.algorithm
    hist = np.zeros(hop_limit + 2, np.int64)
    bfs_hist = np.zeros(topo.n_switches + 3, np.int64)
    stats = np.zeros(8, np.int64)
    examples = np.full((8, 2), -1, np.int64)
    div = np.zeros(6, np.float64)
    _check_kernel(
        cr.code,
        cr.iparams,
        cr.table,
        peer,
        topo.port_peer_port,
        fail,
        topo.n_nodes,
        topo.node_switch,
        topo.node_port,
        dests,
        srcs,
        not cr.per_packet,
        int(hop_limit),
        ccode,
        c_ip,
        c_tab,
        hist,
        bfs_hist,
        stats,
        examples,
        div,
    )
    h = {int(i): int(c) for i, c in enumerate(hist) if c}
    b = {int(i): int(c) for i, c in enumerate(bfs_hist) if c}
    mean = lambda d: sum(k * v for k, v in d.items()) / max(1, sum(d.values()))  # noqa: E731
    paper = PAPER_AVERAGE.get(topo.family) if topo.family in PAPER_AVERAGE else None
    full = destinations is None and sources is None and failed_links is None and sample is None
    names = {_NOROUTE: "no_route", _LOOP: "loop", _BAD: "bad_port", _NONMIN: "non_minimal"}
    ex = {
        name: (topo.node_label(int(examples[i, 0])), topo.node_label(int(examples[i, 1])))
        for i, name in names.items()
        if examples[i, 0] >= 0
    }
    npair = max(1, int(div[5]))
    return CheckReport(
        spec=topo.spec,
        algorithm=cr.algorithm,
        minimal_claimed=cr.minimal,
        pairs=int(stats[_PAIRS]),
        delivered=int(stats[_DELIV]),
        no_route=int(stats[_NOROUTE]),
        loops=int(stats[_LOOP]),
        bad_port=int(stats[_BAD]),
        non_minimal=int(stats[_NONMIN]),
        unreachable=int(stats[_UNREACH]),
        hist=h,
        bfs_hist=b,
        mean_hops=mean(h),
        mean_bfs=mean(b),
        paper_mean=paper[1](topo) if (paper and full) else None,
        paper_ref=paper[0] if (paper and full) else None,
        paths_mean=div[0] / npair,
        paths_max=float(div[1]),
        sp_paths_mean=div[2] / npair,
        sp_paths_max=float(div[3]),
        pairs_all_shortest=int(div[4]),
        paths_counted_by=counted_by,
        examples=ex,
        seconds=time.perf_counter() - t0,
        sample=sample,
    )


def _sample_nodes(n: int, sample, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded destinations and sources for about ``sample`` pairs."""
    if isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 1:
        raise ParameterError(f"sample={sample!r} is invalid: expected a number of pairs >= 1")
    m = min(n, int(np.ceil(np.sqrt(float(sample)))))
    rng = np.random.default_rng([int(seed) & (2**63 - 1), 0x5A3F])
    return np.sort(rng.choice(n, m, replace=False)), np.sort(rng.choice(n, m, replace=False))


#: seconds per ordered (source, destination) pair of the all-pairs commands, measured
#: on MiKANT with 8,192 nodes on a loaded 2-core machine (upper bounds)
PAIR_SECONDS = {"check": 150e-9, "load": 130e-9, "deadlock": 50e-9}


def estimate_seconds(
    topology, work: str = "check", pairs: int | None = None
) -> tuple[int, int, float]:
    """``(nodes, pairs, seconds)`` of an all-pairs computation, estimated without building.

    ``topology`` is a spec string (the family's closed-form size) or a Topology;
    ``work`` is ``check``, ``load`` or ``deadlock``; ``pairs`` overrides N(N-1).

    Examples
    --------
    >>> n, p, sec = estimate_seconds("mikant:k=8,n=7", "check")
    >>> n, p > 10**13, sec > 3600
    (4194304, True, True)
    """
    if work not in PAIR_SECONDS:
        raise ParameterError(f"work={work!r} is invalid: one of {', '.join(PAIR_SECONDS)}")
    if isinstance(topology, Topology):
        n = topology.n_nodes
    else:
        from ..topology import resolve

        fam, values = resolve(topology)
        if fam.size is None:
            return 0, 0, 0.0  # an imported graph: known once built
        n = int(fam.size(values)[0])
    p = n * (n - 1) if pairs is None else int(pairs)
    return n, p, p * PAIR_SECONDS[work]


#: the most seconds of estimated all-pairs work a command may be allowed (a day)
MAX_SECONDS_CAP = 86_400


def refuse_long(
    topology, work: str, max_seconds: float, *, pairs: int | None = None, hint: str = ""
) -> float:
    """Raise :class:`~fattree.errors.ResourceError` when :func:`estimate_seconds` exceeds
    ``max_seconds``; return the estimate otherwise.

    Examples
    --------
    >>> refuse_long("kant:k=2,n=3", "check", 60) < 1
    True
    """
    from ..errors import ResourceError

    if isinstance(max_seconds, bool) or not 0 < max_seconds <= MAX_SECONDS_CAP:
        raise ParameterError(
            f"max_seconds={max_seconds!r} is invalid: expected a number of seconds > 0 and "
            f"at most {MAX_SECONDS_CAP:,} (a day: longer all-pairs work takes --sample)"
        )
    n, p, sec = estimate_seconds(topology, work, pairs)
    if sec > max_seconds:
        what = {
            "check": "routing check",
            "load": "channel load",
            "deadlock": "the channel dependency graph",
        }[work]
        raise ResourceError(
            f"{what} over {p:,} node pairs ({n:,} nodes) would take about "
            f"{_duration(sec)}, more than max_seconds={max_seconds:g}{hint}"
        )
    return sec


def _duration(sec: float) -> str:
    if sec < 120:
        return f"{sec:.0f} s"
    if sec < 7200:
        return f"{sec / 60:.0f} min"
    if sec < 2 * 86400:
        return f"{sec / 3600:.1f} h"
    return f"{sec / 86400:,.0f} days"


def _diameter_bound(topo: Topology, fail: np.ndarray) -> int:
    """Switch-graph eccentricity of one switch, doubled: an upper bound on the diameter."""
    S = topo.n_switches
    dist = np.full(S, -1, np.int64)
    sigma = np.zeros(S)
    queue = np.empty(S, np.int64)
    reached = _bfs_sigma(topo.port_peer, fail, topo.n_nodes, 0, dist, sigma, queue)
    return 2 * int(dist[queue[reached - 1]]) + 2
