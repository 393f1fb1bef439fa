"""The numba cycle loop of the wormhole simulator (private; see :mod:`fattree.sim.engine`).

State is struct-of-arrays (:mod:`fattree.sim.layout`); no object per flit or packet.
Each cycle: credits due, packet creation, injection, then every awake input FIFO
with a ready head flit is *evaluated* against the state at the start of the cycle
(route, output VC, request) and only then are the arbitration winners *committed*.

Two things keep the work proportional to what moves, without changing the model:

* only non-empty FIFOs are visited: an active list, or on large networks a busy
  bit per FIFO scanned in index order (neighbouring FIFOs and ports share cache lines);
* a FIFO whose head is blocked (its output VC is held by another packet, or no
  credit) cannot become unblocked before a tail passes or a credit returns at that
  output port, so it sleeps in the port's wait list and is woken by those events.
  Sleepers keep counting in the port-conflict metric (``OP_SLEEP``).

Every random decision is a hash of ``(seed, cycle, ids)``, so the visiting order
never matters and the reference simulator (:mod:`fattree.sim.reference`), which
evaluates every FIFO every cycle, reproduces each run exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..routing.kernel import next_vc, route_ports
from ..traffic.injection import create_cycle
from ..traffic.patterns import dest
from ..traffic.rng import S_ARB_IN, S_ARB_OUT, hash3
from .layout import (C_ADAPT, C_FT, C_ARB, C_CD, C_DLWIN, C_DONLY, C_F, C_ICODE, C_INJVC0, C_MAXCYC,
                     C_MAXPER, C_MEAS, C_N, C_NQUOTA, C_NSRC, C_R, C_RCACHE, C_RCODE, C_RD, C_RING,
                     C_SEED, C_SLEEP, C_TCODE, C_TERM, C_V, C_WARM, FC_MOVED,
                     FC_WNEXT, FS_FIDX, FS_HDST,
                     FS_HHOPS, FS_HPKT, FS_HREADY, FS_INLIST, FS_IP, FS_LEN, FS_OUT, FS_OVC,
                     FS_RHEAD, FS_ROUTE, FS_SW, FS_UP, FS_VC, FS_WAIT, IN_BF, IN_BOP, IN_BVC,
                     IN_KEYOK, INJ_FLIT, INJ_PKT, INJ_VC, K_CONFLICTS, K_CREATED, K_DELIVERED,
                     K_DONE_SRC, K_ERR_F, K_ERR_PKT, K_EVALS, K_EXCESS, K_FLITS_IN, K_FLITS_OUT,
                     K_FREE, K_HOPS_SUM, K_INJECTED, K_LAST_MOVE, K_LIVELOCK, K_STALE_DUE,
                     K_UNROUTABLE,
                     K_WIN_DROPPED, K_LAT_MAX, K_LAT_SUM, K_MEAS_N,
                     K_MOVES, K_NACTIVE, K_NET_MAX, K_NET_SUM, K_QPEAK, K_QSUM, K_QUEUED, K_T,
                     K_WIN_CREATED, K_WIN_FLITS_CREATED, K_WIN_FLITS_OUT, OP_BF, OP_BIP, OP_BVC,
                     OP_DEM, OP_KEYOK, OP_LVL, OP_OWN, OP_SLEEP, OP_TGT, OP_TSW, OP_WHEAD, PK_DST,
                     PK_HOPS, PK_MEAS, PK_SEQ, PK_SRC, PK_TC, PK_TI, SL_DST, SL_HOPS, SL_PKT,
                     SL_READY, ST_CAP, ST_CHUNK, ST_DEADLOCK, ST_DONE, ST_GROW_POOL, ST_GROW_QUEUE,
                     ST_MISROUTE, ST_NOROUTE, ST_STALE)

_EJECT_SCORE = 1 << 30  # a node always accepts: an ejection port beats any credit count
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
        active[f >> 5] |= np.int64(1) << np.int64(f & 31)
        return na
    if fs[f, FS_INLIST] == 0:
        fs[f, FS_INLIST] = 1
        active[na] = f
        return na + 1
    return na


@njit(cache=True, inline="always")
def _push(fs, fcold, slots, RC, active, na, g, p, ready, dst, hops, route, t):
    """A flit enters FIFO ``g``: as its head if it was empty, else into its ring.

    ``route`` is the head's route if already known (from the route cache), else -1.
    """
    ln = fs[g, FS_LEN]
    fs[g, FS_LEN] = ln + 1
    if ln == 0:
        fcold[g, FC_MOVED] = t
        fs[g, FS_ROUTE] = route
        fs[g, FS_HPKT] = p
        fs[g, FS_HREADY] = ready
        fs[g, FS_HDST] = dst
        fs[g, FS_HHOPS] = hops
        return _enlist(fs, active, na, g)
    pos = fs[g, FS_RHEAD] + ln - 1
    if pos >= RC:
        pos -= RC
    s = g * RC + pos
    slots[s, SL_PKT] = p
    slots[s, SL_READY] = ready
    slots[s, SL_DST] = dst
    slots[s, SL_HOPS] = hops
    return na


@njit(cache=True, inline="always")
def _wake(fs, fcold, ops, active, na, cnt, op):
    """Every FIFO sleeping on output port ``op`` becomes awake."""
    f = ops[op, OP_WHEAD]
    while f >= 0:
        nxt = fcold[f, FC_WNEXT]
        fs[f, FS_WAIT] = -1
        na = _enlist(fs, active, na, f)
        f = nxt
    s = ops[op, OP_SLEEP]
    if s > 1:
        cnt[K_EXCESS] -= s - 1
    ops[op, OP_SLEEP] = 0
    ops[op, OP_WHEAD] = -1
    return na


@njit(cache=True, inline="always")
def _credit(fs, fcold, ops, ncred, active, na, cnt, f, V):
    """A slot of FIFO ``f`` is free again, as its sender now sees."""
    up = fs[f, FS_UP]
    if up >= 0:
        ops[up, OP_OWN + V + fs[f, FS_VC]] += 1
        if ops[up, OP_WHEAD] >= 0:
            na = _wake(fs, fcold, ops, active, na, cnt, up)
    else:
        ncred[-up - 1, fs[f, FS_VC]] += 1
    return na


@njit(cache=True, inline="always")
def _out_request(ops, op_key, rr_out, seed, t, arb, R, op, f, ov, ipl):
    """Offer FIFO ``f`` (input port ``ipl``) to output port ``op``; keep the winner."""
    bf = ops[op, OP_BF]
    if bf < 0:
        ops[op, OP_BF] = f
        ops[op, OP_BVC] = ov
        ops[op, OP_BIP] = ipl
        ops[op, OP_KEYOK] = 0
        return
    bip = ops[op, OP_BIP]
    if arb == 0:
        if ops[op, OP_KEYOK] == 0:
            op_key[op] = hash3(seed, S_ARB_OUT, t, op * R + bip)
            ops[op, OP_KEYOK] = 1
        k = hash3(seed, S_ARB_OUT, t, op * R + ipl)
        win = k > op_key[op] or (k == op_key[op] and ipl < bip)
        if win:
            op_key[op] = k
    else:
        ptr = rr_out[op]
        win = (ipl - ptr) % R < (bip - ptr) % R
    if win:
        ops[op, OP_BF] = f
        ops[op, OP_BVC] = ov
        ops[op, OP_BIP] = ipl


@njit(cache=True, _nrt=False)
def _run(cfg, port_peer, node_fifo, rcache, rtable, riparams, tip, tfp, ttab, iip, itab, istate,
         src_ids, fs, fcold, slots, ops, op_key, touched_op, in_scr, in_key, rr_out, rr_in,
         touched_in, busy, order, sleepq, q, qh, ql, inj, ncred, nseq, dfirst, quota, pk, pfree,
         wheel, wheel_n, cnt, hist_lat, hist_net, lvl_flits, ser, cand, creators, ft_ports,
         ft_vcs, ft_status, t_stop):
    """Simulate cycles ``cnt[K_T] .. t_stop - 1``; return a status (``ST_*``).

    Returns early, before starting a cycle, when a source queue or the packet pool must
    grow (the engine grows them and calls again), and after a cycle that ends the run.
    """
    R = cfg[C_R]
    V = cfg[C_V]
    F = cfg[C_F]
    N = cfg[C_N]
    RD = cfg[C_RD]
    CD = cfg[C_CD]
    arb = cfg[C_ARB]
    window = cfg[C_TERM] == 1
    warm = cfg[C_WARM]
    wend = warm + cfg[C_MEAS]
    dlwin = cfg[C_DLWIN]
    seed = cfg[C_SEED]
    rcode = cfg[C_RCODE]
    adaptive = cfg[C_ADAPT] != 0
    use_rcache = cfg[C_RCACHE] != 0
    ft = cfg[C_FT] != 0  # faults: source routes from ft_ports (row src * N + dst, hop index)
    donly = cfg[C_DONLY] != 0
    RC = cfg[C_RING]
    sleep = cfg[C_SLEEP] != 0 and not adaptive
    injvc = V if cfg[C_INJVC0] == 0 else 1
    tcode = cfg[C_TCODE]
    icode = cfg[C_ICODE]
    maxcyc = cfg[C_MAXCYC]
    maxper = cfg[C_MAXPER]
    nquota = cfg[C_NQUOTA]
    nsrc = cfg[C_NSRC]
    CR = OP_OWN + V  # first credit column of ops
    W = wheel.shape[0]
    qcap = q.shape[1]
    H = hist_lat.shape[0]
    nser = ser.shape[0]
    t = cnt[K_T]
    na = cnt[K_NACTIVE]
    while t < t_stop:
        if cnt[K_QPEAK] + maxper > qcap:
            return ST_GROW_QUEUE
        if cnt[K_FREE] < nsrc:
            return ST_GROW_POOL
        flits_in = 0
        # -------------------------------------------------- credits due this cycle
        if CD > 0:
            w = t % W
            for e in range(wheel_n[w]):
                na = _credit(fs, fcold, ops, ncred, busy, na, cnt, wheel[w, e], V)
            wheel_n[w] = 0
        # -------------------------------------------------- creation
        nc = create_cycle(icode, iip, itab, istate, src_ids, t, seed, creators)
        for j in range(nc):
            i = creators[j]
            pos = qh[i] + ql[i]
            if pos >= qcap:
                pos -= qcap
            q[i, pos] = t
            ql[i] += 1
            if ql[i] > cnt[K_QPEAK]:
                cnt[K_QPEAK] = ql[i]
        cnt[K_CREATED] += nc
        cnt[K_QUEUED] += nc
        if t < nser:
            ser[t, 0] = nc
        if window and warm <= t < wend:
            cnt[K_WIN_CREATED] += nc
            cnt[K_WIN_FLITS_CREATED] += nc * F
        # -------------------------------------------------- injection (node -> leaf)
        for j in range(nsrc):
            i = src_ids[j]
            p = inj[i, INJ_PKT]
            if p < 0:
                if ql[i] == 0:
                    continue
                vb = -1
                cb = 0
                for v in range(injvc):
                    c = ncred[i, v]
                    if c > cb:
                        cb = c
                        vb = v
                if vb < 0:
                    continue
                seq = nseq[i]
                d = dest(tcode, tip, tfp, ttab, N, i, seq, seed)
                if ft and ft_status[i * N + d] != 0:  # no route: counted, never injected
                    tc = q[i, qh[i]]
                    qh[i] = qh[i] + 1 if qh[i] + 1 < qcap else 0
                    ql[i] -= 1
                    cnt[K_QUEUED] -= 1
                    nseq[i] = seq + 1
                    if ft_status[i * N + d] == 1:
                        cnt[K_UNROUTABLE] += 1
                    else:
                        cnt[K_LIVELOCK] += 1
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
                p = pfree[top]
                cnt[K_FREE] = top
                tc = q[i, qh[i]]
                qh[i] = qh[i] + 1 if qh[i] + 1 < qcap else 0
                ql[i] -= 1
                cnt[K_QUEUED] -= 1
                nseq[i] = seq + 1
                pk[p, PK_SRC] = i
                pk[p, PK_DST] = d
                pk[p, PK_SEQ] = seq
                pk[p, PK_TC] = tc
                pk[p, PK_TI] = t
                pk[p, PK_HOPS] = 1
                if window:
                    pk[p, PK_MEAS] = 1 if warm <= tc < wend else 0
                else:
                    pk[p, PK_MEAS] = 1 if seq < quota[i] else 0
                inj[i, INJ_PKT] = p
                inj[i, INJ_FLIT] = 0
                inj[i, INJ_VC] = vb
                cnt[K_INJECTED] += 1
            v = inj[i, INJ_VC]
            if ncred[i, v] <= 0:
                continue
            ncred[i, v] -= 1
            d = pk[p, PK_DST]
            r = -1
            if use_rcache and inj[i, INJ_FLIT] == 0:  # the head's route, looked up early
                r = rcache[node_fifo[i, 1], d]
            na = _push(fs, fcold, slots, RC, busy, na, node_fifo[i, 0] + v, p, t + 1 + RD, d, 1, r, t)
            flits_in += 1
            k = inj[i, INJ_FLIT] + 1
            if k == F:
                inj[i, INJ_PKT] = -1
            else:
                inj[i, INJ_FLIT] = k
        # -------------------------------------------------- evaluate (no state change)
        nto = 0
        nti = 0
        nsl = 0
        kept = 0
        evals = 0
        bitmap = na < 0
        if bitmap:  # large networks: visit busy FIFOs in index order (memory locality)
            nit = 0
            for wi in range(busy.shape[0]):
                word = busy[wi]
                while word != 0:
                    low = word & -word
                    word ^= low
                    order[nit] = wi * 32 + _BITPOS[(np.uint64(low) * _DEBRUIJN) >> np.uint64(58)]
                    nit += 1
            lst = order
        else:
            nit = na
            lst = busy
        for j in range(nit):
            f = lst[j]
            if fs[f, FS_LEN] == 0 or fs[f, FS_WAIT] >= 0:  # emptied or asleep: leaves
                if bitmap:
                    busy[f >> 5] &= ~(np.int64(1) << np.int64(f & 31))
                else:
                    fs[f, FS_INLIST] = 0
                continue
            if not bitmap:
                lst[kept] = f
                kept += 1
            if fs[f, FS_HREADY] > t:
                continue
            evals += 1
            sw = fs[f, FS_SW]
            ipl = fs[f, FS_IP]
            o = fs[f, FS_OUT]
            if o >= 0:  # body or tail flit: the packet holds an output VC
                op = sw * R + o
                ov = fs[f, FS_OVC]
                if ops[op, OP_DEM] == 0:
                    touched_op[nto] = op
                    nto += 1
                ops[op, OP_DEM] += 1
                if ops[op, OP_TGT] >= 0 and ops[op, CR + ov] <= 0:
                    if sleep:
                        sleepq[nsl, 0] = f
                        sleepq[nsl, 1] = op
                        nsl += 1
                    continue
            else:  # head flit: route, then pick the least occupied free output VC
                vc = fs[f, FS_VC]
                ncand = 1
                cached = fs[f, FS_ROUTE]
                frow = 0
                fhop = 0
                if ft:
                    frow = pk[fs[f, FS_HPKT], PK_SRC] * N + fs[f, FS_HDST]
                    fhop = fs[f, FS_HHOPS] - 1  # links crossed before this switch, node link incl.
                    cached = ft_ports[frow, fhop]
                    if cached < 0:  # past the end of its route: a table/kernel bug
                        cnt[K_ERR_F] = f
                        cnt[K_ERR_PKT] = fs[f, FS_HPKT]
                        cnt[K_T] = t
                        return ST_NOROUTE
                    fs[f, FS_ROUTE] = cached
                if cached < 0 and not adaptive:
                    d = fs[f, FS_HDST]
                    if use_rcache:
                        cached = rcache[sw, d]
                    if cached < 0:
                        if donly:  # tested: the route ignores source, key and input port
                            ncand = route_ports(rcode, riparams, rtable, port_peer, sw, ipl, 0, d,
                                                0, cand)
                        else:
                            p = fs[f, FS_HPKT]
                            ncand = route_ports(rcode, riparams, rtable, port_peer, sw, ipl,
                                                pk[p, PK_SRC], d,
                                                (pk[p, PK_SRC] << 32) + pk[p, PK_SEQ], cand)
                        if ncand <= 0:
                            cnt[K_ERR_F] = f
                            cnt[K_ERR_PKT] = fs[f, FS_HPKT]
                            cnt[K_T] = t
                            return ST_NOROUTE
                        cached = cand[0]
                        ncand = 1
                        if use_rcache:
                            rcache[sw, d] = cached
                    fs[f, FS_ROUTE] = cached
                if adaptive:
                    p = fs[f, FS_HPKT]
                    ncand = route_ports(rcode, riparams, rtable, port_peer, sw, ipl, pk[p, PK_SRC],
                                        pk[p, PK_DST], (pk[p, PK_SRC] << 32) + pk[p, PK_SEQ], cand)
                    if ncand <= 0:
                        cnt[K_ERR_F] = f
                        cnt[K_ERR_PKT] = p
                        cnt[K_T] = t
                        return ST_NOROUTE
                else:
                    cand[0] = cached
                bo = -1
                ov = -1
                bs = 0
                for c in range(ncand):
                    port = cand[c]
                    opc = sw * R + port
                    tg = ops[opc, OP_TGT]
                    lo = 0
                    hi = V
                    if V > 1:
                        if ft:
                            nv = ft_vcs[frow, fhop]
                        else:
                            nv = next_vc(rcode, riparams, sw, ipl, vc, port, V)
                        if nv >= 0:
                            lo = nv
                            hi = nv + 1
                    for v in range(lo, hi):
                        if ops[opc, OP_OWN + v] >= 0:
                            continue
                        s = _EJECT_SCORE if tg < 0 else ops[opc, CR + v]
                        if s > bs:
                            bs = s
                            bo = port
                            ov = v
                op = sw * R + (cand[0] if bo < 0 else bo)
                if ops[op, OP_DEM] == 0:
                    touched_op[nto] = op
                    nto += 1
                ops[op, OP_DEM] += 1
                if bo < 0:
                    if sleep:
                        sleepq[nsl, 0] = f
                        sleepq[nsl, 1] = op
                        nsl += 1
                    continue
            if V == 1:
                _out_request(ops, op_key, rr_out, seed, t, arb, R, op, f, ov, ipl)
                continue
            gip = sw * R + ipl  # input (VC) arbitration: one request per input port
            bf = in_scr[gip, IN_BF]
            if bf < 0:
                touched_in[nti] = gip
                nti += 1
                win = True
                in_scr[gip, IN_KEYOK] = 0
            elif arb == 0:
                if in_scr[gip, IN_KEYOK] == 0:
                    in_key[gip] = hash3(seed, S_ARB_IN, t, bf)
                    in_scr[gip, IN_KEYOK] = 1
                k = hash3(seed, S_ARB_IN, t, f)
                win = k > in_key[gip] or (k == in_key[gip] and f < bf)
                if win:
                    in_key[gip] = k
            else:
                ptr = rr_in[gip]
                win = (fs[f, FS_VC] - ptr) % V < (fs[bf, FS_VC] - ptr) % V
            if win:
                in_scr[gip, IN_BF] = f
                in_scr[gip, IN_BOP] = op
                in_scr[gip, IN_BVC] = ov
        if not bitmap:
            na = kept
        cnt[K_EVALS] += evals
        for j in range(nti):
            gip = touched_in[j]
            bf = in_scr[gip, IN_BF]
            _out_request(ops, op_key, rr_out, seed, t, arb, R, in_scr[gip, IN_BOP], bf,
                         in_scr[gip, IN_BVC], fs[bf, FS_IP])
            in_scr[gip, IN_BF] = -1
        # -------------------------------------------------- port conflicts of this cycle
        add = cnt[K_EXCESS]
        for j in range(nto):
            op = touched_op[j]
            s = ops[op, OP_SLEEP]
            a = ops[op, OP_DEM] + s - 1
            if a > 0:
                add += a
            if s > 1:
                add -= s - 1
        cnt[K_CONFLICTS] += add
        # -------------------------------------------------- blocked FIFOs go to sleep
        for j in range(nsl):
            f = sleepq[j, 0]
            op = sleepq[j, 1]
            fs[f, FS_WAIT] = op
            fcold[f, FC_WNEXT] = ops[op, OP_WHEAD]
            ops[op, OP_WHEAD] = f
            s = ops[op, OP_SLEEP]
            if s >= 1:
                cnt[K_EXCESS] += 1
            ops[op, OP_SLEEP] = s + 1
        # -------------------------------------------------- commit the winners
        moves = 0
        flits_out = 0
        for j in range(nto):
            op = touched_op[j]
            ops[op, OP_DEM] = 0
            f = ops[op, OP_BF]
            if f < 0:
                continue
            ops[op, OP_BF] = -1
            ov = ops[op, OP_BVC]
            ipl = ops[op, OP_BIP]
            sw = fs[f, FS_SW]
            if arb == 1:
                rr_out[op] = ipl + 1 if ipl + 1 < R else 0
                if V > 1:
                    rr_in[sw * R + ipl] = (fs[f, FS_VC] + 1) % V
            fi = fs[f, FS_FIDX]
            fs[f, FS_FIDX] = fi + 1 if fi + 1 < F else 0
            p = fs[f, FS_HPKT]
            d = fs[f, FS_HDST]
            hops = fs[f, FS_HHOPS] + 1
            ln = fs[f, FS_LEN] - 1
            fs[f, FS_LEN] = ln
            fcold[f, FC_MOVED] = t
            newroute = -1
            if ln > 0:  # the next flit becomes the head
                rh = fs[f, FS_RHEAD]
                s0 = f * RC + rh
                fs[f, FS_HPKT] = slots[s0, SL_PKT]
                fs[f, FS_HREADY] = slots[s0, SL_READY]
                fs[f, FS_HDST] = slots[s0, SL_DST]
                fs[f, FS_HHOPS] = slots[s0, SL_HOPS]
                fs[f, FS_RHEAD] = rh + 1 if rh + 1 < RC else 0
                if use_rcache and fi == F - 1:  # a new packet's head: its route, early
                    newroute = rcache[sw, slots[s0, SL_DST]]
            if CD == 0:
                na = _credit(fs, fcold, ops, ncred, busy, na, cnt, f, V)
            else:
                w = (t + 1 + CD) % W
                wheel[w, wheel_n[w]] = f
                wheel_n[w] += 1
            if fi == 0:
                fs[f, FS_OUT] = op - sw * R
                fs[f, FS_OVC] = ov
                ops[op, OP_OWN + ov] = f
            if fi == F - 1:
                ops[op, OP_OWN + ov] = -1
                fs[f, FS_OUT] = -1
                fs[f, FS_ROUTE] = newroute
                if ops[op, OP_WHEAD] >= 0:
                    na = _wake(fs, fcold, ops, busy, na, cnt, op)
            lvl_flits[ops[op, OP_LVL]] += 1
            moves += 1
            tg = ops[op, OP_TGT]
            if tg >= 0:
                ops[op, CR + ov] -= 1
                r = -1
                if use_rcache and fi == 0:
                    r = rcache[ops[op, OP_TSW], d]
                na = _push(fs, fcold, slots, RC, busy, na, tg + ov, p, t + 1 + RD, d, hops, r, t)
                continue
            if fi == 0:
                if -tg - 1 != d:
                    cnt[K_ERR_F] = f
                    cnt[K_ERR_PKT] = p
                    cnt[K_T] = t
                    return ST_MISROUTE
                pk[p, PK_HOPS] = hops
            flits_out += 1
            if window and warm <= t < wend:
                cnt[K_WIN_FLITS_OUT] += 1
            if fi != F - 1:
                continue
            # the tail reached its node: the packet is delivered
            cnt[K_DELIVERED] += 1
            if t < nser:
                ser[t, 1] += 1
            if pk[p, PK_MEAS] != 0:
                lat = t - pk[p, PK_TC] + 1
                net = t - pk[p, PK_TI] + 1
                cnt[K_MEAS_N] += 1
                cnt[K_LAT_SUM] += lat
                cnt[K_NET_SUM] += net
                cnt[K_HOPS_SUM] += pk[p, PK_HOPS]
                hist_lat[min(lat, H - 1)] += 1
                hist_net[min(net, H - 1)] += 1
                if lat > cnt[K_LAT_MAX]:
                    cnt[K_LAT_MAX] = lat
                if net > cnt[K_NET_MAX]:
                    cnt[K_NET_MAX] = net
                if not window:
                    s = pk[p, PK_SRC]
                    dfirst[s] += 1
                    if dfirst[s] == quota[s]:
                        cnt[K_DONE_SRC] += 1
            pfree[cnt[K_FREE]] = p
            cnt[K_FREE] += 1
        # -------------------------------------------------- end of cycle
        cnt[K_NACTIVE] = na
        cnt[K_FLITS_IN] += flits_in
        cnt[K_FLITS_OUT] += flits_out
        lvl_flits[0] += flits_in
        if moves > 0:
            cnt[K_MOVES] += moves
            cnt[K_LAST_MOVE] = t
        cnt[K_QSUM] += cnt[K_QUEUED]
        t += 1
        cnt[K_T] = t
        if cnt[K_FLITS_IN] > cnt[K_FLITS_OUT] and t - 1 - cnt[K_LAST_MOVE] > dlwin:
            return ST_DEADLOCK
        if window:
            if t >= wend and cnt[K_MEAS_N] + cnt[K_WIN_DROPPED] == cnt[K_WIN_CREATED]:
                return ST_DONE
        elif cnt[K_DONE_SRC] >= nquota:
            return ST_DONE
        if t >= maxcyc:
            return ST_CAP
        if t % dlwin == 0:
            cnt[K_STALE_DUE] = 1
        if cnt[K_STALE_DUE] != 0 and moves > 0:
            # a part of the network may be wedged while the rest moves: a FIFO whose head
            # has not left for the window makes the engine look for a wait-for cycle. Only
            # while flits move: a network that stopped is the global rule's (as reference.py)
            cnt[K_STALE_DUE] = 0
            for f in range(fs.shape[0]):
                if fs[f, FS_LEN] > 0 and t - fcold[f, FC_MOVED] > dlwin:
                    return ST_STALE
    return ST_CHUNK
