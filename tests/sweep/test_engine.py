"""The sweep engine on a real Dask LocalCluster: retries after a killed worker, a killed
sweep resumed without duplicates or corruption, results independent of the worker count."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from fattree.errors import ParameterError
from fattree.sweep.engine import connect, run_study
from fattree.sweep.store import ResultStore
from fattree.sweep.study import parse_study

# Points that take 0.05-1 s each (all-pairs BFS from every node, brute force); the
# machine may be loaded, so the tests never depend on how long a point takes.
SLOW = """\
[study]
name = "slow"
kind = "topology"
[parameters]
topology = ["kant:k=4,n=5", "clos:k=4,n=5", "mikant:k=4,n=5", "mikant:k=6,n=4",
            "kant:k=6,n=4", "clos:k=6,n=4", "kant:k=4,n=6", "clos:k=3,n=6"]
distances = "all"
"""

# One long point among short ones, for killing a worker while it runs the long one.
LONG = """\
[study]
name = "long"
kind = "topology"
[parameters]
topology = ["mikant:k=10,n=4", "kant:k=2,n=3", "mikant:k=2,n=3", "clos:k=2,n=2"]
distances = "all"
"""

# Seeded points: Monte Carlo fault trials and a tiny simulation, so equal results
# across worker counts are a real test of the per-point seeds.
SEEDED = """\
[study]
name = "seeded"
seed = 11

[[experiment]]
name = "faults"
kind = "faults"
[experiment.parameters]
topology = "mikant:k=3,n=3"
algorithm = ["sp", "gns"]
rate = [0.1, 0.3, 0.5]
trials = 400

[[experiment]]
name = "sim"
kind = "simulate"
[experiment.parameters]
topology = "kant:k=2,n=2"
load = [0.2, 0.6]
packets_per_source = 15
"""

FATTREE = str(Path(sys.executable).with_name("fattree"))


def _metrics(df):
    """The stored metrics that must not depend on where or how a point ran."""
    drop = {"elapsed_s", "started_at", "finished_at", "host", "pid", "build_s", "bfs_s",
            "wall_seconds", "compile_seconds", "fattree_version", "study", "experiment"}
    cols = [c for c in df.columns if c not in drop]
    return df[cols].sort_values("config_hash").reset_index(drop=True)


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    c = Client(cluster, set_as_default=False)
    yield c
    c.close()
    cluster.close()


def test_same_results_serial_one_and_two_workers(tmp_path, client):
    study = parse_study(SEEDED)
    serial = run_study(study, tmp_path / "serial", workers=0)
    assert serial.done == 8 and not serial.failed
    two = run_study(study, tmp_path / "two", client=client)
    one = run_study(study, tmp_path / "one", workers=1)
    # the same cluster reached by its address, as `fattree sweep --scheduler` does
    addr = run_study(study, tmp_path / "addr", scheduler=client.scheduler.address)
    assert (two.done, one.done, addr.done) == (8, 8, 8)
    assert (two.workers, one.workers, addr.workers) == (2, 1, 2)
    ref = _metrics(ResultStore(tmp_path / "serial").read())
    assert ref["success_ratio"].notna().sum() == 6 and ref["avg_latency"].notna().sum() == 2
    for d in ("two", "one", "addr"):
        assert _metrics(ResultStore(tmp_path / d).read()).equals(ref)


def _executing(dask_worker):
    return [str(ts.key) for ts in dask_worker.state.executing]


def _gone(pid: int, timeout: float) -> bool:
    """True once the process has exited (or is a zombie); a SIGKILLed process may take a
    moment to tear down on a loaded machine."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.1)
    return False


def test_worker_killed_mid_task_is_retried(tmp_path, client):
    study = parse_study(LONG)
    pts = {f"fattree-point-{p.config_hash}": p for p in study.points()}
    long_keys = {k for k, p in pts.items() if p.params["topology"] == "mikant:k=10,n=4"}
    pids = client.run(os.getpid)
    killed = {}

    def killer():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            running = client.run(lambda dask_worker: [str(ts.key) for ts in
                                                      dask_worker.state.executing])
            for addr, keys in running.items():
                hit = long_keys.intersection(keys)
                if hit and addr in pids:
                    # at once: the point takes ~4 s, so it is surely mid-task
                    os.kill(pids[addr], signal.SIGKILL)
                    killed.update(pid=pids[addr], key=hit.pop())
                    return
            time.sleep(0.05)

    t = threading.Thread(target=killer)
    t.start()
    summary = run_study(study, tmp_path / "killed", client=client)
    t.join()
    assert killed, "no worker was executing the long point"
    assert _gone(killed["pid"], timeout=30)
    assert summary.done == 4 and not summary.failed
    df = ResultStore(tmp_path / "killed").read()
    row = df[df["config_hash"] == pts[killed["key"]].config_hash].iloc[0]
    assert row["pid"] != killed["pid"]  # finished by another (or the restarted) worker
    run_study(study, tmp_path / "clean", workers=0)
    assert _metrics(df).equals(_metrics(ResultStore(tmp_path / "clean").read()))


def test_sigkill_the_sweep_then_resume(tmp_path):
    study_file = tmp_path / "slow.toml"
    study_file.write_text(SLOW)
    out = tmp_path / "res"
    cmd = [FATTREE, "sweep", str(study_file), "-o", str(out), "--workers", "2", "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    children: set[int] = set()
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline:
            children |= {c.pid for c in psutil.Process(proc.pid).children(recursive=True)}
            parts = list((out / "parts").glob("*.parquet")) if (out / "parts").exists() else []
            if len(parts) >= 2:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        # the workers notice that their parent died and exit; make sure of it
        procs = []
        for pid in children:
            try:
                procs.append(psutil.Process(pid))
            except psutil.NoSuchProcess:
                pass
        _, alive = psutil.wait_procs(procs, timeout=15)
        for p in alive:
            p.kill()
    partial = ResultStore(out).read()
    assert 2 <= len(partial) < 8, "the kill should land mid-sweep"
    assert partial["config_hash"].is_unique
    # resume in this process: only the missing points run, nothing is duplicated
    resumed = run_study(parse_study(SLOW), out, workers=0)
    assert (resumed.skipped, resumed.done) == (len(partial), 8 - len(partial))
    full = ResultStore(out).read()
    assert len(full) == 8 and full["config_hash"].is_unique
    assert not list((out / "parts").glob(".tmp-*"))
    run_study(parse_study(SLOW), tmp_path / "clean", workers=0)
    assert _metrics(full).equals(_metrics(ResultStore(tmp_path / "clean").read()))
    # the rows the killed sweep had stored are exactly those of the clean run
    clean = _metrics(ResultStore(tmp_path / "clean").read())
    assert _metrics(partial).equals(
        clean[clean["config_hash"].isin(partial["config_hash"])].reset_index(drop=True))


def test_task_errors_are_recorded_and_retried_on_rerun(tmp_path):
    study = parse_study('[study]\nkind = "topology"\n[parameters]\n'
                        'topology = ["kant:k=2,n=2", "mikant:k=64,n=6"]\ndistances = "none"\n')
    s = run_study(study, tmp_path / "r", workers=0)
    assert s.done == 1 and len(s.failed) == 1 and "GiB" in s.failed[0][1]
    errs = ResultStore(tmp_path / "r").errors()
    assert len(errs) == 1 and errs[0]["config"]["topology"] == "mikant:k=64,n=6"
    again = run_study(study, tmp_path / "r", workers=0)
    assert (again.skipped, len(again.failed)) == (1, 1)


def test_unreachable_scheduler_fails_within_seconds(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(ParameterError, match="unreachable"):
        run_study(parse_study(SLOW), tmp_path / "r", scheduler=f"tcp://127.0.0.1:{port}",
                  connect_timeout=1.5)
    assert time.monotonic() - t0 < 8
    assert not (tmp_path / "r").exists()  # nothing was created
    with pytest.raises(ParameterError, match="scheduler"):
        connect("", 1)
