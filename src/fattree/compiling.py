"""Every numba compilation a piece of work pays for: counted, and announced once.

numba compiles a kernel the first time a process calls it with new argument types,
unless its on-disk cache (``cache=True``) already holds it; loading from the cache is
not a compilation. :func:`watch` counts the seconds of every compilation that starts
inside it (the outermost ones only: a kernel's callees compile within its time) and
tells its caller when each starts and ends, so that a command can say why the first
run on a machine waits (``fattree warmup`` compiles everything ahead of time).

numba itself is imported only when a kernel needs it (a watch attaches then).

fattree compiles at LLVM optimisation level :data:`OPT_LEVEL` (``NUMBA_OPT``, which numba
reads when it is imported; a value the user set wins): level 1 compiles in about half the
time of numba's default 3 and the kernels run as fast (``benchmarks/opt_level.py`` prints
both), with the same results bit for bit (no kernel uses fast-math).
"""

from __future__ import annotations

import functools
import gc
import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ABOVE_KERNELS",
    "OPT_LEVEL",
    "CompileWatch",
    "cache_dir",
    "check_blas_lazily",
    "collect_less_while_compiling",
    "kept_folder",
    "live_maps_on_bits",
    "lock_cache_saves",
    "nrt_free",
    "numba_only",
    "roomy_compiles",
    "share_inline_copies",
    "source_key",
    "use_source_cache",
    "watch",
]

_PACKAGE = Path(__file__).resolve().parent
#: numba's optimisation level for fattree's kernels, unless ``NUMBA_OPT`` is set
OPT_LEVEL = 1
#: the garbage collector's first threshold while numba compiles (Python's default: 700)
COMPILE_GC_THRESHOLD = 100_000


#: the layers above every kernel (pyproject.toml's import contract: the layers that define
#: or call compiled code, from ``sim`` and ``analysis`` down, never import these), which
#: define no kernel (tests/arch/test_imports.py checks both): an edit there cannot change
#: a compiled kernel, so it keeps the cache
ABOVE_KERNELS = ("__main__.py", "cli.py", "api.py", "commands", "report", "sweep")


@functools.cache
def source_key() -> str:
    """A digest of the package's source files (paths and contents) that compiled code can
    depend on: every file but those of :data:`ABOVE_KERNELS`. The version of the sources
    that compiled kernels and kept results belong to.

    Examples
    --------
    >>> len(source_key())
    16
    """
    h = hashlib.blake2b(digest_size=8)
    files = []
    for root, dirs, names in os.walk(_PACKAGE):
        top = root == str(_PACKAGE)
        dirs[:] = [d for d in dirs if d != "__pycache__" and not (top and d in ABOVE_KERNELS)]
        files += [
            os.path.join(root, n)
            for n in names
            if n.endswith(".py") and not (top and n in ABOVE_KERNELS)
        ]
    for f in sorted(files):
        h.update(os.path.relpath(f, _PACKAGE).encode())
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()


def cache_dir() -> Path:
    """Where numba keeps fattree's compiled kernels: a folder named after
    :func:`source_key`, in the package's ``__pycache__`` (or, where that cannot be
    written, the user's cache folder).

    numba checks a cached kernel against its own source file only, not against the
    functions it calls in other files: after an edit or an upgrade it would load a kernel
    with the old code of a changed callee. A folder per version of the sources makes
    every change start from an empty cache instead.

    Returns
    -------
    Path

    Examples
    --------
    >>> cache_dir().name.startswith("numba-")
    True
    """
    # kernels compiled at another optimisation level, or with bounds checks, are kept apart
    # (numba's cache tells neither apart)
    opt = os.environ.get("NUMBA_OPT", str(OPT_LEVEL))
    name = "numba-" + source_key() + ("" if opt == str(OPT_LEVEL) else f"-o{opt}")
    if os.environ.get("NUMBA_BOUNDSCHECK", "").strip() not in ("", "0"):
        name += "-boundscheck"
    base = _PACKAGE / "__pycache__"
    if os.access(_PACKAGE, os.W_OK) and (not base.exists() or os.access(base, os.W_OK)):
        return base / name
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return home / "fattree" / name


def kept_folder(kind: str) -> str:
    """The folder of results kept per version of the kernels' sources (exact bisection
    widths, routing bounds): ``kind`` inside numba's cache folder, in a subfolder named
    after :func:`source_key` (``NUMBA_CACHE_DIR`` is fattree's per-version folder unless
    the user chose another one: the digest then keeps the versions apart inside it).

    Parameters
    ----------
    kind : str
        What is kept there (a folder name).

    Returns
    -------
    str

    Examples
    --------
    >>> kept_folder("bisection").endswith(os.path.join("bisection", source_key()))
    True
    """
    base = os.environ.get("NUMBA_CACHE_DIR") or str(cache_dir())
    return os.path.join(base, kind, source_key())


def use_source_cache() -> None:
    """Point numba's cache at :func:`cache_dir`, unless ``NUMBA_CACHE_DIR`` is set.

    Called when the package is imported; child processes (workers, ``fattree warmup``'s
    steps) inherit the environment variable and so the same folder. Also sets
    ``NUMBA_OPT`` to :data:`OPT_LEVEL` unless it is set, and patches numba when it is
    imported: :func:`live_maps_on_bits`, :func:`lock_cache_saves`,
    :func:`share_inline_copies`, :func:`collect_less_while_compiling`,
    :func:`compile_callees_by_type`, :func:`check_blas_lazily`.
    """
    if not os.environ.get("NUMBA_OPT"):
        os.environ["NUMBA_OPT"] = str(OPT_LEVEL)
        numba_config = sys.modules.get("numba.core.config")
        if numba_config is not None:  # numba imported first: only kernels not compiled yet
            numba_config.OPT = numba_config._process_opt_level(str(OPT_LEVEL))
    patches = {
        "numba.core.analysis": live_maps_on_bits,
        "numba.core.caching": lock_cache_saves,
        "numba.core.inline_closurecall": share_inline_copies,
        "numba.core.event": collect_less_while_compiling,
        "numba.core.dispatcher": compile_callees_by_type,
        "numba.np.linalg": check_blas_lazily,
    }
    for name, patch in patches.items():
        if name in sys.modules:
            patch(sys.modules[name])
        elif not any(isinstance(f, _OnImport) and f.name == name for f in sys.meta_path):
            sys.meta_path.insert(0, _OnImport(name, patch))
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    path = str(cache_dir())
    os.environ["NUMBA_CACHE_DIR"] = path
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None:  # numba imported first: its config read the variable
        numba_config.CACHE_DIR = path


def lock_cache_saves(caching) -> bool:
    """Make numba's cache safe for processes that compile at the same time.

    numba adds a compiled signature to a kernel's cache by reading the kernel's index,
    choosing the first free data file name, rewriting the index and then writing the
    data file. Two processes adding signatures of one kernel at once could each take the
    same data file name: one entry would be lost, or worse, an index entry would point at
    the other signature's code. Each save here holds an exclusive lock on one file of the
    cache folder, so that saves follow one another; loads need none (numba replaces each
    file whole). ``fattree warmup`` compiles its steps side by side on the strength of it.

    Parameters
    ----------
    caching : module
        ``numba.core.caching`` (patched once, when numba is imported).

    Returns
    -------
    bool
        Whether saves are locked (not where the platform has no ``fcntl``).

    Examples
    --------
    >>> import numba.core.caching as caching
    >>> lock_cache_saves(caching)
    True
    """
    cls = caching.IndexDataCacheFile
    if getattr(cls.save, "locked_by_fattree", False):
        return True
    try:
        import fcntl
    except ImportError:  # (Windows) warmup then compiles one step at a time
        return False
    save = cls.save

    @functools.wraps(save)
    def locked_save(self, key, data):
        os.makedirs(self._cache_path, exist_ok=True)
        with open(os.path.join(self._cache_path, ".saving.lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            save(self, key, data)

    locked_save.locked_by_fattree = True
    cls.save = locked_save
    return True


def share_inline_copies(inline_closurecall) -> bool:
    """Make numba copy an inlined function's IR once, not once per block.

    Before inlining a function (``inline="always"``, which the simulator's phases use),
    numba deep-copies the function's IR block by block, each block with a memo of its
    own: every block's copy drags along a copy of the whole function's scope and of all
    its variables, so the work grows with blocks times variables. Here the blocks of one
    IR are copied with one shared memo, as a single ``deepcopy`` of the IR would: the same
    IR (all blocks share one scope, as in the original), made in a fraction of the time.
    A tenth to a fifth of the compile time of the simulator's kernels went there
    (``benchmarks/compile_time.py``, which also checks that the LLVM IR is the same).

    Parameters
    ----------
    inline_closurecall : module
        ``numba.core.inline_closurecall`` (patched once, when numba is imported).

    Returns
    -------
    bool
        Whether the copies are shared (not where numba copies otherwise: then it is left
        as it is).

    Examples
    --------
    >>> import numba.core.inline_closurecall as icc
    >>> share_inline_copies(icc)
    True
    """
    import copy

    if getattr(inline_closurecall.copy, "shared_by_fattree", False):
        return True
    if inline_closurecall.copy is not copy:
        return False
    from numba.core import ir

    class _SharedCopy:
        """``copy`` as ``inline_closurecall`` sees it: one memo per IR copied."""

        shared_by_fattree = True

        def __init__(self):
            self._owner, self._memo = None, {}

        def __getattr__(self, name):
            return getattr(copy, name)

        def deepcopy(self, x, memo=None):
            # the copy of the IR being filled, in numba's copy_ir: one memo per copy
            owner = sys._getframe(1).f_locals.get("kernel_copy")
            if memo is not None or owner is None or not isinstance(x, ir.Block):
                return copy.deepcopy(x, memo)
            if owner is not self._owner:
                self._owner, self._memo = owner, {}
            return copy.deepcopy(x, self._memo)

    inline_closurecall.copy = _SharedCopy()
    return True


def live_maps_on_bits(analysis) -> bool:
    """Make numba's liveness analysis work on bit sets instead of sets of names.

    numba recomputes which variables are live at each block's entry after every pass that
    changes a function's IR (``analysis.compute_live_map``: two fix-points, of the
    definitions that reach each block and of the live variables, over sets of variable
    names); on the simulators' kernels, whose cycle loops have thousands of variables in
    hundreds of blocks, that was a twentieth of the compile time. Here each variable is a
    bit of a Python integer and the unions are integer ``|``: the same equations iterated
    to the same least fix-point, so the same sets (tests/sim/test_compile_only_what_runs.py
    compares both on every call of a compilation and on random control-flow graphs), in a
    fifth of the time.

    Parameters
    ----------
    analysis : module
        ``numba.core.analysis`` (patched once, when numba is imported; also
        ``numba.core.ir_utils``, which imports the function by name, if already loaded).

    Returns
    -------
    bool
        Whether the analysis is on bits (not where numba's function is not the one this
        replaces: then it is left as it is).

    Examples
    --------
    >>> import numba.core.analysis as analysis
    >>> live_maps_on_bits(analysis)
    True
    """
    original = analysis.compute_live_map
    if getattr(original, "bits_by_fattree", False):
        return True
    code = original.__code__
    if code.co_varnames[: code.co_argcount] != ("cfg", "blocks", "var_use_map", "var_def_map"):
        return False
    fast = functools.wraps(original)(_live_map_on_bits)
    fast.bits_by_fattree = True
    fast.numba_original = original
    analysis.compute_live_map = fast
    ir_utils = sys.modules.get("numba.core.ir_utils")
    if ir_utils is not None and getattr(ir_utils, "compute_live_map", None) is original:
        ir_utils.compute_live_map = fast
    return True


def _live_map_on_bits(cfg, blocks, var_use_map, var_def_map):
    """numba's ``compute_live_map`` (the variables live at each block's entry) on bits."""
    order = cfg.topo_order()
    bit, names = {}, []

    def mask(variables):
        m = 0
        for v in variables:
            b = bit.get(v)
            if b is None:
                b = bit[v] = 1 << len(names)
                names.append(v)
            m |= b
        return m

    use, defs = {}, {}

    def used(o):  # (read lazily, as numba does: a block it never reads may be missing)
        if o not in use:
            use[o] = mask(var_use_map[o])
        return use[o]

    def defined(o):
        if o not in defs:
            defs[o] = mask(var_def_map[o])
        return defs[o]

    # the definitions reaching each block's entry, pushed forward in topological order
    reach: dict = {}
    succ = [(o, [s for s, _ in cfg.successors(o)]) for o in order]
    changed = True
    while changed:
        changed = False
        for o, outs in succ:
            old = reach.get(o, 0)
            here = old | defined(o) | used(o)
            if here != old:
                reach[o], changed = here, True
            for s in outs:
                old = reach.get(s, 0)
                if old | here != old:
                    reach[s], changed = old | here, True
    # the live variables, pulled backward: used later, reaching, not defined in between
    live = {o: used(o) for o in blocks.keys()}
    pred = [(o, [p for p, _ in cfg.predecessors(o)]) for o in reversed(order)]
    changed = True
    while changed:
        changed = False
        for o, ins in pred:
            here = live[o]
            for p in ins:
                old = live[p]
                new = old | (here & reach.get(p, 0) & ~defined(p))
                if new != old:
                    live[p], changed = new, True
                    if p == o:
                        here = new
    sets: dict = {}

    def names_of(m):
        if m not in sets:
            out, x = set(), m
            while x:
                low = x & -x
                out.add(names[low.bit_length() - 1])
                x ^= low
            sets[m] = out
        return set(sets[m])

    return {o: names_of(live[o]) for o in blocks.keys()}


def collect_less_while_compiling(event) -> bool:
    """Run Python's garbage collector less often while numba compiles.

    numba's compiler makes objects by the million, nearly all freed as it goes, without
    cycles to find: with the collector's first threshold at
    :data:`COMPILE_GC_THRESHOLD` instead of 700 during a compilation, a kernel compiles
    in about a fifteenth less time, for a few more MB held meanwhile. The thresholds are
    restored when the outermost compilation ends.

    Parameters
    ----------
    event : module
        ``numba.core.event`` (a listener is registered once, when numba is imported).

    Returns
    -------
    bool
        True (also when the listener was registered before).

    Examples
    --------
    >>> import numba.core.event as event
    >>> collect_less_while_compiling(event)
    True
    """
    if getattr(event, "gc_listener_by_fattree", None) is not None:
        return True
    depth = [0]
    saved = [gc.get_threshold()]

    class _Listener(event.Listener):
        def on_start(self, ev):
            if depth[0] == 0:
                saved[0] = gc.get_threshold()
                gc.set_threshold(max(saved[0][0], COMPILE_GC_THRESHOLD), *saved[0][1:])
            depth[0] += 1

        def on_end(self, ev):
            depth[0] -= 1
            if depth[0] == 0:
                gc.set_threshold(*saved[0])

    event.gc_listener_by_fattree = _Listener()
    event.register("numba:compile", event.gc_listener_by_fattree)
    return True


def check_blas_lazily(linalg) -> bool:
    """Let numba import scipy's BLAS when a kernel first uses it, not in every process.

    When numba's CPU target loads (a process's first compilation or cache load), its array
    functions ask whether scipy's BLAS can be imported (``numba.np.arraymath`` calls
    ``numba.np.linalg.ensure_blas``), which imports ``scipy.linalg``: about a third of a
    second of CPU in every command and worker, though no fattree kernel calls BLAS. Here
    that first call answers whether scipy is installed (a dependency of fattree) without
    importing it and puts numba's own function back, so a kernel that uses ``np.dot``
    still has scipy's BLAS imported and checked when it is compiled.

    Parameters
    ----------
    linalg : module
        ``numba.np.linalg`` (patched once, when it is imported).

    Returns
    -------
    bool
        True (also when it was patched before).

    Examples
    --------
    >>> import types
    >>> calls = []
    >>> stand_in = types.SimpleNamespace(ensure_blas=lambda: calls.append("numba's"))
    >>> check_blas_lazily(stand_in), check_blas_lazily(stand_in)
    (True, True)
    >>> stand_in.ensure_blas(); stand_in.ensure_blas(); calls
    ["numba's"]
    """
    if getattr(linalg.ensure_blas, "lazy_by_fattree", False):
        return True
    original = linalg.ensure_blas

    def ensure_blas():
        linalg.ensure_blas = original  # later callers: numba's own check
        import importlib.util

        if importlib.util.find_spec("scipy") is None:
            original()  # (numba's ImportError)

    ensure_blas.lazy_by_fattree = True
    linalg.ensure_blas = ensure_blas
    return True


def compile_callees_by_type(dispatcher) -> bool:
    """Compile a fattree kernel called from another kernel once per argument *type*.

    A kernel that calls another with a constant argument (``walk(s, -1, t)``,
    ``hash3(x, 2, y, 0)``) makes numba compile the callee for that constant's literal
    type (``Literal[int](-1)``), apart from the same callee called with a variable of
    the same type: the walks of the fault engines were compiled up to four times over
    for the literals of their callers. Here a call from compiled code to a fattree
    kernel passes integer and boolean constants as their plain types, so one
    compilation serves every caller. The code computes the same thing (numba's branch
    pruning on constant arguments is all that is given up; LLVM still folds the
    constants of a callee it inlines). A kernel that asks for a constant with
    ``numba.literally`` keeps it.

    Also, an implementation of fattree's ``@overload(inline="always")`` hooks (the
    simulator's fault and workload hooks) is typed and inlined without being compiled to
    machine code on its own first, which numba does for every overload and then throws
    away (a tenth of a second each, a few hundred times in ``fattree warmup``).

    Parameters
    ----------
    dispatcher : module
        ``numba.core.dispatcher`` (patched once, when numba is imported).

    Returns
    -------
    bool
        True (also when it was patched before).

    Examples
    --------
    >>> import numba.core.dispatcher as dispatcher
    >>> compile_callees_by_type(dispatcher)
    True
    """
    cls = dispatcher.Dispatcher
    if getattr(cls.get_call_template, "by_type_in_fattree", False):
        return True
    from numba.core import types

    try:  # numba's own (private) typing of overloads: where it differs, constants only
        from numba.core.typing.templates import _OverloadFunctionTemplate as _Ov

        overload_typing, build = _Ov.generic.__code__, _Ov._build_impl.__code__
    except (ImportError, AttributeError):
        overload_typing = build = None

    def always_inlined(frame) -> bool:
        inline = getattr(frame.f_locals.get("self"), "_inline", None)
        return inline is not None and inline.is_always_inline

    plain = (types.IntegerLiteral, types.BooleanLiteral)
    template = cls.get_call_template

    def by_type(t):
        return types.unliteral(t) if isinstance(t, plain) else t

    def ours(f) -> bool:  # a fattree kernel that does not ask for constants
        return f.__module__.startswith("fattree.") and "literally" not in f.__code__.co_names

    @functools.wraps(template)
    def get_call_template(self, args, kws):
        if not ours(self.py_func):
            return template(self, args, kws)
        args = tuple(by_type(a) for a in args)
        kws = {k: by_type(v) for k, v in kws.items()}
        caller = sys._getframe(1)
        if caller.f_code is overload_typing and always_inlined(caller):
            # an implementation of an ``@overload(inline="always")``, which numba types
            # and inlines: it asks here only for the folded argument types (and for a
            # ``literally`` in it, which fattree's have not), but would compile the
            # implementation to machine code first, a tenth of a second thrown away
            pysig, folded = self._compiler.fold_argument_types(args, kws)
            return None, pysig, folded, {}
        return template(self, args, kws)

    get_call_template.by_type_in_fattree = True
    cls.get_call_template = get_call_template

    # numba also compiles such an implementation to machine code when it first meets it,
    # "to make sure that it can be fully compiled", and throws the result away: typing it
    # (above) finds the same errors
    dispatcher_type = types.Dispatcher
    call_type = dispatcher_type.get_call_type

    @functools.wraps(call_type)
    def get_call_type(self, context, args, kws):
        caller = sys._getframe(1)
        if caller.f_code is build and always_inlined(caller) and ours(self.dispatcher.py_func):
            return None  # (the check's result is not used)
        return call_type(self, context, args, kws)

    dispatcher_type.get_call_type = get_call_type
    return True


def nrt_free(**options) -> dict:
    """numba options of a function the simulator's kernels call: cached, without NRT.

    The kernels compile without numba's reference counting (``_nrt=False``: the cycle
    loop allocates nothing, and the atomic increments cost it 3x), and numba compiles a
    callee with the flag of the caller that first needs it, but keeps one compiled copy
    per signature, in the process and in the on-disk cache. So without these options the
    copy every later process loads depended on which command compiled it first: the
    kernel's (without NRT), or a Monte Carlo loop's, an explanation's or a Python call's
    (with it, and 1.5x slower in the kernel: ``benchmarks/fault_engines_ab.py``). A
    function given these options is compiled without NRT by every caller, the same
    whatever the order; it must allocate nothing (numba refuses it otherwise) and return
    no array (its caller would not own it). ``tests/sim/test_compile_only_what_runs.py``
    checks that every function the kernels compile says so.

    Parameters
    ----------
    **options
        Further numba options (``inline="always"``, ...).

    Returns
    -------
    dict
        ``cache=True``, ``_nrt=False`` (where numba has the option) and ``options``.

    Examples
    --------
    >>> opts = nrt_free(inline="always")  # e.g. @njit(**nrt_free()) on a kernel's callee
    >>> opts["cache"], opts.get("_nrt", False), opts["inline"]
    (True, False, 'always')
    """
    from numba.core.cpu import CPUTargetOptions

    off = {"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {}
    return {"cache": True, **off, **options}


class _NumbaOnly:
    """The Python side of a :func:`numba_only` function: calling it is an error."""

    def __call__(self, *args, **kws):
        raise TypeError(
            f"{self.py_func.__module__}.{self.py_func.__qualname__} is compiled for "
            "numba callers only (fattree.compiling.numba_only): it has no Python entry point"
        )


_NUMBA_ONLY_CLASSES: dict = {}


def numba_only(**options):
    """``@njit`` for a function that only numba code calls: without numba's Python and C
    entry points, cached and without NRT (:func:`nrt_free`).

    numba gives every compiled function a CPython wrapper (unboxing each argument from
    Python objects) and a C-callable one, and compiles both to machine code, though a
    callee of another kernel never runs them. For an argument that is a record of dozens
    of arrays (the simulators' state, the closed-loop source) the wrappers are most of
    the function's compilation: a three-line helper taking a 60-array record compiles in
    about 0.5 s with them, 0.05 s without. Calling such a function from Python raises
    ``TypeError`` (numba's call would jump to no code); ``tests/sim/
    test_compile_only_what_runs.py`` checks that no Python code in the package calls one.

    Parameters
    ----------
    **options
        Further numba options (as :func:`nrt_free`).

    Returns
    -------
    callable
        The decorator.

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> @numba_only(cache=False)
    ... def _put(a, j):
    ...     a[0] = j
    >>> @njit(cache=False)
    ... def put(a, j):
    ...     _put(a, j)
    ...     return a[0]
    >>> put(np.zeros(1, np.int64), 7)
    7
    >>> _put(np.zeros(1, np.int64), 7)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: fattree.compiling._put is compiled for numba callers only ...
    """
    from numba import njit

    opts = nrt_free(no_cpython_wrapper=True, no_cfunc_wrapper=True, **options)

    def decorate(func):
        disp = njit(**opts)(func)
        base = type(disp)
        cls = _NUMBA_ONLY_CLASSES.get(base)
        if cls is None:
            cls = type(f"NumbaOnly{base.__name__}", (_NumbaOnly, base), {"__module__": __name__})
            _NUMBA_ONLY_CLASSES[base] = cls
        disp.__class__ = cls
        return disp

    return decorate


#: Python stack slots (8 bytes each) that the frame around an outermost compilation claims
ROOMY_SLOTS = 1 << 17


def _call(f, *args):
    return f(*args)


#: ``_call`` in a frame that claims :data:`ROOMY_SLOTS`: a data-stack chunk of its own,
#: with room for the frames of a whole compilation above it
_roomy_call = type(_call)(_call.__code__.replace(co_stacksize=ROOMY_SLOTS), {}, "_roomy_call")


def roomy_compiles(dispatcher) -> bool:
    """Run each outermost numba compilation above a Python frame that claims a large stack.

    CPython (3.11 and later) keeps the frames of Python calls in chunks of at least
    16 KiB, mapped with ``mmap`` when a call does not fit in the current one and unmapped
    as soon as the first frame of a chunk returns. numba's compiler calls deep and back
    by the million: where a chunk's edge falls inside that back and forth, every crossing
    maps, faults in and unmaps a chunk (system calls and page faults by the million; how
    many depends on how deep the compilation starts). Called through a frame that claims
    :data:`ROOMY_SLOTS` slots, a compilation gets one chunk of 2 MiB, mapped once, whose
    remaining megabyte holds all of its frames: ``fattree warmup --only run`` spends 4 s
    of system time instead of 12-15 s (``benchmarks/compile_time.py --roomy --warmup``).
    Nothing else changes: the same functions run, in the same order, on the same objects.
    ``fattree warmup`` applies it in its step processes only.

    Parameters
    ----------
    dispatcher : module
        ``numba.core.dispatcher`` (patched once).

    Returns
    -------
    bool
        True (also when it was patched before).

    Examples
    --------
    On a stand-in for the module (the real one is left as it is here):

    >>> import types, numba.core.dispatcher as dispatcher
    >>> stand_in = types.SimpleNamespace(Dispatcher=type("D", (dispatcher.Dispatcher,), {}))
    >>> roomy_compiles(stand_in), stand_in.Dispatcher.compile.roomy_by_fattree
    (True, True)
    >>> hasattr(dispatcher.Dispatcher.compile, "roomy_by_fattree")
    False
    """
    import threading

    cls = dispatcher.Dispatcher
    if getattr(cls.compile, "roomy_by_fattree", False):
        return True
    compile_ = cls.compile
    inside = threading.local()

    @functools.wraps(compile_)
    def compile(self, sig):
        if getattr(inside, "depth", 0):  # a callee of the compilation: in its chunk already
            return compile_(self, sig)
        inside.depth = 1
        try:
            return _roomy_call(compile_, self, sig)
        finally:
            inside.depth = 0

    compile.roomy_by_fattree = True
    cls.compile = compile
    return True


@dataclass
class CompileWatch:
    """What a :func:`watch` saw: ``seconds`` of compilation, ``kernels`` compiled (the
    outermost ``module.function`` names, in order)."""

    seconds: float = 0.0
    kernels: list[str] | None = None

    def __post_init__(self):
        if self.kernels is None:
            self.kernels = []


@contextmanager
def watch(
    on_start: Callable[[str], None] | None = None, on_end: Callable[[], None] | None = None
) -> Iterator[CompileWatch]:
    """Count the numba compilations that start inside the ``with`` block.

    Parameters
    ----------
    on_start : callable, optional
        Called with the kernel's name (``module.function``) when an outermost
        compilation starts: the caller may tell its user (library code never prints).
    on_end : callable, optional
        Called when an outermost compilation ends.

    Yields
    ------
    CompileWatch
        Filled as compilations end; complete when the block exits.

    Examples
    --------
    >>> from fattree.compiling import watch
    >>> with watch() as w:
    ...     pass
    >>> w.seconds, w.kernels
    (0.0, [])
    """
    out = CompileWatch()
    depth = [0]
    start = [0.0]

    def on_event_start(ev):
        if depth[0] == 0:
            start[0] = time.perf_counter()
            d = ev.data["dispatcher"]
            name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
            out.kernels.append(name)
            if on_start is not None:
                on_start(name)
        depth[0] += 1

    def on_event_end(ev):
        depth[0] -= 1
        if depth[0] == 0:
            out.seconds += time.perf_counter() - start[0]
            if on_end is not None:
                on_end()

    registered = []

    def register(event) -> None:
        listener = type(
            "_Listener",
            (event.Listener,),
            {
                "on_start": lambda self, ev: on_event_start(ev),
                "on_end": lambda self, ev: on_event_end(ev),
            },
        )()
        event.register("numba:compile", listener)
        registered.append((event, listener))

    # work that never compiles (a small graph's properties, a table) must not pay for
    # importing numba (0.4 s): the listener is attached when numba is first imported
    finder = None
    if "numba.core.event" in sys.modules:
        register(sys.modules["numba.core.event"])
    else:
        finder = _OnImport("numba.core.event", register)
        sys.meta_path.insert(0, finder)
    try:
        yield out
    finally:
        if finder is not None and finder in sys.meta_path:
            sys.meta_path.remove(finder)
        for event, listener in registered:
            event.unregister("numba:compile", listener)


class _OnImport:
    """A meta path finder that calls ``then(module)`` once ``name`` has been imported."""

    def __init__(self, name: str, then: Callable) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # find the real spec without coming back here
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader, then = spec.loader, self.then

        class _Then:
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                then(module)

        spec.loader = _Then()
        return spec
