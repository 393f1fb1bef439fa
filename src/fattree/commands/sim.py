"""CLI: simulate (one load or a latency-versus-load curve)."""

from __future__ import annotations


import typer
from rich.table import Table

from ..errors import ParameterError
from ..fileio import write_atomic
from ..sim.config import parse_loads
from ._common import check_output, check_workers, console, print_json, warn_routing


def spec_help(registry, skip_internal: bool = False) -> str:
    """The names of a pattern or process registry with their options, for a help text
    (aliases left out): ``"uniform[:include_self=B], bitcomp, ..."``.

    Examples
    --------
    >>> from fattree.traffic import PATTERNS
    >>> spec_help(PATTERNS).split(", ")[:2]
    ['uniform[:include_self=B]', 'bitcomp']
    """
    out = []
    for name, obj in registry.items():
        alias = getattr(obj, "name", name) != name
        if alias or (skip_internal and getattr(obj, "internal", False)):
            continue
        kinds = {int: "N", float: "F", bool: "B", str: "S"}
        opts = ",".join(f"{o.name}={kinds.get(o.kind, 'V')}" for o in obj.options)
        out.append(f"{name}[:{opts}]" if opts else name)
    return ", ".join(out)


def _option_help(f) -> str:
    from ..traffic import INJECTIONS, PATTERNS

    text = f.metadata["help"]
    if f.name == "traffic":
        text += ": " + spec_help(PATTERNS)
    elif f.name == "injection":
        text += ": " + spec_help(INJECTIONS, skip_internal=True) + " (default bernoulli)"
    elif "choices" in f.metadata and f.metadata["choices"][0] not in text:
        text += ": " + " or ".join(f.metadata["choices"])
    return text


def _signature():
    """simulate's parameters: the topology, one option per CLI field of SimConfig (flags,
    help and default from the field's metadata), then the CLI's own options."""
    import dataclasses
    import inspect

    from ..sim.config import SimConfig

    P = inspect.Parameter
    params = [
        P(
            "spec",
            P.KEYWORD_ONLY,
            annotation=str,
            default=typer.Argument(..., help="topology, e.g. mikant:k=4,n=5"),
        )
    ]
    for f in dataclasses.fields(SimConfig):
        if not f.metadata.get("cli", False):
            continue
        flags = f.metadata.get("flags", ("--" + f.name.replace("_", "-"),))
        default = f.metadata.get("cli_default", f.default)
        kind = {"int": int, "float": float, "bool": bool}.get(str(f.type).split(" ")[0], str)
        params.append(
            P(
                f.name,
                P.KEYWORD_ONLY,
                annotation=kind,
                default=typer.Option(default, *flags, help=_option_help(f)),
            )
        )
        if f.name == "load":
            params.append(
                P(
                    "loads",
                    P.KEYWORD_ONLY,
                    annotation=str,
                    default=typer.Option(
                        None, "--loads", help="a curve START:STOP:STEP, e.g. 0.05:1.0:0.05"
                    ),
                )
            )
    params += [  # a workload, closed loop (commands/_simwork.py)
        P(
            name,
            P.KEYWORD_ONLY,
            annotation=str,
            default=typer.Option(None, *flags, help=text),
        )
        for name, flags, text in _WORKLOAD_OPTIONS
    ]
    params += [
        P(
            "workers",
            P.KEYWORD_ONLY,
            annotation=int,
            default=typer.Option(1, "--workers", help="processes for a curve"),
        ),
        P(
            "as_json",
            P.KEYWORD_ONLY,
            annotation=bool,
            default=typer.Option(False, "--json", help="print JSON: one object per load"),
        ),
        P(
            "output",
            P.KEYWORD_ONLY,
            annotation=str,
            default=typer.Option(
                None, "--output", "-o", "--csv", help="write the curve as CSV (-o and --csv alike)"
            ),
        ),
    ]
    return inspect.Signature(params)


_WORKLOAD_OPTIONS = (
    (
        "workload",
        ("--workload", "-w"),
        "run a workload closed loop instead of a load: COLLECTIVE:algorithm=A,size=S,... or "
        "goal:file=PATH (see 'fattree workload list')",
    ),
    ("link_rate", ("--link-rate",), "with --workload: link rate (default 400Gb/s)"),
    ("flit_size", ("--flit-size",), "with --workload: flit size (default 256B)"),
    ("clock", ("--clock",), "with --workload: router clock (default link rate / flit size)"),
    ("plot", ("--plot",), "with --workload: write the run's timeline figure (.png, .pdf, .svg)"),
)


def simulate_cmd(**kw) -> None:
    """Cycle-accurate wormhole simulation: latency, throughput, conflicts versus load."""
    from ..compiling import watch

    with watch() as w:  # every compilation the command pays for, setup included
        _simulate_cmd(w, **kw)


def _simulate_cmd(w, **kw) -> None:
    from ..sim import results_frame
    from ..sim.engine import load_bound
    from ..sim.setup import prepare

    spec, loads, workers, as_json, output = (
        kw.pop(k) for k in ("spec", "loads", "workers", "as_json", "output")
    )
    wopts = {name: kw.pop(name) for name, _, _ in _WORKLOAD_OPTIONS}
    from ._simwork import refuse_units_without_workload, run_workload

    if wopts["workload"] is not None:
        return run_workload(spec, kw, loads=loads, output=output, as_json=as_json, **wopts)
    refuse_units_without_workload(*(wopts[k] for k in ("link_rate", "flit_size", "clock", "plot")))
    cfg, points = _validate(kw, loads, workers, output)  # every option, before any work
    setup = prepare(spec, cfg, loads=points)  # routing, traffic, process, memory: once
    topo, ft = setup.topo, setup.faults
    cr = None if ft is not None else setup.routing
    bound = None
    from ..sim.models import MODELS

    if MODELS.get(cfg.model).routing_bound:  # booksim routes with BookSim2's nca / min
        bound = load_bound(topo, setup.traffic, cfg.seed, cr=cr, ft=ft, vcs=cfg.vcs)
        warn_routing(topo, cr, setup.traffic.spec, bound, cfg.seed)  # a far better routing exists
    results = _run(spec, setup, points, bound, workers, quiet=as_json)
    if output:
        frame = results_frame(results)
        write_atomic(output, lambda fh: frame.to_csv(fh, index=False), binary=False)
    if as_json:
        objs = [r.to_dict() for r in results]
        print_json(objs[0] if loads is None else objs)
        return
    _print(topo, cfg, results, bound, output, ft, w)


def _validate(kw: dict, loads, workers, output):
    """The command's options checked where they are defined (each range in one place:
    ``SimConfig``'s fields, :func:`~fattree.sim.config.parse_loads`, the pattern
    registry), before anything is built. Returns the configuration at the first load
    and the loads (``[None]``: a trace's own times)."""
    from ..sim import SimConfig
    from ..traffic.patterns import PATTERNS, parse_pattern

    load = kw["load"]
    check_output(output, "output")  # before any work (commands/_common.py: one rule)
    if load is not None and loads is not None:
        raise ParameterError("give either --load or --loads, not both")
    points = parse_loads(loads) if loads is not None else [load]
    cfg = SimConfig(**(kw | {"load": points[0]}))
    _refuse_unused(kw, cfg)
    timed = PATTERNS.get(parse_pattern(cfg.traffic)[0]).timed
    if timed and points != [None]:  # a trace sets its own injection times
        raise ParameterError(
            f"load={loads or load!r} does not apply to traffic {cfg.traffic!r}: a "
            "trace gives every injection time; drop --load/--loads"
        )
    if points == [None] and not timed:
        raise ParameterError("give --load L or --loads START:STOP:STEP (offered load in (0, 1])")
    check_workers(workers, minimum=1)
    return cfg, points


#: options that only apply in some configurations: (field, applies?, when it applies)
_APPLIES = (
    ("fault_seed", lambda c: c.fault_rate is not None, "with --fault-rate (random faults)"),
    ("fault_pool", lambda c: c.fault_rate is not None, "with --fault-rate (random faults)"),
    ("fault_model", lambda c: c.faulted, "with --fault-rate or --faults"),
    ("warmup", lambda c: c.termination == "window", "with --termination window"),
    ("measure", lambda c: c.termination == "window", "with --termination window"),
    ("packets_per_source", lambda c: c.termination == "papers", "with --termination papers"),
)


def _refuse_unused(kw: dict, cfg) -> None:
    """An option given a value other than its default where it does nothing is an error
    (one line naming it and when it applies), never silently ignored."""
    import dataclasses

    fields = {f.name: f for f in dataclasses.fields(cfg)}
    for name, applies, when in _APPLIES:
        f = fields.get(name)
        if f is None or name not in kw or applies(cfg):
            continue
        default = f.metadata.get("cli_default", f.default)
        if kw[name] != default:
            flag = f.metadata.get("flags", ("--" + name.replace("_", "-"),))[0]
            raise ParameterError(
                f"{name}={kw[name]!r} does not apply here: {flag} only acts {when}"
            )


def _run(spec, setup, points, bound, workers, quiet):
    from ..sim import simulate
    from ..sim.setup import run
    from ._common import ProgressLine

    topo, cfg, ft = setup.topo, setup.cfg, setup.faults
    results = [None] * len(points)
    if len(points) == 1:
        results[0] = _single(setup.at(points[0]), bound, quiet)
        return results
    with ProgressLine(
        f"simulating {topo.spec}", total=len(points), unit="loads", quiet=quiet
    ) as bar:
        if workers == 1:
            for i, x in enumerate(points):
                results[i] = run(setup.at(x), bound=bound)
                bar.update(i + 1, description=results[i].summary())
        else:  # each process sets its load up from the spec
            from concurrent.futures import ProcessPoolExecutor, as_completed

            with ProcessPoolExecutor(max_workers=workers) as pool:
                futs = {
                    pool.submit(simulate, spec, cfg.with_load(x), bound=bound, fault_table=ft): i
                    for i, x in enumerate(points)
                }
                for done, fut in enumerate(as_completed(futs), 1):
                    results[futs[fut]] = fut.result()
                    bar.update(done, description=results[futs[fut]].summary())
    return results


def expected_cycles(cfg) -> int:
    """About how many cycles a run takes below saturation (the progress bar's total):
    warm-up and measurement (window), or P packets at the offered rate (papers)."""
    if cfg.termination == "window":
        return cfg.warmup + cfg.measure
    return int(min(cfg.cycle_cap, cfg.packets_per_source * cfg.packet_flits / (cfg.load or 1.0)))


def _single(setup, bound, quiet):
    """One simulation; on a terminal a progress bar of simulated cycles, fed by the
    kernel's chunks (:data:`fattree.sim.engine.CHUNK` cycles each); then one final line
    with the cycles simulated (commands/_common.py: ProgressLine)."""
    from ..sim.setup import run
    from ._common import ProgressLine

    total = max(expected_cycles(setup.cfg), 1)
    name = setup.topo.spec
    with ProgressLine(f"simulating {name}", total=None, unit="cycles", quiet=quiet) as bar:

        def tick(cycle, cap):
            bar.update(cycle, total=max(total, cycle))

        r = run(setup, bound=bound, progress=tick)
        bar.finish(f"simulating {name}: {r.cycles:,} cycles in {bar.seconds:.1f} s")
    return r


def _print(topo, cfg, results, bound, output, ft=None, w=None) -> None:
    r0 = results[0]
    console.print(
        f"[bold]{topo.spec}[/bold]: {topo.n_nodes:,} nodes ({r0.n_sources:,} sending), "
        f"{topo.n_switches:,} switches; routing {r0.algorithm}; traffic {r0.traffic}; "
        f"injection {r0.injection}"
    )
    console.print(f"model: {r0.flow_control}")
    console.print(f"termination: {_termination(cfg)}; seed {cfg.seed}")
    if cfg.faulted:
        vc = (
            "1 VC: up*/down* routes only (a route turning down->up needs a second VC class: "
            "refused, counted unroutable; deadlock-free)"
            if cfg.vcs == 1 and ft.one_vc_layered
            else "1 VC: the papers' routes, channel-dependency cycles possible (deadlocks reported)"
            if cfg.vcs == 1
            else f"{cfg.vcs} VC classes ({ft.vc_rule}; deadlock-free; routes needing more classes are "
            f"refused and counted unroutable)"
        )
        if cfg.faults is not None and cfg.fault_rate is not None:  # both: their union
            where = (
                f"the links of file {cfg.faults} plus a random share {cfg.fault_rate} of all "
                f"links (seed {cfg.fault_seed}), both applied"
            )
        elif cfg.faults is not None:
            where = f"file {cfg.faults}"
        else:
            where = f"rate {cfg.fault_rate}, seed {cfg.fault_seed}"
        if cfg.fault_pool == "switch-only" and cfg.fault_rate is not None:
            where += "; the random share of switch-to-switch links only"
        console.print(
            f"faults: {r0.faulty_links} failed links ({where}); "
            f"fault-tolerant routing {r0.ft_algorithm} ({cfg.fault_model} knowledge), "
            f"routed hop by hop; {vc}"
        )
    if bound is not None:
        whose = (
            f"{r0.algorithm}'s routes under these faults (routable pairs)"
            if cfg.faulted
            else r0.algorithm
        )
        console.print(
            f"channel-load bound of {whose} under {r0.traffic}: saturation at or "
            f"below {bound:.4f} flits/node/cycle"
        )
    table = Table()
    cols = ["load", "latency", "p99", "net", "hops", "accepted", "recv", "confl", "cycles"]
    if cfg.faulted:
        cols += ["unroutable", "livelock"]
    for col in cols:
        table.add_column(col, justify="right")
    for r in results:
        if r.deadlock:
            lat = "[red]deadlock[/red]"
        elif r.saturated:
            lat = f"[yellow]sat.[/yellow] {r.avg_latency:.0f}"
        else:
            lat = f"{r.avg_latency:.2f}"
        confl = r.port_conflicts_per_cycle  # NaN where the model does not count them
        row = [
            f"{r.offered_load:.3f}",
            lat,
            f"{r.p99_latency:.0f}",
            f"{r.avg_network_latency:.1f}",
            f"{r.avg_hops:.2f}",
            f"{r.accepted_flits:.4f}",
            f"{r.received_ratio:.3f}",
            "-" if confl != confl else f"{confl:.1f}",
            f"{r.cycles:,}",
        ]
        if cfg.faulted:
            row += [f"{r.unroutable:,}", f"{r.livelock:,}"]
        table.add_row(*row)
    console.print(table)
    console.print(
        "latency, p99, net (network latency): cycles; accepted: flits/node/cycle; "
        "recv: packets received / created; confl: output-port conflicts per cycle "
        "(docs/simulator.md)"
        + (
            "; unroutable, livelock: packets created but never injected (no "
            "route under the faults / walk hit its hop limit)"
            if cfg.faulted
            else ""
        )
    )
    sat = [r for r in results if r.saturated and not r.deadlock]
    if sat:
        console.print(
            f"saturated from load {sat[0].offered_load:.3f} "
            f"({sat[0].saturation_reason}); latencies there are of the packets "
            f"delivered, not a steady state"
        )
    for r in results:
        if r.deadlock:
            console.print(
                f"[red]deadlock[/red] at load {r.offered_load:.3f} after {r.cycles} "
                f"cycles; channel cycle: {' -> '.join(r.deadlock_cycle)}"
            )
            break
    comp = max(w.seconds if w is not None else 0.0, sum(r.compile_seconds for r in results))
    console.print(
        f"compile {comp:.2f} s (once per machine: numba's cache); simulation "
        f"{sum(r.wall_seconds for r in results):.2f} s"
        + (f"; curve written to {output}" if output else "")
    )


def _termination(cfg) -> str:
    from ..sim.models import MODELS

    line = MODELS.get(cfg.model).termination  # a model with its own sampling (booksim)
    if line is not None:
        return line(cfg)
    if cfg.termination == "window":
        return (
            f"warm-up {cfg.warmup} + measurement {cfg.measure} cycles, then drain; cap "
            f"{cfg.cycle_cap:,} cycles"
        )
    return (
        f"each source delivered its first {cfg.packets_per_source} packets (000 §V.B); "
        f"cap {cfg.cycle_cap:,} cycles"
    )


simulate_cmd.__signature__ = _signature()
simulate_cmd.__annotations__ = {
    p.name: p.annotation for p in simulate_cmd.__signature__.parameters.values()
}


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate_cmd)
