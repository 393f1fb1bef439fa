"""The flow-level model: messages as flows over the routing's paths, max-min fair.

:func:`flow` runs one workload (:mod:`fattree.traffic.workloads`) on one network and
returns a :class:`FlowResult`. The model, its units and its metrics are in
docs/workloads.md.
"""

from .engine import FlowConfig, flow, flow_config
from .result import FlowResult

__all__ = ["FlowConfig", "FlowResult", "flow", "flow_config"]
