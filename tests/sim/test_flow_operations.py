"""The flow model's operations engine against the same loop written plainly in Python.

The kernel (``fattree.sim.flow.eventloop``) keeps its state in arrays and its events in a
heap of its own; the reference below keeps Python lists and ``heapq``. Same schedule,
same routes (``_routes``), the outcome read back alike (``_outcome``): every field of the
result must be the same, to the bit (completion time, slowest rank, bounding link, link
utilisation, undelivered messages and operations never run).
"""

from __future__ import annotations

import dataclasses
import heapq

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fattree
import fattree.sim.flow.engine as flow_engine
from fattree.sim.flow import flow
from fattree.sim.flow.maxmin import _maxmin
from fattree.sim.flow.operations import MAX_OPS, _outcome, _routes
from fattree.traffic.workloads import CALC, SEND
from fattree.traffic.workloads.schedule import IREQUIRES


def reference_operations(topo, w, cfg, router) -> dict:
    """The operations engine written plainly in Python (lists, ``heapq``)."""
    per_hop = cfg.hop_latency + cfg.flit_size / cfg.link_rate
    s = w.schedule(max_ops=MAX_OPS)
    n = s.n_ops
    sends, slot_of, ptr, chan, ok = _routes(w, s, router)  # (the engine's, as its outcome)
    hops = np.diff(ptr)
    # successors of each operation, by dependency kind
    owner = np.repeat(np.arange(n), np.diff(s.dep_ptr))
    isreq = s.dep_kind != IREQUIRES
    req_left = np.bincount(owner[isreq], minlength=n)
    ireq_left = np.bincount(owner[~isreq], minlength=n)

    def csr(pred, succ):
        o = np.argsort(pred, kind="stable")
        p = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(pred, minlength=n), out=p[1:])
        return p.tolist(), succ[o].tolist()

    rs_ptr, rs = csr(s.dep_idx[isreq], owner[isreq])
    is_ptr, is_ = csr(s.dep_idx[~isreq], owner[~isreq])
    req_left = req_left.tolist()
    ireq_left = ireq_left.tolist()
    kind = s.kind.tolist()
    nbytes = s.nbytes.tolist()
    match = s.match.tolist()
    state = [0] * n
    end_t = [np.nan] * n
    arrived = [None] * n
    heap: list = []
    seq = 0
    active: list[int] = []  # send slots in flight
    rem = nbytes_s = np.asarray(s.nbytes[sends], np.float64).copy() if len(sends) else np.zeros(0)
    rem = nbytes_s.copy()
    rate = np.zeros(len(sends))
    bott = np.full(len(sends), -1, np.int64)
    undelivered = 0
    lost_first = None
    work: list[int] = [i for i in range(n) if req_left[i] == 0 and ireq_left[i] == 0]
    t = 0.0
    changed = False

    def complete(i, when):
        end_t[i] = when
        state[i] = 2
        for j in rs[rs_ptr[i] : rs_ptr[i + 1]]:
            req_left[j] -= 1
            if req_left[j] == 0 and ireq_left[j] == 0 and state[j] == 0:
                work.append(j)

    def arrive(send_op, when):
        nonlocal seq
        r = match[send_op]
        if r >= 0:
            heapq.heappush(heap, (when, seq, 1, r))
            seq += 1

    while True:
        while work:
            i = work.pop()
            if state[i]:
                continue
            state[i] = 1
            for j in is_[is_ptr[i] : is_ptr[i + 1]]:
                ireq_left[j] -= 1
                if req_left[j] == 0 and ireq_left[j] == 0 and state[j] == 0:
                    work.append(j)
            k = kind[i]
            if k == CALC:
                heapq.heappush(heap, (t + nbytes[i] * 1e-9, seq, 0, i))
                seq += 1
            elif k == SEND:
                sl = int(slot_of[i])
                if not ok[sl]:
                    undelivered += 1
                    if lost_first is None:
                        lost_first = i
                    complete(i, t)
                elif nbytes[i] == 0:
                    complete(i, t)
                    arrive(i, t + hops[sl] * per_hop)
                else:
                    active.append(sl)
                    changed = True
            else:  # RECV
                if arrived[i] is not None:
                    complete(i, t)
        if changed:
            act = np.asarray(active, np.int64)
            lens = hops[act]
            base = np.repeat(ptr[act], lens) + (
                np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
            )
            ch = chan[base]
            uch, inv = np.unique(ch, return_inverse=True)
            lptr = np.zeros(len(act) + 1, np.int64)
            np.cumsum(lens, out=lptr[1:])
            r = np.zeros(len(act))
            b = np.full(len(act), -1, np.int64)
            _maxmin(
                lptr,
                inv.astype(np.int64),
                np.full(len(uch), cfg.link_rate),
                np.ones(len(act), np.bool_),
                r,
                b,
            )
            rate[act] = r
            fresh = bott[act] < 0
            bott[act[fresh]] = uch[b[fresh]]
            changed = False
        tf = np.inf
        if active:
            act = np.asarray(active, np.int64)
            d = rem[act] / rate[act]
            tf = t + float(d.min())
        te = heap[0][0] if heap else np.inf
        tn = min(tf, te)
        if not np.isfinite(tn):
            break
        if active:
            dt = tn - t
            fin = d <= (tn - t) * (1 + 1e-12) + 1e-18
            rem[act] -= rate[act] * dt
            t = tn
            if fin.any():
                keep = []
                for sl, f in zip(act.tolist(), fin.tolist()):
                    if f:
                        op = int(sends[sl])
                        complete(op, t)
                        arrive(op, t + hops[sl] * per_hop)
                    else:
                        keep.append(sl)
                active = keep
                changed = True
        t = tn
        while heap and heap[0][0] <= t * (1 + 1e-15):
            when, _, ev, i = heapq.heappop(heap)
            if ev == 0:
                complete(i, when)
            else:
                arrived[i] = when
                if state[i] == 1:
                    complete(i, when)
    done = (state, end_t, bott, undelivered, lost_first)
    return _outcome(topo, s, sends, slot_of, ok, ptr, chan, *done)


def _both(monkeypatch, topo, spec, **kw):
    a = flow(topo, spec, engine="operations", **kw)
    with monkeypatch.context() as m:
        m.setattr(flow_engine, "_run_operations", reference_operations)
        b = flow(topo, spec, engine="operations", **kw)
    da, db = dataclasses.asdict(a), dataclasses.asdict(b)
    for k in ("wall_s", "compile_seconds"):  # (the first run compiles the kernel)
        da.pop(k), db.pop(k)
    return da, db


CASES = [
    ("kant:k=4,n=2", "allreduce:algorithm=ring,size=256KiB", {}),
    ("kant:k=4,n=3", "allreduce:algorithm=rhd,size=1MiB", {}),
    ("xgft:m=8.8,w=1.4", "alltoall:algorithm=pairwise,size=64KiB", {}),
    ("xgft:m=8.8,w=1.4", "alltoall:algorithm=direct,size=64KiB", {}),
    ("mikant:k=4,n=3", "allreduce:algorithm=hier,size=1MiB,placement=leaf", {}),
    ("mikant:k=2,n=3", "allgather:algorithm=rd,size=64KiB", {"hop_latency": "0ns"}),
    ("kant:k=4,n=2", "broadcast:size=64KiB", {}),
    ("kant:k=4,n=2", "barrier", {}),
    ("kant:k=4,n=2", "allreduce:algorithm=ring,size=64KiB", {"fault_rate": 0.4, "seed": 1}),
    ("mikant:k=2,n=3", "alltoall:size=16KiB", {"fault_rate": 0.2, "seed": 3}),
]


@pytest.mark.parametrize("spec, workload, kw", CASES)
def test_kernel_equals_the_python_loop_on_collectives(monkeypatch, spec, workload, kw):
    a, b = _both(monkeypatch, fattree.build(spec), workload, **kw)
    assert a == b


@st.composite
def _schedules(draw):
    """A GOAL schedule: each rank's sends, receives (matched) and computations, with
    requires and irequires between a rank's own operations (earlier ones only)."""
    ranks = draw(st.integers(2, 6))
    msgs = draw(
        st.lists(
            st.tuples(st.integers(0, ranks - 1), st.integers(0, ranks - 1), st.integers(0, 5000)),
            min_size=1,
            max_size=12,
        )
    )
    ops = {r: [] for r in range(ranks)}
    for tag, (a, b, size) in enumerate(msgs):
        if a == b:
            b = (a + 1) % ranks
        ops[a].append(f"send {size}b to {b} tag {tag}")
        ops[b].append(f"recv {size}b from {a} tag {tag}")
    for r in range(ranks):
        for _ in range(draw(st.integers(0, 2))):
            ops[r].insert(draw(st.integers(0, len(ops[r]))), f"calc {draw(st.integers(0, 3000))}")
    text = [f"num_ranks {ranks}"]
    for r in range(ranks):
        text.append(f"rank {r} {{")
        text += [f"l{i}: {op}" for i, op in enumerate(ops[r])]
        for i in range(1, len(ops[r])):
            if draw(st.booleans()):
                j = draw(st.integers(0, i - 1))
                text.append(f"l{i} {draw(st.sampled_from(['requires', 'irequires']))} l{j}")
        text.append("}")
    return "\n".join(text) + "\n"


@settings(max_examples=60, deadline=None)
@given(text=_schedules(), faults=st.sampled_from([0.0, 0.3]))
def test_kernel_equals_the_python_loop_on_random_schedules(tmp_path_factory, text, faults):
    import _pytest.monkeypatch

    p = tmp_path_factory.mktemp("goal") / "w.goal"
    p.write_text(text)
    topo = fattree.build("kant:k=2,n=3")
    with _pytest.monkeypatch.MonkeyPatch.context() as mp:
        a, b = _both(mp, topo, f"goal:file={p}", fault_rate=faults, seed=2)
    assert a == b
