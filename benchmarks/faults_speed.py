"""Fault-tolerance Monte Carlo speed (issue 5 targets).

MiKANT(3,3): 100,000 trials × 21 rates × every algorithm and the oracle, < 60 s on 2 cores.
MiKANT(8,4) (8,192 nodes): the same, < 5 minutes.
Issue 11: kant(8,3) and clos(8,3) (generic kernel: sp, minimal, detour, updown-table,
shortest-table and the oracle): 100,000 trials × 21 rates in < 60 s; MiKANT(3,3) < 15 s.
Run: .venv/bin/python benchmarks/faults_speed.py [--quick] [--only kant,clos,mikant]
"""

from __future__ import annotations

import os
import sys
import time

import numba

import fattree
from fattree.faults.montecarlo import evaluate


def run(spec: str, trials: int) -> None:
    topo = fattree.build(spec)
    t0 = time.perf_counter()
    evaluate(topo, "all", [0.1], 100, seed=0)  # compile / load the cache
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    c0 = time.process_time()
    st = evaluate(topo, "all", "0:1:0.05", trials, seed=7)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    n_alg = len({r["algorithm"] for r in st.rows})
    routes = trials * 21 * n_alg
    print(
        f"{spec:18s} {trials:>7,d} trials x 21 rates x {n_alg} algorithms (oracle included): "
        f"{wall:6.1f} s wall, {cpu:6.1f} s CPU  ({routes / wall / 1e6:.2f} M routes/s, "
        f"{numba.get_num_threads()} threads; "
        f"first call incl. compile/cache load {warm:.1f} s; load average "
        f"{os.getloadavg()[0]:.1f})"
    )
    best = {}
    for r in st.rows:
        if r["rate"] in (0.1, 0.3):
            best.setdefault(r["rate"], []).append((r["success_ratio"], r["algorithm"]))
    for rate, vals in sorted(best.items()):
        vals.sort(reverse=True)
        print(f"    rate {rate:.2f}: " + ", ".join(f"{a} {s:.4f}" for s, a in vals[:5]))


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
    cases = [
        ("mikant:k=3,n=3", 10_000, 100_000),
        ("kant:k=8,n=3", 10_000, 100_000),
        ("clos:k=8,n=3", 10_000, 100_000),
        ("mikant:k=8,n=4", 2_000, 100_000),
    ]
    for spec, q, full in cases:
        if only is None or spec.split(":")[0] in only:
            run(spec, q if quick else full)
