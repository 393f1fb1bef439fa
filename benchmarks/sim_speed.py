"""Speed and scale of the cycle-accurate simulator (issue 4); prints its figures.

    .venv/bin/python benchmarks/sim_speed.py            # everything (about 10 minutes)
    .venv/bin/python benchmarks/sim_speed.py --quick    # without MiKANT(8,6) and cold compile

1. kant:k=4,n=5 (1,024 nodes), uniform, 1 VC, 1-flit packets, lambda = 0.1: simulated
   cycles/s and flit-hops/s on one core (BookSim2 on this machine type: about 200 cycles/s,
   0.17 M flit-hops/s), then near saturation (lambda = 0.2, alg1 saturates at 0.21) and
   BookSim's second case, kant:k=8,n=3 at lambda = 0.3 (about 300 cycles/s there).
2. MiKANT(8,6), 524,288 nodes, uniform lambda = 0.3, 1,000 cycles, in a subprocess: wall
   time and peak resident memory (resource.getrusage of the child).
3. 000 Figs. 9-12: mikant:k=4,n=5 and clos:k=4,n=5 x uniform/bitcomp x 20 loads, 200
   packets per source, on a pool of 2 processes.
4. Compile time: loading the cached kernels in a fresh process, and compiling them from
   scratch (an empty NUMBA_CACHE_DIR), both in subprocesses.
5. ``--model booksim`` (issue 12) beside the default model, same networks and loads:
   kant:k=4,n=5 uniform at 0.1 and near saturation (0.15), kant:k=8,n=3 saturated (offered
   1.0, BookSim2's throughput sampling), buffer 2, 1 VC, 1-flit packets, speculative,
   routing delay 0, against BookSim2's stored simulated cycles per CPU second
   (tests/data/booksim2/speed.csv). ``--booksim`` runs only this part. With
   ``--booksim-binary PATH`` (BookSim2 built by the user from its public source) BookSim2
   runs the same three configurations at the same time as ours: BookSim2 on one core, ours
   repeated on the other for as long as BookSim2 runs, so that both see the same minutes
   of a machine whose speed moves; ``--rounds`` such rounds, the cores exchanged from one
   round to the next, the median ratio printed. Side by side the two share the caches and
   the memory bus, which could slow BookSim2 (whose state is larger) more than ours; with
   ``--alone`` they run one after the other instead, each alone, ours repeated for as
   long as BookSim2 took.

Part 1 reports rates from CPU time (best of three runs), the others wall time; the
machine may be shared with other jobs, so treat single figures as indicative.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

BOOKSIM_CYCLES_S = 200.0  # kant:k=4,n=5, lambda 0.1 (issue 4)
BOOKSIM_FLIT_HOPS_S = 0.17e6
BOOKSIM_K8N3_CYCLES_S = 300.0  # kant:k=8,n=3, lambda 0.3 (issue 4)

BIG = r"""
import resource, sys, time
t0 = time.perf_counter()
import fattree
from fattree.sim import simulate
topo = fattree.build("mikant:k=8,n=6")
t1 = time.perf_counter()
r = simulate(topo, load=0.3, termination="window", warmup=0, measure=1000, max_cycles=1000,
             seed=1)
t2 = time.perf_counter()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(f"{r.cycles} {r.wall_seconds:.1f} {r.flit_hops} {t1 - t0:.1f} {t2 - t0:.1f} {rss:.2f} "
      f"{r.accepted_flits:.4f} {r.compile_seconds:.2f}")
"""

COMPILE = r"""
import time
t0 = time.perf_counter()
import fattree
from fattree.sim import simulate
t1 = time.perf_counter()
r = simulate("kant:k=2,n=2", load=0.1, packets_per_source=5)
print(f"{t1 - t0:.2f} {r.compile_seconds:.2f}")
"""


def speed(spec: str, load: float, cycles: int = 6000, repeats: int = 3):
    """Best of ``repeats`` identical runs; rates from the process's CPU time around the
    call (setup included), since on a shared machine wall time also counts the time the
    process waited for a core. The kernel's wall time is printed beside."""
    from fattree.sim import simulate

    best = None
    for _ in range(repeats):
        c0 = time.process_time()
        r = simulate(
            spec, load=load, termination="window", warmup=1000, measure=cycles - 1000, seed=1
        )
        cpu = time.process_time() - c0
        if best is None or cpu < best[1]:
            best = (r, cpu)
    r, cpu = best
    cps = r.cycles / cpu
    fhs = r.flit_hops / cpu
    print(
        f"  {spec} lambda={load}: {r.cycles:,} cycles in {cpu:.2f} s CPU = "
        f"{cps:,.0f} cycles/s, {fhs / 1e6:.2f} M flit-hops/s "
        f"({r.flit_hops / r.cycles:,.0f} flit-hops/cycle; accepted {r.accepted_flits:.3f}"
        f"{', saturated' if r.saturated else ''}; kernel wall {r.wall_seconds:.2f} s; "
        f"best of {repeats})"
    )
    return r, cps, fhs


def part1() -> None:
    print("1. single-thread speed (uniform, alg1, 1 VC, 1-flit packets, 2-flit FIFOs)")
    _, cps, fhs = speed("kant:k=4,n=5", 0.1)
    print(
        f"     vs BookSim2 ({BOOKSIM_CYCLES_S:.0f} cycles/s, {BOOKSIM_FLIT_HOPS_S / 1e6:.2f} M "
        f"flit-hops/s): {cps / BOOKSIM_CYCLES_S:,.0f}x cycles/s, "
        f"{fhs / BOOKSIM_FLIT_HOPS_S:,.0f}x flit-hops/s (target >= 20,000 cycles/s)"
    )
    _, _, fhs2 = speed("kant:k=4,n=5", 0.2)
    print(
        f"     near saturation: {fhs2 / BOOKSIM_FLIT_HOPS_S:,.0f}x BookSim2's flit-hops/s "
        f"(target >= 100x)"
    )
    _, _, fhs3 = speed("kant:k=4,n=5", 0.5)
    print(f"     deep in saturation: {fhs3 / BOOKSIM_FLIT_HOPS_S:,.0f}x BookSim2's flit-hops/s")
    _, cps4, _ = speed("kant:k=8,n=3", 0.3, cycles=4000)
    print(
        f"     vs BookSim2 on kant:k=8,n=3 at 0.3 ({BOOKSIM_K8N3_CYCLES_S:.0f} cycles/s): "
        f"{cps4 / BOOKSIM_K8N3_CYCLES_S:,.0f}x"
    )


def part2() -> None:
    print("2. MiKANT(8,6): 524,288 nodes, uniform lambda = 0.3, 1,000 cycles (subprocess)")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", BIG], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        print("  failed:", out.stderr.strip().splitlines()[-1])
        return
    cyc, kern, fh, build, total, rss, acc, comp = out.stdout.split()
    print(
        f"  {cyc} cycles: kernel {kern} s, build {build} s, process {wall:.0f} s in all "
        f"(target < 600 s); peak RSS {rss} GiB (target < 8); {int(fh) / 1e6:,.0f} M "
        f"flit-hops ({int(fh) / float(kern) / 1e6:.2f} M/s); accepted {acc} flits/node/cycle"
    )


def _fig_point(args):
    from fattree.sim import simulate

    spec, traffic, load = args
    r = simulate(spec, load=load, traffic=traffic, packets_per_source=200)
    return spec, traffic, load, r.avg_latency, r.saturated, r.wall_seconds


def part3() -> None:
    from concurrent.futures import ProcessPoolExecutor

    print(
        "3. 000 Figs. 9-12: {mikant,clos}:k=4,n=5 x {uniform,bitcomp} x 20 loads, "
        "P = 200, 2 processes"
    )
    loads = [round(0.05 * i, 2) for i in range(1, 21)]
    points = [
        (s, t, x)
        for s in ("mikant:k=4,n=5", "clos:k=4,n=5")
        for t in ("uniform", "bitcomp")
        for x in loads
    ]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        rows = list(pool.map(_fig_point, points))
    wall = time.perf_counter() - t0
    busy = sum(r[5] for r in rows)
    print(
        f"  {len(rows)} simulations in {wall:.1f} s wall (target < 300 s); "
        f"{busy:.1f} s of kernel time"
    )
    for spec in ("mikant:k=4,n=5", "clos:k=4,n=5"):
        for traffic in ("uniform", "bitcomp"):
            lat = [r for r in rows if r[0] == spec and r[1] == traffic]
            sat = next((r[2] for r in lat if r[4]), None)
            print(
                f"    {spec:15s} {traffic:8s} latency at 0.05: {lat[0][3]:.2f}, at 0.20: "
                f"{lat[3][3]:.2f}; saturated from {sat}"
            )


def part4() -> None:
    print("4. compile time (cache=True)")
    out = subprocess.run([sys.executable, "-c", COMPILE], capture_output=True, text=True)
    imp, comp = out.stdout.split()
    print(f"  warm cache, fresh process: import {imp} s, kernel load {comp} s")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", COMPILE], capture_output=True, text=True, env=env
        )
        wall = time.perf_counter() - t0
    imp, comp = out.stdout.split()
    print(f"  empty cache: kernel compile {comp} s (process {wall:.0f} s, paid once per machine)")


def _booksim_stored() -> dict:
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tests" / "data" / "booksim2" / "speed.csv"
    with open(path, newline="") as fh:  # the newest figure of each case
        rows = sorted(csv.DictReader(fh), key=lambda r: r["measured"])
    return {r["case"]: float(r["cycles_per_s"]) for r in rows}


def _cpu_run(spec, repeats, **kw):
    from fattree.sim import simulate

    best = None
    for _ in range(repeats):
        c0 = time.process_time()
        r = simulate(spec, seed=1, **kw)
        cpu = time.process_time() - c0
        if best is None or cpu < best[1]:
            best = (r, cpu)
    return best


BOOKSIM_CASES = [  # (our spec, load, sim_type, speed.csv case)
    ("kant:k=4,n=5", 0.1, "latency", "kant45-uniform-0.1"),
    ("kant:k=4,n=5", 0.15, "latency", "kant45-uniform-0.15"),
    ("kant:k=8,n=3", 1.0, "throughput", "kant83-uniform-saturated"),
]


def part5(repeats: int = 3) -> None:
    print(
        "5. --model booksim beside the default model (buffer 2, 1 VC, 1-flit packets; CPU "
        f"time, best of {repeats})"
    )
    stored = _booksim_stored()
    for spec, load, sim_type, key in BOOKSIM_CASES:
        r, cpu = _cpu_run(spec, repeats, model="booksim", load=load, sim_type=sim_type)
        cps = r.cycles / cpu
        d, dcpu = _cpu_run(
            spec, repeats, load=load, termination="window", warmup=1000, measure=5000
        )
        dcps = d.cycles / dcpu
        bs = stored.get(key)
        vs = f"; {cps / bs:,.0f}x BookSim2's {bs:,.0f} cycles/s ({key})" if bs else ""
        print(
            f"  {spec} load {load} ({sim_type}): booksim model {r.cycles:,} cycles, "
            f"{cps:,.0f} cycles/s, {r.flit_hops / cpu / 1e6:.2f} M flit-hops/s, accepted "
            f"{r.accepted_flits:.3f}{vs}; default model {dcps:,.0f} cycles/s, "
            f"{d.flit_hops / dcpu / 1e6:.2f} M flit-hops/s, accepted {d.accepted_flits:.3f}"
        )


def _repeat_ours(spec, load, sim_type, until_wall=0.0):
    """Our run repeated (at least once) until ``until_wall`` seconds of wall time have
    passed; returns (cycles, CPU seconds, runs)."""
    from fattree.sim import simulate

    cycles = cpu = 0.0
    runs = 0
    w0 = time.perf_counter()
    while runs == 0 or time.perf_counter() - w0 < until_wall:
        c0 = time.process_time()
        r = simulate(spec, seed=1, model="booksim", load=load, sim_type=sim_type)
        cpu += time.process_time() - c0
        cycles += r.cycles
        runs += 1
    return cycles, cpu, runs


def _children_cpu() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime


def _their_rate(out: str, cpu: float) -> float:
    """BookSim2's simulated cycles per CPU second, from its output."""
    import booksim_compare as bc

    return bc.parse_booksim(out)["cycles"] / cpu


def _alone_booksim(binary, text, work, tag, spec, load, sim_type, ours_first, walls):
    """BookSim2 alone, then ours alone for as long as BookSim2 took (or ours first, then
    BookSim2, for as long as it took in the previous round: ``walls`` holds its wall time
    per case): neither shares the machine's caches and memory with the other, at the price
    of measuring them in different minutes. Returns (BookSim2 cycles/s, ours cycles/s, our
    runs)."""
    cfg = work / f"{tag}.cfg"
    cfg.write_text(text)

    def theirs():
        before = _children_cpu()
        w0 = time.perf_counter()
        # (no returncode check: BookSim2's main returns -1 when its simulation succeeds)
        out = subprocess.run([binary, str(cfg)], cwd=work, capture_output=True, text=True).stdout
        return _their_rate(out, _children_cpu() - before), time.perf_counter() - w0

    case = tag.rsplit("-", 1)[0]
    if ours_first:
        cycles, cpu, runs = _repeat_ours(spec, load, sim_type, walls.get(case, 30.0))
        rate, _ = theirs()
    else:
        rate, walls[case] = theirs()
        cycles, cpu, runs = _repeat_ours(spec, load, sim_type, walls[case])
    return rate, cycles / cpu, runs


def _beside_booksim(binary, text, work, tag, spec, load, sim_type, swap):
    """BookSim2 on one core and ours repeated on the other for as long as BookSim2 runs:
    both see the same minutes of the machine (whose speed moves by up to 2x from one
    minute to the next); ``swap`` exchanges the cores (they need not be equally fast: a
    virtual core may share its physical core with another tenant). Returns (BookSim2
    cycles/s, ours cycles/s, our runs)."""
    cfg = work / f"{tag}.cfg"
    cfg.write_text(text)
    before = _children_cpu()
    proc = subprocess.Popen(
        [binary, str(cfg)], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    mine = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    if len(mine) >= 2:  # one core each
        cores = sorted(mine)[::-1] if swap else sorted(mine)
        os.sched_setaffinity(proc.pid, {cores[0]})
        os.sched_setaffinity(0, set(cores[1:]))
    cycles = cpu = 0.0
    runs = 0
    try:
        while proc.poll() is None or runs == 0:
            c, p, _ = _repeat_ours(spec, load, sim_type)
            cycles, cpu, runs = cycles + c, cpu + p, runs + 1
        out, _ = proc.communicate()
    finally:
        if len(mine) >= 2:
            os.sched_setaffinity(0, mine)
    return _their_rate(out, _children_cpu() - before), cycles / cpu, runs


def booksim_side_by_side(binary: str, rounds: int, alone: bool = False) -> None:
    """BookSim2 and ``--model booksim`` on the same configurations at the same time (or,
    with ``alone``, one after the other, each alone on the machine)."""
    import statistics
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import booksim_compare as bc

    work = Path(tempfile.mkdtemp(prefix="booksim2-speed-"))
    how = (
        "one after the other, each alone (BookSim2 first in odd rounds, ours first in even "
        "ones, ours repeated for as long as BookSim2 runs)"
        if alone
        else "at the same time: BookSim2 on one core, ours repeated on the other while it runs"
    )
    print(
        f"5b. BookSim2 ({binary}) and --model booksim {how}, {rounds} rounds (CPU time: "
        "getrusage of the BookSim2 process, process_time of ours over all its runs)"
    )
    ratios: dict = {}
    walls: dict = {}  # BookSim2's wall time per case (alone)
    for rnd in range(rounds):
        for spec, load, sim_type, key in BOOKSIM_CASES:
            network = {"kant:k=4,n=5": "kant45", "kant:k=8,n=3": "kant83"}[spec]
            text = bc.booksim_text(bc.Case(network, "uniform", 2, 1, 1, 1), work, load, 1, sim_type)
            args = (binary, text, work, f"{key}-{rnd}", spec, load, sim_type, rnd % 2 == 1)
            if alone:
                theirs, ours, runs = _alone_booksim(*args, walls)
            else:
                theirs, ours, runs = _beside_booksim(*args)
            ratios.setdefault(key, []).append((ours / theirs, theirs, ours))
            print(
                f"  round {rnd + 1} {key}: BookSim2 {theirs:,.1f} cycles/s, ours {ours:,.0f} "
                f"cycles/s over {runs} runs: {ours / theirs:,.0f}x",
                flush=True,
            )
    for key, rs in ratios.items():
        print(
            f"  {key}: ratio per round {', '.join(f'{r:,.0f}x' for r, _, _ in rs)}; median "
            f"{statistics.median(r for r, _, _ in rs):,.0f}x"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip MiKANT(8,6) and the cold compile")
    ap.add_argument("--booksim", action="store_true", help="only part 5 (--model booksim)")
    ap.add_argument(
        "--booksim-binary", help="with --booksim: also run BookSim2 (this binary), side by side"
    )
    ap.add_argument("--rounds", type=int, default=3, help="rounds of --booksim-binary")
    ap.add_argument(
        "--alone",
        action="store_true",
        help="with --booksim-binary: BookSim2 and ours one after the other, not side by side",
    )
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error(f"--rounds={a.rounds}: give a whole number >= 1")
    if a.booksim_binary and not os.access(a.booksim_binary, os.X_OK):
        ap.error(f"--booksim-binary={a.booksim_binary}: not an executable file")
    if a.alone and not a.booksim_binary:
        ap.error("--alone: needs --booksim-binary (it orders BookSim2's runs and ours)")
    from fattree.sim import simulate

    r = simulate("kant:k=2,n=2", load=0.1, packets_per_source=5)  # load the kernel once
    print(f"kernel load (this process): {r.compile_seconds:.2f} s")
    r = simulate("kant:k=2,n=2", load=0.1, model="booksim")
    print(f"booksim kernel load (this process): {r.compile_seconds:.2f} s")
    if a.booksim:
        if a.booksim_binary:
            booksim_side_by_side(a.booksim_binary, a.rounds, a.alone)
        else:
            part5()
        return
    part1()
    if not a.quick:
        part2()
    part3()
    part4() if not a.quick else None
    part5()


if __name__ == "__main__":
    main()
