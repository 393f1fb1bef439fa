"""The booksim model of a git revision against the working tree's, in one process.

    .venv/bin/python benchmarks/booksim_ab.py                  # HEAD vs the working tree
    .venv/bin/python benchmarks/booksim_ab.py --rev 042d446 --rounds 3 --check-only

As benchmarks/sim_ab.py for the default kernel: on a shared machine two processes
measured minutes apart differ by tens of per cent, so both versions run in the same
process, alternating (old, new, new, old, ...), and the figure is the best CPU time
(``time.process_time`` around :func:`fattree.sim.simulate`, setup included) of each.
The old ``sim/booksim/{kernel,model,routes}.py`` are loaded from ``git show REV:...`` as
modules of ``fattree.sim.booksim`` (their relative imports of each other renamed to the
old copies) and swapped in for ``fattree.sim.booksim.model`` while the old one runs.

First every result of a spread of configurations (1-3 VCs, 1-8-flit packets, speculative
and not, routing and credit delays, ``nca`` and the anynet table, uniform, transpose,
bitcomp, hotspot, latency and throughput runs, a saturated one) must be identical in
every field but the wall and compile times; then the speed cases of
``benchmarks/sim_speed.py --booksim`` are timed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import inspect
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = "fattree.sim.booksim"
FILES = ("kernel", "routes", "model")

CHECKS = [  # (topology, options)
    ("kant:k=4,n=3", dict(load=0.2)),
    ("kant:k=4,n=3", dict(load=0.3)),  # unstable
    ("kant:k=4,n=3", dict(load=0.4, vcs=2, packet_flits=4, buffer=5, traffic="transpose")),
    (
        "kant:k=4,n=3",
        dict(load=0.3, vcs=3, packet_flits=8, buffer=8, speculative=False, traffic="bitcomp"),
    ),
    (
        "kant:k=4,n=3",
        dict(load=0.12, vcs=2, buffer=3, routing_delay=1, credit_delay=2, traffic="hotspot"),
    ),
    ("kant:k=4,n=3", dict(load=0.9, vcs=1, packet_flits=4, buffer=2)),  # unstable
    ("mikant:k=4,n=3", dict(load=0.15, vcs=2, packet_flits=4, buffer=4)),
    ("mikant:k=4,n=3", dict(load=1.0, vcs=1, buffer=2, sim_type="throughput")),
    ("kant:k=8,n=2", dict(load=0.3, vcs=2, packet_flits=2, speculative=False, routing_delay=1)),
    ("kant:k=4,n=3", dict(load=1.0, vcs=3, buffer=6, speculative=False, sim_type="throughput")),
    ("kant:k=2,n=4", dict(load=0.2, vcs=1, packet_flits=1, buffer=8, credit_delay=1, seed=7)),
    ("kant:k=3,n=3", dict(load=0.3, vcs=2, packet_flits=3, buffer=4, traffic="hotspot")),
    ("kant:k=4,n=5", dict(load=0.1)),
]
SPEED = [
    ("kant:k=4,n=5", dict(load=0.1)),
    ("kant:k=4,n=5", dict(load=0.15)),
    ("kant:k=8,n=3", dict(load=1.0, sim_type="throughput")),
]


def load_old(rev: str, tmp: str) -> dict:
    """The old kernel, routes and model as modules ``fattree.sim.booksim.<name>_rev``."""
    mods = {}
    for name in FILES:
        src = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:src/fattree/sim/booksim/{name}.py"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for other in FILES:
            src = src.replace(f"from . import {other} ", f"from . import {other}_rev ")
            src = src.replace(f"from .{other} import", f"from .{other}_rev import")
        path = Path(tmp) / f"{name}_rev.py"
        path.write_text(src)
        spec = importlib.util.spec_from_file_location(f"{PKG}.{name}_rev", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        mods[name] = mod
    return mods


def _key(r) -> dict:
    d = dataclasses.asdict(r)
    for k in ("wall_seconds", "compile_seconds"):
        d.pop(k)
    return {k: repr(v.tolist() if hasattr(v, "tolist") else v) for k, v in d.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="HEAD", help="git revision of the old model")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--check-only", action="store_true", help="results only, no timing")
    a = ap.parse_args()
    import fattree.sim.booksim.model as new_model
    from fattree.sim import simulate

    with tempfile.TemporaryDirectory() as tmp:
        old = load_old(a.rev, tmp)
        models = {"old": old["model"], "new": new_model}

        def one(which, spec, kw):
            run = models[which].run_booksim
            if next(iter(inspect.signature(run).parameters)) == "topo":
                # a model from before the setup object: run(topo, cfg), setup inside
                from fattree.sim.config import merge_config
                from fattree.topology import build

                c0 = time.process_time()
                r = run(build(spec), merge_config(None, {"model": "booksim", "seed": 1} | kw))
                return time.process_time() - c0, r
            sys.modules[f"{PKG}.model"] = models[which]
            try:
                c0 = time.process_time()
                r = simulate(spec, model="booksim", **({"seed": 1} | kw))
                return time.process_time() - c0, r
            finally:
                sys.modules[f"{PKG}.model"] = new_model

        bad = 0
        for spec, kw in CHECKS:
            _, ro = one("old", spec, kw)
            _, rn = one("new", spec, kw)
            ko, kn = _key(ro), _key(rn)
            diff = [k for k in ko if ko[k] != kn[k]]
            bad += bool(diff)
            print(
                f"  {spec} {kw}: {rn.cycles:,} cycles, latency {rn.avg_latency:.3f}, accepted "
                f"{rn.accepted_flits:.4f}, hops {rn.avg_hops:.3f}, {rn.delivered} delivered: "
                + (f"DIFFER in {diff}" if diff else "identical")
            )
        print(f"{len(CHECKS) - bad} of {len(CHECKS)} configurations identical")
        if bad:
            sys.exit(1)
        if a.check_only:
            return
        print(f"old: sim/booksim of {a.rev}; new: the working tree; best CPU of {a.rounds} each")
        for spec, kw in SPEED:
            best = {"old": math.inf, "new": math.inf}
            for i in range(a.rounds):
                for w in ("old", "new") if i % 2 == 0 else ("new", "old"):
                    cpu, r = one(w, spec, kw)
                    best[w] = min(best[w], cpu)
            n = r.cycles
            print(
                f"  {spec} {kw}: {n:,} cycles; old {n / best['old']:,.0f} cycles/s, new "
                f"{n / best['new']:,.0f} cycles/s; new speed / old = "
                f"{best['old'] / best['new']:.3f}"
            )


if __name__ == "__main__":
    main()
