"""Faults across families in the flagship (reproduction 001-fig8b)."""

from __future__ import annotations

import pytest

from fattree.report.fault_comparison import saturation_vs_faults
from fattree.report.reproduce import reproduce
from fattree.sweep.study import builtin_study


def test_saturation_degrades_and_stays_under_the_bound():
    df = saturation_vs_faults(
        ("kant:k=2,n=3", "mikant:k=2,n=3"), (0.0, 0.15), warmup=60, measure=240
    )
    assert set(df["algorithm"]) == {"detour", "updown-table", "escape"}
    assert (df["accepted"] <= df["bound"] * 1.02).all() and not df["deadlock"].any()
    clean = df[df.rate == 0.0]
    assert (clean["unroutable_share"] == 0).all() and (clean["faulty_links"] == 0).all()
    hurt = df[df.rate > 0]
    assert (hurt["faulty_links"] > 0).all() and (hurt["unroutable_share"] > 0).any()


def test_worker_processes_give_the_same_frame():
    args = (("kant:k=2,n=3", "mikant:k=2,n=2"), (0.0, 0.15))
    one = saturation_vs_faults(*args, warmup=30, measure=90)
    seen = []
    two = saturation_vs_faults(
        *args, warmup=30, measure=90, workers=2, progress=lambda i, n: seen.append((i, n))
    )
    assert one.equals(two)
    assert seen == [(1, 2), (2, 2)]


def test_kept_points_are_read_back_not_simulated_again(tmp_path, monkeypatch):
    """A second call with the same points and settings reads every row from ``keep``
    (the same frame, nothing simulated); other settings, a damaged file or another
    version of the sources compute the point again."""
    from fattree.report import fault_comparison as fc

    args = (("kant:k=2,n=3",), (0.0, 0.15))
    kw = dict(warmup=30, measure=90, keep=tmp_path / "points")
    first = saturation_vs_faults(*args, **kw)
    assert first.equals(saturation_vs_faults(*args, warmup=30, measure=90))
    files = sorted((tmp_path / "points").glob("*.json"))
    assert len(files) == len(first) == 4

    ran = []
    real = fc._saturation_point
    monkeypatch.setattr(fc, "_saturation_point", lambda p, s: ran.append(p) or real(p, s))
    again = saturation_vs_faults(*args, **kw)
    assert again.equals(first) and ran == []

    files[0].write_text("{damaged")
    assert saturation_vs_faults(*args, **kw).equals(first) and len(ran) == 1
    saturation_vs_faults(*args, **{**kw, "measure": 120})  # other settings: all again
    assert len(ran) == 1 + 4
    monkeypatch.setattr(fc, "_code_version", lambda: "another version of the sources")
    saturation_vs_faults(*args, **kw)
    assert len(ran) == 1 + 4 + 4


def test_the_flagship_reports_it():
    for name in ("flagship", "flagship-full", "flagship-quick"):
        assert "001-fig8b" in builtin_study(name).report["reproduce"]


@pytest.mark.slow
def test_quick_entry_runs_and_writes(tmp_path):
    # in this process: the worker processes give the same frame (the test above)
    (r,) = reproduce("001-fig8b", tmp_path, quick=True, workers=0)
    assert r.status in ("no verdict", "agree"), r.finding
    assert "Success ratio at 0.1 link faults" in r.finding
    assert set(r.tables["saturation"]["family"]) == {"mikant", "kant", "clos"}
    assert len(list((tmp_path / "001-fig8b").glob("*.png"))) >= 2
    assert len(list((tmp_path / "001-fig8b" / "points").glob("*.json"))) == len(
        r.tables["saturation"]
    )
