"""Every parameter of a simulation, validated before anything is built.

Defaults follow 000 §V.B where the papers say something (2-packet FIFOs, random
output arbitration, one cycle per hop, 200 packets per source) and
docs/simulator.md justifies the rest.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any

from ..errors import ParameterError, UnknownNameError, closest
from ..faults.algorithms import MODELS as FAULT_MODELS
from ..traffic.injection import check_load
from .models import check_model

ARBITRATIONS = ("random", "roundrobin")
SIM_TYPES = ("latency", "throughput")  # the booksim model's sampling (BookSim2's sim_type)
TERMINATIONS = ("papers", "window")


def _f(
    default,
    help: str,
    *,
    flags: tuple[str, ...] | None = None,
    cli: bool = True,
    cli_default: Any = MISSING,
    rng: tuple[int, int] | None = None,
    choices: tuple[str, ...] | None = None,
):
    """A SimConfig field with its metadata: ``help`` (the CLI's help text), ``flags`` (the
    CLI's option names; default ``--field-name``), ``cli`` (False: not a CLI option),
    ``cli_default`` (when the CLI's default differs), ``range`` (an integer's inclusive
    bounds, checked on construction) and ``choices`` (the valid strings)."""
    meta: dict[str, Any] = {"help": help, "cli": cli}
    if flags is not None:
        meta["flags"] = flags
    if cli_default is not MISSING:
        meta["cli_default"] = cli_default
    if rng is not None:
        meta["range"] = rng
    if choices is not None:
        meta["choices"] = tuple(choices)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class SimConfig:
    """Parameters of one simulation (one offered load).

    Attributes
    ----------
    load : float
        Offered load, flits per node per cycle, ``0 < load <= 1`` (ignored by traces).
    traffic : str
        Pattern spec (``uniform``, ``bitcomp``, ``hotspot:node=3``, ``trace:file=t.txt``...).
    injection : str or None
        ``bernoulli`` (default), ``exact`` (000's N·λ senders per cycle), ``bursty``.
    algorithm : str or None
        Routing algorithm; None: the family's default (``dmodk`` for kant/clos, ``balanced``
        for mikant; reproductions name ``alg1``).
    packet_flits : int
        Flits per packet (default 1: 000's 32-bit flit holds the address and λ = 1
        means every node sends a packet every cycle).
    buffer, buffer_level0 : int
        FIFO depth in flits per (input port, VC); ``buffer_level0`` for the input
        ports of level-0 switches (001/004's "double buffer"), None = ``buffer``.
    vcs : int
        Virtual channels per port.
    router_delay, credit_delay : int
        Extra cycles a flit waits in a switch before it may leave, and extra cycles
        before a freed slot is visible upstream (0, 0: the papers' model).
    arbitration : str
        Output (and VC) arbitration: ``random`` (000) or ``roundrobin``.
    termination : str
        ``papers`` (each source delivered its first ``packets_per_source`` packets)
        or ``window`` (``warmup`` + ``measure`` cycles, then drain).
    max_cycles : int or None
        Hard cap; None: ``max(100000, 4 * P * F / load)``.
    deadlock_window : int
        Cycles without any flit crossing a switch, with flits in the network, that
        declare a deadlock.
    saturation_ratio : float
        Accepted below this share of offered (or the cap reached): saturated.
    seed : int
        Seed of every random decision.
    fault_rate : float or None
        Share of links failed at random (``random_faults``, node links included), in
        [0, 1]; None with ``faults`` None: the fault-free simulator (``algorithm`` is
        then a routing algorithm). With faults, ``algorithm`` names a fault-tolerant
        algorithm of ``fattree.faults`` (docs/simulator.md, "Faults").
    faults : str or None
        A fault file (one link per line, ``read_fault_file``); alone, or added to the
        random faults of ``fault_rate``.
    fault_seed : int
        Seed of the random fault set.
    fault_pool : {"all", "switch-only"}
        Links ``fault_rate`` draws from: every link (default), or switch-to-switch links
        only (a failed node link cuts its node off in every design alike), as the
        ``faults`` command's ``--fault-pool``.
    fault_model : {"local", "lookahead"}
        Knowledge model of the fault-tolerant routing (docs/mikant-routing.md §3.0):
        ``local`` (a switch sees its own links; the papers') or ``lookahead`` (the
        switch that starts a detour sees every link of it; mikant only).
    model : str
        ``papers`` (default: the model above) or ``booksim`` (BookSim2's input-queued
        router, credit loops, iSLIP allocation and sampling; docs/booksim.md).
    speculative, routing_delay, sim_type : optional
        booksim model only (None: its defaults True, 0, ``latency``): speculative VC and
        switch allocation, routing cycles per router, ``latency`` or ``throughput``
        sampling (BookSim2's ``sim_type``).
    """

    load: float | None = _f(
        0.1, "offered load, flits/node/cycle in (0, 1]", flags=("--load", "-l"), cli_default=None
    )
    traffic: str = _f("uniform", "pattern", flags=("--traffic", "-t"))
    injection: str | None = _f(None, "injection process")
    algorithm: str | None = _f(
        None,
        "routing algorithm (default: the family's: dmodk on "
        "kant/clos/xgft, balanced on mikant; alg1 = the papers')",
        flags=("--algorithm", "-a"),
    )
    packet_flits: int = _f(1, "flits per packet", rng=(1, 4096))
    buffer: int = _f(2, "FIFO depth in flits per input port and VC", rng=(1, 32767))
    buffer_level0: int | None = _f(
        None, "FIFO depth at level-0 switches (001/004 'double buffer')", rng=(1, 32767)
    )
    vcs: int = _f(1, "virtual channels per port", rng=(1, 64))
    router_delay: int = _f(0, "extra cycles per switch", rng=(0, 1000))
    credit_delay: int = _f(0, "extra cycles of the credit return", rng=(0, 1000))
    arbitration: str = _f("random", "output arbitration", choices=ARBITRATIONS)
    termination: str = _f("papers", "papers (P packets per source) or window", choices=TERMINATIONS)
    packets_per_source: int = _f(
        200,
        "the papers' P: first P packets of each source",
        flags=("--packets-per-source", "-P"),
        rng=(1, 10**9),
    )
    warmup: int = _f(1000, "warm-up cycles (window termination)", rng=(0, 10**9))
    measure: int = _f(10000, "measured cycles (window termination)", rng=(1, 10**9))
    max_cycles: int | None = _f(None, "hard cap on simulated cycles", rng=(1, 2**31 - 16))
    deadlock_window: int = _f(
        2000, "cycles without a move that declare a deadlock", rng=(1, 10**9), cli=False
    )
    saturation_ratio: float = _f(
        0.95, "accepted share of offered below which a run is saturated", cli=False
    )
    seed: int = _f(0, "seed of every random decision", rng=(0, 2**63 - 1))
    fault_rate: float | None = _f(
        None,
        "share of links failed at random, in [0, 1]; "
        "--algorithm then names a fault-tolerant algorithm "
        "(default: the family's, see faults SPEC --list)",
    )
    faults: str | None = _f(None, "fault file: one failed link per line")
    fault_seed: int = _f(0, "seed of the random fault set", rng=(0, 2**63 - 1))
    fault_pool: str = _f(
        "all",
        "links that --fault-rate may fail: all (node links included) or switch-only "
        "(as faults --fault-pool)",
        choices=("all", "switch-only"),
    )
    fault_model: str = _f(
        "local",
        "knowledge of the fault-tolerant routing: local (a switch "
        "sees its own links; the papers') or lookahead (a switch "
        "also sees its neighbours' links)",
        choices=FAULT_MODELS,
    )
    model: str = _f(
        "papers",
        "simulation model: papers (the papers' wormhole model) or booksim "
        "(BookSim2's router and sampling, docs/booksim.md)",
    )
    speculative: bool | None = _f(
        None,
        "booksim model: speculative VC and switch allocation (default: on)",
        flags=("--speculative/--no-speculative",),
    )
    routing_delay: int | None = _f(
        None,
        "booksim model: routing cycles per router (default 0: "
        "lookahead routing; BookSim2's own default is 1)",
        rng=(0, 1000),
    )
    sim_type: str | None = _f(
        None,
        "booksim model: latency (sample until latency converges, "
        "then drain; default) or throughput (BookSim2's saturation "
        "runs)",
    )

    def __post_init__(self) -> None:
        fr = self.fault_rate
        if fr is not None and (
            isinstance(fr, bool)
            or not isinstance(fr, (int, float))
            or not math.isfinite(fr)
            or not 0 <= fr <= 1
        ):
            raise ParameterError(f"fault_rate={fr!r} is invalid: a share of links in [0, 1]")
        if self.faults is not None and not isinstance(self.faults, str):
            raise ParameterError(f"faults={self.faults!r} is invalid: expected a file path")
        for f in fields(self):  # ranges and choices from the field metadata
            if "range" in f.metadata and getattr(self, f.name) is not None:
                _int(self, f.name, *f.metadata["range"])
            elif "choices" in f.metadata:
                _choice(self, f.name, f.metadata["choices"])
        r = self.saturation_ratio
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not 0 < r <= 1:
            raise ParameterError(f"saturation_ratio={r!r} is invalid: expected 0 < ratio <= 1")
        if self.load is not None:
            check_load(self.load)  # the offered load's one range check (traffic/injection.py)
        if not isinstance(self.traffic, str):
            raise ParameterError(f"traffic={self.traffic!r} is invalid: expected a pattern name")
        if self.speculative is not None and not isinstance(self.speculative, bool):
            raise ParameterError(
                f"speculative={self.speculative!r} is invalid: expected True or False"
            )
        if self.sim_type is not None and self.sim_type not in SIM_TYPES:
            _choice(self, "sim_type", SIM_TYPES)
        check_model(self)  # unknown model, options that contradict it (sim/models.py)

    @property
    def cycle_cap(self) -> int:
        """The max-cycles cap actually used."""
        if self.max_cycles is not None:
            return self.max_cycles
        load = self.load or 1.0
        if self.termination == "window":
            base = self.warmup + self.measure
            return int(min(CYCLE_MAX, max(100_000, 4 * base)))
        need = 4 * self.packets_per_source * self.packet_flits / load
        return int(min(CYCLE_MAX, max(100_000, need)))

    def for_trace(self, last_cycle: int) -> SimConfig:
        """The configuration for a trace whose last packet is created at ``last_cycle``:
        without ``max_cycles``, the cap leaves :data:`TRACE_DRAIN` cycles after it (the
        default cap, 100,000 cycles, would drop a longer trace's later packets and label
        the run saturated).

        Parameters
        ----------
        last_cycle : int
            Creation cycle of the trace's last packet.

        Returns
        -------
        SimConfig
            ``self``, or a copy with ``max_cycles`` set.

        Examples
        --------
        >>> SimConfig(traffic="uniform").for_trace(250_000).cycle_cap
        350000
        """
        if self.max_cycles is not None or self.cycle_cap >= last_cycle + TRACE_DRAIN:
            return self
        return replace(self, max_cycles=int(min(CYCLE_MAX, last_cycle + TRACE_DRAIN)))

    @property
    def faulted(self) -> bool:
        """Faults are simulated (a rate or a fault file was given, even 0 faults)."""
        return self.fault_rate is not None or self.faults is not None

    def with_load(self, load: float) -> SimConfig:
        return replace(self, load=load)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def flow_control(self) -> str:
        """One line stating the flow-control model (printed by the CLI)."""
        if self.model == "booksim":
            return self.booksim_line()
        b0 = (
            ""
            if self.buffer_level0 in (None, self.buffer)
            else f" ({self.buffer_level0} at level 0)"
        )
        rtt = 2 + self.router_delay + self.credit_delay
        papers = self.router_delay == 0 and self.credit_delay == 0
        return (
            f"wormhole, {self.vcs} VC{'s' if self.vcs > 1 else ''}, {self.buffer}-flit FIFOs"
            f"{b0} per input port and VC, {self.packet_flits}-flit packets, "
            + (
                "one-hop 'FIFO ready' flow control (000 §V.B), one cycle per hop"
                if papers
                else f"credit flow control: router delay {self.router_delay}, credit delay "
                f"{self.credit_delay}, credit round trip {rtt} cycles"
            )
            + f", {self.arbitration} arbitration"
        )

    def booksim_line(self) -> str:
        """The booksim model's settings in one line (docs/booksim.md)."""
        spec = True if self.speculative is None else self.speculative
        rd = self.routing_delay or 0
        per = rd + (1 if spec else 2) + 2
        return (
            f"booksim (BookSim2 28f4329 iq router): {self.vcs} VC{'s' if self.vcs > 1 else ''}, "
            f"{self.buffer}-flit buffers per VC, {self.packet_flits}-flit packets, "
            f"{'speculative' if spec else 'non-speculative'} VC/switch allocation (iSLIP, 1 "
            f"iteration), routing delay {rd}, credit delay {self.credit_delay}: {per} cycles "
            f"per router, credit-controlled injection and ejection; sampling "
            f"{self.sim_type or 'latency'} (3 warm-up periods of 1000 cycles)"
        )


#: the largest cycle cap (the kernel's cycle counters)
CYCLE_MAX = 2**31 - 16
#: cycles a trace's last packet is given to be delivered before the cap
TRACE_DRAIN = 100_000


def _int(cfg, name, lo, hi):
    v = getattr(cfg, name)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ParameterError(f"{name}={v!r} is invalid: expected an integer {lo} <= {name} <= {hi}")


def _choice(cfg, name, valid):
    v = getattr(cfg, name)
    if v not in valid:
        raise UnknownNameError(
            f"unknown {name} {v!r}{closest(str(v), valid)}; valid: {', '.join(valid)}"
        )


def merge_config(config: SimConfig | None, kw: dict[str, Any]) -> SimConfig:
    """``config`` with the keyword parameters ``kw`` applied (a new :class:`SimConfig`).

    Parameters
    ----------
    config : SimConfig or None
        The base configuration (None: the defaults).
    kw : dict
        Field names and values that override it.

    Returns
    -------
    SimConfig
        The merged, validated configuration.

    Raises
    ------
    ParameterError
        If ``config`` is not a SimConfig, a name is not a field, or a value is invalid.

    Examples
    --------
    >>> merge_config(None, {"load": 0.3}).load
    0.3
    """
    if config is not None and not isinstance(config, SimConfig):
        raise ParameterError(f"config={config!r} is invalid: expected a SimConfig")
    names = list(SimConfig.__dataclass_fields__)
    for name in kw:
        if name not in names:
            raise ParameterError(
                f"{name}={kw[name]!r} is invalid: no simulation parameter {name!r}"
                f"{closest(name, names)}; valid parameters: {', '.join(names)}"
            )
    try:
        return replace(config, **kw) if config is not None else SimConfig(**kw)
    except TypeError as exc:
        raise ParameterError(f"{exc}; valid parameters: {', '.join(names)}") from None


def parse_loads(text: str) -> list[float]:
    """``"a:b:step"`` -> the loads a, a+step, ..., b (inclusive), each in (0, 1]: the
    ``--loads`` of ``fattree simulate`` and the ``loads`` string of
    :func:`fattree.simulate_loads`.

    Parameters
    ----------
    text : str
        ``START:STOP:STEP``.

    Returns
    -------
    list of float
        At most 10,000 loads.

    Raises
    ------
    ParameterError
        Not three numbers, ``STEP <= 0``, ``STOP < START``, a load outside (0, 1], or more
        than 10,000 loads.

    Examples
    --------
    >>> parse_loads("0.05:0.2:0.05")
    [0.05, 0.1, 0.15, 0.2]
    """
    parts = text.split(":")
    try:
        if len(parts) != 3:
            raise ValueError
        a, b, step = (float(x) for x in parts)
        if not all(math.isfinite(x) for x in (a, b, step)) or step <= 0 or b < a:
            raise ValueError
    except ValueError:
        raise ParameterError(
            f"loads={text!r} is invalid: expected START:STOP:STEP with "
            f"0 < START <= STOP <= 1 and STEP > 0, e.g. 0.05:1.0:0.05"
        ) from None
    n = int(math.floor((b - a) / step + 1e-9)) + 1
    if n > 10_000:
        raise ParameterError(f"loads={text!r} is invalid: {n} loads; at most 10000")
    loads = [round(a + i * step, 10) for i in range(n)]
    for x in loads:
        try:
            check_load(x)
        except ParameterError:
            raise ParameterError(f"loads={text!r} is invalid: load {x} is outside (0, 1]") from None
    return loads


__all__ = ["ARBITRATIONS", "TERMINATIONS", "SimConfig", "merge_config", "parse_loads"]
