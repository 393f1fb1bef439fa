"""Speed and memory of the flow-level model on workloads; prints its figures.

    .venv/bin/python benchmarks/workloads.py            # the two targets (minutes)
    .venv/bin/python benchmarks/workloads.py --quick    # smaller instances (seconds)

1. Ring all-reduce of 1 GiB over MiKANT(8,6): 524,288 ranks, 1,048,574 steps of which one
   distinct phase is routed and run (target: under 60 s, peak memory under 8 GB).
2. Pairwise all-to-all over 16,384 ranks of mikant:k=8,n=5 (65,536 nodes, ranks placed
   linearly): 16,383 distinct phases of 16,384 flows (target: under 5 minutes).

Each case runs in a fresh subprocess (numba's cached kernels loaded, the topology built
inside the timed region) and reports wall time and peak resident memory
(resource.getrusage inside the child), and the CPU time it used (on a loaded machine the
CPU time is the steadier figure). Default parameters of ``fattree flow`` (400 Gb/s,
256 B flits, 100 ns per hop). The machine may be shared with other jobs: treat single
figures as indicative.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = {
    "ring": ("mikant:k=8,n=6", "allreduce:algorithm=ring,size=1GiB", 60.0),
    "alltoall": ("mikant:k=8,n=5", "alltoall:algorithm=pairwise,size=256MiB,ranks=16384", 300.0),
}
QUICK = {
    "ring": ("mikant:k=8,n=4", "allreduce:algorithm=ring,size=1GiB", 60.0),
    "alltoall": ("mikant:k=8,n=5", "alltoall:algorithm=pairwise,size=16MiB,ranks=1024", 300.0),
}

_CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
import fattree
topo = fattree.build(sys.argv[1])
r = fattree.flow(topo, sys.argv[2])
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": time.perf_counter() - t0, "row": r.to_row(),
                  "peak_kib": ru.ru_maxrss, "cpu": ru.ru_utime + ru.ru_stime}))
"""


def run(spec: str, workload: str, warm: bool) -> dict:
    """One case in a fresh process; returns its wall time, peak memory and result row."""
    env = dict(os.environ)
    if warm:  # compile the kernels first so that the timed run loads them from the cache
        subprocess.run(
            [sys.executable, "-c", _CHILD, "kant:k=4,n=2", "alltoall:size=1KiB"],
            check=True,
            env=env,
            capture_output=True,
        )
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, spec, workload],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process_wall"] = wall
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller instances")
    ap.add_argument("--only", choices=sorted(CASES), help="run one case")
    args = ap.parse_args()
    cases = QUICK if args.quick else CASES
    first = True
    for name, (spec, workload, target) in cases.items():
        if args.only and name != args.only:
            continue
        r = run(spec, workload, warm=first)
        first = False
        row = r["row"]
        peak_gb = r["peak_kib"] * 1024 / 1e9
        print(
            f"{name}: {workload} on {spec}: {row['ranks']:,} ranks, {row['messages']:,} "
            f"messages, {row['phases_computed']:,} distinct phases of {row['phases_total']:,}; "
            f"simulated {row['time_s']:.6g} s, busbw {row['busbw_gbps']:.3f} GB/s; "
            f"wall {r['process_wall']:.1f} s (flow {row['wall_s']:.1f} s; target {target:g} s), "
            f"CPU {r['cpu']:.1f} s on {os.cpu_count()} CPUs, "
            f"peak memory {peak_gb:.2f} GB (target 8 GB)",
            flush=True,
        )


if __name__ == "__main__":
    main()
