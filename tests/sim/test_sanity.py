"""The sanity checks every correct simulator passes (conservation, zero-load latency, accepted
equals offered below saturation, determinism, deadlock detection; docs/simulator.md) as
tests."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fattree
from fattree.errors import ParameterError, SimulationError, UnknownNameError
from fattree.routing import compile_routing, route
from fattree.sim import SimConfig, simulate, simulate_loads
from fattree.traffic import dest, make_traffic


def zero_load_trace(tmp_path, topo, pattern, gap=60, limit=40):
    """One packet per sending node, far apart in time: no packet ever meets another."""
    t = make_traffic(pattern, topo.n_nodes)
    srcs = np.flatnonzero(t.active)[:limit]
    pairs = [
        (int(s), int(dest(t.code, t.iparams, t.fparams, t.table, topo.n_nodes, s, 0, 0)))
        for s in srcs
    ]
    path = tmp_path / f"{pattern}.txt"
    path.write_text("".join(f"{i * gap} {s} {d}\n" for i, (s, d) in enumerate(pairs)))
    return path, pairs


ZERO_LOAD = [
    (spec, pattern, 1, 0, 0, 2)
    for spec in ("kant:k=4,n=3", "mikant:k=2,n=4", "clos:k=2,n=3")
    for pattern in ("uniform", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "randperm")
]
ZERO_LOAD += [
    (spec, "uniform", f, rd, cd, b)
    for spec in ("kant:k=4,n=3", "mikant:k=2,n=4")
    for f, rd, cd, b in ((4, 1, 2, 5), (3, 2, 0, 4), (2, 0, 0, 1))
]


@pytest.mark.parametrize("spec,pattern,flits,rd,cd,buf", ZERO_LOAD)
def test_zero_load_latency_is_exact(tmp_path, spec, pattern, flits, rd, cd, buf):
    topo = fattree.build(spec)
    try:
        path, pairs = zero_load_trace(tmp_path, topo, pattern)
    except ParameterError:  # e.g. bit patterns on a non-power-of-two network
        pytest.skip("pattern does not apply")
    cr = compile_routing(topo, "alg1")
    hops = [route(topo, cr, s, d).hops for s, d in pairs]
    # per packet: one cycle per link, router_delay per switch, then the body flits, one
    # per cycle if the buffer covers the credit round trip, else one per round trip
    rtt = 2 + rd + cd
    gap = 1 if buf >= rtt else math.ceil(rtt / buf)
    expect = [h + (h - 1) * rd + (flits - 1) * gap for h in hops]
    r = simulate(
        topo,
        traffic=f"trace:file={path}",
        packet_flits=flits,
        router_delay=rd,
        credit_delay=cd,
        buffer=buf,
        packets_per_source=10,
    )
    assert r.delivered == len(pairs) and not r.saturated
    assert r.avg_latency == sum(expect) / len(expect)
    assert r.max_latency == max(expect)
    assert r.avg_network_latency == r.avg_latency  # nobody waited at its source
    assert r.avg_hops == sum(hops) / len(hops)
    assert r.port_conflicts_per_cycle == 0


def test_conservation_and_metrics_consistency():
    r = simulate("mikant:k=3,n=3", load=0.5, packets_per_source=60, seed=3, packet_flits=2)
    assert r.conservation
    assert r.created == r.injected + round(r.final_source_queue * r.n_sources)
    assert r.delivered <= r.injected
    topo = fattree.build("mikant:k=3,n=3")
    used = (topo.port_peer >= 0).sum(axis=1)
    ports = np.bincount(topo.switch_level, weights=used)
    moved = r.link_utilisation["node"] * r.n_sources * r.cycles + sum(
        r.link_utilisation[str(lv)] * ports[lv] * r.cycles for lv in range(len(ports))
    )
    assert round(moved) == r.flit_hops


def test_below_saturation_accepted_equals_offered():
    r = simulate("kant:k=4,n=3", load=0.12, termination="window", warmup=300, measure=4000, seed=1)
    assert not r.saturated and r.channel_load_bound is None
    assert abs(r.offered_flits - 0.12) < 4 * math.sqrt(0.12 / (64 * 4000))
    assert abs(r.accepted_flits - r.offered_flits) < 0.003


@pytest.mark.parametrize(
    "rd,cd,buf,expected",
    [(0, 0, 2, 1.0), (0, 0, 1, 0.5), (2, 1, 2, 0.4), (2, 1, 5, 1.0), (1, 3, 3, 0.5)],
)
def test_single_switch_permutation_credit_loop(rd, cd, buf, expected):
    """Load 1 through one switch: 1 flit per output per cycle once the buffer covers the
    credit round trip 2 + router delay + credit delay, buffer / round trip below it."""
    r = simulate(
        "kant:k=4,n=1",
        load=1.0,
        traffic="neighbor",
        termination="window",
        warmup=100,
        measure=1000,
        router_delay=rd,
        credit_delay=cd,
        buffer=buf,
    )
    assert abs(r.accepted_flits - expected) <= 0.002
    assert r.port_conflicts_per_cycle == 0


def test_port_conflicts_counted_exactly(tmp_path):
    # three nodes of one switch send to the fourth in the same cycle: 2, then 1 conflict
    path = tmp_path / "t.txt"
    path.write_text("0 1 0\n0 2 0\n0 3 0\n")
    r = simulate("kant:k=4,n=1", traffic=f"trace:file={path}")
    assert r.cycles == 4 and r.port_conflicts_per_cycle * r.cycles == 3
    assert sorted([r.avg_latency * 3]) == [2 + 3 + 4]


def test_same_seed_identical_other_seeds_consistent():
    kw = dict(load=0.2, packets_per_source=150)
    a = simulate("kant:k=4,n=3", seed=11, **kw).to_dict()
    b = simulate("kant:k=4,n=3", seed=11, **kw).to_dict()
    for d in (a, b):
        d.pop("wall_seconds"), d.pop("compile_seconds")
    assert a == b
    lats = [simulate("kant:k=4,n=3", seed=s, **kw).avg_latency for s in range(1, 5)]
    assert len(set(lats)) > 1
    assert max(lats) / min(lats) < 1.08


def test_deadlock_detected_with_the_channel_cycle():
    kw = dict(
        load=1.0,
        traffic="tornado",
        packet_flits=8,
        buffer=2,
        packets_per_source=30,
        deadlock_window=200,
    )
    r = simulate("torus:k=6,n=1", vcs=1, **kw)  # dimension order, no dateline VC
    assert r.deadlock and r.saturated and r.termination == "deadlock"
    ring = r.deadlock_cycle
    assert len(ring) >= 6 and len({c.split(":")[0] for c in ring}) == 6  # every router
    ok = simulate("torus:k=6,n=1", vcs=2, **kw)  # the dateline's second VC breaks it
    assert not ok.deadlock and ok.delivered > 0


def test_window_termination_and_cap():
    r = simulate("kant:k=2,n=3", load=0.3, termination="window", warmup=100, measure=500)
    assert r.termination == "window" and r.cycles >= 600 and not r.saturated
    c = simulate("kant:k=4,n=3", load=0.9, packets_per_source=5000, max_cycles=300)
    assert c.termination == "cap" and c.saturated and "max_cycles" in c.saturation_reason


def test_saturation_is_reported_past_the_bound():
    df = simulate_loads("kant:k=4,n=3", [0.1, 0.5], packets_per_source=100, algorithm="alg1")
    bound = df["channel_load_bound"][0]
    assert 0.2 < bound < 0.3  # alg1 saturates near 1/k (routing.load)
    assert list(df["saturated"]) == [False, True]
    assert df["accepted_flits"][1] <= bound + 1e-9


def test_double_buffer_at_level0_lowers_latency():
    kw = dict(load=0.22, packets_per_source=150, seed=4)
    nb = simulate("kant:k=4,n=3", buffer=2, **kw)
    db = simulate("kant:k=4,n=3", buffer=2, buffer_level0=8, **kw)
    assert db.config["buffer_level0"] == 8
    assert db.avg_latency < nb.avg_latency


def test_result_dict_has_the_issue_keys():
    d = simulate("kant:k=2,n=2", load=0.2, packets_per_source=5).to_dict()
    for key in (
        "config",
        "offered_load",
        "cycles",
        "created",
        "delivered",
        "avg_latency",
        "avg_network_latency",
        "p99_latency",
        "avg_hops",
        "accepted_throughput",
        "received_ratio",
        "port_conflicts_per_cycle",
        "saturated",
        "deadlock",
        "wall_seconds",
        "compile_seconds",
    ):
        assert key in d
    assert d["config"]["version"] == fattree.__version__ and d["config"]["seed"] == 0
    assert set(SimConfig.__dataclass_fields__) <= set(d["config"])


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(load=0.0), "load=0.0 is invalid"),
        (dict(load=1.2), "load=1.2 is invalid"),
        (dict(buffer=0), "buffer=0 is invalid"),
        (dict(packet_flits=0), "packet_flits=0"),
        (dict(vcs=0), "vcs=0"),
        (dict(router_delay=-1), "router_delay=-1"),
        (dict(buffer_level0=0), "buffer_level0=0"),
        (dict(seed=-3), "seed=-3"),
        (dict(colour="red"), "valid parameters"),
    ],
)
def test_bad_parameters(kw, match):
    with pytest.raises(ParameterError, match=match):
        simulate("kant:k=2,n=2", **kw)


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(UnknownNameError, match="valid: random, roundrobin"):
        SimConfig(arbitration="fifo")
    with pytest.raises(UnknownNameError, match="alg1"):
        simulate("kant:k=2,n=2", algorithm="alg2")
    with pytest.raises(ParameterError, match="power-of-two"):
        simulate("mikant:k=3,n=3", traffic="bitcomp")


def test_misrouting_is_an_error(monkeypatch):
    from dataclasses import replace

    import fattree.sim.engine as eng

    topo = fattree.build("kant:k=2,n=2")
    cr = compile_routing(topo, "shortest")
    table = np.array(cr.table)
    table[table >= 0] = 0  # every switch sends everything down port 0
    table.flags.writeable = False  # as compile_routing leaves it: no new kernel signature
    monkeypatch.setattr(eng, "compile_routing", lambda *a, **k: replace(cr, table=table))
    with pytest.raises(SimulationError, match="wrong node"):
        simulate(topo, load=0.5, packets_per_source=5)
