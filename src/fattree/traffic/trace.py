"""Trace files: one packet per line, ``cycle src dst`` (whitespace or commas).

Blank lines and ``#`` comments are ignored; the first line may be the header
``cycle,src,dst``. Cycles are creation cycles (>= 0) and need not be sorted; two
packets of one source in the same cycle are created in file order.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..errors import InputFileError
from ..fileio import read_input

_SPLIT = re.compile(r"[,\s]+")
#: the last creation cycle a trace may name (the simulator's cycle cap less its drain)
MAX_CYCLE = 2**31 - 16 - 100_000
#: the largest node id (int32 node ids)
MAX_NODE = 2**31 - 1


def read_trace(path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Parse a trace file into ``(cycle, src, dst, line_numbers)`` int64 arrays.

    Parameters
    ----------
    path : str or Path
        The trace file: one ``cycle src dst`` line per packet.

    Returns
    -------
    tuple of numpy.ndarray
        ``cycle``, ``src``, ``dst`` and the file's line numbers.

    Raises
    ------
    InputFileError
        If the file cannot be read or a line is not three non-negative integers;
        the message names the file and the line.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
    ...     _ = fh.write("cycle,src,dst\\n0,1,2\\n# comment\\n5 2 0\\n")
    >>> c, s, d, lines = read_trace(fh.name); os.unlink(fh.name)
    >>> c.tolist(), s.tolist(), d.tolist(), lines.tolist()
    ([0, 5], [1, 2], [2, 0], [2, 4])

    References
    ----------
    docs/traffic.md, "Trace files".
    """
    p = Path(path)
    text = read_input(p, "trace file")  # a regular file, UTF-8 (fattree.fileio)
    rows: list[tuple[int, int, int]] = []
    numbers: list[int] = []
    seen_data = False
    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        parts = [x for x in _SPLIT.split(body) if x]
        if not seen_data and [x.lower() for x in parts] == ["cycle", "src", "dst"]:
            seen_data = True
            continue
        seen_data = True
        try:
            if len(parts) != 3:
                raise ValueError
            c, s, d = (int(x) for x in parts)
            if c < 0 or s < 0 or d < 0:
                raise ValueError
        except ValueError:
            raise InputFileError(
                f"{p}:{lineno}: expected three non-negative integers 'cycle src dst', "
                f"got {line.strip()!r}"
            ) from None
        if c > MAX_CYCLE or s > MAX_NODE or d > MAX_NODE:
            raise InputFileError(
                f"{p}:{lineno}: {line.strip()!r} out of range: cycles are 0..{MAX_CYCLE:,} "
                f"(the simulator's cycle counter), node ids 0..{MAX_NODE:,}"
            )
        rows.append((c, s, d))
        numbers.append(lineno)
    if not rows:
        raise InputFileError(
            f"trace file {str(p)!r} holds no packets (expected lines 'cycle src dst')"
        )
    a = np.asarray(rows, np.int64)
    return a[:, 0].copy(), a[:, 1].copy(), a[:, 2].copy(), np.asarray(numbers, np.int64)


def trace_tables(path, cycle, src, dst, lines, n: int) -> np.ndarray:
    """Check node ids against ``n`` and build the per-source destination table.

    The table is ``offsets (n+1)`` followed by the destinations grouped by source,
    each group in creation order (cycle, then file order).

    Parameters
    ----------
    path : str or Path
        The trace file (for messages).
    cycle, src, dst, lines : numpy.ndarray
        As :func:`read_trace` returns them.
    n : int
        Compute nodes of the network.

    Returns
    -------
    numpy.ndarray of int64
        The table.

    Raises
    ------
    InputFileError
        If a node id is ``>= n`` (the message names the line).
    """
    bad = np.nonzero((src >= n) | (dst >= n))[0]
    if len(bad):
        i = int(bad[0])
        raise InputFileError(
            f"{path}:{int(lines[i])}: node id out of range 0..{n - 1} "
            f"(src={int(src[i])}, dst={int(dst[i])})"
        )
    order = np.lexsort((np.arange(len(src)), cycle, src))
    counts = np.bincount(src, minlength=n)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return np.concatenate([offsets, dst[order]])


__all__ = ["read_trace", "trace_tables"]
