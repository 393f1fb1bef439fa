"""The simulation models: ``papers`` (the default) and ``booksim`` (BookSim2's semantics).

A model is registered with :func:`register_model` on a small loader that returns its run
function (imported lazily, so that :class:`~fattree.sim.config.SimConfig` can validate
``model=`` without importing any kernel). Each entry names the ``SimConfig`` fields that
only it understands (``own``) and the fields whose non-default values contradict it
(``conflicts``: field -> values allowed, the default first).

References
----------
docs/simulator.md (the papers' model, 000 §V.B); docs/booksim.md (BookSim2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..registry import Registry


@dataclass(frozen=True)
class SimModel:
    """A registered simulation model.

    Attributes
    ----------
    name, title : str
        Registered name and one line for humans.
    loader : callable
        Returns the run function ``run(setup, *, progress, bound)`` (a
        :class:`~fattree.sim.setup.SimSetup`).
    own : tuple of str
        ``SimConfig`` fields only this model reads (None elsewhere).
    conflicts : dict
        Field name -> the values this model accepts (anything else is refused).
    routing_bound : bool
        The family's routing and its channel-load bound describe this model's runs.
    termination : callable or None
        ``termination(cfg) -> str``: the CLI's termination line (None: the papers').
    setup : callable
        ``setup(topo, cfg, fault_table) -> (routing, faults, traffic, extra)``: what the
        model builds once per configuration (:func:`fattree.sim.setup.prepare`), the
        pattern as this model reads its name among them.
    process : callable or None
        ``process(traffic, cfg) -> Process``: the injection process bound to ``cfg.load``
        (None: the model injects by its own rule).
    """

    name: str
    title: str
    loader: Callable[[], Callable]
    own: tuple[str, ...] = ()
    conflicts: dict = field(default_factory=dict)
    routing_bound: bool = True
    termination: Callable | None = None
    setup: Callable | None = None
    process: Callable | None = None

    @property
    def run(self) -> Callable:
        return self.loader()


MODELS: Registry[SimModel] = Registry("simulation model")


def register_model(
    name: str,
    *,
    title: str,
    own=(),
    conflicts=None,
    routing_bound=True,
    termination=None,
    setup=None,
    process=None,
):
    """Register the loader of a model's run function (a decorator).

    Parameters
    ----------
    name, title : str
        The model's name (``SimConfig.model``) and one line for humans.
    own, conflicts, routing_bound, termination, setup, process
        As the attributes of :class:`SimModel`.

    Returns
    -------
    callable
        The decorator; it returns the loader unchanged.
    """

    def deco(loader):
        MODELS.add(
            name,
            SimModel(
                name,
                title,
                loader,
                tuple(own),
                dict(conflicts or {}),
                routing_bound,
                termination,
                setup,
                process,
            ),
        )
        return loader

    return deco


#: fields only the booksim model reads
BOOKSIM_OWN = ("speculative", "routing_delay", "sim_type")


@register_model(
    "papers",
    title="the papers' wormhole model (000 §V.B; docs/simulator.md)",
    own=(),
    setup=lambda topo, cfg, ft: _resolve("fattree.sim.engine:setup_papers")(topo, cfg, ft),
    process=lambda traffic, cfg: _resolve("fattree.traffic:make_process")(
        cfg.injection, traffic, cfg.load, cfg.packet_flits, cfg.seed
    ),
)
def _papers():
    # resolved by name at run time: engine imports config, which imports this module
    return _resolve("fattree.sim.engine:run_papers")


@register_model(
    "booksim",
    title="BookSim2's input-queued router and traffic manager (commit 28f4329; docs/booksim.md)",
    own=BOOKSIM_OWN,
    conflicts={  # papers-only options: BookSim2 has its own fixed semantics for these
        "algorithm": (None,),
        "arbitration": ("random",),
        "termination": ("papers",),
        "packets_per_source": (200,),
        "warmup": (1000,),
        "measure": (10000,),
        "router_delay": (0,),
        "buffer_level0": (None,),
        "injection": (None, "bernoulli", "trace"),
        "fault_rate": (None,),
        "faults": (None,),
        "fault_model": ("local",),
        "fault_pool": ("all",),
    },
    routing_bound=False,
    termination=lambda cfg: _booksim_termination(cfg),
    setup=lambda topo, cfg, ft: _resolve("fattree.sim.booksim.model:setup_booksim")(topo, cfg, ft),
)
def _booksim():
    return _resolve("fattree.sim.booksim.model:run_booksim")


def _resolve(target: str) -> Callable:
    """``"package.module:name"`` imported on first use (keeps the module graph acyclic)."""
    import importlib

    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


def _booksim_termination(cfg) -> str:
    if (cfg.sim_type or "latency") == "throughput":
        how = "until the accepted rate changes by < 5 % three periods in a row"
    else:
        how = (
            "until latency and accepted rate change by < 5 % three periods in a row, then "
            "drain the measured packets; unstable above 500 cycles"
        )
    return (
        f"BookSim2's sampling ({cfg.sim_type or 'latency'}): 3 warm-up periods of 1000 "
        f"cycles, then 1000-cycle periods (10 in all at most) {how}"
    )


def check_model(cfg) -> None:
    """Refuse an unknown model (listing the models) and options that contradict it."""
    from ..errors import ParameterError

    model = MODELS.get(cfg.model)
    bad = [
        f"{name}={getattr(cfg, name)!r}"
        for name, ok in model.conflicts.items()
        if getattr(cfg, name) not in ok
    ]
    for other in MODELS.names():
        if other == cfg.model:
            continue
        bad += [
            f"{name}={getattr(cfg, name)!r}"
            for name in MODELS.get(other).own
            if name not in model.own and getattr(cfg, name) is not None
        ]
    if bad:
        why = (
            "the papers model has no such option" if cfg.model == "papers" else "BookSim2 fixes it"
        )
        raise ParameterError(
            f"model={cfg.model!r} contradicts {', '.join(bad)}: {why}"
            f"; drop {'it' if len(bad) == 1 else 'them'} or choose another --model "
            f"({', '.join(MODELS.names())})"
        )
