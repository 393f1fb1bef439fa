"""A run compiles only the code it can reach, counts every compilation and says so.

The fault-free simulator kernel must compile no fault engine, and a faulted one only
the engine of its family (the fault view's type chooses it: sim/faulthop.py); the
Monte Carlo loop compiles MiKANT's walk only on MiKANT. Checked in a child process
with a numba cache of its own (holding only the routing and traffic kernels), recording
every compilation numba starts.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fattree.compiling import watch

_CHILD = r"""
import json, sys
from numba.core import event
names, inherits, nrt = [], [], []
class L(event.Listener):
    # numba compiles a callee with its caller's NRT flag unless the callee sets its own:
    # a fattree function compiled inside a kernel without NRT must set it (nrt_free)
    def on_start(self, ev):
        d = ev.data["dispatcher"]
        name = d.py_func.__module__ + "." + d.py_func.__qualname__
        names.append(name)
        opts = d.targetoptions
        own = "_nrt" in opts or opts.get("inline") == "always"
        if nrt and not nrt[-1] and not own and name.startswith("fattree.") and "<locals>" not in name:
            inherits.append(name)
        nrt.append(opts.get("_nrt", nrt[-1] if nrt else True))
    def on_end(self, ev):
        nrt.pop()
event.register("numba:compile", L())
import fattree
out = {}
for label, kw in json.loads(sys.argv[1]):
    names.clear()
    inherits.clear()
    r = fattree.simulate(kw.pop("spec"), **kw)
    out[label] = {
        "names": sorted(set(names)),
        "inherits": sorted(set(inherits)),
        "compile_seconds": r.compile_seconds,
    }
# a function compiled without reference counting must not return an array: its caller
# may count references (it would free what it never owned)
from numba.core import types
from numba.core.registry import CPUDispatcher
def arrays(t):
    if isinstance(t, types.Array):
        return True
    return isinstance(t, types.BaseTuple) and any(arrays(x) for x in t.types)
returns = set()
for name, mod in list(sys.modules.items()):
    if not name.startswith("fattree."):
        continue
    for obj in list(vars(mod).values()):
        if isinstance(obj, CPUDispatcher) and obj.targetoptions.get("_nrt") is False:
            for cres in obj.overloads.values():
                if arrays(cres.signature.return_type):
                    returns.add(name + "." + obj.py_func.__name__)
out["nrt_free_returns_array"] = sorted(returns)
print(json.dumps(out))
"""


def _compiled(tmp_path, runs):
    # level 0: which functions compile is decided before LLVM optimises (half the time)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), NUMBA_OPT="0")
    # the routing and traffic kernels and the simulator's phases that take no fault view
    # hold no fault or workload code: taken from this version's cache where it has them,
    # so that the child compiles the kernel's variants and what they alone call
    from numba.core import config

    for folder in Path(config.CACHE_DIR).glob("*"):
        if folder.name.startswith(("routing_", "traffic_")):
            shutil.copytree(folder, tmp_path / "cache" / folder.name)
        elif folder.name.startswith("sim_"):
            (tmp_path / "cache" / folder.name).mkdir(parents=True)
            for f in folder.glob("kernel._phase_*"):
                shutil.copy2(f, tmp_path / "cache" / folder.name / f.name)
    p = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(runs)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(p.stdout.strip().splitlines()[-1])


_BASE = {"load": 0.1, "packets_per_source": 10, "seed": 1}


@pytest.mark.slow
def test_each_kernel_compiles_only_its_own_fault_engine(tmp_path):
    """The fault-free kernel, then the faulted one with recomputed tables (the cheapest
    engine to compile), in one child (they share their other callees): the second lists
    only what it compiled beyond the first, its fault engine and its variant of the
    kernel."""
    run = {"spec": "kant:k=2,n=2", **_BASE}
    table = {**run, "fault_rate": 0.2, "fault_seed": 1, "algorithm": "shortest-table"}
    out = _compiled(tmp_path, [["free", run], ["table", table]])
    # every function the kernels compile sets its own NRT flag (compiling.nrt_free): the
    # copy numba caches is the same whichever caller compiles it first
    assert out["free"]["inherits"] == [] and out["table"]["inherits"] == [], out
    assert out["nrt_free_returns_array"] == [], out["nrt_free_returns_array"]
    # the fault-free kernel compiles no fault engine
    free = out["free"]["names"]
    assert "fattree.sim.kernel._run" in free and out["free"]["compile_seconds"] > 0
    fault_code = [
        n
        for n in free
        if n.startswith(("fattree.faults.", "fattree.sim.faulthop."))
        and "._ov_fault_" not in n  # the overloads' constant stubs (return 0 / -1)
    ]
    assert not fault_code, fault_code
    # nor the closed-loop workload source (sim/closedloop.py): its hooks' stubs only
    closed = [n for n in free if n.startswith("fattree.sim.closedloop.") and "._ov_" not in n]
    assert not closed, closed
    # the faulted kernel compiles its own engine and no other
    table = out["table"]["names"]
    assert "fattree.sim.kernel._run" in table and out["table"]["compile_seconds"] > 0
    # the one walk loop (the whole route at injection, the table's hop compiled into it)
    # and its hop per switch
    assert "fattree.faults.walkloop.walk_loop" in table
    assert "fattree.sim.faulthop._port_table" in table
    # not the generic rules' hop, nor a paper walk's (the routing kernel, compiled at
    # import, holds every family's rules: MiKANT's too), nor the adaptive rule (its own
    # view, FaultsAdaptive)
    others = [n for n in table if n.rsplit(".", 1)[-1] in ("generic_hop", "ft_hop")]
    walks = [n for n in table if "mikant" in n and not n.startswith("fattree.routing.")]
    adaptive = [n for n in table if "adaptive" in n and not n.startswith("fattree.routing.")]
    assert not others and not walks and not adaptive, table


def test_watch_counts_a_compilation_and_tells_its_caller():
    from numba import njit

    @njit  # no cache: compiled here
    def twice(x):
        return 2 * x

    seen = []
    with watch(on_start=seen.append, on_end=lambda: seen.append("end")) as w:
        assert twice(3) == 6
    assert w.seconds > 0 and len(w.kernels) == 1 and w.kernels[0].endswith("twice")
    assert seen == [w.kernels[0], "end"]
    with watch() as again:  # compiled already: nothing to count
        twice(4)
    assert again.seconds == 0.0 and again.kernels == []


def test_warmup_steps_are_commands_a_user_can_type():
    import click
    import typer.main

    from fattree.cli import app
    from fattree.commands.warmup import STEPS

    root = typer.main.get_command(app)
    for _, args in STEPS:
        c, i = root, 0
        while isinstance(c, click.Group):
            with click.Context(c) as ctx:
                sub = c.get_command(ctx, args[i])
            assert sub is not None, args
            c, i = sub, i + 1


def test_warmup_refuses_a_negative_job_count():
    p = subprocess.run(
        [sys.executable, "-m", "fattree", "warmup", "--jobs", "-1"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        "error: jobs=-1 is invalid: a count >= 0 (0: one per core)"
    ]


def test_warmup_steps_run_as_typed_in_worker_processes(tmp_path, monkeypatch):
    """Each step runs its command (`python -m fattree ARGS`) in a forked worker; a step
    that fails is reported with its last line of error output, and the others go on."""
    from fattree.commands import warmup as mod

    seen = []
    steps = [
        ("a failing step", ["info", "kant:k=1,n=2"]),
        ("the graph properties", ["info", "kant:k=2,n=2"]),
    ]
    mod._run_steps(steps, 2, lambda what, secs, err: seen.append((what, err)))
    assert sorted(seen) == [
        (
            "a failing step",
            "error: kant: k=1 is too small; k [2..64]: arity (switch radix 2k, roots k)",
        ),
        ("the graph properties", ""),
    ]


def test_numba_cache_folder_is_named_after_the_sources(tmp_path):
    """Importing fattree points numba's cache at a folder per version of the sources
    (numba checks a cached kernel against its own file only, not its callees'), unless
    the user set NUMBA_CACHE_DIR."""
    code = (
        "import os, fattree, numba.core.config as c; from fattree.compiling import cache_dir; "
        "print(os.environ['NUMBA_CACHE_DIR'], c.CACHE_DIR, cache_dir())"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == out[1] == out[2] and "numba-" in out[2]
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == out[1] == str(tmp_path)


def test_warmup_returns_at_once_when_this_version_is_warm(tmp_path, monkeypatch, capsys):
    """`make test` and `make run` call the warmup every time: when the folder of this
    version of the sources is marked complete, it compiles nothing and starts no step."""
    from fattree.commands import warmup as mod

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    mod._marker().write_text("every warmup step compiled\n")
    steps = []

    def run_steps(todo, jobs, report):
        for what, _ in todo:
            steps.append(what)
            report(what, 0.0, "")

    monkeypatch.setattr(mod, "_run_steps", run_steps)
    mod.warmup(jobs=0, force=False, only="all")
    assert steps == [] and "already compiled" in capsys.readouterr().err
    # without the marker (a new version of the sources) every step runs, then it is written
    mod._marker().unlink()
    monkeypatch.setattr(mod, "_prune_old_caches", lambda: None)
    mod.warmup(jobs=1, force=False, only="all")
    assert steps == [what for what, _ in mod.STEPS]
    assert mod._marker().is_file() and mod._marker().name.startswith(mod.MARKER + "-")
    # a step added to the warmup (its folder follows the kernels' sources, not this
    # command's) makes the folder cold for the warmup again
    monkeypatch.setattr(mod, "STEPS", (*mod.STEPS, ("a new step", ["info", "x"])))
    assert not mod._marker().is_file()


def test_warmup_only_run_compiles_what_make_run_uses(tmp_path, monkeypatch):
    """`make install` compiles what `make run` and a user's first commands use; `make
    test` then compiles the rest (its marker covers both)."""
    from fattree.commands import warmup as mod

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    steps = []
    monkeypatch.setattr(
        mod, "_run_steps", lambda todo, jobs, report: steps.extend(w for w, _ in todo)
    )
    monkeypatch.setattr(mod, "_prune_old_caches", lambda: None)
    mod.warmup(jobs=1, force=False, only="run")
    names = {what for what, _ in mod.STEPS}
    assert set(steps) == mod.RUN_STEPS and mod.RUN_STEPS < names
    assert mod._marker("run").is_file() and not mod._marker("all").exists()
    steps.clear()
    mod.warmup(jobs=1, force=False, only="run")  # warm: nothing again
    assert steps == []
    mod.warmup(jobs=1, force=False, only="all")  # the rest only
    assert set(steps) == names - mod.RUN_STEPS and mod._marker("all").is_file()
    steps.clear()
    mod.warmup(jobs=2, force=True, only="all")  # forced: every step, each once
    assert sorted(steps) == sorted(names) and len(steps) == len(mod.STEPS)


def test_the_cache_follows_the_kernels_sources_only(tmp_path, monkeypatch):
    """An edit to a command, the CLI, a report or the sweeps keeps the compiled kernels;
    an edit to any layer that can define or call them starts a new cache folder."""
    import fattree.compiling as c

    pkg = tmp_path / "pkg"
    for f in ("__init__.py", "cli.py", "sim/kernel.py", "commands/sim.py", "report/a.py"):
        (pkg / f).parent.mkdir(parents=True, exist_ok=True)
        (pkg / f).write_text("x = 1\n")
    monkeypatch.setattr(c, "_PACKAGE", pkg)
    key = c.source_key.__wrapped__
    before = key()
    for f in ("cli.py", "commands/sim.py", "report/a.py"):
        (pkg / f).write_text("x = 2\n")
        assert key() == before, f
    for f in ("sim/kernel.py", "__init__.py"):
        (pkg / f).write_text("x = 3\n")
        assert key() != before, f
        before = key()


def test_warmup_refuses_an_unknown_set(capsys):
    from fattree.cli import main

    assert main(["warmup", "--only", "bogus"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "only='bogus'" in err[0] and "run" in err[0]


# A child that adds one signature of a fresh kernel to numba's cache while another child
# adds another: each waits inside numba's save, after reading the index, until the other
# has read it too, so that unlocked saves overlap (locked, the other cannot read it before
# this save ends: the wait gives up after a second)
_SAVER = r"""
import os, sys, time
sys.path.insert(0, sys.argv[1])
import numba.core.caching as caching
locked = sys.argv[3] == "locked"
if locked:
    import fattree  # locks numba's cache saves
load = caching.IndexDataCacheFile._load_index
def slow_load(self):
    out = load(self)
    if sys._getframe(1).f_code.co_name != "save":  # (not the lookup before compiling)
        return out
    me, other = (os.path.join(sys.argv[1], f"read-{s}") for s in (sys.argv[2], sys.argv[4]))
    open(me, "w").close()
    t0 = time.monotonic()
    while not os.path.exists(other) and time.monotonic() - t0 < (1 if locked else 60):
        time.sleep(0.01)
    return out
caching.IndexDataCacheFile._load_index = slow_load
import kern
kern.f(int(1) if sys.argv[2] == "int" else 1.0)
"""
_KERNEL = "from numba import njit\n@njit(cache=True)\ndef f(x):\n    return x + 1\n"


@pytest.mark.parametrize("mode", ["locked", "plain"])
def test_cache_saves_of_processes_compiling_at_once_are_locked(tmp_path, mode):
    """Two processes add signatures of one kernel at once: with fattree's lock both are
    kept, each pointing at its own code; numba alone can lose one (the control)."""
    (tmp_path / "kern.py").write_text(_KERNEL)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    kids = [
        subprocess.Popen([sys.executable, "-c", _SAVER, str(tmp_path), a, mode, b], env=env)
        for a, b in (("int", "float"), ("float", "int"))
    ]
    assert [k.wait(timeout=120) for k in kids] == [0, 0]
    check = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import fattree, kern; "
        "print(kern.f(1), kern.f(1.5), sum(kern.f.stats.cache_misses.values()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", check], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    if mode == "locked":
        assert out == ["2", "2.5", "0"]  # both loaded from the cache, each its own code
    else:
        assert out[:2] == ["2", "2.5"] and out[2] != "0"  # one entry was lost


def _inlining_caller():
    import numpy as np
    from numba import njit

    @njit(inline="always")
    def callee(a, i):
        s = 0
        for j in range(i):
            if a[j] % 2:
                s += a[j]
            else:
                s -= j
        return s

    @njit
    def caller(a):
        return callee(a, 3) + callee(a, a.size)

    assert caller(np.arange(6)) == caller.py_func(np.arange(6))
    (ir,) = caller.inspect_llvm().values()
    # the same code whatever the function's unique name and the labels' numbering (a
    # counter of numba's, which goes on between compilations)
    lines = [line for line in ir.splitlines() if "caller" not in line and "callee" not in line]
    names: dict[str, str] = {}
    return [
        re.sub(r"\bB\d+\b|%\.\d+", lambda m: names.setdefault(m[0], f"n{len(names)}"), line)
        for line in lines
    ]


def test_inline_copies_share_one_scope_and_compile_the_same_code(monkeypatch):
    """numba copies an inlined function's IR block by block; fattree copies the blocks of
    one IR with one memo (fattree.compiling.share_inline_copies): one scope for all the
    blocks, as in the original, and the same machine code."""
    import copy

    import numba.core.inline_closurecall as icc
    from numba.core import ir

    import fattree  # noqa: F401 (patches numba when it is imported)

    assert getattr(icc.copy, "shared_by_fattree", False)
    loc = ir.Loc("f.py", 1)
    scope = ir.Scope(None, loc)
    blocks = {}
    for label in range(3):
        b = ir.Block(scope, loc)
        b.append(ir.Assign(ir.Const(label, loc), scope.redefine("x", loc), loc))
        blocks[label] = b

    def copy_ir(the_ir):  # numba's own, in InlineWorker.inline_ir
        kernel_copy = {}
        for label in the_ir:
            kernel_copy[label] = icc.copy.deepcopy(the_ir[label])
        return kernel_copy

    one, two = copy_ir(blocks), copy_ir(blocks)
    assert len({id(b.scope) for b in one.values()}) == 1
    assert one[0].scope is not scope and one[0].scope is not two[0].scope
    assert [b.body[0].value.value for b in two.values()] == [0, 1, 2]
    patched = _inlining_caller()
    monkeypatch.setattr(icc, "copy", copy)  # numba's copies
    assert _inlining_caller() == patched


def test_a_kernel_called_with_constants_compiles_once_per_type():
    """A fattree kernel called from compiled code with constants (-1, True) and with
    variables of their types compiles one signature (fattree.compiling.
    compile_callees_by_type); numba alone compiles one more for the constants' literal
    types, as it still does for other packages' functions."""
    from numba import njit

    import fattree  # noqa: F401 (patches numba when it is imported)

    def step(a, up):
        return a + 1 if up else a - 1

    def make(module):
        f = types.FunctionType(step.__code__, {}, "step")
        f.__module__ = module
        return njit(f)

    ours, theirs = make("fattree.probe"), make("elsewhere")

    @njit
    def with_constants():
        return ours(-1, True) + theirs(-1, True)

    @njit
    def with_variables(x, up):
        return ours(x, up) + theirs(x, up)

    assert with_constants() == 0 and with_variables(3, False) == 4
    assert [tuple(map(str, s)) for s in ours.signatures] == [("int64", "bool")]
    assert len(theirs.signatures) == 2


def test_an_inlined_overload_is_typed_not_compiled_on_its_own():
    """numba compiles an ``@overload(inline="always")`` implementation to machine code
    before typing and inlining it; for fattree's (fattree.compiling.
    compile_callees_by_type) only the caller is compiled, with the same result."""
    from numba import njit
    from numba.core import event
    from numba.extending import overload

    import fattree  # noqa: F401 (patches numba when it is imported)

    def hook(x):
        return x

    def impl(x):
        return x + 1

    ours = types.FunctionType(impl.__code__, {}, "impl")
    ours.__module__ = "fattree.probe"
    overload(hook, inline="always")(lambda x: ours)

    @njit
    def caller(x):
        return hook(x) * 2

    names = []

    class Seen(event.Listener):
        def on_start(self, ev):
            names.append(ev.data["dispatcher"].py_func.__qualname__)

        def on_end(self, ev):
            pass

    seen = Seen()
    event.register("numba:compile", seen)
    try:
        assert caller(3) == 8
    finally:
        event.unregister("numba:compile", seen)
    assert names == [caller.py_func.__qualname__]


def test_the_collector_runs_less_often_while_numba_compiles():
    import gc

    from numba import njit
    from numba.core import event

    import fattree  # noqa: F401
    from fattree.compiling import COMPILE_GC_THRESHOLD

    before = gc.get_threshold()
    seen = []

    class Seen(event.Listener):
        def on_start(self, ev):
            seen.append(gc.get_threshold()[0])

        def on_end(self, ev):
            pass

    listener = Seen()
    event.register("numba:compile", listener)
    try:

        @njit
        def plus_one(x):
            return x + 1

        assert plus_one(1) == 2
    finally:
        event.unregister("numba:compile", listener)
    assert seen and min(seen) >= COMPILE_GC_THRESHOLD
    assert gc.get_threshold() == before


_ROOMY = r"""
import sys
import numba.core.dispatcher as dispatcher
from numba import njit
from numba.core import event
from fattree.compiling import ROOMY_SLOTS, roomy_compiles

def roomy_frames():
    f, n = sys._getframe(), 0
    while f is not None:
        n += f.f_code.co_stacksize == ROOMY_SLOTS
        f = f.f_back
    return n

seen = []
class L(event.Listener):
    def on_start(self, ev):
        seen.append((ev.data["dispatcher"].py_func.__name__, roomy_frames()))
    def on_end(self, ev):
        pass
event.register("numba:compile", L())

@njit
def inner(x):
    return x * 3

@njit
def outer(x):
    return inner(x) + 1

before = outer(2)
outer_plain = list(seen)
seen.clear()
assert roomy_compiles(dispatcher) and roomy_compiles(dispatcher)  # once

@njit
def inner2(x):
    return x * 3

@njit
def outer2(x):
    return inner2(x) + 1

print(before, outer2(2), outer_plain, seen)
"""


def test_a_roomy_compilation_runs_above_one_large_frame():
    """fattree.compiling.roomy_compiles: each outermost compilation runs above one frame
    that claims a large Python stack (its callees' compilations inside it, not above a
    second one), and computes the same; a process without it has none. Checked in a
    child: the test workers keep numba's own compile."""
    p = subprocess.run([sys.executable, "-c", _ROOMY], capture_output=True, text=True, check=True)
    assert p.stdout.split(" ", 2)[:2] == ["7", "7"]
    assert p.stdout.split(" ", 2)[2].strip() == (
        "[('outer', 0), ('inner', 0)] [('outer2', 1), ('inner2', 1)]"
    )


def test_warmup_steps_compile_roomy_and_the_test_workers_do_not():
    """`fattree warmup`'s step processes compile with roomy_compiles; the process that
    runs the steps (here a test worker) keeps numba's own compile."""
    import numba.core.dispatcher as dispatcher

    from fattree.commands import warmup as mod

    seen = []
    probe = ("a probe", ["--version"])
    real_step = mod._step

    def step(what, args):
        out = real_step(what, args)
        roomy = getattr(dispatcher.Dispatcher.compile, "roomy_by_fattree", False)
        return out[0], out[1], "" if roomy else "not roomy"

    try:
        mod._step = step
        mod._run_steps([probe], 1, lambda what, secs, err: seen.append((what, err)))
    finally:
        mod._step = real_step
    assert seen == [("a probe", "")]
    assert not getattr(dispatcher.Dispatcher.compile, "roomy_by_fattree", False)


def _live_maps():
    import numba.core.analysis as analysis

    import fattree  # noqa: F401 (patches numba when it is imported)

    fast = analysis.compute_live_map
    assert getattr(fast, "bits_by_fattree", False)
    return fast, fast.numba_original


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(1, 9),
    edges=st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=24),
    uses=st.lists(st.sets(st.sampled_from("abcdefg")), min_size=9, max_size=9),
    defs=st.lists(st.sets(st.sampled_from("abcdefg")), min_size=9, max_size=9),
)
def test_live_maps_on_bits_are_numbas_on_any_control_flow(n, edges, uses, defs):
    """fattree.compiling.live_maps_on_bits: the same live variables as numba's own
    analysis, on random graphs (loops, self-loops, unreachable blocks)."""
    from numba.core.controlflow import CFGraph

    fast, original = _live_maps()
    cfg = CFGraph()
    for b in range(n):
        cfg.add_node(b)
    for a, b in edges:
        if a < n and b < n:
            cfg.add_edge(a, b)
    cfg.set_entry_point(0)
    cfg.process()
    blocks = {b: None for b in range(n)}
    use = {b: set(uses[b]) for b in range(n)}
    dfn = {b: set(defs[b]) for b in range(n)}
    want = original(cfg, blocks, use, dfn)
    got = fast(cfg, blocks, use, dfn)
    assert got == want and list(got) == list(want)


def test_live_maps_on_bits_are_numbas_on_a_compilation(monkeypatch):
    """Both analyses on every call numba makes while compiling a function with loops,
    branches and an inlined callee: the same maps each time."""
    import numba.core.analysis as analysis
    import numba.core.ir_utils as ir_utils
    from numba import njit

    fast, original = _live_maps()
    calls = []

    def both(*args):
        want = original(*args)
        calls.append(fast(*args) == want)
        return want

    monkeypatch.setattr(analysis, "compute_live_map", both)
    monkeypatch.setattr(ir_utils, "compute_live_map", both)

    @njit(inline="always")
    def step(x, k):
        return x * 3 + k if x % 2 else x // 2

    @njit
    def f(a):
        total = 0
        for i in range(a.shape[0]):
            x = a[i]
            j = 0
            while x > 1 and j < 50:
                x = step(x, i)
                j += 1
                if x > 100:
                    break
            total += x if i % 3 else -x
        return total

    import numpy as np

    assert f(np.arange(1, 20)) == f.py_func(np.arange(1, 20))
    assert len(calls) > 20 and all(calls)


_BLAS_CHILD = r"""
import sys
import numpy as np
import fattree
from fattree.routing import route

t = fattree.build("kant:k=2,n=2")
route(t, None, 0, 3)  # a fattree kernel, loaded or compiled: numba's CPU target is up
print("scipy.linalg" in sys.modules)
from numba import njit

@njit  # a kernel that calls BLAS: numba imports and checks scipy's then
def dot(a, b):
    return np.dot(a, b)

a = np.arange(6.0).reshape(2, 3)
print(bool((dot(a, a.T) == a @ a.T).all()), "scipy.linalg.cython_blas" in sys.modules)
"""


def test_numba_imports_scipys_blas_only_for_a_kernel_that_uses_it():
    out = subprocess.run(
        [sys.executable, "-c", _BLAS_CHILD], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True", "True"], out


def _numba_only_calls_from_python() -> list[str]:
    """Calls of (or references to) functions decorated ``numba_only`` from code numba does
    not compile, by the names each module binds to them (its own definitions and
    ``from ... import``)."""
    import ast

    import fattree

    root = Path(fattree.__file__).resolve().parent
    trees = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        trees[name] = (path, ast.parse(path.read_text(encoding="utf-8")))

    def decorated(node, names):
        for d in getattr(node, "decorator_list", []):
            f = d.func if isinstance(d, ast.Call) else d
            if (f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")) in names:
                return True
        return False

    only = {
        mod: {n.name for n in ast.walk(tree) if decorated(n, {"numba_only"})}
        for mod, (_, tree) in trees.items()
    }
    compiled_by = {"njit", "jit", "numba_only", "overload"}

    def python_names(tree, exempt=frozenset()):
        """The names (and attributes) code numba does not compile reads, with line."""
        todo = [(tree, False)]
        while todo:
            node, compiled = todo.pop()
            if not compiled and isinstance(node, (ast.Name, ast.Attribute)):
                yield getattr(node, "id", None) or node.attr, node.lineno
            here = compiled or decorated(node, compiled_by)
            here = here or (isinstance(node, ast.FunctionDef) and node.name in exempt)
            todo.extend((child, here) for child in ast.iter_child_nodes(node))

    # a hook's pure-Python stub (``closedloop.cl_dest``) that no Python code calls: numba
    # compiles its overload, never this body (``faulthop.fault_port``, which Python code
    # also calls, is not exempt)
    read = {n for _, tree in trees.values() for n, _ in python_names(tree)}
    for path in (root.parent.parent / "tests").rglob("*.py"):
        read |= {n for n, _ in python_names(ast.parse(path.read_text(encoding="utf-8")))}
    stubs = {
        mod: {
            d.args[0].id
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef)
            for d in n.decorator_list
            if isinstance(d, ast.Call)
            and getattr(d.func, "id", "") == "overload"
            and d.args
            and isinstance(d.args[0], ast.Name)
        }
        - read
        for mod, (_, tree) in trees.items()
    }
    bad = []
    for mod, (path, tree) in trees.items():
        bound = set(only[mod])
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                bound |= {a.asname or a.name for a in node.names if a.name in only.get(src, ())}
        # a call, or a reference (a table of functions that Python code calls)
        bad += [
            f"{path.relative_to(root.parent)}:{line}: {name}"
            for name, line in python_names(tree, stubs[mod])
            if name in bound
        ]
    return bad


def test_no_python_code_calls_a_numba_only_function():
    """A ``numba_only`` function has no Python entry point: only compiled code (a
    ``@njit`` function, an ``@overload``'s implementation) may call it."""
    assert _numba_only_calls_from_python() == []


def test_a_numba_only_function_called_from_python_says_so():
    from fattree.sim.closedloop import _push

    with pytest.raises(TypeError, match="_push is compiled for numba callers only"):
        _push(None, 0)
