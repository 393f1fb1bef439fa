"""Options of patterns and injection processes: ``"hotspot:node=3,fraction=0.2"``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError, closest
from ..registry import split_spec as _split


@dataclass(frozen=True)
class Opt:
    """One option of a pattern or process, with its type, default and range."""

    name: str
    help: str
    default: Any
    kind: type = int
    minimum: float | None = None
    maximum: float | None = None

    def describe(self) -> str:
        lo = "" if self.minimum is None else f"{self.minimum}"
        hi = "" if self.maximum is None else f"{self.maximum}"
        rng = f" [{lo}..{hi}]" if (lo or hi) else ""
        return f"{self.name}{rng}: {self.help} (default {self.default})"

    def convert(self, owner: str, raw: Any) -> Any:
        if self.kind is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ParameterError(f"{owner}: {self.name}={raw!r} is invalid: expected true or false")
        if self.kind is str:
            return str(raw)
        try:
            if isinstance(raw, bool):
                raise ValueError
            value = self.kind(raw)
            if self.kind is int and isinstance(raw, float) and not raw.is_integer():
                raise ValueError
            if self.kind is float and value != value or value in (float("inf"), float("-inf")):
                raise ValueError  # NaN and infinities are never a valid option
        except (TypeError, ValueError):
            raise ParameterError(
                f"{owner}: {self.name}={raw!r} is invalid: expected {self.kind.__name__}; "
                f"{self.describe()}") from None
        if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum):
            raise ParameterError(
                f"{owner}: {self.name}={value!r} is out of range; {self.describe()}")
        return value


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
                f"{owner}: unknown option {key!r}{closest(key, known)}; options: {allowed}")
    return {o.name: (o.convert(owner, raw[o.name]) if o.name in raw else o.default) for o in opts}
