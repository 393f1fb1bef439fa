"""Channel load of a routing algorithm under a traffic pattern, exactly from the routes.

γ(c) is the expected number of flits per cycle crossing channel c when every node
injects one flit per cycle (uniform: spread over all other nodes; permutations:
to its image). Random and adaptive routings split each packet evenly over their
candidates (for ``random`` that is its exact expectation; for ``adaptive`` the
even split stands in for "least occupied"). The busiest channel caps the accepted
rate at ``1/γ_max`` of the injection bandwidth, whatever the buffers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..topology.core import PORT_CUBE, PORT_DOWN, PORT_NODE, PORT_UP, Topology
from ._load import EVAL_HOME, EVAL_PAIR, EVAL_SPLIT, MODE_TABLE, MODE_UNIFORM, _load_kernel
from .check import _diameter_bound, fail_mask
from .compiled import CompiledRouting, compile_routing

_DIRS = {PORT_NODE: "eject", PORT_DOWN: "down", PORT_UP: "up", PORT_CUBE: "cube"}


@dataclass
class LoadReport:
    """Result of :func:`channel_load`. ``gamma[sw, port]`` is the load of the switch's
    output channel, ``inject[s]`` that of node s's link into the network."""

    spec: str
    algorithm: str
    traffic: str
    offered: float
    delivered: float
    gamma_max: float
    bound: float
    busiest: list[tuple[str, float]]
    mean_hops: float
    by_class: list[dict]
    evaluation: str
    gamma: np.ndarray = field(repr=False, default=None)
    inject: np.ndarray = field(repr=False, default=None)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k not in ("gamma", "inject")}
        d["bound"] = None if not np.isfinite(self.bound) else self.bound
        return d


def _traffic_weights(traffic: str, n: int, seed: int, topology=None):
    from ..traffic.patterns import T_HOTSPOT, T_TABLE, T_UNIFORM, Traffic, make_traffic

    # a pattern the caller bound already (the simulator's setup) is not bound again
    tr = (
        traffic
        if isinstance(traffic, Traffic)
        else make_traffic(traffic, n, seed, topology=topology)
    )
    perm = np.zeros(1, np.int64)
    hot, hot_w = -1, 0.0
    if tr.code == T_TABLE:
        return tr.spec, MODE_TABLE, 0.0, hot, hot_w, np.array(tr.table[:n], np.int64)
    if tr.code == T_UNIFORM:
        uni = 1.0 / n if tr.options.get("include_self") else 1.0 / (n - 1)
        return tr.spec, MODE_UNIFORM, uni, hot, hot_w, perm
    if tr.code == T_HOTSPOT:
        f = float(tr.options["fraction"])
        return tr.spec, MODE_UNIFORM, (1 - f) / (n - 1), int(tr.iparams[0]), f, perm
    raise ParameterError(
        f"traffic={traffic!r} is invalid for channel load: a rate pattern is "
        f"needed (uniform, hotspot or a permutation such as bitcomp), not a trace"
    )


def port_directions(topo: Topology) -> np.ndarray:
    """(S, R) direction names of every port: eject, down, up, cross (MiKANT's links
    between the groups, up at both ends), cube, or '' (unused)."""
    kind = topo.port_kind
    out = np.full(kind.shape, "", dtype=object)
    for k, name in _DIRS.items():
        out[kind == k] = name
    N = topo.n_nodes
    s, p = np.nonzero(kind == PORT_UP)
    peer = topo.port_peer[s, p].astype(np.int64) - N
    ok = peer >= 0
    back = topo.port_peer_port[s[ok], p[ok]]
    cross = topo.port_kind[peer[ok], back] == PORT_UP
    out[s[ok][cross], p[ok][cross]] = "cross"
    return out


def channel_load(
    topo: Topology,
    algorithm: str | CompiledRouting | None = None,
    traffic="uniform",
    *,
    seed: int = 0,
    failed_links=None,
) -> LoadReport:
    """Expected load of every channel per unit injection rate, and the throughput bound.

    Parameters
    ----------
    topo : Topology
    algorithm : str or CompiledRouting, optional
    traffic : str or Traffic
        A pattern of :mod:`fattree.traffic`, as a spec or bound to ``topo``'s nodes
        (:func:`~fattree.traffic.make_traffic`): (``uniform``, ``bitcomp``, ``bitrev``,
        ``transpose``, ``shuffle``, ``tornado``, ``neighbor``, ``randperm``,
        ``hotspot``, ``alltoone``).
    seed : int
        Seed of ``random`` routing and of ``randperm``.
    failed_links : bool (E,) or link ids, optional

    Returns
    -------
    LoadReport

    Examples
    --------
    >>> import fattree
    >>> from fattree.routing.load import channel_load
    >>> t = fattree.build("kant:k=4,n=3")
    >>> a, d = channel_load(t, "alg1"), channel_load(t, "dmodk")
    >>> round(a.gamma_max, 3), round(d.gamma_max, 3)
    (3.81, 1.0)

    References
    ----------
    W. Dally, B. Towles, *Principles and Practices of Interconnection Networks*,
    §3.3 (channel load, ideal throughput); 000 §V.B (uniform, bit inversion).
    """
    t0 = time.perf_counter()
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    cr = (
        algorithm
        if isinstance(algorithm, CompiledRouting)
        else compile_routing(topo, algorithm, seed)
    )
    name, mode, uni, hot, hot_w, perm = _traffic_weights(traffic, topo.n_nodes, seed, topo)
    run = cr
    if cr.adaptive or cr.support:
        run = cr if cr.adaptive else compile_routing(topo, cr.support, cr.seed)
        if not run.minimal:
            raise ParameterError(
                f"algorithm={cr.algorithm!r}: channel load splits adaptive "
                f"choices along shortest paths only; this algorithm is not minimal"
            )
        how, how_name = EVAL_SPLIT, f"even split over {run.algorithm}'s candidates"
    elif cr.per_packet:
        how, how_name = EVAL_PAIR, "one route per pair"
    else:
        how, how_name = EVAL_HOME, "one route per (source switch, destination)"
    fail = fail_mask(topo, failed_links)
    S, R = topo.port_peer.shape
    load = np.zeros((S, R), np.float64)
    inject = np.zeros(topo.n_nodes, np.float64)
    stats = np.zeros(4, np.float64)
    _load_kernel(
        run.code,
        run.iparams,
        run.table,
        topo.port_peer,
        topo.port_peer_port,
        fail,
        topo.n_nodes,
        topo.node_switch,
        topo.node_port,
        how,
        mode,
        uni,
        hot,
        hot_w,
        perm,
        4 * _diameter_bound(topo, fail) + 8,
        load,
        inject,
        stats,
    )
    if stats[3]:
        raise ParameterError(
            f"algorithm={cr.algorithm!r} offered a candidate off the shortest "
            f"paths; its load cannot be split exactly"
        )
    dirs = port_directions(topo)
    gmax = float(max(load.max(initial=0.0), inject.max(initial=0.0)))
    flat = np.argsort(load, axis=None)[::-1][:5]
    busiest = [
        (
            f"{topo.switch_label(int(s))}→{topo.vertex_label(int(topo.port_peer[s, p]))}",
            float(load[s, p]),
        )
        for s, p in zip(*np.unravel_index(flat, load.shape))
        if load[s, p] > 0
    ]
    delivered = float(stats[1])
    return LoadReport(
        spec=topo.spec,
        algorithm=cr.algorithm,
        traffic=name,
        offered=float(stats[0]),
        delivered=delivered,
        gamma_max=gmax,
        bound=1.0 / gmax if gmax > 0 else float("inf"),
        busiest=busiest,
        mean_hops=(load.sum() + delivered) / delivered if delivered else 0.0,
        by_class=_by_class(topo, load, inject, dirs),
        evaluation=how_name,
        gamma=load,
        inject=inject,
        seconds=time.perf_counter() - t0,
    )


def _by_class(topo, load, inject, dirs) -> list[dict]:
    used = topo.port_peer >= 0
    lv = np.broadcast_to(topo.switch_level[:, None], load.shape)[used].astype(np.int64)
    dn = dirs[used].astype(str)
    g = load[used]
    rows = [
        {
            "level": "node",
            "direction": "inject",
            "channels": int(inject.size),
            "mean": float(inject.mean()),
            "max": float(inject.max(initial=0.0)),
        }
    ]
    keys = np.char.add(np.char.add(lv.astype(str), "|"), dn)
    uniq, inv = np.unique(keys, return_inverse=True)
    for i, key in enumerate(uniq.tolist()):
        m = inv == i
        level, direction = key.split("|")
        rows.append(
            {
                "level": int(level),
                "direction": direction,
                "channels": int(m.sum()),
                "mean": float(g[m].mean()),
                "max": float(g[m].max()),
            }
        )
    order = {"inject": 0, "up": 1, "cross": 2, "cube": 3, "down": 4, "eject": 5}
    head, rest = rows[:1], rows[1:]
    rest.sort(
        key=lambda r: (
            order.get(r["direction"], 9) >= 4,
            r["level"] if order.get(r["direction"], 9) < 4 else -r["level"],
            order.get(r["direction"], 9),
        )
    )
    return head + rest


def carried_bound(topo: Topology, cr: CompiledRouting, table, load: float) -> float | None:
    """Most that fixed routes can carry of a permutation at an offered load, per source.

    ``1/γ_max`` is the load at which the busiest channel of a pattern saturates; past it,
    the rate *averaged over the sources* (what a simulator reports) can still grow, since
    sources off the busiest channels keep delivering. This bounds that average: every flow
    ``s -> table[s]`` is assigned to the most shared channel of its route (ties: the
    lowest channel id); the flows of one channel together carry at most 1 flit per cycle,
    each at most ``load``, so the sources carry at most
    ``sum over channels of min(1, load x flows there) / active sources``.

    Parameters
    ----------
    topo : Topology
    cr : CompiledRouting
        A single-path routing (None is returned for adaptive or randomised routing,
        whose flows split).
    table : int array (N,)
        The permutation: ``table[s]`` is the destination of ``s`` (``s`` itself: idle).
    load : float
        Offered load per source, flits per cycle.

    Returns
    -------
    float or None
        Flits per active source per cycle.

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("kant:k=2,n=2")
    >>> cr = compile_routing(t, "dmodk")
    >>> carried_bound(t, cr, np.array([1, 0, 3, 2]), 0.5)
    0.5

    References
    ----------
    Dally & Towles 2004, §3.3 (channel load); docs/sweeps.md (the equal-cost study).
    """
    from .walk import route

    if cr.adaptive or cr.support is not None:
        return None
    table = np.asarray(table, np.int64)
    srcs = [s for s in range(len(table)) if table[s] != s]
    if not srcs:
        return None
    paths = []
    count: dict = {}
    for s in srcs:
        r = route(topo, cr, int(s), int(table[s]))
        if not r.delivered:
            return None
        R = topo.port_peer.shape[1]  # channel ids: -1-s for s's injection link, w*R+p
        chans = [-1 - int(s)] + [int(w) * R + int(p) for w, p in zip(r.switches, r.ports)]
        paths.append(chans)
        for c in chans:
            count[c] = count.get(c, 0) + 1
    groups: dict = {}
    for chans in paths:
        busiest = max(chans, key=lambda c: (count[c], -c))
        groups[busiest] = groups.get(busiest, 0) + 1
    total = sum(min(1.0, load * n) for n in groups.values())
    return total / len(srcs)
