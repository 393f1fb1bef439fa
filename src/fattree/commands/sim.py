"""CLI: simulate (one load or a latency-versus-load curve)."""

from __future__ import annotations

import math

import typer
from rich.table import Table

from ..errors import ParameterError
from ._common import console, err_console, print_json, warn_routing


def parse_loads(text: str) -> list[float]:
    """``"a:b:step"`` -> the loads a, a+step, ..., b (inclusive), each in (0, 1].

    Examples
    --------
    >>> parse_loads("0.05:0.2:0.05")
    [0.05, 0.1, 0.15, 0.2]
    """
    parts = text.split(":")
    try:
        if len(parts) != 3:
            raise ValueError
        a, b, step = (float(x) for x in parts)
        if not all(math.isfinite(x) for x in (a, b, step)) or step <= 0 or b < a:
            raise ValueError
    except ValueError:
        raise ParameterError(f"loads={text!r} is invalid: expected START:STOP:STEP with "
                             f"0 < START <= STOP <= 1 and STEP > 0, e.g. 0.05:1.0:0.05") from None
    n = int(math.floor((b - a) / step + 1e-9)) + 1
    if n > 10_000:
        raise ParameterError(f"loads={text!r} is invalid: {n} loads; at most 10000")
    loads = [round(a + i * step, 10) for i in range(n)]
    for x in loads:
        if not 0 < x <= 1:
            raise ParameterError(f"loads={text!r} is invalid: load {x} is outside (0, 1]")
    return loads


def simulate_cmd(
    spec: str = typer.Argument(..., help="topology, e.g. mikant:k=4,n=5"),
    traffic: str = typer.Option("uniform", "--traffic", "-t",
                                help="pattern: uniform, bitcomp, bitrev, transpose, shuffle, "
                                     "tornado, neighbor, randperm, hotspot:node=N,fraction=F, "
                                     "alltoone:node=N, trace:file=PATH"),
    load: float = typer.Option(None, "--load", "-l",
                               help="offered load, flits/node/cycle in (0, 1]"),
    loads: str = typer.Option(None, "--loads", help="a curve START:STOP:STEP, e.g. 0.05:1.0:0.05"),
    algorithm: str = typer.Option(None, "--algorithm", "-a",
                                  help="routing algorithm (default: the family's: dmodk on kant/clos, "
                                       "balanced on mikant; alg1 = the papers')"),
    buffer: int = typer.Option(2, "--buffer", help="FIFO depth in flits per input port and VC"),
    buffer_level0: int = typer.Option(None, "--buffer-level0",
                                      help="FIFO depth at level-0 switches (001/004 'double buffer')"),
    vcs: int = typer.Option(1, "--vcs", help="virtual channels per port"),
    packet_flits: int = typer.Option(1, "--packet-flits", help="flits per packet"),
    router_delay: int = typer.Option(0, "--router-delay", help="extra cycles per switch"),
    credit_delay: int = typer.Option(0, "--credit-delay", help="extra cycles of the credit return"),
    arbitration: str = typer.Option("random", "--arbitration", help="random or roundrobin"),
    injection: str = typer.Option(None, "--injection",
                                  help="bernoulli (default), exact (000's N·λ senders), "
                                       "bursty[:burst=B]"),
    termination: str = typer.Option("papers", "--termination",
                                    help="papers (P packets per source) or window"),
    packets_per_source: int = typer.Option(200, "--packets-per-source", "-P",
                                           help="the papers' P: first P packets of each source"),
    warmup: int = typer.Option(1000, "--warmup", help="warm-up cycles (window termination)"),
    measure: int = typer.Option(10000, "--measure", help="measured cycles (window termination)"),
    max_cycles: int = typer.Option(None, "--max-cycles", help="hard cap on simulated cycles"),
    seed: int = typer.Option(0, "--seed", help="seed of every random decision"),
    fault_rate: float = typer.Option(None, "--fault-rate",
                                     help="share of links failed at random, in [0, 1] "
                                          "(mikant, mikantc); --algorithm then names a "
                                          "fault-tolerant algorithm, e.g. gns+xt+gdl"),
    faults: str = typer.Option(None, "--faults", help="fault file: one failed link per line"),
    fault_seed: int = typer.Option(0, "--fault-seed", help="seed of the random fault set"),
    fault_model: str = typer.Option("local", "--fault-model",
                                    help="knowledge of the fault-tolerant routing: local (a "
                                         "switch sees its own links; the papers') or lookahead "
                                         "(a detour's first switch sees all of it; mikant)"),
    workers: int = typer.Option(1, "--workers", help="processes for a curve"),
    as_json: bool = typer.Option(False, "--json", help="print JSON: one object per load"),
    output: str = typer.Option(None, "--output", "-o", help="write the curve as CSV"),
) -> None:
    """Cycle-accurate wormhole simulation: latency, throughput, conflicts versus load."""
    from ..sim import SimConfig, results_frame, simulate
    from ..sim.engine import load_bound
    from ..topology import build

    if load is not None and loads is not None:
        raise ParameterError("give either --load or --loads, not both")
    points = parse_loads(loads) if loads is not None else [load]
    cfg = SimConfig(load=points[0], traffic=traffic, injection=injection, algorithm=algorithm,
                    packet_flits=packet_flits, buffer=buffer, buffer_level0=buffer_level0,
                    vcs=vcs, router_delay=router_delay, credit_delay=credit_delay,
                    arbitration=arbitration, termination=termination,
                    packets_per_source=packets_per_source, warmup=warmup, measure=measure,
                    max_cycles=max_cycles, seed=seed, fault_rate=fault_rate, faults=faults,
                    fault_seed=fault_seed, fault_model=fault_model)
    topo = build(spec)
    from ..routing import compile_routing
    from ..traffic import make_process, make_traffic

    ft = cr = None
    if cfg.faulted:  # the route table: validates the algorithm and the fault file first
        from ..sim.engine import fault_tables

        ft = fault_tables(topo, cfg)
    else:
        cr = compile_routing(topo, algorithm, seed=seed)
    tr = make_traffic(traffic, topo.n_nodes, seed=seed)  # validates before any run
    if points == [None] and not tr.timed:
        raise ParameterError("give --load L or --loads START:STOP:STEP (offered load in (0, 1])")
    make_process(injection, tr, points[0], packet_flits, seed)
    if isinstance(workers, bool) or workers < 1:
        raise ParameterError(f"workers={workers!r} is invalid: expected an integer >= 1")
    bound = load_bound(topo, tr.spec, cfg.seed, cr=cr, ft=ft)
    warn_routing(topo, cr, tr.spec, bound, cfg.seed)  # issue 13: a far better routing exists
    results = _run(spec, topo, cfg, points, bound, workers, quiet=as_json, ft=ft)
    if output:
        results_frame(results).to_csv(output, index=False)
    if as_json:
        objs = [r.to_dict() for r in results]
        print_json(objs[0] if loads is None else objs)
        return
    _print(topo, cfg, results, bound, output)


def _run(spec, topo, cfg, points, bound, workers, quiet, ft=None):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..sim import simulate

    results = [None] * len(points)
    with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.description}"),
                  console=err_console, transient=True, disable=len(points) == 1) as bar:
        task = bar.add_task("", total=len(points))
        if workers == 1 or len(points) == 1:
            for i, x in enumerate(points):
                results[i] = simulate(topo, cfg.with_load(x), bound=bound, fault_table=ft)
                bar.update(task, advance=1, description=results[i].summary())
        else:
            from concurrent.futures import ProcessPoolExecutor, as_completed

            with ProcessPoolExecutor(max_workers=workers) as pool:
                futs = {pool.submit(simulate, spec, cfg.with_load(x), bound=bound,
                                    fault_table=ft): i
                        for i, x in enumerate(points)}
                for fut in as_completed(futs):
                    results[futs[fut]] = fut.result()
                    bar.update(task, advance=1, description=results[futs[fut]].summary())
    return results


def _print(topo, cfg, results, bound, output) -> None:
    r0 = results[0]
    console.print(f"[bold]{topo.spec}[/bold]: {topo.n_nodes:,} nodes ({r0.n_sources:,} sending), "
                  f"{topo.n_switches:,} switches; routing {r0.algorithm}; traffic {r0.traffic}; "
                  f"injection {r0.injection}")
    console.print(f"model: {r0.flow_control}")
    console.print(f"termination: {_termination(cfg)}; seed {cfg.seed}")
    if cfg.faulted:
        vc = ("1 VC: the papers' routes, channel-dependency cycles possible (deadlocks "
              "reported)" if cfg.vcs == 1 else
              f"{cfg.vcs} VC classes by the escape rule (deadlock-free; routes needing more "
              f"classes are refused and counted unroutable)")
        console.print(f"faults: {r0.faulty_links} failed links (rate {cfg.fault_rate}, seed "
                      f"{cfg.fault_seed}{', file ' + cfg.faults if cfg.faults else ''}); "
                      f"fault-tolerant routing {r0.ft_algorithm} ({cfg.fault_model} knowledge), "
                      f"source-routed; {vc}")
    if bound is not None:
        whose = (f"{r0.algorithm}'s routes under these faults (routable pairs)" if cfg.faulted
                 else r0.algorithm)
        console.print(f"channel-load bound of {whose} under {r0.traffic}: saturation at or "
                      f"below {bound:.4f} flits/node/cycle")
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
        row = [f"{r.offered_load:.3f}", lat, f"{r.p99_latency:.0f}",
               f"{r.avg_network_latency:.1f}", f"{r.avg_hops:.2f}", f"{r.accepted_flits:.4f}",
               f"{r.received_ratio:.3f}", f"{r.port_conflicts_per_cycle:.1f}", f"{r.cycles:,}"]
        if cfg.faulted:
            row += [f"{r.unroutable:,}", f"{r.livelock:,}"]
        table.add_row(*row)
    console.print(table)
    console.print("latency, p99, net (network latency): cycles; accepted: flits/node/cycle; "
                  "recv: packets received / created; confl: output-port conflicts per cycle "
                  "(docs/simulator.md)"
                  + ("; unroutable, livelock: packets created but never injected (no "
                     "route under the faults / walk hit its hop limit)" if cfg.faulted else ""))
    sat = [r for r in results if r.saturated and not r.deadlock]
    if sat:
        console.print(f"saturated from load {sat[0].offered_load:.3f} "
                      f"({sat[0].saturation_reason}); latencies there are of the packets "
                      f"delivered, not a steady state")
    for r in results:
        if r.deadlock:
            console.print(f"[red]deadlock[/red] at load {r.offered_load:.3f} after {r.cycles} "
                          f"cycles; channel cycle: {' -> '.join(r.deadlock_cycle)}")
            break
    comp = results[0].compile_seconds
    console.print(f"compile {comp:.2f} s (once per process, cached); simulation "
                  f"{sum(r.wall_seconds for r in results):.2f} s"
                  + (f"; curve written to {output}" if output else ""))


def _termination(cfg) -> str:
    if cfg.termination == "window":
        return (f"warm-up {cfg.warmup} + measurement {cfg.measure} cycles, then drain; cap "
                f"{cfg.cycle_cap:,} cycles")
    return (f"each source delivered its first {cfg.packets_per_source} packets (000 §V.B); "
            f"cap {cfg.cycle_cap:,} cycles")


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate_cmd)
