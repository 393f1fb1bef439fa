"""Plot kinds: the registry ``PLOTS`` of what a plot of a results DataFrame draws.

Each entry names the metric it draws (the first of its candidate column names present in
the results), the x column and labels. A study's ``[report] plots`` list is checked against
this registry when the study is parsed (:mod:`fattree.sweep.study`); the figures are drawn
by :mod:`fattree.report.plots`, which re-exports ``PLOTS`` and ``PlotKind``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..registry import Registry

__all__ = ["PlotKind", "PLOTS"]


@dataclass(frozen=True)
class PlotKind:
    """What a plot draws: candidate metric columns, x column, labels."""

    name: str
    title: str
    metrics: tuple[str, ...]
    ylabel: str
    x: tuple[str, ...] = ("load",)
    xlabel: str = "offered load λ (flits per node per cycle)"
    identity: bool = False  # draw y = x (accepted = offered)
    logy: bool = False
    logx: bool = False


PLOTS: Registry[PlotKind] = Registry("plot")


def _add(kind: PlotKind) -> None:
    PLOTS.add(kind.name, kind)


_add(
    PlotKind(
        "latency",
        "average packet latency",
        ("latency_avg", "avg_latency", "latency_mean", "latency"),
        "average packet latency (cycles)",
    )
)
_add(
    PlotKind(
        "throughput",
        "accepted throughput",
        ("accepted_flits", "accepted_throughput", "throughput"),
        "accepted load (flits per node per cycle)",
        identity=True,
    )
)
_add(
    PlotKind(
        "conflicts",
        "average output-port conflicts",
        ("port_conflicts_per_cycle", "avg_conflicts", "conflicts"),
        "average output-port conflicts per cycle",
    )
)
_add(
    PlotKind(
        "received",
        "ratio of packets received to packets sent",
        ("received_ratio", "receive_ratio", "ratio_received"),
        "packets received / packets sent",
    )
)
_add(
    PlotKind(
        "received_per_cycle",
        "average packets received per cycle",
        ("received_per_cycle", "packets_received_per_cycle"),
        "packets received per cycle",
    )
)
_add(
    PlotKind(
        "fault_success",
        "successful routing ratio",
        ("success_ratio", "successful_ratio", "success"),
        "successful routing ratio",
        x=("rate", "fault_rate"),
        xlabel="link fault rate",
    )
)
_add(
    PlotKind(
        "fault_path_length",
        "average path length of successful routes",
        ("path_length_avg", "avg_path_length", "path_length"),
        "average path length (hops)",
        x=("rate", "fault_rate"),
        xlabel="link fault rate",
    )
)
_add(
    PlotKind(
        "completion",
        "completion time against size",
        ("time_s",),
        "completion time (s)",
        x=("size_bytes",),
        xlabel="size (bytes, as nccl-tests counts it)",
        logy=True,
        logx=True,
    )
)
