"""The operations engine: per-rank operation lists run by their dependencies, event by event.

This module builds the schedule's dependency graph and the messages' routes as arrays
and reads the outcome back; the event loop is a numba kernel
(:mod:`fattree.sim.flow.eventloop`), checked to the bit against the same loop written in
plain Python (``tests/sim/test_flow_operations.py``).
"""

from __future__ import annotations

import numpy as np

from ...errors import ResourceError
from ...topology import Topology
from ...traffic.workloads import RECV, SEND, Workload
from ...traffic.workloads.schedule import IREQUIRES
from .config import FlowConfig
from .eventloop import C_LOST, C_UNDELIVERED, OpGraph, OpState, Rates, _run
from .routes import _Router

#: most operations the event-by-event engine takes (about a million a second, with the
#: rates of 512 messages in flight recomputed at every step: ``benchmarks/workloads.py
#: --only flow-operations``; about 150 bytes of state each)
MAX_OPS = 20_000_000


def _run_operations(topo: Topology, w: Workload, cfg: FlowConfig, router: _Router) -> dict:
    per_hop = cfg.hop_latency + cfg.flit_size / cfg.link_rate
    s = w.schedule(max_ops=MAX_OPS)
    if s.n_ops > MAX_OPS:
        raise ResourceError(
            f"the schedule has {s.n_ops:,} operations; the operations engine runs them one "
            f"event at a time and takes at most {MAX_OPS:,} (a built-in collective: use "
            "engine='phases')"
        )
    n = s.n_ops
    sends, slot_of, ptr, chan, ok = _routes(w, s, router)
    hops = np.diff(ptr)
    # successors of each operation, by dependency kind
    owner = np.repeat(np.arange(n), np.diff(s.dep_ptr))
    isreq = s.dep_kind != IREQUIRES

    def csr(pred, succ):
        o = np.argsort(pred, kind="stable")
        p = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(pred, minlength=n), out=p[1:])
        return p, np.ascontiguousarray(succ[o], np.int64)

    rs_ptr, rs = csr(s.dep_idx[isreq], owner[isreq])
    is_ptr, is_ = csr(s.dep_idx[~isreq], owner[~isreq])
    i64 = lambda a: np.ascontiguousarray(a, np.int64)  # noqa: E731
    g = OpGraph(
        kind=i64(s.kind),
        nbytes=i64(s.nbytes),
        match=i64(s.match),
        slot_of=slot_of,
        sends=i64(sends),
        ok=np.ascontiguousarray(ok, np.bool_),
        hops=i64(hops),
        ptr=i64(ptr),
        chan=i64(chan),
        rs_ptr=rs_ptr,
        rs=rs,
        is_ptr=is_ptr,
        is_=is_,
    )
    req_left = np.bincount(owner[isreq], minlength=n).astype(np.int64)
    ireq_left = np.bincount(owner[~isreq], minlength=n).astype(np.int64)
    ready = np.flatnonzero((req_left == 0) & (ireq_left == 0))
    work = np.empty(n, np.int64)
    work[: ready.size] = ready
    m = len(sends)
    st = OpState(
        req_left=req_left,
        ireq_left=ireq_left,
        state=np.zeros(n, np.int8),
        end_t=np.full(n, np.nan),
        when=np.zeros(n),
        seq=np.zeros(n, np.int64),
        has_arrived=np.zeros(n, np.bool_),
        work=work,
        active=np.empty(m, np.int64),
        rem=s.nbytes[sends].astype(np.float64),
        rate=np.zeros(m),
        bott=np.full(m, -1, np.int64),
        heap=np.empty(n, np.int64),
        counters=np.array([ready.size, 0, 0, 0, 0, -1], np.int64),
    )
    L = int(ptr[-1])
    sc = Rates(
        lptr=np.zeros(m + 1, np.int64),
        ch=np.empty(L, np.int64),
        inv=np.empty(L, np.int64),
        uch=np.empty(L, np.int64),
        r=np.zeros(m),
        b=np.full(m, -1, np.int64),
        cap=np.full(L, float(cfg.link_rate)),
        ones=np.ones(m, np.bool_),
        mark=np.full(int(chan.max()) + 1 if chan.size else 0, -1, np.int64),
    )
    _run(g, st, sc, float(per_hop))
    lost = int(st.counters[C_LOST])
    done = (st.state, st.end_t, st.bott, int(st.counters[C_UNDELIVERED]))
    return _outcome(topo, s, sends, slot_of, ok, ptr, chan, *done, lost if lost >= 0 else None)


def _routes(w: Workload, s, router: _Router):
    """The schedule's sends, each operation's send slot (-1: not a send), and the sends'
    routes: ``(sends, slot_of, ptr, chan, ok)`` (CSR channels; ``ok``: a route exists)."""
    node = w.placement
    sends = np.flatnonzero(s.kind == SEND)
    slot_of = np.full(s.n_ops, -1, np.int64)
    slot_of[sends] = np.arange(len(sends))
    if len(sends):
        ptr, chan, ok = router.paths(node[s.rank[sends]], node[s.peer[sends]])
    else:
        ptr, chan, ok = np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, bool)
    return sends, slot_of, ptr, chan, ok


def _outcome(
    topo, s, sends, slot_of, ok, ptr, chan, state, end, bott, undelivered, lost_first
) -> dict:
    """The engine's result from each operation's final state (2: done) and end time, each
    send's bounding channel, the undelivered messages and the first of them (or None)."""
    finished = np.asarray(state) == 2
    end = np.asarray(end, np.float64)
    per_rank = np.zeros(s.ranks)
    if s.n_ops:
        np.maximum.at(per_rank, s.rank, np.where(finished, end, 0.0))
    slowest = int(np.argmax(per_rank)) if s.ranks else -1
    total = float(per_rank.max()) if s.ranks else 0.0
    bounding = -1
    mine = np.flatnonzero((s.rank == slowest) & (s.kind == RECV) & finished)
    if mine.size:
        last = mine[np.argmax(end[mine])]
        bounding = int(bott[slot_of[s.match[last]]])
    link_bytes = np.zeros(2 * topo.n_links)
    if len(sends):
        w_ = np.where(ok, s.nbytes[sends], 0).astype(np.float64)
        link_bytes += np.bincount(
            chan, weights=np.repeat(w_, np.diff(ptr)), minlength=2 * topo.n_links
        )
    first_bad = None
    if lost_first is not None:
        first_bad = ("operations", int(s.rank[lost_first]), int(s.peer[lost_first]))
    return {
        "time": total,
        "phases": [],
        "undelivered": undelivered,
        "first_bad": first_bad,
        "slowest_rank": slowest,
        "bounding": bounding,
        "link_bytes": link_bytes,
        "computed": 0,
        "ops_not_run": int((~finished).sum()),
    }
