"""The simulation models: ``papers`` (the default) and ``booksim`` (BookSim2's semantics).

A model is registered with :func:`register_model` on a small loader that returns its run
function (imported lazily, so that :class:`~fattree.sim.config.SimConfig` can validate
``model=`` without importing any kernel). Each entry names the ``SimConfig`` fields that
only it understands (``own``) and the fields whose non-default values contradict it
(``conflicts``: field -> values allowed, the default first).

References
----------
docs/simulator.md (the papers' model, 000 §V.B); docs/booksim.md (BookSim2, issue 12).
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
        Returns the run function ``run(topo, cfg, *, progress, bound, fault_table)``.
    own : tuple of str
        ``SimConfig`` fields only this model reads (None elsewhere).
    conflicts : dict
        Field name -> the values this model accepts (anything else is refused).
    """

    name: str
    title: str
    loader: Callable[[], Callable]
    own: tuple[str, ...] = ()
    conflicts: dict = field(default_factory=dict)

    @property
    def run(self) -> Callable:
        return self.loader()


MODELS: Registry[SimModel] = Registry("simulation model")


def register_model(name: str, *, title: str, own=(), conflicts=None):
    """Register the loader of a model's run function (a decorator)."""

    def deco(loader):
        MODELS.add(name, SimModel(name, title, loader, tuple(own), dict(conflicts or {})))
        return loader

    return deco


#: fields only the booksim model reads
BOOKSIM_OWN = ("speculative", "routing_delay", "sim_type")


@register_model("papers", title="the papers' wormhole model (000 §V.B; docs/simulator.md)",
                own=())
def _papers():
    from .engine import run_papers

    return run_papers


@register_model(
    "booksim", title="BookSim2's input-queued router and traffic manager (commit 28f4329; "
                     "docs/booksim.md)",
    own=BOOKSIM_OWN,
    conflicts={  # papers-only options: BookSim2 has its own fixed semantics for these
        "algorithm": (None,), "arbitration": ("random",), "termination": ("papers",),
        "packets_per_source": (200,), "warmup": (1000,), "measure": (10000,),
        "router_delay": (0,), "buffer_level0": (None,), "injection": (None, "bernoulli", "trace"),
        "fault_rate": (None,), "faults": (None,), "fault_model": ("local",)})
def _booksim():
    from .booksim.model import run_booksim

    return run_booksim


def check_model(cfg) -> None:
    """Refuse an unknown model (listing the models) and options that contradict it."""
    from ..errors import ParameterError

    model = MODELS.get(cfg.model)
    bad = [f"{name}={getattr(cfg, name)!r}" for name, ok in model.conflicts.items()
           if getattr(cfg, name) not in ok]
    for other in MODELS.names():
        if other == cfg.model:
            continue
        bad += [f"{name}={getattr(cfg, name)!r}" for name in MODELS.get(other).own
                if name not in model.own and getattr(cfg, name) is not None]
    if bad:
        raise ParameterError(f"model={cfg.model!r} contradicts {', '.join(bad)}: "
                             f"{'the papers model has no such option' if cfg.model == 'papers' else 'BookSim2 fixes it'}"
                             f"; drop {'it' if len(bad) == 1 else 'them'} or choose another --model "
                             f"({', '.join(MODELS.names())})")
