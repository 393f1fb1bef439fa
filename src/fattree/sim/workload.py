"""Workloads at packet level: :func:`simulate_workload` and :class:`PacketResult`.

A workload (collective or GOAL schedule) runs closed loop in the papers' cycle-accurate
simulator (:mod:`fattree.sim.kernel`, its traffic source :mod:`fattree.sim.closedloop`):
messages are split into packets of ``packet_flits`` flits of ``flit_size`` bytes, and a
send starts only when the operations it depends on have completed. The result has the
flow model's fields (:class:`fattree.sim.flow.result.FlowResult`), so both levels fill
one results table, plus the cycles and the clock.

Units: one flit crosses a link per cycle, so ``link_rate = flit_size x clock``; give two
of the three (the default clock is ``link_rate / flit_size``: 400 Gb/s and 256 B flits
make 195.3125 MHz, 5.12 ns per cycle). docs/workloads.md ("Packet level").
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ..compiling import watch
from ..errors import ParameterError, ResourceError, SimulationError
from ..routing import compile_routing
from ..topology import Topology, build
from ..topology.family import available_memory
from ..traffic import make_process, make_traffic
from ..traffic.workloads import SEND, Workload, make_workload, parse_rate, parse_size
from ..version import __version__
from . import kernel
from .closedloop import CI_DONE, CI_NOPS, CI_NPKT, CI_UNDELIV, closed_view, grow_pool
from .closedloop import grow_slots, short_of_slots, start
from .config import SimConfig, merge_config
from .deadlock import channel_name, global_stall, stuck_cycle
from .flow.result import FlowResult
from .layout import (
    C_MAXCYC,
    C_NQUOTA,
    K_LAST_MOVE,
    K_T,
    ST_CHUNK,
    ST_DEADLOCK,
    ST_GROW_POOL,
    ST_GROW_QUEUE,
    ST_MISROUTE,
    ST_NOROUTE,
    ST_STALE,
)
from .state import allocate

CHUNK = 20_000  # cycles per kernel call
OP_BYTES = 200  # peak bytes per operation of a schedule read from a file, with its state
MSG_BYTES = 80  # bytes per message of a collective's distinct phases in the closed-loop state
TIMELINE_RANKS = 32  # ranks kept for the timeline plot
TIMELINE_OPS = 1 << 22  # up to this many operations, every rank's are kept (the slowest's)
_FREQ = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kMG]?Hz)\s*$")
_FREQ_UNITS = {"Hz": 1.0, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9}


@dataclass
class PacketResult(FlowResult):
    """Completion of one workload on one network at packet level.

    Every field of :class:`~fattree.sim.flow.result.FlowResult` (times in seconds,
    bandwidths in GB/s, link utilisation as flits carried over cycles), with ``engine``
    ``"packet"`` and ``hop_latency_ns`` the router delay in seconds (the flow model's
    equivalent: each hop also costs one cycle, a flit's serialisation), plus:

    Attributes
    ----------
    cycles : int
        Completion time in cycles.
    clock_mhz : float
        Cycles per microsecond (``link_rate / flit_size``).
    packet_bytes : int
        Bytes a packet carries (flits per packet x flit size).
    packets : int
        Packets the sends created.
    vcs : int
        Virtual channels.
    compile_s : float
        Seconds of numba compilation the run paid for (0 from the cache).
    config : dict
        Every simulator parameter of the run (:class:`SimConfig`), the units and the
        seed; ``to_row()`` gives them as ``config.<name>`` columns.
    timeline : dict
        For :func:`fattree.report.timeline.timeline_figure`: up to 32 ranks' operations
        (``rank``, ``kind``, ``start_s``, ``end_s``) and the phases' end times.
    """

    cycles: int = 0
    clock_mhz: float = 0.0
    packet_bytes: int = 0
    packets: int = 0
    vcs: int = 1
    compile_s: float = 0.0
    config: dict[str, Any] = field(default_factory=dict)
    timeline: dict[str, Any] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Every field but the timeline arrays."""
        d = asdict(self)
        d.pop("timeline")
        return d

    def to_row(self) -> dict[str, Any]:
        """Scalar fields for a DataFrame row (the flow model's columns first, the
        configuration last as ``config.<name>``)."""
        d = self.to_dict()
        d.pop("phases")
        conf = d.pop("config")
        d.update({f"config.{k}": v for k, v in conf.items()})
        return d

    def summary(self) -> str:
        """One line: completion time, bandwidth and outcome."""
        return (
            f"{self.time_s * 1e6:.3f} us ({self.cycles:,} cycles), algbw "
            f"{self.algbw_gbps:.2f} GB/s, busbw {self.busbw_gbps:.2f} GB/s, {self.outcome}"
        )


def parse_clock(text, param: str = "clock") -> float:
    """A clock frequency in Hz from ``"1GHz"``, ``"195.3125MHz"``.

    Parameters
    ----------
    text : str or float
        A positive number with ``Hz``, ``kHz``, ``MHz`` or ``GHz``; a number is Hz.
    param : str
        The parameter's name, for messages.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        A missing or unknown unit, or a frequency that is not positive.

    Examples
    --------
    >>> parse_clock("1.5GHz")
    1500000000.0
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        hz = float(text)
    else:
        m = _FREQ.match(str(text))
        if m is None:
            raise ParameterError(
                f"{param}={text!r} is invalid: expected a frequency with its unit "
                f"(Hz, kHz, MHz, GHz), such as '1GHz'"
            )
        hz = float(m.group(1)) * _FREQ_UNITS[m.group(2)]
    if not math.isfinite(hz) or hz <= 0:
        raise ParameterError(f"{param}={text!r} is invalid: expected a positive frequency")
    return hz


def units(link_rate=None, flit_size="256B", clock=None) -> tuple[float, int, float]:
    """``(link rate in bytes/s, flit bytes, clock in Hz)`` from any two of rate and clock.

    One flit crosses a link per cycle: ``link_rate = flit_size x clock``. Without either,
    the link rate is 400 Gb/s (the port rate of current AI and HPC fabrics).

    Parameters
    ----------
    link_rate : str or float, optional
        ``"400Gb/s"`` (a number: bytes per second).
    flit_size : str or int
        ``"256B"`` (an integer: bytes).
    clock : str or float, optional
        ``"1GHz"`` (a number: Hz).

    Returns
    -------
    tuple

    Raises
    ------
    ParameterError
        A value without its unit, or a rate and a clock that disagree.

    Examples
    --------
    >>> units()
    (50000000000.0, 256, 195312500.0)
    >>> units(clock="1GHz", flit_size="16B")
    (16000000000.0, 16, 1000000000.0)
    """
    if isinstance(flit_size, str):
        flit = parse_size(flit_size, "flit_size")
    elif isinstance(flit_size, (int, np.integer)) and not isinstance(flit_size, bool):
        flit = int(flit_size)
    else:
        raise ParameterError(f"flit_size={flit_size!r} is invalid: expected bytes such as '256B'")
    if flit < 1:
        raise ParameterError(f"flit_size={flit_size!r} is invalid: at least 1 byte")
    rate = None
    if link_rate is not None:
        if isinstance(link_rate, str):
            rate = parse_rate(link_rate, "link_rate")
        elif isinstance(link_rate, (int, float)) and not isinstance(link_rate, bool):
            rate = float(link_rate)
        if rate is None or not math.isfinite(rate) or rate <= 0:
            raise ParameterError(
                f"link_rate={link_rate!r} is invalid: expected a rate such as '400Gb/s'"
            )
    hz = parse_clock(clock) if clock is not None else None
    if rate is not None and hz is not None:
        if abs(rate - flit * hz) > 1e-6 * rate:
            raise ParameterError(
                f"clock={clock!r} and link_rate={link_rate!r} disagree: a flit of {flit} B "
                f"crosses a link per cycle, so link_rate = flit_size x clock "
                f"({flit * hz * 8 / 1e9:g} Gb/s); give one of them"
            )
    if rate is None:
        rate = flit * hz if hz is not None else 50e9
    if hz is None:
        hz = rate / flit
    return float(rate), int(flit), float(hz)


def simulate_workload(
    topology,
    workload,
    config: SimConfig | None = None,
    *,
    link_rate=None,
    flit_size="256B",
    clock=None,
    progress=None,
    fault_table=None,
    **params: Any,
) -> PacketResult:
    """Run a workload closed loop in the papers' cycle-accurate simulator, or in the
    booksim model (``model="booksim"``: BookSim2's router, fault-free networks).

    Parameters
    ----------
    topology : Topology or str
        The network.
    workload : str or Workload
        ``"allreduce:algorithm=ring,size=1MiB"``, ``"goal:file=app.goal"``, or a workload
        bound to this network by :func:`~fattree.traffic.workloads.make_workload`.
    config : SimConfig, optional
        The simulator's parameters (``packet_flits``, ``vcs``, ``buffer``, ``algorithm``,
        ``fault_rate``, ``faults``, ``seed``, ``max_cycles``...); keywords override it.
        ``seed`` also seeds a random placement. The offered load, pattern and injection
        process do not apply.
    link_rate, flit_size, clock :
        Physical units (:func:`units`).
    progress : callable, optional
        ``progress(cycle, cap)`` between kernel chunks.
    fault_table : FaultRouter, optional
        A fault router built already (:func:`fattree.sim.engine.fault_tables`).
    **params
        :class:`SimConfig` fields.

    Returns
    -------
    PacketResult

    Raises
    ------
    ParameterError
        A bad workload, unit or parameter (named); faults with ``model="booksim"``.
    ResourceError
        A schedule too large for the machine's memory.

    Examples
    --------
    >>> r = simulate_workload("kant:k=2,n=2", "allgather:size=4KiB", flit_size="64B")
    >>> r.complete, r.cycles > 0, r.messages
    (True, True, 12)

    References
    ----------
    000 §V.B (the simulator); Hoefler et al., LogGOPSim (GOAL); nccl-tests
    ``doc/PERFORMANCE.md`` (algbw, busbw).
    """
    with watch() as wt:
        res = _simulate_workload(
            topology, workload, config, link_rate, flit_size, clock, progress, fault_table, params
        )
    res.compile_s = wt.seconds
    return res


def _simulate_workload(
    topology, workload, config, link_rate, flit_size, clock, progress, fault_table, params
) -> PacketResult:
    t0 = time.perf_counter()
    rate, flit, hz = units(link_rate, flit_size, clock)
    params = dict(params)
    params.setdefault("load", None)
    cfg = merge_config(config, params)
    if cfg.model == "booksim" and (cfg.faulted or fault_table is not None):
        raise ParameterError(
            "fault_rate/faults are invalid with model='booksim' and a workload: the booksim "
            "model simulates fault-free networks (use model='papers' for faults)"
        )
    if cfg.termination != "papers" or cfg.traffic != "uniform" or cfg.injection is not None:
        raise ParameterError(
            "traffic, injection and termination do not apply to a workload: its "
            "operations are the traffic and it ends when they have completed"
        )
    topo = topology if isinstance(topology, Topology) else build(topology)
    if isinstance(workload, Workload):
        w = workload
        if w.placement.size and int(w.placement.max()) >= topo.n_nodes:
            raise ParameterError("workload was bound to a larger network; bind it to this one")
    else:
        w = make_workload(workload, topo.n_nodes, topo.node_switch, cfg.seed)
    need = _estimate_bytes(w)
    if need > 0.8 * available_memory():
        raise ResourceError(
            f"the workload {w.spec} needs about {need / 2**30:.1f} GiB at packet level; only "
            f"{available_memory() / 2**30:.1f} GiB is available (the flow model, fattree "
            "flow, runs it in less)"
        )
    keep = _kept_ranks(w)
    pbytes = cfg.packet_flits * flit
    if cfg.model == "booksim":
        from .booksim.workload import hop_cycles, run_workload

        st, cr, status = run_workload(topo, w, cfg, pbytes, hz, progress, keep)
        res = _result(topo, w, cfg, st, cr, None, status, [], rate, flit, hz, t0, keep)
        res.hop_latency_ns = hop_cycles(cfg) / hz * 1e9
        res.config["model"] = "booksim"
        return res
    ft = None
    if cfg.faulted:
        from .engine import fault_tables

        ft = fault_table if fault_table is not None else fault_tables(topo, cfg)
    cr = compile_routing(topo, None if ft else cfg.algorithm, seed=cfg.seed)
    cap = cfg.max_cycles if cfg.max_cycles is not None else 2**31 - 16
    run_cfg = replace(cfg, load=0.5, max_cycles=cap, algorithm=ft.algorithm if ft else cr.algorithm)
    traffic = make_traffic("uniform", topo.n_nodes, seed=cfg.seed, topology=topo)
    process = make_process(None, traffic, 0.5, cfg.packet_flits, seed=cfg.seed)
    st = allocate(topo, cr, traffic, process, run_cfg, ft=ft)
    st.cfg[C_NQUOTA] = 1 << 62  # the open-loop quota never ends the run
    st.cfg[C_MAXCYC] = cap
    st.quota[:] = 1 << 62  # every packet counts in the latency statistics
    st.wl = start(
        closed_view(
            w,
            topo.n_nodes,
            topo.n_switches * topo.max_ports,
            pbytes,
            1.0 / hz,
            st.pk.shape[0],
            keep,
        )
    )
    kernel._run(*st.args(), int(st.cnt[K_T]))  # compile (or load) before the clock starts
    stuck: list[int] = []
    while True:
        t = int(st.cnt[K_T])
        status = kernel._run(*st.args(), min(cap, t + CHUNK))
        if status == ST_GROW_QUEUE:
            st.grow_queues()
        elif status == ST_GROW_POOL:  # the operation slots, or else the packet pool
            if short_of_slots(st.wl):
                st.wl = grow_slots(st.wl)
            else:
                st.grow_pool()
                st.wl = grow_pool(st.wl, st.pk.shape[0])
        elif status == ST_CHUNK:
            if int(st.cnt[K_T]) >= cap:
                break
            if progress is not None:
                progress(int(st.cnt[K_T]), cap)
        elif status == ST_STALE:
            stuck = stuck_cycle(st)
            if stuck:
                status = ST_DEADLOCK
                break
        elif status == ST_DEADLOCK:
            stuck = global_stall(st)
            if stuck:
                break
            st.cnt[K_LAST_MOVE] = int(st.cnt[K_T]) - 1
        else:
            break
    if status in (ST_NOROUTE, ST_MISROUTE):
        raise SimulationError(
            f"routing {cr.algorithm!r} on {topo.spec}: a packet has no route or reached a "
            f"wrong node (cycle {int(st.cnt[K_T])})"
        )
    return _result(topo, w, cfg, st, cr, ft, status, stuck, rate, flit, hz, t0, keep)


def _n_ops(w: Workload) -> int:
    if w.phases is None:
        return int(w.ops.n_ops)
    return 2 * sum(ph.messages * ph.repeat for ph in w.phases)


def _kept_ranks(w: Workload):
    """Ranks whose operations the timeline keeps: all (``None``) for a schedule read from
    a file (held whole anyway) and for a collective of up to :data:`TIMELINE_OPS`
    operations, else the evenly spread ones the plot shows."""
    if w.phases is None or _n_ops(w) <= TIMELINE_OPS:
        return None
    return np.linspace(0, w.ranks - 1, min(w.ranks, TIMELINE_RANKS - 1)).astype(int)


def _estimate_bytes(w: Workload) -> int:
    """Peak bytes of the closed-loop state (a file's operations are all held; a
    collective's distinct phases once, and slots for a few steps of every rank)."""
    if w.phases is None:
        return int(w.ops.n_ops) * OP_BYTES
    live = [ph for ph in w.phases if ph.repeat > 0]
    msgs = sum(ph.messages for ph in live)
    steps = sum(ph.repeat for ph in live)
    kept = _n_ops(w) if _kept_ranks(w) is None else _n_ops(w) * TIMELINE_RANKS // max(w.ranks, 1)
    return msgs * MSG_BYTES + len(live) * (w.ranks + 1) * 16 + steps * 24 + kept * 17


def _bytes_total(w: Workload) -> int:
    """Bytes the sends carry in all."""
    if w.phases is None:
        return int(w.ops.nbytes[w.ops.kind == SEND].sum())
    return sum(int(np.asarray(ph.arrays()[2]).sum()) * ph.repeat for ph in w.phases)


def channel_flits(topo, port_flits: np.ndarray, inj_flits: np.ndarray) -> np.ndarray:
    """Flits each directed channel carried (``2e`` along ``topo.links[e]``, ``2e + 1``
    against it), from the per-output-port and per-node-link counts.

    Parameters
    ----------
    topo : Topology
        The network.
    port_flits : (S * R,) int array
        Flits out of each switch port.
    inj_flits : (N,) int array
        Flits each node injected.

    Returns
    -------
    (2 E,) int64
    """
    N, R = topo.n_nodes, topo.max_ports
    out = np.zeros(2 * topo.n_links, np.int64)
    li = topo.link_index.astype(np.int64).ravel()
    sw = np.repeat(np.arange(topo.n_switches, dtype=np.int64), R)
    ok = li >= 0
    e = li[ok]
    d = (topo.links[e, 0] != N + sw[ok]).astype(np.int64)
    np.add.at(out, 2 * e + d, port_flits[ok])
    e = topo.link_index[topo.node_switch, topo.node_port].astype(np.int64)
    d = (topo.links[e, 0] != np.arange(N)).astype(np.int64)
    np.add.at(out, 2 * e + d, inj_flits)
    return out


def _route_channels(topo, cr, ft, a: int, b: int) -> list[int]:
    """Directed channels of the route ``a -> b`` (the fault-tolerant one under faults)."""
    if ft is None:
        from ..routing.paths import PairRouter

        ptr, chan, _ = PairRouter(topo, cr).channels(np.array([a]), np.array([b]))
        return chan[ptr[0] : ptr[1]].tolist()
    adm, ports, _ = ft.route(a, b)
    if adm != 0:
        return []
    N = topo.n_nodes
    s = int(topo.node_switch[a])
    e = int(topo.link_index[s, topo.node_port[a]])
    out = [2 * e + int(topo.links[e, 0] != a)]
    for p in ports:
        e = int(topo.link_index[s, p])
        out.append(2 * e + int(topo.links[e, 0] != N + s))
        s = int(topo.port_peer[s, p]) - N
    return out


def _result(topo, w, cfg, st, cr, ft, status, stuck, rate, flit, hz, t0, keep) -> PacketResult:
    from .flow.routes import _link_label

    v = st.wl
    cyc_s = 1.0 / hz
    n = int(v.ci[CI_NOPS])
    done = int(v.ci[CI_DONE])
    und = int(v.ci[CI_UNDELIV])
    per_rank = v.rank_end  # each rank's last completion (0: none)
    cycles = int(per_rank.max()) if w.ranks else 0
    slow = int(np.argmax(per_rank)) if w.ranks else -1
    T = cycles * cyc_s
    cf = channel_flits(topo, v.port_flits, v.inj_flits)
    util = cf / cycles if cycles > 0 else np.zeros(len(cf))
    used = cf > 0
    bounding = -1
    if slow >= 0 and v.rb_t[slow] >= 0:  # the message of the slowest rank's last receive
        a, b = int(w.placement[v.rb_peer[slow]]), int(w.placement[slow])
        chans = _route_channels(topo, cr, ft, a, b)
        if chans:
            bounding = max(chans, key=lambda c: (cf[c], -c))
    complete = done == n
    if complete:
        outcome = "complete"
    elif status == ST_DEADLOCK:
        names = [channel_name(topo, f, topo.max_ports, cfg.vcs) for f in stuck]
        outcome = "deadlock: " + " -> ".join(names)
    elif und:
        outcome = (
            f"ended: {und:,} message(s) could not be delivered; {n - done:,} operation(s) "
            "never completed"
        )
    else:
        outcome = (
            f"ended at the cycle cap ({int(st.cnt[K_T]):,} cycles): {n - done:,} operation(s) left"
        )
    phases = _phases(w, v, cyc_s)
    algbw = w.size / T / 1e9 if T > 0 else 0.0
    return PacketResult(
        topology=topo.spec,
        family=topo.family,
        nodes=topo.n_nodes,
        workload=w.spec,
        collective=w.kind,
        algorithm=w.algorithm,
        ranks=w.ranks,
        size_bytes=int(w.size),
        routing=ft.algorithm if ft is not None else cr.algorithm,
        link_rate_gbps=rate * 8 / 1e9,
        flit_size_bytes=flit,
        hop_latency_ns=cfg.router_delay * cyc_s * 1e9,
        engine="packet",
        time_s=T,
        complete=complete,
        messages=int(w.messages),
        bytes_total=_bytes_total(w),
        undelivered=und,
        ops_not_run=n - done,
        algbw_gbps=algbw,
        busbw_gbps=algbw * w.busbw_factor,
        slowest_rank=slow,
        slowest_node=topo.node_label(int(w.placement[slow])) if slow >= 0 else "-",
        bounding_link=_link_label(topo, int(bounding)),
        max_link_util=float(util.max()) if util.size else 0.0,
        mean_link_util=float(util.mean()) if util.size else 0.0,
        mean_used_link_util=float(util[used].mean()) if used.any() else 0.0,
        phases_total=sum(p["repeat"] for p in phases),
        phases_computed=len(phases),
        fault_rate=float(cfg.fault_rate or 0.0),
        faulty_links=int(ft.faulty.sum()) if ft is not None else 0,
        fault_algorithm=ft.algorithm if ft is not None else "",
        seed=cfg.seed,
        version=__version__,
        wall_s=time.perf_counter() - t0,
        outcome=outcome,
        phases=phases,
        cycles=cycles,
        clock_mhz=hz / 1e6,
        packet_bytes=cfg.packet_flits * flit,
        packets=int(v.ci[CI_NPKT]),
        vcs=cfg.vcs,
        config=cfg.to_dict()
        | {
            "link_rate": rate * 8,
            "flit_size": flit,
            "clock_hz": hz,
            "seed": cfg.seed,
            "version": __version__,
        },
        timeline=_timeline(w, v, cyc_s, slow, phases, keep),
    )


def _phases(w, v, cyc_s) -> list[dict[str, Any]]:
    """Per phase of a collective: the steps' ends (the latest operation of each step),
    its time after the previous phase's end, one copy's share."""
    if w.phases is None or int(v.ci[CI_NOPS]) == 0:
        return []
    step_end = np.maximum.accumulate(v.step_end)
    out = []
    prev = 0
    s0 = 0
    for ph in w.phases:
        s1 = s0 + ph.repeat
        end = int(step_end[s1 - 1]) if s1 > s0 else prev
        total = (end - prev) * cyc_s
        out.append(
            {
                "name": ph.name,
                "repeat": ph.repeat,
                "messages": ph.messages,
                "time_s": total / max(ph.repeat, 1),
                "total_s": total,
                "end_s": end * cyc_s,
            }
        )
        prev = end
        s0 = s1
    return out


def _timeline(w, v, cyc_s, slow, phases, keep) -> dict[str, Any]:
    """Up to :data:`TIMELINE_RANKS` ranks (evenly spread, the slowest included when every
    rank's operations were kept, see :data:`TIMELINE_OPS`), in schedule order."""
    ranks = np.unique(
        np.append(
            np.linspace(0, w.ranks - 1, min(w.ranks, TIMELINE_RANKS - 1)).astype(int), max(slow, 0)
        )
    )
    if keep is not None:
        ranks = ranks[np.isin(ranks, keep)]
    counts = np.diff(v.rank_ptr)
    sel = [np.arange(v.tl_base[r], v.tl_base[r] + counts[r]) for r in ranks.tolist()]
    idx = np.concatenate(sel) if sel else np.zeros(0, np.int64)
    rank = np.repeat(ranks.astype(np.int32), counts[ranks] if len(ranks) else 0)
    fin = v.tl_end[idx] >= 0
    idx = idx[fin]
    return {
        "ranks": ranks,
        "rank": rank[fin],
        "kind": v.tl_kind[idx],
        "start_s": v.tl_start[idx].astype(np.float64) * cyc_s,
        "end_s": v.tl_end[idx].astype(np.float64) * cyc_s,
        "phase_end_s": np.array([p["end_s"] for p in phases]),
        "phase_names": [p["name"] for p in phases],
        "slowest_rank": slow,
    }


__all__ = ["PacketResult", "simulate_workload", "units", "parse_clock", "channel_flits"]
