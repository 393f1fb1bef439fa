"""CPU seconds of the command line's first contact: ``fattree --version``, ``--help``,
``families`` (target: under 0.3 s each) and ``info kant:k=4,n=3`` (target: under 1 s warm).

Each command runs in a fresh process, once to warm the caches (numba's, Python's bytecode:
the children run with ``PYTHONDONTWRITEBYTECODE`` unset, as an installed package does), then
``--repeat`` times (default 5); the CPU time of the child (user + system, from
``resource.getrusage(RUSAGE_CHILDREN)``) is printed as the median and the best of the runs,
so that a busy machine inflates the figures less than wall time would.
``tests/cli/test_startup.py`` checks the structure behind these figures (which modules the
light commands import) without timing anything.

Run: .venv/bin/python benchmarks/cli_startup.py [--repeat N] [--blas]

``--blas`` also times ``route`` on MiKANT(3,4), a command that loads numba's CPU target,
as fattree runs it (numba's first check for scipy's BLAS answered without importing
``scipy.linalg``: ``fattree.compiling.check_blas_lazily``) and with numba's own check
(the patch skipped), the two alternating run by run.
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


#: a command whose process loads numba's CPU target (the routing kernels)
ROUTE = ["route", "mikant:k=3,n=4", "n0.2.0.0.0", "n1.0.0.0.0"]
#: the command line with numba's own BLAS check (marking ensure_blas patched already)
_EAGER = (
    "import sys, numba.np.linalg as L; L.ensure_blas.lazy_by_fattree = True; "
    "from fattree.cli import main; sys.exit(main(sys.argv[1:]))"
)


def compare_blas(repeat: int) -> None:
    """Median CPU seconds of ``route`` with the lazy and with numba's own BLAS check."""
    lazy = [
        sys.executable,
        "-c",
        "import sys; from fattree.cli import main; sys.exit(main(sys.argv[1:]))",
    ]
    eager = [sys.executable, "-c", _EAGER]
    cpu_seconds([*lazy, *ROUTE])
    runs: dict[str, list[float]] = {"lazy (fattree)": [], "numba's own": []}
    for _ in range(repeat):
        runs["lazy (fattree)"].append(cpu_seconds([*lazy, *ROUTE]))
        runs["numba's own"].append(cpu_seconds([*eager, *ROUTE]))
    print(f"fattree {' '.join(ROUTE)}, BLAS check ({repeat} runs each, interleaved):")
    for name, r in runs.items():
        print(f"  {name:<16} median {statistics.median(r):.3f}  best {min(r):.3f} CPU s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each command")
    ap.add_argument("--blas", action="store_true", help="also compare the BLAS check")
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
    if args.blas:
        compare_blas(args.repeat)


if __name__ == "__main__":
    main()
