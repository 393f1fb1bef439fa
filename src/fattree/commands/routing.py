"""CLI: route, routing list|check|load, deadlock (with --faults: fault-tolerant routing)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from ..traffic import PATTERNS
from ._common import console, print_json
from .sim import spec_help

routing_app = typer.Typer(
    help="Routing algorithms: list, verify on every pair, channel load.", no_args_is_help=True
)

_SPEC = typer.Argument(..., help="topology, e.g. mikant:k=4,n=5")
_ALG = typer.Option(None, "--algorithm", "-a", help="routing algorithm (default: the family's)")
_JSON = typer.Option(False, "--json", help="print machine-readable JSON")
_SEED = typer.Option(0, "--seed", help="seed of per-packet random choices")
_FAULTS = typer.Option(
    None,
    "--faults",
    help="file of faulty links, one per line ('A B' labels "
    "or a link id <G,level,D..,P>): route with a fault-tolerant algorithm",
)
_MAX_S = typer.Option(
    600.0, "--max-seconds", help="refuse when the estimated time over all pairs is longer (seconds)"
)
_MODEL = typer.Option(
    None,
    "--fault-model",
    "--model",
    help="fault-tolerant algorithms: local (default) or lookahead knowledge (docs/faults.md)",
)


def _spinner(what: str, seconds: float, quiet: bool):
    """A transient spinner with the elapsed time on stderr for work estimated at more
    than two seconds; without a terminal a progress line every 30 s (nothing with --json)."""
    from contextlib import nullcontext

    from ._common import ProgressLog, err_console

    if quiet or seconds < 2:
        return nullcontext()
    if not err_console.is_terminal:
        return ProgressLog(what, expected=seconds)
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(
        SpinnerColumn(),
        TextColumn(f"{what} (about {seconds:.0f} s)"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )
    bar.add_task(what, total=None)
    return bar


def _ft_setup(topo, algorithm, faults, model, explain=False):
    """(kind, name, faulty mask, model) after resolving the algorithm name (see
    fattree.faults.explain.resolve_route_algorithm)."""
    from ..errors import ParameterError
    from ..faults.explain import resolve_route_algorithm
    from ..faults.links import read_fault_file

    kind, name = resolve_route_algorithm(topo, algorithm, faults is not None or explain)
    if kind == "routing":
        if model is not None:
            raise ParameterError(
                f"model={model!r}: --model applies to fault-tolerant "
                f"algorithms (with --faults, or e.g. --algorithm gns)"
            )
        return kind, name, None, None
    mask = read_fault_file(topo, faults) if faults is not None else None
    return kind, name, mask, model or "local"


def route(
    spec: str = _SPEC,
    src: str = typer.Argument(..., help="source node label, e.g. n0.2.0.0.0"),
    dst: str = typer.Argument(..., help="destination node label"),
    algorithm: str = _ALG,
    as_json: bool = _JSON,
    seed: int = _SEED,
    packet: int = typer.Option(0, "--packet", help="packet key (random routing draws from it)"),
    faults: Path | None = _FAULTS,
    model: str | None = _MODEL,
    explain: bool = typer.Option(
        False,
        "--explain",
        help="explain every hop with the fault-tolerant algorithm (implied by --faults)",
    ),
) -> None:
    """Route one packet: switches, output ports and hops (as 000 Table II). With --faults
    (or --explain, or a fault-tolerant --algorithm such as gns), explain every detour."""
    from ..routing import compile_routing, route as do_route
    from ..topology import build

    topo = build(spec)
    s = topo.find_node(src, "src")
    d = topo.find_node(dst, "dst")
    kind, name, mask, model = _ft_setup(topo, algorithm, faults, model, explain)
    if kind == "faults":
        _ft_route(topo, name, s, d, mask, model, as_json, seed, packet)
        return
    cr = compile_routing(topo, algorithm, seed)
    r = do_route(topo, cr, s, d, pkt_key=packet)
    if as_json:
        print_json(r.to_dict(topo))
        return
    table = Table(title=f"{cr.algorithm} on {topo.spec}: {r.path[0]} → {topo.node_label(d)}")
    table.add_column("hop", justify="right")
    table.add_column("switch")
    table.add_column("out port", justify="right")
    table.add_column("to")
    for i, (sw, p) in enumerate(zip(r.switches, r.ports), start=1):
        table.add_row(
            str(i), topo.switch_label(sw), str(p), topo.vertex_label(int(topo.port_peer[sw, p]))
        )
    console.print(table)
    if r.delivered:
        console.print(
            f"path length: {r.hops} hops (links, both node links included), "
            f"{len(r.switches)} switches"
        )
    else:
        console.print(f"[red]not delivered[/red]: {r.status} after {len(r.switches)} switches")


def _ft_route(topo, name, s, d, mask, model, as_json, seed, packet) -> None:
    from ..faults.explain import explain_route

    e = explain_route(topo, name, s, d, mask, model=model, seed=seed, packet=packet)
    if as_json:
        print_json(e.to_dict())
        return
    n_bad = len(e.faulty_links)
    table = Table(
        title=f"{e.algorithm} ({e.model}) on {topo.spec}: {e.src} → {e.dst}, "
        f"{n_bad} faulty link{'s' if n_bad != 1 else ''}"
    )
    cols = ["hop", "switch", "out port", "to", "rule"] + (
        ["VC"] if e.rows and "vc" in e.rows[0] else []
    )
    for c in cols:
        table.add_column(c, justify="right" if c in ("hop", "out port", "VC") else "left")
    for r in e.rows:
        table.add_row(
            str(r["hop"]),
            r["switch"],
            str(r["port"]),
            r["to"],
            r["rule"],
            *([str(r["vc"])] if "vc" in r else []),
        )
    if e.rows:
        console.print(table)
    for ev in e.events:
        where = f"at {ev['switch']} (hop {ev['hop']})" if ev["switch"] else "at the source"
        console.print(f"  {where}: {ev['text']}", highlight=False)
    if e.success:
        console.print(
            f"path length: {e.hops} hops (links, both node links included), "
            f"{len(e.switches)} switches"
        )
    else:
        console.print(f"[red]not delivered[/red]: {e.status} after {len(e.switches)} switches")
    from ..faults.algorithms import FT_ALGORITHMS

    from ..faults.walks import walk_of

    walk = walk_of(topo.family)
    walked = FT_ALGORITHMS.get(e.algorithm).walked_on(topo.family)
    if e.rows and "vc" in e.rows[0] and walked and walk.vc_classes:
        console.print(
            "(VC: class of the deadlock-free escape rule, one per turn against "
            "Algorithm 1's channel order; docs/faults-deadlock.md)",
            style="dim",
        )
    elif e.rows and "vc" in e.rows[0]:
        from ..faults.rules import one_vc_layered

        one = (
            "; on 1 VC a route reaching layer 1 is refused (simulate, deadlock: the fat "
            "trees' deadlock-free rule)"
            if one_vc_layered(topo.family)
            else ""
        )
        console.print(
            "(VC: layer of the up*/down* turn rule on the surviving graph, one per "
            f"down→up turn{one}; docs/faults-families.md)",
            style="dim",
        )


def list_algorithms(
    family: str = typer.Option(None, "--family", help="only the algorithms of this family"),
    as_json: bool = _JSON,
) -> None:
    """Every routing algorithm, the families it is defined on, and its paper."""
    from ..routing import ALGORITHMS, default_algorithm

    if family is not None:
        from ..topology import FAMILIES

        FAMILIES.get(family.strip().lower())  # an unknown family: one line naming the valid ones
        family = family.strip().lower()
    rows = []
    for name, a in ALGORITHMS.items():
        if family and not a.supports(family):
            continue
        fams = "any" if a.families is None else ", ".join(a.families)
        defaults = [f for f in (a.families or ()) if default_algorithm(f) == name]
        rows.append(
            {
                "algorithm": name,
                "families": fams,
                "paper": a.paper,
                "title": a.title,
                "minimal": a.minimal,
                "adaptive": a.adaptive,
                "vcs_required": a.vcs_required,
                "default_for": defaults,
                "demo_only": a.demo,
            }
        )
    if as_json:
        print_json(rows)
        return
    table = Table(title="routing algorithms")
    for col in ("algorithm", "families", "rule", "paper", "minimal", "VCs"):
        table.add_column(col)
    for r in rows:
        name = (
            r["algorithm"]
            + (" (default)" if r["default_for"] else "")
            + (" (demo)" if r["demo_only"] else "")
        )
        table.add_row(
            name,
            r["families"],
            r["title"],
            r["paper"],
            "yes" if r["minimal"] else "no",
            str(r["vcs_required"]),
        )
    console.print(table)


def check_cmd(
    spec: str = _SPEC,
    algorithm: str = _ALG,
    as_json: bool = _JSON,
    seed: int = _SEED,
    no_paths: bool = typer.Option(False, "--no-paths", help="skip counting the routes per pair"),
    sample: int | None = typer.Option(
        None,
        "--sample",
        help="walk about N seeded pairs (sqrt(N) destinations x sqrt(N) sources), not all",
    ),
    max_seconds: float = _MAX_S,
) -> None:
    """Walk every (source, destination) pair: delivered? minimal? hop lengths, paths
    (exit code 1 when a pair fails)."""
    from ..routing.check import check, refuse_long
    from ..topology import build

    if sample is not None and sample < 1:
        from ..errors import ParameterError

        raise ParameterError(f"sample={sample} is invalid: expected a number of pairs >= 1")
    hint = "; use --sample N (e.g. --sample 1000000) or raise --max-seconds"
    refuse_long(spec, "check", max_seconds, pairs=sample, hint=hint)
    topo = build(spec)
    sec = refuse_long(topo, "check", max_seconds, pairs=sample, hint=hint)
    with _spinner(
        f"routing check: about {sample or topo.n_nodes * (topo.n_nodes - 1):,} pairs", sec, as_json
    ):
        rep = check(topo, algorithm, seed=seed, count_paths=not no_paths, sample=sample)
    if as_json:
        print_json(rep.to_dict())
        raise typer.Exit(0 if rep.ok else 1)
    verdict = "[green]OK[/green]" if rep.ok else "[red]FAILED[/red]"
    sampled = f" (a sample, seed {seed})" if rep.sample is not None else ""
    console.print(
        f"{rep.algorithm} on {rep.spec}: {verdict} — {rep.pairs:,} pairs{sampled} in "
        f"{rep.seconds:.2f} s"
    )
    console.print(
        f"  delivered {rep.delivered:,}, no route {rep.no_route:,}, loops {rep.loops:,}, "
        f"bad port {rep.bad_port:,}, longer than BFS {rep.non_minimal:,}"
        f"{' (claims minimal)' if rep.minimal_claimed else ''}"
    )
    for what, (s, t) in rep.examples.items():
        console.print(f"  first {what}: {s} → {t}")
    table = Table(title="hop lengths (links, node links included)")
    table.add_column("hops", justify="right")
    table.add_column("routes", justify="right")
    table.add_column("BFS", justify="right")
    for h in sorted(set(rep.hist) | set(rep.bfs_hist)):
        table.add_row(str(h), f"{rep.hist.get(h, 0):,}", f"{rep.bfs_hist.get(h, 0):,}")
    console.print(table)
    line = f"  mean hops {rep.mean_hops:.4f}, graph (BFS) {rep.mean_bfs:.4f}"
    if rep.paper_mean is not None:
        line += f", {rep.paper_ref} {rep.paper_mean:.4f}"
    console.print(line)
    console.print(
        f"  routes per pair: mean {rep.paths_mean:.3f}, max {rep.paths_max:.0f} "
        f"({rep.paths_counted_by}); shortest paths in the graph: mean "
        f"{rep.sp_paths_mean:.3f}, max {rep.sp_paths_max:.0f}"
    )
    if not rep.ok:
        raise typer.Exit(1)


def load_cmd(
    spec: str = _SPEC,
    algorithm: str = _ALG,
    traffic: str = typer.Option("uniform", "--traffic", "-t", help=spec_help(PATTERNS)),
    as_json: bool = _JSON,
    seed: int = _SEED,
    max_seconds: float = _MAX_S,
    faults: Path | None = _FAULTS,
    model: str | None = _MODEL,
    vcs: int = typer.Option(
        1,
        "--vcs",
        help="with --faults: virtual channels of the fault-tolerant routing (a route needing "
        "more VC classes is unroutable, as in simulate)",
    ),
) -> None:
    """Channel load per unit injection rate, γ_max and the throughput bound 1/γ_max. With
    --faults (or a fault-tolerant --algorithm such as gns): the bound of the routes that
    fault-tolerant routing delivers under that fault set (what simulate --faults shows)."""
    from ..routing.check import refuse_long
    from ..routing.load import channel_load
    from ..topology import build

    hint = "; try a smaller network or raise --max-seconds"
    refuse_long(spec, "load", max_seconds, hint=hint)
    topo = build(spec)
    sec = refuse_long(topo, "load", max_seconds, hint=hint)
    if faults is not None or model is not None or vcs != 1:
        kind, name, mask, fmodel = _ft_setup(topo, algorithm, faults, model)
    else:
        kind, name, mask, fmodel = _ft_setup(topo, algorithm, None, None)
    if kind == "faults":
        _ft_load(topo, name, mask, fmodel, traffic, seed, vcs, as_json, sec)
        return
    if vcs != 1:
        from ..errors import ParameterError

        raise ParameterError(
            f"vcs={vcs}: --vcs applies to fault-tolerant routing (with --faults, or e.g. "
            "--algorithm gns); the channel load of a fault-free routing does not depend on it"
        )
    with _spinner(f"channel load over {topo.n_nodes * (topo.n_nodes - 1):,} pairs", sec, as_json):
        rep = channel_load(topo, algorithm, traffic, seed=seed)
    if as_json:
        print_json(rep.to_dict())
        return
    console.print(
        f"{rep.algorithm} on {rep.spec}, traffic {rep.traffic} ({rep.evaluation}), "
        f"{rep.seconds:.2f} s"
    )
    console.print(
        f"  γ_max = {rep.gamma_max:.4f} → throughput bound 1/γ_max = {rep.bound:.4f} "
        f"of the injection bandwidth; mean hops {rep.mean_hops:.4f}"
    )
    for label, g in rep.busiest[:3]:
        console.print(f"  busiest: {label}  γ = {g:.4f}")
    table = Table(title="load per level and direction")
    for col in ("level", "direction", "channels", "mean γ", "max γ"):
        table.add_column(col, justify="right" if col != "direction" else "left")
    for r in rep.by_class:
        table.add_row(
            str(r["level"]),
            r["direction"],
            str(r["channels"]),
            f"{r['mean']:.4f}",
            f"{r['max']:.4f}",
        )
    console.print(table)


def _ft_load(topo, name, mask, model, traffic, seed, vcs, as_json, sec) -> None:
    """``routing load --faults``: the bound of the surviving routes
    (:func:`fattree.sim.faulthop.router_load_bound`, the bound simulate prints)."""
    import numpy as np

    from ..errors import ParameterError
    from ..faults.view import fault_router
    from ..sim.faulthop import BOUND_MAX_PAIRS, router_load_bound

    if isinstance(vcs, bool) or not 1 <= vcs <= 16:
        raise ParameterError(f"vcs={vcs!r} is invalid: an integer from 1 to 16")
    if topo.n_nodes**2 > BOUND_MAX_PAIRS:
        raise ParameterError(
            f"faults: {topo.spec} has {topo.n_nodes:,} nodes; the fault-tolerant channel "
            f"load walks every pair, at most {BOUND_MAX_PAIRS:,} pairs"
        )
    faulty = mask if mask is not None else np.zeros(topo.n_links, bool)
    with _spinner(
        f"fault-tolerant routes over {topo.n_nodes * (topo.n_nodes - 1):,} pairs", sec, as_json
    ):
        fr = fault_router(topo, name, faulty, vcs, model)
        bound = router_load_bound(topo, fr, traffic, seed, vcs)
    if bound is None:
        raise ParameterError(
            f"traffic={traffic!r} is invalid for channel load: a rate pattern is needed "
            "(uniform, hotspot or a permutation), not a trace"
        )
    out = {
        "spec": topo.spec,
        "algorithm": fr.algorithm,
        "model": model,
        "traffic": traffic,
        "seed": seed,
        "vcs": vcs,
        "faulty_links": int(np.count_nonzero(faulty)),
        "bound": bound if np.isfinite(bound) else None,
    }
    if as_json:
        print_json(out)
        return
    console.print(
        f"{fr.algorithm} ({model} knowledge, {vcs} VC{'s' if vcs > 1 else ''}) on {topo.spec} "
        f"with {out['faulty_links']} failed links, traffic {traffic}"
    )
    console.print(
        f"  throughput bound 1/γ_max = {bound:.4f} of the injection bandwidth: every pair "
        "the fault-tolerant routing delivers walked once (unroutable pairs load nothing, "
        "as in simulate)"
    )


def deadlock_cmd(
    spec: str = _SPEC,
    algorithm: str = _ALG,
    vcs: int = typer.Option(1, "--vcs", help="virtual channels per link"),
    as_json: bool = _JSON,
    seed: int = _SEED,
    faults: Path | None = _FAULTS,
    model: str | None = _MODEL,
    vc_rule: str = typer.Option(
        "auto",
        "--vc-rule",
        help="fault-tolerant algorithms: none "
        "(all on VC 0), escape (a class per turn, deadlock-free), detour "
        "(VC 1 from the first detour hop: not deadlock-free); auto: none "
        "with 1 VC (fat trees: up*/down* turns refused, as the simulator), escape with more",
    ),
    max_seconds: float = _MAX_S,
) -> None:
    """Channel dependency graph (Dally & Seitz): acyclic, or one cycle and its routes
    (exit code 1 when cyclic). With --faults (or --algorithm all / a fault-tolerant name):
    the delivered routes of fault-tolerant routing under those faults."""
    from ..routing.check import refuse_long
    from ..routing.deadlock import deadlock
    from ..topology import build

    if vc_rule not in ("auto", "none", "escape", "detour"):
        from ..errors import ParameterError

        raise ParameterError(f"vc_rule={vc_rule!r} is invalid: one of auto, none, escape, detour")
    hint = "; try a smaller network or raise --max-seconds"
    refuse_long(spec, "deadlock", max_seconds, hint=hint)
    topo = build(spec)
    sec = refuse_long(topo, "deadlock", max_seconds, hint=hint)
    if algorithm is not None and algorithm.strip().lower() == "all":
        _ft_deadlock(topo, "all", faults, model, vcs, vc_rule, as_json)
        return
    kind, name, _, _ = _ft_setup(topo, algorithm, faults, model)
    if kind == "faults":
        _ft_deadlock(topo, name, faults, model, vcs, vc_rule, as_json)
        return
    if vc_rule != "auto":
        from ..errors import ParameterError

        raise ParameterError(
            f"vc_rule={vc_rule!r}: --vc-rule applies to fault-tolerant "
            "algorithms (with --faults, or e.g. --algorithm gns)"
        )
    with _spinner("channel dependency graph", sec, as_json):
        rep = deadlock(topo, algorithm, vcs=vcs, seed=seed)
    if as_json:
        print_json(rep.to_dict())
        raise typer.Exit(0 if rep.acyclic else 1)
    head = (
        f"{rep.algorithm} on {rep.spec} with {rep.vcs} VC{'s' if rep.vcs > 1 else ''}: "
        f"{rep.channels:,} channels, {rep.dependencies:,} dependencies ({rep.method}), "
        f"{rep.seconds:.2f} s"
    )
    console.print(head)
    if rep.acyclic:
        console.print("[green]acyclic[/green]: deadlock-free (Dally & Seitz)")
        return
    console.print(f"[red]cycle[/red] of {len(rep.cycle)} channels:")
    for c in rep.cycle:
        console.print(f"  {c}")
    console.print("created by:")
    for r in rep.routes:
        console.print(f"  {r['dependency']}: {r['src']} → {r['dst']} via {' → '.join(r['path'])}")
    if rep.vcs < rep.vcs_required:
        console.print(f"({rep.algorithm} needs {rep.vcs_required} VCs)")
    raise typer.Exit(1)


def _ft_deadlock(topo, names, faults, model, vcs, vc_rule, as_json) -> None:
    from ..faults.algorithms import check_model
    from ..faults.cdg import algorithms_for_deadlock, ft_deadlock
    from ..faults.explain import resolve_route_algorithm
    from ..faults.links import read_fault_file

    model = check_model(model or "local")
    if names == "all":
        resolve_route_algorithm(topo, None, True)  # the family must have fault tolerance
        algs = algorithms_for_deadlock(topo.family, "all")
    else:
        algs = [names]
    mask = read_fault_file(topo, faults) if faults is not None else None
    reps = [ft_deadlock(topo, a, mask, model=model, vcs=vcs, vc_rule=vc_rule) for a in algs]
    cyclic = any(not r.acyclic for r in reps)
    if as_json:
        print_json([r.to_dict() for r in reps] if names == "all" else reps[0].to_dict())
        raise typer.Exit(1 if cyclic else 0)
    r0 = reps[0]
    console.print(
        f"{topo.spec}: {r0.faulty_links} faulty link{'s' if r0.faulty_links != 1 else ''}"
        f", {model} model, {r0.vcs} VC{'s' if r0.vcs > 1 else ''} (rule {r0.vc_rule}); "
        f"channel dependencies of every delivered route of {r0.pairs:,} pairs",
        highlight=False,
    )
    if len(reps) > 1:
        for r in reps:
            verdict = (
                "[green]acyclic[/green]"
                if r.acyclic
                else f"[red]cycle[/red] of {len(r.cycle)} channels from {r.cycle[0]}"
            )
            bound = "hop limit" if r.classes_bound is None else r.classes_bound
            extra = (
                f", refused {r.refused:,}, VC classes used {r.classes_needed} of at most {bound}"
                if r.vc_rule == "escape"
                else ""
            )
            if r.layers_needed is not None:
                extra += (f", refused {r.refused:,}" if r.vc_rule != "none" else "") + (
                    f", needs {r.layers_needed} up*/down* VC layer"
                    f"{'s' if r.layers_needed != 1 else ''}"
                )
            console.print(
                f"  {r.algorithm:20s} {verdict} (delivered {r.delivered:,}{extra})", highlight=False
            )
        console.print(
            "(--algorithm NAME prints a cycle's channels and the routes creating it)", style="dim"
        )
        raise typer.Exit(1 if cyclic else 0)
    r = r0
    refused = (
        f" ({r.refused:,} refused: they need more than {r.vcs} VC classes)"
        if r.vc_rule != "none"
        else ""
    )
    console.print(
        f"{r.algorithm}: {r.delivered:,} routes delivered{refused}, "
        f"{r.not_delivered:,} not; {r.channels:,} channels, {r.dependencies:,} "
        f"dependencies, {r.seconds:.2f} s",
        highlight=False,
    )
    if r.vc_rule != "none":
        console.print(f"  routes by highest VC class: {r.classes}", highlight=False)
    if r.layers_needed is not None:
        console.print(
            f"  {r.algorithm} needs {r.layers_needed} VC layer"
            f"{'s' if r.layers_needed != 1 else ''} (one per down→up turn of the "
            f"up*/down* orientation of the surviving graph; --vcs "
            f"{max(r.layers_needed, 2)} proves it acyclic; docs/faults.md)",
            highlight=False,
        )
    if r.vc_rule == "escape":
        bound = (
            "only the hop limit bounds its turns"
            if r.classes_bound is None
            else f"{r.classes_bound} classes suffice under any faults"
        )
        console.print(
            f"  {r.algorithm}: {bound} (one class per turn against Algorithm 1's "
            f"channel order; docs/faults-deadlock.md)",
            highlight=False,
        )
    if r.acyclic:
        console.print("[green]acyclic[/green]: deadlock-free (Dally & Seitz)")
        return
    console.print(f"[red]cycle[/red] of {len(r.cycle)} channels:")
    for c in r.cycle:
        console.print(f"  {c}", highlight=False)
    console.print("created by:")
    for w in r.routes:
        note = f" ({w['note']})" if "note" in w else ""
        console.print(
            f"  {w['dependency']}: {w['src']} → {w['dst']} via {' → '.join(w['path'])}{note}",
            highlight=False,
        )
    raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("route")(route)
    app.command("deadlock")(deadlock_cmd)
    routing_app.command("list")(list_algorithms)
    routing_app.command("check")(check_cmd)
    routing_app.command("load")(load_cmd)
    app.add_typer(routing_app, name="routing")
