"""Fault-tolerant routing on the routing contract, for every family (numba kernels): the
per-hop rules (:func:`ft_hop`, run by the walk loop), ``adaptive``'s candidates and the
table engines' columns recomputed on the surviving graph. docs/faults-families.md.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit
from numba.extending import overload

from ..compiling import nrt_free
from ..routing.kernel import route_ports
from .algorithms import RULE_DETOUR, RULE_MINIMAL, RULE_SHORTEST_T, RULE_SP
from .hooks import (
    DEAD_END,
    FI_BUDGET,
    FI_RULE,
    FI_TTL,
    LOOP_ENGINES,
    NO_RULE,
    OK,
    VIEW_FIELDS,
    W_GEN,
    LoopEngine,
)
from .walkloop import SCR_ROWS, ST_BUDGET, ST_COLS, record_hop

# how a port was chosen (state[3] after ft_hop; the trace of explain)
HOW_DEFAULT = 0  # the family's routing port
HOW_ALT = 1  # another minimal port (the routing port is faulty, or lookahead saw a dead end)
HOW_MISROUTE = 2  # a non-minimal healthy port (detour), spending one misroute
HOW_TABLE = 3  # a forwarding-table entry recomputed on the surviving graph
HOW_NAMES = ("routing", "alternative minimal port", "misroute", "table")

# state layout
S_BUDGET, S_PREV, S_HOPS, S_HOW = 0, 1, 2, 3

RouteContext = namedtuple(
    "RouteContext",
    "code iparams table ccode cparams ctable cmode port_peer link_index n_nodes node_switch",
)
RouteContext.__doc__ = "The routing, the candidates' routing (c*; cmode 1: by distance), the net."


@njit(cache=True, inline="always")
def _healthy(link_index, stamp, cur, sw, p):
    e = link_index[sw, p]
    return e >= 0 and stamp[e] != cur


@njit(cache=True, inline="always")
def spread_offset(dst, sw, m):
    """Which of ``m`` equal ports switch ``sw`` takes first for ``dst`` (splitmix64 of both)."""
    x = np.uint64(dst) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(sw) + np.uint64(1)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return np.int64(x % np.uint64(m))


@njit(**nrt_free())
def route_length(rt, sw, dst, cap, buf):
    """Fault-free length (links, the ejection included) of the family's route from
    switch ``sw`` to node ``dst``; ``cap`` when it does not arrive within ``cap`` hops."""
    port_peer, N = rt.port_peer, rt.n_nodes
    h = 0
    while h < cap:
        c = route_ports(rt.code, rt.iparams, rt.table, port_peer, sw, -1, -1, dst, 0, buf)
        if c == 0:
            return cap
        v = port_peer[sw, buf[0]]
        h += 1
        if v < N:
            return h if v == dst else cap
        sw = v - N
    return cap


@njit(**nrt_free())
def candidates(rt, sw, dst, cap, cand, buf, dbuf):
    """Minimal output ports of ``sw`` towards ``dst`` in preference order (the routing's
    port first) into ``cand``; returns their number."""
    port_peer, N = rt.port_peer, rt.n_nodes
    n = 0
    c = route_ports(rt.code, rt.iparams, rt.table, port_peer, sw, -1, -1, dst, 0, buf)
    if c > 0:
        cand[0] = buf[0]
        n = 1
    if rt.cmode == 0:
        c2 = route_ports(rt.ccode, rt.cparams, rt.ctable, port_peer, sw, -1, -1, dst, 0, buf)
        for i in range(c2):  # the candidates' ports, each once
            j = 0
            while j < n and cand[j] != buf[i]:
                j += 1
            if j == n:
                cand[n] = buf[i]
                n += 1
        return n
    d0 = route_length(rt, sw, dst, cap, dbuf)
    for p in range(port_peer.shape[1]):
        v = port_peer[sw, p]
        if n > 0 and p == cand[0]:
            continue
        if v == dst or (v >= N and route_length(rt, v - N, dst, cap, dbuf) == d0 - 1):
            cand[n] = p
            n += 1
    return n


@njit(**nrt_free())
def _onward(rt, stamp, cur, v, back, dst, cap, cand2, buf, dbuf, healthy):
    """Switch ``v`` has a minimal port towards ``dst`` not back to switch ``back`` (a
    healthy one when ``healthy``: lookahead; else a misroute is not sent straight back)."""
    m = candidates(rt, v, dst, cap, cand2, buf, dbuf)
    for i in range(m):
        q = cand2[i]
        if rt.port_peer[v, q] - rt.n_nodes != back and (
            not healthy or _healthy(rt.link_index, stamp, cur, v, q)
        ):
            return True
    return False


@njit(**nrt_free())
def ft_hop(rt, rule, lookahead, stamp, cur, sw, dst, state, cap, cand, cand2, buf, dbuf):
    """Output port of switch ``sw`` towards node ``dst`` under faults by ``rule`` (-1: none;
    docs/faults-families.md). ``state``: int64[4] per packet (``S_*``; ``state[S_HOW]`` on
    return, ``HOW_*``), the caller updates its previous switch and hops; ``cand``,
    ``cand2``, ``buf``, ``dbuf``: scratch of one entry per port."""
    port_peer, link_index, N = rt.port_peer, rt.link_index, rt.n_nodes
    prev = state[S_PREV]
    c = route_ports(rt.code, rt.iparams, rt.table, port_peer, sw, -1, -1, dst, 0, buf)
    p0 = buf[0] if c > 0 else -1
    if p0 >= 0 and _healthy(link_index, stamp, cur, sw, p0):
        v = port_peer[sw, p0] - N  # a switch when >= 0
        if (
            rule == RULE_SP
            or v < 0
            or (v != prev and not lookahead)
            or (v != prev and _onward(rt, stamp, cur, v, sw, dst, cap, cand2, buf, dbuf, True))
        ):
            state[S_HOW] = HOW_DEFAULT
            return p0
    if rule == RULE_SP:
        return -1
    n = candidates(rt, sw, dst, cap, cand, buf, dbuf)
    fallback = -1  # a healthy port back to prev, or (lookahead) to a dead end
    # the routing's port first, then the others from an offset fixed by (destination,
    # switch): the traffic of a faulty port spreads over the healthy alternatives
    off = 0 if n <= 2 or p0 < 0 else spread_offset(dst, sw, n - 1)
    for i in range(n):
        p = cand[i] if i == 0 else cand[1 + (off + i - 1) % (n - 1)]
        if not _healthy(link_index, stamp, cur, sw, p):
            continue
        v = port_peer[sw, p] - N
        if (
            v < 0
            or (v != prev and not lookahead)
            or (v != prev and _onward(rt, stamp, cur, v, sw, dst, cap, cand2, buf, dbuf, True))
        ):
            state[S_HOW] = HOW_DEFAULT if p == p0 else HOW_ALT
            return p
        if fallback < 0:
            fallback = p
    if rule == RULE_DETOUR and state[S_BUDGET] > 0:
        R = port_peer.shape[1]
        r = (dst + state[S_HOPS]) % R
        best = -1
        for j in range(R):
            q = (r + j) % R
            v = port_peer[sw, q]
            if v < N or v - N == prev or not _healthy(link_index, stamp, cur, sw, q):
                continue
            # first choice: a neighbour that leads on (with lookahead: on a healthy port)
            if _onward(rt, stamp, cur, v - N, sw, dst, cap, cand2, buf, dbuf, lookahead):
                best = q
                break
            if best < 0:
                best = q
        if best >= 0:
            state[S_BUDGET] -= 1
            state[S_HOW] = HOW_MISROUTE
            return best
    if fallback >= 0:
        state[S_HOW] = HOW_DEFAULT if fallback == p0 else HOW_ALT
        return fallback
    return -1


# ---------------------------------------------------------------------------------------
# The generic rules in the walk loop (faults/walkloop.py walk_loop): the Monte Carlo loop,
# the fault view's whole routes and GenericRouter.

GenericWalk = namedtuple("GenericWalk", "k rt rule budget ttl cand cand2 buf dbuf state")
GenericWalk.__doc__ = "The generic rules' walk context (k 0): :func:`generic_walk`."
FaultsGeneric = namedtuple("FaultsGeneric", VIEW_FIELDS)
FaultsGeneric.__doc__ = "The simulator's fault view of the generic rules (faults/view.py)."
FaultsAdaptive = namedtuple("FaultsAdaptive", VIEW_FIELDS)
FaultsAdaptive.__doc__ = "The fault view of ``adaptive`` (its own: compiled apart)."


def generic_scratch(topo) -> np.ndarray:
    """The scratch of :func:`generic_walk`: ``4 (R + 1) + 4`` int64, R ports a switch."""
    return np.empty(4 * (topo.max_ports + 1) + 4, np.int64)


def generic_walk(rt, rule, budget, ttl, scratch):
    """The :class:`GenericWalk` of ``rule`` on ``rt`` over :func:`generic_scratch`
    ``scratch`` (sliced once a walk). From Python or compiled into a numba caller."""
    R1 = rt.port_peer.shape[1] + 1
    cand, cand2, buf = scratch[0:R1], scratch[R1 : 2 * R1], scratch[2 * R1 : 3 * R1]
    dbuf, state = scratch[3 * R1 : 4 * R1], scratch[4 * R1 : 4 * R1 + 4]
    return GenericWalk(0, rt, rule, budget, ttl, cand, cand2, buf, dbuf, state)


@overload(generic_walk, inline="always")
def _ov_generic_walk(rt, rule, budget, ttl, scratch):
    return generic_walk


@njit(cache=True, inline="always")
def walk_hop(w, look, stamp, cur, sw, dst):
    """:func:`ft_hop` with the rule, hop limit, state and scratch of the walk ``w``."""
    return ft_hop(
        w.rt, w.rule, look, stamp, cur, sw, dst, w.state, w.ttl, w.cand, w.cand2, w.buf, w.dbuf
    )


@njit(cache=True, inline="always")
def _begin(wk, flags, src):
    """Nodes, hop limit, misroutes and the switch of node ``src`` (-1: none)."""
    rt = wk.rt
    return rt.n_nodes, wk.ttl, wk.budget, rt.node_switch[src] if src >= 0 else np.int64(-1)


@njit(**nrt_free())
def generic_hop(wk, w, s, prev, hops, t, state, ports, extra, trace, nsw):
    """:func:`ft_hop` at switch ``s`` in the walk loop (misroutes left in its
    ``state[ST_BUDGET]``, ``HOW_*`` into ``trace``): ``(port, status)``."""
    gs = wk.state
    gs[S_BUDGET], gs[S_PREV], gs[S_HOPS] = state[ST_BUDGET], prev, hops
    p = walk_hop(wk, w.look, w.stamp, w.cur, s, t)
    state[ST_BUDGET] = gs[S_BUDGET]
    if p < 0:
        record_hop(trace, nsw, -1, 0, -1, -1)
        return -1, (NO_RULE if wk.rule != RULE_DETOUR or gs[S_BUDGET] > 0 else DEAD_END)
    record_hop(trace, nsw, gs[S_HOW], 0, -1, -1)
    return p, OK


@njit(cache=True, inline="always")
def _of_view(f, src, dst):
    fi = f.ft_i
    wk = generic_walk(f.ft_rt, fi[FI_RULE], fi[FI_BUDGET], fi[FI_TTL], f.ft_ws[W_GEN])
    return wk, np.int64(0)


LOOP_ENGINES.add(
    "generic",
    LoopEngine(
        "generic", (GenericWalk, FaultsGeneric, FaultsAdaptive), generic_hop, _begin, _of_view
    ),
)


def loop_scratch(topo) -> np.ndarray:
    """The scratch of :func:`~fattree.faults.walkloop.walk_loop` for the rules and tables."""
    return np.zeros((SCR_ROWS, ST_COLS), np.int64)


# ---------------------------------------------------------------------------------------
# The adaptive rule: the candidates a switch offers the simulator's allocator.

AdaptiveAt = namedtuple("AdaptiveAt", "sw prev hops dst cls was_down")
AdaptiveAt.__doc__ = "Where a packet is: switch, previous switch, links, destination, layer, down."


@njit(cache=True, inline="always")
def hop_down(order, N, sw, w):
    """Whether the hop from switch ``sw`` to vertex ``w`` goes down ``order`` (later rank)."""
    return order[w] >= order[N + sw]


@njit(cache=True, inline="always")
def layer_step(order, N, V, s, w, cls, was_down):
    """The turn layer after the hop from switch ``s`` to vertex ``w`` (as
    :func:`turn_classes`): ``(cls, was_down)``, ``cls = V`` when the hop leaves the
    orientation; ``V = 0``: layers are not kept."""
    if V == 0 or w < N:
        return cls, was_down
    if order[N + s] < 0 or order[w] < 0:
        return V, was_down
    down = hop_down(order, N, s, w)
    if was_down and not down:
        cls += 1
    return cls, down


AdaptiveRule = namedtuple("AdaptiveRule", "rt look stamp cur ttl order layers memo")
AdaptiveRule.__doc__ = "What adaptive reads (layers 0: unchecked; memo: :func:`adaptive_memo`)."
MEMO_BYTES = 64 << 20  # the memo of the onward walks, at most (beyond: walked every time)
# a memo word: known, delivered, left the orientation; links (15 bits); layers added
_M_KNOWN, _M_OK, _M_ORIENT, _M_LINKS, _M_TURNS = 1, 2, 4, 3, 18


def adaptive_memo(topo) -> np.ndarray:
    """The memo of :func:`adaptive_ports`: one int32 word per (switch port, destination),
    zeros (unknown; ``(S R, N)``), or ``(1, 1)`` (none) beyond :data:`MEMO_BYTES`. It
    depends on the fault set only: keep it with the fault set."""
    S, R = topo.port_peer.shape
    if S * R * topo.n_nodes * 4 > MEMO_BYTES:
        return np.zeros((1, 1), np.int32)
    return np.zeros((S * R, topo.n_nodes), np.int32)


@njit(**nrt_free())
def _minimal_port(ar, s, prev, hops, dst, scratch):
    """The ``minimal`` rule's port at ``s`` (from ``prev``, ``hops`` links) to ``dst``; -1."""
    wk = generic_walk(ar.rt, RULE_MINIMAL, 0, ar.ttl, scratch)
    wk.state[S_BUDGET], wk.state[S_PREV], wk.state[S_HOPS] = 0, prev, hops
    return walk_hop(wk, ar.look, ar.stamp, ar.cur, s, dst)


@njit(**nrt_free())
def _onward_walk(ar, v, prev, dst, was_down, scratch):
    """The memo word of the ``minimal`` rule's walk from switch ``v`` (reached from
    ``prev``, by a hop down when ``was_down``) to ``dst``."""
    port_peer, order, N = ar.rt.port_peer, ar.order, ar.rt.n_nodes
    s, prv, h, turns, word = v, prev, 0, 0, _M_KNOWN
    while h < ar.ttl:
        q = _minimal_port(ar, s, prv, h, dst, scratch)
        if q < 0:
            return word
        w = port_peer[s, q]
        h += 1
        if w < N:
            return word | _M_OK | (h << _M_LINKS) | (turns << _M_TURNS) if w == dst else word
        t2, d2 = layer_step(order, N, ar.ttl + 1, s, w, turns, was_down)
        if t2 > ar.ttl:  # (the step's mark: the hop leaves the orientation)
            word |= _M_ORIENT
        else:
            turns, was_down = t2, d2
        prv = s
        s = w - N
    return word


ADAPTIVE_SCRATCH = 5  # adaptive_ports' scratch: 5 (R + 1) + 5 int64 entries


def adaptive_scratch(topo) -> np.ndarray:
    """The scratch of :func:`adaptive_ports` on ``topo``; after a call with two or more
    candidates its last ``R + 2`` entries hold the switch's minimal ports in preference
    order, then their number (the simulator's route word reads both)."""
    return np.empty(ADAPTIVE_SCRATCH * (topo.max_ports + 1) + ADAPTIVE_SCRATCH, np.int64)


@njit(**nrt_free())
def adaptive_ports(ar, at, out, scratch):
    """The ``adaptive`` rule's candidate ports at switch ``at.sw`` into ``out``; returns
    their number (0: ``minimal`` has no port there). ``minimal``'s port first, then every
    other healthy minimal port not back to ``at.prev`` (with ``ar.look``: going on) from
    whose far switch ``minimal``'s walk delivers within ``ar.ttl`` links and ``ar.layers``
    turn layers (:class:`AdaptiveRule`, :class:`AdaptiveAt`; docs/simulator.md "Faults")."""
    rt, sw = ar.rt, at.sw
    port_peer, N, R1 = rt.port_peer, rt.n_nodes, rt.port_peer.shape[1] + 1
    lst = scratch[4 * R1 + 4 : 5 * R1 + 4]
    wk = generic_walk(rt, RULE_MINIMAL, 0, ar.ttl, scratch)
    first = _minimal_port(ar, sw, at.prev, at.hops, at.dst, scratch)
    if first < 0 or at.hops >= ar.ttl:
        return 0
    n = candidates(rt, sw, at.dst, ar.ttl, lst, wk.buf, wk.dbuf)
    scratch[5 * R1 + 4] = n
    out[0] = first
    m = 1
    memo = ar.memo.shape[0] > 1
    for i in range(n):
        p = lst[i]
        if p == first or not _healthy(rt.link_index, ar.stamp, ar.cur, sw, p):
            continue
        w = port_peer[sw, p]
        if w < N or w - N == at.prev:
            continue
        if ar.look and not _onward(
            rt, ar.stamp, ar.cur, w - N, sw, at.dst, ar.ttl, wk.cand2, wk.buf, wk.dbuf, True
        ):
            continue
        cls, _ = layer_step(ar.order, N, ar.layers, sw, w, at.cls, at.was_down)
        if ar.layers > 0 and cls >= ar.layers:
            continue
        # minimal's walk on from w (its memo word, once per fault set) delivers in time
        row = sw * (R1 - 1) + p
        word = ar.memo[row, at.dst] if memo else 0
        if word == 0:
            word = _onward_walk(ar, w - N, sw, at.dst, hop_down(ar.order, N, sw, w), scratch)
            if memo:
                ar.memo[row, at.dst] = word
        if not word & _M_OK or at.hops + 1 + (word >> _M_LINKS & 0x7FFF) > ar.ttl:
            continue
        if ar.layers == 0 or (not word & _M_ORIENT and cls + (word >> _M_TURNS) < ar.layers):
            out[m] = p
            m += 1
    return m


# ---------------------------------------------------------------------------------------
# Table engines: one destination column recomputed on the surviving graph.


@njit(cache=True)
def updown_order(indptr, nbr, nbr_link, stamp, cur, N, root, slevel, order, queue):
    """Up*/down* orientation of the surviving switch graph: ``order[v]`` ranks switch
    vertex ``v`` by (highest level ``slevel`` first, then BFS discovery from ``root``),
    -1 when cut off (and for nodes); a link is *up* towards the lower rank. Returns the
    number of switches ordered; ``queue[:count]`` lists them by rank."""
    order[:] = -1
    order[root] = 0
    queue[0] = root
    h, tl = 0, 1
    while h < tl:
        v = queue[h]
        h += 1
        for j in range(indptr[v], indptr[v + 1]):
            u = nbr[j]
            if u < N or stamp[nbr_link[j]] == cur or order[u] >= 0:
                continue
            order[u] = tl
            queue[tl] = u
            tl += 1
    # stable counting sort of the BFS order by level, highest first
    V = order.shape[0]
    r = 0
    for lev in range(slevel.max(), -1, -1):
        for i in range(tl):
            v = queue[i]
            if slevel[v - N] == lev:
                queue[V + r] = v
                r += 1
    for i in range(tl):
        v = queue[V + i]
        queue[i] = v
        order[v] = i
    return tl


@njit(cache=True, inline="always")
def _distances(indptr, nbr, nbr_link, stamp, cur, N, t, order, dist, queue, base, down):
    """BFS distances ``dist`` (-1 on entry) to node ``t`` on the surviving graph, with
    ``down`` over down links of ``order`` only (queued from ``queue[base]``): queue end."""
    dist[t] = 0
    queue[base] = t
    h, tl = base, base + 1
    while h < tl:
        w = queue[h]
        h += 1
        for j in range(indptr[w], indptr[w + 1]):
            v = nbr[j]
            if stamp[nbr_link[j]] == cur or dist[v] >= 0:
                continue
            if down and (v < N or order[v] < 0 or (w != t and order[w] <= order[v])):
                continue
            dist[v] = dist[w] + 1
            queue[tl] = v
            tl += 1
    return tl


@njit(cache=True)
def fill_table(rule, csr, port_peer, link_index, stamp, order, ordq, table):
    """``table[s, t]`` (-1 on entry): a healthy port of switch ``s`` one step closer to
    node ``t`` on the surviving graph; among several, the one at :func:`spread_offset`
    of (t, s), as a subnet manager balances its tables. ``ordq``: switches by rank."""
    indptr, nbr, nbr_link = csr
    V, N = indptr.shape[0] - 1, table.shape[1]
    dist, dall = np.empty(V, np.int64), np.full(V, -1, np.int64)
    queue, ok = np.empty(V + 1, np.int64), np.empty(port_peer.shape[1], np.int64)
    updown = rule != RULE_SHORTEST_T
    for t in range(N):
        # dist: shortest, or up*/down* by down links only; dall: up* then down*, as
        # routing's updown (down as soon as possible, else up to the cheapest neighbour)
        dist[:] = -1
        _distances(indptr, nbr, nbr_link, stamp, 1, N, t, order, dist, queue, 0, updown)
        if updown:
            for v in ordq:
                best = dist[v]
                if best < 0:
                    for j in range(indptr[v], indptr[v + 1]):
                        u = nbr[j]  # (nodes are unordered: -1)
                        if not 0 <= order[u] < order[v] or stamp[nbr_link[j]] == 1:
                            continue
                        if dall[u] >= 0 and (best < 0 or dall[u] + 1 < best):
                            best = dall[u] + 1
                dall[v] = best
        for s in range(table.shape[0]):
            v = N + s
            m = 0
            for p in range(port_peer.shape[1]):
                u = port_peer[s, p]
                if u < 0 or not _healthy(link_index, stamp, 1, s, p):
                    continue
                if not updown:
                    closer = dist[v] > 0 and dist[u] == dist[v] - 1
                elif dist[v] >= 0:
                    closer = dist[u] == dist[v] - 1 and (u == t or order[u] > order[v])
                else:
                    closer = dall[v] > 0 and 0 <= order[u] < order[v] and dall[u] == dall[v] - 1
                if closer:
                    ok[m] = p
                    m += 1
            if m > 0:
                table[s, t] = ok[spread_offset(t, s, m) if m > 1 else 0]


@njit(**nrt_free())
def turn_classes(port_peer, N, order, sws, ports, nsw, classes):
    """VC layer of each hop of a route under the up*/down* orientation ``order``: one
    more at every down→up turn, so each layer's dependency graph is acyclic (Autonet).
    Returns the highest class used (-1: a hop leaves the orientation)."""
    cls = 0
    was_down = False
    off = nsw + 1  # more layers than nsw hops can need: layer_step's mark for "left it"
    for i in range(nsw):
        sw = sws[i]
        cls, was_down = layer_step(order, N, off, sw, port_peer[sw, ports[i]], cls, was_down)
        if cls == off:
            return -1
        classes[i] = cls
    return cls


@njit(cache=True)
def updown_distance(indptr, nbr, nbr_link, stamp, cur, N, src_sw, t, order, ddown, queue):
    """Length in links of the ``updown-table`` route from switch vertex ``src_sw`` to node
    ``t`` under ``order`` (-1: none) without the column: the least (up hops + ``ddown``)
    over the first switches a BFS up reaches that go down to ``t``. ``ddown``: -1
    everywhere on entry, restored; ``queue``: 2 V entries."""
    V = order.shape[0]
    n_down = _distances(indptr, nbr, nbr_link, stamp, cur, N, t, order, ddown, queue, 0, True)
    best = ddown[src_sw]  # -1 unless src_sw reaches t by down hops (never when cut off)
    tu = V
    if best < 0 and order[src_sw] >= 0:
        # BFS upwards in queue[V:]; ddown[v] = -2 - (up hops) marks v visited
        hu, tu = V, V + 1
        queue[V] = src_sw
        ddown[src_sw] = -2
        while hu < tu:
            v = queue[hu]
            hu += 1
            dv = -2 - ddown[v]
            if best >= 0 and dv + 1 >= best:
                continue
            for j in range(indptr[v], indptr[v + 1]):
                u = nbr[j]
                if u < N or order[u] < 0 or order[u] >= order[v] or stamp[nbr_link[j]] == cur:
                    continue
                if ddown[u] >= 0:
                    if best < 0 or dv + 1 + ddown[u] < best:
                        best = dv + 1 + ddown[u]
                elif ddown[u] == -1:
                    ddown[u] = -2 - (dv + 1)
                    queue[tu] = u
                    tu += 1
    for i in range(V, tu):  # ddown back to -1 everywhere
        ddown[queue[i]] = -1
    for i in range(n_down):
        ddown[queue[i]] = -1
    return best
