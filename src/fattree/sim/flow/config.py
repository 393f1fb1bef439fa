"""Parameters of the flow-level model: :class:`FlowConfig`, validated by :func:`flow_config`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...traffic.workloads.units import parse_rate, parse_size, parse_time

ENGINES = ("auto", "phases", "operations")


@dataclass(frozen=True)
class FlowConfig:
    """Parameters of the flow model (validated by :func:`flow_config`).

    Attributes
    ----------
    link_rate : float
        Bytes per second of every channel (each direction of a link).
    flit_size : int
        Bytes of a flit: the head's serialisation per hop.
    hop_latency : float
        Seconds per channel crossed (router pipeline plus wire).
    algorithm : str or None
        Routing algorithm (``None``: the family's default).
    fault_rate : float
        Fraction of links failed at random (``faults.random_faults``, seeded by ``seed``).
    fault_algorithm : str or None
        Fault-tolerant routing that reroutes messages whose route crosses a failed link
        (``None``: the family's default).
    seed : int
        Seed of the rank placement and the fault set.
    engine : {"auto", "phases", "operations"}
        ``auto``: phases for a collective, operations for a schedule.
    workers : int
        Threads that route and run distinct phases at once (``0``: one per CPU the
        process may use). Results do not depend on it.
    """

    link_rate: float = 50e9
    flit_size: int = 256
    hop_latency: float = 100e-9
    algorithm: str | None = None
    fault_rate: float = 0.0
    fault_algorithm: str | None = None
    seed: int = 0
    engine: str = "auto"
    workers: int = 0


def flow_config(
    link_rate="400Gb/s",
    flit_size="256B",
    hop_latency="100ns",
    algorithm: str | None = None,
    fault_rate: float = 0.0,
    fault_algorithm: str | None = None,
    seed: int = 0,
    engine: str = "auto",
    workers: int = 0,
) -> FlowConfig:
    """Validate the flow model's parameters (units required) into a :class:`FlowConfig`.

    Parameters
    ----------
    link_rate : str or float
        ``"400Gb/s"``, ``"50GB/s"``; a number is bytes per second. Default 400 Gb/s, the
        port rate of current AI and HPC fabrics (NDR InfiniBand, 400G Ethernet).
    flit_size : str or int
        ``"256B"``; an integer is bytes. Default 256 B, as the packet model.
    hop_latency : str or float
        ``"100ns"``; a number is seconds. Default 100 ns: the order of a cut-through
        switch's port-to-port latency plus a few metres of cable.
    algorithm : str, optional
        Routing algorithm.
    fault_rate : float
        Fraction of failed links, ``0 <= fault_rate < 1``.
    fault_algorithm : str, optional
        Fault-tolerant routing under faults.
    seed : int
        Seed of placement and faults, ``0 <= seed < 2**63``.
    engine : {"auto", "phases", "operations"}
        Which engine runs the workload.
    workers : int
        Threads for distinct phases (``0``: one per available CPU).

    Returns
    -------
    FlowConfig

    Raises
    ------
    ParameterError
        A value without a unit, with a wrong unit or out of range.

    Examples
    --------
    >>> c = flow_config(link_rate="100Gb/s", hop_latency="1us")
    >>> c.link_rate, c.hop_latency
    (12500000000.0, 1e-06)
    """
    rate = (
        parse_rate(link_rate, "link_rate")
        if isinstance(link_rate, str)
        else _pos(link_rate, "link_rate")
    )
    if isinstance(flit_size, str):
        flit = parse_size(flit_size, "flit_size")
    elif isinstance(flit_size, (int, np.integer)) and not isinstance(flit_size, bool):
        flit = int(flit_size)
    else:
        raise ParameterError(f"flit_size={flit_size!r} is invalid: expected bytes such as '256B'")
    if flit < 1:
        raise ParameterError(f"flit_size={flit_size!r} is invalid: at least 1 byte")
    lat = (
        parse_time(hop_latency, "hop_latency")
        if isinstance(hop_latency, str)
        else _nonneg(hop_latency, "hop_latency")
    )
    fr = _nonneg(fault_rate, "fault_rate")
    if fr >= 1:
        raise ParameterError(f"fault_rate={fault_rate!r} is invalid: expected 0 <= fault_rate < 1")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ParameterError(f"seed={seed!r} is invalid: expected an integer 0 <= seed < 2**63")
    if engine not in ENGINES:
        raise ParameterError(f"engine={engine!r} is invalid: valid: {', '.join(ENGINES)}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 0:
        raise ParameterError(f"workers={workers!r} is invalid: expected an integer >= 0")
    return FlowConfig(
        rate, flit, lat, algorithm, fr, fault_algorithm, int(seed), engine, int(workers)
    )


def _pos(v, name) -> float:
    x = _nonneg(v, name)
    if x <= 0:
        raise ParameterError(f"{name}={v!r} is invalid: expected a positive number")
    return x


def _nonneg(v, name) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ParameterError(f"{name}={v!r} is invalid: expected a number")
    x = float(v)
    if not np.isfinite(x) or x < 0:
        raise ParameterError(f"{name}={v!r} is invalid: expected a finite number >= 0")
    return x


__all__ = ["ENGINES", "FlowConfig", "flow_config"]
