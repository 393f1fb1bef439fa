"""Time what the tests check without timing it: refusals that must come before any work,
requests refused with their estimate (memory, all-pairs work), the memory guard, an
unreachable scheduler (targets: 5 s, 5 s, 1 s, 20 s on 2 cores).

The tests assert the outcome (one-line error, nothing created, nothing built); this
benchmark measures how long the outcome takes, which depends on the machine.

Run: .venv/bin/python benchmarks/responsiveness.py
"""

from __future__ import annotations

import contextlib
import io
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fattree.cli import main
from fattree.errors import ResourceError
from fattree.sim.memory import check_memory


def _cli(argv) -> tuple[int, float]:
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        rc = main(argv)
    return rc, time.perf_counter() - t0


def _report(what: str, seconds: float, target: float) -> None:
    verdict = "OK" if seconds < target else "SLOWER THAN"
    print(f"{what}: {seconds:.3f} s -> {verdict} {target:g} s target")


def main_() -> None:
    root = Path(tempfile.mkdtemp())
    nodir = root / "no-such-dir"
    early = [
        ["simulate", "kant:k=2,n=2", "--loads", "0.05:1.0:0.05", "-o", f"{nodir}/curve.csv"],
        ["faults", "mikant:k=2,n=3", "--trials", "100000", "-o", f"{nodir}/p.png"],
        ["reproduce", "000-table1", "-o", f"{nodir}/sub/out"],
        ["draw", "kant:k=2,n=2", "-o", f"{nodir}/x.svg"],
    ]
    for argv in early:  # tests/cli/test_hardening.py: output paths checked before any work
        rc, sec = _cli(argv)
        assert rc == 2, argv
        _report(f"refused before work: {' '.join(argv[:2])}", sec, 5.0)

    refused = [  # tests/cli/test_hardening.py: refused at once, with the estimate
        ["simulate", "mikant:k=4,n=5", "--load", "0.1"],  # (the test shrinks the memory)
        ["simulate", "mikant:k=8,n=7", "--load", "0.1"],
        ["routing", "check", "mikant:k=8,n=7"],
        ["routing", "load", "mikant:k=8,n=7"],
        ["deadlock", "mikant:k=8,n=7"],
        ["routing", "check", "mikant:k=4,n=5", "--max-seconds", "0.01"],
    ]
    for argv in refused[1:]:
        rc, sec = _cli(argv)
        assert rc == 2, argv
        _report(f"refused with the estimate: {' '.join(argv)}", sec, 5.0)
    from fattree.topology import family

    real, family.available_memory = family.available_memory, lambda: 2**20
    try:
        rc, sec = _cli(refused[0])
    finally:
        family.available_memory = real
    assert rc == 2
    _report(f"refused with 1 MiB free: {' '.join(refused[0])}", sec, 5.0)

    t0 = time.perf_counter()  # tests/cli/test_hardening.py: the memory guard builds nothing
    try:
        check_memory("mikant:k=8,n=7", load=0.1, available=16 * 2**30)
    except ResourceError:
        pass
    _report("memory guard refuses mikant:k=8,n=7", time.perf_counter() - t0, 1.0)

    with socket.socket() as s:  # tests/cli/test_sweep_cli.py, tests/sweep/test_engine.py
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    study = root / "s.toml"
    study.write_text('[study]\nkind = "topology"\n[parameters]\ntopology = "kant:k=2,n=2"\n')
    fattree = str(Path(sys.executable).with_name("fattree"))
    t0 = time.perf_counter()
    r = subprocess.run(
        [
            fattree,
            "sweep",
            str(study),
            "-o",
            str(root / "r"),
            "--scheduler",
            f"tcp://127.0.0.1:{port}",
            "--connect-timeout",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "unreachable" in r.stderr
    _report(
        "unreachable scheduler, --connect-timeout 2, process start included",
        time.perf_counter() - t0,
        20.0,
    )


if __name__ == "__main__":
    main_()
