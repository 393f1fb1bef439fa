"""MiKANTC routing and link-fault tolerance (004 §3–4) as a numba walk with per-packet state
(docs/faults-mikantc.md): cube hops to the source's intermediate, MiKANT's Algorithm 1 and
detours (``faults/mikant.py``) on the tree digits, cube hops to the destination's corner.

Indices are those of ``topology/families/cat.py`` (``build_hybrid``): per group ``Sg =
Q·2^k + (n-2)·k^(n-1)`` switches, the cube switches ``G·Sg + q·2^k + corner`` first; node
``G·Ng + q·(2^k-k)·k + rank(corner)·k + port``. A tree position's *virtual* MiKANT index is
``(G·(n-1) + L)·k^(n-1) + D`` (intermediate ``j`` of cube ``q``: ``D = q·k + j``, L = 0).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..compiling import nrt_free
from ..errors import ParameterError
from ..topology import FAMILIES, Topology
from ..topology.families.cat import nearest_intermediate
from .mikant import (
    HOW_CUBE,
    HOW_GODOWN,
    HOW_MISROUTE,
    HOW_MULTIPATH,
    KIND_GDL,
    KIND_NONE,
    NO_RULE,
    OK,
    alg1_rules,
    continue_detour,
    first_healthy,
    healthy,
    misroute,
    tree_sim_setup,
    tree_warmup,
    walk_limits,
)
from .hooks import (
    CUBE,
    ESCAPE,
    FI_K,
    FI_N,
    GDL,
    VIEW_FIELDS,
    W_VCS,
    FaultWalk,
    SimSetup,
    register_walk,
)
from .mcdraw import mix
from .walkloop import (
    ST_BUDGET,
    ST_KIND,
    ST_STEP,
    WalkIn,
    end_hop,
    walk_loop,
    study_walk,
    walk_scratch,
)

TIE_BREAKS = ("dimension", "random")


MikantcStudy = namedtuple("MikantcStudy", "k n codes cpos near outer rnd")
MikantcStudy.__doc__ = """004's Algorithm 1's context (faults/walkloop.py) on MiKANTC(k, n): the
corner ``codes[j]`` of intermediate ``j``, ``cpos[c]`` (``j``, or -1), the nearest intermediate
``near[c]`` (lowest on ties), the corner ``outer[r]`` of node-carrying rank ``r``, and ``rnd``
(the random cube tie-break)."""


def cube_tables(topo: Topology, tie_break: str = "dimension") -> MikantcStudy:
    """The walk's context of a MiKANTC topology: its cube tables (a :data:`MikantcStudy`).

    Parameters
    ----------
    topo : Topology
        A MiKANTC network.
    tie_break : {"dimension", "random"}
        The choice among the cube dimensions a route may take (004: random).

    Examples
    --------
    >>> import fattree
    >>> tb = cube_tables(fattree.build("mikantc:k=3,n=3"))
    >>> tb.codes.tolist(), tb.near.tolist(), tb.outer.tolist()
    ([0, 2, 7], [0, 0, 1, 1, 0, 2, 1, 2], [1, 3, 4, 5, 6])

    References
    ----------
    004 §2.1–2.2 (intermediate switches); docs/families/hybrids.md (labels).
    """
    if FAMILIES.get(topo.family).facets.fault_walk != "mikantc":
        raise ParameterError(f"topology family {topo.family!r}: MiKANTC routing needs a mikantc")
    if tie_break not in TIE_BREAKS:
        raise ParameterError(f"tie_break={tie_break!r} is invalid: one of {', '.join(TIE_BREAKS)}")
    k, n = int(topo.params["k"]), int(topo.params["n"])
    codes = np.array(topo.meta["intermediate_codes"], np.int64)  # (writable: one kernel type)
    M = 1 << k
    cpos = np.full(M, -1, np.int64)
    cpos[codes] = np.arange(k)
    near = nearest_intermediate(k, codes).astype(np.int64)
    outer = np.flatnonzero(cpos < 0).astype(np.int64)
    return MikantcStudy(k, n, codes, cpos, near, outer, np.bool_(tie_break == "random"))


@njit(**nrt_free())
def _pick(seed, pkt, s, count):
    """The paper's random tie-break, fixed by (seed, packet, switch): no shared stream."""
    h = mix(
        np.uint64(seed) * np.uint64(0x100000001B3)
        ^ mix(np.uint64(pkt) ^ mix(np.uint64(s) + np.uint64(0x632BE59BD9B4E019)))
    )
    return np.int64(h % np.uint64(count))


@njit(**nrt_free())
def _cube_ports(c, target, base, k, rnd, seed, pkt, s, avoid, dims, out):
    """Cube ports of the dimensions where corner c differs from target: the route's (the
    lowest, or a seeded random one) first, the others cyclically after it (the multipath
    alternatives), ``avoid`` (the dimension the packet arrived on) last."""
    diff = c ^ target
    cnt = 0
    for b in range(k):
        if (diff >> b) & 1:
            dims[cnt] = b
            cnt += 1
    first = _pick(seed, pkt, s, cnt) if rnd and cnt > 1 else 0
    m = 0
    for j in range(cnt):
        b = dims[(first + j) % cnt]
        if b != avoid:
            out[m] = base + b
            m += 1
    if m < cnt:
        out[m] = base + avoid
        m += 1
    return m


@njit(cache=True, inline="always")
def _popc(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True, inline="always")
def _sizes(k, n):
    """``(M, K, QM, Sg, Mo, Ng)``: corners of a cube, tree positions of a stage, cube and
    all switches of a group, node-carrying corners of a cube, nodes of a group."""
    M = 1 << k
    K = k ** (n - 1)
    QM = (K // k) * M
    Mo = M - k
    return M, K, QM, QM + (n - 2) * K, Mo, (K // k) * Mo * k


@njit(cache=True, inline="always")
def _node(outer, t, k, Ng, Mo):
    """Group, cube, corner and port of node ``t``."""
    r = t % Ng
    rem = r % (Mo * k)
    return t // Ng, r // (Mo * k), outer[rem // k], rem % k


@njit(**nrt_free())
def mikantc_hop(wk, w, s, prev, hops, t, state, ports, extra, trace, nsw):
    """One switch of a MiKANTC walk (004 Algorithm 1), as
    :func:`fattree.faults.mikant.mikant_hop`: ``(port, status)`` of switch ``s`` towards
    node ``t``. ``wk``: a :data:`MikantcStudy`; the random choices are fixed by ``w.seed``
    and ``w.pkt``; ``extra[0]``: k scratch (cube dimensions)."""
    k, n, codes, cpos, near, outer = wk.k, wk.n, wk.codes, wk.cpos, wk.near, wk.outer
    link_index, stamp, cur, flags = w.link_index, w.stamp, w.cur, w.flags
    M, K, QM, Sg, Mo, Ng = _sizes(k, n)
    gt, qt, ct, pt = _node(outer, t, k, Ng, Mo)
    tv = gt * k**n + qt * k + near[ct]  # the destination as a MiKANT node (T_{n-1} unused)
    kind, step = state[ST_KIND], state[ST_STEP]
    G, r = s // Sg, s % Sg
    if r < QM:  # corner c of cube q (an intermediate: tree position D at stage 0)
        q, c, L = r // M, r % M, 0
        D, inter = q * k + cpos[c], cpos[c] >= 0
    else:  # a tree switch
        q, c, L = -1, -1, 1 + (r - QM) // K
        D, inter = (r - QM) % K, False
    vs = (G * (n - 1) + L) * K + D
    in_cube = c >= 0 and G == gt and q == qt
    if in_cube:
        kind = KIND_NONE  # Algorithm 1's first test, at every switch: in the destination cube
    p, status, how, hstep, hfault, hmask = -1, OK, 0, step, -1, 0
    if kind != KIND_NONE:  # a tree detour's step (local model), on the virtual MiKANT index
        p, status, how, kind, step, hmask = continue_detour(wk, w, s, vs, tv, state, ports)
    elif c >= 0 and (in_cube or not inter):
        hstep = 0
        if in_cube and c == ct:
            if not healthy(s, pt, link_index, stamp, cur):  # the destination's only link
                return end_hop(state, kind, step, trace, nsw, -1, 0, 0, pt, 0, NO_RULE)
            p = pt
        else:
            target = ct if in_cube else codes[near[c]]
            avoid = -1  # escape: the dimension the packet came in on, last
            if (flags & ESCAPE) and prev >= 0 and prev // Sg == G:
                rp = prev % Sg
                if rp < QM and rp // M == q:
                    avoid = 0
                    while ((rp % M) ^ c) >> avoid > 1:
                        avoid += 1
            cnt = _cube_ports(
                c, target, 0 if inter else k, k, wk.rnd, w.seed, w.pkt, s, avoid, extra[0], ports
            )
            # the route's dimension or, with CUBE (hypercube multipath), another shortest one
            p = first_healthy(ports, cnt if flags & CUBE else 1, s, link_index, stamp, cur)
            how = HOW_CUBE if p == ports[0] else HOW_MULTIPATH
            if p != ports[0]:
                status, hfault = (OK if p >= 0 else NO_RULE), ports[0]
    else:
        hstep = 0
        p, status, how, kd, hfault, hmask = alg1_rules(
            wk, w, False, 2, s, vs, tv, state, ports, extra
        )
        if kd != KIND_NONE:
            kind, step = kd, 1
        elif 0 <= hfault < k and L == 1 and (flags & GDL):
            # Go-Down to P_D: another intermediate of the destination cube, nearest
            # the destination corner first; the cube takes it from there
            best = -1
            for x in range(k):
                if x != hfault and healthy(s, x, link_index, stamp, cur):
                    if best < 0 or (_popc(codes[x] ^ ct) < _popc(codes[best] ^ ct)):
                        best = x
            if best >= 0:
                p, status, how = best, OK, HOW_GODOWN
            else:
                hmask |= 1 << KIND_GDL
    if p < 0 and state[ST_BUDGET] > 0:
        # misroute: a healthy switch port other than the way back, from a start
        # drawn per (packet, hop); inside the destination cube its cube ports first
        kind = KIND_NONE
        r1 = _pick(w.seed, w.pkt, hops * 1000003 + s, 2 * k)
        p = misroute(wk, w, s, prev, r1, 2 * Ng, state, in_cube, inter)
        how = HOW_MISROUTE
    return end_hop(state, kind, step, trace, nsw, p, how, hstep, hfault, hmask, status)


@njit(cache=True, inline="always")
def _begin(wk, flags, src):
    """Nodes, hop limit, misroutes and the switch of node ``src`` on MiKANTC(k, n)."""
    k, n = wk.k, wk.n
    M, _, _, Sg, Mo, Ng = _sizes(k, n)
    budget, ttl = walk_limits(flags, n, k)
    g, q, c, _ = _node(wk.outer, src, k, Ng, Mo)
    return 2 * Ng, ttl, budget, g * Sg + q * M + c


def _capacity(topo) -> int:
    """Room for the switches of any walk (the hop limit of ``escape``)."""
    return int(walk_limits(ESCAPE, int(topo.params["n"]), int(topo.params["k"]))[1]) + 2


def fault_free_lengths(topo: Topology, tie_break: str = "dimension", seed: int = 0) -> np.ndarray:
    """(N, N) hop counts of ``sp`` between every pair of nodes (0 on the diagonal); small N only.

    Examples
    --------
    >>> import fattree
    >>> L = fault_free_lengths(fattree.build("mikantc:k=2,n=2"))
    >>> int(L.max()), L.shape
    (5, (8, 8))
    """
    wk = cube_tables(topo, tie_break)
    N = topo.n_nodes
    if N > 4096:
        raise ParameterError(
            f"topology {topo.spec!r} has {N} nodes: fault_free_lengths takes at most 4096"
        )
    stamp = np.zeros(topo.n_links, np.int64)
    return _all_pairs(wk, topo.port_peer, topo.link_index, stamp, np.int64(seed), N)


@njit(cache=True)
def _all_pairs(wk, port_peer, link_index, stamp, seed, N):
    out = np.zeros((N, N), np.int64)
    sw = np.empty(1, np.int64)
    pp = np.empty(1, np.int64)
    ip, scr = walk_scratch(wk)
    cur, flags = np.int64(-1), np.int64(0)
    for s in range(N):
        for t in range(N):
            if s != t:
                w = WalkIn(ip, port_peer, link_index, stamp, cur, flags, False, seed, s * N + t)
                st, h, _ = walk_loop(wk, w, s, -1, t, sw, pp, scr)
                out[s, t] = h if st == OK else -1
    return out


# ------------------------------------------------- the walk's hooks (faults/hooks.py)


@njit(cache=True, inline="always")
def _study_fault_free(wk, rt, stamp, s, t, minimal, cap, buf, out_sw, out_port, ip, scr, seed, pkt):
    _, d0, _ = study_walk(wk, rt, stamp, -1, 0, False, s, t, out_sw, out_port, ip, scr, seed, pkt)
    # sp is minimal except between two nodes of one cube when k >= 5 (004 routes those
    # inside the cube; docs/faults-mikantc.md): there the BFS always runs
    group = ((1 << wk.k) - wk.k) * wk.k
    return d0, wk.k <= 4 or s // group != t // group


FaultsMikantc = namedtuple("FaultsMikantc", VIEW_FIELDS)
FaultsMikantc.__doc__ = "The simulator's fault view of MiKANTC's walk (faults/view.py)."


def _sim_setup(topo, flags) -> SimSetup:
    tb = cube_tables(topo)
    arrays = (tb.codes, tb.cpos, tb.near, tb.outer)
    cube = np.full((4, max(len(a) for a in arrays)), -1, np.int64)
    for r, a in enumerate(arrays):
        cube[r, : len(a)] = a
    return tree_sim_setup(topo, flags, _capacity, tb.k, np.zeros((1, 1), np.int64), cube)


@njit(cache=True, inline="always")
def _of_view(f, src, dst):
    """The walk's context on the view, and its packet key (the misroute draws): fixed by
    the pair."""
    fi, cube = f.ft_i, f.ft_cube
    k, n = fi[FI_K], fi[FI_N]
    wk = MikantcStudy(k, n, cube[0], cube[1], cube[2], cube[3], np.bool_(False))
    return wk, src * (2 * k**n) + dst


@njit(**nrt_free())
def _sim_tops(f, nsw, V):
    """One class (004's walk is deadlock-free on its own)."""
    f.ft_ws[W_VCS, :nsw] = 0
    return 0


@njit(**nrt_free())
def _sim_class(f, sw, in_port, in_vc, out_port, hop, V):
    return -1 if V <= 1 else 0


register_walk(
    FaultWalk(
        "mikantc",
        ("local",),
        "004's Algorithm 1 is local",
        vc_classes=False,
        generic_rules=False,
        tie_break=True,
        hop=mikantc_hop,
        begin=_begin,
        capacity=_capacity,
        study=cube_tables,
        study_type=MikantcStudy,
        study_fault_free=_study_fault_free,
        cut_off=False,
        sim_setup=_sim_setup,
        sim_view=FaultsMikantc,
        of_view=_of_view,
        sim_tops=_sim_tops,
        sim_class=_sim_class,
        vc_rule="one class (004's walk)",
        warmup=tree_warmup(
            "mikantc", "MiKANTC", "MiKANTC's fault walk", ["n1.0.1.0.1", "n0.0.1.0.1", "-a", "sp"]
        ),
    )
)


__all__ = ["cube_tables", "mikantc_hop", "fault_free_lengths", "TIE_BREAKS"]
