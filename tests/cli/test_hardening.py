"""Output paths checked before any work, the memory guard, refusal of all-pairs work that
cannot finish, the command-line conventions and the top-level Python API. No timings here:
how soon a refusal comes is measured by ``benchmarks/responsiveness.py``."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import time

import pytest

import fattree
from fattree.cli import main
from fattree.errors import ParameterError, ResourceError


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue(), time.perf_counter() - t0


def one_line_error(rc, err) -> str:
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


# ------------------------------------------------------------------ early output paths
EARLY = [
    ["simulate", "kant:k=2,n=2", "--loads", "0.05:1.0:0.05", "-o", "{nodir}/curve.csv"],
    ["faults", "mikant:k=2,n=3", "--trials", "100000", "-o", "{nodir}/p.png"],
    ["faults", "mikant:k=2,n=3", "--trials", "100000", "--csv", "{nodir}/p.csv"],
    ["results", "{store}", "--csv", "{nodir}/r.csv"],
    ["plot", "rcp", "-o", "{nodir}/x.png"],
    ["plot", "latency", "{store}", "-o", "{nodir}/x.png"],
    ["report", "{store}", "-o", "{nodir}/r.html"],
    ["reproduce", "000-table1", "-o", "{nodir}/sub/out"],
    ["sweep", "{study}", "-o", "{nodir}/sub/res"],
    ["draw", "kant:k=2,n=2", "-o", "{nodir}/x.svg"],
    ["export", "kant:k=2,n=2", "-o", "{nodir}/x.txt"],
    ["study", "equal-cost-quick", "-o", "{nodir}/sub/out"],
    ["plot", "cost-ratios", "-o", "{nodir}/x.png"],
]


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    d = tmp_path_factory.mktemp("paths")
    study = d / "s.toml"
    study.write_text(
        '[study]\nkind = "topology"\n[parameters]\ntopology = "kant:k=2,n=2"\ndistances = "none"\n'
    )
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["sweep", str(study), "-o", str(d / "store"), "--workers", "0", "-q"]) == 0
    return {
        "nodir": str(d / "no-such-dir"),
        "store": str(d / "store"),
        "study": str(study),
        "root": d,
    }


@pytest.mark.parametrize("argv", EARLY, ids=[" ".join(a[:2]) + " " + a[-2] for a in EARLY])
def test_output_path_checked_before_any_work(paths, argv):
    rc, _, err, _ = run([a.format(**paths) for a in argv])  # its time: benchmarks/responsiveness.py
    line = one_line_error(rc, err)
    assert "does not exist" in line and "no-such-dir" in line
    assert not (paths["root"] / "no-such-dir").exists()  # and nothing was created


def test_folder_outputs_are_created_inside_an_existing_folder(paths, tmp_path):
    rc, _, err, _ = run(
        ["sweep", paths["study"], "-o", str(tmp_path / "new"), "--workers", "0", "-q"]
    )
    assert rc == 0 and (tmp_path / "new" / "manifest.json").exists(), err


def test_file_output_is_not_a_folder(paths, tmp_path):
    rc, _, err, _ = run(["results", paths["store"], "--csv", str(tmp_path)])
    assert "is a folder" in one_line_error(rc, err)


# ------------------------------------------------------------------ memory guard
def test_simulator_memory_guard_refuses_before_building():
    from fattree.sim.memory import check_memory, estimate_memory

    with pytest.raises(ResourceError, match=r"mikant:k=8,n=7 needs about \d+\.\d GiB"):
        check_memory("mikant:k=8,n=7", load=0.1, available=16 * 2**30)  # 6 GiB never built
    small = estimate_memory("kant:k=2,n=3", load=0.1)
    assert small.fits and small.total > 0
    # a bigger network or more VCs needs more
    assert estimate_memory("mikant:k=4,n=4", load=0.1).total > small.total
    assert (
        estimate_memory("mikant:k=4,n=4", load=0.1, vcs=4).state
        > estimate_memory("mikant:k=4,n=4", load=0.1).state
    )


def test_simulate_refuses_what_does_not_fit(monkeypatch):
    from fattree.topology import family

    monkeypatch.setattr(family, "available_memory", lambda: 2**20)  # 1 MiB
    rc, _, err, _ = run(["simulate", "mikant:k=4,n=5", "--load", "0.1"])
    assert "needs about" in one_line_error(rc, err)  # how fast: benchmarks/responsiveness.py
    with pytest.raises(ResourceError):
        fattree.simulate("mikant:k=4,n=5", load=0.1)


def test_simulate_huge_network_refused_at_once():
    rc, _, err, _ = run(["simulate", "mikant:k=8,n=7", "--load", "0.1"])
    line = one_line_error(rc, err)
    assert "GiB" in line and "4,194,304 nodes" in line


# ------------------------------------------------------------------ all-pairs work
@pytest.mark.parametrize(
    "argv",
    [
        ["routing", "check", "mikant:k=8,n=7"],
        ["routing", "load", "mikant:k=8,n=7"],
        ["deadlock", "mikant:k=8,n=7"],
        ["routing", "check", "mikant:k=4,n=5", "--max-seconds", "0.01"],
    ],
)
def test_all_pairs_work_refused_with_the_estimate(argv):
    rc, _, err, _ = run(argv)
    line = one_line_error(rc, err)
    assert "would take about" in line and "max_seconds" in line


def test_routing_check_sample_is_seeded_and_sized():
    from fattree.routing.check import check

    t = fattree.build("mikant:k=3,n=3")
    a = check(t, "alg1", sample=100, seed=3)
    b = check(t, "alg1", sample=100, seed=3)
    c = check(t, "alg1", sample=100, seed=4)
    assert a.sample == 100 and 90 <= a.pairs <= 100 and a.ok
    assert a.hist == b.hist and a.paper_mean is None
    assert (a.hist, a.pairs) != (c.hist, c.pairs) or a.mean_hops != c.mean_hops
    rc, out, _, _ = run(["routing", "check", "mikant:k=3,n=3", "--sample", "100", "--json"])
    assert rc == 0 and json.loads(out)["sample"] == 100


# ------------------------------------------------------------------ conventions
@pytest.mark.slow
def test_version_and_python_m():
    rc, out, _, _ = run(["--version"])
    assert rc == 0 and out.strip() == f"fattree {fattree.__version__}"
    r = subprocess.run(
        [sys.executable, "-m", "fattree", "--version"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0 and r.stdout.strip() == f"fattree {fattree.__version__}"
    r = subprocess.run(
        [sys.executable, "-m", "fattree", "info", "--bogus"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "No such option" in r.stderr


def test_shell_completion_is_offered():
    rc, out, _, _ = run(["--help"])
    assert rc == 0 and "--install-completion" in out and "--show-completion" in out


def test_usage_errors_are_one_line():
    for argv in (
        ["info"],
        ["simulate", "kant:k=2,n=2", "--load", "x"],
        ["nope"],
        ["routing", "check", "kant:k=2,n=2", "--bogus"],
    ):
        rc, _, err, _ = run(argv)
        assert "--help" in one_line_error(rc, err)


@pytest.mark.slow
def test_json_on_table_commands(paths):
    for argv in (
        ["families", "--json"],
        ["reproduce", "--list", "--json"],
        ["faults", "--list", "--json"],
        ["results", paths["store"], "--json"],
        ["routing", "list", "--json"],
        ["design", "--nodes", "100", "--json"],
    ):
        rc, out, err, _ = run(argv)
        assert rc == 0, err
        assert isinstance(json.loads(out), list)


def test_old_option_names_still_work():
    new = run(
        [
            "faults",
            "mikant:k=2,n=3",
            "--trials",
            "50",
            "--rates",
            "0.1",
            "--algorithm",
            "gns",
            "--fault-model",
            "local",
            "--json",
        ]
    )
    old = run(
        [
            "faults",
            "mikant:k=2,n=3",
            "--trials",
            "50",
            "--rates",
            "0.1",
            "--algorithms",
            "gns",
            "--models",
            "local",
            "--json",
        ]
    )
    assert new[0] == old[0] == 0 and json.loads(new[1]) == json.loads(old[1])


def test_library_warnings_are_one_line(paths, tmp_path):
    import shutil

    shutil.copytree(paths["store"], tmp_path / "s")
    (part,) = (tmp_path / "s" / "parts").glob("*.parquet")
    part.write_bytes(b"")
    rc, _, err, _ = run(["results", str(tmp_path / "s")])
    assert rc == 0 and err.count("warning: ") == 1 and "Traceback" not in err


# ------------------------------------------------------------------ Python API
def test_top_level_api_takes_a_spec_or_a_topology():
    t = fattree.build("kant:k=2,n=2")
    for topo in ("kant:k=2,n=2", t):
        p = fattree.properties(topo)
        assert p.nodes == p["nodes"] == 4 and dict(p)["diameter"] == 4
        r = fattree.simulate(topo, load=0.1, packets_per_source=5)
        assert r.conservation
    df = fattree.simulate_loads("kant:k=2,n=2", [0.1], packets_per_source=5)
    assert list(df["offered_load"]) == [0.1]
    st = fattree.fault_study("mikant:k=2,n=3", "gns", "0:0.1:0.1", trials=20)
    assert [r["rate"] for r in st.rows] == [0.0, 0.1]


@pytest.mark.parametrize(
    "call",
    [
        lambda: fattree.build(None),
        lambda: fattree.build(3),
        lambda: fattree.properties(None),
        lambda: fattree.simulate(None, load=0.1),
        lambda: fattree.simulate_loads("kant:k=2,n=2", 0.1),
        lambda: fattree.fault_study("mikant:k=2,n=3", "gns", "0:1:0"),
        lambda: fattree.fault_study("mikant:k=2,n=3", "gns", [0.1], seed=-1),
        lambda: fattree.read_results(None),
        lambda: fattree.build("mikant:k=3,k=4,n=3"),
        lambda: fattree.read_results(""),
        lambda: fattree.build(b"kant:k=2,n=2"),
        lambda: fattree.properties("kant:k=2,n=2", bogus=1),
        lambda: fattree.properties("kant:k=2,n=2", samples=-1),
        lambda: fattree.simulate("kant:k=2,n=2", load=0.1, bogus=1),
        lambda: fattree.simulate("kant:k=2,n=2", load=float("nan")),
        lambda: fattree.simulate("xgft:m=2.2,w=1.2", load=0.1, seed=2**64),
        lambda: fattree.simulate_loads("kant:k=2,n=2", ["a"]),
        lambda: fattree.simulate_loads("kant:k=2,n=2", []),
        lambda: fattree.simulate_loads("kant:k=2,n=2", [float("inf")]),
        lambda: fattree.fault_study("mikant:k=2,n=3", "gns", None),
        lambda: fattree.fault_study("mikant:k=2,n=3", None, [0.1]),
        lambda: fattree.fault_study("mikant:k=2,n=3", 3, [0.1]),
        lambda: fattree.fault_study("mikant:k=2,n=3", "gns", [0.1], bogus=1),
        lambda: fattree.fault_study("mikant:k=2,n=3", "gns", ["x"]),
        lambda: fattree.fault_study("mikant:k=2,n=3", "gns", [float("nan")]),
        lambda: fattree.fault_study("mikant:k=2,n=3", "gns", [0.1], trials=1.5),
        lambda: fattree.properties("xgft:m=4.4,w=1.2.2"),
    ],
)
def test_top_level_api_bad_input_is_a_parameter_error(call):
    with pytest.raises(ParameterError):
        call()


def test_analysis_properties_accepts_a_spec():
    from fattree.analysis.properties import properties

    assert properties("kant:k=2,n=2")["nodes"] == 4


def test_fault_study_takes_one_rate_and_names_options():
    st = fattree.fault_study("mikant:k=2,n=3", "gns", 0.1, trials=20)
    assert [r["rate"] for r in st.rows] == [0.1]
    with pytest.raises(
        ParameterError,
        match=r"bogus=1 is invalid: fault_study takes no option "
        r"'bogus'; valid: models, switch_only, tie_break",
    ):
        fattree.fault_study("mikant:k=2,n=3", "gns", [0.1], bogus=1)


def test_properties_is_a_documented_dataclass():
    import dataclasses

    p = fattree.properties("xgft:m=2.2,w=1.2")
    assert dataclasses.is_dataclass(p) and fattree.Properties.__doc__
    assert "Attributes" in fattree.Properties.__doc__ and p.spec == "xgft:m=2.2,w=1.2"
    assert p.nodes == 4 and p.disagreements == []


@pytest.mark.parametrize(
    "argv,final",
    [
        (
            ["simulate", "kant:k=2,n=2", "--load", "0.1", "-P", "20"],
            r"^simulating kant:k=2,n=2: [\d,]+ cycles in \d+\.\d s$",
        ),
        (
            ["simulate", "kant:k=2,n=2", "--loads", "0.1:0.3:0.1", "-P", "20"],
            r"^simulating kant:k=2,n=2: 3/3 loads in \d+\.\d s$",
        ),
        (
            ["faults", "mikant:k=2,n=2", "--trials", "20", "--rates", "0:0.1:0.05"],
            r"^mikant:k=2,n=2: fault study: 3/3 rates × 20 trials in \d+\.\d s$",
        ),
    ],
)
def test_progress_final_line_without_a_terminal(argv, final):
    import re

    rc, _, err, _ = run(argv)
    lines = [x for x in err.splitlines() if x.strip() and not x.startswith("warning: ")]
    assert rc == 0 and len(lines) == 1 and re.match(final, lines[0]), err
    assert "\x1b" not in err and "\r" not in err  # no terminal control codes in a log


def test_progress_is_quiet_with_json():
    rc, out, err, _ = run(
        ["faults", "mikant:k=2,n=2", "--trials", "20", "--rates", "0.1", "--json"]
    )
    assert rc == 0 and "fault study" not in err and json.loads(out)


def test_empty_option_value_is_one_line_for_every_path_option(paths):
    for argv, name in (
        (["cost", "kant:k=2,n=2", "--prices", ""], "prices"),
        (["results", paths["store"], "--csv", ""], "csv"),
        (["report", paths["store"], "-o", ""], "output"),
        (["sweep", paths["study"], "-o", ""], "out"),
    ):
        rc, _, err, _ = run(argv)
        assert f"{name}='' is invalid" in one_line_error(rc, err)
