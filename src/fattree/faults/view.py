"""The fault view: one fault set and one fault-tolerant algorithm, ready for any consumer.

A :class:`FaultRouter` (:func:`fault_router`) holds the engine's arrays as one named tuple
(:meth:`FaultRouter.view`) whose type names the engine (``ENG_*``), so a caller compiled
over it gets that engine's kernels and no other. Every engine walks a pair in the one walk
loop (:func:`fattree.faults.walkloop.sim_walk`) and layers it on VC classes (a paper walk's
own, up*/down* turn layers elsewhere); :func:`admit_route` serves the simulator's admission,
the channel dependency graph and the load bound (the per-hop calls: ``sim/faulthop.py``).
The kernels allocate nothing (they run in the cycle loop). docs/simulator.md ("Faults").
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit
from numba.extending import overload, register_jitable

from ..compiling import nrt_free
from ..errors import ParameterError
from .algorithms import FT_ALGORITHMS, RULE_ADAPTIVE, check_model, resolve_algorithms
from .generic import (
    ADAPTIVE_SCRATCH,
    AdaptiveRule,
    FaultsAdaptive,
    FaultsGeneric,
    RouteContext,
    adaptive_memo,
    turn_classes,
)
from .gwalk import FaultsTable, GenericRouter
from .hooks import (
    FI_BUDGET,
    FI_COLS,
    FI_ENG,
    FI_FLAGS,
    FI_K,
    FI_LAYER1,
    FI_LOOK,
    FI_N,
    FI_N_NODES,
    FI_RULE,
    FI_TTL,
    OK,
    STATE_BYTE,
    TTL,
    VIEW_FIELDS,
    W_IP,
    W_PORT,
    W_ROWS,
    W_SW,
    W_VCS,
    walk_by_type,
)
from .links import fault_mask
from .rules import default_ft_algorithm, one_vc_layered
from .walkloop import sim_walk
from .walks import FAULT_WALKS, walk_of

# the engine of a run (``cfg[C_FT]``): none, the generic rules (``sp``, ``minimal``,
# ``detour``), the recomputed tables, each paper walk (in faults/walks.py's order), then
# ``adaptive`` (the simulator's allocator chooses among its candidates)
ENG_NONE, ENG_GENERIC, ENG_TABLE = 0, 1, 2
ENG_WALKS = {name: 3 + i for i, (name, _) in enumerate(FAULT_WALKS.items())}
ENG_ADAPTIVE = 3 + len(ENG_WALKS)
FS_ADMIT_OK, FS_ADMIT_UNROUTABLE, FS_ADMIT_LIVELOCK = 0, 1, 2


@dataclass(eq=False)
class FaultRouter:
    """One fault set and one fault-tolerant algorithm, ready for the cycle loop; the
    ``ft_*`` :meth:`fields` (:mod:`fattree.sim.state`'s) do not grow with the pairs."""

    algorithm: str
    faulty: np.ndarray  # bool over topo.links
    model: str
    engine: int
    walk: object  # the FaultWalk it runs (faults/hooks.py), None: the generic rules
    ft_i: np.ndarray
    ft_stamp: np.ndarray
    ft_tab: np.ndarray
    ft_order: np.ndarray
    ft_cube: np.ndarray
    ft_pp: np.ndarray
    ft_rt: RouteContext
    ft_ws: np.ndarray

    @property
    def vc_rule(self) -> str:
        """How hops are layered on VCs (``vcs > 1``, or one VC with ``FI_LAYER1``)."""
        return "up*/down* turn layers" if self.walk is None else self.walk.vc_rule

    @property
    def one_vc_layered(self) -> bool:
        """On one VC, routes with a down->up turn are refused (deadlock-free up*/down*)."""
        return bool(self.ft_i[FI_LAYER1])

    def route(self, src: int, dst: int, vcs: int = 1) -> tuple[int, list[int], list[int]]:
        """The route of ``src -> dst`` as its source evaluates it: ``(FS_ADMIT_*, port at
        each switch, VC class of each hop)``, the lists empty unless ``FS_ADMIT_OK``.

        Examples
        --------
        >>> import fattree, numpy as np
        >>> t = fattree.build("mikant:k=2,n=2")
        >>> fr = fault_router(t, "gns", np.zeros(t.n_links, bool))
        >>> fr.route(0, 5)
        (0, [3, 0], [0, 0])
        """
        ws = self.ft_ws.copy()
        adm, nsw = admit_route(self.view(ws), int(vcs), int(src), int(dst))
        if adm != FS_ADMIT_OK:
            return int(adm), [], []
        return int(adm), ws[W_PORT, :nsw].tolist(), ws[W_VCS, :nsw].tolist()

    def path(self, src: int, dst: int, vcs: int = 0):
        """The walk of ``src -> dst`` whatever its outcome: ``(status, switches, ports, VC
        class of each hop with vcs classes or None)`` (a dependency's witness route).

        Examples
        --------
        >>> import fattree, numpy as np
        >>> t = fattree.build("mikant:k=2,n=2")
        >>> fault_router(t, "gns", np.zeros(t.n_links, bool)).path(0, 5, vcs=2)
        (0, [0, 3], [3, 0], [0, 0])
        """
        ws = self.ft_ws.copy()
        st, nsw, _ = walk_pair(self.view(ws), int(src), int(dst), int(vcs))
        nport = nsw if st == OK else max(nsw - 1, 0)
        classes = ws[W_VCS, :nport].tolist() if vcs else None
        return int(st), ws[W_SW, :nsw].tolist(), ws[W_PORT, :nport].tolist(), classes

    def view(self, ws: np.ndarray | None = None):
        """The fault view (a :data:`VIEWS` tuple) with walk scratch ``ws`` (or its own)."""
        f = self.fields()
        f["ft_ws"] = self.ft_ws if ws is None else ws
        return VIEWS[self.engine](**f)

    def fields(self) -> dict:
        return {f: getattr(self, f) for f in VIEW_FIELDS.split()}


def no_faults(topo) -> dict:
    """The ``ft_*`` fields of a fault-free run (never read; a faulted run's defaults). The
    walked engines read only the port and link tables of its routing context, typed as the
    Monte Carlo loop's (one compiled walk serves both)."""
    z, i1, t1 = np.int64(0), np.zeros(1, np.int64), np.zeros((1, 1), np.int32)
    net = (topo.port_peer, topo.link_index, np.int64(topo.n_nodes))
    return {
        "ft_i": np.zeros(FI_COLS, np.int64),
        "ft_stamp": np.zeros(1, np.int64),
        "ft_tab": np.zeros((1, 1), np.int32),
        "ft_order": np.zeros(1, np.int64),
        "ft_cube": np.zeros((4, 1), np.int64),
        "ft_pp": np.zeros((1, 1), np.int64),
        "ft_rt": RouteContext(z, i1, t1, z, i1, t1, z, *net, np.array(topo.node_switch, np.int64)),
        "ft_ws": np.zeros((W_ROWS, 1), np.int64),
    }


def fault_router(
    topo, algorithm: str | None, faulty: np.ndarray, vcs: int = 1, model: str = "local"
) -> FaultRouter:
    """Bind a fault-tolerant algorithm to a topology and a fault set for the simulator.

    Parameters
    ----------
    topo : Topology
        Any family (``fattree faults SPEC --list``).
    algorithm : str or None
        A name of :data:`fattree.faults.FT_ALGORITHMS` defined for the family (not
        ``oracle``); None: the family's default (``--fault-rate`` alone).
    faulty : bool array over ``topo.links``
    vcs : int
        1: every hop on VC 0 (with the up*/down* turn rule where ``FamilyRules.one_vc``);
        more: the deadlock-free classes (a walk's own, or up*/down* turn layers). A route
        needing a class ``>= vcs`` is unroutable.
    model : {"local", "lookahead"}

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("kant:k=4,n=3")
    >>> fr = fault_router(t, None, np.zeros(t.n_links, bool))
    >>> fr.algorithm, fr.engine == ENG_GENERIC
    ('detour', True)

    References
    ----------
    001 §4.2, 004 Algorithm 1; docs/simulator.md ("Faults").
    """
    fam = topo.family
    if algorithm is None:
        algorithm = default_ft_algorithm(fam)
    valid = ", ".join(n for n, a in FT_ALGORITHMS.items() if a.defined_for(fam) and not a.is_oracle)
    try:
        (alg,) = resolve_algorithms([algorithm], fam)
    except ParameterError:  # the simulator's own list: the family's, less the oracle
        raise ParameterError(
            f"algorithm {algorithm!r} is not defined for family {fam!r}; valid: {valid} "
            f"(what the simulator routes: the oracle is a bound)"
        ) from None
    if alg.is_oracle:
        raise ParameterError(
            f"algorithm='oracle' is a bound, not a routing; valid for {fam}: {valid}"
        )
    check_model(model)
    faulty = fault_mask(topo, faulty)
    walked = walk_of(fam) if alg.walked_on(fam) else None
    v = no_faults(topo)  # the fields an engine does not set
    fi = v["ft_i"]
    fi[[FI_FLAGS, FI_LOOK, FI_N_NODES]] = alg.flags, model == "lookahead", topo.n_nodes
    v["ft_stamp"] = faulty.astype(np.int64)
    if walked is not None:
        walked.check_model(model, fam, "fault_model")
        if vcs > 1 and not walked.vc_classes:
            have = ", ".join(n for n, w in FAULT_WALKS.items() if w.vc_classes)
            raise ParameterError(
                f"vcs={vcs} with faults: the deadlock-free VC classes (ft_vc) are "
                f"defined for {have} only; use vcs=1 on {topo.spec}"
            )
        su = walked.sim_setup(topo, alg.flags)
        fi[FI_K], fi[FI_N] = su.k, su.n
        eng = ENG_WALKS[walked.name]
        if 2 * su.k - 1 > STATE_BYTE or su.budget > STATE_BYTE:
            raise ParameterError(
                f"k={su.k} is too large for faults in the simulator: the header holds the "
                f"walk state one byte a field (ports and misroutes <= {STATE_BYTE})"
            )
        fi[FI_BUDGET] = su.budget  # the packed initial state: pack_state of a fresh walk
        ip, width, v["ft_pp"], v["ft_cube"] = su.iparams, su.width, su.pp, su.cube
    else:
        g = GenericRouter(topo, alg, faulty, model)
        eng = ENG_TABLE if g.is_table else ENG_GENERIC
        if alg.rule == RULE_ADAPTIVE:  # its table: the memo of the onward walks
            eng = ENG_ADAPTIVE
            v["ft_tab"] = adaptive_memo(topo)
        if g.is_table:
            v["ft_tab"] = np.ascontiguousarray(g.table, np.int32)
        fi[[FI_RULE, FI_LAYER1, FI_BUDGET, FI_TTL]] = (
            alg.rule,
            one_vc_layered(fam),
            g.ctx.budget,
            g.ctx.ttl,
        )
        v["ft_rt"] = g.ctx.rt  # the Monte Carlo loop's own context: one compiled rule set
        v["ft_order"] = np.ascontiguousarray(g.order, np.int64)
        width = max(g.ctx.ttl + 2, ADAPTIVE_SCRATCH * (topo.max_ports + 2))  # adaptive_scratch
        ip = np.zeros(0, np.int64)
    fi[FI_ENG] = eng
    v["ft_ws"] = np.zeros((W_ROWS, width), np.int64)
    v["ft_ws"][W_IP, : len(ip)] = ip
    return FaultRouter(alg.name, faulty, model, eng, walked, **v)


# compiled into its caller (it returns arrays, which only the caller's reference counting
# may own: the simulator's kernels run without it)
@register_jitable(inline="always")
def adaptive_rule(f, layers):
    """The :class:`~fattree.faults.generic.AdaptiveRule` of an ``adaptive`` router's view
    ``f`` (``ft_tab``: its memo of onward walks), checking ``layers`` up*/down* turn layers
    (0: none); from Python and numba code alike.

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("kant:k=2,n=3")
    >>> fr = fault_router(t, "adaptive", np.zeros(t.n_links, bool))
    >>> ar = adaptive_rule(fr.view(), 0)
    >>> bool(ar.look), int(ar.ttl) == int(fr.ft_i[FI_TTL]), ar.memo is fr.ft_tab
    (False, True, True)
    """
    look, ttl = f.ft_i[FI_LOOK] != 0, f.ft_i[FI_TTL]
    return AdaptiveRule(
        f.ft_rt, look, f.ft_stamp, np.int64(1), ttl, f.ft_order, np.int64(layers), f.ft_tab
    )


# The view types (each engine's module defines its own) and their fields
Faults = namedtuple("Faults", VIEW_FIELDS)
Faults.__doc__ = "The fields of a fault view; the simulator kernel's last group."
VIEWS = {ENG_GENERIC: FaultsGeneric, ENG_TABLE: FaultsTable, ENG_ADAPTIVE: FaultsAdaptive}
VIEWS.update({ENG_WALKS[name]: w.sim_view for name, w in FAULT_WALKS.items()})


@njit(**nrt_free())
def _tops_updown(f, nsw, V):
    """Generic and table engines: up*/down* turn layers."""
    ws = f.ft_ws
    return turn_classes(
        f.ft_rt.port_peer, f.ft_i[FI_N_NODES], f.ft_order, ws[W_SW], ws[W_PORT], nsw, ws[W_VCS]
    )


def _engine_tops(f, nsw, V):
    """The highest VC class of the walk in the view's scratch (-1: refused), the classes
    into ``ws[W_VCS]``: a paper walk's ``sim_tops``, else up*/down* turn layers."""


@overload(_engine_tops, inline="always")
def _ov_engine_tops(f, nsw, V):
    walk = walk_by_type(f.instance_class)
    fn = _tops_updown if walk is None else walk.sim_tops
    return lambda f, nsw, V: fn(f, nsw, V)


@njit(cache=True)
def walk_pair(f, src, dst, V):
    """:func:`sim_walk` and, with ``V`` > 0, the VC class of each hop with ``V`` classes
    (``ws[W_VCS]``): ``(status, switches, highest class)``."""
    st, nsw = sim_walk(f, src, dst)
    top = _engine_tops(f, nsw, V) if V > 0 and st == OK else -1
    return st, nsw, top


@njit(**nrt_free())
def admit_route(f, V, src, dst):
    """The route of ``src -> dst`` as its source evaluates it: ``(FS_ADMIT_*, switches)``,
    switches, ports and VC classes in ``ws[W_SW]``, ``ws[W_PORT]``, ``ws[W_VCS]``;
    unroutable: the walk fails or needs a class ``>= V``; livelock: its hop limit."""
    st, nsw = sim_walk(f, src, dst)
    if st != OK:
        return (FS_ADMIT_LIVELOCK if st == TTL else FS_ADMIT_UNROUTABLE), nsw
    if V > 1 or f.ft_i[FI_LAYER1] != 0:
        top = _engine_tops(f, nsw, V)
        if top < 0 or top >= V:
            return FS_ADMIT_UNROUTABLE, nsw
    else:
        f.ft_ws[W_VCS, :nsw] = 0
    return FS_ADMIT_OK, nsw


__all__ = [
    "ENG_ADAPTIVE",
    "ENG_GENERIC",
    "ENG_NONE",
    "ENG_TABLE",
    "ENG_WALKS",
    "FS_ADMIT_LIVELOCK",
    "FS_ADMIT_OK",
    "FS_ADMIT_UNROUTABLE",
    "FaultRouter",
    "Faults",
    "VIEWS",
    "adaptive_rule",
    "admit_route",
    "fault_router",
    "no_faults",
    "walk_pair",
]
