"""The booksim model's cycle loop (private; numba, struct-of-arrays).

One call simulates cycles ``t .. t_stop - 1`` (or until the drain completes). A cycle
is BookSim2's ``TrafficManager::_Step`` with its routers' ``IQRouter::_InternalStep``:

1. events due now: credits reaching nodes, flits reaching nodes (accepted, retired),
   flits reaching router input buffers (``_InputQueuing``), credits reaching routers;
2. every node: lazy Bernoulli creation into its source queue (``_Inject``), then one
   flit onto its injection channel if its VC has a credit (only the nodes holding a
   packet or due to create one are visited, in index order; the others wait on a timing
   wheel for their next creation cycle);
3. every router holding flits, in index order (a bit set; BookSim2 steps its routers in
   index order too): VC allocation and switch allocation (iSLIP, one iteration each,
   evaluated on the state at the start of the cycle; speculative switch requests of heads
   in VC allocation when ``speculative``), then the updates. A router's work reads and
   writes only its own state and later cycles' events, so the order changes nothing but
   the order of the draws from the random stream. With one VC and 1-flit packets
   (``SHAPE_1VC_1FLIT``) every input makes at most one request, so each output resolves
   on its own from a bit mask of its requesters, with the same outcome and pointers.

Channels (latency 1) take two cycles from send to receive; the crossbar one: a flit
granted the switch in cycle ``s`` is read by the next router (or node) in ``s + 3``, its
credit reaches the upstream router in ``s + 2`` (applied ``credit_delay`` later) or the
upstream node in ``s + 2``; a node returns the credit of a flit it read in ``a`` to its
router in ``a + 2``. Flits are ``hops << HS | pid << LF | index`` codes; packets live in
a pool. Ports and VCs are padded to powers of two so that every index splits by shifts.

References
----------
BookSim2 commit 28f4329: ``src/trafficmanager.cpp`` (``_Step``, ``_Inject``,
``_RetireFlit``), ``src/routers/iq_router.cpp``, ``src/allocators/islip.cpp``,
``src/buffer_state.cpp``; docs/booksim.md.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import literally, njit, typeof, types
from numba.extending import overload
from numba.cpython.unsafe.numbers import trailing_zeros

from ...compiling import numba_only
from ...traffic import dest
from ..rawmem import prefetch
from .closed import bs_delivered, bs_done, bs_flit_in, bs_low, bs_next, bs_port, bs_source, bs_take

# cfg (int64) indices
(
    C_S,
    C_R,
    C_V,
    C_B,
    C_F,
    C_N,
    C_W,
    C_SPEC,
    C_RD,
    C_CD,
    C_RKIND,
    C_DMODE,
    C_HOT,
    C_TRACE,
    C_LR,
    C_LV,
    C_LF,
    C_NV,
    C_DID,
    C_TCODE,
    C_TSEED,
) = range(21)
# fcfg (float64)
FC_P, FC_HOT = range(2)
# counters
(
    K_T,
    K_STATE,
    K_DRAIN_T,
    K_ACC,
    K_PLAT_SUM,
    K_PLAT_N,
    K_PLAT_MAX,
    K_NLAT_SUM,
    K_HOPS_SUM,
    K_MEAS_INFL,
    K_INFL_F,
    K_INFL_CT,
    K_CREATED,
    K_INJ_F,
    K_DELIVERED,
    K_NDRAINED,
    K_NFREE,
    K_SENT_F,
    K_MOVES,
    K_NLAT_MAX,
    K_RESET_T,
    K_TRACE_LEFT,
    K_QSUM,
    K_QN,
) = range(24)
N_COUNTERS = 24
# simulation states (BookSim2's _sim_state)
WARMING, RUNNING, DRAINING = 0, 1, 2
# input VC states
IDLE, VA, ACTIVE = 0, 1, 2
# return status
ST_STOP, ST_DONE, ST_GROW = 0, 1, 2
# kernel shapes (compiled separately, on first use): any run; one VC and 1-flit packets
SHAPE_ANY, SHAPE_1VC_1FLIT = 0, 1
# destination modes
# (D_PATTERN: any other registered pattern, by the traffic layer's dest)
D_UNIFORM_SELF, D_UNIFORM, D_TABLE, D_HOTSPOT, D_PATTERN = range(5)
HIST = 1 << 14
WHEEL = 1 << 10  # slots of the nodes' timing wheel (a power of two)
# a flit's code: its hop count << HS | packet id << LF | flit index
HS = 48
HOP = 1 << HS
PMASK = HOP - 1
PD = 8  # prefetch distance of the events (routers are visited in index order: no hints)
# packed records, small so that a router's state spans few cache lines
IV_DT = np.dtype(  # an input VC: ready cycle, buffer head and length, state, route, ...
    [
        ("rdy", np.int32),
        ("bh", np.int16),
        ("bl", np.int16),
        ("st", np.int16),
        ("route", np.int16),  # the routed output port (also the allocated one when ACTIVE)
        ("ovv", np.int16),  # the allocated VC of that port
        ("vaa", np.int16),  # VC allocation's accept pointer
    ]
)
OV_DT = np.dtype(  # an output VC: owner (router-local input VC or -1), credits, grant pointer
    # (with one VC, ``sag1`` is its port's switch grant pointer: see SHAPE_1VC_1FLIT)
    [("use", np.int16), ("cred", np.int16), ("vag", np.int16), ("sag1", np.int16)]
)
PP_DT = np.dtype(  # a port: switch allocation's grant and accept pointers, the VC round robin
    [("sag", np.int16), ("saa", np.int16), ("rr", np.int16), ("pad", np.int16)]
)
PK_DT = np.dtype([("ct", np.int64), ("it", np.int64), ("rec", np.int64)])  # a packet
SMALL = 1 << 15  # ports x VCs and the buffer depth fit the int16 fields above

Net = namedtuple(
    "Net",
    "cfg fcfg peer_sw peer_node peer_port node_sw node_pt bsof up_n up_ports "
    "next_hop dtab tr_cycle tr_dst tr_start tr_end tip tfp ttab ours",
)
# pp: PP_DT, iv: IV_DT, ...; dsub, dport: nca by one lookup (model._down_tiles)
Rt = namedtuple("Rt", "bq hq iv ov pp active vmask plh peer dsub dport")
# nvis: the nodes to visit (bits); chead, cnext: a timing wheel of the others (see _wake)
Nd = namedtuple("Nd", "ncur nidx nvc nlvc nuse ncred nnext nqd tr_ptr nvis chead cnext")
Ev = namedtuple("Ev", "f_ev f_n c_ovc c_n nc nc_n d_code d_n")
Pk = namedtuple("Pk", "pk free pkey")
St = namedtuple("St", "cnt hist rng")


@njit(cache=True, inline="always")
def vmask_words(rv):
    """Words of a router's bit mask of non-empty input VCs (``rv`` = ports x VCs)."""
    return (rv + 63) >> 6


@njit(cache=True, inline="always")
def _u(i):
    """An index as unsigned: numba then indexes without the negative wrap-around (a
    compare, a mask and a load of the array's length on every access); the kernel's
    indices are never negative."""
    return np.uint64(i)


@njit(cache=True, inline="always")
def _sm(x):
    """SplitMix64 on a scalar state: (new state, a uniform float in [0, 1)). The kernel
    keeps the state in a local (no array argument in the hot loop: no reference counts)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return x, float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _gap(u, p, logq):
    """Cycles to the next Bernoulli success (>= 1) given a uniform u: a lazy source."""
    if p >= 1.0:
        return 1
    return 1 + int(np.log(1.0 - u) / logq)


@njit(cache=True)
def first_creations(rng, p, n):
    """Each of ``n`` sources' first creation cycle (its first Bernoulli success among
    trials 0, 1, ...), drawn in source order from ``rng[0]``, which advances."""
    out = np.zeros(n, np.int64)
    if p >= 1.0:
        return out
    x = rng[0]
    logq = np.log(1.0 - p)
    for i in range(n):
        x, u = _sm(x)
        out[i] = _gap(u, p, logq) - 1
    rng[0] = x
    return out


@njit(cache=True, inline="always")
def _wake(n, when, t, chead, cnext):
    """Put idle node ``n`` on the timing wheel for cycle ``when`` (> ``t``): its slot is
    visited in cycle ``when`` if that is less than a turn away, else in a turn's last
    cycle, when it goes back on the wheel."""
    b = (when if when - t < WHEEL else t + WHEEL - 1) & (WHEEL - 1)
    cnext[_u(n)] = chead[_u(b)]
    chead[_u(b)] = n


def _idle(h_wl, h_n, h_when, h_t, h_chead, h_cnext):
    """An idle node goes on the timing wheel; a workload's waits for a send instead
    (:func:`fattree.sim.booksim.closed.bs_source` wakes it)."""
    if h_wl is None:
        _wake(h_n, h_when, h_t, h_chead, h_cnext)


@overload(_idle)  # (not inlined at the IR level: it calls an inlined function)
def _ov_idle(h_wl, h_n, h_when, h_t, h_chead, h_cnext):
    if isinstance(h_wl, types.NoneType):
        return lambda h_wl, h_n, h_when, h_t, h_chead, h_cnext: _wake(
            h_n, h_when, h_t, h_chead, h_cnext
        )
    return lambda h_wl, h_n, h_when, h_t, h_chead, h_cnext: None


@njit(cache=True, inline="always")
def _admit(n, t, nnext, nvis, chead, cnext):
    """Node ``n`` (idle) into the visit set if it creates a packet by cycle ``t``, else
    back on the wheel."""
    if nnext[_u(n)] <= t:
        nvis[_u(n >> 6)] |= np.uint64(1) << np.uint64(n & 63)
    else:
        _wake(n, nnext[_u(n)], t, chead, cnext)


@njit(cache=True)
def node_wheel(nnext, nvis, chead, cnext):
    """The nodes' visit set and timing wheel before cycle 0: a node is visited in every
    cycle in which it holds a packet or creates one; the others wait on the wheel."""
    chead[:] = -1
    nvis[:] = 0
    for n in range(len(nnext) - 1, -1, -1):
        _admit(n, 0, nnext, nvis, chead, cnext)


def shape_of(cfg) -> int:
    """The kernel shape for a run's ``cfg`` array (``Net.cfg``)."""
    one = cfg[C_V] == 1 and cfg[C_F] == 1 and cfg[C_R] <= 64
    return SHAPE_1VC_1FLIT if one else SHAPE_ANY


def kernel_for(args, shape: int, wl=None):
    """The cycle loop compiled for ``shape``: numba's cache, else a compilation.

    ``args`` are the kernel's state tuples (``Net``, ``Rt``, ``Nd``, ``Ev``, ``Pk``,
    ``St``); the returned function takes them, ``t_stop``, ``drain`` and ``shape``. A
    call of ``_run`` from Python would first type the whole function with ``shape`` as a
    plain integer (seconds) before ``literally`` asks for the constant, so the
    specialisation is compiled and fetched by its signature here.
    """
    sig = tuple(typeof(a) for a in args) + (types.int64, types.boolean, types.literal(shape))
    sig += (typeof(wl),)
    return _run.compile(sig)


@njit(cache=True)
def _run(net, rt, nd, ev, pk, st, t_stop, drain, shape, wl):
    """Simulate until cycle ``t_stop`` or, with ``drain``, until no measured packet is
    outstanding and every source has passed the drain time; returns a status.

    Each cycle runs the phases below in BookSim2's order of work, each a function of its
    own (one call per cycle, not per router or flit): events (:func:`_deliver`,
    :func:`_arrive`), nodes (:func:`_nodes`), the routers' allocation
    (:func:`_allocate_1vc`, or :func:`_requests` then :func:`_allocate`) and their flits'
    moves (:func:`_moves`). Allocation draws no random number and a router's allocation
    reads only its own state, so allocating every router before moving any flit, both in
    router order, keeps BookSim2's order of the draws and every result.

    ``shape`` is a compile-time constant (see :func:`kernel_for`): with
    ``SHAPE_1VC_1FLIT`` the VC count and packet length are constants, so the compiler
    removes the loops over VCs and the flit-index tests in the loop and its inlined phases
    (the arrivals phase, compiled once for both shapes, reads them from ``cfg``). ``wl``: ``None``, or a
    workload's closed-loop source (:class:`~fattree.sim.booksim.closed.Bcl`), whose
    hooks the node phase, deliveries and moves call; ``None`` types them away."""
    literally(shape)
    cfg = net.cfg
    S, R = cfg[C_S], cfg[C_R]
    RV = R if shape == SHAPE_1VC_1FLIT else R * cfg[C_V]
    # a cycle's switch grants, in router order (at most one per input port)
    wins = (np.empty(S * R, np.int64), np.empty(S * R, np.int64), np.empty(S * R, np.int64))
    return _cycles(net, rt, nd, ev, pk, st, t_stop, drain, shape, wins, _scratch(S, R, RV), wl)


# The cycle loop and its phases allocate nothing, so they need no reference counting: as
# the papers' kernel (sim/kernel.py), they drop numba's atomic incref/decref of every
# array handed to the phases (``numba_only`` compiles without NRT), without which the
# phases' calls cost several per cent of the loop; only ``_run`` calls them (no Python
# entry points).


@numba_only()
def _cycles(net, rt, nd, ev, pk, st, t_stop, drain, shape, wins, sc, wl):
    """The cycle loop of :func:`_run`, phase by phase. The phases that take the
    closed-loop source ``wl`` are inlined here at numba's IR level; the arrivals and the
    allocation are functions of their own, called once per cycle, so that the open and
    the closed loop reuse their compiled code instead of typing them again."""
    literally(shape)
    N = net.cfg[C_N]
    cnt = st.cnt
    rng = st.rng
    x = rng[0]
    while True:
        t = cnt[K_T]
        if drain and cnt[K_MEAS_INFL] == 0 and cnt[K_NDRAINED] == N:
            rng[0] = x
            return ST_DONE
        if t >= t_stop:
            rng[0] = x
            return ST_STOP
        if cnt[K_NFREE] < N or bs_low(wl):  # (or a workload's operation slots)
            rng[0] = x
            return ST_GROW
        bs_source(wl, nd.nnext, nd.nvis, t)
        if bs_done(wl, cnt[K_NFREE], pk.pk.shape[0]):
            rng[0] = x
            return ST_DONE
        _deliver(net, nd, ev, pk, st, t, shape, wl)
        x = _arrive(net, rt, ev, pk, t, x, shape)
        x = _nodes(net, nd, ev, pk, st, t, x, shape, wl)
        if shape == SHAPE_1VC_1FLIT:
            nwin = _allocate_1vc(net, rt, t, wins, sc)
        else:
            nwin = _allocate(net, rt, t, wins, sc, _requests(net, rt, t, sc))
        x = _moves(net, rt, ev, pk, st, t, x, shape, wins, nwin, wl)
        cnt[K_QSUM] += cnt[K_INFL_F]
        cnt[K_QN] += 1
        cnt[K_T] = t + 1


Scratch = namedtuple(
    "Scratch",
    "va_g va_o va_res va_at va_gbest va_gdist sa_p sa_v sa_o sa_pr g_in g_dist a_out a_dist "
    "rq mvo rs ro",
)


@njit(cache=True)
def _scratch(S, R, RV):
    """The allocators' scratch, allocated once per call of :func:`_run`. VC and switch
    requests of every router of a cycle are listed together (``rs``: the routers with
    requests, ``ro``: where each one's VC and switch requests start); the per-output
    and per-input arrays serve one router at a time and are reset after it."""
    NIV = S * RV
    return Scratch(
        np.empty(NIV, np.int64),
        np.empty(NIV, np.int64),
        np.empty(NIV, np.int64),
        np.zeros(NIV, np.int64),
        np.full(RV, -1, np.int64),
        np.zeros(RV, np.int64),
        np.empty(NIV, np.int64),
        np.empty(NIV, np.int64),
        np.empty(NIV, np.int64),
        np.empty(NIV, np.int64),
        np.full(R, -1, np.int64),
        np.zeros(R, np.int64),
        np.full(R, -1, np.int64),
        np.zeros(R, np.int64),
        np.zeros(R, np.uint64),  # one VC, one flit: an output's requesters (bits)
        np.empty(R, np.int64),  # and the output each moving input won
        np.zeros(S + 1, np.int64),
        np.zeros((S + 1) * 2, np.int64),
    )


@njit(cache=True, inline="always")
def _deliver(net, nd, ev, pk, st, t, shape, wl):
    """Events due now (1/2): credits back at nodes (applied at once), then flits read by
    their destination node (accepted; a tail retires its packet)."""
    cfg = net.cfg
    N, W = cfg[C_N], cfg[C_W]
    if shape == SHAPE_1VC_1FLIT:
        F, LF = 1, 0
    else:
        F, LF = cfg[C_F], cfg[C_LF]
    MF = (1 << LF) - 1
    cnt, hist = st.cnt, st.hist
    ncred = nd.ncred
    ev_nc, nc_n, d_code, d_n = ev.nc, ev.nc_n, ev.d_code, ev.d_n
    pkr, pk_free = pk.pk, pk.free
    state = cnt[K_STATE]
    slot = t & (W - 1)
    for i in range(nc_n[_u(slot)]):
        ndv = ev_nc[_u(slot * N + i)]
        ncred[_u(ndv)] += 1
    nc_n[_u(slot)] = 0
    # (the counters live in locals for the phase, as the event list lengths in _moves)
    acc, infl_f, infl_ct, dlv = cnt[K_ACC], cnt[K_INFL_F], cnt[K_INFL_CT], cnt[K_DELIVERED]
    plat_sum, plat_n, plat_max = cnt[K_PLAT_SUM], cnt[K_PLAT_N], cnt[K_PLAT_MAX]
    nlat_sum, nlat_max, hops_sum = cnt[K_NLAT_SUM], cnt[K_NLAT_MAX], cnt[K_HOPS_SUM]
    meas, nfree = cnt[K_MEAS_INFL], cnt[K_NFREE]
    for i in range(d_n[_u(slot)]):
        code = d_code[_u(slot * N + i)]
        pid = (code & PMASK) >> LF
        if state != DRAINING:
            acc += 1
        infl_f -= 1
        ct = pkr[_u(pid)].ct
        infl_ct -= ct
        if (code & MF) == F - 1:  # tail: the packet is delivered
            dlv += 1
            rec = pkr[_u(pid)].rec
            if state == WARMING or rec:
                lat = t - ct
                plat_sum += lat
                plat_n += 1
                plat_max = max(plat_max, lat)
                nl = t - pkr[_u(pid)].it
                nlat_sum += nl
                nlat_max = max(nlat_max, nl)
                hops_sum += code >> HS
                hist[_u(min(lat, HIST - 1))] += 1
            if rec:
                meas -= 1
            bs_delivered(wl, pid, t)
            pk_free[_u(nfree)] = pid
            nfree += 1
    d_n[_u(slot)] = 0
    cnt[K_ACC], cnt[K_DELIVERED] = acc, dlv
    cnt[K_PLAT_SUM], cnt[K_PLAT_N], cnt[K_PLAT_MAX] = plat_sum, plat_n, plat_max
    cnt[K_NLAT_SUM], cnt[K_NLAT_MAX], cnt[K_HOPS_SUM] = nlat_sum, nlat_max, hops_sum
    cnt[K_INFL_F], cnt[K_INFL_CT], cnt[K_MEAS_INFL], cnt[K_NFREE] = infl_f, infl_ct, meas, nfree


@numba_only()
def _arrive(net, rt, ev, pk, t, x, shape):
    """Events due now (2/2): flits into router input buffers (``_InputQueuing``; a head
    is routed, by lookahead or in ``routing_delay`` cycles), then credits back at
    routers. Returns the random state (``nca`` draws its up port)."""
    cfg = net.cfg
    S, R, B, W, RD = cfg[C_S], cfg[C_R], cfg[C_B], cfg[C_W], cfg[C_RD]
    if shape == SHAPE_1VC_1FLIT:
        V, LV, LF = 1, 0, 0
    else:
        V, LV, LF = cfg[C_V], cfg[C_LV], cfg[C_LF]
    LRV = cfg[C_LR] + LV
    RV = R * V
    MW = vmask_words(RV)
    CAP = ev.f_ev.shape[0] // W
    RKIND, DID = cfg[C_RKIND], cfg[C_DID]
    bq, hq, iv, ov, active, vmask, plh = rt.bq, rt.hq, rt.iv, rt.ov, rt.active, rt.vmask, rt.plh
    dsub, dport = rt.dsub, rt.dport
    node_sw, node_pt, up_n, up_ports, next_hop = (
        net.node_sw,
        net.node_pt,
        net.up_n,
        net.up_ports,
        net.next_hop,
    )
    f_ev, f_n, c_ovc, c_n = ev.f_ev, ev.f_n, ev.c_ovc, ev.c_n
    pkey = pk.pkey
    slot = t & (W - 1)
    nf = f_n[_u(slot)]
    for i in range(nf):
        if i + PD < nf:  # (hints only: the rows of an arrival a few entries ahead)
            g = f_ev[_u(slot * CAP + i + PD), 0]
            prefetch(iv, g)
            prefetch(hq, g)
        g = f_ev[_u(slot * CAP + i), 0]
        code = f_ev[_u(slot * CAP + i), 1]
        n0 = iv[_u(g)].bl
        if n0 == 0:  # the front flit waits in hq, the others in the ring bq from bh
            hq[_u(g)] = code
        else:
            h = iv[_u(g)].bh + n0 - 1
            bq[_u(g * B + (h - B if h >= B else h))] = code
        iv[_u(g)].bl = n0 + 1
        if n0 == 0:
            if iv[_u(g)].st == IDLE:  # a head: routed (lookahead or in RD cycles), then VA
                s = g >> LRV
                iv[_u(g)].st = VA
                # nca: BookSim2's id of the destination; min: ours
                d = pkey[_u((code & PMASK) >> LF)]
                if RKIND == 0:  # nca: down if below, else a random up port
                    rp = -1
                    sh = dsub[_u(s * 4 + 2)]
                    if sh >= -1:  # the down ports tile the subtree: one lookup
                        xd = d - dsub[_u(s * 4)]
                        if 0 <= xd < dsub[_u(s * 4 + 1)]:
                            xd = xd >> sh if sh >= 0 else xd // dsub[_u(s * 4 + 3)]
                            rp = xd if DID else dport[_u(s * R + xd)]
                    else:
                        for q in range(R):
                            if plh[_u((s * R + q) * 2)] <= d <= plh[_u((s * R + q) * 2 + 1)]:
                                rp = q
                                break
                    if rp < 0:
                        x, u = _sm(x)
                        k = int(u * up_n[_u(s)])
                        rp = up_ports[_u(s * R + k)]
                else:  # the anynet min table
                    ds = node_sw[_u(d)]
                    rp = node_pt[_u(d)] if ds == s else next_hop[_u(s * S + ds)]
                iv[_u(g)].route = rp
                iv[_u(g)].rdy = t + RD
            else:
                iv[_u(g)].rdy = t
        s = g >> LRV
        if n0 == 0:
            li = g & (RV - 1)
            vmask[_u(s * MW + (li >> 6))] |= np.uint64(1) << np.uint64(li & 63)
        active[_u(s >> 6)] |= np.uint64(1) << np.uint64(s & 63)
    f_n[_u(slot)] = 0
    nc = c_n[_u(slot)]
    for i in range(nc):
        if i + PD < nc:
            prefetch(ov, c_ovc[_u(slot * CAP + i + PD)])
        ov[_u(c_ovc[_u(slot * CAP + i)])].cred += 1
    c_n[_u(slot)] = 0
    return x


@njit(cache=True, inline="always")
def _nodes(net, nd, ev, pk, st, t, x, shape, wl):
    """Every node: lazy Bernoulli creation into its source queue (``_Inject``), then one
    flit onto its injection channel if its VC has a credit. Only the nodes holding a
    packet or due to create one are visited (in index order, as all of them would be:
    the same draws); the wheel's slot of this cycle adds those due now. Draining visits
    every node (each must be seen once past the drain time). Returns the random state."""
    cfg = net.cfg
    R, N, W = cfg[C_R], cfg[C_N], cfg[C_W]
    if shape == SHAPE_1VC_1FLIT:
        V, NV, F, LF = 1, 1, 1, 0
    else:
        V, NV, F, LF = cfg[C_V], cfg[C_NV], cfg[C_F], cfg[C_LF]
    CAP = ev.f_ev.shape[0] // W
    RKIND, DMODE, HOT, TRACE = cfg[C_RKIND], cfg[C_DMODE], cfg[C_HOT], cfg[C_TRACE]
    p_inj, HFRAC = net.fcfg[FC_P], net.fcfg[FC_HOT]
    logq = np.log(1.0 - p_inj) if p_inj < 1.0 else -1.0
    ALL = ~np.uint64(0)
    cnt = st.cnt
    ncur, nidx, nvc, nlvc, nuse, ncred, nnext, nqd, tr_ptr, nvis, chead, cnext = nd
    NW = (N + 63) >> 6  # words of the nodes' visit set
    f_ev, f_n = ev.f_ev, ev.f_n
    pkr, pk_free, pkey = pk
    node_sw, node_pt, bsof, dtab = net.node_sw, net.node_pt, net.bsof, net.dtab
    tr_cycle, tr_dst, tr_end = net.tr_cycle, net.tr_dst, net.tr_end
    TCODE, TSEED = cfg[C_TCODE], cfg[C_TSEED]
    state = cnt[K_STATE]
    meas, nfree, infl_f, infl_ct = cnt[K_MEAS_INFL], cnt[K_NFREE], cnt[K_INFL_F], cnt[K_INFL_CT]
    created, ndr, sent, inj = cnt[K_CREATED], cnt[K_NDRAINED], cnt[K_SENT_F], cnt[K_INJ_F]
    drain_t = cnt[K_DRAIN_T]
    n2 = (t + 2) & (W - 1)
    kf2 = f_n[_u(n2)]
    b = t & (WHEEL - 1)
    n = chead[_u(b)]
    chead[_u(b)] = -1
    while n >= 0:
        nx = cnext[_u(n)]
        _admit(n, t, nnext, nvis, chead, cnext)
        n = nx
    for nw in range(NW):
        if state == DRAINING:
            nm = ALL if nw < NW - 1 or (N & 63) == 0 else ~(ALL << np.uint64(N & 63))
        else:
            nm = nvis[_u(nw)]
        while nm:
            n = (nw << 6) + np.int64(trailing_zeros(nm))
            nm &= nm - np.uint64(1)
            nbit = np.uint64(1) << np.uint64(n & 63)
            pid = ncur[_u(n)]
            if pid < 0:
                made = -1
                if nnext[_u(n)] <= t:
                    pid = pk_free[_u(nfree - 1)]
                    nfree -= 1
                    ct = nnext[_u(n)]
                    pkr[_u(pid)].ct = ct
                    if TRACE:
                        d = tr_dst[_u(tr_ptr[_u(n)])]
                    elif DMODE == D_TABLE:
                        d = dtab[_u(n)]
                    elif DMODE == D_PATTERN:  # the pattern's own dest, on BookSim2's ids
                        d = dest(
                            TCODE, net.tip, net.tfp, net.ttab, N, bsof[_u(n)], tr_ptr[_u(n)], TSEED
                        )
                        d = net.ours[_u(d)]
                        tr_ptr[_u(n)] += 1  # (the source's packet count)
                    else:
                        d = -1
                        if DMODE == D_HOTSPOT and n != HOT:
                            x, u = _sm(x)
                            if u < HFRAC:
                                d = HOT
                        if d < 0:
                            x, u = _sm(x)
                            if DMODE == D_UNIFORM_SELF:
                                d = min(int(u * N), N - 1)
                            else:
                                d = min(int(u * (N - 1)), N - 2)
                                d = d + 1 if d >= n else d
                    d, ct = bs_take(wl, n, pid, d, ct)  # (a workload: its message)
                    pkr[_u(pid)].ct = ct
                    pkey[_u(pid)] = bsof[_u(d)] if RKIND == 0 else d
                    rec = state == RUNNING or (state == DRAINING and ct < drain_t)
                    pkr[_u(pid)].rec = rec
                    if rec:
                        meas += 1
                    created += 1
                    infl_f += F
                    infl_ct += F * ct
                    if TRACE:
                        tr_ptr[_u(n)] += 1
                        j = tr_ptr[_u(n)]
                        nnext[_u(n)] = tr_cycle[_u(j)] if j < tr_end[_u(n)] else 1 << 62
                    else:
                        u = 0.0
                        if p_inj < 1.0:  # (no draw when every cycle creates a packet)
                            x, u = _sm(x)
                        nnext[_u(n)] = ct + _gap(u, p_inj, logq)
                    nnext[_u(n)] = bs_next(wl, n, nnext[_u(n)])
                    ncur[_u(n)] = pid
                    nidx[_u(n)] = 0
                    nvc[_u(n)] = -1
                    made = ct
                if state == DRAINING and not nqd[_u(n)] and (made < 0 or made >= drain_t):
                    nqd[_u(n)] = 1
                    ndr += 1
                if pid < 0:  # idle: waits on the wheel (a workload's: for a send)
                    if nvis[_u(nw)] & nbit:
                        nvis[_u(nw)] &= ~nbit
                        _idle(wl, n, nnext[_u(n)], t, chead, cnext)
                    continue
            vc = nvc[_u(n)]
            if vc < 0:  # a head: the first VC after the last one used, free, with a credit
                lvc = nlvc[_u(n)]
                for i in range(1, NV + 1):
                    c = 0 if lvc < 0 else (lvc + i if lvc + i < NV else lvc + i - NV)
                    if nuse[_u(n * V + c)] == 0 and ncred[_u(n * V + c)] > 0:
                        vc = c
                        break
                if vc < 0:
                    continue
                nvc[_u(n)] = vc
            if ncred[_u(n * V + vc)] == 0:
                continue
            ncred[_u(n * V + vc)] -= 1
            idx = nidx[_u(n)]
            if idx == 0:
                nuse[_u(n * V + vc)] = 1
                nlvc[_u(n)] = vc
                pkr[_u(pid)].it = t
            if state != DRAINING:
                sent += 1
            inj += 1
            f_ev[_u(n2 * CAP + kf2), 0] = (node_sw[_u(n)] * R + node_pt[_u(n)]) * V + vc
            f_ev[_u(n2 * CAP + kf2), 1] = (pid << LF) | idx
            kf2 += 1
            bs_flit_in(wl, n, pid, idx == F - 1, t)
            if idx == F - 1:
                nuse[_u(n * V + vc)] = 0
                ncur[_u(n)] = -1
                if nnext[_u(n)] > t:  # no packet due: waits on the wheel
                    nvis[_u(nw)] &= ~nbit
                    _idle(wl, n, nnext[_u(n)], t, chead, cnext)
            else:
                nidx[_u(n)] = idx + 1
    cnt[K_MEAS_INFL], cnt[K_NFREE], cnt[K_INFL_F], cnt[K_INFL_CT] = meas, nfree, infl_f, infl_ct
    cnt[K_CREATED], cnt[K_NDRAINED], cnt[K_SENT_F], cnt[K_INJ_F] = created, ndr, sent, inj
    f_n[_u(n2)] = kf2
    return x


@numba_only()
def _allocate_1vc(net, rt, t, wins, sc):
    """VC and switch allocation of every router holding flits, with one VC and 1-flit
    packets (``SHAPE_1VC_1FLIT``): each input makes at most one request, so both iSLIP
    accept phases are trivial (their pointers are never read) and each output resolves
    alone from a bit mask of its requesters (R <= 64, one mask word), its switch grant
    pointer beside its VC's state. Appends the grants to ``wins`` in router order, each
    router's in input order (as the general path); returns their number."""
    cfg = net.cfg
    R, S, SPEC = cfg[C_R], cfg[C_S], cfg[C_SPEC]
    SW = (S + 63) >> 6  # words of the active set
    iv, ov, active, vmask = rt.iv, rt.ov, rt.active, rt.vmask
    win_g, win_o, win_ovc = wins
    rq, mvo = sc.rq, sc.mvo
    ALL = ~np.uint64(0)
    nwin = 0
    for aw in range(SW):
        am = active[_u(aw)]
        while am:
            s = (aw << 6) + np.int64(trailing_zeros(am))
            am &= am - np.uint64(1)
            m = vmask[_u(s)]
            if not m:  # nothing buffered: leaves the active set
                active[_u(aw)] &= ~(np.uint64(1) << np.uint64(s & 63))
                continue
            base = s * R
            om = np.uint64(0)
            while m:
                p = np.int64(trailing_zeros(m))
                m &= m - np.uint64(1)
                g = base + p
                if iv[_u(g)].rdy > t:
                    continue
                o = iv[_u(g)].route
                if iv[_u(g)].st == VA:  # asks for the VC if free (switch: if credit)
                    if ov[_u(base + o)].use >= 0:
                        continue
                elif ov[_u(base + o)].cred <= 0:  # ACTIVE: holds the VC, needs a credit
                    continue
                rq[_u(o)] |= np.uint64(1) << np.uint64(p)
                om |= np.uint64(1) << np.uint64(o)
            mv = np.uint64(0)
            while om:
                o = np.int64(trailing_zeros(om))
                om &= om - np.uint64(1)
                mq = rq[_u(o)]
                rq[_u(o)] = np.uint64(0)
                ovc = base + o
                p = np.int64(ov[_u(ovc)].use)
                if p < 0:  # VC allocation: the requester nearest the pointer
                    mh = mq & (ALL << np.uint64(ov[_u(ovc)].vag))
                    w = np.int64(trailing_zeros(mh if mh else mq))
                    ov[_u(ovc)].vag = w + 1 if w + 1 < R else 0
                    ov[_u(ovc)].use = w
                    iv[_u(base + w)].st = ACTIVE  # (ovv: never read here)
                    iv[_u(base + w)].rdy = t + 1
                    if not SPEC or ov[_u(ovc)].cred <= 0:
                        continue
                    # speculative switch requests of all of them: the one nearest
                    # the pointer wins, and moves if it also won the VC
                    mh = mq & (ALL << np.uint64(ov[_u(ovc)].sag1))
                    p = np.int64(trailing_zeros(mh if mh else mq))
                ov[_u(ovc)].sag1 = p + 1 if p + 1 < R else 0
                if ov[_u(ovc)].use == p:
                    mv |= np.uint64(1) << np.uint64(p)
                    mvo[_u(p)] = o
            while mv:
                p = np.int64(trailing_zeros(mv))
                mv &= mv - np.uint64(1)
                win_g[_u(nwin)] = base + p
                win_o[_u(nwin)] = mvo[_u(p)]
                win_ovc[_u(nwin)] = base + mvo[_u(p)]
                nwin += 1
    return nwin


@numba_only()
def _requests(net, rt, t, sc):
    """The VC and switch requests of every router holding flits (any VC count and packet
    length), on the state at the start of the cycle, listed router by router (``sc.rs``,
    ``sc.ro``); a router with nothing buffered leaves the active set. Returns the number
    of routers with requests."""
    cfg = net.cfg
    R, S, V, NV, LV, SPEC = cfg[C_R], cfg[C_S], cfg[C_V], cfg[C_NV], cfg[C_LV], cfg[C_SPEC]
    MV = V - 1
    RV = R * V
    MW = vmask_words(RV)
    SW = (S + 63) >> 6
    iv, ov, pp, active, vmask = rt.iv, rt.ov, rt.pp, rt.active, rt.vmask
    va_li, va_o, va_res, va_at = sc.va_g, sc.va_o, sc.va_res, sc.va_at
    sa_p, sa_v, sa_o, sa_pr, rs, ro = sc.sa_p, sc.sa_v, sc.sa_o, sc.sa_pr, sc.rs, sc.ro
    nr = nva = nsa = 0
    for aw in range(SW):
        am = active[_u(aw)]
        while am:
            s = (aw << 6) + np.int64(trailing_zeros(am))
            am &= am - np.uint64(1)
            base = s * RV
            busy = False
            va0, sa0 = nva, nsa
            for w in range(MW):  # the input VCs holding flits, in index order
                m = vmask[_u(s * MW + w)]
                if m:
                    busy = True
                while m:
                    li = (w << 6) + np.int64(trailing_zeros(m))
                    m &= m - np.uint64(1)
                    g = base + li
                    if iv[_u(g)].rdy > t:
                        continue
                    vs = iv[_u(g)].st
                    rp_o = -1
                    prio = 0
                    if vs == VA:
                        # a VC allocation request only if a VC of the port is free (else it
                        # can be granted nothing); a speculative switch request if one of
                        # those has a credit
                        o = iv[_u(g)].route
                        ob = (s * R + o) * V
                        free = False
                        for oj in range(NV):
                            if ov[_u(ob + oj)].use < 0:
                                free = True
                                if SPEC and ov[_u(ob + oj)].cred > 0:
                                    rp_o = o
                                    break
                        if free:
                            va_at[_u(g)] = nva
                            va_li[_u(nva)] = li
                            va_o[_u(nva)] = o
                            va_res[_u(nva)] = -1
                            nva += 1
                    elif vs == ACTIVE:
                        if ov[_u((s * R + iv[_u(g)].route) * V + iv[_u(g)].ovv)].cred > 0:
                            rp_o = iv[_u(g)].route
                            prio = 1
                    if rp_o >= 0:
                        # one request per (input, output): a non-speculative one beats a
                        # speculative one, then the VC nearest the input's round-robin offset
                        # (IQRouter::_SWAllocAddReq, RoundRobinArbiter::Supersedes)
                        rp = li >> LV
                        rv = li & MV
                        off = pp[_u(s * R + rp)].rr
                        found = False
                        # this input port's requests are the last ones (index order)
                        i = nsa - 1
                        while i >= sa0 and sa_p[_u(i)] == rp:
                            if sa_o[_u(i)] == rp_o:
                                found = True
                                d1 = rv - off
                                d2 = sa_v[_u(i)] - off
                                if prio > sa_pr[_u(i)] or (
                                    prio == sa_pr[_u(i)]
                                    and (d1 + NV if d1 < 0 else d1) < (d2 + NV if d2 < 0 else d2)
                                ):
                                    sa_v[_u(i)] = rv
                                    sa_pr[_u(i)] = prio
                                break
                            i -= 1
                        if not found:
                            sa_p[_u(nsa)] = rp
                            sa_v[_u(nsa)] = rv
                            sa_o[_u(nsa)] = rp_o
                            sa_pr[_u(nsa)] = prio
                            nsa += 1
            if not busy:  # nothing buffered: leaves the active set
                active[_u(aw)] &= ~(np.uint64(1) << np.uint64(s & 63))
            elif nva > va0 or nsa > sa0:
                rs[_u(nr)] = s
                ro[_u(2 * nr)] = va0
                ro[_u(2 * nr + 1)] = sa0
                nr += 1
    ro[_u(2 * nr)] = nva
    ro[_u(2 * nr + 1)] = nsa
    return nr


@numba_only()
def _allocate(net, rt, t, wins, sc, nr):
    """VC and switch allocation of the routers :func:`_requests` listed, one router at a
    time: iSLIP with one iteration each (pointers move on acceptance), a speculative
    switch grant kept only with this cycle's VC grant and a credit, then the VC grants
    taken (``TakeBuffer``). Appends the switch grants to ``wins``; returns their number."""
    cfg = net.cfg
    R, V, NV, LV = cfg[C_R], cfg[C_V], cfg[C_NV], cfg[C_LV]
    MV = V - 1
    RV = R * V
    iv, ov, pp = rt.iv, rt.ov, rt.pp
    va_li, va_o, va_res, va_at = sc.va_g, sc.va_o, sc.va_res, sc.va_at
    va_gbest, va_gdist, sa_p, sa_v, sa_o = sc.va_gbest, sc.va_gdist, sc.sa_p, sc.sa_v, sc.sa_o
    sa_pr, g_in, g_dist, a_out, a_dist = sc.sa_pr, sc.g_in, sc.g_dist, sc.a_out, sc.a_dist
    win_g, win_o, win_ovc = wins
    rs, ro = sc.rs, sc.ro
    nwin = 0
    for k in range(nr):
        s = rs[_u(k)]
        base = s * RV
        pb = s * R
        v0, v1, s0, s1 = ro[_u(2 * k)], ro[_u(2 * k + 2)], ro[_u(2 * k + 1)], ro[_u(2 * k + 3)]
        if v1 > v0:  # VC allocation: grant phase (each output VC: the input VC nearest it)
            for i in range(v0, v1):
                li = va_li[_u(i)]
                ob = (pb + va_o[_u(i)]) * V
                for oj in range(NV):
                    ovc = ob + oj
                    if ov[_u(ovc)].use < 0:
                        ol = ovc - base
                        d = li - ov[_u(ovc)].vag
                        d = d + RV if d < 0 else d
                        if va_gbest[_u(ol)] < 0 or d < va_gdist[_u(ol)]:
                            va_gbest[_u(ol)] = li
                            va_gdist[_u(ol)] = d
            for i in range(v0, v1):  # accept phase
                li = va_li[_u(i)]
                g = base + li
                o = va_o[_u(i)]
                best = -1
                bd = 0
                for oj in range(NV):
                    ol = o * V + oj
                    if va_gbest[_u(ol)] == li:
                        d = ol - iv[_u(g)].vaa
                        d = d + RV if d < 0 else d
                        if best < 0 or d < bd:
                            best = ol
                            bd = d
                if best >= 0:
                    va_res[_u(i)] = best
                    ov[_u(base + best)].vag = li + 1 if li + 1 < RV else 0
                    iv[_u(g)].vaa = best + 1 if best + 1 < RV else 0
            for i in range(v0, v1):  # reset the scratch
                o = va_o[_u(i)]
                for oj in range(NV):
                    va_gbest[_u(o * V + oj)] = -1
        if s1 > s0:  # switch allocation: grant (each output: the input nearest its pointer)
            for i in range(s0, s1):
                o = sa_o[_u(i)]
                d = sa_p[_u(i)] - pp[_u(pb + o)].sag
                d = d + R if d < 0 else d
                if g_in[_u(o)] < 0 or d < g_dist[_u(o)]:
                    g_in[_u(o)] = sa_p[_u(i)]
                    g_dist[_u(o)] = d
            for i in range(s0, s1):  # accept: each input, the granting output nearest its pointer
                p = sa_p[_u(i)]
                o = sa_o[_u(i)]
                if g_in[_u(o)] == p:
                    d = o - pp[_u(pb + p)].saa
                    d = d + R if d < 0 else d
                    if a_out[_u(p)] < 0 or d < a_dist[_u(p)]:
                        a_out[_u(p)] = o
                        a_dist[_u(p)] = d
            for i in range(s0, s1):
                p = sa_p[_u(i)]
                o = sa_o[_u(i)]
                if a_out[_u(p)] != o:
                    continue
                v = sa_v[_u(i)]
                pp[_u(pb + o)].sag = p + 1 if p + 1 < R else 0
                pp[_u(pb + p)].saa = o + 1 if o + 1 < R else 0
                pp[_u(pb + p)].rr = v + 1 if v + 1 < NV else 0
                li = p * V + v
                g = base + li
                if sa_pr[_u(i)] == 0:  # speculative: needs this cycle's VC grant, with a credit
                    j = va_at[_u(g)]  # (its entry in this cycle's VC allocation list)
                    r = va_res[_u(j)] if v0 <= j < v1 and va_li[_u(j)] == li else -1
                    if r < 0 or (r >> LV) != o:
                        continue
                    ovc = (pb + o) * V + (r & (V - 1))
                    if ov[_u(ovc)].cred == 0:
                        continue
                else:
                    ovc = (pb + o) * V + iv[_u(g)].ovv
                win_g[_u(nwin)] = g
                win_o[_u(nwin)] = o
                win_ovc[_u(nwin)] = ovc
                nwin += 1
            for i in range(s0, s1):  # reset the scratch
                g_in[_u(sa_o[_u(i)])] = -1
                a_out[_u(sa_p[_u(i)])] = -1
        for i in range(v0, v1):  # VC allocation updates (TakeBuffer)
            r = va_res[_u(i)]
            if r >= 0:
                g = base + va_li[_u(i)]
                o = r >> LV
                ov[_u((pb + o) * V + (r & MV))].use = va_li[_u(i)]
                iv[_u(g)].st = ACTIVE
                iv[_u(g)].ovv = r & MV
                iv[_u(g)].rdy = t + 1
    return nwin


@njit(cache=True, inline="always")
def _moves(net, rt, ev, pk, st, t, x, shape, wins, nwin, wl):
    """The switch grants' flits leave, in router order: each frees its buffer slot, takes
    a credit of its output VC (releasing the VC with the tail), is read by the next
    router (or node) in ``t + 3`` and sends its credit upstream (received in ``t + 2``,
    applied ``credit_delay`` later); the next packet's head is routed. The lengths of
    the event lists live in locals until the phase ends (distinct slots: ``t + 3``,
    ``t + 2 + credit_delay``, ``t + 5 + credit_delay``, ``t + 2``): numba cannot tell the
    arrays apart, so every store to one would reload the others. Returns the random
    state."""
    cfg = net.cfg
    S, R, B, N, W = cfg[C_S], cfg[C_R], cfg[C_B], cfg[C_N], cfg[C_W]
    RD, CD, RKIND, DID = cfg[C_RD], cfg[C_CD], cfg[C_RKIND], cfg[C_DID]
    if shape == SHAPE_1VC_1FLIT:
        V, LV, F, LF = 1, 0, 1, 0
    else:
        V, LV, F, LF = cfg[C_V], cfg[C_LV], cfg[C_F], cfg[C_LF]
    LRV = cfg[C_LR] + LV
    MV = V - 1
    MF = (1 << LF) - 1
    RV = R * V
    MW = vmask_words(RV)
    CAP = ev.f_ev.shape[0] // W
    bq, hq, iv, ov, active, vmask, plh, peer = (
        rt.bq,
        rt.hq,
        rt.iv,
        rt.ov,
        rt.active,
        rt.vmask,
        rt.plh,
        rt.peer,
    )
    dsub, dport = rt.dsub, rt.dport
    node_sw, node_pt, up_n, up_ports, next_hop = (
        net.node_sw,
        net.node_pt,
        net.up_n,
        net.up_ports,
        net.next_hop,
    )
    f_ev, f_n, c_ovc, c_n, ev_nc, nc_n, d_code, d_n = ev
    pkey = pk.pkey
    win_g, win_o, win_ovc = wins
    e3 = (t + 3) & (W - 1)
    e5 = (t + 5 + CD) & (W - 1)
    e2c = (t + 2 + CD) & (W - 1)
    e2 = (t + 2) & (W - 1)
    kf3, kd3, kc5, kc2, kn2 = f_n[_u(e3)], d_n[_u(e3)], c_n[_u(e5)], c_n[_u(e2c)], nc_n[_u(e2)]
    moves = 0
    for i in range(nwin):
        g = win_g[_u(i)]
        o = win_o[_u(i)]
        ovc = win_ovc[_u(i)]
        s = g >> LRV
        code = hq[_u(g)]
        n1 = iv[_u(g)].bl - 1
        iv[_u(g)].bl = n1
        if n1:  # the next flit comes to the front
            h = iv[_u(g)].bh
            hq[_u(g)] = bq[_u(g * B + h)]
            iv[_u(g)].bh = h + 1 if h + 1 < B else 0
        idx = code & MF
        tail = idx == F - 1
        ov[_u(ovc)].cred -= 1
        if tail:
            ov[_u(ovc)].use = -1
        code += HOP  # (each flit counts its routers; the tail's count is the packet's)
        moves += 1
        bs_port(wl, s, o)
        ds = peer[_u(s * R + o)]
        if ds >= 0:  # read by the next router in t + 3
            f_ev[_u(e3 * CAP + kf3), 0] = ds * V + (ovc & MV)
            f_ev[_u(e3 * CAP + kf3), 1] = code
            kf3 += 1
        else:  # read by the node in t + 3; its credit reaches us in t + 5
            d_code[_u(e3 * N + kd3)] = code
            kd3 += 1
            c_ovc[_u(e5 * CAP + kc5)] = ovc
            kc5 += 1
        inport = g >> LV
        v = g & MV
        us = peer[_u(inport)]
        if us >= 0:  # credit upstream: received in t + 2, applied credit_delay later
            c_ovc[_u(e2c * CAP + kc2)] = us * V + v
            kc2 += 1
        else:
            ev_nc[_u(e2 * N + kn2)] = (-1 - us) * V + v
            kn2 += 1
        if iv[_u(g)].bl == 0:
            li = g & (RV - 1)
            vmask[_u(s * MW + (li >> 6))] &= ~(np.uint64(1) << np.uint64(li & 63))
            if tail:
                iv[_u(g)].st = IDLE
        elif tail:  # the next packet's head: routed, then VC allocation
            nxt = hq[_u(g)]
            iv[_u(g)].st = VA
            d = pkey[_u((nxt & PMASK) >> LF)]
            if RKIND == 0:  # nca: down if below, else a random up port
                rp = -1
                sh = dsub[_u(s * 4 + 2)]
                if sh >= -1:  # the down ports tile the subtree: one lookup
                    xd = d - dsub[_u(s * 4)]
                    if 0 <= xd < dsub[_u(s * 4 + 1)]:
                        xd = xd >> sh if sh >= 0 else xd // dsub[_u(s * 4 + 3)]
                        rp = xd if DID else dport[_u(s * R + xd)]
                else:
                    for q in range(R):
                        if plh[_u((s * R + q) * 2)] <= d <= plh[_u((s * R + q) * 2 + 1)]:
                            rp = q
                            break
                if rp < 0:
                    x, u = _sm(x)
                    k = int(u * up_n[_u(s)])
                    rp = up_ports[_u(s * R + k)]
            else:  # the anynet min table
                ds = node_sw[_u(d)]
                rp = node_pt[_u(d)] if ds == s else next_hop[_u(s * S + ds)]
            iv[_u(g)].route = rp
            iv[_u(g)].rdy = t + 1 + RD
        else:
            iv[_u(g)].rdy = t + 1
        if shape == SHAPE_1VC_1FLIT and not vmask[_u(s)]:
            if i + 1 == nwin or win_g[_u(i + 1)] >> LRV != s:
                # emptied: leaves the active set now, not in a visit next cycle
                active[_u(s >> 6)] &= ~(np.uint64(1) << np.uint64(s & 63))
    f_n[_u(e3)], d_n[_u(e3)], c_n[_u(e5)], c_n[_u(e2c)], nc_n[_u(e2)] = kf3, kd3, kc5, kc2, kn2
    st.cnt[K_MOVES] += moves
    return x
