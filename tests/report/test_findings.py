"""Issue 13: the report leads with its findings and a table of contents; legends, titles,
markers and the y = x reference are readable."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from fattree.report import plots as P
from fattree.report.findings import design_table, fault_table, findings
from fattree.report.html import render
from fattree.report.labels import fmt_number, topology_name


def _sim_frame():
    rows = []
    for spec, alg, base in (("mikant:k=2,n=3", "alg1", 5.0), ("clos:k=2,n=3", "alg1", 6.0)):
        for load, sat in ((0.1, False), (0.5, False), (0.9, True)):
            rows.append(
                {
                    "kind": "simulate",
                    "topology": spec,
                    "family": spec.split(":")[0],
                    "algorithm": alg,
                    "traffic": "uniform",
                    "load": load,
                    "avg_latency": base + 100 * load**4 * (50 if sat else 1),
                    "accepted_flits": min(load, 0.4 if "mikant" in spec else 0.45),
                    "saturated": sat,
                    "config_hash": f"{spec}{load}",
                }
            )
    df = pd.DataFrame(rows)
    df.attrs["config_columns"] = ["kind", "topology", "family", "algorithm", "traffic", "load"]
    return df


@pytest.mark.parametrize(
    "spec,name",
    [
        ("mikant:k=4,n=5", "MiKANT(4,5)"),
        ("kant:k=4,n=3", "4-ary 3-tree"),
        ("mikantc:k=3,n=3", "MiKANTC(3,3)"),
        ("torus:k=4,n=2,p=1", "4-ary 2-cube"),
        ("graph:file=x.graphml", "graph x.graphml"),
    ],
)
def test_topology_names(spec, name):
    assert topology_name(spec) == name


def test_numbers_have_sensible_digits():
    assert [fmt_number(x) for x in (0.0627451, 2.0, 123456.7, 1e-5)] == [
        "0.06275",
        "2",
        "123,457",
        "1e-05",
    ]


def test_design_table_and_sentences():
    df = _sim_frame()
    d = design_table(df)
    assert list(d["design"]) == ["Clos(2,3)", "MiKANT(2,3)"]
    assert list(d["first saturated load"]) == ["0.9", "0.9"]
    assert list(d["peak accepted (flits/node/cycle)"]) == ["0.45", "0.4"]
    f = findings(df)
    assert any(p.startswith("uniform: Clos(2,3) (alg1) accepts the most, 0.45") for p in f.points)
    # the routing bound beside the best known one (exact channel loads)
    assert any(
        "MiKANT(2,3) under uniform: alg1 bounds throughput at 0.536" in p
        and "balanced would reach 0.938" in p
        for p in f.points
    )


def test_fault_table_sorted_by_success():
    df = pd.DataFrame(
        {
            "kind": "faults",
            "topology": "mikant:k=3,n=3",
            "algorithm": ["sp", "sp", "gns", "gns"],
            "rate": [0.0, 0.5] * 2,
            "success_ratio": [1.0, 0.1, 1.0, 0.3],
        }
    )
    t = fault_table(df)
    assert list(t["algorithm"]) == ["gns", "sp"]
    assert list(t["success at 50 % faults"]) == ["0.3", "0.1"]


@pytest.mark.slow
def test_report_opens_with_findings_and_contents():
    df = _sim_frame()
    page = render(df, title="t")
    h2 = re.findall(r"<h2 id=\"([^\"]+)\"", page)
    assert h2[:3] == ["summary", "figures", "findings"]
    assert page.index('<nav class="toc">') < page.index('<h2 id="figures">')
    assert page.index('id="summary"') < page.index('<nav class="toc">')
    assert "ranked by saturation throughput" in page
    for anchor in re.findall(r'<a href="#([^"]+)"', page):
        assert f'id="{anchor}"' in page, anchor
    assert "Designs (simulated)" in page and "family=" not in page


def test_markers_styles_saturation_and_titles():
    df = _sim_frame()
    fig = P.draw(df, "latency")
    ax = fig.axes[0]
    named = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    curves = [ln for ln in named if not ln.get_label().startswith("saturated")]
    assert [ln.get_label() for ln in curves] == ["Clos(2,3), alg1", "MiKANT(2,3), alg1"]
    assert curves[0].get_marker() != curves[1].get_marker()
    assert curves[0].get_linestyle() != curves[1].get_linestyle()
    assert all(ln.get_markerfacecolor() == "none" for ln in curves)  # overlaps stay visible
    assert "saturated, above the axis" in [ln.get_label() for ln in named]
    assert list(curves[0].get_xdata()) == [0.1, 0.5]  # the saturated point is marked apart
    assert ax.get_ylim()[1] < 100 * 0.9**4 * 50  # cut off on the linear axis
    assert "MiKANT(2,3)" in ax.get_title() and "Clos(2,3)" in ax.get_title()


def test_identity_is_a_diagonal_on_log_axes():
    df = _sim_frame()
    ax = P.draw(df, "throughput", logy=True).axes[0]
    ref = [ln for ln in ax.get_lines() if ln.get_label().startswith("accepted = offered")][0]
    xs, ys = np.asarray(ref.get_xdata()), np.asarray(ref.get_ydata())
    assert len(xs) > 50 and np.allclose(xs, ys) and ax.get_yscale() == "log"


@pytest.mark.slow
def test_fault_figure_names_the_topology_and_styles_differ(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    from fattree.report.fault_plots import plot_fault_study

    frame = pd.DataFrame(
        {
            "algorithm": ["sp"] * 2 + ["gns"] * 2,
            "model": "local",
            "rate": [0.0, 0.1] * 2,
            "success_ratio": [1.0, 0.5] * 2,
            "ci_low": [1.0, 0.4] * 2,
            "ci_high": [1.0, 0.6] * 2,
            "avg_path_length": [5.0, 5.2] * 2,
        }
    )
    seen = {}
    real_close = plt.close

    def keep(fig):
        seen["fig"] = fig
        real_close(fig)

    monkeypatch.setattr(plt, "close", keep)
    plot_fault_study(frame, tmp_path / "f.png", title="mikant:k=3,n=3, 10 trials per rate")
    fig = seen["fig"]
    assert fig._suptitle.get_text() == "MiKANT(3,3), 10 trials per rate"
    lines = fig.axes[0].get_lines()
    assert lines[0].get_marker() != lines[1].get_marker()  # identical curves stay visible
    assert lines[0].get_linestyle() != lines[1].get_linestyle()


def test_figures_split_to_at_most_six_series_with_the_legend_off_the_data():
    specs = [f"kant:k={k},n=2" for k in range(2, 6)] + [f"clos:k={k},n=2" for k in range(2, 6)]
    df = pd.DataFrame(
        [
            {"topology": t, "traffic": tr, "load": ld, "avg_latency": 5.0 + ld}
            for t in specs
            for tr in ("uniform", "randperm")
            for ld in (0.1, 0.5)
        ]
    )
    df.attrs["config_columns"] = ["topology", "traffic", "load"]
    parts = P.split_series(df, "latency")
    assert len(parts) >= 4  # 16 series: by traffic, then by family
    for part, what in parts:
        ax = P.draw(part, "latency").axes[0]
        labels = [ln.get_label() for ln in ax.get_lines() if not ln.get_label().startswith("_")]
        assert 1 <= len(labels) <= P.MAX_SERIES and what
        bbox = ax.get_legend().get_bbox_to_anchor().transformed(ax.transAxes.inverted())
        assert bbox.x0 >= 1.0  # the legend sits right of the axes, not on the curves
    fams = {part["topology"].str.split(":").str[0].nunique() for part, _ in parts}
    assert fams == {1}  # a figure holds one family's designs


def test_oracle_knowledge_is_global_and_gain_column_dropped():
    from fattree.report.findings import knowledge

    assert knowledge("oracle", "local") == "global" and knowledge("gns", "local") == "local"
    df = pd.DataFrame(
        {
            "kind": "faults",
            "topology": "mikant:k=3,n=3",
            "algorithm": ["gns", "oracle"],
            "model": "local",
            "rate": 0.05,
            "success_ratio": [0.9, 0.99],
            "ci_low": [0.88, 0.98],
            "ci_high": [0.92, 0.995],
        }
    )
    t = fault_table(df).set_index("algorithm")
    assert t.loc["oracle", "knowledge"] == "global" and t.loc["gns", "knowledge"] == "local"
    assert t.loc["gns", "success at 5 % faults (95 % CI)"] == "0.9 [0.88, 0.92]"


def test_routing_bounds_are_kept_and_read_back(tmp_path, monkeypatch):
    """A report drawn again reads each routing bound from the version's folder instead of
    computing the exact channel loads again; a damaged file is computed again."""
    import fattree
    import fattree.routing.load as load
    from fattree.report.findings import kept_bound

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    t = fattree.build("kant:k=2,n=3")
    exact = float(load.channel_load(t, "dmodk", "bitcomp").bound)
    assert kept_bound(t, "dmodk", "bitcomp") == exact
    (kept,) = (tmp_path / "channel-loads").rglob("*.json")

    def refuse(*args, **kwargs):
        raise AssertionError("computed again")

    monkeypatch.setattr(load, "channel_load", refuse)
    assert kept_bound(t, "dmodk", "bitcomp") == exact
    kept.write_text("{damaged")
    monkeypatch.undo()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert kept_bound(t, "dmodk", "bitcomp") == exact
    assert kept.read_text() == f'{{"bound": {exact!r}}}'
