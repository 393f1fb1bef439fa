"""numba's optimisation level: compile time and warm speed at level 1 (fattree's) and 3.

    .venv/bin/python benchmarks/opt_level.py            # compile, then 3 interleaved rounds
    .venv/bin/python benchmarks/opt_level.py --rounds 1

For each level, in a fresh numba cache folder of its own: the CPU seconds of compiling
the papers' simulator (fault-free and with the generic fault rules) and the fault Monte
Carlo (the first run of each command), then the CPU seconds of warm runs of the same
commands on larger networks, the levels alternating round by round so that a change in
the machine's load hits both alike. Prints the medians, the ratio level 1 / level 3,
and whether the two levels gave the same results (the commands' JSON without its
``*_seconds`` timings). CPU time of the child process (resource.getrusage), so a busy
machine affects the figures less than wall time; say what else was running.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

COMPILE = {
    "simulator": ["simulate", "kant:k=2,n=2", "--load", "0.1", "-P", "20"],
    "fault Monte Carlo": ["faults", "mikant:k=2,n=2", "--trials", "200", "--rates", "0.1"],
    "simulator, generic fault rules": [
        "simulate",
        "kant:k=2,n=2",
        "--load",
        "0.1",
        "-P",
        "20",
        "--fault-rate",
        "0.1",
    ],
}
WARM = {
    "simulate mikant(4,5) load 0.5": ["simulate", "mikant:k=4,n=5", "--load", "0.5", "-P", "1000"],
    "faults mikant(3,3) 100k trials": ["faults", "mikant:k=3,n=3", "--trials", "100000"],
    "simulate kant(4,5), 5 % faults, detour": [
        "simulate",
        "kant:k=4,n=5",
        "--load",
        "0.6",
        "--fault-rate",
        "0.05",
        "-a",
        "detour",
        "-P",
        "300",
    ],
}


def run(args: list[str], level: int, cache: str) -> tuple[float, str]:
    """CPU seconds of one command in a child process, and its JSON minus the timings."""
    env = dict(os.environ, NUMBA_OPT=str(level), NUMBA_CACHE_DIR=cache, COLUMNS="200")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-m", "fattree", *args, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, json.dumps(_results(json.loads(out.stdout)), sort_keys=True)


def _results(d):
    """The JSON without its timings (keys ending in ``_seconds``)."""
    if isinstance(d, dict):
        return {k: _results(v) for k, v in d.items() if not k.endswith("_seconds")}
    if isinstance(d, list):
        return [_results(v) for v in d]
    return d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="interleaved warm rounds")
    ap.add_argument(
        "--cache",
        help="keep the two levels' numba caches in this folder; when they are there "
        "already, only the warm rounds run",
    )
    a = ap.parse_args()
    levels = (1, 3)
    with tempfile.TemporaryDirectory() as tmp:
        base = a.cache or tmp
        caches = {lv: os.path.join(base, f"o{lv}") for lv in levels}
        compiled = a.cache and all(os.path.isdir(c) for c in caches.values())
        print(
            "compile (CPU s, first run in an empty cache):"
            if not compiled
            else f"compile: skipped, the kernels are in {base}"
        )
        for name, args in COMPILE.items() if not compiled else ():
            cpu = {lv: run(args, lv, caches[lv])[0] for lv in levels}
            print(
                f"  {name:34s} level 1 {cpu[1]:6.1f}   level 3 {cpu[3]:6.1f}   "
                f"ratio {cpu[1] / cpu[3]:.2f}"
            )
        print(f"warm (CPU s, median of {a.rounds} interleaved rounds):")
        for name, args in WARM.items():
            cpu = {lv: [] for lv in levels}
            outs = {}
            for _ in range(a.rounds):
                for lv in levels:
                    t, text = run(args, lv, caches[lv])
                    cpu[lv].append(t)
                    outs[lv] = text
            m = {lv: statistics.median(cpu[lv]) for lv in levels}
            print(
                f"  {name:34s} level 1 {m[1]:6.2f}   level 3 {m[3]:6.2f}   "
                f"ratio {m[1] / m[3]:.3f}   same results: {outs[1] == outs[3]}"
            )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
