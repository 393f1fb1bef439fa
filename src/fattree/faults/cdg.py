"""Channel dependency graphs of fault-tolerant routes, one for every engine (Dally & Seitz):
the dependencies of every delivered route of an algorithm under one fault set, each hop on
its engine's VC class (a paper walk's escape classes, or up*/down* turn layers), built by
one kernel over the fault view (:mod:`fattree.faults.view`). docs/faults-deadlock.md
("deadlock --faults", the deadlock-free variant) and docs/faults-families.md.
"""

from __future__ import annotations

import time
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ..errors import ParameterError
from ..routing.deadlock import MAX_VCS, channel_label
from ..routing.shared import find_cycle
from ..topology import Topology
from .algorithms import (
    ESCAPE,
    FT_ALGORITHMS,
    GDL,
    GNS,
    KERNEL_RULES,
    ROOT,
    RULE_UPDOWN_T,
    SPEC_NAMES,
    TT,
    UPALT,
    XT,
    check_model,
    resolve_algorithms,
)
from .generic import AdaptiveAt, layer_step, adaptive_ports, adaptive_scratch
from .hooks import FI_N_NODES, FI_TTL, OK, W_PORT, W_SW, W_VCS
from .mikant import ft_rank, ft_vc, route_vcs
from .rules import one_vc_layered
from .view import ENG_ADAPTIVE, ENG_TABLE, _engine_tops, adaptive_rule, fault_router
from .walkloop import sim_walk, walk_route
from .walks import walk_of

VC_RULES = ("none", "escape", "detour")  # a paper walk's; the generic rules': none, updown
M_NONE, M_CLASSES, M_NAIVE = 0, 1, 2  # every hop on VC 0; the engine's classes; naive escape
NO_LIMIT = 1 << 30  # classes computed whatever their number (refused against V afterwards)
WITNESS_SEARCH = 100_000  # states searched for a route of the adaptive rule


@njit(cache=True, inline="always")
def _add_route(sw, ports, vcs, nsw, R, V, pair, wit, used):
    """Mark the channels of one route used and record each dependency's first ``pair``."""
    for i in range(nsw):
        c = (sw[i] * R + ports[i]) * V + vcs[i]
        used[c] = True
        if i + 1 < nsw:
            j = ports[i + 1] * V + vcs[i + 1]
            if wit[c, j] < 0:
                wit[c, j] = pair


@njit(cache=True)
def _naive_vcs(trace, nsw, V, vcs):
    """``detour``: VC 1 from the first hop not chosen by Algorithm 1 (``trace``) on (not
    deadlock-free); the highest class, -1 if that needs a class >= V."""
    top = 0
    for i in range(nsw):
        c = 1 if top == 1 or trace[i, 0] != 0 else 0
        if c >= V:
            return -1
        vcs[i] = c
        if c > top:
            top = c
    return top


Graph = namedtuple("Graph", "wit used stats classes")
Graph.__doc__ = (
    "A graph being built: ``wit[c, q*V+v]`` the first pair ``s*N+t`` making channel c depend "
    "on port q / VC v of the next switch (-1: none), the channels used, ``stats`` and "
    "``classes`` (:class:`FTDependencyGraph`)."
)


@njit(cache=True)
def _cdg(f, V, mode, track, trace, gr, ad):
    """Dependencies of every delivered route on the fault view ``f`` into ``gr``; ``track``:
    count the classes in ``stats[3]`` whatever ``mode`` (``M_*``); ``ad``: :class:`Adaptive`."""
    N = f.ft_i[FI_N_NODES]
    R = f.ft_rt.port_peer.shape[1]
    ws = f.ft_ws
    vcs = ws[W_VCS]
    stats = gr.stats
    for t in range(N):
        for s in range(N):
            if s == t:
                continue
            if trace is None:  # (numba prunes the branch the argument's type rules out)
                st, nsw = sim_walk(f, s, t)
            else:
                st, nsw = sim_walk(f, s, t, trace)
            if st != OK:
                stats[0] += 1
                continue
            stats[2] += 1
            top = 0
            if mode == M_CLASSES or track:
                top = _engine_tops(f, nsw, NO_LIMIT)
                if top > stats[3]:
                    stats[3] = top
            if mode == M_NONE:
                vcs[:nsw] = 0
                top = 0
            elif trace is not None:  # (M_NAIVE)
                top = _naive_vcs(trace, nsw, V, vcs)
            if top < 0 or top >= V:
                stats[1] += 1
                continue
            gr.classes[top] += 1
            if ad is None:
                _add_route(ws[W_SW], ws[W_PORT], vcs, nsw, R, V, s * N + t, gr.wit, gr.used)
            else:  # every route its candidates allow
                _adaptive_deps(ad, gr, s, t)
    return 0


Adaptive = namedtuple("Adaptive", "rule seen stack out scratch")
Adaptive.__doc__ = (
    "The adaptive rule's search: its AdaptiveRule, the pair that last reached each (channel, "
    "hops), a DFS stack of (switch, previous, hops, layer, down, channel), candidates, scratch."
)


@njit(cache=True)
def _adaptive_deps(ad, gr, s, t):
    """Every dependency of the ``adaptive`` routes from node ``s`` to ``t`` into ``gr``: every
    candidate the allocator may take (:func:`fattree.faults.generic.adaptive_ports`)."""
    ar, wit = ad.rule, gr.wit
    port_peer = ar.rt.port_peer
    N = ar.rt.n_nodes
    R = port_peer.shape[1]
    V = max(ar.layers, 1)
    pair = s * N + t
    gen = pair + 1
    st = ad.stack
    top = 0
    st[0, 0], st[0, 1], st[0, 2] = ar.rt.node_switch[s], -1, 1
    st[0, 3], st[0, 4], st[0, 5] = 0, 0, -1
    while top >= 0:
        sw, prev, h = st[top, 0], st[top, 1], st[top, 2]
        cls, down, c_in = st[top, 3], st[top, 4] != 0, st[top, 5]
        top -= 1
        m = adaptive_ports(ar, AdaptiveAt(sw, prev, h, np.int64(t), cls, down), ad.out, ad.scratch)
        for i in range(m):
            p = ad.out[i]
            w = port_peer[sw, p]
            c2, d2 = layer_step(ar.order, N, ar.layers, sw, w, cls, down)
            if c2 >= V:  # (never: a candidate's onward walk fits the layers)
                continue
            c = (sw * R + p) * V + c2
            gr.used[c] = True
            if c_in >= 0 and wit[c_in, p * V + c2] < 0:
                wit[c_in, p * V + c2] = pair
            if w < N or ad.seen[c, h + 1] == gen:
                continue
            ad.seen[c, h + 1] = gen
            top += 1
            st[top, 0], st[top, 1], st[top, 2] = w - N, sw, h + 1
            st[top, 3], st[top, 4], st[top, 5] = c2, np.int64(d2), c
    return 0


@njit(cache=True)
def shortest_cycle(port_peer, n_nodes, V, adj, seeds):
    """The shortest cycle through any channel of ``seeds`` (BFS from each), as channel ids."""
    S, R = port_peer.shape
    C, RV = S * R * V, R * V
    dist = np.full(C, -1, np.int64)
    parent = np.full(C, -1, np.int64)
    queue = np.empty(C, np.int64)
    best = np.empty(0, np.int64)
    for root in seeds:
        dist[:] = -1
        dist[root], queue[0] = 0, root
        head, tail, found = 0, 1, -1
        while head < tail and found < 0:
            c = queue[head]
            head += 1
            if best.size and dist[c] + 1 >= best.size:
                break
            v = port_peer[(c // V) // R, (c // V) % R]
            if v < n_nodes:
                continue
            base = (v - n_nodes) * RV
            for j in range(RV):
                if not adj[c, j]:
                    continue
                d = base + j
                if d == root:
                    found = c
                    break
                if dist[d] < 0:
                    dist[d] = dist[c] + 1
                    parent[d] = c
                    queue[tail] = d
                    tail += 1
        if found >= 0:
            m = dist[found] + 1
            cyc = np.empty(m, np.int64)
            x = found
            for i in range(m - 1, -1, -1):
                cyc[i] = x
                x = parent[x]
            best = cyc
    return best


@dataclass
class FTDeadlockReport:
    """Result of :func:`ft_deadlock` (one algorithm, one fault set): ``refused`` of the
    ``delivered`` routes need a class ``>= vcs`` and are left out of the graph (the
    deadlock-free variant does not route them); ``classes[j]``: routes in the graph whose
    highest class is j; ``classes_bound``: :func:`classes_bound`."""

    spec: str
    algorithm: str
    model: str
    vcs: int
    vc_rule: str
    faulty_links: int
    acyclic: bool
    channels: int
    dependencies: int
    pairs: int
    delivered: int
    not_delivered: int
    refused: int
    classes: list[int]
    cycle: list[str] = field(default_factory=list)
    cycle_ids: list[int] = field(default_factory=list)
    routes: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    classes_bound: int | None = None
    layers_needed: int | None = None  # generic algorithms: up*/down* turn layers needed

    @property
    def classes_needed(self) -> int:
        """VC classes the delivered routes use (1 + their most turns); 0 if none."""
        nz = [i for i, c in enumerate(self.classes) if c]
        return nz[-1] + 1 if nz else 0

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["classes_needed"] = self.classes_needed
        return d


def classes_bound(algorithm: str, n: int) -> int | None:
    """VC classes that suffice for every route of ``algorithm`` on MiKANT(k, n) under the
    escape rule, whatever the faults (1 + the most turns a route can make; the turns:
    docs/faults-deadlock.md); ``None`` for ``escape`` (only its hop limit bounds it) and the
    generic kernel's rules (up*/down* turn layers).

    Examples
    --------
    >>> [classes_bound(a, 3) for a in ("sp", "gns", "gdl", "gns+gdl", "tt", "gns+tt+xt+gdl")]
    [1, 2, 2, 3, 3, 5]
    >>> classes_bound("gdl", 5), classes_bound("escape", 3) is None
    (4, True)

    References
    ----------
    docs/mikant-routing.md §3-4, §6.
    """
    alg = FT_ALGORITHMS.get(SPEC_NAMES.get(algorithm, algorithm))
    f = alg.flags
    if f & ESCAPE or alg.rule in KERNEL_RULES:  # (the generic kernel: turn layers)
        return None
    cross = 1 if f & GNS and n >= 3 else 0
    cross = 2 if f & TT else cross
    cross = 3 if f & XT and n >= 3 else cross
    cross += 4 * bool(f & ROOT) + bool(f & UPALT)
    down = max(n - 2, 0) if f & GDL else 0
    return 1 + cross + down


@dataclass
class FTDependencyGraph:
    """The channel dependency graph of :func:`ft_dependency_graph` (``stats``: not
    delivered, refused, delivered, most classes - 1; ``classes[j]``: routes in the graph
    whose highest class is j)."""

    topo: Topology
    algorithm: str
    model: str
    vcs: int
    vc_rule: str
    faulty: np.ndarray
    wit: np.ndarray
    used: np.ndarray
    stats: np.ndarray
    classes: np.ndarray
    router: object = None  # the fault view's FaultRouter (faults/view.py)
    layers: int = 0  # the adaptive rule's turn layers (0: not checked)

    @property
    def adj(self) -> np.ndarray:
        return self.wit >= 0


def _vc_mode(topo: Topology, walk, vc_rule: str, V: int) -> tuple[int, str, int]:
    """``(M_*, the rule's name, VCs of the graph)`` of ``vc_rule`` for a paper walk with VC
    classes (``walk``) or the generic rules (None; ``escape`` means ``updown``)."""
    if walk is None:
        if vc_rule not in ("auto", "none", "updown", "escape"):
            raise ParameterError(f"vc_rule={vc_rule!r} is invalid: one of auto, none, updown")
        if vc_rule == "none" or vc_rule == "auto" and V == 1 and not one_vc_layered(topo.family):
            return M_NONE, "none", 1
        return M_CLASSES, "updown", V
    if vc_rule == "auto":
        vc_rule = "none" if V == 1 else "escape"
    if vc_rule not in VC_RULES:
        raise ParameterError(f"vc_rule={vc_rule!r} is invalid: one of auto, {', '.join(VC_RULES)}")
    return VC_RULES.index(vc_rule), vc_rule, V


def ft_dependency_graph(
    topo: Topology,
    algorithm: str,
    faulty=None,
    *,
    model: str = "local",
    vcs: int = 1,
    vc_rule: str = "auto",
) -> FTDependencyGraph:
    """Build the channel dependency graph that :func:`ft_deadlock` searches (see there).

    Examples
    --------
    >>> import fattree
    >>> g = ft_dependency_graph(fattree.build("mikant:k=2,n=3"), "gns")
    >>> int(g.stats[2]), int(g.adj.sum()) > 0
    (240, True)

    References
    ----------
    Dally & Seitz (1987); docs/mikant-routing.md §6.
    """
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    (alg,) = resolve_algorithms([algorithm], topo.family)
    walk = walk_of(topo.family) if alg.walked_on(topo.family) else None
    if walk is not None and not walk.vc_classes:
        raise ParameterError(
            f"deadlock --faults: channel dependency graphs of fault-tolerant "
            f"routing are built for every family but {topo.family} (its cube ranks "
            f"are not defined), not {topo.family!r}"
        )
    check_model(model)
    if isinstance(vcs, bool) or not isinstance(vcs, (int, np.integer)) or not 1 <= vcs <= MAX_VCS:
        raise ParameterError(f"vcs={vcs!r} is invalid: expected an integer 1..{MAX_VCS}")
    mode, rule, V = _vc_mode(topo, walk, vc_rule, int(vcs))
    if alg.is_oracle:
        raise ParameterError(
            "algorithm='oracle' is a bound (BFS on the surviving graph), not a "
            "routing function: it has no channel dependency graph"
        )
    fr = fault_router(topo, alg.name, faulty, model=model)
    S, R = topo.port_peer.shape
    gr = Graph(
        np.full((S * R * V, R * V), -1, np.int64),
        np.zeros(S * R * V, np.bool_),
        np.zeros(4, np.int64),
        np.zeros(V + 1, np.int64),
    )
    layers = V if mode == M_CLASSES else 0
    ad = None
    if fr.engine == ENG_ADAPTIVE:  # its search: a state is (channel, hops)
        rows, hops = S * R * V, int(fr.ft_i[FI_TTL]) + 2
        ad = Adaptive(
            adaptive_rule(fr.view(), layers),
            np.zeros((rows, hops), np.int64),
            np.zeros((rows * hops, 6), np.int64),
            np.zeros(R + 1, np.int64),
            adaptive_scratch(topo),
        )
    trace = np.full((fr.ft_ws.shape[1], 4), -1, np.int64) if mode == M_NAIVE else None
    _cdg(fr.view(), V, mode, walk is None, trace, gr, ad)
    model = "global" if fr.engine == ENG_TABLE else model
    return FTDependencyGraph(
        topo, alg.name, model, V, rule, fr.faulty, *gr, router=fr, layers=layers
    )


def walk_vcs(
    topo: Topology,
    algorithm: str,
    src: int,
    dst: int,
    faulty,
    *,
    model: str = "local",
    vcs: int = 2,
) -> tuple[int, list[int], list[int], list[int]]:
    """One route and the VC of each hop under the escape rule: (status, switches, ports, vcs).

    ``vcs`` entries are -1 from the hop on that would need a class ``>= vcs``.

    Examples
    --------
    >>> import fattree, numpy as np
    >>> from fattree.faults.links import mikant_link_id
    >>> t = fattree.build("mikant:k=3,n=3")
    >>> bad = np.zeros(t.n_links, bool); bad[mikant_link_id(t, [1, 2, 0, 0, 0])] = True
    >>> st, sw, ports, vc = walk_vcs(t, "gns", t.find("n0.0.0.0"), t.find("n1.0.0.0"), bad)
    >>> ports, vc
    ([3, 1, 4, 3, 0, 0], [0, 0, 1, 1, 1, 1])

    References
    ----------
    docs/mikant-routing.md §6; docs/faults-deadlock.md.
    """
    walk = walk_of(topo.family) if isinstance(topo, Topology) else None
    if walk is None or not walk.vc_classes:
        raise ParameterError(
            f"walk_vcs: the VC classes of the escape rule are defined for a walk with VC "
            f"classes (mikant), not {getattr(topo, 'spec', type(topo).__name__)!r}"
        )
    check_model(model)
    (alg,) = resolve_algorithms([algorithm], topo.family)
    if alg.is_oracle or not alg.walked_on(topo.family):  # (its flags would walk the paper walk)
        kind = "a bound" if alg.is_oracle else "a generic rule, layered by up*/down* turns"
        raise ParameterError(
            f"algorithm={alg.name!r} is invalid for walk_vcs: the escape rule's classes are "
            f"those of {topo.family}'s paper walks, and {alg.name} is {kind} "
            f"(ft_deadlock or fault_router(...).path give its layers)"
        )
    stamp = np.asarray(faulty, bool).astype(np.int64)
    look = model == "lookahead"
    st, _, nsw, sw, ports = walk_route(
        walk, topo, alg.flags, look, int(src), -1, int(dst), stamp, "dimension", 0, 0, None
    )
    nport = nsw if st == OK else max(nsw - 1, 0)
    out = walk.hop_vcs(topo, sw, ports, nport, int(vcs))
    return int(st), [int(x) for x in sw[:nsw]], [int(x) for x in ports[:nport]], out


def ft_deadlock(
    topo: Topology,
    algorithm: str,
    faulty=None,
    *,
    model: str = "local",
    vcs: int = 1,
    vc_rule: str = "auto",
) -> FTDeadlockReport:
    """Channel dependency graph of all delivered routes of a fault-tolerant algorithm.

    Parameters
    ----------
    topo : Topology
        A MiKANT.
    algorithm : str
        A name of :data:`~fattree.faults.FT_ALGORITHMS` other than ``oracle``.
    faulty : bool (E,) over ``topo.links``, optional
        The fault set (none by default).
    model : {"local", "lookahead"}
    vcs : int
        Virtual channels per link, 1..8.
    vc_rule : {"auto", "none", "escape"}
        ``none``: every hop on VC 0 (the papers' algorithms as printed); ``escape``: the
        class of :func:`ft_vc` (routes needing a class ``>= vcs`` are refused and counted);
        ``auto``: ``none`` with 1 VC, ``escape`` with more.

    Returns
    -------
    FTDeadlockReport
        ``acyclic``, or one shortest cycle (channels ``"sA→sB vcW"``) with, for each of
        its dependencies, the first route creating it.

    Examples
    --------
    >>> import fattree, numpy as np
    >>> from fattree.faults.links import mikant_link_id
    >>> t = fattree.build("mikant:k=3,n=3")
    >>> bad = np.zeros(t.n_links, bool); bad[mikant_link_id(t, [1, 2, 0, 0, 0])] = True
    >>> r = ft_deadlock(t, "tt", bad)
    >>> r.acyclic, r.cycle[:2]
    (False, ['s0.1.0.0→s1.1.1.0 vc0', 's1.1.1.0→s0.1.1.0 vc0'])
    >>> r.routes[1]["src"], r.routes[1]["dst"]
    ('n0.0.0.0', 'n1.0.0.0')
    >>> r2 = ft_deadlock(t, "tt", bad, vcs=2)
    >>> r2.acyclic, r2.delivered, r2.refused, r2.classes
    (True, 2862, 54, [2700, 108])

    References
    ----------
    W. J. Dally, C. L. Seitz, IEEE TC 36(5), 1987; 001 §4.2; docs/mikant-routing.md §6.
    """
    t0 = time.perf_counter()
    g = ft_dependency_graph(topo, algorithm, faulty, model=model, vcs=vcs, vc_rule=vc_rule)
    rep = _report(g)
    rep.seconds = time.perf_counter() - t0
    return rep


def _report(g: FTDependencyGraph) -> FTDeadlockReport:
    """Acyclic, or the shortest cycle through the channels of the one found and, for each
    of its dependencies, the first route creating it."""
    topo, V, fr = g.topo, g.vcs, g.router
    N = topo.n_nodes
    adj = g.adj
    if fr.walk is not None:
        bound = classes_bound(g.algorithm, int(topo.params["n"]))
    else:
        bound = 1 if FT_ALGORITHMS.get(g.algorithm).rule == RULE_UPDOWN_T else None
    rep = FTDeadlockReport(
        spec=topo.spec,
        vcs=V,
        acyclic=True,
        channels=int(g.used.sum()),
        dependencies=int(adj.sum()),
        pairs=N * (N - 1),
        delivered=int(g.stats[2]),
        not_delivered=int(g.stats[0]),
        refused=int(g.stats[1]),
        classes=[int(c) for c in g.classes[:V]],
        algorithm=g.algorithm,
        model=g.model,
        vc_rule=g.vc_rule,
        faulty_links=int(g.faulty.sum()),
        classes_bound=bound,
    )
    if fr.walk is None:
        rep.layers_needed = int(g.stats[3]) + 1 if g.stats[2] else 0
    cyc = find_cycle(topo.port_peer, N, V, adj, g.used)
    if cyc.size:
        short = shortest_cycle(topo.port_peer, N, V, adj, cyc)
        ids = [int(c) for c in (short if short.size else cyc)]
        rep.acyclic, rep.cycle_ids = False, ids
        rep.cycle = [channel_label(topo, c, V) for c in ids]
        rep.routes = [_witness(g, a, b) for a, b in zip(ids, ids[1:] + ids[:1])]
    return rep


def _witness(g: FTDependencyGraph, a: int, b: int) -> dict:
    """The first route creating the dependency ``a -> b``, as the report lists it."""
    topo, V = g.topo, g.vcs
    s, t = divmod(int(g.wit[a, b % (topo.max_ports * V)]), topo.n_nodes)  # b: port, VC there
    note = classes = None
    if g.router.engine == ENG_ADAPTIVE:  # the route through it, not the first choice
        sws, ports, note = _adaptive_route(g, s, t, a, b)
    else:
        _, sws, ports, classes = g.router.path(s, t, max(V, 2) if g.vc_rule == "escape" else 0)
    path = [topo.node_label(s)] + [topo.switch_label(int(x)) for x in sws] + [topo.node_label(t)]
    out = {
        "dependency": f"{channel_label(topo, a, V)} ⇒ {channel_label(topo, b, V)}",
        "src": topo.node_label(s),
        "dst": topo.node_label(t),
        "path": path,
        "ports": [int(p) for p in ports],
    }
    if classes is not None:
        out["vcs"] = [int(c) for c in classes]
    if note:
        out["note"] = note
    return out


def _adaptive_route(g, s, t, a, b):
    """(switches, ports, None) of an ``adaptive`` route from ``s`` to ``t`` through channel
    ``a`` then ``b`` (DFS over its candidates), or the first-choice route and a note when
    the search gives up (``WITNESS_SEARCH`` states)."""
    topo, V, layers = g.topo, g.vcs, g.layers
    N, R = topo.n_nodes, topo.max_ports
    out, scr = np.zeros(R + 1, np.int64), adaptive_scratch(topo)
    ar = adaptive_rule(g.router.view(), layers)
    todo = [(int(topo.node_switch[s]), -1, 1, 0, False, -1, False, [], [])]
    for _ in range(WITNESS_SEARCH):
        if not todo:
            break
        sw, prev, h, cls, down, c_in, hit, sws, ports = todo.pop()
        m = adaptive_ports(ar, AdaptiveAt(sw, prev, h, t, cls, down), out, scr)
        for p in reversed(out[:m].tolist()):  # the first choice searched first
            w = int(topo.port_peer[sw, p])
            c2, d2 = layer_step(ar.order, N, layers, sw, w, cls, down)
            c = (sw * R + p) * V + c2
            path = (sws + [sw], ports + [p])
            if w >= N:
                todo.append((w - N, sw, h + 1, c2, d2, c, hit or (c_in, c) == (a, b), *path))
            elif w == t and (hit or (c_in, c) == (a, b)):
                return *path, None
    _, sws, ports, _ = g.router.path(s, t)
    return sws, ports, "the pair's first-choice route: its alternative through it not searched"


def algorithms_for_deadlock(family: str, names: str) -> list[str]:
    """``"all"`` → every walkable fault-tolerant algorithm of the family; else the names."""
    algs = resolve_algorithms(names, family)
    if walk_of(family) is not None and names == "all":  # the paper walks (the generic: name them)
        algs = [a for a in algs if a.walked_on(family)]
    return [a.name for a in algs if not a.is_oracle]


__all__ = [
    "classes_bound",
    "ft_rank",
    "ft_vc",
    "route_vcs",
    "ft_deadlock",
    "ft_dependency_graph",
    "walk_vcs",
    "FTDeadlockReport",
    "FTDependencyGraph",
    "algorithms_for_deadlock",
    "VC_RULES",
]
