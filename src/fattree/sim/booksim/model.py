"""The booksim model's driver: BookSim2's warm-up and sampling periods, and the result.

``setup_booksim`` and ``run_booksim(setup)`` are registered as ``model="booksim"``
(``fattree.sim.models``); call them through :func:`fattree.sim.simulate` with ``SimConfig(model="booksim", ...)``.

References
----------
BookSim2 commit 28f4329, ``src/trafficmanager.cpp`` (``_SingleSim``, ``Run``,
``_UpdateOverallStats``); docs/booksim.md ("Measurement").
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np

from ...version import __version__
from ...errors import ParameterError
from ...topology.export import BOOKSIM_FIXED
from ...traffic import make_traffic
from ...traffic.patterns import (
    DIGIT_PATTERNS,
    PATTERNS,
    T_HOTSPOT,
    T_TABLE,
    T_TRACE,
    T_UNIFORM,
    parse_pattern,
)
from ..result import SimResult, percentile
from . import kernel as K
from .routes import booksim_digits, booksim_net

#: patterns drawn by BookSim2's own rules, from the model's random stream in BookSim2's
#: order (uniform, hotspot) or read from a table (permutations); any other pattern takes
#: its destinations from the traffic layer's ``dest``, as in the papers' model
OWN_DRAWS = (T_UNIFORM, T_TABLE, T_HOTSPOT)
WARMUP_PERIODS = int(BOOKSIM_FIXED["warmup_periods"])
SAMPLE_PERIOD = int(BOOKSIM_FIXED["sample_period"])
MAX_SAMPLES = int(BOOKSIM_FIXED["max_samples"])
LATENCY_THRES = float(BOOKSIM_FIXED["latency_thres"])
STOPPING_THRES = 0.05  # BookSim2's stopping_thres and acc_stopping_thres


def _first_state(seed: int) -> int:
    """The SplitMix64 state a run starts from: the generator's finaliser of the seed.

    The kernel's stream advances its state by the golden-ratio increment per draw, so a
    state linear in the seed (``seed * increment + c``) would start seed ``s + 1`` one
    draw after seed ``s``: the same stream shifted by one number, and runs with seeds
    1, 2, 3, ... correlated (each source's first creation cycle is its neighbour's
    under the previous seed). Mixed, different seeds start at unrelated places of the
    2**64-long cycle.

    Parameters
    ----------
    seed : int
        The run's seed (``SimConfig.seed``), a non-negative integer.

    Returns
    -------
    int
        The initial state, below 2**64.

    Examples
    --------
    >>> from fattree.sim.booksim.kernel import first_creations
    >>> a, b = (first_creations(np.array([_first_state(s)], np.uint64), 0.01, 8) for s in (1, 2))
    >>> bool((a[1:] == b[:-1]).all())  # seed 2 is not seed 1 shifted by one draw
    False

    References
    ----------
    Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014
    (SplitMix64); docs/booksim.md ("What still differs": random streams).
    """
    m = (1 << 64) - 1
    z = (seed * 0x9E3779B97F4A7C15 + 0x5DEECE66D) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def booksim_traffic(topo, spec: str, seed: int = 0):
    """Bind a pattern as BookSim2 reads its name (``model='booksim'``).

    ``uniform`` includes the source (unless ``include_self`` is given); ``tornado`` and
    ``neighbor`` are BookSim2's digit patterns over the ``k`` and ``n`` of its
    configuration (the built-in fat tree's for kant, BookSim2's defaults 8 and 2 for an
    anynet file) unless the spec gives ``k`` and ``n``; fattree's ring variants are
    ``ringtornado`` and ``ringneighbor``. ``randperm`` is BookSim2's permutation of
    ``perm_seed`` (the option ``seed``, default 0; ``generator=numpy`` for fattree's).
    Permutations act on BookSim2's node ids.

    Parameters
    ----------
    topo : Topology
    spec : str
        The pattern, ``NAME[:key=value,...]``.
    seed : int
        The simulation seed.

    Returns
    -------
    Traffic
        Its ``spec`` records the options that ran (``tornado:k=4,n=3``).

    Raises
    ------
    ParameterError, UnknownNameError
        As :func:`fattree.traffic.make_traffic`; a digit pattern whose ``(xr*k)^n`` is not
        the node count.

    Examples
    --------
    >>> import fattree
    >>> booksim_traffic(fattree.build("kant:k=4,n=3"), "tornado").spec
    'tornado:k=4,n=3'

    References
    ----------
    BookSim2 commit 28f4329, ``src/traffic.cpp``; docs/booksim.md ("Traffic patterns").
    """
    name, raw = parse_pattern(spec)
    pat = PATTERNS.get(name)
    if pat.name == "uniform" and "include_self" not in raw:
        raw["include_self"] = "true"  # BookSim2's uniform draws the source too
    if pat.name == "randperm" and "generator" not in raw:
        raw["generator"] = "booksim2"  # BookSim2's permutation of perm_seed (default 0)
    if pat.name in DIGIT_PATTERNS and "k" not in raw and "n" not in raw:
        k, n = booksim_digits(topo)
        raw["k"], raw["n"] = str(k), str(n)
    if str(raw.get("placement", "id")) != "id":
        raise ParameterError(
            f"traffic={spec!r}: model='booksim' places ranks on BookSim2's node ids (its fat "
            "tree numbers them leaf by leaf already); drop placement"
        )
    opts = ",".join(f"{k}={v}" for k, v in raw.items())  # a pattern's own seed= among them
    return make_traffic(name + (":" + opts if opts else ""), topo.n_nodes, seed=seed)


def _alloc(topo, cfg, net, traffic, load):
    S, N, B, F = topo.n_switches, topo.n_nodes, cfg.buffer, cfg.packet_flits
    R0, NV = topo.max_ports, cfg.vcs
    LR, LV, LF = (max(int(x) - 1, 0).bit_length() for x in (R0, NV, F))
    R, V = 1 << LR, 1 << LV  # padded: indices split by shifts in the kernel
    NP = S * R
    NIV = NP * V
    cd = cfg.credit_delay
    W = 8
    while W < cd + 8:
        W *= 2
    peer = np.full((S, R), -1, np.int64)
    peer[:, :R0] = topo.port_peer
    pport = np.zeros((S, R), np.int64)
    pport[:, :R0] = topo.port_peer_port
    peer = peer.ravel()
    peer_sw = np.where(peer >= N, peer - N, -1).astype(np.int64)
    peer_node = np.where((peer >= 0) & (peer < N), peer, -1).astype(np.int64)
    peer_port = pport.ravel()
    # destinations: permutations apply to BookSim2's node ids (kant: its numbering)
    bs = net.booksim_of
    ours = np.empty(N, np.int64)
    ours[bs] = np.arange(N)
    dmode, hot, hfrac = K.D_UNIFORM_SELF, 0, 0.0
    dtab = np.zeros(1, np.int64)
    tr_cycle = tr_dst = np.zeros(1, np.int64)
    tr_start = tr_end = np.zeros(N, np.int64)
    timed = traffic.code == T_TRACE
    tip, tfp, ttab = np.zeros(1, np.int64), np.zeros(1), np.zeros(1, np.int64)
    own = traffic.code if traffic.code in OWN_DRAWS else None
    if own == T_UNIFORM:
        dmode = K.D_UNIFORM_SELF if traffic.iparams[2] else K.D_UNIFORM
    elif own == T_TABLE:
        dmode = K.D_TABLE
        dtab = ours[np.asarray(traffic.table, np.int64)[bs]]
    elif own == T_HOTSPOT:
        dmode, hot = K.D_HOTSPOT, int(traffic.iparams[0])
        hfrac = float(traffic.options["fraction"])
    elif timed:
        cyc, src, dst = (np.asarray(a, np.int64) for a in traffic.trace)
        order = np.lexsort((np.arange(len(cyc)), cyc, src))
        tr_cycle, tr_dst = cyc[order].copy(), dst[order].copy()
        counts = np.bincount(src, minlength=N)
        tr_end = np.cumsum(counts).astype(np.int64)
        tr_start = (tr_end - counts).astype(np.int64)
    else:  # any other registered pattern: its own dest (traffic layer), on BookSim2's ids
        dmode = K.D_PATTERN
        tip = np.array(traffic.iparams, np.int64)
        tfp = np.array(traffic.fparams, np.float64)
        ttab = np.array(traffic.table, np.int64)
    p = 0.0 if timed else float(load) / F
    icfg = np.array(
        [
            S,
            R,
            V,
            B,
            F,
            N,
            W,
            int(_spec(cfg)),
            cfg.routing_delay or 0,
            cd,
            net.kind,
            dmode,
            hot,
            int(timed),
            LR,
            LV,
            LF,
            NV,
            0,  # C_DID, below
            traffic.code,
            cfg.seed,  # (the pattern's draws hash the simulation seed, as the papers' model)
        ],
        np.int64,
    )
    up_ports = np.full((S, R), -1, np.int32)
    if len(net.up_ports):
        up_ports[:, :R0] = net.up_ports.reshape(S, R0)
    netw = K.Net(
        icfg,
        np.array([p, hfrac]),
        peer_sw,
        peer_node,
        peer_port,
        np.asarray(topo.node_switch, np.int64),
        np.asarray(topo.node_port, np.int64),
        np.asarray(net.booksim_of, np.int64),
        net.up_n if len(net.up_n) else np.zeros(1, np.int32),
        up_ports.ravel(),
        net.next_hop if len(net.next_hop) else np.zeros(1, np.int16),
        dtab,
        tr_cycle,
        tr_dst,
        tr_start,
        tr_end,
        tip,
        tfp,
        ttab,
        ours,
    )
    if R * V >= K.SMALL or B >= K.SMALL:
        raise ParameterError(
            f"buffer={B} with {R0} ports x {NV} VCs: model='booksim' allows buffer < "
            f"{K.SMALL} and (ports x VCs, each rounded up to a power of two) < {K.SMALL}"
        )
    iv = _zeros(NIV, K.IV_DT, 9)
    ov = _zeros(NIV, K.OV_DT, 18)
    ov["use"] = -1
    cred = np.where(peer >= 0, B, 0).astype(np.int16)
    ov["cred"] = np.repeat(cred, V)
    ov["cred"].reshape(NP, V)[:, NV:] = 0  # padded VCs never carry a flit
    pp = _zeros(NP, K.PP_DT, 27)
    unconnected = -(1 << 30)  # (never a route)
    ppeer = np.where(  # the peer switch's global port index, or -1 - node
        peer_sw >= 0, peer_sw * R + peer_port, np.where(peer_node >= 0, -1 - peer_node, unconnected)
    )
    lo = np.full((S, R), -1, np.int64)
    hi = np.full((S, R), -2, np.int64)
    if len(net.port_lo):
        lo[:, :R0] = net.port_lo.reshape(S, R0)
        hi[:, :R0] = net.port_hi.reshape(S, R0)
    plh = np.empty((NP, 2), np.int32)  # each port's range of BookSim2 destination ids
    plh[:, 0] = lo.ravel()
    plh[:, 1] = hi.ravel()
    rt = K.Rt(
        _zeros(NIV * B, np.int64, 0),
        _zeros(NIV, np.int64, 63),
        iv,
        ov,
        pp,
        np.zeros((S + 63) >> 6, np.uint64),
        _zeros(S * K.vmask_words(R * V), np.uint64, 36),
        plh.ravel(),
        _aligned(ppeer.astype(np.int32), 45),
        *(_aligned(a, 54 + 5 * i) for i, a in enumerate(_down_tiles(lo, hi))),
    )
    icfg[K.C_DID] = _down_identity(rt.dsub, rt.dport, lo, hi)
    rng = np.array([_first_state(cfg.seed)], np.uint64)
    if timed:
        nnext = np.where(
            tr_end > tr_start, tr_cycle[np.minimum(tr_start, len(tr_cycle) - 1)], 1 << 62
        ).astype(np.int64)
    else:
        nnext = K.first_creations(rng, p, N)
    ncred = np.full((N, V), B, np.int64)
    ncred[:, NV:] = 0
    nd = K.Nd(
        np.full(N, -1, np.int64),
        np.zeros(N, np.int64),
        np.full(N, -1, np.int64),
        np.full(N, -1, np.int64),
        np.zeros(N * V, np.int8),
        ncred.ravel(),
        nnext,
        np.zeros(N, np.int8),
        tr_start.copy(),
        np.zeros((N + 63) >> 6, np.uint64),
        np.zeros(K.WHEEL, np.int64),
        np.zeros(N, np.int64),
    )
    K.node_wheel(nnext, nd.nvis, nd.chead, nd.cnext)
    CAP = NP + N
    ev = K.Ev(
        _zeros(W * CAP * 2, np.int64, 3).reshape(W * CAP, 2),
        np.zeros(W, np.int64),
        _zeros(W * CAP, np.int64, 13),
        np.zeros(W, np.int64),
        np.zeros(W * N, np.int64),
        np.zeros(W, np.int64),
        np.zeros(W * N, np.int64),
        np.zeros(W, np.int64),
    )
    pool = 4 * N + 64
    pk = _pool(pool)
    cnt = np.zeros(K.N_COUNTERS, np.int64)
    cnt[K.K_NFREE] = pool
    st = K.St(cnt, np.zeros(K.HIST, np.int64), rng)
    return netw, rt, nd, ev, pk, st


def _zeros(n: int, dtype, lane: int = 0) -> np.ndarray:
    """``np.zeros(n, dtype)`` starting on a cache line (64 bytes), ``lane`` lines into a
    page: a router's records (8 input VCs of 16 bytes, say) then fill whole lines, which
    the kernel prefetches, and arrays read together (a router's input VCs, buffers,
    output VCs) do not share their offsets in a page, which would make the processor
    see false dependencies between their loads and stores (4K aliasing)."""
    dtype = np.dtype(dtype)
    raw = np.zeros(n * dtype.itemsize + 8192, np.uint8)
    off = (-raw.ctypes.data) % 4096 + (lane * 64) % 4096
    return raw[off : off + n * dtype.itemsize].view(dtype)


def _aligned(a: np.ndarray, lane: int) -> np.ndarray:
    """A copy of the 1-d array ``a`` placed as :func:`_zeros` places it."""
    out = _zeros(len(a), a.dtype, lane)
    out[:] = a
    return out


def _down_tiles(lo, hi):
    """Per switch, whether its down ports' destination ranges tile one block in equal
    widths (kant: always): then ``nca``'s port is one lookup instead of a scan.

    Returns ``dsub`` (S x 4: block start, block length, log2 of the width or -1 when the
    width is no power of two, the width; -2 in the third column: scan the ports) and
    ``dport`` (S x R: the down ports in the order of their ranges), both flat int32.
    """
    S, R = lo.shape
    dsub = np.zeros((S, 4), np.int32)
    dsub[:, 2] = -2
    dsub[:, 3] = 1
    dport = np.zeros((S, R), np.int32)
    down = hi >= lo
    nq = down.sum(axis=1)
    dsub[nq == 0, 2] = 0  # no down port: every destination goes up
    # per switch, its down ports in the order of their ranges (a stable sort, the others last)
    order = np.argsort(np.where(down, lo, np.iinfo(np.int64).max), axis=1, kind="stable")
    slo = np.take_along_axis(lo, order, axis=1)
    shi = np.take_along_axis(hi, order, axis=1)
    w = shi[:, :1] - slo[:, :1] + 1
    col = np.arange(R)
    inq = col[None, :] < nq[:, None]
    tiles = (nq > 0) & np.all(
        ~inq | ((slo - slo[:, :1] == col[None, :] * w) & (shi - slo + 1 == w)), axis=1
    )
    w = w[:, 0]
    for wv in np.unique(w[tiles]):
        wv = int(wv)
        rows = tiles & (w == wv)
        dsub[rows, 0] = slo[rows, 0]
        dsub[rows, 1] = nq[rows] * wv
        dsub[rows, 2] = wv.bit_length() - 1 if wv & (wv - 1) == 0 else -1
        dsub[rows, 3] = wv
    dport[tiles] = np.where(inq[tiles], order[tiles], 0)
    return dsub.ravel(), dport.ravel()


def _down_identity(dsub, dport, lo, hi) -> bool:
    """Whether every switch that routes down by lookup has its down ports in the order
    of their ranges (kant: always), so that the lookup is the identity."""
    S, R = lo.shape
    col = np.arange(R)
    use = (dsub.reshape(S, 4)[:, 2] >= -1)[:, None] & (col[None, :] < (hi >= lo).sum(1)[:, None])
    return bool(np.all(~use | (dport.reshape(S, R) == col[None, :])))


def _pool(size: int, old=None):
    pk = K.Pk(
        np.zeros(size, K.PK_DT),
        np.arange(size - 1, -1, -1, dtype=np.int64),
        np.zeros(size, np.int32),
    )
    if old is not None:
        pk.pk[: len(old.pk)] = old.pk
        pk.pkey[: len(old.pk)] = old.pkey
        pk.free[:] = -1
    return pk


def _spec(cfg) -> bool:
    return True if cfg.speculative is None else bool(cfg.speculative)


class _Sim:
    """The kernel's state and BookSim2's period bookkeeping around it."""

    def __init__(self, topo, cfg, net, traffic, load, wl=None):
        self.args = list(_alloc(topo, cfg, net, traffic, load))
        self.wl = wl  # a workload's closed-loop source (sim/booksim/closed.py), or None
        self.n = topo.n_nodes
        self.cap = cfg.cycle_cap
        self.shape = K.shape_of(self.args[0].cfg)
        t0 = time.perf_counter()
        self.kernel = K.kernel_for(self.args, self.shape, wl)  # (compiled on first use)
        self.load_seconds = time.perf_counter() - t0

    @property
    def cnt(self):
        return self.args[5].cnt

    def step(self, cycles: int, drain: bool = False) -> int:
        stop = int(self.cnt[K.K_T]) + cycles
        while True:
            status = self.kernel(*self.args, stop, drain, self.shape, self.wl)
            if status != K.ST_GROW:
                return status
            self._grow()

    def _grow(self):
        if self.wl is not None:  # a workload's operation slots, or else the pool
            from ..closedloop import grow_slots, short_of_slots

            if short_of_slots(self.wl.w):
                self.wl = self.wl._replace(w=grow_slots(self.wl.w))
                return
        pk, st = self.args[4], self.args[5]
        old = len(pk.pk)
        new = _pool(2 * old, pk)
        nfree = int(st.cnt[K.K_NFREE])
        new.free[:nfree] = pk.free[:nfree]
        new.free[nfree : nfree + old] = np.arange(2 * old - 1, old - 1, -1)
        st.cnt[K.K_NFREE] = nfree + old
        self.args[4] = new
        if self.wl is not None:  # the workload's packet-to-send map grows with the pool
            from ..closedloop import grow_pool

            self.wl = self.wl._replace(w=grow_pool(self.wl.w, 2 * old))

    def clear(self):
        c = self.cnt
        for k in (
            K.K_ACC,
            K.K_PLAT_SUM,
            K.K_PLAT_N,
            K.K_PLAT_MAX,
            K.K_NLAT_SUM,
            K.K_HOPS_SUM,
            K.K_SENT_F,
            K.K_NLAT_MAX,
        ):
            c[k] = 0
        self.args[5].hist[:] = 0
        c[K.K_RESET_T] = c[K.K_T]

    def latency(self) -> float:
        c = self.cnt
        return c[K.K_PLAT_SUM] / c[K.K_PLAT_N] if c[K.K_PLAT_N] else math.nan

    def accepted(self) -> float:
        c = self.cnt
        dt = c[K.K_T] - c[K.K_RESET_T]
        return c[K.K_ACC] / dt / self.n if dt else math.nan

    def unstable(self) -> bool:
        """BookSim2's latency_thres test: delivered and in-flight flits' ages."""
        c = self.cnt
        lat = c[K.K_PLAT_SUM] + c[K.K_T] * c[K.K_INFL_F] - c[K.K_INFL_CT]
        num = c[K.K_PLAT_N] + c[K.K_INFL_F]
        return num > 0 and lat / num > LATENCY_THRES


def _change(cur: float, prev: float) -> float:
    if cur == 0 or math.isnan(cur):
        return math.nan if math.isnan(cur) or cur == prev else math.inf
    return abs((cur - prev) / cur)


def _single_sim(sim: _Sim, measure_latency: bool, progress) -> tuple[bool, str]:
    """``TrafficManager::_SingleSim``: returns (converged, reason if unstable)."""
    converged = 0
    prev_lat = prev_acc = 0.0
    clear_last = False
    phases = 0
    c = sim.cnt
    while phases < MAX_SAMPLES and (c[K.K_STATE] != K.RUNNING or converged < 3):
        if clear_last or (c[K.K_STATE] == K.WARMING and phases % 2 == 0):
            clear_last = False
            sim.clear()
        sim.step(SAMPLE_PERIOD)
        if progress is not None:
            progress(int(c[K.K_T]), sim.cap)
        cur_lat, cur_acc = sim.latency(), sim.accepted()
        lat_chg, acc_chg = _change(cur_lat, prev_lat), _change(cur_acc, prev_acc)
        prev_lat, prev_acc = cur_lat, cur_acc
        if measure_latency and sim.unstable():
            c[K.K_STATE] = K.DRAINING
            c[K.K_DRAIN_T] = c[K.K_T]
            return False, f"unstable: average latency above {LATENCY_THRES:.0f} cycles"
        if c[K.K_STATE] == K.WARMING:
            if phases + 1 >= WARMUP_PERIODS:
                clear_last = True
                c[K.K_STATE] = K.RUNNING
        elif c[K.K_STATE] == K.RUNNING:
            lat_ok = not measure_latency or not lat_chg > STOPPING_THRES
            converged = converged + 1 if lat_ok and not acc_chg > STOPPING_THRES else 0
        phases += 1
    if c[K.K_STATE] != K.RUNNING:
        return False, "unstable"
    c[K.K_STATE] = K.DRAINING
    c[K.K_DRAIN_T] = c[K.K_T]
    if measure_latency:
        while True:  # until every measured packet is delivered
            status = sim.step(1000, drain=True)
            if progress is not None:
                progress(int(c[K.K_T]), sim.cap)
            if status == K.ST_DONE:
                break
            if sim.unstable():
                return False, f"unstable while draining: average latency above {LATENCY_THRES:.0f}"
            if c[K.K_T] >= sim.cap:
                return False, f"max_cycles={sim.cap} reached while draining"
    return True, ""


def setup_booksim(topo, cfg, fault_table=None):
    """What the booksim model builds once per configuration
    (:func:`fattree.sim.setup.prepare`): BookSim2's routing and its reading of the pattern.

    Parameters
    ----------
    topo : Topology
    cfg : SimConfig
        ``model="booksim"``.
    fault_table : None
        The booksim model simulates fault-free networks.

    Returns
    -------
    tuple
        ``(routing, None, traffic, None)``: the routing laid out for the kernel
        (:class:`~fattree.sim.booksim.routes.BsNet`, its ``compiled`` the registered
        ``booksim-nca`` or ``booksim-min``).

    Raises
    ------
    ParameterError
        A fault table; no load for a pattern other than a trace; a pattern or network
        BookSim2's model cannot run.
    """
    if fault_table is not None:
        raise ParameterError("model='booksim' simulates fault-free networks: drop the fault table")
    traffic = booksim_traffic(topo, cfg.traffic, cfg.seed)  # (refused before any compiling)
    if traffic.code != T_TRACE and cfg.load is None:
        raise ParameterError("model='booksim' needs load= (flits per node per cycle, in (0, 1])")
    net = booksim_net(topo, seed=cfg.seed)  # booksim-nca or booksim-min, compiled once
    return net, None, traffic, None


def run_booksim(setup, *, progress=None, bound=False) -> SimResult:
    """Simulate one offered load with BookSim2's semantics (``model="booksim"``).

    Parameters
    ----------
    setup : SimSetup
        From :func:`fattree.sim.setup.prepare` with a :class:`~fattree.sim.config.SimConfig`
        of ``model="booksim"``; ``speculative``, ``routing_delay``, ``sim_type`` (None: True,
        0, ``latency``), ``credit_delay``, ``vcs``, ``buffer``, ``packet_flits``, ``load``
        (flits per node per cycle), ``traffic``, ``seed``.
    progress : callable, optional
        Called as ``progress(cycle, cap)`` after each sample period.
    bound : bool or float
        A float is recorded as the result's ``channel_load_bound``.

    Returns
    -------
    SimResult
        ``avg_latency`` is BookSim2's packet latency (tail arrival - creation) of the
        packets created in the measured periods; ``accepted_flits`` its accepted flit
        rate over those periods; ``saturated`` when BookSim2 would call it unstable.

    Examples
    --------
    >>> from fattree.sim import simulate
    >>> r = simulate("kant:k=2,n=2", model="booksim", load=0.05, seed=1)
    >>> r.config["model"], r.saturated, r.termination
    ('booksim', False, 'latency')

    References
    ----------
    BookSim2 commit 28f4329 (``src/trafficmanager.cpp``, ``src/routers/iq_router.cpp``);
    docs/booksim.md.
    """
    topo, cfg, net, traffic = setup.topo, setup.cfg, setup.routing, setup.traffic
    timed = traffic.code == T_TRACE
    load = None if timed else cfg.load
    sim_type = cfg.sim_type or "latency"
    t0 = time.perf_counter()
    sim = _Sim(topo, cfg, net, traffic, load)
    compile_s = sim.load_seconds
    t0 += compile_s  # (the wall time is the simulation's, setup included)
    c = sim.cnt
    reason = ""
    if timed:  # a trace: every packet is measured, the run ends when all are delivered
        c[K.K_STATE] = K.RUNNING
        total = len(traffic.trace[0])
        while c[K.K_DELIVERED] < total and c[K.K_T] < sim.cap:
            sim.step(1000)
        ok = c[K.K_DELIVERED] == total
        reason = "" if ok else f"max_cycles={sim.cap} reached"
        c[K.K_DRAIN_T] = c[K.K_T]
        termination = "trace"
    else:
        ok, reason = _single_sim(sim, sim_type == "latency", progress)
        termination = sim_type if ok else "unstable"
    wall = time.perf_counter() - t0
    return _result(
        topo, cfg, net, traffic, load, sim, ok, reason, termination, wall, compile_s, bound
    )


def _conserved(sim) -> bool:
    """Packets are neither lost nor duplicated: created = delivered + those in the pool."""
    c = sim.cnt
    in_pool = len(sim.args[4].pk) - int(c[K.K_NFREE])
    if int(c[K.K_CREATED]) != int(c[K.K_DELIVERED]) + in_pool:
        from ...errors import SimulationError

        raise SimulationError(
            f"conservation violated: created {int(c[K.K_CREATED])} != "
            f"delivered {int(c[K.K_DELIVERED])} + in flight {in_pool}"
        )
    return True


def _result(topo, cfg, net, traffic, load, sim, ok, reason, termination, wall, compile_s, bound):
    c = sim.cnt
    N = topo.n_nodes
    F = cfg.packet_flits
    span = max(int(c[K.K_DRAIN_T] - c[K.K_RESET_T]), 1)
    meas = int(c[K.K_PLAT_N])
    acc = float(c[K.K_ACC]) / span / N
    sent = float(c[K.K_SENT_F]) / span / N
    cycles = int(c[K.K_T])

    def avg(key):
        return float(c[key]) / meas if meas else math.nan

    cfg = replace(cfg, traffic=traffic.spec, injection="trace" if load is None else "bernoulli")
    conf = cfg.to_dict() | {
        "seed": cfg.seed,
        "version": __version__,
        "topology": topo.spec,
        "cycle_cap": cfg.cycle_cap,
        "model": "booksim",
        "speculative": _spec(cfg),
        "routing_delay": cfg.routing_delay or 0,
        "sim_type": cfg.sim_type or "latency",
        "booksim_routing": net.routing,
    }
    offered = float(load) if load is not None else sent
    hist = sim.args[5].hist
    return SimResult(
        config=conf,
        topology=topo.spec,
        algorithm=net.routing,
        traffic=traffic.spec,
        injection=cfg.injection,
        flow_control=cfg.flow_control(),
        n_nodes=N,
        n_sources=N,
        offered_load=offered,
        cycles=cycles,
        created=int(c[K.K_CREATED]),
        injected=int(c[K.K_INJ_F]) // F,
        delivered=int(c[K.K_DELIVERED]),
        measured=meas,
        avg_latency=avg(K.K_PLAT_SUM),
        p99_latency=percentile(hist, 0.99),
        max_latency=float(c[K.K_PLAT_MAX]) if meas else math.nan,
        avg_network_latency=avg(K.K_NLAT_SUM),
        p99_network_latency=math.nan,
        max_network_latency=float(c[K.K_NLAT_MAX]) if meas else math.nan,
        avg_hops=avg(K.K_HOPS_SUM) + 1 if meas else math.nan,
        offered_throughput=sent / F,
        offered_flits=sent,
        accepted_throughput=acc / F,
        accepted_flits=acc,
        received_ratio=(
            int(c[K.K_DELIVERED]) / int(c[K.K_CREATED]) if c[K.K_CREATED] else math.nan
        ),
        received_per_cycle=int(c[K.K_DELIVERED]) / max(cycles, 1),
        port_conflicts_per_cycle=math.nan,
        link_utilisation={},
        avg_source_queue=math.nan,
        max_source_queue=0,
        final_source_queue=math.nan,
        flit_hops=int(c[K.K_MOVES] + c[K.K_INJ_F]),
        saturated=not ok,
        saturation_reason=reason,
        deadlock=False,
        deadlock_cycle=[],
        termination=termination,
        conservation=_conserved(sim),
        channel_load_bound=None
        if bound is False or bound is None or bound is True
        else float(bound),
        wall_seconds=wall,
        compile_seconds=compile_s,
    )
