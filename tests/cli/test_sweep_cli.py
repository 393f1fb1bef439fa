"""The sweep commands as a user types them: sweep, results, plot, report, reproduce."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from fattree.cli import main

FATTREE = str(Path(sys.executable).with_name("fattree"))

STUDY = """\
[study]
name = "cli"
kind = "topology"
[parameters]
topology = ["kant:k=2,n=2", "mikant:k=2,n=3", "clos:k=2,n=2"]
distances = "all"
"""


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err, err
    return err


@pytest.fixture()
def study(tmp_path) -> Path:
    f = tmp_path / "s.toml"
    f.write_text(STUDY)
    return f


def test_bad_study_file_exit_2_one_line(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text(STUDY.replace("distances", "distanses"))
    assert main(["sweep", str(f), "-o", str(tmp_path / "r"), "--workers", "0"]) == 2
    err = _one_line_error(capsys)
    assert f"{f}:6:" in err and "'distanses'" in err and "did you mean 'distances'" in err
    f.write_text(STUDY.replace('distances = "all"', "distances = 1.5"))
    assert main(["sweep", str(f), "-o", str(tmp_path / "r"), "--workers", "0"]) == 2
    err = _one_line_error(capsys)
    assert f"{f}:6:" in err and "distances = 1.5" in err and "expected a string" in err
    assert main(["sweep", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "r")]) == 2
    assert "does not exist" in _one_line_error(capsys)
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_sweep_results_plot_report(study, tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["sweep", str(study), "-o", str(out), "--workers", "0", "-q"]) == 0
    assert "3 points stored, 0 already done" in capsys.readouterr().out
    assert main(["sweep", str(study), "-o", str(out), "--workers", "0", "-q"]) == 0
    assert "0 points stored, 3 already done" in capsys.readouterr().out
    csv = tmp_path / "m.csv"
    assert main(["results", str(out), "--where", "family='mikant'", "--csv", str(csv)]) == 0
    lines = csv.read_text().splitlines()
    assert len(lines) == 2 and "mikant:k=2,n=3" in lines[1]
    assert main(["results", str(out), "--columns", "topology,nodes,diameter"]) == 0
    text = capsys.readouterr().out
    assert "mikant:k=2,n=3" in text and "3 points" in text
    assert main(["results", str(out), "--where", "famly = 'x'"]) == 2
    assert "unknown column 'famly' (did you mean 'family'?)" in _one_line_error(capsys)
    assert main(["report", str(out), "-o", str(tmp_path / "rep.html")]) == 0
    assert (tmp_path / "rep.html").read_text().count("kant:k=2,n=2") >= 1
    # a topology study has no load axis: the latency plot says what is missing
    assert main(["plot", "latency", str(out), "-o", str(tmp_path / "f.png")]) == 2
    assert "no x column" in _one_line_error(capsys)


def test_newer_results_folder_refused(study, tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["sweep", str(study), "-o", str(out), "--workers", "0", "-q"]) == 0
    m = json.loads((out / "manifest.json").read_text())
    m["format_version"] = [7, 0]
    (out / "manifest.json").write_text(json.dumps(m))
    before = sorted(p.name for p in (out / "parts").iterdir())
    for argv in (
        ["sweep", str(study), "-o", str(out), "--workers", "0"],
        ["results", str(out)],
        ["report", str(out), "-o", str(tmp_path / "x.html")],
    ):
        assert main(argv) == 2
        assert "upgrade fattree" in _one_line_error(capsys)
    assert sorted(p.name for p in (out / "parts").iterdir()) == before
    assert not (tmp_path / "x.html").exists()


@pytest.mark.slow
def test_unreachable_scheduler_fails_in_seconds(study, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # how fast it fails: benchmarks/responsiveness.py
    r = subprocess.run(
        [
            FATTREE,
            "sweep",
            str(study),
            "-o",
            str(tmp_path / "r"),
            "--scheduler",
            f"tcp://127.0.0.1:{port}",
            "--connect-timeout",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    err = r.stderr.strip()
    assert err.startswith("error: scheduler=") and "unreachable" in err and "\n" not in err
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_reproduce_and_study_listing(tmp_path, capsys):
    assert main(["reproduce", "000-table1", "-o", str(tmp_path), "--quick"]) == 0
    out = capsys.readouterr().out
    assert "000-table1" in out and "disagree" in out
    assert (tmp_path / "000-table1" / "README.md").exists()
    assert main(["reproduce", "000-tabel1", "-o", str(tmp_path)]) == 2
    assert "did you mean '000-table1'" in _one_line_error(capsys)
    assert main(["reproduce", "all", "--list"]) == 0
    assert "001-fig8" in capsys.readouterr().out
    assert main(["study", "--list"]) == 0
    assert "flagship" in capsys.readouterr().out
    assert main(["study", "flagshp", "-o", str(tmp_path / "o")]) == 2
    assert "did you mean 'flagship'" in _one_line_error(capsys)


@pytest.mark.slow
def test_shipped_quick_study_end_to_end(tmp_path, capsys):
    """`make run` in miniature: sweep, reproductions and the report, in-process."""
    out = tmp_path / "out"
    assert main(["study", "flagship-quick", "-o", str(out), "--workers", "0", "-q"]) == 0
    text = capsys.readouterr().out
    assert "41 points stored" in text and "report written to" in text
    page = (out / "report.html").read_text()
    for name in ("000-table1", "000-fig9", "000-fig10", "001-fig8", "001-fig9"):
        assert f'id="{name}"' in page
        assert (out / "reproduce" / name / "README.md").exists()
    assert main(["study", "flagship-quick", "-o", str(out), "--workers", "0", "-q"]) == 0
    assert "0 points stored, 41 already done" in capsys.readouterr().out
