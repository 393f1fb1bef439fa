"""CLI: fattree workload list|export, fattree flow (the flow-level model)."""

from __future__ import annotations

from pathlib import Path

import typer

workload_app = typer.Typer(
    help="Workloads: collectives (MPI and NCCL algorithms) and LogGOPSim GOAL schedules.",
    no_args_is_help=True,
)


def list_cmd(
    as_json: bool = typer.Option(False, "--json", help="print machine-readable JSON"),
) -> None:
    """List every collective, its algorithms and its options."""
    from ..traffic.workloads import describe_workloads
    from ._common import console, print_json

    rows = describe_workloads()
    if as_json:
        print_json(rows)
        return
    for row in rows:
        console.print(f"[bold]{row['name']}[/bold]: {row['title']}", highlight=False)
        console.print(f"  size: {row['size']}", markup=False, highlight=False)
        for a in row["algorithms"]:
            mark = " (default)" if a["name"] == row["default"] else ""
            pow2 = " (power-of-two rank counts only)" if a["power_of_two"] else ""
            console.print(
                f"  algorithm={a['name']}{mark}: {a['title']}{pow2}; {a['source']}",
                markup=False,
                highlight=False,
            )
        shown = {"ranks": "every node", "file": "required"}
        opts = ", ".join(
            f"{o['name']} (default {shown.get(o['name'], o['default'])})" for o in row["options"]
        )
        console.print(f"  options: {opts}", markup=False, highlight=False)


def export_cmd(
    workload: str = typer.Argument(
        ...,
        help="COLLECTIVE:algorithm=A,size=S,ranks=P (e.g. allreduce:algorithm=ring,size=1MiB,ranks=16)",
    ),
    output: Path | None = typer.Option(
        None, "-o", "--output", help="GOAL file to write (default: standard output)"
    ),
    topology: str | None = typer.Option(
        None,
        "--topology",
        "-t",
        help="place the ranks on this network (placement=leaf, algorithm=hier); "
        "default: ranks= nodes, each on its own switch",
    ),
    seed: int = typer.Option(0, "--seed", help="seed of placement=random"),
    max_ops: int = typer.Option(
        5_000_000, "--max-ops", help="refuse a schedule of more operations than this"
    ),
) -> None:
    """Write a built-in collective as a LogGOPSim GOAL text file."""
    import sys

    from ..errors import ParameterError
    from ..registry import split_spec
    from ..traffic.workloads import goal_text, make_workload
    from ._common import check_output, check_seed, console

    check_seed(seed)
    if max_ops < 1:
        raise ParameterError(f"max_ops={max_ops!r} is invalid: expected a positive integer")
    check_output(output, "output")
    name, raw = split_spec(workload, "workload", "COLLECTIVE:key=value,...", "allreduce:ranks=16")
    if name == "goal":
        raise ParameterError("workload='goal:...' is already a GOAL file; export a collective")
    if topology is not None:
        from ..topology import build

        topo = build(topology)
        n, ns = topo.n_nodes, topo.node_switch
    else:
        if "ranks" not in raw:
            raise ParameterError(
                f"workload={workload!r} is invalid: give ranks=P (e.g. "
                f"'{workload}{',' if ':' in workload else ':'}ranks=16') or --topology"
            )
        try:
            n = int(raw["ranks"])
        except ValueError:
            raise ParameterError(
                f"ranks={raw['ranks']!r} is invalid: expected an integer"
            ) from None
        ns = None
        if n < 2:
            raise ParameterError(f"ranks={n} is invalid: a collective needs at least 2 ranks")
    w = make_workload(workload, n, ns, seed)
    sched = w.schedule(max_ops=max_ops)
    if output is None:
        for chunk in goal_text(sched):
            sys.stdout.write(chunk)
        return
    from ..traffic.workloads import write_goal

    write_goal(sched, output)
    console.print(
        f"wrote {output}: {w.spec}, {sched.ranks} ranks, {sched.n_ops:,} operations",
        highlight=False,
    )


def flow_cmd(
    spec: str = typer.Argument(..., help="topology, e.g. mikant:k=8,n=4"),
    workload: str = typer.Option(
        ...,
        "--workload",
        "-w",
        help="COLLECTIVE:algorithm=A,size=S,... or goal:file=PATH (see 'fattree workload list')",
    ),
    link_rate: str = typer.Option("400Gb/s", "--link-rate", help="per direction of every link"),
    flit_size: str = typer.Option("256B", "--flit-size", help="head serialisation per hop"),
    hop_latency: str = typer.Option("100ns", "--hop-latency", help="router plus wire, per hop"),
    algorithm: str | None = typer.Option(
        None, "--algorithm", "-a", help="routing algorithm (default: the family's)"
    ),
    fault_rate: float = typer.Option(
        0.0, "--fault-rate", help="fraction of links failed at random"
    ),
    fault_algorithm: str | None = typer.Option(
        None, "--fault-algorithm", help="fault-tolerant routing (default: the family's)"
    ),
    seed: int = typer.Option(0, "--seed", help="seed of placement=random and of the faults"),
    engine: str = typer.Option(
        "auto", "--engine", help="auto, phases (collectives) or operations (dependencies)"
    ),
    workers: int = typer.Option(
        0, "--workers", help="threads for distinct phases (0: one per CPU); results do not change"
    ),
    phases: bool = typer.Option(False, "--phases", help="print the time of every phase"),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Completion time of a workload at flow level (max-min fair flows over the routes)."""
    from rich.table import Table

    from ..compiling import watch
    from ..sim.flow import flow, flow_config
    from ..topology import build
    from ..traffic.workloads import make_workload
    from ._common import check_seed, console, print_json

    check_seed(seed)
    cfg = flow_config(
        link_rate=link_rate,
        flit_size=flit_size,
        hop_latency=hop_latency,
        algorithm=algorithm,
        fault_rate=fault_rate,
        fault_algorithm=fault_algorithm,
        seed=seed,
        engine=engine,
        workers=workers,
    )
    with watch() as compiled:  # every compilation the command pays for, setup included
        topo = build(spec)
        if algorithm is not None:
            from ..routing import compile_routing

            compile_routing(topo, algorithm, seed)  # an unknown algorithm: refused before work
        w = make_workload(workload, topo.n_nodes, topo.node_switch, seed)
        r = flow(topo, w, cfg)
    r.compile_seconds = max(r.compile_seconds, compiled.seconds)
    if as_json:
        print_json(r.to_dict())
        return
    t = Table(title=f"{r.workload} on {r.topology} (flow level)", show_header=False)
    t.add_column("metric")
    t.add_column("value")
    t.add_row("completion time", _fmt_time(r.time_s))
    t.add_row("outcome", r.outcome)
    t.add_row("ranks / messages", f"{r.ranks:,} / {r.messages:,}")
    t.add_row("algbw / busbw", f"{r.algbw_gbps:.3f} / {r.busbw_gbps:.3f} GB/s")
    t.add_row("slowest rank", f"{r.slowest_rank} ({r.slowest_node})")
    t.add_row("bounding link", r.bounding_link)
    t.add_row("link utilisation max / mean", f"{r.max_link_util:.3f} / {r.mean_link_util:.4f}")
    t.add_row(
        "phases (computed)", f"{r.phases_total:,} ({r.phases_computed:,})" if r.phases else "-"
    )
    t.add_row(
        "routing",
        r.routing + (f", faults {r.faulty_links} ({r.fault_algorithm})" if r.fault_rate else ""),
    )
    t.add_row(
        "link rate / flit / hop latency",
        f"{r.link_rate_gbps:g} Gb/s / {r.flit_size_bytes} B / {r.hop_latency_ns:g} ns",
    )
    t.add_row(
        "wall time",
        f"{r.wall_s:.2f} s"
        + (f" (compile {r.compile_seconds:.2f} s, once per machine)" if r.compile_seconds else ""),
    )
    console.print(t)
    if phases and r.phases:
        console.print(_phases_table(r.phases))


def _phases_table(phases):
    """The per-phase times of a workload result (both levels) as a rich table."""
    from rich.table import Table

    pt = Table(title="phases")
    for c in ("phase", "repeat", "messages", "time", "total"):
        pt.add_column(c)
    for p in phases:
        pt.add_row(
            p["name"],
            str(p["repeat"]),
            f"{p['messages']:,}",
            _fmt_time(p["time_s"]),
            _fmt_time(p["total_s"]),
        )
    return pt


def _fmt_time(s: float) -> str:
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= f:
            return f"{s / f:.4g} {unit}"
    return f"{s * 1e9:.4g} ns"


def register(app: typer.Typer) -> None:
    workload_app.command("list")(list_cmd)
    workload_app.command("export")(export_cmd)
    app.add_typer(workload_app, name="workload")
    app.command("flow")(flow_cmd)
