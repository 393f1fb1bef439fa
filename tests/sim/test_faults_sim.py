"""Faults in the simulator: hop-by-hop fault-tolerant routing (sim/faulthop.py) checked
against every pair's walk (FaultRouter.route); docs/simulator.md."""

from __future__ import annotations

import numpy as np
import pytest

import fattree
from fattree.cli import main
from fattree.errors import ParameterError
from fattree.faults.cdg import ft_dependency_graph
from fattree.faults.links import random_faults
from fattree.faults.route import ft_route
from fattree.sim import SimConfig, simulate, simulate_loads
from fattree.sim.engine import fault_mask, fault_tables
from fattree.routing import compile_routing
from fattree.sim.engine import channel_load_bound
from fattree.faults.view import (
    FS_ADMIT_LIVELOCK as FS_LIVELOCK,
    FS_ADMIT_OK as FS_OK,
    FS_ADMIT_UNROUTABLE as FS_UNROUTABLE,
    fault_router,
)
from fattree.sim.faulthop import fault_port, router_load_bound
from fattree.sim.layout import PK_COLS, PK_FT, PK_SRC
from fattree.sim.reference import simulate_reference

SPEC = "mikant:k=2,n=3"


def routes(topo, fr, vcs=1):
    """Every ordered pair's route by the walk: {(s, t): (status, ports, vc classes)}."""
    N = topo.n_nodes
    return {(s, t): fr.route(s, t, vcs) for s in range(N) for t in range(N) if s != t}


def python_bound(topo, fr, traffic="uniform", vcs=1):
    """The channel-load bound of the walked routes, summed in plain Python."""
    from fattree.routing.shared import pair_weight, traffic_weights

    N = topo.n_nodes
    _, mode, uni, hot, hot_w, perm = traffic_weights(traffic, N, 0)
    load, inject = {}, [0.0] * N
    for (s, t), (st, ports, _) in routes(topo, fr, vcs).items():
        w = pair_weight(mode, s, t, N, uni, hot, hot_w, perm)
        if w == 0.0 or st != FS_OK:
            continue
        inject[s] += w
        sw = int(topo.node_switch[s])
        for p in ports:
            load[sw, p] = load.get((sw, p), 0.0) + w
            sw = int(topo.port_peer[sw, p]) - N
    return 1.0 / max(max(load.values(), default=0.0), max(inject))


def follow(topo, faulty, s, ports):
    """Walk a table row from node s: (destination node, links used), checking each port."""
    N = topo.n_nodes
    links = [s]  # the source's node link is link s
    sw = int(topo.node_switch[s])
    for p in ports:
        if p < 0:
            break
        v = int(topo.port_peer[sw, p])
        assert v >= 0, "a route uses an unconnected port"
        links.append(int(topo.link_index[sw, p]))
        if v < N:
            return v, links
        sw = v - N
    raise AssertionError("route does not end at a node")


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec,alg,rate,seed,model",
    [
        (SPEC, "gns+xt+gdl", 0.1, 1, "local"),
        (SPEC, "gns+tt+xt+gdl", 0.2, 2, "local"),
        ("mikant:k=3,n=3", "gdl", 0.05, 3, "local"),
        ("mikant:k=4,n=3", "gns+tt+xt+gdl", 0.1, 4, "lookahead"),
        ("mikant:k=3,n=3", "gns+xt+gdl", 0.15, 6, "lookahead"),
        ("mikantc:k=3,n=3", "sp", 0.05, 4, "local"),
        ("mikantc:k=3,n=3", "cube+gns+xt+gdl", 0.1, 5, "local"),
    ],
)
def test_routes_never_cross_a_failed_link_and_match_the_walk(spec, alg, rate, seed, model):
    topo = fattree.build(spec)
    faulty = random_faults(topo, rate, seed)
    assert faulty.any()
    fr = fault_router(topo, alg, faulty, model=model)
    assert fr.model == model
    N = topo.n_nodes
    rng = np.random.default_rng(seed)
    for s, t in rng.integers(0, N, (300, 2)).tolist():
        if s == t:
            continue
        st, ports, _ = fr.route(s, t)
        r = ft_route(topo, alg, s, t, faulty, model=model)
        assert (st == FS_OK) == r.success
        if not r.success:
            assert st == (FS_LIVELOCK if r.status == "TTL" else FS_UNROUTABLE)
            continue
        dst, links = follow(topo, faulty, s, ports)
        assert dst == t
        assert not faulty[links].any()
        assert ports == r.ports
    # every delivered route (one pair in 7) avoids every failed link
    for s in range(N):
        for t in range(s % 7, N, 7):
            st, ports, _ = fr.route(s, t)
            if s != t and st == FS_OK:
                dst, links = follow(topo, faulty, s, ports)
                assert dst == t and not faulty[links].any()


PER_HOP_CASES = [
    ("mikant:k=3,n=3", "local", "all"),
    ("mikant:k=3,n=3", "lookahead", "all"),
    ("mikant:k=2,n=3", "lookahead", "gns+tt+xt+gdl,escape,gdl"),
    ("mikant:k=4,n=3", "local", "gns+tt+xt+gdl+upalt,gns+tt+xt+gdl+root,escape,gns+xt+gdl"),
    ("mikantc:k=3,n=3", "local", "all"),
]


@pytest.mark.parametrize("spec,model,algs", PER_HOP_CASES)
def test_per_hop_kernel_chooses_the_walks_ports(spec, model, algs):
    """The simulator's per-hop kernel (fault_port: the state packed in the header, the
    previous switch from the input port) takes, switch by switch, the port the whole
    walk takes, on random (source, destination, fault set) cases."""
    from fattree.faults.algorithms import resolve_algorithms

    topo = fattree.build(spec)
    N = topo.n_nodes
    rng = np.random.default_rng(11)
    names = [
        a.name
        for a in resolve_algorithms(algs, topo.family)
        if not a.is_oracle and "table" not in a.name
    ]
    routed = hops = detoured = 0
    for rate in (0.05, 0.15, 0.3):
        faulty = random_faults(topo, rate, int(rng.integers(1 << 30)))
        for alg in names:
            fr = fault_router(topo, alg, faulty, model=model)
            view = fr.view(fr.ft_ws.copy())
            for s, t in rng.integers(0, N, (25, 2)).tolist():
                st, ports, _ = fr.route(s, t)
                if s == t or st != FS_OK:
                    continue
                pk = np.zeros((1, PK_COLS), np.int64)
                pk[0, PK_SRC] = s
                pk[0, PK_FT] = fr.ft_i[6]  # FI_BUDGET: the packed fresh state
                sw, ip = int(topo.node_switch[s]), -1
                for h, want in enumerate(ports):
                    q = fault_port(view, pk, 0, sw, ip, 0, t, h, 1)
                    assert q == want, (alg, s, t, h, ports)
                    sw, ip = int(topo.port_peer[sw, q]) - N, int(topo.port_peer_port[sw, q])
                    hops += 1
                routed += 1
                detoured += int(pk[0, PK_FT] != fr.ft_i[6])
    assert routed > 100 and hops > 4 * routed and detoured > 0


def all_pairs_trace(tmp_path, N, gap=3):
    pairs = [(s, t) for s in range(N) for t in range(N) if s != t]
    path = tmp_path / "pairs.txt"
    path.write_text("".join(f"{i * gap} {s} {t}\n" for i, (s, t) in enumerate(pairs)))
    return path, pairs


@pytest.mark.parametrize("alg,vcs", [("gns+gdl", 1), ("sp", 1), ("gns+xt+gdl", 2)])
def test_unroutable_count_is_exact(tmp_path, alg, vcs):
    topo = fattree.build(SPEC)
    cfg = SimConfig(fault_rate=0.15, fault_seed=7, algorithm=alg, vcs=vcs)
    fr = fault_router(topo, alg, fault_mask(topo, cfg), vcs)
    N = topo.n_nodes
    path, pairs = all_pairs_trace(tmp_path, N)
    status = [fr.route(s, t, vcs)[0] for s, t in pairs]
    bad = status.count(FS_UNROUTABLE)
    loop = status.count(FS_LIVELOCK)
    assert bad > 0
    r = simulate(topo, cfg, traffic=f"trace:file={path}", packets_per_source=10**6)
    assert (r.unroutable, r.livelock) == (bad, loop)
    assert r.created == len(pairs) and r.delivered == len(pairs) - bad - loop
    assert r.conservation and not r.deadlock
    assert (r.faulty_links, r.ft_algorithm, r.fault_rate) == (int(fr.faulty.sum()), alg, 0.15)
    assert r.config["faulty_links"] == r.faulty_links and r.config["fault_seed"] == 7


def test_unroutable_under_a_permutation(tmp_path):
    """bitcomp: each source sends to one node, so its packets are all routed or all not."""
    topo = fattree.build(SPEC)
    r = simulate(
        topo,
        load=0.2,
        traffic="bitcomp",
        fault_rate=0.2,
        fault_seed=3,
        algorithm="gns",
        packets_per_source=30,
    )
    fr = fault_router(topo, "gns", fault_mask(topo, SimConfig(fault_rate=0.2, fault_seed=3)))
    N = topo.n_nodes
    bad_src = [s for s in range(N) if fr.route(s, N - 1 - s)[0] != FS_OK]
    assert bad_src and r.conservation
    # a source with no route loses every packet it creates (its quota included), others none
    assert r.unroutable + r.livelock >= 30 * len(bad_src)
    assert r.delivered >= 30 * (N - len(bad_src))


@pytest.mark.parametrize("alg", ["sp", "gns+xt+gdl"])
@pytest.mark.parametrize("load", [0.1, 0.6])
def test_zero_faults_is_the_fault_free_simulation(alg, load):
    base = simulate(SPEC, load=load, packets_per_source=40, seed=5, algorithm="alg1")
    ft = simulate(SPEC, load=load, packets_per_source=40, seed=5, algorithm=alg, fault_rate=0.0)
    a, b = base.to_dict(), ft.to_dict()
    for key in (
        "config",
        "algorithm",
        "wall_seconds",
        "compile_seconds",
        "fault_rate",
        "ft_algorithm",
        "fault_seed",
        "channel_load_bound",
    ):
        a.pop(key), b.pop(key)
    assert a == b
    assert np.array_equal(base.series, ft.series)
    assert (ft.unroutable, ft.livelock, ft.faulty_links) == (0, 0, 0)
    assert base.fault_rate is None and base.ft_algorithm is None and base.unroutable == 0


@pytest.mark.slow
def test_deadlock_with_one_vc_none_with_escape_classes():
    """The detours' dependency cycles deadlock one VC; the escape classes never do."""
    topo = fattree.build("mikant:k=4,n=3")
    kw = dict(
        load=0.6,
        packets_per_source=60,
        algorithm="gns+xt+gdl",
        fault_rate=0.05,
        deadlock_window=300,
    )
    dead = [simulate(topo, fault_seed=s, **kw).deadlock for s in range(4)]
    assert any(dead)
    for s in range(4):
        r = simulate(topo, fault_seed=s, vcs=4, **kw)
        assert not r.deadlock and r.conservation
        assert r.termination == "papers"


def test_refused_routes_match_the_dependency_graph():
    topo = fattree.build("mikant:k=3,n=3")
    faulty = random_faults(topo, 0.1, 1)
    fr = fault_router(topo, "gns+tt+xt+gdl", faulty)
    one = routes(topo, fr, vcs=1)
    two = routes(topo, fr, vcs=2)
    g = ft_dependency_graph(topo, "gns+tt+xt+gdl", faulty, vcs=2)
    refused = sum(r[0] == FS_UNROUTABLE for r in two.values()) - sum(
        r[0] == FS_UNROUTABLE for r in one.values()
    )
    assert refused == int(g.stats[1]) > 0
    assert max(max(r[2], default=0) for r in two.values()) == 1
    assert max(max(r[2], default=0) for r in one.values()) == 0


def test_curve_shares_the_table_and_bad_parameters():
    df = simulate_loads(
        SPEC, [0.1, 0.2], packets_per_source=10, fault_rate=0.1, algorithm="gns+gdl", fault_seed=2
    )
    assert list(df["ft_algorithm"]) == ["gns+gdl"] * 2 and (df["faulty_links"] > 0).all()
    assert (df["channel_load_bound"] > 0).all() and df["channel_load_bound"].nunique() == 1
    with pytest.raises(ParameterError, match="fault_rate=1.5"):
        SimConfig(fault_rate=1.5)
    with pytest.raises(ParameterError, match="valid.*gns"):
        simulate(SPEC, fault_rate=0.1, algorithm="alg1")
    # issue 11: --fault-rate alone routes with the family's default fault-tolerant
    # algorithm, and every family has one (the papers' detours stay MiKANT's)
    assert simulate(SPEC, fault_rate=0.1, packets_per_source=5).config["ft_algorithm"] == "escape"
    with pytest.raises(ParameterError, match="not defined for family 'kant'; valid: sp"):
        simulate("kant:k=2,n=2", fault_rate=0.1, algorithm="gns")
    with pytest.raises(ParameterError, match="mikant only"):
        simulate("mikantc:k=3,n=3", fault_rate=0.1, algorithm="cube", vcs=2)
    with pytest.raises(ParameterError, match="fault_model='lookahead' is not defined for mikantc"):
        simulate("mikantc:k=3,n=3", fault_rate=0.1, algorithm="cube", fault_model="lookahead")
    with pytest.raises(ParameterError, match="valid.*gns"):
        simulate_reference(SPEC, fault_rate=0.1, algorithm="alg1")


def run(capsys, *args):
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_cli_as_typed(capsys):
    code, out, err = run(
        capsys,
        "simulate",
        SPEC,
        "--fault-rate",
        "0.1",
        "--algorithm",
        "gns+xt+gdl",
        "--loads",
        "0.05:0.15:0.05",
        "-P",
        "20",
        "--fault-seed",
        "3",
        "--vcs",
        "4",
    )
    assert code in (0, None), err
    assert "fault-tolerant routing gns+xt+gdl" in out and "4 VC classes" in out
    assert "unroutable" in out
    code, out, _ = run(
        capsys,
        "simulate",
        SPEC,
        "--fault-rate",
        "0.1",
        "--algorithm",
        "gns",
        "--load",
        "0.1",
        "-P",
        "10",
        "--json",
    )
    import json

    d = json.loads(out)
    assert d["ft_algorithm"] == "gns" and d["faulty_links"] > 0
    assert d["created"] >= d["delivered"] + d["unroutable"] + d["livelock"]


@pytest.mark.parametrize("spec", [SPEC, "mikant:k=4,n=3"])
@pytest.mark.parametrize("traffic", ["uniform", "bitcomp", "hotspot:node=3,fraction=0.2"])
def test_fault_bound_without_faults_is_the_routing_bound(spec, traffic):
    topo = fattree.build(spec)
    fr = fault_router(topo, "gns+xt+gdl", np.zeros(topo.n_links, bool))
    want = channel_load_bound(topo, compile_routing(topo, "alg1"), traffic)
    assert router_load_bound(topo, fr, traffic) == pytest.approx(want, rel=1e-12)
    assert python_bound(topo, fr, traffic) == pytest.approx(want, rel=1e-12)


def test_fault_bound_caps_the_accepted_throughput(capsys):
    kw = dict(fault_rate=0.1, algorithm="gns+xt+gdl", fault_seed=4, packets_per_source=60)
    r = simulate("mikant:k=4,n=3", load=0.9, bound=True, **kw)
    assert r.saturated and 0 < r.accepted_flits <= r.channel_load_bound
    code, out, err = run(
        capsys,
        "simulate",
        "mikant:k=4,n=3",
        "--fault-rate",
        "0.1",
        "--algorithm",
        "gns+xt+gdl",
        "--fault-seed",
        "4",
        "--load",
        "0.2",
        "-P",
        "20",
    )
    assert code in (0, None), err
    assert "routes under these faults (routable pairs)" in " ".join(out.split())


def test_lookahead_routes_more_and_is_recorded(capsys):
    kw = dict(
        load=0.1, fault_rate=0.1, algorithm="gns+tt+xt+gdl", fault_seed=4, packets_per_source=30
    )
    local = simulate("mikant:k=4,n=3", **kw)
    look = simulate("mikant:k=4,n=3", fault_model="lookahead", **kw)
    assert local.faulty_links == look.faulty_links  # the same fault set
    assert look.unroutable < local.unroutable  # lookahead never starts a dead detour
    assert look.config["fault_model"] == "lookahead" and local.config["fault_model"] == "local"
    code, out, err = run(
        capsys,
        "simulate",
        "mikant:k=4,n=3",
        "--fault-rate",
        "0.1",
        "--algorithm",
        "gns+tt+xt+gdl",
        "--fault-seed",
        "4",
        "--fault-model",
        "lookahead",
        "--load",
        "0.1",
        "-P",
        "30",
    )
    assert code in (0, None), err
    assert "(lookahead knowledge)" in out
    ft = fault_tables("mikant:k=4,n=3", SimConfig(**kw))
    with pytest.raises(ParameterError, match="built with fault_model='local'"):
        simulate("mikant:k=4,n=3", fault_table=ft, fault_model="lookahead", **kw)


@pytest.mark.parametrize(
    "args,match",
    [
        (
            ["--fault-rate", "0.1", "--algorithm", "gns", "--fault-model", "oracle"],
            "unknown fault_model 'oracle'.*local, lookahead",
        ),
        (["--fault-rate", "1.5", "--algorithm", "gns"], "fault_rate=1.5"),
        (["--fault-rate", "0.1", "--algorithm", "alg1"], "valid: .*gns\\+gdl"),
        (["--fault-rate", "0.1", "--algorithm", "cube"], "not defined for family 'mikant'"),
    ],
)
def test_cli_bad_input(capsys, args, match):
    code, out, err = run(capsys, "simulate", SPEC, "--load", "0.1", *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    import re

    assert re.search(match, lines[0]), lines[0]


def test_cli_fault_file(capsys, tmp_path):
    topo = fattree.build(SPEC)
    f = tmp_path / "f.txt"
    a, b = topo.links[topo.n_nodes + 3]
    f.write_text(f"# one\n{topo.vertex_label(int(a))} {topo.vertex_label(int(b))}\n")
    code, out, err = run(
        capsys,
        "simulate",
        SPEC,
        "--faults",
        str(f),
        "--algorithm",
        "gns",
        "--load",
        "0.1",
        "-P",
        "10",
        "--json",
    )
    assert code in (0, None), err
    import json

    assert json.loads(out)["faulty_links"] == 1
    f.write_text("s0.0.0 nope\n")
    code, out, err = run(
        capsys, "simulate", SPEC, "--faults", str(f), "--algorithm", "gns", "--load", "0.1"
    )
    assert code == 2 and ":1:" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "spec,alg,vcs,traffic",
    [
        ("mikant:k=3,n=3", "gns+tt+xt+gdl", 1, "uniform"),
        ("mikant:k=3,n=3", "escape", 2, "uniform"),
        ("kant:k=3,n=3", "detour", 1, "uniform"),
        ("kant:k=3,n=3", "updown-table", 2, "uniform"),
        ("clos:k=2,n=3", "shortest-table", 1, "uniform"),
        ("torus:k=4,n=2", "minimal", 1, "uniform"),
        ("mikantc:k=3,n=3", "cube+gns+xt+gdl", 1, "uniform"),
        ("kant:k=4,n=3", "detour", 1, "hotspot:node=5,fraction=0.3"),
        ("clos:k=4,n=2", "updown-table", 1, "bitcomp"),
        ("kant:k=4,n=2", "minimal", 2, "transpose"),
    ],
)
def test_router_bound_equals_the_python_bound(spec, alg, vcs, traffic):
    """The bound walked in numba (nothing stored; once per switch and destination for
    the engines that ignore the source past its switch) is the one summed in Python over
    every pair's route, node links of sources faulty included."""
    topo = fattree.build(spec)
    faulty = random_faults(topo, 0.1, 3)
    assert faulty[: topo.n_nodes].any()  # some sources cut off
    fr = fault_router(topo, alg, faulty, vcs)
    want = python_bound(topo, fr, traffic, vcs=vcs)
    got = router_load_bound(topo, fr, traffic, vcs=vcs)
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.slow
def test_beyond_the_old_pair_table_limit():
    """16,384 nodes: the N^2 table (4,096-node limit) is gone; each switch routes by the
    per-hop kernel, unroutable packets are counted."""
    topo = fattree.build("kant:k=4,n=7")  # 16,384 nodes
    assert topo.n_nodes > 4096
    r = simulate(
        topo, load=0.05, fault_rate=0.01, fault_seed=1, packets_per_source=2, seed=1, vcs=2
    )  # 2 up*/down* layers: deadlock-free (routes needing more: refused)
    assert r.conservation and not r.deadlock and r.ft_algorithm == "detour"
    assert r.delivered > 0 and r.unroutable > 0
    assert r.delivered + r.unroutable + r.livelock <= r.created  # the rest: still queued
    fr = fault_router(topo, "sp", np.zeros(topo.n_links, bool))
    assert sum(a.nbytes for a in fr.fields().values() if hasattr(a, "nbytes")) < 64 * topo.n_links


@pytest.mark.parametrize("algorithm", ["minimal", "adaptive"])
def test_hop_kernels_called_from_python_reuse_the_simulators(algorithm):
    """``fault_port``, ``fault_ports`` and ``fault_class`` called from Python (the deadlock
    diagnosis) pass the simulator's argument types: after a faulted run has compiled or
    loaded the simulator, they compile nothing."""
    from fattree.compiling import watch
    from fattree.sim.faulthop import fault_class, fault_ports

    topo = fattree.build("kant:k=2,n=3")
    simulate(
        topo,
        load=0.1,
        packets_per_source=5,
        seed=1,
        fault_rate=0.1,
        fault_seed=2,
        algorithm=algorithm,
        vcs=2,
    )
    fr = fault_router(topo, algorithm, random_faults(topo, 0.1, 2))
    view, N = fr.view(), topo.n_nodes
    pk = np.zeros((1, PK_COLS), np.int64)
    out = np.zeros(topo.max_ports + 1, np.int64)
    with watch() as w:
        word = fault_port(view, pk, 0, 0, -1, 0, N - 1, 0, 2)
        assert fault_ports(view, word, 0, N - 1, out) >= 1
        fault_class(view, 0, 0, 0, int(out[0]), 1, 2)
    assert w.kernels == []
