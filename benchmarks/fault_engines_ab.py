"""The fault engines of a git revision against the working tree's, interleaved.

    .venv/bin/python benchmarks/fault_engines_ab.py                 # HEAD~1 vs the working tree
    .venv/bin/python benchmarks/fault_engines_ab.py --rev b90a247 --rounds 5 --only cdg

Each case runs in a fresh process on one source tree (``git worktree`` of ``--rev`` in a
temporary folder, or this checkout), alternating old, new, new, old, ... ``--rounds``
times, so both see the same minutes of a machine whose speed moves. A process first runs
the case once small (numba's cache loaded or filled; each tree keeps its own), then times
the case itself in CPU seconds (``time.process_time``). Printed: the best CPU time of
each tree, their ratio, and whether both trees computed the same result (a digest of the
figures each case returns). Cases:

* ``sim-walk``: simulate mikant:k=4,n=3, ``escape``, 10 % link faults, 2 VCs, load 0.3;
* ``sim-generic``: kant:k=4,n=4, ``detour``, 5 % faults, load 0.3;
* ``sim-adaptive``: kant:k=4,n=3, ``adaptive``, 5 % faults, load 0.4;
* ``sim-table``: kant:k=4,n=4, ``shortest-table``, 5 % faults, load 0.3;
* ``sim-free``: kant:k=4,n=4 fault-free, load 0.3 (the fault-free kernel);
* ``cdg-walk``: ``ft_deadlock`` on mikant:k=3,n=3, ``gns+tt+xt+gdl``, 15 % faults, 2 VCs
  (every pair walked; 10 fault sets);
* ``cdg-generic``: ``ft_deadlock`` on kant:k=4,n=3, ``detour`` and ``adaptive``, 10 %
  faults, 2 VCs (10 fault sets);
* ``mc``: the Monte Carlo of mikant:k=3,n=3, every algorithm, 20,000 trials x 5 rates;
* ``mc-generic``: the same on kant:k=4,n=3 (the generic rules and the tables).

``--order`` measures instead whether the simulator's speed depends on which command
compiled the fault walk first (numba compiles a callee with the reference-counting flag
of its caller and caches one copy): on one tree (``--tree``, default this checkout), two
empty numba caches, one filled by a route and a Monte Carlo study of MiKANT's walk before
the first simulation, the other by the simulation first; then ``sim-walk`` on each,
interleaved, and the size of each cached simulator kernel.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PRIME = r"""
import fattree
from fattree.faults.links import random_faults
from fattree.faults.montecarlo import evaluate
try:
    from fattree.faults.view import fault_router
except ImportError:  # (a revision before faults/view.py)
    from fattree.sim.faulthop import fault_router
t = fattree.build("mikant:k=4,n=3")
fault_router(t, "escape", random_faults(t, 0.1, seed=1)).route(0, 5, 2)
evaluate(t, "all", [0.1], 100, seed=0)
"""

CASE = r"""
import hashlib, json, sys, time
import numpy as np
import fattree
case = sys.argv[1]

def sim(spec, alg, rate, load, cycles):
    from fattree.sim import simulate
    t = fattree.build(spec)
    kw = dict(load=load, termination="window", warmup=cycles // 4, measure=cycles, seed=3)
    if alg is not None:
        kw |= dict(fault_rate=rate, fault_seed=2, algorithm=alg, vcs=2)
    run = lambda c: simulate(t, **(kw | dict(measure=c)))
    run(20)
    c0 = time.process_time()
    r = run(cycles)
    cpu = time.process_time() - c0
    return cpu, [r.cycles, r.flit_hops, r.delivered, r.unroutable, round(r.avg_latency, 9)]

def cdg(spec, algs, rate):
    from fattree.faults.cdg import ft_deadlock
    from fattree.faults.links import random_faults
    t = fattree.build(spec)
    sets = [random_faults(t, rate, seed=s) for s in range(10)]
    for a in algs:
        ft_deadlock(t, a, sets[0], vcs=2)
    c0 = time.process_time()
    out = []
    for bad in sets:
        for a in algs:
            r = ft_deadlock(t, a, bad, vcs=2).to_dict()
            r.pop("seconds")
            out.append(r)
    return time.process_time() - c0, out

def mc(spec="mikant:k=3,n=3"):
    from fattree.faults.montecarlo import evaluate
    t = fattree.build(spec)
    evaluate(t, "all", [0.1], 100, seed=0)
    c0 = time.process_time()
    st = evaluate(t, "all", "0.05:0.25:0.05", 20_000, seed=7)
    return time.process_time() - c0, st.rows

cases = {
    "sim-walk": lambda: sim("mikant:k=4,n=3", "escape", 0.1, 0.3, 2000),
    "sim-generic": lambda: sim("kant:k=4,n=4", "detour", 0.05, 0.3, 2000),
    "sim-adaptive": lambda: sim("kant:k=4,n=3", "adaptive", 0.05, 0.4, 3000),
    "sim-table": lambda: sim("kant:k=4,n=4", "shortest-table", 0.05, 0.3, 2000),
    "sim-free": lambda: sim("kant:k=4,n=4", None, 0.0, 0.3, 2000),
    "cdg-walk": lambda: cdg("mikant:k=3,n=3", ["gns+tt+xt+gdl"], 0.15),
    "cdg-generic": lambda: cdg("kant:k=4,n=3", ["detour", "adaptive"], 0.1),
    "mc": mc,
    "mc-generic": lambda: mc("kant:k=4,n=3"),
}
cpu, res = cases[case]()
digest = hashlib.blake2b(json.dumps(res, default=str).encode(), digest_size=8).hexdigest()
print(json.dumps({"cpu": cpu, "digest": digest}))
"""

CASES = (
    "sim-walk",
    "sim-generic",
    "sim-adaptive",
    "sim-table",
    "sim-free",
    "cdg-walk",
    "cdg-generic",
    "mc",
    "mc-generic",
)


def run_case(tree: Path, case: str, cache: str | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), NUMBA_NUM_THREADS="1")
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    out = subprocess.run(
        [sys.executable, "-c", CASE, case], env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        sys.exit(f"{case} on {tree}: failed\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="HEAD~1", help="the old revision (default HEAD~1)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default=",".join(CASES), help="comma-separated cases")
    ap.add_argument("--order", action="store_true", help="compile order against speed")
    ap.add_argument("--tree", default=str(ROOT), help="with --order: the source tree")
    args = ap.parse_args()
    if args.order:
        compile_order(Path(args.tree), args.rounds)
        return
    cases = [c.strip() for c in args.only.split(",") if c.strip()]
    bad = [c for c in cases if c not in CASES]
    if bad:
        sys.exit(f"--only: unknown case {bad[0]!r}; valid: {', '.join(CASES)}")
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(old), args.rev],
            check=True,
        )
        try:
            print(f"old: {args.rev}, new: the working tree; {args.rounds} rounds, CPU seconds")
            for case in cases:
                best = {"old": float("inf"), "new": float("inf")}
                digests = {"old": set(), "new": set()}
                for r in range(args.rounds):
                    order = ("old", "new") if r % 2 == 0 else ("new", "old")
                    for side in order:
                        got = run_case(old if side == "old" else ROOT, case)
                        best[side] = min(best[side], got["cpu"])
                        digests[side].add(got["digest"])
                same = digests["old"] == digests["new"] and len(digests["old"]) == 1
                print(
                    f"{case:13s} old {best['old']:7.3f}  new {best['new']:7.3f}  "
                    f"new/old {best['new'] / best['old']:.3f}  same results: {same}",
                    flush=True,
                )
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=True
            )


def compile_order(tree: Path, rounds: int) -> None:
    """The simulator's speed after two compile orders (``--order``)."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), NUMBA_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        caches = {"route first": f"{tmp}/a", "simulate first": f"{tmp}/b"}
        env["NUMBA_CACHE_DIR"] = caches["route first"]
        subprocess.run([sys.executable, "-c", PRIME], env=env, check=True)
        for cache in caches.values():  # compiles the simulator (after PRIME in the first)
            run_case(tree, "sim-walk", cache)
        best = dict.fromkeys(caches, float("inf"))
        for r in range(rounds):
            for name in caches if r % 2 == 0 else reversed(caches):
                best[name] = min(best[name], run_case(tree, "sim-walk", caches[name])["cpu"])
        print(f"{tree}: sim-walk, best CPU seconds of {rounds} interleaved runs")
        for name, cache in caches.items():
            size = sum(p.stat().st_size for p in Path(cache).glob("sim_*/kernel._run-*.nbc"))
            print(f"  {name:15s} {best[name]:7.3f} s   cached kernel {size:,} bytes")


if __name__ == "__main__":
    main()
