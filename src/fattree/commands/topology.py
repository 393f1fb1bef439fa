"""CLI: families, info (``export`` and ``draw`` live in their own command module)."""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import typer
from rich.table import Table

from ._common import ProgressLine, check_number, check_seed, console, print_json


def families(
    as_json: bool = typer.Option(False, "--json", help="print machine-readable JSON"),
) -> None:
    """List every family, its parameters and the paper it comes from."""
    from ..topology import FAMILIES

    if as_json:
        print_json(
            [
                {
                    "family": name,
                    "network": fam.title,
                    "paper": fam.paper,
                    "parameters": [p.describe() for p in fam.params],
                }
                for name, fam in FAMILIES.items()
            ]
        )
        return

    table = Table(title="topology families")
    table.add_column("family")
    table.add_column("network")
    table.add_column("parameters")
    table.add_column("paper")
    for name, fam in FAMILIES.items():
        table.add_row(name, fam.title, "\n".join(p.describe() for p in fam.params), fam.paper)
    console.print(table)


def info(
    spec: str = typer.Argument(..., help="topology, e.g. mikant:k=4,n=5"),
    as_json: bool = typer.Option(False, "--json", help="print machine-readable JSON"),
    samples: int = typer.Option(
        1000, "--samples", help="sampled sources for large imported graphs"
    ),
    seed: int = typer.Option(0, "--seed", help="seed of that sample"),
    exact_limit: int = typer.Option(
        20000, "--exact-limit", help="all-pairs BFS up to this many nodes (graphs without symmetry)"
    ),
    ilp_time: float = typer.Option(
        120.0,
        "--ilp-time",
        help="seconds after which the exact bisection ILP stops in any case "
        "(it stops after 1,000 branch-and-bound nodes: the same answer on any machine)",
    ),
) -> None:
    """Properties computed from the graph, beside the papers' closed forms."""
    from ..analysis.properties import formula_checks, properties
    from ..topology import build

    check_seed(seed)
    check_number(
        ilp_time,
        "ilp_time",
        low=0,
        low_open=True,
        high=86400,
        allowed="seconds for the bisection ILP, a finite number > 0 and at most 86400",
    )
    _check_info_size(spec)
    start = time.perf_counter()
    with ProgressLine(f"info {spec}:", quiet=as_json) as bar:
        bar.update(0, description="building")
        topo = build(spec)
        props = properties(
            topo,
            exact_limit=exact_limit,
            samples=samples,
            seed=seed,
            time_limit=ilp_time,
            progress=lambda text: bar.update(0, description=text),
        )
        checks = formula_checks(props)
        wall = time.perf_counter() - start
        bar.finish(f"info {topo.spec}: measured in {wall:.1f} s")
    if as_json:
        print_json(_json(props, checks, wall))
    else:
        _print_table(topo, props, checks, wall)


#: the largest graph ``info`` measures (compute nodes + switches): beyond, building it and
#: its BFS state takes many GiB and the measurement tens of minutes
INFO_MAX_VERTICES = 2**23


def _check_info_size(spec: str) -> None:
    """Refuse, before building, a graph larger than :data:`INFO_MAX_VERTICES` (its size
    from the family's closed form; imported graphs are bounded by their file)."""
    from ..errors import ResourceError
    from ..topology import resolve
    from ..topology.family import available_memory, estimate_bytes

    fam, values = resolve(spec)
    if fam.size is None:
        return
    nodes, switches, ports = (int(x) for x in fam.size(values))
    need = estimate_bytes(nodes, switches, ports)
    if need > 0.8 * available_memory():
        return  # build refuses it with its memory estimate
    if nodes + switches > INFO_MAX_VERTICES:
        raise ResourceError(
            f"info {spec}: the graph has {nodes + switches:,} vertices ({nodes:,} nodes, "
            f"{switches:,} switches; about {need / 2**30:.1f} "
            f"GiB to build), beyond the {INFO_MAX_VERTICES:,} vertices info measures; the "
            f"papers' closed forms need no graph: fattree compare {spec}"
        )


# ------------------------------------------------------------------ JSON
def _num(v: Any) -> Any:
    if isinstance(v, Fraction):
        return int(v) if v.denominator == 1 else float(v)
    return v


def _exact_str(v: Any) -> str | None:
    if isinstance(v, (Fraction, int)) and not isinstance(v, bool):
        return str(v)
    return None


_EXACT_KEYS = ("avg_distance", "avg_distance_excl_self", "path_diversity", "mean_shortest_paths")


def _json(props: dict, checks: list[dict], wall: float) -> dict:
    out = {key: _num(val) for key, val in props.items()}
    out["exact"] = {key: _exact_str(props[key]) for key in _EXACT_KEYS}
    out["formulas"] = {r["name"]: _num(r["formula"]) for r in checks}
    out["formulas_exact"] = {r["name"]: _exact_str(r["formula"]) for r in checks}
    out["formula_checks"] = [
        {
            **r,
            "computed": _num(r["computed"]),
            "formula": _num(r["formula"]),
            "printed": _num(r["printed"]),
            "formula_exact": _exact_str(r["formula"]),
        }
        for r in checks
    ]
    out["disagreements"] = [r["name"] for r in checks if r["agrees"] is False]
    out["wall_seconds"] = round(wall, 3)
    return out


# ------------------------------------------------------------------ table
_ROWS = (
    ("nodes", "nodes"),
    ("switches", "switches"),
    ("links", "links"),
    ("node_links", "  node links"),
    ("switch_links", "  switch links"),
    ("radix", "radix min/max"),
    ("diameter", "diameter (hops)"),
    ("avg_distance", "avg distance (N² pairs)"),
    ("avg_distance_excl_self", "avg distance (s≠t)"),
    ("path_diversity", "path diversity P̃/N"),
    ("mean_shortest_paths", "shortest paths (s≠t)"),
    ("bisection_width", "bisection width"),
)
_FORMULA_OF = {"avg_distance_excl_self": "avg_distance_distinct"}


def _fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return f"{v.numerator:,}"
        return f"{float(v):.6f}\n= {v}" if len(str(v)) <= 15 else f"{float(v):.6f}"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:.6f}"
    return str(v)


def _computed_cell(key: str, props: dict) -> str:
    v = props.get(key)
    if key == "radix":
        return f"{v['min']} / {v['max']}"
    text = _fmt(v)
    ci = props.get("ci95", {}).get(key)
    if ci:
        text += f"\n±{(ci[1] - ci[0]) / 2:.3g} (95% CI)"
    if key == "bisection_width" and v is not None:
        text += "\n(exact)" if props["bisection_exact"] else "\n(upper bound)"
    if key == "diameter" and not props["distances_exact"]:
        text += "\n(lower bound)"
    return text


def _formula_cell(row: dict | None) -> str:
    if row is None:
        return ""
    text = _fmt(row["formula"])
    if row["reference"]:
        text += f"\n[dim]{row['reference']}[/dim]"
    if row["errata"]:
        text += f"\n[yellow]errata: paper prints {_fmt(row['printed'])}[/yellow]"
    return text


def _mark_cell(row: dict | None) -> str:
    if row is None or not row["mark"]:
        return ""
    colour = {True: "green", False: "red", None: "yellow"}[row["agrees"]]
    mark = f"[{colour}]{row['mark']}[/{colour}]"
    return mark + ("\n[yellow]errata[/yellow]" if row["errata"] else "")


def _print_table(topo, props: dict, checks: list[dict], wall: float) -> None:
    from ..topology import FAMILIES

    by_name = {r["name"]: r for r in checks}
    title = FAMILIES.get(topo.family).title if topo.family in FAMILIES else topo.family
    table = Table(title=f"{topo.spec} — {title}")
    table.add_column("property", no_wrap=True)
    table.add_column("computed (graph)", justify="right")
    table.add_column("paper closed form", justify="right")
    table.add_column("agreement")
    shown = set()
    for key, label in _ROWS:
        fkey = _FORMULA_OF.get(key, key)
        row = by_name.get(fkey)
        shown.add(fkey)
        table.add_row(label, _computed_cell(key, props), _formula_cell(row), _mark_cell(row))
    for row in checks:  # closed forms with no computed counterpart
        if row["name"] not in shown:
            table.add_row(
                row["name"].replace("_", " "),
                _fmt(row["computed"]),
                _formula_cell(row),
                _mark_cell(row),
            )
    console.print(table)
    hist = props["distance_histogram"]
    pairs = ", ".join(f"{d}: {c:,}" for d, c in enumerate(hist) if c)
    console.print(f"distance histogram (hops: ordered node pairs): {pairs}")
    console.print(f"hops count links, node links included; distances: {props['distance_method']}")
    console.print(f"bisection: {props['bisection_method']}")
    if not checks:
        console.print("no closed forms for this family")
    bad = [r["name"] for r in checks if r["agrees"] is False]
    if bad:
        console.print(f"[red]disagreements with the closed forms: {', '.join(bad)}[/red]")
    console.print(f"wall time {wall:.2f} s")


def register(app: typer.Typer) -> None:
    app.command("families")(families)
    app.command("info")(info)
