"""Long work without a terminal: a progress line on stderr at least every LOG_INTERVAL
seconds (done / total, elapsed, estimate left), and a study's expected run time before it
starts. A fake clock for the lines' text and a tiny interval for their coming; no timings."""

from __future__ import annotations

import threading

import pytest

from fattree.cli import main
from fattree.commands import _common
from fattree.commands._common import ProgressLine, ProgressLog, duration


def test_the_line_says_done_total_elapsed_and_left():
    t = [100.0]
    log = ProgressLog("faults kant:k=2,n=2", total=21, unit="rates", clock=lambda: t[0])
    assert log.line() == "faults kant:k=2,n=2: 0/21 rates, 0 s elapsed, time left unknown"
    t[0] += 90
    log.update(7)
    assert log.line() == "faults kant:k=2,n=2: 7/21 rates, 1 min 30 s elapsed, about 3 min left"
    t[0] += 3600
    log.update(20, total=40)
    assert log.line().endswith("20/40 rates, 1 h 01 min elapsed, about 1 h 01 min left")


def test_without_a_count_the_line_says_elapsed_and_the_expected_time_or_nothing():
    t = [0.0]
    log = ProgressLog("routing check", expected=100, clock=lambda: t[0])
    t[0] = 40
    assert log.line() == "routing check: running, 40 s elapsed, about 1 min left (estimated)"
    cycles = ProgressLog("simulating kant", unit="cycles", clock=lambda: t[0])
    cycles.update(12_000)
    assert cycles.line() == "simulating kant: 12,000 cycles, 0 s elapsed"


def test_duration_words():
    assert [duration(x) for x in (0, 59.4, 60, 61, 3599, 3600, 7322)] == [
        "0 s",
        "59 s",
        "1 min",
        "1 min 01 s",
        "59 min 59 s",
        "1 h 00 min",
        "2 h 02 min",
    ]


def _wait_for_lines(capsys, n: int, marker: str) -> list[str]:
    """The stderr lines with ``marker`` once there are ``n`` (bounded wait, no timing)."""
    got: list[str] = []
    done = threading.Event()
    for _ in range(2000):
        got += [ln for ln in capsys.readouterr().err.splitlines() if marker in ln]
        if len(got) >= n:
            break
        done.wait(0.005)
    return got


def test_lines_keep_coming_while_a_step_reports_nothing(capsys):
    with ProgressLog("one long step", total=3, unit="points", interval=0.001) as log:
        log.update(1)
        lines = _wait_for_lines(capsys, 3, "one long step: 1/3 points")
    assert len(lines) >= 3
    capsys.readouterr()
    threading.Event().wait(0.02)  # stopped: no line after the end
    assert "one long step" not in capsys.readouterr().err


def test_progress_line_logs_without_a_terminal_and_not_when_quiet(capsys, monkeypatch):
    monkeypatch.setattr(_common, "LOG_INTERVAL", 0.001)
    assert not _common.err_console.is_terminal  # pytest captures stderr
    with ProgressLine("demo", total=4, unit="loads") as bar:
        bar.update(2)
        lines = _wait_for_lines(capsys, 2, "demo: 2/4 loads")
    assert lines and "elapsed" in lines[0] and "left" in lines[0]
    assert "demo: 2/4 loads in" in capsys.readouterr().err  # the final line
    with ProgressLine("hush", total=4, quiet=True) as bar:
        bar.update(2)
        threading.Event().wait(0.02)
    assert "hush" not in capsys.readouterr().err


STUDY = """\
[study]
name = "logged"
kind = "topology"
[parameters]
topology = ["kant:k=2,n=2", "mikant:k=2,n=3", "clos:k=2,n=2"]
distances = "all"
"""


def test_a_sweep_without_a_terminal_states_its_estimate_and_logs_progress(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(_common, "LOG_INTERVAL", 0.0005)
    study = tmp_path / "s.toml"
    study.write_text(STUDY)
    assert main(["sweep", str(study), "-o", str(tmp_path / "out"), "--workers", "0"]) == 0
    err = capsys.readouterr().err
    assert "logged: 3 points; estimated run time unknown" in err
    est = tmp_path / "e.toml"
    est.write_text(STUDY.replace('kind = "topology"', 'kind = "topology"\nestimated_minutes = 2'))
    assert main(["sweep", str(est), "-o", str(tmp_path / "out2"), "--workers", "0"]) == 0
    assert "logged: 3 points; estimated run time about 2 min on 2 cores" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["study", "equal-cost", "--full"], "full=True is invalid for study 'equal-cost'"),
        (["study", "flagshp", "--full"], "did you mean 'flagship'"),
    ],
)
def test_full_is_refused_where_there_is_no_full_scale(argv, message, capsys, tmp_path):
    assert main([*argv, "-o", str(tmp_path / "o")]) == 2
    assert message in capsys.readouterr().err


def test_the_default_flagship_is_smaller_than_its_full_scale_one_flag_away():
    from fattree.sweep.study import builtin_study

    small, full = builtin_study("flagship"), builtin_study("flagship-full")
    assert [e.name for e in small.experiments] == [e.name for e in full.experiments]
    assert small.report["reproduce"] == full.report["reproduce"]
    assert len(small.points()) < len(full.points())
    assert full.estimated_minutes and small.seed == full.seed


def test_a_study_logs_its_points_then_each_later_stage(capsys, monkeypatch):
    from types import SimpleNamespace

    from fattree.commands.sweep import _Bar

    monkeypatch.setattr(_common, "LOG_INTERVAL", 0.001)

    def p(done, total):
        return SimpleNamespace(
            done=done, total=total, ok=True, skipped=0, config_hash="", message=""
        )

    with _Bar("flagship", quiet=False) as bar:
        bar(p(0, 5))
        bar(p(2, 5))
        assert _wait_for_lines(capsys, 2, "flagship: 2/5 points")
        bar(p(5, 5))
        bar.print("reproduce 000-fig9")
        assert _wait_for_lines(capsys, 2, "flagship: reproduce 000-fig9: running")
