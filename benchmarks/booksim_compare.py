"""Our ``--model booksim`` against BookSim2: the stored validation matrix, or a rerun.

Usage::

    python benchmarks/booksim_compare.py                       # ours vs the stored figures
    python benchmarks/booksim_compare.py --only kant43 --limit 20
    python benchmarks/booksim_compare.py --booksim /path/to/booksim --out DIR   # rerun BookSim2
    python benchmarks/booksim_compare.py --booksim /path/to/booksim --speed-only

With ``--booksim`` the script runs a BookSim2 binary (built by the user from its public
source, github booksim/booksim2; the stored figures are from commit 28f4329) over the
matrix of docs/booksim.md and writes ``matrix.csv``, ``zero_load.csv``, ``speed.csv``
and ``meta.json`` to ``--out`` (default: a new folder, never the stored data unless
``--out tests/data/booksim2`` is given). Without it, it reads the stored figures in
``tests/data/booksim2`` and runs ours through ``fattree.sim.simulate`` with
``SimConfig(model="booksim", ...)``, printing one line per figure: BookSim2, ours, the
difference and pass/fail against issue 12's tolerances (zero-load latency within 0.1
cycle, latency below 0.8 x saturation within 2 %, saturation throughput within 3 %).

References: BookSim2 ``src/trafficmanager.cpp`` (measurement), ``src/routers/iq_router.cpp``
(pipeline); docs/booksim.md.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "booksim2"
COMMIT = "28f43299f1706a3160ffac721ca461d74eb6e618"
TOL_ZERO = 0.1  # cycles
TOL_LAT = 0.02  # relative, loads below 0.8 x saturation
TOL_SAT = 0.03  # relative
LOAD_FRACTIONS = (0.25, 0.5, 0.75)  # of BookSim2's saturation throughput
SEEDS_SMALL = (1,)  # three seeds differed by < 0.1 cycle (0.02-0.08 sd) on kant(4,3)
SEEDS_LARGE = (1,)

MATRIX_COLUMNS = [
    "case",
    "network",
    "booksim_topology",
    "routing_function",
    "traffic",
    "buffer",
    "vcs",
    "packet_flits",
    "speculative",
    "routing_delay",
    "point",
    "load",
    "seeds",
    "plat",
    "plat_sd",
    "nlat",
    "flat",
    "accepted",
    "hops",
    "status",
    "cycles",
]


@dataclasses.dataclass(frozen=True)
class Case:
    network: str  # kant43, kant45, kant83, mikant43
    traffic: str
    buffer: int
    vcs: int
    packet_flits: int
    speculative: int
    routing_delay: int = 0

    @property
    def name(self) -> str:
        return (
            f"{self.network}-{self.traffic}-b{self.buffer}-v{self.vcs}-p{self.packet_flits}-"
            f"{'s' if self.speculative else 'ns'}-rd{self.routing_delay}"
        )

    @property
    def k_n(self) -> tuple[int, int]:
        return {"kant43": (4, 3), "kant45": (4, 5), "kant83": (8, 3), "mikant43": (4, 3)}[
            self.network
        ]

    @property
    def spec(self) -> str:
        """Our topology: kant runs against BookSim2's built-in fattree, MiKANT via anynet."""
        if self.network == "mikant43":
            return f"graph:file={DATA / 'mikant43.anynet'}"
        k, n = self.k_n
        return f"kant:k={k},n={n}"


def matrix() -> list[Case]:
    """The covering subset of docs/booksim.md ("The matrix").

    kant(4,3): every (traffic, buffer, speculative) combination, with (VCs, packet
    flits) rotating through all six pairs so that each appears with every traffic and
    every buffer depth; BookSim2's default pipeline (``routing_delay = 1``) twice;
    MiKANT(4,3) via anynet four times. kant(4,5) and kant(8,3) are the timing runs
    (``speed.csv``: their latency at 0.1 and their saturation throughput).
    """
    pairs = [(1, 1), (2, 4), (1, 8), (2, 1), (1, 4), (2, 8)]
    cases = []
    for ti, t in enumerate(("uniform", "bitcomp", "transpose")):
        for bi, b in enumerate((2, 5, 8)):
            for s in (1, 0):
                v, p = pairs[(2 * ti + bi + 3 * (1 - s)) % 6]
                cases.append(Case("kant43", t, b, v, p, s))
    cases += [Case("kant43", "uniform", 2, 1, 1, s, routing_delay=1) for s in (1, 0)]
    cases += [
        Case("mikant43", "uniform", 2, 1, 1, 1),
        Case("mikant43", "bitcomp", 5, 2, 4, 0),
        Case("mikant43", "uniform", 8, 2, 8, 1),
        Case("mikant43", "bitcomp", 2, 1, 1, 0),
    ]
    return cases


# ---------------------------------------------------------------------- BookSim2 side
def booksim_text(
    case: Case, workdir: Path, load: float, seed: int, sim_type: str, extra: str = ""
) -> str:
    from fattree.topology.export import booksim_config

    settings = dict(
        traffic=case.traffic,
        buffer=case.buffer,
        vcs=case.vcs,
        packet_flits=case.packet_flits,
        speculative=bool(case.speculative),
        routing_delay=case.routing_delay,
        load=load,
        seed=seed,
    )
    if case.network == "mikant43":
        text = booksim_config("mikant43.anynet", spec="mikant:k=4,n=3", **settings)
    else:
        k, n = case.k_n
        text = booksim_config(None, k=k, n=n, spec=f"kant:k={k},n={n}", **settings)
    text = text.replace("sim_type = latency;", f"sim_type = {sim_type};")
    return text + extra


_NUM = r"([-+0-9.eE]+|nan|-?inf)"


def parse_booksim(out: str) -> dict:
    """Overall figures of a BookSim2 run (``DisplayOverallStats``)."""
    res: dict = {"status": "ok"}
    if "Simulation unstable" in out:
        res["status"] = "unstable"
    m = re.search(r"Time taken is (\d+) cycles", out)
    res["cycles"] = int(m.group(1)) if m else None
    overall = out.split("====== Overall Traffic Statistics ======")
    tail = overall[1] if len(overall) > 1 else ""
    for key, label in (
        ("plat", "Packet latency average"),
        ("nlat", "Network latency average"),
        ("flat", "Flit latency average"),
        ("accepted", "Accepted flit rate average"),
        ("injected", "Injected flit rate average"),
        ("hops", "Hops average"),
    ):
        m = re.search(label + r" = " + _NUM, tail)
        res[key] = float(m.group(1)) if m else None
    return res


def run_booksim(binary: str, text: str, workdir: Path, tag: str) -> tuple[str, float]:
    cfg = workdir / f"{tag}.cfg"
    cfg.write_text(text)
    t0 = time.perf_counter()
    proc = subprocess.run(
        ["nice", "-n", "10", binary, str(cfg)],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode not in (0, 255) and "Simulation unstable" not in proc.stdout:
        raise RuntimeError(f"BookSim2 failed on {tag}: {proc.stderr[-500:]}")
    return proc.stdout, time.perf_counter() - t0


def zero_load_trace(binary: str, case: Case, workdir: Path) -> dict[int, int]:
    """Latency by routers on the path at (almost) zero load, from BookSim2's packet watch."""
    load = 0.002 if case.network == "kant43" else 0.0005
    text = booksim_text(
        case,
        workdir,
        load,
        1,
        "latency",
        "watch_packets = {" + ",".join(map(str, range(60))) + "};\nwatch_out = -;\n",
    )
    text = text.replace("traffic = transpose;", "traffic = uniform;").replace(
        "traffic = bitcomp;", "traffic = uniform;"
    )
    out, _ = run_booksim(binary, text, workdir, case.name + "-zl")
    hops: dict[int, int] = {}
    best: dict[int, int] = {}
    for line in out.splitlines():
        m = re.search(r"Retiring flit \d+ \(packet (\d+),.*hops = (\d+)", line)
        if m:
            hops[int(m.group(1))] = int(m.group(2))
        m = re.search(r"Retiring packet (\d+) \(plat = (\d+)", line)
        if m:
            h = hops[int(m.group(1))]
            best[h] = min(best.get(h, 1 << 30), int(m.group(2)))
    return dict(sorted(best.items()))


def measure_case(binary: str, case: Case, workdir: Path) -> tuple[list[dict], list[dict]]:
    rows = []
    seeds = SEEDS_SMALL if case.network == "kant43" else SEEDS_LARGE
    base = dict(
        case=case.name,
        network=case.network,
        booksim_topology="anynet" if case.network == "mikant43" else "fattree",
        routing_function="min" if case.network == "mikant43" else "nca",
        traffic=case.traffic,
        buffer=case.buffer,
        vcs=case.vcs,
        packet_flits=case.packet_flits,
        speculative=case.speculative,
        routing_delay=case.routing_delay,
    )
    sat = parse_booksim(
        run_booksim(
            binary, booksim_text(case, workdir, 1.0, 1, "throughput"), workdir, case.name + "-sat"
        )[0]
    )
    rows.append(
        {
            **base,
            "point": "saturation",
            "load": 1.0,
            "seeds": "1",
            "plat": None,
            "plat_sd": None,
            "nlat": None,
            "flat": None,
            "accepted": sat["accepted"],
            "hops": sat["hops"],
            "status": sat["status"],
            "cycles": sat["cycles"],
        }
    )
    for frac, point in zip(LOAD_FRACTIONS, ("low", "mid", "high")):
        load = round(frac * sat["accepted"], 4)
        got = [
            parse_booksim(
                run_booksim(
                    binary,
                    booksim_text(case, workdir, load, s, "latency"),
                    workdir,
                    f"{case.name}-{point}-{s}",
                )[0]
            )
            for s in seeds
        ]
        ok = [g for g in got if g["status"] == "ok" and g["plat"] is not None]
        mean = (lambda key: sum(g[key] for g in ok) / len(ok)) if ok else (lambda key: None)  # noqa: B023  (called in this iteration)
        sd = None
        if len(ok) > 1:
            m = mean("plat")
            sd = (sum((g["plat"] - m) ** 2 for g in ok) / (len(ok) - 1)) ** 0.5
        rows.append(
            {
                **base,
                "point": point,
                "load": load,
                "seeds": " ".join(map(str, seeds)),
                "plat": mean("plat"),
                "plat_sd": sd,
                "nlat": mean("nlat"),
                "flat": mean("flat"),
                "accepted": mean("accepted"),
                "hops": mean("hops"),
                "status": "ok"
                if len(ok) == len(got)
                else f"unstable {len(got) - len(ok)}/{len(got)}",
                "cycles": max((g["cycles"] or 0) for g in got),
            }
        )
    zl = []
    if case.traffic == "uniform":
        zl = [
            {"case": case.name, "routers": h, "plat": p}
            for h, p in zero_load_trace(binary, case, workdir).items()
        ]
    return rows, zl


def speed_runs(binary: str, workdir: Path) -> list[dict]:
    """Simulated cycles per CPU second of BookSim2 (single core) on issue 12's three cases."""
    jobs = [
        ("kant45-uniform-0.1", Case("kant45", "uniform", 2, 1, 1, 1), 0.1, "latency"),
        ("kant45-uniform-0.15", Case("kant45", "uniform", 2, 1, 1, 1), 0.15, "latency"),
        ("kant83-uniform-saturated", Case("kant83", "uniform", 2, 1, 1, 1), 1.0, "throughput"),
    ]
    rows = []
    for tag, case, load, sim_type in jobs:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out, wall = run_booksim(
            binary, booksim_text(case, workdir, load, 1, sim_type), workdir, "speed-" + tag
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        user = after.ru_utime - before.ru_utime
        res = parse_booksim(out)
        rows.append(
            {
                "case": tag,
                "network": case.network,
                "traffic": case.traffic,
                "buffer": case.buffer,
                "vcs": case.vcs,
                "packet_flits": case.packet_flits,
                "speculative": case.speculative,
                "routing_delay": case.routing_delay,
                "load": load,
                "sim_type": sim_type,
                "cycles": res["cycles"],
                "user_s": round(user, 2),
                "wall_s": round(wall, 2),
                "cycles_per_s": round(res["cycles"] / user, 1) if res["cycles"] and user else None,
                "accepted": res["accepted"],
                "measured": time.strftime("%Y-%m-%d"),
                "conditions": "booksim_compare.py --booksim, one after another",
            }
        )
        _write_csv(workdir.parent / "speed-progress.csv", rows, list(rows[0]))
        print(
            f"speed {tag}: {rows[-1]['cycles']} cycles in {user:.1f} s CPU = {rows[-1]['cycles_per_s']} cycles/s",
            flush=True,
        )
    return rows


def extra_seed_runs(binary: str, workdir: Path, rows: list[dict], seeds, jobs: int) -> list[dict]:
    """BookSim2's every matrix row (latency at the load points, the saturation throughput)
    with further seeds: one run is one draw, of a wide distribution near the knee
    (docs/booksim.md, "Agreement")."""

    def one(job):
        r, s = job
        case = Case(
            r["network"],
            r["traffic"],
            int(r["buffer"]),
            int(r["vcs"]),
            int(r["packet_flits"]),
            int(r["speculative"]),
            int(r["routing_delay"]),
        )
        sim_type = "throughput" if r["point"] == "saturation" else "latency"
        text = booksim_text(case, workdir, float(r["load"]), s, sim_type)
        res = parse_booksim(run_booksim(binary, text, workdir, f"{case.name}-{r['point']}-{s}")[0])
        return dict(
            case=r["case"],
            point=r["point"],
            load=r["load"],
            seed=s,
            plat=None if r["point"] == "saturation" else res["plat"],
            accepted=res["accepted"],
            status=res["status"],
            cycles=res["cycles"],
        )

    todo = [(r, s) for r in rows for s in seeds]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, todo))


def _write_csv(path: Path, rows: list[dict], columns: list[str]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(
                {
                    k: (
                        ""
                        if r.get(k) is None
                        else (round(r[k], 4) if isinstance(r[k], float) else r[k])
                    )
                    for k in columns
                }
            )


def rerun(args) -> int:
    from fattree import build
    from fattree.topology.export import BOOKSIM_FIXED, export

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="booksim2-"))
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="booksim2-run-"))
    export(build("mikant:k=4,n=3"), "booksim", work / "mikant43.anynet")
    (out / "mikant43.anynet").write_bytes((work / "mikant43.anynet").read_bytes())
    cases = [c for c in matrix() if not args.only or c.network in args.only.split(",")]
    if args.limit:
        cases = cases[: args.limit]
    rows: list[dict] = []
    zl: list[dict] = []
    if not args.speed_only:
        t0 = time.time()
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for i, (r, z) in enumerate(
                pool.map(lambda c: measure_case(args.booksim, c, work), cases)
            ):
                rows += r
                zl += z
                _write_csv(out / "matrix.csv", rows, MATRIX_COLUMNS)  # so that progress survives
                _write_csv(out / "zero_load.csv", zl, ["case", "routers", "plat"])
                print(
                    f"[{i + 1}/{len(cases)}] {r[0]['case']}: saturation {r[0]['accepted']}, "
                    f"{time.time() - t0:.0f} s",
                    flush=True,
                )
        _write_csv(out / "matrix.csv", rows, MATRIX_COLUMNS)
        _write_csv(out / "zero_load.csv", zl, ["case", "routers", "plat"])
    if args.extra_seeds > 1:  # seeds 2..N of every row (seeds.csv)
        more = extra_seed_runs(
            args.booksim,
            work,
            rows or read_csv(DATA / "matrix.csv"),
            range(2, args.extra_seeds + 1),
            args.jobs,
        )
        _write_csv(out / "seeds.csv", more, list(more[0]))
    speed = []
    if not args.no_speed:
        speed = speed_runs(args.booksim, work)
        _write_csv(out / "speed.csv", speed, list(speed[0]))
    meta = {
        "booksim2_commit": args.commit,
        "booksim2_source": "github booksim/booksim2 (public source)",
        "fixed_keys": BOOKSIM_FIXED,
        "load_fractions_of_saturation": LOAD_FRACTIONS,
        "seeds_kant43": SEEDS_SMALL,
        "seeds_other": SEEDS_LARGE,
        "saturation": "sim_type = throughput at injection_rate = 1.0 flit/node/cycle: accepted flit rate",
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": "shared 2-core machine, BookSim2 run with nice -n 10; timings are upper bounds",
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


# ---------------------------------------------------------------------- our side
def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _num(x):
    return None if x in ("", None) else float(x)


def our_config(
    row: dict, load: float, seed: int = 1, traffic: str | None = None, sim_type: str | None = None
):
    """``SimConfig`` of our ``--model booksim`` for one stored row (docs/booksim.md, "Mapping")."""
    from fattree.sim.config import SimConfig

    fields = {f.name for f in dataclasses.fields(SimConfig)}
    missing = {"model", "speculative"} - fields
    if missing:
        raise SystemExit(
            f"error: fattree.sim.config.SimConfig has no {', '.join(sorted(missing))}: "
            f"this build has no --model booksim (issue 12)"
        )
    kw = dict(
        model="booksim",
        speculative=bool(int(row["speculative"])),
        load=load,
        traffic=traffic or row["traffic"],
        packet_flits=int(row["packet_flits"]),
        buffer=int(row["buffer"]),
        vcs=int(row["vcs"]),
        seed=seed,
    )
    if sim_type is not None and "sim_type" in fields:
        kw["sim_type"] = sim_type
    rd = int(row["routing_delay"])
    if rd:
        if "routing_delay" not in fields:
            return None
        kw["routing_delay"] = rd
    return SimConfig(**kw)


def _spec_of(row: dict) -> str:
    net = row["network"]
    if net == "mikant43":
        return f"graph:file={DATA / 'mikant43.anynet'}"
    k, n = {"kant43": (4, 3), "kant45": (4, 5), "kant83": (8, 3)}[net]
    return f"kant:k={k},n={n}"


def _zero_load_pairs(topo, routers: int) -> tuple[int, int] | None:
    """A source/destination pair whose path crosses ``routers`` switches (BFS)."""
    import numpy as np
    from scipy.sparse import csgraph

    n = topo.n_nodes
    dist = csgraph.shortest_path(_csr(topo), unweighted=True, indices=[0])[0][:n]
    hit = np.flatnonzero(dist == routers + 1)
    return (0, int(hit[0])) if len(hit) else None


def _csr(topo):
    import numpy as np
    import scipy.sparse as sp

    a, b = topo.links[:, 0], topo.links[:, 1]
    v = topo.n_vertices
    return sp.csr_matrix(
        (np.ones(2 * len(a)), (np.concatenate([a, b]), np.concatenate([b, a]))), shape=(v, v)
    )


def compare(args) -> int:
    from fattree import build
    from fattree.sim import simulate

    rows = read_csv(DATA / "matrix.csv")
    zl = read_csv(DATA / "zero_load.csv")
    extra: dict = {}  # BookSim2's further seeds of every row (seeds.csv)
    if (DATA / "seeds.csv").exists():
        for e in read_csv(DATA / "seeds.csv"):
            v = e["accepted"] if e["point"] == "saturation" else e["plat"]
            if e["status"] == "ok" and v:
                extra.setdefault((e["case"], e["point"]), []).append(float(v))
    if args.only:
        rows = [r for r in rows if r["network"] in args.only.split(",")]
    cases = list(dict.fromkeys(r["case"] for r in rows))
    if args.limit:
        cases = cases[: args.limit]
    topos: dict = {}
    our_seeds = list(range(1, args.seeds + 1))
    n_pass = n_fail = n_na = 0
    print(f"{'case':40s} {'figure':14s} {'BookSim2':>9s} {'ours':>9s} {'diff':>8s}  result")

    worst: list = []

    def report(case, figure, theirs, ours, ok, diff):
        nonlocal n_pass, n_fail, n_na
        if ok is not None and diff:
            worst.append((abs(float(diff.rstrip("%"))), figure.split("@")[0], case, figure, diff))
        verdict = "n/a" if ok is None else ("pass" if ok else "FAIL")
        n_pass += verdict == "pass"
        n_fail += verdict == "FAIL"
        n_na += verdict == "n/a"

        def fmt(x):
            return "-" if x is None else f"{x:9.4f}"

        print(
            f"{case:40s} {figure:14s} {fmt(theirs)} {fmt(ours)} {diff:>8s}  {verdict}", flush=True
        )

    with tempfile.TemporaryDirectory() as tmp:
        for name in cases:
            crow = [r for r in rows if r["case"] == name]
            spec = _spec_of(crow[0])
            topo = topos.setdefault(spec, build(spec))
            sat_row = next(r for r in crow if r["point"] == "saturation")
            for r in crow:
                if r["point"] == "saturation":
                    cfg = our_config(r, 1.0, sim_type="throughput")  # as BookSim2's rows
                    if cfg is None:
                        report(name, "saturation", _num(r["accepted"]), None, None, "")
                        continue
                    got = [
                        simulate(topo, dataclasses.replace(cfg, seed=s)).accepted_flits
                        for s in our_seeds
                    ]
                    ours = sum(got) / len(got)
                    theirs = _num(r["accepted"])
                    more = extra.get((name, r["point"]), []) if args.booksim_seeds else []
                    if more:  # BookSim2's mean over its stored seeds
                        theirs = (theirs + sum(more)) / (1 + len(more))
                    rel = (ours - theirs) / theirs
                    report(
                        name, "saturation", theirs, ours, abs(rel) <= TOL_SAT, f"{100 * rel:+.1f}%"
                    )
                    continue
                if r["status"] != "ok" or _num(r["plat"]) is None:
                    report(name, f"lat@{r['point']}", None, None, None, "")
                    continue
                load = float(r["load"])
                cfg = our_config(r, load)
                if cfg is None:
                    report(name, f"lat@{r['point']}", _num(r["plat"]), None, None, "")
                    continue
                got = [
                    simulate(topo, dataclasses.replace(cfg, seed=s)).avg_latency for s in our_seeds
                ]
                ours = sum(got) / len(got)
                theirs = _num(r["plat"])
                more = extra.get((name, r["point"]), []) if args.booksim_seeds else []
                if more:  # BookSim2's mean over its stored seeds
                    theirs = (theirs + sum(more)) / (1 + len(more))
                rel = (ours - theirs) / theirs
                below = load < 0.8 * float(sat_row["accepted"])
                report(
                    name,
                    f"lat@{r['point']}",
                    theirs,
                    ours,
                    abs(rel) <= TOL_LAT if below else None,
                    f"{100 * rel:+.1f}%",
                )
            for z in (z for z in zl if z["case"] == name):
                pair = _zero_load_pairs(topo, int(z["routers"]))
                cfg = our_config(crow[0], 0.01)
                if pair is None or cfg is None:
                    continue
                trace = Path(tmp) / f"{name}-{z['routers']}.txt"
                trace.write_text(f"10 {pair[0]} {pair[1]}\n")
                res = simulate(
                    topo, dataclasses.replace(cfg, traffic=f"trace:file={trace}", load=None)
                )
                theirs = float(z["plat"])
                report(
                    name,
                    f"zero@{z['routers']}r",
                    theirs,
                    res.avg_latency,
                    abs(res.avg_latency - theirs) <= TOL_ZERO,
                    f"{res.avg_latency - theirs:+.2f}",
                )
    print(f"{n_pass} passed, {n_fail} failed, {n_na} not comparable")
    for kind in ("saturation", "lat", "zero"):
        top = sorted((w for w in worst if w[1] == kind), reverse=True)[:3]
        if top:
            print(f"worst {kind}: " + "; ".join(f"{c} {f} {d}" for _, _, c, f, d in top))
    speed = DATA / "speed.csv"
    if speed.exists():
        print(
            "\nBookSim2 speed (single core, stored): "
            + "; ".join(
                f"{r['case']} {float(r['cycles_per_s']):.0f} cycles/s" for r in read_csv(speed)
            )
        )
    return 1 if n_fail else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--booksim", help="BookSim2 binary: rerun the matrix instead of reading the stored figures"
    )
    ap.add_argument(
        "--out", help="with --booksim: folder for the figures (default: a new temporary folder)"
    )
    ap.add_argument(
        "--commit", default=COMMIT, help="with --booksim: the BookSim2 commit it was built from"
    )
    ap.add_argument("--only", help="networks to run, e.g. kant43,mikant43")
    ap.add_argument("--limit", type=int, default=0, help="first N cases only")
    ap.add_argument(
        "--seeds",
        type=int,
        default=1,
        help="our runs per figure (seeds 1..N, averaged); BookSim2's rows are one seed",
    )
    ap.add_argument(
        "--booksim-seeds",
        action="store_true",
        help="compare every row with the mean of BookSim2's stored seeds "
        "(seed 1 in matrix.csv, seeds 2-4 in tests/data/booksim2/seeds.csv)",
    )
    ap.add_argument("--jobs", type=int, default=1, help="with --booksim: BookSim2 runs at once")
    ap.add_argument(
        "--speed-only", action="store_true", help="with --booksim: only the timing runs"
    )
    ap.add_argument("--no-speed", action="store_true", help="with --booksim: skip the timing runs")
    ap.add_argument(
        "--extra-seeds",
        type=int,
        default=0,
        help="with --booksim: also seeds 2..N of every row (seeds.csv)",
    )
    args = ap.parse_args(argv)
    if args.booksim:
        if not os.access(args.booksim, os.X_OK):
            print(f"error: --booksim {args.booksim!r} is not an executable file", file=sys.stderr)
            return 2
        return rerun(args)
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
