"""The papers' closed forms of every family, exact where rational, with references and errata.

Each family registers one formula function with :func:`register_forms`. The function takes
``one`` (``Fraction(1)`` for exact values, ``1.0`` for fast floats) and the family's
parameters, and returns the corrected values; an optional ``printed`` function returns the
values as the paper prints them, so both are available where a paper is wrong
(``../shared/notes/errata.md``; the graph is the truth).

Conventions (errata): hop counts count links, node links included; the average distance is
the mean over all N² ordered node pairs *including* s = t (``avg_distance_distinct``
excludes them); path diversity is P̃/N with P̃ the mean number of shortest paths over all
N² ordered pairs, pairs on the same switch counting 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Union

from ..errors import ParameterError
from ..registry import Registry

Number = Union[Fraction, int, float]

#: Keys in display order; a family returns the subset it has a closed form for.
KEYS = ("nodes", "switches", "links", "radix", "diameter", "avg_distance",
        "avg_distance_distinct", "bisection_width", "path_diversity")


@dataclass(frozen=True)
class Formula:
    """One closed-form value.

    Attributes
    ----------
    name : str
        The property (``"nodes"``, ``"avg_distance"``, ...).
    value : Fraction, int or float
        The correct value (verified against the graph, see the errata).
    reference : str
        Paper and place the formula comes from.
    printed : Fraction, int, float or None
        The value the paper's printed formula gives, only where it differs from ``value``.
    note : str
        Convention or erratum in words.
    """

    name: str
    value: Number
    reference: str
    printed: Number | None = None
    note: str = ""

    @property
    def paper_is_wrong(self) -> bool:
        """True where the printed formula gives a different value (an erratum)."""
        return self.printed is not None and self.printed != self.value

    def __float__(self) -> float:
        return float(self.value)


#: the largest value of any closed-form parameter: no design of at most 10^12 nodes (the
#: advisor's range) has a larger one, and beyond it exact integers grow without bound
PARAM_MAX = 10**12
#: the largest design (nodes) the closed forms evaluate (beyond it, floats overflow)
NODES_MAX = 10**18


@dataclass(frozen=True)
class ParamSpec:
    """An integer parameter of a formula family (minimum, optional default).

    ``convert``, when given, replaces the integer conversion (e.g. XGFT's level lists).
    """

    name: str
    minimum: int
    default: int | None = None
    convert: Callable[[Any], Any] | None = None
    #: largest value (default :data:`PARAM_MAX`); exponents (levels n, cube dimensions)
    #: stop at 63, as ``design --max-n`` does, so no formula grows without bound
    maximum: int | None = None


@dataclass(frozen=True)
class FormSet:
    """The registered closed forms of one family."""

    family: str
    title: str
    params: tuple[ParamSpec, ...]
    compute: Callable[..., dict[str, Any]]
    references: Mapping[str, str]
    notes: Mapping[str, str] = field(default_factory=dict)
    printed: Callable[..., dict[str, Any]] | None = None
    check: Callable[[dict[str, int]], None] | None = None

    def validate(self, raw: Mapping[str, Any]) -> dict[str, int]:
        """Convert and range-check the parameters (strings from a spec are accepted)."""
        if not isinstance(raw, Mapping):
            raise ParameterError(f"params={raw!r} is invalid: expected a mapping like {{'k': 4, 'n': 3}}")
        known = [p.name for p in self.params]
        for key in raw:
            if key not in known:
                raise ParameterError(
                    f"{self.family}: unknown parameter {key!r}; parameters: {', '.join(known)}")
        out: dict[str, int] = {}
        for p in self.params:
            if p.name not in raw:
                if p.default is None:
                    raise ParameterError(f"{self.family}: missing parameter {p.name!r} (integer >= {p.minimum})")
                out[p.name] = p.default
                continue
            value = raw[p.name]
            if p.convert is not None:
                out[p.name] = p.convert(value)
                continue
            try:
                if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                    raise ValueError
                value = int(value)
            except (TypeError, ValueError):
                raise ParameterError(
                    f"{self.family}: {p.name}={raw[p.name]!r} is invalid: expected an integer >= {p.minimum}") from None
            top = PARAM_MAX if p.maximum is None else p.maximum
            if not p.minimum <= value <= top:
                raise ParameterError(
                    f"{self.family}: {p.name}={value} is invalid: must be an integer from {p.minimum} "
                    f"to {top:,}")
            out[p.name] = value
        if self.check is not None:
            self.check(out)
        return out


FORMS: Registry[FormSet] = Registry("closed-form family")


def register_forms(family: str, *, title: str, params: list[ParamSpec], references: dict[str, str],
                   notes: dict[str, str] | None = None, printed=None, check=None):
    """Decorator registering ``f(one, **params) -> {key: value}`` as a family's closed forms."""

    def deco(fn):
        FORMS.add(family, FormSet(family=family, title=title, params=tuple(params), compute=fn,
                                  references=MappingProxyType(dict(references)),
                                  notes=MappingProxyType(dict(notes or {})), printed=printed,
                                  check=check))
        return fn

    return deco


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
    ../shared/notes/errata.md for every correction.
    """
    entry = FORMS.get(family)
    values = entry.validate(params)
    one = Fraction(1)
    vals = entry.compute(one, **values)
    if "nodes" in vals and not vals["nodes"] <= NODES_MAX:
        shown = ",".join(f"{k}={v}" for k, v in params.items()) if isinstance(params, Mapping) else ""
        raise ParameterError(f"{family}:{shown} is invalid: about 10^{len(str(int(vals['nodes']))) - 1} nodes; "
                             f"the closed forms cover designs of at most {NODES_MAX:.0e} nodes")
    printed = entry.printed(one, **values) if entry.printed is not None else {}
    out: dict[str, Formula] = {}
    for key in KEYS + tuple(k for k in vals if k not in KEYS):
        if key not in vals:
            continue
        v = _exact(vals[key])
        pv = printed.get(key)
        pv = None if pv is None else _exact(pv)
        out[key] = Formula(name=key, value=v, reference=entry.references.get(key, ""),
                           printed=pv if pv is not None and pv != v else None,
                           note=entry.notes.get(key, ""))
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


def avg_distinct(avg, nodes: int):
    """Mean over the N(N-1) pairs s != t from the mean over all N² pairs (self pairs are 0)."""
    return avg * nodes / (nodes - 1)


# Families register on import (kept in small modules).
from . import _forms_direct, _forms_hybrid, _forms_trees, _forms_xgft  # noqa: E402,F401
