"""The closed-loop traffic source of the papers' simulator: a workload's operations.

A workload (a collective or a GOAL schedule, :mod:`fattree.traffic.workloads`) runs in
the cycle loop of :mod:`fattree.sim.kernel` as its traffic source: operations and their
dependencies in fixed-dtype arrays (:class:`Closed`, built by :func:`closed_view`), no
object per message or packet.

* A GOAL schedule's operations are held whole, one slot each, with dependency counters
  and their dependents as CSR.
* A collective's distinct phases are held once (struct-of-arrays, with their ``repeat``
  counts), and each rank's operations of a step are generated into free slots when its
  previous step has completed (:func:`_generate`), in the order of the expanded schedule
  (:func:`fattree.traffic.workloads.expand`: a step's sends, then its receives, each in
  message order; a step requires the rank's previous one), so the run is the expanded
  schedule's, number for number, while the slots hold O(ranks x operations per step).
  A receive whose sender reaches its step first is created by the sender (queued on its
  message, ``lk_*``) and keeps its message's arrival until the receiver claims it. A
  slot is freed when its operation has completed (a send's when its packets are also
  delivered); a cycle takes at most ``ci[CI_ROOM]`` slots (one step per rank that
  allocates: a step that completes within the cycle it starts has no send and only
  receives created before), and the kernels stop before a cycle with fewer free
  (:func:`low`; the caller grows them, :func:`grow_slots`).

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

from ..compiling import numba_only
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
CI_PHASED = 8  # 1: operations generated step by step from phases; 0: explicit lists
CI_NFREE = 9  # free operation slots (phased)
CI_ROOM = 10  # free slots a cycle may need (phased; fewer: the engine grows them first)
CI_RANKS = 11  # ranks
CI_NSTEPS = 12  # steps of the phased collective
CI_COLS = 13

SEND, RECV, CALC = 0, 1, 2  # as fattree.traffic.workloads.schedule
SLOT_ROOMS = 2  # a phased collective's first steps' slots, and this many cycles' worth more
SLOT_SPARE = 64  # and this many more
WAITING, STARTED, DONE = 0, 1, 2

_FIELDS = (
    "ci kind node peer rank prank amount match state t_start t_end left okey ostep nxt free "
    "req_left ireq_left rs_ptr rs_idx is_ptr is_idx "
    "place rank_ptr st_ph ph_step0 sp_ptr sp_msg rp_ptr rp_msg m_src m_dst m_pk lk_head lk_tail "
    "g_step g_left g_tmax g_opos "
    "mq mq_ptr mq_head mq_tail mq_cur ev_op ev_t hp_t hp_op work pkt_op port_flits inj_flits "
    "wake new_pk rank_end rb_t rb_key rb_peer step_end tl_base tl_start tl_end tl_kind"
)
Closed = namedtuple("Closed", _FIELDS)
Closed.__doc__ = """The closed-loop state (fixed-dtype arrays; ``C`` operation slots, ``N``
nodes, ``P`` ranks).

Operation slots (``C``): ``kind`` int8 (send, recv, calc); ``node`` int32: the node of the
operation's rank; ``peer`` int32: a send's destination node, a receive's source node;
``rank`` / ``prank`` int32: its rank and its peer's rank; ``amount`` int64: a send's
packets, a calc's cycles; ``match`` int64: the matching receive of a send and back;
``state`` int8; ``t_start`` int64: ready time, then start time; ``t_end`` int64: completion
cycle (-1: not yet); ``left`` int64: see below; ``okey``: the operation's index in the
expanded schedule (:func:`fattree.traffic.workloads.expand`'s order); ``ostep``: its step
(-1 in an explicit schedule); ``nxt``: the next slot of a message's pending receives;
``free``: the free-slot stack.

An explicit schedule (a GOAL file) has one slot per operation and its dependencies as CSR:
``req_left`` / ``ireq_left`` int32: dependencies not yet met; ``rs_*`` / ``is_*``: the
operations that require / irequire each one.

A phased collective (``ci[CI_PHASED]``) keeps its distinct phases once: ``st_ph``: the
phase of each step; ``ph_step0``: each phase's first step; ``sp_*`` / ``rp_*``: per phase
and rank (CSR, ``k * (P + 1) + r``) the messages it sends / receives; ``m_src`` /
``m_dst`` / ``m_pk``: each message's ranks and packets; ``lk_head`` / ``lk_tail``: each
message's receive slots created by one side before the other side reached that step.
``g_step`` / ``g_left`` / ``g_tmax`` / ``g_opos``: each rank's current step, operations of
it not yet completed, their latest completion and the operations generated so far. A
rank's operations of its next step are generated when those of its current step have
completed (a step requires the rank's previous one), so the slots hold
O(ranks x operations per step), not the whole schedule.

``mq`` / ``mq_ptr`` / ``mq_head`` / ``mq_tail``: each node's ring of started sends;
``mq_cur``: the position whose turn it is (a node's started messages take turns, a
packet each, as a NIC serving several queues: fair shares of the injection link); ``ev_op`` /
``ev_t``: events for the next cycle; ``hp_t`` / ``hp_op``: the calc timers' heap;
``work``: ready operations; ``pkt_op``: the send of each packet in the pool;
``port_flits`` (S*R) and ``inj_flits`` (N): flits each output port and node link carried;
``wake`` / ``new_pk`` (N): nodes whose sends started since the model's source phase last
ran, and the packets each gained.

What the result reads, accumulated as operations complete: ``rank_end`` (P): each rank's
last completion; ``rb_t`` / ``rb_key`` / ``rb_peer`` (P): its latest receive (the first in
schedule order among equals) and the sending rank; ``step_end``: each step's last
completion; ``tl_base`` (P): where a rank's operations are kept for the timeline (-1: not
kept), ``tl_start`` / ``tl_end`` / ``tl_kind``: their start, end (-1: not completed) and
kind in schedule order."""

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


@numba_only()
def _push(w, j):
    n = w.ci[CI_NWORK]
    w.work[n] = j
    w.ci[CI_NWORK] = n + 1


@numba_only()
def _ready(w, j, tm):
    """A dependency of ``j`` is met at ``tm``: start it when none is left."""
    if w.t_start[j] < tm:
        w.t_start[j] = tm
    if w.req_left[j] == 0 and w.ireq_left[j] == 0 and w.state[j] == WAITING:
        _push(w, j)


@numba_only()
def _alloc(w):
    n = w.ci[CI_NFREE] - 1
    w.ci[CI_NFREE] = n
    return w.free[n]


@numba_only()
def _release(w, i):
    n = w.ci[CI_NFREE]
    w.free[n] = i
    w.ci[CI_NFREE] = n + 1


@numba_only()
def _new_recv(w, m):
    """A receive slot for the next copy of message ``m``, queued on the message until the
    other side of it reaches that step."""
    j = _alloc(w)
    src = w.m_src[m]
    dst = w.m_dst[m]
    w.kind[j] = RECV
    w.rank[j] = dst
    w.prank[j] = src
    w.node[j] = w.place[dst]
    w.peer[j] = w.place[src]
    w.amount[j] = 0
    w.match[j] = -1
    w.state[j] = WAITING
    w.t_start[j] = 0
    w.t_end[j] = -1
    w.left[j] = -1
    w.nxt[j] = -1
    t = w.lk_tail[m]
    if t < 0:
        w.lk_head[m] = j
    else:
        w.nxt[t] = j
    w.lk_tail[m] = j
    return j


@numba_only()
def _pop_link(w, m):
    j = w.lk_head[m]
    w.lk_head[m] = w.nxt[j]
    if w.nxt[j] < 0:
        w.lk_tail[m] = -1
    return j


@numba_only()
def _next_step(w, r, s):
    """The first step after ``s`` in which rank ``r`` sends or receives (-1: none)."""
    P1 = w.ci[CI_RANKS] + 1
    s1 = s + 1
    ns = w.ci[CI_NSTEPS]
    while s1 < ns:
        k = w.st_ph[s1]
        b = k * P1 + r
        if w.sp_ptr[b + 1] > w.sp_ptr[b] or w.rp_ptr[b + 1] > w.rp_ptr[b]:
            return s1
        s1 = w.ph_step0[k + 1]
    return -1


@numba_only()
def _generate(w, r, s, tm):
    """Rank ``r``'s operations of step ``s``, ready at ``tm``, onto the work stack in the
    expanded schedule's order: its sends, then its receives, each in message order."""
    k = w.st_ph[s]
    b = k * (w.ci[CI_RANKS] + 1) + r
    key = w.rank_ptr[r] + w.g_opos[r]
    pos = 0
    v = w.place[r]
    for e in range(w.sp_ptr[b], w.sp_ptr[b + 1]):
        m = w.sp_msg[e]
        i = _alloc(w)
        d = w.m_dst[m]
        w.kind[i] = SEND
        w.rank[i] = r
        w.prank[i] = d
        w.node[i] = v
        w.peer[i] = w.place[d]
        w.amount[i] = w.m_pk[m]
        w.state[i] = WAITING
        w.t_start[i] = tm
        w.t_end[i] = -1
        w.left[i] = 0
        w.okey[i] = key + pos
        w.ostep[i] = s
        h = w.lk_head[m]
        if h >= 0 and w.match[h] < 0:  # the receiver created it first
            j = _pop_link(w, m)
        else:
            j = _new_recv(w, m)
        w.match[i] = j
        w.match[j] = i
        _push(w, i)
        pos += 1
    for e in range(w.rp_ptr[b], w.rp_ptr[b + 1]):
        m = w.rp_msg[e]
        h = w.lk_head[m]
        if h >= 0 and w.match[h] >= 0:  # the sender created it first
            j = _pop_link(w, m)
        else:
            j = _new_recv(w, m)
        w.t_start[j] = tm
        w.okey[j] = key + pos
        w.ostep[j] = s
        _push(w, j)
        pos += 1
    w.g_step[r] = s
    w.g_left[r] = pos
    w.g_tmax[r] = 0
    w.g_opos[r] += pos


@njit(cache=True)
def start_phased(w):
    """Each rank's first step onto the work stack, popped in rank order (as the expanded
    schedule's operations without dependencies)."""
    for r in range(w.ci[CI_RANKS]):
        s = _next_step(w, r, -1)
        if s >= 0:
            _generate(w, r, s, 0)
    n = w.ci[CI_NWORK]
    w.work[:n] = w.work[:n][::-1].copy()


@numba_only()
def _record(w, i, tm):
    """What the result reads of operation ``i``, completed at ``tm``."""
    r = w.rank[i]
    if w.rank_end[r] < tm:
        w.rank_end[r] = tm
    s = w.ostep[i]
    if s >= 0 and w.step_end[s] < tm:
        w.step_end[s] = tm
    key = w.okey[i]
    if w.kind[i] == RECV and (tm > w.rb_t[r] or (tm == w.rb_t[r] and key < w.rb_key[r])):
        w.rb_t[r] = tm
        w.rb_key[r] = key
        w.rb_peer[r] = w.prank[i]
    b = w.tl_base[r]
    if b >= 0:
        j = b + key - w.rank_ptr[r]
        w.tl_start[j] = w.t_start[i]
        w.tl_end[j] = tm
        w.tl_kind[j] = w.kind[i]


@numba_only()
def _complete(w, i, tm):
    w.state[i] = DONE
    w.t_end[i] = tm
    w.ci[CI_DONE] += 1
    _record(w, i, tm)
    if w.ci[CI_PHASED] == 0:
        for e in range(w.rs_ptr[i], w.rs_ptr[i + 1]):
            j = w.rs_idx[e]
            w.req_left[j] -= 1
            _ready(w, j, tm)
        return
    r = np.int64(w.rank[i])  # (as start_phased's: one compiled _next_step and _generate)
    if w.g_tmax[r] < tm:
        w.g_tmax[r] = tm
    w.g_left[r] -= 1
    if w.g_left[r] == 0:  # the rank's next step is ready
        s = _next_step(w, r, w.g_step[r])
        if s >= 0:
            _generate(w, r, s, w.g_tmax[r])
    if w.kind[i] == RECV or w.left[i] < _HI:  # (a send: once every packet is delivered)
        _release(w, i)


@numba_only()
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


@numba_only()
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


@numba_only()
def _mq_at(w, v, pos):
    """Index in ``mq`` of position ``pos`` of node ``v``'s ring."""
    b = w.mq_ptr[v]
    return b + pos % (w.mq_ptr[v + 1] - b)


@numba_only()
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
    phased = w.ci[CI_PHASED] != 0
    while w.ci[CI_NWORK] > 0:
        n = w.ci[CI_NWORK] - 1
        w.ci[CI_NWORK] = n
        i = w.work[n]
        if w.state[i] != WAITING:
            continue
        w.state[i] = STARTED
        ts = w.t_start[i]
        if not phased:
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
            v = np.int64(w.node[i])  # (as the kernels' node numbers: one compiled _mq_at)
            np_ = w.amount[i]
            w.left[i] = np_ * _HI + np_
            w.mq[_mq_at(w, v, w.mq_tail[v])] = i
            w.mq_tail[v] += 1
            if w.new_pk[v] == 0:
                w.wake[nw] = v
                nw += 1
            w.new_pk[v] += np_
            qn += np_
    w.ci[CI_NWAKE] = nw
    return qn


@numba_only()
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


@numba_only()
def _dest(w, i):
    """The message whose turn it is at node ``i`` (its active messages take turns packet by
    packet): its destination node and start cycle."""
    c = w.mq_cur[i]
    if c < w.mq_head[i] or c >= w.mq_tail[i]:
        c = w.mq_head[i]
        w.mq_cur[i] = c
    op = w.mq[_mq_at(w, i, c)]
    return np.int64(w.peer[op]), w.t_start[op]


@numba_only()
def _take(w, i):
    """One packet of the message at node ``i``'s cursor has started; a message with no
    packet left leaves the active region (swapped with its first entry). Returns it."""
    c = w.mq_cur[i]
    ic = _mq_at(w, i, c)
    op = w.mq[ic]
    w.amount[op] -= 1  # after its start, a send's amount counts packets not yet started
    if w.amount[op] == 0:
        h = w.mq_head[i]
        ih = _mq_at(w, i, h)
        w.mq[ic] = w.mq[ih]
        w.mq[ih] = op
        w.mq_head[i] = h + 1
    w.mq_cur[i] = c + 1
    return op


@numba_only()
def _bind(w, i, p):
    """Packet ``p`` of the pool carries the next packet of node ``i``'s current message."""
    w.pkt_op[p] = _take(w, i)


@numba_only()
def _drop(w, src, cnt, i, adm, t):
    """Node ``i``'s current message has no route: the packet the kernel just counted and
    the rest of the message are dropped, the send completes, its receive never will."""
    op = w.mq[_mq_at(w, i, w.mq_cur[i])]
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


@numba_only()
def _event(w, op, tm):
    n = w.ci[CI_NEV]
    w.ev_op[n] = op
    w.ev_t[n] = tm
    w.ci[CI_NEV] = n + 1


@numba_only()
def tail_left(w, op, t):
    """A tail of send ``op``'s packets left its node in cycle ``t``; with the last one the
    send completes (next cycle). For any cycle loop."""
    w.left[op] -= 1
    if w.left[op] & _LO == 0:
        _event(w, op, t + 1)


@numba_only()
def delivered(w, s, t):
    """A packet of send ``s`` was delivered in cycle ``t``; the message's last one makes
    its receive's data arrive (next cycle). For any cycle loop."""
    w.left[s] -= _HI
    if w.left[s] < _HI:
        if w.match[s] >= 0:
            _event(w, w.match[s], t + 1)
        if w.ci[CI_PHASED] != 0 and w.state[s] == DONE:  # its slot is free again
            _release(w, s)


@numba_only()
def _flit_in(w, i, p, tail, t):
    """A flit of packet ``p`` left node ``i``; with the tail of a message's last packet the
    send completes (next cycle)."""
    w.inj_flits[i] += 1
    if tail:
        tail_left(w, w.pkt_op[p], t)


@numba_only()
def _flit_out(w, op_port, p, dlv, t):
    """A flit crossed output port ``op_port``; ``dlv``: it was the tail of packet ``p``
    entering its node, and the message's last one makes its receive's data arrive."""
    w.port_flits[op_port] += 1
    if dlv:
        delivered(w, w.pkt_op[p], t)


@numba_only()
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


@numba_only()
def low(w):
    """Fewer free operation slots than a cycle may take: the caller grows them
    (:func:`grow_slots`) before the cycle starts. For any cycle loop."""
    return w.ci[CI_NFREE] < w.ci[CI_ROOM]


# ------------------------------------------------------------- the hooks the kernel calls
# Each is a pure-Python stub for documentation; numba compiles the overload: nothing (or
# the value unchanged) for ``None``, the engine above for a Closed view (whose steps are
# ``numba_only``: from Python, a stub given a Closed view raises TypeError).


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


def cl_flit_out(w, op_port, p, dlv, t):
    """A flit crossed output port ``op_port`` (``dlv``: a packet's tail into its node)."""
    if w is not None:
        _flit_out(w, op_port, p, dlv, t)


def cl_status(w, cnt, pool):
    """Whether the workload has ended (``ST_DONE``) or goes on (``ST_CHUNK``)."""
    return _status(w, cnt, pool) if w is not None else ST_CHUNK


def cl_low(w):
    """Whether the operation slots must grow before the next cycle (open loop: never)."""
    return low(w) if w is not None else False


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
def _ov_flit_out(w, op_port, p, dlv, t):
    if _none(w):
        return lambda w, op_port, p, dlv, t: None
    return lambda w, op_port, p, dlv, t: _flit_out(w, op_port, p, dlv, t)


@overload(cl_low, inline="always")
def _ov_low(w):
    if _none(w):
        return lambda w: False
    return lambda w: low(w)


@overload(cl_status, inline="always")
def _ov_status(w, cnt, pool):
    if _none(w):
        return lambda w, cnt, pool: ST_CHUNK
    return lambda w, cnt, pool: _status(w, cnt, pool)


# ------------------------------------------------------------------------ setting it up


def closed_view(
    workload,
    n_nodes: int,
    n_ports: int,
    packet_bytes: int,
    cycle_s: float,
    pool: int,
    keep=None,
) -> Closed:
    """The closed-loop state of a workload, ready for the kernel.

    A collective (``workload.phases``) is generated step by step from its distinct
    phases (memory O(ranks x operations per step)); a schedule read from a file
    (``workload.ops``) has one slot per operation.

    Parameters
    ----------
    workload : Workload
        Bound to the network (:func:`fattree.traffic.workloads.make_workload`).
    n_nodes, n_ports : int
        Nodes, and output ports (switches x ports per switch) of the network.
    packet_bytes : int
        Bytes a packet carries (flits per packet x flit size).
    cycle_s : float
        Seconds per cycle (a calc of ``d`` ns lasts ``ceil(d / cycle)`` cycles).
    pool : int
        Packet-pool slots (``pkt_op``'s length; grows with the pool).
    keep : array of int, optional
        Ranks whose operations the timeline keeps (default: every rank).

    Returns
    -------
    Closed

    Examples
    --------
    >>> from fattree.traffic.workloads import make_workload
    >>> w = make_workload("allgather:size=1200B", 2)
    >>> v = start(closed_view(w, 2, 4, 256, 1e-9, 16))
    >>> int(v.ci[CI_NOPS]), int(v.ci[CI_NPKT]), v.work[:4].tolist()
    (4, 6, [1, 3, 2, 0])
    """
    place = np.ascontiguousarray(workload.placement, np.int64)
    ranks = int(workload.ranks)
    if workload.phases is None:
        parts = _explicit(workload.ops, place, n_nodes, packet_bytes, cycle_s)
    else:
        parts = _phased(workload.phases, ranks, place, n_nodes, packet_bytes)
    rank_ptr = parts["rank_ptr"]
    counts = np.diff(rank_ptr)
    kept = np.arange(ranks) if keep is None else np.unique(np.asarray(keep, np.int64))
    tl_base = np.full(ranks, -1, np.int64)
    sizes = counts[kept]
    tl_base[kept] = np.cumsum(sizes) - sizes
    ntl = max(int(sizes.sum()), 1)
    mcap = np.maximum(parts.pop("mq_cap"), 1)
    mq_ptr = np.zeros(n_nodes + 1, np.int64)
    np.cumsum(mcap, out=mq_ptr[1:])
    nev = 3 * n_nodes + 8  # per cycle: a send end and an arrival per node, and drops
    ci = parts.pop("ci")
    ci[CI_RANKS] = ranks
    return Closed(
        ci=ci,
        place=place,
        **parts,
        mq=np.zeros(int(mq_ptr[-1]), np.int64),
        mq_ptr=mq_ptr,
        mq_head=np.zeros(n_nodes, np.int64),
        mq_tail=np.zeros(n_nodes, np.int64),
        mq_cur=np.zeros(n_nodes, np.int64),
        ev_op=np.zeros(nev, np.int64),
        ev_t=np.zeros(nev, np.int64),
        pkt_op=np.full(pool, -1, np.int64),
        port_flits=np.zeros(n_ports, np.int64),
        inj_flits=np.zeros(n_nodes, np.int64),
        wake=np.zeros(n_nodes, np.int64),
        new_pk=np.zeros(n_nodes, np.int64),
        rank_end=np.zeros(ranks, np.int64),
        rb_t=np.full(ranks, -1, np.int64),
        rb_key=np.zeros(ranks, np.int64),
        rb_peer=np.full(ranks, -1, np.int64),
        tl_base=tl_base,
        tl_start=np.zeros(ntl, np.int64),
        tl_end=np.full(ntl, -1, np.int64),
        tl_kind=np.zeros(ntl, np.int8),
    )


def _none_phases(ranks: int) -> dict:
    """The phased fields of an explicit schedule (never read)."""
    one = np.zeros(1, np.int64)
    return dict(
        st_ph=one,
        ph_step0=one.copy(),
        sp_ptr=one.copy(),
        sp_msg=one.copy(),
        rp_ptr=one.copy(),
        rp_msg=one.copy(),
        m_src=np.zeros(1, np.int32),
        m_dst=np.zeros(1, np.int32),
        m_pk=one.copy(),
        lk_head=one.copy(),
        lk_tail=one.copy(),
        g_step=np.zeros(ranks, np.int64),
        g_left=np.zeros(ranks, np.int64),
        g_tmax=np.zeros(ranks, np.int64),
        g_opos=np.zeros(ranks, np.int64),
        step_end=one.copy(),
    )


def _explicit(sched, place, n_nodes: int, packet_bytes, cycle_s) -> dict:
    """One slot per operation of a checked schedule, its dependencies as CSR."""
    n = sched.n_ops
    kind = np.ascontiguousarray(sched.kind, np.int8)
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
    return dict(
        ci=ci,
        kind=kind,
        node=node,
        peer=peer,
        rank=np.ascontiguousarray(sched.rank, np.int32),
        prank=np.ascontiguousarray(sched.peer, np.int32),
        amount=amount,
        match=np.ascontiguousarray(sched.match, np.int64),
        state=np.zeros(n, np.int8),
        t_start=np.zeros(n, np.int64),
        t_end=np.full(n, -1, np.int64),
        left=left,
        okey=np.arange(n, dtype=np.int64),
        ostep=np.full(n, -1, np.int64),
        nxt=np.zeros(1, np.int64),
        free=np.zeros(1, np.int64),
        req_left=req_left,
        ireq_left=ireq_left,
        rs_ptr=rs_ptr,
        rs_idx=rs_idx,
        is_ptr=is_ptr,
        is_idx=is_idx,
        rank_ptr=np.ascontiguousarray(sched.rank_ptr, np.int64),
        hp_t=np.zeros(max(ncalc, 1), np.int64),
        hp_op=np.zeros(max(ncalc, 1), np.int64),
        work=work,
        mq_cap=np.bincount(node[sends], minlength=n_nodes),
        **_none_phases(len(sched.rank_ptr) - 1),
    )


def _slots(c: int) -> dict:
    """``c`` empty operation slots, all on the free stack (popped from slot 0)."""
    return dict(
        kind=np.zeros(c, np.int8),
        node=np.zeros(c, np.int32),
        peer=np.zeros(c, np.int32),
        rank=np.zeros(c, np.int32),
        prank=np.zeros(c, np.int32),
        amount=np.zeros(c, np.int64),
        match=np.full(c, -1, np.int64),
        state=np.zeros(c, np.int8),
        t_start=np.zeros(c, np.int64),
        t_end=np.full(c, -1, np.int64),
        left=np.zeros(c, np.int64),
        okey=np.zeros(c, np.int64),
        ostep=np.zeros(c, np.int64),
        nxt=np.full(c, -1, np.int64),
        free=np.arange(c - 1, -1, -1, dtype=np.int64),
    )


def _phased(phases, ranks: int, place, n_nodes: int, packet_bytes: int) -> dict:
    """A collective's distinct phases once (struct-of-arrays), the slots its steps need."""
    P1 = ranks + 1
    live = [ph for ph in phases if ph.repeat > 0]
    K = len(live)
    M = sum(ph.messages for ph in live)
    m_src = np.zeros(M, np.int32)
    m_dst = np.zeros(M, np.int32)
    m_pk = np.zeros(M, np.int64)
    sp_ptr = np.zeros(max(K * P1, 1), np.int64)
    rp_ptr = np.zeros(max(K * P1, 1), np.int64)
    sp_msg = np.zeros(max(M, 1), np.int64)
    rp_msg = np.zeros(max(M, 1), np.int64)
    per_rank = np.zeros(ranks, np.int64)  # operations of each rank in all
    group = np.zeros(ranks, np.int64)  # most operations of one step of each rank
    sends = np.zeros(ranks, np.int64)  # most sends of one step
    first = np.zeros(ranks, np.int64)  # operations of each rank's first step
    later = np.zeros(ranks, np.int64)  # most operations of one of its later steps
    seen = np.zeros(ranks, bool)
    n_ops = 0
    n_pkt = 0
    m0 = 0
    for k, ph in enumerate(live):
        src, dst, nb = ph.arrays()
        m = len(src)
        sl = slice(m0, m0 + m)
        m_src[sl] = src
        m_dst[sl] = dst
        pk = np.maximum(1, -(-np.asarray(nb, np.int64) // int(packet_bytes)))
        m_pk[sl] = pk
        cs = np.bincount(src, minlength=ranks)
        cr = np.bincount(dst, minlength=ranks)
        sp_msg[sl] = m0 + np.argsort(src, kind="stable")
        rp_msg[sl] = m0 + np.argsort(dst, kind="stable")
        sp_ptr[k * P1 + 1 : (k + 1) * P1] = m0 + np.cumsum(cs)
        sp_ptr[k * P1] = m0
        rp_ptr[k * P1 + 1 : (k + 1) * P1] = m0 + np.cumsum(cr)
        rp_ptr[k * P1] = m0
        per_rank += (cs + cr) * ph.repeat
        np.maximum(group, cs + cr, out=group)
        part = (cs + cr) > 0
        new = part & ~seen
        first[new] = (cs + cr)[new]
        again = part & seen if ph.repeat == 1 else part
        later[again] = np.maximum(later[again], (cs + cr)[again])
        seen |= part
        np.maximum(sends, cs, out=sends)
        n_ops += 2 * m * ph.repeat
        n_pkt += int(pk.sum()) * ph.repeat
        m0 += m
    reps = np.array([ph.repeat for ph in live], np.int64)
    ph_step0 = np.zeros(K + 1, np.int64)
    np.cumsum(reps, out=ph_step0[1:])
    nsteps = int(ph_step0[-1])
    st_ph = np.repeat(np.arange(K, dtype=np.int64), reps) if K else np.zeros(1, np.int64)
    rank_ptr = np.zeros(P1, np.int64)
    np.cumsum(per_rank, out=rank_ptr[1:])
    g = int(group.sum())
    # the first steps are generated before the run (a send and a receive slot per send,
    # a slot per receive at most); a cycle then generates at most one step per rank that
    # allocates (see the module's docstring)
    room = 2 * int(later.sum())
    slots = 2 * int(first.sum()) + SLOT_ROOMS * room + SLOT_SPARE
    ci = np.zeros(CI_COLS, np.int64)
    ci[CI_NOPS] = n_ops
    ci[CI_NPKT] = n_pkt
    ci[CI_PHASED] = 1
    ci[CI_NFREE] = slots
    ci[CI_ROOM] = room
    ci[CI_NSTEPS] = nsteps
    mq_cap = np.zeros(n_nodes, np.int64)
    mq_cap[place] = sends
    one = np.zeros(1, np.int64)
    return dict(
        ci=ci,
        **_slots(slots),
        req_left=np.zeros(1, np.int32),
        ireq_left=np.zeros(1, np.int32),
        rs_ptr=one,
        rs_idx=one.copy(),
        is_ptr=one.copy(),
        is_idx=one.copy(),
        rank_ptr=rank_ptr,
        st_ph=st_ph,
        ph_step0=ph_step0,
        sp_ptr=sp_ptr,
        sp_msg=sp_msg,
        rp_ptr=rp_ptr,
        rp_msg=rp_msg,
        m_src=m_src,
        m_dst=m_dst,
        m_pk=m_pk,
        lk_head=np.full(max(M, 1), -1, np.int64),
        lk_tail=np.full(max(M, 1), -1, np.int64),
        g_step=np.full(ranks, -1, np.int64),
        g_left=np.zeros(ranks, np.int64),
        g_tmax=np.zeros(ranks, np.int64),
        g_opos=np.zeros(ranks, np.int64),
        step_end=np.zeros(max(nsteps, 1), np.int64),
        hp_t=one.copy(),
        hp_op=one.copy(),
        work=np.zeros(g + 1, np.int64),
        mq_cap=mq_cap,
    )


def start(w: Closed) -> Closed:
    """A view ready to run: a phased collective's first steps generated.

    Parameters
    ----------
    w : Closed
        From :func:`closed_view`.

    Returns
    -------
    Closed
        ``w`` (its arrays filled in place).
    """
    if w.ci[CI_PHASED]:
        start_phased(w)
    return w


def short_of_slots(w: Closed) -> bool:
    """Whether the kernel stopped to have the operation slots grown (:func:`low`, for
    Python callers).

    Parameters
    ----------
    w : Closed
        The view.

    Returns
    -------
    bool
    """
    return int(w.ci[CI_NFREE]) < int(w.ci[CI_ROOM])


def grow_slots(w: Closed) -> Closed:
    """The view with twice the operation slots (the new ones on the free stack).

    Parameters
    ----------
    w : Closed
        The view (phased).

    Returns
    -------
    Closed
    """
    c = len(w.kind)
    new = _slots(2 * c)
    rep = {}
    for f, a in new.items():
        if f != "free":
            a[:c] = getattr(w, f)
            rep[f] = a
    nfree = int(w.ci[CI_NFREE])
    free = np.zeros(2 * c, np.int64)
    free[:nfree] = w.free[:nfree]
    free[nfree : nfree + c] = np.arange(2 * c - 1, c - 1, -1)
    w.ci[CI_NFREE] = nfree + c
    return w._replace(free=free, **rep)


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
    "start",
    "advance",
    "tail_left",
    "delivered",
    "low",
    "short_of_slots",
    "grow_slots",
    "grow_pool",
    "cl_on",
    "cl_create",
    "cl_dest",
    "cl_bind",
    "cl_drop",
    "cl_flit_in",
    "cl_flit_out",
    "cl_low",
    "cl_status",
    "CI_NOPS",
    "CI_DONE",
    "CI_UNDELIV",
    "CI_NPKT",
]
