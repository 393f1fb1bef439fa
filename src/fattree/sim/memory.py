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
    return est
