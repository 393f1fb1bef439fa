"""Speed and memory of workloads at packet level (closed loop in the papers' simulator).

    .venv/bin/python benchmarks/workloads_packet.py            # the targets (minutes)
    .venv/bin/python benchmarks/workloads_packet.py --quick    # smaller instances

1. Ring all-reduce of 1 MiB over kant(16,3): 4,096 ranks, 8,190 steps, 256 B flits
   (target: under 2 minutes).
2. All-to-all of 16 KiB per pair over kant(8,3): 512 ranks, 8 MiB per rank (pairwise
   exchange; target: under 1 minute).
3. Memory: the peak resident memory of case 1 against an open-loop run of the same
   network (uniform traffic at load 0.1, 20 packets per source; target: within 1.5x).

Each case runs in a fresh subprocess (numba's cached kernels loaded: a small run of the
same shape first compiles them) and reports wall time, CPU time and peak resident memory
(resource.getrusage inside the child). Default units of ``fattree simulate --workload``
(400 Gb/s, 256 B flits, one flit per link per cycle). The machine may be shared: treat
single figures as indicative.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = {
    "ring": ("kant:k=16,n=3", "allreduce:algorithm=ring,size=1MiB", 120.0),
    "alltoall": ("kant:k=8,n=3", "alltoall:algorithm=pairwise,size=8MiB", 60.0),
}
QUICK = {
    "ring": ("kant:k=8,n=3", "allreduce:algorithm=ring,size=1MiB", 120.0),
    "alltoall": ("kant:k=4,n=3", "alltoall:algorithm=pairwise,size=1MiB", 60.0),
}

_CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
import fattree
topo = fattree.build(sys.argv[1])
if sys.argv[2] == "open-loop":
    r = fattree.simulate(topo, load=0.1, packets_per_source=20)
    row = {"cycles": r.cycles, "compile_s": r.compile_seconds}
else:
    r = fattree.simulate(topo, workload=sys.argv[2])
    row = r.to_row()
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": time.perf_counter() - t0, "row": row,
                  "peak_kib": ru.ru_maxrss, "cpu": ru.ru_utime + ru.ru_stime}))
"""


def run(spec: str, workload: str) -> dict:
    """One case in a fresh process; returns its wall time, peak memory and result row."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, spec, workload],
        check=True,
        env=dict(os.environ),
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller instances")
    ap.add_argument("--only", choices=sorted(CASES), help="run one case")
    args = ap.parse_args()
    cases = QUICK if args.quick else CASES
    t0 = time.perf_counter()
    run("kant:k=2,n=2", "allgather:size=4KiB")  # compile the closed-loop kernel once
    run("kant:k=2,n=2", "open-loop")
    print(f"warm-up (compiling what the cache lacks): {time.perf_counter() - t0:.1f} s")
    for name, (spec, workload, target) in cases.items():
        if args.only and name != args.only:
            continue
        r = run(spec, workload)
        row = r["row"]
        ok = "meets" if r["wall"] < target else "MISSES"
        print(
            f"{name}: {workload} on {spec}: {row['ranks']:,} ranks, {row['messages']:,} "
            f"messages, {row['packets']:,} packets, {row['cycles']:,} cycles "
            f"({row['time_s'] * 1e6:.1f} us simulated), {row['outcome']}"
        )
        print(
            f"  wall {r['wall']:.1f} s (cpu {r['cpu']:.1f} s, target < {target:.0f} s: {ok}), "
            f"peak memory {r['peak_kib'] / 2**20:.2f} GiB"
        )
        if name == "ring":
            base = run(spec, "open-loop")
            ratio = r["peak_kib"] / base["peak_kib"]
            print(
                f"memory: open-loop run of {spec} peaks at {base['peak_kib'] / 2**20:.2f} GiB; "
                f"the workload at {ratio:.2f}x (target <= 1.5x: "
                f"{'meets' if ratio <= 1.5 else 'MISSES'})"
            )


if __name__ == "__main__":
    main()
