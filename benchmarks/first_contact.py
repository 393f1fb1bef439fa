"""First contact: what a new user waits for, from an empty numba cache.

Prints, for each command, the wall seconds and the CPU seconds (user + system, the
command and its children) of:

* ``cold``: the first run on a machine whose numba cache is empty (no warmup);
* ``warmup``: ``fattree warmup --only run`` (what ``make install`` runs after pip);
* ``after``: the first run after the warmup (what a user of ``make install`` sees);
* the light commands (``--version``, ``--help``, ``families``) and ``info`` (its first
  call on a graph, which solves the bisection ILP, and a second one);
* with ``--make-run``: ``make run``, then ``make run`` again (nothing new to compute).

Usage::

    python benchmarks/first_contact.py                 # this checkout's interpreter
    python benchmarks/first_contact.py --fresh-clone   # clone HEAD, `make install` there
    python benchmarks/first_contact.py --fresh-clone --make-run   # and then `make run`

Each phase uses its own empty ``NUMBA_CACHE_DIR`` (``--fresh-clone``: the clone's own
cache, in its ``src/``), so nothing compiled before counts. CPU seconds are the honest
figure on a busy machine; say what else was running beside it.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRST = (
    ("simulate", ["simulate", "kant:k=4,n=3", "--load", "0.1"]),
    ("faults", ["faults", "kant:k=4,n=3", "--trials", "10000"]),
    ("booksim", ["simulate", "kant:k=4,n=3", "--model", "booksim", "--load", "0.1"]),
)
LIGHT = (
    ("--version", ["--version"]),
    ("--help", ["--help"]),
    ("families", ["families"]),
)


def run(cmd: list[str], env: dict, cwd: Path | None = None) -> tuple[float, float, int]:
    """(wall s, CPU s of the children, exit code) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    rc = subprocess.run(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    ).returncode
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rc


def line(phase: str, name: str, wall: float, cpu: float, rc: int) -> None:
    bad = "" if rc == 0 else f"  (exit {rc})"
    print(f"{phase:8s} {name:10s} {wall:8.1f} s wall {cpu:8.1f} s CPU{bad}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fresh-clone", action="store_true", help="clone HEAD and make install")
    ap.add_argument("--skip-cold", action="store_true", help="no cold (no-warmup) runs")
    ap.add_argument(
        "--make-run", action="store_true", help="with --fresh-clone: time `make run` after it"
    )
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="fattree-first-"))
    env = dict(os.environ, COLUMNS="120")
    try:
        if args.fresh_clone:
            repo = tmp / "clone"
            subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
            env.pop("NUMBA_CACHE_DIR", None)
            wall, cpu, rc = run(["make", "install"], env, cwd=repo)
            line("install", "make", wall, cpu, rc)
            fattree = [str(repo / ".venv/bin/fattree")]
        else:
            fattree = [sys.executable, "-m", "fattree"]
            if not args.skip_cold:
                for name, cmd in FIRST:  # each from its own empty cache
                    env["NUMBA_CACHE_DIR"] = str(tmp / f"cold-{name}")
                    line("cold", name, *run(fattree + cmd, env))
            env["NUMBA_CACHE_DIR"] = str(tmp / "warm")
            line("warmup", "run", *run(fattree + ["warmup", "--only", "run"], env))
        for name, cmd in FIRST:
            line("after", name, *run(fattree + cmd, env))
        for name, cmd in LIGHT:
            line("light", name, *run(fattree + cmd, env))
        # the first info on a graph solves its bisection ILP; later ones read the kept width
        line("first", "info", *run(fattree + ["info", "kant:k=4,n=3"], env))
        line("warm", "info", *run(fattree + ["info", "kant:k=4,n=3"], env))
        if args.fresh_clone and args.make_run:
            line("make", "run", *run(["make", "run"], env, cwd=repo))
            # a second `make run` has nothing new to compute: it reads what the first kept
            line("again", "make run", *run(["make", "run"], env, cwd=repo))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
