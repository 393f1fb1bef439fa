"""The record of hooks a paper walk plugs into fault-tolerant routing (:class:`FaultWalk`,
one per walk module, found by the type of its context or fault view) and what the walks and
the generic rules share: detour flags, status codes, the fault view's layout.
docs/ARCHITECTURE.md, "How to add a family with its own fault walk".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ParameterError
from ..registry import Registry

# Flag bits of an algorithm, understood by the paper walks (faults/mikant.py).
GNS, GDL, XT, TT, ROOT, UPALT = 1, 2, 4, 8, 16, 32
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

# The fault view (faults/view.py): its fields, the integers of ``ft_i`` and the rows of
# the walk scratch ``ft_ws``, through which a walk's ``sim_*`` kernels read it.
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
    """A walk's ``sim_setup(topo, flags)``: ``k``, ``n`` (into ``ft_i``), Algorithm 1's
    ``iparams`` (row ``W_IP``), the width of the rows ``ft_ws``, the view's ``ft_pp`` /
    ``ft_cube`` and the packed header state of a fresh walk (its misroute budget)."""

    k: int
    n: int
    iparams: object
    width: int
    pp: object
    cube: object
    budget: int


@dataclass(frozen=True)
class FaultWalk:
    """A paper walk: what it accepts beyond the generic rules, and its hooks (who calls
    each: docs/ARCHITECTURE.md, "How to add a family with its own fault walk").

    Attributes
    ----------
    name, models, why : str, tuple of str, str
        Its key (``Facets.fault_walk``, the algorithms' ``on``); the fault-knowledge
        models it defines (``local``, ``lookahead``); why others are refused.
    vc_classes : bool
        It has deadlock-free VC classes (``sim_class``, ``hop_vcs``); without, the
        simulator runs it on one VC.
    generic_rules : bool
        The family also offers the generic rules (and their aliases, ``escape`` →
        ``detour``) beside the walk.
    tie_break, offers, link_ids : bool, tuple of str, bool
        It takes ``--tie-break``; registered algorithms it walks beyond those whose ``on``
        names it; 001's link ids name its links (``faults/links.py``).
    hop, begin : numba kernels
        ``hop(wk, w, s, prev, hops, t, state, ports, extra, trace, nsw)`` → ``(port,
        status)``: the decision at switch ``s`` (``wk`` the context, ``w`` a
        ``faults/walkloop.py`` ``WalkIn``, ``state`` the packet's walk state, updated;
        ``trace`` None or the explanation's record). ``begin(wk, flags, src)`` →
        ``(nodes, hop limit, misroute budget, switch of node src)``.
    capacity, hop_vcs : callable, callable or None
        ``capacity(topo)``: room for the switches of any walk; ``hop_vcs(topo, switches,
        ports, count, vcs=64)``: the VC class of each hop (-1: needs a class ``>= vcs``).
    study, study_type, study_fault_free
        ``study(topo, tie_break)``: the context ``wk``, a named tuple of type
        ``study_type`` with ``k`` and ``n``; ``study_fault_free(wk, rt, stamp, s, t,
        minimal, cap, buf, out_sw, out_port, ip, scr, seed, pkt)`` → ``(d0, exact)``,
        compiled inline (None: the routing's length).
    a1_shortcut, cut_off : bool
        The walk without detours stands for every detour algorithm on a trial where it is
        healthy; a node whose only link is faulty is cut off without a search.
    sim_setup, sim_view, of_view : callable, type, numba kernel
        ``sim_setup(topo, flags)`` → :class:`SimSetup`; the simulator's fault view (a
        named tuple of :data:`VIEW_FIELDS`); ``of_view(f, src, dst)`` → ``(wk, packet
        key)``.
    sim_tops, sim_class : numba kernels
        ``(f, nsw, V)`` → the highest VC class of the walk in the view's scratch (-1:
        refused); ``(f, sw, in_port, in_vc, out_port, hop, V)`` → one hop's (-1: any).
    vc_rule, warmup : str, tuple of (str, list of str)
        How its hops are layered on VCs, in words; ``fattree warmup`` steps.
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
        """Raise ``ParameterError`` naming ``name`` and ``family`` unless the walk defines
        ``model``."""
        if model not in self.models:
            only = ", ".join(repr(m) for m in self.models)
            raise ParameterError(
                f"{name}={model!r} is not defined for {family}: only {only} ({self.why})"
            )


FAULT_WALKS: Registry[FaultWalk] = Registry("fault walk")


def register_walk(walk: FaultWalk) -> FaultWalk:
    """Register a paper walk under ``walk.name`` (called once by its module); returns it.

    Parameters
    ----------
    walk : FaultWalk

    Examples
    --------
    >>> from fattree.faults.walks import FAULT_WALKS
    >>> FAULT_WALKS.get("mikant").study_type.__name__
    'MikantStudy'
    """
    return FAULT_WALKS.add(walk.name, walk)


def walk_by_type(cls) -> FaultWalk | None:
    """The walk whose study context or simulator view has type ``cls`` (None: none)."""
    return next((w for _, w in FAULT_WALKS.items() if cls in (w.study_type, w.sim_view)), None)


@dataclass(frozen=True)
class LoopEngine:
    """What the walk loop (``faults/walkloop.py``) runs for an engine without a paper walk
    (the generic rules, the recomputed tables): ``types``, its context type and its fault
    views; ``hop``, ``begin`` and ``of_view`` as in :class:`FaultWalk`."""

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
    engines = (e for _, e in LOOP_ENGINES.items() if cls in e.types)
    return walk_by_type(cls) or next(engines, None)


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
