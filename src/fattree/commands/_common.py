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

import numpy as np
from rich.console import Console

from ..errors import ParameterError

#: width of the consoles without a terminal: wide enough that no line is cut
_NO_TTY_WIDTH = 100_000


def _width(stream) -> int | None:
    if os.environ.get("COLUMNS"):
        return None  # rich reads it
    try:
        return None if stream.isatty() else _NO_TTY_WIDTH
    except (AttributeError, ValueError):
        return _NO_TTY_WIDTH


console = Console(width=_width(sys.stdout))
err_console = Console(stderr=True, width=_width(sys.stderr))


def check_output(path, param: str = "output", *, folder: bool = False,
                 suffixes: tuple[str, ...] | None = None) -> Path | None:
    """Refuse an output path that cannot be written, before any work (one rule for all).

    A file must not be a directory, its folder must exist and be writable, and its
    suffix must be one of ``suffixes`` (when given). A ``folder`` output may be new,
    but the folder holding it must exist. ``None`` passes through.

    Examples
    --------
    >>> check_output("/no/such/dir/x.csv", "output")
    Traceback (most recent call last):
    ...
    fattree.errors.ParameterError: output='/no/such/dir/x.csv' cannot be written: folder '/no/such/dir' does not exist (create it first)
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
        if suffixes and p.suffix.lower() not in suffixes:
            raise ParameterError(f"{param}={text!r} is invalid: the file name must end in "
                                 f"{', '.join(suffixes)}")
        target = parent
        what = "file"
    if not parent.is_dir() and not (folder and p.is_dir()):
        why = "is a file" if parent.exists() else "does not exist"
        raise ParameterError(f"{param}={text!r} cannot be written: folder {str(parent)!r} "
                             f"{why} (create it first)")
    if not os.access(target, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ParameterError(f"{param}={text!r} cannot be written: permission denied ({what})")
    return p


def _default(o: Any):
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
