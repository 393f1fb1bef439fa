"""CLI: ``export`` (edge list, JSON, GraphML, DOT, BookSim2) and ``draw`` (SVG/PNG/PDF)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ..topology.export import EXPORTERS
from ._common import listing


def export(
    spec: str = typer.Argument(..., help="topology, e.g. kantc:k=3,n=3 or graph:file=net.graphml"),
    fmt: str = typer.Option("edgelist", "--format", "-f", help=listing(EXPORTERS)),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="file to write (default: stdout)"
    ),
) -> None:
    """Write the topology with its labels and ports in a format other tools read."""
    from ..topology import build, resolve
    from ..topology.export import EXPORTERS, check_output_path, export as write

    EXPORTERS.get(fmt)  # an unknown format is refused before anything is built
    resolve(spec)
    if output is not None:
        check_output_path(output)
    topo = build(spec)
    if output is None:
        sys.stdout.flush()
        write(topo, fmt, getattr(sys.stdout, "buffer", None) or _TextSink(sys.stdout))
        sys.stdout.flush()
        if fmt == "booksim":
            print(booksim_routing_note(topo), file=sys.stderr)
        return
    for path in write(topo, fmt, output):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)
    if fmt == "booksim":
        print(booksim_routing_note(topo), file=sys.stderr)


#: Largest switches x nodes next-hop table built for the note's bound (int32 entries).
NOTE_TABLE_CELLS = 1 << 25


def booksim_routing_note(topo) -> str:
    """One line saying which routing BookSim2 will use on the exported configuration and,
    for an anynet file, what it costs: the uniform channel-load bound of BookSim2's
    ``min`` against that of the family's default routing.

    Parameters
    ----------
    topo : Topology

    Returns
    -------
    str

    Examples
    --------
    >>> import fattree
    >>> booksim_routing_note(fattree.build("kant:k=2,n=2"))[:61]
    "note: the .cfg is BookSim2's own fat tree (topology = fattree"
    """
    from ..errors import FattreeError
    from ..routing.load import channel_load
    from ..sim.booksim.routes import MAX_TABLE_SWITCHES, anynet_min_routing
    from ..topology.export import BOOKSIM_NATIVE

    if topo.family in BOOKSIM_NATIVE:
        return (
            "note: the .cfg is BookSim2's own fat tree (topology = fattree, routing_function = "
            "nca: up through a random port, down by the destination), the routing of "
            "--model booksim on this network"
        )
    head = (
        "note: BookSim2 routes an anynet file with routing_function = min only (one shortest "
        "path per pair of routers, ties to the lowest router id; on a tree all traffic between "
        "two subtrees climbs through one ancestor)"
    )
    S, N = topo.n_switches, topo.n_nodes
    if S > MAX_TABLE_SWITCHES or S * N > NOTE_TABLE_CELLS:
        return f"{head}; its bound is not computed for {S:,} switches x {N:,} nodes"
    try:
        mine = channel_load(topo, anynet_min_routing(topo))
        ours = channel_load(topo)
    except FattreeError as exc:
        return f"{head}; its bound could not be computed ({exc})"
    return (
        f"{head}: uniform-traffic channel-load bound {mine.bound:.4f} flits/node/cycle, "
        f"against {ours.bound:.4f} with this family's default routing {ours.algorithm!r} "
        f"(x{mine.bound / ours.bound:.2f}); --model booksim simulates the same min routing"
    )


class _TextSink:
    """A binary-looking wrapper for a text stream without ``.buffer`` (e.g. captured output)."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def write(self, data: bytes) -> None:
        self.stream.write(data.decode())


def draw(
    spec: str = typer.Argument(..., help="topology, e.g. mikant:k=3,n=3"),
    output: Path = typer.Option(..., "--output", "-o", help="drawing to write: .svg, .png or .pdf"),
    ports: bool = typer.Option(False, "--ports", help="write the port number at each switch end"),
    labels: bool | None = typer.Option(
        None, "--labels/--no-labels", help="vertex labels (default: when they fit)"
    ),
    max_vertices: int = typer.Option(2000, "--max-vertices", help="refuse larger topologies"),
) -> None:
    """Layered drawing like the papers' figures (switch rows by stage, nodes as circles)."""
    from ..errors import ParameterError
    from ..report.draw import SUFFIXES, check_size, draw as render
    from ..topology import build, resolve
    from ..topology.export import check_output_path

    if output.suffix.lower() not in SUFFIXES:
        raise ParameterError(
            f"output={str(output)!r} has an unknown suffix; allowed: {', '.join(SUFFIXES)}"
        )
    if max_vertices < 1:
        raise ParameterError(f"max_vertices={max_vertices} is invalid: must be at least 1")
    fam, values = resolve(spec)
    if fam.size is not None:  # refuse before building a network too large to draw
        nodes, switches, _ = fam.size(values)
        check_size(spec, nodes + switches, max_vertices)
    check_output_path(output)
    path = render(build(spec), output, ports=ports, labels=labels, max_vertices=max_vertices)
    print(f"wrote {path}", file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.command("export")(export)
    app.command("draw")(draw)
