"""Routing speed: all-pairs check, channel load and deadlock search on MiKANT(4,5)
(2,048 nodes, 4.2 M pairs), and single routes on MiKANT(16,5) (2.1 M nodes, rule-based,
no tables). Kernels are compiled (or loaded from numba's cache) on a small instance
first, so the figures are run times. Targets (issue 3): check and load < 10 s,
deadlock < 30 s.
"""

from __future__ import annotations

import resource
import time

import fattree
from fattree.routing import compile_routing, route
from fattree.routing.check import check
from fattree.routing.deadlock import deadlock
from fattree.routing.load import channel_load


def timed(fn, *args, **kw):
    """Result, wall seconds and CPU seconds (the machine may be shared: CPU is the
    figure to compare with the targets when the two differ)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    small = fattree.build("mikant:k=2,n=3")
    for alg in ("alg1", "adaptive", "minimal-all", "random", "smodk"):
        check(small, alg)
        channel_load(small, alg)
        channel_load(small, alg, "bitcomp")
        deadlock(small, alg, vcs=2 if alg == "minimal-all" else 1)
    route(small, "alg1", 0, 5)
    t = fattree.build("mikant:k=4,n=5")
    print(
        f"MiKANT(4,5): {t.n_nodes:,} nodes, {t.n_switches:,} switches, "
        f"{t.n_nodes * (t.n_nodes - 1):,} ordered pairs"
    )
    for alg in ("alg1", "dmodk", "smodk", "random", "adaptive", "minimal-all"):
        rep, dt, cpu = timed(check, t, alg)
        print(
            f"  check    {alg:12s} {dt:6.2f} s (cpu {cpu:5.2f} s)  ok={rep.ok} mean hops {rep.mean_hops:.4f} "
            f"(BFS {rep.mean_bfs:.4f}) routes/pair {rep.paths_mean:.2f}"
        )
    for alg in ("alg1", "dmodk", "dmodk-bal", "random", "minimal-all"):
        for traffic in ("uniform", "bitcomp"):
            rep, dt, cpu = timed(channel_load, t, alg, traffic)
            print(
                f"  load     {alg:12s} {traffic:8s} {dt:6.2f} s (cpu {cpu:5.2f} s)  "
                f"gamma_max {rep.gamma_max:.4f} bound {rep.bound:.4f}"
            )
    for alg, vcs in (
        ("alg1", 1),
        ("dmodk", 1),
        ("dmodk-bal", 1),
        ("smodk", 1),
        ("adaptive", 1),
        ("minimal-all", 1),
        ("minimal-all", 2),
    ):
        rep, dt, cpu = timed(deadlock, t, alg, vcs=vcs)
        print(
            f"  deadlock {alg:12s} vcs={vcs} {dt:6.2f} s (cpu {cpu:5.2f} s)  "
            f"acyclic={rep.acyclic} ({rep.dependencies:,} dependencies)"
        )
    big, dt, _ = timed(fattree.build, "mikant:k=16,n=5")
    print(f"MiKANT(16,5): {big.n_nodes:,} nodes, {big.n_switches:,} switches, built in {dt:.1f} s")
    cr, dt, _ = timed(compile_routing, big, "alg1")
    print(f"  compile alg1 {dt * 1e3:.2f} ms, table {cr.table.shape}")
    pairs = [(0, big.n_nodes - 1), (12345, 1_000_000), (big.n_nodes // 2 + 7, 99)]
    for s, d in pairs:
        r, dt, _ = timed(route, big, cr, s, d)
        print(
            f"  route {big.node_label(s)} -> {big.node_label(d)}: {r.hops} hops, {dt * 1e3:.2f} ms"
        )
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:,.0f} MiB")


if __name__ == "__main__":
    main()
