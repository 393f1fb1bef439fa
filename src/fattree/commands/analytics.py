"""CLI: design, compare, model (002), plot (analytic figures).

``plot_app`` is a typer sub-app so that other command modules can add plots to
``fattree plot`` (e.g. ``plot_app.command("latency")(...)``).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from ..analysis.closed_forms import FORMS
from ..analysis.cost import BASELINES
from ..analysis.kncube import CONSTRAINTS, WIRES
from ..report.figures_analytics import RCP_FAMILIES
from ._common import ProgressLine, check_number, check_output, console, listing, print_json

#: families whose closed forms take (k, n): those cost ratios are defined for
_KN_FORMS = [f for f, e in FORMS.items() if [p.name for p in e.params] == ["k", "n"]]

plot_app = typer.Typer(
    help="Figures: analytic models (cost ratios, RCP, path diversity, 002 latency) and results.",
    no_args_is_help=True,
)
model_app = typer.Typer(help="002's models: k-ary n-cubes versus fat trees.", no_args_is_help=True)


def _fmt(v: Any, digits: int = 6) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, Fraction):
        v = float(v)
    return f"{v:.{digits}g}"


def _num(v: Any) -> Any:
    if isinstance(v, Fraction):
        return int(v) if v.denominator == 1 else float(v)
    return v


def _split(text: str | None, name: str = "families") -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        from ..errors import ParameterError

        raise ParameterError(
            f"{name}={text!r} is invalid: give comma-separated names "
            "(see fattree families), or leave the option out for all"
        )
    return items


# ------------------------------------------------------------------ design
_DESIGN_COLS = [
    ("spec", "design"),
    ("nodes", "nodes"),
    ("switches", "switches"),
    ("links", "links"),
    ("radix", "radix"),
    ("diameter", "diam"),
    ("avg_distance", "avg dist"),
    ("cost_per_node", "sw/node"),
    ("rcp", "RCP@N"),
]
_METRIC_COLS = [
    ("spec", "design"),
    ("nodes", "nodes"),
    ("switches", "sw"),
    ("radix", "radix"),
    ("avg_distance", "avg dist"),
    ("bisection", "bisection"),
    ("usd_per_node", "$/node"),
    ("throughput_bound", "bound"),
    ("usd_per_throughput", "$/node/bound"),
    ("rcp", "RCP@N"),
]


# a ranked table is unreadable once rich squeezes it into 80 columns: print it wider
_WIDE = 120


def _wide(table, width: int) -> None:
    """Print a table at least ``width`` columns wide (the terminal's width when wider)."""
    from rich.console import Console

    if console.width >= width:
        console.print(table)
    else:
        Console(width=width, highlight=False).print(table)


def _cell(r, col: str) -> str:
    if col == "spec":
        return r.spec
    if col == "bisection" and r.bisection is not None and r.bisection_label.startswith("upper"):
        return "<=" + _fmt(r.bisection)
    if col == "usd_per_node" and r.usd_per_node is not None:
        return f"{r.usd_per_node:,.0f}"
    if col == "throughput_bound":
        return _fmt(r.throughput_bound, 3)
    if col == "usd_per_throughput" and r.usd_per_throughput is not None:
        return f"{r.usd_per_throughput:,.0f}"
    return _fmt(getattr(r, col), 4)


def design(
    nodes: int | None = typer.Option(
        None, "--nodes", help="required number of compute nodes (2 .. 10^12)"
    ),
    budget: float | None = typer.Option(
        None,
        "--budget",
        help="instead of --nodes: the largest design of each family whose price fits this "
        "many US$ (equal budget), ranked by the uniform throughput it buys",
    ),
    radix: int | None = typer.Option(
        None,
        "--radix",
        help="switch radix available: designs whose radix exceeds it are "
        "dropped, and every switch is priced as this product",
    ),
    levels: int | None = typer.Option(
        None, "--levels", help="only designs with this many levels n"
    ),
    objective: str | None = typer.Option(
        None,
        "--objective",
        help="cost_per_throughput (default: $/node divided by the uniform throughput "
        "bound) | cost | latency | throughput | rcp (the papers' criterion)",
    ),
    prices: Path | None = typer.Option(
        None, "--prices", help="price file (TOML) for the cost objective"
    ),
    max_radix: int | None = typer.Option(None, "--max-radix", help="largest switch radix allowed"),
    families: str | None = typer.Option(
        None,
        "--families",
        help="comma-separated families (default: the papers' eight and xgft-2:1, xgft-4:1)",
    ),
    p: int = typer.Option(1, "--p", help="nodes per router of the hypercube baseline (000 eq. 7)"),
    rank_by: str | None = typer.Option(
        None, "--rank-by", help="column to rank by (ascending; replaces the objective)"
    ),
    pareto: bool = typer.Option(
        False, "--pareto", help="show only the Pareto front (cost per node vs avg distance)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print the rows as JSON"),
    top: int = typer.Option(15, "--top", help="rows to show (0: all)"),
    exact: bool = typer.Option(False, "--exact", help="only designs with exactly --nodes nodes"),
    max_n: int | None = typer.Option(
        None, "--max-n", help="largest n considered (e.g. 8 as in 000 Fig. 7)"
    ),
) -> None:
    """Every feasible (family, k, n) reaching --nodes, ranked by an objective: by default what one
    unit of uniform throughput costs ($/node over the throughput bound), or cost, latency,
    throughput, RCP (closed forms and the price model; graphs are built only to cut the bisection
    of families without a closed form)."""
    from ..analysis.advisor import DEFAULT_FAMILIES, TAPERED
    from ..analysis.advisor import design as run
    from ..analysis.pricing import load_prices
    from ..errors import ParameterError

    if top < 0:
        raise ParameterError(f"top={top} is invalid: rows to show, an integer >= 0 (0: all)")
    if (nodes is None) == (budget is None):
        raise ParameterError(
            "nodes and budget: give one of --nodes (designs reaching a node count) or "
            "--budget (the largest design of each family within a price)"
        )
    if budget is not None:
        for name, value in (
            ("levels", levels),
            ("objective", objective),
            ("rank_by", rank_by),
            ("exact", exact or None),
            ("pareto", pareto or None),
        ):
            if value is not None:
                raise ParameterError(
                    f"{name}={value!r} does not apply with --budget (one design per family, "
                    "ranked by the throughput the budget buys)"
                )
        _budget_table(budget, radix, max_radix, families, p, prices, max_n, as_json, top)
        return
    if radix is not None and max_radix is not None and radix != max_radix:
        raise ParameterError(f"radix={radix} and max_radix={max_radix} disagree: give one of them")
    if objective is not None and rank_by is not None:
        raise ParameterError(
            f"objective={objective!r} and rank_by={rank_by!r} both choose the ranking: "
            "give one of them"
        )
    if objective is None and rank_by is None:
        objective = "cost_per_throughput"  # what a unit of delivered bandwidth costs
    rank_by = rank_by or "rcp"
    budget = radix if radix is not None else max_radix
    fams = _split(families) or list(DEFAULT_FAMILIES + TAPERED)
    metrics = True  # price, bisection and cut bound for every row
    pr = load_prices(prices)
    with ProgressLine(f"design --nodes {nodes}: ranking", quiet=as_json) as bar:
        d = run(
            nodes,
            max_radix=budget,
            families=fams,
            p=p,
            rank_by=rank_by,
            exact=exact,
            max_n=max_n,
            levels=levels,
            objective=objective,
            metrics=metrics,
            prices=pr,
            switch_radix=radix,
        )
        bar.finish(f"design --nodes {nodes}: {len(d.rows)} designs ranked in {bar.seconds:.1f} s")
    rows = list(d.pareto if pareto else d.rows)
    if top > 0:
        rows = rows[:top]
    if as_json:
        print_json([r.as_dict() for r in rows])
        return
    cols = _METRIC_COLS if metrics else _DESIGN_COLS
    ranked = {
        "usd_per_throughput": "cost per unit of throughput ($/node / bound)",
        "throughput_bound": "throughput bound (descending)",
    }.get(d.rank_by, d.rank_by)
    title = (
        f"designs for {nodes:,} nodes"
        + (f", radix <= {budget}" if budget else "")
        + (f", {levels} levels" if levels else "")
        + (" (Pareto front)" if pareto else f", ranked by {ranked}")
    )
    from rich import box

    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    for _, head in cols:
        table.add_column(
            head,
            justify="left" if head == "design" else "right",
            no_wrap=head == "design" or metrics,
        )
    for i, r in enumerate(rows, 1):
        table.add_row(f"{i}{'*' if r.pareto else ''}", *(_cell(r, c) for c, _ in cols))
    _wide(table, _WIDE)
    b = d.best
    console.print(
        f"best by {ranked}: {b.spec} ({b.nodes:,} nodes, radix {b.radix}, diameter {b.diameter}, "
        f"RCP@N {b.rcp:.4f}); {len(d.rows)} designs considered"
    )
    console.print(
        f"RCP@N = radix x diameter / that of the hypercube with the requested {nodes:,} nodes "
        f"(p = {p}; 000 eq. 7). 'fattree compare' prints RCP against the hypercube of the "
        f"design's own size (rcp_own in --json): the two differ when a design has more nodes "
        f"than requested. sw/node = switches per node (000 §V.A); '*' after # marks the Pareto front "
        f"of switches per node vs average distance."
    )
    if metrics:
        console.print(
            escape(
                f"$/node: the price model (fattree cost; {pr.source}; bill from the closed forms: node links "
                f"in-rack copper, switch links optical"
                f"{f', every switch priced as a {radix}-port product' if radix else ''}); "
                f"bisection: exact closed form, or '<=' an upper bound (explicit cut of the graph, or N/2); "
                f"bound: uniform-traffic throughput bound from those cuts and the family's own caps "
                f"(e.g. MiKANT's cross links; flits/node/cycle, any routing); "
                f"$/node/bound: what one flit/cycle per node of uniform throughput costs; "
                f"avg dist: hops, node links included (zero-load latency in hops)."
            )
        )


def _budget_table(budget, radix, max_radix, families, p, prices, max_n, as_json, top) -> None:
    """``design --budget``: the largest design of each family within the price."""
    from ..analysis.advisor import DEFAULT_FAMILIES, TAPERED, within_budget
    from ..analysis.pricing import load_prices
    from ..errors import ParameterError

    if radix is not None and max_radix is not None and radix != max_radix:
        raise ParameterError(f"radix={radix} and max_radix={max_radix} disagree: give one of them")
    if max_n is not None and (isinstance(max_n, bool) or not 1 <= max_n <= 63):
        raise ParameterError(f"max_n={max_n!r} is invalid: an integer from 1 to 63")
    pr = load_prices(prices)
    fams = _split(families) or list(DEFAULT_FAMILIES + TAPERED)
    with ProgressLine(f"design --budget {budget:,.0f}", quiet=as_json) as bar:
        rows = within_budget(
            budget,
            max_radix if max_radix is not None else radix,
            fams,
            p,
            prices=pr,
            switch_radix=radix,
            max_n=max_n or 12,
        )
        bar.finish(f"design --budget {budget:,.0f}: {len(rows)} families fit")
    shown = rows[:top] if top > 0 else rows
    if as_json:
        print_json([r.as_dict() | {"budget": budget, "throughput_total": _total(r)} for r in shown])
        return
    from rich import box

    cap = radix if radix is not None else max_radix
    table = Table(
        title=f"the largest design of each family within US${budget:,.0f}"
        + (f", radix <= {cap}" if cap else "")
        + ", ranked by the uniform throughput bought",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
    )
    heads = ("#", "design", "nodes", "US$", "$/node", "bound", "nodes x bound", "avg dist")
    for h in heads:
        table.add_column(h, justify="left" if h == "design" else "right", no_wrap=True)
    for i, r in enumerate(shown, 1):
        table.add_row(
            str(i),
            r.spec,
            f"{r.nodes:,}",
            f"{r.cost:,.0f}",
            f"{r.usd_per_node:,.0f}",
            _fmt(r.throughput_bound, 3),
            _fmt(_total(r), 4),
            _fmt(r.avg_distance, 4),
        )
    _wide(table, _WIDE)
    console.print(
        escape(
            f"prices: {pr.source}"
            + (f", every switch priced as a {radix}-port product" if radix else "")
            + "; bound: uniform throughput bound of any routing (flits/node/cycle, cuts and the "
            "family's own caps); nodes x bound: the uniform throughput the budget buys "
            "(flits/cycle), an upper bound: simulate the designs for what their routing delivers."
        )
    )


def _total(r) -> float | None:
    return None if r.throughput_bound is None else r.nodes * r.throughput_bound


# ------------------------------------------------------------------ compare
_CMP_KEYS = [
    "nodes",
    "switches",
    "links",
    "radix",
    "diameter",
    "avg_distance",
    "avg_distance_distinct",
    "bisection_width",
    "path_diversity",
]


def _compare_entry(spec: str, p: int, rcp_nodes: int | None = None, prices=None) -> dict:
    from ..analysis.closed_forms import closed_forms
    from ..analysis.cost import rcp_value
    from ..topology.family import parse_spec

    family, raw = parse_spec(spec)
    forms = closed_forms(family, raw)
    entry: dict[str, Any] = {"spec": spec, "family": family}
    for key, f in forms.items():
        entry[key] = f
    nodes = forms["nodes"].value
    if "bisection_width" not in forms or "upper bound" in forms["bisection_width"].note:
        from ..analysis.designmetrics import bisection_estimate

        try:
            width, label = bisection_estimate(spec)
        except Exception:  # no topology family of that name (closed forms only)
            width, label = None, ""
        if width is not None:
            entry["bisection_width"] = width
            entry["bisection_note"] = label
    entry["cost_per_node"] = Fraction(forms["switches"].value, nodes)
    entry["links_per_node"] = Fraction(forms["links"].value, nodes)
    if "diameter" in forms and nodes >= 2 * p:
        entry["rcp"] = rcp_value(forms["radix"].value, forms["diameter"].value, nodes, p)
        if rcp_nodes is not None:
            entry["rcp_at_n"] = rcp_value(
                forms["radix"].value, forms["diameter"].value, rcp_nodes, p
            )
    if prices is not None:
        from ..analysis.pricing import bill_from_counts, price

        bill = bill_from_counts(
            spec, nodes, forms["switches"].value, forms["links"].value, forms["radix"].value, prices
        )
        c = price(bill, prices)
        entry["cost"], entry["watts"], entry["usd_per_node"] = c.total, c.watts, c.per_node
        if entry.get("bisection_width"):
            bw = entry["bisection_width"]
            entry["usd_per_bisection_link"] = c.total / float(getattr(bw, "value", bw))
    return entry


_CMP_REFS = {
    "rcp": "000 eq. 7 against the hypercube of the design's own size",
    "rcp_at_n": "000 eq. 7 against the hypercube of --nodes (design's RCP@N)",
    "cost_per_node": "switches per node, 000 §V.A",
    "links_per_node": "links per node, 000 §V.A",
    "cost": "price model, fattree/data/prices.toml (assumptions), docs/analytics.md",
    "bisection_width": "closed form (exact) or bisection_note (upper bound)",
}


def compare(
    specs: list[str] = typer.Argument(..., help="designs, e.g. mikant:k=8,n=6 hypercube:d=19,p=1"),
    p: int = typer.Option(1, "--p", help="nodes per router of the hypercube baseline of RCP"),
    nodes: int | None = typer.Option(
        None, "--nodes", help="also RCP against the hypercube of this many nodes (design's RCP@N)"
    ),
    prices: Path | None = typer.Option(
        None, "--prices", help="price file (TOML) over the defaults"
    ),
    as_json: bool = typer.Option(False, "--json", help="print machine-readable JSON"),
) -> None:
    """Side-by-side closed-form properties and the price model (a graph is built only to cut the
    bisection of a family without a closed form, up to 50,000 nodes; beyond, N/2 bounds it)."""
    from ..analysis.cost import check_p
    from ..analysis.pricing import load_prices

    check_p(p)
    if nodes is not None:
        from ..analysis.advisor import MAX_NODES
        from ..errors import ParameterError

        if not 2 <= nodes <= MAX_NODES:
            raise ParameterError(
                f"nodes={nodes!r} is invalid: an integer from 2 to {MAX_NODES:,} (as design --nodes)"
            )
    pr = load_prices(prices)
    entries = [_compare_entry(s, p, nodes, pr) for s in specs]
    rows = (
        _CMP_KEYS
        + [
            "cost_per_node",
            "links_per_node",
            "cost",
            "watts",
            "usd_per_node",
            "usd_per_bisection_link",
            "rcp",
        ]
        + (["rcp_at_n"] if nodes else [])
    )
    if as_json:
        out = []
        for e in entries:
            d = {"spec": e["spec"], "family": e["family"]}
            if "bisection_note" in e:
                d["bisection_note"] = e["bisection_note"]
            for key in rows:
                v = e.get(key)
                if hasattr(v, "value"):
                    d[key] = _num(v.value)
                    if v.printed is not None:
                        d.setdefault("printed", {})[key] = _num(v.printed)
                else:
                    d[key] = _num(v)
            d["references"] = _CMP_REFS
            out.append(d)
        print_json(out)
        return
    built = any(e.get("bisection_note", "").find("graph:") >= 0 for e in entries)
    table = Table(
        title="closed forms (graph built only to cut the bisection)"
        if built
        else "closed forms (no graph built)"
    )
    table.add_column("property")
    for e in entries:
        table.add_column(e["spec"], justify="right")
    notes = []
    for key in rows:
        cells = []
        for e in entries:
            v = e.get(key)
            if v is None:
                cells.append("-")
            elif hasattr(v, "value"):
                text = _fmt(v.value)
                if v.printed is not None:
                    text += f" (paper: {_fmt(v.printed)})"
                    notes.append(
                        f"{e['spec']} {key}: {v.note}"
                        if v.note
                        else f"{e['spec']} {key}: see errata"
                    )
                cells.append(text)
            elif key == "bisection_width" and e.get("bisection_note", "").startswith("upper"):
                cells.append("<=" + _fmt(v))
            elif key in ("cost", "watts", "usd_per_node", "usd_per_bisection_link"):
                cells.append(f"{v:,.0f}")
            else:
                cells.append(_fmt(v))
        label = {
            "rcp": "rcp (own size)",
            "rcp_at_n": f"rcp@N (N = {nodes:,})" if nodes else "",
            "cost": "cost US$",
            "watts": "power W",
            "usd_per_node": "US$ per node",
            "usd_per_bisection_link": "US$ per bisection link",
            "cost_per_node": "switches per node",
        }.get(key, key.replace("_", " "))
        table.add_row(label, *cells)
    _wide(table, 24 + 18 * len(entries))
    console.print(
        f"Values from the closed forms of fattree.analysis.closed_forms (errata applied). "
        f"rcp (own size): radix x diameter against the hypercube of the design's own node count, "
        f"p = {p} (000 eq. 7); 'fattree design' ranks by RCP@N, against the hypercube of the "
        f"*requested* count (--nodes here), so an oversized design scores differently there. "
        f"Switches and links per node: 000 §V.A. Build a graph with 'fattree info SPEC' to check."
    )
    for e in entries:
        if "bisection_note" in e:
            console.print(escape(f"  bisection of {e['spec']}: {e['bisection_note']}"))
    console.print(
        escape(
            f"  cost: the price model of 'fattree cost' ({pr.source}), bill from the closed forms "
            f"(node links in-rack copper, switch links optical); every price is an assumption."
        )
    )
    for note in notes:
        console.print(escape(f"  paper: {note}"))


# ------------------------------------------------------------------ cost
def cost(
    spec: str = typer.Argument(..., help="design, e.g. kant:k=16,n=3 or xgft:m=16.16.16,w=1.8.8"),
    prices: Path | None = typer.Option(
        None, "--prices", help="price file (TOML) over the defaults in fattree/data/prices.toml"
    ),
    algorithm: str | None = typer.Option(
        None,
        "--algorithm",
        "-a",
        help="routing whose uniform channel-load bound prices throughput (default: the family's)",
    ),
    as_json: bool = typer.Option(False, "--json", help="print machine-readable JSON"),
) -> None:
    """Price a design: switches, cables (in-rack copper, optical), transceivers, watts; per node,
    per bisection link and per unit of the routing's throughput bound (every price is an assumption)."""
    from ..version import __version__
    from ..analysis.pricing import cost as run, load_prices

    pr = load_prices(prices)
    with ProgressLine(f"cost {spec}: pricing", quiet=as_json) as bar:
        c = run(spec, pr, algorithm=algorithm)
        bar.finish(f"cost {spec}: priced in {bar.seconds:.1f} s; bill from the {c.bill.method}")
    if as_json:
        print_json(c.to_dict() | {"spec": spec, "version": __version__})
        return
    b = c.bill
    table = Table(title=f"cost of {spec}")
    table.add_column("item")
    table.add_column("count", justify="right")
    table.add_column("US$", justify="right")
    table.add_column("W", justify="right")
    table.add_row(
        f"switches (radix {b.radix}, bought as {c.switch_radix_bought}-port)",
        f"{b.switches:,}",
        f"{c.money['switches']:,.0f}",
        f"{c.power['switches']:,.0f}",
    )
    table.add_row("used switch ports", f"{b.switch_ports:,}", "", f"{c.power['switch ports']:,.0f}")
    table.add_row(
        "copper cables (in-rack)", f"{b.copper:,}", f"{c.money['copper cables']:,.0f}", "0"
    )
    table.add_row(
        "optical cables (between racks)", f"{b.optical:,}", f"{c.money['optical cables']:,.0f}", ""
    )
    table.add_row(
        "optical transceivers",
        f"{b.transceivers:,}",
        f"{c.money['transceivers']:,.0f}",
        f"{c.power['transceivers']:,.0f}",
    )
    table.add_row(
        "[bold]total[/bold]", "", f"[bold]{c.total:,.0f}[/bold]", f"[bold]{c.watts:,.0f}[/bold]"
    )
    table.add_row(
        "per node", f"{b.nodes:,} nodes", f"{c.per_node:,.0f}", f"{c.watts_per_node:,.1f}"
    )
    if c.per_bisection_link is not None:
        table.add_row("per bisection link", f"{c.bisection:,}", f"{c.per_bisection_link:,.0f}", "")
    if c.per_throughput is not None:
        table.add_row(
            "per flit/cycle of uniform throughput",
            f"bound {c.bound:.4g}",
            f"{c.per_throughput:,.0f}",
            f"{c.watts / (b.nodes * c.bound):,.1f}",
        )
    console.print(table)
    console.print(
        escape(
            f"layout: {pr.nodes_per_rack} nodes per rack, {pr.racks_per_row} racks per row -> "
            f"{b.racks:,} racks in {b.rows:,} rows; bill counted by {b.method}"
            + (
                f"; {b.optical_between_rows:,} optical cables leave their row"
                if b.optical_between_rows is not None
                else ""
            )
        )
    )
    console.print(escape(f"bisection: {c.bisection_label}"))
    console.print(
        escape(
            f"throughput: {c.bound_note}"
            + (
                "; per-throughput cost = total / (N x bound)"
                if c.per_throughput is not None
                else ""
            )
        )
    )
    console.print(
        escape(
            f"prices: {pr.source}; every default is a round assumption, not a quote "
            f"(docs/analytics.md)"
        )
    )


# ------------------------------------------------------------------ model
def _print_frame(df, title: str, best: str | None = None) -> None:
    table = Table(title=title)
    for c in df.columns:
        table.add_column(str(c), justify="right")
    imin = df[best].idxmin() if best else None
    for i, row in df.iterrows():
        cells = [_fmt(v, 5) if not isinstance(v, str) else v for v in row.tolist()]
        if i == imin:
            cells = [f"[bold]{c}[/bold]" for c in cells]
        table.add_row(*cells)
    console.print(table)


def _records(df) -> list[dict]:
    return [
        {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
        for row in df.to_dict("records")
    ]


@model_app.command("kncube")
def model_kncube(
    nodes: int = typer.Option(4096, "--nodes", help="nodes N (all integer k^n = N are listed)"),
    constraint: str = typer.Option(
        "bisection",
        "--constraint",
        help=f"{listing(CONSTRAINTS)} (Dally's bisection, Agarwal's node size)",
    ),
    wire: str = typer.Option("constant", "--wire", help=f"wire delay: {listing(WIRES)}"),
    message_length: float = typer.Option(
        150.0, "--message-length", help="message length L in bits"
    ),
    node_size: float | None = typer.Option(
        None, "--node-size", help="node size in wires (default: the binary cube's 2 log2 N)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print machine-readable JSON"),
) -> None:
    """k-ary n-cubes of N nodes: channel width, bisection and T_net under a cost constraint (002 §3)."""
    import pandas as pd

    from ..analysis import kncube

    kncube.check_wire(wire)
    check_number(
        message_length,
        "message_length",
        low=0,
        low_open=True,
        allowed="a message length in bits, a finite number > 0",
    )
    if node_size is not None:
        check_number(
            node_size,
            "node_size",
            low=0,
            low_open=True,
            allowed="a node size in wires, a finite number > 0",
        )
    kncube.channel_width(2, 1, constraint)  # validates the constraint before any row exists
    t = kncube.kncube_table(nodes, constraint, node_size, min_n=1)
    t["D"] = [kncube.avg_hops(k, n) for k, n in zip(t["k"], t["n"])]
    t["L/W"] = message_length / t["W"]
    t["Tc"] = [kncube.channel_time(k, n, wire) for k, n in zip(t["k"], t["n"])]
    t["Tnet"] = t["Tc"] * (t["D"] + t["L/W"])
    if as_json:
        print_json(_records(t))
        return
    _print_frame(
        pd.DataFrame(t),
        f"{nodes:,}-node k-ary n-cubes, constant {constraint}, {wire} wire delay, "
        f"L = {message_length:g}",
        best="Tnet",
    )
    name = {"bisection": "cube-bisection-4096", "nodesize": "cube-nodesize-4096"}[constraint]
    if nodes == 4096 and node_size is None:
        ref = kncube.TABLES_002.get(name)()
        bad = int((ref["flag"] != "").sum())
        console.print(
            f"002's 4096-node table ({name}): {'reproduced' if not bad else f'{bad} rows differ'}."
        )


@model_app.command("fattree")
def model_fattree(
    nodes: int = typer.Option(16384, "--nodes", help="leaves N = k^n (real k for each n)"),
    message_length: float = typer.Option(
        150.0, "--message-length", help="message length L in bits"
    ),
    node_size: float = typer.Option(
        640.0, "--node-size", help="router size in wires (constant node size)"
    ),
    wire: str = typer.Option("constant", "--wire", help=f"wire delay: {listing(WIRES)}"),
    width_rule: str = typer.Option(
        "table",
        "--width-rule",
        help="table: W = NodeSize/2k (002's tables); text: NodeSize/2n; bisection: W = 1",
    ),
    as_json: bool = typer.Option(False, "--json", help="print machine-readable JSON"),
) -> None:
    """Fat-tree T_net against n (002 §3), with the exact mean hop count (000 eq. 3) beside D = 2n."""
    from ..analysis import kncube

    check_number(
        message_length,
        "message_length",
        low=0,
        low_open=True,
        allowed="a message length in bits, a finite number > 0",
    )
    check_number(
        node_size,
        "node_size",
        low=0,
        low_open=True,
        allowed="a node size in wires, a finite number > 0",
    )
    t = kncube.fattree_tnet_table(nodes, message_length, node_size, wire, width_rule)
    t.insert(4, "D_exact", [kncube.fattree_avg_hops(k, n) for k, n in zip(t["k"], t["n"])])
    if as_json:
        print_json(_records(t))
        return
    _print_frame(
        t,
        f"k-ary n-trees with {nodes:,} leaves, node size {node_size:g}, L = {message_length:g}, "
        f"{wire} wire delay",
        best="Tnet",
    )
    console.print("D = 2n as in 002; D_exact = 000 eq. (3). T_net = Tc (D + L/W).")


@model_app.command("table")
def model_table(
    name: str | None = typer.Argument(None, help="002 table to regenerate (omit to list them)"),
    as_json: bool = typer.Option(False, "--json", help="print machine-readable JSON"),
) -> None:
    """Regenerate one of 002's tables beside the printed values; 'flag' marks disagreements."""
    from ..analysis.kncube import TABLES_002

    if name is None:
        for key, fn in TABLES_002.items():
            console.print(escape(f"{key}: {(fn.__doc__ or '').strip().splitlines()[0]}"))
        return
    df = TABLES_002.get(name)()
    if as_json:
        print_json({"rows": _records(df), "notes": df.attrs.get("notes", [])})
        return
    _print_frame(df.drop(columns=["note"]), f"002 {name}: computed and printed")
    for i, note in zip(df.index, df["note"]):
        if note:
            console.print(escape(f"  row {i}: {note}"))
    for note in df.attrs.get("notes", []):
        console.print(escape(f"  note: {note}"))


# ------------------------------------------------------------------ plot
_OUT = typer.Option(
    ...,
    "-o",
    "--output",
    help="output file (.png, .svg or .pdf)",
    callback=lambda v: check_output(v, "output", suffixes=(".png", ".svg", ".pdf")),
)


@plot_app.command("cost-ratios")
def plot_cost_ratios(
    output: Path = _OUT,
    families: str = typer.Option("cat,micat", "--families", help=listing(_KN_FORMS, "and")),
    baseline: str = typer.Option("kant", "--baseline", help=listing(BASELINES)),
    k_max: int = typer.Option(8, "--k-max", help="largest k (= n)"),
) -> None:
    """Switch and link cost ratios per node (000 Fig. 5, 001 Fig. 2, 004 Figs. 5-6)."""
    from ..errors import ParameterError
    from ..report.figures_analytics import plot_cost_ratios as draw

    if not 2 <= k_max <= 64:
        raise ParameterError(f"k_max={k_max} is invalid: an integer from 2 to 64")
    console.print(f"wrote {draw(output, _split(families) or [], baseline, range(2, k_max + 1))}")


@plot_app.command("rcp")
def plot_rcp(
    output: Path = _OUT,
    family: str = typer.Option("mikant", "--family", help=listing(RCP_FAMILIES)),
    n_min: int = typer.Option(2, "--n-min", help="smallest n"),
    n_max: int = typer.Option(8, "--n-max", help="largest n"),
    p: int = typer.Option(1, "--p", help="nodes per hypercube router"),
    mark: str | None = typer.Option(None, "--mark", help="designs to annotate, e.g. 8:6,4:9 (k:n)"),
) -> None:
    """RCP against the hypercube versus system size, one curve per n (000 Fig. 7, 001 Figs. 3-4, 004 Figs. 7-8)."""
    from ..analysis.cost import check_p
    from ..errors import ParameterError
    from ..report.figures_analytics import plot_rcp as draw

    check_p(p)
    if not 1 <= n_min <= n_max <= 40:
        raise ParameterError(
            f"n_min={n_min}, n_max={n_max} are invalid: need 1 <= n_min <= n_max <= 40"
        )
    marks = []
    for item in _split(mark) or []:
        k, _, n = item.partition(":")
        if not (k.isdigit() and n.isdigit() and 2 <= int(k) <= 64 and 1 <= int(n) <= 40):
            raise ParameterError(
                f"mark={item!r} is invalid: use k:n with 2 <= k <= 64 and 1 <= n <= 40, e.g. 8:6"
            )
        marks.append((int(k), int(n)))
    console.print(f"wrote {draw(output, family, range(n_min, n_max + 1), p, marks)}")


@plot_app.command("path-diversity")
def plot_path_diversity(
    output: Path = _OUT,
    n: int = typer.Option(8, "--n", help="tree levels n (fixed)"),
    families: str = typer.Option(
        "hypercube,kant,mikant,cat,micat", "--families", help="families to draw"
    ),
    k_max: int = typer.Option(10, "--k-max", help="largest k"),
    printed: bool = typer.Option(
        True, "--printed/--no-printed", help="also draw the printed (wrong) formulas"
    ),
) -> None:
    """Path diversity P̃/N against k at fixed n (001 Fig. 5, 004 Fig. 9; corrected formulas)."""
    from ..errors import ParameterError
    from ..report.figures_analytics import plot_path_diversity as draw

    if not (2 <= n <= 40 and 2 <= k_max <= 64):
        raise ParameterError(f"n={n}, k_max={k_max} are invalid: 2 <= n <= 40 and 2 <= k_max <= 64")
    console.print(f"wrote {draw(output, n, _split(families) or [], range(2, k_max + 1), printed)}")


@plot_app.command("kncube-latency")
def plot_kncube_latency(
    output: Path = _OUT,
    nodes: int = typer.Option(256, "--nodes", help="nodes N"),
    constraint: str = typer.Option("nodesize", "--constraint", help=listing(CONSTRAINTS)),
    wire: str = typer.Option("constant", "--wire", help=listing(WIRES)),
    message_length: float = typer.Option(
        150.0, "--message-length", help="message length L in bits"
    ),
    node_size: float = typer.Option(640.0, "--node-size", help="node size in wires"),
) -> None:
    """T_net of k-ary n-cubes and fat trees against n (002 §3)."""
    from ..report.figures_analytics import plot_kncube_latency as draw

    check_number(
        message_length,
        "message_length",
        low=0,
        low_open=True,
        allowed="a message length in bits, a finite number > 0",
    )
    check_number(
        node_size,
        "node_size",
        low=0,
        low_open=True,
        allowed="a node size in wires, a finite number > 0",
    )
    console.print(f"wrote {draw(output, nodes, constraint, wire, message_length, node_size)}")


def register(app: typer.Typer) -> None:
    app.command("design")(design)
    app.command("compare")(compare)
    app.command("cost")(cost)
    app.add_typer(model_app, name="model")
    app.add_typer(plot_app, name="plot")
