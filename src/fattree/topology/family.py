"""Family descriptions, their registry and spec parsing (``"mikant:k=4,n=5"``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._np import np

from ..errors import ParameterError, ResourceError, closest
from ..params import Invalid, Parameter
from ..registry import Registry, split_spec
from .core import Topology

FAMILIES: Registry[Family] = Registry("family")


@dataclass(frozen=True)
class Param(Parameter):
    """One parameter of a family: integer by default, with an allowed range (conversion and
    range check by :class:`fattree.params.Parameter`)."""

    name: str
    help: str
    default: Any = None  # None: required
    minimum: int | None = None
    maximum: int | None = None
    kind: type = int

    def describe(self) -> str:
        """``"k [2..64]: arity (default 4)"``: name, range, help and default."""
        rng = self.range_text() if self.kind is int else ""
        d = "" if self.default is None else f" (default {self.default})"
        return f"{self.name}{rng}: {self.help}{d}"

    def convert(self, family: str, raw: Any) -> Any:
        """The value of this parameter of ``family`` from ``raw`` (a spec string or a value).

        Parameters
        ----------
        family : str
            The family's name, for messages.
        raw : object
            The value given.

        Returns
        -------
        object
            The converted, range-checked value.

        Raises
        ------
        ParameterError
            If it is not an integer (for integer parameters) or is out of range.
        """
        if self.kind is not int:
            return self.parse(raw)
        try:
            return self.parse_checked(raw)
        except Invalid as exc:
            if exc.reason == "type":
                raise ParameterError(f"{family}: {self.name}={raw!r} is not an integer") from None
            size = "small" if exc.reason == "low" else "large"
            raise ParameterError(
                f"{family}: {self.name}={exc.value} is too {size}; {self.describe()}"
            ) from None


@dataclass(frozen=True)
class Facets:
    """What a family declares beyond its builder, each facet explicitly (``None`` / ``()`` /
    ``"none"`` where it has none), so that a new family cannot silently lack one; the
    declarations are checked against the registries that implement them by
    ``tests/arch/test_conformance.py``.

    Attributes
    ----------
    routing : str
        Its default routing algorithm (:func:`fattree.routing.default_algorithm`).
    forms : str or None
        Its entry of the closed forms (:data:`fattree.analysis.closed_forms.FORMS`).
    fault_tolerance : str
        ``"rules"``: its own entry of :data:`fattree.faults.rules.FAMILY_RULES`;
        ``"generic"``: the generic fault-tolerant kernel over its default routing;
        ``"none"``.
    fault_walk : str or None
        Its own paper walk under faults: the name of an entry of
        :data:`fattree.faults.walks.FAULT_WALKS`, which plugs the walk into the
        fault-tolerant routing entry (the Monte Carlo loop, the explanation, the CDG and
        the simulator's per-hop call read it there); None: the generic rules only.
    advisor : tuple of str
        Its design-advisor shapes (:data:`fattree.analysis.advisor.SHAPES`).
    drawing : str
        ``"layered"`` (:func:`fattree.report.draw.layout`, rows by ``switch_layer``) or
        ``"none"``.
    example : str or None
        A small spec the conformance tests build (None: it needs an input file).
    """

    routing: str
    forms: str | None
    fault_tolerance: str
    fault_walk: str | None
    advisor: tuple[str, ...]
    drawing: str
    example: str | None


@dataclass(frozen=True)
class Family:
    """A registered topology family.

    ``size(params)`` returns ``(nodes, switches, max_ports)`` without building, so the
    memory estimate can refuse a request before allocating; ``check(params)`` validates
    constraints between parameters; ``node_classes(topo)`` returns representative nodes
    and class weights for symmetric BFS (``None``: every node is its own class).
    """

    name: str
    title: str
    paper: str
    params: tuple[Param, ...]
    builder: Callable[..., Topology]
    size: Callable[[dict], tuple[int, int, int]] | None = None
    check: Callable[[dict], None] | None = None
    node_classes: Callable[[Topology], tuple[np.ndarray, np.ndarray]] | None = None
    doc: str = ""
    facets: Facets | None = None
    uniform_cap: Callable[[dict], float] | None = None

    def validate(self, raw: dict[str, Any]) -> dict[str, Any]:
        known = {p.name: p for p in self.params}
        for key in raw:
            if key not in known:
                allowed = ", ".join(known) or "none"
                raise ParameterError(
                    f"{self.name}: unknown parameter {key!r}{closest(key, known)}; parameters: {allowed}"
                )
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name in raw:
                out[p.name] = p.convert(self.name, raw[p.name])
            elif p.default is not None:
                out[p.name] = p.default
            else:
                raise ParameterError(f"{self.name}: missing parameter {p.name!r}; {p.describe()}")
        if self.check is not None:
            self.check(out)
        return out


def register_family(
    name: str,
    *,
    title: str,
    paper: str,
    params: list[Param],
    facets: Facets,
    size=None,
    check=None,
    node_classes=None,
    uniform_cap=None,
):
    """Decorator registering a builder ``f(**params) -> Topology`` as a family.

    Parameters
    ----------
    name : str
        The family's name in specs.
    title : str
        One line for listings.
    paper : str
        Paper and section that define it.
    params : list of Param
        Its parameters, in spec order.
    size : callable, optional
        ``size(params) -> (nodes, switches, ports)`` without building.
    check : callable, optional
        ``check(params)`` raises ParameterError for invalid combinations.
    facets : Facets
        Its default routing, closed forms, fault tolerance, advisor shapes and drawing.
    node_classes : callable, optional
        ``node_classes(topo) -> (representatives, weights)`` of automorphism classes.
    uniform_cap : callable, optional
        ``uniform_cap(params) -> float``: a cap on accepted uniform throughput
        (flits/node/cycle) that holds for *any* routing and that a balanced bisection does
        not see, e.g. links every route of a class of pairs must cross (MiKANT's cross
        links); :func:`fattree.analysis.designmetrics.uniform_bound` takes it into account.

    Returns
    -------
    callable
        The decorator; it returns the builder unchanged.
    """

    def deco(builder):
        FAMILIES.add(
            name,
            Family(
                name=name,
                title=title,
                paper=paper,
                params=tuple(params),
                builder=builder,
                size=size,
                check=check,
                node_classes=node_classes,
                doc=(builder.__doc__ or "").strip(),
                facets=facets,
                uniform_cap=uniform_cap,
            ),
        )
        return builder

    return deco


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"family:a=1,b=2"`` into the family name and raw parameter strings.

    Parameters
    ----------
    spec : str
        A topology spec.

    Returns
    -------
    tuple of (str, dict of str to str)
        The family name and the raw (unconverted) parameters.

    Raises
    ------
    ParameterError
        If the spec is not ``NAME`` or ``NAME:key=value,...``.

    Examples
    --------
    >>> parse_spec("mikant:k=4,n=5")
    ('mikant', {'k': '4', 'n': '5'})
    """
    return split_spec(
        spec, "topology", "FAMILY:key=value,... e.g. 'mikant:k=4,n=5'", "mikant:k=4,n=5"
    )


def available_memory() -> int:
    """Bytes of physical memory available now (MemAvailable), or total if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


# Bytes per port entry and per node over a build and its derived tables (links, CSR,
# labels): measured on MiKANT(8,6) with benchmarks/topology_build.py, rounded up.
BYTES_PER_PORT = 48
BYTES_PER_NODE = 96


def estimate_bytes(nodes: int, switches: int, ports: int) -> int:
    """The memory a topology of this size takes once built (an estimate, in bytes).

    Parameters
    ----------
    nodes, switches, ports : int
        The family's size (:attr:`Family.size`): compute nodes, switches, ports per switch.

    Returns
    -------
    int
        Bytes of the topology's arrays and derived tables.
    """
    return BYTES_PER_PORT * switches * ports + BYTES_PER_NODE * nodes


def resolve(
    spec_or_name: str, params: dict[str, Any] | None = None
) -> tuple[Family, dict[str, Any]]:
    """Find the family and validate its parameters (nothing is built).

    Parameters
    ----------
    spec_or_name : str
        A spec (``params`` None) or a family name.
    params : dict, optional
        The family's parameters, when a name is given.

    Returns
    -------
    tuple of (Family, dict)
        The family and its converted, checked parameters.

    Raises
    ------
    UnknownNameError
        If the family is not registered.
    ParameterError
        If a parameter is unknown, missing or out of range.
    """
    if params is None:
        name, raw = parse_spec(spec_or_name)
    else:
        name, raw = spec_or_name, dict(params)
    fam = FAMILIES.get(name)
    return fam, fam.validate(raw)


def build(spec: str, /, **params: Any) -> Topology:
    """Build a topology from a spec string (``"mikant:k=4,n=5"``) or a name and keywords.

    Parameters are validated and the memory need is estimated before anything is
    allocated.

    Parameters
    ----------
    spec : str
        ``"family:key=value,..."``, or the family name when ``params`` are given.
    **params
        The family's parameters (override nothing: either a spec or a name and keywords).

    Returns
    -------
    Topology
        The network.

    Raises
    ------
    UnknownNameError
        If the family is not registered.
    ParameterError
        If a parameter is unknown, missing or out of range.
    ResourceError
        If the estimated memory exceeds what the machine has.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("mikant:k=3,n=4")
    >>> t.n_nodes, t.n_switches
    (162, 162)
    >>> fattree.build("kant", k=2, n=3).n_nodes
    8

    References
    ----------
    000 §II (MiKANT), 001 §2 (CAT/MiCAT), 004 §2 (KANTC/MiKANTC), 002, 003.
    """
    if not isinstance(spec, str):
        raise ParameterError(
            f"spec={spec!r} is invalid: expected a topology spec string such as "
            "'mikant:k=4,n=5' (or a family name and keywords)"
        )
    fam, values = (
        resolve(spec, params if params else None) if params or ":" not in spec else resolve(spec)
    )
    if fam.size is not None:
        nodes, switches, ports = fam.size(values)
        need = estimate_bytes(nodes, switches, ports)
        have = available_memory()
        if need > 0.8 * have:
            raise ResourceError(
                f"{fam.name}:{','.join(f'{k}={v}' for k, v in values.items())} needs about "
                f"{need / 2**30:.1f} GiB ({nodes:,} nodes, {switches:,} switches); "
                f"only {have / 2**30:.1f} GiB is available"
            )
    return fam.builder(**values)


__all__ = [
    "FAMILIES",
    "Param",
    "Facets",
    "Family",
    "register_family",
    "parse_spec",
    "available_memory",
    "BYTES_PER_PORT",
    "BYTES_PER_NODE",
    "estimate_bytes",
    "resolve",
    "build",
]


#: Families BookSim2 builds itself: ``f(topo) -> (k, n)`` of its ``topology = fattree``
#: (registered by the family's module with :func:`booksim_native`).
BOOKSIM_NATIVE: Registry[Callable] = Registry("BookSim2 built-in network")


def booksim_native(*families: str):
    """Register ``f(topo) -> (k, n)``: the family is BookSim2's built-in ``fattree`` with
    these ``k`` and ``n`` (a decorator), so its ``.cfg`` names it instead of the anynet file.

    Parameters
    ----------
    *families : str
        Family names.

    Returns
    -------
    callable
        The decorator; it returns ``f`` unchanged.
    """

    def deco(fn):
        for f in families:
            BOOKSIM_NATIVE.add(f, fn)
        return fn

    return deco
