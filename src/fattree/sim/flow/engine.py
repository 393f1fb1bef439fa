"""The flow-level model: :func:`flow`.

Each message is a flow over its route's directed channels (injection link, switch
links, ejection link). Flows share every channel by max-min fairness (progressive
filling, :mod:`.maxmin`); rates are recomputed only when a flow starts or ends. A
message of ``b`` bytes over ``h`` channels that gets rate ``r`` ends
``h * (hop_latency + flit_size / link_rate) + b / r`` after it starts (cut-through: the
head pays each hop's latency and one flit's serialisation, the body streams behind it).

Two engines over the same flows:

* ``phases`` (built-in collectives): every message of a phase starts together and the
  phase ends when its last message arrives; identical phases (a ring's ``2(p-1)``
  steps) are computed once.
* ``operations`` (GOAL schedules, or any collective with ``engine="operations"``): the
  per-rank operation lists run by their dependencies, event by event.
"""

from __future__ import annotations

import time

import numpy as np

from ...compiling import watch
from ...errors import ParameterError
from ...topology import Topology
from ...traffic.workloads import Workload, make_workload
from ...version import __version__
from .config import ENGINES, FlowConfig, flow_config
from .operations import _run_operations
from .phases import _run_phases
from .result import FlowResult
from .routes import _Router, _link_label


def flow(topo: Topology, workload, config: FlowConfig | None = None, **params) -> FlowResult:
    """Run a workload on a network at flow level.

    Parameters
    ----------
    topo : Topology
        The network.
    workload : str or Workload
        A spec (``"allreduce:algorithm=ring,size=1MiB"``, ``"goal:file=app.goal"``) or a
        workload already bound to this network.
    config : FlowConfig, optional
        The model's parameters; keywords of :func:`flow_config` build one.
    **params
        :func:`flow_config` keywords (``link_rate="400Gb/s"``, ``fault_rate=0.01``, ...).

    Returns
    -------
    FlowResult

    Raises
    ------
    ParameterError
        A bad workload or parameter (named).
    ResourceError
        A phase too large for the machine's memory.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("kant:k=2,n=2")
    >>> r = flow(t, "allreduce:algorithm=ring,size=4KiB", link_rate="8Gb/s", hop_latency="0ns",
    ...          flit_size="1B")
    >>> round(r.time_s * 1e6, 3), r.complete   # 6 steps of 1 KiB at 1 GB/s, 4 hops of 1 ns max
    (6.168, True)

    References
    ----------
    D. Bertsekas, R. Gallager, *Data Networks*, §6.5.2 (max-min fairness by progressive
    filling); nccl-tests ``doc/PERFORMANCE.md`` (algorithm and bus bandwidth).
    """
    t0 = time.perf_counter()
    with watch() as compiled:  # the routes' and the engine's first compilations
        res = _flow(topo, workload, config, params)
    res.compile_seconds = compiled.seconds
    res.wall_s = time.perf_counter() - t0
    return res


def _flow(topo, workload, config, params) -> FlowResult:
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    cfg = config if config is not None else flow_config(**params)
    if config is not None and params:
        cfg = flow_config(**{**_as_params(config), **params})
    if isinstance(workload, Workload):
        w = workload
        if w.placement.size and int(w.placement.max()) >= topo.n_nodes:
            raise ParameterError("workload was bound to a larger network; bind it to this one")
    else:
        w = make_workload(workload, topo.n_nodes, topo.node_switch, cfg.seed)
    router = _Router(topo, cfg)
    engine = cfg.engine
    if engine == "auto":
        engine = "phases" if w.phases is not None else "operations"
    if engine == "phases" and w.phases is None:
        raise ParameterError(
            "engine='phases' is invalid for a GOAL schedule: it has no phases; use 'operations'"
        )
    out = (_run_phases if engine == "phases" else _run_operations)(topo, w, cfg, router)
    T = out["time"]
    lb = out["link_bytes"]
    cap = cfg.link_rate * T
    util = lb / cap if cap > 0 else np.zeros_like(lb)
    used = lb > 0
    und = out["undelivered"]
    complete = und == 0 and out["ops_not_run"] == 0
    if complete:
        outcome = "complete"
    else:
        fb = out["first_bad"]
        where = ""
        if fb is not None:
            a, b = fb[1], fb[2]
            where = (
                f" (first: rank {a} -> rank {b}, {topo.node_label(int(w.placement[a]))} -> "
                f"{topo.node_label(int(w.placement[b]))}, in {fb[0]})"
            )
        outcome = f"ended: {und:,} message(s) could not be delivered{where}"
        if out["ops_not_run"]:
            outcome += f"; {out['ops_not_run']:,} operation(s) never ran"
    algbw = w.size / T / 1e9 if T > 0 else 0.0
    slow = out["slowest_rank"]
    return FlowResult(
        topology=topo.spec,
        family=topo.family,
        nodes=topo.n_nodes,
        workload=w.spec,
        collective=w.kind,
        algorithm=w.algorithm,
        ranks=w.ranks,
        size_bytes=int(w.size),
        routing=router.cr.algorithm,
        link_rate_gbps=cfg.link_rate * 8 / 1e9,
        flit_size_bytes=cfg.flit_size,
        hop_latency_ns=cfg.hop_latency * 1e9,
        engine=engine,
        time_s=T,
        complete=complete,
        messages=w.messages,
        bytes_total=int(w.bytes_sent().sum()),
        undelivered=int(und),
        ops_not_run=int(out["ops_not_run"]),
        algbw_gbps=algbw,
        busbw_gbps=algbw * w.busbw_factor,
        slowest_rank=int(slow),
        slowest_node=topo.node_label(int(w.placement[slow])) if slow >= 0 else "-",
        bounding_link=_link_label(topo, int(out["bounding"])),
        max_link_util=float(util.max()) if util.size else 0.0,
        mean_link_util=float(util.mean()) if util.size else 0.0,
        mean_used_link_util=float(util[used].mean()) if used.any() else 0.0,
        phases_total=sum(p["repeat"] for p in out["phases"]),
        phases_computed=int(out["computed"]),
        fault_rate=cfg.fault_rate,
        faulty_links=int(router.faulty.sum()) if router.faulty is not None else 0,
        fault_algorithm=router.ft,
        seed=cfg.seed,
        version=__version__,
        wall_s=0.0,  # (flow() times the whole run)
        outcome=outcome,
        phases=out["phases"],
    )


def _as_params(c: FlowConfig) -> dict:
    return {
        "link_rate": c.link_rate,
        "flit_size": c.flit_size,
        "hop_latency": c.hop_latency,
        "algorithm": c.algorithm,
        "fault_rate": c.fault_rate,
        "fault_algorithm": c.fault_algorithm,
        "seed": c.seed,
        "engine": c.engine,
        "workers": c.workers,
    }


__all__ = ["ENGINES", "FlowConfig", "flow_config", "flow"]
