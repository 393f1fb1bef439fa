"""Injection processes (when packets are created), usable inside numba.

``load`` is the offered load in **flits** per node per cycle (1.0 = every active
node keeps its link busy), so a node creates a packet of ``F`` flits with
probability ``load / F`` per cycle. With the papers' 1-flit packets this is their
"N·λ nodes send a packet on every cycle" (000 §V.B). Every decision hashes
``(seed, cycle, node)`` (:mod:`fattree.traffic.rng`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..compiling import nrt_free
from ..errors import ParameterError
from ..registry import Registry
from ._options import Opt, split_spec, validate_options
from .patterns import Traffic
from .rng import (
    S_BURST,
    S_BURST_INIT,
    S_BURST_SEND,
    S_CREATE,
    S_EXACT_M,
    S_EXACT_PICK,
    bernoulli,
    hash_prefix,
    hash_tail,
    randint,
    threshold,
)

I_BERNOULLI = 0
I_EXACT = 1
I_BURSTY = 2
I_TRACE = 3


@dataclass(frozen=True)
class Injection:
    """A registered process; ``prepare(traffic, load, flits, seed, opts)`` binds it."""

    name: str
    title: str
    paper: str
    options: tuple[Opt, ...]
    prepare: Callable[..., Process]
    internal: bool = False


INJECTIONS: Registry[Injection] = Registry("injection process")


def register_injection(name: str, *, title: str, paper: str = "", options=(), internal=False):
    """Decorator registering ``prepare(...)`` as an injection process.

    Parameters
    ----------
    name : str
        The process's name (``--injection NAME``).
    title : str
        One line for listings.
    paper : str
        Paper and section it comes from.
    options : sequence of Opt
        Its options (``NAME:key=value``).
    internal : bool
        Chosen by the library (e.g. ``trace``), left out of help lists.

    Returns
    -------
    callable
        The decorator; it returns ``prepare`` unchanged.
    """

    def deco(fn):
        INJECTIONS.add(
            name,
            Injection(
                name=name,
                title=title,
                paper=paper,
                options=tuple(options),
                prepare=fn,
                internal=internal,
            ),
        )
        return fn

    return deco


@dataclass(frozen=True, eq=False)
class Process:
    """An injection process bound to a traffic and a load (what the kernel needs).

    ``state`` is mutable per-run state (copy it before each run); ``max_per_cycle``
    is the most packets one node can create in one cycle; ``offered`` the offered
    load in flits per active node per cycle.
    """

    name: str
    options: dict
    code: int
    iparams: np.ndarray
    table: np.ndarray
    state: np.ndarray
    offered: float
    max_per_cycle: int = 1
    max_creators: int = 0

    @property
    def spec(self) -> str:
        return self.name + (
            "" if not self.options else ":" + ",".join(f"{k}={v}" for k, v in self.options.items())
        )


def make_process(
    spec: str | None, traffic: Traffic, load: float | None, packet_flits: int, seed: int = 0
) -> Process:
    """Bind an injection process to a traffic, a load and a packet length.

    ``spec`` None picks ``bernoulli`` (``trace`` for a trace pattern, whose file
    gives the creation times; ``load`` is then ignored).

    Parameters
    ----------
    spec : str or None
        ``"NAME"`` or ``"NAME:key=value,..."`` (:data:`INJECTIONS`).
    traffic : Traffic
        The bound pattern (:func:`fattree.traffic.make_traffic`).
    load : float or None
        Offered load, flits per node per cycle, in (0, 1].
    packet_flits : int
        Flits per packet.
    seed : int
        Seed of every random decision of the process.

    Returns
    -------
    Process
        What the kernel's :func:`create_cycle` needs.

    Raises
    ------
    UnknownNameError
        If the process is not registered.
    ParameterError
        If an option or the load is invalid.

    Examples
    --------
    >>> from fattree.traffic import make_traffic
    >>> p = make_process("exact", make_traffic("uniform", 16), 0.25, 1)
    >>> out = np.zeros(16, np.int64); ids = np.arange(16)
    >>> int(create_cycle(p.code, p.iparams, p.table, p.state.copy(), ids, 0, 7, out))
    4

    References
    ----------
    000 §V.B ("on every clock cycle N·λ compute nodes send packets").
    """
    if spec is None:
        spec = "trace" if traffic.timed else "bernoulli"
    name, raw = split_spec(spec, "injection")
    inj = INJECTIONS.get(name)
    if traffic.timed != (name == "trace"):
        raise ParameterError(
            f"injection={spec!r} is invalid with traffic {traffic.name!r}: a trace file gives its "
            f"own creation times (injection 'trace'), every other pattern needs bernoulli, "
            f"exact or bursty"
        )
    opts = validate_options(f"injection {name!r}", inj.options, raw)
    if not traffic.timed:
        check_load(load)
    return inj.prepare(
        traffic, None if load is None else float(load), int(packet_flits), int(seed), opts
    )


def check_load(load) -> None:
    """Check an offered load.

    Parameters
    ----------
    load : float
        Flits per node per cycle.

    Raises
    ------
    ParameterError
        If ``load`` is not a finite number in (0, 1].
    """
    if (
        isinstance(load, bool)
        or not isinstance(load, (int, float, np.floating, np.integer))
        or not math.isfinite(float(load))
        or not 0.0 < float(load) <= 1.0
    ):
        raise ParameterError(
            f"load={load!r} is invalid: the offered load is flits per node per cycle, 0 < load <= 1"
        )


@njit(**nrt_free())
def create_cycle(code, iparams, table, state, active_ids, t, seed, out):
    """Write the nodes creating a packet in cycle ``t`` into ``out``; return the count."""
    c = 0
    if code == I_BERNOULLI:
        thr = iparams[0]
        pre = hash_prefix(seed, S_CREATE, t)  # = bernoulli(seed, S_CREATE, t, i, thr)
        for j in range(active_ids.shape[0]):
            i = active_ids[j]
            if np.int64(hash_tail(pre, i) >> np.uint64(2)) < thr:
                out[c] = i
                c += 1
    elif code == I_EXACT:
        na = active_ids.shape[0]
        m = iparams[0]
        if bernoulli(seed, S_EXACT_M, t, 0, iparams[1]):
            m += 1
        m = min(m, na)
        for j in range(na - m, na):  # Floyd's sampling of m distinct indices
            r = randint(seed, S_EXACT_PICK, t, j, j + 1)
            if state[r] == t:
                r = j
            state[r] = t
            out[c] = active_ids[r]
            c += 1
    elif code == I_BURSTY:
        pre = hash_prefix(seed, S_BURST, t)
        pre_send = hash_prefix(seed, S_BURST_SEND, t)
        for j in range(active_ids.shape[0]):
            i = active_ids[j]
            u = np.int64(hash_tail(pre, i) >> np.uint64(2))  # bernoulli(seed, S_BURST, t, i, .)
            if state[i] == 1:
                if u < iparams[0]:
                    state[i] = 0
            elif u < iparams[1]:
                state[i] = 1
            if state[i] == 1 and np.int64(hash_tail(pre_send, i) >> np.uint64(2)) < iparams[2]:
                out[c] = i
                c += 1
    elif code == I_TRACE:
        m = table[0]
        p = state[0]
        while p < m and table[1 + p] <= t:
            out[c] = table[1 + m + p]
            c += 1
            p += 1
        state[0] = p
    return c


def _ip(*values) -> np.ndarray:
    a = np.asarray(values, np.int64)
    a.flags.writeable = False
    return a


_NO_TABLE = np.zeros(1, np.int64)


@register_injection(
    "bernoulli",
    title="Bernoulli: each node creates a packet with probability load/F per cycle",
    paper="BookSim2 'bernoulli'",
)
def _bernoulli(traffic, load, flits, seed, o):
    na = int(traffic.active.sum())
    return Process(
        "bernoulli",
        o,
        I_BERNOULLI,
        _ip(threshold(load / flits)),
        _NO_TABLE,
        np.zeros(1, np.int64),
        load,
        1,
        na,
    )


@register_injection(
    "exact",
    title="exactly N·load/F senders per cycle, drawn at random "
    "(fractional part by a Bernoulli draw)",
    paper="000 §V.B",
)
def _exact(traffic, load, flits, seed, o):
    na = int(traffic.active.sum())
    mean = na * load / flits
    whole = math.floor(mean)
    return Process(
        "exact",
        o,
        I_EXACT,
        _ip(whole, threshold(mean - whole)),
        _NO_TABLE,
        np.full(na, -1, np.int64),
        load,
        1,
        na,
    )


@register_injection(
    "bursty",
    title="on/off bursts: sends back to back while on, on for "
    "'burst' cycles on average, on a fraction 'load' of the time",
    paper="BookSim2 'onoff'",
    options=[Opt("burst", "mean length of an on period (cycles)", 32.0, float, minimum=1.0)],
)
def _bursty(traffic, load, flits, seed, o):
    n = traffic.n_nodes
    pi = load  # on fraction: while on, a packet of F flits starts with probability 1/F
    alpha = 1.0 / o["burst"]  # on -> off
    beta = alpha * pi / (1.0 - pi) if pi < 1.0 else 1.0  # off -> on
    if beta > 1.0:  # very high load: keep the on fraction, shorten the bursts
        beta, alpha = 1.0, (1.0 - pi) / pi
    thr_pi = threshold(pi)
    state = _init_states(seed, n, thr_pi)
    return Process(
        "bursty",
        o,
        I_BURSTY,
        _ip(threshold(alpha), threshold(beta), threshold(1.0 / flits)),
        _NO_TABLE,
        state,
        load,
        1,
        int(traffic.active.sum()),
    )


@njit(cache=True)
def _init_states(seed, n, thr):
    s = np.zeros(n, np.int64)
    for i in range(n):
        if bernoulli(seed, S_BURST_INIT, i, 0, thr):
            s[i] = 1
    return s


@register_injection("trace", title="creation times from the trace file", internal=True)
def _trace(traffic, load, flits, seed, o):
    cycle, src, _dst = traffic.trace
    order = np.lexsort((np.arange(len(cycle)), cycle))
    m = len(cycle)
    table = np.concatenate([[m], cycle[order], src[order]]).astype(np.int64)
    pairs = cycle * traffic.n_nodes + src
    per_node = int(np.unique(pairs, return_counts=True)[1].max())
    per_cycle = int(np.unique(cycle, return_counts=True)[1].max())  # no array of size max(cycle)
    span = int(cycle.max()) + 1
    offered = m * flits / (int(traffic.active.sum()) * span)
    return Process(
        "trace", o, I_TRACE, _ip(0), table, np.zeros(1, np.int64), offered, per_node, per_cycle
    )


__all__ = [
    "I_BERNOULLI",
    "I_EXACT",
    "I_BURSTY",
    "I_TRACE",
    "Injection",
    "INJECTIONS",
    "register_injection",
    "Process",
    "make_process",
    "check_load",
    "create_cycle",
]
