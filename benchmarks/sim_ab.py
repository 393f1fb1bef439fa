"""The simulator kernel of a git revision against the working tree's, in one process.

    .venv/bin/python benchmarks/sim_ab.py                  # HEAD~1 vs the working tree
    .venv/bin/python benchmarks/sim_ab.py --rev 042d446 --rounds 7

On a shared machine two processes measured minutes apart differ by tens of per cent, so
both kernels run in the same process, alternating (old, new, new, old, ...), each
configuration ``--rounds`` times; the figure is the best CPU time (``time.process_time``
around :func:`fattree.sim.simulate`, setup included) of each. The two runs must give the
same cycles, flit-hops and latency (the kernels are asserted identical in results). The
old ``sim/kernel.py`` is loaded from ``git show REV:...`` as a module of ``fattree.sim``
(so its relative imports resolve to today's routing, traffic and layout modules); it is
called with the arrays of today's state, by its parameter names (flat arrays, or the
named groups of :meth:`fattree.sim.state.State.args`). Cases: kant:k=4,n=5, uniform,
alg1, 1 VC, 1-flit packets, 2-flit FIFOs, at lambda = 0.1 and 0.2 (as benchmarks/sim_speed.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_old_kernel(rev: str, tmp: str):
    src = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:src/fattree/sim/kernel.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tmp) / "kernel_rev.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("fattree.sim.kernel_rev", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


class _Shim:
    """Stands for the kernel module in ``fattree.sim.engine``: calls the old ``_run``."""

    def __init__(self, old) -> None:
        self.old = old
        self.names = list(inspect.signature(old._run.py_func).parameters)[:-1]

        def run(*args):
            *groups, t_stop = args
            arrays = {}
            for g in groups:
                if hasattr(g, "_asdict"):  # the fault view may be None
                    arrays.update(g._asdict())
            if all(n in arrays for n in self.names):
                return self.old._run(*[arrays[n] for n in self.names], t_stop)
            return self.old._run(*groups, t_stop)  # already grouped: same order as today

        run.signatures = [None]
        self._run = run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="HEAD~1", help="git revision of the old kernel")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    from fattree.sim import engine, kernel, simulate

    with tempfile.TemporaryDirectory() as tmp:
        kernels = {"old": _Shim(load_old_kernel(a.rev, tmp)), "new": kernel}

        def one(which, load, cycles):
            engine.kernel = kernels[which]
            c0 = time.process_time()
            r = simulate(
                "kant:k=4,n=5",
                load=load,
                termination="window",
                warmup=1000,
                measure=cycles - 1000,
                seed=1,
            )
            return time.process_time() - c0, (r.cycles, r.flit_hops, r.avg_latency)

        for w in kernels:  # compile or load both
            one(w, 0.1, 1200)
        print(
            f"old: sim/kernel.py of {a.rev}; new: the working tree; best CPU of {a.rounds} "
            f"alternating runs each"
        )
        for load, cycles in ((0.1, 8000), (0.2, 6000)):
            best = {"old": float("inf"), "new": float("inf")}
            res = {}
            for i in range(a.rounds):
                for w in ("old", "new") if i % 2 == 0 else ("new", "old"):
                    cpu, res[w] = one(w, load, cycles)
                    best[w] = min(best[w], cpu)
            same = "identical results" if res["old"] == res["new"] else f"RESULTS DIFFER {res}"
            n = res["new"][0]
            print(
                f"  kant:k=4,n=5 lambda={load}: {n:,} cycles; old {n / best['old']:,.0f} "
                f"cycles/s, new {n / best['new']:,.0f} cycles/s; new speed / old = "
                f"{best['old'] / best['new']:.3f} ({same})"
            )
        engine.kernel = kernel


if __name__ == "__main__":
    main()
