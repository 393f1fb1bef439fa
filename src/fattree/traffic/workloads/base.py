"""The workload registry, the phase form of a collective and rank placement.

A collective is written once as *phases*: sets of messages that start together
(``src``, ``dst`` ranks and ``nbytes``, struct-of-arrays numpy), each repeated
``repeat`` times when the algorithm repeats an identical step (a ring's ``p - 1`` steps).
Both simulation models consume the same :class:`Workload`: the flow model computes each
distinct phase once; the per-rank operation lists with dependencies that a packet model
or a GOAL file needs are expanded from the phases by :meth:`Workload.schedule`
(:mod:`fattree.traffic.workloads.schedule`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import ParameterError
from ...registry import Registry
from .._options import Opt

#: rank placements (rank -> compute node)
PLACEMENTS = ("linear", "random", "leaf")


class Phase:
    """Messages that start together; ``repeat`` identical copies run one after another.

    Attributes
    ----------
    name : str
        What the step does (``"reduce-scatter"``, ``"level 3 up"``).
    src, dst : (M,) int32
        Sending and receiving ranks.
    nbytes : (M,) int64
        Bytes of each message (a read-only broadcast view when they are all equal).
    repeat : int
        Identical steps in a row (a ring: ``p - 1``).
    messages : int
        ``M``.

    A phase built by :func:`lazy_phase` computes ``src`` and ``dst`` each time they are
    read, so that an algorithm of ``p - 1`` distinct steps of ``p`` messages (pairwise
    all-to-all) holds one step in memory at a time, not ``p^2`` messages.
    """

    __slots__ = ("name", "repeat", "messages", "_src", "_dst", "_nbytes", "_gen")

    def __init__(self, name, src, dst, nbytes, repeat=1, gen=None, messages=None):
        self.name = name
        self.repeat = int(repeat)
        self._src, self._dst, self._nbytes, self._gen = src, dst, nbytes, gen
        self.messages = int(src.shape[0]) if messages is None else int(messages)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(src, dst, nbytes)`` of one copy (computed now for a lazy phase)."""
        if self._gen is None:
            return self._src, self._dst, self._nbytes
        src, dst = self._gen()
        s = np.ascontiguousarray(src, dtype=np.int32)
        d = np.ascontiguousarray(dst, dtype=np.int32)
        return s, d, np.broadcast_to(self._nbytes, s.shape)

    @property
    def src(self) -> np.ndarray:
        return self.arrays()[0]

    @property
    def dst(self) -> np.ndarray:
        return self.arrays()[1]

    @property
    def nbytes(self) -> np.ndarray:
        return self.arrays()[2]


def phase(name: str, src, dst, nbytes, repeat: int = 1) -> Phase:
    """Build a :class:`Phase` with fixed dtypes (a scalar ``nbytes`` applies to all).

    Parameters
    ----------
    name : str
        What the step does.
    src, dst : array_like of int
        Sending and receiving ranks.
    nbytes : int or array_like of int
        Bytes per message.
    repeat : int
        Identical steps in a row.

    Returns
    -------
    Phase

    Examples
    --------
    >>> ph = phase("ring", [0, 1], [1, 0], 8, repeat=3)
    >>> ph.messages, ph.nbytes.tolist(), ph.repeat
    (2, [8, 8], 3)
    """
    s = np.ascontiguousarray(src, dtype=np.int32)
    d = np.ascontiguousarray(dst, dtype=np.int32)
    b = np.broadcast_to(np.asarray(nbytes, dtype=np.int64), s.shape)
    if b.ndim and b.strides[0] != 0:
        b = np.ascontiguousarray(b)
    return Phase(name, s, d, b, int(repeat))


def lazy_phase(name: str, gen, messages: int, nbytes: int, repeat: int = 1) -> Phase:
    """A :class:`Phase` whose ranks ``gen() -> (src, dst)`` computes when they are read.

    Parameters
    ----------
    name : str
        What the step does.
    gen : callable
        Returns the step's ``(src, dst)`` rank arrays.
    messages : int
        Their length.
    nbytes : int
        Bytes of every message.
    repeat : int
        Identical steps in a row.

    Returns
    -------
    Phase

    Examples
    --------
    >>> ph = lazy_phase("shift", lambda: (np.arange(4), (np.arange(4) + 1) % 4), 4, 16)
    >>> ph.dst.tolist(), ph.nbytes.tolist()
    ([1, 2, 3, 0], [16, 16, 16, 16])
    """
    return Phase(name, None, None, np.int64(nbytes), repeat, gen=gen, messages=messages)


@dataclass(frozen=True)
class Context:
    """What an algorithm builds its phases from.

    Attributes
    ----------
    ranks : int
        Number of ranks ``p``.
    size : int
        The collective's size in bytes, as nccl-tests counts it (docs/workloads.md).
    options : dict
        The collective's validated options (``root``, ``chunks``, ...).
    groups : (p,) int64
        Leaf switch of each rank's node, renumbered ``0..G-1`` in rank order (the
        hierarchical algorithms' groups).
    """

    ranks: int
    size: int
    options: dict
    groups: np.ndarray


@dataclass(frozen=True)
class Algorithm:
    """One algorithm of a collective: ``build(ctx) -> list[Phase]``."""

    name: str
    title: str
    source: str
    build: Callable[[Context], list[Phase]]
    power_of_two: bool = False


@dataclass
class Collective:
    """A registered collective: its algorithms, options and nccl-tests bus-bandwidth factor.

    ``busbw(p)`` is the factor by which nccl-tests multiplies the algorithm bandwidth
    (``size / time``) to get the bus bandwidth.
    """

    name: str
    title: str
    busbw: Callable[[int], float]
    options: tuple[Opt, ...]
    default: str
    size_meaning: str
    default_size: str = "1MiB"
    algorithms: dict[str, Algorithm] = field(default_factory=dict)


#: every built-in collective, filled by :func:`register_collective`
COLLECTIVES: Registry[Collective] = Registry("collective")

#: options every collective takes (``size`` is parsed with its unit)
COMMON_OPTIONS = (
    Opt("algorithm", "the algorithm (see 'fattree workload list')", "", str),
    Opt("size", "bytes with a unit: B, KB, MB, GB, KiB, MiB, GiB", "1MiB", str),
    Opt("ranks", "ranks taking part (default: every node)", 0, int, minimum=0),
    Opt("placement", "rank -> node: linear, random (seeded) or leaf", "linear", str),
)


def register_collective(
    name: str,
    *,
    title: str,
    busbw: Callable[[int], float],
    default: str,
    size_meaning: str,
    options=(),
    default_size: str = "1MiB",
) -> Collective:
    """Register a collective; its algorithms are added with :func:`register_algorithm`.

    Parameters
    ----------
    name : str
        The collective's name (``allreduce``).
    title : str
        One line for listings.
    busbw : callable
        ``p -> factor`` of nccl-tests' bus bandwidth.
    default : str
        The default algorithm.
    size_meaning : str
        What ``size`` counts (nccl-tests' convention), for the docs and listings.
    options : sequence of Opt
        Options beyond :data:`COMMON_OPTIONS`.
    default_size : str
        ``size`` when none is given.

    Returns
    -------
    Collective
    """
    col = Collective(name, title, busbw, tuple(options), default, size_meaning, default_size)
    COLLECTIVES.add(name, col)
    return col


def register_algorithm(
    collective: str, name: str, *, title: str, source: str, power_of_two: bool = False
):
    """Decorator adding ``build(ctx) -> list[Phase]`` as an algorithm of ``collective``.

    Parameters
    ----------
    collective : str
        A registered collective.
    name : str
        The algorithm's name (``ring``).
    title : str
        One line for listings.
    source : str
        Where the algorithm is described (MPI implementation, NCCL, paper).
    power_of_two : bool
        The algorithm needs a power-of-two rank count.

    Returns
    -------
    callable
        The decorator; it returns ``build`` unchanged.
    """

    def deco(fn):
        col = COLLECTIVES.get(collective)
        if name in col.algorithms:
            raise ValueError(f"algorithm {name!r} of {collective!r} registered twice")
        col.algorithms[name] = Algorithm(name, title, source, fn, power_of_two)
        return fn

    return deco


def place(n_nodes: int, ranks: int, placement: str, seed: int, node_switch) -> np.ndarray:
    """Compute node of each rank.

    Parameters
    ----------
    n_nodes : int
        Compute nodes of the network.
    ranks : int
        Ranks, ``2 <= ranks <= n_nodes``.
    placement : {"linear", "random", "leaf"}
        ``linear``: rank r on node r. ``random``: a uniformly random set and order of
        nodes drawn from ``seed``. ``leaf``: nodes ordered by leaf switch (then node id),
        so consecutive ranks fill one leaf switch before the next.
    seed : int
        Seed of ``random``.
    node_switch : (N,) int array
        Leaf switch of each node.

    Returns
    -------
    (ranks,) int64
        Distinct node ids.

    Examples
    --------
    >>> place(8, 4, "linear", 0, [0, 0, 1, 1, 2, 2, 3, 3]).tolist()
    [0, 1, 2, 3]
    """
    if placement == "linear":
        return np.arange(ranks, dtype=np.int64)
    if placement == "random":
        rng = np.random.default_rng(seed)
        return rng.permutation(n_nodes)[:ranks].astype(np.int64)
    if placement == "leaf":
        order = np.lexsort((np.arange(n_nodes), np.asarray(node_switch)))
        return order[:ranks].astype(np.int64)
    raise ParameterError(f"placement={placement!r} is invalid: valid: {', '.join(PLACEMENTS)}")


def leaf_groups(placement: np.ndarray, node_switch) -> np.ndarray:
    """Leaf switch of each rank's node renumbered ``0..G-1`` by first appearance.

    Parameters
    ----------
    placement : (p,) int array
        Node of each rank.
    node_switch : (N,) int array
        Leaf switch of each node.

    Returns
    -------
    (p,) int64

    Examples
    --------
    >>> leaf_groups(np.array([4, 5, 0, 1]), np.array([0, 0, 1, 1, 2, 2])).tolist()
    [0, 0, 1, 1]
    """
    sw = np.asarray(node_switch)[placement]
    _, first, inv = np.unique(sw, return_index=True, return_inverse=True)
    rank_of_first = np.argsort(np.argsort(first))
    return rank_of_first[inv].astype(np.int64)


@dataclass(frozen=True, eq=False)
class Workload:
    """A workload bound to a network: ranks placed on nodes, messages as phases or ops.

    Attributes
    ----------
    spec : str
        The canonical spec (``allreduce:algorithm=ring,size=1MiB``).
    kind : str
        The collective's name, or ``goal`` for a schedule read from a file.
    algorithm : str
        The algorithm (``""`` for a file).
    ranks : int
        Ranks ``p``.
    size : int
        Bytes as nccl-tests counts them for the collective (a file: total bytes sent).
    placement : (p,) int64
        Node of each rank.
    phases : tuple of Phase or None
        The collective's phases (``None`` for a file).
    busbw_factor : float
        nccl-tests' bus-bandwidth factor (1 for a file).
    options : dict
        The validated options.
    seed : int
        Seed of the placement.
    ops : Schedule or None
        Operation lists read from a file (``None`` for a collective; see :meth:`schedule`).
    """

    spec: str
    kind: str
    algorithm: str
    ranks: int
    size: int
    placement: np.ndarray
    phases: tuple[Phase, ...] | None
    busbw_factor: float
    options: dict
    seed: int
    ops: Any = None

    @property
    def messages(self) -> int:
        """Messages the workload sends in all (phases counted with their repeats)."""
        if self.phases is None:
            return int((self.ops.kind == 0).sum())
        return sum(ph.messages * ph.repeat for ph in self.phases)

    def bytes_sent(self) -> np.ndarray:
        """Bytes each rank sends in all, ``(p,) int64``."""
        out = np.zeros(self.ranks, np.int64)
        if self.phases is None:
            send = self.ops.kind == 0
            np.add.at(out, self.ops.rank[send], self.ops.nbytes[send])
            return out
        for ph in self.phases:
            src, _, nbytes = ph.arrays()
            sent = np.bincount(src, weights=nbytes, minlength=self.ranks)
            out += sent.astype(np.int64) * ph.repeat
        return out

    def schedule(self, max_ops: int = 50_000_000):
        """Per-rank operation lists with dependencies (:class:`Schedule`).

        Parameters
        ----------
        max_ops : int
            Refuse (``ResourceError``) a schedule of more operations than this.

        Returns
        -------
        Schedule
        """
        if self.ops is not None:
            return self.ops
        from .schedule import expand

        return expand(self.phases, self.ranks, max_ops=max_ops)
