"""The phases engine: each distinct phase of a collective routed and run once."""

from __future__ import annotations

import hashlib
import os
import threading
from collections import deque

import numpy as np

from ...errors import ResourceError
from ...topology import Topology
from ...traffic.workloads import Workload
from .config import FlowConfig
from .maxmin import _carried, _localize, _run_phase
from .routes import _Router

#: bytes of working memory per channel of a phase's routes (paths, local ids, scratch)
_BYTES_PER_ENTRY = 48


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
            carried = _carried(ptr, local, np.ascontiguousarray(nbytes, np.int64), len(uch))
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
