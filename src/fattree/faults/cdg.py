"""Channel dependency graphs of fault-tolerant routes and a deadlock-free VC rule (docs/mikant-routing.md §6).

A channel is a switch output port on one virtual channel, id ``(sw * R + port) * V + vc``
(the ids of ``fattree.routing.deadlock``, whose cycle finder is reused). The graph holds
the dependencies of every *delivered* node-to-node route of an algorithm under one fault
set (Dally & Seitz: an acyclic graph proves deadlock freedom).

The VC rule ``ft_vc`` (docs/faults-deadlock.md has the proof): every MiKANT channel gets a
rank — up from stage L: ``L``; a cross link from group g: ``n-2+g``, or ``n+g`` when it is
"straight" (keeps digit n-2); down from stage L (ejection at L = 0): ``2n+2-L`` — under
which every Algorithm-1 route strictly climbs. A hop whose rank does not exceed the rank
of the packet's previous hop (a *turn* against Algorithm 1's order: a detour's down→up, a
cross→cross turn, a misroute) moves the packet to the next VC class. The class never
decreases along a route and, inside a class, the rank strictly increases along every
dependency, so (class, rank) orders all channels: the graph is acyclic whatever the
algorithm and the fault set. A route that would need a class ≥ V is refused (counted,
never silently dropped). GNS and GDL turn once per detour, TT at most twice, XT three
times (:func:`classes_bound`).
"""

from __future__ import annotations

import time
from collections import namedtuple
from dataclasses import dataclass

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
    RULE_ADAPTIVE,
    RULE_UPDOWN_T,
    SPEC_NAMES,
    TT,
    UPALT,
    XT,
    check_model,
    resolve_algorithms,
)
from .generic import (
    AdaptiveAt,
    _layer_step,
    adaptive_ports,
    adaptive_scratch,
    ft_walk_generic,
    turn_classes,
)
from .gwalk import GenericRouter, table_route
from .mikant import OK, ft_rank, ft_vc, route_vcs
from .links import fault_mask
from .records import FTDeadlockReport, shortest_cycle
from .rules import one_vc_layered
from .walkloop import WalkIn, paper_walk, walk_route, walk_scratch
from .walks import walk_of

VC_RULES = ("none", "escape", "detour")


@njit(cache=True)
def _route_vcs(k, n, sw, ports, nsw, peer_port, rule, V, vcs, trace):
    """VC of every hop of one walk; -1 if the route needs a class >= V.

    rule 0: all on VC 0; 1: :func:`ft_vc`; 2 (``detour``, the naive escape channel,
    not deadlock-free): VC 1 from the first hop not chosen by Algorithm 1 to the end.
    """
    if rule == 1:
        return route_vcs(k, n, sw, ports, nsw, peer_port, V, vcs)  # classes never decrease
    top = 0
    for i in range(nsw):
        c = 0 if rule == 0 else (1 if top == 1 or trace[i, 0] != 0 else 0)
        if c >= V:
            return -1
        vcs[i] = c
        if c > top:
            top = c
    return top


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
def _ft_cdg(wk, w, peer_port, V, rule, cap, wit, used, stats, classes):
    """Dependencies of every delivered route; ``wit[c, q*V+v]`` = first pair ``s*N+t``.

    ``wk``, ``w``: the walk's context and inputs (``faults/walkloop.py``); ``stats``: [not
    delivered, refused (delivered, but needing a class >= V), delivered]; ``classes[j]``:
    routes in the graph whose highest class is j (all 0 with rule 0).
    """
    k, n = wk.k, wk.n
    N = 2 * k**n
    R = w.port_peer.shape[1]
    sw = np.empty(cap, np.int64)
    ports = np.empty(cap, np.int64)
    vcs = np.empty(cap, np.int64)
    trace = np.empty((cap, 4), np.int64)  # rule 2 reads how each hop was chosen
    scr = walk_scratch(wk)[1]
    for t in range(N):
        for s in range(N):
            if s == t:
                continue
            st, h, nsw = paper_walk(wk, w, s, -1, t, sw, ports, scr, trace)
            if st != OK:
                stats[0] += 1
                continue
            stats[2] += 1
            top = _route_vcs(k, n, sw, ports, nsw, peer_port, rule, V, vcs, trace)
            if top < 0:
                stats[1] += 1
                continue
            classes[top] += 1
            _add_route(sw, ports, vcs, nsw, R, V, s * N + t, wit, used)
    return 0


def classes_bound(algorithm: str, n: int) -> int | None:
    """VC classes that suffice for every route of ``algorithm`` on MiKANT(k, n) under the
    escape rule, whatever the faults (1 + the most turns a route can make); ``None`` for
    ``escape``, whose misroutes are bounded only by its hop limit, and for the generic
    kernel's ``minimal`` and ``detour`` (up*/down* turn layers, not the escape rule).

    Turns per detour (docs/faults-deadlock.md): GNS 1 (g2), GDL 1 (d2) at each of at most
    n-2 stages, TT ≤ 2, XT ≤ 3; UPALT's other root and ROOT's extra crossing detour add
    at most 1 and 3 + (crossing turns + 1).

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
    cross = 0
    if f & GNS and n >= 3:
        cross = 1
    if f & TT:
        cross = 2 if cross < 2 else cross
    if f & XT and n >= 3:
        cross = 3
    if f & ROOT:
        cross = 3 + cross + 1
    if f & UPALT:
        cross = max(1, cross + 1) if cross else 1
    down = max(n - 2, 0) if f & GDL else 0
    return 1 + cross + down


@dataclass
class FTDependencyGraph:
    """The channel dependency graph of :func:`ft_dependency_graph`."""

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

    @property
    def adj(self) -> np.ndarray:
        return self.wit >= 0

    def has(self, a: int, b: int) -> bool:
        """Is there a dependency from channel id a to channel id b?"""
        R, V = self.topo.max_ports, self.vcs
        sw, p = divmod(a // V, R)
        nxt = int(self.topo.port_peer[sw, p]) - self.topo.n_nodes
        b_sw, b_p = divmod(b // V, R)
        return nxt == b_sw and bool(self.wit[a, b_p * V + b % V] >= 0)

    def witness(self, a: int, b: int) -> tuple[int, int] | None:
        """The first (source, destination) whose route creates the dependency a → b."""
        R, V = self.topo.max_ports, self.vcs
        if not self.has(a, b):
            return None
        w = int(self.wit[a, (b // V % R) * V + b % V])
        return divmod(w, self.topo.n_nodes)


def _mikant(topo: Topology) -> tuple[int, int]:
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    walk = walk_of(topo.family)
    if walk is None or not walk.vc_classes:
        raise ParameterError(
            f"fault-tolerant channel dependency graphs of the escape rule are defined for "
            f"a walk with VC classes (mikant), not {topo.family!r} ({topo.spec})"
        )


def _check_vcs(vcs) -> None:
    if isinstance(vcs, bool) or not isinstance(vcs, (int, np.integer)) or not 1 <= vcs <= MAX_VCS:
        raise ParameterError(f"vcs={vcs!r} is invalid: expected an integer 1..{MAX_VCS}")


def _not_oracle(alg) -> None:
    if alg.is_oracle:
        raise ParameterError(
            "algorithm='oracle' is a bound (BFS on the surviving graph), not a "
            "routing function: it has no channel dependency graph"
        )


def _rule(vc_rule: str, vcs: int) -> int:
    if vc_rule == "auto":
        return 0 if vcs == 1 else 1
    if vc_rule not in VC_RULES:
        raise ParameterError(f"vc_rule={vc_rule!r} is invalid: one of auto, {', '.join(VC_RULES)}")
    return VC_RULES.index(vc_rule)


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
    _mikant(topo)
    check_model(model)
    _check_vcs(vcs)
    rule = _rule(vc_rule, int(vcs))
    (alg,) = resolve_algorithms([algorithm], topo.family)
    _not_oracle(alg)
    faulty = fault_mask(topo, faulty)
    S, R = topo.port_peer.shape
    V = int(vcs)
    wit = np.full((S * R * V, R * V), -1, np.int64)
    used = np.zeros(S * R * V, np.bool_)
    stats = np.zeros(3, np.int64)
    classes = np.zeros(max(V, 1) + 1, np.int64)
    wk = walk_of(topo.family).study(topo, "dimension")
    ip = walk_scratch(wk)[0]
    stamp = faulty.astype(np.int64)
    w = WalkIn(ip, topo.port_peer, topo.link_index, stamp, 1, alg.flags, model == "lookahead", 0, 0)
    cap = walk_of(topo.family).capacity(topo)
    _ft_cdg(wk, w, topo.port_peer_port, V, rule, cap, wit, used, stats, classes)
    return FTDependencyGraph(
        topo, alg.name, model, V, VC_RULES[rule], faulty, wit, used, stats, classes
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
    _mikant(topo)
    check_model(model)
    (alg,) = resolve_algorithms([algorithm], topo.family)
    stamp = np.asarray(faulty, bool).astype(np.int64)
    look = model == "lookahead"
    walk = walk_of(topo.family)
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
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    walk = walk_of(topo.family)
    walked = resolve_algorithms([algorithm], topo.family)[0].walked_on(topo.family)
    if walked and not walk.vc_classes:
        raise ParameterError(
            f"deadlock --faults: channel dependency graphs of fault-tolerant "
            f"routing are built for every family but {topo.family} (its cube ranks "
            f"are not defined), not {topo.family!r}"
        )
    if not walked:
        return generic_deadlock(  # the generic kernel: up*/down* turn layers
            topo,
            algorithm,
            faulty,
            model=model,
            vcs=vcs,
            vc_rule="updown" if vc_rule == "escape" and walk is not None else vc_rule,
        )
    g = ft_dependency_graph(topo, algorithm, faulty, model=model, vcs=vcs, vc_rule=vc_rule)
    rep = _report(
        topo,
        g.vcs,
        g.wit,
        g.used,
        g.stats,
        g.classes,
        lambda a, b: _witness_route(g, a, b),
        algorithm=g.algorithm,
        model=model,
        vc_rule=g.vc_rule,
        faulty_links=int(g.faulty.sum()),
        classes_bound=classes_bound(g.algorithm, int(topo.params["n"])),
    )
    rep.seconds = time.perf_counter() - t0
    return rep


def _report(topo, V, wit, used, stats, classes, witness, **fields) -> FTDeadlockReport:
    """The report of a channel dependency graph (``wit >= 0``: a dependency; ``stats``: not
    delivered, refused, delivered): acyclic, or the shortest cycle through the channels of
    the one found and, for each of its dependencies, the first route creating it
    (``witness(a, b)``)."""
    N = topo.n_nodes
    adj = wit >= 0
    rep = FTDeadlockReport(
        spec=topo.spec,
        vcs=V,
        acyclic=True,
        channels=int(used.sum()),
        dependencies=int(adj.sum()),
        pairs=N * (N - 1),
        delivered=int(stats[2]),
        not_delivered=int(stats[0]),
        refused=int(stats[1]),
        classes=[int(c) for c in classes[:V]],
        **fields,
    )
    cyc = find_cycle(topo.port_peer, N, V, adj, used)
    if not cyc.size:
        return rep
    short = shortest_cycle(topo.port_peer, topo.n_nodes, V, adj, cyc)
    if short.size:
        cyc = short
    rep.acyclic = False
    rep.cycle = [channel_label(topo, int(c), V) for c in cyc]
    rep.cycle_ids = [int(c) for c in cyc]
    ring = [int(c) for c in cyc] + [int(cyc[0])]
    for a, b in zip(ring[:-1], ring[1:]):
        rep.routes.append(witness(a, b))
    return rep


def _witness_route(g: FTDependencyGraph, a: int, b: int) -> dict:
    topo = g.topo
    dep = f"{channel_label(topo, a, g.vcs)} ⇒ {channel_label(topo, b, g.vcs)}"
    s, t = g.witness(a, b)
    _, sw, ports, vc = walk_vcs(topo, g.algorithm, s, t, g.faulty, model=g.model, vcs=max(g.vcs, 2))
    path = [topo.node_label(s)] + [topo.switch_label(x) for x in sw] + [topo.node_label(t)]
    out = {
        "dependency": dep,
        "src": topo.node_label(s),
        "dst": topo.node_label(t),
        "path": path,
        "ports": ports,
    }
    if g.vc_rule == "escape":
        out["vcs"] = vc
    return out


def algorithms_for_deadlock(family: str, names: str) -> list[str]:
    """``"all"`` → every walkable fault-tolerant algorithm of the family; else the names."""
    algs = resolve_algorithms(names, family)
    if walk_of(family) is not None and names == "all":  # the paper walks (the generic: name them)
        algs = [a for a in algs if a.walked_on(family)]
    return [a.name for a in algs if not a.is_oracle]


# ------------------------------------------------------------ the generic rules
# The generic rules (``deadlock --faults`` on every family but a walk with VC classes).
#
# The channel dependency graph of every delivered node-to-node route under one fault set,
# channels ``(sw * R + port) * V + vc`` as in :mod:`fattree.faults.cdg`. With one VC every
# hop is on VC 0; with more, a hop's VC is its *up*/down* turn layer*
# (:func:`fattree.faults.generic.turn_classes`): the orientation of the surviving graph
# (highest topology level first, then BFS from the fault-free up*/down* root) and one more
# class at every down→up turn. Inside a class every route is up* then down*, so each class
# is acyclic and the whole graph is (φ = (class, channel order) climbs along every
# dependency; Autonet, Dally & Seitz). Routes needing a layer ``>= V`` are refused and
# counted. The report always gives the layers the delivered routes need
# (``layers_needed``): 1 for ``updown-table`` by construction, and for ``shortest-table``
# the VC layering it needs for deadlock freedom on that fault set.


@njit(cache=True)
def _g_cdg(
    rt,
    rule,
    look,
    budget,
    ttl,
    stamp,
    table,
    use_table,
    order,
    V,
    layered,
    wit,
    used,
    stats,
    classes,
    ad,
):
    """``stats``: [not delivered, refused, delivered, most turn layers - 1]; ``ad``:
    the adaptive rule's scratch (:class:`Adaptive`)."""
    port_peer = rt.port_peer
    N = rt.n_nodes
    node_switch = rt.node_switch
    R = port_peer.shape[1]
    cap = ttl + 2
    sw = np.empty(cap, np.int64)
    ports = np.empty(cap, np.int64)
    how = np.empty(cap, np.int64)
    vcs = np.zeros(cap, np.int64)
    scratch = np.empty(4 * (R + 1) + 4, np.int64)  # generic_scratch
    for t in range(N):
        for s in range(N):
            if s == t:
                continue
            if use_table:
                st, h, nsw = table_route(
                    table, port_peer, node_switch, stamp, N, s, -1, t, sw, ports
                )
            else:
                st, h, nsw = ft_walk_generic(
                    rt, rule, look, budget, ttl, stamp, 1, s, -1, t, sw, ports, how, scratch
                )
            if st != OK:
                stats[0] += 1
                continue
            stats[2] += 1
            top = turn_classes(port_peer, N, order, sw, ports, nsw, vcs)
            if top > stats[3]:
                stats[3] = top
            if not layered:
                vcs[:nsw] = 0
                top = 0
            elif top < 0 or top >= V:
                stats[1] += 1
                continue
            classes[top] += 1
            if rule == RULE_ADAPTIVE:
                _adaptive_deps(ad.rule, s, t, ad)
            else:
                _add_route(sw, ports, vcs, nsw, R, V, s * N + t, wit, used)
    return 0


Adaptive = namedtuple("Adaptive", "rule wit used seen stack out scratch")
Adaptive.__doc__ = (
    "The adaptive rule's graph: its AdaptiveRule, the dependency witnesses and used "
    "channels of the graph, "
    "the generation at which each (channel, hops) state was reached, a DFS stack of "
    "(switch, previous, hops, layer, last hop down, channel) rows, the candidates' buffer "
    "and :func:`fattree.faults.generic.adaptive_scratch`."
)


@njit(cache=True)
def _adaptive_deps(ar, s, t, ad):
    """Every dependency of the ``adaptive`` rule's routes from node ``s`` to ``t``: from
    each state a packet can reach, every candidate the simulator's allocator may take
    (:func:`fattree.faults.generic.adaptive_ports`; ``ar.layers`` turn layers, 0: one VC,
    not layered), so the graph holds all of its routes, not only its first choice."""
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
            c2, d2 = _layer_step(ar.order, N, ar.layers, sw, w, cls, down)
            if c2 >= V:  # (never: a candidate's onward walk fits the layers)
                continue
            c = (sw * R + p) * V + c2
            ad.used[c] = True
            if c_in >= 0 and ad.wit[c_in, p * V + c2] < 0:
                ad.wit[c_in, p * V + c2] = pair
            if w < N or ad.seen[c, h + 1] == gen:
                continue
            ad.seen[c, h + 1] = gen
            top += 1
            st[top, 0], st[top, 1], st[top, 2] = w - N, sw, h + 1
            st[top, 3], st[top, 4], st[top, 5] = c2, np.int64(d2), c
    return 0


def generic_deadlock(
    topo: Topology,
    algorithm: str,
    faulty=None,
    *,
    model: str = "local",
    vcs: int = 1,
    vc_rule: str = "auto",
) -> FTDeadlockReport:
    """Channel dependency graph of every delivered route of a generic fault-tolerant
    algorithm under ``faulty``: acyclic, or one shortest cycle and the routes creating it.

    Parameters
    ----------
    topo : Topology
        Any family but mikant/mikantc (those: :func:`fattree.faults.cdg.ft_deadlock`).
    algorithm : str
        ``sp``, ``minimal``, ``detour``, ``updown-table`` or ``shortest-table``.
    faulty : bool (E,) over ``topo.links``, optional
    model : {"local", "lookahead"}
    vcs : int
        Virtual channels per link, 1..8.
    vc_rule : {"auto", "none", "updown"}
        ``none``: every hop on VC 0; ``updown`` (``escape`` accepted): the up*/down* turn
        layer of each hop (routes needing ``>= vcs`` layers are refused and counted);
        ``auto``: ``updown`` with more than one VC, and with one VC on the families whose
        rules say so (fat trees, :func:`fattree.faults.rules.one_vc_layered`: the rule the
        simulator applies), else ``none``.

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("torus:k=4,n=2")
    >>> r = generic_deadlock(t, "sp")
    >>> r.acyclic, r.layers_needed >= 2
    (False, True)
    >>> r2 = generic_deadlock(t, "shortest-table", vcs=r.layers_needed)
    >>> r2.acyclic, r2.refused
    (True, 0)

    References
    ----------
    Dally & Seitz, IEEE TC 36(5), 1987; Schroeder et al., Autonet (1991); docs/faults.md.
    """
    t0 = time.perf_counter()
    check_model(model)
    _check_vcs(vcs)
    rules = {
        "auto": vcs > 1 or one_vc_layered(topo.family),
        "none": False,
        "updown": True,
        "escape": True,
    }
    if vc_rule not in rules:
        raise ParameterError(f"vc_rule={vc_rule!r} is invalid: one of auto, none, updown")
    layered = rules[vc_rule]
    (alg,) = resolve_algorithms([algorithm], topo.family)
    _not_oracle(alg)
    g = GenericRouter(topo, alg, faulty, model)
    S, R = topo.port_peer.shape
    V = int(vcs) if layered else 1
    wit = np.full((S * R * V, R * V), -1, np.int64)
    used = np.zeros(S * R * V, np.bool_)
    stats = np.zeros(4, np.int64)
    classes = np.zeros(V + 1, np.int64)
    table = g.table if g.is_table else np.zeros((1, 1), np.int32)
    stack = S * R * V * (g.ctx.ttl + 2) if alg.rule == RULE_ADAPTIVE else 1
    adaptive = alg.rule == RULE_ADAPTIVE  # (else a record of the right types, never read)
    memo = None if adaptive else np.zeros((1, 1), np.int32)
    ad = Adaptive(
        g.adaptive_rule(V if layered else 0, memo),
        wit,
        used,
        np.zeros((S * R * V, g.ctx.ttl + 2) if stack > 1 else (1, 1), np.int64),
        np.zeros((stack, 6), np.int64),
        np.zeros(R + 1, np.int64),
        adaptive_scratch(topo),
    )
    _g_cdg(
        g.ctx.rt,
        alg.rule,
        model == "lookahead",
        g.ctx.budget,
        g.ctx.ttl,
        g.stamp,
        table,
        g.is_table,
        g.order,
        V,
        layered,
        wit,
        used,
        stats,
        classes,
        ad,
    )
    rep = _report(
        topo,
        V,
        wit,
        used,
        stats,
        classes,
        lambda a, b: _witness(topo, g, wit, V, a, b, V if layered else 0),
        algorithm=alg.name,
        model="global" if g.is_table else model,
        vc_rule="updown" if layered else "none",
        faulty_links=int(g.faulty.sum()),
        classes_bound=1 if alg.rule == RULE_UPDOWN_T else None,
    )
    rep.layers_needed = int(stats[3]) + 1 if stats[2] else 0
    rep.seconds = time.perf_counter() - t0
    return rep


def _witness(topo, g, wit, V, a, b, layers) -> dict:
    R = topo.max_ports
    s, t = divmod(int(wit[a, (b // V % R) * V + b % V]), topo.n_nodes)
    note = None
    if g.alg.rule == RULE_ADAPTIVE:  # the route through the dependency, not the first choice
        sws, ports, note = _adaptive_route(topo, g, s, t, a, b, V, layers)
    else:
        _, _, sws, ports, _ = g.route(s, t)
    path = [topo.node_label(s)] + [topo.switch_label(int(x)) for x in sws] + [topo.node_label(t)]
    out = {
        "dependency": f"{channel_label(topo, a, V)} ⇒ {channel_label(topo, b, V)}",
        "src": topo.node_label(s),
        "dst": topo.node_label(t),
        "path": path,
        "ports": [int(p) for p in ports],
    }
    if note:
        out["note"] = note
    return out


def _adaptive_route(topo, g, s, t, a, b, V, layers):
    """A route of the ``adaptive`` rule from node ``s`` to ``t`` that takes channel ``a``
    then ``b`` (a depth-first search over its candidates, as :func:`_adaptive_deps`
    explores them): its switches, ports and None, or the first-choice route and a note
    when the search gives up (``WITNESS_SEARCH`` states)."""
    N, R = topo.n_nodes, topo.max_ports
    out, scr = np.zeros(R + 1, np.int64), adaptive_scratch(topo)
    ar = g.adaptive_rule(layers)
    todo = [(int(topo.node_switch[s]), -1, 1, 0, False, -1, False, [], [])]
    for _ in range(WITNESS_SEARCH):
        if not todo:
            break
        sw, prev, h, cls, down, c_in, hit, sws, ports = todo.pop()
        m = adaptive_ports(ar, AdaptiveAt(sw, prev, h, t, cls, down), out, scr)
        for p in reversed(out[:m].tolist()):  # the first choice searched first
            w = int(topo.port_peer[sw, p])
            c2, d2 = _layer_step(g.order, N, layers, sw, w, cls, down)
            c = (sw * R + p) * V + c2
            path = (sws + [sw], ports + [p])
            if w >= N:
                todo.append((w - N, sw, h + 1, c2, d2, c, hit or (c_in, c) == (a, b), *path))
            elif w == t and (hit or (c_in, c) == (a, b)):
                return *path, None
    _, _, sws, ports, _ = g.route(s, t)
    return sws, ports, "the pair's first-choice route: its alternative through it not searched"


WITNESS_SEARCH = 100_000  # states searched for a route of the adaptive rule


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
    "generic_deadlock",
    "VC_RULES",
]
