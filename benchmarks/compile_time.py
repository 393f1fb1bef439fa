"""Compile time of the simulator's kernel with each of fattree's compile settings and without.

    .venv/bin/python benchmarks/compile_time.py             # 1 round, inline copies
    .venv/bin/python benchmarks/compile_time.py --rounds 2  # interleaved rounds
    .venv/bin/python benchmarks/compile_time.py --roomy --depth 60
    .venv/bin/python benchmarks/compile_time.py --roomy --warmup      # `warmup --only run`

For each setting, in a child process with an empty numba cache folder of its own, the
papers' simulator is compiled and run three times: fault-free on kant:k=2,n=2, with the
generic fault rules on the same network, and with MiKANT's fault walks on
mikant:k=2,n=3. Prints each run's ``compile_seconds`` and the child's CPU seconds, and
whether the kernel's LLVM IR (every compiled signature of ``sim/kernel.py``'s ``_run``)
is the same text in both settings. ``shared`` is fattree's own setting
(:func:`fattree.compiling.share_inline_copies`); ``numba`` puts numba's per-block copies
back. The garbage collector's setting (:func:`fattree.compiling.
collect_less_while_compiling`) is the same in both. With ``--roomy`` the two settings are
``roomy`` (:func:`fattree.compiling.roomy_compiles`: each outermost compilation above a
frame that claims a large Python stack) and ``plain`` (numba's own ``compile``), and the
runs start ``--depth`` Python calls deep (where a command's compilation starts depends on
how it was called: a ``fattree warmup`` step starts deeper than a plain command); with
``--warmup`` each setting runs ``fattree warmup --only run`` in an empty cache instead. CPU
seconds of the child, user and system (resource.getrusage); say what else was running.
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
import numba.core.dispatcher as dispatcher
import numba.core.inline_closurecall as icc
if sys.argv[1] == "numba":
    import copy
    icc.copy = copy
compile_ = dispatcher.Dispatcher.compile
if sys.argv[1] == "plain" and getattr(compile_, "roomy_by_fattree", False):
    dispatcher.Dispatcher.compile = compile_.__wrapped__
elif sys.argv[1] == "roomy":
    from fattree.compiling import roomy_compiles
    roomy_compiles(dispatcher)
from fattree.sim import kernel
runs = [
    ("fault-free", "kant:k=2,n=2", {}),
    ("generic rules", "kant:k=2,n=2", {"fault_rate": 0.1, "fault_seed": 1}),
    ("MiKANT's walks", "mikant:k=2,n=3", {"fault_rate": 0.1, "fault_seed": 1}),
]
def deep(d, f):  # the runs start d Python calls deep
    return deep(d - 1, f) if d > 0 else f()
out = {}
for label, spec, kw in runs:
    r = deep(int(sys.argv[2]), lambda: fattree.simulate(
        spec, load=0.1, packets_per_source=20, seed=1, **kw))
    out[label] = r.compile_seconds
irs = sorted(kernel._run.inspect_llvm().values())
out["ir"] = hashlib.blake2b("\n".join(irs).encode(), digest_size=8).hexdigest()
print(json.dumps(out))
"""


_WARMUP = r"""
import sys, time
import fattree.compiling
if sys.argv[1] == "plain":
    fattree.compiling.roomy_compiles = lambda dispatcher: False
from fattree.commands.warmup import warmup
t0 = time.perf_counter()
warmup(jobs=0, force=True, only="run")
print('{"warmup wall": %.1f, "ir": ""}' % (time.perf_counter() - t0))
"""


def _child(setting: str, depth: int, whole_warmup: bool = False) -> tuple[dict, float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code = (_WARMUP,) if whole_warmup else (_CHILD, setting, str(depth))
        p = subprocess.run(
            [sys.executable, "-c", *code[:1], setting, *code[2:]],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return json.loads(p.stdout.strip().splitlines()[-1]), user, system


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--roomy", action="store_true", help="compare roomy_compiles instead")
    ap.add_argument("--depth", type=int, default=0, help="Python calls above the runs")
    ap.add_argument("--warmup", action="store_true", help="with --roomy: warmup --only run")
    args = ap.parse_args()
    pair = ("roomy", "plain") if args.roomy else ("shared", "numba")
    irs = {}
    for r in range(args.rounds):
        for setting in pair if r % 2 == 0 else pair[::-1]:
            out, user, system = _child(setting, args.depth, args.roomy and args.warmup)
            irs.setdefault(setting, set()).add(out.pop("ir"))
            runs = ", ".join(f"{k} {v:.1f} s" for k, v in out.items())
            total = sum(out.values())
            print(
                f"round {r + 1} {setting:6s} compile: {runs} (sum {total:.1f} s); "
                f"child CPU {user + system:.1f} s ({system:.1f} s system)",
                flush=True,
            )
    if not (args.roomy and args.warmup):
        same = len(irs[pair[0]] | irs[pair[1]]) == 1
        print(f"the kernel's LLVM IR is the same in both settings: {same}")


if __name__ == "__main__":
    main()
