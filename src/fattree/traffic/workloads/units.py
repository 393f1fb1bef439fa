"""Physical quantities with units: message sizes, link rates and times.

A number without a unit is refused: ``1024`` could be bytes, kibibytes or flits, and a
silent guess would change every result by orders of magnitude.
"""

from __future__ import annotations

import math
import re

from ...errors import ParameterError

#: byte multiples: decimal (SI) and binary (IEC), case as written by the standards
SIZE_UNITS = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
}

#: link rates in bits per second (``b`` bits, ``B`` bytes)
RATE_UNITS = {
    "b/s": 1,
    "kb/s": 10**3,
    "Mb/s": 10**6,
    "Gb/s": 10**9,
    "Tb/s": 10**12,
    "B/s": 8,
    "kB/s": 8 * 10**3,
    "MB/s": 8 * 10**6,
    "GB/s": 8 * 10**9,
    "TB/s": 8 * 10**12,
}

#: times: units per second (a value is divided by it, so "100ns" is exactly 1e-07 s)
TIME_UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6, "µs": 1e6, "ns": 1e9, "ps": 1e12}

_NUM = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-zµ/]*)\s*$")


def _split(text, param: str, units: dict, example: str) -> tuple[float, str]:
    allowed = ", ".join(units)
    if isinstance(text, bool) or not isinstance(text, str):
        raise ParameterError(
            f"{param}={text!r} is invalid: expected a number with a unit ({allowed}), "
            f"e.g. {example!r}"
        )
    m = _NUM.match(text)
    if not m:
        raise ParameterError(
            f"{param}={text!r} is invalid: expected a number with a unit ({allowed}), "
            f"e.g. {example!r}"
        )
    value, unit = float(m.group(1)), m.group(2)
    if not unit:
        raise ParameterError(
            f"{param}={text!r} is invalid: the unit is missing; give one of {allowed} "
            f"(e.g. {example!r})"
        )
    if unit not in units:
        raise ParameterError(
            f"{param}={text!r} is invalid: unknown unit {unit!r}; valid: {allowed} "
            f"(e.g. {example!r})"
        )
    if not math.isfinite(value):
        raise ParameterError(f"{param}={text!r} is invalid: expected a finite number")
    return value, unit


def parse_size(text, param: str = "size") -> int:
    """A size in bytes from ``"1MiB"``, ``"64KiB"``, ``"1.5GB"``, ``"256B"``.

    Parameters
    ----------
    text : str
        A non-negative number and one unit of :data:`SIZE_UNITS` (case as written:
        ``KiB`` is 1,024 bytes, ``KB`` 1,000; ``b`` (bits) is not a size).
    param : str
        The parameter's name, for messages.

    Returns
    -------
    int
        Bytes (a fractional byte count is refused).

    Raises
    ------
    ParameterError
        If the unit is missing or unknown, or the bytes are not a whole number.

    Examples
    --------
    >>> parse_size("1MiB"), parse_size("64KB"), parse_size("1.5KiB")
    (1048576, 64000, 1536)
    """
    value, unit = _split(text, param, SIZE_UNITS, "1MiB")
    nbytes = value * SIZE_UNITS[unit]
    if nbytes != int(nbytes):
        raise ParameterError(
            f"{param}={text!r} is invalid: {nbytes} is not a whole number of bytes"
        )
    if nbytes >= 2**62:
        raise ParameterError(f"{param}={text!r} is invalid: at most 2**62 bytes")
    return int(nbytes)


def parse_rate(text, param: str = "link_rate") -> float:
    """A link rate in bytes per second from ``"400Gb/s"`` or ``"50GB/s"``.

    Parameters
    ----------
    text : str
        A positive number and one unit of :data:`RATE_UNITS` (``b`` bits, ``B`` bytes).
    param : str
        The parameter's name, for messages.

    Returns
    -------
    float
        Bytes per second.

    Raises
    ------
    ParameterError
        If the unit is missing or unknown, or the rate is not positive.

    Examples
    --------
    >>> parse_rate("400Gb/s"), parse_rate("50GB/s")
    (50000000000.0, 50000000000.0)
    """
    value, unit = _split(text, param, RATE_UNITS, "400Gb/s")
    if value <= 0:
        raise ParameterError(f"{param}={text!r} is invalid: expected a positive rate")
    return value * RATE_UNITS[unit] / 8.0


def parse_time(text, param: str = "hop_latency") -> float:
    """A time in seconds from ``"100ns"``, ``"1.5us"``, ``"2ms"``.

    Parameters
    ----------
    text : str
        A non-negative number and one unit of :data:`TIME_UNITS`.
    param : str
        The parameter's name, for messages.

    Returns
    -------
    float
        Seconds.

    Raises
    ------
    ParameterError
        If the unit is missing or unknown.

    Examples
    --------
    >>> parse_time("100ns")
    1e-07
    """
    value, unit = _split(text, param, TIME_UNITS, "100ns")
    return value / TIME_UNITS[unit]


def format_size(nbytes: int) -> str:
    """The shortest exact binary or decimal spelling of a byte count (``"1MiB"``).

    Parameters
    ----------
    nbytes : int
        Bytes.

    Returns
    -------
    str
        E.g. ``"64KiB"``, ``"1000B"`` becomes ``"1KB"``, ``"1000001B"`` stays bytes.

    Examples
    --------
    >>> format_size(1048576), format_size(64000), format_size(3)
    ('1MiB', '64KB', '3B')
    """
    n = int(nbytes)
    for unit in ("TiB", "GiB", "MiB", "KiB", "TB", "GB", "MB", "KB"):
        mult = SIZE_UNITS[unit]
        if n and n % mult == 0:
            return f"{n // mult}{unit}"
    return f"{n}B"


__all__ = [
    "SIZE_UNITS",
    "RATE_UNITS",
    "TIME_UNITS",
    "parse_size",
    "parse_rate",
    "parse_time",
    "format_size",
]
