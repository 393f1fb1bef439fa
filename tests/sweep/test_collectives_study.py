"""The collectives study: its studies load on the equal-cost designs, the 'workload' kind
runs at flow level, `fattree study collectives` runs end to end (a reduced copy of the
study: two designs, two collectives, two sizes), writes its completion-time figure and
findings, resumes, and refuses bad input in one line."""

from __future__ import annotations

import re

import pytest

import fattree.report.flagship as flagship
import fattree.sweep.study as study_mod
from fattree.cli import main
from fattree.errors import ParameterError
from fattree.sweep.levels import LEVELS, check_level
from fattree.sweep.study import builtin_study, parse_study
from fattree.sweep.tasks import TASKS
from fattree.sweep.verdicts import VERDICTS

SMALL = """
[study]
name = "collectives"
seed = 25
description = "reduced collectives study for the tests"

[report]
title = "collectives (test)"
plots = ["completion"]

[[experiment]]
name = "collectives"
kind = "workload"
[experiment.parameters]
topology = ["mikant:k=3,n=2", "kant:k=3,n=2"]
collective = ["allreduce:algorithm=ring", "alltoall:algorithm=pairwise"]
size = ["64KiB", "1MiB"]
fault_rate = [0.0, 0.05]
"""


def _topologies(name, kind):
    return {p.params["topology"] for p in builtin_study(name).points() if p.kind == kind}


def test_studies_use_the_equal_cost_designs():
    quick = _topologies("collectives", "workload")
    assert quick <= _topologies("equal-cost-quick", "cost")
    full = _topologies("collectives-full", "workload")
    # MiKANT, the k-ary n-tree and the 2:1 tapered tree of the question
    assert full == {"mikant:k=13,n=3", "kant:k=16,n=3", "xgft:m=16.16.16,w=1.8.16"}
    assert full <= _topologies("equal-cost", "cost")
    for name in ("collectives", "collectives-full"):
        pts = builtin_study(name).points()
        assert {p.params["fault_rate"] for p in pts} == {0.0, 0.01}
        assert {p.params["level"] for p in pts} == {"flow"}
    full_pts = builtin_study("collectives-full").points()
    assert any(
        p.params["size"] == "1MiB" and p.params["collective"].startswith("allreduce")
        for p in full_pts
    )
    assert all("ranks=4096" in p.params["collective"] for p in full_pts)


def test_workload_kind_runs_at_flow_level():
    out = TASKS.get("workload").run(
        {
            "topology": "kant:k=2,n=2",
            "collective": "allreduce:algorithm=ring",
            "size": "4KiB",
            "level": "flow",
            "link_rate": "8Gb/s",
            "hop_latency": "0ns",
            "flit_size": "1B",
        },
        0,
    )
    # flow()'s own docstring example: 6 steps of 1 KiB at 1 GB/s, 4 hops of 1 ns at most
    assert out["time_s"] == pytest.approx(6.168e-6)
    assert out["complete"] and out["undelivered"] == 0 and out["collective_algorithm"] == "ring"


@pytest.mark.parametrize(
    "param, value, why",
    [
        ("collective", "allreduce:algorithm=nope", "algorithm='nope' is invalid"),
        ("collective", "gossip", "unknown collective 'gossip'"),
        ("collective", "allreduce:size=1MiB", "give the size in the 'size' parameter"),
        ("size", "12", "size"),
        ("level", "bogus", "level='bogus' is invalid: valid levels: flow"),
        ("fault_rate", 1.5, "fault_rate=1.5 is invalid"),
    ],
)
def test_bad_parameters_are_refused_by_the_kind(param, value, why):
    with pytest.raises(ParameterError, match=re.escape(why)):
        TASKS.get("workload").param(param).convert(value)


def test_level_registry_names_the_valid_levels():
    assert "flow" in LEVELS and "packet" in LEVELS
    with pytest.raises(ParameterError, match="level='bogus' is invalid: valid levels: flow"):
        check_level("bogus")


@pytest.mark.slow
def test_packet_level_returns_the_flow_levels_keys_and_agrees_with_it():
    """The two levels of a study give the same columns, and on a ring all-reduce over a
    full-bisection tree with 64 KiB messages they agree within 10 % (docs/workloads.md)."""
    from fattree.sweep.levels import LEVEL_METRICS

    wl = "allreduce:algorithm=ring,size=1MiB"
    params = {"link_rate": "400Gb/s", "flit_size": "256B", "hop_latency": "0ns"}
    rows = {
        name: LEVELS.get(name).run("kant:k=4,n=2", wl, dict(params, fault_rate=0.0), 1)
        for name in ("flow", "packet")
    }
    for row in rows.values():
        assert set(LEVEL_METRICS) <= set(row) and row["complete"]
    assert set(rows["flow"]) <= set(rows["packet"])
    assert abs(rows["packet"]["time_s"] / rows["flow"]["time_s"] - 1) < 0.10


@pytest.fixture
def small_study(monkeypatch):
    real = study_mod.builtin_study

    def fake(name):
        return (
            parse_study(SMALL, "collectives.toml", "collectives")
            if name == "collectives"
            else real(name)
        )

    monkeypatch.setattr(study_mod, "builtin_study", fake)
    monkeypatch.setattr(flagship, "builtin_study", fake)


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_study_end_to_end_figure_findings_and_resume(small_study, tmp_path, capsys):
    out = tmp_path / "col"
    code, text, err = _run(capsys, "study", "collectives", "-o", out, "--workers", "0", "-q")
    assert code == 0, err
    assert "16 points stored, 0 already done" in text
    page = (out / "report.html").read_text()
    assert page.count("completion time against size (") >= 2  # one figure per collective
    assert "<img" in page
    # the findings lead the report, in words
    assert "completes the collectives fastest without faults" in page
    assert "failed links" in page
    summary = page.index("completes the collectives fastest")
    assert summary < page.index('id="figures"')
    # the same metric from the generic plot command: one line per design, not per size
    code, text, err = _run(
        capsys,
        "plot",
        "completion",
        out / "results",
        "-o",
        tmp_path / "c.png",
        "--where",
        "collective == 'alltoall:algorithm=pairwise' and fault_rate == 0",
    )
    assert code == 0 and (tmp_path / "c.png").stat().st_size > 0
    from fattree.report.plots import draw
    from fattree.sweep.store import ResultStore

    df = ResultStore(out / "results").read("collective == 'alltoall:algorithm=pairwise'")
    fig = draw(df[df["fault_rate"] == 0], "completion")
    assert len(fig.axes[0].get_lines()) == 2
    # resume: nothing recomputed
    code, text, err = _run(capsys, "study", "collectives", "-o", out, "--workers", "0", "-q")
    assert code == 0 and "0 points stored, 16 already done" in text
    # the same points with --level flow (the default) are the same points
    code, text, err = _run(
        capsys, "study", "collectives", "-o", out, "--workers", "0", "-q", "--level", "flow"
    )
    assert code == 0 and "0 points stored, 16 already done" in text


def test_verdict_is_registered_for_both_studies():
    assert "collectives" in VERDICTS and "collectives-full" in VERDICTS


@pytest.mark.parametrize(
    "argv, why",
    [
        (["--level", "bogus"], "error: level='bogus' is invalid: valid levels: flow"),
        (["--workers", "-1"], "workers"),
    ],
)
def test_bad_cli_input_one_line_exit_2(tmp_path, capsys, argv, why):
    code, out, err = _run(capsys, "study", "collectives", "-o", tmp_path / "o", *argv)
    assert code == 2
    assert why in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o" / "results").exists()


def test_level_on_a_study_without_workloads_is_refused(tmp_path, capsys):
    code, out, err = _run(
        capsys, "study", "flagship-quick", "-o", tmp_path / "o", "--level", "flow"
    )
    assert code == 2
    assert "none of its experiments has a level" in err and len(err.strip().splitlines()) == 1


def test_bad_study_file_names_the_collective(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace("alltoall:algorithm=pairwise", "alltoall:algorithm=ring"))
    code, out, err = _run(capsys, "sweep", bad, "-o", tmp_path / "r")
    assert code == 2
    assert "algorithm='ring' is invalid" in err and len(err.strip().splitlines()) == 1
