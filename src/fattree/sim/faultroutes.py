"""Every (src, dst) route of a fault-tolerant algorithm under one fault set, as a table.

The simulator no longer reads this table: it routes hop by hop (:mod:`fattree.sim.faulthop`).
The table remains for small networks (N <= ``FT_MAX_NODES``) as the independent side of
the checks: the pure-Python reference simulator follows it, so kernel = reference checks
the hop-by-hop kernel against every pair's walk, and :func:`fault_load_bound` checks
:func:`~fattree.sim.faulthop.router_load_bound`.

For a fixed fault set the walks of :mod:`fattree.faults` are deterministic per pair
(``ft_walk`` takes no random input; ``mikantc_walk`` with the dimension-order tie-break
neither), so each route is stored as the output port taken at each switch (and, with
``vcs > 1``, the VC class of each hop by :func:`fattree.faults.cdg.route_vcs`).
A pair whose walk fails is *unroutable*, one whose walk hits the hop limit is a
*livelock*; a route needing a VC class ``>= vcs`` is refused and unroutable (as
``fattree deadlock`` counts it). See docs/simulator.md ("Faults", "Reference").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import ParameterError, ResourceError
from ..faults.algorithms import (
    FT_ALGORITHMS,
    MIKANT_FAMILIES,
    TABLE_RULES,
    check_model,
    resolve_algorithms,
)
from ..faults.cdg import route_vcs
from ..faults.generic import ft_walk_generic, turn_classes
from ..faults.gwalk import GenericRouter, table_route
from ..faults.kernel import OK, TTL, ft_walk
from ..faults.mikantc import walk_capacity, cube_tables, mikantc_walk
from ..faults.rules import default_ft_algorithm, one_vc_layered
from ..routing.shared import pair_weight

FT_MAX_NODES = 4096  # N^2 walks and an N^2 x hops int8 table beyond this: refused
FT_TABLE_MAX = 1 << 30  # bytes of the port and VC tables together
FS_OK, FS_UNROUTABLE, FS_LIVELOCK = 0, 1, 2
# every family with a fault-tolerant algorithm (all of them: faults/algorithms.py)
FAMILIES = tuple(sorted({f for _, a in FT_ALGORITHMS.items() for f in a.families}))


@dataclass
class FaultRoutes:
    """The route table of one fault set (row ``src * N + dst``)."""

    algorithm: str
    faulty: np.ndarray  # bool over topo.links
    ports: np.ndarray  # (N*N, L) int8: output port at the i-th switch (-1 past the end)
    vcs: np.ndarray  # (N*N, L) int8 VC class of each hop (all 0 with one VC)
    status: np.ndarray  # (N*N,) int8: FS_OK, FS_UNROUTABLE, FS_LIVELOCK
    model: str = "local"  # knowledge model of the walks (mikant-routing-spec.md §3.0)

    @property
    def n_unroutable_pairs(self) -> int:
        return int((self.status == FS_UNROUTABLE).sum())

    @property
    def n_livelock_pairs(self) -> int:
        return int((self.status == FS_LIVELOCK).sum())


@njit(cache=True)
def _walk(
    family,
    k,
    n,
    codes,
    cpos,
    near,
    outer,
    port_peer,
    link_index,
    stamp,
    flags,
    look,
    s,
    t,
    sw,
    ports,
):
    if family == 0:
        return ft_walk(k, n, port_peer, link_index, stamp, 1, flags, look, s, -1, t, sw, ports)
    return mikantc_walk(
        k,
        n,
        codes,
        cpos,
        near,
        outer,
        port_peer,
        link_index,
        stamp,
        1,
        flags,
        False,
        0,
        s * (2 * k**n) + t,
        s,
        -1,
        t,
        sw,
        ports,
    )


@njit(cache=True)
def _lengths(
    family,
    k,
    n,
    codes,
    cpos,
    near,
    outer,
    port_peer,
    link_index,
    stamp,
    flags,
    look,
    N,
    cap,
    status,
    length,
):
    sw = np.empty(cap, np.int64)
    ports = np.empty(cap, np.int64)
    for s in range(N):
        for t in range(N):
            st, _, nsw = _walk(
                family,
                k,
                n,
                codes,
                cpos,
                near,
                outer,
                port_peer,
                link_index,
                stamp,
                flags,
                look,
                s,
                t,
                sw,
                ports,
            )
            r = s * N + t
            status[r] = FS_OK if st == OK else (FS_LIVELOCK if st == TTL else FS_UNROUTABLE)
            length[r] = nsw if st == OK else 0
    return 0


@njit(cache=True)
def _fill(
    family,
    k,
    n,
    codes,
    cpos,
    near,
    outer,
    port_peer,
    peer_port,
    link_index,
    stamp,
    flags,
    look,
    N,
    cap,
    V,
    status,
    out_ports,
    out_vcs,
):
    sw = np.empty(cap, np.int64)
    ports = np.empty(cap, np.int64)
    vcs = np.zeros(cap, np.int64)
    for s in range(N):
        for t in range(N):
            r = s * N + t
            if status[r] != FS_OK:
                continue
            st, _, nsw = _walk(
                family,
                k,
                n,
                codes,
                cpos,
                near,
                outer,
                port_peer,
                link_index,
                stamp,
                flags,
                look,
                s,
                t,
                sw,
                ports,
            )
            if V > 1 and route_vcs(k, n, sw, ports, nsw, peer_port, V, vcs) < 0:
                status[r] = FS_UNROUTABLE  # needs a class >= V: refused (cdg.py's rule)
                continue
            for i in range(nsw):
                out_ports[r, i] = ports[i]
                out_vcs[r, i] = vcs[i] if V > 1 else 0
    return 0


def fault_routes(
    topo, algorithm: str | None, faulty: np.ndarray, vcs: int = 1, model: str = "local"
) -> FaultRoutes:
    """Every node-to-node route of a fault-tolerant algorithm under ``faulty``.

    Parameters
    ----------
    topo : Topology
        A mikant or mikantc network with at most ``FT_MAX_NODES`` nodes.
    algorithm : str
        A name of :data:`fattree.faults.FT_ALGORITHMS` defined for the family (not oracle).
    faulty : bool array over ``topo.links``
    vcs : int
        1: every hop on VC 0 (the papers' routes, deadlocks possible); more (mikant
        only): the escape classes of :func:`fattree.faults.cdg.ft_vc`, deadlock-free.
    model : {"local", "lookahead"}
        Knowledge model of the walks (``lookahead``: mikant only).

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("mikant:k=2,n=2")
    >>> fr = fault_routes(t, "gns", np.zeros(t.n_links, bool))
    >>> fr.n_unroutable_pairs, fr.ports.shape
    (0, (64, 3))

    References
    ----------
    001 §4.2 (detours), 004 Algorithm 1; mikant-routing-spec.md §6 (VC classes).
    """
    if topo.family not in FAMILIES:
        raise ParameterError(
            f"faults in the simulator are defined for {', '.join(FAMILIES)}, "
            f"not {topo.family!r} ({topo.spec})"
        )
    valid = ", ".join(n for n, a in _algs(topo.family))
    if algorithm is None:  # --fault-rate alone: the family's default fault-tolerant algorithm
        algorithm = default_ft_algorithm(topo.family)
    try:
        (alg,) = resolve_algorithms([algorithm], topo.family)
    except ParameterError:  # the simulator's own list (no oracle)
        raise ParameterError(
            f"algorithm {algorithm!r} is not defined for family {topo.family!r}; valid: "
            f"{valid} (what the simulator routes: the oracle is a bound)"
        ) from None
    if alg.is_oracle:
        raise ParameterError(
            f"algorithm='oracle' is a bound, not a routing; valid for {topo.family}: {valid}"
        )
    check_model(model)
    if topo.family == "mikantc" and model != "local":
        raise ParameterError(
            f"fault_model={model!r} is not defined for mikantc: only 'local' "
            f"(004's Algorithm 1 is local)"
        )
    if topo.family == "mikantc" and vcs > 1:
        raise ParameterError(
            f"vcs={vcs} with faults: the deadlock-free VC classes (ft_vc) are "
            f"defined for mikant only; use vcs=1 on {topo.spec}"
        )
    N = topo.n_nodes
    if N > FT_MAX_NODES:
        raise ResourceError(
            f"faults in the simulator precompute all N^2 routes: {topo.spec} has "
            f"{N:,} nodes, at most {FT_MAX_NODES:,} (FT_MAX_NODES)"
        )
    faulty = np.asarray(faulty, bool)
    if faulty.shape != (topo.n_links,):
        raise ParameterError(f"faulty has shape {faulty.shape}, expected ({topo.n_links},)")
    if topo.family not in MIKANT_FAMILIES or alg.rule in TABLE_RULES:
        return _generic_routes(topo, alg, faulty, int(vcs), model)
    k, n = int(topo.params["k"]), int(topo.params["n"])
    if topo.family == "mikant":
        fam, cap = 0, 20 * n + 40 + 4 * n * (2 * n + 6)
        codes = cpos = near = outer = np.zeros(1, np.int64)
    else:
        tb = cube_tables(topo)
        fam, cap = 1, walk_capacity(k, n)
        codes, cpos, near, outer = tb.codes, tb.cpos, tb.near, tb.outer
    stamp = faulty.astype(np.int64)
    status = np.zeros(N * N, np.int8)
    length = np.zeros(N * N, np.int64)
    common = (fam, k, n, codes, cpos, near, outer, topo.port_peer)
    look = model == "lookahead"
    _lengths(*common, topo.link_index, stamp, alg.flags, look, N, cap, status, length)
    L = max(int(length.max()), 1)
    need = 2 * N * N * L
    if need > FT_TABLE_MAX:
        raise ResourceError(
            f"the fault route table of {topo.spec} needs {need / 2**20:.0f} MiB; "
            f"at most {FT_TABLE_MAX / 2**20:.0f} MiB (FT_TABLE_MAX)"
        )
    ports = np.full((N * N, L), -1, np.int8)
    vcs_t = np.zeros((N * N, L), np.int8)
    _fill(
        *common,
        topo.port_peer_port.astype(np.int64),
        topo.link_index,
        stamp,
        alg.flags,
        look,
        N,
        cap,
        int(vcs),
        status,
        ports,
        vcs_t,
    )
    return FaultRoutes(alg.name, faulty, ports, vcs_t, status, model)


@njit(cache=True)
def _gwalk(rt, rule, look, budget, ttl, stamp, table, use_table, s, t, sw, ports, how):
    if use_table:
        return table_route(table, rt[7], rt[10], stamp, rt[9], s, -1, t, sw, ports)
    return ft_walk_generic(rt, rule, look, budget, ttl, stamp, 1, s, -1, t, sw, ports, how)


@njit(cache=True)
def _glengths(rt, rule, look, budget, ttl, stamp, table, use_table, status, length):
    N = rt[9]
    cap = ttl + 2
    sw = np.empty(cap, np.int64)
    ports = np.empty(cap, np.int64)
    how = np.empty(cap, np.int64)
    for s in range(N):
        for t in range(N):
            st, _, nsw = _gwalk(
                rt, rule, look, budget, ttl, stamp, table, use_table, s, t, sw, ports, how
            )
            r = s * N + t
            status[r] = FS_OK if st == OK else (FS_LIVELOCK if st == TTL else FS_UNROUTABLE)
            length[r] = nsw if st == OK else 0
    return 0


@njit(cache=True)
def _gfill(
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
    layer1,
    status,
    out_ports,
    out_vcs,
):
    N = rt[9]
    cap = ttl + 2
    sw = np.empty(cap, np.int64)
    ports = np.empty(cap, np.int64)
    how = np.empty(cap, np.int64)
    vcs = np.zeros(cap, np.int64)
    for s in range(N):
        for t in range(N):
            r = s * N + t
            if status[r] != FS_OK:
                continue
            st, _, nsw = _gwalk(
                rt, rule, look, budget, ttl, stamp, table, use_table, s, t, sw, ports, how
            )
            if V > 1 or layer1:
                top = turn_classes(rt[7], N, order, sw, ports, nsw, vcs)
                if top < 0 or top >= V:
                    status[r] = FS_UNROUTABLE  # needs a layer >= V: refused (gcdg's rule)
                    continue
            for i in range(nsw):
                out_ports[r, i] = ports[i]
                out_vcs[r, i] = vcs[i] if V > 1 else 0
    return 0


def _generic_routes(topo, alg, faulty, vcs: int, model: str) -> FaultRoutes:
    """The route table of a generic algorithm (faults/generic.py); with ``vcs > 1`` each
    hop's VC is its up*/down* turn layer (deadlock-free, ``fattree.faults.gcdg``); with one
    VC on the fat trees (``one_vc_layered``) a route with a down->up turn is refused."""
    g = GenericRouter(topo, alg, faulty, model)
    N = topo.n_nodes
    table = g.table if g.is_table else np.zeros((1, 1), np.int32)
    status = np.zeros(N * N, np.int8)
    length = np.zeros(N * N, np.int64)
    args = (
        g.ctx.rt,
        alg.rule,
        model == "lookahead",
        g.ctx.budget,
        g.ctx.ttl,
        g.stamp,
        table,
        g.is_table,
    )
    _glengths(*args, status, length)
    L = max(int(length.max()), 1)
    need = 2 * N * N * L
    if need > FT_TABLE_MAX:
        raise ResourceError(
            f"the fault route table of {topo.spec} needs {need / 2**20:.0f} MiB; "
            f"at most {FT_TABLE_MAX / 2**20:.0f} MiB (FT_TABLE_MAX)"
        )
    ports = np.full((N * N, L), -1, np.int8)
    vcs_t = np.zeros((N * N, L), np.int8)
    _gfill(*args, g.order, vcs, one_vc_layered(topo.family), status, ports, vcs_t)
    return FaultRoutes(alg.name, faulty, ports, vcs_t, status, model)


def _algs(family):
    from ..faults.algorithms import FT_ALGORITHMS

    return [(n, a) for n, a in FT_ALGORITHMS.items() if family in a.families and not a.is_oracle]


@njit(cache=True)
def _table_load(
    ports, status, port_peer, node_switch, N, mode, uni_w, hot, hot_w, perm, load, inject
):
    """Channel loads of the routable pairs of a route table (unroutable ones are dropped
    at their source, as the simulator does: they load nothing)."""
    L = ports.shape[1]
    for s in range(N):
        for t in range(N):
            w = pair_weight(mode, s, t, N, uni_w, hot, hot_w, perm)
            r = s * N + t
            if w == 0.0 or status[r] != FS_OK:
                continue
            inject[s] += w
            sw = node_switch[s]
            for i in range(L):
                p = ports[r, i]
                if p < 0:
                    break
                load[sw, p] += w
                sw = port_peer[sw, p] - N  # the last hop ejects: sw < 0 and the row ends
    return 0


def fault_load_bound(
    topo, fr: FaultRoutes, traffic: str = "uniform", seed: int = 0
) -> float | None:
    """Throughput bound ``1 / γ_max`` (flits/node/cycle of *offered* load) of a fault
    route table: the busiest channel over the routable pairs, every node injecting one
    flit per cycle under ``traffic`` (the fault-mode counterpart of
    :func:`fattree.routing.load.channel_load`). None for a trace (no rate pattern).

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("mikant:k=2,n=2")
    >>> fr = fault_routes(t, "gns", np.zeros(t.n_links, bool))
    >>> round(fault_load_bound(t, fr), 4)  # no fault: the same as alg1's bound
    0.875

    References
    ----------
    Dally & Towles, §3.3 (channel load); docs/simulator.md ("Faults").
    """
    from ..routing.shared import traffic_weights

    N = topo.n_nodes
    try:
        _, mode, uni, hot, hot_w, perm = traffic_weights(traffic, N, seed)
    except ParameterError:  # a trace: no rate pattern to evaluate
        return None
    S, R = topo.port_peer.shape
    load = np.zeros((S, R), np.float64)
    inject = np.zeros(N, np.float64)
    _table_load(
        fr.ports,
        fr.status,
        topo.port_peer.astype(np.int64),
        topo.node_switch.astype(np.int64),
        N,
        mode,
        uni,
        hot,
        hot_w,
        perm,
        load,
        inject,
    )
    gmax = float(max(load.max(initial=0.0), inject.max(initial=0.0)))
    return 1.0 / gmax if gmax > 0 else float("inf")
