"""Allocation of the simulator's struct-of-arrays state (vectorised, no per-switch loop)."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from ..errors import ResourceError
from .layout import (
    C_ADAPT,
    C_FT,
    C_ARB,
    C_CD,
    C_COLS,
    C_DLWIN,
    C_DONLY,
    C_F,
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
    FC_DEPTH,
    FC_WNEXT,
    FS_COLS,
    FS_IP,
    FS_OUT,
    FS_ROUTE,
    FS_SW,
    FS_UP,
    FS_VC,
    FS_WAIT,
    IN_BF,
    IN_COLS,
    INJ_COLS,
    INJ_PKT,
    K_COLS,
    K_FREE,
    K_NACTIVE,
    OP_BF,
    OP_LVL,
    OP_OWN,
    OP_TGT,
    OP_TSW,
    OP_WHEAD,
    PK_COLS,
    SL_COLS,
)
from ..faults.view import VIEWS, Faults, no_faults
from .routecache import route_cache

HIST_MAX = 1 << 20  # latency histogram bins (larger latencies share the last bin)
SERIES_MAX = 1 << 21  # cycles with a per-cycle created/delivered record
QUEUE_START = 16  # initial source-queue capacity per node (grows by doubling)
BITMAP_BYTES = 16 << 20  # FIFO rows beyond this: busy bit map visited in index order


# The kernel's named groups of state (numba types a namedtuple of arrays field by field;
# the phases of :mod:`fattree.sim.kernel` read them as ``sw.fs``, ``src.ncred``, ...).
# Each field takes the State attribute of the same name, so nothing depends on an order.
Net = namedtuple(
    "Net",
    "cfg port_peer node_fifo rcache rtable riparams tip tfp ttab iip itab src_ids",
)
Net.__doc__ = "Read-only tables: configuration, topology, routing, traffic."
Switches = namedtuple("Switches", "fs fcold slots ops busy order sleepq wheel wheel_n")
Switches.__doc__ = "Input FIFOs, their flits, output ports, the busy list and the credit wheel."
Arbiters = namedtuple("Arbiters", "op_key touched_op in_scr in_key rr_out rr_in touched_in cand")
Arbiters.__doc__ = "Arbitration: per-cycle scratch, round-robin pointers, route candidates."
Sources = namedtuple("Sources", "istate creators q qh ql inj pend ncred nseq dfirst quota wl")
Sources.__doc__ = (
    "The nodes: injection process state, source queues, injection and credits; ``wl``: "
    "None, or the closed-loop workload source (sim/closedloop.py)."
)
Packets = namedtuple("Packets", "pk pfree")
Packets.__doc__ = "The packet pool (one row per packet in flight) and its free stack."
Stats = namedtuple("Stats", "cnt hist_lat hist_net lvl_flits ser")
Stats.__doc__ = "Counters, latency histograms, flits per level and the per-cycle series."
# the kernel's argument order; the last, the fault view, is None in a fault-free run (the
# kernel is then compiled without any fault engine: sim/faulthop.py ``fault_*``)
GROUPS = (Net, Switches, Arbiters, Sources, Packets, Stats, Faults)


@dataclass
class State:
    """Every array the kernel reads or writes (grouped for it by :meth:`args`)."""

    cfg: np.ndarray
    port_peer: np.ndarray
    node_fifo: np.ndarray
    rcache: np.ndarray
    rtable: np.ndarray
    riparams: np.ndarray
    tip: np.ndarray
    tfp: np.ndarray
    ttab: np.ndarray
    iip: np.ndarray
    itab: np.ndarray
    istate: np.ndarray
    src_ids: np.ndarray
    fs: np.ndarray
    fcold: np.ndarray
    slots: np.ndarray
    ops: np.ndarray
    op_key: np.ndarray
    touched_op: np.ndarray
    in_scr: np.ndarray
    in_key: np.ndarray
    rr_out: np.ndarray
    rr_in: np.ndarray
    touched_in: np.ndarray
    busy: np.ndarray
    order: np.ndarray
    sleepq: np.ndarray
    q: np.ndarray
    qh: np.ndarray
    ql: np.ndarray
    inj: np.ndarray
    pend: np.ndarray
    ncred: np.ndarray
    nseq: np.ndarray
    dfirst: np.ndarray
    quota: np.ndarray
    pk: np.ndarray
    pfree: np.ndarray
    wheel: np.ndarray
    wheel_n: np.ndarray
    cnt: np.ndarray
    hist_lat: np.ndarray
    hist_net: np.ndarray
    lvl_flits: np.ndarray
    ser: np.ndarray
    cand: np.ndarray
    creators: np.ndarray
    ft_i: np.ndarray
    ft_stamp: np.ndarray
    ft_tab: np.ndarray
    ft_order: np.ndarray
    ft_cube: np.ndarray
    ft_pp: np.ndarray
    ft_rt: tuple
    ft_ws: np.ndarray
    wl: object = None  # a closed-loop source (sim/closedloop.py ``Closed``), None: open loop

    def args(self) -> tuple:
        """The kernel's arguments: one named group per :data:`GROUPS` entry, each field
        taken by name (the groups are rebuilt per call: growing replaces arrays)."""
        groups = [g(**{f: getattr(self, f) for f in g._fields}) for g in GROUPS[:-1]]
        eng = int(self.cfg[C_FT])
        flt = None if eng == 0 else VIEWS[eng](**{f: getattr(self, f) for f in Faults._fields})
        return (*groups, flt)

    def grow_queues(self) -> None:
        """Double the per-node source-queue capacity (rings are unwrapped).

        Unwrapped a block of rows at a time: the int64 index and the gathered copy of the
        whole array would have cost twice the queues' own size at the peak (3 GB beside
        1.5 GB of queues in a congested 524,288-node run)."""
        n, cap = self.q.shape
        new = np.zeros((n, 2 * cap), np.int32)
        ar = np.arange(cap)
        step = max(1, (1 << 20) // cap)
        for a in range(0, n, step):
            b = min(n, a + step)
            idx = (self.qh[a:b, None] + ar[None, :]) % cap
            new[a:b, :cap] = np.take_along_axis(self.q[a:b], idx, axis=1)
        self.q = new
        self.qh[:] = 0

    def grow_pool(self) -> None:
        """Double the packet pool; the new slots go on the free stack."""
        old = self.pk.shape[0]
        pk = aligned((2 * old, PK_COLS), np.int64)
        pk[:old] = self.pk
        free = int(self.cnt[K_FREE])
        pfree = np.zeros(2 * old, np.int32)
        pfree[:free] = self.pfree[:free]
        pfree[free : free + old] = np.arange(old, 2 * old, dtype=np.int32)
        self.pk, self.pfree = pk, pfree
        self.cnt[K_FREE] = free + old


def aligned(shape, dtype, fill=0) -> np.ndarray:
    """An array whose data starts on a 64-byte boundary (rows of 64 bytes then sit on
    one cache line each)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.empty(n * dtype.itemsize + 64, np.uint8)
    off = (-raw.ctypes.data) % 64
    a = raw[off : off + n * dtype.itemsize].view(dtype).reshape(shape)
    a[...] = fill
    return a


def op_cols(vcs: int) -> int:
    """Columns of ``ops``: the fixed ones, owner and credit per VC, padded to 64 bytes."""
    return -(-(OP_OWN + 2 * vcs) // 16) * 16


def estimate_bytes(topo, cfg) -> int:
    """Bytes of state for a simulation (before queues and pool grow)."""
    ports = topo.n_switches * topo.max_ports
    v = cfg.vcs
    slots = ports * v * max(cfg.buffer - 1, (cfg.buffer_level0 or 1) - 1, 1)
    return (
        ports * v * (4 * FS_COLS + 16)
        + 8 * slots
        + ports * (4 * op_cols(v) + 24)
        + topo.n_nodes * (4 * QUEUE_START + 136 + 8 * PK_COLS * 4)
    )


def allocate(
    topo, cr, traffic, process, cfg, sleep: bool = True, bitmap: bool | None = None, ft=None
) -> State:
    """Build the initial state of a run (validated inputs; nothing simulated yet).

    ``sleep=False`` evaluates every busy FIFO every cycle; ``bitmap`` forces the busy
    bit map (True) or the active list (False) instead of choosing by size. Both are for
    tests: the results are identical. ``ft``: a :class:`~fattree.faults.view.FaultRouter`
    (faults: each switch routes by the fault-tolerant kernel; no route cache).
    """
    # (the memory was checked once, before anything was built: sim/setup.py, prepare)
    N, S, R, V, F = topo.n_nodes, topo.n_switches, topo.max_ports, cfg.vcs, cfg.packet_flits
    peer = np.ascontiguousarray(topo.port_peer, np.int32)
    back = topo.port_peer_port.astype(np.int64)
    p64 = peer.astype(np.int64).ravel()
    op_tgt = np.where(p64 >= N, ((p64 - N) * R + back.ravel()) * V, -(p64 + 1))
    op_tgt[p64 < 0] = -(N + 1)  # unused port: never chosen by a valid routing
    level = topo.switch_level.astype(np.int64)
    b0 = cfg.buffer if cfg.buffer_level0 is None else cfg.buffer_level0
    cap_port = (np.where(level[:, None] == 0, b0, cfg.buffer) * (peer >= 0)).ravel()
    cap = np.repeat(cap_port, V).astype(np.int64)
    total = len(cap) * max(int(cap.max()) - 1, 1)
    if total >= 2**31:
        raise ResourceError(f"{total:,} buffer slots exceed the simulator's 2^31 limit")
    nf = S * R * V
    nports = S * R
    # the sender of each input FIFO: the peer's output port, or the node on a node port
    sender = np.where(p64 >= N, (p64 - N) * R + back.ravel(), -(p64 + 1))
    fs = aligned((nf, FS_COLS), np.int32)
    fs[:, FS_UP] = np.repeat(sender, V)
    fs[:, FS_WAIT] = -1
    fs[:, FS_OUT] = -1
    fs[:, FS_ROUTE] = -1
    fid = np.arange(nf, dtype=np.int64)
    fs[:, FS_SW] = fid // (R * V)
    fs[:, FS_IP] = (fid // V) % R
    fs[:, FS_VC] = fid % V
    fcold = np.zeros((nf, FC_COLS), np.int32)
    fcold[:, FC_WNEXT] = -1
    fcold[:, FC_DEPTH] = cap
    ring = max(int(cap.max()) - 1, 0)
    ops = aligned((nports, op_cols(V)), np.int32)
    ops[:, OP_BF] = -1
    ops[:, OP_TGT] = op_tgt
    ops[:, OP_TSW] = np.where(p64 >= N, p64 - N, -1)
    ops[:, OP_LVL] = np.repeat(level + 1, R)
    ops[:, OP_WHEAD] = -1
    ops[:, OP_OWN : OP_OWN + V] = -1
    to_switch = op_tgt >= 0
    tgt_cap = np.zeros((nports, V), np.int64)
    tgt_cap[to_switch] = cap[op_tgt[to_switch, None] + np.arange(V)[None, :]]
    ops[:, OP_OWN + V : OP_OWN + 2 * V] = tgt_cap
    node_fifo = ((topo.node_switch.astype(np.int64) * R + topo.node_port) * V).astype(np.int64)
    ncred = cap[node_fifo[:, None] + np.arange(V)[None, :]].astype(np.int32)
    node_fifo = np.stack([node_fifo, topo.node_switch.astype(np.int64)], axis=1)
    src_ids = np.flatnonzero(traffic.active).astype(np.int64)
    nsrc = len(src_ids)
    quota = np.zeros(N, np.int64)
    if traffic.timed:
        counts = np.diff(traffic.table[: N + 1])
        quota[:] = np.minimum(counts, cfg.packets_per_source)
    else:
        quota[src_ids] = cfg.packets_per_source
    cap_cycles = cfg.cycle_cap
    c = np.zeros(C_COLS, np.int64)
    c[C_R], c[C_V], c[C_F], c[C_N] = R, V, F, N
    c[C_RD], c[C_CD] = cfg.router_delay, cfg.credit_delay
    c[C_ARB] = 0 if cfg.arbitration == "random" else 1
    c[C_TERM] = 0 if cfg.termination == "papers" else 1
    c[C_WARM], c[C_MEAS] = cfg.warmup, cfg.measure
    c[C_DLWIN] = cfg.deadlock_window + cfg.router_delay + cfg.credit_delay
    c[C_SEED] = cfg.seed
    c[C_RCODE], c[C_ADAPT] = cr.code, int(cr.adaptive)
    c[C_INJVC0] = int(cr.vcs_required > 1)
    c[C_TCODE], c[C_ICODE] = traffic.code, process.code
    c[C_MAXCYC], c[C_MAXPER] = cap_cycles, process.max_per_cycle
    c[C_NQUOTA], c[C_NSRC] = int((quota > 0).sum()), nsrc
    if ft is None:
        rcache, donly = route_cache(topo, cr)
        ftf = no_faults(topo)
    else:  # the fault-tolerant kernel replaces the routing function and its cache
        rcache, donly = np.full((1, 1), -1, np.int8), False
        c[C_ADAPT] = 0
        c[C_FT] = ft.engine
        ftf = ft.fields()
        ftf["ft_ws"] = ftf["ft_ws"].copy()  # scratch: one per run
    c[C_RCACHE] = int(rcache.shape[0] > 1)
    c[C_DONLY] = int(donly)
    c[C_RING] = ring
    c[C_SLEEP] = int(sleep)
    pool = max(1024, 4 * nsrc)
    cnt = np.zeros(K_COLS, np.int64)
    cnt[K_FREE] = pool
    if bitmap is None:
        bitmap = nf * FS_COLS * 4 > BITMAP_BYTES
    cnt[K_NACTIVE] = -1 if bitmap else 0
    W = cfg.credit_delay + 2 if cfg.credit_delay > 0 else 1
    hist = min(cap_cycles + 2, HIST_MAX)
    nin = nports if V > 1 else 1
    in_scr = np.zeros((nin, IN_COLS), np.int64)
    in_scr[:, IN_BF] = -1
    inj = np.zeros((N, INJ_COLS), np.int64)
    inj[:, INJ_PKT] = -1
    return State(
        cfg=c,
        port_peer=peer,
        node_fifo=node_fifo,
        rcache=rcache,
        rtable=cr.table,
        riparams=cr.iparams,
        tip=traffic.iparams,
        tfp=traffic.fparams,
        ttab=traffic.table,
        iip=process.iparams,
        itab=process.table,
        istate=process.state.copy(),
        src_ids=src_ids,
        fs=fs,
        fcold=fcold,
        slots=aligned((max(nf * ring, 1), SL_COLS), np.int32),
        ops=ops,
        op_key=np.zeros(nports, np.uint64),
        touched_op=np.zeros(nports, np.int64),
        in_scr=in_scr,
        in_key=np.zeros(nin, np.uint64),
        rr_out=np.zeros(nports, np.int32),
        rr_in=np.zeros(nin, np.int32),
        touched_in=np.zeros(nin, np.int64),
        busy=np.zeros((nf + 31) // 32 if bitmap else nf, np.int64),
        order=np.zeros(nf if bitmap else 1, np.int64),
        sleepq=np.zeros((nf, 2), np.int32),
        q=np.zeros((N, QUEUE_START), np.int32),
        qh=np.zeros(N, np.int64),
        ql=np.zeros(N, np.int64),
        inj=inj,
        pend=np.zeros(N, np.int64),
        ncred=ncred,
        nseq=np.zeros(N, np.int64),
        dfirst=np.zeros(N, np.int64),
        quota=quota,
        pk=aligned((pool, PK_COLS), np.int64),
        pfree=np.arange(pool, dtype=np.int32)[::-1].copy(),
        wheel=np.zeros((W, nports if W > 1 else 1), np.int32),
        wheel_n=np.zeros(W, np.int64),
        cnt=cnt,
        hist_lat=np.zeros(hist, np.int64),
        hist_net=np.zeros(hist, np.int64),
        lvl_flits=np.zeros(int(level.max()) + 2, np.int64),
        ser=np.zeros((min(cap_cycles + 1, SERIES_MAX), 2), np.int32),
        cand=np.zeros(R + 1, np.int64),
        creators=np.zeros(max(nsrc, process.max_creators, 1), np.int64),
        **ftf,
    )
