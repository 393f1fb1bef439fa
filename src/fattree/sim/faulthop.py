"""Fault-tolerant routing in the simulator, hop by hop (no per-pair table).

Each switch a packet's head reaches asks :func:`fault_port` for its output port under the
fault set, from the packet's header (source, destination, hops so far) and a few bytes
of per-packet state (``PK_FT``: the misroutes left of ``detour``), through the kernels
of :mod:`fattree.faults` that also serve the Monte Carlo walk, ``route --explain`` and
``deadlock --faults``:

* ``ENG_GENERIC`` (``sp``, ``minimal``, ``detour`` on every family without a paper walk):
  :func:`fattree.faults.generic.ft_hop`, the per-hop kernel itself; the previous switch is
  the input port's peer, the hop count the header's;
* ``ENG_ADAPTIVE`` (``adaptive``): ``minimal``'s port, then the other candidates of
  :func:`fattree.faults.generic.adaptive_ports` in the head's route word, among which the
  allocator chooses (its own view, so the other engines compile none of it);
* ``ENG_TABLE`` (``updown-table``, ``shortest-table``): one entry of the switch x
  destination forwarding table recomputed on the surviving graph (S x N, never per pair);
* a paper walk (001's detours, 004's Algorithm 1): the ``sim_*`` kernels its module
  registers (:class:`fattree.faults.hooks.FaultWalk`), over the very hop its walk loops
  over; the walk state (misroutes left, detour kind and step, the saved digits or the
  rest of the lookahead plan) travels in ``PK_FT``, one byte a field, so each switch
  decides in O(1).

The VC class of a hop follows from the input port and the VC the packet arrived on
(the walk's own classes, e.g. MiKANT's ``ft_vc``; up*/down* turn layers elsewhere).

At injection the source evaluates the same kernel along the whole route
(:func:`fault_admit`): a packet whose walk fails (a disconnected pair, a dead end, the hop
limit, or a VC class ``>= vcs``) is counted unroutable (or livelock) and never enters the
network; the walks are deterministic, so an admitted packet never meets a dead end (and
``adaptive`` offers only ports from which its walk still delivers).
All kernels here allocate nothing (they run inside the cycle loop, compiled without
numba's reference counting). docs/simulator.md ("Faults").
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

from ..errors import ParameterError
from ..faults.algorithms import FT_ALGORITHMS, RULE_ADAPTIVE, check_model, resolve_algorithms
from ..faults.generic import (
    AdaptiveAt,
    AdaptiveRule,
    RouteContext,
    S_BUDGET,
    S_HOPS,
    S_PREV,
    adaptive_memo,
    adaptive_ports,
    candidates,
    ft_hop,
    ft_walk_generic,
    turn_classes,
)
from ..faults.gwalk import GenericRouter, table_route
from ..faults.hooks import (
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
    W_GEN,
    W_HOW,
    W_IP,
    W_PORT,
    W_ROWS,
    W_SW,
    W_VCS,
    walk_by_type,
)
from ..faults.links import fault_mask
from ..faults.rules import default_ft_algorithm, one_vc_layered
from ..faults.walkloop import sim_port, sim_walk
from ..faults.walks import FAULT_WALKS, walk_of
from ..routing.shared import pair_weight
from .layout import PK_FT, PK_SRC

# the engine of a run (``cfg[C_FT]``): none, the generic rules, the tables, then each
# paper walk in the order of faults/walks.py
ENG_NONE, ENG_GENERIC, ENG_TABLE = 0, 1, 2
ENG_WALKS = {name: 3 + i for i, (name, _) in enumerate(FAULT_WALKS.items())}
ENG_ADAPTIVE = 3 + len(ENG_WALKS)  # the generic rules' adaptive: its own view, compiled apart
FS_ADMIT_OK, FS_ADMIT_UNROUTABLE, FS_ADMIT_LIVELOCK = 0, 1, 2
# The adaptive rule's candidates of a head are kept in its FS_ROUTE word (int32, evaluated
# once per switch like every fault engine's port): -2 - (mask << 5 | first), bits and
# first the ports themselves on switches of at most 25 ports, else positions in the
# switch's list of minimal ports (faults/generic.py candidates, recomputed to read it)
ADAPTIVE_CANDIDATES = 25  # positions a word holds (first: < 32)


@dataclass(eq=False)
class FaultRouter:
    """One fault set and one fault-tolerant algorithm, ready for the cycle loop.

    ``arrays()`` are the ``net`` fields of :mod:`fattree.sim.state` (``ft_*``); nothing
    here grows with the number of (source, destination) pairs.
    """

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

    @property
    def table_bytes(self) -> int:
        return int(self.ft_tab.nbytes) if self.engine in (ENG_TABLE, ENG_ADAPTIVE) else 0

    def route(self, src: int, dst: int, vcs: int = 1) -> tuple[int, list[int], list[int]]:
        """The whole route of ``src -> dst`` as the source evaluates it (the walk, not the
        per-hop kernel): ``(FS_ADMIT_*, output port at each switch, VC class of each hop)``
        (both lists empty unless ``FS_ADMIT_OK``). For checks and the reference simulator.

        Examples
        --------
        >>> import fattree, numpy as np
        >>> t = fattree.build("mikant:k=2,n=2")
        >>> fr = fault_router(t, "gns", np.zeros(t.n_links, bool))
        >>> fr.route(0, 5)
        (0, [3, 0], [0, 0])
        """
        ws = self.ft_ws.copy()
        adm, nsw = _admit(self.view(ws), int(vcs), int(src), int(dst))
        if adm != FS_ADMIT_OK:
            return int(adm), [], []
        return int(adm), ws[W_PORT, :nsw].tolist(), ws[W_VCS, :nsw].tolist()

    def view(self, ws: np.ndarray | None = None):
        """The fault view of this router (a :data:`VIEWS` tuple, its type names the
        engine) with walk scratch ``ws`` (default: the router's own)."""
        f = self.fields()
        if ws is not None:
            f["ft_ws"] = ws
        return VIEWS[self.engine](**f)

    def fields(self) -> dict:
        return {f: getattr(self, f) for f in VIEW_FIELDS.split()}


def _rt_dummy(topo) -> tuple:
    """A routing context for the walked engines, which read only its port and link
    tables (the same read-only arrays as the Monte Carlo loop's context, so both share
    one compiled walk)."""
    i1 = np.zeros(1, np.int64)
    t1 = np.zeros((1, 1), np.int32)
    return RouteContext(
        np.int64(0),
        i1,
        t1,
        np.int64(0),
        i1,
        t1,
        np.int64(0),
        topo.port_peer,
        topo.link_index,
        np.int64(topo.n_nodes),
        np.array(topo.node_switch, np.int64),
    )


def no_faults(topo) -> dict:
    """The ``ft_*`` fields of a fault-free run (never read)."""
    return {
        "ft_i": np.zeros(FI_COLS, np.int64),
        "ft_stamp": np.zeros(1, np.int64),
        "ft_tab": np.zeros((1, 1), np.int32),
        "ft_order": np.zeros(1, np.int64),
        "ft_cube": np.zeros((4, 1), np.int64),
        "ft_pp": np.zeros((1, 1), np.int64),
        "ft_rt": _rt_dummy(topo),
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
        1: every hop on VC 0 (fat trees, ``FamilyRules.one_vc``: with the up*/down* turn
        rule, so a route with a down->up turn is unroutable and 1 VC is deadlock-free);
        more: the deadlock-free classes (MiKANT: ``ft_vc``'s escape classes; other
        families and the table engines: up*/down* turn layers). A route needing a class
        ``>= vcs`` is unroutable.
    model : {"local", "lookahead"}

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("kant:k=4,n=3")
    >>> fr = fault_router(t, None, np.zeros(t.n_links, bool))
    >>> fr.algorithm, fr.engine == ENG_GENERIC, fr.table_bytes
    ('detour', True, 0)

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
    if walked is not None:
        walked.check_model(model, fam, "fault_model")
    if walked is not None and vcs > 1 and not walked.vc_classes:
        have = ", ".join(n for n, w in FAULT_WALKS.items() if w.vc_classes)
        raise ParameterError(
            f"vcs={vcs} with faults: the deadlock-free VC classes (ft_vc) are "
            f"defined for {have} only; use vcs=1 on {topo.spec}"
        )
    R = topo.max_ports
    N = topo.n_nodes
    fi = np.zeros(FI_COLS, np.int64)
    fi[FI_FLAGS] = alg.flags
    fi[FI_LOOK] = int(model == "lookahead")
    fi[FI_N_NODES] = N
    stamp = faulty.astype(np.int64)
    tab = np.zeros((1, 1), np.int32)
    order = np.zeros(1, np.int64)
    cube = np.zeros((4, 1), np.int64)
    pp = np.zeros((1, 1), np.int64)
    rt = _rt_dummy(topo)
    if walked is not None:
        su = walked.sim_setup(topo, alg.flags)
        fi[FI_K], fi[FI_N] = su.k, su.n
        eng = ENG_WALKS[walked.name]
        if 2 * su.k - 1 > STATE_BYTE or su.budget > STATE_BYTE:
            raise ParameterError(
                f"k={su.k} is too large for faults in the simulator: the header holds the "
                f"walk state one byte a field (ports and misroutes <= {STATE_BYTE})"
            )
        fi[FI_BUDGET] = su.budget  # the packed initial state: pack_state of a fresh walk
        ip, width, pp, cube = su.iparams, su.width, su.pp, su.cube
    else:
        g = GenericRouter(topo, alg, faulty, model)
        eng = ENG_TABLE if g.is_table else ENG_GENERIC
        if alg.rule == RULE_ADAPTIVE:  # its table: the memo of the onward walks
            eng = ENG_ADAPTIVE
            tab = adaptive_memo(topo)
        fi[FI_RULE] = alg.rule
        fi[FI_LAYER1] = int(one_vc_layered(fam))
        fi[FI_BUDGET] = g.ctx.budget
        fi[FI_TTL] = g.ctx.ttl
        rt = g.ctx.rt  # the Monte Carlo loop's own context: one compiled rule set
        if g.is_table:
            tab = np.ascontiguousarray(g.table, np.int32)
        order = np.ascontiguousarray(g.order, np.int64)
        width = max(g.ctx.ttl + 2, 5 * (R + 1) + 4)  # adaptive_scratch
        ip = np.zeros(0, np.int64)
    fi[FI_ENG] = eng
    ws = np.zeros((W_ROWS, width), np.int64)
    ws[W_IP, : len(ip)] = ip
    return FaultRouter(
        alg.name, faulty, model, eng, walked, fi, stamp, tab, order, cube, pp, rt, ws
    )


# ------------------------------------------------------------------------ numba kernels
# Each engine is four small kernels over the fault view ``f`` (a :data:`VIEWS` tuple):
# the whole walk of a pair into ``ws`` (``walk``), the VC classes of that walk
# (``tops``), the output port at one switch (``port``, updating the walk state in the
# packet's header) and the VC class of one hop (``vclass``). A paper walk's four are
# the walk loop's over its record's hop (faults/walkloop.py) and the record's own VC
# classes (``FaultWalk.sim_tops``, ``sim_class``). They are chosen
# by the view's type when the caller is compiled (:func:`_engine`), so a run compiles
# the engine it uses and no other.


@njit(cache=True)
def _walk_table(f, src, dst):
    """The table engines: the recomputed forwarding table, hop by hop."""
    ws, rt = f.ft_ws, f.ft_rt
    st, _, nsw = table_route(
        f.ft_tab,
        rt.port_peer,
        rt.node_switch,
        f.ft_stamp,
        f.ft_i[FI_N_NODES],
        src,
        -1,
        dst,
        ws[W_SW],
        ws[W_PORT],
    )
    return st, nsw


@njit(cache=True)
def _walk_generic(f, src, dst):
    """The generic rules (faults/generic.py) over the family's routing."""
    fi, ws = f.ft_i, f.ft_ws
    st, _, nsw = ft_walk_generic(
        f.ft_rt,
        fi[FI_RULE],
        fi[FI_LOOK] != 0,
        fi[FI_BUDGET],
        fi[FI_TTL],
        f.ft_stamp,
        np.int64(1),
        src,
        -1,
        dst,
        ws[W_SW],
        ws[W_PORT],
        ws[W_HOW],
        ws[W_GEN],
    )
    return st, nsw


@njit(cache=True)
def _tops_updown(f, nsw, V):
    """Generic and table engines: up*/down* turn layers."""
    ws = f.ft_ws
    return turn_classes(
        f.ft_rt.port_peer, f.ft_i[FI_N_NODES], f.ft_order, ws[W_SW], ws[W_PORT], nsw, ws[W_VCS]
    )


@njit(cache=True)
def _port_table(f, pk, p, sw, in_port, vc, dst, hop, V):
    return np.int64(f.ft_tab[sw, dst])


@njit(cache=True)
def _port_generic(f, pk, p, sw, in_port, vc, dst, hop, V):
    fi, rt, ws = f.ft_i, f.ft_rt, f.ft_ws
    port_peer = rt.port_peer
    N = fi[FI_N_NODES]
    R = port_peer.shape[1]
    g = ws[W_GEN]
    state = g[4 * (R + 1) : 4 * (R + 1) + 4]
    prev = port_peer[sw, in_port] - N if hop > 0 else -1
    state[S_BUDGET] = pk[p, PK_FT]
    state[S_PREV] = prev
    state[S_HOPS] = hop + 1  # links crossed, the source's node link included
    q = ft_hop(
        rt,
        fi[FI_RULE],
        fi[FI_LOOK] != 0,
        f.ft_stamp,
        np.int64(1),
        np.int64(sw),
        np.int64(dst),
        state,
        fi[FI_TTL],
        g[0 : R + 1],
        g[R + 1 : 2 * (R + 1)],
        g[2 * (R + 1) : 3 * (R + 1)],
        g[3 * (R + 1) : 4 * (R + 1)],
    )
    pk[p, PK_FT] = state[S_BUDGET]
    return q


@njit(cache=True)
def _port_adaptive(f, pk, p, sw, in_port, vc, dst, hop, V):
    """The ``adaptive`` rule's candidates at ``sw`` (faults/generic.py
    :func:`adaptive_ports`; ``minimal``'s port first) as one route word: the port alone
    when it is the only one; -1: none. ``ft_tab`` holds the memo of its onward walks."""
    fi, ws, order = f.ft_i, f.ft_ws, f.ft_order
    N = fi[FI_N_NODES]
    prev = np.int64(f.ft_rt.port_peer[sw, in_port] - N if hop > 0 else -1)
    layers = np.int64(V if V > 1 or fi[FI_LAYER1] != 0 else 0)
    was_down = hop > 0 and not order[N + sw] < order[N + prev]
    cls = np.int64(vc if hop > 0 else 0)
    at = AdaptiveAt(np.int64(sw), prev, np.int64(hop + 1), np.int64(dst), cls, was_down)
    ar = AdaptiveRule(
        f.ft_rt, fi[FI_LOOK] != 0, f.ft_stamp, np.int64(1), fi[FI_TTL], order, layers, f.ft_tab
    )
    out = ws[W_HOW]
    m = adaptive_ports(ar, at, out, ws[W_GEN])
    if m == 0:
        return -1
    first = out[0]
    if m <= 1:
        return first
    if f.ft_rt.port_peer.shape[1] <= ADAPTIVE_CANDIDATES:  # a mask of the ports themselves
        word = first
        for i in range(1, m):
            word |= np.int64(1) << (out[i] + 5)
        return -2 - word
    n, lst = _minimal_list(f, sw, dst)
    word = np.int64(-1)
    for j in range(min(n, 32)):
        if lst[j] == first:
            word = np.int64(j)
    if word < 0:  # (beyond the word's reach: the first choice alone)
        return first
    for j in range(min(n, ADAPTIVE_CANDIDATES)):
        for i in range(1, m):
            if out[i] == lst[j]:
                word |= np.int64(1) << (j + 5)
    return -2 - word


@njit(cache=True, inline="always")
def _minimal_list(f, sw, dst):
    """The minimal ports of ``sw`` towards ``dst`` in the rule's preference order (in the
    last part of the generic scratch): ``(count, ports)``."""
    g = f.ft_ws[W_GEN]
    R1 = f.ft_rt.port_peer.shape[1] + 1
    lst = g[4 * R1 + 4 : 5 * R1 + 4]
    n = candidates(f.ft_rt, sw, dst, f.ft_i[FI_TTL], lst, g[2 * R1 : 3 * R1], g[3 * R1 : 4 * R1])
    return n, lst


@njit(cache=True)
def _decode_route(f, word, sw, dst, out):
    """The candidate ports of route word ``word`` at ``sw`` for ``dst`` into ``out``: one
    port (``word >= 0``), none (-1), or the adaptive rule's first port, then the others
    of its mask in the order of the switch's minimal ports."""
    if word >= 0:
        out[0] = word
        return 1
    if word == -1:
        return 0
    c = -2 - word
    first = c & 31
    R = f.ft_rt.port_peer.shape[1]
    if R <= ADAPTIVE_CANDIDATES:  # the mask of the ports themselves, from first on round
        out[0] = first  # (an order fixed by the port, not by its number: ties spread)
        k = 1
        for j in range(1, R):
            q = first + j - (R if first + j >= R else 0)
            if (c >> (q + 5)) & 1:
                out[k] = q
                k += 1
        return k
    n, lst = _minimal_list(f, sw, dst)
    out[0] = lst[first]
    k = 1
    for j in range(min(n, ADAPTIVE_CANDIDATES)):
        if j != first and (c >> (j + 5)) & 1:
            out[k] = lst[j]
            k += 1
    return k


@njit(cache=True)
def _class_updown(f, sw, in_port, in_vc, out_port, hop, V):
    """Up*/down* turn layers: one class more after each down -> up turn."""
    if V <= 1:
        return -1
    port_peer = f.ft_rt.port_peer
    order = f.ft_order
    N = f.ft_i[FI_N_NODES]
    cls = in_vc if hop > 0 else 0
    v = port_peer[sw, out_port]
    if v < N:
        return cls
    a = order[N + sw]
    b = order[v]
    if a < 0 or b < 0:
        return -1
    was_down = False
    if hop > 0:
        u = port_peer[sw, in_port]
        was_down = not (a < order[u])
    if b < a and was_down:
        cls += 1
    return cls if cls < V else -1


# The fault view: the ``ft_*`` arrays of a :class:`FaultRouter` as one named tuple whose
# type names its engine (the simulator kernel takes it as its last group, None without
# faults; the load bound and :meth:`FaultRouter.route` take it too).
Faults = namedtuple("Faults", VIEW_FIELDS)
Faults.__doc__ = "The fields of a fault view (sim/faulthop.py); the kernel's last group."
FaultsGeneric = namedtuple("FaultsGeneric", VIEW_FIELDS)
FaultsAdaptive = namedtuple("FaultsAdaptive", VIEW_FIELDS)
FaultsTable = namedtuple("FaultsTable", VIEW_FIELDS)
VIEWS = {ENG_GENERIC: FaultsGeneric, ENG_TABLE: FaultsTable, ENG_ADAPTIVE: FaultsAdaptive}
VIEWS.update({ENG_WALKS[name]: w.sim_view for name, w in FAULT_WALKS.items()})


@dataclass(frozen=True)
class _Engine:
    walk: object
    tops: object
    port: object
    vclass: object


_BUILTIN = {
    FaultsGeneric: _Engine(_walk_generic, _tops_updown, _port_generic, _class_updown),
    FaultsAdaptive: _Engine(_walk_generic, _tops_updown, _port_adaptive, _class_updown),
    FaultsTable: _Engine(_walk_table, _tops_updown, _port_table, _class_updown),
}


def _engine(view_type) -> _Engine:
    """The four kernels of the engine whose view has type ``view_type``."""
    if view_type in _BUILTIN:
        return _BUILTIN[view_type]
    w = walk_by_type(view_type)
    return _Engine(sim_walk, w.sim_tops, sim_port, w.sim_class)


def _engine_walk(f, src, dst):
    """The walk of the view's engine (resolved by type when compiled)."""


def _engine_tops(f, nsw, V):
    """The VC classes of the walk in the view's scratch (its engine's rule)."""


@overload(_engine_walk, inline="always")
def _ov_engine_walk(f, src, dst):
    fn = _engine(f.instance_class).walk
    return lambda f, src, dst: fn(f, src, dst)


@overload(_engine_tops, inline="always")
def _ov_engine_tops(f, nsw, V):
    fn = _engine(f.instance_class).tops
    return lambda f, nsw, V: fn(f, nsw, V)


@njit(cache=True)
def _admit(f, V, src, dst):
    """:func:`fault_admit`, and the switches of the route (its ports in ``ws[W_PORT]``,
    the VC class of each hop in ``ws[W_VCS]``)."""
    st, nsw = _engine_walk(f, src, dst)
    if st != OK:
        return (FS_ADMIT_LIVELOCK if st == TTL else FS_ADMIT_UNROUTABLE), nsw
    if V > 1 or f.ft_i[FI_LAYER1] != 0:
        top = _engine_tops(f, nsw, V)
        if top < 0 or top >= V:
            return FS_ADMIT_UNROUTABLE, nsw
    else:
        f.ft_ws[W_VCS, :nsw] = 0
    return FS_ADMIT_OK, nsw


def fault_admit(flt, V, src, dst):
    """Evaluate the route of a new packet at its source on the fault view ``flt``:
    ``FS_ADMIT_OK`` (it is injected), ``FS_ADMIT_UNROUTABLE`` (the walk fails, or needs
    a VC class ``>= V``) or ``FS_ADMIT_LIVELOCK`` (the walk hit its hop limit); 0 when
    ``flt`` is None. Callable from Python and from numba code."""
    return 0 if flt is None else int(_admit(flt, V, src, dst)[0])


def fault_budget(flt):
    """The header state a packet starts with (its misroute budget; 0 without faults)."""
    return 0 if flt is None else int(flt.ft_i[FI_BUDGET])


def fault_port(flt, pk, p, sw, in_port, vc, dst, hop, V):
    """The route word of switch ``sw`` for the head of packet ``p`` (``pk`` row: source,
    ``PK_FT`` state) that arrived on ``in_port`` / ``vc`` after ``hop`` switches, with
    ``V`` VCs: its output port, or the adaptive rule's candidates (:func:`fault_ports`
    reads both); -1 when ``flt`` is None. Callable from Python and from numba code."""
    if flt is None:
        return -1
    if type(flt) in _BUILTIN:
        return int(_BUILTIN[type(flt)].port(flt, pk, p, sw, in_port, vc, dst, hop, V))
    return int(sim_port(flt, pk, p, PK_FT, PK_SRC, sw, in_port, dst, hop))


def fault_ports(flt, word, sw, dst, out):
    """The candidate ports of route word ``word`` (:func:`fault_port`; -1: none yet) at
    switch ``sw`` for node ``dst`` into ``out``, the engine's preference first; returns
    their number. Without faults the word is the port itself. Callable from Python and
    from numba code."""
    if flt is None:
        out[0] = word
        return 1
    if word >= -1 or type(flt) is not FaultsAdaptive:
        out[0] = word
        return int(word >= 0)
    return int(_decode_route(flt, word, sw, dst, out))


def fault_class(flt, sw, in_port, in_vc, out_port, hop, V):
    """VC class of the hop out of ``sw`` on ``out_port`` for a packet that arrived on
    ``in_port`` / ``in_vc`` after ``hop`` switches (-1: any VC; with one VC, or when
    ``flt`` is None). Callable from Python and from numba code."""
    if flt is None:
        return -1
    return int(_engine(type(flt)).vclass(flt, sw, in_port, in_vc, out_port, hop, V))


# In numba code the four resolve when the caller is typed: a fault-free kernel (None)
# gets constant stubs and compiles no fault engine; a faulted one, its engine's kernels.


@overload(fault_admit, inline="always")
def _ov_fault_admit(flt, V, src, dst):
    if isinstance(flt, types.NoneType):
        return lambda flt, V, src, dst: 0
    return lambda flt, V, src, dst: _admit(flt, V, src, dst)[0]


@overload(fault_budget, inline="always")
def _ov_fault_budget(flt):
    if isinstance(flt, types.NoneType):
        return lambda flt: 0
    return lambda flt: flt.ft_i[FI_BUDGET]


@overload(fault_port, inline="always")
def _ov_fault_port(flt, pk, p, sw, in_port, vc, dst, hop, V):
    if isinstance(flt, types.NoneType):
        return lambda flt, pk, p, sw, in_port, vc, dst, hop, V: -1
    if flt.instance_class in _BUILTIN:
        fn = _BUILTIN[flt.instance_class].port
        return lambda flt, pk, p, sw, in_port, vc, dst, hop, V: fn(
            flt, pk, p, sw, in_port, vc, dst, hop, V
        )
    # a paper walk's hop (faults/walkloop.py), the header columns as arguments
    return lambda flt, pk, p, sw, in_port, vc, dst, hop, V: sim_port(
        flt, pk, p, PK_FT, PK_SRC, sw, in_port, dst, hop
    )


@overload(fault_ports, inline="always")
def _ov_fault_ports(flt, word, sw, dst, out):
    if isinstance(flt, types.NoneType) or flt.instance_class is not FaultsAdaptive:

        def impl(flt, word, sw, dst, out):  # one port: the word itself
            out[0] = word
            return 1

        return impl
    return lambda flt, word, sw, dst, out: _decode_route(flt, word, sw, dst, out)


@overload(fault_class, inline="always")
def _ov_fault_class(flt, sw, in_port, in_vc, out_port, hop, V):
    if isinstance(flt, types.NoneType):
        return lambda flt, sw, in_port, in_vc, out_port, hop, V: -1
    fn = _engine(flt.instance_class).vclass
    return lambda flt, sw, in_port, in_vc, out_port, hop, V: fn(
        flt, sw, in_port, in_vc, out_port, hop, V
    )


@njit(cache=True)
def _route_loads(
    f,
    V,
    per_switch,
    leaf_off,
    leaf_nodes,
    node_switch,
    N,
    mode,
    uni_w,
    hot,
    hot_w,
    perm,
    load,
    inject,
):
    """Channel loads of every admitted pair (nothing stored). The generic and table
    engines route from a node's switch onwards without looking at the source, so their
    route is walked once per (switch, destination) for the switch's first source whose
    node link is healthy, and carries the summed weight of all of them; MiKANT's and
    MiKANTC's walks read the source's digits and are walked per pair."""
    port_peer = f.ft_rt.port_peer
    stamp = f.ft_stamp
    ws = f.ft_ws
    n_bad = 0
    G = (leaf_off.shape[0] - 1) // 2  # G + 1 offsets, then the G switches
    for g in range(G):
        a, b = leaf_off[g], leaf_off[g + 1]
        for t in range(N):
            walked = False
            ok = False
            total = 0.0
            for j in range(a, b):
                s = leaf_nodes[j]
                w = pair_weight(mode, s, t, N, uni_w, hot, hot_w, perm)
                if w == 0.0:
                    continue
                if per_switch and stamp[s] == 1:  # its node link is faulty
                    n_bad += 1
                    continue
                if not walked or not per_switch:
                    ok = _admit(f, V, s, t)[0] == FS_ADMIT_OK
                    walked = True
                if not ok:
                    n_bad += 1
                    continue
                inject[s] += w
                if per_switch:
                    total += w
                    continue
                _add_path(port_peer, ws, node_switch[s], N, w, load)
            if per_switch and ok and total > 0.0:
                _add_path(port_peer, ws, leaf_off[G + 1 + g], N, total, load)
    return n_bad


@njit(cache=True, inline="always")
def _add_path(port_peer, ws, sw, N, w, load):
    """Add ``w`` to every switch port of the walk in ``ws`` (the admitted route; the VC
    check does not touch ``W_SW`` / ``W_PORT``) from switch ``sw``."""
    i = 0
    while True:
        p = ws[W_PORT, i]
        load[sw, p] += w
        v = port_peer[sw, p]
        if v < N:
            break
        sw = v - N
        i += 1


BOUND_MAX_PAIRS = 1 << 25  # pairs walked for the bound (~5,800 nodes); beyond: none


def router_load_bound(
    topo, fr: FaultRouter, traffic: str = "uniform", seed: int = 0, vcs: int = 1
) -> float | None:
    """Throughput bound ``1 / γ_max`` (flits/node/cycle of offered load) of the surviving
    routes: every admitted pair walked once, each node injecting one flit per cycle under
    ``traffic`` (unroutable pairs load nothing, as in the simulator). None for a trace,
    beyond ``BOUND_MAX_PAIRS`` pairs, or for ``adaptive``, whose routes the allocator
    chooses as it runs (its first choices' load would be no bound).

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("mikant:k=2,n=2")
    >>> round(router_load_bound(t, fault_router(t, "gns", np.zeros(t.n_links, bool))), 4)
    0.875

    References
    ----------
    Dally & Towles, §3.3 (channel load); docs/simulator.md ("Faults").
    """
    from ..routing.shared import traffic_weights

    N = topo.n_nodes
    if N * N > BOUND_MAX_PAIRS or fr.engine == ENG_ADAPTIVE:
        return None
    try:
        _, mode, uni, hot, hot_w, perm = traffic_weights(traffic, N, seed, topo)
    except ParameterError:  # a trace: no rate pattern to evaluate
        return None
    S, R = topo.port_peer.shape
    load = np.zeros((S, R), np.float64)
    inject = np.zeros(N, np.float64)
    ws = fr.ft_ws.copy()
    ns = np.ascontiguousarray(topo.node_switch, np.int64)
    by_switch = np.argsort(ns, kind="stable")
    leaves, counts = np.unique(ns, return_counts=True)
    # offsets of each switch's nodes in by_switch, then the switches themselves
    leaf_off = np.concatenate(([0], np.cumsum(counts), leaves)).astype(np.int64)
    _route_loads(
        fr.view(ws),
        int(vcs),
        fr.engine in (ENG_GENERIC, ENG_TABLE, ENG_ADAPTIVE),
        leaf_off,
        by_switch.astype(np.int64),
        ns,
        N,
        mode,
        uni,
        hot,
        hot_w,
        perm,
        load,
        inject,
    )
    gmax = float(max(load.max(initial=0.0), inject.max(initial=0.0)))
    return 1.0 / gmax if gmax > 0 else float("inf")
