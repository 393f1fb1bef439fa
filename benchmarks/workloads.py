"""Speed and memory of workloads at packet level and at flow level; prints every figure.

    .venv/bin/python benchmarks/workloads.py                  # every target (minutes)
    .venv/bin/python benchmarks/workloads.py --quick          # smaller instances
    .venv/bin/python benchmarks/workloads.py --only packet-ring
    .venv/bin/python benchmarks/workloads.py --agreement      # packet vs flow, the matrix
    .venv/bin/python benchmarks/workloads.py --contention     # direct all-to-all, switches

The cases (targets of the workload feature):

* ``packet-ring``: ring all-reduce of 1 MiB over kant(16,3) (4,096 ranks, 8,190 steps,
  256 B flits), closed loop in the papers' simulator; target under 2 minutes.
* ``packet-alltoall``: pairwise all-to-all of 16 KiB per pair over kant(8,3) (512 ranks,
  8 MiB per rank); target under 1 minute.
* ``packet-memory``: the peak resident memory of ``packet-ring`` against an open-loop run
  of the same network (uniform traffic at load 0.1, 20 packets per source); target within
  1.5x.
* ``flow-ring``: ring all-reduce of 1 GiB over MiKANT(8,6) (524,288 ranks; one distinct
  phase routed and run); target under 60 s and 8 GB.
* ``flow-alltoall``: pairwise all-to-all over 16,384 ranks of mikant:k=8,n=5 (16,383
  distinct phases of 16,384 flows); target under 5 minutes and 8 GB.
* ``flow-operations``: the operations engine (event by event, rates recomputed whenever
  a message starts or ends) on a ring all-reduce of 32 MiB over kant(8,3) (512 ranks,
  1,022 steps: 1,046,528 operations, 3,832 rate computations); target under 5 s.

Each case runs in a fresh subprocess, after untimed runs of small instances that compile
what numba's cache lacks, and reports its wall time, the CPU seconds it used and its peak
resident memory (``resource.getrusage`` in the child), with the machine's load average
(``os.getloadavg``) when it started: on a shared machine the CPU seconds are the steadier
figure. Default units (400 Gb/s, 256 B flits; the flow model's 100 ns per hop).

``--agreement`` runs every built-in collective and algorithm on kant, xgft and MiKANT
networks (64 to 1,024 ranks, ``--max-ranks``), each at the size whose smallest message is
64 KiB, at packet level (the papers' simulator) and at flow level (operations engine,
hop latency 0: the packet model's hop costs a flit's serialisation, as the flow model's),
and prints packet time, flow time and their ratio (docs/workloads.md says where and why
they differ).

``--contention`` runs the case where they differ most, direct all-to-all (every message
posted at once) at 64 KiB per message over kant:k=4,n=3, at packet level with more
virtual channels, deeper buffers, adaptive routing and the booksim model's router
(:data:`SWITCHES`), and prints each one's time against the flow level's: how much of the
difference the switches' queueing and allocation make.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

KIB = 1024

#: name -> (level, topology, workload, wall target in s, memory target in GB or None)
#: the same case at both sizes (about a million operations: seconds either way)
FLOW_OPERATIONS = ("flow-ops", "kant:k=8,n=3", "allreduce:algorithm=ring,size=32MiB", 5.0, None)
CASES = {
    "packet-ring": ("packet", "kant:k=16,n=3", "allreduce:algorithm=ring,size=1MiB", 120.0, None),
    "packet-alltoall": (
        "packet",
        "kant:k=8,n=3",
        "alltoall:algorithm=pairwise,size=8MiB",
        60.0,
        None,
    ),
    "packet-memory": ("memory", "kant:k=16,n=3", "allreduce:algorithm=ring,size=1MiB", 1.5, None),
    "flow-ring": ("flow", "mikant:k=8,n=6", "allreduce:algorithm=ring,size=1GiB", 60.0, 8.0),
    "flow-alltoall": (
        "flow",
        "mikant:k=8,n=5",
        "alltoall:algorithm=pairwise,size=256MiB,ranks=16384",
        300.0,
        8.0,
    ),
    "flow-operations": FLOW_OPERATIONS,
}
QUICK = {
    "packet-ring": ("packet", "kant:k=8,n=3", "allreduce:algorithm=ring,size=1MiB", 120.0, None),
    "packet-alltoall": (
        "packet",
        "kant:k=4,n=3",
        "alltoall:algorithm=pairwise,size=1MiB",
        60.0,
        None,
    ),
    "packet-memory": ("memory", "kant:k=8,n=3", "allreduce:algorithm=ring,size=1MiB", 1.5, None),
    "flow-ring": ("flow", "mikant:k=8,n=4", "allreduce:algorithm=ring,size=1GiB", 60.0, 8.0),
    "flow-alltoall": (
        "flow",
        "mikant:k=8,n=5",
        "alltoall:algorithm=pairwise,size=16MiB,ranks=1024",
        300.0,
        8.0,
    ),
    "flow-operations": FLOW_OPERATIONS,
}

_CHILD = """
import json, resource, sys, time
t0 = time.perf_counter()
import fattree
level, spec, wl = sys.argv[1:4]
topo = fattree.build(spec)
if level == "open-loop":
    r = fattree.simulate(topo, load=0.1, packets_per_source=20)
    row = {"cycles": r.cycles}
elif level == "packet":
    row = fattree.simulate(topo, workload=wl).to_row()
elif level == "flow-ops":
    row = fattree.flow(topo, wl, engine="operations").to_row()
else:
    row = fattree.flow(topo, wl).to_row()
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": time.perf_counter() - t0, "row": row,
                  "peak_kib": ru.ru_maxrss, "cpu": ru.ru_utime + ru.ru_stime}))
"""

#: small runs of every kernel shape the cases use (compiled here, outside the timings)
_WARM = [
    ("packet", "kant:k=2,n=2", "allgather:size=4KiB"),
    ("open-loop", "kant:k=2,n=2", ""),
    ("flow", "kant:k=4,n=2", "alltoall:size=1KiB"),
    ("flow-ops", "kant:k=4,n=2", "alltoall:size=1KiB"),
]


def run(level: str, spec: str, workload: str) -> dict:
    """One run in a fresh process: wall time, CPU seconds, peak memory, the result row and
    the load average when it started."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, level, spec, workload],
        check=True,
        env=dict(os.environ),
        capture_output=True,
        text=True,
    )
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process_wall"] = time.perf_counter() - t0
    res["load"] = load
    return res


def _costs(r: dict) -> str:
    return (
        f"wall {r['process_wall']:.1f} s, CPU {r['cpu']:.1f} s, peak {r['peak_kib'] / 2**20:.2f} GiB, "
        f"load {r['load']:.2f} on {os.cpu_count()} CPUs"
    )


def _met(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def speed(names: list[str], cases: dict) -> None:
    """Run and print the named cases."""
    t0 = time.perf_counter()
    for level, spec, wl in _WARM:
        run(level, spec, wl)
    print(f"warm-up (compiling what numba's cache lacks): {time.perf_counter() - t0:.1f} s")
    done: dict[str, dict] = {}
    for name in names:
        level, spec, wl, target, mem = cases[name]
        if level == "memory":
            ring = next(
                (k for k, c in cases.items() if c[0] == "packet" and c[1:3] == (spec, wl)), None
            )
            w = done.get(ring) or run("packet", spec, wl)
            base = run("open-loop", spec, "")
            ratio = w["peak_kib"] / base["peak_kib"]
            print(
                f"{name}: {wl} on {spec} peaks at {w['peak_kib'] / 2**20:.2f} GiB; an open-loop run "
                f"of it (load 0.1, 20 packets per source) at {base['peak_kib'] / 2**20:.2f} GiB "
                f"({_costs(base)}): {ratio:.2f}x; target <= {target:g}x: {_met(ratio <= target)}",
                flush=True,
            )
            continue
        r = run(level, spec, wl)
        done[name] = r
        row = r["row"]
        what = f"{row['ranks']:,} ranks, {row['messages']:,} messages"
        if level == "packet":
            what += f", {row['packets']:,} packets, {row['cycles']:,} cycles"
        elif level == "flow":
            what += f", {row['phases_computed']:,} distinct phases of {row['phases_total']:,}"
        ok = r["process_wall"] < target
        goal = f"target < {target:g} s: {_met(ok)}"
        if mem is not None:
            gb = r["peak_kib"] * 1024 / 1e9
            goal += f"; peak {gb:.2f} GB, target < {mem:g} GB: {_met(gb < mem)}"
        print(
            f"{name}: {wl} on {spec}: {what}; simulated {row['time_s'] * 1e6:.1f} us, "
            f"{row['outcome']}\n  {_costs(r)}; {goal}",
            flush=True,
        )


# ------------------------------------------------------------------------- agreement

#: (collective, algorithm) pairs of the matrix
ALGORITHMS = [
    ("allreduce", "ring"),
    ("allreduce", "rhd"),
    ("allreduce", "tree"),
    ("allreduce", "dtree"),
    ("allreduce", "hier"),
    ("reducescatter", "ring"),
    ("reducescatter", "rd"),
    ("allgather", "ring"),
    ("allgather", "rd"),
    ("alltoall", "pairwise"),
    ("alltoall", "direct"),
    ("broadcast", "binomial"),
    ("reduce", "binomial"),
    ("barrier", "dissemination"),
]
#: one network of each family per size class
NETWORKS = [
    "kant:k=4,n=3",  # 64 ranks, full bisection
    "xgft:m=8.8,w=1.4",  # 64 ranks, 2:1 tapered
    "mikant:k=4,n=3",  # 128 ranks
    "kant:k=8,n=3",  # 512 ranks
    "mikant:k=4,n=4",  # 512 ranks
    "xgft:m=16.8.8,w=1.8.4",  # 1,024 ranks, 2:1 tapered at the top
]


def agreement_spec(collective: str, algorithm: str, topo, min_message: int = 64 * KIB) -> str:
    """The workload spec whose smallest message is ``min_message`` bytes on ``topo``.

    Parameters
    ----------
    collective, algorithm : str
        A registered collective and one of its algorithms.
    topo : Topology
        The network (every node a rank).
    min_message : int
        Bytes of the smallest message.

    Returns
    -------
    str
    """
    from fattree.traffic.workloads import make_workload

    extra = ",placement=leaf" if algorithm == "hier" else ""
    probe = 1 << 30
    base = f"{collective}:algorithm={algorithm}{extra}"
    w = make_workload(f"{base},size={probe}B", topo.n_nodes, topo.node_switch, 0)
    smallest = min(int(ph.arrays()[2].min()) for ph in w.phases if ph.messages)
    size = -(-probe * min_message // smallest)
    return f"{base},size={size}B"


def agreement(max_ranks: int, networks: list[str], only: str | None) -> None:
    """Print packet time, flow time and their ratio for every collective and network."""
    import fattree
    from fattree.sim.flow import flow
    from fattree.sim.workload import simulate_workload

    simulate_workload("kant:k=2,n=2", "allgather:size=4KiB")  # compile (outside timings)
    print(
        f"{'network':24} {'ranks':>5} {'collective':24} {'min msg':>8} {'packet us':>11} "
        f"{'flow us':>11} {'ratio':>6}  {'wall s':>7} {'cpu s':>7} load",
        flush=True,
    )
    for spec in networks:
        topo = fattree.build(spec)
        if topo.n_nodes > max_ranks:
            continue
        for col, alg in ALGORITHMS:
            if only and only not in f"{col}:{alg}":
                continue
            if alg in ("rhd", "rd") and topo.n_nodes & (topo.n_nodes - 1):
                continue
            wl = agreement_spec(col, alg, topo)
            load = os.getloadavg()[0]
            c0, t0 = time.process_time(), time.perf_counter()
            p = simulate_workload(topo, wl)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            f = flow(topo, wl, hop_latency="0ns", engine="operations")
            ratio = p.time_s / f.time_s if f.time_s > 0 else float("nan")
            flag = "" if abs(ratio - 1) <= 0.10 else "  > 10 %"
            print(
                f"{spec:24} {topo.n_nodes:>5} {col + ':' + alg:24} "
                f"{_msg(wl, topo):>8} {p.time_s * 1e6:>11.2f} {f.time_s * 1e6:>11.2f} "
                f"{ratio:>6.3f}  {wall:>7.1f} {cpu:>7.1f} {load:.2f}{flag}",
                flush=True,
            )


#: label -> the packet level's parameters, for ``--contention``
SWITCHES = {
    "papers' model (1 VC, 2-flit buffers)": {},
    "papers' model, 1 VC, 32-flit buffers": {"buffer": 32},
    "papers' model, 4 VCs, 8-flit buffers": {"vcs": 4, "buffer": 8},
    "papers' model, 8 VCs, 16-flit buffers": {"vcs": 8, "buffer": 16},
    "papers' model, 4 VCs, 8 flits, adaptive": {"vcs": 4, "buffer": 8, "algorithm": "adaptive"},
    "booksim model (1 VC, 2-flit buffers)": {"model": "booksim"},
    "booksim model, 8 VCs, 8-flit buffers": {"model": "booksim", "vcs": 8, "buffer": 8},
}


def contention(spec: str = "kant:k=4,n=3") -> None:
    """Print direct all-to-all's packet-level time under each of :data:`SWITCHES` against
    the flow level's."""
    import fattree
    from fattree.sim.flow import flow
    from fattree.sim.workload import simulate_workload

    topo = fattree.build(spec)
    wl = agreement_spec("alltoall", "direct", topo)
    f = flow(topo, wl, hop_latency="0ns", engine="operations")
    print(f"{spec}, {wl} ({_msg(wl, topo)} a message): flow level {f.time_s * 1e6:.2f} us")
    for label, kw in SWITCHES.items():
        c0 = time.process_time()
        p = simulate_workload(topo, wl, **kw)
        print(
            f"  {label:42} {p.time_s * 1e6:>9.2f} us  {p.time_s / f.time_s:>6.3f}x flow"
            f"  ({time.process_time() - c0:.1f} CPU s)",
            flush=True,
        )


def _msg(wl: str, topo) -> str:
    from fattree.traffic.workloads import format_size, make_workload

    w = make_workload(wl, topo.n_nodes, topo.node_switch, 0)
    return format_size(min(int(ph.arrays()[2].min()) for ph in w.phases if ph.messages))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller instances")
    ap.add_argument(
        "--only",
        help="cases, comma-separated (speed: " + ", ".join(CASES) + "; agreement: a "
        "collective:algorithm substring)",
    )
    ap.add_argument("--agreement", action="store_true", help="packet vs flow level, the matrix")
    ap.add_argument(
        "--contention", action="store_true", help="direct all-to-all under several switches"
    )
    ap.add_argument("--max-ranks", type=int, default=1024, help="agreement: largest network")
    ap.add_argument("--networks", nargs="+", help="agreement: topology specs")
    args = ap.parse_args()
    if args.contention:
        contention()
        return
    if args.agreement:
        nets = args.networks or NETWORKS
        agreement(args.max_ranks, nets, args.only)
        return
    names = args.only.split(",") if args.only else list(CASES)
    bad = [n for n in names if n not in CASES]
    if bad:
        ap.error(f"--only {bad[0]!r}: valid: {', '.join(CASES)} (comma-separated)")
    speed(names, QUICK if args.quick else CASES)


if __name__ == "__main__":
    main()
