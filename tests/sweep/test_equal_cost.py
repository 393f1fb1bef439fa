"""The equal-cost study: its TOML loads, the 'cost' kind runs, designs are compared at an
equal node count and at an equal budget, each simulation beside its own bound, fault
tolerance with Wilson intervals, and the verdict says which comparison each sentence uses."""

import pandas as pd
import pytest

from fattree.errors import ParameterError
from fattree.sweep.study import builtin_studies, builtin_study
from fattree.sweep.tasks import TASKS
from fattree.sweep.verdicts import VERDICTS, design_summary


def test_studies_load():
    assert {"equal-cost", "equal-cost-quick"} <= set(builtin_studies())
    for name in ("equal-cost", "equal-cost-quick"):
        pts = list(builtin_study(name).points())
        kinds = {p.kind for p in pts}
        assert {"cost", "simulate", "faults"} <= kinds
        cost = [p.params for p in pts if p.kind == "cost"]
        assert any("ranks" in c for c in cost) and any("budget" in c for c in cost)


def _cost_kind(spec, **extra):
    return TASKS.get("cost").run({"topology": spec, "switch_radix": 8, **extra}, 1)


def test_cost_kind_prices_and_bounds():
    out = _cost_kind("xgft:m=4.4.4,w=1.2.4", algorithm="dmodk")
    assert out["nodes"] == 64 and out["switch_bought"] == 8 and out["routing"] == "dmodk"
    assert out["bound_uniform"] == pytest.approx(out["cut_bound"]) == pytest.approx(0.525)
    assert out["usd"] == pytest.approx(out["usd_per_node"] * 64)
    assert "prices.toml" in out["prices"]


def test_cost_kind_ranks_and_budget():
    out = _cost_kind("mikant:k=4,n=3", ranks=64, channel_loads=False)
    assert out["usd_per_rank"] == pytest.approx(out["usd"] / 64)
    assert out["cut_bound"] == pytest.approx(127 / 160)  # the cross links, not the cut's 0.992
    with pytest.raises(ParameterError, match="ranks=200 is invalid"):
        _cost_kind("mikant:k=4,n=3", ranks=200, channel_loads=False)
    with pytest.raises(ParameterError, match="budget=1,000 is invalid.*costs"):
        _cost_kind("mikant:k=4,n=3", budget=1000.0, channel_loads=False)


def test_quick_budget_designs_are_the_largest_within_the_budget():
    """The equal-budget experiment lists what `fattree design --budget` picks."""
    from fattree.analysis.advisor import within_budget

    pts = builtin_study("equal-cost-quick").points()
    budget = [p.params for p in pts if p.kind == "cost" and "budget" in p.params]
    b = budget[0]["budget"]
    picked = within_budget(b, switch_radix=8, families="kant,xgft-2:1,clos,mikant,kantc,mikantc")
    assert {p["topology"] for p in budget} == {r.spec for r in picked}


def test_quick_equal_node_designs_host_the_ranks():
    from fattree.topology import build

    pts = builtin_study("equal-cost-quick").points()
    for p in pts:
        if p.kind == "cost" and "ranks" in p.params:
            assert build(p.params["topology"]).n_nodes >= p.params["ranks"]
    ranked = [
        p.params for p in pts if p.kind == "simulate" and "ranks=" in str(p.params["traffic"])
    ]
    assert ranked and all(build(r["topology"]).n_nodes > 128 for r in ranked)


def _cost_row(topo, nodes, usd, **kw):
    return dict(
        kind="cost",
        topology=topo,
        nodes=nodes,
        usd=usd,
        watts=nodes * 50.0,
        usd_per_node=usd / nodes,
        cut_bound=1.0,
        bound_uniform=1.0,
        routing="dmodk",
        **kw,
    )


def _sim_rows(topo, traffic, accepted, bounds, nodes):
    return [
        dict(
            kind="simulate",
            topology=topo,
            traffic=traffic,
            load=ld,
            avg_latency=5.0 + ld,
            accepted_flits=a,
            channel_load_bound=b,
            n_nodes=nodes,
            algorithm="dmodk",
            saturated=a < 0.95 * ld,
            carried_bound=None if traffic == "uniform" else min(ld, 0.7),
        )
        for ld, a, b in zip((0.1, 0.5, 1.0), accepted, bounds)
    ]


def _frame():
    rows = [
        _cost_row("kant:k=4,n=3", 64, 64 * 4000.0, ranks=64),
        _cost_row("mikant:k=4,n=3", 128, 128 * 3000.0, ranks=64),
        _cost_row("kant:k=4,n=3", 64, 64 * 4000.0, budget=400000.0),
        _cost_row("mikant:k=4,n=3", 128, 128 * 3000.0, budget=400000.0),
    ]
    rows += _sim_rows("kant:k=4,n=3", "uniform", (0.1, 0.5, 0.8), (1.0,) * 3, 64)
    rows += _sim_rows("mikant:k=4,n=3", "uniform", (0.1, 0.5, 0.7), (0.79,) * 3, 128)
    rows += _sim_rows("kant:k=4,n=3", "randperm", (0.1, 0.49, 0.55), (0.5, 0.6, 0.5), 64)
    rows += _sim_rows("mikant:k=4,n=3", "randperm:ranks=64", (0.1, 0.3, 0.35), (0.4, 0.5, 0.4), 128)
    for topo, s, lo, hi in (
        ("kant:k=4,n=3", 0.990, 0.985, 0.994),
        ("mikant:k=4,n=3", 0.992, 0.987, 0.995),
    ):
        rows.append(
            dict(
                kind="faults",
                topology=topo,
                algorithm="default",
                ft_algorithm="x",
                rate=0.05,
                success_ratio=s,
                ci_low=lo,
                ci_high=hi,
                trials=2000,
                fault_pool="switch-only",
            )
        )
    return pd.DataFrame(rows)


def test_summary_compares_at_equal_nodes_and_equal_budget():
    s = design_summary(_frame())
    eq_n = s[s["comparison"] == "equal node count, N = 64"].set_index("topology")
    eq_b = s[s["comparison"] == "equal budget, US$400,000"].set_index("topology")
    # equal node count: prices per rank used (MiKANT's idle half is paid for)
    assert eq_n.loc["mikant:k=4,n=3", "usd_per_node"] == pytest.approx(128 * 3000 / 64)
    assert eq_n.loc["kant:k=4,n=3", "rank"] == 1  # 4000/0.8 = 5000 < 6000/0.7
    # equal budget: the throughput bought, nodes x simulated saturation
    assert eq_b.loc["mikant:k=4,n=3", "throughput_total"] == pytest.approx(128 * 0.7)
    assert eq_b.loc["mikant:k=4,n=3", "rank"] == 1
    # the best permutation point is shown with the bounds of its own permutation
    assert eq_n.loc["kant:k=4,n=3", "perm_peak"] == 0.55
    assert eq_n.loc["kant:k=4,n=3", "perm_carried"] == 0.7
    assert eq_n.loc["kant:k=4,n=3", "perm_bound"] == 0.5
    assert eq_n.loc["kant:k=4,n=3", "perm_bound_max"] == 0.6


def test_verdict_names_each_comparison_and_overlapping_intervals():
    lines = VERDICTS.get("equal-cost")(_frame())
    assert 1 <= len(lines) <= 5
    assert lines[0].startswith("At equal node count, N = 64")
    assert "4,000 per node for a saturation throughput of 0.8" in lines[0]
    assert lines[1].startswith("At equal budget, US$400,000")
    assert "128 nodes x 0.7 = 89.6 flits/cycle" in lines[1]
    perm = next(line for line in lines if "random permutations" in line)
    assert "no simulation exceeds its own permutation's bound" in perm
    assert "kant:k=4,n=3 accepts the most, 0.55 flits/node/cycle, within 0.7" in perm
    ft = next(line for line in lines if "Wilson" in line)
    assert "no significant difference among mikant:k=4,n=3, kant:k=4,n=3" in ft
    assert "per dollar" not in " ".join(lines)


def test_verdict_separates_intervals_that_do_not_overlap():
    df = _frame()
    df.loc[
        (df["kind"] == "faults") & (df["topology"] == "kant:k=4,n=3"),
        ["success_ratio", "ci_low", "ci_high"],
    ] = (0.95, 0.94, 0.96)
    ft = next(line for line in VERDICTS.get("equal-cost")(df) if "Wilson" in line)
    assert "mikant:k=4,n=3 is significantly the most tolerant" in ft
    assert "significantly lower: kant:k=4,n=3" in ft


def test_faults_kind_resolves_the_family_default():
    out = TASKS.get("faults").run(
        {
            "topology": "kant:k=4,n=3",
            "algorithm": "default",
            "rate": 0.05,
            "trials": 300,
            "fault_pool": "switch-only",
        },
        3,
    )
    assert out["ft_algorithm"] == "detour" and 0.9 < out["success_ratio"] <= 1.0
    assert out["ci_low"] <= out["success_ratio"] <= out["ci_high"]
    out = TASKS.get("faults").run(
        {"topology": "mikant:k=3,n=3", "algorithm": "default", "rate": 0.05, "trials": 300}, 3
    )
    assert out["ft_algorithm"] == "escape"


def test_full_study_has_faults_at_1_and_5_percent():
    pts = list(builtin_study("equal-cost").points())
    ft = [p.params for p in pts if p.kind == "faults"]
    assert {p["rate"] for p in ft} == {0.01, 0.05} and {p["algorithm"] for p in ft} == {
        "default",
        "oracle",
    }
    fsim = [p.params for p in pts if p.kind == "simulate" and "fault_rate" in p.params]
    assert len({p["fault_seed"] for p in fsim}) >= 3  # several fault draws


def test_beyond_own_bound_finds_a_point_above_its_own_permutations_bound():
    from fattree.sweep.verdicts import beyond_own_bound

    df = _frame()
    assert beyond_own_bound(df).empty
    df.loc[len(df)] = dict(
        kind="simulate",
        topology="x",
        traffic="randperm",
        load=0.9,
        accepted_flits=0.9,
        channel_load_bound=0.5,
        carried_bound=0.6,
    )
    assert list(beyond_own_bound(df)["topology"]) == ["x"]


@pytest.mark.slow
def test_simulation_never_beats_its_own_bound():
    """Random permutations: each point's accepted rate stays within the most the routes of
    the very permutation it ran (same seed) can carry at its load; its busiest channel's
    bound 1/γ_max is where saturation starts (past it the average over sources may exceed
    it: sources off the busiest channel keep delivering)."""
    import pandas as pd

    from fattree.sweep.verdicts import beyond_own_bound

    run = TASKS.get("simulate").run
    rows, seen, binding = [], set(), 0
    for seed in (1, 2, 3):
        for spec, traffic in (
            ("xgft:m=4.4.4,w=1.2.4", "randperm"),
            ("mikant:k=2,n=3", "randperm:ranks=10"),
        ):
            for load in (0.6, 1.0):
                cfg = {
                    "topology": spec,
                    "traffic": traffic,
                    "load": load,
                    "packets_per_source": 100,
                }
                out = run(cfg, seed)
                b, c = out["channel_load_bound"], out["carried_bound"]
                assert b is not None and c is not None and c <= load + 1e-12
                if c < load:  # the routes bind: the simulation stays within them
                    binding += 1
                    assert out["accepted_flits"] <= c * 1.05, (spec, seed, load)
                seen.add(round(b, 6))
                rows.append(dict(kind="simulate", **cfg, **out))
    assert beyond_own_bound(pd.DataFrame(rows)).empty
    assert len(seen) > 1 and binding >= 6  # different permutations; the bounds bind


@pytest.mark.slow
def test_quick_study_writes_the_summary_and_verdict_into_the_report(tmp_path):
    from fattree.report.flagship import run_shipped

    # in this process (workers=0): the worker processes' path is tests/sweep/test_engine.py's
    res = run_shipped("equal-cost-quick", tmp_path, workers=0)
    assert not res.summary.failed
    html = res.report.read_text()
    assert html.index('id="summary"') < html.index('class="toc"') < html.index('id="figures"')
    assert "Equal node count, N = 128" in html and "Equal budget, US$400,000" in html
    assert "Verdict" in html and "issue" not in html.lower()
    assert 1 <= sum(n.startswith("At equal") for n in res.notes) <= 2


def test_full_study_budget_designs_and_ranks():
    from fattree.analysis.advisor import within_budget
    from fattree.topology import FAMILIES, resolve

    pts = builtin_study("equal-cost").points()
    budget = [p.params for p in pts if p.kind == "cost" and "budget" in p.params]
    picked = within_budget(
        budget[0]["budget"],
        switch_radix=32,
        families="kant,xgft-2:1,xgft-4:1,clos,mikant,cat,micat,kantc,mikantc",
    )
    assert {p["topology"] for p in budget} == {r.spec for r in picked}
    for p in pts:
        if p.kind == "cost" and "ranks" in p.params:
            fam, values = resolve(p.params["topology"])
            assert FAMILIES.get(fam.name).size(values)[0] >= p.params["ranks"]
