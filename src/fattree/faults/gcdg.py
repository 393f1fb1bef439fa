"""``deadlock --faults`` for the generic fault-tolerant algorithms (every family but MiKANT).

The channel dependency graph of every delivered node-to-node route under one fault set,
channels ``(sw * R + port) * V + vc`` as in :mod:`fattree.faults.cdg`. With one VC every
hop is on VC 0; with more, a hop's VC is its *up*/down* turn layer*
(:func:`fattree.faults.generic.turn_classes`): the orientation of the surviving graph
(highest topology level first, then BFS from the fault-free up*/down* root) and one more
class at every down→up turn. Inside a class every route is up* then down*, so each class
is acyclic and the whole graph is (φ = (class, channel order) climbs along every
dependency; Autonet, Dally & Seitz). Routes needing a layer ``>= V`` are refused and
counted. The report always gives the layers the delivered routes need
(``layers_needed``): 1 for ``updown-table`` by construction, and for ``shortest-table``
the VC layering it needs for deadlock freedom on that fault set.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..errors import ParameterError
from ..routing.deadlock import MAX_VCS, channel_label
from ..topology import Topology
from .algorithms import RULE_UPDOWN_T, check_model, resolve_algorithms
from .records import FTDeadlockReport, shortest_cycle
from .rules import one_vc_layered
from .generic import ft_walk_generic, turn_classes
from .gwalk import GenericRouter, table_route
from .kernel import OK


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
):
    """``stats``: [not delivered, refused, delivered, most turn layers - 1]."""
    port_peer = rt.port_peer
    N = rt.n_nodes
    node_switch = rt.node_switch
    R = port_peer.shape[1]
    cap = ttl + 2
    sw = np.empty(cap, np.int64)
    ports = np.empty(cap, np.int64)
    how = np.empty(cap, np.int64)
    vcs = np.zeros(cap, np.int64)
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
                    rt, rule, look, budget, ttl, stamp, 1, s, -1, t, sw, ports, how
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
            for i in range(nsw):
                c = (sw[i] * R + ports[i]) * V + vcs[i]
                used[c] = True
                if i + 1 < nsw:
                    j = ports[i + 1] * V + vcs[i + 1]
                    if wit[c, j] < 0:
                        wit[c, j] = s * N + t
    return 0


@njit(cache=True)
def _any_cycle(port_peer, N, V, wit, used):
    """Channels of one cycle of the dependency graph (empty: acyclic), iterative DFS."""
    S, R = port_peer.shape
    C = S * R * V
    RV = R * V
    colour = np.zeros(C, np.int8)
    stack = np.empty(C, np.int64)
    nxt = np.zeros(C, np.int64)
    for root in range(C):
        if not used[root] or colour[root] != 0:
            continue
        top = 0
        stack[0] = root
        colour[root] = 1
        nxt[root] = 0
        while top >= 0:
            c = stack[top]
            v = port_peer[(c // V) // R, (c // V) % R]
            advanced = False
            if v >= N:
                base = (v - N) * RV
                while nxt[c] < RV:
                    j = nxt[c]
                    nxt[c] += 1
                    if wit[c, j] < 0:
                        continue
                    d = base + j
                    if colour[d] == 1:
                        # the cycle is stack[k..top] from d
                        k = top
                        while stack[k] != d:
                            k -= 1
                        return stack[k : top + 1].copy()
                    if colour[d] == 0:
                        colour[d] = 1
                        nxt[d] = 0
                        top += 1
                        stack[top] = d
                        advanced = True
                        break
            if not advanced:
                colour[c] = 2
                top -= 1
    return np.empty(0, np.int64)


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
    if isinstance(vcs, bool) or not isinstance(vcs, (int, np.integer)) or not 1 <= vcs <= MAX_VCS:
        raise ParameterError(f"vcs={vcs!r} is invalid: expected an integer 1..{MAX_VCS}")
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
    if alg.is_oracle:
        raise ParameterError(
            "algorithm='oracle' is a bound (BFS on the surviving graph), not a "
            "routing function: it has no channel dependency graph"
        )
    g = GenericRouter(topo, alg, faulty, model)
    S, R = topo.port_peer.shape
    V = int(vcs) if layered else 1
    wit = np.full((S * R * V, R * V), -1, np.int64)
    used = np.zeros(S * R * V, np.bool_)
    stats = np.zeros(4, np.int64)
    classes = np.zeros(V + 1, np.int64)
    table = g.table if g.is_table else np.zeros((1, 1), np.int32)
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
    )
    N = topo.n_nodes
    rep = FTDeadlockReport(
        spec=topo.spec,
        algorithm=alg.name,
        model="global" if g.is_table else model,
        vcs=V,
        vc_rule="updown" if layered else "none",
        faulty_links=int(g.faulty.sum()),
        acyclic=True,
        channels=int(used.sum()),
        dependencies=int((wit >= 0).sum()),
        pairs=N * (N - 1),
        delivered=int(stats[2]),
        not_delivered=int(stats[0]),
        refused=int(stats[1]),
        classes=[int(c) for c in classes[:V]],
        classes_bound=1 if alg.rule == RULE_UPDOWN_T else None,
    )
    rep.layers_needed = int(stats[3]) + 1 if stats[2] else 0
    cyc = _any_cycle(topo.port_peer, N, V, wit, used)
    if cyc.size:
        short = shortest_cycle(topo.port_peer, N, V, wit >= 0, cyc)
        if short.size:
            cyc = short
        rep.acyclic = False
        rep.cycle = [channel_label(topo, int(c), V) for c in cyc]
        rep.cycle_ids = [int(c) for c in cyc]
        ring = [int(c) for c in cyc] + [int(cyc[0])]
        for a, b in zip(ring[:-1], ring[1:]):
            rep.routes.append(_witness(topo, g, wit, V, a, b))
    rep.seconds = time.perf_counter() - t0
    return rep


def _witness(topo, g, wit, V, a, b) -> dict:
    R = topo.max_ports
    s, t = divmod(int(wit[a, (b // V % R) * V + b % V]), topo.n_nodes)
    _, _, sws, ports, _ = g.route(s, t)
    path = [topo.node_label(s)] + [topo.switch_label(int(x)) for x in sws] + [topo.node_label(t)]
    return {
        "dependency": f"{channel_label(topo, a, V)} ⇒ {channel_label(topo, b, V)}",
        "src": topo.node_label(s),
        "dst": topo.node_label(t),
        "path": path,
        "ports": [int(p) for p in ports],
    }
