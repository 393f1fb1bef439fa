"""HTML reports, result plots and paper reproductions, from real (tiny) sweeps."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import pytest

from fattree import __version__
from fattree.errors import ParameterError, UnknownNameError
from fattree.report import plots as P
from fattree.report.html import write_report
from fattree.report.reproduce import REPRODUCTIONS, reproduce
from fattree.sweep.engine import run_study
from fattree.sweep.store import ResultStore
from fattree.sweep.study import parse_study

STUDY = """\
[study]
name = "tiny"
seed = 4

[report]
title = "tiny report"

[[experiment]]
name = "sim"
kind = "simulate"
[experiment.parameters]
topology = ["kant:k=2,n=2", "mikant:k=2,n=2"]
traffic = ["uniform", "bitcomp"]
load = [0.2, 0.5]
packets_per_source = 10

[[experiment]]
name = "props"
kind = "topology"
[experiment.parameters]
topology = ["kant:k=2,n=2", "clos:k=2,n=2"]
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    d = tmp_path_factory.mktemp("res") / "results"
    summary = run_study(parse_study(STUDY), d, workers=0)
    assert summary.done == 10 and not summary.failed
    return d


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.srcs, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        for key in ("src", "href"):
            if key in a:
                self.srcs.append(a[key])

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.slow
def test_report_is_self_contained_and_lists_every_point(results, tmp_path):
    out = write_report(results, tmp_path / "report.html")
    page = out.read_text()
    parser = _Collect()
    parser.feed(page)
    # no external assets: every src is an embedded PNG, no scripts, no style sheets by link
    # (links inside the page, the table of contents, are "#anchor")
    assert parser.srcs and all(s.startswith(("data:image/png;base64,", "#")) for s in parser.srcs)
    assert "script" not in parser.tags and "link" not in parser.tags
    for s in (s for s in parser.srcs if not s.startswith("#")):
        assert base64.b64decode(s.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    text = "".join(parser.text)
    df = ResultStore(results).read()
    for h in df["config_hash"]:
        assert h[:12] in text
    assert "tiny report" in text and f"fattree {__version__}" in text
    assert "packets_per_source = 10" in text  # the study file itself
    # the simulation supports latency (linear and log), throughput, conflicts, received...
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page)
    assert any("latency, log scale" in c for c in captions)
    assert any("accepted throughput" in c for c in captions)
    with pytest.raises(ParameterError, match=".html"):
        write_report(results, tmp_path / "report.pdf")


@pytest.mark.slow
def test_latency_plot_lines_log_axis_and_errors(results):
    df = ResultStore(results).read("kind = 'simulate'")
    fig = P.draw(df, "latency", logy=True)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    labels = sorted(
        line.get_label()
        for line in ax.get_lines()
        if not line.get_label().startswith("_") and line.get_label() != "saturated"
    )
    # issue 13: human legends (the family's name and parameters, the routing used)
    assert labels == [
        "2-ary 2-tree, bitcomp, dmodk",
        "2-ary 2-tree, uniform, dmodk",
        "MiKANT(2,2), bitcomp, balanced",
        "MiKANT(2,2), uniform, balanced",
    ]
    line = ax.get_lines()[0]
    assert list(line.get_xdata()) == [0.2, 0.5]
    fig = P.draw(df, "throughput")
    assert "accepted = offered" in [line.get_label() for line in fig.axes[0].get_lines()]
    topo_rows = ResultStore(results).read("kind = 'topology'")
    with pytest.raises(ParameterError, match=r"no x column \(looked for load\)"):
        P.draw(topo_rows, "latency")
    with pytest.raises(ParameterError, match="no metric column"):
        P.draw(topo_rows.assign(load=0.5), "latency")
    with pytest.raises(UnknownNameError, match="did you mean 'latency'"):
        P.draw(df, "latncy")
    assert set(P.available(df)) >= {"latency", "throughput", "conflicts", "received"}


def test_replicates_are_averaged_with_error_bars():
    import pandas as pd

    df = pd.DataFrame(
        {
            "topology": ["a"] * 4,
            "load": [0.1, 0.1, 0.2, 0.2],
            "avg_latency": [10.0, 12.0, 20.0, 20.0],
        }
    )
    fig = P.draw(df, "latency")
    line = fig.axes[0].get_lines()[0]
    assert list(line.get_ydata()) == [11.0, 20.0]


@pytest.mark.slow
def test_reproduction_table1_matches_graph_except_clos_bisection(tmp_path):
    (res,) = reproduce("000-table1", tmp_path, quick=True)
    assert res.status == "disagree"
    df = res.tables["graph vs printed"]
    wrong = df[~df["agree"]]
    assert set(zip(wrong["network"], wrong["property"])) == {("clos", "bisection")}
    # the graph's Clos bisection is k^n (errata), twice the printed value
    assert (wrong["graph"] == 2 * wrong["printed"]).all()
    assert (tmp_path / "000-table1" / "README.md").read_text().count("What the paper claims") == 1
    assert "000-table1" in (tmp_path / "index.md").read_text()


def test_reproduction_registry():
    assert {
        "000-table1",
        "000-fig9",
        "000-fig10",
        "000-fig11",
        "000-fig12",
        "001-fig8",
        "001-fig9",
    } <= set(REPRODUCTIONS)
    for name, r in REPRODUCTIONS.items():
        assert re.fullmatch(r"00[0-4]-(fig|table)\d+[a-z]?", name), name
        assert r.claim and r.paper[:3] == name[:3]
    with pytest.raises(UnknownNameError, match="did you mean '000-fig9'"):
        reproduce("000-fig99", "/nonexistent")


def test_series_ignore_other_kinds_and_derived_columns(results):
    df = ResultStore(results).read()  # simulations and topology rows together
    fig = P.draw(df, "latency")
    labels = {
        line.get_label()
        for line in fig.axes[0].get_lines()
        if not line.get_label().startswith("_") and line.get_label() != "saturated"
    }
    assert labels == {
        f"{t}, {p}, {a}"
        for t, a in (("2-ary 2-tree", "dmodk"), ("MiKANT(2,2)", "balanced"))
        for p in ("uniform", "bitcomp")
    }
    import pandas as pd

    frame = pd.DataFrame(
        {
            "topology": ["a", "a", "b", "b"],
            "k": [2, 2, 4, 4],
            "traffic": ["u", "v", "u", "v"],
            "load": [0.1] * 4,
        }
    )
    frame.attrs["config_columns"] = ["topology", "traffic", "load", "k"]
    assert P.series_columns(frame, "load") == ["topology", "traffic"]
