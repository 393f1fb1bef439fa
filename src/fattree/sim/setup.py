"""A simulation set up once: the network, its routing, traffic, process and memory estimate.

:func:`prepare` checks the memory and the work before anything is built, builds the
topology, then asks the model (``fattree.sim.models``) for its routing and its reading
of the traffic pattern, and binds the injection process to the first load. Both models
consume the same :class:`SimSetup` (:func:`run`), and a curve moves it from load to
load with :meth:`SimSetup.at`, which rebinds only the process: the routing is compiled,
the pattern bound and the memory checked once per command, whatever the number of loads.

References
----------
docs/ARCHITECTURE.md ("Validate once at the edge, then the library sets up once");
docs/simulator.md; docs/booksim.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import ParameterError
from ..topology import Topology, build
from .config import SimConfig
from .memory import MemoryEstimate, check_curve_work, check_memory
from .models import MODELS


@dataclass(frozen=True, eq=False)
class SimSetup:
    """What every run of one configuration shares, built once by :func:`prepare`.

    Attributes
    ----------
    topo : Topology
        The network.
    cfg : SimConfig
        The validated configuration; ``cfg.load`` is the load ``process`` is bound to.
    memory : MemoryEstimate
        The estimate that :func:`~fattree.sim.memory.check_memory` accepted.
    routing : object
        The model's routing: a :class:`~fattree.routing.CompiledRouting` (the papers'
        model: the family's routing or ``cfg.algorithm``; the booksim model: BookSim2's
        ``booksim-nca`` or ``booksim-min``).
    faults : FaultRouter or None
        The fault set and fault-tolerant routing (papers model with faults).
    traffic : Traffic
        The pattern as the model reads its name.
    process : Process or None
        The injection process at ``cfg.load`` (None where the model injects by its own
        rule: the booksim model's Bernoulli sources).
    extra : object
        Whatever else the model prepared once (the booksim model's routing tables).
    """

    topo: Topology
    cfg: SimConfig
    memory: MemoryEstimate
    routing: Any
    faults: Any
    traffic: Any
    process: Any
    extra: Any = None

    def at(self, load: float | None) -> SimSetup:
        """The same setup at another offered load (the process rebound; nothing else).

        Parameters
        ----------
        load : float or None
            Offered load, flits per node per cycle (None: a trace's own times).

        Returns
        -------
        SimSetup
            ``self`` when the load is the same.

        Raises
        ------
        ParameterError
            If the load is outside (0, 1].
        """
        if load == self.cfg.load:
            return self
        cfg = self.cfg.with_load(load)
        model = MODELS.get(cfg.model)
        process = None if model.process is None else model.process(self.traffic, cfg)
        return replace(self, cfg=cfg, process=process)


def prepare(
    topology,
    config: SimConfig | None = None,
    *,
    loads: Sequence[float] | None = None,
    fault_table=None,
    **params: Any,
) -> SimSetup:
    """Set a simulation up once: memory and work checked, then everything built.

    Parameters
    ----------
    topology : Topology or str
        The network, or a spec (its memory is then estimated before it is built).
    config : SimConfig, optional
        All parameters; keywords override it.
    loads : sequence of float, optional
        The loads of a curve: their work is checked as a whole before anything is built.
    fault_table : FaultRouter, optional
        A fault router built before (shared between loads); built when omitted.

    Returns
    -------
    SimSetup

    Raises
    ------
    ParameterError, UnknownNameError
        An invalid parameter, pattern, process or routing.
    ResourceError
        The run would not fit in memory or would take too long.

    Examples
    --------
    >>> s = prepare("kant:k=2,n=2", load=0.1)
    >>> s.routing.algorithm, s.traffic.spec, s.process.spec
    ('dmodk', 'uniform', 'bernoulli')
    >>> s.at(0.2).routing is s.routing
    True
    """
    from .config import merge_config

    cfg = merge_config(config, params)
    est = check_memory(topology, cfg)  # refused before building (sim/memory.py)
    if loads is not None and len(loads) > 1:  # a curve's work as a whole
        check_curve_work(est.spec, est.nodes, [cfg.with_load(x) for x in loads])
    if isinstance(topology, Topology):
        topo = topology
    elif isinstance(topology, str):
        topo = build(topology)
    else:
        raise ParameterError(
            f"topology={topology!r} is invalid: expected a Topology or a spec string"
        )
    model = MODELS.get(cfg.model)
    routing, faults, traffic, extra = model.setup(topo, cfg, fault_table)
    process = None if model.process is None else model.process(traffic, cfg)
    return SimSetup(topo, cfg, est, routing, faults, traffic, process, extra)


def run(
    setup: SimSetup,
    *,
    progress: Callable[[int, int], None] | None = None,
    bound: bool | float | None = False,
):
    """Simulate one prepared configuration with its model.

    Parameters
    ----------
    setup : SimSetup
        From :func:`prepare` (or :meth:`SimSetup.at`).
    progress : callable, optional
        Called as ``progress(cycle, cap)`` between kernel chunks.
    bound : bool or float
        As :func:`fattree.sim.simulate`.

    Returns
    -------
    SimResult
    """
    if not isinstance(setup, SimSetup):
        raise ParameterError(f"setup={setup!r} is invalid: expected a SimSetup from prepare()")
    return MODELS.get(setup.cfg.model).run(setup, progress=progress, bound=bound)


__all__ = ["SimSetup", "prepare", "run"]
