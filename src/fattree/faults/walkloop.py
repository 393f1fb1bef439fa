"""The one loop every fault-tolerant walk runs in (:func:`walk_loop`), its scratch, the walk
state a packet's header carries, and the walk in each consumer: the Monte Carlo loop
(:func:`study_walk`), the simulator (:func:`sim_walk`, :func:`sim_port`), ``route --faults``,
the explanation and the flow model (:func:`walk_route`). An engine brings its ``hop`` and
``begin`` (:class:`~fattree.faults.hooks.FaultWalk`, :class:`~fattree.faults.hooks.LoopEngine`),
resolved by the type of its context or view when the caller compiles: a run compiles its own.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..compiling import nrt_free
from ..routing.shared import alg1_iparams
from .hooks import (
    DEAD_END,
    FI_FLAGS,
    FI_LOOK,
    FI_N_NODES,
    NO_RULE,
    OK,
    STATE_BYTE,
    TTL,
    W_IP,
    W_PORT,
    W_SCR,
    W_SW,
    FaultWalk,
    loop_by_type,
)

# The walk state (int64 ``state``) a packet's header carries from switch to switch, so each
# switch decides in O(1) (docs/simulator.md "Faults"). ST_SEQ .. ST_SEQ + 4: MiKANT's
# lookahead plan.
ST_KIND, ST_STEP, ST_W2, ST_WL, ST_LW, ST_BUDGET, ST_SEQLEN, ST_SEQ = range(8)
ST_COLS = ST_SEQ + 5
SCR_ROWS = 10  # scratch rows: candidate ports, the walk state, then 8 of the walk's own

WalkIn = namedtuple("WalkIn", "ip port_peer link_index stamp cur flags look seed pkt")
WalkIn.__doc__ = (
    "What one walk reads besides the switch and its state: Algorithm 1's iparams, the "
    "port and link tables, the fault stamp (link e is faulty when stamp[e] == cur), the "
    "algorithm's detour flags, the lookahead model, and the seed and packet key of the "
    "walk's own random choices."
)


def _hop(wk, w, s, prev, hops, t, state, ports, extra, trace, nsw):
    """The walk's decision at switch ``s`` (``FaultWalk.hop``): ``(port, status)``."""


def _calling(fn):
    """The implementation that calls hop kernel ``fn`` (compiled once, on its own)."""
    return lambda wk, w, s, prev, hops, t, state, ports, extra, trace, nsw: fn(
        wk, w, s, prev, hops, t, state, ports, extra, trace, nsw
    )


@overload(_hop, inline="always")
def _ov_hop(wk, w, s, prev, hops, t, state, ports, extra, trace, nsw):
    return _calling(loop_by_type(wk.instance_class).hop)


def _hop_inline(wk, w, s, prev, hops, t, state, ports, extra, trace, nsw):
    """:func:`_hop` compiled into the walk loop (a call costs the Monte Carlo loop ~20 %)."""


@overload(_hop_inline, inline="always", strict=False, jit_options={"cache": True})
def _ov_hop_inline(wk, w, s, prev, hops, t, state, ports, extra, trace, nsw):
    hop = loop_by_type(wk.instance_class).hop
    if not isinstance(trace, types.NoneType):  # an explanation: a call compiles in less
        return _calling(hop)
    # the hop's own source: its standalone compile (for typing) is the hop's, cached
    return hop.py_func


def _begin(wk, flags, src):
    """``(nodes, hop limit, misroute budget, switch of node src)`` (``FaultWalk.begin``)."""


@overload(_begin, inline="always")
def _ov_begin(wk, flags, src):
    fn = loop_by_type(wk.instance_class).begin
    return lambda wk, flags, src: fn(wk, flags, src)


def _of_view(f, src, dst):
    """The walk's context and packet key in the simulator (``FaultWalk.of_view``)."""


@overload(_of_view, inline="always")
def _ov_of_view(f, src, dst):
    fn = loop_by_type(f.instance_class).of_view
    return lambda f, src, dst: fn(f, src, dst)


def record_hop(trace, nsw, how, step, fault, mask):
    """Log one hop's rule for ``explain`` (no code at all when trace is None)."""


@overload(record_hop, inline="always")
def _ov_record_hop(trace, nsw, how, step, fault, mask):
    if isinstance(trace, types.NoneType):
        return lambda trace, nsw, how, step, fault, mask: None

    def impl(trace, nsw, how, step, fault, mask):
        if nsw < trace.shape[0]:
            trace[nsw, 0] = how
            trace[nsw, 1] = step
            trace[nsw, 2] = fault
            trace[nsw, 3] = mask

    return impl


@njit(cache=True, inline="always")
def end_hop(state, kind, step, trace, nsw, p, how, hstep, hfault, hmask, status):
    """End a hop: ``kind`` and ``step`` into ``state``, the hop's record (:func:`walk_loop`)
    and ``(p, OK)``, or ``(-1, the failure status)`` without a port (``p`` < 0)."""
    state[ST_KIND] = kind
    state[ST_STEP] = step
    if p < 0:
        record_hop(trace, nsw, -1, hstep, hfault, hmask)
        return -1, (status if status != OK else DEAD_END)
    record_hop(trace, nsw, how, hstep, hfault, hmask)
    return p, OK


@njit(cache=True)
def walk_scratch(wk):
    """``(Algorithm 1's iparams, scr)``, the reusable scratch of :func:`walk_loop` on the
    walk's ``(k, n)``: rows of candidate ports, the walk state, then 8 of the walk's own."""
    return alg1_iparams(wk.k, wk.n), np.zeros((SCR_ROWS, max(2 * wk.k, ST_COLS)), np.int64)


@njit(**nrt_free())
def walk_loop(wk, w, src, start, t, out_sw, out_port, scr, trace=None):
    """Route one packet, the engine's hop from switch to switch: ``(status, hops, switches
    recorded)``. ``wk``: the engine's context, ``w`` a :class:`WalkIn`, ``scr``
    :func:`walk_scratch`'s (or ``generic.loop_scratch``'s). From node ``src`` >= 0 (its
    link counts as a hop; faulty: ``NO_RULE``), else from switch ``start``; hops count both
    node links (docs/mikant-routing.md §1.4). ``trace`` (int64 (cap, 4), explanations;
    omitted: compiled out), per switch: how its port was chosen (``HOW_*`` or a detour
    kind, -1: none), the detour step, the faulty Algorithm-1 port that triggered a rule
    (-1) and a bitmask of the detours that could not start (at a dead end: its kind)."""
    N, ttl, budget, s0 = _begin(wk, w.flags, src)
    stamp, port_peer = w.stamp, w.port_peer
    state = scr[1, :ST_COLS]
    state[:] = 0
    state[ST_BUDGET] = budget
    ports = scr[0, : 2 * wk.k]
    extra = scr[2:]
    hops = 0
    nsw = 0
    if src >= 0:
        if stamp[src] == w.cur:  # the node link is link `src`
            return NO_RULE, 0, 0
        s = s0
        hops = 1
    else:
        s = start
    prev = -1
    while True:
        if nsw < out_sw.shape[0]:
            out_sw[nsw] = s
        if hops >= ttl:
            record_hop(trace, nsw, -1, state[ST_STEP], -1, state[ST_KIND])
            return TTL, hops, nsw + 1
        p, status = _hop_inline(wk, w, s, prev, hops, t, state, ports, extra, trace, nsw)
        if p < 0:
            return status, hops, nsw + 1
        if nsw < out_port.shape[0]:
            out_port[nsw] = p
        nsw += 1
        peer = port_peer[s, p]
        hops += 1
        if peer < N:
            if peer == t:
                return OK, hops, nsw
            return DEAD_END, hops, nsw  # never: only the destination's switch ejects
        prev = s
        s = peer - N


@njit(**nrt_free())
def pack_state(state):
    """The walk state as one header word, a byte a field: misroutes left, detour kind,
    step, plan length, then the lookahead plan after its first port (taken where it was
    made) or, without a plan, the saved digits ``w2``, ``wl``, ``lw``."""
    w = state[ST_BUDGET] | (state[ST_KIND] << 8) | (state[ST_STEP] << 16)
    w |= state[ST_SEQLEN] << 24
    if state[ST_SEQLEN] > 0:
        for i in range(4):
            w |= state[ST_SEQ + 1 + i] << (32 + 8 * i)
    else:
        w |= (state[ST_W2] << 32) | (state[ST_WL] << 40) | (state[ST_LW] << 48)
    return w


@njit(**nrt_free())
def unpack_state(w, state):
    """The walk state of header word ``w`` (:func:`pack_state`) into ``state``."""
    state[:] = 0
    state[ST_BUDGET] = w & STATE_BYTE
    state[ST_KIND] = (w >> 8) & STATE_BYTE
    state[ST_STEP] = (w >> 16) & STATE_BYTE
    state[ST_SEQLEN] = (w >> 24) & STATE_BYTE
    if state[ST_SEQLEN] > 0:
        for i in range(4):
            state[ST_SEQ + 1 + i] = (w >> (32 + 8 * i)) & STATE_BYTE
    else:
        state[ST_W2] = (w >> 32) & STATE_BYTE
        state[ST_WL] = (w >> 40) & STATE_BYTE
        state[ST_LW] = (w >> 48) & STATE_BYTE


# ------------------------------------------------------------------ the walk in each consumer


def walk_route(
    walk: FaultWalk, topo, flags, look, src, start, dst, stamp, tie_break, seed, packet, trace
):
    """One walk of ``walk`` on ``topo`` (``route --faults``, the explanation, the flow
    model): ``(status, hops, switches recorded, switches, ports)`` (numpy arrays).

    Parameters
    ----------
    walk : FaultWalk
    topo : Topology
    flags, look : int, bool
        The algorithm's detour flags, the lookahead model.
    src, start, dst : int
        Source node (-1: start at switch ``start``), destination node.
    stamp : int64 array over ``topo.links``
        1 for a faulty link.
    tie_break, seed, packet
        The walk's own random choices (MiKANTC's cube tie-break).
    trace : int64 (cap, 4) array or None
        The explanation's record of each hop (:func:`walk_loop`).
    """
    wk = walk.study(topo, tie_break)
    sw = np.full(walk.capacity(topo), -1, np.int64)
    ports = sw.copy()
    ip, scr = walk_scratch(wk)
    w = WalkIn(ip, topo.port_peer, topo.link_index, stamp, 1, int(flags), bool(look), seed, packet)
    # without a trace the compiled walk of route --faults serves (the record compiled out)
    extra = () if trace is None else (trace,)
    st, hops, nsw = walk_loop(wk, w, src, start, dst, sw, ports, scr, *extra)
    return st, hops, nsw, sw, ports


@njit(cache=True, inline="always")
def study_walk(wk, rt, stamp, cur, flags, look, s, t, out_sw, out_port, ip, scr, seed, pkt):
    """The walk of ``s -> t`` in the Monte Carlo loop (``rt``: its routing context)."""
    # flags and look as plain int64 / bool: one compiled walk for every call site
    look = np.bool_(look)
    w = WalkIn(
        ip, rt.port_peer, rt.link_index, stamp, np.int64(cur), np.int64(flags), look, seed, pkt
    )
    return walk_loop(wk, w, s, -1, t, out_sw, out_port, scr)


@njit(cache=True, inline="always")
def _sim_in(f, src, dst):
    """The walk's context, its :class:`WalkIn` and its scratch on the simulator's view."""
    fi, rt, ws = f.ft_i, f.ft_rt, f.ft_ws
    wk, pkt = _of_view(f, src, dst)
    look = fi[FI_LOOK] != 0
    stamp, ip = f.ft_stamp, ws[W_IP]
    w = WalkIn(
        ip, rt.port_peer, rt.link_index, stamp, np.int64(1), fi[FI_FLAGS], look, np.int64(0), pkt
    )
    return wk, w, ws[W_SCR : W_SCR + SCR_ROWS]


@njit(**nrt_free())
def sim_walk(f, src, dst, trace=None):
    """The walk of ``src -> dst`` into the view's scratch (rows ``W_SW``, ``W_PORT``):
    ``(status, switches)``; ``trace`` as :func:`walk_loop`'s (the dependency graph's)."""
    ws = f.ft_ws
    wk, w, scr = _sim_in(f, src, dst)
    if trace is None:  # (the walk loop's variant without the record, as everywhere else)
        st, _, nsw = walk_loop(wk, w, src, -1, dst, ws[W_SW], ws[W_PORT], scr)
    else:
        st, _, nsw = walk_loop(wk, w, src, -1, dst, ws[W_SW], ws[W_PORT], scr, trace)
    return st, nsw


@njit(**nrt_free())
def sim_port(f, pk, p, col_ft, col_src, sw, in_port, dst, hop):
    """The walk's own hop at switch ``sw`` in the simulator, on the state in packet ``p``'s
    header (``pk[p, col_ft]``, updated; its source in ``pk[p, col_src]``)."""
    wk, w, scr = _sim_in(f, pk[p, col_src], dst)
    state = scr[1, :ST_COLS]
    unpack_state(pk[p, col_ft], state)
    prev = w.port_peer[sw, in_port] - f.ft_i[FI_N_NODES] if hop > 0 else -1
    s, t, ports = np.int64(sw), np.int64(dst), scr[0, : 2 * wk.k]
    q, _ = _hop(
        wk, w, s, np.int64(prev), np.int64(hop + 1), t, state, ports, scr[2:], None, np.int64(0)
    )
    pk[p, col_ft] = pack_state(state)
    return q


__all__ = [
    "WalkIn",
    "walk_loop",
    "pack_state",
    "sim_port",
    "sim_walk",
    "study_walk",
    "unpack_state",
    "walk_route",
    "walk_scratch",
]
