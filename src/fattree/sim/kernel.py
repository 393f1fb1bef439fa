"""The numba cycle loop of the wormhole simulator (private; see :mod:`fattree.sim.engine`).

State is struct-of-arrays (:mod:`fattree.sim.layout`); no object per flit or packet.
Each cycle: credits due, packet creation, injection, then every awake input FIFO
with a ready head flit is *evaluated* against the state at the start of the cycle
(route, output VC, request) and only then are the arbitration winners *committed*.

Three things keep the work proportional to what moves, without changing the model:

* only non-empty FIFOs are visited: an active list, or on large networks a busy
  bit per FIFO scanned in index order (neighbouring FIFOs and ports share cache lines);
* a FIFO whose head is blocked (its output VC is held by another packet, or no
  credit) cannot become unblocked before a tail passes or a credit returns at that
  output port, so it sleeps in the port's wait list and is woken by those events.
  Sleepers keep counting in the port-conflict metric (``OP_SLEEP``);
* only nodes with queued packets are visited for injection (a pending list).

Rows are read and written through :func:`~fattree.sim.rawmem.ld` / ``st`` at
``row * COLS + column`` (``fb``: a FIFO's row base, ``ob``: an output port's), which
spares numba's per-access stride and wrap-around arithmetic.

Every random decision is a hash of ``(seed, cycle, ids)``, so the visiting order
never matters and the reference simulator (:mod:`fattree.sim.reference`), which
evaluates every FIFO every cycle, reproduces each run exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core.cpu import CPUTargetOptions

from ..compiling import numba_only
from ..routing.kernel import next_vc, route_ports
from ..traffic.injection import create_cycle
from ..traffic.patterns import dest
from ..traffic.rng import S_ARB_IN, S_ARB_OUT, hash_prefix, hash_tail
from .layout import (
    C_ADAPT,
    C_ARB,
    C_CD,
    C_DLWIN,
    C_DONLY,
    C_F,
    C_FT,
    C_ICODE,
    C_INJVC0,
    C_MAXCYC,
    C_MAXPER,
    C_MEAS,
    C_N,
    C_NQUOTA,
    C_NSRC,
    C_R,
    C_RCACHE,
    C_RCODE,
    C_RD,
    C_RING,
    C_SEED,
    C_SLEEP,
    C_TCODE,
    C_TERM,
    C_V,
    C_WARM,
    FC_COLS,
    FC_WNEXT,
    FS_COLS,
    FS_FIDX,
    FS_HDST,
    FS_HHOPS,
    FS_HPKT,
    FS_HREADY,
    FS_INLIST,
    FS_IP,
    FS_LEN,
    FS_OUT,
    FS_OVC,
    FS_RHEAD,
    FS_ROUTE,
    FS_SW,
    FS_UP,
    FS_VC,
    FS_WAIT,
    IN_BF,
    IN_BOP,
    IN_BVC,
    IN_COLS,
    IN_KEYOK,
    INJ_COLS,
    INJ_FLIT,
    INJ_PEND,
    INJ_PKT,
    INJ_VC,
    K_CONFLICTS,
    K_CREATED,
    K_DELIVERED,
    K_DONE_SRC,
    K_ERR_F,
    K_ERR_PKT,
    K_EVALS,
    K_EXCESS,
    K_FLITS_IN,
    K_FLITS_OUT,
    K_FREE,
    K_HOPS_SUM,
    K_INJECTED,
    K_LAST_MOVE,
    K_LAT_MAX,
    K_LAT_SUM,
    K_LIVELOCK,
    K_MEAS_N,
    K_MOVES,
    K_NACTIVE,
    K_NET_MAX,
    K_NET_SUM,
    K_NPEND,
    K_QPEAK,
    K_QSUM,
    K_QUEUED,
    K_STALE_DUE,
    K_T,
    K_UNROUTABLE,
    K_WIN_CREATED,
    K_WIN_DROPPED,
    K_WIN_FLITS_CREATED,
    K_WIN_FLITS_OUT,
    OP_BF,
    OP_BIP,
    OP_BVC,
    OP_DEM,
    OP_KEYOK,
    OP_LVL,
    OP_OWN,
    OP_SLEEP,
    OP_TGT,
    OP_TSW,
    OP_WHEAD,
    PK_COLS,
    PK_DST,
    PK_FT,
    PK_HOPS,
    PK_MEAS,
    PK_SEQ,
    PK_SRC,
    PK_TC,
    PK_TI,
    SL_COLS,
    SL_DST,
    SL_HOPS,
    SL_PKT,
    SL_READY,
    ST_CAP,
    ST_CHUNK,
    ST_DEADLOCK,
    ST_DONE,
    ST_GROW_POOL,
    ST_GROW_QUEUE,
    ST_MISROUTE,
    ST_NOROUTE,
    ST_STALE,
)
from .closedloop import (
    cl_bind,
    cl_create,
    cl_dest,
    cl_drop,
    cl_flit_in,
    cl_flit_out,
    cl_low,
    cl_on,
    cl_status,
)
from .faulthop import fault_admit, fault_budget, fault_class, fault_port, fault_ports
from .rawmem import ld, prefetch, st

# The cycle loop allocates nothing, so it needs no reference counting; numba's (private,
# long-standing) ``_nrt=False`` drops the atomic incref/decref of every array passed to
# the inlined helpers, which measured 3x faster (benchmarks/sim_speed.py). If a numba
# release drops the option the kernel still compiles, only slower, and
# tests/sim/test_kernel_options.py fails to say so.
NO_NRT = {"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {}
_EJECT_SCORE = 1 << 30  # a node always accepts: an ejection port beats any credit count
PF_LIST = 16  # prefetch distance (list entries ahead) of the FIFO rows to evaluate
# position of the single set bit of a word, by De Bruijn multiplication
_DEBRUIJN = np.uint64(0x07EDD5E59A4E28C2)
_BITPOS = np.zeros(64, np.int64)
for _i in range(64):
    _BITPOS[(((1 << _i) * 0x07EDD5E59A4E28C2) & ((1 << 64) - 1)) >> 58] = _i
_BITPOS.flags.writeable = False


@njit(cache=True, inline="always")
def _enlist(fs, active, na, f):
    """Mark ``f`` busy: append it to the active list unless it is there, or, on large
    networks (``na < 0``), set its bit in the busy map (``active`` is then that map).
    Empty or asleep FIFOs leave lazily."""
    if na < 0:  # 32 bits per int64 word: no sign-bit arithmetic
        w = f >> 5
        st(active, w, ld(active, w) | (np.int64(1) << np.int64(f & 31)))
        return na
    fb = f * FS_COLS
    if ld(fs, fb + FS_INLIST) == 0:
        st(fs, fb + FS_INLIST, 1)
        st(active, na, f)
        return na + 1
    return na


@njit(cache=True, inline="always")
def _push(fs, slots, RC, active, na, g, p, ready, dst, hops, route):
    """A flit enters FIFO ``g``: as its head if it was empty, else into its ring.

    ``route`` is the head's route if already known (from the route cache), else -1.
    """
    gb = g * FS_COLS
    ln = ld(fs, gb + FS_LEN)
    st(fs, gb + FS_LEN, ln + 1)
    if ln == 0:
        st(fs, gb + FS_ROUTE, route)
        st(fs, gb + FS_HPKT, p)
        st(fs, gb + FS_HREADY, ready)
        st(fs, gb + FS_HDST, dst)
        st(fs, gb + FS_HHOPS, hops)
        return _enlist(fs, active, na, g)
    pos = ld(fs, gb + FS_RHEAD) + ln - 1
    if pos >= RC:
        pos -= RC
    sb = (g * RC + pos) * SL_COLS
    st(slots, sb + SL_PKT, p)
    st(slots, sb + SL_READY, ready)
    st(slots, sb + SL_DST, dst)
    st(slots, sb + SL_HOPS, hops)
    return na


@njit(cache=True, inline="always")
def _wake(fs, fcold, ops, OPC, active, na, cnt, op):
    """Every FIFO sleeping on output port ``op`` becomes awake."""
    ob = op * OPC
    f = ld(ops, ob + OP_WHEAD)
    while f >= 0:
        nxt = ld(fcold, f * FC_COLS + FC_WNEXT)
        st(fs, f * FS_COLS + FS_WAIT, -1)
        na = _enlist(fs, active, na, f)
        f = nxt
    s = ld(ops, ob + OP_SLEEP)
    if s > 1:
        cnt[K_EXCESS] -= s - 1
    st(ops, ob + OP_SLEEP, 0)
    st(ops, ob + OP_WHEAD, -1)
    return na


@njit(cache=True, inline="always")
def _credit(fs, fcold, ops, OPC, ncred, active, na, cnt, f, V):
    """A slot of FIFO ``f`` is free again, as its sender now sees."""
    fb = f * FS_COLS
    up = ld(fs, fb + FS_UP)
    vc = ld(fs, fb + FS_VC)
    if up >= 0:
        c = up * OPC + OP_OWN + V + vc
        st(ops, c, ld(ops, c) + 1)
        if ld(ops, up * OPC + OP_WHEAD) >= 0:
            na = _wake(fs, fcold, ops, OPC, active, na, cnt, up)
    else:
        c = (-up - 1) * V + vc
        st(ncred, c, ld(ncred, c) + 1)
    return na


@njit(cache=True, inline="always")
def _out_request(ops, OPC, op_key, rr_out, arb_pre, arb, R, op, f, ov, ipl):
    """Offer FIFO ``f`` (input port ``ipl``) to output port ``op``; keep the winner.

    ``arb_pre``: :func:`hash_prefix` of ``(seed, S_ARB_OUT, cycle)``."""
    ob = op * OPC
    bf = ld(ops, ob + OP_BF)
    if bf < 0:
        st(ops, ob + OP_BF, f)
        st(ops, ob + OP_BVC, ov)
        st(ops, ob + OP_BIP, ipl)
        st(ops, ob + OP_KEYOK, 0)
        return
    bip = ld(ops, ob + OP_BIP)
    if arb == 0:
        if ld(ops, ob + OP_KEYOK) == 0:
            st(op_key, op, hash_tail(arb_pre, op * R + bip))
            st(ops, ob + OP_KEYOK, 1)
        k = hash_tail(arb_pre, op * R + ipl)
        kb = ld(op_key, op)
        win = k > kb or (k == kb and ipl < bip)
        if win:
            st(op_key, op, k)
    else:
        ptr = ld(rr_out, op)
        win = (ipl - ptr) % R < (bip - ptr) % R
    if win:
        st(ops, ob + OP_BF, f)
        st(ops, ob + OP_BVC, ov)
        st(ops, ob + OP_BIP, ipl)


@njit(cache=True, inline="always")
def _fail(cnt, status, f, p, t):
    cnt[K_ERR_F] = f
    cnt[K_ERR_PKT] = p
    cnt[K_T] = t
    return status


# ---------------------------------------------------------------------------- the phases
# Each phase takes the named groups of state it needs (:mod:`fattree.sim.state`: ``net``
# static tables, ``sw`` switch FIFOs and ports, ``arb`` arbitration, ``src`` sources,
# ``pkt`` packet pool, ``stats`` counters) and returns the loop scalars it changes. The
# two that take the fault view (injection, evaluation) are inlined into :func:`_run` at
# numba's IR level; the others are functions of their own, called once per cycle, so
# that every variant of the kernel (fault-free, each fault engine, closed loop) reuses
# their compiled code instead of typing them again (a variant after the first compiles
# in a fifth to two fifths less time; the same speed: benchmarks/sim_ab.py).


@numba_only()
def _phase_credits(net, sw, src, stats, t, na):
    """Credits whose delay ends this cycle reach their senders."""
    if net.cfg[C_CD] > 0:
        V = net.cfg[C_V]
        OPC = sw.ops.shape[1]
        w = t % sw.wheel.shape[0]
        for e in range(sw.wheel_n[w]):
            na = _credit(
                sw.fs, sw.fcold, sw.ops, OPC, src.ncred, sw.busy, na, stats.cnt, sw.wheel[w, e], V
            )
        sw.wheel_n[w] = 0
    return na


@numba_only()
def _phase_create(net, src, stats, t, npend):
    """New packets join their sources' queues; sources with work join the pending list.

    A closed-loop source (``src.wl``, :mod:`fattree.sim.closedloop`) replaces the
    injection process: its operations that can start do, and sends queue their packets."""
    if cl_on(src.wl):
        return cl_create(src.wl, src, stats.cnt, t, npend)
    cfg = net.cfg
    cnt = stats.cnt
    q = src.q
    qh = src.qh
    ql = src.ql
    qcap = q.shape[1]
    nc = create_cycle(
        cfg[C_ICODE], net.iip, net.itab, src.istate, net.src_ids, t, cfg[C_SEED], src.creators
    )
    for j in range(nc):
        i = ld(src.creators, j)
        pos = ld(qh, i) + ld(ql, i)
        if pos >= qcap:
            pos -= qcap
        st(q, i * qcap + pos, t)
        qn = ld(ql, i) + 1
        st(ql, i, qn)
        if qn > cnt[K_QPEAK]:
            cnt[K_QPEAK] = qn
        if ld(src.inj, i * INJ_COLS + INJ_PEND) == 0:
            st(src.inj, i * INJ_COLS + INJ_PEND, 1)
            st(src.pend, npend, i)
            npend += 1
    cnt[K_CREATED] += nc
    cnt[K_QUEUED] += nc
    if t < stats.ser.shape[0]:
        stats.ser[t, 0] = nc
    warm = cfg[C_WARM]
    if cfg[C_TERM] == 1 and warm <= t < warm + cfg[C_MEAS]:
        cnt[K_WIN_CREATED] += nc
        cnt[K_WIN_FLITS_CREATED] += nc * cfg[C_F]
    return npend


@njit(cache=True, inline="always")
def _phase_inject(net, sw, src, pkt, stats, flt, t, na, npend):
    """Each pending node starts its next packet (free VC with the most credits) or sends
    the next flit of the current one into its leaf switch.

    Returns ``(na, npend, flits_in)``."""
    cfg = net.cfg
    cnt = stats.cnt
    ser = stats.ser
    nser = ser.shape[0]
    V = cfg[C_V]
    F = cfg[C_F]
    N = cfg[C_N]
    RD = cfg[C_RD]
    seed = cfg[C_SEED]
    window = cfg[C_TERM] == 1
    warm = cfg[C_WARM]
    wend = warm + cfg[C_MEAS]
    use_rcache = cfg[C_RCACHE] != 0
    ft = cfg[C_FT] != 0
    RC = cfg[C_RING]
    injvc = V if cfg[C_INJVC0] == 0 else 1
    tcode = cfg[C_TCODE]
    RCW = net.rcache.shape[1]
    inj = src.inj
    ncred = src.ncred
    q = src.q
    qh = src.qh
    ql = src.ql
    qcap = q.shape[1]
    quota = src.quota
    dfirst = src.dfirst
    pk = pkt.pk
    flits_in = 0
    kept = 0
    for j in range(npend):
        i = ld(src.pend, j)
        ib = i * INJ_COLS
        p = ld(inj, ib + INJ_PKT)
        if p < 0 and ld(ql, i) == 0:  # idle: leaves the pending list
            st(inj, ib + INJ_PEND, 0)
            continue
        st(src.pend, kept, i)
        kept += 1
        if p < 0:
            vb = -1
            cb = 0
            for v in range(injvc):
                c = ld(ncred, i * V + v)
                if c > cb:
                    cb = c
                    vb = v
            if vb < 0:
                continue
            seq = ld(src.nseq, i)
            d = dest(tcode, net.tip, net.tfp, net.ttab, N, i, seq, seed)
            h = ld(qh, i)
            tc = ld(q, i * qcap + h)
            st(qh, i, h + 1 if h + 1 < qcap else 0)
            st(ql, i, ld(ql, i) - 1)
            cnt[K_QUEUED] -= 1
            st(src.nseq, i, seq + 1)
            d, tc = cl_dest(src.wl, i, d, tc)  # closed loop: the head message's
            adm = 0
            if ft:  # the source evaluates the route: a packet without one is never injected
                adm = fault_admit(flt, V, i, d)
            if adm != 0:  # no route: counted, never injected
                if adm == 1:
                    cnt[K_UNROUTABLE] += 1
                else:
                    cnt[K_LIVELOCK] += 1
                cl_drop(src.wl, src, cnt, i, adm, t)  # closed loop: the whole message
                if t < nser:  # the series counts it as leaving, like a delivery
                    ser[t, 1] += 1
                if window:
                    if warm <= tc < wend:
                        cnt[K_WIN_DROPPED] += 1
                elif seq < quota[i]:  # the source is done with it
                    dfirst[i] += 1
                    if dfirst[i] == quota[i]:
                        cnt[K_DONE_SRC] += 1
                continue
            top = cnt[K_FREE] - 1
            p = ld(pkt.pfree, top)
            cnt[K_FREE] = top
            cl_bind(src.wl, i, p)
            pb = p * PK_COLS
            st(pk, pb + PK_SRC, i)
            st(pk, pb + PK_DST, d)
            st(pk, pb + PK_SEQ, seq)
            st(pk, pb + PK_TC, tc)
            st(pk, pb + PK_TI, t)
            st(pk, pb + PK_HOPS, 1)
            if ft:
                st(pk, pb + PK_FT, fault_budget(flt))
            if window:
                st(pk, pb + PK_MEAS, 1 if warm <= tc < wend else 0)
            else:
                st(pk, pb + PK_MEAS, 1 if seq < ld(quota, i) else 0)
            st(inj, ib + INJ_PKT, p)
            st(inj, ib + INJ_FLIT, 0)
            st(inj, ib + INJ_VC, vb)
            cnt[K_INJECTED] += 1
        v = ld(inj, ib + INJ_VC)
        if ld(ncred, i * V + v) <= 0:
            continue
        st(ncred, i * V + v, ld(ncred, i * V + v) - 1)
        d = ld(pk, p * PK_COLS + PK_DST)
        k = ld(inj, ib + INJ_FLIT)
        r = -1
        if use_rcache and k == 0:  # the head's route, looked up early
            r = ld(net.rcache, net.node_fifo[i, 1] * RCW + d)
        na = _push(
            sw.fs, sw.slots, RC, sw.busy, na, net.node_fifo[i, 0] + v, p, t + 1 + RD, d, 1, r
        )
        flits_in += 1
        cl_flit_in(src.wl, i, p, k + 1 == F, t)
        if k + 1 == F:
            st(inj, ib + INJ_PKT, -1)
        else:
            st(inj, ib + INJ_FLIT, k + 1)
    return na, kept, flits_in


@njit(cache=True, inline="always")
def _phase_evaluate(net, sw, arb, pkt, stats, flt, t, na):
    """Every awake FIFO with a ready head flit requests an output VC against the state at
    the start of the cycle (route, VC choice, input then output arbitration); nothing but
    the arbitration scratch changes. Blocked heads go to sleep on their port afterwards.

    Returns ``(status, na, nto)``: ``status`` is ``ST_CHUNK`` unless a route failed, ``nto``
    the number of output ports touched (in ``arb.touched_op``)."""
    cfg = net.cfg
    cnt = stats.cnt
    R = cfg[C_R]
    V = cfg[C_V]
    seed = cfg[C_SEED]
    rcode = cfg[C_RCODE]
    adaptive = cfg[C_ADAPT] != 0
    use_rcache = cfg[C_RCACHE] != 0
    ft = cfg[C_FT] != 0  # faults: each switch routes by the fault-tolerant kernel (faulthop)
    donly = cfg[C_DONLY] != 0
    sleep = cfg[C_SLEEP] != 0 and not adaptive
    arbm = cfg[C_ARB]
    CR = OP_OWN + V  # first credit column of ops
    fs = sw.fs
    ops = sw.ops
    busy = sw.busy
    sleepq = sw.sleepq
    OPC = ops.shape[1]
    rcache = net.rcache
    RCW = rcache.shape[1]
    riparams = net.riparams
    rtable = net.rtable
    port_peer = net.port_peer
    pk = pkt.pk
    cand = arb.cand
    touched_op = arb.touched_op
    touched_in = arb.touched_in
    in_scr = arb.in_scr
    in_key = arb.in_key
    op_key = arb.op_key
    rr_out = arb.rr_out
    rr_in = arb.rr_in
    nto = 0
    nti = 0
    nsl = 0
    kept = 0
    evals = 0
    arb_pre = hash_prefix(seed, S_ARB_OUT, t)  # hash3(seed, S_ARB_OUT, t, .) = tail
    in_pre = hash_prefix(seed, S_ARB_IN, t)
    bitmap = na < 0
    if bitmap:  # large networks: visit busy FIFOs in index order (memory locality)
        nit = 0
        order = sw.order
        for wi in range(busy.shape[0]):
            word = ld(busy, wi)
            while word != 0:
                low = word & -word
                word ^= low
                st(order, nit, wi * 32 + _BITPOS[(np.uint64(low) * _DEBRUIJN) >> np.uint64(58)])
                nit += 1
        lst = order
    else:
        nit = na
        lst = busy
    for j in range(nit):
        if j + PF_LIST < nit:  # list -> FIFO row: start the load ahead
            prefetch(fs, ld(lst, j + PF_LIST) * FS_COLS)
        f = ld(lst, j)
        fb = f * FS_COLS
        if ld(fs, fb + FS_LEN) == 0 or ld(fs, fb + FS_WAIT) >= 0:  # emptied or asleep
            if bitmap:
                st(busy, f >> 5, ld(busy, f >> 5) & ~(np.int64(1) << np.int64(f & 31)))
            else:
                st(fs, fb + FS_INLIST, 0)
            continue
        if not bitmap:
            st(lst, kept, f)
            kept += 1
        if ld(fs, fb + FS_HREADY) > t:
            continue
        evals += 1
        s_w = ld(fs, fb + FS_SW)
        ipl = ld(fs, fb + FS_IP)
        o = ld(fs, fb + FS_OUT)
        if o >= 0:  # body or tail flit: the packet holds an output VC
            op = s_w * R + o
            ob = op * OPC
            ov = ld(fs, fb + FS_OVC)
            dem = ld(ops, ob + OP_DEM)
            if dem == 0:
                st(touched_op, nto, op)
                nto += 1
            st(ops, ob + OP_DEM, dem + 1)
            if ld(ops, ob + OP_TGT) >= 0 and ld(ops, ob + CR + ov) <= 0:
                if sleep:
                    st(sleepq, 2 * nsl, f)
                    st(sleepq, 2 * nsl + 1, op)
                    nsl += 1
                continue
        else:  # head flit: route, then pick the least occupied free output VC
            vc = ld(fs, fb + FS_VC)
            ncand = 1
            cached = ld(fs, fb + FS_ROUTE)
            fhop = 0
            if ft:
                fhop = ld(fs, fb + FS_HHOPS) - 1  # switches before this one
                if cached == -1:  # once per switch: the kernel may update the header state
                    cached = fault_port(
                        flt, pk, ld(fs, fb + FS_HPKT), s_w, ipl, vc, ld(fs, fb + FS_HDST), fhop, V
                    )
                    if cached == -1:  # an admitted packet always has a port: a kernel bug
                        return _fail(cnt, ST_NOROUTE, f, ld(fs, fb + FS_HPKT), t), na, nto
                    st(fs, fb + FS_ROUTE, cached)
            if cached == -1 and not adaptive:  # (< -1: the adaptive rule's candidates)
                d = ld(fs, fb + FS_HDST)
                if use_rcache:
                    cached = ld(rcache, s_w * RCW + d)
                if cached < 0:
                    if donly:  # tested: the route ignores source, key and input port
                        ncand = route_ports(
                            rcode, riparams, rtable, port_peer, s_w, ipl, 0, d, 0, cand
                        )
                    else:
                        pb = ld(fs, fb + FS_HPKT) * PK_COLS
                        s = ld(pk, pb + PK_SRC)
                        ncand = route_ports(
                            rcode,
                            riparams,
                            rtable,
                            port_peer,
                            s_w,
                            ipl,
                            s,
                            d,
                            (s << 32) + ld(pk, pb + PK_SEQ),
                            cand,
                        )
                    if ncand <= 0:
                        return _fail(cnt, ST_NOROUTE, f, ld(fs, fb + FS_HPKT), t), na, nto
                    cached = cand[0]
                    ncand = 1
                    if use_rcache:
                        st(rcache, s_w * RCW + d, cached)
                st(fs, fb + FS_ROUTE, cached)
            if adaptive:
                p = ld(fs, fb + FS_HPKT)
                pb = p * PK_COLS
                s = ld(pk, pb + PK_SRC)
                ncand = route_ports(
                    rcode,
                    riparams,
                    rtable,
                    port_peer,
                    s_w,
                    ipl,
                    s,
                    ld(pk, pb + PK_DST),
                    (s << 32) + ld(pk, pb + PK_SEQ),
                    cand,
                )
                if ncand <= 0:
                    return _fail(cnt, ST_NOROUTE, f, p, t), na, nto
            else:  # the port, or under faults the adaptive rule's candidates
                ncand = fault_ports(flt, cached, s_w, ld(fs, fb + FS_HDST), cand)
            bo = -1
            ov = -1
            bs = 0
            for c in range(ncand):
                port = cand[c]
                obc = (s_w * R + port) * OPC
                tg = ld(ops, obc + OP_TGT)
                lo = 0
                hi = V
                if V > 1:
                    if ft:
                        nv = fault_class(flt, s_w, ipl, vc, port, fhop, V)
                    else:
                        nv = next_vc(rcode, riparams, s_w, ipl, vc, port, V)
                    if nv >= 0:
                        lo = nv
                        hi = nv + 1
                for v in range(lo, hi):
                    if ld(ops, obc + OP_OWN + v) >= 0:
                        continue
                    sc = _EJECT_SCORE if tg < 0 else ld(ops, obc + CR + v)
                    if sc > bs:
                        bs = sc
                        bo = port
                        ov = v
            op = s_w * R + (cand[0] if bo < 0 else bo)
            ob = op * OPC
            dem = ld(ops, ob + OP_DEM)
            if dem == 0:
                st(touched_op, nto, op)
                nto += 1
            st(ops, ob + OP_DEM, dem + 1)
            if bo < 0:
                if sleep:
                    st(sleepq, 2 * nsl, f)
                    st(sleepq, 2 * nsl + 1, op)
                    nsl += 1
                continue
        if V == 1:
            _out_request(ops, OPC, op_key, rr_out, arb_pre, arbm, R, op, f, ov, ipl)
            continue
        gip = s_w * R + ipl  # input (VC) arbitration: one request per input port
        ib = gip * IN_COLS
        bf = ld(in_scr, ib + IN_BF)
        if bf < 0:
            st(touched_in, nti, gip)
            nti += 1
            win = True
            st(in_scr, ib + IN_KEYOK, 0)
        elif arbm == 0:
            if ld(in_scr, ib + IN_KEYOK) == 0:
                st(in_key, gip, hash_tail(in_pre, bf))
                st(in_scr, ib + IN_KEYOK, 1)
            k = hash_tail(in_pre, f)
            kb = ld(in_key, gip)
            win = k > kb or (k == kb and f < bf)
            if win:
                st(in_key, gip, k)
        else:
            ptr = ld(rr_in, gip)
            win = (ld(fs, fb + FS_VC) - ptr) % V < (ld(fs, bf * FS_COLS + FS_VC) - ptr) % V
        if win:
            st(in_scr, ib + IN_BF, f)
            st(in_scr, ib + IN_BOP, op)
            st(in_scr, ib + IN_BVC, ov)
    if not bitmap:
        na = kept
    cnt[K_EVALS] += evals
    for j in range(nti):
        ib = ld(touched_in, j) * IN_COLS
        bf = ld(in_scr, ib + IN_BF)
        _out_request(
            ops,
            OPC,
            op_key,
            rr_out,
            arb_pre,
            arbm,
            R,
            ld(in_scr, ib + IN_BOP),
            bf,
            ld(in_scr, ib + IN_BVC),
            ld(fs, bf * FS_COLS + FS_IP),
        )
        st(in_scr, ib + IN_BF, -1)
    # port conflicts of this cycle
    add = cnt[K_EXCESS]
    for j in range(nto):
        ob = ld(touched_op, j) * OPC
        s = ld(ops, ob + OP_SLEEP)
        a = ld(ops, ob + OP_DEM) + s - 1
        if a > 0:
            add += a
        if s > 1:
            add -= s - 1
    cnt[K_CONFLICTS] += add
    # blocked FIFOs go to sleep
    for j in range(nsl):
        f = ld(sleepq, 2 * j)
        op = ld(sleepq, 2 * j + 1)
        ob = op * OPC
        st(fs, f * FS_COLS + FS_WAIT, op)
        st(sw.fcold, f * FC_COLS + FC_WNEXT, ld(ops, ob + OP_WHEAD))
        st(ops, ob + OP_WHEAD, f)
        s = ld(ops, ob + OP_SLEEP)
        if s >= 1:
            cnt[K_EXCESS] += 1
        st(ops, ob + OP_SLEEP, s + 1)
    return ST_CHUNK, na, nto


@numba_only()
def _phase_commit(net, sw, arb, src, pkt, stats, t, na, nto):
    """The winner of each touched output port moves one flit: downstream into a FIFO, or
    into its node (delivering the packet with its tail).

    Returns ``(status, na, moves, flits_out)``; ``status`` is ``ST_CHUNK`` unless a head
    reached a wrong node."""
    cfg = net.cfg
    cnt = stats.cnt
    R = cfg[C_R]
    V = cfg[C_V]
    F = cfg[C_F]
    RD = cfg[C_RD]
    CD = cfg[C_CD]
    arbm = cfg[C_ARB]
    window = cfg[C_TERM] == 1
    warm = cfg[C_WARM]
    wend = warm + cfg[C_MEAS]
    use_rcache = cfg[C_RCACHE] != 0
    RC = cfg[C_RING]
    CR = OP_OWN + V
    fs = sw.fs
    ops = sw.ops
    slots = sw.slots
    busy = sw.busy
    wheel = sw.wheel
    wheel_n = sw.wheel_n
    W = wheel.shape[0]
    OPC = ops.shape[1]
    rcache = net.rcache
    RCW = rcache.shape[1]
    touched_op = arb.touched_op
    rr_out = arb.rr_out
    rr_in = arb.rr_in
    pk = pkt.pk
    lvl_flits = stats.lvl_flits
    hist_lat = stats.hist_lat
    hist_net = stats.hist_net
    H = hist_lat.shape[0]
    ser = stats.ser
    nser = ser.shape[0]
    dfirst = src.dfirst
    quota = src.quota
    moves = 0
    flits_out = 0
    for j in range(nto):
        op = ld(touched_op, j)
        ob = op * OPC
        st(ops, ob + OP_DEM, 0)
        f = ld(ops, ob + OP_BF)
        if f < 0:
            continue
        st(ops, ob + OP_BF, -1)
        ov = ld(ops, ob + OP_BVC)
        ipl = ld(ops, ob + OP_BIP)
        fb = f * FS_COLS
        s_w = ld(fs, fb + FS_SW)
        if arbm == 1:
            st(rr_out, op, ipl + 1 if ipl + 1 < R else 0)
            if V > 1:
                st(rr_in, s_w * R + ipl, (ld(fs, fb + FS_VC) + 1) % V)
        fi = ld(fs, fb + FS_FIDX)
        st(fs, fb + FS_FIDX, fi + 1 if fi + 1 < F else 0)
        p = ld(fs, fb + FS_HPKT)
        d = ld(fs, fb + FS_HDST)
        hops = ld(fs, fb + FS_HHOPS) + 1
        ln = ld(fs, fb + FS_LEN) - 1
        st(fs, fb + FS_LEN, ln)
        newroute = -1
        if ln > 0:  # the next flit becomes the head
            rh = ld(fs, fb + FS_RHEAD)
            sb = (f * RC + rh) * SL_COLS
            nd = ld(slots, sb + SL_DST)
            st(fs, fb + FS_HPKT, ld(slots, sb + SL_PKT))
            st(fs, fb + FS_HREADY, ld(slots, sb + SL_READY))
            st(fs, fb + FS_HDST, nd)
            st(fs, fb + FS_HHOPS, ld(slots, sb + SL_HOPS))
            st(fs, fb + FS_RHEAD, rh + 1 if rh + 1 < RC else 0)
            if use_rcache and fi == F - 1:  # a new packet's head: its route, early
                newroute = ld(rcache, s_w * RCW + nd)
        if CD == 0:
            na = _credit(fs, sw.fcold, ops, OPC, src.ncred, busy, na, cnt, f, V)
        else:
            w = (t + 1 + CD) % W
            wheel[w, wheel_n[w]] = f
            wheel_n[w] += 1
        if fi == 0:
            st(fs, fb + FS_OUT, op - s_w * R)
            st(fs, fb + FS_OVC, ov)
            st(ops, ob + OP_OWN + ov, f)
        if fi == F - 1:
            st(ops, ob + OP_OWN + ov, -1)
            st(fs, fb + FS_OUT, -1)
            st(fs, fb + FS_ROUTE, newroute)
            if ld(ops, ob + OP_WHEAD) >= 0:
                na = _wake(fs, sw.fcold, ops, OPC, busy, na, cnt, op)
        lv = ld(ops, ob + OP_LVL)
        st(lvl_flits, lv, ld(lvl_flits, lv) + 1)
        moves += 1
        tg = ld(ops, ob + OP_TGT)
        cl_flit_out(src.wl, op, p, tg < 0 and fi == F - 1, t)
        if tg >= 0:
            st(ops, ob + CR + ov, ld(ops, ob + CR + ov) - 1)
            r = -1
            if use_rcache and fi == 0:
                r = ld(rcache, ld(ops, ob + OP_TSW) * RCW + d)
            na = _push(fs, slots, RC, busy, na, tg + ov, p, t + 1 + RD, d, hops, r)
            continue
        pb = p * PK_COLS
        if fi == 0:
            if -tg - 1 != d:
                return _fail(cnt, ST_MISROUTE, f, p, t), na, moves, flits_out
            st(pk, pb + PK_HOPS, hops)
        flits_out += 1
        if window and warm <= t < wend:
            cnt[K_WIN_FLITS_OUT] += 1
        if fi != F - 1:
            continue
        # the tail reached its node: the packet is delivered
        cnt[K_DELIVERED] += 1
        if t < nser:
            ser[t, 1] += 1
        if ld(pk, pb + PK_MEAS) != 0:
            lat = t - ld(pk, pb + PK_TC) + 1
            net_lat = t - ld(pk, pb + PK_TI) + 1
            cnt[K_MEAS_N] += 1
            cnt[K_LAT_SUM] += lat
            cnt[K_NET_SUM] += net_lat
            cnt[K_HOPS_SUM] += ld(pk, pb + PK_HOPS)
            hist_lat[min(lat, H - 1)] += 1
            hist_net[min(net_lat, H - 1)] += 1
            if lat > cnt[K_LAT_MAX]:
                cnt[K_LAT_MAX] = lat
            if net_lat > cnt[K_NET_MAX]:
                cnt[K_NET_MAX] = net_lat
            if not window:
                s = ld(pk, pb + PK_SRC)
                dfirst[s] += 1
                if dfirst[s] == quota[s]:
                    cnt[K_DONE_SRC] += 1
        st(pkt.pfree, cnt[K_FREE], p)
        cnt[K_FREE] += 1
    return ST_CHUNK, na, moves, flits_out


@numba_only()
def _phase_end(net, sw, stats, t, na, npend, flits_in, flits_out, moves):
    """Book the cycle ``t`` and decide whether the run ends after it.

    Returns ``ST_CHUNK`` to go on, else the status that ends the run."""
    cfg = net.cfg
    cnt = stats.cnt
    fs = sw.fs
    dlwin = cfg[C_DLWIN]
    cnt[K_NACTIVE] = na
    cnt[K_NPEND] = npend
    cnt[K_FLITS_IN] += flits_in
    cnt[K_FLITS_OUT] += flits_out
    stats.lvl_flits[0] += flits_in
    if moves > 0:
        cnt[K_MOVES] += moves
        cnt[K_LAST_MOVE] = t
    cnt[K_QSUM] += cnt[K_QUEUED]
    t += 1
    cnt[K_T] = t
    if cnt[K_FLITS_IN] > cnt[K_FLITS_OUT] and t - 1 - cnt[K_LAST_MOVE] > dlwin:
        return ST_DEADLOCK
    if cfg[C_TERM] == 1:
        if (
            t >= cfg[C_WARM] + cfg[C_MEAS]
            and cnt[K_MEAS_N] + cnt[K_WIN_DROPPED] == cnt[K_WIN_CREATED]
        ):
            return ST_DONE
    elif cnt[K_DONE_SRC] >= cfg[C_NQUOTA]:
        return ST_DONE
    if t >= cfg[C_MAXCYC]:
        return ST_CAP
    if t % dlwin == 0:
        cnt[K_STALE_DUE] = 1
    if cnt[K_STALE_DUE] != 0 and moves > 0:
        # a part of the network may be wedged while the rest moves: a FIFO whose head
        # has been ready for the window without leaving makes the engine look for a
        # wait-for cycle. Only while flits move: a network that stopped is the global
        # rule's (as reference.py)
        cnt[K_STALE_DUE] = 0
        for f in range(fs.shape[0]):
            if fs[f, FS_LEN] > 0 and t - fs[f, FS_HREADY] > dlwin:
                return ST_STALE
    return ST_CHUNK


@njit(cache=True, **NO_NRT)
def _run(net, sw, arb, src, pkt, stats, flt, t_stop):
    """Simulate cycles ``stats.cnt[K_T] .. t_stop - 1``; return a status (``ST_*``).

    The arguments are the named groups of :meth:`fattree.sim.state.State.args`. Returns
    early, before starting a cycle, when a source queue or the packet pool must grow (the
    engine grows them and calls again), and after a cycle that ends the run.
    """
    cnt = stats.cnt
    maxper = net.cfg[C_MAXPER]
    nsrc = net.cfg[C_NSRC]
    qcap = src.q.shape[1]
    t = cnt[K_T]
    na = cnt[K_NACTIVE]
    npend = cnt[K_NPEND]
    while t < t_stop:
        if cnt[K_QPEAK] + maxper > qcap:
            return ST_GROW_QUEUE
        if cnt[K_FREE] < nsrc or cl_low(src.wl):  # (or a workload's operation slots)
            return ST_GROW_POOL
        na = _phase_credits(net, sw, src, stats, t, na)
        npend = _phase_create(net, src, stats, t, npend)
        na, npend, flits_in = _phase_inject(net, sw, src, pkt, stats, flt, t, na, npend)
        status, na, nto = _phase_evaluate(net, sw, arb, pkt, stats, flt, t, na)
        if status != ST_CHUNK:
            return status
        status, na, moves, flits_out = _phase_commit(net, sw, arb, src, pkt, stats, t, na, nto)
        if status != ST_CHUNK:
            return status
        status = _phase_end(net, sw, stats, t, na, npend, flits_in, flits_out, moves)
        t += 1
        if status == ST_CHUNK:  # a closed-loop source ends the run when its work is done
            status = cl_status(src.wl, cnt, pkt.pfree.shape[0])
        if status != ST_CHUNK:
            return status
    return ST_CHUNK
