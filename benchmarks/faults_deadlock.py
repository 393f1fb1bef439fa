"""Deadlock of fault-tolerant routing (spec §6) and the escape VC rule: figures for
docs/faults-deadlock.md.

For random fault sets (rates 5-20 %, ``random_faults`` seeds 1000..), per algorithm: how
often the papers' routing (1 VC) has a channel-dependency cycle, how often the naive
escape channel (VC 1 from the first detour hop) still has one, what share of the
delivered routes the turn rule refuses with 2 VCs, the most VC classes a route used and
the proven bound; then the time of one graph on MiKANT(4,5).
Run: .venv/bin/python benchmarks/faults_deadlock.py [--quick]
"""

from __future__ import annotations

import sys
import time

import fattree
from fattree.faults.cdg import algorithms_for_deadlock, classes_bound, ft_deadlock
from fattree.faults.links import random_faults


def study(spec: str, sets: int) -> None:
    t = fattree.build(spec)
    n = t.params["n"]
    algs = algorithms_for_deadlock("mikant", "all")
    ft_deadlock(t, "gns", vcs=2)  # compile / load the cache
    t0 = time.perf_counter()
    print(f"{spec}: {sets} fault sets at 5-20 % (local model)")
    print(
        f"  {'algorithm':22s} {'cyclic 1VC':>10s} {'naive esc.':>10s} {'refused@2VC':>12s} "
        f"{'classes used':>12s} {'bound':>6s}"
    )
    for a in algs:
        cyc1 = naive = used = 0
        refused = delivered = 0
        for i in range(sets):
            bad = random_faults(t, 0.05 + 0.15 * i / max(sets - 1, 1), seed=1000 + i)
            cyc1 += not ft_deadlock(t, a, bad).acyclic
            naive += not ft_deadlock(t, a, bad, vcs=2, vc_rule="detour").acyclic
            r = ft_deadlock(t, a, bad, vcs=8)
            used = max(used, r.classes_needed if not r.refused else 9)
            r2 = ft_deadlock(t, a, bad, vcs=2)
            refused += r2.refused
            delivered += r2.delivered
        b = classes_bound(a, n)
        print(
            f"  {a:22s} {cyc1:>6d}/{sets:<3d} {naive:>6d}/{sets:<3d} "
            f"{100 * refused / max(delivered, 1):>11.2f}% {used if used < 9 else '>8':>12} "
            f"{'-' if b is None else b:>6}"
        )
    print(f"  ({time.perf_counter() - t0:.1f} s)")


def timing(spec: str) -> None:
    t = fattree.build(spec)
    bad = random_faults(t, 0.05, seed=1)
    for vcs in (1, 2):
        t0 = time.perf_counter()
        r = ft_deadlock(t, "gns+tt+xt+gdl", bad, vcs=vcs)
        print(
            f"{spec}: gns+tt+xt+gdl, {r.faulty_links} faulty links, {vcs} VC(s): "
            f"{'acyclic' if r.acyclic else f'cycle of {len(r.cycle)}'}, {r.pairs:,} pairs, "
            f"{r.dependencies:,} dependencies, refused {r.refused:,}, "
            f"{time.perf_counter() - t0:.2f} s"
        )


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    study("mikant:k=3,n=3", 10 if quick else 50)
    study("mikant:k=3,n=4", 5 if quick else 50)
    timing("mikant:k=4,n=5")
