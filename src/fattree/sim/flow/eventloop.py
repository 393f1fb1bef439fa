"""The operations engine's event loop: a private numba kernel over named arrays.

:func:`fattree.sim.flow.operations._run_operations` builds the schedule's dependency
graph and the messages' routes (:class:`OpGraph`) and reads the outcome back
(:class:`OpState`); :func:`_run` runs the operations by their dependencies, event by
event, recomputing the max-min rates of the messages in flight whenever one starts or
ends (:func:`fattree.sim.flow.maxmin._maxmin`). Pending events (a computation's end, a
message's arrival) sit in a binary heap ordered by (time, push order), with the sift
steps of Python's ``heapq``, so that events at the same time run in the order they were
scheduled (an operation has one event at most: a computation's end or the arrival of a
receive's message); the operations that become ready wait on a stack (last in, first out).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ...compiling import numba_only
from ...traffic.workloads.schedule import CALC, SEND
from .maxmin import _maxmin

OpGraph = namedtuple(
    "OpGraph",
    "kind nbytes match slot_of sends ok hops ptr chan rs_ptr rs is_ptr is_",
)
OpGraph.__doc__ = (
    "The schedule as arrays: each operation's kind, bytes (a computation's nanoseconds) "
    "and matching receive; each send's slot (-1: not a send), the slots' operations, "
    "whether the route exists, its hops and channels (CSR ``ptr``/``chan``); the "
    "operations that require (``rs``) or irequire (``is_``) each operation (CSR)."
)

OpState = namedtuple(
    "OpState",
    "req_left ireq_left state end_t when seq has_arrived work active rem rate bott heap counters",
)
OpState.__doc__ = (
    "The loop's state: unmet dependencies, each operation's state (0 waiting, 1 "
    "started, 2 done) and end time, its event's time and push order (a computation's "
    "end, a receive's message arriving: one event per operation at most), whether a "
    "receive's message is in, the ready stack, the sends in flight with their bytes "
    "left, rates and bounding channel, the heap of pending events (operations) and "
    "``counters`` (int64: ready, in flight, heap size, pushes, undelivered, first "
    "undelivered operation)."
)

Rates = namedtuple("Rates", "lptr ch inv uch r b cap ones mark")
Rates.__doc__ = (
    "Scratch of the rate computation, sized for every message at once: the messages' "
    "channel rows (``lptr``/``ch``), their local numbers (``inv``) and the distinct "
    "channels in order (``uch``), the rates and bounding channels (``r``, ``b``), the "
    "channels' capacity and the flows' activity (``cap``, ``ones``) and ``mark`` (one "
    "slot per channel of the network, all -1 between calls)."
)

# counters' slots
C_WORK, C_ACTIVE, C_HEAP, C_SEQ, C_UNDELIVERED, C_LOST = range(6)


@njit(cache=True, inline="always")
def _before(st, a, b):
    # heapq's tuple order: time first, then push order (equal times keep it)
    wa, wb = st.when[a], st.when[b]
    if wa != wb:
        return wa < wb
    return st.seq[a] < st.seq[b]


@njit(cache=True, inline="always")
def _sift_up(st, i, op):
    # heapq's _siftdown: operation op climbs from the hole at i while it is earlier
    h = st.heap
    while i > 0:
        p = (i - 1) >> 1
        if not _before(st, op, h[p]):
            break
        h[i] = h[p]
        i = p
    h[i] = op


@numba_only()
def _push(st, when, op):
    """heapq.heappush of operation ``op``'s event at ``when``."""
    c = st.counters
    st.when[op], st.seq[op] = when, c[C_SEQ]
    c[C_SEQ] += 1
    c[C_HEAP] += 1
    _sift_up(st, c[C_HEAP] - 1, op)


@numba_only()
def _pop(st):
    """heapq.heappop: the operation whose event is earliest."""
    c = st.counters
    h = st.heap
    top = h[0]
    n = c[C_HEAP] - 1
    c[C_HEAP] = n
    if n == 0:
        return top
    item = h[n]
    # heapq's _siftup: the smaller child climbs to the leaves, then the item sifts down
    i = 0
    while 2 * i + 1 < n:
        a = 2 * i + 1
        if a + 1 < n and not _before(st, h[a], h[a + 1]):
            a += 1
        h[i] = h[a]
        i = a
    _sift_up(st, i, item)
    return top


@numba_only()
def _ready(st, j):
    c = st.counters
    st.work[c[C_WORK]] = j
    c[C_WORK] += 1


@njit(cache=True, inline="always")
def _release(st, ptr, succ, left, i):
    # operation i meets one dependency (counted in ``left``) of each of its successors
    # succ[ptr[i]:ptr[i + 1]]: those left with none become ready
    for k in range(ptr[i], ptr[i + 1]):
        j = succ[k]
        left[j] -= 1
        if st.req_left[j] == 0 and st.ireq_left[j] == 0 and st.state[j] == 0:
            _ready(st, j)


@numba_only()
def _complete(g, st, i, when):
    st.end_t[i] = when
    st.state[i] = 2
    _release(st, g.rs_ptr, g.rs, st.req_left, i)


@numba_only()
def _arrive(g, st, op, when):
    r = g.match[op]
    if r >= 0:
        _push(st, when, r)


@numba_only()
def _start(g, st, i, t, per_hop):
    """Start ready operation ``i`` at time ``t``; True when a message joins the flows."""
    st.state[i] = 1
    _release(st, g.is_ptr, g.is_, st.ireq_left, i)
    kind = g.kind[i]
    c = st.counters
    if kind == CALC:
        _push(st, t + g.nbytes[i] * 1e-9, i)
    elif kind == SEND:
        sl = g.slot_of[i]
        if not g.ok[sl]:
            c[C_UNDELIVERED] += 1
            if c[C_LOST] < 0:
                c[C_LOST] = i
            _complete(g, st, i, t)
        elif g.nbytes[i] == 0:
            _complete(g, st, i, t)
            _arrive(g, st, i, t + g.hops[sl] * per_hop)
        else:
            st.active[c[C_ACTIVE]] = sl
            c[C_ACTIVE] += 1
            return True
    elif st.has_arrived[i]:  # a receive whose message is in
        _complete(g, st, i, t)
    return False


@numba_only()
def _sift(a, i, n):
    while True:
        c = 2 * i + 1
        if c >= n:
            return
        if c + 1 < n and a[c + 1] > a[c]:
            c += 1
        if a[c] <= a[i]:
            return
        a[i], a[c] = a[c], a[i]
        i = c


@numba_only()
def _sort(a, n):
    """Heapsort of ``a[:n]`` (distinct channel ids: the order is the same as any sort's)."""
    for i in range(n // 2 - 1, -1, -1):
        _sift(a, i, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sift(a, 0, end)


@numba_only()
def _channels(g, st, sc):
    """The channels the messages in flight cross, numbered as ``np.unique`` numbers them
    (the sorted distinct ids: ``uch``, ``inv``); returns how many are distinct."""
    na = st.counters[C_ACTIVE]
    nu = 0
    for j in range(na):
        sl = st.active[j]
        sc.lptr[j + 1] = sc.lptr[j] + g.hops[sl]
        for e in range(g.hops[sl]):
            c = g.chan[g.ptr[sl] + e]
            sc.ch[sc.lptr[j] + e] = c
            if sc.mark[c] < 0:
                sc.mark[c] = 0
                sc.uch[nu] = c
                nu += 1
    _sort(sc.uch, nu)
    for k in range(nu):
        sc.mark[sc.uch[k]] = k
    for e in range(sc.lptr[na]):
        sc.inv[e] = sc.mark[sc.ch[e]]
    for k in range(nu):
        sc.mark[sc.uch[k]] = -1
    return nu


@njit(cache=True, inline="always")
def _rates(g, st, sc):
    """Max-min rates of the messages in flight (and a new message's bounding channel)."""
    na = st.counters[C_ACTIVE]
    nu = _channels(g, st, sc)
    for j in range(na):
        sc.r[j] = 0.0
        sc.b[j] = -1
    L = sc.lptr[na]
    _maxmin(sc.lptr[: na + 1], sc.inv[:L], sc.cap[:nu], sc.ones[:na], sc.r[:na], sc.b[:na])
    for j in range(na):
        sl = st.active[j]
        st.rate[sl] = sc.r[j]
        if st.bott[sl] < 0 and nu > 0:
            k = sc.b[j] if sc.b[j] >= 0 else nu + sc.b[j]  # (numpy's index from the end)
            st.bott[sl] = sc.uch[k]


# error_model="numpy": a message at rate 0 takes forever (inf), as numpy divides
@njit(cache=True, error_model="numpy")
def _run(g, st, sc, per_hop):
    """Run every operation that its dependencies let run (see the module docstring)."""
    c = st.counters
    d = np.empty(st.active.shape[0])
    t = 0.0
    changed = False
    while True:
        while c[C_WORK] > 0:
            c[C_WORK] -= 1
            i = st.work[c[C_WORK]]
            if st.state[i] == 0 and _start(g, st, i, t, per_hop):
                changed = True
        if changed:
            _rates(g, st, sc)
            changed = False
        na = c[C_ACTIVE]
        tf = np.inf
        if na > 0:
            for j in range(na):
                sl = st.active[j]
                d[j] = st.rem[sl] / st.rate[sl]
            m = d[0]
            for j in range(1, na):  # numpy's min: a NaN wins
                if np.isnan(m):
                    break
                if d[j] < m or np.isnan(d[j]):
                    m = d[j]
            tf = t + m
        te = st.when[st.heap[0]] if c[C_HEAP] > 0 else np.inf
        tn = te if te < tf else tf
        if not np.isfinite(tn):
            break
        if na > 0:
            dt = tn - t
            lim = (tn - t) * (1 + 1e-12) + 1e-18
            for j in range(na):
                sl = st.active[j]
                st.rem[sl] -= st.rate[sl] * dt
            t = tn
            keep = 0
            for j in range(na):
                sl = st.active[j]
                if d[j] <= lim:
                    op = g.sends[sl]
                    _complete(g, st, op, t)
                    _arrive(g, st, op, t + g.hops[sl] * per_hop)
                else:
                    st.active[keep] = sl
                    keep += 1
            if keep < na:
                c[C_ACTIVE] = keep
                changed = True
        t = tn
        while c[C_HEAP] > 0 and st.when[st.heap[0]] <= t * (1 + 1e-15):
            i = _pop(st)
            when = st.when[i]
            if g.kind[i] == CALC:
                _complete(g, st, i, when)
            else:  # a receive's message arrives
                st.has_arrived[i] = True
                if st.state[i] == 1:
                    _complete(g, st, i, when)
    return 0
