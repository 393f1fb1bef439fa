"""The simulator's memory need, estimated before anything is built or allocated.

:func:`check_memory` runs at the start of :func:`fattree.sim.simulate` (and of the
``simulate`` command, before the topology is built): a run whose estimate exceeds
80 % of the memory available now is refused with a :class:`~fattree.errors.ResourceError`
that names the estimate, instead of growing until the machine swaps or the kernel
kills it.

The estimate adds the topology and its derived tables (the family's closed-form size,
as :func:`fattree.topology.build` estimates it; nothing when a built
:class:`~fattree.topology.Topology` is passed, since it is already in memory), the
simulator's state (:func:`fattree.sim.state.estimate_bytes`: FIFOs, output ports,
per-node queues and packet pool as first allocated) and the route cache. Queues and
the packet pool grow by doubling while a saturated run goes on; ``headroom`` (2x)
covers that growth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from ..errors import ParameterError, ResourceError

#: the share of the available memory a run may take
MEMORY_SHARE = 0.8
#: growth of the queues and the packet pool over their first allocation
HEADROOM = 2.0


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes a simulation needs, by part, and the bytes available."""

    spec: str
    nodes: int
    switches: int
    topology: int
    state: int
    route_cache: int
    available: int

    @property
    def total(self) -> int:
        return int(self.topology + HEADROOM * self.state + self.route_cache)

    @property
    def fits(self) -> bool:
        return self.total <= MEMORY_SHARE * self.available

    def describe(self) -> str:
        gib = 2**30
        return (
            f"about {self.total / gib:.1f} GiB (topology {self.topology / gib:.1f}, "
            f"simulator state {self.state / gib:.1f} x{HEADROOM:g} for growth, route cache "
            f"{self.route_cache / gib:.2f}) for {self.nodes:,} nodes and {self.switches:,} "
            f"switches; {self.available / gib:.1f} GiB is available, of which a run may "
            f"take {MEMORY_SHARE:.0%}"
        )


def _config(config, params: dict[str, Any]):
    from .config import SimConfig, merge_config

    return merge_config(config if isinstance(config, SimConfig) else None, params or {})


def estimate_memory(
    topology, config=None, *, available: int | None = None, **params: Any
) -> MemoryEstimate:
    """Estimate the memory a simulation of ``topology`` needs, without building it.

    Parameters
    ----------
    topology : str or Topology
        A spec (the family's closed-form size is used; nothing is built) or a built
        topology.
    config : SimConfig, optional
        The run's parameters; keywords override them (as for ``simulate``).
    available : int, optional
        Bytes available (default: ``MemAvailable`` of this machine now).

    Returns
    -------
    MemoryEstimate

    Examples
    --------
    >>> e = estimate_memory("mikant:k=8,n=7", load=0.1, available=16 * 2**30)
    >>> e.nodes, e.fits
    (4194304, False)
    >>> estimate_memory("kant:k=2,n=3", load=0.1).fits
    True

    References
    ----------
    docs/simulator.md (state layout); 000 §V.B (the model simulated).
    """
    from ..topology import Topology, resolve
    from ..topology.family import available_memory, estimate_bytes as topology_bytes
    from .routecache import ROUTE_CACHE_MAX
    from .state import estimate_bytes as state_bytes

    cfg = _config(config, params)
    if isinstance(topology, Topology):
        spec, nodes, switches, ports = (
            topology.spec,
            topology.n_nodes,
            topology.n_switches,
            topology.max_ports,
        )
        topo_bytes = 0  # already in memory
    elif isinstance(topology, str):
        fam, values = resolve(topology)
        spec = f"{fam.name}:{','.join(f'{k}={v}' for k, v in values.items())}"
        if fam.size is None:  # imported graphs: the file's size bounds them; build measures
            return MemoryEstimate(spec, 0, 0, 0, 0, 0, available or available_memory())
        nodes, switches, ports = (int(x) for x in fam.size(values))
        topo_bytes = topology_bytes(nodes, switches, ports)
    else:
        raise ParameterError(
            f"topology={topology!r} is invalid: expected a Topology or a spec "
            "string such as 'mikant:k=4,n=5'"
        )
    shim = SimpleNamespace(n_nodes=nodes, n_switches=switches, max_ports=ports)
    state = state_bytes(shim, cfg)
    cache = switches * nodes if switches * nodes <= ROUTE_CACHE_MAX else 0
    return MemoryEstimate(
        spec,
        nodes,
        switches,
        int(topo_bytes),
        int(state),
        int(cache),
        int(available if available is not None else available_memory()),
    )


def check_memory(
    topology, config=None, *, available: int | None = None, **params: Any
) -> MemoryEstimate:
    """Refuse a simulation that would not fit in memory (see :func:`estimate_memory`).

    Raises
    ------
    ResourceError
        The estimate exceeds 80 % of the available memory; the message gives it.

    Examples
    --------
    >>> check_memory("mikant:k=8,n=7", load=0.1, available=16 * 2**30)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fattree.errors.ResourceError: simulating mikant:k=8,n=7 needs about ...
    """
    est = estimate_memory(topology, config, available=available, **params)
    if not est.fits:
        raise ResourceError(
            f"simulating {est.spec} needs {est.describe()}; refused before "
            "allocating (try a smaller network)"
        )
    check_work(est.spec, est.nodes, _config(config, params))
    return est


#: node-cycles (nodes x cycles simulated) one run may take: about half an hour where the
#: simulator is slowest, on networks of a million nodes (docs/simulator.md, "Measured":
#: MiKANT(8,6), 524,288 nodes x 1,000 cycles in 280 s)
WORK_CAP = 2 * 10**9
#: cycles the booksim model's sampling takes at most before its drain (3 warm-up periods
#: and at most 10 sample periods of 1,000 cycles)
_BOOKSIM_CYCLES = 13_000


def expected_cycles(cfg) -> tuple[int, str] | None:
    """Cycles a run takes below saturation, and why: ``warmup + measure`` (window), or
    the mean time a source takes to create its ``packets_per_source`` packets at the
    offered load (papers), at most the cap. None for a trace (its own times).

    Parameters
    ----------
    cfg : SimConfig
        The run's parameters.

    Returns
    -------
    tuple of (int, str) or None
        The cycles and their reason in words.

    Examples
    --------
    >>> from fattree.sim.config import SimConfig
    >>> expected_cycles(SimConfig(load=0.1))
    (2000, 'P=200 packets of 1 flit per source at load 0.1')
    """
    if str(cfg.traffic).split(":", 1)[0] == "trace" or cfg.load is None:
        return None
    if cfg.model == "booksim":
        return min(cfg.cycle_cap, _BOOKSIM_CYCLES), "the booksim model's sampling"
    if cfg.termination == "window":
        return min(cfg.cycle_cap, cfg.warmup + cfg.measure), (
            f"warmup {cfg.warmup:,} + measure {cfg.measure:,}"
        )
    need = cfg.packets_per_source * cfg.packet_flits / cfg.load
    why = (
        f"P={cfg.packets_per_source:,} packets of {cfg.packet_flits} flit"
        f"{'s' if cfg.packet_flits > 1 else ''} per source at load {cfg.load:g}"
    )
    return int(min(cfg.cycle_cap, math.ceil(need))), why


def check_work(spec: str, nodes: int, cfg) -> None:
    """Refuse, before anything is built, a run that cannot end or would take hours.

    * papers termination without ``max_cycles``: a load so low that a source needs more
      cycles than the cycle counter holds to create its ``packets_per_source`` packets
      (the run could only stop at the cap);
    * ``nodes`` x the expected cycles (:func:`expected_cycles`) above :data:`WORK_CAP`.

    Parameters
    ----------
    spec : str
        The network, for the message.
    nodes : int
        Its compute nodes (0: unknown, no check of the work).
    cfg : SimConfig
        The run's parameters.

    Raises
    ------
    ResourceError
        Naming the estimate and the cap.

    Examples
    --------
    >>> from fattree.sim.config import SimConfig
    >>> check_work("kant:k=2,n=2", 4, SimConfig(load=1e-300))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fattree.errors.ResourceError: load=1e-300 with packets_per_source=200 cannot meet ...
    """
    from .config import CYCLE_MAX

    exp = expected_cycles(cfg)
    if exp is None:
        return
    if cfg.model == "papers" and cfg.termination == "papers" and cfg.max_cycles is None:
        need = cfg.packets_per_source * cfg.packet_flits / cfg.load
        if need >= CYCLE_MAX:
            raise ResourceError(
                f"load={cfg.load:g} with packets_per_source={cfg.packets_per_source:,} "
                f"cannot meet the papers' termination: each source needs about {need:.3g} "
                f"cycles to create its packets (P x flits / load), beyond the cycle cap "
                f"{CYCLE_MAX:,}; raise --load, lower -P or use --termination window"
            )
    cycles, why = exp
    work = nodes * cycles
    if work > WORK_CAP:
        raise ResourceError(
            f"simulating {spec} is about {work:.3g} node-cycles ({nodes:,} nodes x "
            f"{cycles:,} cycles: {why}), beyond the cap of {WORK_CAP:.3g} node-cycles "
            "(half an hour or more); simulate fewer cycles (-P, "
            "--measure, --max-cycles, a higher load) or a smaller network"
        )


def check_curve_work(spec: str, nodes: int, configs) -> None:
    """:func:`check_work` for each load of a curve, then for their sum (a long list of
    low loads adds up): one line naming the total, the number of loads and the cap.

    Parameters
    ----------
    spec : str
        The network, for the message.
    nodes : int
        Its compute nodes (0: unknown).
    configs : sequence of SimConfig
        One per load.

    Raises
    ------
    ResourceError
        A load, or the curve as a whole, beyond the cap.
    """
    total = 0
    for cfg in configs:
        check_work(spec, nodes, cfg)
        exp = expected_cycles(cfg)
        total += nodes * exp[0] if exp is not None else 0
    if total > WORK_CAP:
        raise ResourceError(
            f"simulating {spec} at {len(configs):,} loads is about {total:.3g} node-cycles "
            f"in all ({nodes:,} nodes), beyond the cap of {WORK_CAP:.3g} node-cycles (half "
            "an hour or more); give fewer or higher loads, or a lower -P"
        )
