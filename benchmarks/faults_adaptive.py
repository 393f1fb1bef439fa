"""Adaptive routing under faults: the allocator choosing among the router's candidates.

Prints, for one fault set per network (10 % of the links, seed 0), the latency and the
accepted throughput of ``minimal`` (one port per switch), ``detour`` and ``adaptive``
(every healthy minimal port that still delivers, the allocator picking by free credits)
at a medium and a high load, and the simulation's CPU seconds (the kernels loaded from
numba's cache; run ``fattree warmup`` first).

Run: .venv/bin/python benchmarks/faults_adaptive.py [--quick]
"""

from __future__ import annotations

import sys
import time

import fattree

NETWORKS = (("kant:k=4,n=3", 1), ("kant:k=8,n=3", 1), ("torus:k=4,n=3", 2))
LOADS = (0.5, 0.9)
ALGORITHMS = ("minimal", "detour", "adaptive")


def main() -> None:
    quick = "--quick" in sys.argv
    nets = NETWORKS[:1] if quick else NETWORKS
    pps = 200 if quick else 1000
    print(
        f"fault rate 0.1 (seed 0), {pps} packets per source, seed 1; fattree {fattree.__version__}"
    )
    print(
        f"{'network':<16} {'vcs':>3} {'load':>5} {'algorithm':<9} {'latency':>9} {'accepted':>9} {'cpu s':>6}"
    )
    for spec, vcs in nets:
        for load in LOADS:
            for alg in ALGORITHMS:
                c0 = time.process_time()
                r = fattree.simulate(
                    spec,
                    load=load,
                    packets_per_source=pps,
                    seed=1,
                    fault_rate=0.1,
                    fault_seed=0,
                    algorithm=alg,
                    vcs=vcs,
                )
                cpu = time.process_time() - c0
                lat = f"{r.avg_latency:9.2f}" + ("*" if r.saturated else " ")
                print(
                    f"{spec:<16} {vcs:>3} {load:>5.2f} {alg:<9} {lat:>9} "
                    f"{r.accepted_throughput:>9.4f} {cpu:>6.2f}"
                )
    print("* saturated: the latency is of the packets delivered, not a steady state")


if __name__ == "__main__":
    main()
