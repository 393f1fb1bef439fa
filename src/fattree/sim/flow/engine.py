"""The flow-level model: :func:`flow`.

Each message is a flow over its route's directed channels (injection link, switch
links, ejection link). Flows share every channel by max-min fairness (progressive
filling, :mod:`.maxmin`); rates are recomputed only when a flow starts or ends. A
message of ``b`` bytes over ``h`` channels that gets rate ``r`` ends
``h * (hop_latency + flit_size / link_rate) + b / r`` after it starts (cut-through: the
head pays each hop's latency and one flit's serialisation, the body streams behind it).

Two engines over the same flows:

* ``phases`` (built-in collectives): every message of a phase starts together and the
  phase ends when its last message arrives; identical phases (a ring's ``2(p-1)``
  steps) are computed once.
* ``operations`` (GOAL schedules, or any collective with ``engine="operations"``): the
  per-rank operation lists run by their dependencies, event by event.
"""

from __future__ import annotations

import hashlib
import heapq
import os
import threading
import time
from collections import deque
from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError, ResourceError
from ...topology import Topology
from ...traffic.workloads import CALC, RECV, SEND, Workload, make_workload
from ...traffic.workloads.schedule import IREQUIRES
from ...traffic.workloads.units import format_size, parse_rate, parse_size, parse_time
from ...version import __version__
from .maxmin import _localize, _maxmin, _run_phase
from .result import FlowResult

ENGINES = ("auto", "phases", "operations")

#: most operations the event-by-event engine takes (about 10^5 operations per second)
MAX_OPS = 20_000_000

#: bytes of working memory per channel of a phase's routes (paths, local ids, scratch)
_BYTES_PER_ENTRY = 48


@dataclass(frozen=True)
class FlowConfig:
    """Parameters of the flow model (validated by :func:`flow_config`).

    Attributes
    ----------
    link_rate : float
        Bytes per second of every channel (each direction of a link).
    flit_size : int
        Bytes of a flit: the head's serialisation per hop.
    hop_latency : float
        Seconds per channel crossed (router pipeline plus wire).
    algorithm : str or None
        Routing algorithm (``None``: the family's default).
    fault_rate : float
        Fraction of links failed at random (``faults.random_faults``, seeded by ``seed``).
    fault_algorithm : str or None
        Fault-tolerant routing that reroutes messages whose route crosses a failed link
        (``None``: the family's default).
    seed : int
        Seed of the rank placement and the fault set.
    engine : {"auto", "phases", "operations"}
        ``auto``: phases for a collective, operations for a schedule.
    workers : int
        Threads that route and run distinct phases at once (``0``: one per CPU the
        process may use). Results do not depend on it.
    """

    link_rate: float = 50e9
    flit_size: int = 256
    hop_latency: float = 100e-9
    algorithm: str | None = None
    fault_rate: float = 0.0
    fault_algorithm: str | None = None
    seed: int = 0
    engine: str = "auto"
    workers: int = 0


def flow_config(
    link_rate="400Gb/s",
    flit_size="256B",
    hop_latency="100ns",
    algorithm: str | None = None,
    fault_rate: float = 0.0,
    fault_algorithm: str | None = None,
    seed: int = 0,
    engine: str = "auto",
    workers: int = 0,
) -> FlowConfig:
    """Validate the flow model's parameters (units required) into a :class:`FlowConfig`.

    Parameters
    ----------
    link_rate : str or float
        ``"400Gb/s"``, ``"50GB/s"``; a number is bytes per second. Default 400 Gb/s, the
        port rate of current AI and HPC fabrics (NDR InfiniBand, 400G Ethernet).
    flit_size : str or int
        ``"256B"``; an integer is bytes. Default 256 B, as the packet model.
    hop_latency : str or float
        ``"100ns"``; a number is seconds. Default 100 ns: the order of a cut-through
        switch's port-to-port latency plus a few metres of cable.
    algorithm : str, optional
        Routing algorithm.
    fault_rate : float
        Fraction of failed links, ``0 <= fault_rate < 1``.
    fault_algorithm : str, optional
        Fault-tolerant routing under faults.
    seed : int
        Seed of placement and faults, ``0 <= seed < 2**63``.
    engine : {"auto", "phases", "operations"}
        Which engine runs the workload.
    workers : int
        Threads for distinct phases (``0``: one per available CPU).

    Returns
    -------
    FlowConfig

    Raises
    ------
    ParameterError
        A value without a unit, with a wrong unit or out of range.

    Examples
    --------
    >>> c = flow_config(link_rate="100Gb/s", hop_latency="1us")
    >>> c.link_rate, c.hop_latency
    (12500000000.0, 1e-06)
    """
    rate = (
        parse_rate(link_rate, "link_rate")
        if isinstance(link_rate, str)
        else _pos(link_rate, "link_rate")
    )
    if isinstance(flit_size, str):
        flit = parse_size(flit_size, "flit_size")
    elif isinstance(flit_size, (int, np.integer)) and not isinstance(flit_size, bool):
        flit = int(flit_size)
    else:
        raise ParameterError(f"flit_size={flit_size!r} is invalid: expected bytes such as '256B'")
    if flit < 1:
        raise ParameterError(f"flit_size={flit_size!r} is invalid: at least 1 byte")
    lat = (
        parse_time(hop_latency, "hop_latency")
        if isinstance(hop_latency, str)
        else _nonneg(hop_latency, "hop_latency")
    )
    fr = _nonneg(fault_rate, "fault_rate")
    if fr >= 1:
        raise ParameterError(f"fault_rate={fault_rate!r} is invalid: expected 0 <= fault_rate < 1")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ParameterError(f"seed={seed!r} is invalid: expected an integer 0 <= seed < 2**63")
    if engine not in ENGINES:
        raise ParameterError(f"engine={engine!r} is invalid: valid: {', '.join(ENGINES)}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 0:
        raise ParameterError(f"workers={workers!r} is invalid: expected an integer >= 0")
    return FlowConfig(
        rate, flit, lat, algorithm, fr, fault_algorithm, int(seed), engine, int(workers)
    )


def _pos(v, name) -> float:
    x = _nonneg(v, name)
    if x <= 0:
        raise ParameterError(f"{name}={v!r} is invalid: expected a positive number")
    return x


def _nonneg(v, name) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ParameterError(f"{name}={v!r} is invalid: expected a number")
    x = float(v)
    if not np.isfinite(x) or x < 0:
        raise ParameterError(f"{name}={v!r} is invalid: expected a finite number >= 0")
    return x


class _Router:
    """Routes of node pairs as directed channels, rerouted around failed links."""

    def __init__(self, topo: Topology, cfg: FlowConfig) -> None:
        from ...routing import compile_routing
        from ...routing.paths import PairRouter

        self.topo = topo
        self.cr = compile_routing(topo, cfg.algorithm, cfg.seed)
        self.walker = PairRouter(topo, self.cr)
        self.faulty = None
        self.ft = ""
        if cfg.fault_rate > 0:
            from ...faults import random_faults
            from ...faults.rules import default_ft_algorithm

            self.faulty = np.asarray(random_faults(topo, cfg.fault_rate, cfg.seed), bool)
            self.ft = cfg.fault_algorithm or default_ft_algorithm(topo.family)
            from ...faults import resolve_algorithms

            (alg,) = resolve_algorithms([self.ft], topo.family)  # a bad name: refused now
            if alg.is_oracle:
                raise ParameterError(
                    f"fault_algorithm={self.ft!r} is invalid: the oracle is a bound, not a "
                    "route; give a fault-tolerant routing algorithm"
                )
            self._ft()  # set up once, before the phases' threads start

    def paths(self, src: np.ndarray, dst: np.ndarray):
        ptr, chan, ok = self.walker.channels(src, dst)
        if self.faulty is None or not self.faulty.any():
            return ptr, chan, ok
        hit = self.faulty[chan // 2]
        owner = np.repeat(np.arange(len(src)), np.diff(ptr))
        bad = np.unique(owner[hit])
        bad = np.union1d(bad, np.flatnonzero(~ok))
        if bad.size == 0:
            return ptr, chan, ok
        return self._reroute(ptr, chan, ok, src, dst, bad)

    def _ft(self):
        """One route function for the run: the generic engine's router is set up once
        (its setup, not its walks, is the costly part); the papers' walks go through
        ``ft_route``. Returns ``(src, dst) -> (switches, ports) or None``."""
        if getattr(self, "_ft_fn", None) is not None:
            return self._ft_fn
        from ...faults import ft_route, resolve_algorithms

        topo = self.topo
        (alg,) = resolve_algorithms([self.ft], topo.family)
        if not alg.walked_on(topo.family):
            from ...faults.gwalk import GenericRouter

            g = GenericRouter(topo, alg, self.faulty)

            def fn(a, b):
                st, _, sws, ports, _ = g.route(a, b)
                return (sws.tolist(), ports.tolist()) if st == 0 else None

        elif topo.family == "mikant":  # 001's walks: the kernel that ft_route calls
            from ...faults.kernel import OK, ft_walk, walk_scratch

            k, n = topo.params["k"], topo.params["n"]
            stamp = self.faulty.astype(np.int64)
            cap = 20 * n + 40 + 4 * n * (2 * n + 6)
            mine = threading.local()  # phases are rerouted on several threads at once

            def fn(a, b):
                if not hasattr(mine, "bufs"):
                    mine.bufs = (
                        np.full(cap, -1, np.int64),
                        np.full(cap, -1, np.int64),
                        walk_scratch(k, n),
                    )
                sw_buf, port_buf, scratch = mine.bufs
                st, _, nsw = ft_walk(
                    k,
                    n,
                    topo.port_peer,
                    topo.link_index,
                    stamp,
                    1,
                    alg.flags,
                    False,
                    a,
                    -1,
                    b,
                    sw_buf,
                    port_buf,
                    *scratch,
                )
                if st != OK:
                    return None
                return sw_buf[:nsw].tolist(), port_buf[:nsw].tolist()

        else:
            N = topo.n_nodes

            def fn(a, b):
                r = ft_route(topo, self.ft, a, b, self.faulty)
                if not r.success:
                    return None
                return [topo.find(lab) - N for lab in r.path[1:-1]], list(r.ports)

        self._ft_fn = fn
        return fn

    def _reroute(self, ptr, chan, ok, src, dst, bad):
        topo = self.topo
        N = topo.n_nodes
        lens = np.diff(ptr)
        pieces = {}
        ok = ok.copy()
        fn = self._ft()
        for i in bad.tolist():
            hit = fn(int(src[i]), int(dst[i]))
            if hit is None:
                ok[i] = False
                pieces[i] = np.array([2 * int(src[i])], np.int64)
                continue
            ch = [2 * int(src[i])]
            for sw, port in zip(*hit):
                e = int(topo.link_index[sw, port])
                ch.append(2 * e + (0 if topo.links[e, 0] == N + sw else 1))
            ok[i] = True
            pieces[i] = np.array(ch, np.int64)
        for i, arr in pieces.items():
            lens[i] = len(arr)
        new_ptr = np.zeros(len(src) + 1, np.int64)
        np.cumsum(lens, out=new_ptr[1:])
        new_chan = np.empty(int(new_ptr[-1]), np.int64)
        keep = np.ones(len(src), bool)
        keep[bad] = False
        # copy the untouched routes in one vectorised gather
        kl = np.diff(ptr)[keep]
        src_pos = np.repeat(ptr[:-1][keep], kl) + (
            np.arange(kl.sum()) - np.repeat(np.cumsum(kl) - kl, kl)
        )
        dst_pos = np.repeat(new_ptr[:-1][keep], kl) + (
            np.arange(kl.sum()) - np.repeat(np.cumsum(kl) - kl, kl)
        )
        new_chan[dst_pos] = chan[src_pos]
        for i, arr in pieces.items():
            new_chan[new_ptr[i] : new_ptr[i + 1]] = arr
        return new_ptr, new_chan, ok


def _link_label(topo: Topology, c: int) -> str:
    if c < 0:
        return "-"
    a, b = (int(x) for x in topo.links[c // 2])
    if c % 2:
        a, b = b, a
    return f"{topo.vertex_label(a)} -> {topo.vertex_label(b)}"


def _phase_key(ph) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    src, dst, nbytes = ph.arrays()
    h.update(src.tobytes())
    h.update(dst.tobytes())
    h.update(np.ascontiguousarray(nbytes).tobytes())
    return h.digest()


def _cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _ordered(pool, fn, items, window: int):
    """``map(fn, items)`` on a thread pool, in order, with at most ``window`` in flight."""
    pending = deque()
    it = iter(items)
    for item in it:
        pending.append(pool.submit(fn, item))
        if len(pending) >= window:
            break
    while pending:
        yield pending.popleft().result()
        nxt = next(it, None)
        if nxt is not None:
            pending.append(pool.submit(fn, nxt))


def _check_phase_memory(messages: int, hops: int, avail: int) -> None:
    need = messages * (hops + 1) * _BYTES_PER_ENTRY
    if need > 0.8 * avail:
        raise ResourceError(
            f"a phase of {messages:,} messages needs about {need / 2**30:.1f} GiB, more than "
            f"the {avail / 2**30:.1f} GiB available; use fewer ranks or an algorithm with "
            "smaller steps (e.g. alltoall:algorithm=pairwise)"
        )


def _run_phases(topo: Topology, w: Workload, cfg: FlowConfig, router: _Router) -> dict:
    per_hop = cfg.hop_latency + cfg.flit_size / cfg.link_rate
    node = w.placement
    n_ch = 2 * topo.n_links
    link_bytes = np.zeros(n_ch)
    # group identical phases: each distinct one is routed and run once
    keys, first, total_rep = [], {}, {}
    for ph in w.phases:
        k = _phase_key(ph)
        keys.append(k)
        first.setdefault(k, ph)
        total_rep[k] = total_rep.get(k, 0) + ph.repeat
    from ...topology.family import available_memory

    avail = available_memory()
    hop_guess = 2 * int(topo.switch_level.max() + 2) if topo.n_switches else 2
    local_scratch = threading.local()

    def compute(item):
        """Route and run one distinct phase (in a worker thread: the kernels drop the GIL)."""
        k, ph = item
        _check_phase_memory(ph.messages, hop_guess, avail)
        scratch = getattr(local_scratch, "a", None)
        if scratch is None:
            scratch = local_scratch.a = np.full(n_ch, -1, np.int64)
        psrc, pdst, pbytes = ph.arrays()
        ptr, chan, ok = router.paths(node[psrc], node[pdst])
        hops = np.diff(ptr)
        und = int((~ok).sum())
        if und:  # drop the undeliverable messages: their routes are not links carried
            keep = np.repeat(ok, hops)
            chan = chan[keep]
            hops = hops[ok]
            ptr = np.zeros(len(hops) + 1, np.int64)
            np.cumsum(hops, out=ptr[1:])
        nbytes = pbytes[ok]
        F = len(hops)
        uch = carried = None
        if F:
            local = np.empty(len(chan), np.int64)
            uch = np.empty(len(chan), np.int64)
            uch = uch[: _localize(chan, scratch, local, uch)]
            cap = np.full(len(uch), cfg.link_rate)
            finish = np.zeros(F)
            bott = np.full(F, -1, np.int64)
            _run_phase(ptr, local, cap, np.ascontiguousarray(nbytes, np.int64), finish, bott)
            end = finish + hops * per_hop
            crit = int(np.argmax(end))
            t = float(end[crit])
            idx = np.flatnonzero(ok)[crit]
            bch = int(uch[bott[crit]]) if bott[crit] >= 0 else int(chan[ptr[crit]])
            crit_info = (int(psrc[idx]), int(pdst[idx]), bch)
            carried = np.bincount(
                local, weights=np.repeat(nbytes.astype(np.float64), hops), minlength=len(uch)
            )
        else:
            t, crit_info = 0.0, (-1, -1, -1)
        first_bad = None
        if und:
            j = int(np.flatnonzero(~ok)[0])
            first_bad = (int(psrc[j]), int(pdst[j]))
        return k, (t, crit_info, und, first_bad), uch, carried

    done: dict[bytes, tuple] = {}
    items = list(first.items())
    workers = min(cfg.workers, len(items)) if cfg.workers else min(_cpus(), len(items))
    if workers <= 1:
        results = map(compute, items)
        pool = None
    else:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(workers)
        results = _ordered(pool, compute, items, 4 * workers)
    try:
        # consumed in phase order, so the sums are the same whatever the thread count
        for k, summary, uch, carried in results:
            done[k] = summary
            if uch is not None:
                link_bytes[uch] += carried * total_rep[k]
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    total = 0.0
    phases = []
    undelivered = 0
    first_bad = None
    worst = (-1.0, None)
    for ph, k in zip(w.phases, keys):
        t, crit, und, fb = done[k]
        total += t * ph.repeat
        undelivered += und * ph.repeat
        if fb is not None and first_bad is None:
            first_bad = (ph.name, *fb)
        if t * ph.repeat > worst[0]:
            worst = (t * ph.repeat, crit)
        phases.append(
            {
                "name": ph.name,
                "repeat": ph.repeat,
                "messages": ph.messages,
                "time_s": t,
                "total_s": t * ph.repeat,
                "undelivered": und * ph.repeat,
            }
        )
    crit = worst[1] or (-1, -1, -1)
    return {
        "time": total,
        "phases": phases,
        "undelivered": undelivered,
        "first_bad": first_bad,
        "slowest_rank": crit[1],
        "bounding": crit[2],
        "link_bytes": link_bytes,
        "computed": len(first),
        "ops_not_run": 0,
    }


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
    node = w.placement
    sends = np.flatnonzero(s.kind == SEND)
    slot_of = np.full(n, -1, np.int64)
    slot_of[sends] = np.arange(len(sends))
    if len(sends):
        ptr, chan, ok = router.paths(node[s.rank[sends]], node[s.peer[sends]])
    else:
        ptr, chan, ok = np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, bool)
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
    end = np.asarray(end_t, np.float64)
    finished = np.asarray(state) == 2
    per_rank = np.zeros(s.ranks)
    if n:
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
        link_bytes += np.bincount(chan, weights=np.repeat(w_, hops), minlength=2 * topo.n_links)
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


def flow(topo: Topology, workload, config: FlowConfig | None = None, **params) -> FlowResult:
    """Run a workload on a network at flow level.

    Parameters
    ----------
    topo : Topology
        The network.
    workload : str or Workload
        A spec (``"allreduce:algorithm=ring,size=1MiB"``, ``"goal:file=app.goal"``) or a
        workload already bound to this network.
    config : FlowConfig, optional
        The model's parameters; keywords of :func:`flow_config` build one.
    **params
        :func:`flow_config` keywords (``link_rate="400Gb/s"``, ``fault_rate=0.01``, ...).

    Returns
    -------
    FlowResult

    Raises
    ------
    ParameterError
        A bad workload or parameter (named).
    ResourceError
        A phase too large for the machine's memory.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("kant:k=2,n=2")
    >>> r = flow(t, "allreduce:algorithm=ring,size=4KiB", link_rate="8Gb/s", hop_latency="0ns",
    ...          flit_size="1B")
    >>> round(r.time_s * 1e6, 3), r.complete   # 6 steps of 1 KiB at 1 GB/s, 4 hops of 1 ns max
    (6.168, True)

    References
    ----------
    D. Bertsekas, R. Gallager, *Data Networks*, §6.5.2 (max-min fairness by progressive
    filling); nccl-tests ``doc/PERFORMANCE.md`` (algorithm and bus bandwidth).
    """
    t0 = time.perf_counter()
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    cfg = config if config is not None else flow_config(**params)
    if config is not None and params:
        cfg = flow_config(**{**_as_params(config), **params})
    if isinstance(workload, Workload):
        w = workload
        if w.placement.size and int(w.placement.max()) >= topo.n_nodes:
            raise ParameterError("workload was bound to a larger network; bind it to this one")
    else:
        w = make_workload(workload, topo.n_nodes, topo.node_switch, cfg.seed)
    router = _Router(topo, cfg)
    engine = cfg.engine
    if engine == "auto":
        engine = "phases" if w.phases is not None else "operations"
    if engine == "phases" and w.phases is None:
        raise ParameterError(
            "engine='phases' is invalid for a GOAL schedule: it has no phases; use 'operations'"
        )
    out = (_run_phases if engine == "phases" else _run_operations)(topo, w, cfg, router)
    T = out["time"]
    lb = out["link_bytes"]
    cap = cfg.link_rate * T
    util = lb / cap if cap > 0 else np.zeros_like(lb)
    used = lb > 0
    und = out["undelivered"]
    complete = und == 0 and out["ops_not_run"] == 0
    if complete:
        outcome = "complete"
    else:
        fb = out["first_bad"]
        where = ""
        if fb is not None:
            a, b = fb[1], fb[2]
            where = (
                f" (first: rank {a} -> rank {b}, {topo.node_label(int(w.placement[a]))} -> "
                f"{topo.node_label(int(w.placement[b]))}, in {fb[0]})"
            )
        outcome = f"ended: {und:,} message(s) could not be delivered{where}"
        if out["ops_not_run"]:
            outcome += f"; {out['ops_not_run']:,} operation(s) never ran"
    algbw = w.size / T / 1e9 if T > 0 else 0.0
    slow = out["slowest_rank"]
    return FlowResult(
        topology=topo.spec,
        family=topo.family,
        nodes=topo.n_nodes,
        workload=w.spec,
        collective=w.kind,
        algorithm=w.algorithm,
        ranks=w.ranks,
        size_bytes=int(w.size),
        routing=router.cr.algorithm,
        link_rate_gbps=cfg.link_rate * 8 / 1e9,
        flit_size_bytes=cfg.flit_size,
        hop_latency_ns=cfg.hop_latency * 1e9,
        engine=engine,
        time_s=T,
        complete=complete,
        messages=w.messages,
        bytes_total=int(w.bytes_sent().sum()),
        undelivered=int(und),
        ops_not_run=int(out["ops_not_run"]),
        algbw_gbps=algbw,
        busbw_gbps=algbw * w.busbw_factor,
        slowest_rank=int(slow),
        slowest_node=topo.node_label(int(w.placement[slow])) if slow >= 0 else "-",
        bounding_link=_link_label(topo, int(out["bounding"])),
        max_link_util=float(util.max()) if util.size else 0.0,
        mean_link_util=float(util.mean()) if util.size else 0.0,
        mean_used_link_util=float(util[used].mean()) if used.any() else 0.0,
        phases_total=sum(p["repeat"] for p in out["phases"]),
        phases_computed=int(out["computed"]),
        fault_rate=cfg.fault_rate,
        faulty_links=int(router.faulty.sum()) if router.faulty is not None else 0,
        fault_algorithm=router.ft,
        seed=cfg.seed,
        version=__version__,
        wall_s=time.perf_counter() - t0,
        outcome=outcome,
        phases=out["phases"],
    )


def _as_params(c: FlowConfig) -> dict:
    return {
        "link_rate": c.link_rate,
        "flit_size": c.flit_size,
        "hop_latency": c.hop_latency,
        "algorithm": c.algorithm,
        "fault_rate": c.fault_rate,
        "fault_algorithm": c.fault_algorithm,
        "seed": c.seed,
        "engine": c.engine,
        "workers": c.workers,
    }


__all__ = ["FlowConfig", "flow_config", "flow", "ENGINES", "format_size"]
