"""The store under hand-edited manifests, deleted parts, kills at random moments and
interrupts: one line or a warning, never a crash; nothing lost, duplicated or changed."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from fattree.cli import main
from fattree.errors import DamagedDataWarning, InputFileError
from fattree.sweep.engine import run_study
from fattree.sweep.store import ResultStore
from fattree.sweep.study import parse_study

STUDY = """\
[study]
name = "robust"
kind = "topology"
seed = 3
[parameters]
topology = ["kant:k=2,n=2", "kant:k=2,n=3", "mikant:k=2,n=3", "clos:k=2,n=2"]
distances = "all"
"""


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def _metrics(df):
    """The stored values that must not depend on where, when or how a point ran."""
    drop = {"started_at", "finished_at", "host", "pid", "wall_seconds", "compile_seconds"}
    drop |= {"fattree_version", "study", "experiment"}
    cols = [c for c in df.columns if c not in drop and not c.endswith("_s")]
    return df[cols].sort_values("config_hash").reset_index(drop=True)


@pytest.fixture
def store(tmp_path):
    out = tmp_path / "r"
    run_study(parse_study(STUDY), out, workers=0)
    return out


def _edit(out: Path, **fields):
    m = json.loads((out / "manifest.json").read_text())
    m.update(fields)
    (out / "manifest.json").write_text(json.dumps(m))


# ------------------------------------------------------------------ the manifest's log
def test_points_append_to_the_log_not_rewrite_the_manifest(tmp_path):
    st = ResultStore(tmp_path / "r", create=True)
    before = (tmp_path / "r" / "manifest.json").read_bytes()
    for i in range(20):
        st.write_row(
            {"config_hash": f"{i:064x}", "x": float(i)}, config_columns=[], metric_columns=["x"]
        )
    assert (tmp_path / "r" / "manifest.json").read_bytes() == before  # not rewritten
    assert len((tmp_path / "r" / "manifest.log").read_text().splitlines()) == 20
    again = ResultStore(tmp_path / "r")  # the log is replayed
    assert len(again.manifest["files"]) == 20 and again.verify() == []
    st.flush()
    assert not (tmp_path / "r" / "manifest.log").exists()
    assert len(json.loads((tmp_path / "r" / "manifest.json").read_text())["files"]) == 20


def test_a_torn_log_line_and_a_replayed_log_are_harmless(store):
    log = store / "manifest.log"
    st = ResultStore(store)
    entries = [
        {"file": k, **rec} for k, rec in st.manifest["files"].items()
    ]  # already folded into manifest.json: replaying them again changes nothing
    text = "".join(json.dumps(e) + "\n" for e in entries)
    log.write_text(text + text[: len(text) // 3 * 2 // 2])  # a killed append: torn line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = ResultStore(store)
        assert again.verify(quarantine=False) == []
        assert len(again.read()) == 4


# ------------------------------------------------------------------ hand-edited manifests
@pytest.mark.parametrize(
    "fields",
    [
        {"format_version": "1"},
        {"format_version": ["a", 0]},
        {"format_version": None},
        {"format_version": [1.5, 0]},
        {"written_by": 3},
        {"written_by": None},
        {"written_by": ""},
    ],
)
def test_malformed_identity_fields_are_one_line(store, fields):
    _edit(store, **fields)
    with pytest.raises(InputFileError, match="manifest.json: (format_version|written_by)="):
        ResultStore(store)
    for argv in (["results", store], ["report", store, "-o", store.parent / "x.html"]):
        rc, _, err = run(argv)
        assert rc == 2 and len(err.strip().splitlines()) == 1, err
    rc, _, err = run(["sweep", store.parent / "s.toml", "-o", store])
    assert rc == 2


@pytest.mark.parametrize(
    "fields",
    [
        {"files": None},
        {"files": []},
        {"files": "x"},
        {"files": {"parts/a.parquet": "bad"}},
        {"studies": None},
        {"studies": [1, 2]},
        {"studies": {"robust": 5}},
        {"studies": {"robust": {"report": "x", "source": 4, "last_run": None}}},
        {"studies": {"robust": {"report": {"plots": 3, "title": ["x"], "logy": "yes"}}}},
    ],
)
def test_malformed_records_warn_and_nothing_intact_looks_damaged(store, fields):
    _edit(store, **fields)
    with pytest.warns(DamagedDataWarning, match="malformed|not a table"):
        st = ResultStore(store)
    assert st.verify(quarantine=False) == []
    rc, out, err = run(["results", store, "--json"])
    assert rc == 0 and len(json.loads(out)) == 4
    rc, _, err = run(["report", store, "-o", store.parent / "r.html"])
    assert rc == 0, err
    (store.parent / "s.toml").write_text(STUDY)
    rc, _, err = run(["sweep", store.parent / "s.toml", "-o", store, "--workers", "0", "-q"])
    assert rc == 0 and not (store / "quarantine").exists(), err


@pytest.mark.parametrize("field", ["sha256", "bytes"])
def test_emptied_checksum_fields_do_not_quarantine_intact_parts(store, field):
    m = json.loads((store / "manifest.json").read_text())
    for rec in m["files"].values():
        rec[field] = "" if field == "sha256" else None
    (store / "manifest.json").write_text(json.dumps(m))
    with pytest.warns(DamagedDataWarning):
        st = ResultStore(store)
    assert st.verify(quarantine=False) == [] and len(st.read()) == 4


# ------------------------------------------------------------------ deleted parts
def test_a_deleted_part_is_reported_and_recomputed(store, tmp_path):
    victim = sorted((store / "parts").glob("*.parquet"))[1]
    victim.unlink()
    rc, out, err = run(["results", store])
    assert rc == 0 and "warning:" in err and "missing" in err and victim.name in err
    (tmp_path / "s.toml").write_text(STUDY)
    rc, out, err = run(["sweep", tmp_path / "s.toml", "-o", store, "--workers", "0", "-q"])
    assert rc == 0 and "1 points stored, 3 already done" in out
    assert victim.exists()
    rc, _, err = run(["results", store])
    assert rc == 0 and "warning" not in err


# ------------------------------------------------------------------ kills and interrupts
SLOW = """\
[study]
name = "kills"
kind = "topology"
seed = 11
[parameters]
topology = [{topos}]
distances = "all"
"""
TOPOS = ", ".join(f'"kant:k={k},n=3"' for k in range(4, 12))


def _cli(args, **kw):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen(
        [sys.executable, "-m", "fattree", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **kw,
    )


def _wait_parts(out: Path, n: int, proc) -> bool:
    """Until ``n`` parts are stored; False if the sweep ended first."""
    while proc.poll() is None:
        if (out / "parts").is_dir() and len(list((out / "parts").glob("*.parquet"))) >= n:
            return True
        time.sleep(0.01)
    return False


@pytest.mark.slow
def test_sigkill_at_random_moments_then_resume_loses_and_duplicates_nothing(tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(SLOW.format(topos=TOPOS))
    out = tmp_path / "res"
    rng = random.Random(27)
    for _ in range(3):  # killed three times, at a random moment after a random count
        proc = _cli(["sweep", study, "-o", out, "--workers", "0", "-q"])
        if _wait_parts(out, rng.randint(1, 3), proc):
            time.sleep(rng.random() * 0.5)
            proc.kill()
        proc.wait()
        partial = ResultStore(out).read()
        assert partial["config_hash"].is_unique
    done = run_study(parse_study(study.read_text()), out, workers=0)
    assert done.skipped + done.done == 8 and not done.failed
    full = ResultStore(out).read()
    assert len(full) == 8 and full["config_hash"].is_unique
    run_study(parse_study(study.read_text()), tmp_path / "clean", workers=0)
    assert _metrics(full).equals(_metrics(ResultStore(tmp_path / "clean").read()))


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_interrupt_says_what_was_kept_and_how_to_resume(tmp_path, sig):
    study = tmp_path / "s.toml"
    study.write_text(SLOW.format(topos=TOPOS))
    out = tmp_path / "res"
    proc = _cli(["sweep", study, "-o", out, "--workers", "0", "-q"])
    assert _wait_parts(out, 2, proc), proc.communicate()
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    lines = stderr.decode().strip().splitlines()
    # the point in progress when the signal came (if any) is finished and stored first
    notice = [ln for ln in lines if ln.startswith("stopping after the point in progress")]
    assert proc.returncode == 130 and len(lines) == 1 + len(notice) <= 2, stderr.decode()
    assert lines[-1].startswith("interrupted: ") and "again to resume" in lines[-1]
    assert "Traceback" not in stderr.decode()
    kept = len(ResultStore(out).finished())
    assert f"{kept} in all" in lines[-1] and kept >= 2
    rc, stdout, _ = run(["sweep", study, "-o", out, "--workers", "0", "-q"])
    assert rc == 0 and f"{8 - kept} points stored, {kept} already done" in stdout


def test_deeply_nested_or_garbage_manifest_is_one_line(store):
    for text in ("[" * 100_000, "\x00\x01", '{"format": "fattree-results"'):
        (store / "manifest.json").write_text(text)
        with pytest.raises(InputFileError, match="manifest"):
            ResultStore(store)
        rc, _, err = run(["results", store])
        assert rc == 2 and len(err.strip().splitlines()) == 1 and "internal" not in err
