"""`fattree info` as a user types it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fattree.cli import main

FATTREE = Path(sys.executable).with_name("fattree")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_info_json_has_the_documented_keys_and_values(capsys):
    code, out, err = run(capsys, "info", "mikant:k=2,n=3", "--json")
    assert code == 0, err
    d = json.loads(out)
    for key in (
        "family",
        "params",
        "nodes",
        "switches",
        "links",
        "node_links",
        "switch_links",
        "radix",
        "diameter",
        "avg_distance",
        "avg_distance_excl_self",
        "distance_histogram",
        "path_diversity",
        "mean_shortest_paths",
        "bisection_width",
        "bisection_exact",
        "bisection_method",
        "formulas",
        "distances_exact",
        "ci95",
        "wall_seconds",
    ):
        assert key in d, key
    assert d["family"] == "mikant" and d["params"] == {"k": 2, "n": 3}
    assert (d["nodes"], d["switches"], d["links"]) == (16, 16, 40)
    assert d["radix"] == {"min": 4, "max": 4} and d["diameter"] == 6
    # 000 Theorem 6 at k=2, n=3: 6 - 1 + 1/8 - 1/2 = 37/8
    assert d["avg_distance"] == 4.625 and d["exact"]["avg_distance"] == "37/8"
    assert d["avg_distance_excl_self"] == pytest.approx(37 / 8 * 16 / 15)
    assert d["bisection_width"] == 4 and d["bisection_exact"] is True
    assert sum(d["distance_histogram"]) == 16 * 16
    assert isinstance(d["wall_seconds"], float)


@pytest.mark.slow
def test_info_json_formulas_agree_for_the_tree_families(capsys):
    pytest.importorskip("fattree.analysis.closed_forms")
    for spec in ("kant:k=4,n=2", "clos:k=2,n=3", "mikant:k=4,n=2"):
        code, out, err = run(capsys, "info", spec, "--json")
        assert code == 0, err
        d = json.loads(out)
        assert d["formulas"]["nodes"] == d["nodes"]
        assert d["formulas"]["bisection_width"] == d["bisection_width"]
        assert d["disagreements"] == []


def test_info_table(capsys):
    code, out, err = run(capsys, "info", "clos:k=2,n=3")
    assert code == 0, err
    assert "bisection width" in out and "avg distance (N² pairs)" in out and "✓" in out
    assert "distance histogram" in out and "wall time" in out
    if "000 Table I" in out:  # closed forms present: the Clos bisection erratum is flagged
        assert "errata" in out and "✗" not in out


def test_info_on_a_graph_without_closed_forms(tmp_path, capsys):
    from fattree.topology import FAMILIES

    if "graph" not in FAMILIES:
        pytest.skip("graph import not available")
    f = tmp_path / "ring.edges"
    f.write_text("n0 s0\nn1 s1\nn2 s2\ns0 s1\ns1 s2\ns2 s0\n")
    code, out, err = run(capsys, "info", f"graph:file={f}", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert (d["nodes"], d["switches"], d["links"], d["diameter"]) == (3, 3, 6, 3)
    assert d["formulas"] == {} and d["distances_exact"] is True
    assert d["exact"]["avg_distance"] == "2"  # 6 ordered pairs at distance 3 over 9
    # above --exact-limit: a seeded sample, labelled as an estimate with its interval
    code, out, err = run(
        capsys,
        "info",
        f"graph:file={f}",
        "--exact-limit",
        "2",
        "--samples",
        "2",
        "--seed",
        "7",
        "--json",
    )
    assert code == 0, err
    d = json.loads(out)
    assert d["distances_exact"] is False and d["sources"] == 2 and "sampled" in d["distance_method"]
    assert d["ci95"]["avg_distance"] == [2.0, 2.0]  # every node of the ring sees the same
    code, out, err = run(capsys, "info", f"graph:file={f}", "--exact-limit", "2", "--samples", "2")
    assert code == 0 and "95% CI" in out and "lower bound" in out


@pytest.mark.parametrize(
    "spec,needle",
    [
        ("nosuch:k=2,n=2", "valid: "),
        ("mikant:k=1,n=3", "k=1"),
        ("mikant:k=3", "missing parameter 'n'"),
        ("mikant:k=3,n=3,x=1", "unknown parameter 'x'"),
        ("mikant:k=two,n=3", "not an integer"),
        ("mikant:k=64,n=24", "needs about"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, spec, needle):
    code, out, err = run(capsys, "info", spec)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], err
    assert "Traceback" not in err


def test_unknown_family_lists_the_families(capsys):
    _, _, err = run(capsys, "info", "mikan:k=2,n=2")
    assert "mikant" in err and "clos" in err and "kant" in err


@pytest.mark.slow
@pytest.mark.skipif(not FATTREE.exists(), reason="console script not installed")
def test_subprocess_as_typed():
    ok = subprocess.run(
        [str(FATTREE), "info", "kant:k=2,n=2", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["links"] == 8
    bad = subprocess.run(
        [str(FATTREE), "info", "kant:k=1,n=2"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and bad.stderr.startswith("error:")
