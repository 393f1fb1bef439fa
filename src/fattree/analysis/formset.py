"""The closed-form registry: :class:`Formula`, :class:`ParamSpec`, :class:`FormSet`, ``FORMS``
and :func:`register_forms`.

The per-family formula modules (``_forms_*``) import this module and register into ``FORMS``;
:mod:`fattree.analysis.closed_forms` imports them all (the registration module) and holds the
public functions, so no module imports one that imports it back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ..errors import ParameterError
from ..params import Invalid, Parameter
from ..registry import Registry

__all__ = [
    "PARAM_MAX",
    "NODES_MAX",
    "KEYS",
    "Formula",
    "ParamSpec",
    "FormSet",
    "FORMS",
    "register_forms",
    "avg_distinct",
]

Number = Fraction | int | float

#: Keys in display order; a family returns the subset it has a closed form for.
KEYS = (
    "nodes",
    "switches",
    "links",
    "radix",
    "diameter",
    "avg_distance",
    "avg_distance_distinct",
    "bisection_width",
    "path_diversity",
)


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
class ParamSpec(Parameter):
    """An integer parameter of a formula family (minimum, optional default; conversion and
    range check by :class:`fattree.params.Parameter`).

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
            raise ParameterError(
                f"params={raw!r} is invalid: expected a mapping like {{'k': 4, 'n': 3}}"
            )
        known = [p.name for p in self.params]
        for key in raw:
            if key not in known:
                raise ParameterError(
                    f"{self.family}: unknown parameter {key!r}; parameters: {', '.join(known)}"
                )
        out: dict[str, int] = {}
        for p in self.params:
            if p.name not in raw:
                if p.default is None:
                    raise ParameterError(
                        f"{self.family}: missing parameter {p.name!r} (integer >= {p.minimum})"
                    )
                out[p.name] = p.default
                continue
            value = raw[p.name]
            if p.convert is not None:
                out[p.name] = p.convert(value)
                continue
            top = PARAM_MAX if p.maximum is None else p.maximum
            try:
                value = p.parse_checked(value)
            except Invalid as exc:
                if exc.reason == "type":
                    raise ParameterError(
                        f"{self.family}: {p.name}={raw[p.name]!r} is invalid: "
                        f"expected an integer >= {p.minimum}"
                    ) from None
                raise ParameterError(
                    f"{self.family}: {p.name}={exc.value} is invalid: must be an "
                    f"integer from {p.minimum} to {top:,}"
                ) from None
            if not p.minimum <= value <= top:
                raise ParameterError(
                    f"{self.family}: {p.name}={value} is invalid: must be an "
                    f"integer from {p.minimum} to {top:,}"
                )
            out[p.name] = value
        if self.check is not None:
            self.check(out)
        return out


FORMS: Registry[FormSet] = Registry("closed-form family")


def register_forms(
    family: str,
    *,
    title: str,
    params: list[ParamSpec],
    references: dict[str, str],
    notes: dict[str, str] | None = None,
    printed=None,
    check=None,
):
    """Decorator registering ``f(one, **params) -> {key: value}`` as a family's closed forms."""

    def deco(fn):
        FORMS.add(
            family,
            FormSet(
                family=family,
                title=title,
                params=tuple(params),
                compute=fn,
                references=MappingProxyType(dict(references)),
                notes=MappingProxyType(dict(notes or {})),
                printed=printed,
                check=check,
            ),
        )
        return fn

    return deco


def avg_distinct(avg, nodes: int):
    """Mean over the N(N-1) pairs s != t from the mean over all N² pairs (self pairs are 0)."""
    return avg * nodes / (nodes - 1)
