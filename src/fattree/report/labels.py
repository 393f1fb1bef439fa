"""Human names for report legends, titles and tables: ``mikant:k=4,n=5`` -> ``MiKANT(4,5)``,
numbers to sensible digits (human legends, not family=mikant)."""

from __future__ import annotations

import math

# family -> (display name, parameters shown in parentheses); kant/torus/hypercube by rule
_NAMES = {
    "clos": ("Clos", ("k", "n")),
    "mikant": ("MiKANT", ("k", "n")),
    "cat": ("CAT", ("k", "n")),
    "micat": ("MiCAT", ("k", "n")),
    "kantc": ("KANTC", ("k", "n")),
    "mikantc": ("MiKANTC", ("k", "n")),
    "minft": ("MIN fat tree", ("clients",)),
    "rsminft": ("RS-MIN fat tree", ("clients",)),
    "xgft": ("XGFT", ("m", "w")),
}
_RULES = {
    "kant": lambda p: f"{p['k']}-ary {p['n']}-tree",
    "torus": lambda p: (
        f"{p['k']}-ary {p['n']}-cube"
        + (f", {p['p']}/router" if str(p.get("p", "1")) != "1" else "")
    ),
    "hypercube": lambda p: (
        f"{p['d']}-cube" + (f", {p['p']}/switch" if str(p.get("p", "1")) != "1" else "")
    ),
    "graph": lambda p: f"graph {p.get('file', '')}".strip(),
}
_FAMILY = {"kant": "k-ary n-tree", "torus": "torus", "hypercube": "hypercube", "graph": "graph"}


def _params(spec: str) -> tuple[str, dict]:
    fam, _, rest = str(spec).partition(":")
    params = {}
    for part in rest.split(",") if rest else []:
        key, _, val = part.partition("=")
        params[key.strip()] = val.strip()
    return fam.strip(), params


def topology_name(spec: str) -> str:
    """The papers' name of a topology spec (unknown families: the spec itself).

    Examples
    --------
    >>> topology_name("mikant:k=4,n=5"), topology_name("kant:k=4,n=3"), topology_name("clos:k=2,n=3")
    ('MiKANT(4,5)', '4-ary 3-tree', 'Clos(2,3)')

    References
    ----------
    000 §II (MiKANT(k,n)); 001 §2 (CAT, MiCAT); 004 §2 (KANTC, MiKANTC).
    """
    fam, p = _params(spec)
    try:
        if fam in _RULES:
            return _RULES[fam](p)
        if fam in _NAMES:
            name, keys = _NAMES[fam]
            if fam == "xgft":
                return f"XGFT(m={p['m']}; w={p['w']})"
            return f"{name}(" + ",".join(p[k] for k in keys) + ")"
    except KeyError:
        pass
    return str(spec)


def family_name(family: str) -> str:
    """Display name of a family: ``mikant`` -> ``MiKANT``, ``kant`` -> ``k-ary n-tree``."""
    if family in _NAMES:
        return _NAMES[family][0]
    return _FAMILY.get(family, str(family))


def fmt_number(v, digits: int = 4) -> str:
    """A number to ``digits`` significant digits, thousands separated, no float noise.

    Examples
    --------
    >>> fmt_number(0.123456), fmt_number(12345.678), fmt_number(3.0), fmt_number(float("nan"))
    ('0.1235', '12,346', '3', '')
    """
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(x):
        return ""
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    if abs(x) >= 10 ** (digits - 1):
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def value_label(column: str, value) -> str:
    """One series value as legend text: topologies and families by name, traffic and
    algorithms as they are, anything else ``column value``."""
    if column == "topology":
        return topology_name(value)
    if column == "family":
        return family_name(value)
    if column in ("traffic", "algorithm", "ft_algorithm"):
        return str(value)
    if column == "model":
        return f"{value} knowledge"
    if isinstance(value, float):
        value = fmt_number(value)
    return f"{column} {value}"


def humanize(text: str) -> str:
    """Replace every topology spec in ``text`` by its name.

    Examples
    --------
    >>> humanize("mikant:k=3,n=3, 500 trials per rate")
    'MiKANT(3,3), 500 trials per rate'
    >>> humanize("then kant:k=4,n=3.")
    'then 4-ary 3-tree.'
    """
    import re

    # a value never ends with the sentence's full stop: "... xgft:m=4.4.4,w=1.2.4."
    value = r"[^\s,]*[^\s,.;)]"
    pattern = re.compile(rf"\b([a-z]+):([a-z_]+={value}(?:,[a-z_]+={value})*)")
    return pattern.sub(lambda m: topology_name(m.group(0)), str(text))
