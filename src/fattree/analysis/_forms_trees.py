"""Closed forms of the tree families: k-ary n-tree, Clos, MiKANT (000 Table I, 001 Table 1)."""

from __future__ import annotations

from .formset import ParamSpec, avg_distinct, register_forms

_T1 = "000 Table I"


def _kant_avg(one, k, n):
    # 000 eq. (3): sum_{i=1..n} 2i (k^i - k^(i-1)) / k^n over all N^2 pairs incl. s = t
    return 2 * n - 2 * one / (k - 1) + 2 * one / ((k - 1) * k**n)


def _kant_pd(one, k, n):
    # 001 §3.3: pairs whose NCA is at level j have k^j shortest paths
    return (1 - one / k ** (2 * n - 2)) / (k + 1)


@register_forms(
    "kant",
    title="classical k-ary n-tree",
    params=[ParamSpec("k", 2), ParamSpec("n", 1, maximum=63)],
    references={
        "nodes": f"{_T1}; 001 Table 1",
        "switches": f"{_T1}; 001 Table 1",
        "links": f"{_T1}; 001 Table 1",
        "radix": f"{_T1} (roots use k ports)",
        "diameter": f"{_T1}; 000 §II",
        "avg_distance": "000 eq. (3), Table I",
        "avg_distance_distinct": "000 eq. (3) rescaled to s != t",
        "bisection_width": f"{_T1} (even k)",
        "path_diversity": "001 §3.3 (PD_kant)",
    },
    notes={
        "avg_distance": "mean over all N^2 ordered pairs including s = t",
        "radix": "2k (a single switch of k node ports when n = 1)",
        "bisection_width": "given for even k only (balanced halves)",
    },
)
def _kant(one, k, n):
    N = k**n
    avg = _kant_avg(one, k, n)
    out = {
        "nodes": N,
        "switches": n * k ** (n - 1),
        "links": n * k**n,
        "radix": 2 * k if n >= 2 else k,
        "diameter": 2 * n,
        "avg_distance": avg,
        "avg_distance_distinct": avg_distinct(avg, N),
        "path_diversity": _kant_pd(one, k, n),
    }
    if k % 2 == 0:
        out["bisection_width"] = k**n // 2
    return out


def _clos_printed(one, k, n):
    return {"bisection_width": k**n // 2} if k % 2 == 0 else {}


@register_forms(
    "clos",
    title="bidirectional Clos k-ary n-tree",
    params=[ParamSpec("k", 2), ParamSpec("n", 2, maximum=63)],
    references={
        "nodes": _T1,
        "switches": _T1,
        "links": _T1,
        "radix": _T1,
        "diameter": _T1,
        "avg_distance": "000 eq. (2), Table I",
        "avg_distance_distinct": "000 eq. (2) rescaled to s != t",
        "bisection_width": f"{_T1} (corrected in errata)",
        "path_diversity": "derived here (001 §3.3 convention), checked by brute force",
    },
    notes={
        "bisection_width": "printed k^n/2; the Clos has full bisection N/2 = k^n (errata)",
        "path_diversity": "same-side pairs as in the k-ary n-tree; the k^n x k^n cross "
        "pairs have k^(n-1) shortest paths (one per middle switch)",
    },
    printed=_clos_printed,
)
def _clos(one, k, n):
    N = 2 * k**n
    avg = 2 * n - one / (k - 1) + one / ((k - 1) * k**n)
    out = {
        "nodes": N,
        "switches": (2 * n - 1) * k ** (n - 1),
        "links": 2 * n * k**n,
        "radix": 2 * k,
        "diameter": 2 * n,
        "avg_distance": avg,
        "avg_distance_distinct": avg_distinct(avg, N),
        "path_diversity": (1 - one / k ** (2 * n - 2)) / (4 * (k + 1)) + one / (4 * k),
    }
    if k % 2 == 0:
        out["bisection_width"] = k**n
    return out


@register_forms(
    "mikant",
    title="Mirrored k-ary n-tree MiKANT(k,n)",
    params=[ParamSpec("k", 2), ParamSpec("n", 2, maximum=63)],
    references={
        "nodes": "000 Theorem 4, Table I",
        "switches": "000 Theorem 3, Table I",
        "links": "000 Theorem 5, Table I",
        "radix": "000 Theorem 1",
        "diameter": "000 Theorem 2",
        "avg_distance": "000 Theorem 6, eq. (1)",
        "avg_distance_distinct": "000 eq. (1) rescaled to s != t",
        "bisection_width": "000 Theorem 7 (even k; cut on the top digit, errata)",
        "path_diversity": "001 §3.3 (PD_mikant)",
    },
    notes={
        "avg_distance": "mean over all N^2 ordered pairs including s = t",
        "bisection_width": "given for even k only",
        "path_diversity": "cross-group pairs have k^(n-2) shortest paths",
    },
)
def _mikant(one, k, n):
    N = 2 * k**n
    avg = 2 * n - one / (k - 1) + one / ((k - 1) * k**n) - one / 2
    out = {
        "nodes": N,
        "switches": 2 * (n - 1) * k ** (n - 1),
        "links": (2 * n - 1) * k**n,
        "radix": 2 * k,
        "diameter": 2 * n,
        "avg_distance": avg,
        "avg_distance_distinct": avg_distinct(avg, N),
        "path_diversity": (1 - one / k ** (2 * n - 2)) / (4 * (k + 1)) + one / (4 * k * k),
    }
    if k % 2 == 0:
        out["bisection_width"] = k**n // 2
    return out
