"""A cost and power model of a design: switches, cables, transceivers, watts.

The model (docs/analytics.md, "Cost and power model") has three parts:

1. **Prices** (:func:`~fattree.analysis.prices.load_prices`): an editable TOML file; the defaults ship in
   ``fattree/data/prices.toml``, where every figure states that it is a round
   assumption and where it comes from. A user file overrides any subset of keys.
2. **Bill of materials** (:class:`Bill`): how many switches (every switch of a design is
   the same product: the smallest catalogue radix >= the design's radix), used switch
   ports, in-rack copper cables and optical cables (each with two transceivers).
   Layout: racks hold whole leaf switches with their nodes (``nodes_per_rack`` nodes at
   most, :func:`rack_layout`); every switch sits beside the nodes it serves (those
   reachable by going only down). A link is in-rack copper when everything its two ends
   serve lies in one rack, otherwise optical. :func:`bill_from_graph` applies this to a
   built topology; :func:`bill_from_forms` uses the closed forms (no graph): node links
   in-rack, every switch-to-switch link optical, which is what the graph gives whenever
   no non-leaf switch serves a single rack only (tested on the equal-cost designs).
3. **Pricing** (:func:`price`): money and power totals, per node, per bisection link
   and per unit of the routing's throughput bound.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from ..errors import ParameterError
from .prices import Prices, load_prices

__all__ = [
    "Bill",
    "Costing",
    "Prices",
    "bill_from_counts",
    "bill_from_forms",
    "bill_from_graph",
    "cost",
    "load_prices",
    "price",
    "rack_layout",
    "serve_spans",
]


@dataclass(frozen=True)
class Bill:
    """The bill of materials of a design under a layout."""

    spec: str
    nodes: int
    switches: int
    radix: int
    switch_ports: int
    links: int
    copper: int
    optical: int
    racks: int
    rows: int
    method: str
    optical_between_rows: int | None = None

    @property
    def transceivers(self) -> int:
        return 2 * self.optical


def _racks(nodes: int, prices: Prices) -> tuple[int, int]:  # racks of nodes (whole racks)
    racks = -(-nodes // prices.nodes_per_rack)
    return racks, -(-racks // prices.racks_per_row)


def bill_from_forms(family: str, params, prices: Prices) -> Bill:
    """Bill of materials from the closed forms: node links in-rack, switch links optical.

    Examples
    --------
    >>> b = bill_from_forms("kant", {"k": 16, "n": 3}, load_prices())
    >>> b.switches, b.copper, b.optical, b.transceivers
    (768, 4096, 8192, 16384)

    References
    ----------
    Counts: the closed forms of :mod:`fattree.analysis.closed_forms`.
    """
    from .closed_forms import closed_forms

    f = closed_forms(family, params)
    N, L, S = (int(f[k].value) for k in ("nodes", "links", "switches"))
    spec = family + ":" + ",".join(f"{k}={v}" for k, v in params.items())
    return bill_from_counts(spec, N, S, L, int(f["radix"].value), prices)


def bill_from_counts(
    spec: str, nodes: int, switches: int, links: int, radix: int, prices: Prices
) -> Bill:
    """Bill from counts (node links in-rack copper, every switch-to-switch link optical)."""
    N, L = int(nodes), int(links)
    racks, rows = _racks(N, prices)
    return Bill(
        spec=spec,
        nodes=N,
        switches=int(switches),
        radix=int(radix),
        switch_ports=2 * L - N,
        links=L,
        copper=N,
        optical=L - N,
        racks=racks,
        rows=rows,
        method="closed forms (node links in-rack, switch links optical)",
    )


def serve_spans(topo, rack_of_node: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) rack of the nodes each vertex serves (reached going only down).

    Switches without down ports (cube-only switches) take the span of their neighbours.
    """
    N, S = topo.n_nodes, topo.n_switches
    lo = np.full(N + S, np.iinfo(np.int64).max, np.int64)
    hi = np.full(N + S, -1, np.int64)
    lo[:N] = rack_of_node
    hi[:N] = rack_of_node
    from ..topology.core import PORT_DOWN, PORT_NODE

    kind = topo.port_kind
    sw, port = np.nonzero((kind == PORT_DOWN) | (kind == PORT_NODE))
    peer = topo.port_peer[sw, port].astype(np.int64)
    me = sw.astype(np.int64) + N
    for _ in range(64):
        old_lo, old_hi = lo.copy(), hi.copy()
        np.minimum.at(lo, me, lo[peer])
        np.maximum.at(hi, me, hi[peer])
        if np.array_equal(old_lo, lo) and np.array_equal(old_hi, hi):
            break
    orphan = np.nonzero(hi[N:] < 0)[0] + N
    if orphan.size:
        ends = topo.links.astype(np.int64)
        for a, b in ((0, 1), (1, 0)):
            sel = np.isin(ends[:, a], orphan) & (hi[ends[:, b]] >= 0)
            np.minimum.at(lo, ends[sel, a], lo[ends[sel, b]])
            np.maximum.at(hi, ends[sel, a], hi[ends[sel, b]])
    lo[hi < 0] = 0
    hi[hi < 0] = 0
    return lo, hi


def rack_layout(topo, prices: Prices) -> np.ndarray:
    """Rack of every node: racks hold whole leaf switches with their nodes.

    With at most ``nodes_per_rack`` nodes per switch, ``nodes_per_rack // that`` leaf
    switches (in switch order) share a rack; larger leaves are split over racks in port
    order.
    """
    N = topo.n_nodes
    sw = topo.node_switch.astype(np.int64)
    per_leaf = int(np.bincount(sw).max())
    if per_leaf <= prices.nodes_per_rack:
        leaves, rank = np.unique(sw, return_inverse=True)
        return rank.astype(np.int64) // (prices.nodes_per_rack // per_leaf)
    order = np.lexsort((topo.node_port, sw))
    rack = np.empty(N, np.int64)
    rack[order] = np.arange(N) // prices.nodes_per_rack
    return rack


def bill_from_graph(topo, prices: Prices) -> Bill:
    """Bill of materials counted on the built topology under the layout of ``prices``.

    Examples
    --------
    >>> import fattree
    >>> b = bill_from_graph(fattree.build("kant:k=16,n=3"), load_prices())
    >>> b.switches, b.copper, b.optical, b.racks
    (768, 4096, 8192, 128)

    References
    ----------
    The layout is this project's stated assumption (docs/analytics.md).
    """
    N = topo.n_nodes
    rack_of_node = rack_layout(topo, prices)
    lo, hi = serve_spans(topo, rack_of_node)
    ends = topo.links.astype(np.int64)
    a_lo = np.minimum(lo[ends[:, 0]], lo[ends[:, 1]])
    a_hi = np.maximum(hi[ends[:, 0]], hi[ends[:, 1]])
    in_rack = a_lo == a_hi
    rows_apart = (a_lo // prices.racks_per_row) != (a_hi // prices.racks_per_row)
    racks = int(rack_of_node.max()) + 1
    rows = -(-racks // prices.racks_per_row)
    L = int(len(ends))
    copper = int(in_rack.sum())
    return Bill(
        spec=topo.spec,
        nodes=N,
        switches=topo.n_switches,
        radix=int(topo.radix.max()),
        switch_ports=2 * L - N,
        links=L,
        copper=copper,
        optical=L - copper,
        racks=racks,
        rows=rows,
        method="graph (layout applied to every link)",
        optical_between_rows=int((~in_rack & rows_apart).sum()),
    )


@dataclass
class Costing:
    """Money and power of a bill under prices, with the per-unit figures."""

    bill: Bill
    prices: Prices
    switch_radix_bought: int
    money: dict[str, float]
    power: dict[str, float]
    total: float
    watts: float
    per_node: float
    watts_per_node: float
    bisection: int | None = None
    bisection_label: str = ""
    per_bisection_link: float | None = None
    algorithm: str | None = None
    bound: float | None = None
    bound_note: str = ""
    per_throughput: float | None = None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k not in ("bill", "prices")}
        d["bill"] = asdict(self.bill) | {"transceivers": self.bill.transceivers}
        d["prices"] = asdict(self.prices)
        return d


def price(bill: Bill, prices: Prices) -> Costing:
    """Money (US$) and power (W) of a bill of materials.

    Examples
    --------
    >>> p = load_prices()
    >>> c = price(bill_from_forms("kant", {"k": 16, "n": 3}, p), p)
    >>> c.total, round(c.per_node), c.watts
    (12390400.0, 3025, 274944.0)

    References
    ----------
    fattree/data/prices.toml (assumptions); docs/analytics.md.
    """
    bought = prices.switch_radix(bill.radix)
    money = {
        "switches": float(bill.switches * prices.switch_price(bill.radix)),
        "copper cables": float(bill.copper * prices.copper),
        "optical cables": float(bill.optical * prices.optical),
        "transceivers": float(bill.transceivers * prices.transceiver),
    }
    power = {
        "switches": float(bill.switches * prices.power_switch_base),
        "switch ports": float(bill.switch_ports * prices.power_switch_port),
        "transceivers": float(bill.transceivers * prices.power_transceiver),
    }
    total, watts = sum(money.values()), sum(power.values())
    return Costing(
        bill=bill,
        prices=prices,
        switch_radix_bought=bought,
        money=money,
        power=power,
        total=total,
        watts=watts,
        per_node=total / bill.nodes,
        watts_per_node=watts / bill.nodes,
    )


def with_bisection(c: Costing, width, label: str) -> Costing:
    if width:
        return replace(
            c, bisection=int(width), bisection_label=label, per_bisection_link=c.total / int(width)
        )
    return replace(c, bisection_label=label)


def with_bound(c: Costing, algorithm: str | None, bound: float | None, note: str) -> Costing:
    if bound is not None and bound > 0 and math.isfinite(bound):
        return replace(
            c,
            algorithm=algorithm,
            bound=bound,
            bound_note=note,
            per_throughput=c.total / (c.bill.nodes * bound),
        )
    return replace(c, algorithm=algorithm, bound_note=note)


#: Largest node count for which :func:`cost` computes the channel-load bound.
LOAD_LIMIT = 20_000
#: Largest vertex count for which :func:`cost` builds the graph (else closed forms).
GRAPH_LIMIT = 2_000_000


def cost(
    spec: str,
    prices: Prices | None = None,
    *,
    algorithm: str | None = None,
    use_graph: bool | None = None,
    load_limit: int = LOAD_LIMIT,
) -> Costing:
    """Price a design: bill, money, power, per node, per bisection link, per throughput.

    Parameters
    ----------
    spec : str
        A topology, e.g. ``kant:k=16,n=3``.
    prices : Prices, optional
        Default :func:`load_prices`.
    algorithm : str, optional
        Routing whose uniform channel-load bound (:func:`fattree.routing.load.channel_load`)
        prices the throughput; default the family's default routing.
    use_graph : bool, optional
        Count the bill on the built graph (default: when it has at most
        :data:`GRAPH_LIMIT` vertices; else the closed forms).
    load_limit : int
        Largest node count for which the channel-load bound is computed.

    Returns
    -------
    Costing

    Examples
    --------
    >>> c = cost("kant:k=16,n=3", algorithm="dmodk")
    >>> c.bisection, round(c.per_bisection_link), round(c.bound, 6)
    (2048, 6050, 1.0)

    References
    ----------
    Bisection: the closed forms (000 Table I, Öhring 1995) or the graph's explicit cuts;
    bound: docs/routing.md (channel load); prices: fattree/data/prices.toml.
    """
    from ..topology.family import resolve

    prices = prices or load_prices()
    fam, values = resolve(spec)
    from .closed_forms import FORMS, closed_forms

    forms = closed_forms(fam.name, values) if fam.name in FORMS else {}
    size = fam.size(values) if fam.size is not None else None
    if use_graph is None:
        use_graph = size is None or size[0] + size[1] <= GRAPH_LIMIT
    if not use_graph and not forms:
        raise ParameterError(
            f"spec={spec!r}: no closed forms for {fam.name}; the bill needs the graph"
        )
    topo = None
    if use_graph:
        from ..topology.family import build

        topo = build(spec)
        bill = bill_from_graph(topo, prices)
    else:
        bill = bill_from_forms(fam.name, values, prices)
    c = price(bill, prices)
    bis = forms.get("bisection_width")
    if bis is not None:
        bound = "upper bound" in f"{bis.note} {bis.reference}"
        c = with_bisection(
            c, bis.value, ("upper bound" if bound else "exact") + f" (closed form, {bis.reference})"
        )
    elif topo is not None:
        from .bisection import bisection

        b = bisection(topo)
        c = with_bisection(
            c, b.width, ("exact" if b.exact else "upper bound") + f" (graph: {b.method})"
        )
    else:
        c = with_bisection(c, None, "unknown (no closed form; graph not built)")
    if topo is not None and topo.n_nodes <= load_limit:
        from ..routing import compile_routing
        from ..routing.load import channel_load

        cr = compile_routing(topo, algorithm)
        rep = channel_load(topo, cr, "uniform")
        c = with_bound(
            c,
            cr.algorithm,
            rep.bound,
            f"channel-load bound 1/γ_max of {cr.algorithm} under uniform traffic "
            f"(routing.load), flits/node/cycle",
        )
    else:
        from .designmetrics import uniform_bound

        cut = uniform_bound(bill.nodes, c.bisection, fam.name, values)
        c = with_bound(
            c,
            None,
            cut,
            f"channel loads not computed (N > {load_limit:,} or graph not built); cut bound "
            f"from the bisection{' (an upper bound)' if 'upper' in c.bisection_label else ''}"
            f", valid for any routing (analysis.designmetrics), flits/node/cycle",
        )
    return c
