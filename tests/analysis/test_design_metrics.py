"""design/compare with the price model, bisection for every family, objectives, tapered XGFTs."""

from __future__ import annotations

import json

import pytest

import fattree
from fattree.analysis.advisor import TAPERED, design
from fattree.analysis.designmetrics import bisection_estimate, uniform_bound
from fattree.analysis.pricing import cost
from fattree.cli import main
from fattree.errors import ParameterError
from fattree.routing.load import channel_load

FAMS = "kant,clos,mikant,cat,micat,kantc,mikantc,xgft-2:1,xgft-4:1"


def test_tapered_xgft_rows_and_their_shape():
    d = design(4096, max_radix=32, levels=3, families=FAMS, metrics=True)
    specs = {r.design: r.spec for r in d.rows}
    assert specs["xgft-2:1"] == "xgft:m=16.16.16,w=1.8.16"
    assert specs["xgft-4:1"] == "xgft:m=16.16.16,w=1.4.16"
    assert all(r.n == 3 and r.radix <= 32 for r in d.rows)
    assert all(r.bisection is not None and r.bisection_label for r in d.rows)
    assert set(TAPERED) <= set(specs)


@pytest.mark.slow
def test_objectives_order_the_rows():
    for obj, col, desc in (
        ("cost", "cost", False),
        ("latency", "avg_distance", False),
        ("throughput", "throughput_bound", True),
        ("rcp", "rcp", False),
    ):
        d = design(4096, max_radix=32, families=FAMS, objective=obj)
        vals = [getattr(r, col) for r in d.rows if getattr(r, col) is not None]
        assert vals == sorted(vals, reverse=desc), obj


def test_radix_nobody_reaches_names_the_smallest():
    with pytest.raises(
        ParameterError,
        match=r"nothing fits.*3 levels; the smallest radix that fits is 10 "
        r"\(micat:k=5,n=3\)",
    ):
        design(4096, max_radix=8, levels=3, families=FAMS)


@pytest.mark.slow
def test_cut_bound_of_a_tapered_tree_is_dmodk_bound():
    for spec in ("xgft:m=4.4.4,w=1.2.4", "xgft:m=4.4.4,w=1.2.2", "xgft:m=8.8,w=1.2"):
        t = fattree.build(spec)
        w, _ = bisection_estimate(spec)
        b = uniform_bound(t.n_nodes, w, "xgft", dict(t.params))
        assert b == pytest.approx(channel_load(t, "dmodk").bound, rel=1e-9), spec


def test_bisection_for_every_family_exact_or_labelled_bound():
    w, label = bisection_estimate("mikant:k=3,n=3")  # odd k: no closed form
    assert label.startswith("upper bound (graph") and w > 0
    w, label = bisection_estimate("mikant:k=4,n=3")
    assert label.startswith("exact (closed form") and w == 4**3 // 2  # 000 Theorem 7
    w, label = bisection_estimate("cat:k=4,n=7")  # 245,760 nodes: trivial N/2
    assert label.startswith("upper bound (trivial") and w == 15 * 4**7 // 2


def test_design_and_cost_price_the_same_bill():
    d = design(4096, max_radix=32, levels=3, families="kant,xgft-2:1", metrics=True)
    for r in d.rows:
        c = cost(r.spec, use_graph=False)
        assert r.cost == pytest.approx(c.total) and r.watts == pytest.approx(c.watts)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_cli_design_radix_levels_objective(capsys):
    code, out, err = run(
        capsys,
        "design",
        "--nodes",
        "4096",
        "--radix",
        "32",
        "--levels",
        "3",
        "--objective",
        "cost",
        "--json",
        "--top",
        "0",
    )
    assert code == 0, err
    rows = json.loads(out)
    assert rows[0]["spec"] == "xgft:m=16.16.16,w=1.4.16"
    assert all(x["bisection"] is not None for x in rows)
    code, out, err = run(capsys, "design", "--nodes", "4096", "--radix", "8", "--levels", "3")
    assert (
        code == 2 and "smallest radix that fits is 10" in err and len(err.strip().splitlines()) == 1
    )
    code, out, err = run(capsys, "design", "--nodes", "4096", "--objective", "speed")
    assert code == 2 and "objective='speed'" in err


def test_cli_compare_labels_the_two_rcps_and_shows_bisection(capsys):
    code, out, err = run(
        capsys, "compare", "mikant:k=13,n=3", "kant:k=16,n=3", "--nodes", "4096", "--json"
    )
    assert code == 0, err
    d = {e["spec"]: e for e in json.loads(out)}
    m = d["mikant:k=13,n=3"]
    assert round(m["rcp"], 4) == 0.8444 and round(m["rcp_at_n"], 4) == 0.8571  # issue 13's pair
    assert m["bisection_width"] > 0 and m["bisection_note"].startswith("upper bound")
    assert d["kant:k=16,n=3"]["cost"] == pytest.approx(cost("kant:k=16,n=3", use_graph=False).total)


@pytest.mark.parametrize("k, n", [(2, 2), (3, 2), (4, 2), (2, 3), (3, 3)])
def test_mikant_cross_link_cap_is_reached_by_the_balanced_routing(k, n):
    """MiKANT's cap (its cross links, any routing) equals the exact channel-load bound of
    its balanced routing under uniform traffic, and is below the cut bound for k >= 3."""
    from fattree import build
    from fattree.analysis.designmetrics import uniform_bound
    from fattree.routing.load import channel_load
    from fattree.topology.families.mikant import uniform_cap

    topo = build(f"mikant:k={k},n={n}")
    cap = uniform_cap({"k": k, "n": n})
    assert channel_load(topo, "balanced").bound == pytest.approx(cap)
    N = topo.n_nodes
    b = uniform_bound(N, k**n // 2 if k % 2 == 0 else k**n // 2, "mikant", {"k": k, "n": n})
    assert b == pytest.approx(min(cap, 1.0, 4 * (k**n // 2) * (N - 1) / N**2))
