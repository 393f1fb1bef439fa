"""One parameter system: conversion and range checks shared by every kind of parameter.

A parameter of a topology family (:class:`fattree.topology.family.Param`), of a family's
closed forms (:class:`fattree.analysis.formset.ParamSpec`), an option of a traffic pattern
or injection process (:class:`fattree.traffic._options.Opt`) and a parameter of a sweep's
experiment kind (:class:`fattree.sweep.tasks.TaskParam`) are all :class:`Parameter`
subclasses: each declares its fields (``name``, ``kind``, ``default``, ``minimum``,
``maximum``) as a dataclass, and this class converts a raw value and checks its range.
Each subclass words its messages for its users (a family spec, a study file), from the
:class:`Invalid` this class raises.

Two conversions: *lenient* (``strict = False``: values from a spec string, ``"4"`` is the
integer 4, ``"true"`` is True) and *strict* (``strict = True``: values that already carry
their type, from TOML or JSON; an integer is accepted where a float is asked).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["Parameter", "Invalid", "TYPE_NAMES", "INT64_MIN", "INT64_MAX"]

#: how messages name the kinds
TYPE_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


#: every integer parameter is stored in 64 bits (numpy, numba): the range it must lie in
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _int64(value: int) -> int:
    """``value`` if a signed 64-bit integer holds it, else :class:`Invalid` (``high`` or
    ``low``): one check for every integer parameter, so none reaches numpy as an overflow."""
    if value > INT64_MAX:
        raise Invalid("high", value)
    if value < INT64_MIN:
        raise Invalid("low", value)
    return value


class Invalid(Exception):
    """Why a value was refused: ``reason`` is ``"type"`` (it does not convert), ``"low"``
    (below ``minimum``) or ``"high"`` (above ``maximum``); ``value`` is the raw value for
    ``"type"``, else the converted one. Subclasses turn it into a ParameterError."""

    def __init__(self, reason: str, value: Any) -> None:
        super().__init__(reason, value)
        self.reason = reason
        self.value = value


class Parameter:
    """Conversion and range check of one parameter (a base of dataclasses).

    The subclass provides the attributes ``name`` and, where they apply, ``kind`` (the
    type: int, float, bool, str or another callable), ``minimum`` and ``maximum``; the
    class attributes below are the defaults.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class P(Parameter):
    ...     name: str
    ...     kind: type = int
    ...     minimum: int | None = None
    >>> P("k", minimum=2).parse_checked("4")
    4
    >>> try:
    ...     P("k", minimum=2).parse_checked("1")
    ... except Invalid as e:
    ...     print(e.reason, e.value)
    low 1
    """

    kind: Any = int
    minimum: Any = None
    maximum: Any = None
    #: True: the value must already have the type (TOML/JSON values)
    strict: bool = False

    def parse(self, raw: Any) -> Any:
        """Convert ``raw`` to the parameter's kind, without the range check.

        Parameters
        ----------
        raw : object
            The value given (a string from a spec, or a typed value).

        Returns
        -------
        object
            The converted value.

        Raises
        ------
        Invalid
            With reason ``"type"`` if it does not convert.
        """
        kind = self.kind
        if self.strict:
            return self._parse_strict(raw, kind)
        if kind is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise Invalid("type", raw)
        if kind is int:
            if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                raise Invalid("type", raw)
            try:
                value = int(raw)
            except (TypeError, ValueError, OverflowError):
                raise Invalid("type", raw) from None
            return _int64(value)
        if kind is float:
            if isinstance(raw, bool):
                raise Invalid("type", raw)
            try:
                value = float(raw)
            except (TypeError, ValueError):
                raise Invalid("type", raw) from None
            if not math.isfinite(value):  # NaN and infinities are never a valid value
                raise Invalid("type", raw)
            return value
        if kind is str:
            return str(raw)
        return kind(raw)  # a converter of its own (it raises its own ParameterError)

    @staticmethod
    def _parse_strict(raw: Any, kind: Any) -> Any:
        ok = isinstance(raw, kind) and not (kind is int and isinstance(raw, bool))
        if ok and kind is int:
            return _int64(raw)
        if kind is float and isinstance(raw, int) and not isinstance(raw, bool):
            raw, ok = float(raw), True
        if kind is float and ok and not math.isfinite(raw):
            ok = False
        if not ok:
            raise Invalid("type", raw)
        return raw

    def check_range(self, value: Any) -> Any:
        """``value`` if it lies in ``[minimum, maximum]`` (either bound may be None).

        Parameters
        ----------
        value : object
            A converted value.

        Returns
        -------
        object
            ``value``.

        Raises
        ------
        Invalid
            With reason ``"low"`` or ``"high"``.
        """
        if self.minimum is not None and value < self.minimum:
            raise Invalid("low", value)
        if self.maximum is not None and value > self.maximum:
            raise Invalid("high", value)
        return value

    def parse_checked(self, raw: Any) -> Any:
        """:meth:`parse` then :meth:`check_range`.

        Parameters
        ----------
        raw : object
            The value given.

        Returns
        -------
        object
            The converted value, in range.

        Raises
        ------
        Invalid
            If it does not convert or is out of range.
        """
        return self.check_range(self.parse(raw))

    def range_text(self) -> str:
        """``" [lo..hi]"`` for a bounded parameter (an open side left empty), else ``""``.

        Returns
        -------
        str
            The bounds, for help texts and messages.
        """
        lo = "" if self.minimum is None else f"{self.minimum}"
        hi = "" if self.maximum is None else f"{self.maximum}"
        return f" [{lo}..{hi}]" if (lo or hi) else ""
