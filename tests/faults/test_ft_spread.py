"""Routing quality of the generic fault-tolerant rules on fat trees (issue 11): d-mod-k on
healthy ports, alternatives spread by destination, tables balanced, deadlock-free default
on one VC, and the simulator's own list of algorithms in its errors."""

from __future__ import annotations

import numpy as np
import pytest

import fattree
from fattree.cli import main
from fattree.errors import ParameterError
from fattree.faults.algorithms import FT_ALGORITHMS
from fattree.faults.cdg import ft_deadlock
from fattree.faults.gwalk import GenericRouter
from fattree.faults.mikant import OK
from fattree.faults.links import random_faults
from fattree.faults.rules import context, one_vc_layered
from fattree.faults.view import FS_ADMIT_OK, fault_router
from fattree.sim.faulthop import fault_admit, router_load_bound

SPEC = "kant:k=4,n=3"


@pytest.fixture(scope="module")
def topo():
    return fattree.build(SPEC)


def test_fat_tree_rules_follow_dmodk(topo):
    c = context(topo)
    assert c.routing == "dmodk" and c.candidates == "adaptive" and c.diameter == 6
    fr = fault_router(topo, "minimal", np.zeros(topo.n_links, bool))
    # fault-free: exactly d-mod-k's bound (Algorithm 1's is 0.2625 = 1/k · 64/61)
    assert router_load_bound(topo, fr) == pytest.approx(1.0)


@pytest.mark.parametrize("alg,floor", [("minimal", 0.55), ("updown-table", 0.4)])
def test_surviving_routes_stay_balanced_under_faults(topo, alg, floor):
    """5 % faulty links (10 of 192): the channel-load bound of the surviving routes stays
    far above 1/k (before: minimal 0.28, updown-table 0.09 on these fault sets)."""
    for seed in (1, 2, 3):
        fr = fault_router(topo, alg, random_faults(topo, 0.05, seed))
        assert router_load_bound(topo, fr) > floor


def test_a_dead_up_port_spreads_over_the_healthy_ones(topo):
    """Leaf s0.0.0 loses up port 4, d-mod-k's port for the 16 destinations with port digit
    0 (nodes 0..15): their routes leave through several healthy up ports, not all through
    the next one."""
    leaf = 0
    assert topo.switch_label(leaf) == "s0.0.0"
    mask = np.zeros(topo.n_links, bool)
    mask[topo.link_index[leaf, 4]] = True
    g = GenericRouter(topo, FT_ALGORITHMS.get("minimal"), mask)
    src = int(topo.port_peer[leaf, 1])  # a node of the leaf
    first = {}
    for t in range(topo.n_nodes):
        if topo.node_switch[t] == leaf:
            continue
        st, _, sws, ports, _ = g.route(src, t)
        assert st == OK
        first.setdefault(t < 16, set()).add(int(ports[0]))
    assert len(first[True]) >= 2 and 4 not in first[True]  # spread, the dead port avoided
    assert first[False] == {5, 6, 7}  # the others keep d-mod-k's port


def test_one_vc_default_is_deadlock_free_and_the_simulator_agrees(topo):
    """Fat trees on one VC: routes with a down->up turn are refused, so ``deadlock
    --faults`` proves the default acyclic, and the simulator admits exactly the routes
    the graph keeps."""
    assert one_vc_layered("kant") and one_vc_layered("clos") and not one_vc_layered("torus")
    mask = random_faults(topo, 0.05, 0)
    raw = ft_deadlock(topo, "detour", mask, vc_rule="none")
    assert not raw.acyclic  # unrestricted detours close a channel cycle on one VC
    rep = ft_deadlock(topo, "detour", mask)
    assert rep.acyclic and rep.vc_rule == "updown" and rep.refused > 0
    fr = fault_router(topo, None, mask)
    assert fr.algorithm == "detour" and fr.one_vc_layered
    view = fr.view(fr.ft_ws.copy())
    admitted = sum(
        fault_admit(view, 1, s, t) == FS_ADMIT_OK
        for s in range(topo.n_nodes)
        for t in range(topo.n_nodes)
        if s != t
    )
    assert admitted == rep.delivered - rep.refused


def test_default_curve_does_not_deadlock_on_one_vc():
    """The issue's headline (`simulate kant:k=16,n=3 --fault-rate 0.02`), smaller: the
    default fault-tolerant routing on one VC runs a curve past saturation, no deadlock
    (unrestricted detour deadlocked on this fault set at both loads, accepting 0.003)."""
    df = fattree.simulate_loads(
        "kant:k=4,n=3", [0.3, 0.9], fault_rate=0.05, fault_seed=5, packets_per_source=60
    )
    assert not df["deadlock"].any()
    assert (df["unroutable"] > 0).all() and df["accepted_flits"].iloc[-1] > 0.3


def _err(capsys, *args):
    code = main([str(a) for a in args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    return err[0]


@pytest.mark.parametrize(
    "spec,alg,valid",
    [
        ("kant:k=2,n=2", "gns", "sp, minimal, detour, adaptive, updown-table, shortest-table"),
        ("mikant:k=2,n=3", "alg1", "sp, gns, gdl"),
    ],
)
def test_simulate_lists_what_the_simulator_accepts(capsys, spec, alg, valid):
    line = _err(capsys, "simulate", spec, "--load", "0.1", "--fault-rate", "0.1", "-a", alg)
    listed = line.split("valid: ")[1].split(" (")[0]
    assert listed.startswith(valid) and "oracle" not in listed.split(", "), line
    with pytest.raises(ParameterError) as e:
        fault_router(fattree.build(spec), "oracle", np.zeros(fattree.build(spec).n_links, bool))
    assert "oracle" not in str(e.value).split("valid")[1]


def test_route_explain_says_one_vc_refuses_layer_1(capsys, tmp_path):
    f = tmp_path / "faults.txt"
    f.write_text("s1.3.3 s0.3.3\n")  # the down link of n3.3.3's route: a down-and-up detour
    code = main(["route", SPEC, "n0.0.0", "n3.3.3", "--faults", str(f), "--explain"])
    out = capsys.readouterr().out
    assert code == 0 and "misroute" in out and "on 1 VC a route reaching layer 1 is refused" in out
