"""numba walks of MiKANT fault-tolerant routing (docs/mikant-routing.md §2–4) and the oracle.

All kernels are private and take fixed-dtype arrays. A link ``e`` is faulty when
``stamp[e] == cur`` (so a Monte Carlo loop marks a new fault set without clearing).
Switch index ``s = (G*(n-1) + L)*K + D`` and node index ``t = G*k^n + C`` as built by
``topology/families/mikant.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..routing.shared import alg1_iparams, alg1_port
from .algorithms import ESCAPE, GDL, GNS, ROOT, TT, UPALT, XT

# walk status codes
OK = 0
NO_RULE = 1  # a faulty link no enabled algorithm covers
DEAD_END = 2  # a detour step found no healthy allowed port
TTL = 3  # hop limit (livelock guard): must never fire for the papers' algorithms
STATUS_NAMES = ("ok", "no applicable detour", "detour dead end", "TTL")

# detour kinds
KIND_NONE, KIND_GNS, KIND_GDL, KIND_TT, KIND_XT, KIND_TX = 0, 1, 2, 3, 4, 5
_FINAL = (0, 2, 2, 2, 4, 0)  # index of the A1 step that ends each detour kind

# How the output port of a recorded switch was chosen (column 0 of the optional ``trace``
# of ft_walk / mikantc_walk; explain.py turns it into words): Algorithm 1, a step of a
# detour kind above (1..5), or one of these. -1: no port (the walk failed there).
HOW_UPALT = 6  # another healthy up port (docs/mikant-routing.md §3.5 UPALT)
HOW_MISROUTE = 7  # escape: a misroute
HOW_CUBE = 8  # MiKANTC: the cube hop of the fault-free rule
HOW_MULTIPATH = 9  # MiKANTC: another shortest-path cube dimension (004 Algorithm 1)
HOW_GODOWN = 10  # MiKANTC: Go-Down at level 1 to another intermediate of the cube


@njit(cache=True, inline="always")
def digit(x, i, k):
    return (x // k**i) % k


@njit(cache=True)
def tdigit(t, i, k, n):
    """Digit i of destination node t (i = n-1 is the port digit C_{n-1})."""
    return digit(t % k**n, i, k)


@njit(cache=True, inline="always")
def healthy(s, p, link_index, stamp, cur):
    e = link_index[s, p]
    return e >= 0 and stamp[e] != cur


@njit(cache=True)
def _down_ports(k, wl, out):
    """Down x: first x != wl ascending, then x = wl (g1 / x2)."""
    c = 0
    for x in range(k):
        if x != wl:
            out[c] = x
            c += 1
    out[c] = wl
    return c + 1


@njit(cache=True)
def _up_ports(k, straight, wl, out):
    """Up k+y, y != wl: straight up first, then ascending (g2 / x3 / d2)."""
    c = 0
    if straight != wl:
        out[c] = k + straight
        c += 1
    for y in range(k):
        if y != wl and y != straight:
            out[c] = k + y
            c += 1
    return c


@njit(cache=True)
def _cross_out(k, tn2, out):
    """Cross k+a, a != T_{n-2}, ascending (t1 / x1)."""
    c = 0
    for a in range(k):
        if a != tn2:
            out[c] = k + a
            c += 1
    return c


@njit(cache=True)
def _cross_back(k, tn2, w2, out):
    """Cross k+c, c != w2, A1's choice T_{n-2} first (t2 / x4)."""
    c = 0
    if tn2 != w2:
        out[c] = k + tn2
        c += 1
    for a in range(k):
        if a != w2 and a != tn2:
            out[c] = k + a
            c += 1
    return c


@njit(cache=True)
def step_ports(ip, kind, step, s, t, k, n, w2, wl, lw, out):
    """Allowed ports of one detour step at switch s, in preference order (docs/mikant-routing.md §3)."""
    K = k ** (n - 1)
    d = s % K
    if kind != KIND_TX and step == _FINAL[kind]:
        alg1_port(ip, s, t, out)
        return 1
    tn2 = tdigit(t, n - 2, k, n)
    if kind == KIND_GNS:
        if step == 0:
            return _down_ports(k, wl, out)
        return _up_ports(k, digit(d, n - 3, k), wl, out)
    if kind == KIND_GDL:
        tl = tdigit(t, lw - 1, k, n)
        if step == 0:
            c = 0
            for x in range(k):
                if x != wl and x != tl:
                    out[c] = x
                    c += 1
            if wl != tl:
                out[c] = wl
                c += 1
            return c
        return _up_ports(k, digit(d, lw - 1, k), wl, out)
    if kind == KIND_XT:
        if step == 0:
            return _cross_out(k, tn2, out)
        if step == 1:
            return _down_ports(k, wl, out)
        if step == 2:
            return _up_ports(k, digit(d, n - 3, k), wl, out)
        return _cross_back(k, tn2, w2, out)
    # KIND_TT and KIND_TX
    if step == 0:
        return _cross_out(k, tn2, out)
    return _cross_back(k, tn2, w2, out)


@njit(cache=True, inline="always")
def record_hop(trace, nsw, how, step, fault, mask):
    """Log one hop's rule for ``explain`` (compiled away when trace is None)."""
    if trace is not None and nsw < trace.shape[0]:
        trace[nsw, 0] = how
        trace[nsw, 1] = step
        trace[nsw, 2] = fault
        trace[nsw, 3] = mask


@njit(cache=True)
def first_healthy(ports, cnt, s, link_index, stamp, cur):
    for i in range(cnt):
        if healthy(s, ports[i], link_index, stamp, cur):
            return ports[i]
    return -1


@njit(cache=True)
def _lookahead(ip, kind, s, t, k, n, w2, wl, lw, N, port_peer, link_index, stamp, cur, seq, la):
    """Depth-first search of a fully healthy detour of this kind; ports into seq.

    ``la``: int64 (8, >= max(2k, 5)) scratch (rows 0-4 the ports of each depth,
    rows 5-7 their count, index and switch), so the search allocates nothing."""
    depth_max = _FINAL[kind] + 1
    buf = la[0:5]
    cnt = la[5]
    idx = la[6]
    at = la[7]
    at[0] = s
    cnt[0] = step_ports(ip, kind, 0, s, t, k, n, w2, wl, lw, buf[0])
    idx[0] = 0
    depth = 0
    while depth >= 0:
        if idx[depth] >= cnt[depth]:
            depth -= 1
            if depth >= 0:
                idx[depth] += 1
            continue
        p = buf[depth, idx[depth]]
        sw = at[depth]
        if not healthy(sw, p, link_index, stamp, cur):
            idx[depth] += 1
            continue
        seq[depth] = p
        if depth == depth_max - 1:
            return depth_max
        nxt = port_peer[sw, p] - N
        if nxt < 0:  # a detour never ejects before its final step
            idx[depth] += 1
            continue
        depth += 1
        at[depth] = nxt
        cnt[depth] = step_ports(ip, kind, depth, nxt, t, k, n, w2, wl, lw, buf[depth])
        idx[depth] = 0
    return 0


@njit(cache=True, inline="always")
def continue_detour(ip, kind, step, s, vs, tv, k, n, w2, wl, lw, ports, link_index, stamp, cur):
    """The next step of a detour in progress, local model, at switch ``s`` (``vs``/``tv``:
    the switch and the destination as MiKANT indices; shared by the MiKANT and MiKANTC
    walks). Returns ``(port or -1, kind used, kind after, step after)``."""
    if kind == KIND_TX and step == 1:
        # ALL, local model: TT if X1 can turn back, else X-Turns (docs/mikant-routing.md §4)
        cnt = step_ports(ip, KIND_TT, 1, vs, tv, k, n, w2, wl, lw, ports)
        kind = KIND_TT if first_healthy(ports, cnt, s, link_index, stamp, cur) >= 0 else KIND_XT
    cnt = step_ports(ip, kind, step, vs, tv, k, n, w2, wl, lw, ports)
    p = first_healthy(ports, cnt, s, link_index, stamp, cur)
    if p < 0:
        return p, kind, kind, step
    if step == _FINAL[kind]:
        return p, kind, KIND_NONE, step
    return p, kind, kind, step + 1


@njit(cache=True, inline="always")
def _crossing_kind_on(cand, flags, n):
    """The algorithm has crossing detour ``cand`` (GNS and XT need n >= 3)."""
    if cand == KIND_GNS:
        return (flags & GNS) != 0 and n >= 3
    if cand == KIND_TT:
        return (flags & TT) != 0
    return (flags & XT) != 0 and n >= 3


@njit(cache=True, inline="always")
def start_crossing_detour(ip, flags, s, vs, tv, k, n, w2, wl, lw, ports, link_index, stamp, cur):
    """Local model, a faulty crossing port: the first of GNS, TT, XT (docs/mikant-routing.md §4 order) that
    the algorithm has and whose first step has a healthy port at ``s``. Returns
    ``(port or -1, kind, bitmask of the kinds that could not start)``."""
    hmask = 0
    order = (KIND_GNS, KIND_TT, KIND_XT)
    for oi in range(3):
        cand = order[oi]
        if not _crossing_kind_on(cand, flags, n):
            continue
        both = cand == KIND_TT and (flags & XT) and n >= 3
        cnt = step_ports(ip, cand, 0, vs, tv, k, n, w2, wl, lw, ports)
        q = first_healthy(ports, cnt, s, link_index, stamp, cur)
        if q >= 0:
            return q, (KIND_TX if both else cand), hmask
        hmask |= 1 << cand
        if cand == KIND_TT:
            if both:
                hmask |= 1 << KIND_XT
            break  # XT shares TT's first step: it cannot start either
    return -1, KIND_NONE, hmask


@njit(cache=True, inline="always")
def upalt_port(s, faulty, k, link_index, stamp, cur):
    """Spec §3.5 UPALT: the first healthy up port of ``s`` other than ``faulty`` (-1)."""
    for q in range(k, 2 * k):
        if q != faulty and healthy(s, q, link_index, stamp, cur):
            return q
    return -1


# The per-packet state of a MiKANT / MiKANTC walk (``state``, int64): what the header of
# a packet carries from switch to switch, so that each switch decides in O(1) with
# :func:`mikant_hop` (the walk is that hop in a loop; the simulator stores the state in
# the packet, docs/simulator.md "Faults"). ST_SEQ .. ST_SEQ + 4: the lookahead plan.
ST_KIND, ST_STEP, ST_W2, ST_WL, ST_LW, ST_BUDGET, ST_SEQLEN, ST_SEQ = range(8)
ST_COLS = ST_SEQ + 5


@njit(cache=True)
def walk_scratch(k, n):
    """The scratch of :func:`ft_walk` / :func:`mikant_hop` on MiKANT(k, n): ``(ip, scr)``,
    ``ip`` Algorithm 1's iparams and ``scr`` an int64 (10, max(2k, ST_COLS)) array (row
    0: candidate ports, row 1: the walk state, rows 2-9: the lookahead search). Allocate
    once and reuse: the walk and the hop allocate nothing."""
    return alg1_iparams(k, n), np.zeros((10, max(2 * k, ST_COLS)), np.int64)


@njit(cache=True, inline="always")
def walk_budget(flags, n, extra):
    """Misroutes of the ``escape`` variant: ``2n + extra`` (MiKANT: extra 0, MiKANTC: k)."""
    return 2 * n + extra if flags & ESCAPE else 0


@njit(cache=True)
def mikant_hop(
    k,
    n,
    ip,
    port_peer,
    link_index,
    stamp,
    cur,
    flags,
    lookahead,
    s,
    prev,
    hops,
    t,
    state,
    ports,
    la,
    trace,
    nsw,
):
    """One switch of a MiKANT fault-tolerant walk: the output port of switch ``s`` for
    destination node ``t``; returns ``(port, status)`` (port -1 and the failure status
    when no rule applies).

    ``prev``: the previous switch (-1 at the first); ``hops``: links crossed so far (the
    source's node link included); ``state`` (``ST_COLS`` int64): the packet's walk state,
    updated in place (all zero but ``ST_BUDGET`` = :func:`walk_budget` at the source);
    ``ports`` 2k and ``la`` (8, >= max(2k, 5)) scratch; ``trace``/``nsw``: the optional
    record of :func:`ft_walk` (row ``nsw``). Allocation-free, O(1) per call (bounded by
    k and n): the simulator calls it at each switch with the state kept in the header.
    """
    N = 2 * k**n
    K = k ** (n - 1)
    kind = state[ST_KIND]
    step = state[ST_STEP]
    seq = state[ST_SEQ : ST_SEQ + 5]
    d = s % K
    gl = s // K
    L = gl % (n - 1)
    g = gl // (n - 1)
    p = -1
    status = OK
    how = kind
    hstep = step
    hfault = -1
    hmask = 0
    if kind != KIND_NONE:
        if state[ST_SEQLEN] > 0:
            p = seq[step]
            if step == state[ST_SEQLEN] - 1:
                kind = KIND_NONE
                state[ST_SEQLEN] = 0
            else:
                step += 1
        else:
            p, how, kind, step = continue_detour(
                ip,
                kind,
                step,
                s,
                s,
                t,
                k,
                n,
                state[ST_W2],
                state[ST_WL],
                state[ST_LW],
                ports,
                link_index,
                stamp,
                cur,
            )
            if p < 0:
                status = DEAD_END
                hmask = how
    else:
        p = alg1_port(ip, s, t, ports)
        how = 0
        hstep = 0
        if not healthy(s, p, link_index, stamp, cur):
            faulty = p
            hfault = p
            p = -1
            gt = t // k**n
            up = faulty >= k
            crossing = up and L == n - 2
            root = crossing and g == gt
            status = NO_RULE
            if up and (flags & UPALT) and (not crossing or root):
                p = upalt_port(s, faulty, k, link_index, stamp, cur)
                if p >= 0:
                    status = OK
                    how = HOW_UPALT
            if p < 0 and crossing and (not root or (flags & ROOT)):
                w2 = digit(d, n - 2, k)
                wl = digit(d, n - 3, k) if n >= 3 else 0
                lw = L
                state[ST_W2] = w2
                state[ST_WL] = wl
                state[ST_LW] = lw
                if lookahead:  # the first candidate whose whole detour is healthy
                    order = (KIND_GNS, KIND_TT, KIND_XT)
                    for oi in range(3):
                        cand = order[oi]
                        if not _crossing_kind_on(cand, flags, n):
                            continue
                        m = _lookahead(
                            ip,
                            cand,
                            s,
                            t,
                            k,
                            n,
                            w2,
                            wl,
                            lw,
                            N,
                            port_peer,
                            link_index,
                            stamp,
                            cur,
                            seq,
                            la,
                        )
                        if m > 0:
                            kind = cand
                            state[ST_SEQLEN] = m
                            p = seq[0]
                            step = 1
                            status = OK
                            how = cand
                            break
                        hmask |= 1 << cand
                else:
                    q, kd, hm = start_crossing_detour(
                        ip, flags, s, s, t, k, n, w2, wl, lw, ports, link_index, stamp, cur
                    )
                    hmask |= hm
                    if q >= 0:
                        kind = kd
                        step = 1
                        p = q
                        status = OK
                        how = kd
            elif p < 0 and not up and L >= 1 and (flags & GDL):
                w2 = digit(d, n - 2, k)
                wl = digit(d, L - 1, k)
                lw = L
                state[ST_W2] = w2
                state[ST_WL] = wl
                state[ST_LW] = lw
                if lookahead:
                    m = _lookahead(
                        ip,
                        KIND_GDL,
                        s,
                        t,
                        k,
                        n,
                        w2,
                        wl,
                        lw,
                        N,
                        port_peer,
                        link_index,
                        stamp,
                        cur,
                        seq,
                        la,
                    )
                    if m > 0:
                        kind = KIND_GDL
                        state[ST_SEQLEN] = m
                        p = seq[0]
                        step = 1
                        status = OK
                        how = KIND_GDL
                else:
                    cnt = step_ports(ip, KIND_GDL, 0, s, t, k, n, w2, wl, lw, ports)
                    q = first_healthy(ports, cnt, s, link_index, stamp, cur)
                    if q >= 0:
                        kind = KIND_GDL
                        step = 1
                        p = q
                        status = OK
                        how = KIND_GDL
                if p < 0:
                    hmask |= 1 << KIND_GDL
    if p < 0:
        if state[ST_BUDGET] > 0:
            # misroute: a healthy port other than the way back, rotating the start
            state[ST_BUDGET] -= 1
            kind = KIND_NONE
            state[ST_SEQLEN] = 0
            r = (t + hops) % (2 * k)
            for j in range(2 * k):
                q = (r + j) % (2 * k)
                peer = port_peer[s, q]
                if peer >= N and peer - N != prev and healthy(s, q, link_index, stamp, cur):
                    p = q
                    how = HOW_MISROUTE
                    break
        if p < 0:
            state[ST_KIND] = kind
            state[ST_STEP] = step
            record_hop(trace, nsw, -1, hstep, hfault, hmask)
            return -1, (status if status != OK else DEAD_END)
    state[ST_KIND] = kind
    state[ST_STEP] = step
    record_hop(trace, nsw, how, hstep, hfault, hmask)
    return p, OK


@njit(cache=True)
def ft_walk(
    k,
    n,
    port_peer,
    link_index,
    stamp,
    cur,
    flags,
    lookahead,
    src,
    start,
    t,
    out_sw,
    out_port,
    ip,
    scr,
    trace=None,
):
    """Route one packet: :func:`mikant_hop` from switch to switch; returns (status, hops,
    switches recorded).

    ``(ip, scr)``: the scratch of :func:`walk_scratch` (allocation-free: the Monte Carlo
    loop and the simulator reuse theirs). ``src`` >= 0 starts at that node (its node link
    counts as a hop); otherwise the walk starts at switch ``start``. Hops count links
    including both node links (docs/mikant-routing.md §1.4). ``trace`` (optional int64 (cap, 4), for
    explanations): per recorded switch, how its port was chosen (``HOW_*`` or a detour
    kind, -1: none), the detour step, the faulty Algorithm-1 port that triggered a rule
    (-1) and a bitmask of the detour kinds that could not start there (at a dead end: the
    kind of the detour). When it is omitted the recording is compiled out (numba prunes
    ``trace is None``), so the Monte Carlo path is unchanged.
    """
    K = k ** (n - 1)
    N = 2 * k**n
    ttl = 10 * n + 10
    budget = walk_budget(flags, n, 0)
    ttl += budget * (2 * n + 6)
    state = scr[1, :ST_COLS]
    state[:] = 0
    state[ST_BUDGET] = budget
    ports = scr[0, : 2 * k]
    la = scr[2:10]
    hops = 0
    nsw = 0
    if src >= 0:
        if stamp[src] == cur:  # the node link is link `src`
            return NO_RULE, 0, 0
        g = src // k**n
        s = g * (n - 1) * K + (src % k**n) % K
        hops = 1
    else:
        s = start
    prev = -1
    while True:
        if nsw < out_sw.shape[0]:
            out_sw[nsw] = s
        if hops >= ttl:
            record_hop(trace, nsw, -1, state[ST_STEP], -1, state[ST_KIND])
            return TTL, hops, nsw + 1
        p, status = mikant_hop(
            k,
            n,
            ip,
            port_peer,
            link_index,
            stamp,
            cur,
            flags,
            lookahead,
            s,
            prev,
            hops,
            t,
            state,
            ports,
            la,
            trace,
            nsw,
        )
        if p < 0:
            return status, hops, nsw + 1
        if nsw < out_port.shape[0]:
            out_port[nsw] = p
        nsw += 1
        peer = port_peer[s, p]
        hops += 1
        if peer < N:
            if peer == t:
                return OK, hops, nsw
            return DEAD_END, hops, nsw  # never: only A1 ejects, and only at t
        prev = s
        s = peer - N


@njit(cache=True)
def oracle_bfs(indptr, nbr, nbr_link, stamp, cur, src, t, dist, seen, seen_mark, queue):
    """BFS distance from node src to node t on the surviving graph (-1: disconnected).

    Bidirectional and level-synchronous: the side with the smaller frontier expands one
    whole level at a time, and the first level that meets the other side gives the
    minimum over that level, which is the distance. ``seen`` marks are ``2*seen_mark``
    (source side) and ``2*seen_mark + 1`` (destination side), so a caller only needs
    increasing marks.
    """
    if src == t:
        return 0
    V = queue.shape[0]
    ms = 2 * seen_mark
    mt = ms + 1
    seen[src] = ms
    dist[src] = 0
    seen[t] = mt
    dist[t] = 0
    queue[0] = src
    hs, ts = 0, 1  # source side: queue[hs:ts]
    queue[V - 1] = t
    ht, tt = 0, 1  # destination side: queue[V-1-ht], ... going down
    while hs < ts and ht < tt:
        if ts - hs <= tt - ht:
            best = -1
            end = ts
            while hs < end:
                v = queue[hs]
                hs += 1
                for j in range(indptr[v], indptr[v + 1]):
                    if stamp[nbr_link[j]] == cur:
                        continue
                    u = nbr[j]
                    if seen[u] == mt:
                        d = dist[v] + 1 + dist[u]
                        if best < 0 or d < best:
                            best = d
                    elif seen[u] != ms:
                        seen[u] = ms
                        dist[u] = dist[v] + 1
                        queue[ts] = u
                        ts += 1
            if best >= 0:
                return best
        else:
            best = -1
            end = tt
            while ht < end:
                v = queue[V - 1 - ht]
                ht += 1
                for j in range(indptr[v], indptr[v + 1]):
                    if stamp[nbr_link[j]] == cur:
                        continue
                    u = nbr[j]
                    if seen[u] == ms:
                        d = dist[v] + 1 + dist[u]
                        if best < 0 or d < best:
                            best = d
                    elif seen[u] != mt:
                        seen[u] = mt
                        dist[u] = dist[v] + 1
                        queue[V - 1 - tt] = u
                        tt += 1
            if best >= 0:
                return best
    return -1
