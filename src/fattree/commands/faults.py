"""CLI: fattree faults (Monte Carlo of link-fault-tolerant routing)."""

from __future__ import annotations

from ..fileio import write_atomic

from pathlib import Path

import typer
from rich.table import Table

from ..faults.algorithms import MODELS
from ._common import ProgressLine, check_output, check_range, check_seed, console, print_json


def faults(
    spec: str | None = typer.Argument(None, help="topology, e.g. mikant:k=3,n=3"),
    algorithms: str = typer.Option(
        "all",
        "--algorithms",
        "--algorithm",
        "-a",
        help="comma-separated names, or 'all' (see --list)",
    ),
    rates: str = typer.Option("0:1:0.05", "--rates", help="START:STOP:STEP or a,b,c (fractions)"),
    trials: int = typer.Option(10000, "--trials", help="trials per rate"),
    seed: int = typer.Option(0, "--seed"),
    models: str = typer.Option(
        "local", "--fault-model", "--models", help=f"{', '.join(MODELS)} or {','.join(MODELS)}"
    ),
    links: str = typer.Option(
        "all",
        "--links",
        "--fault-pool",
        help="links that may fail: all (node links included) or switch-only "
        "(--fault-pool as in study files)",
    ),
    as_json: bool = typer.Option(False, "--json", help="print the rows as JSON"),
    csv: Path | None = typer.Option(None, "--csv", help="write the rows as CSV"),
    output: Path | None = typer.Option(None, "-o", "--output", help="plot like 001 Figs. 8-9"),
    tie_break: str = typer.Option(
        "dimension",
        "--tie-break",
        help="MiKANTC cube routing: dimension (order) or random (004 §3)",
    ),
    list_: bool = typer.Option(False, "--list", help="list the algorithms and what they assume"),
) -> None:
    """Success ratio and path length of fault-tolerant routing against the link fault rate."""
    from ..errors import ParameterError
    from ..faults.algorithms import FT_ALGORITHMS
    from ..faults.montecarlo import evaluate, parse_rates
    from ..topology import build

    if list_:
        from ..faults.rules import default_ft_algorithm
        from ..faults.walks import walk_of
        from ..topology import FAMILIES

        family = (spec or "").split(":", 1)[0].strip().lower()
        mine = family in FAMILIES
        title = (
            f"fault-tolerant routing algorithms of {family} (default: "
            f"{default_ft_algorithm(family)})"
            if mine
            else "fault-tolerant routing algorithms"
        )
        table = Table(title=title)
        for col in ("name", "families", "origin", "knowledge"):
            table.add_column(col)
        for name, a in FT_ALGORITHMS.items():
            if mine and family not in a.families:
                continue
            lacking = [f for f in FAMILIES.names() if f not in a.families]
            fams = (
                ",".join(a.families)
                if len(a.families) <= 4
                else "every family"
                if not lacking
                else f"every family but {', '.join(lacking)}"
            )
            table.add_row(name, fams, a.origin, a.knowledge)
        if as_json:
            print_json(
                [
                    {
                        "name": n,
                        "families": list(a.families),
                        "origin": a.origin,
                        "knowledge": a.knowledge,
                    }
                    for n, a in FT_ALGORITHMS.items()
                    if not mine or family in a.families
                ]
            )
            return
        console.print(table)
        if mine and walk_of(family) is None:
            console.print(
                "--models lookahead: a switch also sees the links of its neighbours "
                "(a candidate whose far switch has no healthy onward minimal port "
                "is a last resort)",
                highlight=False,
            )
        return
    if spec is None:
        raise ParameterError(
            "spec=None is invalid: give a topology, e.g. mikant:k=3,n=3 "
            "(or --list for the algorithms)"
        )
    if links not in ("all", "switch-only"):
        raise ParameterError(f"links={links!r} is invalid: 'all' or 'switch-only'")
    check_seed(seed)
    check_range(rates, "rates")  # non-finite ends, or too many points: refused unexpanded
    rate_list = parse_rates(rates)
    from ..faults.montecarlo import MAX_TRIALS

    if not 1 <= trials <= MAX_TRIALS:
        raise ParameterError(
            f"trials={trials} is invalid: an integer from 1 to {MAX_TRIALS:,} per rate"
        )
    if output is not None and output.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ParameterError(f"output={str(output)!r} is invalid: use a .png, .svg or .pdf file")
    check_output(output, "output")
    check_output(csv, "csv")
    topo = build(spec)
    model_list = [m.strip() for m in models.split(",") if m.strip()]
    with ProgressLine(
        f"{topo.spec}: fault study",
        total=len(rate_list),
        unit=f"rates × {trials:,} trials",
        quiet=as_json,
    ) as bar:
        study = evaluate(
            topo,
            algorithms,
            rate_list,
            trials,
            seed,
            models=model_list,
            switch_only=links == "switch-only",
            tie_break=tie_break,
            progress=lambda done, total: bar.update(done, total),
        )
    frame = study.to_frame()
    if csv is not None:
        write_atomic(csv, lambda fh: frame.to_csv(fh, index=False), binary=False, what="csv")
    if output is not None:
        from ..report.fault_plots import plot_fault_study

        plot_fault_study(frame, output, title=f"{topo.spec}, {trials} trials per rate, seed {seed}")
    if as_json:
        print_json(study.rows)
        return
    table = Table(
        title=f"{topo.spec}: link-fault-tolerant routing ({trials} trials/rate, seed {seed}, "
        f"{study.wall_seconds:.1f} s)"
    )
    for col in (
        "algorithm",
        "model",
        "rate",
        "faulty",
        "success",
        "95% CI",
        "avg length",
        "excess vs oracle",
    ):
        table.add_column(col, justify="right" if col not in ("algorithm", "model") else "left")
    for r in study.rows:
        table.add_row(
            r["algorithm"],
            r["model"],
            f"{r['rate']:.2f}",
            str(r["faulty_links"]),
            f"{r['success_ratio']:.4f}",
            f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
            f"{r['avg_path_length']:.3f}",
            f"{r['avg_excess_over_oracle']:.3f}",
        )
    console.print(table)
    if output is not None:
        console.print(f"plot written to {output}")


def register(app: typer.Typer) -> None:
    app.command("faults")(faults)
