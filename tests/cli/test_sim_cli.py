"""`fattree simulate` as a user types it."""

from __future__ import annotations

import csv
import json

import pytest

from fattree.cli import main


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_one_load_states_the_model(capsys):
    code, out, _ = run(
        capsys, "simulate", "kant:k=4,n=2", "--traffic", "uniform", "--load", "0.2", "-P", "50"
    )
    assert code == 0
    assert "model: wormhole, 1 VC, 2-flit FIFOs" in out
    assert "'FIFO ready' flow control (000 §V.B)" in out
    assert "channel-load bound of dmodk" in out  # issue 13: the balanced default
    assert "0.200" in out


def test_booksim_like_pipeline_is_stated(capsys):
    code, out, _ = run(
        capsys,
        "simulate",
        "kant:k=4,n=2",
        "--load",
        "0.1",
        "--router-delay",
        "2",
        "--credit-delay",
        "1",
        "--buffer",
        "5",
        "--vcs",
        "2",
        "-P",
        "20",
    )
    assert code == 0
    assert "router delay 2, credit delay 1, credit round trip 5 cycles" in out
    assert "2 VCs" in out


def test_json_one_object(capsys):
    code, out, _ = run(
        capsys,
        "simulate",
        "mikant:k=2,n=3",
        "--traffic",
        "bitcomp",
        "--load",
        "0.3",
        "--json",
        "-P",
        "30",
        "--seed",
        "4",
    )
    assert code == 0
    d = json.loads(out)
    assert d["offered_load"] == 0.3 and d["config"]["seed"] == 4 and d["config"]["version"]
    assert d["traffic"] == "bitcomp" and d["deadlock"] is False
    for key in (
        "cycles",
        "created",
        "delivered",
        "avg_latency",
        "avg_network_latency",
        "p99_latency",
        "avg_hops",
        "accepted_throughput",
        "received_ratio",
        "port_conflicts_per_cycle",
        "saturated",
        "wall_seconds",
        "compile_seconds",
    ):
        assert key in d


def test_curve_to_csv_and_json_list(capsys, tmp_path):
    path = tmp_path / "curve.csv"
    code, out, _ = run(
        capsys,
        "simulate",
        "kant:k=4,n=2",
        "--loads",
        "0.1:0.5:0.2",
        "-o",
        str(path),
        "--json",
        "-P",
        "30",
    )
    assert code == 0
    objs = json.loads(out)
    assert [o["offered_load"] for o in objs] == [0.1, 0.3, 0.5]
    rows = list(csv.DictReader(path.open()))
    assert [float(r["offered_load"]) for r in rows] == [0.1, 0.3, 0.5]
    assert "config.buffer" in rows[0] and "channel_load_bound" in rows[0]


def test_trace_file_runs_without_load(capsys, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("0 0 3\n2 1 2\n")
    code, out, _ = run(
        capsys, "simulate", "kant:k=2,n=2", "--traffic", f"trace:file={path}", "--json"
    )
    assert code == 0 and json.loads(out)["delivered"] == 2


@pytest.mark.parametrize(
    "args,match",
    [
        (["--load", "0"], "load=0.0 is invalid"),
        (["--load", "1.5"], "load=1.5 is invalid"),
        (["--loads", "0.5:1.5:0.5"], r"load 1.5 is outside \(0, 1\]"),
        (["--loads", "0.1-0.5"], "START:STOP:STEP"),
        (["--load", "0.1", "--loads", "0.1:0.2:0.1"], "either --load or --loads"),
        ([], "give --load L"),
        (["--load", "0.1", "--buffer", "0"], "buffer=0 is invalid"),
        (["--load", "0.1", "--buffer-level0", "-2"], "buffer_level0=-2"),
        (["--load", "0.1", "--packet-flits", "0"], "packet_flits=0 is invalid"),
        (["--load", "0.1", "--algorithm", "fastest"], "unknown routing algorithm 'fastest'.*alg1"),
        (["--load", "0.1", "--traffic", "unifrom"], "unknown traffic pattern 'unifrom'.*uniform"),
        (["--load", "0.1", "--arbitration", "lottery"], "valid: random, roundrobin"),
        (["--load", "0.1", "--injection", "poisson"], "unknown injection process.*bernoulli"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, args, match):
    import re

    code, out, err = run(capsys, "simulate", "kant:k=2,n=3", *args)
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1
    assert re.search(match, err), err


def test_pattern_inapplicable_to_node_count(capsys):
    code, _, err = run(
        capsys, "simulate", "mikant:k=3,n=3", "--traffic", "bitcomp", "--load", "0.1"
    )
    assert code == 2 and "power-of-two number of nodes" in err and "54 nodes" in err


def test_trace_bad_line_is_named(capsys, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("0 0 1\n1 0 x\n")
    code, _, err = run(capsys, "simulate", "kant:k=2,n=2", "--traffic", f"trace:file={path}")
    assert code == 2 and "bad.txt:2:" in err and err.count("\n") == 1


@pytest.mark.slow
def test_installed_script(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).with_name("fattree")
    p = subprocess.run(
        [str(exe), "simulate", "kant:k=2,n=2", "--load", "2"], capture_output=True, text=True
    )
    assert p.returncode == 2 and p.stderr.startswith("error: load=2.0 is invalid")


def test_options_are_generated_from_simconfig_and_the_registries():
    # every CLI field of SimConfig is an option with its metadata's help; the pattern and
    # process lists come from their registries (a new pattern appears without a CLI edit)
    import dataclasses

    from fattree.commands.sim import simulate_cmd
    from fattree.sim import SimConfig
    from fattree.traffic import INJECTIONS, PATTERNS

    params = simulate_cmd.__signature__.parameters
    for f in dataclasses.fields(SimConfig):
        assert (f.name in params) == f.metadata["cli"], f.name
        if f.metadata["cli"]:
            assert params[f.name].default.help.startswith(f.metadata["help"])
    helps = params["traffic"].default.help
    assert all(name in helps for name, p in PATTERNS.items() if p.name == name)
    assert all(
        name in params["injection"].default.help for name, p in INJECTIONS.items() if not p.internal
    )
    assert params["buffer"].default.default == SimConfig().buffer


def test_option_ranges_come_from_the_field_metadata(capsys):
    code, _, err = run(capsys, "simulate", "kant:k=2,n=2", "--load", "0.1", "--vcs", "65")
    assert code == 2 and "vcs=65 is invalid: expected an integer 1 <= vcs <= 64" in err


def test_single_run_progress_bar_on_a_terminal(monkeypatch):
    # on a terminal one long simulation shows its cycles (fed between kernel chunks)
    from fattree.commands import sim as cmd
    from fattree.sim import SimConfig, engine, prepare, setup

    seen = []
    monkeypatch.setattr(engine, "CHUNK", 100)
    real = setup.run

    def spy(*a, progress=None, **kw):
        assert progress is not None
        return real(*a, progress=lambda c, cap: (seen.append(c), progress(c, cap)), **kw)

    monkeypatch.setattr(setup, "run", spy)
    cfg = SimConfig(load=0.1, termination="window", warmup=100, measure=400)
    r = cmd._single(prepare("kant:k=2,n=2", cfg), None, quiet=False)
    assert seen[:3] == [100, 200, 300] and r.cycles >= 500
    assert cmd.expected_cycles(cfg) == 500
    assert cmd.expected_cycles(SimConfig(load=0.25, packet_flits=2)) == 1600
