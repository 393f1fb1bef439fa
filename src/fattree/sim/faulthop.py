"""The simulator's per-hop fault calls over the fault view (no per-pair table).

A head asks :func:`fault_port` at each switch for its port from the packet's header (source,
destination, hops, ``PK_FT``: the misroutes left of ``detour`` or a walk's packed state),
:func:`fault_class` for the hop's VC class. At injection the source evaluates the whole route
(:func:`fault_admit`): a packet whose walk fails is counted unroutable (or livelock) and never
enters; the walks are deterministic, so an admitted packet meets no dead end. A fault-free
kernel passes None and compiles none of this. docs/simulator.md ("Faults").
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

from ..compiling import nrt_free
from ..errors import ParameterError
from ..faults.generic import (
    AdaptiveAt,
    S_BUDGET,
    S_HOPS,
    S_PREV,
    adaptive_ports,
    candidates,
    generic_walk,
    hop_down,
    layer_step,
    walk_hop,
)
from ..faults.hooks import (
    FI_BUDGET,
    FI_LAYER1,
    FI_LOOK,
    FI_N_NODES,
    FI_RULE,
    FI_TTL,
    W_GEN,
    W_HOW,
    W_PORT,
    W_SW,
    walk_by_type,
)
from ..faults.view import (
    ENG_ADAPTIVE,
    FS_ADMIT_OK,
    FaultRouter,
    FaultsAdaptive,
    FaultsGeneric,
    FaultsTable,
    adaptive_rule,
    admit_route,
)
from ..faults.walkloop import sim_port
from ..routing.shared import pair_weight
from .layout import PK_FT, PK_SRC

# The adaptive rule's candidates of a head, in its int32 FS_ROUTE word: -2 - (mask << 5 |
# first), bits and first the ports themselves on switches of at most 25 ports, else
# positions in the switch's list of minimal ports (recomputed where the word is read)
ADAPTIVE_CANDIDATES = 25  # positions a word holds (first: < 32)


@njit(**nrt_free())
def _port_table(f, pk, p, sw, in_port, vc, dst, hop, V):
    return np.int64(f.ft_tab[sw, dst])


@njit(**nrt_free())
def _port_generic(f, pk, p, sw, in_port, vc, dst, hop, V):
    fi = f.ft_i
    wk = generic_walk(f.ft_rt, fi[FI_RULE], fi[FI_BUDGET], fi[FI_TTL], f.ft_ws[W_GEN])
    state = wk.state
    state[S_BUDGET] = pk[p, PK_FT]
    state[S_PREV] = wk.rt.port_peer[sw, in_port] - fi[FI_N_NODES] if hop > 0 else -1
    state[S_HOPS] = hop + 1  # links crossed, the source's node link included
    q = walk_hop(wk, fi[FI_LOOK] != 0, f.ft_stamp, np.int64(1), np.int64(sw), np.int64(dst))
    pk[p, PK_FT] = state[S_BUDGET]
    return q


@njit(**nrt_free())
def _port_adaptive(f, pk, p, sw, in_port, vc, dst, hop, V):
    """The ``adaptive`` rule's candidates at ``sw`` (:func:`adaptive_ports`, ``minimal``'s
    port first) as one route word: the port alone when it is the only one; -1: none."""
    fi, ws, order = f.ft_i, f.ft_ws, f.ft_order
    N = fi[FI_N_NODES]
    prev = np.int64(f.ft_rt.port_peer[sw, in_port] - N if hop > 0 else -1)
    layers = np.int64(V if V > 1 or fi[FI_LAYER1] != 0 else 0)
    was_down = hop > 0 and hop_down(order, N, prev, N + sw)
    cls = np.int64(vc if hop > 0 else 0)
    at = AdaptiveAt(np.int64(sw), prev, np.int64(hop + 1), np.int64(dst), cls, was_down)
    out = ws[W_HOW]
    m = adaptive_ports(adaptive_rule(f, layers), at, out, ws[W_GEN])
    if m == 0:
        return -1
    first = out[0]
    if m <= 1:
        return first
    if f.ft_rt.port_peer.shape[1] <= ADAPTIVE_CANDIDATES:  # a mask of the ports themselves
        word = first
        for i in range(1, m):
            word |= np.int64(1) << (out[i] + 5)
        return -2 - word
    # the switch's minimal ports, as adaptive_ports left them in its scratch
    g = ws[W_GEN]
    R1 = f.ft_rt.port_peer.shape[1] + 1
    n, lst = g[5 * R1 + 4], g[4 * R1 + 4 : 5 * R1 + 4]
    word = np.int64(-1)
    for j in range(min(n, 32)):
        if lst[j] == first:
            word = np.int64(j)
    if word < 0:  # (beyond the word's reach: the first choice alone)
        return first
    for j in range(min(n, ADAPTIVE_CANDIDATES)):
        for i in range(1, m):
            if out[i] == lst[j]:
                word |= np.int64(1) << (j + 5)
    return -2 - word


@njit(cache=True, inline="always")
def _minimal_list(f, sw, dst):
    """``(count, ports)``: the minimal ports of ``sw`` towards ``dst`` in preference order."""
    g = f.ft_ws[W_GEN]
    R1 = f.ft_rt.port_peer.shape[1] + 1
    lst = g[4 * R1 + 4 : 5 * R1 + 4]
    n = candidates(f.ft_rt, sw, dst, f.ft_i[FI_TTL], lst, g[2 * R1 : 3 * R1], g[3 * R1 : 4 * R1])
    return n, lst


@njit(**nrt_free())
def decode_route(f, word, sw, dst, out):
    """The candidate ports of route word ``word`` at ``sw`` for ``dst`` into ``out``; returns
    their number (the adaptive rule's: its first port, then the others of its mask)."""
    if word >= 0:
        out[0] = word
        return 1
    if word == -1:
        return 0
    c = -2 - word
    first = c & 31
    R = f.ft_rt.port_peer.shape[1]
    if R <= ADAPTIVE_CANDIDATES:  # the mask of the ports themselves, from first on round
        out[0] = first  # (an order fixed by the port, not by its number: ties spread)
        k = 1
        for j in range(1, R):
            q = first + j - (R if first + j >= R else 0)
            if (c >> (q + 5)) & 1:
                out[k] = q
                k += 1
        return k
    n, lst = _minimal_list(f, np.int64(sw), np.int64(dst))  # (the generic rules' types)
    out[0] = lst[first]
    k = 1
    for j in range(min(n, ADAPTIVE_CANDIDATES)):
        if j != first and (c >> (j + 5)) & 1:
            out[k] = lst[j]
            k += 1
    return k


@njit(**nrt_free())
def _class_updown(f, sw, in_port, in_vc, out_port, hop, V):
    """Up*/down* turn layers: one class more after each down -> up turn."""
    if V <= 1:
        return -1
    port_peer, order, N = f.ft_rt.port_peer, f.ft_order, f.ft_i[FI_N_NODES]
    cls = in_vc if hop > 0 else 0
    was_down = hop > 0 and hop_down(order, N, port_peer[sw, in_port] - N, N + sw)
    c, _ = layer_step(order, N, V, sw, port_peer[sw, out_port], cls, was_down)
    return c if c < V else -1


# (port, class) kernels by the view's type (a paper walk's: ``sim_port``, ``sim_class``)
_HOP = {
    FaultsGeneric: (_port_generic, _class_updown),
    FaultsAdaptive: (_port_adaptive, _class_updown),
    FaultsTable: (_port_table, _class_updown),
}


def _vclass(view_type):
    return _HOP[view_type][1] if view_type in _HOP else walk_by_type(view_type).sim_class


def fault_admit(flt, V, src, dst):
    """A new packet's route as its source evaluates it on the fault view ``flt``: an
    ``FS_ADMIT_*`` (:func:`fattree.faults.view.admit_route`); 0 when ``flt`` is None."""
    return 0 if flt is None else int(admit_route(flt, V, src, dst)[0])


def fault_budget(flt):
    """The header state a packet starts with (its misroute budget; 0 without faults)."""
    return 0 if flt is None else int(flt.ft_i[FI_BUDGET])


def fault_port(flt, pk, p, sw, in_port, vc, dst, hop, V):
    """The route word at ``sw`` of packet ``p``'s head (``pk`` row: source, ``PK_FT``
    state), arrived on ``in_port`` / ``vc`` after ``hop`` switches, with ``V`` VCs: its
    port or the adaptive rule's candidates (:func:`fault_ports`); -1 when ``flt`` is None."""
    if flt is None:
        return -1
    p, sw, in_port, vc, dst = _i32(p, sw, in_port, vc, dst)
    hop, V = np.int64(hop), np.int64(V)
    if type(flt) in _HOP:
        return int(_HOP[type(flt)][0](flt, pk, p, sw, in_port, vc, dst, hop, V))
    return int(sim_port(flt, pk, p, PK_FT, PK_SRC, sw, in_port, dst, hop))


def fault_ports(flt, word, sw, dst, out):
    """The candidate ports of route word ``word`` (:func:`fault_port`; -1: none yet) at
    ``sw`` for ``dst`` into ``out``, preferred first; their number. Fault-free: the word."""
    if word < -1 and type(flt) is FaultsAdaptive:
        return int(decode_route(flt, np.int64(word), *_i32(sw, dst), out))
    out[0] = word
    return 0 if flt is not None and word < 0 else 1


def fault_class(flt, sw, in_port, in_vc, out_port, hop, V):
    """The VC class of the hop out of ``sw`` on ``out_port``, arrived on ``in_port`` /
    ``in_vc`` after ``hop`` switches (-1: any; with one VC, or when ``flt`` is None)."""
    if flt is None:
        return -1
    sw, in_port, in_vc = _i32(sw, in_port, in_vc)
    return int(_vclass(type(flt))(flt, sw, in_port, in_vc, *map(np.int64, (out_port, hop, V))))


def _i32(*values):
    # the simulator's types (int32 state fields): Python loads the kernel it compiled
    return tuple(np.int32(v) for v in values)


# In numba code the five resolve when the caller is typed: a fault-free kernel (None) gets
# constant stubs and compiles no fault engine, a faulted one its engine's kernels (or, for
# the first two, their own body).


@overload(fault_admit, inline="always")
def _ov_fault_admit(flt, V, src, dst):
    return (lambda flt, V, src, dst: 0) if isinstance(flt, types.NoneType) else fault_admit


@overload(fault_budget, inline="always")
def _ov_fault_budget(flt):
    return (lambda flt: 0) if isinstance(flt, types.NoneType) else fault_budget


@overload(fault_port, inline="always")
def _ov_fault_port(flt, pk, p, sw, in_port, vc, dst, hop, V):
    if isinstance(flt, types.NoneType):
        return lambda flt, pk, p, sw, in_port, vc, dst, hop, V: -1
    if flt.instance_class in _HOP:
        fn = _HOP[flt.instance_class][0]
        return lambda flt, pk, p, sw, in_port, vc, dst, hop, V: fn(
            flt, pk, p, sw, in_port, vc, dst, hop, V
        )
    # a paper walk's hop (faults/walkloop.py), the header columns as arguments
    return lambda flt, pk, p, sw, in_port, vc, dst, hop, V: sim_port(
        flt, pk, p, PK_FT, PK_SRC, sw, in_port, dst, hop
    )


@overload(fault_ports, inline="always")
def _ov_fault_ports(flt, word, sw, dst, out):
    if isinstance(flt, types.NoneType) or flt.instance_class is not FaultsAdaptive:
        faulted = not isinstance(flt, types.NoneType)

        def impl(flt, word, sw, dst, out):  # one port: the word (faulted, -1: none yet)
            out[0] = word
            return 0 if faulted and word < 0 else 1

        return impl
    return lambda flt, word, sw, dst, out: decode_route(flt, word, sw, dst, out)


@overload(fault_class, inline="always")
def _ov_fault_class(flt, sw, in_port, in_vc, out_port, hop, V):
    if isinstance(flt, types.NoneType):
        return lambda flt, sw, in_port, in_vc, out_port, hop, V: -1
    fn = _vclass(flt.instance_class)
    return lambda flt, sw, in_port, in_vc, out_port, hop, V: fn(
        flt, sw, in_port, in_vc, out_port, hop, V
    )


@njit(cache=True)
def _route_loads(f, V, per_switch, leaf_off, leaf_nodes, weights, load, inject):
    """Add the channel loads of every admitted pair (``weights``: ``pair_weight``'s). The
    generic and table engines ignore the source: walked once per (switch, destination),
    carrying the summed weight of its sources; a paper walk's is walked per pair."""
    mode, uni_w, hot, hot_w, perm = weights
    N = f.ft_i[FI_N_NODES]
    sws, ports = f.ft_ws[W_SW], f.ft_ws[W_PORT]  # the admitted route (the VC check keeps it)
    for g in range(leaf_off.shape[0] - 1):
        for t in range(N):
            walked = ok = False
            nsw = 0
            total = 0.0
            for j in range(leaf_off[g], leaf_off[g + 1]):
                s = leaf_nodes[j]
                w = pair_weight(mode, s, t, N, uni_w, hot, hot_w, perm)
                if w == 0.0 or (per_switch and f.ft_stamp[s] == 1):  # (a faulty node link)
                    continue
                if not walked or not per_switch:
                    adm, nsw = admit_route(f, V, s, t)
                    ok, walked = adm == FS_ADMIT_OK, True
                if not ok:
                    continue
                inject[s] += w
                total += w
                if not per_switch:
                    for i in range(nsw):
                        load[sws[i], ports[i]] += w
            if per_switch and ok and total > 0.0:
                for i in range(nsw):
                    load[sws[i], ports[i]] += total


BOUND_MAX_PAIRS = 1 << 25  # pairs walked for the bound (~5,800 nodes); beyond: none


def router_load_bound(
    topo, fr: FaultRouter, traffic: str = "uniform", seed: int = 0, vcs: int = 1
) -> float | None:
    """Throughput bound ``1 / γ_max`` (flits/node/cycle of offered load) of the surviving
    routes: every admitted pair walked once, each node injecting one flit per cycle under
    ``traffic`` (unroutable pairs load nothing, as in the simulator). None for a trace,
    beyond ``BOUND_MAX_PAIRS`` pairs, or for ``adaptive``, whose routes the allocator
    chooses as it runs (its first choices' load would be no bound).

    Examples
    --------
    >>> import fattree, numpy as np
    >>> from fattree.faults.view import fault_router
    >>> t = fattree.build("mikant:k=2,n=2")
    >>> round(router_load_bound(t, fault_router(t, "gns", np.zeros(t.n_links, bool))), 4)
    0.875

    References
    ----------
    Dally & Towles, §3.3 (channel load); docs/simulator.md ("Faults").
    """
    from ..routing.shared import traffic_weights

    N = topo.n_nodes
    if N * N > BOUND_MAX_PAIRS or fr.engine == ENG_ADAPTIVE:
        return None
    try:
        weights = traffic_weights(traffic, N, seed, topo)[1:]
    except ParameterError:  # a trace: no rate pattern to evaluate
        return None
    load = np.zeros(topo.port_peer.shape, np.float64)
    inject = np.zeros(N, np.float64)
    ns = np.ascontiguousarray(topo.node_switch, np.int64)
    by_switch = np.argsort(ns, kind="stable").astype(np.int64)
    counts = np.unique(ns, return_counts=True)[1]
    leaf_off = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)  # into by_switch
    per_switch = fr.walk is None  # the generic rules and the tables
    view = fr.view(fr.ft_ws.copy())
    _route_loads(view, int(vcs), per_switch, leaf_off, by_switch, weights, load, inject)
    gmax = float(max(load.max(initial=0.0), inject.max(initial=0.0)))
    return 1.0 / gmax if gmax > 0 else float("inf")
