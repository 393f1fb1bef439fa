"""The flow-level model against closed forms (one message, contention-free rings, an
incast), the two engines against each other, nccl-tests' bandwidths, faults."""

from __future__ import annotations

import numpy as np
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.sim.flow import flow, flow_config
from fattree.sim.flow.maxmin import _maxmin, _run_phase

B = 50e9  # 400 Gb/s in bytes per second
LAT = 100e-9
FLIT = 256
HOP = LAT + FLIT / B


@pytest.fixture(scope="module")
def kant43():
    return fattree.build("kant:k=4,n=3")


def _goal(tmp_path, text):
    p = tmp_path / "w.goal"
    p.write_text(text)
    return f"goal:file={p}"


def test_maxmin_progressive_filling():
    # f0 crosses c0 and c1, f1 only c1, f2 only c0; c0 has capacity 1, c1 capacity 2
    ptr = np.array([0, 2, 3, 4])
    chan = np.array([0, 1, 1, 0])
    rate = np.zeros(3)
    bott = np.zeros(3, np.int64)
    _maxmin(ptr, chan, np.array([1.0, 2.0]), np.ones(3, np.bool_), rate, bott)
    assert rate.tolist() == [0.5, 1.5, 0.5] and bott.tolist() == [0, 1, 0]
    # run to completion: f0 and f1 end at t = 2, then f2 alone on c0 ends at 3
    fin = np.zeros(3)
    _run_phase(ptr, chan, np.array([1.0, 2.0]), np.array([1, 3, 2]), fin, bott)
    assert fin.tolist() == [2.0, 2.0, 3.0]


@pytest.mark.parametrize("dst, hops", [(16, 2), (1, 4), (63, 6)])  # kant: node i on leaf i mod 16
@pytest.mark.parametrize("size", [8, 65536, 1 << 20])
def test_one_message_closed_form(tmp_path, kant43, dst, hops, size):
    spec = _goal(
        tmp_path,
        f"num_ranks 64\nrank 0 {{\nl1: send {size}b to {dst} tag 0\n}}\n"
        f"rank {dst} {{\nl2: recv {size}b from 0 tag 0\n}}\n",
    )
    r = flow(kant43, spec)
    assert r.time_s == pytest.approx(hops * HOP + size / B, rel=1e-9)
    assert r.complete and r.engine == "operations" and r.slowest_rank == dst


@pytest.mark.parametrize("size", ["64KiB", "1MiB", "16MiB"])
@pytest.mark.parametrize("engine", ["phases", "operations"])
def test_ring_on_full_bisection_tree_closed_form(size, engine):
    # kant(4,2): node i hangs on leaf i mod 4, so every ring neighbour is 4 links away
    t = fattree.build("kant:k=4,n=2")
    p = 16
    S = fattree.traffic.workloads.parse_size(size)
    r = flow(t, f"allreduce:algorithm=ring,size={size}", engine=engine)
    closed = 2 * (p - 1) * (4 * HOP + S / p / B)  # no channel shared
    assert r.time_s == pytest.approx(closed, rel=0.02)
    assert r.busbw_gbps == pytest.approx(r.algbw_gbps * 2 * (p - 1) / p)
    assert r.algbw_gbps == pytest.approx(S / r.time_s / 1e9)
    # a node link carries 2(p-1) pieces of size/p over the whole run
    assert r.max_link_util == pytest.approx(2 * (p - 1) * S / p / B / r.time_s, rel=1e-9)
    if engine == "phases":
        assert r.phases_computed == 1 and r.phases_total == 2 * (p - 1)


@pytest.mark.parametrize("size", ["64KiB", "16MiB"])
def test_ring_phases_take_the_longest_route_each_step(kant43, size):
    p = 64
    S = fattree.traffic.workloads.parse_size(size)
    # in lock step every step lasts as long as its longest route (15 -> 16: 6 links)
    r = flow(kant43, f"allreduce:algorithm=ring,size={size}", engine="phases")
    assert r.time_s == pytest.approx(2 * (p - 1) * (6 * HOP + S / p / B), rel=1e-9)
    # with dependencies alone, ranks run ahead: faster, never slower than the pieces' transfer
    o = flow(kant43, f"allreduce:algorithm=ring,size={size}", engine="operations")
    assert 2 * (p - 1) * (4 * HOP + S / p / B) <= o.time_s * (1 + 1e-9) <= r.time_s * (1 + 1e-9)


def test_incast_shares_the_ejection_link(tmp_path, kant43):
    S = 1 << 20
    # ranks 4, 8 and 12 share rank 0's leaf switch (kant: node i on leaf i mod 4)
    ops = "".join(f"rank {i} {{\nl{i}: send {S}b to 0 tag {i}\n}}\n" for i in (4, 8, 12))
    recv = "".join(f"l{100 + i}: recv {S}b from {i} tag {i}\n" for i in (4, 8, 12))
    spec = _goal(tmp_path, f"num_ranks 16\nrank 0 {{\n{recv}}}\n{ops}")
    r = flow(fattree.build("kant:k=4,n=2"), spec)
    assert r.time_s == pytest.approx(3 * S / B + 2 * HOP, rel=1e-9)
    assert r.bounding_link.endswith("-> n0.0")  # the ejection link into rank 0


def test_calc_and_dependencies(tmp_path):
    t = fattree.build("kant:k=4,n=2")
    spec = _goal(
        tmp_path,
        "num_ranks 2\nrank 0 {\nl1: calc 1000\nl2: send 5000b to 1 tag 0\nl2 requires l1\n}\n"
        "rank 1 {\nl3: recv 5000b from 0 tag 0\nl4: calc 500\nl4 requires l3\n}\n",
    )
    r = flow(t, spec)
    assert r.time_s == pytest.approx(1000e-9 + 4 * HOP + 5000 / B + 500e-9, rel=1e-9)  # 2 leaves


@pytest.mark.parametrize(
    "spec",
    [
        "allreduce:algorithm=ring,size=256KiB",
        "allreduce:algorithm=rhd,size=256KiB",
        "allreduce:algorithm=hier,size=256KiB,placement=leaf",
        "allgather:algorithm=rd,size=64KiB",
        "alltoall:algorithm=pairwise,size=64KiB",
        "broadcast:size=64KiB",
        "barrier",
    ],
)
def test_engines_agree_on_symmetric_collectives(spec):
    t = fattree.build("kant:k=4,n=2")
    a = flow(t, spec, engine="phases")
    b = flow(t, spec, engine="operations")
    # the operations engine lets ranks run ahead; on these collectives no rank can
    assert b.time_s <= a.time_s * (1 + 1e-9)
    assert b.time_s == pytest.approx(a.time_s, rel=0.02)


def test_contention_slows_direct_alltoall_beyond_pairwise_bound():
    t = fattree.build("kant:k=4,n=2")
    r = flow(t, "alltoall:algorithm=direct,size=1MiB")
    p = 16
    # every node sends (p-1)/p of 1 MiB through its own injection link: a lower bound
    assert r.time_s >= (p - 1) / p * (1 << 20) / B
    assert r.complete


def test_faults_end_with_undelivered_messages_counted():
    t = fattree.build("kant:k=4,n=2")
    r = flow(t, "allreduce:algorithm=ring,size=64KiB", fault_rate=0.4, seed=1)
    assert r.faulty_links > 0 and r.undelivered > 0 and not r.complete
    assert r.outcome.startswith("ended: ") and "could not be delivered" in r.outcome
    assert "first: rank" in r.outcome
    o = flow(t, "allreduce:algorithm=ring,size=64KiB", fault_rate=0.4, seed=1, engine="operations")
    assert not o.complete and o.undelivered > 0 and o.ops_not_run > 0
    assert "operation(s) never ran" in o.outcome


def test_faults_rerouted_when_possible():
    t = fattree.build("kant:k=4,n=3")
    free = flow(t, "alltoall:size=64KiB")
    # seed 4 fails 6 switch links and no node link: every message is rerouted or kept
    r = flow(t, "alltoall:size=64KiB", fault_rate=0.03, seed=4)
    assert r.faulty_links == 6 and r.fault_algorithm == "detour"
    assert r.complete and r.undelivered == 0 and r.outcome == "complete"
    # a detour is no shorter and no faster than the fault-free route of the same message
    assert r.time_s >= free.time_s


def test_result_row_records_configuration(kant43):
    r = fattree.flow(kant43, "allgather:size=64KiB", link_rate="100Gb/s", seed=5)
    row = r.to_row()
    assert row["link_rate_gbps"] == 100 and row["seed"] == 5
    assert row["version"] == fattree.__version__
    assert row["workload"].startswith("allgather:algorithm=ring,size=64KiB")
    assert "phases" not in row and r.phases


def test_random_placement_is_seeded(kant43):
    a = flow(kant43, "alltoall:size=64KiB,ranks=20,placement=random", seed=4)
    b = flow(kant43, "alltoall:size=64KiB,ranks=20,placement=random", seed=4)
    assert a.time_s == b.time_s and a.slowest_node == b.slowest_node


@pytest.mark.parametrize(
    "kw, why",
    [
        ({"link_rate": "400"}, "link_rate='400' is invalid: the unit is missing"),
        ({"link_rate": "400Gbps"}, "unknown unit 'Gbps'"),
        ({"flit_size": "256"}, "flit_size='256' is invalid: the unit is missing"),
        ({"hop_latency": "100"}, "hop_latency='100' is invalid: the unit is missing"),
        ({"fault_rate": 1.5}, "fault_rate=1.5 is invalid"),
        ({"engine": "packets"}, "engine='packets' is invalid"),
    ],
)
def test_bad_parameters(kw, why):
    with pytest.raises(ParameterError, match=why):
        flow_config(**kw)


def test_api_refuses_unknown_keyword():
    with pytest.raises(ParameterError, match="flow takes no option 'linkrate'"):
        fattree.flow("kant:k=2,n=2", "barrier", linkrate="1Gb/s")


@pytest.mark.parametrize("spec", ["kant:k=4,n=3", "mikant:k=3,n=3"])
def test_reroutes_are_the_fault_layer_s_routes(spec):
    from fattree.faults import ft_route
    from fattree.sim.flow.routes import _Router

    t = fattree.build(spec)
    router = _Router(t, flow_config(fault_rate=0.05, seed=2))
    fn = router._ft()
    N = t.n_nodes
    for a in range(0, N, 3):
        for b in range(1, N, 5):
            if a == b:
                continue
            mine = fn(a, b)
            ref = ft_route(t, router.ft, a, b, router.faulty)
            assert (mine is not None) == ref.success
            if ref.success:
                assert mine[0] == [t.find(x) - N for x in ref.path[1:-1]]
                assert mine[1] == list(ref.ports)


def test_operations_engine_refuses_huge_schedules(monkeypatch):
    import fattree.sim.flow.operations as engine
    from fattree.errors import ResourceError

    monkeypatch.setattr(engine, "MAX_OPS", 100)
    with pytest.raises(ResourceError, match="use engine='phases'|max_ops"):
        flow(fattree.build("kant:k=4,n=2"), "allreduce:size=1MiB", engine="operations")


def test_schedgen_style_file(tmp_path):
    # schedgen's shape: labels restart in every rank, each dependency right after its op
    spec = _goal(
        tmp_path,
        "num_ranks 4\n\nrank 0 {\nl1: send 1000b to 1 tag 0\nl2: send 1000b to 2 tag 0\n}\n\n"
        "rank 1 {\nl1: recv 1000b from 0 tag 0\nl2: send 1000b to 3 tag 0\nl2 requires l1\n}\n\n"
        "rank 2 {\nl1: recv 1000b from 0 tag 0\n}\n\nrank 3 {\nl1: recv 1000b from 1 tag 0\n}\n",
    )
    r = flow(fattree.build("kant:k=4,n=2"), spec)
    # rank 0's two sends share its injection link (half rate each), then rank 1 forwards;
    # every pair of ranks 0-3 is on different leaves: 4 links
    assert r.time_s == pytest.approx(2000 / B + 4 * HOP + 1000 / B + 4 * HOP, rel=1e-9)
    assert r.slowest_rank == 3 and r.messages == 3


@pytest.mark.parametrize("spec", ["mikant:k=3,n=3", "kant:k=4,n=3"])
def test_results_do_not_depend_on_the_thread_count(spec):
    t = fattree.build(spec)
    kw = dict(fault_rate=0.05, seed=1)
    one = flow(t, "alltoall:size=64KiB", workers=1, **kw).to_row()
    many = flow(t, "alltoall:size=64KiB", workers=3, **kw).to_row()
    for k in ("wall_s", "compile_seconds"):  # (the first run may compile)
        one.pop(k), many.pop(k)
    assert one == many
