"""The equal-cost study: its TOML loads, the 'cost' kind runs, the verdict reads the results."""

from __future__ import annotations

import pandas as pd
import pytest

from fattree.sweep.study import builtin_studies, builtin_study
from fattree.sweep.tasks import TASKS
from fattree.sweep.verdicts import VERDICTS


def test_studies_ship_and_validate():
    assert {"equal-cost", "equal-cost-quick"} <= set(builtin_studies())
    full = builtin_study("equal-cost")
    tops = {p.params["topology"] for p in full.points()}
    assert {
        "kant:k=16,n=3",
        "xgft:m=16.16.16,w=1.8.16",
        "xgft:m=16.16.16,w=1.4.16",
        "mikant:k=13,n=3",
        "kant:k=16,n=4",
    } <= tops


def test_cost_kind_records_bill_bounds_and_prices():
    out = TASKS.get("cost").run(
        {"topology": "xgft:m=4.4.4,w=1.2.4", "algorithm": "dmodk", "switch_radix": 8}, 0
    )
    assert out["nodes"] == 64 and out["switch_bought"] == 8 and out["routing"] == "dmodk"
    assert out["bound_uniform"] == pytest.approx(out["cut_bound"]) == pytest.approx(0.525)
    assert out["usd"] == pytest.approx(out["usd_per_node"] * 64)
    assert "prices.toml" in out["prices"]


def test_verdict_compares_at_equal_cost():
    rows = []
    for topo, usd, bound, nodes in (
        ("mikant:k=4,n=3", 2000 * 128, 0.5, 128),
        ("xgft:m=4.4.4,w=1.2.4", 2000 * 64, 0.5, 64),
    ):
        rows.append(
            dict(
                kind="cost",
                experiment="cost",
                topology=topo,
                usd=usd,
                nodes=nodes,
                usd_per_node=usd / nodes,
                watts_per_node=50.0,
                switches=10,
                links=20,
                avg_distance=5.0,
                bisection=8,
                bisection_label="exact",
                cut_bound=bound,
                routing="dmodk",
                bound_uniform=bound,
                bound_randperm=0.3,
                bound_bitcomp=None,
            )
        )
    lines = VERDICTS.get("equal-cost")(pd.DataFrame(rows))
    text = "\n".join(lines)
    assert "costs 0% less per node than the 2:1 tapered xgft:m=4.4.4,w=1.2.4" in text
    assert "at equal cost it delivers 1.00x" in text


@pytest.mark.slow
def test_quick_study_writes_the_verdict_into_the_report(tmp_path):
    from fattree.report.flagship import run_shipped

    res = run_shipped("equal-cost-quick", tmp_path, workers=1)
    assert not res.summary.failed
    html = res.report.read_text()
    assert "verdict (N = " in html and "per dollar" in html
    assert any(n.startswith("verdict") for n in res.notes)


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
    out = TASKS.get("faults").run(
        {"topology": "mikant:k=3,n=3", "algorithm": "default", "rate": 0.05, "trials": 300}, 3
    )
    assert out["ft_algorithm"] == "escape"


def test_full_study_has_faults_at_1_and_5_percent_and_radix_8():
    pts = list(builtin_study("equal-cost").points())
    ft = [p.params for p in pts if p.params.get("rate") is not None]
    assert {p["rate"] for p in ft} == {0.01, 0.05} and {p["algorithm"] for p in ft} == {
        "default",
        "oracle",
    }
    assert any(p.params.get("switch_radix") == 8 for p in pts)


def test_verdict_ranks_designs_by_fault_success():
    rows = [
        dict(
            kind="faults",
            topology=t,
            algorithm=a,
            ft_algorithm=f,
            rate=r,
            success_ratio=s,
            trials=100,
            fault_pool="switch-only",
        )
        for t, a, f, r, s in (
            ("kant:k=4,n=3", "default", "detour", 0.05, 0.9),
            ("kant:k=4,n=3", "oracle", "oracle", 0.05, 0.95),
            ("mikant:k=4,n=3", "default", "escape", 0.05, 0.97),
        )
    ]
    rows.append(
        dict(
            kind="cost",
            topology="kant:k=4,n=3",
            usd=1e5,
            nodes=64,
            usd_per_node=1e5 / 64,
            watts_per_node=50.0,
            switches=48,
            links=192,
            avg_distance=5.4,
            bisection=32,
            bisection_label="exact",
            cut_bound=1.0,
            routing="dmodk",
            bound_uniform=1.0,
            bound_randperm=0.3,
            bound_bitcomp=None,
            switch_radix=8,
        )
    )
    text = "\n".join(VERDICTS.get("equal-cost")(pd.DataFrame(rows)))
    assert "kant:k=4,n=3: detour 0.9; oracle 0.95" in text
    assert "mikant:k=4,n=3 0.9700, kant:k=4,n=3 0.9000" in text
