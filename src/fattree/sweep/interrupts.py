"""Interrupting a sweep between points, never inside compiled code.

An interrupt raised while numba's compiled code hands its result back to Python can crash
the interpreter (a segmentation fault instead of ``KeyboardInterrupt``), which would lose
the line that says what was kept. So while a point runs, the first Ctrl-C or SIGTERM is
only noted: the point finishes, is stored, and the sweep stops there. A second interrupt
stops at once (SIGTERM ends the process; Ctrl-C raises ``KeyboardInterrupt``).
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager

_NOTICE = (
    b"stopping after the point in progress, which will be stored "
    b"(interrupt again to stop at once)\n"
)


class _State:
    installed = False
    deferring = 0
    pending: int | None = None


def _handler(signum, frame):
    if _State.deferring and _State.pending is None:
        _State.pending = signum
        if signum == signal.SIGTERM:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the second one ends the process
        os.write(2, _NOTICE)  # async-signal safe, unlike a console
        return
    raise KeyboardInterrupt


@contextmanager
def stop_between_points():
    """Make SIGTERM stop like Ctrl-C, and both wait for the point in progress.

    Installs the handlers only in the main thread (a sweep run from a worker thread keeps
    the process's own handling); restores the previous ones on leaving.

    Examples
    --------
    >>> from fattree.sweep.interrupts import stop_between_points
    >>> with stop_between_points():
    ...     pass
    """
    if threading.current_thread() is not threading.main_thread() or _State.installed:
        yield
        return
    old = {s: signal.signal(s, _handler) for s in (signal.SIGTERM, signal.SIGINT)}
    _State.installed, _State.pending = True, None
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        _State.installed, _State.pending = False, None


@contextmanager
def point_in_progress():
    """Defer an interrupt until the enclosed work (one point, computed and stored) is done;
    then raise it as ``KeyboardInterrupt``. Without :func:`stop_between_points` active it
    changes nothing.

    Examples
    --------
    >>> from fattree.sweep.interrupts import point_in_progress
    >>> with point_in_progress():
    ...     pass
    """
    if not _State.installed:
        yield
        return
    _State.deferring += 1
    try:
        yield
    finally:
        _State.deferring -= 1
    if not _State.deferring and _State.pending is not None:
        raise KeyboardInterrupt
