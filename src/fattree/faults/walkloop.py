"""The one loop every fault-tolerant walk runs in, and the glue that puts it in each consumer.

An engine writes the decision at one switch (its ``hop``) and how a walk starts
(``begin``), in a paper walk's :class:`~fattree.faults.hooks.FaultWalk` or, for the
generic rules and the recomputed tables, a :class:`~fattree.faults.hooks.LoopEngine`.
Everything else is here, once: the walk from switch to switch (:func:`walk_loop`), its
scratch, the walk state packed in a packet's header, and the walk in the Monte Carlo loop
(:func:`study_walk`), the simulator (:func:`sim_walk`, :func:`sim_port`), ``route
--faults``, the explanation and the flow model (:func:`walk_route`). The kernels resolve
by the type of the context ``wk`` or of the simulator's view when the caller is compiled,
so a run compiles its own engine and no other.
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

# The per-packet state of a walk (``state``, int64): what the header of a packet carries
# from switch to switch, so that each switch decides in O(1) with the walk's hop (the walk
# is that hop in a loop; the simulator stores the state in the packet, docs/simulator.md
# "Faults"). ST_SEQ .. ST_SEQ + 4: MiKANT's lookahead plan.
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
    """:func:`_hop` compiled into the walk loop: its records are unpacked once per walk,
    not once per hop (a call costs the Monte Carlo loop ~20 %, measured on MiKANTC)."""


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
    """The end of a walk's hop: the detour ``kind`` and ``step`` into ``state``, the hop's
    record (``how``, its step, the faulty port, the detours that could not start) and
    ``(p, OK)``, or ``(-1, the failure status)`` when no port was found (``p`` < 0)."""
    state[ST_KIND] = kind
    state[ST_STEP] = step
    if p < 0:
        record_hop(trace, nsw, -1, hstep, hfault, hmask)
        return -1, (status if status != OK else DEAD_END)
    record_hop(trace, nsw, how, hstep, hfault, hmask)
    return p, OK


@njit(cache=True)
def walk_scratch(wk):
    """The scratch of :func:`walk_loop` on the walk's network ``(k, n)``: ``(ip, scr)``,
    ``ip`` Algorithm 1's iparams and ``scr`` an int64 (``SCR_ROWS``, max(2k, ST_COLS))
    array (row 0: candidate ports, row 1: the walk state, rows 2-9: the walk's own, e.g.
    MiKANT's lookahead search). Allocate once and reuse: the walk allocates nothing."""
    return alg1_iparams(wk.k, wk.n), np.zeros((SCR_ROWS, max(2 * wk.k, ST_COLS)), np.int64)


@njit(**nrt_free())
def walk_loop(wk, w, src, start, t, out_sw, out_port, scr, trace=None):
    """Route one packet: the walk's hop from switch to switch; returns (status, hops,
    switches recorded).

    ``wk``: the engine's context (a paper walk's, ``GenericWalk`` or ``TableWalk``), ``w``
    a :class:`WalkIn`, ``scr`` the scratch of :func:`walk_scratch` (or
    ``generic.loop_scratch``). ``src`` >= 0 starts at that node (its node link counts as a
    hop; faulty: ``NO_RULE``); otherwise the walk starts at switch ``start``. Hops count
    links including both node links (docs/mikant-routing.md §1.4). ``trace`` (optional
    int64 (cap, 4), for explanations): per recorded switch, how its port was chosen
    (``HOW_*`` or a detour kind, -1: none), the detour step, the faulty Algorithm-1 port
    that triggered a rule (-1) and a bitmask of the detour kinds that could not start there
    (at a dead end: the kind of the detour); omitted, the recording is compiled out.
    """
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
    step, plan length, then the rest of the lookahead plan (its first port is taken where
    it was made) or, without a plan, the saved digits ``w2``, ``wl``, ``lw``. Whatever it
    drops is never read again."""
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
        The family's walk (:func:`fattree.faults.walks.walk_of`).
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

    Returns
    -------
    tuple
    """
    wk = walk.study(topo, tie_break)
    sw = np.full(walk.capacity(topo), -1, np.int64)
    ports = np.full(walk.capacity(topo), -1, np.int64)
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
    """The walk's context and its :class:`WalkIn` on the simulator's view."""
    fi, rt = f.ft_i, f.ft_rt
    wk, pkt = _of_view(f, src, dst)
    look = fi[FI_LOOK] != 0
    stamp, ip = f.ft_stamp, f.ft_ws[W_IP]
    return wk, WalkIn(
        ip, rt.port_peer, rt.link_index, stamp, np.int64(1), fi[FI_FLAGS], look, np.int64(0), pkt
    )


@njit(**nrt_free())
def sim_walk(f, src, dst):
    """The walk of ``src -> dst`` into the simulator's view scratch (rows ``W_SW``,
    ``W_PORT``): ``(status, switches)``."""
    ws = f.ft_ws
    wk, w = _sim_in(f, src, dst)
    st, _, nsw = walk_loop(wk, w, src, -1, dst, ws[W_SW], ws[W_PORT], ws[W_SCR : W_SCR + SCR_ROWS])
    return st, nsw


@njit(cache=True)
def sim_walk_traced(f, src, dst, trace):
    """:func:`sim_walk` recording how each switch chose its port in ``trace`` (as
    :func:`walk_loop`; the dependency graph's naive escape rule reads it)."""
    ws = f.ft_ws
    wk, w = _sim_in(f, src, dst)
    scr = ws[W_SCR : W_SCR + SCR_ROWS]
    st, _, nsw = walk_loop(wk, w, src, -1, dst, ws[W_SW], ws[W_PORT], scr, trace)
    return st, nsw


@njit(**nrt_free())
def sim_port(f, pk, p, col_ft, col_src, sw, in_port, dst, hop):
    """The walk's own hop at switch ``sw`` in the simulator, on the state in packet ``p``'s
    header (``pk[p, col_ft]``, updated; its source in ``pk[p, col_src]``)."""
    wk, w = _sim_in(f, pk[p, col_src], dst)
    scr = f.ft_ws[W_SCR : W_SCR + SCR_ROWS]
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
    "sim_walk_traced",
    "study_walk",
    "unpack_state",
    "walk_route",
    "walk_scratch",
]
