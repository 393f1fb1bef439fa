"""The flow model's result: :class:`FlowResult`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class FlowResult:
    """Completion of one workload on one network at flow level.

    Times are in seconds; bandwidths in GB/s (10^9 bytes per second) as nccl-tests
    reports them: ``algbw = size / time``, ``busbw = algbw * factor`` (all-reduce
    ``2(p-1)/p``; reduce-scatter, all-gather, all-to-all ``(p-1)/p``; broadcast, reduce 1).
    Link utilisation is bytes carried over capacity times completion time, per directed
    channel (node links included); ``mean_link_util`` averages every channel of the
    network, ``mean_used_link_util`` those that carried bytes. ``compile_seconds`` counts
    every numba compilation the run paid for (its routes, its engine; 0 once numba's
    cache holds them), ``wall_s`` the whole run, compilation included.
    """

    topology: str
    family: str
    nodes: int
    workload: str
    collective: str
    algorithm: str
    ranks: int
    size_bytes: int
    routing: str
    link_rate_gbps: float
    flit_size_bytes: int
    hop_latency_ns: float
    engine: str
    time_s: float
    complete: bool
    messages: int
    bytes_total: int
    undelivered: int
    ops_not_run: int
    algbw_gbps: float
    busbw_gbps: float
    slowest_rank: int
    slowest_node: str
    bounding_link: str
    max_link_util: float
    mean_link_util: float
    mean_used_link_util: float
    phases_total: int
    phases_computed: int
    fault_rate: float
    faulty_links: int
    fault_algorithm: str
    seed: int
    version: str
    wall_s: float
    outcome: str
    compile_seconds: float = 0.0
    phases: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Every field, the per-phase list included."""
        return asdict(self)

    def to_row(self) -> dict[str, Any]:
        """Scalar fields for a DataFrame row (the per-phase list left out)."""
        d = asdict(self)
        d.pop("phases")
        return d


__all__ = ["FlowResult"]
