"""The sweep engine on a real Dask LocalCluster: retries after a killed worker, a killed
sweep resumed without duplicates or corruption, results independent of the worker count."""

from __future__ import annotations

import importlib.util
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

# the file-synchronised experiment kind of the kill tests (also preloaded by Dask workers)
_spec = importlib.util.spec_from_file_location(
    "blocking_kind", Path(__file__).with_name("blocking_kind.py")
)
blocking_kind = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(blocking_kind)


# Three quick points, then five that wait for a release flag (tests/sweep/blocking_kind.py):
# a sweep killed once two points are stored is surely mid-sweep, however loaded the machine.
def _slow(flags) -> str:
    return f"""\
[study]
name = "slow"
kind = "block-for-test"
[parameters]
flags = "{flags}"
name = ["a", "b", "c", "long1", "long2", "long3", "long4", "long5"]
"""


# One point that waits for a release flag among quick ones, for killing the worker that
# runs it (the point announces itself with a started flag).
def _long(flags) -> str:
    return f"""\
[study]
name = "long"
kind = "block-for-test"
[parameters]
flags = "{flags}"
name = ["long", "a", "bb", "ccc"]
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

# a Dask cluster, subprocess sweeps and kills: the whole module is in the slow tier
pytestmark = pytest.mark.slow


def _metrics(df):
    """The stored metrics that must not depend on where or how a point ran."""
    drop = {
        "elapsed_s",
        "started_at",
        "finished_at",
        "host",
        "pid",
        "build_s",
        "bfs_s",
        "wall_seconds",
        "compile_seconds",
        "fattree_version",
        "study",
        "experiment",
    }
    cols = [c for c in df.columns if c not in drop]
    return df[cols].sort_values("config_hash").reset_index(drop=True)


@pytest.fixture(scope="module")
def client():
    import dask
    from distributed import Client, LocalCluster

    # workers (and those restarted after a kill) preload the blocking kind
    with (
        blocking_kind.registered(),
        dask.config.set({"distributed.worker.preload": blocking_kind.PRELOAD}),
    ):
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
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
    flags = tmp_path / "flags"
    flags.mkdir()
    study = parse_study(_long(flags))
    pts = {p.params["name"]: p for p in study.points()}
    killed = {}

    def killer():
        # the event: the long point's started flag names the worker process running it
        started = blocking_kind.wait_for(
            lambda: sorted(flags.glob("started-long-*")), "the long point to start"
        )
        pid = int(started[0].name.rsplit("-", 1)[1])
        os.kill(pid, signal.SIGKILL)
        killed["pid"] = pid
        assert _gone(pid, timeout=60)
        (flags / "release").touch()  # the retried point may now finish

    t = threading.Thread(target=killer)
    t.start()
    summary = run_study(study, tmp_path / "killed", client=client)
    t.join()
    assert killed, "no worker was executing the long point"
    assert summary.done == 4 and not summary.failed
    df = ResultStore(tmp_path / "killed").read()
    row = df[df["config_hash"] == pts["long"].config_hash].iloc[0]
    assert row["pid"] != killed["pid"]  # finished by another (or the restarted) worker
    assert len(list(flags.glob("started-long-*"))) == 2  # killed once, run again once
    run_study(study, tmp_path / "clean", workers=0)
    assert _metrics(df).equals(_metrics(ResultStore(tmp_path / "clean").read()))


def test_sigkill_the_sweep_then_resume(tmp_path):
    flags = tmp_path / "flags"
    flags.mkdir()
    slow = _slow(flags)
    study_file = tmp_path / "slow.toml"
    study_file.write_text(slow)
    out = tmp_path / "res"
    # the CLI in a child process that knows the blocking kind (its workers preload it)
    main = (
        "import sys; sys.path.insert(0, sys.argv.pop(1)); import blocking_kind; "
        "blocking_kind.register(); from fattree.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    cmd = [
        sys.executable,
        "-c",
        main,
        str(blocking_kind.HERE),
        "sweep",
        str(study_file),
        "-o",
        str(out),
        "--workers",
        "2",
        "-q",
    ]
    children: set[int] = set()
    with blocking_kind.registered():
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:

        def two_stored():
            children.update(c.pid for c in psutil.Process(proc.pid).children(recursive=True))
            assert proc.poll() is None, proc.communicate()
            parts = list((out / "parts").glob("*.parquet")) if (out / "parts").exists() else []
            return len(parts) >= 2

        blocking_kind.wait_for(two_stored, "two stored points")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        (flags / "release").touch()  # blocked workers may finish their point and go
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
    assert 2 <= len(partial) <= 3, "the kill lands while the long points wait"
    assert partial["config_hash"].is_unique
    with blocking_kind.registered():
        # resume in this process: only the missing points run, nothing is duplicated
        resumed = run_study(parse_study(slow), out, workers=0)
        assert (resumed.skipped, resumed.done) == (len(partial), 8 - len(partial))
        full = ResultStore(out).read()
        assert len(full) == 8 and full["config_hash"].is_unique
        assert not list((out / "parts").glob(".tmp-*"))
        run_study(parse_study(slow), tmp_path / "clean", workers=0)
    assert _metrics(full).equals(_metrics(ResultStore(tmp_path / "clean").read()))
    # the rows the killed sweep had stored are exactly those of the clean run
    clean = _metrics(ResultStore(tmp_path / "clean").read())
    assert _metrics(partial).equals(
        clean[clean["config_hash"].isin(partial["config_hash"])].reset_index(drop=True)
    )


def test_task_errors_are_recorded_and_retried_on_rerun(tmp_path):
    study = parse_study(
        '[study]\nkind = "topology"\n[parameters]\n'
        'topology = ["kant:k=2,n=2", "mikant:k=64,n=6"]\ndistances = "none"\n'
    )
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
    study = parse_study('[study]\nkind = "topology"\n[parameters]\ntopology = "kant:k=2,n=2"\n')
    with pytest.raises(
        ParameterError, match="unreachable"
    ):  # how fast: benchmarks/responsiveness.py
        run_study(study, tmp_path / "r", scheduler=f"tcp://127.0.0.1:{port}", connect_timeout=1.5)
    assert not (tmp_path / "r").exists()  # nothing was created
    with pytest.raises(ParameterError, match="scheduler"):
        connect("", 1)
