"""`fattree faults` as a user types it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FATTREE = [sys.executable, "-m", "fattree.cli"]


def run(*args):
    return subprocess.run([*FATTREE, *args], capture_output=True, text=True)


@pytest.mark.slow
def test_json_rows_and_plot(tmp_path):
    png = tmp_path / "f.png"
    r = run(
        "faults",
        "mikant:k=3,n=3",
        "--algorithms",
        "sp,gns,gdl,gns+xt+gdl,oracle",
        "--rates",
        "0:0.2:0.1",
        "--trials",
        "500",
        "--seed",
        "7",
        "--json",
        "-o",
        str(png),
    )
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert len(rows) == 5 * 3
    for key in (
        "algorithm",
        "model",
        "rate",
        "faulty_links",
        "trials",
        "success_ratio",
        "ci_low",
        "ci_high",
        "avg_path_length",
        "avg_excess_over_oracle",
    ):
        assert key in rows[0]
    assert png.stat().st_size > 10_000


@pytest.mark.slow
def test_table_switch_only():
    r = run(
        "faults",
        "mikant:k=3,n=3",
        "--algorithms",
        "sp,oracle",
        "--rates",
        "0.1",
        "--trials",
        "200",
        "--links",
        "switch-only",
    )
    assert r.returncode == 0, r.stderr
    assert "oracle" in r.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--rates", "0:2:0.5"], "outside [0, 1]"),
        (["--trials", "0"], "trials=0"),
        (["--algorithms", "gns,xyz"], "unknown fault-tolerant routing algorithm 'xyz'"),
        (["--links", "some"], "links='some'"),
    ],
)
def test_bad_input_one_line_exit_2(args, fragment):
    r = run("faults", "mikant:k=3,n=3", *args)
    assert r.returncode == 2
    assert fragment in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


@pytest.mark.slow
def test_algorithm_not_for_family():
    r = run("faults", "kant:k=3,n=3", "--algorithms", "gns")
    assert r.returncode == 2 and "valid: sp, minimal, detour, adaptive, updown-table" in r.stderr
