"""Monte Carlo of fault-tolerant routing: oracle against a reference, determinism, ordering."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import networkx as nx
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.faults import ft_route
from fattree.faults.montecarlo import draw_trial, evaluate, parse_rates, wilson


@pytest.fixture(scope="module")
def m33():
    return fattree.build("mikant:k=3,n=3")


def test_fault_counts_follow_001(m33):
    st = evaluate(m33, "sp", [0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0], 50, seed=1)
    # spec §5: f = round-half-up(135 r) = 0, 7, 14, 27, 41, 68, 95, 135
    assert [r["faulty_links"] for r in st.rows] == [0, 7, 14, 27, 41, 68, 95, 135]
    st = evaluate(m33, "sp", [0.1], 50, seed=1, switch_only=True)
    assert st.rows[0]["faulty_links"] == 8  # round(81 × 0.1)


def test_trials_reproduce_single_routes_and_oracle(m33):
    """Re-draw trials in Python; the kernel's outcomes equal ft_route and a networkx BFS."""
    g = m33.to_networkx()
    labels = m33.vertex_labels()
    rate = 0.2
    st = evaluate(m33, "gns+xt+gdl,oracle", [rate], 60, seed=11)
    succ = 0
    osucc = 0
    for tr in range(60):
        mask, s, t = draw_trial(m33, 11, 0, tr, rate)
        assert mask.sum() == 27 and s != t
        r = ft_route(m33, "gns+xt+gdl", s, t, mask)
        succ += r.success
        h = g.copy()
        h.remove_edges_from((labels[a], labels[b]) for a, b in m33.links[mask])
        osucc += nx.has_path(h, labels[s], labels[t])
    assert st.rows[0]["successes"] == succ
    assert st.rows[1]["successes"] == osucc


@pytest.mark.parametrize("model", ["local", "lookahead"])
def test_every_walk_reproduces_single_routes(m33, model):
    """The Monte Carlo loop walks Algorithm 1 once and reuses a healthy route for every
    detour algorithm: each algorithm's successes and lengths still equal ft_route's."""
    algs = ["sp", "gns", "gdl", "tt+gdl", "gns+tt+xt+gdl+upalt", "gns+tt+xt+gdl+root", "escape"]
    rates = [0.05, 0.2]
    st = evaluate(m33, algs, rates, 80, seed=3, models=(model,))
    for ri, rate in enumerate(rates):
        for alg in algs:
            ok = length = 0
            for tr in range(80):
                mask, s, t = draw_trial(m33, 3, ri, tr, rate)
                r = ft_route(m33, alg, s, t, mask, model=model)
                ok += r.success
                length += r.hops if r.success else 0
            (row,) = [x for x in st.rows if x["algorithm"] == alg and x["rate"] == rate]
            assert row["successes"] == ok > 0
            assert row["avg_path_length"] == pytest.approx(length / ok)


def test_oracle_length_is_bfs(m33):
    g = m33.to_networkx()
    labels = m33.vertex_labels()
    total = 0
    n_ok = 0
    for tr in range(40):
        mask, s, t = draw_trial(m33, 5, 0, tr, 0.3)
        h = g.copy()
        h.remove_edges_from((labels[a], labels[b]) for a, b in m33.links[mask])
        if nx.has_path(h, labels[s], labels[t]):
            total += nx.shortest_path_length(h, labels[s], labels[t])
            n_ok += 1
    st = evaluate(m33, "oracle", [0.3], 40, seed=5)
    assert st.rows[0]["successes"] == n_ok
    assert st.rows[0]["avg_path_length"] == pytest.approx(total / n_ok)


def test_fault_free_length_is_271_over_53(m33):
    st = evaluate(m33, "sp,oracle", [0.0], 20000, seed=2)
    for r in st.rows:
        assert r["success_ratio"] == 1.0
        assert r["avg_path_length"] == pytest.approx(271 / 53, abs=0.03)


def test_ordering_and_oracle_bound(m33):
    st = evaluate(m33, "all", [0.1, 0.3], 4000, seed=9)
    by = {(r["algorithm"], r["rate"]): r for r in st.rows}
    for rate in (0.1, 0.3):
        o = by[("oracle", rate)]["success_ratio"]
        for (alg, r_), row in by.items():
            if r_ == rate:
                assert row["success_ratio"] <= o + 1e-12, alg
                if alg != "oracle" and row["successes"]:
                    assert row["avg_excess_over_oracle"] >= 0
        # 001: SP < single algorithms < combinations
        assert by[("sp", rate)]["success_ratio"] < by[("gns", rate)]["success_ratio"]
        assert by[("gns", rate)]["success_ratio"] < by[("gns+xt+gdl", rate)]["success_ratio"]
        # our local algorithm closes most of the gap the papers' best leaves open
        papers = max(
            by[(a, rate)]["success_ratio"]
            for a in ("gns+xt+gdl", "gns+tt+xt+gdl", "tt+gdl", "gns+tt+gdl")
        )
        assert by[("escape", rate)]["success_ratio"] > papers + 0.05


@pytest.mark.slow
def test_same_seed_same_result_any_thread_count(m33, tmp_path):
    code = (
        "import json,fattree;from fattree.faults.montecarlo import evaluate;"
        "st=evaluate(fattree.build('mikant:k=3,n=3'),'all',[0.1,0.4],1500,seed=4);"
        "print(json.dumps(st.rows))"
    )
    outs = []
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads)
        res = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.append(json.loads(res.stdout))
    assert outs[0] == outs[1]
    other = evaluate(m33, "all", [0.1, 0.4], 1500, seed=5).rows
    assert [r["successes"] for r in other] != [r["successes"] for r in outs[0]]


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


@pytest.mark.parametrize(
    "text,expected", [("0:1:0.25", [0, 0.25, 0.5, 0.75, 1.0]), ("0,0.05", [0, 0.05])]
)
def test_parse_rates(text, expected):
    assert parse_rates(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    "text,fragment",
    [("0:1:0", "the step must be > 0"), ("0:1:-0.1", "the step must be > 0"), ("0..1", "START")],
)
def test_parse_rates_refusals_name_the_fault(text, fragment):
    with pytest.raises(ParameterError, match=fragment):
        parse_rates(text)


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        (dict(rates=[1.5]), "rate=1.5"),
        (dict(trials=0), "trials=0"),
        (dict(algorithms="nope"), "unknown fault-tolerant"),
        (dict(models=("psychic",)), "model="),
    ],
)
def test_bad_input(m33, kwargs, fragment):
    args = dict(algorithms="sp", rates=[0.1], trials=10)
    args.update(kwargs)
    with pytest.raises(ParameterError, match=fragment):
        evaluate(m33, **args)


def test_not_defined_for_family():
    # issue 11: every family has fault-tolerant routing; the papers' detours stay MiKANT's
    with pytest.raises(ParameterError, match="not defined for family 'kant'; valid: sp, minimal"):
        evaluate(fattree.build("kant:k=2,n=3"), "gns", [0.1], 10)
