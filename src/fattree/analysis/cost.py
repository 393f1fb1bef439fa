"""Cost ratios, the cost-performance improvement S, RCP against the hypercube, path diversity.

* Cost ratios per node (000 eqs. 4-5, 001 §3.1, 004 §5.1): (switches/nodes) and
  (links/nodes) of a family divided by those of a baseline (k-ary n-tree or MiKANT) at the
  same (k, n); exact fractions.
* S = 2^(1/n) (000 eq. 6): a k_c-ary n-tree with as many nodes as MiKANT(k_m, n) needs
  k_c = 2^(1/n) k_m, so its radix x diameter is 2^(1/n) times larger.
* RCP (000 eq. 7, 001 §3.2, 004 §5.2): radix x diameter divided by that of a hypercube of
  N/p switches with p nodes each, (log2(N/p) + p)(log2(N/p) + 2). 004 prints the formula
  without its division bar; it is restored here (errata).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from .closed_forms import closed_forms

BASELINES = ("kant", "mikant")


def _per_node(family: str, params: Mapping[str, Any], key: str) -> Fraction:
    f = closed_forms(family, params)
    return Fraction(f[key].value) / f["nodes"].value


def _ratio(family: str, k: int, n: int, baseline: str, key: str) -> Fraction:
    if baseline not in BASELINES:
        raise ParameterError(f"baseline={baseline!r} is invalid: one of {', '.join(BASELINES)}")
    return _per_node(family, {"k": k, "n": n}, key) / _per_node(baseline, {"k": k, "n": n}, key)


def switch_cost_ratio(family: str, k: int, n: int, baseline: str = "kant") -> Fraction:
    """Switches per node of ``family(k, n)`` over those of ``baseline(k, n)``.

    Examples
    --------
    >>> switch_cost_ratio("mikant", 4, 5)          # 000 eq. (4): 1 - 1/n
    Fraction(4, 5)
    >>> round(float(1 - switch_cost_ratio("cat", 8, 8)), 5)  # 001 §3.1: saves 87.108%
    0.87108

    References
    ----------
    000 §V.A eq. (4); 001 §3.1; 004 §5.1.
    """
    return _ratio(family, k, n, baseline, "switches")


def link_cost_ratio(family: str, k: int, n: int, baseline: str = "kant") -> Fraction:
    """Links per node of ``family(k, n)`` over those of ``baseline(k, n)``.

    Examples
    --------
    >>> link_cost_ratio("mikant", 4, 5)            # 000 eq. (5): 1 - 1/(2n)
    Fraction(9, 10)
    >>> round(float(1 - link_cost_ratio("mikantc", 8, 8, "mikant")), 4)   # 004 §5.1
    0.7699

    References
    ----------
    000 §V.A eq. (5); 001 §3.1; 004 §5.1.
    """
    return _ratio(family, k, n, baseline, "links")


def mikant_ratios(n: int) -> tuple[Fraction, Fraction]:
    """(R_S, R_L) = (1 - 1/n, 1 - 1/(2n)), 000 eqs. (4)-(5), independent of k.

    Examples
    --------
    >>> mikant_ratios(8)
    (Fraction(7, 8), Fraction(15, 16))

    References
    ----------
    000 §V.A eqs. (4)-(5).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ParameterError(f"n={n!r} is invalid: an integer >= 2")
    return 1 - Fraction(1, n), 1 - Fraction(1, 2 * n)


def improvement(n: int) -> float:
    """Cost-performance improvement S = 2^(1/n) of MiKANT over the k-ary n-tree (000 eq. 6).

    Examples
    --------
    >>> round(improvement(2) - 1, 4), round(improvement(8) - 1, 4)
    (0.4142, 0.0905)

    References
    ----------
    000 §V.A eq. (6).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ParameterError(f"n={n!r} is invalid: an integer >= 1")
    return 2.0 ** (1.0 / n)


def hypercube_cost(nodes: float, p: int = 1) -> float:
    """(log2(N/p) + p)(log2(N/p) + 2): radix x diameter of the hypercube baseline."""
    m = math.log2(nodes / p)
    return (m + p) * (m + 2)


def rcp_value(radix: float, diameter: float, nodes: float, p: int = 1) -> float:
    """Relative cost performance radix x diameter / hypercube's, for any p (000 eq. 7).

    Examples
    --------
    >>> round(rcp_value(16, 12, 524288), 6)        # MiKANT(8,6): 192/420
    0.457143

    References
    ----------
    000 §V.A eq. (7); 001 §3.2; 004 §5.2 (division bar restored).
    """
    check_p(p)
    if nodes < 2 * p:
        raise ParameterError(
            f"nodes={nodes!r} is invalid: at least 2p = {2 * p} for a hypercube of N/p >= 2 switches"
        )
    return radix * diameter / hypercube_cost(nodes, p)


def check_p(p) -> None:
    """Check ``p``, the compute nodes per hypercube router (an integer >= 1).

    Parameters
    ----------
    p : int
        Nodes per hypercube router.

    Raises
    ------
    ParameterError
        If ``p`` is not an integer >= 1.

    Examples
    --------
    >>> check_p(2)
    >>> check_p(0)
    Traceback (most recent call last):
    ...
    fattree.errors.ParameterError: p=0 is invalid: an integer >= 1 (nodes per hypercube router)
    """
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ParameterError(f"p={p!r} is invalid: an integer >= 1 (nodes per hypercube router)")


def rcp(family: str, params: Mapping[str, Any], p: int = 1, printed: bool = False) -> float:
    """RCP of a design from its closed forms (corrected diameter unless ``printed``).

    Examples
    --------
    >>> round(rcp("mikant", {"k": 8, "n": 6}), 6)
    0.457143
    >>> round(rcp("micat", {"k": 4, "n": 7}), 4), round(rcp("cat", {"k": 4, "n": 7}), 4)
    (0.4229, 0.4676)
    >>> round(rcp("mikantc", {"k": 6, "n": 7}), 5)
    0.42148

    References
    ----------
    000 eq. (7); 001 §3.2 (RCP_1, RCP_2); 004 §5.2 (RCP_1, RCP_2 with the bar restored).
    """
    f = closed_forms(family, params)
    if "diameter" not in f:
        raise ParameterError(
            f"{family}:{dict(params)} has no closed-form diameter (see the errata); RCP undefined"
        )
    d = f["diameter"]
    diameter = d.printed if printed and d.printed is not None else d.value
    return rcp_value(f["radix"].value, diameter, f["nodes"].value, p)


def rcp_004_as_printed(k: int, n: int, nodes: int, p: int = 1) -> float:
    """004 §5.2 as typeset: 2k (2n+k) (log2 N/p + p)(log2 N/p + 2), a product, not a ratio.

    Examples
    --------
    >>> round(rcp_004_as_printed(6, 7, 5412096))   # nothing like the quoted 0.421
    136661
    """
    return 2 * k * (2 * n + k) * hypercube_cost(nodes, p)


def path_diversity(family: str, params: Mapping[str, Any]):
    """Path diversity P̃/N from the closed forms (001 §3.3 corrected; errata's convention).

    Examples
    --------
    >>> path_diversity("kant", {"k": 2, "n": 2})
    Fraction(1, 4)

    References
    ----------
    001 §3.3; 004 §5.3; docs/errata.md.
    """
    f = closed_forms(family, params)
    if "path_diversity" not in f:
        raise ParameterError(
            f"{family}: no closed-form path diversity (construction-dependent, see the errata)"
        )
    return f["path_diversity"].value
