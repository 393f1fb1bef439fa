"""MiKANT's generic fault-tolerant rules (``minimal``, ``detour``) on its balanced routing,
beside 001's walks, which follow Algorithm 1 (docs/faults-families.md, "MiKANT")."""

from __future__ import annotations

import numpy as np
import pytest

import fattree
from fattree.cli import main
from fattree.faults.algorithms import FT_ALGORITHMS, resolve_algorithms
from fattree.faults.cdg import algorithms_for_deadlock, ft_deadlock
from fattree.faults.links import random_faults
from fattree.faults.montecarlo import evaluate
from fattree.faults.route import ft_route
from fattree.routing import route
from fattree.sim import simulate
from fattree.sim.engine import fault_tables
from fattree.faults.view import ENG_GENERIC, ENG_WALKS
from fattree.sim.faulthop import router_load_bound
from fattree.sim.config import SimConfig


def test_walked_or_generic():
    fam = "mikant"
    for name in ("sp", "gns", "escape", "gns+tt+xt+gdl"):
        assert FT_ALGORITHMS.get(name).walked_on(fam)
    for name in ("minimal", "detour", "updown-table", "shortest-table"):
        assert not FT_ALGORITHMS.get(name).walked_on(fam)
    assert not FT_ALGORITHMS.get("sp").walked_on("kant")
    # "all" of deadlock stays 001's walks; the generic ones are named
    assert "detour" not in algorithms_for_deadlock("mikant", "all")
    assert [a.name for a in resolve_algorithms("detour,escape", fam)] == ["detour", "escape"]


@pytest.mark.parametrize("alg", ["minimal", "detour"])
def test_without_faults_they_route_as_balanced(alg):
    t = fattree.build("mikant:k=3,n=3")
    ok = np.zeros(t.n_links, bool)
    rng = np.random.default_rng(5)
    for s, d in rng.integers(0, t.n_nodes, (150, 2)):
        if s == d:
            continue
        want = route(t, "balanced", int(s), int(d))
        got = ft_route(t, alg, int(s), int(d), ok)
        assert got.success and got.path == want.path, (s, d)


def test_engines_in_the_simulator():
    cfg = SimConfig(fault_rate=0.05, algorithm="detour", vcs=2)
    assert fault_tables("mikant:k=3,n=3", cfg).engine == ENG_GENERIC
    cfg = SimConfig(fault_rate=0.05, algorithm="escape", vcs=2)
    assert fault_tables("mikant:k=3,n=3", cfg).engine == ENG_WALKS["mikant"]


def test_detour_saturates_well_above_001s_walks():
    """001's walks inherit Algorithm 1's channel loads (a bound near 1/k even without
    faults); detour on balanced keeps the fault-free routing's throughput, minus faults."""
    t = fattree.build("mikant:k=4,n=3")
    kw = dict(load=1.0, termination="window", warmup=100, measure=400, seed=1, fault_rate=0.05)
    kw.update(fault_seed=2, vcs=2)
    esc = simulate(t, algorithm="escape", **kw)
    det = simulate(t, algorithm="detour", **kw)
    assert esc.faulty_links == det.faulty_links > 0
    assert not det.deadlock and not esc.deadlock
    assert det.accepted_flits > 1.4 * esc.accepted_flits
    assert det.unroutable < esc.unroutable
    b_esc = router_load_bound(t, fault_tables(t, SimConfig(algorithm="escape", fault_rate=1e-9)))
    b_det = router_load_bound(t, fault_tables(t, SimConfig(algorithm="detour", fault_rate=1e-9)))
    assert b_det > 2 * b_esc  # Algorithm 1 against balanced, no link faulty


def test_detour_reaches_what_escape_reaches():
    t = fattree.build("mikant:k=4,n=3")
    df = evaluate(t, "escape,detour,minimal,oracle", [0.05, 0.1], 3000, 3).to_frame()
    by = {(r.algorithm, r.rate): r for r in df.itertuples()}
    for rate in (0.05, 0.1):
        assert by[("detour", rate)].success_ratio >= by[("minimal", rate)].success_ratio
        assert by[("detour", rate)].success_ratio >= by[("escape", rate)].success_ratio - 0.01
        assert by[("detour", rate)].success_ratio <= by[("oracle", rate)].success_ratio


def test_deadlock_free_with_two_vc_layers():
    t = fattree.build("mikant:k=3,n=3")
    for i in range(6):
        bad = random_faults(t, 0.05 + 0.03 * i, seed=40 + i)
        r = ft_deadlock(t, "detour", bad, vcs=2)
        assert r.acyclic and r.vc_rule == "updown", (i, r.cycle)


def test_cli(capsys, tmp_path):
    f = tmp_path / "faults.txt"
    f.write_text("s0.0.0.0 s0.1.0.0\ns0.0.0.0 s0.1.0.1\ns1.0.2.2 s1.1.2.2\n")
    code = main(
        [
            "route",
            "mikant:k=3,n=3",
            "n0.0.0.0",
            "n1.2.2.2",
            "--algorithm",
            "detour",
            "--faults",
            str(f),
            "--explain",
        ]
    )
    out = capsys.readouterr().out
    assert code in (0, None)
    assert "misroute 1 of" in out and "balanced's port" in out
    assert "up*/down* turn rule" in " ".join(out.split())
