"""MiKANT's paper walk (001; docs/mikant-routing.md §2–4) as numba kernels, the escape
rule's VC classes (docs/faults-deadlock.md) and the walk's hooks (its ``FaultWalk``).

Link ``e`` is faulty when ``stamp[e] == cur`` (a Monte Carlo loop marks a new fault set
without clearing). Switch ``s = (G*(n-1) + L)*K + D``, node ``t = G*k^n + C``
(``topology/families/mikant.py``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..compiling import nrt_free
from ..routing.shared import alg1_iparams, alg1_port
from .hooks import (
    DEAD_END,
    ESCAPE,
    FI_K,
    FI_N,
    GDL,
    GNS,
    NO_RULE,
    OK,
    ROOT,
    TT,
    UPALT,
    VIEW_FIELDS,
    W_PORT,
    W_SW,
    W_VCS,
    XT,
    FaultWalk,
    SimSetup,
    register_walk,
)
from .walkloop import (
    ST_BUDGET,
    ST_COLS,
    ST_KIND,
    ST_LW,
    ST_SEQ,
    ST_SEQLEN,
    ST_STEP,
    ST_W2,
    ST_WL,
    end_hop,
)

# detour kinds
KIND_NONE, KIND_GNS, KIND_GDL, KIND_TT, KIND_XT, KIND_TX = 0, 1, 2, 3, 4, 5
_FINAL = (0, 2, 2, 2, 4, 0)  # index of the A1 step that ends each detour kind

# How the output port of a recorded switch was chosen (column 0 of the optional ``trace``
# of faults/walkloop.py walk_loop; explain.py turns it into words): Algorithm 1, a step of a
# detour kind above (1..5), or one of these. -1: no port (the walk failed there).
HOW_UPALT = 6  # another healthy up port (docs/mikant-routing.md §3.5 UPALT)
HOW_MISROUTE = 7  # escape: a misroute
HOW_CUBE = 8  # MiKANTC: the cube hop of the fault-free rule
HOW_MULTIPATH = 9  # MiKANTC: another shortest-path cube dimension (004 Algorithm 1)
HOW_GODOWN = 10  # MiKANTC: Go-Down at level 1 to another intermediate of the cube


@njit(cache=True, inline="always")
def digit(x, i, k):
    return (x // k**i) % k


@njit(cache=True, inline="always")
def healthy(s, p, link_index, stamp, cur):
    e = link_index[s, p]
    return e >= 0 and stamp[e] != cur


@njit(**nrt_free())
def _ports(base, k, first, last, avoid, out):
    """Ports ``base + y``, ``y != avoid``: ``y = first`` first, ``y = last`` last, the
    others ascending (-1: none). A detour's down step (base 0) or up or cross step (base k)."""
    c = 0
    if first >= 0 and first != avoid:
        out[c] = base + first
        c += 1
    for y in range(k):
        if y != avoid and y != first and y != last:
            out[c] = base + y
            c += 1
    if last >= 0 and last != avoid:
        out[c] = base + last
        c += 1
    return c


@njit(**nrt_free())
def step_ports(ip, kind, step, s, t, k, n, w2, wl, lw, out):
    """Allowed ports of one detour step at switch s, in preference order (docs/mikant-routing.md §3)."""
    if kind != KIND_TX and step == _FINAL[kind]:
        alg1_port(ip, s, t, out)
        return 1
    d = s % k ** (n - 1)
    tm = t % k**n  # the destination's digits (digit n-1 is the port digit C_{n-1})
    down = 1 if kind == KIND_XT else 0  # GNS, GDL and XT go down at this step, then up
    if kind != KIND_TT and kind != KIND_TX and down <= step <= down + 1:
        gdl = kind == KIND_GDL
        if step == down:  # g1 / d1 / x2: wl last (d1: never the destination's digit)
            return _ports(0, k, -1, wl, digit(tm, lw - 1, k) if gdl else -1, out)
        # g2 / d2 / x3: the switch's own digit first, never wl
        return _ports(k, k, digit(d, (lw if gdl else n - 2) - 1, k), -1, wl, out)
    # t1 / x1 out: any but T_{n-2}; t2 / x4 back: T_{n-2} first, never w2
    tn2 = digit(tm, n - 2, k)
    return _ports(k, k, tn2, -1, tn2 if step == 0 else w2, out)


@njit(**nrt_free())
def first_healthy(ports, cnt, s, link_index, stamp, cur):
    for i in range(cnt):
        if healthy(s, ports[i], link_index, stamp, cur):
            return ports[i]
    return -1


@njit(**nrt_free())
def _lookahead(w, kind, s, t, k, n, w2, wl, lw, seq, la):
    """Depth-first search of a fully healthy detour of this kind, its ports into seq (its
    length, 0: none). ``la``: int64 (8, >= max(2k, 5)) scratch: rows 0-4 the ports of each
    depth, rows 5-7 their count, index and switch."""
    ip, port_peer, link_index, stamp, cur = w.ip, w.port_peer, w.link_index, w.stamp, w.cur
    N = 2 * k**n
    depth_max = _FINAL[kind] + 1
    buf, cnt, idx, at = la[0:5], la[5], la[6], la[7]
    at[0] = s
    cnt[0] = step_ports(ip, kind, 0, s, t, k, n, w2, wl, lw, buf[0])
    idx[0] = 0
    depth = 0
    while True:
        if idx[depth] < cnt[depth]:
            p = buf[depth, idx[depth]]
            sw = at[depth]
            if healthy(sw, p, link_index, stamp, cur):
                seq[depth] = p
                if depth == depth_max - 1:
                    return depth_max
                nxt = port_peer[sw, p] - N
                if nxt >= 0:  # a detour never ejects before its final step
                    depth += 1
                    at[depth] = nxt
                    cnt[depth] = step_ports(ip, kind, depth, nxt, t, k, n, w2, wl, lw, buf[depth])
                    idx[depth] = 0
                    continue
        elif depth == 0:
            return 0
        else:
            depth -= 1
        idx[depth] += 1


# The pieces of a hop both walks share (MiKANTC's on the virtual MiKANT index of its tree
# part): ``wk`` the walk's context (its ``k``, ``n``), ``w`` its inputs (a
# ``faults/walkloop.py`` ``WalkIn``), ``vs``/``tv`` the switch ``s`` and the destination as
# MiKANT indices, ``state`` the packet's walk state.


@njit(cache=True, inline="always")
def continue_detour(wk, w, s, vs, tv, state, ports):
    """The next step of the detour in ``state``: the lookahead model's plan (of the
    detour's length), or the local model's first healthy allowed port. Returns ``(port or
    -1, status, kind used, kind after, step after, the kind of a dead end or 0)``."""
    k, n, ip, link_index, stamp, cur = wk.k, wk.n, w.ip, w.link_index, w.stamp, w.cur
    kind, step = state[ST_KIND], state[ST_STEP]
    if state[ST_SEQLEN] > 0:
        p = state[ST_SEQ + step]
    else:
        w2, wl, lw = state[ST_W2], state[ST_WL], state[ST_LW]
        if kind == KIND_TX and step == 1:
            # ALL, local model: TT if X1 can turn back, else X-Turns (docs/mikant-routing.md §4)
            cnt = step_ports(ip, KIND_TT, 1, vs, tv, k, n, w2, wl, lw, ports)
            kind = KIND_TT if first_healthy(ports, cnt, s, link_index, stamp, cur) >= 0 else KIND_XT
        cnt = step_ports(ip, kind, step, vs, tv, k, n, w2, wl, lw, ports)
        p = first_healthy(ports, cnt, s, link_index, stamp, cur)
        if p < 0:
            return p, DEAD_END, kind, kind, step, kind
    if step < _FINAL[kind]:
        return p, OK, kind, kind, step + 1, 0
    state[ST_SEQLEN] = 0
    return p, OK, kind, KIND_NONE, step, 0


@njit(cache=True, inline="always")
def _save_digits(state, d, L, k, n):
    """The digits a detour from stage ``L`` of tree position ``d`` needs, kept in ``state``."""
    w2 = digit(d, n - 2, k)
    wl = digit(d, L - 1, k) if L >= 1 else 0
    state[ST_W2] = w2
    state[ST_WL] = wl
    state[ST_LW] = L
    return w2, wl


@njit(cache=True, inline="always")
def _start(wk, w, look, kind, s, vs, tv, w2, wl, lw, state, ports, la):
    """The first port of a detour of ``kind`` from ``s`` (-1: none): with ``look``, of a
    whole healthy detour (the plan kept in ``state``), else the first healthy allowed one."""
    if look:
        seq = state[ST_SEQ : ST_SEQ + 5]
        m = _lookahead(w, kind, vs, tv, wk.k, wk.n, w2, wl, lw, seq, la)
        if m == 0:
            return -1
        state[ST_SEQLEN] = m
        return seq[0]
    cnt = step_ports(w.ip, kind, 0, vs, tv, wk.k, wk.n, w2, wl, lw, ports)
    return first_healthy(ports, cnt, s, w.link_index, w.stamp, w.cur)


@njit(cache=True, inline="always")
def alg1_rules(wk, w, look, gdl_from, s, vs, tv, state, ports, la):
    """Algorithm 1's port, or where it is faulty the first rule of the algorithm that finds
    a healthy port (docs/mikant-routing.md §3.5, §4): UPALT; a crossing detour, the first of
    GNS, TT, XT that can start (:func:`_start`); GDL at a down port from stage ``gdl_from``
    on. Returns ``(port or -1, status, how, detour kind started or KIND_NONE, faulty port
    or -1, bitmask of the kinds that could not start)``."""
    k, n, link_index, stamp, cur, flags = wk.k, wk.n, w.link_index, w.stamp, w.cur, w.flags
    p = alg1_port(w.ip, vs, tv, ports)
    if healthy(s, p, link_index, stamp, cur):
        return p, OK, 0, KIND_NONE, -1, 0
    K = k ** (n - 1)
    L = (vs // K) % (n - 1)
    up = p >= k
    crossing = up and L == n - 2
    root = crossing and vs // K // (n - 1) == tv // k**n
    if up and (flags & UPALT) and (not crossing or root):  # another healthy up port
        for q in range(k, 2 * k):
            if q != p and healthy(s, q, link_index, stamp, cur):
                return q, OK, HOW_UPALT, KIND_NONE, p, 0
    hmask = 0
    if crossing and (not root or (flags & ROOT)):
        w2, wl = _save_digits(state, vs % K, L, k, n)
        for cand, bit in ((KIND_GNS, GNS), (KIND_TT, TT), (KIND_XT, XT)):
            if not (flags & bit) or (cand != KIND_TT and n < 3):
                continue  # not in the algorithm (GNS and XT need n >= 3)
            both = cand == KIND_TT and (flags & XT) and n >= 3
            q = _start(wk, w, look, cand, s, vs, tv, w2, wl, L, state, ports, la)
            if q >= 0:
                kd = KIND_TX if both and not look else cand
                return q, OK, kd, kd, p, hmask
            hmask |= 1 << cand
            if not look and cand == KIND_TT:
                if both:
                    hmask |= 1 << KIND_XT
                break  # XT shares TT's first step: it cannot start either
    elif not up and L >= gdl_from and (flags & GDL):
        w2, wl = _save_digits(state, vs % K, L, k, n)
        q = _start(wk, w, look, KIND_GDL, s, vs, tv, w2, wl, L, state, ports, la)
        if q >= 0:
            return q, OK, KIND_GDL, KIND_GDL, p, 0
        hmask = 1 << KIND_GDL
    return -1, NO_RULE, 0, KIND_NONE, p, hmask


@njit(cache=True, inline="always")
def walk_limits(flags, n, extra):
    """Misroutes of the ``escape`` variant, ``2n + extra`` (MiKANT: extra 0, MiKANTC: k),
    and the hop limit of a walk that spends them all."""
    budget = 2 * n + extra if flags & ESCAPE else 0
    return budget, 10 * n + 10 + 4 * extra + budget * (2 * n + 2 * extra + 6)


@njit(cache=True, inline="always")
def misroute(wk, w, s, prev, r, N, state, cube_first, inter):
    """Spend one of ``escape``'s misroutes (the caller checks one is left) on the first
    healthy switch port from port ``r`` on, rotating, but the way back (``N`` nodes);
    ``cube_first``: cube ports first (below k at an intermediate, ``inter``, else above).
    Ends any lookahead plan; returns the port or -1."""
    state[ST_BUDGET] -= 1
    state[ST_SEQLEN] = 0
    R = 2 * wk.k
    for sweep in range(2 if cube_first else 1):
        for j in range(R):
            q = (r + j) % R
            peer = w.port_peer[s, q]
            if peer < N or peer - N == prev or not healthy(s, q, w.link_index, w.stamp, w.cur):
                continue
            if sweep == 0 and cube_first and (q >= wk.k) == inter:
                continue  # not a cube port
            return q
    return -1


@njit(**nrt_free())
def mikant_hop(wk, w, s, prev, hops, t, state, ports, la, trace, nsw):
    """One switch of a MiKANT walk (``FaultWalk.hop``, faults/hooks.py): ``(port, status)``
    of switch ``s`` towards node ``t``; -1 and the failure status when no rule applies.
    ``prev``: the previous switch (-1 at the first); ``hops``: links crossed so far;
    ``la``: :func:`_lookahead`'s scratch. Allocation-free, O(1) per call."""
    k = wk.k
    kind, step = state[ST_KIND], state[ST_STEP]
    hstep, hfault = step, -1
    if kind != KIND_NONE:
        p, status, how, kind, step, hmask = continue_detour(wk, w, s, s, t, state, ports)
    else:
        hstep = 0
        p, status, how, kd, hfault, hmask = alg1_rules(wk, w, w.look, 1, s, s, t, state, ports, la)
        if kd != KIND_NONE:
            kind, step = kd, 1
    if p < 0 and state[ST_BUDGET] > 0:
        # misroute: a healthy port other than the way back, rotating the start
        kind = KIND_NONE
        p = misroute(wk, w, s, prev, (t + hops) % (2 * k), 2 * k**wk.n, state, False, False)
        how = HOW_MISROUTE
    return end_hop(state, kind, step, trace, nsw, p, how, hstep, hfault, hmask, status)


# ------------------------------------------------------- the escape rule's VC classes
# (docs/faults-deadlock.md; faults/cdg.py builds the channel dependency graph over them)


@njit(**nrt_free())
def _cross_rank(n, g_src, straight):
    """Cross links: non-straight 0→1 < non-straight 1→0 < straight 0→1 < straight 1→0."""
    return n - 2 + (2 if straight else 0) + g_src


@njit(**nrt_free())
def ft_rank(k, n, sw, port):
    """Rank of MiKANT channel (switch ``sw``, output ``port``), strictly climbed by every
    Algorithm-1 route: up from stage L: ``L``; cross links ``n-2 .. n+1``
    (:func:`_cross_rank`); down from stage L (ejection at L = 0): ``2n+2-L``."""
    K = k ** (n - 1)
    gl = sw // K
    L = gl % (n - 1)
    if port < k:
        return 2 * n + 2 - L
    if L < n - 2:
        return L
    return _cross_rank(n, gl // (n - 1), port - k == (sw % K) // k ** (n - 2))


@njit(**nrt_free())
def ft_vc(k, n, sw, in_port, in_vc, out_port, n_vcs):
    """VC class of the hop out of MiKANT switch ``sw`` on ``out_port`` (the escape rule):
    ``in_vc`` (the class held; ``in_port`` -1 or a node port at injection) while the hop
    climbs :func:`ft_rank`, ``in_vc + 1`` at a turn against it, -1 when that class is
    ``>= n_vcs`` (the route is refused). Callable from ``@njit`` code (the simulator)."""
    K = k ** (n - 1)
    gl = sw // K
    L = gl % (n - 1)
    if in_port < 0 or (L == 0 and in_port < k):
        return 0
    if in_port < k:
        r_in = L - 1  # came up from stage L-1
    elif L < n - 2:
        r_in = 2 * n + 2 - (L + 1)  # came down from stage L+1
    else:  # a cross link from the other group
        r_in = _cross_rank(n, 1 - gl // (n - 1), in_port - k == (sw % K) // k ** (n - 2))
    c = in_vc + 1 if ft_rank(k, n, sw, out_port) <= r_in else in_vc
    return c if c < n_vcs else -1


@njit(**nrt_free())
def route_vcs(k, n, sw, ports, nsw, peer_port, n_vcs, vcs):
    """:func:`ft_vc` of every hop of a route (switches ``sw[:nsw]``, output ``ports``) into
    ``vcs``; returns the highest class, -1 when one is ``>= n_vcs`` (the route is refused)."""
    in_port = -1
    vc = 0
    for i in range(nsw):
        vc = ft_vc(k, n, sw[i], in_port, vc, ports[i], n_vcs)
        if vc < 0:
            return -1
        vcs[i] = vc
        in_port = peer_port[sw[i], ports[i]]
    return vc


# ------------------------------------------------- the walk's hooks (faults/hooks.py)


def _kn(topo) -> tuple[int, int]:
    return int(topo.params["k"]), int(topo.params["n"])


def _capacity(topo) -> int:
    """Room for the switches of any MiKANT(k, n) walk (the hop limit of ``escape``)."""
    n = int(topo.params["n"])
    return 20 * n + 40 + 4 * n * (2 * n + 6)


def tree_sim_setup(topo, flags, capacity, extra, pp, cube) -> SimSetup:
    """The simulator's setup of a walk on Algorithm 1's digits (MiKANT's, MiKANTC's):
    ``capacity(topo)`` switches, ``extra`` misroutes (:func:`walk_limits`)."""
    k, n = _kn(topo)
    ip = alg1_iparams(k, n)
    width = max(capacity(topo) + 2, len(ip), 2 * k, ST_COLS)
    return SimSetup(k, n, ip, width, pp, cube, int(walk_limits(flags, n, extra)[0]))


def tree_warmup(family, title, walks, route, deadlock=False) -> tuple:
    """``fattree warmup``'s steps for the fault walk(s) ``walks`` of ``family`` (``title``):
    the simulator, the Monte Carlo loop, a route explained (``route``: its arguments) and,
    with ``deadlock``, the dependency graph."""
    spec = f"{family}:k=2,n=2"
    sim = ["simulate", spec, "--load", "0.1", "-P", "20", "--fault-rate", "0.1"]
    mc = ["faults", spec, "--trials", "200", "--rates", "0.1"]
    steps = (
        (f"the simulator with {walks}", sim),
        (f"the fault Monte Carlo of {title}", mc),
        (f"a route of {walks}, explained", ["route", spec, *route]),
    )
    graph = (f"the dependency graph of {walks}", ["deadlock", spec, "-a", "gns"])
    return steps + (graph,) if deadlock else steps


def _hop_vcs(topo, sw, ports, count, vcs=64) -> list[int]:
    """The escape rule's class of each hop (:func:`route_vcs`), -1 from the hop on that
    would need a class ``>= vcs`` (by default enough VCs that none is refused)."""
    out = np.full(count, -1, np.int64)
    route_vcs(*_kn(topo), sw, ports, count, topo.port_peer_port, vcs, out)
    return [int(c) for c in out]


MikantStudy = namedtuple("MikantStudy", "k n")
MikantStudy.__doc__ = "001's MiKANT walk's context (faults/walkloop.py): MiKANT(k, n)."


@njit(cache=True, inline="always")
def _begin(wk, flags, src):
    """Nodes, hop limit, misroutes and the switch of node ``src`` on MiKANT(k, n)."""
    k, n = wk.k, wk.n
    budget, ttl = walk_limits(flags, n, 0)
    K = k ** (n - 1)
    return 2 * k**n, ttl, budget, (src // k**n) * (n - 1) * K + (src % k**n) % K


@njit(cache=True, inline="always")
def _of_view(f, src, dst):
    return MikantStudy(f.ft_i[FI_K], f.ft_i[FI_N]), np.int64(0)


FaultsMikant = namedtuple("FaultsMikant", VIEW_FIELDS)
FaultsMikant.__doc__ = "The simulator's fault view of MiKANT's walk (faults/view.py)."


def _sim_setup(topo, flags) -> SimSetup:
    pp = np.ascontiguousarray(topo.port_peer_port, np.int64)
    return tree_sim_setup(topo, flags, _capacity, 0, pp, np.zeros((4, 1), np.int64))


@njit(**nrt_free())
def _sim_tops(f, nsw, V):
    """The escape rule's classes of the walk in the scratch (:func:`route_vcs`)."""
    fi, ws = f.ft_i, f.ft_ws
    return route_vcs(fi[FI_K], fi[FI_N], ws[W_SW], ws[W_PORT], nsw, f.ft_pp, V, ws[W_VCS])


@njit(**nrt_free())
def _sim_class(f, sw, in_port, in_vc, out_port, hop, V):
    if V <= 1:
        return -1
    fi = f.ft_i
    return ft_vc(
        fi[FI_K], fi[FI_N], sw, in_port if hop > 0 else -1, in_vc if hop > 0 else 0, out_port, V
    )


register_walk(
    FaultWalk(
        "mikant",
        ("local", "lookahead"),
        "",
        vc_classes=True,
        generic_rules=True,
        hop=mikant_hop,
        begin=_begin,
        capacity=_capacity,
        hop_vcs=_hop_vcs,
        study=lambda topo, tie_break: MikantStudy(*_kn(topo)),
        study_type=MikantStudy,
        a1_shortcut=True,
        link_ids=True,
        sim_setup=_sim_setup,
        sim_view=FaultsMikant,
        of_view=_of_view,
        sim_tops=_sim_tops,
        sim_class=_sim_class,
        vc_rule="the escape rule ft_vc",
        warmup=tree_warmup(
            "mikant", "MiKANT", "MiKANT's fault walks", ["n0.0.0", "n1.0.0", "-a", "gns"], True
        ),
    )
)
