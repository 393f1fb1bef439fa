"""What a paper walk plugs into fault-tolerant routing: one record of hooks per walk.

A family with its own fault walk (``Facets.fault_walk``) writes one module
``faults/<walk>.py`` with its kernels and registers one :class:`FaultWalk` there;
``faults/walks.py`` imports it. Every consumer (the walk loop, the Monte Carlo loop, the
simulator, ``fattree warmup``) resolves the walk's hooks by the type of its context or
fault view, so nothing outside the walk's module chooses by its name (docs/ARCHITECTURE.md,
"How to add a family with its own fault walk"). This module also holds what the walks and
the generic rules share: the detour flags, the walk status codes and the layout of the
simulator's fault view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ParameterError
from ..registry import Registry

# Flag bits of an algorithm, understood by the paper walks (faults/mikant.py).
GNS = 1
GDL = 2
XT = 4
TT = 8
ROOT = 16
UPALT = 32
ESCAPE = 64  # misroute budget when every rule fails (this project's algorithm)
CUBE = 128  # MiKANTC: hypercube multipath (004 Algorithm 1, cube part)
ORACLE = 1 << 20  # not a walk: BFS on the surviving graph

# walk status codes (every engine)
OK = 0
NO_RULE = 1  # a faulty link no enabled algorithm covers
DEAD_END = 2  # a detour step found no healthy allowed port
TTL = 3  # hop limit (livelock guard): must never fire for the papers' algorithms
STATUS_NAMES = ("ok", "no applicable detour", "detour dead end", "TTL")

#: the key of the generic rules wherever engines are keyed by name (no paper walk)
GENERIC_ENGINE = "generic"

# The fault view (faults/view.py FaultRouter): its fields, the integers of
# ``ft_i`` and the rows of the walk scratch ``ft_ws``. A walk's ``sim_*`` kernels read a
# view through these names.
VIEW_FIELDS = "ft_i ft_stamp ft_tab ft_order ft_cube ft_pp ft_rt ft_ws"
FI_ENG, FI_K, FI_N, FI_FLAGS, FI_LOOK, FI_RULE, FI_BUDGET, FI_TTL, FI_N_NODES, FI_LAYER1 = range(10)
FI_COLS = 10  # FI_LAYER1: the up*/down* turn rule also on one VC (faults/rules.py one_vc)
# ft_ws rows: walk output (switches, ports, how), Algorithm-1 iparams, generic scratch,
# VC classes, then the 10 rows of a walk's scratch (ports, walk state, lookahead search
# or cube dimensions)
W_SW, W_PORT, W_HOW, W_IP, W_GEN, W_VCS, W_SCR = range(7)
W_ROWS = W_SCR + 10
STATE_BYTE = 255  # the packet header holds a walk's state one byte a field


@dataclass(frozen=True)
class SimSetup:
    """What a walk's ``sim_setup(topo, flags)`` returns for the simulator's fault view:
    ``k``, ``n`` (into ``ft_i``), Algorithm 1's ``iparams`` (row ``W_IP``), the width
    of the scratch rows ``ft_ws`` (the walk's switches + 2, its iparams and its own
    scratch), ``pp`` / ``cube`` (the view's ``ft_pp`` / ``ft_cube``) and the packed
    header state of a fresh walk (its misroute budget)."""

    k: int
    n: int
    iparams: object
    width: int
    pp: object
    cube: object
    budget: int


@dataclass(frozen=True)
class FaultWalk:
    """A paper walk: what it accepts beyond the generic rules, and its hooks.

    Attributes
    ----------
    name : str
        Its key (``Facets.fault_walk``, the algorithms' ``on``).
    models : tuple of str
        The fault-knowledge models it defines (``local``, ``lookahead``).
    why : str
        Why other models are refused (shown with the refusal).
    vc_classes : bool
        Whether it has deadlock-free VC classes of its own (``sim_class``, ``hop_vcs``;
        ``deadlock --faults`` ranks); without them the simulator runs it on one VC.
    generic_rules : bool
        Whether the family also offers the generic rules (``minimal``, ``detour``, the
        tables) beside the walk; without them the names of the generic aliases
        (``escape`` → ``detour``) are not rewritten either.
    tie_break : bool
        Whether it takes ``--tie-break`` (004's random choice among cube dimensions).
    offers : tuple of str
        Registered algorithms it walks beyond those whose ``on`` names it.
    link_ids : bool
        001's link ids ``<G, level, D_{n-2..0}, P>`` name the links of its network
        (``faults/links.py`` ``mikant_link_id``, fault files).
    hop : numba kernel
        The walk's decision at one switch, ``(wk, w, s, prev, hops, t, state, ports,
        extra, trace, nsw)`` → ``(port, status)`` (``wk`` its context, ``w`` a
        ``faults/walkloop.py`` ``WalkIn``, ``state`` the packet's walk state, updated;
        ``ports`` and ``extra`` scratch; ``trace`` None or the explanation's record);
        ``faults/walkloop.py`` loops over it for every consumer.
    begin : numba kernel
        ``(wk, flags, src)`` → ``(nodes, hop limit, misroute budget, switch of node src)``.
    capacity : callable
        ``capacity(topo)``: room for the switches of any walk (``trace``'s rows).
    hop_vcs : callable or None
        ``hop_vcs(topo, switches, ports, count, vcs=64)``: the VC class of each hop (the
        explanation's ``vc`` column, ``walk_vcs``; -1 from a hop needing a class ``>=
        vcs``); None without VC classes.
    study, study_type : callable, type
        ``study(topo, tie_break)``: the walk's context ``wk`` (in the Monte Carlo loop and
        for ``route --faults``), a named tuple of type ``study_type`` with at least ``k``
        and ``n`` (the type resolves the kernels).
    study_fault_free : function compiled inline, or None
        ``(wk, rt, stamp, s, t, minimal, cap, buf, out_sw, out_port, ip, scr, seed, pkt)``
        → ``(d0, exact)``, its fault-free length and whether a delivered walk of that
        length is optimal (None: the routing's length).
    a1_shortcut : bool
        The walk with no detour stands for every detour algorithm on a trial where it is
        healthy (MiKANT: the detours act only at a faulty port of Algorithm 1's route).
    cut_off : bool
        A node whose only link is faulty is cut off without asking the search.
    sim_setup : callable
        ``sim_setup(topo, flags)`` → :class:`SimSetup`.
    sim_view : type
        The simulator's fault view of this walk (a named tuple of :data:`VIEW_FIELDS`).
    of_view : numba kernel
        ``(f, src, dst)`` → ``(wk, packet key)``: the walk's context on the view ``f``.
    sim_tops, sim_class : numba kernels over the view ``f``
        The VC classes of the walk in the view's scratch (``(f, nsw, V)`` → highest, -1:
        refused); the VC class of one hop (``(f, sw, in_port, in_vc, out_port, hop, V)``,
        -1: any).
    vc_rule : str
        How its hops are layered on VCs, in words.
    warmup : tuple of (str, list of str)
        ``fattree warmup`` steps that compile its kernels (commands a user could type).
    """

    name: str
    models: tuple[str, ...]
    why: str
    vc_classes: bool
    generic_rules: bool
    hop: Callable
    begin: Callable
    capacity: Callable
    study: Callable
    study_type: type
    sim_setup: Callable
    sim_view: type
    of_view: Callable
    sim_tops: Callable
    sim_class: Callable
    vc_rule: str
    warmup: tuple = ()
    hop_vcs: Callable | None = None
    study_fault_free: Callable | None = None
    a1_shortcut: bool = False
    cut_off: bool = True
    tie_break: bool = False
    offers: tuple[str, ...] = ()
    link_ids: bool = False

    def check_model(self, model: str, family: str, name: str = "model") -> None:
        """Refuse a fault-knowledge model the walk does not define.

        Parameters
        ----------
        model : str
        family : str
            The family named in the message.
        name : str
            The parameter named in the message (the simulator's ``fault_model``).

        Raises
        ------
        ParameterError
            When ``model`` is not one of :attr:`models`.
        """
        if model not in self.models:
            only = ", ".join(repr(m) for m in self.models)
            raise ParameterError(
                f"{name}={model!r} is not defined for {family}: only {only} ({self.why})"
            )


FAULT_WALKS: Registry[FaultWalk] = Registry("fault walk")


def register_walk(walk: FaultWalk) -> FaultWalk:
    """Register a paper walk under ``walk.name`` (called once by its module).

    Parameters
    ----------
    walk : FaultWalk

    Returns
    -------
    FaultWalk

    Examples
    --------
    >>> from fattree.faults.walks import FAULT_WALKS
    >>> FAULT_WALKS.get("mikant").study_type.__name__
    'MikantStudy'
    """
    return FAULT_WALKS.add(walk.name, walk)


def walk_by_type(cls) -> FaultWalk | None:
    """The walk whose study context or simulator view has type ``cls`` (None: none)."""
    for _, w in FAULT_WALKS.items():
        if cls is w.study_type or cls is w.sim_view:
            return w
    return None


@dataclass(frozen=True)
class LoopEngine:
    """An engine the walk loop (``faults/walkloop.py`` :func:`walk_loop`) runs beside the
    paper walks: the generic rules (``faults/generic.py``) and the recomputed tables
    (``faults/gwalk.py``). A paper walk's :class:`FaultWalk` plays this part for it.

    Attributes
    ----------
    name : str
    types : tuple of type
        Its context type (the loop's ``wk``) and the simulator's fault views it runs on.
    hop, begin : numba kernels
        As :attr:`FaultWalk.hop` and :attr:`FaultWalk.begin`.
    of_view : numba kernel
        ``(f, src, dst)`` -> ``(wk, packet key)`` on one of its views.
    """

    name: str
    types: tuple
    hop: Callable
    begin: Callable
    of_view: Callable


LOOP_ENGINES: Registry[LoopEngine] = Registry("walk loop engine")


def loop_by_type(cls) -> FaultWalk | LoopEngine | None:
    """The walk or loop engine whose context or view has type ``cls`` (None: none).

    Examples
    --------
    >>> from fattree.faults.generic import GenericWalk
    >>> loop_by_type(GenericWalk).name
    'generic'
    """
    w = walk_by_type(cls)
    if w is not None:
        return w
    for _, e in LOOP_ENGINES.items():
        if cls in e.types:
            return e
    return None


__all__ = [
    "FAULT_WALKS",
    "LOOP_ENGINES",
    "LoopEngine",
    "FaultWalk",
    "GENERIC_ENGINE",
    "SimSetup",
    "STATUS_NAMES",
    "VIEW_FIELDS",
    "register_walk",
]
