"""XGFT(h; m; w): kant equivalence, closed forms against the graph, routing, bad input."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import fattree
from fattree.analysis.closed_forms import closed_forms
from fattree.analysis.properties import formula_checks, properties
from fattree.errors import ParameterError
from fattree.routing import algorithms_for, default_algorithm
from fattree.routing.check import check
from fattree.routing.deadlock import deadlock
from fattree.routing.load import channel_load

ARRAYS = (
    "port_peer",
    "port_peer_port",
    "port_kind",
    "node_switch",
    "node_port",
    "switch_level",
    "node_digits",
    "switch_digits",
)


def _kant_as_xgft(k, n):
    return f"xgft:m={'.'.join([str(k)] * n)},w={'.'.join(['1'] + [str(k)] * (n - 1))}"


@pytest.mark.slow
@pytest.mark.parametrize("k,n", [(2, 2), (2, 4), (3, 3), (4, 3), (5, 2)])
def test_full_xgft_is_kant_array_for_array(k, n):
    a, b = fattree.build(f"kant:k={k},n={n}"), fattree.build(_kant_as_xgft(k, n))
    for f in ARRAYS:
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    pa, pb = properties(a), properties(b)
    for key in (
        "nodes",
        "switches",
        "links",
        "diameter",
        "avg_distance",
        "path_diversity",
        "bisection_width",
        "distance_histogram",
    ):
        assert pa[key] == pb[key], key


@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (4, 3), (4, 2)])
@pytest.mark.parametrize("traffic", ["uniform", "bitcomp", "randperm"])
def test_dmodk_loads_equal_kant(k, n, traffic):
    if traffic == "bitcomp" and k not in (2, 4):
        pytest.skip("bit-complement needs a power-of-two node count")
    a = channel_load(fattree.build(f"kant:k={k},n={n}"), "dmodk", traffic)
    b = channel_load(fattree.build(_kant_as_xgft(k, n)), "dmodk", traffic)
    assert np.allclose(a.gamma, b.gamma) and a.gamma_max == pytest.approx(b.gamma_max)


@pytest.mark.parametrize("alg", ["smodk", "random", "adaptive"])
def test_other_policies_equal_kant(alg):
    a = channel_load(fattree.build("kant:k=3,n=3"), alg)
    b = channel_load(fattree.build(_kant_as_xgft(3, 3)), alg)
    assert np.allclose(a.gamma, b.gamma)


SMALL = [
    "2.2,1.1",
    "2.2,1.2",
    "4.2,1.2",
    "2.4,1.4",
    "4.4,1.2",
    "3.2,1.3",
    "2.2.2,1.2.1",
    "4.4.2,1.2.1",
    "4.2.2,1.2.2",
    "4.4.4,1.1.2",
    "4.4.4,1.2.2",
    "3.4,1.2",
    "6.2,1.3",
    "2.3.2,1.2.3",
    "2.2.2.2,1.2.1.2",
    "3.3.2,1.1.3",
    "4.1.4.3,1.2.1.3",
    "3.3.3,1.2.2",
    "3.2,1.1",
]  # odd N and a cut across levels (10 < 12)


@pytest.mark.parametrize("case", SMALL)
def test_closed_forms_match_the_graph(case):
    m, w = case.split(",")
    t = fattree.build(f"xgft:m={m},w={w}")
    p = properties(t)
    rows = {r["name"]: r for r in formula_checks(p)}
    for key in (
        "nodes",
        "switches",
        "links",
        "radix",
        "diameter",
        "avg_distance",
        "path_diversity",
    ):
        assert rows[key]["agrees"] is True, (key, rows[key])
    # the whole-subtree cut is optimal on every instance tried (ILP)
    assert p["bisection_exact"] and rows["bisection_width"]["agrees"] is True


def test_tapered_counts_by_hand():
    # XGFT(3; 4,4,4; 1,2,2): 16 leaves, 8 middle (16/4*2), 4 roots; links 64+32+16
    f = closed_forms("xgft", {"m": "4.4.4", "w": "1.2.2"})
    assert (f["nodes"].value, f["switches"].value, f["links"].value) == (64, 28, 112)
    assert f["bisection_width"].value == 8 and f["diameter"].value == 6
    t = fattree.build("xgft:m=4.4.4,w=1.2.2")
    assert (t.n_nodes, t.n_switches, t.n_links) == (64, 28, 112)
    assert t.spec == "xgft:m=4.4.4,w=1.2.2"


@pytest.mark.parametrize(
    "spec", ["xgft:m=4.4.4,w=1.2.2", "xgft:m=4.2.3,w=1.3.1", "xgft:m=2.2.2.2,w=1.1.2.2"]
)
def test_routing_delivers_minimally_and_is_deadlock_free(spec):
    t = fattree.build(spec)
    assert default_algorithm("xgft") == "dmodk"
    for alg in ("dmodk", "smodk", "random", "adaptive"):
        assert alg in algorithms_for("xgft")
        rep = check(t, alg)
        assert rep.ok and rep.delivered == t.n_nodes * (t.n_nodes - 1), alg
        assert rep.non_minimal == 0 and rep.hist == rep.bfs_hist, alg
        assert deadlock(t, alg).acyclic, alg


def test_adaptive_counts_every_shortest_path():
    rep = check(fattree.build("xgft:m=4.4.4,w=1.2.2"), "adaptive")
    assert rep.paths_mean == pytest.approx(rep.sp_paths_mean)


def test_tapering_lowers_the_uniform_bound():
    full = channel_load(fattree.build("xgft:m=4.4.4,w=1.4.4"), "dmodk")
    half = channel_load(fattree.build("xgft:m=4.4.4,w=1.2.4"), "dmodk")
    quarter = channel_load(fattree.build("xgft:m=4.4.4,w=1.2.2"), "dmodk")
    assert full.bound == pytest.approx(1.0)
    assert quarter.bound < half.bound < full.bound


@pytest.mark.parametrize(
    "params,needle",
    [
        ({"m": "4.4", "w": "1.2.2"}, "has 2 levels but w=1.2.2 has 3"),
        ({"m": "4.0.4", "w": "1.2.2"}, "entry 0 is out of range"),
        ({"m": "4.4.4", "w": "2.2.2"}, "w_1 must be 1"),
        ({"m": "4.x", "w": "1.2"}, "dot-separated list"),
        ({"m": "1", "w": "1"}, "at least 2"),
        ({"m": "1024.1024.1024.1024", "w": "1.1024.1024.1024"}, "too large"),
    ],
)
def test_bad_parameters(params, needle):
    with pytest.raises(ParameterError, match=needle.replace(".", r"\.")):
        fattree.build("xgft", **params)


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec",
    ["xgft:m=4.4,w=1.2.2", "xgft:m=4.0.4,w=1.2.2", "xgft:m=1024.1024.1024.1024,w=1.1024.1024.1024"],
)
def test_cli_bad_spec_is_one_line(spec):
    r = subprocess.run(
        [sys.executable, "-m", "fattree.cli", "info", spec], capture_output=True, text=True
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1


def test_simulate_through_the_routing_contract(capsys):
    from fattree.cli import main

    code = main(["simulate", "xgft:m=4.4.4,w=1.2.2", "--load", "0.1", "-P", "50", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    import json

    d = json.loads(out)
    text = json.dumps(d)
    assert "dmodk" in text and "xgft:m=4.4.4,w=1.2.2" in text


def test_export_draw_roundtrip(tmp_path):
    from fattree.cli import main

    g = tmp_path / "x.graphml"
    assert main(["export", "xgft:m=4.2.2,w=1.2.2", "-f", "graphml", "-o", str(g)]) == 0
    t = fattree.build(f"graph:file={g}")
    a = fattree.build("xgft:m=4.2.2,w=1.2.2")
    assert (t.n_nodes, t.n_switches, t.n_links) == (a.n_nodes, a.n_switches, a.n_links)
    assert main(["draw", "xgft:m=4.2.2,w=1.2.2", "-o", str(tmp_path / "x.svg")]) == 0
    assert (tmp_path / "x.svg").stat().st_size > 1000


# ---------------------------------------------------------------------- dmodk vs the cut bound
def _cut_bound(m, w):
    """min(1, min_i W_{i+1}(N-1) / (P_i (N-P_i))): uniform traffic over the up links of a
    level-i subtree (docs/families/xgft.md, "Routing")."""
    from math import prod

    N = prod(m)
    P = [prod(m[:i]) for i in range(len(m) + 1)]
    W = [prod(w[:i]) for i in range(len(m) + 1)]
    return min(
        [1.0] + [W[i + 1] * (N - 1) / (P[i] * (N - P[i])) for i in range(1, len(m)) if P[i] < N]
    )


@pytest.mark.parametrize(
    "m,w",
    [
        ((4, 4, 4), (1, 2, 2)),
        ((4, 4, 2), (1, 4, 2)),
        ((3, 3, 3), (1, 3, 1)),
        ((4, 2, 3), (1, 2, 2)),
        ((2, 4, 4), (1, 2, 4)),
        ((4, 3), (1, 2)),
    ],
)
def test_dmodk_reaches_the_cut_bound_when_each_w_divides_the_m_below(m, w):
    from fattree.routing.load import channel_load

    assert all(m[i - 1] % w[i] == 0 for i in range(1, len(m)))
    t = fattree.build(f"xgft:m={'.'.join(map(str, m))},w={'.'.join(map(str, w))}")
    assert channel_load(t, "dmodk").bound == pytest.approx(_cut_bound(m, w), rel=1e-9)


@pytest.mark.parametrize(
    "m,w,bound",
    [((3, 3, 3), (1, 2, 2), 0.4815), ((4, 4, 4), (1, 3, 3), 0.525), ((3, 4), (1, 2), 0.6111)],
)
def test_dmodk_falls_short_when_a_w_does_not_divide_the_m_below(m, w, bound):
    from fattree.routing.load import channel_load

    t = fattree.build(f"xgft:m={'.'.join(map(str, m))},w={'.'.join(map(str, w))}")
    got = channel_load(t, "dmodk").bound
    assert got == pytest.approx(bound, abs=5e-5) and got < _cut_bound(m, w) - 0.01


def test_xgft_has_fault_tolerant_routing_detour_by_default(capsys):
    # docs/families/xgft.md, "Fault-tolerant routing"
    from fattree.cli import main

    assert main(["faults", "xgft:m=4.4,w=1.2", "--list"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "fault-tolerant routing algorithms of xgft (default: detour)" in out
    assert (
        main(["faults", "xgft:m=4.4,w=1.2", "--trials", "50", "--rates", "0.05", "-a", "detour"])
        == 0
    )
    assert "detour" in capsys.readouterr().out
