"""Public entry points: :func:`simulate` (one load) and :func:`simulate_loads` (a curve)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..compiling import watch
from ..version import __version__
from ..errors import ParameterError, SimulationError
from ..routing import compile_routing
from ..topology import Topology, build
from ..traffic import check_load, make_traffic
from . import kernel
from .config import SimConfig, merge_config as _config
from ..faults.links import random_faults, read_fault_file
from .deadlock import channel_name, global_stall, stuck_cycle
from .models import MODELS
from ..faults.view import FaultRouter, fault_router
from .faulthop import router_load_bound
from .layout import (
    FC_DEPTH,
    FS_LEN,
    FS_UP,
    FS_VC,
    K_CONFLICTS,
    K_CREATED,
    K_DELIVERED,
    K_ERR_F,
    K_ERR_PKT,
    K_FLITS_IN,
    K_FLITS_OUT,
    K_FREE,
    K_HOPS_SUM,
    K_INJECTED,
    K_LAST_MOVE,
    K_LAT_MAX,
    K_LIVELOCK,
    K_UNROUTABLE,
    K_WIN_DROPPED,
    K_LAT_SUM,
    K_MEAS_N,
    K_MOVES,
    K_NET_MAX,
    K_NET_SUM,
    K_QPEAK,
    K_QSUM,
    K_T,
    K_WIN_FLITS_CREATED,
    K_WIN_FLITS_OUT,
    OP_OWN,
    PK_DST,
    PK_SRC,
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
from .result import SimResult, percentile
from .setup import SimSetup, prepare, run
from .state import allocate

CHUNK = 20_000  # cycles per kernel call (progress callbacks between calls)


def _topology(topology) -> Topology:
    if isinstance(topology, Topology):
        return topology
    if isinstance(topology, str):
        return build(topology)
    raise ParameterError(f"topology={topology!r} is invalid: expected a Topology or a spec string")


def simulate(
    topology,
    config: SimConfig | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    bound: bool | float | None = False,
    fault_table: FaultRouter | None = None,
    **params: Any,
) -> SimResult:
    """Simulate one offered load on a network, cycle by cycle.

    Parameters
    ----------
    topology : Topology or str
        The network, or a spec such as ``"mikant:k=4,n=5"``.
    config : SimConfig, optional
        All parameters; keywords (``load=0.3, traffic="bitcomp", ...``) override it.
    progress : callable, optional
        Called as ``progress(cycle, cap)`` between kernel chunks.
    bound : bool or float
        True: compute the routing's channel-load bound (``channel_load_bound``,
        seconds on thousands of nodes); a float: use that value; False: none.
    fault_table : FaultRouter, optional
        With faults (``fault_rate`` or ``faults``): the fault set and routing of
        :func:`fault_tables` (no per-pair table: each switch routes hop by hop), to share
        it between loads; built when omitted.

    Returns
    -------
    SimResult

    Raises
    ------
    ParameterError
        Invalid parameter, unknown algorithm or pattern, pattern inapplicable to N.
    SimulationError
        A packet has no route or reached a wrong node, or conservation failed.

    Examples
    --------
    >>> r = simulate("kant:k=2,n=2", load=0.1, packets_per_source=20, seed=1)
    >>> r.deadlock, r.saturated, r.conservation, r.measured == 4 * 20
    (False, False, True, True)
    >>> r.avg_hops  # links, both node links included: 2 or 4 here (mean 10/3 over pairs)
    3.425
    >>> f = simulate("mikant:k=2,n=2", load=0.1, packets_per_source=20, fault_rate=0.1,
    ...              algorithm="gns+gdl", fault_seed=1)
    >>> f.conservation, f.faulty_links, f.unroutable > 0, f.livelock
    (True, 1, True, 0)

    References
    ----------
    000 §V.B (model, termination, metrics), 001 §3.4, 004 §3.3; docs/simulator.md.
    """
    cfg = _config(config, params)
    with watch() as w:  # setup included: the routing, traffic and process compile here
        res = run(prepare(topology, cfg, fault_table=fault_table), progress=progress, bound=bound)
    res.compile_seconds = max(res.compile_seconds, w.seconds)
    return res


def setup_papers(topo: Topology, cfg: SimConfig, fault_table: FaultRouter | None = None):
    """What the papers' model builds once per configuration (:func:`fattree.sim.setup.prepare`).

    Parameters
    ----------
    topo : Topology
    cfg : SimConfig
        ``model="papers"``.
    fault_table : FaultRouter, optional
        With faults: a fault router built before (its knowledge model must be
        ``cfg.fault_model``); built from ``cfg`` when omitted.

    Returns
    -------
    tuple
        ``(routing, faults, traffic, None)``: the compiled routing (the family's default
        under faults: it only fills the state, the fault router routes every packet), the
        fault router or None, the bound pattern.

    Raises
    ------
    ParameterError
        A fault table built for another knowledge model; an invalid algorithm or pattern.
    """
    ft = None
    if cfg.faulted:
        ft = fault_table if fault_table is not None else fault_tables(topo, cfg)
        if ft.model != cfg.fault_model:
            raise ParameterError(
                f"fault_table was built with fault_model={ft.model!r}, "
                f"the configuration has {cfg.fault_model!r}"
            )
    # with faults the fault-tolerant kernel routes every packet (sim/faulthop.py); the
    # family's routing only fills the state
    cr = compile_routing(topo, None if ft else cfg.algorithm, seed=cfg.seed)
    traffic = make_traffic(cfg.traffic, topo.n_nodes, seed=cfg.seed, topology=topo)
    return cr, ft, traffic, None


def run_papers(setup: SimSetup, *, progress=None, bound=False) -> SimResult:
    """The papers' model (``model="papers"``) on a prepared setup.

    ``compile_seconds`` counts every numba compilation the run paid for (kernel, load
    bound; the setup's are counted by :func:`simulate`; 0 when all came from numba's
    cache)."""
    with watch() as w:
        res = _run_papers(setup, progress, bound)
    res.compile_seconds = w.seconds
    return res


def _run_papers(setup, progress, bound) -> SimResult:
    topo, cfg, cr, ft = setup.topo, setup.cfg, setup.routing, setup.faults
    traffic, process = setup.traffic, setup.process
    if traffic.timed:  # the cap leaves the trace's last packet time to arrive
        cfg = cfg.for_trace(int(traffic.trace[0].max()))
    cfg = replace(
        cfg,
        algorithm=ft.algorithm if ft else cr.algorithm,
        traffic=traffic.spec,
        injection=process.spec,
    )
    st = allocate(topo, cr, traffic, process, cfg, ft=ft)
    _compile(st)
    t0 = time.perf_counter()
    cap = cfg.cycle_cap
    stuck: list[int] = []
    while True:
        t = int(st.cnt[K_T])
        status = kernel._run(*st.args(), min(cap, t + CHUNK))
        if status == ST_GROW_QUEUE:
            st.grow_queues()
        elif status == ST_GROW_POOL:
            st.grow_pool()
        elif status == ST_CHUNK:
            if progress is not None:
                progress(int(st.cnt[K_T]), cap)
        elif status == ST_STALE:  # a head has waited a window: deadlocked, or a slow queue?
            stuck = stuck_cycle(st)
            if stuck:
                status = ST_DEADLOCK
                break
        elif status == ST_DEADLOCK:  # no flit crossed a switch for the window
            stuck = global_stall(st)
            if stuck:
                break
            # a quiet network whose only flits arrived within the window (the first
            # injection after a long idle spell at a low load, a long packet streaming out
            # of its node): not a deadlock, go on (the reference simulator does the same)
            st.cnt[K_LAST_MOVE] = int(st.cnt[K_T]) - 1
            if int(st.cnt[K_T]) >= cap:
                status = ST_CAP
                break
        else:
            break
    wall = time.perf_counter() - t0
    if status in (ST_NOROUTE, ST_MISROUTE):
        p = int(st.cnt[K_ERR_PKT])
        f = int(st.cnt[K_ERR_F])
        sw = f // (topo.max_ports * cfg.vcs)
        what = "has no route" if status == ST_NOROUTE else "was ejected at a wrong node"
        raise SimulationError(
            f"routing {cr.algorithm!r} on {topo.spec}: a packet {st.pk[p, PK_SRC]} -> "
            f"{st.pk[p, PK_DST]} {what} at switch {topo.switch_label(sw)} (cycle {st.cnt[K_T]})"
        )
    # a deadlock always names the wait-for cycle that proves it
    cycle = [channel_name(topo, f, topo.max_ports, cfg.vcs) for f in stuck]
    if bound is True:
        bound = load_bound(topo, traffic.spec, cfg.seed, cr=cr, ft=ft, vcs=cfg.vcs)
    res = _result(topo, cr, traffic, process, cfg, st, status, cycle, wall, 0.0)
    res.channel_load_bound = None if bound is False or bound is None else float(bound)
    if ft is not None:
        res.algorithm = ft.algorithm
        res.ft_algorithm = ft.algorithm
        res.fault_rate = cfg.fault_rate
        res.fault_seed = cfg.fault_seed
        res.faulty_links = int(ft.faulty.sum())
        res.config.update(ft_algorithm=ft.algorithm, faulty_links=res.faulty_links)
    return res


def fault_tables(topo, cfg: SimConfig) -> FaultRouter:
    """The fault set of ``cfg`` (random ``fault_rate`` share, seeded by ``fault_seed``, plus
    the links of the ``faults`` file) bound to ``cfg.algorithm`` (None: the family's
    default fault-tolerant algorithm) for hop-by-hop routing: no per-pair table, any size
    the fault-free simulator handles (the table engines hold S x N entries)."""
    topo = _topology(topo)
    return fault_router(topo, cfg.algorithm, fault_mask(topo, cfg), cfg.vcs, cfg.fault_model)


def fault_mask(topo, cfg: SimConfig) -> np.ndarray:
    """The failed links of ``cfg`` (bool over ``topo.links``): the random ``fault_rate``
    share seeded by ``fault_seed``, plus the links of the ``faults`` file."""
    mask = random_faults(
        topo, float(cfg.fault_rate or 0.0), cfg.fault_seed, cfg.fault_pool == "switch-only"
    )
    if cfg.faults is not None:
        mask |= read_fault_file(topo, cfg.faults)
    return mask


def _compile(st) -> None:
    """Compile (or load from numba's cache) the kernel for this run's types before the
    simulation's clock starts: the fault-free and each faulted shape apart."""
    kernel._run(*st.args(), int(st.cnt[K_T]))  # t_stop = now: compiles, simulates nothing


def _check_conservation(st, cfg) -> bool:
    """Packets and flits are neither lost nor duplicated; credits match buffer space."""
    created, delivered = int(st.cnt[K_CREATED]), int(st.cnt[K_DELIVERED])
    queued = int(st.ql.sum())
    in_flight = st.pk.shape[0] - int(st.cnt[K_FREE])
    flits_buffered = int(st.fs[:, FS_LEN].sum())
    flits_net = int(st.cnt[K_FLITS_IN] - st.cnt[K_FLITS_OUT])
    problems = []
    injected = int(st.cnt[K_INJECTED])
    dropped = int(st.cnt[K_UNROUTABLE] + st.cnt[K_LIVELOCK])
    if created != delivered + queued + in_flight + dropped or injected != delivered + in_flight:
        problems.append(
            f"created {created} != delivered {delivered} + queued {queued} + in "
            f"flight {in_flight} + unroutable/livelock {dropped}"
        )
    if flits_buffered != flits_net:
        problems.append(f"buffered flits {flits_buffered} != injected - ejected {flits_net}")
    # credits at each sender + flits stored + credits still travelling back = FIFO depth
    V = cfg.vcs
    up = st.fs[:, FS_UP].astype(np.int64)
    vc = st.fs[:, FS_VC].astype(np.int64)
    cred = np.where(
        up >= 0, st.ops[np.maximum(up, 0), OP_OWN + V + vc], st.ncred[np.maximum(-up - 1, 0), vc]
    )
    pending = np.zeros(len(up), np.int64)
    for w in range(st.wheel.shape[0]):
        np.add.at(pending, st.wheel[w, : st.wheel_n[w]], 1)
    depth = st.fcold[:, FC_DEPTH]
    bad = (depth > 0) & (cred + st.fs[:, FS_LEN] + pending != depth)
    if bad.any():
        problems.append(f"credits disagree with buffer space at {int(bad.sum())} FIFOs")
    if problems:
        raise SimulationError("conservation violated: " + "; ".join(problems))
    return True


def _result(topo, cr, traffic, process, cfg, st, status, cycle, wall, compile_s) -> SimResult:
    c = st.cnt
    F = cfg.packet_flits
    cycles = int(c[K_T])
    ok = _check_conservation(st, cfg)
    nsrc = len(st.src_ids)
    meas = int(c[K_MEAS_N])

    def avg(key):
        return float(c[key]) / meas if meas else math.nan

    if cfg.termination == "window":
        span = cfg.measure
        off_flits = c[K_WIN_FLITS_CREATED] / (nsrc * span)
        acc_flits = c[K_WIN_FLITS_OUT] / (nsrc * span)
    else:
        off_flits = c[K_CREATED] * F / (nsrc * max(cycles, 1))
        acc_flits = c[K_FLITS_OUT] / (nsrc * max(cycles, 1))
    ratio = c[K_DELIVERED] / c[K_CREATED] if c[K_CREATED] else math.nan
    deadlock = status == ST_DEADLOCK
    if cfg.termination == "window":
        made, got = c[K_WIN_FLITS_CREATED] / F - c[K_WIN_DROPPED], c[K_WIN_FLITS_OUT] / F
        where = "in the measurement window"
    else:  # the second half of the run, when the network is warm
        half = st.ser[min(cycles, len(st.ser)) // 2 : min(cycles, len(st.ser))]
        made, got = int(half[:, 0].sum()), int(half[:, 1].sum())
        where = "over the second half of the run"
    reason = ""
    if cfg.termination == "window":
        lo, hi = cfg.warmup, cfg.warmup + cfg.measure
    else:
        lo, hi = cycles // 2, cycles
    growth = backlog_growth(st.ser, lo, hi)
    if deadlock:
        reason = "deadlock"
    elif status == ST_CAP:
        reason = f"max_cycles={cfg.cycle_cap} reached before termination"
    elif made - got > max((1 - cfg.saturation_ratio) * made, 4 * math.sqrt(made)):
        reason = f"delivered {got:.0f} of {made:.0f} packets created {where}"
    elif growth is not None and growth[0] > max(GROWTH_SHARE * made, 4 * growth[1], 8):
        reason = (
            f"the packets waiting grew by {growth[0]:.0f} ({growth[0] / made:.1%} of the "
            f"{made:.0f} created) {where}"
        )
    elif queues_grew(growth, float(st.ql.sum())):
        reason = (
            f"the source queues grew: the packets waiting grew by {growth[0]:.0f} {where} "
            f"({growth[0] / max(growth[1], 1e-9):.1f} times their spread about the trend) "
            f"and {float(st.ql.sum()):.0f} wait in the source queues at the end"
        )
    ports = topo.port_peer >= 0
    per_level = np.bincount(
        topo.switch_level.astype(np.int64),
        weights=ports.sum(axis=1),
        minlength=len(st.lvl_flits) - 1,
    )
    util = {"node": float(st.lvl_flits[0]) / (nsrc * max(cycles, 1))}
    for lv, cnt_ports in enumerate(per_level.tolist()):
        util[str(lv)] = (
            float(st.lvl_flits[lv + 1]) / (cnt_ports * max(cycles, 1)) if cnt_ports else 0.0
        )
    conf = cfg.to_dict() | {
        "seed": cfg.seed,
        "version": __version__,
        "topology": topo.spec,
        "cycle_cap": cfg.cycle_cap,
    }
    return SimResult(
        config=conf,
        topology=topo.spec,
        algorithm=cr.algorithm,
        traffic=traffic.spec,
        injection=process.spec,
        flow_control=cfg.flow_control(),
        n_nodes=topo.n_nodes,
        n_sources=nsrc,
        offered_load=float(process.offered),
        cycles=cycles,
        created=int(c[K_CREATED]),
        injected=int(c[K_INJECTED]),
        delivered=int(c[K_DELIVERED]),
        measured=meas,
        avg_latency=avg(K_LAT_SUM),
        p99_latency=percentile(st.hist_lat, 0.99),
        max_latency=float(c[K_LAT_MAX]) if meas else math.nan,
        avg_network_latency=avg(K_NET_SUM),
        p99_network_latency=percentile(st.hist_net, 0.99),
        max_network_latency=float(c[K_NET_MAX]) if meas else math.nan,
        avg_hops=avg(K_HOPS_SUM),
        offered_throughput=float(off_flits / F),
        offered_flits=float(off_flits),
        accepted_throughput=float(acc_flits / F),
        accepted_flits=float(acc_flits),
        received_ratio=float(ratio),
        received_per_cycle=float(c[K_DELIVERED]) / max(cycles, 1),
        port_conflicts_per_cycle=float(c[K_CONFLICTS]) / max(cycles, 1),
        link_utilisation=util,
        avg_source_queue=float(c[K_QSUM]) / (nsrc * max(cycles, 1)),
        max_source_queue=int(c[K_QPEAK]),
        final_source_queue=float(st.ql.sum()) / nsrc,
        flit_hops=int(c[K_MOVES] + c[K_FLITS_IN]),
        saturated=bool(reason),
        saturation_reason=reason,
        deadlock=deadlock,
        deadlock_cycle=cycle,
        termination={ST_DONE: cfg.termination, ST_CAP: "cap", ST_DEADLOCK: "deadlock"}[status],
        conservation=ok,
        channel_load_bound=None,
        wall_seconds=wall,
        compile_seconds=compile_s,
        series=st.ser[: min(cycles, len(st.ser))].copy(),
        unroutable=int(c[K_UNROUTABLE]),
        livelock=int(c[K_LIVELOCK]),
    )


GROWTH_SHARE = 0.025  # backlog growth over the window, as a share of the packets created


#: A backlog trend this many times its spread about the trend is growth, not noise.
GROWTH_SIGMAS = 4.0


def queues_grew(growth: tuple[float, float] | None, queued_at_end: float) -> bool:
    """Whether the source queues grew over the window: the backlog (packets waiting or in
    flight) rose by more than ``GROWTH_SIGMAS`` times its spread about its linear trend (and
    by more than 8 packets), and the source queues hold at least that rise at the end, so
    that it is not the network's buffers filling.

    Below saturation the backlog is stationary and what it gains sits in the buffers; once
    the offered load exceeds what the network accepts the surplus piles up in the sources.
    This flags the start of saturation where the delivered share still looks whole (a rise
    of 0.3 % of the packets created over a 2,000-cycle window, 3 packets per source).

    Parameters
    ----------
    growth : (float, float) or None
        :func:`backlog_growth`'s ``(growth, spread)`` over the window.
    queued_at_end : float
        Packets in the source queues when the run ended.

    Returns
    -------
    bool

    Examples
    --------
    >>> queues_grew((99.0, 20.9), 346.0), queues_grew((79.6, 15.7), 52.0)
    (True, False)
    """
    if growth is None:
        return False
    rise, spread = growth
    return rise > max(GROWTH_SIGMAS * spread, 8.0) and queued_at_end >= rise


def backlog_growth(series, lo: int, hi: int) -> tuple[float, float] | None:
    """Trend of the packets waiting or in flight over cycles ``lo .. hi - 1``.

    ``series`` holds packets created and leaving per cycle; the backlog is their running
    difference. Returns ``(growth, noise)``: the least-squares slope times the window's
    length, and the standard deviation of the backlog about that line. Below saturation
    the backlog is stationary (growth of the order of the noise); once the offered load
    exceeds what the network accepts it grows linearly, the source queues with it, while
    the share delivered can stay above ``saturation_ratio`` on a short run. None when the
    window has fewer than 16 recorded cycles.
    """
    hi = min(hi, len(series))
    if hi - lo < 16:
        return None
    s = series[:hi].astype(np.int64)
    b = np.cumsum(s[:, 0] - s[:, 1])[lo:hi].astype(float)
    x = np.arange(hi - lo, dtype=float)
    slope, icpt = np.polyfit(x, b, 1)
    return float(slope * (hi - lo)), float(np.std(b - (slope * x + icpt)))


BOUND_MAX_WORK = 1 << 24  # switches x nodes above which the bound is not computed


def channel_load_bound(topo, cr, traffic_spec) -> float | None:
    """The routing's throughput bound ``1/gamma_max`` (flits/node/cycle) for a pattern.

    None when the pattern is a trace or the network is too large for an exact
    evaluation (``BOUND_MAX_WORK``).
    """
    if topo.n_nodes * topo.n_switches > BOUND_MAX_WORK:
        return None
    from ..routing.load import channel_load

    try:
        return float(channel_load(topo, cr, traffic_spec, seed=cr.seed).bound)
    except ParameterError:  # e.g. a trace: no rate pattern to evaluate
        return None


def load_bound(
    topo, traffic, seed: int, *, cr=None, ft: FaultRouter | None = None, vcs: int = 1
) -> float | None:
    """The throughput bound shown beside a curve: of the surviving routes of ``ft`` when
    simulating faults (every admitted pair walked once), else of the compiled routing
    ``cr``. ``traffic``: a pattern spec, or the :class:`~fattree.traffic.Traffic` a setup
    bound already (not bound again)."""
    if ft is not None:
        spec = traffic if isinstance(traffic, str) else traffic.spec
        return router_load_bound(topo, ft, spec, seed, vcs)
    return channel_load_bound(topo, cr, traffic)


def simulate_loads(
    topology,
    loads: Sequence[float],
    config: SimConfig | None = None,
    *,
    workers: int = 1,
    progress: Callable[[SimResult], None] | None = None,
    bound: bool = True,
    **params: Any,
):
    """Simulate several offered loads; one row per load in a pandas DataFrame.

    Parameters
    ----------
    topology : Topology or str
        The network (a spec string is needed when ``workers > 1``).
    loads : sequence of float
        Offered loads, each in (0, 1].
    workers : int
        Processes (each load is independent; results do not depend on ``workers``).
    progress : callable, optional
        Called with each :class:`SimResult` as it completes.
    bound : bool
        Compute the routing's channel-load bound once and attach it to every row.

    Examples
    --------
    >>> df = simulate_loads("kant:k=2,n=2", [0.1, 0.2], packets_per_source=10)
    >>> list(df["offered_load"]), bool(df["deadlock"].any()), float(df["channel_load_bound"][0])
    ([0.1, 0.2], False, 1.0)

    References
    ----------
    000 Figs. 9-12 (latency, conflicts, received ratio and rate versus load).
    """

    cfg = _config(config, params)
    loads = [float(x) for x in loads]
    if not loads:
        raise ParameterError("loads=[] is invalid: give at least one load in (0, 1]")
    for x in loads:
        check_load(x)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParameterError(f"workers={workers!r} is invalid: expected an integer >= 1")
    results: list[SimResult | None] = [None] * len(loads)
    setup = prepare(topology, cfg.with_load(loads[0]), loads=loads)
    ft = setup.faults
    value = None
    if bound:
        if MODELS.get(cfg.model).routing_bound:
            spec, cr = setup.traffic.spec, None if ft else setup.routing
        else:  # (as before: the family routing's bound under the papers' pattern reading)
            spec = make_traffic(cfg.traffic, setup.topo.n_nodes, cfg.seed, topology=setup.topo).spec
            cr = compile_routing(setup.topo, cfg.algorithm, seed=cfg.seed)
        value = load_bound(setup.topo, spec, cfg.seed, cr=cr, ft=ft, vcs=cfg.vcs)
    if workers == 1:
        for i, x in enumerate(loads):
            results[i] = run(setup.at(x), bound=value)
            if progress is not None:
                progress(results[i])
    else:
        if not isinstance(topology, str):
            raise ParameterError(
                "workers > 1 needs the topology as a spec string (rebuilt in each process)"
            )
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=workers) as pool:
            futs = {
                pool.submit(simulate, topology, cfg.with_load(x), bound=value, fault_table=ft): i
                for i, x in enumerate(loads)
            }
            for fut in as_completed(futs):
                results[futs[fut]] = fut.result()
                if progress is not None:
                    progress(results[futs[fut]])
    return results_frame(results)


def results_frame(results: Sequence[SimResult]):
    """A DataFrame with one row per result (config flattened as ``config.*``).

    Parameters
    ----------
    results : sequence of SimResult
        The runs, e.g. of :func:`simulate_loads`.

    Returns
    -------
    pandas.DataFrame
        One row per result: its metrics and ``config.<name>`` columns.
    """
    import pandas as pd

    rows = []
    for r in results:
        d = r.to_dict()
        conf = d.pop("config")
        util = d.pop("link_utilisation")
        d["deadlock_cycle"] = " -> ".join(d["deadlock_cycle"])
        d.update({f"util_{k}": v for k, v in util.items()})
        d.update({f"config.{k}": v for k, v in conf.items()})
        rows.append(d)
    return pd.DataFrame(rows)


__all__ = ["simulate", "simulate_loads", "results_frame"]
