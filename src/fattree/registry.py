"""A small name -> object registry filled by decorators (one per concern)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from .errors import ParameterError, UnknownNameError, closest

T = TypeVar("T")


class Registry(Generic[T]):
    """Names mapped to entries; unknown names raise an error listing the valid ones.

    Parameters
    ----------
    kind : str
        What the entries are ("family", "routing algorithm", ...), used in messages.

    Examples
    --------
    >>> r = Registry("colour")
    >>> @r.register("red")
    ... def red():
    ...     return "#f00"
    >>> r.get("red")()
    '#f00'
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        def deco(obj: T) -> T:
            if name in self._entries:
                raise ValueError(f"{self.kind} {name!r} registered twice")
            self._entries[name] = obj
            return obj

        return deco

    def add(self, name: str, obj: T) -> T:
        return self.register(name)(obj)

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            valid = ", ".join(sorted(self._entries))
            raise UnknownNameError(
                f"unknown {self.kind} {name!r}{closest(name, self._entries)}; valid: {valid}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def items(self):
        return self._entries.items()

    def names(self) -> list[str]:
        return list(self._entries)


def split_spec(spec: str, what: str, expected: str, example: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:a=1,b=2"`` into the lower-cased name and raw option strings.

    ``what`` names the parameter in messages, ``expected`` describes the form and
    ``example`` shows one.

    Examples
    --------
    >>> split_spec("mikant:k=4,n=5", "topology", "FAMILY:key=value,...", "mikant:k=4,n=5")
    ('mikant', {'k': '4', 'n': '5'})
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError(f"{what}={spec!r} is invalid: expected {expected}")
    name, _, rest = spec.strip().partition(":")
    raw: dict[str, str] = {}
    if rest.strip():
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                raise ParameterError(
                    f"{what}={spec!r} is invalid: {part!r} is not key=value (e.g. '{example}')"
                )
            if key.strip() in raw:
                raise ParameterError(
                    f"{what}={spec!r} is invalid: {key.strip()!r} is given "
                    f"twice; each parameter once (e.g. '{example}')"
                )
            raw[key.strip()] = value.strip()
    return name.strip().lower(), raw
