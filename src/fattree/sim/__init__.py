"""The cycle-accurate wormhole simulator (numba, struct-of-arrays).

:func:`simulate` runs one offered load and returns a :class:`SimResult`;
:func:`simulate_loads` runs a curve into a pandas DataFrame; both set a run up once
with :func:`prepare` (routing, traffic, process, memory estimate: a :class:`SimSetup`)
and hand it to the model with :func:`run`. The model, its
parameters and the metric definitions are in docs/simulator.md; a slow pure-Python
reference of the same model is :func:`fattree.sim.reference.simulate_reference`.
:func:`simulate_workload` runs a workload (a collective or a GOAL schedule) closed loop in
the same model and returns a :class:`PacketResult`.
"""

from .config import SimConfig
from .engine import results_frame, simulate, simulate_loads
from .result import SimResult, saturation_load
from .setup import SimSetup, prepare, run
from .workload import PacketResult, simulate_workload

__all__ = [
    "SimConfig",
    "SimResult",
    "simulate",
    "simulate_loads",
    "results_frame",
    "saturation_load",
    "SimSetup",
    "prepare",
    "run",
    "PacketResult",
    "simulate_workload",
]
