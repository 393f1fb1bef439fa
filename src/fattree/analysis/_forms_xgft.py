"""Closed forms of the extended generalized fat tree XGFT(h; m; w) (Öhring et al. 1995).

Counted on the definition (w_1 = 1: one link per compute node). With
``P_i = m_1..m_i`` and ``W_i = w_1..w_i``: N = P_h; level i has ``W_i (N / P_i)`` switches,
each with ``m_i`` links down; a pair whose labels first differ (from the top) at level i is
``2i`` hops apart and has ``W_i`` shortest paths (one per common ancestor at level i).
"""

from __future__ import annotations

from math import prod

from ..topology.families.xgft import parse_levels, shape, stage_radix, stage_sizes
from .formset import PARAM_MAX, ParamSpec, avg_distinct, register_forms
import functools

_REF = "Öhring 1995 §2 (derived)"


def _check(p):
    m, w = shape(p, limits=False)
    if len(m) != len(w):
        from ..errors import ParameterError

        raise ParameterError(
            f"xgft: m={p['m']} has {len(m)} levels but w={p['w']} has "
            f"{len(w)}; give one m and one w per level"
        )
    if w[0] != 1:
        from ..errors import ParameterError

        raise ParameterError(f"xgft: w={p['w']} is invalid: w_1 must be 1 (one link per node)")


def subtree_cut(m, w) -> int:
    """Smallest balanced cut made of whole subtrees (an upper bound on the bisection width).

    Side A takes floor(N/2) nodes as whole subtrees (a level-i subtree: ``P_i`` nodes,
    ``W_{i+1}`` links up), every other switch goes to side B; the cut is the up links of
    A's subtrees. Subtree sizes divide each other, so any multiset of total <= N fits
    disjointly; the cheapest is found level by level, using at each level either as many
    pieces as fit or none (equal to an exhaustive coin-change DP on 3,000 random shapes).

    Examples
    --------
    >>> subtree_cut((4, 4, 4), (1, 2, 2)), subtree_cut((4, 1, 4, 3), (1, 2, 1, 3))
    (8, 10)

    References
    ----------
    Derived here; checked against the exact ILP of ``fattree info`` (tests/topology/test_xgft.py).
    """

    h = len(m)
    P = [prod(m[:i]) for i in range(h + 1)]
    W = [prod(w[:i]) for i in range(h + 1)]

    @functools.cache
    def g(i, x):  # cover x nodes with subtrees of levels 0..i
        if x == 0:
            return 0
        if i == 0:
            return x * W[1]
        best = g(i - 1, x)
        a = x // P[i]
        if a:
            best = min(best, a * W[i + 1] + g(i - 1, x - a * P[i]))
        return best

    return g(h - 1, P[h] // 2)


@register_forms(
    "xgft",
    title="extended generalized fat tree XGFT(h; m; w)",
    # entries and levels bounded as every closed-form parameter is (closed_forms.PARAM_MAX,
    # exponents at 63): wider than the buildable family, which stops at 1,024 and 16 levels
    params=[
        ParamSpec("m", 1, convert=lambda v: parse_levels("m", v, PARAM_MAX, 63)),
        # ``minimum`` is unused with ``convert``; 0 makes minimum + 1 a valid w (= 1)
        ParamSpec("w", 0, convert=lambda v: parse_levels("w", v, PARAM_MAX, 63)),
    ],
    references={
        "nodes": _REF,
        "switches": _REF,
        "links": _REF,
        "radix": _REF,
        "diameter": _REF,
        "avg_distance": _REF,
        "avg_distance_distinct": _REF,
        "bisection_width": "whole-subtree cut (derived here)",
        "path_diversity": "001 §3.3's convention on XGFT (derived here)",
    },
    notes={
        "bisection_width": "floor(N/2) nodes as whole subtrees, their up links cut: an upper "
        "bound in general; equal to the ILP optimum on every instance tested",
        "avg_distance": "mean over all N^2 ordered pairs including s = t",
        "links": "node links included",
    },
    check=_check,
)
def _xgft(one, m, w):
    mm, ww = shape({"m": m, "w": w}, limits=False)
    h = len(mm)
    N = prod(mm)
    sizes = stage_sizes(mm, ww)
    P = [prod(mm[:i]) for i in range(h + 1)]
    W = [prod(ww[:i]) for i in range(h + 1)]
    avg = sum(2 * i * (P[i] - P[i - 1]) for i in range(1, h + 1)) * one / N
    pd = sum((P[i] - P[i - 1]) * W[i] for i in range(2, h + 1)) * one / N**2
    top = max((i for i in range(1, h + 1) if mm[i - 1] > 1), default=0)
    out = {
        "nodes": N,
        "switches": sum(sizes),
        "links": sum(s * mi for s, mi in zip(sizes, mm)),
        "radix": max(stage_radix(mm, ww)),
        "diameter": 2 * top,
        "avg_distance": avg,
        "avg_distance_distinct": avg_distinct(avg, N),
        "path_diversity": pd,
    }
    if N >= 2:
        out["bisection_width"] = subtree_cut(mm, ww)
    return out
