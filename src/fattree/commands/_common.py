"""Helpers shared by the command modules (output only; no library logic here).

Conventions of every command
----------------------------
* Output paths are checked before any work (:func:`check_output`), by one rule:
  the folder that will hold an output must already exist. A file output (``-o``,
  ``--csv``) is never a directory and its folder is not created; a folder output
  (a results folder: ``sweep -o``, ``reproduce -o``, ``study -o``) is created if
  missing, but only inside an existing folder.
* Without a terminal (a pipe, a file, CI) output is never cut or wrapped: the
  consoles are as wide as the longest line (``COLUMNS`` still wins when set).
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console, ConsoleDimensions

from ..fileio import check_output_target
from ..errors import ParameterError


def _numpy_types(*names: str) -> tuple[type, ...]:
    """numpy's scalar types ``names`` if numpy is loaded, else none: a value cannot be of a
    numpy type before numpy is imported, and these helpers must not import it (they run in
    every command, ``fattree families`` included)."""
    np = sys.modules.get("numpy")
    return tuple(getattr(np, n) for n in names) if np is not None else ()


#: width of the consoles without a terminal: wide enough that no line is cut
_NO_TTY_WIDTH = 100_000


def _width(stream) -> int | None:
    if os.environ.get("COLUMNS"):
        return None  # rich reads it
    try:
        return None if stream.isatty() else _NO_TTY_WIDTH
    except (AttributeError, ValueError):
        return _NO_TTY_WIDTH


class _Console(Console):
    """A console whose width follows the stream it writes to *now* (a terminal's width,
    ``COLUMNS``, or wide enough for a pipe), not the stream there was at import."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._width = None  # rich fixes COLUMNS at construction; ``size`` reads it live

    @property
    def size(self) -> ConsoleDimensions:
        dims = super().size
        width = _width(self.file)
        return dims if width is None else ConsoleDimensions(width, dims.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)


console = _Console()
err_console = _Console(stderr=True)


#: the most points a START:STOP:STEP list (loads, rates) may expand to
MAX_POINTS = 10_000


def listing(names, last: str = "or") -> str:
    """The names of a registry (or any sequence) for a help text: ``"a, b or c"``.

    Help lists are generated from the registries they name, never written out by hand,
    so that a new entry appears in them.

    Parameters
    ----------
    names : iterable of str
        A registry (iterates over its names) or a sequence of names.
    last : str
        The word before the last name.

    Returns
    -------
    str
        The names joined.

    Examples
    --------
    >>> listing(["edgelist", "json", "dot"]), listing(("local",)), listing("ab", "and")
    ('edgelist, json or dot', 'local', 'a and b')
    """
    names = [str(n) for n in names]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {last} {names[-1]}"


def check_range(text, param: str, cap: int = MAX_POINTS) -> None:
    """Refuse a ``START:STOP:STEP`` list with non-finite ends or more than ``cap``
    points before it is expanded (lists ``a,b,c`` are counted too).

    Examples
    --------
    >>> check_range("0:1:0.05", "rates")
    >>> check_range("0:1:1e-9", "rates")
    Traceback (most recent call last):
    ...
    fattree.errors.ParameterError: rates='0:1:1e-9' is invalid: 1,000,000,000 points; at most 10,000
    """
    text = str(text).strip()
    if ":" not in text:
        n = len([x for x in text.split(",") if x.strip()])
        if n > cap:
            raise ParameterError(
                f"{param}={text[:40]!r}... is invalid: {n:,} points; at most {cap:,}"
            )
        return
    parts = text.split(":")
    try:
        a, b, step = (float(x) for x in parts)
    except ValueError:
        raise ParameterError(
            f"{param}={text!r} is invalid: expected START:STOP:STEP with numbers, e.g. 0:1:0.05"
        ) from None
    if not all(math.isfinite(x) for x in (a, b, step)) or step <= 0 or b < a:
        raise ParameterError(
            f"{param}={text!r} is invalid: expected finite START <= STOP and "
            "STEP > 0, e.g. 0:1:0.05"
        )
    n = math.floor((b - a) / step + 1e-9) + 1
    if n > cap:
        raise ParameterError(f"{param}={text!r} is invalid: {n:,} points; at most {cap:,}")


def max_workers() -> int:
    """The most local worker processes a command starts: 4 per core of this machine
    (at least 4); more only slow each other down (use ``--scheduler`` for a cluster)."""
    return max(4, 4 * (os.cpu_count() or 1))


def check_workers(workers, param: str = "workers", minimum: int = 0) -> int:
    """Refuse a worker count below ``minimum`` or beyond :func:`max_workers` (one rule for
    sweep, study, reproduce and simulate).

    Examples
    --------
    >>> check_workers(2)
    2
    """
    top = max_workers()
    if (
        isinstance(workers, bool)
        or not isinstance(workers, (int, *_numpy_types("integer")))
        or not minimum <= workers <= top
    ):
        what = "0 runs in this process, " if minimum == 0 else ""
        hint = "; --scheduler for a cluster" if minimum == 0 else ""
        raise ParameterError(
            f"{param}={workers!r} is invalid: an integer from {minimum} to {top} "
            f"({what}at most 4 per core of this machine{hint})"
        )
    return int(workers)


#: the largest seed (seeds feed 64-bit generators: 0 <= seed < 2**63)
SEED_MAX = 2**63 - 1


def check_seed(seed, param: str = "seed") -> int:
    """Refuse a negative or too large seed (one rule for every command).

    Examples
    --------
    >>> check_seed(7)
    7
    """
    if (
        isinstance(seed, bool)
        or not isinstance(seed, (int, *_numpy_types("integer")))
        or not 0 <= seed <= SEED_MAX
    ):
        raise ParameterError(
            f"{param}={seed!r} is invalid: expected an integer 0 <= {param} < 2**63"
        )
    return int(seed)


def check_number(
    value,
    param: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    allowed: str = "",
) -> float:
    """Refuse NaN, infinities and values outside ``[low, high]`` (``(low, ...`` with
    ``low_open``).

    Examples
    --------
    >>> check_number(150.0, "message_length", low=0, low_open=True)
    150.0
    """
    ok = (
        isinstance(value, (int, float, *_numpy_types("integer", "floating")))
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value <= high
    if not ok:
        if not allowed:
            lo = "" if low is None else (f"> {low:g}" if low_open else f">= {low:g}")
            hi = "" if high is None else f"<= {high:g}"
            allowed = (
                "a finite number"
                + (f" {lo}" if lo else "")
                + (f"{' and' if lo else ''} {hi}" if hi else "")
            )
        raise ParameterError(f"{param}={value!r} is invalid: {allowed}")
    return value


def check_output(
    path, param: str = "output", *, folder: bool = False, suffixes: tuple[str, ...] | None = None
) -> Path | None:
    """Refuse an output path that cannot be written, before any work (one rule for all).

    A file must not be a directory, its folder must exist and be writable, and its
    suffix must be one of ``suffixes`` (when given). A ``folder`` output may be new,
    but the folder holding it must exist. ``None`` passes through.

    Examples
    --------
    >>> check_output("/no/such/dir/x.csv", "output")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fattree.errors.ParameterError: output=... folder '/no/such/dir' does not exist (create it first)
    """
    if path is None:
        return None
    text = str(path)
    if not text.strip() or "\x00" in text:
        raise ParameterError(f"{param}={text!r} is invalid: expected a path")
    p = Path(path).expanduser()
    parent = p.parent if str(p.parent) else Path(".")
    if folder:
        if p.exists() and not p.is_dir():
            raise ParameterError(f"{param}={text!r} is a file; give a folder (new or existing)")
        target = p if p.exists() else parent
        what = "folder"
    else:
        if p.is_dir():
            raise ParameterError(f"{param}={text!r} is a folder; give a file name")
        check_output_target(p, param)  # /dev/full, a FIFO: refused before any work
        if suffixes and p.suffix.lower() not in suffixes:
            raise ParameterError(
                f"{param}={text!r} is invalid: the file name must end in {', '.join(suffixes)}"
            )
        target = parent
        what = "file"
    if not parent.is_dir() and not (folder and p.is_dir()):
        why = "is a file" if parent.exists() else "does not exist"
        raise ParameterError(
            f"{param}={text!r} cannot be written: folder {str(parent)!r} {why} (create it first)"
        )
    if not os.access(target, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ParameterError(f"{param}={text!r} cannot be written: permission denied ({what})")
    return p


def _default(o: Any):
    np = sys.modules.get("numpy")  # a numpy value implies that numpy is loaded
    if np is not None:
        if isinstance(o, np.integer):
            return int(o)
        if isinstance(o, np.floating):
            return None if not math.isfinite(float(o)) else float(o)
        if isinstance(o, np.ndarray):
            return o.tolist()
        if isinstance(o, np.bool_):
            return bool(o)
    if hasattr(o, "items"):
        return dict(o)
    if hasattr(o, "isoformat"):  # datetime, pandas.Timestamp
        return o.isoformat()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _clean(o: Any):
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    return o


def print_json(obj: Any) -> None:
    """Print strict JSON (NaN/inf become null) on stdout."""
    print(json.dumps(_clean(json.loads(json.dumps(obj, default=_default))), indent=2))


def warn_routing(topo, cr, traffic: str, bound: float | None, seed: int = 0) -> None:
    """One ``warning:`` line on stderr when the compiled routing ``cr``'s channel-load bound
    is far below the best known routing's (fattree.routing.advice); nothing otherwise."""
    if cr is None or bound is None:
        return

    from ..routing.advice import routing_advice

    advice = routing_advice(topo, cr, traffic, bound=bound, seed=seed)
    if advice is not None:
        print(f"warning: {advice.message()}", file=sys.stderr)


#: seconds between two progress lines without a terminal (a log file, CI, a pipe): under 30,
#: so that a line comes at least every 30 s even when a busy machine wakes the writer late
LOG_INTERVAL = 25.0


def duration(seconds: float) -> str:
    """A duration for a progress line: ``"45 s"``, ``"2 min 10 s"``, ``"1 h 05 min"``.

    Examples
    --------
    >>> duration(4.2), duration(130), duration(3900)
    ('4 s', '2 min 10 s', '1 h 05 min')
    """
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s" if s % 60 else f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class ProgressLog:
    """Long work without a terminal: a line on stderr at least every ``interval`` seconds
    (what is done of the total, the time elapsed, an estimate of the time left), so that a
    log shows the work is alive and how far it is. A terminal gets rich's live bars instead
    (:class:`ProgressLine`, the sweeps' bar); both are fed by the same ``update`` calls.

    A daemon thread writes the lines, so that they come even while one long step (a
    simulation, a rate of a Monte Carlo study) reports nothing.

    Parameters
    ----------
    label : str
        What runs, at the start of each line.
    total : float, optional
        The amount of work (``None``: unknown; no estimate then, unless ``expected``).
    unit : str
        Its unit ("points", "rates", ...).
    expected : float, optional
        Seconds the whole work is expected to take, when it has no count (a single step).
    interval : float, optional
        Seconds between lines (default :data:`LOG_INTERVAL`).
    clock : callable
        Seconds now (``time.monotonic``; tests give a fake one).

    Examples
    --------
    >>> t = [0.0]
    >>> log = ProgressLog("sweep s", total=80, unit="points", clock=lambda: t[0])
    >>> log.line()
    'sweep s: 0/80 points, 0 s elapsed, time left unknown'
    >>> t[0] = 130.0
    >>> log.update(20)
    >>> log.line()
    'sweep s: 20/80 points, 2 min 10 s elapsed, about 6 min 30 s left'
    """

    def __init__(
        self,
        label: str,
        total: float | None = None,
        unit: str = "",
        *,
        expected: float | None = None,
        interval: float | None = None,
        clock=None,
    ) -> None:
        import threading
        import time

        self.label, self.total, self.unit, self.expected = label, total, unit, expected
        self.interval = LOG_INTERVAL if interval is None else interval
        self.clock = clock or time.monotonic
        self.done: float = 0
        self._t0 = self.clock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def update(self, done: float, total: float | None = None) -> None:
        """Record ``done`` units of work (of ``total``, when it changes)."""
        self.done = done
        if total is not None:
            self.total = total

    def line(self) -> str:
        """The progress now, as one line."""
        elapsed = self.clock() - self._t0
        unit = f" {self.unit}" if self.unit else ""
        if self.total:
            what = f"{self.done:,}/{self.total:,}{unit}"
        else:
            what = f"{self.done:,}{unit}" if self.done else "running"
        text = f"{self.label}: {what}, {duration(elapsed)} elapsed"
        if self.total and 0 < self.done:
            left = elapsed * (self.total - self.done) / self.done
            return f"{text}, about {duration(left)} left"
        if self.expected is not None:
            return f"{text}, about {duration(max(self.expected - elapsed, 0))} left (estimated)"
        return f"{text}, time left unknown" if self.total else text

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            print(self.line(), file=sys.stderr, flush=True)

    def start(self) -> ProgressLog:
        """Start writing a line every ``interval`` seconds."""
        import threading

        self._t0 = self.clock()
        self._thread = threading.Thread(target=self._run, name="fattree-progress", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop writing (the caller prints the final line)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> ProgressLog:
        return self.start()

    def __exit__(self, *_) -> None:
        self.stop()


class ProgressLine:
    """The progress of a long command on stderr, by one rule for every command.

    On a terminal a live bar (transient); without one, a :class:`ProgressLog` line at least
    every 30 s while the work runs; on a terminal or not, one final line that
    states what was done (``label: 5/5 rates in 3.5 s``, or the text given to
    :meth:`finish`), so a log file or a CI run ends with the true final state instead
    of a frozen or cut bar. Nothing is printed when ``quiet`` (``--json``, ``-q``) or
    when the work ends with an error (the error's one line stays alone).

    Examples
    --------
    >>> with ProgressLine("demo", total=2, unit="steps", quiet=True) as bar:
    ...     bar.update(2)
    >>> bar.completed
    2
    """

    def __init__(
        self, label: str, total: float | None = None, unit: str = "", quiet: bool = False
    ) -> None:
        self.label, self.total, self.unit, self.quiet = label, total, unit, quiet
        self.completed = 0
        self.final: str | None = None
        self._bar = self._task = None
        self._log: ProgressLog | None = None
        self._t0 = 0.0

    def __enter__(self) -> ProgressLine:
        import time

        self._t0 = time.perf_counter()
        if not self.quiet and err_console.is_terminal:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            cols = [
                TextColumn(self.label),
                BarColumn(),
                MofNCompleteColumn() if self.total is not None else TextColumn(""),
                TextColumn(self.unit),
                TimeElapsedColumn(),
                TextColumn("{task.description}"),
            ]
            self._bar = Progress(*cols, console=err_console, transient=True)
            self._bar.start()
            self._task = self._bar.add_task("", total=self.total)
        elif not self.quiet:
            self._log = ProgressLog(self.label, self.total, self.unit).start()
        return self

    def update(self, completed, total=None, description: str | None = None) -> None:
        """Record (and on a terminal draw) ``completed`` of ``total`` units."""
        self.completed = completed
        if total is not None:
            self.total = total
        if self._bar is not None:
            kw = {} if description is None else {"description": description}
            self._bar.update(self._task, completed=completed, total=self.total, **kw)
        if self._log is not None:
            self._log.update(completed, self.total)

    def finish(self, line: str) -> None:
        """The final line to print instead of the counted one (e.g. a result's own count)."""
        self.final = line

    @property
    def seconds(self) -> float:
        import time

        return time.perf_counter() - self._t0

    def __exit__(self, exc_type, *_) -> None:
        if self._bar is not None:
            self._bar.stop()
        if self._log is not None:
            self._log.stop()
        if exc_type is not None or self.quiet:
            return
        if self.final is None:
            of = f"/{self.total:,}" if self.total is not None else ""
            self.final = (
                f"{self.label}: {self.completed:,}{of} {self.unit} in {self.seconds:.1f} s"
            ).replace("  ", " ")
        err_console.print(self.final, highlight=False, markup=False, soft_wrap=True)
