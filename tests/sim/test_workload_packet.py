"""Workloads closed loop at packet level (sim/closedloop.py, sim/workload.py).

Closed forms on contention-free schedules, agreement with the flow model, dependencies
and timers, faults that leave messages undelivered, the command line and bad input.
"""

import subprocess
import sys

import numpy as np
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.routing import compile_routing
from fattree.routing.paths import PairRouter
from fattree.sim.flow import flow
from fattree.sim.workload import PacketResult, simulate_workload, units

KIB = 1024


def _hops(topo, a, b):
    ptr, _, _ = PairRouter(topo, compile_routing(topo, None)).channels(np.array([a]), np.array([b]))
    return int(ptr[1] - ptr[0])


def _goal(tmp_path, text, name="s.goal"):
    p = tmp_path / name
    p.write_text(text)
    return f"goal:file={p}"


def test_units_two_of_three():
    assert units() == (50e9, 256, 50e9 / 256)
    assert units(clock="1GHz", flit_size="16B") == (16e9, 16, 1e9)
    assert units(link_rate="100Gb/s", flit_size="125B") == (12.5e9, 125, 1e8)
    with pytest.raises(ParameterError, match="disagree"):
        units(link_rate="400Gb/s", clock="1GHz")
    with pytest.raises(ParameterError, match="clock='1G'"):
        units(clock="1G")


def test_one_message_is_latency_plus_size_over_bandwidth(tmp_path):
    """A message of M flits over h channels takes h + M cycles (cut-through)."""
    topo = fattree.build("kant:k=4,n=2")
    spec = _goal(
        tmp_path,
        "num_ranks 16\nrank 0 {\nl1: send 65536b to 15 tag 0\n}\n"
        "rank 15 {\nl2: recv 65536b from 0 tag 0\n}\n",
    )
    r = simulate_workload(topo, spec, flit_size="256B")
    h = _hops(topo, 0, 15)
    closed = h + 65536 // 256
    assert r.complete and r.messages == 1 and r.packets == 256
    assert abs(r.cycles - closed) <= 0.02 * closed
    assert r.time_s == pytest.approx(r.cycles * 256 / 50e9)
    assert r.max_link_util == pytest.approx(256 / r.cycles)
    f = flow(topo, spec, hop_latency="0ns")
    assert abs(f.time_s - r.time_s) <= 0.02 * f.time_s


def test_a_ring_on_a_full_bisection_tree_is_the_closed_form():
    """p - 1 steps of S/p bytes, each the longest route's hops plus S/p over the rate."""
    topo = fattree.build("kant:k=4,n=2")
    p = 16
    r = simulate_workload(topo, "allgather:algorithm=ring,size=1MiB", flit_size="256B")
    hmax = max(_hops(topo, i, (i + 1) % p) for i in range(p))
    closed = (p - 1) * (hmax + (1 << 20) // p // 256)
    assert r.complete and abs(r.cycles - closed) <= 0.02 * closed
    assert r.phases and r.phases[0]["repeat"] == p - 1
    assert sum(ph["total_s"] for ph in r.phases) == pytest.approx(r.time_s)
    assert r.busbw_gbps == pytest.approx(r.algbw_gbps * (p - 1) / p)
    assert r.algbw_gbps == pytest.approx((1 << 20) / r.time_s / 1e9)


CASES = [
    ("kant:k=4,n=2", "allreduce:algorithm=ring,size=1MiB"),
    ("kant:k=4,n=2", "allreduce:algorithm=rhd,size=1MiB"),
    ("kant:k=4,n=2", "allreduce:algorithm=tree,size=64KiB"),
    ("kant:k=4,n=2", "allreduce:algorithm=dtree,size=128KiB"),
    ("kant:k=4,n=2", "allreduce:algorithm=hier,size=1MiB,placement=leaf"),
    ("kant:k=4,n=2", "reducescatter:algorithm=rd,size=1MiB"),
    ("kant:k=4,n=2", "alltoall:algorithm=pairwise,size=1MiB"),
    ("kant:k=4,n=2", "broadcast:size=64KiB"),
    ("kant:k=4,n=2", "reduce:size=64KiB"),
    ("xgft:m=4.4,w=1.2", "allreduce:algorithm=ring,size=1MiB"),
    ("xgft:m=4.4,w=1.2", "allgather:algorithm=rd,size=1MiB"),
    ("xgft:m=4.4,w=1.2", "alltoall:algorithm=pairwise,size=1MiB"),
    ("mikant:k=4,n=2", "allreduce:algorithm=ring,size=2MiB"),
    ("mikant:k=4,n=2", "alltoall:algorithm=pairwise,size=2MiB"),
    ("mikant:k=4,n=2", "allgather:algorithm=ring,size=2MiB"),
]


@pytest.mark.parametrize("topo_spec,wl", CASES)
def test_packet_and_flow_levels_agree_for_large_messages(topo_spec, wl):
    """Messages of 64 KiB or more: within 10 % of the flow model (hop latency 0: the packet
    model's hop costs one cycle, the flow model's flit serialisation per hop)."""
    topo = fattree.build(topo_spec)
    r = simulate_workload(topo, wl)
    f = flow(topo, wl, hop_latency="0ns", engine="operations")
    assert r.complete and f.complete
    assert abs(r.time_s - f.time_s) <= 0.10 * f.time_s, (r.time_s, f.time_s)
    assert r.messages == f.messages and r.bytes_total == f.bytes_total


@pytest.mark.slow
@pytest.mark.parametrize(
    "topo_spec,wl",
    [
        ("kant:k=4,n=3", "allreduce:algorithm=ring,size=4MiB"),
        ("mikant:k=4,n=3", "allgather:algorithm=ring,size=8MiB"),
    ],
)
def test_the_levels_agree_on_64_and_128_ranks(topo_spec, wl):
    topo = fattree.build(topo_spec)
    r = simulate_workload(topo, wl)
    f = flow(topo, wl, hop_latency="0ns", engine="operations")
    assert r.complete and abs(r.time_s - f.time_s) <= 0.10 * f.time_s, (r.time_s, f.time_s)


ALGORITHMS = [
    "allreduce:ring",
    "allreduce:rhd",
    "allreduce:tree",
    "allreduce:dtree",
    "allreduce:hier",
    "reducescatter:ring",
    "reducescatter:rd",
    "allgather:ring",
    "allgather:rd",
    "alltoall:pairwise",
    "broadcast:binomial",
    "reduce:binomial",
    "barrier:dissemination",
]
NETWORKS = ["kant:k=4,n=3", "xgft:m=8.8,w=1.4", "mikant:k=4,n=3"]  # 64, 64 (2:1), 128 ranks


def _spec_min_message(name, topo, smallest=64 * KIB):
    """The collective's spec whose smallest message is ``smallest`` bytes on ``topo``."""
    from fattree.traffic.workloads import make_workload

    col, alg = name.split(":")
    base = f"{col}:algorithm={alg}" + (",placement=leaf" if alg == "hier" else "")
    probe = 1 << 30
    w = make_workload(f"{base},size={probe}B", topo.n_nodes, topo.node_switch, 0)
    least = min(int(ph.arrays()[2].min()) for ph in w.phases if ph.messages)
    return f"{base},size={-(-probe * smallest // least)}B"


def _levels(topo_spec, name, flit_size="256B"):
    topo = fattree.build(topo_spec)
    wl = _spec_min_message(name, topo)
    r = simulate_workload(topo, wl, flit_size=flit_size)
    f = flow(topo, wl, hop_latency="0ns", engine="operations", flit_size=flit_size)
    assert r.complete and f.complete
    assert r.messages == f.messages and r.bytes_total == f.bytes_total
    return r, f


@pytest.mark.parametrize(
    "topo_spec,name",
    [
        (t, a)
        for t in NETWORKS
        for a in ALGORITHMS
        if not (t.startswith("xgft") and a == "alltoall:pairwise")  # the next test
    ],
)
def test_every_collective_agrees_at_64_and_128_ranks(topo_spec, name):
    """Messages of at least 64 KiB on kant, a 2:1 tapered xgft and MiKANT: within 10 %
    (benchmarks/workloads.py --agreement prints the whole matrix up to 1,024 ranks), but
    pairwise all-to-all on the tapered xgft (next test) and direct all-to-all (below)."""
    r, f = _levels(topo_spec, name)
    assert abs(r.time_s - f.time_s) <= 0.10 * f.time_s, (r.time_s, f.time_s)


def test_a_pairwise_all_to_all_over_a_tapered_network_is_slower_at_packet_level(tmp_path):
    """Each step alone takes the flow model's time, but over the 63 steps the packet level
    takes about 1.36x: its pairs end a step at different cycles and start the next early,
    so the flows of consecutive steps meet on the shared up links; the flow model ends
    every flow of a step at one instant (docs/workloads.md)."""
    topo = fattree.build("xgft:m=8.8,w=1.4")
    r, f = _levels("xgft:m=8.8,w=1.4", "alltoall:pairwise")
    assert 1.2 * f.time_s < r.time_s < 1.6 * f.time_s, (r.time_s, f.time_s)
    step = ["num_ranks 64"]
    for a in range(64):  # one step of it (r -> r XOR 1: every leaf's eight nodes to one leaf)
        step += [f"rank {a} {{", f"l1: send 65536b to {a ^ 1} tag 0"]
        step += [f"l2: recv 65536b from {a ^ 1} tag 0", "}"]
    spec = _goal(tmp_path, "\n".join(step) + "\n")
    one, one_f = simulate_workload(topo, spec), flow(topo, spec, hop_latency="0ns")
    assert abs(one.time_s - one_f.time_s) <= 0.02 * one_f.time_s


@pytest.mark.slow
def test_the_levels_agree_on_512_ranks():
    # 1 KiB flits: the same messages in a quarter of the simulated flits (the flit size's
    # default is what the 64- and 128-rank tests above use); both levels take the flit
    # size's serialisation per hop
    r, f = _levels("kant:k=8,n=3", "allreduce:ring", flit_size="1KiB")  # (measured 0.985)
    assert abs(r.time_s - f.time_s) <= 0.10 * f.time_s, (r.time_s, f.time_s)


@pytest.mark.parametrize("topo_spec", NETWORKS)
def test_direct_all_to_all_is_much_slower_at_packet_level(topo_spec):
    """Every message at once: about 1.8x (64 ranks) to 2.6x (MiKANT, 128 ranks) the flow
    model's time (docs: head-of-line blocking against max-min shares)."""
    r, f = _levels(topo_spec, "alltoall:direct")
    assert 1.5 * f.time_s < r.time_s < 3.0 * f.time_s, (r.time_s, f.time_s)


def test_direct_all_to_all_is_slower_at_packet_level():
    """Every message at once: the flow model's max-min shares are a perfect schedule; the
    packet model's input-queued switches block heads behind busy outputs (docs)."""
    topo = fattree.build("kant:k=4,n=2")
    wl = "alltoall:algorithm=direct,size=1MiB"
    r = simulate_workload(topo, wl)
    f = flow(topo, wl, hop_latency="0ns", engine="operations")
    assert r.complete and 1.1 * f.time_s < r.time_s < 2.0 * f.time_s
    assert r.max_link_util < 0.9


def test_calc_is_a_delay_and_dependencies_order_the_operations(tmp_path):
    """rank 0: calc 1 us, then send; rank 1: receive, then send back; 1 GHz clock."""
    topo = fattree.build("kant:k=2,n=2")
    spec = _goal(
        tmp_path,
        "num_ranks 2\nrank 0 {\nl1: calc 1000\nl2: send 1600b to 1 tag 0\n"
        "l3: recv 16b from 1 tag 1\nl2 requires l1\nl3 requires l2\n}\n"
        "rank 1 {\nl4: recv 1600b from 0 tag 0\nl5: send 16b to 0 tag 1\nl5 requires l4\n}\n",
    )
    r = simulate_workload(topo, spec, flit_size="16B", clock="1GHz")
    h = _hops(topo, 0, 1)
    assert r.complete
    assert r.cycles == pytest.approx(1000 + (h + 100) + (h + 1), abs=3)
    tl = r.timeline
    calc = tl["kind"] == 2
    assert tl["end_s"][calc][0] == pytest.approx(1e-6)


def test_irequires_overlaps_a_calc_with_a_send(tmp_path):
    """``l2 irequires l1``: the calc starts with the send, so they overlap."""
    topo = fattree.build("kant:k=2,n=2")
    body = "num_ranks 2\nrank 0 {{\nl1: send 1600b to 1 tag 0\nl2: calc 50\nl2 {dep} l1\n}}\n"
    body += "rank 1 {{\nl3: recv 1600b from 0 tag 0\n}}\n"
    over = simulate_workload(
        topo,
        _goal(tmp_path, body.format(dep="irequires"), "a.goal"),
        flit_size="16B",
        clock="1GHz",
    )
    after = simulate_workload(
        topo,
        _goal(tmp_path, body.format(dep="requires"), "b.goal"),
        flit_size="16B",
        clock="1GHz",
    )
    tl = over.timeline
    assert tl["start_s"][tl["kind"] == 2][0] == 0.0  # started with the send
    assert tl["end_s"][tl["kind"] == 2][0] == pytest.approx(50e-9)
    assert after.timeline["start_s"][after.timeline["kind"] == 2][0] == pytest.approx(100e-9)
    h = _hops(topo, 0, 1)  # the message: 100 flits, done at 100 + h - 1 (+ 1 to resolve)
    assert over.cycles == pytest.approx(100 + h, abs=1) and after.cycles == 150


def test_fewer_ranks_than_nodes_placed_at_random():
    topo = fattree.build("kant:k=4,n=2")
    a = simulate_workload(topo, "allgather:size=64KiB,ranks=6,placement=random", seed=5)
    b = simulate_workload(topo, "allgather:size=64KiB,ranks=6,placement=random", seed=5)
    assert a.complete and a.ranks == 6 and a.messages == 30
    assert a.cycles == b.cycles and a.bounding_link == b.bounding_link  # same seed, same run


def test_an_unroutable_message_ends_the_run_and_is_counted(tmp_path):
    topo = fattree.build("kant:k=2,n=2")
    f = tmp_path / "f.txt"
    f.write_text("n0.0 s0.0\n")
    r = simulate_workload(topo, "allgather:size=4KiB", faults=str(f), flit_size="64B")
    # node 0 is cut off: 0 -> 1 at step 0, and 3 -> 0 at each of the 3 steps (rank 3's
    # sends complete when dropped, so it goes on); the rest wait for data never sent
    assert not r.complete and r.undelivered == 4
    assert r.ops_not_run > 0 and "could not be delivered" in r.outcome
    assert r.faulty_links == 1


def test_result_row_has_the_flow_models_columns():
    topo = fattree.build("kant:k=2,n=2")
    r = fattree.simulate(topo, workload="allgather:size=4KiB", flit_size="64B")
    f = flow(topo, "allgather:size=4KiB")
    assert isinstance(r, PacketResult)
    row = r.to_row()
    assert list(row)[: len(f.to_row())] == list(f.to_row())
    assert row["engine"] == "packet" and row["cycles"] == r.cycles


def _same_run(a, b, timeline=True):
    assert (a.cycles, a.slowest_rank, a.bounding_link, a.packets, a.messages) == (
        b.cycles,
        b.slowest_rank,
        b.bounding_link,
        b.packets,
        b.messages,
    )
    assert (a.bytes_total, a.max_link_util, a.mean_link_util, a.outcome) == (
        b.bytes_total,
        b.max_link_util,
        b.mean_link_util,
        b.outcome,
    )
    if timeline:
        for k in ("ranks", "rank", "kind", "start_s", "end_s"):
            assert np.array_equal(a.timeline[k], b.timeline[k]), k


@pytest.mark.parametrize(
    "topo_spec,wl",
    [
        ("kant:k=4,n=2", "allreduce:algorithm=dtree,size=128KiB"),
        ("kant:k=4,n=2", "broadcast:size=64KiB"),
        ("xgft:m=4.4,w=1.2", "alltoall:algorithm=pairwise,size=256KiB,placement=random"),
        ("mikant:k=4,n=2", "allreduce:algorithm=hier,size=1MiB,placement=leaf"),
        ("kant:k=4,n=2", "alltoall:algorithm=direct,size=64KiB,ranks=12"),
    ],
)
def test_steps_generated_from_phases_run_as_the_expanded_schedule(topo_spec, wl):
    """A collective's operations generated step by step from its phases, and the same
    operations expanded in full and run as an explicit schedule: the same run."""
    import dataclasses

    from fattree.traffic.workloads import make_workload

    topo = fattree.build(topo_spec)
    w = make_workload(wl, topo.n_nodes, topo.node_switch, 0)
    phased = simulate_workload(topo, w)
    explicit = simulate_workload(topo, dataclasses.replace(w, phases=None, ops=w.schedule()))
    assert phased.complete and phased.phases and not explicit.phases
    _same_run(phased, explicit)


@pytest.mark.parametrize(
    "wl,model",
    [
        ("alltoall:algorithm=pairwise,size=64KiB,placement=random", "papers"),
        ("allreduce:algorithm=ring,size=256KiB", "papers"),
        ("allreduce:algorithm=tree,size=64KiB", "booksim"),
    ],
)
def test_operation_slots_grow_without_changing_the_run(monkeypatch, wl, model):
    """Started with the slots of the first steps only, the engine grows them between
    cycles; the run is the one it would have been."""
    import fattree.sim.closedloop as cl
    import fattree.sim.workload as sw

    topo = fattree.build("kant:k=4,n=2")
    ref = simulate_workload(topo, wl, model=model)
    grown = []
    monkeypatch.setattr(cl, "SLOT_ROOMS", 0)
    monkeypatch.setattr(cl, "SLOT_SPARE", 0)
    real = cl.grow_slots

    def spy(w):
        grown.append(len(w.kind))
        return real(w)

    monkeypatch.setattr(sw, "grow_slots", spy)
    monkeypatch.setattr(cl, "grow_slots", spy)
    small = simulate_workload(topo, wl, model=model)
    assert grown and ref.complete
    _same_run(ref, small)


def test_a_collective_holds_a_few_steps_of_operations():
    """A ring all-reduce over 1,024 ranks has 4,190,208 operations; the closed-loop state
    holds slots for a few steps of each rank, not the whole schedule."""
    from fattree.sim.closedloop import CI_NOPS, closed_view, start
    from fattree.traffic.workloads import make_workload

    w = make_workload("allreduce:algorithm=ring,size=1MiB", 1024)
    v = start(closed_view(w, 1024, 4096, 4096, 1e-9, 64, keep=[0, 1023]))
    assert int(v.ci[CI_NOPS]) == 2 * 1024 * 2046
    assert len(v.kind) <= 16 * 1024 and len(v.tl_end) == 2 * 2 * 2046
    # one step of every message at once (direct all-to-all): slots for its operations
    w = make_workload("alltoall:algorithm=direct,size=64KiB", 64)
    v = start(closed_view(w, 64, 256, 4096, 1e-9, 64))
    assert len(v.kind) <= 2 * 2 * 64 * 63 + 64 and int(v.ci[CI_NOPS]) == 2 * 64 * 63


def test_a_large_schedule_keeps_the_timeline_of_the_spread_ranks(monkeypatch):
    """Above TIMELINE_OPS operations the timeline keeps the evenly spread ranks only
    (their rows as a full run has them)."""
    import fattree.sim.workload as sw

    topo = fattree.build("kant:k=4,n=3")
    wl = "allgather:algorithm=ring,size=64KiB"
    full = simulate_workload(topo, wl)
    monkeypatch.setattr(sw, "TIMELINE_OPS", 0)
    part = simulate_workload(topo, wl)
    _same_run(full, part, timeline=False)
    spread = np.linspace(0, 63, 31).astype(int)
    assert part.timeline["ranks"].tolist() == spread.tolist()
    sel = np.isin(full.timeline["rank"], spread)
    for k in ("rank", "kind", "start_s", "end_s"):
        assert np.array_equal(full.timeline[k][sel], part.timeline[k]), k


def test_open_loop_runs_keep_their_numbers():
    r = fattree.simulate("kant:k=2,n=2", load=0.1, packets_per_source=20, seed=1)
    assert r.avg_hops == 3.425 and r.conservation


def _cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "fattree", *args], capture_output=True, text=True, cwd=cwd
    )


@pytest.mark.slow
def test_cli_runs_a_workload_and_writes_its_row_and_timeline(tmp_path):
    p = _cli(
        "simulate",
        "kant:k=2,n=2",
        "--workload",
        "allreduce:algorithm=ring,size=64KiB",
        "--link-rate",
        "100Gb/s",
        "--plot",
        str(tmp_path / "t.png"),
        "-o",
        str(tmp_path / "r.csv"),
    )
    assert p.returncode == 0, p.stderr
    assert "packet level" in p.stdout and "complete" in p.stdout
    assert (tmp_path / "t.png").stat().st_size > 0
    import pandas as pd

    row = pd.read_csv(tmp_path / "r.csv").iloc[0]
    assert row["collective"] == "allreduce" and row["link_rate_gbps"] == 100


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--workload", "allreduce:algorithm=nope"], "algorithm='nope'"),
        (["--workload", "allreduce:size=1M"], "size='1M'"),
        (["--workload", "allreduce:ranks=9"], "ranks=9"),
        (["--workload", "allreduce:algorithm=rhd,ranks=3"], "power-of-two"),
        (["--workload", "allgather", "--link-rate", "400"], "link_rate='400'"),
        (["--workload", "allgather", "--clock", "1GHz", "--link-rate", "1Gb/s"], "disagree"),
        (["--workload", "allgather", "--load", "0.1"], "load=0.1 does not apply"),
        (
            ["--workload", "allgather", "--model", "booksim", "--fault-rate", "0.1"],
            "model='booksim'",
        ),
        (["--workload", "allgather", "--plot", "t.txt"], "plot"),
        (["--link-rate", "400Gb/s", "--load", "0.1"], "only acts with --workload"),
    ],
)
def test_cli_refuses_bad_input_in_one_line(tmp_path, args, needle, capsys, monkeypatch):
    from fattree.cli import main

    monkeypatch.chdir(tmp_path)  # as a user types it, in this process
    rc = main(["simulate", "kant:k=2,n=2", *args])
    out, err = capsys.readouterr()
    assert rc == 2, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines


def test_cli_names_a_receive_without_a_send(tmp_path, capsys):
    from fattree.cli import main

    g = tmp_path / "d.goal"
    g.write_text("num_ranks 2\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n")
    rc = main(["simulate", "kant:k=2,n=2", "--workload", f"goal:file={g}"])
    err = capsys.readouterr().err
    assert rc == 2 and "no matching send" in err and "rank 1" in err


def test_timeline_draws_every_kept_operation(tmp_path):
    from fattree.report.timeline import timeline_figure

    topo = fattree.build("kant:k=4,n=2")
    r = simulate_workload(topo, "allreduce:algorithm=ring,size=64KiB")
    tl = r.timeline
    assert len(tl["ranks"]) == 16 and tl["slowest_rank"] == r.slowest_rank
    assert len(tl["rank"]) == 4 * 16 * 15  # every operation of every rank: 2(p-1) steps x 2
    fig = timeline_figure(r, tmp_path / "t.svg")
    bars = sum(len(c.patches) for c in fig.axes[0].containers)
    assert bars == len(tl["rank"]) and (tmp_path / "t.svg").stat().st_size > 0
    assert tl["end_s"].max() == pytest.approx(r.time_s)
