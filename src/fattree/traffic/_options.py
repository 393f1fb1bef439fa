"""Options of patterns and injection processes: ``"hotspot:node=3,fraction=0.2"``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError, closest
from ..params import Invalid, Parameter
from ..registry import split_spec as _split


@dataclass(frozen=True)
class Opt(Parameter):
    """One option of a pattern or process, with its type, default and range (conversion and
    range check by :class:`fattree.params.Parameter`)."""

    name: str
    help: str
    default: Any
    kind: type = int
    minimum: float | None = None
    maximum: float | None = None

    def describe(self) -> str:
        """``"node [0..]: the hot node (default 0)"``: name, range, help and default."""
        return f"{self.name}{self.range_text()}: {self.help} (default {self.default})"

    def convert(self, owner: str, raw: Any) -> Any:
        """The option's value from ``raw`` (a spec string or a value).

        Parameters
        ----------
        owner : str
            The pattern or process, for messages.
        raw : object
            The value given.

        Returns
        -------
        object
            The converted, range-checked value.

        Raises
        ------
        ParameterError
            If it does not convert to the option's kind or is out of range.
        """
        try:
            value = self.parse(raw)
        except Invalid as exc:
            if exc.reason != "type":  # an integer beyond 64 bits
                raise ParameterError(
                    f"{owner}: {self.name}={raw!r} is out of range: beyond a 64-bit integer; "
                    f"{self.describe()}"
                ) from None
            if self.kind is bool:
                raise ParameterError(
                    f"{owner}: {self.name}={raw!r} is invalid: expected true or false"
                ) from None
            raise ParameterError(
                f"{owner}: {self.name}={raw!r} is invalid: expected {self.kind.__name__}; "
                f"{self.describe()}"
            ) from None
        if self.kind in (bool, str):
            return value
        try:
            return self.check_range(value)
        except Invalid:
            raise ParameterError(
                f"{owner}: {self.name}={value!r} is out of range; {self.describe()}"
            ) from None


def split_spec(spec: str, what: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:a=1,b=2"`` into the name and raw option strings.

    Examples
    --------
    >>> split_spec("hotspot:node=3,fraction=0.2", "traffic")
    ('hotspot', {'node': '3', 'fraction': '0.2'})
    """
    return _split(spec, what, "NAME or NAME:key=value,...", "hotspot:node=3")


def validate_options(owner: str, opts: tuple[Opt, ...], raw: dict[str, Any]) -> dict[str, Any]:
    """Convert and range-check options; unknown keys list the valid ones."""
    known = {o.name: o for o in opts}
    for key in raw:
        if key not in known:
            allowed = ", ".join(known) or "none"
            raise ParameterError(
                f"{owner}: unknown option {key!r}{closest(key, known)}; options: {allowed}"
            )
    return {o.name: (o.convert(owner, raw[o.name]) if o.name in raw else o.default) for o in opts}
