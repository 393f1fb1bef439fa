"""`fattree workload list|export` and `fattree flow` as a user types them."""

from __future__ import annotations

import json

import pytest

from fattree.cli import main


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_names_every_collective_and_algorithm(capsys):
    code, out, _ = run(capsys, "workload", "list")
    assert code == 0
    for name in (
        "allreduce",
        "reducescatter",
        "allgather",
        "alltoall",
        "broadcast",
        "reduce",
        "barrier",
        "goal",
    ):
        assert f"{name}:" in out
    for alg in (
        "ring",
        "rhd",
        "tree",
        "dtree",
        "hier",
        "rd",
        "pairwise",
        "direct",
        "binomial",
        "dissemination",
    ):
        assert f"algorithm={alg}" in out
    assert "(power-of-two rank counts only)" in out and "placement" in out
    code, out, _ = run(capsys, "workload", "list", "--json")
    assert {r["name"] for r in json.loads(out)} >= {"allreduce", "goal"}


def test_export_then_flow_the_file(capsys, tmp_path):
    f = tmp_path / "ring.goal"
    code, out, _ = run(
        capsys, "workload", "export", "allreduce:algorithm=ring,size=64KiB,ranks=16", "-o", str(f)
    )
    assert (
        code == 0 and "wrote" in out and "960 operations" in out
    )  # 2p(p-1) messages, a send and a receive each
    assert f.read_text().startswith("num_ranks 16\n")
    code, out, _ = run(capsys, "flow", "kant:k=4,n=2", "--workload", f"goal:file={f}", "--json")
    assert code == 0
    goal = json.loads(out)
    code, out, _ = run(
        capsys, "flow", "kant:k=4,n=2", "-w", "allreduce:algorithm=ring,size=64KiB", "--json"
    )
    built = json.loads(out)
    # the same schedule through the file and through the phases
    assert goal["time_s"] == pytest.approx(built["time_s"], rel=1e-9)
    assert goal["engine"] == "operations" and built["engine"] == "phases"


def test_export_to_stdout(capsys):
    code, out, _ = run(capsys, "workload", "export", "broadcast:size=1KiB,ranks=4")
    assert code == 0
    assert (
        out.splitlines()[0] == "num_ranks 4" and "l2: send 1024b to 2 tag 1\nl2 requires l1" in out
    )


def test_flow_table_and_phases(capsys):
    code, out, _ = run(
        capsys,
        "flow",
        "kant:k=4,n=2",
        "-w",
        "allreduce:algorithm=rhd,size=1MiB",
        "--phases",
        "--link-rate",
        "100Gb/s",
    )
    assert code == 0
    assert "completion time" in out and "busbw" in out and "bounding link" in out
    assert "halving distance 8" in out and "100 Gb/s" in out


def test_flow_under_faults_says_what_was_lost(capsys):
    code, out, _ = run(
        capsys,
        "flow",
        "kant:k=4,n=2",
        "-w",
        "alltoall:size=64KiB",
        "--fault-rate",
        "0.4",
        "--seed",
        "1",
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert not d["complete"] and d["undelivered"] > 0 and d["outcome"].startswith("ended:")


@pytest.mark.parametrize(
    "args, why",
    [
        (["flow", "kant:k=4,n=2", "-w", "allreduse"], "unknown collective 'allreduse'"),
        (
            ["flow", "kant:k=4,n=2", "-w", "allreduce:algorithm=ringg"],
            "valid: ring, rhd, tree, dtree, hier",
        ),
        (["flow", "kant:k=4,n=2", "-w", "allreduce:size=1024"], "unit is missing"),
        (
            ["flow", "kant:k=4,n=2", "-w", "allreduce:ranks=17"],
            "ranks=17 is invalid: the network has 16 nodes",
        ),
        (
            ["flow", "kant:k=4,n=2", "-w", "allreduce:algorithm=rhd,ranks=12"],
            "needs a power-of-two rank count, not 12",
        ),
        (
            ["flow", "kant:k=4,n=2", "-w", "barrier", "--link-rate", "400"],
            "link_rate='400' is invalid",
        ),
        (["flow", "kant:k=4,n=2", "-w", "barrier", "--engine", "x"], "engine='x' is invalid"),
        (["flow", "kant:k=4,n=2", "-w", "barrier", "-a", "nosuch"], "nosuch"),
        (["flow", "kant:k=4,n=2", "-w", "goal:file=/no/such.goal"], "does not exist"),
        (
            [
                "flow",
                "kant:k=4,n=2",
                "-w",
                "barrier",
                "--fault-rate",
                "0.1",
                "--fault-algorithm",
                "zz",
            ],
            "zz",
        ),
        (["workload", "export", "allreduce:size=1MiB"], "give ranks=P"),
        (
            ["workload", "export", "alltoall:algorithm=direct,ranks=64", "--max-ops", "10"],
            "max_ops=10",
        ),
    ],
)
def test_bad_input_one_line_exit_2(capsys, args, why):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert why in err


def test_goal_file_errors_name_the_line(capsys, tmp_path):
    f = tmp_path / "bad.goal"
    f.write_text(
        "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl2: recv 8b from 0 tag 3\n}\n"
    )
    code, _, err = run(capsys, "flow", "kant:k=4,n=2", "-w", f"goal:file={f}")
    assert code == 2 and "line 6, rank 1 op 0 (recv 8b from 0 tag 3) has no matching send" in err
