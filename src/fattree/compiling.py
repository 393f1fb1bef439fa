"""Every numba compilation a piece of work pays for: counted, and announced once.

numba compiles a kernel the first time a process calls it with new argument types,
unless its on-disk cache (``cache=True``) already holds it; loading from the cache is
not a compilation. :func:`watch` counts the seconds of every compilation that starts
inside it (the outermost ones only: a kernel's callees compile within its time) and
tells its caller when each starts and ends, so that a command can say why the first
run on a machine waits (``fattree warmup`` compiles everything ahead of time).

numba itself is imported only when a watch starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["CompileWatch", "watch"]


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
    from numba.core import event

    out = CompileWatch()
    depth = [0]
    start = [0.0]

    class _Listener(event.Listener):
        def on_start(self, ev):
            if depth[0] == 0:
                start[0] = time.perf_counter()
                d = ev.data["dispatcher"]
                name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
                out.kernels.append(name)
                if on_start is not None:
                    on_start(name)
            depth[0] += 1

        def on_end(self, ev):
            depth[0] -= 1
            if depth[0] == 0:
                out.seconds += time.perf_counter() - start[0]
                if on_end is not None:
                    on_end()

    listener = _Listener()
    event.register("numba:compile", listener)
    try:
        yield out
    finally:
        event.unregister("numba:compile", listener)
