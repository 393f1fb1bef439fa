"""fattree: design, analyse and simulate fat-tree-family interconnection networks."""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("fattree")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

from .api import (Properties, fault_study, properties, read_results, simulate,  # noqa: E402
                  simulate_loads)
from .errors import FattreeError, ParameterError  # noqa: E402
from .topology import Topology, build  # noqa: E402

__all__ = ["__version__", "FattreeError", "ParameterError", "Topology", "build", "simulate",
           "simulate_loads", "fault_study", "properties", "Properties", "read_results"]
