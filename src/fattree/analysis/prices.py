"""The price file of the cost model: ``Prices`` and :func:`load_prices`.

Defaults ship in ``fattree/data/prices.toml`` (every figure a stated, round assumption); a
user file overrides any subset of keys. A malformed file raises
:class:`~fattree.errors.InputFileError` naming the file, the line and the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InputFileError
from ..fileio import read_input

# (table, key) -> (kind, minimum); ``list`` is a list of positive integers
_SCHEMA: dict[tuple[str, str], tuple[str, float]] = {
    ("layout", "nodes_per_rack"): ("int", 1),
    ("layout", "racks_per_row"): ("int", 1),
    ("switch", "catalogue"): ("list", 1),
    ("switch", "base"): ("num", 0),
    ("switch", "per_port"): ("num", 0),
    ("cable", "copper"): ("num", 0),
    ("cable", "optical"): ("num", 0),
    ("transceiver", "price"): ("num", 0),
    ("power", "switch_base"): ("num", 0),
    ("power", "switch_port"): ("num", 0),
    ("power", "transceiver"): ("num", 0),
}


@dataclass(frozen=True)
class Prices:
    """Prices (US$), power (W) and the physical layout of the cost model.

    The defaults are assumptions documented in ``fattree/data/prices.toml``.
    """

    nodes_per_rack: int
    racks_per_row: int
    catalogue: tuple[int, ...]
    switch_base: float
    switch_per_port: float
    copper: float
    optical: float
    transceiver: float
    power_switch_base: float
    power_switch_port: float
    power_transceiver: float
    source: str = "default (fattree/data/prices.toml)"

    def switch_radix(self, radix: int) -> int:
        """Catalogue radix bought for a design of ``radix`` (its own beyond the catalogue)."""
        return next((c for c in sorted(self.catalogue) if c >= radix), int(radix))

    def switch_price(self, radix: int) -> float:
        return self.switch_base + self.switch_per_port * self.switch_radix(radix)


_FIELDS = {
    ("layout", "nodes_per_rack"): "nodes_per_rack",
    ("layout", "racks_per_row"): "racks_per_row",
    ("switch", "catalogue"): "catalogue",
    ("switch", "base"): "switch_base",
    ("switch", "per_port"): "switch_per_port",
    ("cable", "copper"): "copper",
    ("cable", "optical"): "optical",
    ("transceiver", "price"): "transceiver",
    ("power", "switch_base"): "power_switch_base",
    ("power", "switch_port"): "power_switch_port",
    ("power", "transceiver"): "power_transceiver",
}


def _default_text() -> str:
    return resources.files("fattree").joinpath("data/prices.toml").read_text(encoding="utf-8")


#: the largest count or price a price file may give (beyond, totals lose meaning or overflow)
_TOP = 10**12


def _parse(text: str, where: str) -> dict[str, Any]:
    from ..tomlpos import KeyLines, load_toml

    doc = load_toml(text, where)  # syntax errors and excessive nesting: one line
    lines = KeyLines(text)
    out: dict[str, Any] = {}
    for table, body in doc.items():
        if not isinstance(body, dict):
            ln = lines.line((), table)
            raise InputFileError(
                f"{where}{f' line {ln}' if ln else ''}: key {table!r} must be a table; tables: "
                f"{', '.join(sorted({t for t, _ in _SCHEMA}))}"
            )
        for key, value in body.items():
            ln = lines.line((table,), key)
            at = f"{where}{f' line {ln}' if ln else ''}"
            if (table, key) not in _SCHEMA:
                valid = ", ".join(f"{t}.{k}" for t, k in _SCHEMA)
                raise InputFileError(f"{at}: unknown key {table}.{key}; valid keys: {valid}")
            kind, low = _SCHEMA[(table, key)]
            bad = f"{at}: {table}.{key} = {value!r} is invalid: "
            if kind == "list":
                if (
                    not isinstance(value, list)
                    or not value
                    or any(
                        isinstance(v, bool) or not isinstance(v, int) or not low <= v <= 10**6
                        for v in value
                    )
                ):
                    raise InputFileError(
                        bad + "expected a list of positive integers up to 1,000,000 "
                        "(switch radices)"
                    )
                value = tuple(sorted(set(value)))
            elif kind == "int":
                if (
                    isinstance(value, bool)
                    or not isinstance(value, int)
                    or not low <= value <= _TOP
                ):
                    raise InputFileError(bad + f"expected an integer from {int(low)} to {_TOP:,}")
            else:
                if (
                    isinstance(value, bool)
                    or not isinstance(value, (int, float))
                    or not low <= value <= _TOP
                ):
                    raise InputFileError(bad + f"expected a number from {low:g} to {_TOP:.0e}")
            out[_FIELDS[(table, key)]] = value
    return out


def load_prices(path: str | Path | None = None) -> Prices:
    """Prices from a TOML file over the shipped defaults (``None``: the defaults).

    A malformed file raises :class:`~fattree.errors.InputFileError` naming the key and
    its line.

    Examples
    --------
    >>> p = load_prices()
    >>> p.nodes_per_rack, p.switch_radix(6), p.switch_price(32)
    (32, 8, 10000)

    References
    ----------
    fattree/data/prices.toml (every default is a stated assumption).
    """
    values = _parse(_default_text(), "default prices")
    source = "default (fattree/data/prices.toml)"
    if path is not None:
        p = Path(path)
        text = read_input(p, "prices=", limit=1 << 20)  # a regular file (fattree.fileio)
        values.update(_parse(text, str(p)))
        source = f"{p} (over the defaults)"
    return Prices(**values, source=source)
