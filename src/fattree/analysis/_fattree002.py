"""002's fat-tree side: hop counts, T_net, hypertree routers, volume-universal growth, tables."""

from __future__ import annotations

import math

import pandas as pd

from ..errors import ParameterError
from . import _paper002 as paper
from ._base002 import TABLES_002, _check_kn, _check_nodes, channel_time, check_wire, integer_shapes


def fattree_avg_hops(k: float, n: int) -> float:
    """Mean hop count of a k-ary n-tree over all N² pairs incl. self: 000 eq. (3).

    002's own formula is garbled and wrong (errata); its Figure 1 values equal this at the
    integer arity ⌊N^(1/n)⌋.

    Examples
    --------
    >>> round(fattree_avg_hops(4, 7), 2)
    13.33

    References
    ----------
    000 eq. (3); 002 §3 "Fat tree Latency" (errata).
    """
    _check_kn(k, n)
    return 2 * n - 2 / (k - 1) + 2 / ((k - 1) * k**n)


def fattree_avg_hops_printed(k: float, n: int) -> float:
    """002's printed D = 2 Σ_{i=1..n} (1/k)^(n-i) ((k-1)/k)^(n-i), read literally (wrong).

    Examples
    --------
    >>> round(fattree_avg_hops_printed(128, 2), 3)   # Figure 1 prints 3.98
    2.016
    """
    _check_kn(k, n)
    return 2 * sum((1 / k) ** (n - i) * ((k - 1) / k) ** (n - i) for i in range(1, n + 1))


def fattree_tnet(
    k: float, n: int, message_length: float, width: float, wire: str = "constant", hops: str = "2n"
) -> float:
    """T_net = T_c (D + L/W) of a fat tree, with D = 2n (002's simplification) or exact.

    Examples
    --------
    >>> round(fattree_tnet(16, 2, 150, 20), 2)    # 002: N = 256, n = 2
    11.5

    References
    ----------
    002 §3 "Fat tree Latency".
    """
    if hops not in ("2n", "exact"):
        raise ParameterError(f"hops={hops!r} is invalid: '2n' (002) or 'exact' (000 eq. 3)")
    if not width > 0 or not message_length > 0:
        raise ParameterError(
            f"width={width!r}, message_length={message_length!r} are invalid: both must be > 0"
        )
    d = 2.0 * n if hops == "2n" else fattree_avg_hops(k, n)
    return channel_time(k, n, wire) * (d + message_length / width)


WIDTH_RULES = ("table", "text", "bisection")


def fattree_tnet_table(
    nodes: int = 16384,
    message_length: float = 150.0,
    node_size: float = 640.0,
    wire: str = "constant",
    width_rule: str = "table",
    hops: str = "2n",
) -> pd.DataFrame:
    """Fat-tree T_net for n = 1..log2 N with real k = N^(1/n).

    ``width_rule``: "table" W = NodeSize/(2k) (what 002's tables compute: 2k ports of a
    k-ary router), "text" W = NodeSize/(2n) (002's printed formula), "bisection" W = 1.

    Examples
    --------
    >>> t = fattree_tnet_table(256)
    >>> int(t.loc[t["Tnet"].idxmin(), "n"]), round(float(t["Tnet"].min()), 2)
    (3, 8.98)

    References
    ----------
    002 §3 "K-ary N-Tree for const node size" tables.
    """
    _check_nodes(nodes)
    check_wire(wire)
    if width_rule not in WIDTH_RULES:
        raise ParameterError(
            f"width_rule={width_rule!r} is invalid: one of {', '.join(WIDTH_RULES)}"
        )
    if not node_size > 0:
        raise ParameterError(f"node_size={node_size!r} is invalid: a positive number of wires")
    rows = []
    for n in range(1, nodes.bit_length()):
        k = nodes ** (1.0 / n)
        w = {"table": node_size / (2 * k), "text": node_size / (2 * n), "bisection": 1.0}[
            width_rule
        ]
        d = 2.0 * n if hops == "2n" else fattree_avg_hops(k, n)
        tc = channel_time(k, n, wire)
        rows.append(
            {
                "n": n,
                "k": k,
                "W": w,
                "D": d,
                "L/W": message_length / w,
                "Tc": tc,
                "Tnet": tc * (d + message_length / w),
            }
        )
    return pd.DataFrame(rows)


def flat_fattree_routers(k: int, n: int) -> int:
    """Routers of a flat (one router per logical node) k-ary tree with k^n leaves: (k^n-1)/(k-1)."""
    _check_kn(k, n)
    return (k**n - 1) // (k - 1)


def hypertree_routers(k: int, n: int, growth: float | None = None) -> float:
    """Routers of a k-ary n-level hypertree: n k^(n-1) without concentration, else Σ G^i k^(n-1-i).

    Level i (0 = leaves) has k^(n-1-i) logical nodes of G^i routers each; at G = k this is
    the k-ary n-tree's n k^(n-1).

    Examples
    --------
    >>> hypertree_routers(4, 3), hypertree_routers(4, 3, growth=4)
    (48, 48)

    References
    ----------
    002 §1 "Hyper-Tree" (corrected: errata; the growth form is off by a factor k as printed).
    """
    _check_kn(k, n)
    if growth is None:
        return n * k ** (n - 1)
    return sum(growth**i * k ** (n - 1 - i) for i in range(n))


def hypertree_routers_printed(k: int, n: int, growth: float | None = None) -> float:
    """002's printed counts: (n/k + 1) k^n (routers plus terminals) and Σ_{i<n} G^i k^(n-i).

    Examples
    --------
    >>> hypertree_routers_printed(4, 3) - hypertree_routers(4, 3)   # the 4^3 terminals
    64.0
    """
    _check_kn(k, n)
    if growth is None:
        return (n / k + 1) * k**n
    return sum(growth**i * k ** (n - i) for i in range(n))


def volume_universal_growth(k: float) -> float:
    """Minimum bisection growth per level, k^(2/3), preserving volume universality (002 §1)."""
    _check_kn(k, 1)
    return k ** (2.0 / 3.0)


def volume_universal_bisection(k: float, level: int, leaf_bisection: float = 1.0) -> float:
    """Bisection at ``level`` (0 = leaves) growing by k^(2/3) per level: B_i = B_0 k^(2i/3).

    Examples
    --------
    >>> round(volume_universal_bisection(8, 3, 64))
    4096

    References
    ----------
    002 §1 (Leiserson 1985; B ∝ a ∝ v^(2/3)).
    """
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ParameterError(f"level={level!r} is invalid: an integer >= 0")
    return leaf_bisection * volume_universal_growth(k) ** level


# ----------------------------------------------------------------- tables
@TABLES_002.register("flat-fattree-4096")
def table_flat_fattree(nodes: int = 4096) -> pd.DataFrame:
    """Flat fat tree with root bisection N (002 §3): leaf bisection N / k^(2(n-1)/3)."""
    rows = []
    for k, n in integer_shapes(nodes, 2):
        leaf = nodes / volume_universal_growth(k) ** (n - 1)
        rows.append(
            {
                "k": k,
                "n": n,
                "routers": flat_fattree_routers(k, n),
                "root_size": nodes,
                "root_B": nodes,
                "leaf_size": leaf,
                "leaf_W": leaf / (volume_universal_growth(k) + k),
                "leaf_B": leaf,
            }
        )
    t = pd.DataFrame(rows)
    notes = {
        (2, 12): "routers: (N-1)/(k-1) = 4095 like the other rows; 2047 counts one level fewer",
        "*": "leaf link width B/(k^(2/3)+k) matches the printed value only rounded up",
    }
    return paper.compare(
        t,
        paper.FLAT_FATTREE_4096,
        ["k", "n", "routers", "root_size", "root_B", "leaf_size", "leaf_W", "leaf_B"],
        ["k", "n"],
        notes,
        table_notes=[
            "one router per logical node: (k^n - 1)/(k - 1) routers; "
            "bisection shrinks by k^(2/3) per level below the root"
        ],
    )


@TABLES_002.register("hypertree-4096")
def table_hypertree(nodes: int = 4096, node_size: float = 24.0) -> pd.DataFrame:
    """Hypertree with fixed router size, G = k^(2/3) (002 §3): root of G^(n-1) routers."""
    rows = []
    for k, n in integer_shapes(nodes, 2):
        g = volume_universal_growth(k) ** (n - 1)
        rows.append(
            {
                "k": k,
                "n": n,
                "root_routers": math.ceil(g - 1e-9),
                "root_B": node_size * g,
                "leaf_size": node_size,
                "leaf_W": node_size / (volume_universal_growth(k) + k),
                "leaf_B": node_size,
            }
        )
    t = pd.DataFrame(rows)
    notes = {(64, 2): "002 marks k = 64 infeasible (leaf link width < 1 bit)"}
    out = paper.compare(
        t,
        paper.HYPERTREE_4096,
        ["k", "n", "root_routers", "root_B", "leaf_size", "leaf_W", "leaf_B"],
        ["k", "n"],
        notes,
        table_notes=[
            "root B = 24 G^(n-1) uses fractional routers while the root size "
            "rounds G^(n-1) up (162x24 is 3888 wires, B is printed 3870)"
        ],
    )
    out.loc[(out["k"] == 64) & (out["n"] == 2), "note"] = notes[(64, 2)]
    return out


@TABLES_002.register("fattree-hops-16384")
def table_fattree_hops(nodes: int = 16384) -> pd.DataFrame:
    """002 Figure 1 (average fat-tree hops, N = 16384) against 000 eq. (3)."""
    rows = []
    for n in range(1, nodes.bit_length()):
        k = nodes ** (1.0 / n)
        rows.append(
            {
                "n": n,
                "k": k,
                "D": fattree_avg_hops(k, n),
                "D_integer_k": fattree_avg_hops(math.floor(k + 1e-9), n),
                "D_printed_formula": fattree_avg_hops_printed(k, n),
            }
        )
    t = paper.compare(
        pd.DataFrame(rows),
        paper.FATTREE_HOPS_16384,
        ["n", "k", "D"],
        ["n"],
        {"*": "the printed D is 000 eq. (3) at the integer arity floor(N^(1/n))"},
        table_notes=[
            "002's printed hop formula is wrong (errata); the correct mean is "
            "000 eq. (3), which Figure 1 evaluates at integer k"
        ],
    )
    return t


def _fattree_tnet(nodes: int) -> pd.DataFrame:
    t = fattree_tnet_table(nodes, 150.0, 640.0).drop(columns=["Tc"])
    return paper.compare(
        t,
        paper.FATTREE_TNET[nodes],
        ["n", "k", "W", "D", "L/W", "Tnet"],
        ["n"],
        table_notes=FATTREE_TNET_NOTES,
    )


FATTREE_TNET_NOTES = [
    "the tables compute W = NodeSize/(2k) (a k-ary router has 2k ports), while 002's text "
    "prints W = NodeSize/(2n) and T_net = T_c(2n + 2nL/NodeSize)",
    "D = 2n (002's simplification; the exact mean is 000 eq. (3)), constant wire delay",
]


@TABLES_002.register("fattree-tnet-256")
def table_fattree_tnet_256() -> pd.DataFrame:
    """Fat-tree T_net, constant node size 640, L = 150, N = 256 (W = NodeSize/2k as tabled)."""
    return _fattree_tnet(256)


@TABLES_002.register("fattree-tnet-16384")
def table_fattree_tnet_16384() -> pd.DataFrame:
    """Fat-tree T_net, constant node size 640, L = 150, N = 16384 (W = NodeSize/2k as tabled)."""
    return _fattree_tnet(16384)
