"""Layered drawings of a topology, in the style of the papers' figures (000 Figs. 1-4).

Switches are rectangles in rows by :attr:`Topology.switch_layer` (layer 0 at the
bottom), compute nodes circles in a row below their leaf switches, or above them for
leaves in the upper half of the rows (MiKANT's group 1, the far end of a Clos
network). Within a row, vertices are spread evenly in id order, i.e. in the papers'
label order; a leaf switch sits at the centre of its nodes.
"""

from __future__ import annotations

from ..fileio import write_atomic

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import OutputFileError, ParameterError
from ..topology.core import Topology
from ..topology.export import check_output_path, node_above

MAX_VERTICES = 2000  # above this a drawing is unreadable; export to dot/graphml instead
SUFFIXES = (".svg", ".png", ".pdf")
ROW_GAP = 2.5  # vertical distance between rows, in units of the widest row's spacing


@dataclass(frozen=True)
class Layout:
    """Positions of every vertex (nodes, then switches) in drawing units.

    ``row`` is the drawing row: a switch's layer; for a compute node -1 (row below the
    bottom layer), ``top + 1`` (row above the top layer) or the layer of the switch it
    hangs on. ``width`` is the number of unit slots of the widest row (x from 0 to it).
    """

    x: np.ndarray
    y: np.ndarray
    row: np.ndarray
    width: float


def check_size(spec: str, vertices: int, max_vertices: int = MAX_VERTICES) -> None:
    """Refuse a drawing of more than ``max_vertices`` vertices, suggesting an export."""
    if vertices > max_vertices:
        raise ParameterError(
            f"draw: {spec} has {vertices:,} vertices, more than max_vertices={max_vertices:,} that a "
            f"drawing can show legibly; export it instead: fattree export {spec} --format dot -o FILE.dot"
        )


def layout(topo: Topology) -> Layout:
    """Layered positions: switch rows by layer, compute nodes next to their switch.

    Nodes of a leaf in the bottom (top) layer form a row below (above) the switches;
    nodes of a switch in a middle layer (hybrids, cubes) hang just below or above it.
    A switch's nodes are centred on it in port order, so a leaf sits in the middle of
    its nodes as in the papers' figures.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("mikant:k=2,n=2")
    >>> lay = layout(t)
    >>> lay.row.tolist()  # group-0 nodes below, group-1 nodes above, then the switches
    [-1, -1, -1, -1, 2, 2, 2, 2, 0, 0, 1, 1]
    >>> lay.x[t.n_nodes:].tolist(), lay.x[:4].tolist()
    ([1.0, 3.0, 1.0, 3.0], [0.5, 2.5, 1.5, 3.5])

    References
    ----------
    000 Figs. 1-4 (layered drawings), 001 Fig. 1, 004 Fig. 1.
    """
    n, s = topo.n_nodes, topo.n_switches
    layer = topo.switch_layer.astype(np.int64)
    top = int(layer.max()) if s else 0
    above = node_above(topo)
    sw = topo.node_switch.astype(np.int64)
    # rank of each switch within its row, in id order
    order = np.lexsort((np.arange(s), layer))
    rank = np.empty(s, np.int64)
    rank[order] = np.arange(s) - np.searchsorted(layer[order], layer[order], side="left")
    per_switch = np.bincount(sw, minlength=s)
    need = np.bincount(layer, weights=np.maximum(per_switch, 1), minlength=top + 1)
    width = float(max(need.max(initial=1.0), 1.0))
    slot = width / np.bincount(layer, minlength=top + 1)[layer]
    sx = (rank + 0.5) * slot
    sy = (layer + 1.0) * ROW_GAP
    # a node's place among its switch's nodes, by port
    nord = np.lexsort((topo.node_port, sw))
    j = np.empty(n, np.int64)
    j[nord] = np.arange(n) - np.searchsorted(sw[nord], sw[nord], side="left")
    c = per_switch[sw]
    step = np.minimum(1.0, slot[sw] / c)
    nx = sx[sw] + (j - (c - 1) / 2) * step
    leaf_row = np.where(above, layer[sw] == top, layer[sw] == 0)
    row = np.where(leaf_row, np.where(above, top + 1, -1), layer[sw])
    hang = np.where(above, 1.0, -1.0) * np.where(leaf_row, ROW_GAP, 1.1)
    ny = sy[sw] + hang
    return Layout(
        x=np.concatenate([nx, sx]),
        y=np.concatenate([ny, sy]),
        row=np.concatenate([row, layer]),
        width=width,
    )


def draw(
    topo: Topology,
    path: str | os.PathLike,
    *,
    ports: bool = False,
    labels: bool | None = None,
    max_vertices: int = MAX_VERTICES,
) -> Path:
    """Draw ``topo`` to an SVG, PNG or PDF file (by suffix) and return the path.

    Parameters
    ----------
    topo : Topology
        At most ``max_vertices`` vertices.
    path : path
        Output file; its suffix (``.svg``, ``.png``, ``.pdf``) picks the format.
    ports : bool
        Write the port number at the switch end of every link (000 §IV, Fig. 3).
    labels : bool or None
        Write vertex labels; ``None``: when they fit.

    Examples
    --------
    >>> import fattree, tempfile, os
    >>> out = draw(fattree.build("kant:k=2,n=2"), os.path.join(tempfile.mkdtemp(), "k22.svg"))
    >>> out.read_text()[:5]
    '<?xml'

    References
    ----------
    000 Figs. 1-4 (MiKANT and Clos drawings), §IV (port labels).
    """
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise ParameterError(
            f"output={str(path)!r} has an unknown suffix; allowed: {', '.join(SUFFIXES)}"
        )
    check_size(topo.spec, topo.n_vertices, max_vertices)
    check_output_path(path)
    from matplotlib import rc_context

    fig = _figure(topo, layout(topo), ports, labels)
    try:
        # SVG text stays text (searchable, editable) rather than glyph outlines
        with rc_context({"svg.fonttype": "none"}):
            write_atomic(
                path,
                lambda fh: fig.savefig(
                    fh, format=path.suffix.lower().lstrip("."), dpi=_dpi(fig), bbox_inches="tight"
                ),
            )
    except OutputFileError:
        raise
    except OSError as exc:
        raise ParameterError(
            f"output={str(path)!r} cannot be written: {exc.strerror or exc}"
        ) from None
    return path


def _dpi(fig) -> float:
    # keep PNGs under ~8000 pixels wide
    return float(min(150.0, 8000.0 / max(fig.get_size_inches()[0], 1.0)))


def _figure(topo: Topology, lay: Layout, ports: bool, labels: bool | None):
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, PathPatch, Rectangle
    from matplotlib.path import Path as MplPath

    n, s = topo.n_nodes, topo.n_switches
    width = lay.width
    sw_rows = lay.row[n:]
    spacing = (
        np.array([width / max(1, int((sw_rows == r).sum())) for r in np.unique(sw_rows)])
        if s
        else [1.0]
    )
    rect_w = 0.85 * float(np.min(spacing))
    rect_h = 0.7
    radius = 0.32
    links, lports = topo.links, topo.link_ports
    a, b = links[:, 0], links[:, 1]
    same = lay.y[a] == lay.y[b]
    # links within a row are arcs rising up to ``bump`` above the row (apex of the curve)
    bump = np.minimum(0.25 * np.abs(lay.x[b] - lay.x[a]), 0.9 * ROW_GAP) + rect_h / 2
    top_y = float(max(lay.y.max(), (lay.y[a] + rect_h / 4 + bump)[same].max(initial=-np.inf)))
    inch = float(np.clip(48.0 / (width + 2), 0.05, 0.45))  # inches per drawing unit
    fig = Figure(figsize=((width + 2) * inch, (top_y + 4.0) * inch))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-1, width + 1)
    ax.set_ylim(-1.5, top_y + 2.5)
    ax.set_aspect("equal")
    ax.axis("off")
    segs = np.stack([np.stack([lay.x[a], lay.y[a]], 1), np.stack([lay.x[b], lay.y[b]], 1)], 1)
    ax.add_collection(LineCollection(segs[~same], colors="0.35", linewidths=0.6, zorder=1))
    for i in np.flatnonzero(same):  # links within a row (hypercube, torus, lateral): arcs
        x0, x1, y0 = lay.x[a[i]], lay.x[b[i]], lay.y[a[i]]
        verts = [(x0, y0 + rect_h / 2), ((x0 + x1) / 2, y0 + bump[i] * 2), (x1, y0 + rect_h / 2)]
        ax.add_patch(
            PathPatch(
                MplPath(verts, [MplPath.MOVETO, MplPath.CURVE3, MplPath.CURVE3]),
                fill=False,
                edgecolor="0.35",
                linewidth=0.6,
                zorder=1,
            )
        )
    rects = [
        Rectangle((lay.x[v] - rect_w / 2, lay.y[v] - rect_h / 2), rect_w, rect_h)
        for v in range(n, n + s)
    ]
    ax.add_collection(
        PatchCollection(rects, facecolor="#dce9f5", edgecolor="black", linewidth=0.7, zorder=2)
    )
    circles = [Circle((lay.x[v], lay.y[v]), radius) for v in range(n)]
    ax.add_collection(
        PatchCollection(circles, facecolor="white", edgecolor="black", linewidth=0.7, zorder=2)
    )
    names = topo.vertex_labels()
    pt = inch * 72  # points per drawing unit
    if labels is not False:
        _switch_labels(ax, topo, lay, names, rect_w, pt, labels)
        _node_labels(ax, topo, lay, names, radius, pt, labels)
    if ports:
        _port_labels(ax, topo, lay, links, lports, same, rect_w, rect_h, pt)
    ax.text(
        width / 2,
        top_y + 2.3,
        f"{topo.spec}: {n} compute nodes, {s} switches, {topo.n_links} links",
        ha="center",
        va="top",
        fontsize=min(12.0, max(6.0, pt * 0.8)),
    )
    return fig


def _switch_labels(ax, topo, lay, names, rect_w, pt, force):
    n = topo.n_nodes
    texts = [
        names[v][1:] if topo.switch_names is None else names[v]
        for v in range(n, n + topo.n_switches)
    ]
    longest = max((len(t) for t in texts), default=1)
    size = min(8.0, rect_w * pt / (0.62 * max(longest, 1)), 0.55 * pt)
    if size < 3.0 and not force:
        return
    for v, t in zip(range(n, n + topo.n_switches), texts):
        ax.text(lay.x[v], lay.y[v], t, ha="center", va="center", fontsize=size, zorder=3)


def _node_labels(ax, topo, lay, names, radius, pt, force):
    n = topo.n_nodes
    texts = [names[v][1:] if topo.node_names is None else names[v] for v in range(n)]
    size = min(7.0, 0.8 * pt)  # nodes are at least one unit apart
    if size < 3.0 and not force:
        return
    below = lay.y[:n] < lay.y[n + topo.node_switch]
    in_row = (lay.row[:n] < 0) | (lay.row[:n] > lay.row[n:].max(initial=0))
    for v in np.flatnonzero(in_row):  # nodes hanging between rows have no room for a label
        dy = -(radius + 0.12) if below[v] else radius + 0.12
        ax.text(
            lay.x[v],
            lay.y[v] + dy,
            texts[v],
            ha="center",
            va="top" if below[v] else "bottom",
            rotation=90,
            fontsize=size,
            zorder=3,
        )


def _port_labels(ax, topo, lay, links, lports, same, rect_w, rect_h, pt):
    n = topo.n_nodes
    size = min(6.0, max(2.0, 0.3 * pt))
    for (a, b), (pa, pb), flat in zip(links.tolist(), lports.tolist(), same.tolist()):
        for me, other, port in ((a, b, pa), (b, a, pb)):
            if me < n:
                continue
            dx, dy = lay.x[other] - lay.x[me], lay.y[other] - lay.y[me]
            if flat:
                t = min(0.45, (rect_w / 2 + 0.2) / max(abs(dx), 1e-9))
                px, py = lay.x[me] + t * dx, lay.y[me] + rect_h / 2 + 0.15
            else:
                t = min(0.45, (rect_h / 2 + 0.35) / max(abs(dy), 1e-9))
                px, py = lay.x[me] + t * dx, lay.y[me] + t * dy
            ax.text(
                px,
                py,
                str(port),
                ha="center",
                va="center",
                fontsize=size,
                color="#b03030",
                zorder=4,
                bbox={"boxstyle": "square,pad=0.05", "facecolor": "white", "edgecolor": "none"},
            )
