"""CPU seconds of the command line's first contact: ``fattree --version``, ``--help``,
``families`` (target: under 0.3 s each) and ``info kant:k=4,n=3`` (target: under 1 s warm).

Each command runs in a fresh process, once to warm the caches (numba's, Python's bytecode:
the children run with ``PYTHONDONTWRITEBYTECODE`` unset, as an installed package does), then
``--repeat`` times (default 5); the CPU time of the child (user + system, from
``resource.getrusage(RUSAGE_CHILDREN)``) is printed as the median and the best of the runs,
so that a busy machine inflates the figures less than wall time would.
``tests/cli/test_startup.py`` checks the structure behind these figures (which modules the
light commands import) without timing anything.

Run: .venv/bin/python benchmarks/cli_startup.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

#: (arguments, target CPU seconds)
COMMANDS = (
    (["--version"], 0.3),
    (["--help"], 0.3),
    (["families"], 0.3),
    (["info", "kant:k=4,n=3"], 1.0),
)


def _fattree() -> list[str]:
    """The installed ``fattree`` script beside this interpreter, else ``python -m``."""
    script = Path(sys.executable).with_name("fattree")
    return [str(script)] if script.exists() else [sys.executable, "-m", "fattree.cli"]


def cpu_seconds(argv: list[str]) -> float:
    """User + system CPU seconds of one run of ``argv`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        | {"COLUMNS": "100"},
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each command")
    args = ap.parse_args()
    base = _fattree()
    for argv, _ in COMMANDS:  # warm: numba's cache, the bytecode, the OS's file cache
        cpu_seconds([*base, *argv])
    print(f"{'command':<28} {'median':>8} {'best':>8}  target (CPU s, {args.repeat} runs)")
    for argv, target in COMMANDS:
        runs = [cpu_seconds([*base, *argv]) for _ in range(args.repeat)]
        med = statistics.median(runs)
        verdict = "OK" if med < target else "SLOWER THAN"
        print(
            f"{'fattree ' + ' '.join(argv):<28} {med:>8.3f} {min(runs):>8.3f}  {verdict} {target:g}"
        )


if __name__ == "__main__":
    main()
