"""Faults in the simulator at scale (issue 11): hop-by-hop fault-tolerant routing.

    PYTHONPATH=src .venv/bin/python benchmarks/sim_faults.py [--only curve,big] [--big SPEC]

1. curve: kant:k=16,n=3 (4,096 nodes), 2 % link faults, the family's default
   fault-tolerant routing (detour), 20 offered loads 0.05 .. 1.00, 200 packets per
   source, 2 worker processes: wall time of the curve (target < 2 minutes) beside the
   same curve fault-free, and the bound of the surviving routes.
2. big: SPEC (default mikant:k=8,n=6, 524,288 nodes) at load 0.3, 1,000 cycles, in two
   subprocesses: fault-free and with 1 % faults (escape): wall time and peak resident
   memory of each (targets: < 15 minutes, faulted RSS < 1.5x the fault-free one).

Wall times on a shared machine count the time a process waited for a core: treat them as
upper bounds. Results of one run are printed; nothing is cached between runs except
numba's compiled kernels.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

BIG = r"""
import resource, sys, time
t0 = time.perf_counter()
import fattree
from fattree.sim import simulate
spec, rate, vcs = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
topo = fattree.build(spec)
kw = {} if rate < 0 else dict(fault_rate=rate, fault_seed=1)
t1 = time.perf_counter()
r = simulate(topo, load=0.3, termination="window", warmup=0, measure=1000, max_cycles=1000,
             seed=1, vcs=vcs, **kw)
t2 = time.perf_counter()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(f"{r.cycles} {r.wall_seconds:.1f} {r.flit_hops} {t1 - t0:.1f} {t2 - t0:.1f} {rss:.3f} "
      f"{r.accepted_flits:.4f} {r.compile_seconds:.1f} {r.unroutable} {r.faulty_links or 0} "
      f"{int(r.deadlock)}")
"""


def curve(spec: str = "kant:k=16,n=3", rate: float = 0.02) -> None:
    from fattree.sim import simulate_loads

    loads = [round(0.05 * i, 2) for i in range(1, 21)]
    print(f"1. {spec}: 20 loads 0.05 .. 1.00, 200 packets per source, 2 workers")
    simulate_loads(spec, [0.05], packets_per_source=5, fault_rate=rate, bound=False)  # compile
    for label, kw in (
        ("fault-free", {}),
        (f"{rate:.0%} faults", dict(fault_rate=rate, fault_seed=1)),
    ):
        t0 = time.perf_counter()
        df = simulate_loads(spec, loads, workers=2, **kw)
        wall = time.perf_counter() - t0
        sat = df[df["saturated"]]
        first = f"{sat['offered_load'].iloc[0]:.2f}" if len(sat) else "none"
        acc = df["accepted_flits"].max()
        extra = ""
        if kw:
            extra = (
                f"; {int(df['faulty_links'].iloc[0])} failed links, "
                f"{int(df['unroutable'].sum()):,} packets unroutable"
            )
        print(
            f"   {label}: {wall:.1f} s wall (target < 120 s); saturates from {first}, "
            f"max accepted {acc:.3f} flits/node/cycle, bound "
            f"{df['channel_load_bound'].iloc[0]:.3f}{extra}"
        )


def big(spec: str) -> None:
    print(f"2. {spec}: load 0.3, 1,000 cycles (subprocesses)")
    out = {}
    for label, rate, vcs in (
        ("fault-free, 1 VC", -1.0, 1),
        ("1 % faults, 1 VC", 0.01, 1),
        ("fault-free, 2 VCs", -1.0, 2),
        ("1 % faults, 2 VCs", 0.01, 2),
    ):
        t0 = time.perf_counter()
        p = subprocess.run(
            [sys.executable, "-c", BIG, spec, str(rate), str(vcs)], capture_output=True, text=True
        )
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            print(f"   {label}: failed: {p.stderr.strip().splitlines()[-1]}")
            continue
        cyc, kern, fh, build, _total, rss, acc, _comp, unr, nf, dead = p.stdout.split()
        out[label] = (float(rss), float(kern), int(fh))
        print(
            f"   {label}: {cyc} cycles, kernel {kern} s ({int(fh) / float(kern) / 1e6:.2f} M "
            f"flit-hops/s), build {build} s, process {wall:.0f} s (target < 900 s); peak RSS "
            f"{float(rss):.2f} GiB; accepted {acc}; {int(nf):,} failed links, "
            f"{int(unr):,} packets unroutable{'; DEADLOCK' if dead == '1' else ''}",
            flush=True,
        )
    for v in ("1 VC", "2 VCs"):
        a, b = out.get(f"fault-free, {v}"), out.get(f"1 % faults, {v}")
        if a and b:
            print(
                f"   {v}: memory with faults / fault-free {b[0] / a[0]:.2f}x (target < 1.5x); "
                f"flit-hops/s with faults / fault-free {b[2] / b[1] / (a[2] / a[1]):.2f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="curve,big")
    ap.add_argument("--big", default="mikant:k=8,n=6")
    ap.add_argument("--curve", default="kant:k=16,n=3")
    a = ap.parse_args()
    parts = a.only.split(",")
    if "curve" in parts:
        curve(a.curve)
    if "big" in parts:
        big(a.big)


if __name__ == "__main__":
    main()
