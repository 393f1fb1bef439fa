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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numba import njit

from ..compiling import nrt_free
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
    placement: str = "id"

    @property
    def spec(self) -> str:
        """``name[:key=value,...]`` with the options that differ from their defaults."""
        defaults = {o.name: o.default for o in PATTERNS.get(self.name).options}
        shown = {k: v for k, v in self.options.items() if v != defaults.get(k)}
        if self.placement != "id":
            shown["placement"] = self.placement
        opts = ",".join(f"{k}={v}" for k, v in shown.items())
        return self.name + (":" + opts if opts else "")


@njit(**nrt_free())
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


def parse_pattern(spec: str) -> tuple[str, dict[str, str]]:
    """Split a traffic spec into the pattern's name and its raw option strings.

    Parameters
    ----------
    spec : str
        ``NAME`` or ``NAME:key=value,...``.

    Returns
    -------
    (str, dict)
        The name as written and the options, unconverted.

    Raises
    ------
    ParameterError
        A spec that does not parse.

    Examples
    --------
    >>> parse_pattern("tornado:k=4,n=3")
    ('tornado', {'k': '4', 'n': '3'})
    """
    return split_spec(spec, "traffic")


def make_traffic(
    spec: str,
    n_nodes: int,
    seed: int = 0,
    *,
    topology: Any = None,
    validate_only: bool = False,
    **options: Any,
) -> Traffic:
    """Bind a pattern to ``n_nodes`` nodes, validating its options.

    Every pattern also takes ``placement``: ``id`` (default: rank r of the pattern is node
    r) or ``leaf`` (rank r is the r-th node in leaf-major order,
    :meth:`fattree.topology.Topology.leaf_major_order`, so consecutive ranks share a leaf
    switch); ``leaf`` needs ``topology``.

    Parameters
    ----------
    spec : str
        ``NAME`` or ``NAME:key=value,...`` (e.g. ``"hotspot:node=3,fraction=0.2"``).
    n_nodes : int
        Number of compute nodes.
    seed : int
        Seed of random patterns (``randperm``), ``0 <= seed < 2**63``.
    topology : Topology, optional
        The network, for ``placement=leaf``.
    validate_only : bool
        Check the spec for ``n_nodes`` without applying a placement (no topology needed);
        the result is then not the traffic to simulate.
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
    placement = str(raw.pop("placement", "id"))
    if placement not in _PLACEMENTS:
        raise ParameterError(
            f"traffic {name!r}: placement={placement!r} is invalid; allowed: id (rank r on "
            f"node r), leaf (ranks leaf switch by leaf switch)"
        )
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
    traffic = Traffic(
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
    if placement == "id" or validate_only:
        return traffic
    if topology is None:
        raise ParameterError(
            f"traffic={spec!r}: placement={placement} needs the network (topology=)"
        )
    if topology.n_nodes != n:
        raise ParameterError(
            f"traffic={spec!r}: the topology has {topology.n_nodes} nodes, n_nodes={n}"
        )
    return place(traffic, topology.node_order(placement), placement)


_PLACEMENTS = ("id", "leaf")  # fattree.topology.core.PLACEMENTS (traffic may not import it)


def place(traffic: Traffic, order: np.ndarray, placement: str = "custom") -> Traffic:
    """Run rank ``r`` of a bound pattern on node ``order[r]``.

    Permutation tables, the hot node of ``hotspot``, the target of ``alltoone`` and the
    sources and destinations of a trace are renamed; ``uniform`` is unchanged (it treats
    every node alike).

    Parameters
    ----------
    traffic : Traffic
        A pattern bound to N nodes, whose node ids are the ranks.
    order : array of int, shape (N,)
        A permutation: the node of every rank (e.g. ``topo.leaf_major_order()``).
    placement : str
        Its name, recorded in the spec (``bitcomp:placement=leaf``).

    Returns
    -------
    Traffic

    Raises
    ------
    ParameterError
        ``order`` is not a permutation of ``0..N-1``.

    Examples
    --------
    >>> import numpy as np
    >>> t = place(make_traffic("ringneighbor", 4), np.array([0, 2, 1, 3]), "leaf")
    >>> t.table.tolist(), t.spec
    ([2, 3, 1, 0], 'ringneighbor:placement=leaf')
    """
    n = traffic.n_nodes
    order = np.asarray(order, np.int64)
    if order.shape != (n,) or not np.array_equal(np.sort(order), np.arange(n)):
        raise ParameterError(f"order is invalid: expected a permutation of 0..{n - 1}")
    ip, table, trace = traffic.iparams.copy(), traffic.table, traffic.trace
    if traffic.code == T_TABLE:
        t = np.empty(n, np.int64)
        t[order] = order[table[:n]]
        table = t
    elif traffic.code == T_HOTSPOT:
        ip[0] = order[ip[0]]
    elif traffic.code == T_TRACE:
        from .trace import trace_tables

        cycle, src, dst = trace
        src, dst = order[np.asarray(src, np.int64)], order[np.asarray(dst, np.int64)]
        lines = np.arange(1, len(cycle) + 1)
        table = trace_tables(traffic.options.get("file", ""), cycle, src, dst, lines, n)
        trace = (cycle, src, dst)
    ip, table = _frozen(ip, np.int64), _frozen(table, np.int64)
    return replace(
        traffic,
        iparams=ip,
        table=table,
        active=_frozen(_active(traffic.code, ip, table, n), np.bool_),
        trace=trace,
        placement=placement,
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


_DIGIT_OPTS = (
    Opt(
        "k",
        "digit radix, BookSim2's k (0: the model's: the whole id as one digit, k = N and n = 1, "
        "under model papers; the network's k and n under model booksim)",
        0,
        int,
        minimum=0,
    ),
    Opt("n", "number of digits, BookSim2's n (0: with k = 0, the model's)", 0, int, minimum=0),
    Opt("xr", "BookSim2's xr: digits are base xr*k", 1, int, minimum=1),
)


def digit_shift(n: int, o: dict, name: str, shift) -> np.ndarray:
    """The table of a digit-wise pattern: every base-``xr*k`` digit ``d`` of the source's
    id (its ``n`` lowest digits) becomes ``(d + shift(base)) mod base``.

    With ``k = n = 0`` the whole id is one digit of base ``N`` (a ring of the ids); with
    ``k`` and ``n`` it is BookSim2's ``DigitPermutationTrafficPattern``, whose
    ``(xr*k)^n`` must equal the node count (BookSim2 addresses a node beyond the network
    when it is larger and sends several sources to one destination when it is smaller).

    Parameters
    ----------
    n : int
        Node count.
    o : dict
        The pattern's validated options ``k``, ``n``, ``xr``.
    name : str
        The pattern, for messages.
    shift : callable
        ``shift(base) -> int``: the amount added to every digit.

    Returns
    -------
    ndarray of int64
        Destination of every node.

    Raises
    ------
    ParameterError
        Only one of ``k``, ``n`` given, or ``(xr*k)^n`` different from the node count.

    Examples
    --------
    >>> digit_shift(16, {"k": 4, "n": 2, "xr": 1}, "neighbor", lambda b: 1).tolist()[:6]
    [5, 6, 7, 4, 9, 10]

    References
    ----------
    BookSim2 commit 28f4329, ``src/traffic.cpp`` (``TornadoTrafficPattern``,
    ``NeighborTrafficPattern``).
    """
    k, dn, xr = o["k"], o["n"], o["xr"]
    s = np.arange(n, dtype=np.int64)
    if k == 0 and dn == 0:
        return (s + shift(n)) % n
    if k == 0 or dn == 0:
        raise ParameterError(
            f"traffic {name!r}: k={k}, n={dn} is invalid: give both k and n (BookSim2's "
            f"{name}(k,n,xr)), or neither (the model's default)"
        )
    base = xr * k
    if base > n or dn > 63 or base**dn != n:  # the first two keep the power small
        raise ParameterError(
            f"traffic '{name}:k={k},n={dn},xr={xr}' is invalid on {n} nodes: BookSim2's digit "
            f"pattern needs (xr*k)^n nodes, here {base}^{dn}; give k and n with "
            f"(xr*k)^n = {n}"
        )
    d = np.zeros(n, np.int64)
    off = 1
    for _ in range(dn):  # dn digits, at most 63: a loop over digits, not nodes
        d += off * (((s // off) % base + shift(base)) % base)
        off *= base
    return d


@register_pattern(
    "tornado",
    title="tornado: every digit d -> d + ceil(k/2) - 1 (mod k); by default one digit, "
    "i + ceil(N/2) - 1 (mod N); model booksim: BookSim2's tornado over the network's k, n",
    paper="BookSim2 src/traffic.cpp (TornadoTrafficPattern)",
    options=_DIGIT_OPTS,
)
def _tornado(n, o, seed):
    return T_TABLE, None, None, digit_shift(n, o, "tornado", lambda b: (b + 1) // 2 - 1)


@register_pattern(
    "neighbor",
    "neighbour",
    title="neighbour: every digit d -> d + offset (mod k); by default one digit, "
    "i + offset (mod N); model booksim: BookSim2's neighbor over the network's k, n",
    paper="BookSim2 src/traffic.cpp (NeighborTrafficPattern)",
    options=(Opt("offset", "added to every digit (BookSim2: 1)", 1, int),) + _DIGIT_OPTS,
)
def _neighbor(n, o, seed):
    return T_TABLE, None, None, digit_shift(n, o, "neighbor", lambda b: o["offset"])


@register_pattern("ringtornado", title="tornado on the ring of ids: i + ceil(N/2) - 1 (mod N)")
def _ringtornado(n, o, seed):
    return T_TABLE, None, None, (np.arange(n, dtype=np.int64) + (n + 1) // 2 - 1) % n


@register_pattern(
    "ringneighbor",
    "ringneighbour",
    title="neighbour on the ring of ids: i + offset (mod N)",
    options=[Opt("offset", "address offset", 1, int)],
)
def _ringneighbor(n, o, seed):
    # offset reduced first: a large offset would wrap around int64 before the modulo
    return T_TABLE, None, None, (np.arange(n, dtype=np.int64) + o["offset"] % n) % n


#: Patterns whose name means BookSim2's digit pattern under ``model='booksim'``: the
#: model fills in ``k`` and ``n`` from the network when the spec gives neither.
DIGIT_PATTERNS = ("tornado", "neighbor")


@register_pattern(
    "randperm",
    title="random permutation (seeded); ranks=R: among nodes 0..R-1 only, the rest idle; "
    "generator=booksim2: BookSim2's, from perm_seed",
    options=[
        Opt(
            "seed",
            "permutation seed (default: the simulation seed; with generator=booksim2, "
            "BookSim2's perm_seed, default 0)",
            -1,
            int,
            minimum=-1,
            maximum=2**63 - 1,
        ),
        Opt(
            "ranks",
            "ranks placed on nodes 0..ranks-1, the others idle (0: every node), to compare "
            "designs of different sizes at one node count",
            0,
            int,
            minimum=0,
        ),
        Opt(
            "generator",
            "numpy (fattree's) or booksim2 (BookSim2's, Knuth's ran_array; the default "
            "under model booksim)",
            "numpy",
            str,
        ),
    ],
)
def _randperm(n, o, seed):
    if o["generator"] == "booksim2":
        from .knuth import MM, booksim2_randperm

        if o["ranks"] not in (0, n):
            raise ParameterError(
                f"traffic 'randperm': ranks={o['ranks']} is invalid with generator=booksim2 "
                "(BookSim2 permutes every node); use generator=numpy"
            )

        s = 0 if o["seed"] < 0 else o["seed"]
        if s >= MM:
            raise ParameterError(
                f"traffic 'randperm': seed={s} is invalid with generator=booksim2: "
                f"BookSim2's perm_seed is read modulo 2^30; give 0 <= seed < {MM}"
            )
        if n > RANDPERM_BOOKSIM2_MAX:
            raise ParameterError(
                f"traffic 'randperm:generator=booksim2' on {n:,} nodes: BookSim2's "
                f"permutation is drawn one node at a time, allowed up to "
                f"{RANDPERM_BOOKSIM2_MAX:,} nodes; use generator=numpy"
            )
        return T_TABLE, None, None, np.array(booksim2_randperm(n, s), np.int64)
    if o["generator"] != "numpy":
        raise ParameterError(
            f"traffic 'randperm': generator={o['generator']!r} is invalid; allowed: numpy, booksim2"
        )
    s = seed if o["seed"] < 0 else o["seed"]
    r = o["ranks"]
    if r == 0 or r == n:
        return T_TABLE, None, None, np.random.default_rng(s).permutation(n).astype(np.int64)
    if not 2 <= r < n:
        raise ParameterError(
            f"traffic 'randperm': ranks={r} is invalid: from 2 to the network's {n} nodes "
            f"(0: every node)"
        )
    table = np.arange(n, dtype=np.int64)  # idle nodes map to themselves: they never send
    table[:r] = np.random.default_rng(s).permutation(r)
    return T_TABLE, None, None, table


RANDPERM_BOOKSIM2_MAX = 1 << 20  # nodes: a few seconds of Python list operations


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
    "parse_pattern",
    "place",
    "digit_shift",
    "DIGIT_PATTERNS",
]
