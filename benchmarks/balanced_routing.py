"""MiKANT: how close the best deterministic, deadlock-free (1 VC) minimal routing comes to
splitting evenly over all minimal paths (issue 13).

For MiKANT(k, 3), k = 4..16 (``--n`` and ``--k`` change the sizes), uniform traffic:
the channel-load throughput bound 1/gamma_max (flits/node/cycle, from
``fattree.routing.load.channel_load``) of alg1 (the papers' Algorithm 1), dmodk,
dmodk-bal, balanced (this project's default) and minimal-all (every minimal path
evenly, needs 2 VCs), the ratio balanced / even split, the cross-link average limit
1 / (1/2 + (k-1)/k) that caps every minimal routing, and the deadlock check of
balanced with one VC (``fattree.routing.deadlock``). Usage:

    PYTHONPATH=src python benchmarks/balanced_routing.py [--n 3] [--k 4 16]
"""

from __future__ import annotations

import argparse
import time

import fattree
from fattree.routing.deadlock import deadlock
from fattree.routing.load import channel_load

ALGS = ("alg1", "dmodk", "dmodk-bal", "balanced", "minimal-all")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--k", type=int, nargs=2, default=(4, 16), metavar=("FROM", "TO"))
    ap.add_argument("--no-deadlock", action="store_true", help="skip the 1-VC deadlock check")
    a = ap.parse_args()
    t0 = time.perf_counter()
    head = ["k", "N"] + list(ALGS) + ["bal/even", "limit", "1-VC acyclic"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for k in range(a.k[0], a.k[1] + 1):
        topo = fattree.build(f"mikant:k={k},n={a.n}")
        b = {alg: channel_load(topo, alg, "uniform").bound for alg in ALGS}
        acyclic = (
            "-" if a.no_deadlock else ("yes" if deadlock(topo, "balanced", vcs=1).acyclic else "NO")
        )
        limit = 1 / (0.5 + (k - 1) / k)
        row = [str(k), f"{topo.n_nodes:,}"] + [f"{b[x]:.3f}" for x in ALGS]
        row += [f"{b['balanced'] / b['minimal-all']:.4f}", f"{limit:.3f}", acyclic]
        print("| " + " | ".join(row) + " |", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s wall on a shared machine)")


if __name__ == "__main__":
    main()
