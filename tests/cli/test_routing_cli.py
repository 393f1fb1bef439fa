"""`fattree route`, `fattree routing ...` and `fattree deadlock` as a user types them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fattree.cli import main


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_route_table_ii(capsys):
    code, out, _ = run(capsys, "route", "mikant:k=3,n=4", "n0.2.0.0.0", "n1.2.2.2.2")
    assert code == 0
    rows = [line for line in out.splitlines() if "│ s" in line]
    assert [r.split("│")[3].strip() for r in rows] == ["5", "5", "5", "2", "2", "2"]
    assert "path length: 7 hops" in out


def test_route_json(capsys):
    code, out, _ = run(capsys, "route", "mikant:k=3,n=4", "n0.2.0.0.0", "n0.2.0.2.2", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["path"] == [
        "n0.2.0.0.0",
        "s0.0.0.0.0",
        "s0.1.0.0.2",
        "s0.2.0.2.2",
        "s0.1.0.2.2",
        "s0.0.0.2.2",
        "n0.2.0.2.2",
    ]
    assert d["ports"] == [5, 5, 2, 2, 2] and d["hops"] == 6 and d["delivered"]


@pytest.mark.slow
def test_route_random_seed_and_packet(capsys):
    paths = set()
    for pkt in range(12):
        code, out, _ = run(
            capsys,
            "route",
            "kant:k=4,n=3",
            "n0.0.0",
            "n3.3.3",
            "-a",
            "random",
            "--seed",
            "3",
            "--packet",
            str(pkt),
            "--json",
        )
        assert code == 0
        paths.add(tuple(json.loads(out)["path"]))
    assert len(paths) > 1


@pytest.mark.slow
def test_route_literal_000_reports_the_loop(capsys):
    code, out, _ = run(
        capsys, "route", "mikant:k=3,n=4", "n0.2.0.0.0", "n0.2.0.2.2", "-a", "alg1-literal-000"
    )
    assert code == 0 and "not delivered" in out and "hop limit" in out


@pytest.mark.parametrize(
    "args,fragment",
    [
        (
            ["route", "mikant:k=3,n=4", "n0.2.0.0.9", "n1.2.2.2.2"],
            "does not exist in mikant:k=3,n=4",
        ),
        (["route", "mikant:k=3,n=4", "x1", "n1.2.2.2.2"], "must start with 'n'"),
        (["route", "mikant:k=3,n=4", "s0.2.0.0.0", "n1.2.2.2.2"], "src='s0.2.0.0.0' is a switch"),
        (["route", "mikant:k=3,n=4", "n0.2.0.0.0", "s0.2.0.0.0"], "dst='s0.2.0.0.0' is a switch"),
        (
            ["route", "kant:k=2,n=2", "n0.0", "n1.1", "-a", "minimal-all"],
            "valid: alg1, dmodk, smodk, random, adaptive, booksim-nca, shortest, updown, booksim-min",
        ),
        (["route", "kant:k=2,n=2", "n0.0", "n1.1", "-a", "dmod"], "did you mean 'dmodk'"),
        (
            ["routing", "check", "mikant:k=2,n=2", "-a", "ecube"],
            "algorithm='ecube' is not defined for family 'mikant'",
        ),
        (["routing", "check", "mikant:k=2,n=2", "-a", "nca"], "unknown routing algorithm 'nca'"),
        (["routing", "load", "mikant:k=3,n=3", "-t", "bitcomp"], "power-of-two"),
        (["deadlock", "mikant:k=2,n=2", "--vcs", "0"], "vcs=0 is invalid"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, args, fragment):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1 and fragment in err


def test_list(capsys):
    code, out, _ = run(capsys, "routing", "list", "--json")
    assert code == 0
    rows = {r["algorithm"]: r for r in json.loads(out)}
    assert {
        "alg1",
        "dmodk",
        "smodk",
        "random",
        "adaptive",
        "minimal-all",
        "shortest",
        "updown",
    } <= set(rows)
    # issue 13: balanced defaults outside reproductions (alg1 is named explicitly there)
    assert rows["alg1"]["default_for"] == [] and rows["minimal-all"]["vcs_required"] == 2
    assert "mikant" in rows["balanced"]["default_for"]
    assert {"kant", "clos"} <= set(rows["dmodk"]["default_for"])
    code, out, _ = run(capsys, "routing", "list")
    assert code == 0 and "alg1" in out and "000" in out


def test_check(capsys):
    code, out, _ = run(capsys, "routing", "check", "mikant:k=4,n=3", "--algorithm", "alg1")
    assert code == 0 and "OK" in out and "000 Theorem 6" in out
    code, out, _ = run(capsys, "routing", "check", "mikant:k=3,n=3", "-a", "minimal-all", "--json")
    d = json.loads(out)
    assert code == 0 and d["ok"] and d["pairs"] == 54 * 53
    assert d["paths_mean"] == pytest.approx(d["sp_paths_mean"])
    code, out, _ = run(capsys, "routing", "check", "mikant:k=3,n=3", "-a", "alg1-literal-000")
    assert code == 1 and "FAILED" in out and "first loop" in out


def test_load(capsys):
    code, out, _ = run(
        capsys, "routing", "load", "kant:k=4,n=3", "-a", "alg1", "-t", "bitcomp", "--json"
    )
    d = json.loads(out)
    assert code == 0 and d["gamma_max"] == pytest.approx(4.0) and d["bound"] == pytest.approx(0.25)
    code, out, _ = run(capsys, "routing", "load", "mikant:k=4,n=3", "-a", "dmodk")
    assert code == 0 and "throughput bound" in out and "cross" in out


def test_deadlock(capsys):
    code, out, _ = run(capsys, "deadlock", "mikant:k=4,n=3", "--algorithm", "alg1")
    assert code == 0 and "acyclic" in out
    code, out, _ = run(capsys, "deadlock", "mikant:k=4,n=3", "-a", "minimal-all", "--vcs", "1")
    assert code == 1 and "cycle of" in out and "created by" in out and "vc0" in out
    code, out, _ = run(
        capsys, "deadlock", "mikant:k=4,n=3", "-a", "minimal-all", "--vcs", "2", "--json"
    )
    assert code == 0 and json.loads(out)["acyclic"] is True


@pytest.mark.slow
def test_subprocess_as_typed():
    r = subprocess.run(
        [sys.executable, "-m", "fattree.cli", "route", "mikant:k=3,n=4", "n0.2.0.0.0", "n9"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
