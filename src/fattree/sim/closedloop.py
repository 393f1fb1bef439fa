"""The closed-loop traffic source of the papers' simulator: a workload's operations.

A workload (a collective or a GOAL schedule, :mod:`fattree.traffic.workloads`) runs in
the cycle loop of :mod:`fattree.sim.kernel` as its traffic source: per-rank operation
lists and dependency counters in fixed-dtype arrays (:class:`Closed`, built by
:func:`closed_view`), no object per message or packet.

* An operation starts when the operations it ``requires`` have completed and those it
  ``irequires`` have started; its start time is the latest of those events.
* A send puts its message (``ceil(bytes / packet bytes)`` packets, at least one) in its
  node's message queue; the node injects its started messages packet by packet, taking
  them in turn (a packet of each, as a NIC serving several send queues, so that
  concurrent messages share the injection link fairly). The send completes when its
  last flit has left the node (eager), one cycle after the cycle that injected it.
* The receive that matches the send (by source and tag, MPI's order, matched once in
  :func:`fattree.traffic.workloads.check_schedule`) completes when the message's last
  packet has been delivered and the receive has started.
* A ``calc`` lasts its duration in cycles (a binary heap of timers).
* Under faults a message whose first packet the fault-tolerant routing cannot deliver is
  dropped whole: counted (``CI_UNDELIV``), its send completes, its receive never does;
  the run ends when nothing can move any more (:func:`cl_status`), never a hang.

The kernel calls the hooks ``cl_*`` with ``src.wl``: ``None`` in an open-loop run, where
numba ``overload`` resolves each hook to a constant stub when the kernel is typed (the
pattern of :mod:`fattree.sim.faulthop`), so an open-loop run compiles none of this code
and runs the instructions it ran before; a :class:`Closed` view otherwise.

Completions found in a cycle (a send's last flit, a message's last packet) are queued as
events with their time and resolved at the start of the next cycle, before injection,
which is the first moment a dependent send could inject anyway. docs/workloads.md.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

from .layout import INJ_PEND, K_CREATED, K_FREE, K_LIVELOCK, K_QUEUED, K_UNROUTABLE
from .layout import ST_CHUNK, ST_DONE

# ci: int64 counters of the closed-loop state
CI_NOPS = 0  # operations in all
CI_DONE = 1  # operations completed
CI_NEV = 2  # events queued for the next cycle
CI_NHP = 3  # calc timers in the heap
CI_NWORK = 4  # operations ready to start (the work stack)
CI_UNDELIV = 5  # messages the fault-tolerant routing could not deliver
CI_NPKT = 6  # packets that the schedule's sends create in all
CI_NWAKE = 7  # nodes in the wake list (sends started since the source phase last ran)
CI_COLS = 8

SEND, RECV, CALC = 0, 1, 2  # as fattree.traffic.workloads.schedule
WAITING, STARTED, DONE = 0, 1, 2

_FIELDS = (
    "ci kind node peer amount match req_left ireq_left rs_ptr rs_idx is_ptr is_idx "
    "state t_start t_end left mq mq_ptr mq_head mq_tail mq_cur ev_op ev_t hp_t hp_op "
    "work pkt_op port_flits inj_flits wake new_pk"
)
Closed = namedtuple("Closed", _FIELDS)
Closed.__doc__ = """The closed-loop state (fixed-dtype arrays; ``n`` operations, ``N`` nodes).

``kind`` int8 (send, recv, calc); ``node`` int32: the node of the operation's rank;
``peer`` int32: a send's destination node, a receive's source node; ``amount`` int64: a
send's packets, a calc's cycles; ``match`` int64: the matching receive of a send and back;
``req_left`` / ``ireq_left`` int32: dependencies not yet met; ``rs_*`` / ``is_*``: the
operations that require / irequire each one (CSR); ``state`` int8; ``t_start`` int64:
ready time, then start time; ``t_end`` int64: completion cycle (-1: not yet); ``left``
int64: see below; ``mq`` / ``mq_ptr`` / ``mq_head`` / ``mq_tail``: each node's queue of
started sends; ``mq_cur``: the position whose turn it is (a node's started messages take turns, a
packet each, as a NIC serving several queues: fair shares of the injection link); ``ev_op`` /
``ev_t``: events for the next cycle; ``hp_t`` / ``hp_op``: the calc timers' heap;
``work``: ready operations; ``pkt_op``: the send of each packet in the pool;
``port_flits`` (S*R) and ``inj_flits`` (N): flits each output port and node link carried;
``wake`` / ``new_pk`` (N): nodes whose sends started since the model's source phase last
ran, and the packets each gained."""

# ``left`` holds, for a send, packets whose tail has not left its node (low 32 bits) and
# packets not yet delivered (high 32 bits); for a receive, its message's arrival (-1: not
# yet). Two counts in one word keep a send's state on one cache line.
_HI = np.int64(1) << np.int64(32)
_LO = _HI - np.int64(1)


def cl_on(w):
    """Whether a closed-loop source drives the run (resolved when the kernel is typed)."""
    return w is not None


@overload(cl_on, inline="always")
def _ov_cl_on(w):
    if isinstance(w, types.NoneType):
        return lambda w: False
    return lambda w: True


# ---------------------------------------------------------------------- the engine itself


@njit(cache=True)
def _ready(w, j, tm):
    """A dependency of ``j`` is met at ``tm``: start it when none is left."""
    if w.t_start[j] < tm:
        w.t_start[j] = tm
    if w.req_left[j] == 0 and w.ireq_left[j] == 0 and w.state[j] == WAITING:
        n = w.ci[CI_NWORK]
        w.work[n] = j
        w.ci[CI_NWORK] = n + 1


@njit(cache=True)
def _complete(w, i, tm):
    w.state[i] = DONE
    w.t_end[i] = tm
    w.ci[CI_DONE] += 1
    for e in range(w.rs_ptr[i], w.rs_ptr[i + 1]):
        j = w.rs_idx[e]
        w.req_left[j] -= 1
        _ready(w, j, tm)


@njit(cache=True)
def _heap_push(w, tm, op):
    k = w.ci[CI_NHP]
    w.ci[CI_NHP] = k + 1
    while k > 0:
        par = (k - 1) >> 1
        if w.hp_t[par] < tm or (w.hp_t[par] == tm and w.hp_op[par] <= op):
            break
        w.hp_t[k] = w.hp_t[par]
        w.hp_op[k] = w.hp_op[par]
        k = par
    w.hp_t[k] = tm
    w.hp_op[k] = op


@njit(cache=True)
def _heap_pop(w):
    n = w.ci[CI_NHP] - 1
    w.ci[CI_NHP] = n
    tm = w.hp_t[n]
    op = w.hp_op[n]
    k = 0
    while True:
        c = 2 * k + 1
        if c >= n:
            break
        if c + 1 < n and (
            w.hp_t[c + 1] < w.hp_t[c]
            or (w.hp_t[c + 1] == w.hp_t[c] and w.hp_op[c + 1] < w.hp_op[c])
        ):
            c += 1
        if tm < w.hp_t[c] or (tm == w.hp_t[c] and op <= w.hp_op[c]):
            break
        w.hp_t[k] = w.hp_t[c]
        w.hp_op[k] = w.hp_op[c]
        k = c
    w.hp_t[k] = tm
    w.hp_op[k] = op


@njit(cache=True)
def advance(w, t):
    """Start of cycle ``t``, for any cycle loop: due timers and last cycle's events
    complete operations; every operation whose dependencies are met starts. A send joins
    its node's message queue, and the node joins the wake list (``wake[:ci[CI_NWAKE]]``,
    with ``new_pk[node]`` the packets it gained), which the model's own source phase
    empties (:func:`_create` for the papers' kernel). Returns the packets queued."""
    while w.ci[CI_NHP] > 0 and w.hp_t[0] <= t:
        tm = w.hp_t[0]
        op = w.hp_op[0]
        _heap_pop(w)
        _complete(w, op, tm)
    for e in range(w.ci[CI_NEV]):
        op = w.ev_op[e]
        tm = w.ev_t[e]
        if w.kind[op] == SEND:
            _complete(w, op, tm)
        else:  # a receive's message has arrived
            w.left[op] = tm
            if w.state[op] == STARTED:
                _complete(w, op, tm if tm > w.t_start[op] else w.t_start[op])
    w.ci[CI_NEV] = 0
    qn = 0
    nw = w.ci[CI_NWAKE]
    while w.ci[CI_NWORK] > 0:
        n = w.ci[CI_NWORK] - 1
        w.ci[CI_NWORK] = n
        i = w.work[n]
        if w.state[i] != WAITING:
            continue
        w.state[i] = STARTED
        ts = w.t_start[i]
        for e in range(w.is_ptr[i], w.is_ptr[i + 1]):
            j = w.is_idx[e]
            w.ireq_left[j] -= 1
            _ready(w, j, ts)
        k = w.kind[i]
        if k == CALC:
            te = ts + w.amount[i]
            if te <= t:
                _complete(w, i, te)
            else:
                _heap_push(w, te, i)
        elif k == RECV:
            ta = w.left[i]
            if ta >= 0:
                _complete(w, i, ta if ta > ts else ts)
        else:  # a send: its message joins the node's queue
            v = w.node[i]
            np_ = w.amount[i]
            w.left[i] = np_ * _HI + np_
            w.mq[w.mq_ptr[v] + w.mq_tail[v]] = i
            w.mq_tail[v] += 1
            if w.new_pk[v] == 0:
                w.wake[nw] = v
                nw += 1
            w.new_pk[v] += np_
            qn += np_
    w.ci[CI_NWAKE] = nw
    return qn


@njit(cache=True)
def _create(w, src, cnt, t, npend):
    """The papers' kernel's source phase: :func:`advance`, then each woken node's new
    packets join its queue count and the node the pending list."""
    qn = advance(w, t)
    for j in range(w.ci[CI_NWAKE]):
        v = w.wake[j]
        src.ql[v] += w.new_pk[v]
        w.new_pk[v] = 0
        if src.inj[v, INJ_PEND] == 0:
            src.inj[v, INJ_PEND] = 1
            src.pend[npend] = v
            npend += 1
    w.ci[CI_NWAKE] = 0
    cnt[K_CREATED] += qn
    cnt[K_QUEUED] += qn
    return npend


@njit(cache=True)
def _dest(w, i):
    """The message whose turn it is at node ``i`` (its active messages take turns packet by
    packet): its destination node and start cycle."""
    c = w.mq_cur[i]
    if c < w.mq_head[i] or c >= w.mq_tail[i]:
        c = w.mq_head[i]
        w.mq_cur[i] = c
    op = w.mq[w.mq_ptr[i] + c]
    return np.int64(w.peer[op]), w.t_start[op]


@njit(cache=True)
def _take(w, i):
    """One packet of the message at node ``i``'s cursor has started; a message with no
    packet left leaves the active region (swapped with its first entry). Returns it."""
    b = w.mq_ptr[i]
    c = w.mq_cur[i]
    op = w.mq[b + c]
    w.amount[op] -= 1  # after its start, a send's amount counts packets not yet started
    if w.amount[op] == 0:
        h = w.mq_head[i]
        w.mq[b + c] = w.mq[b + h]
        w.mq[b + h] = op
        w.mq_head[i] = h + 1
    w.mq_cur[i] = c + 1
    return op


@njit(cache=True)
def _bind(w, i, p):
    """Packet ``p`` of the pool carries the next packet of node ``i``'s current message."""
    w.pkt_op[p] = _take(w, i)


@njit(cache=True)
def _drop(w, src, cnt, i, adm, t):
    """Node ``i``'s current message has no route: the packet the kernel just counted and
    the rest of the message are dropped, the send completes, its receive never will."""
    op = w.mq[w.mq_ptr[i] + w.mq_cur[i]]
    rest = w.amount[op] - 1
    src.ql[i] -= rest
    cnt[K_QUEUED] -= rest
    if adm == 1:
        cnt[K_UNROUTABLE] += rest
    else:
        cnt[K_LIVELOCK] += rest
    w.amount[op] = 1
    _take(w, i)
    w.ci[CI_UNDELIV] += 1
    _event(w, op, t + 1)


@njit(cache=True)
def _event(w, op, tm):
    n = w.ci[CI_NEV]
    w.ev_op[n] = op
    w.ev_t[n] = tm
    w.ci[CI_NEV] = n + 1


@njit(cache=True)
def _flit_in(w, i, p, tail, t):
    """A flit of packet ``p`` left node ``i``; with the tail of a message's last packet the
    send completes (next cycle)."""
    w.inj_flits[i] += 1
    if tail:
        op = w.pkt_op[p]
        w.left[op] -= 1
        if w.left[op] & _LO == 0:
            _event(w, op, t + 1)


@njit(cache=True)
def _flit_out(w, op_port, p, delivered, t):
    """A flit crossed output port ``op_port``; ``delivered``: it was the tail of packet
    ``p`` entering its node, and the message's last one makes its receive's data arrive."""
    w.port_flits[op_port] += 1
    if delivered:
        s = w.pkt_op[p]
        w.left[s] -= _HI
        if w.left[s] < _HI and w.match[s] >= 0:
            _event(w, w.match[s], t + 1)


@njit(cache=True)
def _status(w, cnt, pool):
    """``ST_DONE`` when every operation has completed, or when nothing can move any more
    (no packet queued or in flight, no timer, no event: the rest waits for messages that
    could not be delivered); else ``ST_CHUNK``."""
    if w.ci[CI_DONE] == w.ci[CI_NOPS]:
        return ST_DONE
    if (
        cnt[K_QUEUED] == 0
        and cnt[K_FREE] == pool
        and w.ci[CI_NEV] == 0
        and w.ci[CI_NHP] == 0
        and w.ci[CI_NWORK] == 0
    ):
        return ST_DONE
    return ST_CHUNK


# ------------------------------------------------------------- the hooks the kernel calls
# Each is a pure-Python stub for documentation; numba compiles the overload: nothing (or
# the value unchanged) for ``None``, the engine above for a Closed view.


def cl_create(w, src, cnt, t, npend):
    """Start of a cycle: resolve events and timers, start ready operations; returns the
    pending-list length."""
    return _create(w, src, cnt, t, npend)


def cl_dest(w, i, d, tc):
    """The destination and creation cycle of node ``i``'s next packet (open loop: ``d``,
    ``tc`` as the pattern and the queue gave them)."""
    return _dest(w, i) if w is not None else (d, tc)


def cl_bind(w, i, p):
    """Record that pool packet ``p`` belongs to node ``i``'s head message."""
    if w is not None:
        _bind(w, i, p)


def cl_drop(w, src, cnt, i, adm, t):
    """Node ``i``'s head message is unroutable (``adm``: 1 unroutable, 2 livelock)."""
    if w is not None:
        _drop(w, src, cnt, i, adm, t)


def cl_flit_in(w, i, p, tail, t):
    """A flit of packet ``p`` entered the network from node ``i``."""
    if w is not None:
        _flit_in(w, i, p, tail, t)


def cl_flit_out(w, op_port, p, delivered, t):
    """A flit crossed output port ``op_port``."""
    if w is not None:
        _flit_out(w, op_port, p, delivered, t)


def cl_status(w, cnt, pool):
    """Whether the workload has ended (``ST_DONE``) or goes on (``ST_CHUNK``)."""
    return _status(w, cnt, pool) if w is not None else ST_CHUNK


def _none(t) -> bool:
    return isinstance(t, types.NoneType)


@overload(cl_create, inline="always")
def _ov_create(w, src, cnt, t, npend):
    if _none(w):
        return lambda w, src, cnt, t, npend: npend
    return lambda w, src, cnt, t, npend: _create(w, src, cnt, t, npend)


@overload(cl_dest, inline="always")
def _ov_dest(w, i, d, tc):
    if _none(w):
        return lambda w, i, d, tc: (d, tc)
    return lambda w, i, d, tc: _dest(w, i)


@overload(cl_bind, inline="always")
def _ov_bind(w, i, p):
    if _none(w):
        return lambda w, i, p: None
    return lambda w, i, p: _bind(w, i, p)


@overload(cl_drop, inline="always")
def _ov_drop(w, src, cnt, i, adm, t):
    if _none(w):
        return lambda w, src, cnt, i, adm, t: None
    return lambda w, src, cnt, i, adm, t: _drop(w, src, cnt, i, adm, t)


@overload(cl_flit_in, inline="always")
def _ov_flit_in(w, i, p, tail, t):
    if _none(w):
        return lambda w, i, p, tail, t: None
    return lambda w, i, p, tail, t: _flit_in(w, i, p, tail, t)


@overload(cl_flit_out, inline="always")
def _ov_flit_out(w, op_port, p, delivered, t):
    if _none(w):
        return lambda w, op_port, p, delivered, t: None
    return lambda w, op_port, p, delivered, t: _flit_out(w, op_port, p, delivered, t)


@overload(cl_status, inline="always")
def _ov_status(w, cnt, pool):
    if _none(w):
        return lambda w, cnt, pool: ST_CHUNK
    return lambda w, cnt, pool: _status(w, cnt, pool)


# ------------------------------------------------------------------------ setting it up


def closed_view(
    sched, placement, n_nodes: int, n_ports: int, packet_bytes: int, cycle_s: float, pool: int
) -> Closed:
    """The closed-loop state of a schedule, ready for the kernel.

    Parameters
    ----------
    sched : Schedule
        Checked operation lists (``match`` filled).
    placement : (ranks,) int array
        Node of each rank.
    n_nodes, n_ports : int
        Nodes, and output ports (switches x ports per switch) of the network.
    packet_bytes : int
        Bytes a packet carries (flits per packet x flit size).
    cycle_s : float
        Seconds per cycle (a calc of ``d`` ns lasts ``ceil(d / cycle)`` cycles).
    pool : int
        Packet-pool slots (``pkt_op``'s length; grows with the pool).

    Returns
    -------
    Closed

    Examples
    --------
    >>> from fattree.traffic.workloads.base import phase
    >>> from fattree.traffic.workloads import expand
    >>> s = expand([phase("ring", [0, 1], [1, 0], 600)], 2)
    >>> v = closed_view(s, np.array([0, 1]), 2, 4, 256, 1e-9, 16)
    >>> v.amount.tolist(), v.req_left.tolist(), int(v.ci[CI_NWORK])
    ([3, 3, 3, 3], [0, 0, 0, 0], 4)
    """
    n = sched.n_ops
    kind = np.ascontiguousarray(sched.kind, np.int8)
    place = np.asarray(placement, np.int64)
    node = place[sched.rank].astype(np.int32)
    msg = kind != CALC
    peer = np.full(n, -1, np.int32)
    peer[msg] = place[sched.peer[msg]]
    amount = np.zeros(n, np.int64)
    nb = sched.nbytes.astype(np.int64)
    amount[msg] = np.maximum(1, -(-nb[msg] // int(packet_bytes)))
    calc = kind == CALC
    amount[calc] = np.ceil(nb[calc] * 1e-9 / cycle_s - 1e-9).astype(np.int64)
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(sched.dep_ptr))
    isreq = sched.dep_kind == 0
    req_left = np.bincount(owner[isreq], minlength=n).astype(np.int32)
    ireq_left = np.bincount(owner[~isreq], minlength=n).astype(np.int32)

    def csr(pred, succ):
        o = np.argsort(pred, kind="stable")
        ptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(pred, minlength=n), out=ptr[1:])
        return ptr, np.ascontiguousarray(succ[o], np.int64)

    rs_ptr, rs_idx = csr(sched.dep_idx[isreq], owner[isreq])
    is_ptr, is_idx = csr(sched.dep_idx[~isreq], owner[~isreq])
    sends = kind == SEND
    mq_ptr = np.zeros(n_nodes + 1, np.int64)
    np.cumsum(np.bincount(node[sends], minlength=n_nodes), out=mq_ptr[1:])
    nev = 3 * n_nodes + 8  # per cycle: a send end and an arrival per node, and drops
    ncalc = int(calc.sum())
    work = np.zeros(max(n, 1), np.int64)
    ready = np.flatnonzero((req_left == 0) & (ireq_left == 0))
    work[: len(ready)] = ready[::-1]  # popped from the end: rank order first
    left = np.zeros(n, np.int64)
    left[kind == RECV] = -1
    ci = np.zeros(CI_COLS, np.int64)
    ci[CI_NOPS] = n
    ci[CI_NWORK] = len(ready)
    ci[CI_NPKT] = int(amount[sends].sum())
    return Closed(
        ci=ci,
        kind=kind,
        node=node,
        peer=peer,
        amount=amount,
        match=np.ascontiguousarray(sched.match, np.int64),
        req_left=req_left,
        ireq_left=ireq_left,
        rs_ptr=rs_ptr,
        rs_idx=rs_idx,
        is_ptr=is_ptr,
        is_idx=is_idx,
        state=np.zeros(n, np.int8),
        t_start=np.zeros(n, np.int64),
        t_end=np.full(n, -1, np.int64),
        left=left,
        mq=np.zeros(max(int(sends.sum()), 1), np.int64),
        mq_ptr=mq_ptr,
        mq_head=np.zeros(n_nodes, np.int64),
        mq_tail=np.zeros(n_nodes, np.int64),
        mq_cur=np.zeros(n_nodes, np.int64),
        ev_op=np.zeros(nev, np.int64),
        ev_t=np.zeros(nev, np.int64),
        hp_t=np.zeros(max(ncalc, 1), np.int64),
        hp_op=np.zeros(max(ncalc, 1), np.int64),
        work=work,
        pkt_op=np.full(pool, -1, np.int64),
        port_flits=np.zeros(n_ports, np.int64),
        inj_flits=np.zeros(n_nodes, np.int64),
        wake=np.zeros(n_nodes, np.int64),
        new_pk=np.zeros(n_nodes, np.int64),
    )


def grow_pool(w: Closed, pool: int) -> Closed:
    """The view with ``pkt_op`` grown to ``pool`` slots (after the packet pool grew).

    Parameters
    ----------
    w : Closed
        The view.
    pool : int
        The new pool size.

    Returns
    -------
    Closed
    """
    pkt_op = np.full(pool, -1, np.int64)
    pkt_op[: len(w.pkt_op)] = w.pkt_op
    return w._replace(pkt_op=pkt_op)


__all__ = [
    "Closed",
    "closed_view",
    "advance",
    "grow_pool",
    "cl_on",
    "cl_create",
    "cl_dest",
    "cl_bind",
    "cl_drop",
    "cl_flit_in",
    "cl_flit_out",
    "cl_status",
    "CI_NOPS",
    "CI_DONE",
    "CI_UNDELIV",
    "CI_NPKT",
]
