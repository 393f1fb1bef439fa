"""`fattree design | compare | model | plot` as a user types them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fattree.cli import main

FATTREE = Path(sys.executable).with_name("fattree")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_design_json_reproduces_000(capsys):
    code, out, err = run(
        capsys,
        "design",
        "--nodes",
        "524288",
        "--families",
        "mikant",
        "--exact",
        "--max-n",
        "8",
        "--objective",
        "rcp",
        "--json",
    )
    assert code == 0, err
    rows = json.loads(out)
    for key in (
        "family",
        "k",
        "n",
        "nodes",
        "switches",
        "links",
        "radix",
        "diameter",
        "avg_distance",
        "rcp",
    ):
        assert key in rows[0]
    best = rows[0]
    assert (best["family"], best["k"], best["n"], best["nodes"]) == ("mikant", 8, 6, 524288)
    assert round(best["rcp"], 3) == 0.457


def test_design_json_reproduces_004(capsys):
    code, out, _ = run(
        capsys,
        "design",
        "--nodes",
        "5412096",
        "--families",
        "kantc,mikantc",
        "--max-n",
        "7",
        "--objective",
        "rcp",
        "--json",
        "--top",
        "3",
    )
    assert code == 0
    rows = json.loads(out)
    assert (
        len(rows) == 3
        and rows[0]["spec"] == "mikantc:k=6,n=7"
        and round(rows[0]["rcp"], 3) == 0.421
    )


@pytest.mark.slow
def test_design_table_pareto_and_rank(capsys):
    code, out, _ = run(capsys, "design", "--nodes", "100000", "--max-radix", "16", "--pareto")
    assert code == 0 and "Pareto front" in out and "best by cost per unit of throughput" in out
    code, out, _ = run(
        capsys, "design", "--nodes", "100000", "--rank-by", "avg_distance", "--json", "--top", "0"
    )
    rows = json.loads(out)
    dists = [r["avg_distance"] for r in rows if r["avg_distance"] is not None]
    assert dists == sorted(dists) and len(rows) > 20


def test_design_ranks_by_cost_per_throughput_by_default(capsys):
    code, out, err = run(capsys, "design", "--nodes", "64", "--radix", "8", "--json", "--top", "0")
    assert code == 0, err
    rows = json.loads(out)
    per = [r["usd_per_throughput"] for r in rows if r["usd_per_throughput"] is not None]
    assert per == sorted(per) and len(per) > 10
    for r in rows:
        if r["usd_per_throughput"] is not None:
            assert r["usd_per_throughput"] == pytest.approx(
                r["usd_per_node"] / r["throughput_bound"]
            )
    # MiKANT(4,3): the cross links cap any routing at 127/160, below its cut bound 0.992
    mk = next(r for r in rows if r["spec"] == "mikant:k=4,n=3")
    assert mk["throughput_bound"] == pytest.approx(127 / 160)
    code, out, _ = run(
        capsys,
        "design",
        "--nodes",
        "64",
        "--radix",
        "8",
        "--objective",
        "rcp",
        "--json",
        "--top",
        "0",
    )
    rcps = [r["rcp"] for r in json.loads(out)]
    assert rcps == sorted(rcps)


def test_compare_uses_closed_forms(capsys):
    code, out, err = run(
        capsys,
        "compare",
        "mikant:k=8,n=6",
        "kant:k=10,n=6",
        "clos:k=8,n=6",
        "hypercube:d=19,p=1",
        "--json",
    )
    assert code == 0, err
    d = {e["spec"]: e for e in json.loads(out)}
    assert (
        d["mikant:k=8,n=6"]["nodes"] == 524288 and round(d["mikant:k=8,n=6"]["rcp"], 6) == 0.457143
    )
    assert d["hypercube:d=19,p=1"]["rcp"] == pytest.approx(1.0)
    assert d["clos:k=8,n=6"]["printed"]["bisection_width"] == 8**6 // 2
    assert d["clos:k=8,n=6"]["bisection_width"] == 8**6
    code, out, _ = run(capsys, "compare", "micat:k=4,n=7", "cat:k=4,n=7")
    assert code == 0 and "no graph built" in out and "0.422883" in out and "0.467616" in out


def test_compare_is_instant_for_huge_designs(capsys):
    code, out, _ = run(capsys, "compare", "mikant:k=64,n=8", "--json")
    assert code == 0 and json.loads(out)[0]["nodes"] == 2 * 64**8


@pytest.mark.slow
def test_model_commands(capsys):
    code, out, _ = run(
        capsys, "model", "kncube", "--nodes", "4096", "--constraint", "nodesize", "--json"
    )
    assert code == 0
    rows = {(r["k"], r["n"]): r for r in json.loads(out)}
    assert rows[(8, 4)]["W"] == 3 and rows[(8, 4)]["bisection"] == 3072
    code, out, _ = run(
        capsys,
        "model",
        "kncube",
        "--nodes",
        "4096",
        "--constraint",
        "bisection",
        "--wire",
        "linear",
    )
    assert code == 0 and "reproduced" in out
    code, out, _ = run(
        capsys,
        "model",
        "fattree",
        "--nodes",
        "16384",
        "--message-length",
        "150",
        "--node-size",
        "640",
        "--json",
    )
    assert code == 0
    rows = {r["n"]: r for r in json.loads(out)}
    assert round(rows[5]["Tnet"], 2) == 13.26 and rows[7]["W"] == pytest.approx(80)
    code, out, _ = run(capsys, "model", "table", "flat-fattree-4096", "--json")
    d = json.loads(out)
    assert code == 0 and d["rows"][0]["flag"] == "routers" and d["notes"]
    code, out, _ = run(capsys, "model", "table")
    assert code == 0 and "dally-contention-4096" in out


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["plot", "cost-ratios", "--families", "kantc,mikantc", "--baseline", "mikant"],
        ["plot", "rcp", "--family", "mikant", "--n-max", "6", "--mark", "8:6"],
        ["plot", "path-diversity", "--n", "8"],
        [
            "plot",
            "kncube-latency",
            "--nodes",
            "16384",
            "--constraint",
            "bisection",
            "--wire",
            "log",
        ],
    ],
)
def test_plots_write_files(capsys, tmp_path, argv):
    out_file = tmp_path / "f.png"
    code, out, err = run(capsys, *argv, "-o", str(out_file))
    assert code == 0, err
    assert out_file.stat().st_size > 1000 and "wrote" in out


@pytest.mark.parametrize(
    "argv,match",
    [
        (["design", "--nodes", "1"], "nodes=1 is invalid"),
        (["design", "--nodes", "2000000000000"], "nodes=2,000,000,000,000 is invalid"),
        (
            ["design", "--nodes", "1000", "--families", "mikant,torrus"],
            "unknown design family 'torrus'",
        ),
        (["design", "--nodes", "1000000", "--max-radix", "3"], "nothing fits"),
        (["design", "--nodes", "1000", "--rank-by", "price"], "rank_by='price'"),
        (["compare", "mikant:k=1,n=3"], "k=1"),
        (["compare", "foo:k=2"], "unknown closed-form family 'foo'"),
        (["compare", "mikant:k=3,n=3", "--p", "0"], "p=0"),
        (["model", "kncube", "--constraint", "area"], "constraint='area'"),
        (["model", "kncube", "--wire", "cubic"], "wire='cubic'"),
        (["model", "fattree", "--nodes", "3"], "nodes=3"),
        (["model", "table", "nope"], "unknown 002 table 'nope'"),
        (["plot", "rcp", "--family", "torus", "-o", "x.png"], "family='torus' is invalid"),
        (["plot", "rcp", "--mark", "8-6", "-o", "x.png"], "mark='8-6'"),
        (["plot", "cost-ratios", "-o", "x.jpg"], "output='x.jpg' is invalid"),
        (["plot", "cost-ratios", "--baseline", "clos", "-o", "x.png"], "baseline='clos'"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, match):
    code, out, err = run(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and match in lines[0], err


@pytest.mark.slow
def test_subprocess_exit_code():
    if not FATTREE.exists():
        pytest.skip("fattree script not installed in this environment")
    r = subprocess.run([str(FATTREE), "design", "--nodes", "0"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip().startswith("error: nodes=0")
    r = subprocess.run(
        [str(FATTREE), "design", "--nodes", "4096", "--families", "hypercube", "--json"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and json.loads(r.stdout)[0]["spec"] == "hypercube:d=12,p=1"


def test_design_budget_lists_the_largest_design_per_family(capsys):
    code, out, err = run(
        capsys,
        "design",
        "--budget",
        "400000",
        "--radix",
        "8",
        "--families",
        "kant,xgft-2:1,clos,mikant",
        "--json",
    )
    assert code == 0, err
    rows = json.loads(out)
    assert [r["spec"] for r in rows] == [
        "mikant:k=4,n=3",
        "kant:k=4,n=3",
        "clos:k=3,n=3",
        "xgft:m=4.4.4,w=1.2.4",
    ]
    totals = [r["throughput_total"] for r in rows]
    assert totals == sorted(totals, reverse=True)
    assert all(r["cost"] <= 400000 for r in rows)
    code, out, _ = run(capsys, "design", "--budget", "400000", "--radix", "8")
    assert code == 0 and "the largest design of each family within US$400,000" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["design"], "give one of --nodes"),
        (["design", "--nodes", "64", "--budget", "1e5"], "give one of --nodes"),
        (["design", "--budget", "0"], "budget=0.0 is invalid"),
        (["design", "--budget", "nan"], "budget=nan is invalid"),
        (["design", "--budget", "1e5", "--objective", "rcp"], "does not apply with --budget"),
        (["design", "--budget", "10", "--radix", "8"], "costs that little"),
    ],
)
def test_design_budget_bad_input(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and err.count("\n") == 1


def test_within_budget_is_the_largest_that_fits():
    from fattree.analysis.advisor import design, within_budget

    rows = within_budget(400_000, switch_radix=8, families="kant,mikant,clos")
    for r in rows:
        bigger = [
            d
            for d in design(r.nodes + 1, families=r.design, switch_radix=8, metrics=True).rows
            if d.cost is not None
        ]
        assert all(d.cost > 400_000 for d in bigger), r.spec
