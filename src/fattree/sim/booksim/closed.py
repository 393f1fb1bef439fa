"""The closed-loop source of the booksim model: a workload's operations as its traffic.

The booksim kernel (:mod:`fattree.sim.booksim.kernel`) consumes the model-independent
closed-loop state of :mod:`fattree.sim.closedloop` (:class:`~fattree.sim.closedloop.Closed`)
through the hooks ``bs_*`` below, as the papers' kernel does through ``cl_*``: with
``wl`` ``None`` (an open-loop run) numba ``overload`` resolves each hook to a constant
stub when the kernel is typed, so an open-loop run compiles none of this and draws the
same numbers; with a :class:`Bcl` the node phase takes its packets from the workload.

* Start of each cycle (:func:`bs_source`): :func:`~fattree.sim.closedloop.advance`
  resolves last cycle's events and timers and starts ready operations; each woken node
  (a send started) is due to create a packet now and joins the nodes' visit set.
* A node creating a packet (:func:`bs_take`) takes the next packet of its started
  messages in turn (a packet of each, as the papers' model); its creation time is the
  message's start, so packet latencies count the time in the source queue, as BookSim2's.
  The node stays due while it holds packets of started messages.
* A flit leaving a node (:func:`bs_flit_in`; a message's last tail completes its send),
  crossing a switch output port (:func:`bs_port`, for link utilisation), a packet's tail
  read by its destination node (:func:`bs_delivered`; the message's last completes its
  receive's data, next cycle).
* The run ends (:func:`bs_done`) when every operation has completed, or when nothing can
  move any more (no packet waiting at a node or in flight, no event, timer or ready
  operation).

docs/workloads.md ("The BookSim2 model").
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba.core import types
from numba.extending import overload

from ...compiling import numba_only
from ..closedloop import CI_DONE, CI_NEV, CI_NHP, CI_NOPS, CI_NWAKE, CI_NWORK, advance
from ..closedloop import _dest, _take  # the engine's own steps
from ..closedloop import delivered, low, tail_left

# c: int64 counters of the booksim side
BC_QUEUED = 0  # packets of started sends not yet created at their node
BC_R0 = 1  # ports per switch of the topology (the view's port index: switch x R0 + port)
BC_R = 2  # ports per switch as the kernel pads them (a power of two)
BC_COLS = 3
NEVER = 1 << 62  # a node's next creation cycle when it holds no packet

Bcl = namedtuple("Bcl", "w c")
Bcl.__doc__ = """The booksim kernel's closed-loop argument: ``w`` the
:class:`~fattree.sim.closedloop.Closed` view, ``c`` the int64 counters ``BC_*``."""


def bcl(w, R0: int, R: int) -> Bcl:
    """The kernel argument for view ``w`` on a network of ``R0`` ports per switch (``R``
    padded).

    Parameters
    ----------
    w : Closed
        :func:`fattree.sim.closedloop.closed_view` of the schedule.
    R0, R : int
        Ports per switch, and the kernel's power-of-two padding of it.

    Returns
    -------
    Bcl

    Examples
    --------
    >>> from fattree.traffic.workloads import make_workload
    >>> from fattree.sim.closedloop import closed_view
    >>> w = make_workload("allgather:size=1200B", 2)
    >>> b = bcl(closed_view(w, 2, 4, 256, 1e-9, 16), 4, 4)
    >>> b.c.tolist()
    [0, 4, 4]
    """
    c = np.zeros(BC_COLS, np.int64)
    c[BC_R0] = R0
    c[BC_R] = R
    return Bcl(w, c)


# ---------------------------------------------------------------------- the steps


@numba_only()
def _source(b, nnext, nvis, t):
    w = b.w
    b.c[BC_QUEUED] += advance(w, t)
    for j in range(w.ci[CI_NWAKE]):
        v = w.wake[j]
        w.new_pk[v] = 0
        if nnext[v] > t:
            nnext[v] = t
        nvis[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    w.ci[CI_NWAKE] = 0


@numba_only()
def _btake(b, n, pid):
    w = b.w
    d, ct = _dest(w, n)
    w.pkt_op[pid] = _take(w, n)
    b.c[BC_QUEUED] -= 1
    return d, ct


@numba_only()
def _bnext(b, n):
    w = b.w
    return NEVER if w.mq_head[n] >= w.mq_tail[n] else 0


@numba_only()
def _bflit_in(b, n, pid, tail, t):
    w = b.w
    w.inj_flits[n] += 1
    if tail:
        tail_left(w, w.pkt_op[pid], t)


@numba_only()
def _bport(b, s, o):
    b.w.port_flits[s * b.c[BC_R0] + o] += 1


@numba_only()
def _bdelivered(b, pid, t):
    w = b.w
    delivered(w, w.pkt_op[pid], t)


@numba_only()
def _bdone(b, nfree, pool):
    w = b.w
    if w.ci[CI_DONE] == w.ci[CI_NOPS]:
        return True
    return (
        b.c[BC_QUEUED] == 0
        and nfree == pool
        and w.ci[CI_NEV] == 0
        and w.ci[CI_NHP] == 0
        and w.ci[CI_NWORK] == 0
    )


# ------------------------------------------------------------- the hooks the kernel calls
# Pure-Python stubs for documentation; numba compiles the overloads: a constant for
# ``None``, the steps above for a Bcl (``numba_only``: no Python entry point). Their
# arguments are named ``h_*``, unlike any variable of the kernel's phases, and they are
# not inlined at numba's IR level (an inlined hook in an inlined phase breaks the IR's
# scopes; LLVM inlines them).


def bs_source(h_b, h_nnext, h_nvis, h_t):
    """Start of cycle ``h_t``: events, timers, started operations; woken nodes due now."""
    if h_b is not None:
        _source(h_b, h_nnext, h_nvis, h_t)


def bs_take(h_b, h_n, h_pid, h_d, h_ct):
    """Node ``h_n`` creates pool packet ``h_pid``: its destination node and creation
    cycle (open loop: ``h_d``, ``h_ct`` as the pattern drew them)."""
    return _btake(h_b, h_n, h_pid) if h_b is not None else (h_d, h_ct)


def bs_next(h_b, h_n, h_nx):
    """Node ``h_n``'s next creation cycle: now while it holds packets of started sends,
    else never (open loop: ``h_nx``)."""
    return _bnext(h_b, h_n) if h_b is not None else h_nx


def bs_flit_in(h_b, h_n, h_pid, h_tail, h_t):
    """A flit of packet ``h_pid`` left node ``h_n``."""
    if h_b is not None:
        _bflit_in(h_b, h_n, h_pid, h_tail, h_t)


def bs_port(h_b, h_s, h_o):
    """A flit left switch ``h_s`` by its (padded) port ``h_o``."""
    if h_b is not None:
        _bport(h_b, h_s, h_o)


def bs_delivered(h_b, h_pid, h_t):
    """The tail of packet ``h_pid`` was read by its destination node."""
    if h_b is not None:
        _bdelivered(h_b, h_pid, h_t)


def bs_low(h_b):
    """Whether the workload's operation slots must grow before the cycle (open loop: no)."""
    return low(h_b.w) if h_b is not None else False


def bs_done(h_b, h_nfree, h_pool):
    """Whether the workload has ended (open loop: never)."""
    return _bdone(h_b, h_nfree, h_pool) if h_b is not None else False


def _none(h_t) -> bool:
    return isinstance(h_t, types.NoneType)


@overload(bs_source)
def _ov_source(h_b, h_nnext, h_nvis, h_t):
    if _none(h_b):
        return lambda h_b, h_nnext, h_nvis, h_t: None
    return lambda h_b, h_nnext, h_nvis, h_t: _source(h_b, h_nnext, h_nvis, h_t)


@overload(bs_take)
def _ov_take(h_b, h_n, h_pid, h_d, h_ct):
    if _none(h_b):
        return lambda h_b, h_n, h_pid, h_d, h_ct: (h_d, h_ct)
    return lambda h_b, h_n, h_pid, h_d, h_ct: _btake(h_b, h_n, h_pid)


@overload(bs_next)
def _ov_next(h_b, h_n, h_nx):
    if _none(h_b):
        return lambda h_b, h_n, h_nx: h_nx
    return lambda h_b, h_n, h_nx: _bnext(h_b, h_n)


@overload(bs_flit_in)
def _ov_flit_in(h_b, h_n, h_pid, h_tail, h_t):
    if _none(h_b):
        return lambda h_b, h_n, h_pid, h_tail, h_t: None
    return lambda h_b, h_n, h_pid, h_tail, h_t: _bflit_in(h_b, h_n, h_pid, h_tail, h_t)


@overload(bs_port)
def _ov_port(h_b, h_s, h_o):
    if _none(h_b):
        return lambda h_b, h_s, h_o: None
    return lambda h_b, h_s, h_o: _bport(h_b, h_s, h_o)


@overload(bs_delivered)
def _ov_delivered(h_b, h_pid, h_t):
    if _none(h_b):
        return lambda h_b, h_pid, h_t: None
    return lambda h_b, h_pid, h_t: _bdelivered(h_b, h_pid, h_t)


@overload(bs_low)
def _ov_low(h_b):
    if _none(h_b):
        return lambda h_b: False
    return lambda h_b: low(h_b.w)


@overload(bs_done)
def _ov_done(h_b, h_nfree, h_pool):
    if _none(h_b):
        return lambda h_b, h_nfree, h_pool: False
    return lambda h_b, h_nfree, h_pool: _bdone(h_b, h_nfree, h_pool)


__all__ = [
    "Bcl",
    "bcl",
    "bs_source",
    "bs_take",
    "bs_next",
    "bs_flit_in",
    "bs_port",
    "bs_delivered",
    "bs_low",
    "bs_done",
    "NEVER",
]
