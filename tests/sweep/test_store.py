"""The Parquet results store: atomic writes, dedupe, resume, locking, version refusal."""

from __future__ import annotations

import json
import os

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from fattree.errors import InputFileError, ParameterError
from fattree.sweep.engine import run_study
from fattree.sweep.store import ResultStore, atomic_write, query, translate_where
from fattree.sweep.study import parse_study

STUDY = """\
[study]
name = "store"
kind = "topology"
seed = 5
[parameters]
topology = ["kant:k=2,n=2", "kant:k=2,n=3", "mikant:k=2,n=3", "clos:k=2,n=2"]
distances = "all"
"""


def _row(h: str, **kw):
    return {"config_hash": h, "load": 0.5, "latency": 10.0, **kw}


def _snapshot(path):
    """(relative path, size, mtime_ns, bytes) of every file under ``path``."""
    out = {}
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            st = os.stat(p)
            out[os.path.relpath(p, path)] = (st.st_size, st.st_mtime_ns, open(p, "rb").read())
    return out


def test_round_trip_roles_and_one_file_per_point(tmp_path):
    st = ResultStore(tmp_path / "r", create=True)
    for i in range(3):
        st.write_row(
            _row(f"{i:064x}", latency=float(i)), config_columns=["load"], metric_columns=["latency"]
        )
    df = st.read()
    assert sorted(df["latency"]) == [0.0, 1.0, 2.0]
    assert df.attrs["config_columns"] == ["load"] and df.attrs["metric_columns"] == ["latency"]
    assert sorted(p.name for p in (tmp_path / "r" / "parts").iterdir()) == [
        f"{i:064x}.parquet" for i in range(3)
    ]
    assert st.finished() == {f"{i:064x}" for i in range(3)}
    with pytest.raises(ParameterError, match="config_hash"):
        st.write_row({"config_hash": "x"}, config_columns=[], metric_columns=[])


def test_failed_write_leaves_nothing_behind(tmp_path):
    target = tmp_path / "x.parquet"

    def broken(fh):
        fh.write(b"PAR1 half a file")
        raise OSError("disk full")

    with pytest.raises(OSError):
        atomic_write(target, broken)
    assert list(tmp_path.iterdir()) == []
    atomic_write(target, lambda fh: fh.write(b"whole"))
    with pytest.raises(OSError):
        atomic_write(target, broken)
    assert target.read_bytes() == b"whole"  # the old version survives a failed rewrite


def test_stray_temporaries_are_ignored_and_cleaned(tmp_path):
    st = ResultStore(tmp_path / "r", create=True)
    st.write_row(_row("a" * 64), config_columns=["load"], metric_columns=["latency"])
    # what a SIGKILL during a write leaves: a temporary with a partial file
    stray = st.parts / f".tmp-{'b' * 64}.parquet.123.abcd1234"
    stray.write_bytes(b"PAR1\x00\x00 truncated")
    assert len(st.read()) == 1 and st.finished() == {"a" * 64}
    with st.lock():
        assert not stray.exists()


def test_rewrites_and_compaction_never_duplicate(tmp_path):
    st = ResultStore(tmp_path / "r", create=True)
    for i in range(4):
        st.write_row(_row(f"{i:064x}"), config_columns=["load"], metric_columns=["latency"])
    st.write_row(
        _row(f"{0:064x}", latency=99.0), config_columns=["load"], metric_columns=["latency"]
    )
    assert len(st.read()) == 4
    with st.lock():
        assert st.compact() == 4
    assert list(st.parts.iterdir()) == [] and len(list(st.data.iterdir())) == 1
    df = st.read()
    assert len(df) == 4 and df["config_hash"].is_unique
    assert df.attrs["metric_columns"] == ["latency"]
    # a crash between writing the merged file and deleting the parts leaves both
    compacted = next(st.data.iterdir())
    t = pq.read_table(compacted)
    for h in t.column("config_hash").to_pylist()[:2]:
        pq.write_table(t.filter(pc.equal(t.column("config_hash"), h)), st.parts / f"{h}.parquet")
    df = st.read()
    assert len(df) == 4 and df["config_hash"].is_unique
    assert st.finished() == {f"{i:064x}" for i in range(4)}


def test_resume_skips_finished_points_and_keeps_rows(tmp_path):
    study = parse_study(STUDY)
    first = run_study(study.select([study.experiments[0].name]), tmp_path / "r", workers=0)
    assert (first.done, first.skipped) == (4, 0)
    before = ResultStore(tmp_path / "r").read()
    # remove one finished point as if the sweep had died before writing it
    os.unlink(tmp_path / "r" / "parts" / f"{before['config_hash'][2]}.parquet")
    again = run_study(study, tmp_path / "r", workers=0)
    assert (again.done, again.skipped) == (1, 3)
    after = ResultStore(tmp_path / "r").read()
    assert len(after) == 4 and after["config_hash"].is_unique
    cols = ["config_hash", "seed", "nodes", "links", "diameter", "avg_distance"]
    assert after[cols].equals(before[cols])
    assert run_study(study, tmp_path / "r", workers=0).skipped == 4


def test_folder_written_by_newer_version_is_refused_untouched(tmp_path):
    d = tmp_path / "r"
    run_study(parse_study(STUDY), d, workers=0)
    for change in ({"format_version": [2, 0]}, {"written_by": "9.0.0"}):
        m = json.loads((d / "manifest.json").read_text())
        m.update(change)
        (d / "manifest.json").write_text(json.dumps(m))
        before = _snapshot(d)
        with pytest.raises(InputFileError, match="upgrade fattree") as exc:
            run_study(parse_study(STUDY), d, workers=0)
        assert "\n" not in str(exc.value)
        with pytest.raises(InputFileError, match="was written by fattree"):
            ResultStore(d).read()
        assert _snapshot(d) == before
        m.update({"format_version": [1, 0], "written_by": "0.1.0"})
        (d / "manifest.json").write_text(json.dumps(m))


def test_foreign_or_missing_folders(tmp_path):
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(InputFileError, match="not a fattree results folder"):
        ResultStore(tmp_path / "other", create=True)
    assert os.listdir(tmp_path / "other") == ["notes.txt"]
    with pytest.raises(InputFileError, match="does not exist"):
        ResultStore(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    ResultStore(tmp_path / "empty", create=True)  # an empty folder is adopted
    assert (tmp_path / "empty" / "manifest.json").exists()


def test_one_writer_at_a_time(tmp_path):
    st = ResultStore(tmp_path / "r", create=True)
    with st.lock():
        with pytest.raises(InputFileError, match=f"another sweep \\(pid {os.getpid()}\\)"):
            with ResultStore(tmp_path / "r").lock():
                pass
    with ResultStore(tmp_path / "r").lock():
        pass


def test_where_translation_and_safety():
    import pandas as pd

    df = pd.DataFrame(
        {
            "family": ["mikant", "clos", "mikant"],
            "load": [0.1, 0.5, 0.9],
            "traffic": ["uniform", "bitcomp", "a=b"],
        }
    )
    assert query(df, "family='mikant' AND load >= 0.5")["load"].tolist() == [0.9]
    assert query(df, "family <> 'mikant'")["family"].tolist() == ["clos"]
    assert query(df, "traffic = 'a=b'")["load"].tolist() == [0.9]
    assert query(df, "load = 0.5 or family == 'x'")["family"].tolist() == ["clos"]
    assert translate_where("a<=1 and b>=2 and c!=3") == "a<=1 and b>=2 and c!=3"
    for bad in ("@x == 1", "family.__class__ == 1", "load == 1; x", "family = 'open"):
        with pytest.raises(ParameterError):
            query(df, bad)
    with pytest.raises(ParameterError, match="unknown column 'famly' \\(did you mean 'family'"):
        query(df, "famly = 'x'")
