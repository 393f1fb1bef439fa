"""Compile time of the simulator's kernel, with numba's inline copies shared and without.

    .venv/bin/python benchmarks/compile_time.py             # 1 round
    .venv/bin/python benchmarks/compile_time.py --rounds 2  # interleaved rounds

For each setting, in a child process with an empty numba cache folder of its own, the
papers' simulator is compiled and run three times: fault-free on kant:k=2,n=2, with the
generic fault rules on the same network, and with MiKANT's fault walks on
mikant:k=2,n=3. Prints each run's ``compile_seconds`` and the child's CPU seconds, and
whether the kernel's LLVM IR (every compiled signature of ``sim/kernel.py``'s ``_run``)
is the same text in both settings. ``shared`` is fattree's own setting
(:func:`fattree.compiling.share_inline_copies`); ``numba`` puts numba's per-block copies
back. The garbage collector's setting (:func:`fattree.compiling.
collect_less_while_compiling`) is the same in both. CPU seconds of the child
(resource.getrusage); say what else was running.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile

_CHILD = r"""
import hashlib, json, sys
import fattree
import numba.core.inline_closurecall as icc
if sys.argv[1] == "numba":
    import copy
    icc.copy = copy
from fattree.sim import kernel
runs = [
    ("fault-free", "kant:k=2,n=2", {}),
    ("generic rules", "kant:k=2,n=2", {"fault_rate": 0.1, "fault_seed": 1}),
    ("MiKANT's walks", "mikant:k=2,n=3", {"fault_rate": 0.1, "fault_seed": 1}),
]
out = {}
for label, spec, kw in runs:
    r = fattree.simulate(spec, load=0.1, packets_per_source=20, seed=1, **kw)
    out[label] = r.compile_seconds
irs = sorted(kernel._run.inspect_llvm().values())
out["ir"] = hashlib.blake2b("\n".join(irs).encode(), digest_size=8).hexdigest()
print(json.dumps(out))
"""


def _child(setting: str) -> tuple[dict, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        p = subprocess.run(
            [sys.executable, "-c", _CHILD, setting],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(p.stdout.strip().splitlines()[-1]), cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    irs = {}
    for r in range(args.rounds):
        for setting in ("shared", "numba") if r % 2 == 0 else ("numba", "shared"):
            out, cpu = _child(setting)
            irs.setdefault(setting, set()).add(out.pop("ir"))
            runs = ", ".join(f"{k} {v:.1f} s" for k, v in out.items())
            total = sum(out.values())
            print(
                f"round {r + 1} {setting:6s} compile: {runs} (sum {total:.1f} s); "
                f"child CPU {cpu:.1f} s",
                flush=True,
            )
    same = len(irs["shared"] | irs["numba"]) == 1
    print(f"the kernel's LLVM IR is the same in both settings: {same}")


if __name__ == "__main__":
    main()
