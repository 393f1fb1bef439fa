"""``fattree simulate TOPO --workload SPEC``: a workload, closed loop, at packet level."""

from __future__ import annotations

from ..errors import ParameterError

MAX_PHASES_SHOWN = 16  # a longer list of phases is left to --json

#: simulate's options that set an offered load, and so mean nothing with a workload
_OPEN_LOOP = {
    "load": (None, "--load"),
    "traffic": ("uniform", "--traffic"),
    "injection": (None, "--injection"),
    "termination": ("papers", "--termination"),
}


def refuse_units_without_workload(link_rate, flit_size, clock, plot) -> None:
    """``--link-rate``, ``--flit-size``, ``--clock``, ``--plot`` act only with a workload.

    Parameters
    ----------
    link_rate, flit_size, clock, plot : str or None
        The options as given (None: not given).

    Raises
    ------
    ParameterError
        Naming the first option given.
    """
    for name, v in (
        ("link_rate", link_rate),
        ("flit_size", flit_size),
        ("clock", clock),
        ("plot", plot),
    ):
        if v is not None:
            flag = "--" + name.replace("_", "-")
            raise ParameterError(
                f"{name}={v!r} does not apply here: {flag} only acts with --workload"
            )


def run_workload(
    spec, kw: dict, *, workload, link_rate, flit_size, clock, plot, loads, output, as_json
) -> None:
    """Validate, run and print one workload (the options of ``fattree simulate``).

    Parameters
    ----------
    spec : str
        The topology.
    kw : dict
        simulate's SimConfig options.
    workload, link_rate, flit_size, clock : str or None
        The workload and its units.
    plot, output : str or None
        Timeline figure and CSV row to write.
    loads : str or None
        ``--loads`` (refused with a workload).
    as_json : bool
        Print the result as JSON.

    Raises
    ------
    ParameterError
        An option that does not apply, a bad workload or unit (before any simulation).
    """
    from ..fileio import write_atomic
    from ..sim import SimConfig
    from ..sim.workload import simulate_workload, units
    from ..topology import build
    from ..traffic.workloads import make_workload
    from ._common import check_output, console, print_json

    if loads is not None:
        raise ParameterError(
            f"loads={loads!r} does not apply here: a workload sets its own traffic"
        )
    for name, (default, flag) in _OPEN_LOOP.items():
        if kw.get(name, default) != default:
            raise ParameterError(
                f"{name}={kw[name]!r} does not apply here: {flag} sets open-loop traffic; "
                "a workload's operations are its traffic"
            )
    check_output(output, "output")
    check_output(plot, "plot")
    if plot is not None and plot.rsplit(".", 1)[-1].lower() not in ("png", "svg", "pdf"):
        raise ParameterError(f"plot={plot!r} is invalid: use a .png, .svg or .pdf file")
    units(link_rate, flit_size or "256B", clock)  # refused before any work
    cfg = SimConfig(**kw)
    if cfg.model == "booksim" and cfg.faulted:
        raise ParameterError(
            "--fault-rate/--faults are invalid with --model booksim and --workload: the "
            "booksim model simulates fault-free networks (use --model papers for faults)"
        )
    topo = build(spec)
    w = make_workload(workload, topo.n_nodes, topo.node_switch, cfg.seed)
    if cfg.algorithm is not None and not cfg.faulted:
        from ..routing import compile_routing

        compile_routing(topo, cfg.algorithm, seed=cfg.seed)
    ft = None
    if cfg.faulted:
        from ..sim.engine import fault_tables

        ft = fault_tables(topo, cfg)
    r = simulate_workload(
        topo,
        w,
        cfg,
        link_rate=link_rate,
        flit_size=flit_size or "256B",
        clock=clock,
        fault_table=ft,
    )
    if output:
        import pandas as pd

        frame = pd.DataFrame([r.to_row()])
        write_atomic(output, lambda fh: frame.to_csv(fh, index=False), binary=False)
    if plot:
        from ..report.timeline import timeline_figure

        timeline_figure(r, plot)
    if as_json:
        print_json(r.to_dict())
        return
    _print(r, console, output, plot)


def _print(r, console, output, plot) -> None:
    from rich.table import Table

    from .workload import _fmt_time, _phases_table

    t = Table(title=f"{r.workload} on {r.topology} (packet level)", show_header=False)
    t.add_column("metric")
    t.add_column("value")
    t.add_row("completion time", f"{_fmt_time(r.time_s)} ({r.cycles:,} cycles)")
    t.add_row("outcome", r.outcome)
    t.add_row("ranks / messages / packets", f"{r.ranks:,} / {r.messages:,} / {r.packets:,}")
    t.add_row("algbw / busbw", f"{r.algbw_gbps:.3f} / {r.busbw_gbps:.3f} GB/s")
    t.add_row("slowest rank", f"{r.slowest_rank} ({r.slowest_node})")
    t.add_row("bounding link", r.bounding_link)
    t.add_row("link utilisation max / mean", f"{r.max_link_util:.3f} / {r.mean_link_util:.4f}")
    if r.undelivered:
        t.add_row("undelivered messages", f"{r.undelivered:,}")
    t.add_row(
        "routing",
        r.routing + (f", faults {r.faulty_links} ({r.fault_algorithm})" if r.faulty_links else ""),
    )
    t.add_row(
        "link rate / flit / clock",
        f"{r.link_rate_gbps:g} Gb/s / {r.flit_size_bytes} B / {r.clock_mhz:g} MHz",
    )
    t.add_row("wall time (compile)", f"{r.wall_s:.2f} s ({r.compile_s:.1f} s)")
    console.print(t)
    if r.phases and len(r.phases) > MAX_PHASES_SHOWN:
        console.print(
            f"{len(r.phases):,} phases (--json lists each)", markup=False, highlight=False
        )
    elif r.phases:
        console.print(_phases_table(r.phases))
    for what, path in (("results", output), ("timeline", plot)):
        if path:
            console.print(f"{what} written to {path}", markup=False, highlight=False)
