"""The cycle of blocked channels behind a detected deadlock (wait-for graph).

Vertices are the non-empty input FIFOs (switch, input port, VC), i.e. channels.
A FIFO whose head packet holds an output VC waits for the downstream FIFO of that
VC to free a slot; a head flit without an output VC waits for the owners of the
output VCs it may use (their tails must pass) or, if such a VC is free, for its
full downstream FIFO. A deadlock is a cycle in this graph.

A *partial* deadlock (a wedged part of the network while other packets move) is
found among the *stale* FIFOs, whose head has not left for the deadlock window
(:func:`stuck_cycle`).
"""

from __future__ import annotations

import numpy as np

from ..routing.kernel import next_vc, route_ports
from .faulthop import fault_class, fault_ports
from .layout import (
    C_DLWIN,
    C_FT,
    C_R,
    C_RCODE,
    C_V,
    FS_HHOPS,
    FS_HREADY,
    FS_HPKT,
    FS_LEN,
    FS_OUT,
    FS_OVC,
    FS_ROUTE,
    K_T,
    OP_OWN,
    OP_TGT,
    PK_DST,
    PK_SEQ,
    PK_SRC,
)


def wait_for_edges(st, fifos=None) -> dict[int, list[int]]:
    """Wait-for edges between busy FIFOs of a kernel state (from ``fifos`` only, if given)."""
    R, V = int(st.cfg[C_R]), int(st.cfg[C_V])
    code = int(st.cfg[C_RCODE])
    cand = np.zeros(R + 1, np.int64)
    flt = st.args()[-1]  # the fault view (None without faults)
    edges: dict[int, list[int]] = {}
    if fifos is None:
        fifos = np.flatnonzero(st.fs[:, FS_LEN] > 0).tolist()
    for f in fifos:
        sw, rem = divmod(f, R * V)
        ip, vc = divmod(rem, V)
        out: list[int] = []
        o = int(st.fs[f, FS_OUT])
        if o >= 0:
            tg = int(st.ops[sw * R + o, OP_TGT])
            if tg >= 0:
                out.append(tg + int(st.fs[f, FS_OVC]))
        else:
            p = int(st.fs[f, FS_HPKT])
            src, dst = int(st.pk[p, PK_SRC]), int(st.pk[p, PK_DST])
            ft = int(st.cfg[C_FT]) != 0  # faults: the port the switch chose (FS_ROUTE)
            if ft:
                hop = int(st.fs[f, FS_HHOPS]) - 1
                # not evaluated yet (-1): waits on nothing
                n = fault_ports(flt, int(st.fs[f, FS_ROUTE]), sw, dst, cand)
            else:
                n = route_ports(
                    code,
                    st.riparams,
                    st.rtable,
                    st.port_peer,
                    sw,
                    ip,
                    src,
                    dst,
                    (src << 32) + int(st.pk[p, PK_SEQ]),
                    cand,
                )
            for port in cand[:n].tolist():
                op = sw * R + port
                tg = int(st.ops[op, OP_TGT])
                if ft:
                    nv = fault_class(flt, sw, ip, vc, port, hop, V)
                else:
                    nv = int(next_vc(code, st.riparams, sw, ip, vc, port, V))
                for v in range(V) if nv < 0 else [nv]:
                    holder = int(st.ops[op, OP_OWN + v])
                    if holder >= 0:
                        out.append(holder)
                    elif tg >= 0 and st.ops[op, OP_OWN + V + v] <= 0:
                        out.append(tg + v)
        edges[f] = [g for g in out if st.fs[g, FS_LEN] > 0]
    return edges


def find_cycle(edges: dict[int, list[int]]) -> list[int]:
    """One directed cycle of the graph (iterative DFS), or ``[]``.

    Examples
    --------
    >>> find_cycle({1: [2], 2: [3], 3: [1], 4: [1]})
    [1, 2, 3]
    >>> find_cycle({1: [2], 2: []})
    []
    """
    state: dict[int, int] = {}  # 1 on the stack, 2 finished
    for root in sorted(edges):
        if root in state:
            continue
        stack = [(root, iter(edges.get(root, ())))]
        path = [root]
        state[root] = 1
        while stack:
            v, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[v] = 2
                continue
            s = state.get(nxt, 0)
            if s == 1:
                return path[path.index(nxt) :]
            if s == 0:
                state[nxt] = 1
                stack.append((nxt, iter(edges.get(nxt, ()))))
                path.append(nxt)
    return []


def wedged(edges: dict[int, list[int]]) -> dict[int, list[int]]:
    """The part of a wait-for graph among stale FIFOs that can never move again.

    A FIFO waits for *any* of its successors (adaptive choices, several VCs), so it
    may still move if one successor is outside the graph (not stale: it moves) or if it
    waits for nothing known. Such FIFOs are removed until none is left; what remains
    waits only on itself, and (every vertex keeping a successor) holds a cycle.

    Examples
    --------
    >>> wedged({1: [2], 2: [1], 3: [1], 4: [5], 5: [4, 9]})  # 9 moves: 5 and then 4 may
    {1: [2], 2: [1], 3: [1]}
    """
    alive = set(edges)
    changed = True
    while changed:
        changed = False
        for v in sorted(alive):
            if not edges[v] or any(g not in alive for g in edges[v]):
                alive.discard(v)
                changed = True
    return {v: edges[v] for v in sorted(alive)}


def stuck_cycle(st) -> list[int]:
    """A wait-for cycle among FIFOs whose head has been ready, and not left, for the
    deadlock window.

    ``[]`` when every chain of stale FIFOs ends at one that moves (a hot spot's queue
    is slow, not dead). The window is the kernel's (``deadlock_window`` plus the
    router and credit delays); ``st.cnt`` holds the current cycle.
    """
    t, win = int(st.cnt[K_T]), int(st.cfg[C_DLWIN])
    stale = np.flatnonzero(
        (st.fs[:, FS_LEN] > 0) & (t - st.fs[:, FS_HREADY].astype(np.int64) > win)
    )
    if len(stale) == 0:
        return []
    return find_cycle(wedged(wait_for_edges(st, stale.tolist())))


def global_stall(st) -> list[int]:
    """The wait-for cycle of a network in which no flit crossed a switch for the window.

    The kernel's global rule (flits in the network, none moved for the deadlock window)
    also holds when the only flits that wait arrived just now: the first packet injected
    after an idle spell longer than the window (a very low load, very long packets). A
    deadlock needs every occupied FIFO's head to be ready (``FS_HREADY`` before the
    current cycle; the reference simulator checks the same) and a wait-for cycle among
    FIFOs that can never move (:func:`wedged`); ``[]`` when either is missing.

    Parameters
    ----------
    st : State
        The kernel state, ``st.cnt`` holding the current cycle.

    Returns
    -------
    list of int
        The FIFOs of one wait-for cycle, or ``[]`` (not a deadlock).
    """
    t = int(st.cnt[K_T])
    busy = st.fs[:, FS_LEN] > 0
    if not busy.any() or (st.fs[busy, FS_HREADY].astype(np.int64) >= t).any():
        return []
    return find_cycle(wedged(wait_for_edges(st)))


def channel_name(topo, f: int, R: int, V: int) -> str:
    """``switch-label:port/vc`` of input FIFO ``f`` (the channel arriving there)."""
    sw, rem = divmod(f, R * V)
    ip, vc = divmod(rem, V)
    return f"{topo.switch_label(sw)}:in{ip}/vc{vc}"


def deadlock_cycle(topo, st) -> list[str]:
    """Names of the channels of one wait-for cycle of a deadlocked state."""
    R, V = int(st.cfg[C_R]), int(st.cfg[C_V])
    return [channel_name(topo, f, R, V) for f in find_cycle(wait_for_edges(st))]
