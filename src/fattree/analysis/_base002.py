"""Shared pieces of 002's models: argument checks, wire delay, integer shapes."""

from __future__ import annotations

import math

from collections.abc import Callable

from ..errors import ParameterError
from ..registry import Registry

#: 002's tables, regenerated beside the printed values (filled by the model modules).
TABLES_002: Registry[Callable] = Registry("002 table")

WIRES = ("constant", "log", "linear")
CONSTRAINTS = ("bisection", "nodesize")


def _check_kn(k, n) -> None:
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not k > 1:
        raise ParameterError(f"k={k!r} is invalid: a number > 1 (nodes per dimension)")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ParameterError(f"n={n!r} is invalid: an integer >= 1 (dimensions)")


def _check_nodes(nodes) -> None:
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 4 <= nodes <= 2**40:
        raise ParameterError(f"nodes={nodes!r} is invalid: an integer from 4 to 2^40")


def check_wire(wire: str) -> None:
    if wire not in WIRES:
        raise ParameterError(f"wire={wire!r} is invalid: one of {', '.join(WIRES)}")


def channel_time(k: float, n: int, wire: str = "constant") -> float:
    """T_c for constant, logarithmic (1 + (n/2-1) ln k) or linear (k^(n/2-1)) wire delay.

    The log base is printed garbled ("log_λ"); 002's own short-wire delay is
    "τ log_e(Kl)", so the natural log is used (docs/analytics.md). For n = 1 the planar
    length l = k^(n/2-1) falls below the 2-D baseline; T_c is then held at the
    constant-delay floor 1 (the log model would turn negative).

    Examples
    --------
    >>> channel_time(16, 2, "linear"), channel_time(4, 4, "linear")
    (1.0, 4.0)
    >>> channel_time(4096, 1, "log")
    1.0

    References
    ----------
    002 §3 "k-ary n-cube Baseline Latency"; Dally 1990.
    """
    _check_kn(k, n)
    check_wire(wire)
    if wire == "constant":
        return 1.0
    if wire == "log":
        return 1.0 + max(0.0, (n / 2.0 - 1.0) * math.log(k))
    return max(1.0, k ** (n / 2.0 - 1.0))


def integer_shapes(nodes: int, min_n: int = 1) -> list[tuple[int, int]]:
    """All (k, n) with integer k >= 2 and k^n = nodes, n >= min_n, by decreasing n."""
    _check_nodes(nodes)
    out = []
    for n in range(max(1, min_n), nodes.bit_length() + 1):
        k = round(nodes ** (1.0 / n))
        for kk in (k - 1, k, k + 1):
            if kk >= 2 and kk**n == nodes:
                out.append((kk, n))
    return sorted(out, key=lambda t: -t[1])
