"""The flow model's phases engine against a slow pure-Python reference on small cases.

The reference routes every message one at a time (``fattree.routing.route``), computes
max-min fair rates by progressive filling written plainly in Python, runs each phase event
by event and adds the phases up with their repeats. The kernels (batch walks, the phase
kernel, the per-channel byte sums) must give the same completion time, per-phase times
and link utilisation.
"""

from __future__ import annotations

import numpy as np
import pytest

import fattree
from fattree.routing import route
from fattree.sim.flow import flow, flow_config
from fattree.traffic.workloads import make_workload


def _channels(topo, alg, s, d, key):
    r = route(topo, alg, int(s), int(d), pkt_key=key)
    assert r.delivered
    n = topo.n_nodes
    out = [2 * int(s)]
    for sw, port in zip(r.switches, r.ports):
        e = int(topo.link_index[sw, port])
        out.append(2 * e + (0 if topo.links[e, 0] == n + sw else 1))
    return out


def _maxmin(routes, active, cap):
    rate = {}
    rem = {}
    users = {}
    for f in active:
        for c in routes[f]:
            users.setdefault(c, set()).add(f)
            rem[c] = cap
    left = set(active)
    while left:
        share = {c: rem[c] / len(u & left) for c, u in users.items() if u & left}
        m = max(min(share.values()), 0.0)
        full = {c for c, s in share.items() if s <= m * (1 + 1e-9) + 1e-300}
        frozen = {f for f in left if any(c in full for c in routes[f])}
        for f in frozen:
            rate[f] = m
            for c in routes[f]:
                rem[c] -= m
        left -= frozen
    return rate


def _phase(routes, nbytes, cap):
    remaining = {f: float(b) for f, b in enumerate(nbytes) if b > 0}
    finish = {f: 0.0 for f in range(len(nbytes))}
    t = 0.0
    while remaining:
        rate = _maxmin(routes, list(remaining), cap)
        dt = min(remaining[f] / rate[f] for f in remaining)
        t += dt
        for f in list(remaining):
            if remaining[f] / rate[f] <= dt * (1 + 1e-12):
                finish[f] = t
                del remaining[f]
            else:
                remaining[f] -= rate[f] * dt
    return finish


def reference(topo, spec, cfg):
    """(completion time, per-phase times, bytes per directed channel) in pure Python."""
    from fattree.routing import compile_routing

    cr = compile_routing(topo, cfg.algorithm, cfg.seed)
    w = make_workload(spec, topo.n_nodes, topo.node_switch, cfg.seed)
    per_hop = cfg.hop_latency + cfg.flit_size / cfg.link_rate
    total, times = 0.0, []
    carried = np.zeros(2 * topo.n_links)
    for ph in w.phases:
        src, dst, nbytes = ph.arrays()
        routes = [
            _channels(topo, cr, w.placement[s], w.placement[d], i)
            for i, (s, d) in enumerate(zip(src, dst))
        ]
        fin = _phase(routes, nbytes, cfg.link_rate)
        t = max(fin[f] + len(routes[f]) * per_hop for f in range(len(routes)))
        times.append(t)
        total += t * ph.repeat
        for r, b in zip(routes, nbytes):
            carried[r] += float(b) * ph.repeat
    return total, times, carried


CASES = [
    ("kant:k=2,n=3", "alltoall:algorithm=pairwise,size=64KiB"),
    ("kant:k=2,n=3", "alltoall:algorithm=direct,size=64KiB"),
    ("mikant:k=3,n=2", "allreduce:algorithm=ring,size=1MiB"),
    ("mikant:k=3,n=3", "alltoall:algorithm=direct,size=256KiB,placement=random"),
    ("xgft:m=4.4,w=1.2", "alltoall:algorithm=pairwise,size=1MiB"),
    ("xgft:m=4.4,w=1.2", "allreduce:algorithm=dtree,size=1MiB"),
    ("kant:k=4,n=2", "allgather:algorithm=rd,size=512KiB"),
]


@pytest.mark.parametrize("spec, workload", CASES)
def test_phases_engine_equals_the_pure_python_reference(spec, workload):
    topo = fattree.build(spec)
    cfg = flow_config(seed=3)
    r = flow(topo, workload, cfg)
    total, times, carried = reference(topo, workload, cfg)
    assert r.complete
    assert r.time_s == pytest.approx(total, rel=1e-9)
    assert [p["time_s"] for p in r.phases] == pytest.approx(times, rel=1e-9)
    util = carried / (cfg.link_rate * total)
    assert r.max_link_util == pytest.approx(util.max(), rel=1e-9)
    assert r.mean_link_util == pytest.approx(util.mean(), rel=1e-9)
