"""002's tables as printed (strings keep the printed precision), and the comparison helper.

These numbers are never shown as computed: :func:`compare` puts them beside the values
our models compute and flags every cell that differs at the printed precision.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

import pandas as pd

# 4096-node k-ary n-cube, maximum bisection bandwidth 4096: k, n, W, node size, B
CUBE_BISECTION_4096 = [
    ("2", "12", "1", "24", "4096"),
    ("4", "6", "2", "24", "4096"),
    ("8", "4", "4", "32", "4096"),
    ("16", "3", "8", "48", "4096"),
    ("64", "2", "32", "128", "4096"),
]
# 4096-node k-ary n-cube, maximum node size 24
CUBE_NODESIZE_4096 = [
    ("2", "12", "1", "24", "4096"),
    ("4", "6", "2", "24", "4096"),
    ("8", "4", "3", "24", "3072"),
    ("16", "3", "4", "24", "2048"),
    ("64", "2", "6", "24", "768"),
]
# flat fat tree, root bisection 4096: k, n, routers, root node size, root B, leaf node size,
# leaf link width, leaf B
FLAT_FATTREE_4096 = [
    ("2", "12", "2047", "4096", "4096", "25.4", "7", "25.4"),
    ("4", "6", "1365", "4096", "4096", "40.3", "6.2", "40.3"),
    ("8", "4", "585", "4096", "4096", "64", "5.4", "64"),
    ("16", "3", "273", "4096", "4096", "102", "4.6", "102"),
    ("64", "2", "65", "4096", "4096", "256", "3.2", "256"),
]
# hypertree, node size 24, G = k^(2/3): k, n, root routers ("162x24"), root B, leaf node
# size, leaf link width, leaf B
HYPERTREE_4096 = [
    ("2", "12", "162", "3870", "24", "6.7", "24"),
    ("4", "6", "102", "2438", "24", "3.7", "24"),
    ("8", "4", "64", "1536", "24", "2", "24"),
    ("16", "3", "41", "968", "24", "1.07", "24"),
    ("64", "2", "X", "X", "24", "<1", "X"),
]
# Figure 1, fat-tree average hop count, N = 16384: n, k, D
FATTREE_HOPS_16384 = [
    ("1", "16384.00", "2.00"),
    ("2", "128.00", "3.98"),
    ("3", "25.40", "5.92"),
    ("4", "11.31", "7.80"),
    ("5", "6.96", "9.60"),
    ("6", "5.04", "11.50"),
    ("7", "4.00", "13.33"),
    ("8", "3.36", "15.00"),
    ("9", "2.94", "16.00"),
    ("10", "2.64", "18.00"),
    ("11", "2.42", "20.00"),
    ("12", "2.24", "22.00"),
    ("13", "2.11", "24.00"),
    ("14", "2.00", "26.00"),
]
# k-ary n-cube, constant node size: n, k, W, D, L/W, Tnet
CUBE_TNET = {
    256: [
        ("1", "256.00", "320.00", "127.50", "3.13", "130.63"),
        ("2", "16.00", "160.00", "15.00", "6.25", "21.25"),
        ("3", "6.35", "106.67", "8.02", "9.38", "17.40"),
        ("4", "4.00", "80.00", "6.00", "12.50", "18.50"),
        ("5", "3.03", "64.00", "5.08", "15.63", "20.70"),
        ("6", "2.52", "53.33", "4.56", "18.75", "23.31"),
        ("7", "2.21", "45.71", "4.23", "21.88", "26.10"),
        ("8", "2.00", "40.00", "4.00", "25.00", "29.00"),
        ("9", "1.85", "35.56", "3.83", "28.13", "31.96"),
        ("10", "1.74", "32.00", "3.71", "31.25", "34.96"),
        ("11", "1.66", "29.09", "3.61", "34.38", "37.98"),
        ("12", "1.59", "26.67", "3.52", "37.50", "41.02"),
        ("13", "1.53", "24.62", "3.46", "40.63", "44.08"),
        ("14", "1.49", "22.86", "3.40", "43.75", "47.15"),
        ("15", "1.45", "21.33", "3.35", "46.88", "50.23"),
    ],
    16384: [
        ("1", "16384.0", "320.00", "8191.50", "3.13", "8194.63"),
        ("2", "128.00", "160.00", "127.00", "6.25", "133.25"),
        ("3", "25.40", "106.67", "36.60", "9.38", "45.97"),
        ("4", "11.31", "80.00", "20.63", "12.50", "33.13"),
        ("5", "6.96", "64.00", "14.91", "15.63", "30.54"),
        ("6", "5.04", "53.33", "12.12", "18.75", "30.87"),
        ("7", "4.00", "45.71", "10.50", "21.88", "32.38"),
        ("8", "3.36", "40.00", "9.45", "25.00", "34.45"),
        ("9", "2.94", "35.56", "8.73", "28.13", "36.85"),
        ("10", "2.64", "32.00", "8.20", "31.25", "39.45"),
        ("11", "2.42", "29.09", "7.79", "34.38", "42.16"),
        ("12", "2.24", "26.67", "7.47", "37.50", "44.97"),
        ("13", "2.11", "24.62", "7.21", "40.63", "47.84"),
        ("14", "2.00", "22.86", "7.00", "43.75", "50.75"),
        ("15", "1.91", "21.33", "6.82", "46.88", "53.70"),
    ],
}
# k-ary n-tree, constant node size 640, L = 150: n, k, W, D, L/W, Tnet
FATTREE_TNET = {
    256: [
        ("1", "256.00", "1.25", "2.00", "120.00", "122.00"),
        ("2", "16.00", "20.00", "4.00", "7.50", "11.50"),
        ("3", "6.35", "50.40", "6.00", "2.98", "8.98"),
        ("4", "4.00", "80.00", "8.00", "1.88", "9.88"),
        ("5", "3.03", "105.56", "10.00", "1.42", "11.42"),
        ("6", "2.52", "126.99", "12.00", "1.18", "13.18"),
        ("7", "2.21", "144.92", "14.00", "1.04", "15.04"),
        ("8", "2.00", "160.00", "16.00", "0.94", "16.94"),
    ],
    16384: [
        ("1", "16384.0", "0.02", "2.00", "7680.00", "7682.00"),
        ("2", "128.00", "2.50", "4.00", "60.00", "64.00"),
        ("3", "25.40", "12.60", "6.00", "11.91", "17.91"),
        ("4", "11.31", "28.28", "8.00", "5.30", "13.30"),
        ("5", "6.96", "45.95", "10.00", "3.26", "13.26"),
        ("6", "5.04", "63.50", "12.00", "2.36", "14.36"),
        ("7", "4.00", "80.00", "14.00", "1.88", "15.88"),
        ("8", "3.36", "95.14", "16.00", "1.58", "17.58"),
        ("9", "2.94", "108.86", "18.00", "1.38", "19.38"),
        ("10", "2.64", "121.26", "20.00", "1.24", "21.24"),
        ("11", "2.42", "132.44", "22.00", "1.13", "23.13"),
        ("12", "2.24", "142.54", "24.00", "1.05", "25.05"),
        ("13", "2.11", "151.69", "26.00", "0.99", "26.99"),
    ],
}
# Dally's 4096-node example: k, n, max throughput, latency at load 0.1, 0.2, 0.3
DALLY_4096 = [
    ("2", "12", ".41", "241", "288", "357"),
    ("4", "6", ".36", "135", "181", "287"),
    ("8", "4", ".31", "79.9", "112", "245"),
    ("16", "3", ".31", "55.2", "70.3", "135"),
    ("64", "2", ".35", "70.7", "73.1", "78.6"),
]


def decimals(text: str) -> int | None:
    """Digits after the point of a printed number, ``None`` if not a plain number."""
    try:
        Decimal(text)
    except InvalidOperation:
        return None
    return len(text.split(".")[1]) if "." in text else 0


def agrees(value: float, text: str) -> bool | None:
    """Does ``value`` round (half up) to the printed ``text``? ``None``: nothing comparable."""
    d = decimals(text)
    if d is None or value is None:
        return None
    if not math.isfinite(float(value)):
        return False
    # 10 significant digits first, so 1.87499999999 (float noise) reads as 1.875
    q = Decimal(f"{float(value):.10g}").quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP)
    return q == Decimal(text).quantize(Decimal(1).scaleb(-d))


def compare(
    computed: pd.DataFrame,
    printed: list[tuple],
    columns: list[str],
    keys: list[str],
    notes: dict | None = None,
    table_notes: list[str] | None = None,
) -> pd.DataFrame:
    """Put the printed values beside the computed ones and flag disagreements.

    ``printed`` rows follow ``columns``; rows are matched on ``keys``. The result has, per
    value column, ``<col>`` (computed) and ``<col>_printed``, then ``flag`` listing the
    columns that differ at the printed precision, and ``note``; ``attrs["notes"]`` holds
    the notes about the whole table.
    """
    notes = notes or {}
    p = pd.DataFrame(printed, columns=columns)
    for key in keys:
        p[key] = p[key].astype(float).round(6)
    left = computed.copy()
    for key in keys:
        left["_" + key] = left[key].astype(float).round(6)
    merged = left.merge(
        p.rename(columns={c: c + "_printed" for c in columns if c not in keys}).rename(
            columns={k: "_" + k for k in keys}
        ),
        on=["_" + k for k in keys],
        how="left",
    )
    merged = merged.drop(columns=["_" + k for k in keys])
    flags = []
    for _, row in merged.iterrows():
        bad = [
            c
            for c in columns
            if c not in keys
            and c + "_printed" in merged
            and isinstance(row.get(c + "_printed"), str)
            and agrees(row[c], row[c + "_printed"]) is False
        ]
        flags.append(",".join(bad))
    merged["flag"] = flags
    merged["note"] = [
        notes.get(tuple(row[k] for k in keys), notes.get("*", "")) if f else ""
        for (_, row), f in zip(merged.iterrows(), flags)
    ]
    order = keys + [x for c in columns if c not in keys for x in (c, c + "_printed")]
    rest = [c for c in merged.columns if c not in order]
    out = merged[[c for c in order if c in merged] + rest].reset_index(drop=True)
    out.attrs["notes"] = list(table_notes or [])
    return out
