"""fattree: design, analyse and simulate fat-tree-family interconnection networks."""

from .compiling import use_source_cache as _use_source_cache

_use_source_cache()  # before any kernel module: numba's cache, one folder per source version

from .api import (  # noqa: E402
    Properties,
    fault_study,
    flow,
    properties,
    read_results,
    saturation_load,
    simulate,
    simulate_loads,
)
from .errors import FattreeError, ParameterError  # noqa: E402
from .topology import Topology, build  # noqa: E402
from .version import __version__  # noqa: E402

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
