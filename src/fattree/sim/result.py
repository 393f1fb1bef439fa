"""The result of one simulation and its metrics (definitions in docs/simulator.md)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

# per-cycle series and other bulky fields left out of to_dict()
_BULKY = ("series",)


@dataclass
class SimResult:
    """Metrics of one run at one offered load.

    Latencies are in cycles and count the creation cycle: a packet created in cycle
    ``c`` whose tail reaches its node in cycle ``d`` has latency ``d - c + 1``
    (network latency: from the cycle its head left the source). Throughputs are per
    *active* source (nodes that send) per cycle. See docs/simulator.md.
    """

    config: dict[str, Any]
    topology: str
    algorithm: str
    traffic: str
    injection: str
    flow_control: str
    n_nodes: int
    n_sources: int
    offered_load: float
    cycles: int
    created: int
    injected: int
    delivered: int
    measured: int
    avg_latency: float
    p99_latency: float
    max_latency: float
    avg_network_latency: float
    p99_network_latency: float
    max_network_latency: float
    avg_hops: float
    offered_throughput: float
    offered_flits: float
    accepted_throughput: float
    accepted_flits: float
    received_ratio: float
    received_per_cycle: float
    port_conflicts_per_cycle: float
    link_utilisation: dict[str, float]
    avg_source_queue: float
    max_source_queue: int
    final_source_queue: float
    flit_hops: int
    saturated: bool
    saturation_reason: str
    deadlock: bool
    deadlock_cycle: list[str]
    termination: str
    conservation: bool
    channel_load_bound: float | None
    wall_seconds: float
    compile_seconds: float
    series: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((0, 2), np.int32))
    # faults (docs/simulator.md, "Faults"): None / 0 in a fault-free run
    fault_rate: float | None = None
    faulty_links: int = 0
    fault_seed: int | None = None
    ft_algorithm: str | None = None
    unroutable: int = 0  # packets the fault-tolerant walk cannot route: never injected
    livelock: int = 0  # packets whose walk hits its hop limit: never injected

    def to_dict(self) -> dict[str, Any]:
        """Every metric as plain JSON-able values (NaN for "no measured packet")."""
        d = {k: v for k, v in asdict(self).items() if k not in _BULKY}
        return {k: _plain(v) for k, v in d.items()}

    def summary(self) -> str:
        """One line for humans: latency or "saturated", throughput, hops."""
        if self.deadlock:
            return f"load {self.offered_load:.3f}: DEADLOCK after {self.cycles} cycles"
        lat = (
            f"saturated ({self.saturation_reason})"
            if self.saturated
            else f"latency {self.avg_latency:.2f} (p99 {self.p99_latency:.0f})"
        )
        return (
            f"load {self.offered_load:.3f}: {lat}, accepted {self.accepted_flits:.3f} "
            f"flits/node/cycle, hops {self.avg_hops:.2f}, {self.cycles} cycles"
        )


def _plain(v):
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def percentile(hist: np.ndarray, q: float) -> float:
    """Nearest-rank percentile of a histogram of integer values (NaN if empty).

    Parameters
    ----------
    hist : numpy.ndarray
        ``hist[v]``: how many times value ``v`` occurred.
    q : float
        The fraction, in (0, 1] (0.99: the 99th percentile).

    Returns
    -------
    float
        The smallest value with at least a fraction ``q`` of the counts at or below it.

    Examples
    --------
    >>> percentile(np.array([0, 2, 0, 1]), 0.5), percentile(np.array([0, 2, 0, 1]), 0.99)
    (1.0, 3.0)
    """
    n = int(hist.sum())
    if n == 0:
        return math.nan
    rank = max(1, math.ceil(q * n))
    return float(np.searchsorted(np.cumsum(hist), rank))


def saturation_load(curve) -> float | None:
    """The offered load where a latency-versus-load curve saturates: the lowest offered load
    whose run is flagged ``saturated`` (a deadlocked run is not a saturation), as the
    ``simulate`` command's "saturated from load" line.

    Parameters
    ----------
    curve : pandas.DataFrame or iterable of SimResult
        One row per load, e.g. what :func:`fattree.simulate_loads` returns (columns
        ``offered_load`` and ``saturated``; ``deadlock`` if present), in any order.

    Returns
    -------
    float or None
        The offered load (flits per node per cycle; the ``offered_load`` of that row),
        or None when no load saturates.

    Raises
    ------
    ParameterError
        ``curve`` is neither, or lacks the columns.

    Examples
    --------
    >>> import pandas as pd
    >>> saturation_load(pd.DataFrame({"offered_load": [0.3, 0.1, 0.2],
    ...                               "saturated": [True, False, True]}))
    0.2
    >>> saturation_load([]) is None
    True

    References
    ----------
    docs/simulator.md ("Saturation").
    """
    from ..errors import ParameterError

    if hasattr(curve, "columns"):
        if not {"offered_load", "saturated"} <= set(curve.columns):
            raise ParameterError(
                "curve is invalid: expected the columns offered_load and saturated "
                "(a DataFrame from simulate_loads)"
            )
        dead = curve["deadlock"] if "deadlock" in curve.columns else [False] * len(curve)
        rows = zip(curve["offered_load"], curve["saturated"], dead, strict=True)
    elif hasattr(curve, "__iter__") and not isinstance(curve, (str, bytes)):
        rows = []
        for r in curve:
            if not isinstance(r, SimResult):
                raise ParameterError(
                    f"curve is invalid: {type(r).__name__} is not a SimResult; give a "
                    "DataFrame from simulate_loads or a list of SimResult"
                )
            rows.append((r.offered_load, r.saturated, r.deadlock))
    else:
        raise ParameterError(
            f"curve={curve!r} is invalid: expected a DataFrame from simulate_loads or a "
            "list of SimResult"
        )
    flagged = [float(x) for x, sat, dl in rows if bool(sat) and not bool(dl)]
    return min(flagged) if flagged else None


__all__ = ["SimResult", "percentile", "saturation_load"]
