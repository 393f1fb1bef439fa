"""Closed forms of the hybrid cube/tree families: CAT, MiCAT (001) and KANTC, MiKANTC (004)."""

from __future__ import annotations

from functools import cache
from math import factorial

from .formset import ParamSpec, avg_distinct, register_forms


def _w(one, k):
    # mean cube distance to the transit corner over the 2^k - 1 node corners
    return one * k * 2 ** (k - 1) / (2**k - 1)


def _c(one, k):
    """The constant C_k of the corrected CAT/MiCAT average distance (errata)."""
    w = _w(one, k)
    return (
        (2 * one * (k - 1) / k + 2 ** (k + 1) - 4 + k * 2 ** (k - 1) - w) / (2**k - 1)
        - 2
        - 2 * w
        + 2 * one / (k - 1)
    )


@cache
def _q(k):
    """Q = sum_{i=1..k} k!/(k-i)!: k-cube shortest paths summed over the distance classes."""
    return sum(factorial(k) // factorial(k - i) for i in range(1, k + 1))


def cube_pd(one, k):
    """Corrected k-cube path diversity sum_{i=1..k} k!/((k-i)! 4^k) (switches only, errata)."""
    return one * _q(k) / 4**k


def cube_pd_printed(one, k):
    """001/004's printed k-cube path diversity sum_{i=1..k} k!/(i! 4^k)."""
    return one * sum(factorial(k) // factorial(i) for i in range(1, k + 1)) / 4**k


def _printed_cat_like(one, k, n, mirror):
    """001 §3.3's printed product formulas for PD_CAT / PD_MiCAT, evaluated literally."""
    p_cube = cube_pd_printed(one, k) * 2**k
    if mirror:
        p_tree = ((1 - one / k ** (2 * n - 2)) / (4 * (k + 1)) + one / (4 * k * k)) * 2 * k**n
        g, nodes = 2 * k ** (n - 1), 2 * (2**k - 1) * k**n
    else:
        p_tree = (1 - one / k ** (2 * n - 2)) / (k + 1) * k**n
        g, nodes = k ** (n - 1), (2**k - 1) * k**n
    return p_cube / g * (p_cube * p_tree * (g - 1) + 1) / nodes


_REF1 = "001 Table 1"


def _cat_printed(one, k, n):
    return {
        "avg_distance": k
        + 2 * n
        + 2 * one / (k - 1)
        - (one * k / (k - 1) + one * k / 2 + 2) / k ** (n - 1),
        "path_diversity": _printed_cat_like(one, k, n, False),
    }


@register_forms(
    "cat",
    title="k-cube k-ary n-tree CAT(k,n)",
    params=[ParamSpec("k", 2, maximum=63), ParamSpec("n", 2, maximum=63)],
    references={
        "nodes": _REF1,
        "switches": _REF1,
        "links": _REF1,
        "radix": _REF1,
        "diameter": _REF1,
        "avg_distance": f"{_REF1} (corrected in errata)",
        "avg_distance_distinct": "errata's CAT average rescaled to s != t",
        "path_diversity": "001 §3.3 (corrected in errata)",
    },
    notes={
        "avg_distance": "printed k + 2n + 2/(k-1) - (...)/k^(n-1) is wrong; correct: "
        "2n + 2W - 2/(k-1) + C_k/k^(n-1), W = k 2^(k-1)/(2^k-1)",
        "path_diversity": "printed product formula is off by about 3x; correct: "
        "[(2^k-2)Q + kQ^2(K^2-1)/(k+1)] / ((2^k-1)^3 k K^2)",
        "nodes": "transit switch = all-zero cube corner (errata)",
    },
    printed=_cat_printed,
)
def _cat(one, k, n):
    K = k ** (n - 1)
    N = (2**k - 1) * k**n
    q = _q(k)
    avg = 2 * n + 2 * _w(one, k) - 2 * one / (k - 1) + _c(one, k) / K
    pd = ((2**k - 2) * q * one + one * k * q * q * (K * K - 1) / (k + 1)) / (
        (2**k - 1) ** 3 * k * K * K
    )
    return {
        "nodes": N,
        "switches": (n + 2**k - 1) * K,
        "links": (3 * 2 ** (k - 1) + n - 2) * k**n,
        "radix": 2 * k,
        "diameter": 2 * n + 2 * k,
        "avg_distance": avg,
        "avg_distance_distinct": avg_distinct(avg, N),
        "path_diversity": pd,
    }


def _micat_printed(one, k, n):
    return {
        "avg_distance": k
        + 2 * n
        - one / 2
        + 4 * one / (k - 1)
        - (one * k / (k - 1) + one * k / 2 + 2) / (2 * k ** (n - 1)),
        "path_diversity": _printed_cat_like(one, k, n, True),
    }


@register_forms(
    "micat",
    title="Mirrored k-cube k-ary n-tree MiCAT(k,n)",
    params=[ParamSpec("k", 2, maximum=63), ParamSpec("n", 2, maximum=63)],
    references={
        "nodes": _REF1,
        "switches": _REF1,
        "links": _REF1,
        "radix": _REF1,
        "diameter": _REF1,
        "avg_distance": f"{_REF1} (corrected in errata)",
        "avg_distance_distinct": "errata's MiCAT average rescaled to s != t",
        "path_diversity": "001 §3.3 (corrected in errata)",
    },
    notes={
        "avg_distance": "printed k + 2n - 1/2 + 4/(k-1) - (...) is wrong; correct: "
        "2n - 1/2 + 2W - 1/(k-1) + C_k/(2k^(n-1))",
        "path_diversity": "printed product formula is off by about 3x (errata)",
    },
    printed=_micat_printed,
)
def _micat(one, k, n):
    K = k ** (n - 1)
    N = 2 * (2**k - 1) * k**n
    q = _q(k)
    avg = 2 * n - one / 2 + 2 * _w(one, k) - one / (k - 1) + _c(one, k) / (2 * K)
    pd = (
        (2**k - 2) * q * one + one * q * q * (one * k * (K * K - 1) / (k + 1) + one * K * K / k)
    ) / (4 * (2**k - 1) ** 3 * k * K * K)
    return {
        "nodes": N,
        "switches": (2 * n - 4 + 2 ** (k + 1)) * K,
        "links": (3 * 2**k + 2 * n - 5) * k**n,
        "radix": 2 * k,
        "diameter": 2 * n + 2 * k,
        "avg_distance": avg,
        "avg_distance_distinct": avg_distinct(avg, N),
        "path_diversity": pd,
    }


_REF4 = "004 Table 1"

# Diameters of the n = 2 instances, verified only for these k (errata); no closed form beyond.
_KANTC_N2 = {2: 4, 3: 5, 4: 6}
_MIKANTC_N2 = {2: 5, 3: 5, 4: 7}


def _hybrid_diameter(k, n, table):
    if n >= 3:
        return 2 * n + 2 * (k // 2)
    return table.get(k)


def _kantc_printed(one, k, n):
    return {"diameter": 2 * n + k}


_DIAM_NOTE = (
    "printed 2n + k; the graph gives 2n + 2*floor(k/2) for n >= 3 (differs for odd k); "
    "n = 2 is special and known only for k <= 4 (errata)"
)


@register_forms(
    "kantc",
    title="k-ary n-tree k-cube KANTC(k,n)",
    params=[ParamSpec("k", 2, maximum=63), ParamSpec("n", 2, maximum=63)],
    references={
        "nodes": _REF4,
        "switches": _REF4,
        "links": _REF4,
        "radix": _REF4,
        "diameter": f"{_REF4} (corrected in errata)",
    },
    notes={
        "diameter": _DIAM_NOTE,
        "nodes": "k level-0 positions sharing their level-1 parents form one cube (errata)",
    },
    printed=_kantc_printed,
)
def _kantc(one, k, n):
    out = {
        "nodes": (2**k - k) * k ** (n - 1),
        "switches": (n - 1) * k ** (n - 1) + 2**k * k ** (n - 2),
        "links": (n - 1) * k**n + (2 ** (k - 1) + 2**k - k) * k ** (n - 1),
        "radix": 2 * k,
    }
    d = _hybrid_diameter(k, n, _KANTC_N2)
    if d is not None:
        out["diameter"] = d
    return out


@register_forms(
    "mikantc",
    title="Mirrored k-ary n-tree k-cube MiKANTC(k,n)",
    params=[ParamSpec("k", 2, maximum=63), ParamSpec("n", 2, maximum=63)],
    references={
        "nodes": _REF4,
        "switches": _REF4,
        "links": _REF4,
        "radix": _REF4,
        "diameter": f"{_REF4} (corrected in errata)",
    },
    notes={"diameter": _DIAM_NOTE.replace("n = 2 is special", "n = 2 gives 2*floor(k/2) + 3")},
    printed=_kantc_printed,
)
def _mikantc(one, k, n):
    out = {
        "nodes": 2 * (2**k - k) * k ** (n - 1),
        "switches": (2 * n - 4) * k ** (n - 1) + 2 ** (k + 1) * k ** (n - 2),
        "links": (2 * n - 3) * k**n + (3 * 2**k - 2 * k) * k ** (n - 1),
        "radix": 2 * k,
    }
    d = _hybrid_diameter(k, n, _MIKANTC_N2)
    if d is not None:
        out["diameter"] = d
    return out
