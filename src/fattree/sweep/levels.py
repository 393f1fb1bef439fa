"""Simulation levels of a workload study: the registry ``LEVELS`` (``--level``).

A level runs one workload on one network and returns its metrics as a flat dict with
the same keys at every level (completion time, bandwidths, undelivered messages, the
bounding link), so that a study's results, plots and verdict do not depend on which
level produced them. The flow level (:mod:`fattree.sim.flow`) and the packet level
(:func:`fattree.sim.simulate_workload`, the papers' cycle-accurate model, closed loop) are
registered here, each by one :func:`register_level` call whose ``run(topology, workload,
params, seed)`` returns those keys (docs/sweeps.md, "Workload studies").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..registry import Registry

#: the metrics every level returns (more are allowed)
LEVEL_METRICS = (
    "time_s",
    "complete",
    "size_bytes",
    "ranks",
    "messages",
    "undelivered",
    "algbw_gbps",
    "busbw_gbps",
    "max_link_util",
    "bounding_link",
    "faulty_links",
)


@dataclass(frozen=True)
class Level:
    """A registered simulation level.

    ``run(topology, workload, params, seed) -> dict`` simulates workload spec
    ``workload`` on topology spec ``topology``; ``params`` holds ``link_rate``,
    ``flit_size``, ``hop_latency`` (strings with units), ``fault_rate`` and
    ``fault_algorithm`` (``None``: the family's default).
    """

    name: str
    title: str
    run: Callable[[str, str, dict, int], dict]


LEVELS: Registry[Level] = Registry("level")


def register_level(name: str, *, title: str):
    """Decorator registering ``run(topology, workload, params, seed) -> metrics`` as a level.

    Parameters
    ----------
    name : str
        The level's name (``flow``, ``packet``).
    title : str
        One line for listings.

    Returns
    -------
    callable
        The decorator; it returns ``run`` unchanged.

    Examples
    --------
    >>> "flow" in LEVELS
    True
    """

    def deco(run):
        LEVELS.add(name, Level(name, title, run))
        return run

    return deco


def check_level(value: str) -> str:
    """Validate a level name against the registry.

    Parameters
    ----------
    value : str
        A level name.

    Returns
    -------
    str
        The name.

    Raises
    ------
    ParameterError
        An unregistered level, naming the valid ones.

    Examples
    --------
    >>> check_level("flow")
    'flow'
    """
    from ..errors import ParameterError

    if value not in LEVELS:
        raise ParameterError(f"level={value!r} is invalid: valid levels: {', '.join(LEVELS)}")
    return value


@register_level("flow", title="messages as max-min fair flows over the routes (fattree.sim.flow)")
def _flow(topology: str, workload: str, params: dict, seed: int) -> dict:
    """The flow model's result row (docs/workloads.md), configuration echoes left out."""
    from ..sim.flow import flow
    from ..topology import build

    return _level_row(flow(build(topology), workload, seed=seed, **params))


def _level_row(res) -> dict:
    """A result's row with the configuration echoes left out (the point's own columns)."""
    row = res.to_row()
    for echo in ("topology", "family", "workload", "seed", "fault_rate", "version", "engine"):
        row.pop(echo, None)
    for key in [k for k in row if k.startswith("config.")]:
        row.pop(key)  # the simulator's whole configuration: the point's columns say it
    row.pop("collective")  # the point's own column; the algorithm named apart from routing's
    row["collective_algorithm"] = row.pop("algorithm")
    row["phases_slowest"] = (
        max(res.phases, key=lambda p: p["total_s"])["name"] if res.phases else ""
    )
    return row


@register_level("packet", title="closed loop in the papers' cycle-accurate simulator (fattree.sim)")
def _packet(topology: str, workload: str, params: dict, seed: int) -> dict:
    """The packet level's result row: the same keys as the flow level's. The per-hop
    latency is the simulator's own (one cycle per hop), so ``hop_latency`` does not apply."""
    from ..sim.workload import simulate_workload

    kw = {"seed": seed, "link_rate": params.get("link_rate", "400Gb/s")}
    kw["flit_size"] = params.get("flit_size", "256B")
    if params.get("fault_rate"):
        kw.update(fault_rate=float(params["fault_rate"]), fault_seed=seed)
        if params.get("fault_algorithm"):
            kw["algorithm"] = params["fault_algorithm"]
    return _level_row(simulate_workload(topology, workload, **kw))


__all__ = ["LEVELS", "LEVEL_METRICS", "Level", "check_level", "register_level"]
