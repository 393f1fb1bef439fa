"""fattree: design, analyse and simulate fat-tree-family interconnection networks."""

from .api import (
    Properties,
    fault_study,
    flow,
    properties,
    read_results,
    saturation_load,
    simulate,
    simulate_loads,
)
from .errors import FattreeError, ParameterError
from .topology import Topology, build
from .version import __version__

__all__ = [
    "__version__",
    "FattreeError",
    "ParameterError",
    "Topology",
    "build",
    "simulate",
    "simulate_loads",
    "flow",
    "fault_study",
    "properties",
    "Properties",
    "read_results",
    "saturation_load",
]
