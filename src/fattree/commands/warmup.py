"""``fattree warmup``: compile every numba kernel ahead of time, once per machine.

numba compiles a kernel the first time it runs on a machine and keeps it in its on-disk
cache; later runs load it in a fraction of a second. ``make install`` runs this command
so that the first real command (and every test) finds its kernels compiled. Each step
is a small command a user could type, run with its output dropped in a process of its
own (forked once numba and the routing kernels are loaded), so the warmup compiles
exactly what those commands compile, no more.

The steps run side by side, one per core (at most :data:`MAX_JOBS`), taken in order from
one queue, the longest compilations first: several steps add signatures to the same
kernel's cache, which is safe because fattree locks numba's cache saves
(:func:`fattree.compiling.lock_cache_saves`).
"""

from __future__ import annotations

import gc
import os
import sys
import time

import typer

from ..errors import ParameterError
from ..faults.walks import FAULT_WALKS

# each paper walk's steps come from its record (faults/hooks.py FaultWalk.warmup): its
# simulator steps add signatures to the papers' kernel, the others to its own kernels
_WALKS = tuple(step for _, w in FAULT_WALKS.items() for step in w.warmup)
# (what it compiles, the command's arguments), in groups: the steps of a group add
# signatures to the same kernels, so a group always runs in one chain, in order
# the simulator on a faulted network, whose algorithm each step names
_FAULTED = ["simulate", "kant:k=2,n=2", "--load", "0.1", "-P", "20", "--fault-rate", "0.1"]
_PAPERS = (
    ("the simulator", ["simulate", "kant:k=2,n=2", "--load", "0.1", "-P", "20"]),
    *(step for step in _WALKS if step[1][0] == "simulate"),
    ("the simulator with the generic fault rules", _FAULTED),
    ("the simulator with recomputed fault tables", [*_FAULTED, "-a", "shortest-table"]),
    ("the simulator with adaptive routing under faults", [*_FAULTED, "-a", "adaptive"]),
    (
        "the simulator with a workload, closed loop",
        ["simulate", "kant:k=2,n=2", "--workload", "allgather:size=4KiB"],
    ),
    (
        "the simulator with a workload under faults",
        ["simulate", "mikant:k=2,n=2", "--workload", "alltoall:size=4KiB", "--fault-rate", "0.1"],
    ),
    (
        "the simulator with a workload under the generic fault rules",
        ["simulate", "kant:k=2,n=2", "--workload", "allgather:size=4KiB", "--fault-rate", "0.1"],
    ),
)
_BOOKSIM = (
    ("the BookSim2 model", ["simulate", "kant:k=2,n=2", "--model", "booksim", "--load", "0.1"]),
    (
        "the BookSim2 model with several VCs or flits per packet",
        ["simulate", "kant:k=2,n=2", "--model", "booksim", "--load", "0.1", "--vcs", "2"],
    ),
    (
        "the BookSim2 model with a workload, closed loop",
        ["simulate", "kant:k=2,n=2", "--model", "booksim", "--workload", "allgather:size=4KiB"],
    ),
    (
        "the BookSim2 model with its minimal routing on any graph",
        ["simulate", "mikant:k=2,n=2", "--model", "booksim", "--load", "0.1"],
    ),
)
_MONTECARLO = (  # the paper walks' loops first: the longer compilations
    *(step for step in _WALKS if step[1][0] == "faults"),
    ("the fault Monte Carlo", ["faults", "kant:k=2,n=2", "--trials", "200", "--rates", "0.1"]),
)
# a route explained and a dependency graph of the same walk compile its traced variant:
# apart in the queue, so that the second loads it from the cache instead of compiling it
# beside the first (the same for the two flow-level steps)
_ANALYSIS = (
    *(step for step in _WALKS if step[1][0] == "route"),
    (
        "a route of the generic fault rules, explained",
        ["route", "kant:k=2,n=2", "n0.0", "n1.1", "-a", "detour"],
    ),
    (
        "the flow-level model",
        ["flow", "kant:k=2,n=2", "-w", "allreduce:algorithm=ring,size=64KiB", "--workers", "1"],
    ),
    *(step for step in _WALKS if step[1][0] not in ("simulate", "faults", "route")),
    ("the routing checks", ["routing", "check", "mikant:k=2,n=2"]),
    (
        "the dependency graph of the generic fault rules",
        ["deadlock", "kant:k=2,n=2", "-a", "detour"],
    ),
    ("the channel loads", ["routing", "load", "kant:k=2,n=2"]),
    ("the deadlock analysis", ["deadlock", "mikant:k=2,n=2"]),
    ("the graph properties", ["info", "kant:k=2,n=2"]),
    (
        "the flow-level model under faults, event by event",
        [
            "flow",
            "mikant:k=2,n=2",
            "-w",
            "alltoall:size=64KiB",
            "--fault-rate",
            "0.1",
            "--engine",
            "operations",
            "--workers",
            "1",
        ],
    ),  # fmt: skip
)
#: every step, in the order the workers take them: the fault-free simulator first (the
#: other variants of its kernel load its callees), then the longest compilations (the
#: BookSim2 model's closed loop, the papers' kernel's variants, the Monte Carlo loops),
#: the short ones last, so that the workers end together
STEPS = (
    _PAPERS[0],
    _BOOKSIM[2],
    *_PAPERS[1:],
    *_MONTECARLO[:-1],
    *_BOOKSIM[:2],
    *_BOOKSIM[3:],
    _MONTECARLO[-1],
    *_ANALYSIS,
)
#: the most steps compiling at once (each holds up to 1 GB while it compiles)
MAX_JOBS = 4
#: the steps whose kernels ``make run`` (the flagship study, whose link-fault comparison
#: simulates MiKANT's walks, the generic rules and the recomputed tables) and a user's
#: first commands (``simulate``, ``faults``, ``simulate --model booksim``) use: ``make
#: install`` compiles only these (``fattree warmup --only run``), ``make test`` the rest
RUN_STEPS = frozenset(
    {
        "the simulator",
        "the simulator with MiKANT's fault walks",
        "the simulator with the generic fault rules",
        "the simulator with recomputed fault tables",
        "the BookSim2 model",
        "the fault Monte Carlo",
        "the fault Monte Carlo of MiKANT",
        "the channel loads",
        "the graph properties",
    }
)
#: what ``--only`` accepts: the name of each set of steps, and its marker file
ONLY = {"all": "warm", "run": "warm-run"}


def _quiet_worker() -> None:
    """Set a step's process up: its output is dropped (its stderr is kept apart, for its
    error), commands lay their tables out as on a wide terminal, and each compilation
    runs in a Python stack chunk of its own (:func:`fattree.compiling.roomy_compiles`: a
    step's compilations start deep, below the fork, runpy and the CLI)."""
    import numba.core.dispatcher

    from ..compiling import roomy_compiles

    roomy_compiles(numba.core.dispatcher)
    os.environ["COLUMNS"] = "200"
    gc.freeze()  # what the parent loaded: never collected, and its pages stay shared
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (for the process's life)


def _step(what: str, args: list[str]) -> tuple[str, float, str]:
    """Run one step's command in this process: what it compiles, how long it
    took, and its last line of error output if it failed ("" if not)."""
    import runpy
    import tempfile

    t0 = time.perf_counter()
    stderr = sys.stderr
    with tempfile.TemporaryFile("w+") as err:
        sys.stdout.flush()
        stderr.flush()
        os.dup2(err.fileno(), 2)  # what numba and LLVM write
        sys.stderr = err  # what Python writes (sys.stderr may not be fd 2)
        sys.argv = ["fattree", *args]
        try:  # `python -m fattree ARGS`, in this process
            runpy.run_module("fattree", run_name="__main__", alter_sys=True)
            rc = 0
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else int(e.code is not None)
        except Exception as e:  # a step that crashes is reported, not fatal
            print(f"{type(e).__name__}: {e}", file=err)
            rc = 1
        finally:
            sys.stderr = stderr
        err.flush()
        err.seek(0)
        lines = err.read().strip().splitlines()
    return what, time.perf_counter() - t0, "" if rc == 0 else (lines or ["?"])[-1]


def _child(what: str, args: list[str], conn) -> None:
    _quiet_worker()
    conn.send(_step(what, args))
    conn.close()


def _run_steps(steps: list[tuple[str, list[str]]], jobs: int, report) -> None:
    """Run ``steps``, ``jobs`` at a time, in order from one queue, calling ``report(what,
    seconds, error)`` as each ends.

    Each step runs in a child forked from this process once it has loaded numba and the
    routing kernels: a step pays neither for starting Python and importing fattree nor for
    loading the routing kernels (a second each), and starts with numba's state as fresh
    as a new process's (a process that compiled many kernels compiles the next slower).
    """
    import multiprocessing
    from multiprocessing.connection import wait

    import fattree.routing  # noqa: F401 (compiles the routing kernels every step calls)

    # (fork where it is safe with numba's LLVM; elsewhere each child imports afresh)
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    queue = list(reversed(steps))
    running: dict = {}
    try:
        while queue or running:
            while queue and len(running) < jobs:
                what, args = queue.pop()
                recv, send = context.Pipe(duplex=False)
                child = context.Process(target=_child, args=(what, args, send), daemon=True)
                child.start()
                send.close()
                running[child.sentinel] = (child, recv, what)
            for sentinel in wait(list(running)):
                child, recv, what = running.pop(sentinel)
                try:
                    result = recv.recv()
                except EOFError:  # the child died: its kernels compile on first use instead
                    result = (what, 0.0, f"the step's process ended with code {child.exitcode}")
                child.join()
                recv.close()
                report(*result)
    finally:  # interrupted: no step goes on compiling behind the user's back
        for child, _, _ in running.values():
            child.terminate()


#: written into the cache folder (with a digest of the steps, :func:`_marker`) when every
#: step compiled: this version of the sources is warm
MARKER = ONLY["all"]


def _marker(only: str = "all"):
    """The marker of ``only`` in the cache folder, named after the steps themselves: the
    folder follows the sources of the kernels, not of this command, so a step added here
    makes the folder cold for the warmup again."""
    import hashlib
    from pathlib import Path

    steps = hashlib.blake2b(repr((STEPS, sorted(RUN_STEPS))).encode(), digest_size=4)
    name = f"{ONLY[only]}-{steps.hexdigest()}"
    return Path(os.environ.get("NUMBA_CACHE_DIR") or "") / name


def warmup(
    jobs: int = typer.Option(
        0, "--jobs", "-j", help=f"steps run at once (0: one per core, at most {MAX_JOBS})"
    ),
    force: bool = typer.Option(
        False, "--force", help="run every step even when this version is already warm"
    ),
    only: str = typer.Option(
        "all",
        "--only",
        help="'all', or 'run': only what `make run` and the first simulate, "
        "faults and booksim runs use",
    ),
) -> None:
    """Compile every numba kernel ahead of time (once per machine and version of the
    sources; `make install`, `make run` and `make test` run it)."""
    if jobs < 0:
        raise ParameterError(f"jobs={jobs} is invalid: a count >= 0 (0: one per core)")
    if only not in ONLY:
        raise ParameterError(f"only={only!r} is invalid: one of {', '.join(ONLY)}")
    # the folder is named after the sources: an edit starts a new one, and warms it again
    marker = _marker(only)
    warm = [_marker(o) for o in ("all", only)]
    if not force and os.environ.get("NUMBA_CACHE_DIR") and any(m.is_file() for m in warm):
        print(
            "warmup: the kernels of this version are already compiled "
            f"({marker.parent.name}); --force compiles them again",
            file=sys.stderr,
        )
        return
    steps = list(STEPS)
    if only == "run":
        steps = [step for step in STEPS if step[0] in RUN_STEPS]
    elif not force and _marker("run").is_file():  # `make install` compiled these already
        steps = [step for step in STEPS if step[0] not in RUN_STEPS]
    import numba.core.caching

    from ..compiling import lock_cache_saves

    # unlocked, two processes adding signatures to one kernel's cache could lose one
    most = MAX_JOBS if lock_cache_saves(numba.core.caching) else 1
    jobs = min(jobs or os.cpu_count() or 1, most, len(steps))
    t0 = time.perf_counter()
    total = len(steps)
    print(f"warmup: compiling {total} groups of kernels, {jobs} at a time ...", file=sys.stderr)
    done = [0]
    failed: list[str] = []

    def report(name: str, secs: float, err: str) -> None:
        done[0] += 1
        if err:
            failed.append(f"{name}: {err}")
        print(
            f"warmup: {done[0]}/{total} {name} in {secs:.0f} s"
            + (f" (failed: {err})" if err else ""),
            file=sys.stderr,
            flush=True,
        )

    _run_steps(steps, jobs, report)
    print(
        f"warmup: done in {time.perf_counter() - t0:.0f} s; later runs load the kernels "
        "from numba's cache",
        file=sys.stderr,
    )
    _prune_old_caches()
    if not failed and os.environ.get("NUMBA_CACHE_DIR"):
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text("every warmup step compiled\n")
    if failed:  # not fatal: those kernels compile on first use instead
        print(
            "warmup: warning: these compile on first use instead: " + "; ".join(failed),
            file=sys.stderr,
        )


def _prune_old_caches() -> None:
    """Remove the kernels compiled for earlier versions of the sources (the folders beside
    this version's, when fattree chose the folder: not a user's NUMBA_CACHE_DIR)."""
    import shutil

    from ..compiling import cache_dir

    here = cache_dir()
    if os.environ.get("NUMBA_CACHE_DIR") != str(here) or not here.parent.is_dir():
        return
    for old in here.parent.glob("numba-*"):
        if old != here and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)


def register(app: typer.Typer) -> None:
    app.command("warmup")(warmup)
