"""The design advisor: every feasible (family, k, n) for a node count, ranked by RCP.

For each family and each n the advisor takes the *smallest* k whose network reaches the
requested node count (a larger k at the same n only adds switches, links and radix); for
the hypercube and the MIN fat trees, whose arity is fixed, the smallest dimension. A
radix budget drops the shapes whose radix exceeds it. Values come from the closed forms
(:mod:`fattree.analysis.closed_forms`), evaluated in floating point for speed; no graph is
built. Rows are ranked by RCP (000 eq. 7, the papers' criterion) or by any column, and the
Pareto front of cost per node (switches per node) against average distance is marked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from ..errors import ParameterError
from ..registry import Registry
from .closed_forms import FORMS
from .cost import hypercube_cost

MAX_NODES = 10**12
#: largest switch radix a budget may name (ports per switch; far beyond any product)
MAX_RADIX = 10**6
DEFAULT_FAMILIES = ("kant", "clos", "mikant", "cat", "micat", "kantc", "mikantc", "hypercube")
RANKABLE = (
    "rcp",
    "rcp_own",
    "nodes",
    "switches",
    "links",
    "radix",
    "diameter",
    "avg_distance",
    "cost_per_node",
    "links_per_node",
    "k",
    "n",
)
#: Columns filled by ``design(..., metrics=True)`` (price model, bisection, cut bound).
METRIC_COLUMNS = (
    "cost",
    "watts",
    "usd_per_node",
    "bisection",
    "throughput_bound",
    "usd_per_throughput",
)
#: ``objective`` -> (column, descending)
OBJECTIVES = {
    "cost_per_throughput": ("usd_per_throughput", False),
    "cost": ("cost", False),
    "latency": ("avg_distance", False),
    "throughput": ("throughput_bound", True),
    "rcp": ("rcp", False),
}
#: Tapered XGFTs offered beside the papers' families (t:1 at the leaf).
TAPERED = ("xgft-2:1", "xgft-4:1")


@dataclass(frozen=True)
class Shape:
    """How the advisor enumerates one family.

    ``nodes(k, n, p)`` and ``radix(k, n, p)`` are exact integers; ``params(k, n, p)`` maps to
    the closed-form parameters; ``lead`` is c in nodes ~ c k^n (a first guess for the
    smallest k), ``None`` where k also sits in an exponent (the cube hybrids); ``fixed_k``
    marks families whose arity is fixed, so only the smallest n is a candidate;
    ``radix_grows_with_n`` (the torus, radix 2n + p) ends the scan at the budget.
    """

    family: str
    k_min: int
    n_min: int
    nodes: Callable[[int, int, int], int]
    radix: Callable[[int, int, int], int]
    params: Callable[[int, int, int], dict]
    lead: Callable[[int], float] | None = None
    fixed_k: int | None = None
    radix_grows_with_n: bool = False
    forms: str | None = None  # closed-form family (default: ``family``)
    k_mult: int = 1  # k must be a multiple of this (tapered XGFT: the taper)

    @property
    def forms_family(self) -> str:
        return self.forms or self.family


SHAPES: Registry[Shape] = Registry("design family")


def _shape(family: str, **kw) -> None:
    SHAPES.add(family, Shape(family=family, **kw))


def _kn(k, n, p):
    return {"k": k, "n": n}


_shape(
    "kant",
    k_min=2,
    n_min=2,
    nodes=lambda k, n, p: k**n,
    radix=lambda k, n, p: 2 * k if n >= 2 else k,
    params=_kn,
    lead=lambda p: 1.0,
)
_shape(
    "clos",
    k_min=2,
    n_min=2,
    nodes=lambda k, n, p: 2 * k**n,
    radix=lambda k, n, p: 2 * k,
    params=_kn,
    lead=lambda p: 2.0,
)
_shape(
    "mikant",
    k_min=2,
    n_min=2,
    nodes=lambda k, n, p: 2 * k**n,
    radix=lambda k, n, p: 2 * k,
    params=_kn,
    lead=lambda p: 2.0,
)
_shape(
    "cat",
    k_min=2,
    n_min=2,
    nodes=lambda k, n, p: (2**k - 1) * k**n,
    radix=lambda k, n, p: 2 * k,
    params=_kn,
)
_shape(
    "micat",
    k_min=2,
    n_min=2,
    nodes=lambda k, n, p: 2 * (2**k - 1) * k**n,
    radix=lambda k, n, p: 2 * k,
    params=_kn,
)
_shape(
    "kantc",
    k_min=2,
    n_min=2,
    nodes=lambda k, n, p: (2**k - k) * k ** (n - 1),
    radix=lambda k, n, p: 2 * k,
    params=_kn,
)
_shape(
    "mikantc",
    k_min=2,
    n_min=2,
    nodes=lambda k, n, p: 2 * (2**k - k) * k ** (n - 1),
    radix=lambda k, n, p: 2 * k,
    params=_kn,
)


def _tapered(t: int) -> None:
    """XGFT(n; k,..,k; 1, k/t, k,..,k): k nodes and k/t up links per leaf (t:1), full above."""

    def params(k, n, p):
        return {"m": ".".join([str(k)] * n), "w": ".".join(["1", str(k // t)] + [str(k)] * (n - 2))}

    _shape(
        f"xgft-{t}:1",
        k_min=2 * t,
        n_min=2,
        nodes=lambda k, n, p: k**n,
        radix=lambda k, n, p: 2 * k if n >= 3 else k + k // t,
        params=params,
        lead=lambda p: 1.0,
        forms="xgft",
        k_mult=t,
    )


for _t in (2, 4):
    _tapered(_t)
_shape(
    "hypercube",
    k_min=2,
    n_min=1,
    fixed_k=2,
    nodes=lambda k, n, p: p * 2**n,
    radix=lambda k, n, p: n + p,
    params=lambda k, n, p: {"d": n, "p": p},
)
_shape(
    "torus",
    k_min=3,
    n_min=1,
    nodes=lambda k, n, p: p * k**n,
    radix=lambda k, n, p: 2 * n + p,
    params=lambda k, n, p: {"k": k, "n": n, "p": p},
    lead=lambda p: float(p),
    radix_grows_with_n=True,
)
_shape(
    "minft",
    k_min=2,
    n_min=1,
    fixed_k=2,
    nodes=lambda k, n, p: 2**n,
    radix=lambda k, n, p: 4 if n >= 2 else 2,
    params=lambda k, n, p: {"clients": 2**n},
)
_shape(
    "rsminft",
    k_min=2,
    n_min=3,
    fixed_k=2,
    nodes=lambda k, n, p: 2**n,
    radix=lambda k, n, p: 5,
    params=lambda k, n, p: {"clients": 2**n},
)


class DesignRow(NamedTuple):
    """One candidate design. ``k, n`` are (2, d) for the hypercube and (2, log2 N) for the MIN trees.

    ``rcp`` compares the design with the hypercube of the *requested* node count (equal to
    the papers' RCP when the design has exactly that many nodes); ``rcp_own`` uses the
    design's own node count, as the papers' figures do.
    """

    family: str
    k: int
    n: int
    p: int
    nodes: int
    switches: int
    links: int
    radix: int
    diameter: int
    avg_distance: float | None
    cost_per_node: float
    links_per_node: float
    rcp: float
    rcp_own: float
    params: dict
    pareto: bool = False
    design: str = ""  # the advisor's family name (``xgft-2:1``); ``family`` is the topology's
    cost: float | None = None
    watts: float | None = None
    usd_per_node: float | None = None
    bisection: int | None = None
    bisection_label: str = ""
    throughput_bound: float | None = None
    #: US$ per node / ``throughput_bound``: the price of one flit/cycle of uniform throughput
    usd_per_throughput: float | None = None

    @property
    def spec(self) -> str:
        """The topology spec, e.g. ``mikant:k=8,n=6``."""
        return self.family + ":" + ",".join(f"{a}={b}" for a, b in self.params.items())

    def as_dict(self) -> dict:
        out = self._asdict()
        del out["params"]
        out["spec"] = self.spec
        return out


@dataclass(frozen=True)
class Design:
    """The advisor's answer: ranked rows, the Pareto front and the request."""

    nodes: int
    p: int
    max_radix: int | None
    rank_by: str
    rows: tuple[DesignRow, ...]

    @property
    def best(self) -> DesignRow:
        return self.rows[0]

    @property
    def pareto(self) -> tuple[DesignRow, ...]:
        """Rows not dominated in (cost per node, average distance), cheapest first."""
        return tuple(sorted((r for r in self.rows if r.pareto), key=lambda r: r.cost_per_node))

    def to_dicts(self) -> list[dict]:
        return [r.as_dict() for r in self.rows]

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.to_dicts())


def _min_k(shape: Shape, n: int, p: int, target: int, start: int | None) -> int:
    """Smallest k >= k_min (a multiple of ``k_mult``) with nodes(k, n) >= target."""
    f = shape.nodes
    if shape.lead is not None:
        k = max(shape.k_min, int((target / shape.lead(p)) ** (1.0 / n)))
    else:
        k = start if start is not None else shape.k_min
    step = shape.k_mult
    k = max(shape.k_min, k - k % step)
    while k - step >= shape.k_min and f(k - step, n, p) >= target:
        k -= step
    while f(k, n, p) < target:
        k += step
    return k


def _shapes_for(shape: Shape, target: int, p: int, max_radix: int | None, max_n: int = 63):
    """(k, n) candidates of one family, smallest k per n, within the radix budget."""
    if shape.fixed_k is not None:
        n = max(
            shape.n_min, math.ceil(math.log2(target / shape.nodes(2, 0, p))) if target > 1 else 0
        )
        while shape.nodes(2, n, p) < target:
            n += 1
        while n > shape.n_min and shape.nodes(2, n - 1, p) >= target:
            n -= 1
        if (max_radix is None or shape.radix(2, n, p) <= max_radix) and n <= max_n:
            yield 2, n
        return
    k = None
    for n in range(shape.n_min, max_n + 1):
        k = _min_k(shape, n, p, target, k)
        r = shape.radix(k, n, p)
        if max_radix is None or r <= max_radix:
            yield k, n
        elif shape.radix_grows_with_n:
            break
        if k == shape.k_min:
            break


@lru_cache(maxsize=1 << 16)
def _design_row(family: str, k: int, n: int, p: int) -> DesignRow | None:
    """The target-independent part of a row (cached: neighbouring node counts share shapes)."""
    shape = SHAPES.get(family)
    params = shape.params(k, n, p)
    v = FORMS.get(shape.forms_family).compute(1.0, **params)
    if "diameter" not in v:  # no verified closed form (KANTC/MiKANTC n = 2, k >= 5)
        return None
    N = v["nodes"]
    avg = v.get("avg_distance")
    rd = v["radix"] * v["diameter"]
    return DesignRow(
        design=family,
        family=shape.forms_family,
        k=k,
        n=n,
        p=p,
        nodes=N,
        switches=v["switches"],
        links=v["links"],
        radix=v["radix"],
        diameter=v["diameter"],
        avg_distance=None if avg is None else float(avg),
        cost_per_node=v["switches"] / N,
        links_per_node=v["links"] / N,
        rcp=math.nan,
        rcp_own=rd / hypercube_cost(N, p),
        params=params,
    )


def _row(shape: Shape, k: int, n: int, p: int, base: float) -> DesignRow | None:
    row = _design_row(shape.family, k, n, p)
    return None if row is None else row._replace(rcp=row.radix * row.diameter / base)


def _pareto(rows: list[DesignRow]) -> set[int]:
    best = math.inf
    keep = set()
    for i in sorted(
        (i for i, r in enumerate(rows) if r.avg_distance is not None),
        key=lambda i: (rows[i].cost_per_node, rows[i].avg_distance),
    ):
        if rows[i].avg_distance < best:
            best = rows[i].avg_distance
            keep.add(i)
    return keep


def _validate(
    nodes, max_radix, families, p, rank_by, max_n, radix_name: str = "max_radix"
) -> tuple[str, ...]:
    if isinstance(nodes, bool) or not isinstance(nodes, int):
        raise ParameterError(f"nodes={nodes!r} is invalid: an integer between 2 and {MAX_NODES:,}")
    if not 2 <= nodes <= MAX_NODES:
        raise ParameterError(f"nodes={nodes:,} is invalid: must be between 2 and {MAX_NODES:,}")
    if max_radix is not None and (
        isinstance(max_radix, bool)
        or not isinstance(max_radix, int)
        or not 1 <= max_radix <= MAX_RADIX
    ):
        raise ParameterError(
            f"{radix_name}={max_radix!r} is invalid: an integer from 1 to {MAX_RADIX:,} "
            "(ports per switch)"
        )
    if isinstance(p, bool) or not isinstance(p, int) or p < 1 or 2 * p > nodes:
        raise ParameterError(
            f"p={p!r} is invalid: an integer from 1 to nodes/2 = {nodes // 2} "
            "(nodes per router of the hypercube baseline)"
        )
    if max_n is not None and (
        isinstance(max_n, bool) or not isinstance(max_n, int) or not 1 <= max_n <= 63
    ):
        raise ParameterError(f"max_n={max_n!r} is invalid: an integer from 1 to 63")
    if rank_by not in RANKABLE:
        raise ParameterError(
            f"rank_by={rank_by!r} is invalid: one of {', '.join(RANKABLE + METRIC_COLUMNS)}"
        )
    if families is None:
        return DEFAULT_FAMILIES
    if isinstance(families, str):
        families = [f for f in families.split(",") if f.strip()]
    fams = tuple(f.strip().lower() for f in families)
    if not fams:
        raise ParameterError(
            "families=[] is invalid: name at least one of " + ", ".join(SHAPES.names())
        )
    for f in fams:
        SHAPES.get(f)  # UnknownNameError (a ParameterError) lists the valid names
    return tuple(dict.fromkeys(fams))


def design(
    nodes: int,
    max_radix: int | None = None,
    families: Iterable[str] | str | None = None,
    p: int = 1,
    rank_by: str = "rcp",
    *,
    exact: bool = False,
    max_n: int | None = None,
    levels: int | None = None,
    objective: str | None = None,
    metrics: bool = False,
    prices=None,
    switch_radix: int | None = None,
) -> Design:
    """Enumerate and rank every feasible (family, k, n) with at least ``nodes`` compute nodes.

    Parameters
    ----------
    nodes : int
        Required number of compute nodes, 2 .. 10^12.
    max_radix : int, optional
        Largest switch radix allowed (ports per switch).
    families : iterable of str or comma-separated str, optional
        Families to consider; default: kant, clos, mikant, cat, micat, kantc, mikantc,
        hypercube (also: torus, minft, rsminft).
    p : int
        Nodes per router of the hypercube baseline of RCP, and of the hypercube/torus
        candidates (000 eq. 7).
    rank_by : str
        ``rcp`` (default, the papers' criterion) or another column (ascending).
    exact : bool
        Keep only designs with exactly ``nodes`` nodes (the papers' worked examples).
    max_n : int, optional
        Largest n (tree levels, cube dimension) considered, e.g. 8 for 000 Fig. 7.
    levels : int, optional
        Only designs with exactly this n (tree levels; the hypercube's dimension).
    objective : str, optional
        ``cost_per_throughput`` (US$ per node divided by the uniform throughput bound,
        ascending: what one flit/cycle of delivered bandwidth costs), ``cost`` (US$ of the
        price model, ascending), ``latency`` (average distance), ``throughput`` (the
        uniform bound from cuts and the family's own cap, descending) or ``rcp``;
        overrides ``rank_by``.
    metrics : bool
        Fill ``cost, watts, usd_per_node`` (:mod:`fattree.analysis.pricing`, closed-form
        bill), ``bisection`` with its label and ``throughput_bound``
        (:mod:`fattree.analysis.designmetrics`); implied by a metric objective.
    prices : Prices, optional
        Price model (default :func:`fattree.analysis.pricing.load_prices`).
    switch_radix : int, optional
        Radix of the switch product every design is priced with (default: the
        smallest catalogue radix >= the design's own).

    Returns
    -------
    Design
        ``rows`` ranked, each marked ``pareto`` when on the cost-per-node / average
        distance front; ``best`` is the first row.

    Raises
    ------
    ParameterError
        Bad arguments, unknown families, or a radix budget nothing fits (the message names
        the smallest radix that would).

    Examples
    --------
    >>> d = design(524288, families="mikant", exact=True, max_n=8)   # 000 Fig. 7's range
    >>> d.best.spec, round(d.best.rcp, 3)
    ('mikant:k=8,n=6', 0.457)
    >>> design(524288, families="mikant").best.spec   # lower RCP beyond n = 8
    'mikant:k=4,n=9'
    >>> design(5412096, families=["kantc", "mikantc"], max_n=7).best.spec
    'mikantc:k=6,n=7'

    References
    ----------
    000 §V.A (choosing k and n by RCP, Fig. 7); 001 §3.2; 004 §5.2.
    """
    descending = False
    if objective is not None:
        if objective not in OBJECTIVES:
            raise ParameterError(
                f"objective={objective!r} is invalid: one of {', '.join(OBJECTIVES)}"
            )
        rank_by, descending = OBJECTIVES[objective]
    if rank_by in METRIC_COLUMNS:
        metrics = True
    if levels is not None and (
        isinstance(levels, bool) or not isinstance(levels, int) or not 1 <= levels <= 63
    ):
        raise ParameterError(f"levels={levels!r} is invalid: an integer from 1 to 63")
    radix_name = "max_radix"
    if switch_radix is not None:
        radix_name = "radix"
        if max_radix is None:
            max_radix = switch_radix
        elif max_radix != switch_radix:
            raise ParameterError(
                f"radix={switch_radix!r} and max_radix={max_radix!r} disagree: give one of them"
            )
    fams = _validate(
        nodes,
        max_radix,
        families,
        p,
        rank_by if rank_by not in METRIC_COLUMNS else "rcp",
        max_n,
        radix_name,
    )
    top_n = 63 if max_n is None else max_n
    if levels is not None:
        top_n = min(top_n, levels)
    rows: list[DesignRow] = []
    base = hypercube_cost(nodes, p)
    for fam in fams:
        shape = SHAPES.get(fam)
        for k, n in _shapes_for(shape, nodes, p, max_radix, top_n):
            if levels is not None and n != levels:
                continue
            row = _row(shape, k, n, p, base)
            if row is not None and (not exact or row.nodes == nodes):
                rows.append(row)
    if not rows:
        raise _nothing_fits(nodes, max_radix, fams, p, exact, top_n, levels, radix_name)
    front = _pareto(rows)
    rows = [r._replace(pareto=True) if i in front else r for i, r in enumerate(rows)]
    if metrics:
        rows = _with_metrics(rows, prices, switch_radix)
    sign = -1.0 if descending else 1.0
    rows.sort(
        key=lambda r: (
            getattr(r, rank_by) is None,
            sign * (getattr(r, rank_by) or 0.0),
            r.cost if metrics and r.cost is not None else 0.0,
            r.rcp,
            r.cost_per_node,
            r.links_per_node,
            r.design,
            r.k,
            r.n,
        )
    )
    return Design(nodes=nodes, p=p, max_radix=max_radix, rank_by=rank_by, rows=tuple(rows))


def _with_metrics(rows: list[DesignRow], prices, switch_radix) -> list[DesignRow]:
    """Price (closed-form bill), bisection (exact or labelled bound) and cut bound per row."""
    from .designmetrics import bisection_estimate, uniform_bound
    from .pricing import bill_from_counts, load_prices, price

    prices = prices or load_prices()
    out = []
    for r in rows:
        bill = bill_from_counts(
            r.spec, r.nodes, r.switches, r.links, max(r.radix, switch_radix or 0), prices
        )
        c = price(bill, prices)
        width, label = bisection_estimate(r.spec)
        bound = uniform_bound(r.nodes, width, r.family, r.params)
        out.append(
            r._replace(
                cost=c.total,
                watts=c.watts,
                usd_per_node=c.per_node,
                bisection=width,
                bisection_label=label,
                throughput_bound=bound,
                usd_per_throughput=c.per_node / bound if bound else None,
            )
        )
    return out


def _nothing_fits(
    nodes: int, max_radix, fams, p, exact, max_n, levels=None, radix_name: str = "max_radix"
) -> ParameterError:
    base = hypercube_cost(nodes, p)
    free = [
        r
        for fam in fams
        for k, n in _shapes_for(SHAPES.get(fam), nodes, p, None, max_n)
        if (levels is None or n == levels)
        and (r := _row(SHAPES.get(fam), k, n, p, base)) is not None
        and (not exact or r.nodes == nodes)
    ]
    what = f"exactly {nodes:,}" if exact else f"{nodes:,}"
    if not free:
        return ParameterError(
            f"nodes={nodes:,} is invalid: no design of {', '.join(fams)} has {what} nodes"
            + (
                f" with {levels} levels"
                if levels is not None
                else f" with n <= {max_n}"
                if max_n < 63
                else ""
            )
        )
    if max_radix is None:  # pragma: no cover - rows exist whenever free does without a budget
        return ParameterError(f"nodes={nodes:,}: no design found")
    low = min(free, key=lambda r: (r.radix, r.rcp))
    lv = f" and {levels} levels" if levels is not None else ""
    return ParameterError(
        f"{radix_name}={max_radix} is invalid: nothing fits; no design of {', '.join(fams)} reaches "
        f"{what} nodes with radix <= {max_radix}{lv}; the smallest radix that fits is {low.radix} "
        f"({low.spec})"
    )


def within_budget(
    budget: float,
    max_radix: int | None = None,
    families: Iterable[str] | str | None = None,
    p: int = 1,
    *,
    prices=None,
    switch_radix: int | None = None,
    max_n: int = 12,
) -> list[DesignRow]:
    """The largest design of each family whose price fits ``budget`` (equal-budget designs).

    For each family every (k, n) within the radix budget is priced from the closed forms
    (:func:`fattree.analysis.pricing.bill_from_counts`, as ``design``); the one with the
    most nodes whose total price is at most ``budget`` is kept (ties: the cheaper). Rows
    carry the price model, bisection and uniform throughput bound (``metrics``), ranked by
    the uniform throughput the budget buys, ``nodes x throughput_bound`` (flits/cycle),
    descending.

    Parameters
    ----------
    budget : float
        US$ (the price model's currency), > 0.
    max_radix : int, optional
        Largest switch radix allowed (default: ``switch_radix``).
    families : iterable of str or comma-separated str, optional
        As :func:`design` (default: its families and the tapered XGFTs).
    p : int
        Nodes per router of the hypercube candidates.
    prices : Prices, optional
        Price model (default :func:`fattree.analysis.pricing.load_prices`).
    switch_radix : int, optional
        Every switch priced as this product (as ``design``'s ``switch_radix``).
    max_n : int
        Largest n (levels, dimension) considered.

    Returns
    -------
    list of DesignRow
        One per family that has a design within the budget.

    Raises
    ------
    ParameterError
        A budget that is not a positive finite number, bad families or radix, or a budget
        below every family's smallest design.

    Examples
    --------
    >>> rows = within_budget(400_000, switch_radix=8, families="kant,mikant")
    >>> [(r.spec, r.nodes) for r in rows]
    [('mikant:k=4,n=3', 128), ('kant:k=4,n=3', 64)]

    References
    ----------
    000 §V.A (cost per node); docs/analytics.md (price model, the equal-cost study).
    """
    from .pricing import bill_from_counts, load_prices, price

    if (
        isinstance(budget, bool)
        or not isinstance(budget, (int, float))
        or not math.isfinite(budget)
        or budget <= 0
    ):
        raise ParameterError(f"budget={budget!r} is invalid: a positive amount of US$")
    if max_radix is None:
        max_radix = switch_radix
    fams = _validate(2, max_radix, families or (DEFAULT_FAMILIES + TAPERED), p, "rcp", max_n)
    prices = prices or load_prices()
    base = hypercube_cost(2, p)
    best: dict[str, tuple] = {}
    for fam in fams:
        shape = SHAPES.get(fam)
        for n in range(shape.n_min, max_n + 1):
            ks = [shape.fixed_k] if shape.fixed_k is not None else None
            k = shape.k_min if ks is None else ks[0]
            fitted_any = False
            while True:
                if max_radix is not None and shape.radix(k, n, p) > max_radix:
                    break
                row = _row(shape, k, n, p, base)
                if row is not None:
                    bill = bill_from_counts(
                        row.spec,
                        row.nodes,
                        row.switches,
                        row.links,
                        max(row.radix, switch_radix or 0),
                        prices,
                    )
                    cost = price(bill, prices).total
                    if cost > budget:
                        break
                    fitted_any = True
                    key = (row.nodes, -cost)
                    if fam not in best or key > best[fam][0]:
                        best[fam] = (key, row)
                if ks is not None:
                    break
                k += shape.k_mult
            if not fitted_any and n > shape.n_min and fam in best:
                break  # more levels only cost more
    if not best:
        raise ParameterError(
            f"budget={budget:,.0f} is invalid: no design of {', '.join(fams)} costs that little"
            + (f" with radix <= {max_radix}" if max_radix else "")
        )
    rows = _with_metrics([r for _, r in best.values()], prices, switch_radix)
    rows.sort(key=lambda r: (-(r.nodes * (r.throughput_bound or 0.0)), r.cost, r.spec))
    return rows
