"""The booksim model's cycle loop (private; numba, struct-of-arrays).

One call simulates cycles ``t .. t_stop - 1`` (or until the drain completes). A cycle
is BookSim2's ``TrafficManager::_Step`` with its routers' ``IQRouter::_InternalStep``:

1. events due now: credits reaching nodes, flits reaching nodes (accepted, retired),
   flits reaching router input buffers (``_InputQueuing``), credits reaching routers;
2. every node: lazy Bernoulli creation into its source queue (``_Inject``), then one
   flit onto its injection channel if its VC has a credit;
3. every router holding flits: VC allocation and switch allocation (iSLIP, one
   iteration each, evaluated on the state at the start of the cycle; speculative switch
   requests of heads in VC allocation when ``speculative``), then the updates.

Channels (latency 1) take two cycles from send to receive; the crossbar one: a flit
granted the switch in cycle ``s`` is read by the next router (or node) in ``s + 3``, its
credit reaches the upstream router in ``s + 2`` (applied ``credit_delay`` later) or the
upstream node in ``s + 2``; a node returns the credit of a flit it read in ``a`` to its
router in ``a + 2``. Flits are ``pid << LF | index`` codes; packets live in a pool. Ports
and VCs are padded to powers of two so that every index splits by shifts.

References
----------
BookSim2 commit 28f4329: ``src/trafficmanager.cpp`` (``_Step``, ``_Inject``,
``_RetireFlit``), ``src/routers/iq_router.cpp``, ``src/allocators/islip.cpp``,
``src/buffer_state.cpp``; docs/booksim.md.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

# cfg (int64) indices
(C_S, C_R, C_V, C_B, C_F, C_N, C_W, C_SPEC, C_RD, C_CD, C_RKIND, C_DMODE, C_HOT, C_TRACE, C_LR,
 C_LV, C_LF, C_NV) = range(18)
# fcfg (float64)
FC_P, FC_HOT = range(2)
# counters
(K_T, K_STATE, K_DRAIN_T, K_ACC, K_PLAT_SUM, K_PLAT_N, K_PLAT_MAX, K_NLAT_SUM, K_HOPS_SUM,
 K_MEAS_INFL, K_INFL_F, K_INFL_CT, K_CREATED, K_INJ_F, K_DELIVERED, K_NDRAINED, K_NFREE,
 K_AN, K_SENT_F, K_MOVES, K_NLAT_MAX, K_RESET_T, K_TRACE_LEFT, K_QSUM, K_QN) = range(25)
N_COUNTERS = 25
# simulation states (BookSim2's _sim_state)
WARMING, RUNNING, DRAINING = 0, 1, 2
# input VC states
IDLE, VA, ACTIVE = 0, 1, 2
# return status
ST_STOP, ST_DONE, ST_GROW = 0, 1, 2
# destination modes
D_UNIFORM_SELF, D_UNIFORM, D_TABLE, D_HOTSPOT = range(4)
HIST = 1 << 14

Net = namedtuple("Net", "cfg fcfg peer_sw peer_node peer_port node_sw node_pt down up_n up_ports "
                        "next_hop dtab tr_cycle tr_dst tr_start tr_end")
Rt = namedtuple("Rt", "bq bh bl vst vrdy vroute vout voutvc ouse ocred sa_g sa_a sw_rr va_g va_a "
                      "alist inlist")
Nd = namedtuple("Nd", "ncur nidx nvc nlvc nuse ncred nnext nqd tr_ptr")
Ev = namedtuple("Ev", "f_ivc f_code f_n c_ovc c_n nc nc_n d_node d_code d_n")
Pk = namedtuple("Pk", "dst src ct it hops rec free")
St = namedtuple("St", "cnt hist rng")


@njit(cache=True, inline="always")
def _rand(rng):
    """SplitMix64: a uniform float in [0, 1)."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _randint(rng, m):
    r = int(_rand(rng) * m)
    return r if r < m else m - 1


@njit(cache=True, inline="always")
def _gap(rng, p, logq):
    """Cycles to the next Bernoulli success (>= 1): the trials of a lazy source."""
    if p >= 1.0:
        return 1
    u = _rand(rng)
    return 1 + int(np.log(1.0 - u) / logq)


@njit(cache=True, inline="always")
def _route(rkind, N, R, S, down, up_n, up_ports, next_hop, node_sw, node_pt, rng, s, d):
    if rkind == 0:  # nca
        p = down[s * N + d]
        if p >= 0:
            return p
        return up_ports[s * R + _randint(rng, up_n[s])]
    ds = node_sw[d]
    if ds == s:
        return node_pt[d]
    return next_hop[s * S + ds]


@njit(cache=True)
def _run(net, rt, nd, ev, pk, st, t_stop, drain):
    """Simulate until cycle ``t_stop`` or, with ``drain``, until no measured packet is
    outstanding and every source has passed the drain time; returns a status."""
    cfg = net.cfg
    R, V, B, F, N, W = cfg[C_R], cfg[C_V], cfg[C_B], cfg[C_F], cfg[C_N], cfg[C_W]
    SPEC, RD, CD = cfg[C_SPEC], cfg[C_RD], cfg[C_CD]
    # layout: R and V are powers of two (ports and VCs padded) so that indices split by
    # shifts; NV is the number of VCs simulated, F the flits per packet
    LR, LV, LF, NV = cfg[C_LR], cfg[C_LV], cfg[C_LF], cfg[C_NV]
    LRV = LR + LV
    MV = V - 1
    MF = (1 << LF) - 1
    RV = R * V
    CAP = ev.f_ivc.shape[0] // W
    cnt = st.cnt
    rng = st.rng
    hist = st.hist
    p_inj = net.fcfg[FC_P]
    # every array in a local: tuple fields read in the hot loop cost reference counting
    (bq, bh, bl, vst, vrdy, vroute, vout, voutvc, ouse, ocred, sa_g, sa_a, sw_rr, va_g, va_a,
     alist, inlist) = rt
    ncur, nidx, nvc, nlvc, nuse, ncred, nnext, nqd, tr_ptr = nd
    f_ivc, f_code, f_n, c_ovc, c_n, ev_nc, nc_n, d_node, d_code, d_n = ev
    pk_dst, pk_src, pk_ct, pk_it, pk_hops, pk_rec, pk_free = pk
    peer_sw, peer_node, peer_port, node_sw, node_pt = (net.peer_sw, net.peer_node, net.peer_port,
                                                       net.node_sw, net.node_pt)
    down, up_n, up_ports, next_hop, dtab = net.down, net.up_n, net.up_ports, net.next_hop, net.dtab
    tr_cycle, tr_dst, tr_end = net.tr_cycle, net.tr_dst, net.tr_end
    S = cfg[C_S]
    RKIND, DMODE, HOT, TRACE = cfg[C_RKIND], cfg[C_DMODE], cfg[C_HOT], cfg[C_TRACE]
    HFRAC = net.fcfg[FC_HOT]
    logq = np.log(1.0 - p_inj) if p_inj < 1.0 else -1.0
    # per-router scratch
    va_li = np.empty(RV, np.int64)
    va_res = np.empty(RV, np.int64)
    va_gbest = np.full(RV, -1, np.int64)
    va_gdist = np.zeros(RV, np.int64)
    sa_p = np.empty(RV, np.int64)
    sa_v = np.empty(RV, np.int64)
    sa_o = np.empty(RV, np.int64)
    sa_pr = np.empty(RV, np.int64)
    g_in = np.full(R, -1, np.int64)
    g_dist = np.zeros(R, np.int64)
    a_out = np.full(R, -1, np.int64)
    a_dist = np.zeros(R, np.int64)
    win_g = np.empty(R, np.int64)
    win_o = np.empty(R, np.int64)
    win_ovc = np.empty(R, np.int64)
    while True:
        t = cnt[K_T]
        if drain and cnt[K_MEAS_INFL] == 0 and cnt[K_NDRAINED] == N:
            return ST_DONE
        if t >= t_stop:
            return ST_STOP
        if cnt[K_NFREE] < N:
            return ST_GROW
        state = cnt[K_STATE]
        slot = t & (W - 1)
        # ---- 1. events due now
        for i in range(nc_n[slot]):  # credits back at nodes (applied at once)
            ndv = ev_nc[slot * N + i]
            ncred[ndv] += 1
        nc_n[slot] = 0
        for i in range(d_n[slot]):  # flits read by their destination node
            code = d_code[slot * N + i]
            pid = code >> LF
            if state != DRAINING:
                cnt[K_ACC] += 1
            cnt[K_INFL_F] -= 1
            cnt[K_INFL_CT] -= pk_ct[pid]
            if (code & MF) == F - 1:  # tail: the packet is delivered
                cnt[K_DELIVERED] += 1
                if state == WARMING or pk_rec[pid]:
                    lat = t - pk_ct[pid]
                    cnt[K_PLAT_SUM] += lat
                    cnt[K_PLAT_N] += 1
                    if lat > cnt[K_PLAT_MAX]:
                        cnt[K_PLAT_MAX] = lat
                    nl = t - pk_it[pid]
                    cnt[K_NLAT_SUM] += nl
                    if nl > cnt[K_NLAT_MAX]:
                        cnt[K_NLAT_MAX] = nl
                    cnt[K_HOPS_SUM] += pk_hops[pid]
                    hist[min(lat, HIST - 1)] += 1
                if pk_rec[pid]:
                    cnt[K_MEAS_INFL] -= 1
                pk_free[cnt[K_NFREE]] = pid
                cnt[K_NFREE] += 1
        d_n[slot] = 0
        for i in range(f_n[slot]):  # flits into router input buffers
            g = f_ivc[slot * CAP + i]
            code = f_code[slot * CAP + i]
            n0 = bl[g]
            h = bh[g] + n0
            bq[g * B + (h - B if h >= B else h)] = code
            bl[g] = n0 + 1
            if n0 == 0:
                if vst[g] == IDLE:  # a head: routed (lookahead or in RD cycles), then VA
                    s = g >> LRV
                    vst[g] = VA
                    vroute[g] = _route(RKIND, N, R, S, down, up_n, up_ports, next_hop, node_sw, node_pt, rng, s, pk_dst[code >> LF])
                    vrdy[g] = t + RD
                else:
                    vrdy[g] = t
            s = g >> LRV
            if not inlist[s]:
                inlist[s] = 1
                alist[cnt[K_AN]] = s
                cnt[K_AN] += 1
        f_n[slot] = 0
        for i in range(c_n[slot]):  # credits back at routers
            ocred[c_ovc[slot * CAP + i]] += 1
        c_n[slot] = 0
        # ---- 2. nodes: lazy creation, then injection
        for n in range(N):
            pid = ncur[n]
            if pid < 0:
                made = -1
                if nnext[n] <= t:
                    pid = pk_free[cnt[K_NFREE] - 1]
                    cnt[K_NFREE] -= 1
                    ct = nnext[n]
                    pk_ct[pid] = ct
                    pk_src[pid] = n
                    pk_hops[pid] = 0
                    pk_dst[pid] = _dest(TRACE, DMODE, N, HOT, HFRAC, dtab, tr_dst, tr_ptr, rng, n)
                    rec = state == RUNNING or (state == DRAINING and ct < cnt[K_DRAIN_T])
                    pk_rec[pid] = rec
                    if rec:
                        cnt[K_MEAS_INFL] += 1
                    cnt[K_CREATED] += 1
                    cnt[K_INFL_F] += F
                    cnt[K_INFL_CT] += F * ct
                    if cfg[C_TRACE]:
                        tr_ptr[n] += 1
                        j = tr_ptr[n]
                        nnext[n] = tr_cycle[j] if j < tr_end[n] else 1 << 62
                    else:
                        nnext[n] = ct + _gap(rng, p_inj, logq)
                    ncur[n] = pid
                    nidx[n] = 0
                    nvc[n] = -1
                    made = ct
                if state == DRAINING and not nqd[n] and (made < 0 or made >= cnt[K_DRAIN_T]):
                    nqd[n] = 1
                    cnt[K_NDRAINED] += 1
                if pid < 0:
                    continue
            vc = nvc[n]
            if vc < 0:  # a head: the first VC after the last one used, free, with a credit
                lvc = nlvc[n]
                for i in range(1, NV + 1):
                    c = 0 if lvc < 0 else (lvc + i) % NV
                    if nuse[n * V + c] == 0 and ncred[n * V + c] > 0:
                        vc = c
                        break
                if vc < 0:
                    continue
                nvc[n] = vc
            if ncred[n * V + vc] == 0:
                continue
            ncred[n * V + vc] -= 1
            idx = nidx[n]
            if idx == 0:
                nuse[n * V + vc] = 1
                nlvc[n] = vc
                pk_it[pid] = t
            if state != DRAINING:
                cnt[K_SENT_F] += 1
            cnt[K_INJ_F] += 1
            s2 = (t + 2) & (W - 1)
            k = f_n[s2]
            f_ivc[s2 * CAP + k] = (node_sw[n] * R + node_pt[n]) * V + vc
            f_code[s2 * CAP + k] = (pid << LF) | idx
            f_n[s2] = k + 1
            if idx == F - 1:
                nuse[n * V + vc] = 0
                ncur[n] = -1
            else:
                nidx[n] = idx + 1
        # ---- 3. routers
        j = 0
        while j < cnt[K_AN]:
            s = alist[j]
            base = s * RV
            busy = False
            nva = 0
            nsa = 0
            for li in range(RV):
                g = base + li
                if bl[g] == 0:
                    continue
                busy = True
                if vrdy[g] > t:
                    continue
                vs = vst[g]
                if vs == VA:
                    va_li[nva] = li
                    va_res[nva] = -1
                    nva += 1
                    if SPEC:
                        o = vroute[g]
                        ob = (s * R + o) * V
                        for ov in range(NV):
                            if ouse[ob + ov] < 0 and ocred[ob + ov] > 0:
                                nsa = _sa_request(sw_rr, sa_p, sa_v, sa_o, sa_pr, nsa, s, R, NV,
                                                  li >> LV, li & MV, o, 0)
                                break
                elif vs == ACTIVE:
                    if ocred[(s * R + vout[g]) * V + voutvc[g]] > 0:
                        nsa = _sa_request(sw_rr, sa_p, sa_v, sa_o, sa_pr, nsa, s, R, NV,
                                          li >> LV, li & MV, vout[g], 1)
            if not busy:  # nothing buffered: leaves the active list
                inlist[s] = 0
                cnt[K_AN] -= 1
                alist[j] = alist[cnt[K_AN]]
                continue
            j += 1
            if nva:
                _va(vroute, ouse, va_g, va_a, s, R, V, NV, RV, va_li, va_res, nva, va_gbest, va_gdist)
            nwin = 0
            if nsa:
                nwin = _sa(sa_g, sa_a, sw_rr, ocred, voutvc, s, R, V, NV, LV, sa_p, sa_v, sa_o, sa_pr, nsa, g_in, g_dist, a_out,
                           a_dist, win_g, win_o, win_ovc, va_li, va_res, nva)
            # VC allocation updates (TakeBuffer)
            for i in range(nva):
                r = va_res[i]
                if r >= 0:
                    g = base + va_li[i]
                    o = r >> LV
                    ouse[(s * R + o) * V + (r & MV)] = g
                    vst[g] = ACTIVE
                    vout[g] = o
                    voutvc[g] = r & MV
                    vrdy[g] = t + 1
            # switch allocation updates: the flits leave
            for i in range(nwin):
                g = win_g[i]
                o = win_o[i]
                ovc = win_ovc[i]
                h = bh[g]
                code = bq[g * B + h]
                bh[g] = h + 1 if h + 1 < B else 0
                bl[g] -= 1
                pid = code >> LF
                idx = code & MF
                tail = idx == F - 1
                ocred[ovc] -= 1
                if tail:
                    ouse[ovc] = -1
                if idx == 0:
                    pk_hops[pid] += 1
                cnt[K_MOVES] += 1
                port = s * R + o
                ds = peer_sw[port]
                if ds >= 0:  # read by the next router in t + 3
                    s3 = (t + 3) & (W - 1)
                    k = f_n[s3]
                    f_ivc[s3 * CAP + k] = (ds * R + peer_port[port]) * V + (ovc & MV)
                    f_code[s3 * CAP + k] = code
                    f_n[s3] = k + 1
                else:  # read by the node in t + 3; its credit reaches us in t + 5
                    s3 = (t + 3) & (W - 1)
                    k = d_n[s3]
                    d_node[s3 * N + k] = peer_node[port]
                    d_code[s3 * N + k] = code
                    d_n[s3] = k + 1
                    s5 = (t + 5 + CD) & (W - 1)
                    k = c_n[s5]
                    c_ovc[s5 * CAP + k] = ovc
                    c_n[s5] = k + 1
                inport = g >> LV
                v = g & MV
                us = peer_sw[inport]
                if us >= 0:  # credit upstream: received in t + 2, applied credit_delay later
                    s2 = (t + 2 + CD) & (W - 1)
                    k = c_n[s2]
                    c_ovc[s2 * CAP + k] = (us * R + peer_port[inport]) * V + v
                    c_n[s2] = k + 1
                else:
                    s2 = (t + 2) & (W - 1)
                    k = nc_n[s2]
                    ev_nc[s2 * N + k] = peer_node[inport] * V + v
                    nc_n[s2] = k + 1
                if bl[g] == 0:
                    if tail:
                        vst[g] = IDLE
                elif tail:  # the next packet's head: routed, then VC allocation
                    nxt = bq[g * B + bh[g]]
                    vst[g] = VA
                    vroute[g] = _route(RKIND, N, R, S, down, up_n, up_ports, next_hop, node_sw, node_pt, rng, s, pk_dst[nxt >> LF])
                    vrdy[g] = t + 1 + RD
                else:
                    vrdy[g] = t + 1
        cnt[K_QSUM] += cnt[K_INFL_F]
        cnt[K_QN] += 1
        cnt[K_T] = t + 1


@njit(cache=True, inline="always")
def _dest(trace, mode, N, hot, hfrac, dtab, tr_dst, tr_ptr, rng, n):
    if trace:
        return tr_dst[tr_ptr[n]]
    if mode == D_TABLE:
        return dtab[n]
    if mode == D_HOTSPOT:
        if n != hot and _rand(rng) < hfrac:
            return hot
        mode = D_UNIFORM
    if mode == D_UNIFORM_SELF:
        return _randint(rng, N)
    d = _randint(rng, N - 1)
    return d + 1 if d >= n else d


@njit(cache=True, inline="always")
def _sa_request(sw_rr, sa_p, sa_v, sa_o, sa_pr, nsa, s, R, NV, p, v, o, prio):
    """Add input VC (p, v)'s request for output o; one request per (input, output): a
    non-speculative one beats a speculative one, then the VC nearest the input's
    round-robin offset (``IQRouter::_SWAllocAddReq``, ``RoundRobinArbiter::Supersedes``)."""
    off = sw_rr[s * R + p]
    for i in range(nsa):
        if sa_p[i] == p and sa_o[i] == o:
            d1 = v - off
            d2 = sa_v[i] - off
            if prio > sa_pr[i] or (prio == sa_pr[i] and (d1 + NV if d1 < 0 else d1) <
                                   (d2 + NV if d2 < 0 else d2)):
                sa_v[i] = v
                sa_pr[i] = prio
            return nsa
    sa_p[nsa] = p
    sa_v[nsa] = v
    sa_o[nsa] = o
    sa_pr[nsa] = prio
    return nsa + 1


@njit(cache=True, inline="always")
def _va(vroute, ouse, va_g, va_a, s, R, V, NV, RV, va_li, va_res, nva, gbest, gdist):
    """VC allocation, iSLIP with one iteration: every requesting input VC asks for every
    free VC of its output port; each output VC grants the requester nearest its pointer,
    each input VC accepts the grant nearest its pointer; pointers move on acceptance."""
    base = s * RV
    # grant phase
    for i in range(nva):
        li = va_li[i]
        g = base + li
        ob = (s * R + vroute[g]) * V
        for ov in range(NV):
            ovc = ob + ov
            if ouse[ovc] < 0:
                ol = ovc - base
                d = li - va_g[ovc]
                d = d + RV if d < 0 else d
                if gbest[ol] < 0 or d < gdist[ol]:
                    gbest[ol] = li
                    gdist[ol] = d
    # accept phase
    for i in range(nva):
        li = va_li[i]
        g = base + li
        o = vroute[g]
        best = -1
        bd = 0
        for ov in range(NV):
            ol = o * V + ov
            if gbest[ol] == li:
                d = ol - va_a[g]
                d = d + RV if d < 0 else d
                if best < 0 or d < bd:
                    best = ol
                    bd = d
        if best >= 0:
            va_res[i] = best
            va_g[base + best] = li + 1 if li + 1 < RV else 0
            va_a[g] = best + 1 if best + 1 < RV else 0
    for i in range(nva):  # reset the scratch
        o = vroute[base + va_li[i]]
        for ov in range(NV):
            gbest[o * V + ov] = -1


@njit(cache=True, inline="always")
def _sa(sa_g, sa_a, sw_rr, ocred, voutvc, s, R, V, NV, LV, sa_p, sa_v, sa_o, sa_pr, nsa, g_in, g_dist, a_out, a_dist, win_g, win_o,
        win_ovc, va_li, va_res, nva):
    """Switch allocation, iSLIP with one iteration over (input port, output port)
    requests; a granted speculative request becomes a move only if the VC allocation of
    the same cycle gave its VC a VC of that output with a credit. Returns the moves."""
    pb = s * R
    for i in range(nsa):  # grant: each output picks the input nearest its pointer
        o = sa_o[i]
        d = sa_p[i] - sa_g[pb + o]
        d = d + R if d < 0 else d
        if g_in[o] < 0 or d < g_dist[o]:
            g_in[o] = sa_p[i]
            g_dist[o] = d
    for i in range(nsa):  # accept: each input picks the granting output nearest its pointer
        p = sa_p[i]
        o = sa_o[i]
        if g_in[o] == p:
            d = o - sa_a[pb + p]
            d = d + R if d < 0 else d
            if a_out[p] < 0 or d < a_dist[p]:
                a_out[p] = o
                a_dist[p] = d
    nwin = 0
    RV = R * V
    for i in range(nsa):
        p = sa_p[i]
        o = sa_o[i]
        if a_out[p] != o:
            continue
        v = sa_v[i]
        sa_g[pb + o] = p + 1 if p + 1 < R else 0
        sa_a[pb + p] = o + 1 if o + 1 < R else 0
        sw_rr[pb + p] = v + 1 if v + 1 < NV else 0
        li = p * V + v
        g = s * RV + li
        if sa_pr[i] == 0:  # speculative: needs this cycle's VC grant, with a credit
            r = -1
            for k in range(nva):
                if va_li[k] == li:
                    r = va_res[k]
                    break
            if r < 0 or (r >> LV) != o:
                continue
            ovc = (pb + o) * V + (r & (V - 1))
            if ocred[ovc] == 0:
                continue
        else:
            ovc = (pb + o) * V + voutvc[g]
        win_g[nwin] = g
        win_o[nwin] = o
        win_ovc[nwin] = ovc
        nwin += 1
    for i in range(nsa):  # reset the scratch
        g_in[sa_o[i]] = -1
        a_out[sa_p[i]] = -1
    return nwin
