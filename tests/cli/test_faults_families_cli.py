"""Issue 11 as a user types it: faults, route --faults, deadlock --faults and simulate
--fault-rate on every family."""

from __future__ import annotations

import json

import pytest

from fattree.cli import main

KANT = "kant:k=4,n=3"


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


@pytest.mark.parametrize(
    "spec", [KANT, "clos:k=2,n=3", "hypercube:d=4", "torus:k=4,n=2", "kantc:k=3,n=2"]
)
def test_faults_json_every_family(capsys, spec):
    code, out, err = run(
        capsys,
        "faults",
        spec,
        "--algorithms",
        "all",
        "--rates",
        "0:0.2:0.1",
        "--trials",
        "300",
        "--seed",
        "7",
        "--json",
    )
    assert code == 0, err
    rows = json.loads(out)
    algs = {r["algorithm"] for r in rows}
    assert algs == {"sp", "minimal", "detour", "updown-table", "shortest-table", "oracle"}
    assert len(rows) == 6 * 3
    assert {r["model"] for r in rows if r["algorithm"].endswith("-table")} == {"global"}
    assert all(r["success_ratio"] == 1.0 for r in rows if r["rate"] == 0.0)


def test_list_says_knowledge_and_default(capsys):
    code, out, _ = run(capsys, "faults", "hypercube:d=8", "--list")
    assert code == 0
    assert "default: detour" in out and "shortest-table" in out and "gns " not in out
    assert "global" in out and "subnet" in out and "lookahead" in out


@pytest.mark.slow
def test_route_explain_down_link_dead(capsys, ffile):
    f = ffile(
        "# the NCA's down link of n0.0.0 -> n3.3.3 and its first up link",
        "s2.3.3 s1.3.3",
        "s0.0.0 s1.0.3",
    )
    code, out, err = run(capsys, "route", KANT, "n0.0.0", "n3.3.3", "--faults", f, "--explain")
    assert code == 0, err
    assert "detour (local)" in out and "is faulty" in out and "another minimal port" in out
    assert "path length: 6 hops" in out
    code, out, _ = run(
        capsys, "route", KANT, "n0.0.0", "n3.3.3", "--faults", f, "-a", "updown-table", "--json"
    )
    d = json.loads(out)
    assert d["success"] and d["model"] == "global" and d["path"][0] == "n0.0.0"
    assert all(r["rule"] == "table" for r in d["hop_rules"])


@pytest.mark.slow
def test_route_misroute_explained(capsys, ffile):
    # every up link of s0.0.0 but one dead, and that one's only way on dead too
    f = ffile(
        "s0.0.0 s1.0.0",
        "s0.0.0 s1.0.1",
        "s0.0.0 s1.0.2",
        "s1.0.3 s2.0.3",
        "s1.0.3 s2.1.3",
        "s1.0.3 s2.2.3",
        "s1.0.3 s2.3.3",
    )
    code, out, _ = run(capsys, "route", KANT, "n0.0.0", "n3.3.3", "--faults", f, "-a", "minimal")
    assert code == 0 and "not delivered" in out
    code, out, _ = run(capsys, "route", KANT, "n0.0.0", "n3.3.3", "--faults", f, "-a", "detour")
    assert code == 0 and "misroute 1 of" in out and "path length" in out


@pytest.mark.slow
def test_deadlock_all_algorithms_under_faults(capsys, tmp_path):
    import fattree
    from fattree.faults.links import random_faults, write_fault_file

    topo = fattree.build(KANT)
    f = tmp_path / "faults.txt"  # 5 % faults on which unrestricted detours close a cycle
    write_fault_file(topo, random_faults(topo, 0.05, 0), f)
    f = str(f)
    # the default 1-VC rule (up*/down* turns only) keeps every algorithm acyclic
    code, out, _ = run(capsys, "deadlock", KANT, "--faults", f, "--algorithm", "all")
    assert code == 0
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("  ")}
    assert (
        "acyclic" in lines["updown-table"] and "needs 1 up*/down* VC layer" in lines["updown-table"]
    )
    assert "acyclic" in lines["detour"] and "refused" in lines["detour"]
    code, out, _ = run(
        capsys, "deadlock", KANT, "--faults", f, "--algorithm", "all", "--vc-rule", "none"
    )
    assert code == 1  # without the rule, detour has a cycle on one VC
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("  ")}
    assert "cycle" in lines["detour"]
    code, out, _ = run(
        capsys, "deadlock", KANT, "--faults", f, "--algorithm", "detour", "--vcs", "8"
    )
    assert code == 0 and "acyclic" in out


def test_bad_inputs(capsys, ffile):
    f = ffile("# fine", "s0.0.0 s1.0.0", "s0.0.0 s2.0.0")
    code, _, err = run(capsys, "route", KANT, "n0.0.0", "n3.3.3", "--faults", f)
    assert code == 2 and f"{f}:3:" in err and "not adjacent" in err and err.count("\n") == 1
    code, _, err = run(capsys, "faults", "torus:k=4,n=2", "--algorithms", "gns")
    assert (
        code == 2
        and "valid: sp, minimal, detour, adaptive, updown-table, shortest-table, oracle" in err
    )
    code, _, err = run(capsys, "deadlock", KANT, "-a", "tt", "--faults", f)
    assert code == 2 and "valid: sp, minimal" in err


@pytest.mark.slow
def test_simulate_fault_rate_alone_picks_the_default(capsys):
    code, out, err = run(
        capsys, "simulate", KANT, "--fault-rate", "0.05", "--load", "0.1", "--json"
    )
    assert code == 0, err
    d = json.loads(out)
    d = d[0] if isinstance(d, list) else d
    text = json.dumps(d)
    assert "detour" in text and d.get("faulty_links", 10) == 10
