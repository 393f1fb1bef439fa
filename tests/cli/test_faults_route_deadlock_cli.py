"""`fattree route ... --faults` and `fattree deadlock ... --faults` as a user types them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import fattree
from fattree.cli import main
from fattree.faults.links import random_faults, write_fault_file

SPEC = "mikant:k=3,n=3"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def ffile(tmp_path):
    def make(*lines, name="faults.txt"):
        p = tmp_path / name
        p.write_text("\n".join(lines) + "\n")
        return p

    return make


def test_route_gns_explained(capsys, ffile):
    f = ffile("# 001 §4.2.1: the crossing of s0.1.0.0 towards T", "<1,2,0,0,0>")
    code, out, _ = run(
        capsys, "route", SPEC, "n0.0.0.0", "n1.0.0.0", "--algorithm", "gns", "--faults", f
    )
    assert code == 0
    rows = [line.split("│") for line in out.splitlines() if "│ s" in line]
    assert [r[2].strip() for r in rows] == [
        "s0.0.0.0",
        "s0.1.0.0",
        "s0.0.0.1",
        "s0.1.0.1",
        "s1.1.0.1",
        "s1.0.0.0",
    ]
    assert [r[5].strip() for r in rows] == ["A1", "GNS g1", "GNS g2", "GNS g3 (A1)", "A1", "A1"]
    flat = " ".join(out.split())
    assert "Algorithm 1's port 3 (s0.1.0.0 – s1.1.0.0) is faulty: a cross-group crossing" in flat
    assert "GNS detour (Go-Neighbor-Switch, 001 §4.2.1) starts" in flat
    assert "path length: 7 hops" in flat


def test_route_json_keys(capsys, ffile):
    f = ffile("s0.1.0.0 s1.1.0.0")
    code, out, _ = run(
        capsys, "route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "gns", "--faults", f, "--json"
    )
    d = json.loads(out)
    assert code == 0
    assert d["path"] == [
        "n0.0.0.0",
        "s0.0.0.0",
        "s0.1.0.0",
        "s0.0.0.1",
        "s0.1.0.1",
        "s1.1.0.1",
        "s1.0.0.0",
        "n1.0.0.0",
    ]
    assert d["ports"] == [3, 1, 4, 3, 0, 0] and d["hops"] == 7
    assert d["success"] is True and d["status"] == "ok"
    assert d["faulty_links"] == [["s0.1.0.0", "s1.1.0.0"]]
    assert [e["event"] for e in d["events"]] == ["fault", "detour"]
    assert d["events"][1]["algorithm"] == "GNS" and d["events"][1]["hop"] == 2


@pytest.mark.slow
def test_route_local_vs_lookahead(capsys, ffile):
    # 001's X-Turns precondition: the crossings of W and of both its neighbours are faulty
    f = ffile("<1,2,0,0,0>", "<1,2,0,1,0>", "<1,2,0,2,0>")
    code, out, _ = run(
        capsys, "route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "gns+xt", "--faults", f, "--json"
    )
    d = json.loads(out)
    assert code == 0 and not d["success"] and d["status"] == "detour dead end"
    assert d["events"][-1]["event"] == "fail" and "step g3" in d["events"][-1]["text"]
    code, out, _ = run(
        capsys,
        "route",
        SPEC,
        "n0.0.0.0",
        "n1.0.0.0",
        "-a",
        "gns+xt",
        "--faults",
        f,
        "--model",
        "lookahead",
        "--json",
    )
    d = json.loads(out)
    assert d["success"] and d["hops"] == 9
    assert [(e["event"], e["algorithm"]) for e in d["events"]] == [
        ("fault", None),
        ("skip", "GNS"),
        ("detour", "XT"),
    ]
    code, out, _ = run(capsys, "route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "gns+xt", "--faults", f)
    assert "not delivered" in out and "detour dead end" in out


def test_route_failure_reasons(capsys, ffile):
    f = ffile("s0.0.0.0 s0.1.0.0")
    code, out, _ = run(capsys, "route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "all4", "--faults", f)
    flat = " ".join(out.split())
    assert code == 0 and "an up link below the crossing" in flat and "not delivered" in flat
    code, out, _ = run(
        capsys, "route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "upalt", "--faults", f, "--json"
    )
    assert json.loads(out)["success"]


@pytest.mark.slow
def test_name_resolution(capsys, ffile):
    # without --faults the routing algorithms come first; a fault-tolerant name still works
    code, out, _ = run(capsys, "route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "gns", "--json")
    d = json.loads(out)
    assert code == 0 and d["algorithm"] == "gns" and d["hops"] == 5 and d["events"] == []
    code, out, _ = run(capsys, "route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "alg1", "--json")
    d = json.loads(out)
    assert d["algorithm"] == "alg1" and "events" not in d
    # with --faults alg1 (and no name) means sp
    f = ffile("<1,2,0,0,0>")
    for extra in (["-a", "alg1"], []):
        code, out, _ = run(
            capsys, "route", SPEC, "n0.0.0.0", "n1.0.0.0", "--faults", f, "--json", *extra
        )
        d = json.loads(out)
        assert code == 0 and d["algorithm"] == "sp" and d["status"] == "no applicable detour"


@pytest.mark.parametrize(
    "lines,fragment",
    [
        (["s0.1.0.0 s1.1.0.0", "s0.1.0.0 s9.1.0.0"], "faults.txt:2:"),
        (
            ["# ok", "s0.1.0.0 s1.1.0.0", "s0.1.0.0 s0.1.0.1"],
            "faults.txt:3: link 's0.1.0.0 s0.1.0.1': s0.1.0.0 and s0.1.0.1 are not adjacent",
        ),
        (["<1,2,0,0>"], "faults.txt:1: link id"),
    ],
)
def test_bad_fault_file_names_the_line(capsys, ffile, lines, fragment):
    f = ffile(*lines)
    for cmd in (["route", SPEC, "n0.0.0.0", "n1.0.0.0"], ["deadlock", SPEC]):
        code, _, err = run(capsys, *cmd, "-a", "gns", "--faults", f)
        assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
        assert fragment in err


@pytest.mark.parametrize(
    "args,fragment",
    [
        (
            ["route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "dmodk", "--faults", "F"],
            "without fault handling for --faults on 'mikant'; valid: sp, gns, gdl",
        ),
        (["route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "oracle", "--faults", "F"], "is a bound"),
        (
            ["route", "kant:k=2,n=2", "n0.0", "n1.1", "-a", "gns", "--faults", "F"],
            "is unknown for --faults on 'kant'; valid: sp, minimal, detour",
        ),
        (
            ["route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "alg1", "--model", "lookahead"],
            "--model applies to fault-tolerant algorithms",
        ),
        (
            ["route", SPEC, "n0.0.0.0", "n1.0.0.0", "-a", "gns", "--model", "psychic"],
            "model='psychic' is invalid",
        ),
        (
            ["route", SPEC, "n0.0.0.0", "n1.0.0.0", "--faults", "/nonexistent/f.txt"],
            "does not exist",
        ),
        (["deadlock", "kant:k=2,n=2", "-a", "gns", "--faults", "F"], "valid: sp, minimal"),
        (["deadlock", SPEC, "-a", "gns", "--vcs", "9"], "vcs=9 is invalid"),
        (["deadlock", SPEC, "-a", "gns", "--vc-rule", "magic", "--vcs", "2"], "vc_rule='magic'"),
        (["deadlock", "mikantc:k=3,n=3", "-a", "cube", "--faults", "F"], "but mikantc"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, ffile, args, fragment):
    f = str(ffile("<1,2,0,0,0>") if "mikantc" not in args[1] else ffile("# none"))
    code, _, err = run(capsys, *[f if a == "F" else a for a in args])
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and fragment in err


def test_deadlock_tt_cycle_of_the_spec(capsys, ffile):
    f = ffile("s0.1.0.0 s1.1.0.0")
    code, out, _ = run(capsys, "deadlock", SPEC, "--algorithm", "tt", "--faults", f)
    assert code == 1
    assert "cycle of 6 channels" in out and "created by" in out
    chans = [ln.strip() for ln in out.splitlines() if ln.startswith("  s") and "⇒" not in ln]
    assert chans == [
        "s0.1.0.0→s1.1.1.0 vc0",
        "s1.1.1.0→s0.1.1.0 vc0",
        "s0.1.1.0→s1.1.0.0 vc0",
        "s1.1.0.0→s0.1.1.0 vc0",
        "s0.1.1.0→s1.1.1.0 vc0",
        "s1.1.1.0→s0.1.0.0 vc0",
    ]
    code, out, _ = run(capsys, "deadlock", SPEC, "-a", "tt", "--faults", f, "--json")
    d = json.loads(out)
    assert code == 1 and not d["acyclic"] and len(d["routes"]) == 6 and d["delivered"] == 2862
    code, out, _ = run(capsys, "deadlock", SPEC, "-a", "tt", "--faults", f, "--vcs", "2", "--json")
    d = json.loads(out)
    assert code == 0 and d["acyclic"] and d["refused"] == 54 and d["classes_bound"] == 3
    code, out, _ = run(capsys, "deadlock", SPEC, "-a", "tt", "--faults", f, "--vcs", "3")
    assert (
        code == 0
        and "acyclic" in out
        and "(0 refused: they need more than 3 VC classes)" in " ".join(out.split())
    )


def test_deadlock_all_one_line_per_algorithm(capsys, ffile):
    f = ffile("<1,2,0,0,0>", "<1,2,1,1,0>")  # the spec's GNS counterexample
    code, out, _ = run(capsys, "deadlock", SPEC, "--algorithm", "all", "--faults", f)
    lines = [line for line in out.splitlines() if line.startswith("  ")]
    assert code == 1 and len(lines) == 15
    verdict = {line.split()[0]: ("acyclic" in line) for line in lines}
    assert verdict["sp"] and not verdict["gns"] and "oracle" not in verdict
    code, out, _ = run(capsys, "deadlock", SPEC, "-a", "all", "--faults", f, "--vcs", "2", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 15 and all(r["acyclic"] for r in rows)
    assert {r["algorithm"]: r["refused"] for r in rows}["gns"] == 0
    code, out, _ = run(capsys, "deadlock", SPEC, "-a", "all")  # no faults: Algorithm 1 only
    assert code == 0 and out.count("acyclic") == 15


def test_deadlock_naive_escape_rule_and_lookahead(capsys, tmp_path):
    t = fattree.build(SPEC)
    f = tmp_path / "random.txt"
    write_fault_file(t, random_faults(t, 0.05 + 0.15 * 29 / 49, seed=1029), f)
    code, out, _ = run(
        capsys,
        "deadlock",
        SPEC,
        "-a",
        "gns+gdl",
        "--faults",
        f,
        "--vcs",
        "2",
        "--vc-rule",
        "detour",
    )
    assert code == 1 and "vc1" in out
    code, out, _ = run(capsys, "deadlock", SPEC, "-a", "gns+gdl", "--faults", f, "--vcs", "3")
    assert code == 0
    code, out, _ = run(
        capsys,
        "deadlock",
        SPEC,
        "-a",
        "gns+gdl",
        "--faults",
        f,
        "--vcs",
        "3",
        "--model",
        "lookahead",
        "--json",
    )
    assert code == 0 and json.loads(out)["model"] == "lookahead"


def test_routing_deadlock_unchanged(capsys):
    code, out, _ = run(capsys, "deadlock", "mikant:k=4,n=3", "--algorithm", "alg1")
    assert code == 0 and "alg1 on mikant:k=4,n=3" in out


def test_mikantc_route_explained(capsys, tmp_path):
    t = fattree.build("mikantc:k=3,n=3")
    f = tmp_path / "f.txt"
    write_fault_file(t, random_faults(t, 0.0, seed=0), f)
    code, out, _ = run(
        capsys,
        "route",
        "mikantc:k=3,n=3",
        "n0.0.0.0.0.1.0",
        "n1.0.0.0.0.1.0",
        "-a",
        "cube+gns+xt+gdl",
        "--faults",
        f,
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and d["success"] and d["hops"] == 7
    assert {r["rule"] for r in d["hop_rules"]} <= {"A1", "cube"}


@pytest.mark.slow
def test_subprocess_as_typed(tmp_path):
    f = tmp_path / "f.txt"
    f.write_text("<1,2,0,0,0>\n")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "fattree.cli",
            "route",
            SPEC,
            "n0.0.0.0",
            "n1.0.0.0",
            "-a",
            "tt",
            "--faults",
            str(f),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "TT t1" in r.stdout
    f.write_text("<1,2,0,0,0>\nbogus line here\n")
    r = subprocess.run(
        [sys.executable, "-m", "fattree.cli", "deadlock", SPEC, "-a", "all", "--faults", str(f)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.startswith("error: ") and ":2:" in r.stderr
    assert r.stderr.count("\n") == 1
