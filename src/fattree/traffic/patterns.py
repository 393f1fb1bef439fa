"""Traffic patterns (where packets go), usable inside numba.

A pattern is bound to a node count by :func:`make_traffic`, which returns a
:class:`Traffic`: an integer ``code``, integer and float parameters and an int64
``table``. The numba function :func:`dest` draws the destination of the
``seq``-th packet of a source from these alone, so the simulator never calls back
into Python. Deterministic patterns (bit complement, reversal, transpose, shuffle,
tornado, neighbour, random permutation, all-to-one) are precomputed into the table;
uniform and hotspot hash ``(seed, source, seq)``.

Node addresses are the node ids ``0..N-1`` (for kant/clos/mikant the id's base-k
digits are the papers' label, so bit patterns on the id are the papers' bit patterns
when k is a power of two).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from ..errors import ParameterError
from ..registry import Registry
from ._options import Opt, split_spec, validate_options
from .rng import S_DEST, S_DEST_HOT, bernoulli, randint, threshold

# kernel codes
T_UNIFORM = 0
T_TABLE = 1  # dst = table[src]
T_HOTSPOT = 2
T_TRACE = 3  # dst = table[N + 1 + table[src] + seq]


@dataclass(frozen=True)
class Pattern:
    """A registered traffic pattern; ``prepare(n, opts, seed)`` binds it to ``n`` nodes."""

    name: str
    title: str
    paper: str
    options: tuple[Opt, ...]
    prepare: Callable[..., tuple[int, np.ndarray, np.ndarray, np.ndarray]]
    timed: bool = False  # a trace: creation times come with the pattern


PATTERNS: Registry[Pattern] = Registry("traffic pattern")


def register_pattern(*names: str, title: str, paper: str = "", options=(), timed=False):
    """Decorator registering ``prepare(n, opts, seed) -> (code, iparams, fparams, table)``.

    Parameters
    ----------
    *names : str
        The pattern's name, then its aliases.
    title : str
        One line for listings.
    paper : str
        Paper and section it comes from.
    options : sequence of Opt
        Its options (``NAME:key=value``).
    timed : bool
        A trace: creation times come with the pattern.

    Returns
    -------
    callable
        The decorator; it returns ``prepare`` unchanged.
    """

    def deco(fn):
        pat = Pattern(
            name=names[0], title=title, paper=paper, options=tuple(options), prepare=fn, timed=timed
        )
        for nm in names:
            PATTERNS.add(nm, pat)
        return fn

    return deco


@dataclass(frozen=True, eq=False)
class Traffic:
    """A pattern bound to a node count: what :func:`dest` needs.

    Attributes
    ----------
    name : str
        Registered name; ``options`` its validated options.
    code : int
        Kernel selector (``T_UNIFORM``, ``T_TABLE``, ``T_HOTSPOT``, ``T_TRACE``).
    iparams, fparams, table : arrays
        int64, float64 and int64 parameters of the kernel.
    active : (N,) bool
        Sources that send (a permutation's fixed points and the target of all-to-one
        do not).
    trace : tuple or None
        ``(cycle, src, dst)`` arrays of a trace file.
    """

    name: str
    options: dict
    n_nodes: int
    code: int
    iparams: np.ndarray
    fparams: np.ndarray
    table: np.ndarray
    active: np.ndarray
    timed: bool = False
    trace: tuple | None = field(default=None, repr=False)

    @property
    def spec(self) -> str:
        """``name[:key=value,...]`` with the options that differ from their defaults."""
        defaults = {o.name: o.default for o in PATTERNS.get(self.name).options}
        shown = {k: v for k, v in self.options.items() if v != defaults.get(k)}
        opts = ",".join(f"{k}={v}" for k, v in shown.items())
        return self.name + (":" + opts if opts else "")


@njit(cache=True)
def dest(code, iparams, fparams, table, n, src, seq, seed):
    """Destination of the ``seq``-th packet of ``src`` (a pure function of its inputs)."""
    if code == T_TABLE:
        return table[src]
    if code == T_TRACE:
        return table[n + 1 + table[src] + seq]
    if code == T_HOTSPOT:
        hot = iparams[0]
        if src != hot and bernoulli(seed, S_DEST_HOT, src, seq, iparams[1]):
            return hot
    if iparams[2] != 0:  # include_self
        return randint(seed, S_DEST, src, seq, n)
    d = randint(seed, S_DEST, src, seq, n - 1)
    return d + 1 if d >= src else d


def make_traffic(spec: str, n_nodes: int, seed: int = 0, **options: Any) -> Traffic:
    """Bind a pattern to ``n_nodes`` nodes, validating its options.

    Parameters
    ----------
    spec : str
        ``NAME`` or ``NAME:key=value,...`` (e.g. ``"hotspot:node=3,fraction=0.2"``).
    n_nodes : int
        Number of compute nodes.
    seed : int
        Seed of random patterns (``randperm``), ``0 <= seed < 2**63``.
    **options
        Options given as keywords instead of in the spec.

    Examples
    --------
    >>> t = make_traffic("bitcomp", 8)
    >>> t.table.tolist()
    [7, 6, 5, 4, 3, 2, 1, 0]
    >>> int(dest(t.code, t.iparams, t.fparams, t.table, 8, 2, 0, 0))
    5

    References
    ----------
    000 §V.B (uniform, bit-inversion); 003 §5 ("static"); W. Dally, B. Towles,
    *Principles and Practices of Interconnection Networks*, §3.2 (the others).
    """
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, (int, np.integer)) or n_nodes < 2:
        raise ParameterError(f"n_nodes={n_nodes!r} is invalid: a pattern needs at least 2 nodes")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ParameterError(f"seed={seed!r} is invalid: expected an integer 0 <= seed < 2**63")
    name, raw = split_spec(spec, "traffic")
    raw.update({k: v for k, v in options.items()})
    pat = PATTERNS.get(name)
    opts = validate_options(f"traffic {name!r}", pat.options, raw)
    n = int(n_nodes)
    code, ip, fp, table, *extra = pat.prepare(n, opts, int(seed))
    ip = _frozen(np.zeros(3, np.int64) if ip is None else ip, np.int64)
    fp = _frozen(np.zeros(1) if fp is None else fp, np.float64)
    table = _frozen(np.zeros(1, np.int64) if table is None else table, np.int64)
    active = _active(code, ip, table, n)
    if not active.any():
        raise ParameterError(
            f"traffic={spec!r} sends nothing on {n} nodes (every node would send to itself)"
        )
    return Traffic(
        name=pat.name,
        options=opts,
        n_nodes=n,
        code=code,
        iparams=ip,
        fparams=fp,
        table=table,
        active=_frozen(active, np.bool_),
        timed=pat.timed,
        trace=extra[0] if extra else None,
    )


def _frozen(a, dtype):
    a = np.ascontiguousarray(a, dtype=dtype)
    a.flags.writeable = False
    return a


def _active(code, ip, table, n):
    if code == T_TABLE:
        return table[:n] != np.arange(n)
    if code == T_TRACE:
        return np.diff(table[: n + 1]) > 0
    return np.ones(n, bool)


def _bits(n: int, name: str) -> int:
    if n & (n - 1):
        raise ParameterError(
            f"traffic={name!r} needs a power-of-two number of nodes (a binary address space); "
            f"this network has {n} nodes; use uniform, randperm, tornado or neighbor instead"
        )
    return n.bit_length() - 1


def _uniform_ip(include_self: bool, hot: int = 0, thr: int = 0):
    return np.array([hot, thr, int(include_self)], np.int64)


# ------------------------------------------------------------------ the patterns
@register_pattern(
    "uniform",
    title="uniform random destination",
    paper="000 §V.B",
    options=[Opt("include_self", "the source may draw itself (as BookSim)", False, bool)],
)
def _uniform(n, o, seed):
    return T_UNIFORM, _uniform_ip(o["include_self"]), None, None


@register_pattern("bitcomp", "bitinv", title="bit complement (bit inversion)", paper="000 §V.B")
def _bitcomp(n, o, seed):
    _bits(n, "bitcomp")
    return T_TABLE, None, None, (n - 1) ^ np.arange(n, dtype=np.int64)


@register_pattern("bitrev", title="bit reversal")
def _bitrev(n, o, seed):
    b = _bits(n, "bitrev")
    s = np.arange(n, dtype=np.int64)
    d = np.zeros(n, np.int64)
    for i in range(b):  # b <= 63 bits: a loop over bits, not nodes
        d |= ((s >> i) & 1) << (b - 1 - i)
    return T_TABLE, None, None, d


@register_pattern("transpose", title="matrix transpose (swap address halves)")
def _transpose(n, o, seed):
    b = _bits(n, "transpose")
    if b % 2:
        raise ParameterError(
            f"traffic='transpose' needs N = 4^m nodes (an even number of address bits); "
            f"this network has {n} = 2^{b} nodes"
        )
    h = b // 2
    s = np.arange(n, dtype=np.int64)
    return T_TABLE, None, None, ((s & ((1 << h) - 1)) << h) | (s >> h)


@register_pattern("shuffle", title="perfect shuffle (rotate address left by one bit)")
def _shuffle(n, o, seed):
    b = _bits(n, "shuffle")
    s = np.arange(n, dtype=np.int64)
    return T_TABLE, None, None, ((s << 1) | (s >> (b - 1))) & (n - 1)


@register_pattern("tornado", title="tornado: node i sends to i + ceil(N/2) - 1 (mod N)")
def _tornado(n, o, seed):
    return T_TABLE, None, None, (np.arange(n, dtype=np.int64) + (n + 1) // 2 - 1) % n


@register_pattern(
    "neighbor",
    "neighbour",
    title="neighbour: node i sends to i + offset (mod N)",
    options=[Opt("offset", "address offset", 1, int)],
)
def _neighbor(n, o, seed):
    # offset reduced first: a large offset would wrap around int64 before the modulo
    return T_TABLE, None, None, (np.arange(n, dtype=np.int64) + o["offset"] % n) % n


@register_pattern(
    "randperm",
    title="random permutation (seeded)",
    options=[
        Opt(
            "seed",
            "permutation seed (default -1: the simulation seed)",
            -1,
            int,
            minimum=-1,
            maximum=2**63 - 1,
        )
    ],
)
def _randperm(n, o, seed):
    s = seed if o["seed"] < 0 else o["seed"]
    return T_TABLE, None, None, np.random.default_rng(s).permutation(n).astype(np.int64)


@register_pattern(
    "hotspot",
    title="hotspot: a fraction of packets to one node, the rest uniform",
    options=[
        Opt("node", "the hot node", 0, int, minimum=0),
        Opt(
            "fraction",
            "share of each source's packets sent to it",
            0.1,
            float,
            minimum=0.0,
            maximum=1.0,
        ),
    ],
)
def _hotspot(n, o, seed):
    if o["node"] >= n:
        raise ParameterError(f"traffic 'hotspot': node={o['node']} is out of range 0..{n - 1}")
    return T_HOTSPOT, _uniform_ip(False, o["node"], threshold(o["fraction"])), None, None


@register_pattern(
    "alltoone",
    "static",
    title="all-to-one: every node sends to one node",
    paper="003 §5 (static addressing, the worst case)",
    options=[Opt("node", "the destination node", 0, int, minimum=0)],
)
def _alltoone(n, o, seed):
    if o["node"] >= n:
        raise ParameterError(f"traffic 'alltoone': node={o['node']} is out of range 0..{n - 1}")
    return T_TABLE, None, None, np.full(n, o["node"], np.int64)


@register_pattern(
    "trace",
    title="trace file: one packet per line 'cycle src dst'",
    timed=True,
    options=[Opt("file", "path of the trace", "", str)],
)
def _trace(n, o, seed):
    from .trace import read_trace, trace_tables

    if not o["file"]:
        raise ParameterError("traffic 'trace' needs a file: use trace:file=PATH")
    cycle, src, dst, lines = read_trace(o["file"])
    table = trace_tables(o["file"], cycle, src, dst, lines, n)
    return T_TRACE, None, None, table, (cycle, src, dst)


__all__ = [
    "T_UNIFORM",
    "T_TABLE",
    "T_HOTSPOT",
    "T_TRACE",
    "Pattern",
    "PATTERNS",
    "register_pattern",
    "Traffic",
    "dest",
    "make_traffic",
]
