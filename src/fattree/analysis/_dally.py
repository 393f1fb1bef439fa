"""Dally's contention latency of k-ary n-cubes (002 §3 reproduces his 4096-node example).

002 gives only the table, not Dally's equations; this is a first-order reconstruction in
002's own framework (the one it writes out for fat trees): waiting at a channel is
P(blocker from another input) x (duty factor λ_c T) x (mean residual T/2), where T is the
time the message holds the channel (its length B = L/W plus all waiting downstream), and
the recursion runs from the destination back. In each dimension a message enters once
(blocked by continuing traffic, a fraction (k_d-1)/k_d of the load) and continues k_d - 1
hops (blocked by entering traffic, 1/k_d); for k_d <= 1 (k <= 3) a traversed dimension has
two competing inputs (P = 1/2). The load λ is the channel utilisation λ_c B; the network
saturates when the first channel's duty factor λ_c T reaches 1. The binary 12-cube row of
the table is reproduced to printed precision; the others agree within about 2% at λ <= 0.2
and drift near saturation (see :func:`table_dally` and docs/analytics.md).
"""

from __future__ import annotations

import math

import pandas as pd

from ..errors import ParameterError
from . import _paper002 as paper
from ._base002 import TABLES_002, integer_shapes


def _hold_time(k: float, n: int, load: float, message_length: float, width: float) -> float:
    b = message_length / width
    kd = (k - 1) / 2.0
    lam = load / b  # messages per cycle per channel
    t = b
    for _ in range(n):
        if kd > 1:
            x = (kd - 1) * (1 / kd) * lam * t / 2  # continuing hops, continuous compounding
            if x >= 1:
                return math.inf
            t = t / (1 - x)
            t += (kd - 1) / kd * lam * t * t / 2
        else:
            t += kd * 0.5 * lam * t * t / 2
    return t


def _check(k, n, load, message_length, width):
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise ParameterError(f"k={k!r} is invalid: an integer >= 2")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ParameterError(f"n={n!r} is invalid: an integer >= 1")
    if not 0 <= load < 1:
        raise ParameterError(f"load={load!r} is invalid: a channel utilisation in [0, 1)")
    if not message_length > 0 or not width > 0:
        raise ParameterError(
            f"message_length={message_length!r}, width={width!r} are invalid: both > 0"
        )


def dally_latency(
    k: int, n: int, load: float, message_length: float = 200.0, width: float | None = None
) -> float:
    """Latency n k_d + T_0 of a k-ary n-cube under uniform load (inf beyond saturation).

    ``width`` defaults to Dally's constant bisection W = k/2.

    Examples
    --------
    >>> round(dally_latency(2, 12, 0.1)), round(dally_latency(2, 12, 0.3))   # 002: 241, 357
    (241, 357)
    >>> dally_latency(16, 3, 0.0)                                              # n k_d + L/W
    47.5

    References
    ----------
    002 §3 "k-ary n-cube latency with contention"; Dally 1990 (reconstruction, module doc).
    """
    width = k / 2.0 if width is None else width
    _check(k, n, load, message_length, width)
    b = message_length / width
    t = _hold_time(k, n, load, message_length, width)
    if not math.isfinite(t) or load / b * t >= 1:
        return math.inf
    return n * (k - 1) / 2.0 + t


def dally_saturation(
    k: int, n: int, message_length: float = 200.0, width: float | None = None
) -> float:
    """Largest load (channel utilisation) before the first channel's duty factor reaches 1.

    Examples
    --------
    >>> round(dally_saturation(2, 12), 2)   # 002 prints .41
    0.42
    """
    width = k / 2.0 if width is None else width
    _check(k, n, 0.0, message_length, width)
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if math.isfinite(dally_latency(k, n, mid, message_length, width)):
            lo = mid
        else:
            hi = mid
    return lo


@TABLES_002.register("dally-contention-4096")
def table_dally(
    nodes: int = 4096, loads=(0.1, 0.2, 0.3), message_length: float = 200.0
) -> pd.DataFrame:
    """Dally's 4096-node contention example (constant bisection, L = 200) beside 002's table."""
    rows = []
    for k, n in integer_shapes(nodes, 2):
        row = {"k": k, "n": n, "max_throughput": dally_saturation(k, n, message_length)}
        for lam in loads:
            row[f"latency_{lam:g}"] = dally_latency(k, n, lam, message_length)
        rows.append(row)
    cols = ["k", "n", "max_throughput"] + [f"latency_{x:g}" for x in loads]
    out = paper.compare(
        pd.DataFrame(rows),
        paper.DALLY_4096,
        cols,
        ["k", "n"],
        {"*": "differs from Dally's numbers (model reconstructed)"},
        table_notes=[
            "002 gives Dally's results, not his equations; the model is a "
            "first-order reconstruction (module docstring, docs/analytics.md)"
        ],
    )
    return out
