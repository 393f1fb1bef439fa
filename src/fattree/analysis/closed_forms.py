"""The papers' closed forms of every family, exact where rational, with references and errata.

Each family registers one formula function with :func:`register_forms`. The function takes
``one`` (``Fraction(1)`` for exact values, ``1.0`` for fast floats) and the family's
parameters, and returns the corrected values; an optional ``printed`` function returns the
values as the paper prints them, so both are available where a paper is wrong
(``docs/errata.md``; the graph is the truth).

Conventions (errata): hop counts count links, node links included; the average distance is
the mean over all N² ordered node pairs *including* s = t (``avg_distance_distinct``
excludes them); path diversity is P̃/N with P̃ the mean number of shortest paths over all
N² ordered pairs, pairs on the same switch counting 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import ParameterError

# The formula modules register their families into FORMS on import (registration module).
from . import _forms_direct, _forms_hybrid, _forms_trees, _forms_xgft  # noqa: F401
from .formset import (
    FORMS,
    KEYS,
    NODES_MAX,
    FormSet,  # noqa: F401
    Formula,
    Number,
    ParamSpec,
    avg_distinct,
    register_forms,
)

__all__ = [
    "closed_forms",
    "numeric",
    "printed_numeric",
    "families",
    "FORMS",
    "KEYS",
    "Formula",
    "FormSet",
    "ParamSpec",
    "register_forms",
    "avg_distinct",
]


def _exact(v: Any) -> Number:
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    return v


def closed_forms(family: str, params: Mapping[str, Any]) -> dict[str, Formula]:
    """The closed forms of ``family`` at ``params``, keyed by property.

    Parameters
    ----------
    family : str
        ``kant``, ``clos``, ``mikant``, ``cat``, ``micat``, ``kantc``, ``mikantc``,
        ``hypercube``, ``torus``, ``minft`` or ``rsminft``.
    params : mapping
        The family's parameters (``k``, ``n``; ``d``, ``p``; ``clients``).

    Returns
    -------
    dict of str to Formula
        Keys among ``nodes, switches, links, radix, diameter, avg_distance,
        avg_distance_distinct, bisection_width, path_diversity``, in that order, for
        those the papers (or the errata) give.

    Examples
    --------
    >>> f = closed_forms("mikant", {"k": 8, "n": 6})
    >>> f["nodes"].value, f["switches"].value, f["radix"].value, f["diameter"].value
    (524288, 327680, 16, 12)
    >>> closed_forms("clos", {"k": 4, "n": 3})["bisection_width"].printed   # 000 Table I
    32
    >>> closed_forms("cat", {"k": 2, "n": 2})["avg_distance"].value
    Fraction(83, 18)

    References
    ----------
    000 Table I and Theorems 1-7; 001 Table 1 and §3.3; 004 Table 1; 003 Tables 1-2;
    docs/errata.md for every correction.
    """
    entry = FORMS.get(family)
    values = entry.validate(params)
    one = Fraction(1)
    vals = entry.compute(one, **values)
    if "nodes" in vals and not vals["nodes"] <= NODES_MAX:
        shown = (
            ",".join(f"{k}={v}" for k, v in params.items()) if isinstance(params, Mapping) else ""
        )
        raise ParameterError(
            f"{family}:{shown} is invalid: about 10^{len(str(int(vals['nodes']))) - 1} nodes; "
            f"the closed forms cover designs of at most {NODES_MAX:.0e} nodes"
        )
    if "nodes" in vals and not vals["nodes"] <= NODES_MAX:
        shown = (
            ",".join(f"{k}={v}" for k, v in params.items()) if isinstance(params, Mapping) else ""
        )
        raise ParameterError(
            f"{family}:{shown} is invalid: about 10^{len(str(int(vals['nodes']))) - 1} nodes; "
            f"the closed forms cover designs of at most {NODES_MAX:.0e} nodes"
        )
    printed = entry.printed(one, **values) if entry.printed is not None else {}
    out: dict[str, Formula] = {}
    for key in KEYS + tuple(k for k in vals if k not in KEYS):
        if key not in vals:
            continue
        v = _exact(vals[key])
        pv = printed.get(key)
        pv = None if pv is None else _exact(pv)
        out[key] = Formula(
            name=key,
            value=v,
            reference=entry.references.get(key, ""),
            printed=pv if pv is not None and pv != v else None,
            note=entry.notes.get(key, ""),
        )
    return out


def numeric(family: str, params: Mapping[str, int]) -> dict[str, Any]:
    """Fast float/int values of the closed forms, without validation (for sweeps and plots).

    Examples
    --------
    >>> round(numeric("mikant", {"k": 8, "n": 6})["avg_distance"], 6)
    11.357143
    """
    return FORMS.get(family).compute(1.0, **params)


def printed_numeric(family: str, params: Mapping[str, int]) -> dict[str, Any]:
    """Fast values of the paper's *printed* formulas where they differ (else the correct ones)."""
    entry = FORMS.get(family)
    vals = entry.compute(1.0, **params)
    if entry.printed is not None:
        vals.update(entry.printed(1.0, **params))
    return vals


def families() -> list[str]:
    """Names of the families with closed forms."""
    return FORMS.names()
