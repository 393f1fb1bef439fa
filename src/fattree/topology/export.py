"""Writing a topology to files other tools read: edge list, JSON, GraphML, DOT, BookSim2.

Every format carries the vertex labels of :meth:`Topology.vertex_label` (``n…`` for
compute nodes, ``s…`` for switches, or the imported names) and the port used at each
end of every link. Output is produced in chunks by a numba kernel that copies label
bytes and formats integers straight into a byte buffer, so MiKANT(8,6) (2.9 million
links) is written without a Python object per link.

One writer per format is registered in :data:`EXPORTERS`; :func:`export` writes to a
path or a binary stream. The formats are described in ``docs/export-and-import.md``.
"""

from __future__ import annotations

from ..fileio import check_output_target, write_atomic

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from xml.sax.saxutils import escape as _xml_escape

import numba
import numpy as np

from ..errors import ParameterError
from ..registry import Registry
from .core import PORT_CUBE, PORT_DOWN, PORT_KIND_NAMES, PORT_NODE, PORT_UP, Topology
from .family import BOOKSIM_NATIVE, booksim_native  # noqa: F401  (re-exported)

CHUNK_ROWS = 1 << 18  # rows rendered per kernel call: bounds the buffer to a few MB


@dataclass(frozen=True)
class Exporter:
    """A registered output format: ``write(topo)`` yields the file's bytes in chunks.

    ``sidecar`` (if any) yields a second file written next to the first, named
    ``<file><sidecar_suffix>``. ``companion`` (if any) yields a third file named
    ``<file stem><companion_suffix>``, given the main file's name (BookSim2's ``.cfg``).
    With ``add_suffix`` a path without a suffix gets ``suffix`` (``-o kant43`` writes
    ``kant43.anynet``).
    """

    name: str
    suffix: str
    help: str
    write: Callable[[Topology], Iterator[bytes]]
    sidecar: Callable[[Topology], Iterator[bytes]] | None = None
    sidecar_suffix: str = ""
    companion: Callable[[Topology, str], Iterator[bytes]] | None = None
    companion_suffix: str = ""
    add_suffix: bool = False


EXPORTERS: Registry[Exporter] = Registry("export format")


def exporter(
    name: str,
    *,
    suffix: str,
    help: str,
    sidecar=None,
    sidecar_suffix: str = "",
    companion=None,
    companion_suffix: str = "",
    add_suffix: bool = False,
):
    """Decorator registering a chunk writer ``f(topo) -> Iterator[bytes]`` as a format."""

    def deco(fn):
        EXPORTERS.add(
            name,
            Exporter(
                name,
                suffix,
                help,
                fn,
                sidecar,
                sidecar_suffix,
                companion,
                companion_suffix,
                add_suffix,
            ),
        )
        return fn

    return deco


# ---------------------------------------------------------------------- kernels
@numba.njit(cache=True)
def _n_chars(x):
    d = 1
    while x >= 10:
        x //= 10
        d += 1
    return d


@numba.njit(cache=True)
def _put_int(out, pos, x):
    d = _n_chars(x)
    for i in range(d - 1, -1, -1):
        out[pos + i] = 48 + x % 10
        x //= 10
    return pos + d


@numba.njit(cache=True)
def _label_bytes(prefix, digits):
    """Rows ``prefix + digits joined by '.'`` as a padded (M, W) uint8 table and lengths."""
    m, d = digits.shape
    lens = np.full(m, prefix.shape[0], np.int64)
    for i in range(m):
        for j in range(d):
            lens[i] += _n_chars(digits[i, j]) + (1 if j > 0 else 0)
    width = 1
    for i in range(m):
        width = max(width, lens[i])
    table = np.zeros((m, width), np.uint8)
    for i in range(m):
        pos = 0
        for c in range(prefix.shape[0]):
            table[i, pos] = prefix[c]
            pos += 1
        for j in range(d):
            if j > 0:
                table[i, pos] = 46  # '.'
                pos += 1
            pos = _put_int(table[i], pos, digits[i, j])
    return table, lens


@numba.njit(cache=True)
def _render(table, lens, lit, lit_off, is_label, vals):
    """Lines of ``lit[j] + field j`` for every column, then ``lit[C]``.

    Field j of row i is label ``vals[i, j]`` of the table (``is_label[j]``) or the
    integer ``vals[i, j]``; a negative value omits the field and its literal.
    """
    m, c = vals.shape
    total = 0
    for i in range(m):
        for j in range(c):
            v = vals[i, j]
            if v < 0:
                continue
            total += lit_off[j + 1] - lit_off[j]
            total += lens[v] if is_label[j] else _n_chars(v)
        total += lit_off[c + 1] - lit_off[c]
    out = np.empty(total, np.uint8)
    pos = 0
    for i in range(m):
        for j in range(c + 1):
            if j < c and vals[i, j] < 0:
                continue
            for q in range(lit_off[j], lit_off[j + 1]):
                out[pos] = lit[q]
                pos += 1
            if j == c:
                break
            v = vals[i, j]
            if is_label[j]:
                for q in range(lens[v]):
                    out[pos] = table[v, q]
                    pos += 1
            else:
                pos = _put_int(out, pos, v)
    return out


# ---------------------------------------------------------------------- helpers
def _ascii(s: str) -> np.ndarray:
    return np.frombuffer(s.encode(), np.uint8).copy()


def _stack_tables(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    width = max(t.shape[1] for t, _ in parts)
    tables = [np.pad(t, ((0, 0), (0, width - t.shape[1]))) for t, _ in parts]
    return np.concatenate(tables), np.concatenate([ln for _, ln in parts])


def _names_table(names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    raw = [s.encode() for s in names]
    lens = np.fromiter((len(b) for b in raw), np.int64, len(raw))
    arr = np.array(raw, dtype=f"S{max(1, int(lens.max(initial=1)))}")
    return arr.view(np.uint8).reshape(len(raw), -1).copy(), lens


def label_table(topo: Topology, escape: Callable[[str], str] | None = None):
    """All vertex labels (nodes then switches) as a padded uint8 table and lengths.

    Digit labels (``n0.1.2``) need no escaping; imported names pass through
    ``escape`` (for JSON, XML or DOT) when it is given.

    Examples
    --------
    >>> import fattree
    >>> table, lens = label_table(fattree.build("kant:k=2,n=2"))
    >>> bytes(table[4, :lens[4]]).decode(), bytes(table[0, :lens[0]]).decode()
    ('s0.0', 'n0.0')
    """
    if topo.node_names is not None or topo.switch_names is not None:
        names = topo.vertex_labels()
        return _names_table([escape(s) for s in names] if escape else names)
    parts = [
        _label_bytes(_ascii("n"), topo.node_digits.astype(np.int64)),
        _label_bytes(_ascii("s"), topo.switch_digits.astype(np.int64)),
    ]
    return _stack_tables(parts)


def _rows(
    table, lens, fields: list[tuple[str, bool]], end: str, vals: np.ndarray
) -> Iterator[bytes]:
    """Render ``vals`` row by row in chunks; ``fields`` are ``(literal, is_label)``."""
    pieces = [f for f, _ in fields] + [end]
    lit = np.concatenate([_ascii(p) for p in pieces] + [np.zeros(0, np.uint8)])
    lit_off = np.concatenate([[0], np.cumsum([len(p.encode()) for p in pieces])]).astype(np.int64)
    is_label = np.array([lab for _, lab in fields], np.bool_)
    vals = np.asarray(vals, np.int64).reshape(len(vals), len(fields))
    for start in range(0, len(vals), CHUNK_ROWS):
        chunk = np.ascontiguousarray(vals[start : start + CHUNK_ROWS])
        yield _render(table, lens, lit, lit_off, is_label, chunk).tobytes()


def _records(chunks: Iterator[bytes], sep: bytes = b",\n") -> Iterator[bytes]:
    """Drop the separator after the last record (JSON lists allow no trailing comma)."""
    prev = None
    for c in chunks:
        if prev is not None:
            yield prev
        prev = c
    if prev is not None:
        yield prev[: len(prev) - len(sep)] + b"\n"


def node_above(topo: Topology) -> np.ndarray:
    """Whether each compute node is drawn above its leaf switch (upper half of the rows).

    MiKANT's group-1 nodes and the second end of the Clos network hang on switches in
    the upper half of the layered drawing (000 Figs. 2 and 3), so they go on top.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("mikant:k=2,n=2")
    >>> node_above(t).astype(int).tolist()
    [0, 0, 0, 0, 1, 1, 1, 1]
    """
    layer = topo.switch_layer.astype(np.int64)
    top = int(layer.max()) if layer.size else 0
    return 2 * layer[topo.node_switch] > top


# GraphML names of the port kinds (PORT_KIND_NAMES) are indexed by the PORT_* codes
assert [PORT_DOWN, PORT_UP, PORT_CUBE, PORT_NODE] == list(range(4))


def port_kinds_at(topo: Topology, v: np.ndarray, port: np.ndarray) -> np.ndarray:
    """Port kind at vertex ``v``'s end of a link through ``port`` (``PORT_NODE`` at a node)."""
    n = topo.n_nodes
    out = np.full(len(v), PORT_NODE, np.int64)
    sw = v >= n
    out[sw] = topo.port_kind[v[sw] - n, port[sw]]
    return out


def _header_lines(topo: Topology) -> list[str]:
    return [
        f"{topo.spec}",
        f"{topo.n_nodes} compute nodes, {topo.n_switches} switches, {topo.n_links} links",
    ]


# ---------------------------------------------------------------------- formats
@exporter(
    "edgelist",
    suffix=".txt",
    help="one line per link 'a b port_a port_b' after '#' header comments",
)
def write_edgelist(topo: Topology) -> Iterator[bytes]:
    """Edge list: ``a b port_a port_b`` per link, node links first.

    A compute node's own port is 0. ``fattree.build("graph:file=...")`` reads it back.

    Examples
    --------
    >>> import fattree
    >>> text = export_bytes(fattree.build("kant:k=2,n=1"), "edgelist").decode()
    >>> print(text.splitlines()[-1])
    n1 s0 0 1

    References
    ----------
    000 §IV (port labels).
    """

    def _check(name: str) -> str:
        if not name or any(ch.isspace() for ch in name) or name.startswith("#"):
            raise ParameterError(
                f"vertex name {name!r} cannot be written to an edge list (whitespace or a leading '#'); "
                f"use --format graphml or json"
            )
        return name

    table, lens = label_table(topo, _check)
    head = _header_lines(topo) + [
        "labels: n... compute node, s... switch (imported graphs: their own names)",
        "a b port_a port_b  (port_a of a, port_b of b; a compute node's port is 0)",
    ]
    yield "".join(f"# {h}\n" for h in head).encode()
    links, ports = topo.links, topo.link_ports
    yield from _rows(
        table,
        lens,
        [("", True), (" ", True), (" ", False), (" ", False)],
        "\n",
        np.concatenate([links, ports], axis=1),
    )


def _json_escape(s: str) -> str:
    return json.dumps(s)[1:-1]


@exporter(
    "json",
    suffix=".json",
    help="{family, params, nodes:[{label}], switches:[{label, level}], links:[{a, b, port_a, port_b}]}",
)
def write_json(topo: Topology) -> Iterator[bytes]:
    """JSON document with the labels, switch levels and the ports of every link.

    Examples
    --------
    >>> import fattree, json
    >>> doc = json.loads(export_bytes(fattree.build("kant:k=2,n=1"), "json"))
    >>> doc["switches"], doc["links"][0]
    ([{'label': 's0', 'level': 0}], {'a': 'n0', 'b': 's0', 'port_a': 0, 'port_b': 0})
    """
    table, lens = label_table(topo, _json_escape)
    n = topo.n_nodes
    params = json.dumps({str(k): v for k, v in topo.params.items()})
    yield (f'{{"family": {json.dumps(topo.family)}, "params": {params},\n"nodes": [\n').encode()
    yield from _records(
        _rows(table, lens, [('  {"label": "', True)], '"},\n', np.arange(n)[:, None])
    )
    yield b'],\n"switches": [\n'
    sw = np.stack([n + np.arange(topo.n_switches), topo.switch_level.astype(np.int64)], axis=1)
    yield from _records(
        _rows(table, lens, [('  {"label": "', True), ('", "level": ', False)], "},\n", sw)
    )
    yield b'],\n"links": [\n'
    links, ports = topo.links, topo.link_ports
    yield from _records(
        _rows(
            table,
            lens,
            [
                ('  {"a": "', True),
                ('", "b": "', True),
                ('", "port_a": ', False),
                (', "port_b": ', False),
            ],
            "},\n",
            np.concatenate([links, ports], axis=1),
        )
    )
    yield b"]}\n"


def _xml(s: str) -> str:
    return _xml_escape(s, {'"': "&quot;"})


@exporter(
    "graphml",
    suffix=".graphml",
    help="GraphML: vertex attributes kind (node/switch), level, layer; edge attributes "
    "port_a, port_b, kind_a, kind_b",
)
def write_graphml(topo: Topology) -> Iterator[bytes]:
    """GraphML as networkx and yEd read it; ``port_a`` and ``kind_a`` belong to the edge's source.

    ``kind_a`` / ``kind_b`` are the port kinds (``down``, ``up``, ``cube``, ``node``) at
    each end, so that an import keeps, e.g., MiKANT's cross links as up ports (000 §IV).

    Written by the same chunked kernel as the other formats (networkx's writer needs a
    Python object per element); ``networkx.read_graphml`` reads the result.

    Examples
    --------
    >>> import fattree, io, networkx as nx
    >>> g = nx.read_graphml(io.BytesIO(export_bytes(fattree.build("kant:k=2,n=2"), "graphml")))
    >>> g.nodes["s1.0"], g.edges["n0.0", "s0.0"]
    ({'kind': 'switch', 'level': 1, 'layer': 1}, {'port_a': 0, 'port_b': 0, 'kind_a': 'node', 'kind_b': 'node'})
    """
    labels = label_table(topo, _xml)
    kinds = _names_table([PORT_KIND_NAMES[k] for k in range(len(PORT_KIND_NAMES))])
    table, lens = _stack_tables([labels, kinds])
    v = topo.n_vertices
    n = topo.n_nodes
    keys = [
        ("kind", "node", "string"),
        ("level", "node", "int"),
        ("layer", "node", "int"),
        ("port_a", "edge", "int"),
        ("port_b", "edge", "int"),
        ("kind_a", "edge", "string"),
        ("kind_b", "edge", "string"),
        ("family", "graph", "string"),
        ("spec", "graph", "string"),
    ]
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
        'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
    ]
    head += [f'  <key id="{k}" for="{f}" attr.name="{k}" attr.type="{t}"/>' for k, f, t in keys]
    head += [
        '  <graph id="G" edgedefault="undirected">',
        f'    <data key="family">{_xml(topo.family)}</data>',
        f'    <data key="spec">{_xml(topo.spec)}</data>',
    ]
    yield ("\n".join(head) + "\n").encode()
    yield from _rows(
        table,
        lens,
        [('    <node id="', True)],
        '"><data key="kind">node</data></node>\n',
        np.arange(n)[:, None],
    )
    sw = np.stack(
        [
            n + np.arange(topo.n_switches),
            topo.switch_level.astype(np.int64),
            topo.switch_layer.astype(np.int64),
        ],
        axis=1,
    )
    yield from _rows(
        table,
        lens,
        [
            ('    <node id="', True),
            ('"><data key="kind">switch</data><data key="level">', False),
            ('</data><data key="layer">', False),
        ],
        "</data></node>\n",
        sw,
    )
    links, ports = topo.links, topo.link_ports
    ka, kb = (v + port_kinds_at(topo, links[:, j], ports[:, j]) for j in (0, 1))
    yield from _rows(
        table,
        lens,
        [
            ('    <edge source="', True),
            ('" target="', True),
            ('"><data key="port_a">', False),
            ('</data><data key="port_b">', False),
            ('</data><data key="kind_a">', True),
            ('</data><data key="kind_b">', True),
        ],
        "</data></edge>\n",
        np.concatenate([links, ports, ka[:, None], kb[:, None]], axis=1),
    )
    yield b"  </graph>\n</graphml>\n"


def _dot_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


@exporter(
    "dot",
    suffix=".dot",
    help="Graphviz: one rank=same block per switch layer, nodes in rows below/above, ports as edge labels",
)
def write_dot(topo: Topology) -> Iterator[bytes]:
    """Graphviz DOT, laid out bottom-up (``rankdir=BT``) like the papers' figures.

    Each switch layer (:attr:`Topology.switch_layer`) is a ``rank=same`` block; compute
    nodes form a row below the leaves, or above for the upper leaves of mirrored
    networks. Edges run from the lower to the upper row with the ports as
    ``taillabel`` / ``headlabel``.

    Examples
    --------
    >>> import fattree
    >>> text = export_bytes(fattree.build("kant:k=2,n=2"), "dot").decode()
    >>> print(text.splitlines()[-2])
      "s0.1" -- "s1.1" [taillabel=3, headlabel=1];

    References
    ----------
    000 Figs. 1-3 (layered drawings).
    """
    table, lens = label_table(topo, _dot_escape)
    n = topo.n_nodes
    layer = topo.switch_layer.astype(np.int64)
    top = int(layer.max()) if layer.size else 0
    above = node_above(topo)
    yield (
        f'graph "{_dot_escape(topo.spec)}" {{\n  rankdir=BT;\n  node [shape=box, fontsize=8];\n'
        f"  edge [fontsize=6];\n"
    ).encode()
    rows = [("  { rank=same; node [shape=circle];\n", np.flatnonzero(~above))]
    rows += [("  { rank=same;\n", n + np.flatnonzero(layer == ly)) for ly in range(top + 1)]
    rows.append(("  { rank=same; node [shape=circle];\n", np.flatnonzero(above)))
    for opening, members in rows:
        if len(members) == 0:
            continue
        yield opening.encode()
        yield from _rows(table, lens, [('    "', True)], '";\n', members[:, None])
        yield b"  }\n"
    links, ports = topo.links, topo.link_ports
    # the lower row is the tail so that dot's ranks grow upwards with the layers
    vl = np.concatenate([np.where(above, top + 1, -1), layer])
    swap = vl[links[:, 0]] > vl[links[:, 1]]
    links = np.where(swap[:, None], links[:, ::-1], links)
    ports = np.where(swap[:, None], ports[:, ::-1], ports)
    yield from _rows(
        table,
        lens,
        [('  "', True), ('" -- "', True), ('" [taillabel=', False), (", headlabel=", False)],
        "];\n",
        np.concatenate([links, ports], axis=1),
    )
    yield b"}\n"


def _booksim_table(topo: Topology):
    n, s = topo.n_nodes, topo.n_switches
    return _stack_tables(
        [
            _label_bytes(_ascii("node "), np.arange(n, dtype=np.int64)[:, None]),
            _label_bytes(_ascii("router "), np.arange(s, dtype=np.int64)[:, None]),
        ]
    )


def _booksim_check(topo: Topology) -> None:
    n = topo.n_nodes
    peer = np.where(topo.port_peer >= n, topo.port_peer, -1).astype(np.int64)
    loop = np.flatnonzero((peer == n + np.arange(topo.n_switches)[:, None]).any(axis=1))
    srt = np.sort(peer, axis=1)
    dup_rows = np.flatnonzero(((srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)).any(axis=1))
    bad = np.union1d(loop, dup_rows)
    if len(bad):
        s = int(bad[0])
        raise ParameterError(
            f"format='booksim' cannot represent {topo.spec}: switch {topo.switch_label(s)!r} has a "
            f"parallel link or a link to itself, which BookSim2's anynet file merges; "
            f"use --format edgelist or graphml"
        )


@exporter(
    "booksim",
    suffix=".anynet",
    help="BookSim2 anynet network_file: 'router R node N ... router R2 ...' (ids: see the .labels "
    "sidecar) and a BookSim2 .cfg with --model booksim's settings",
    sidecar=lambda topo: _booksim_labels(topo),
    sidecar_suffix=".labels",
    companion=lambda topo, name: booksim_companion(topo, name),
    companion_suffix=".cfg",
    add_suffix=True,
)
def write_booksim(topo: Topology) -> Iterator[bytes]:
    """BookSim2 ``anynet`` network file (``topology = anynet; network_file = FILE``).

    One line per switch: ``router R`` followed by its neighbours in port order,
    ``node I`` for a compute node and ``router J`` for a switch. Router ``R`` is switch
    index ``R`` (vertex ``N + R``), node ``I`` is compute node ``I``; the ``.labels``
    sidecar lists the label of every id, because BookSim2's parser accepts no comments.
    BookSim2 numbers a router's ports itself (its nodes by id, then its routers by id),
    so the papers' port numbers are not carried over.

    Examples
    --------
    >>> import fattree
    >>> print(export_bytes(fattree.build("kant:k=2,n=2"), "booksim").decode().splitlines()[0])
    router 0 node 0 node 2 router 2 router 3

    References
    ----------
    BookSim2, ``src/networks/anynet.cpp`` (file format); 000 §IV (port labels).
    """
    _booksim_check(topo)
    table, lens = _booksim_table(topo)
    n = topo.n_nodes
    vals = np.concatenate(
        [n + np.arange(topo.n_switches)[:, None], topo.port_peer.astype(np.int64)], axis=1
    )
    fields = [("", True)] + [(" ", True)] * topo.max_ports
    yield from _rows(table, lens, fields, "\n", vals)


def _booksim_labels(topo: Topology) -> Iterator[bytes]:
    """Sidecar of the BookSim2 file: ``node I LABEL`` / ``router R LABEL`` per line."""
    v = topo.n_vertices
    table, lens = _stack_tables([_booksim_table(topo), label_table(topo)])
    yield f"# BookSim2 ids of {topo.spec}: kind id label\n".encode()
    yield from _rows(
        table,
        lens,
        [("", True), (" ", True)],
        "\n",
        np.stack([np.arange(v), v + np.arange(v)], axis=1),
    )


#: Our ``--model booksim`` options and the BookSim2 configuration keys they set
#: (docs/booksim.md, "Mapping"). ``load`` is in flits per node per cycle, hence
#: ``injection_rate_uses_flits = 1``.
BOOKSIM_KEYS: dict[str, str] = {
    "load": "injection_rate",
    "traffic": "traffic",
    "packet_flits": "packet_size",
    "buffer": "vc_buf_size",
    "vcs": "num_vcs",
    "speculative": "speculative",
    "routing_delay": "routing_delay",
    "credit_delay": "credit_delay",
    "seed": "seed",
}

#: The settings ``booksim_config`` writes when not given: BookSim2's own defaults
#: (booksim_config.cpp, commit 28f4329) except the network-size ones this project uses
#: (1 VC, 2-flit buffers, 1-flit packets) and the pipeline of the validation matrix
#: (lookahead routing, ``routing_delay = 0``; speculative VC/switch allocation).
BOOKSIM_DEFAULTS: dict[str, object] = {
    "load": 0.1,
    "traffic": "uniform",
    "packet_flits": 1,
    "buffer": 2,
    "vcs": 1,
    "speculative": True,
    "routing_delay": 0,
    "credit_delay": 0,
    "seed": 0,
}

#: Keys written with fixed values: BookSim2's defaults, spelled out so that the file
#: does not depend on them.
BOOKSIM_FIXED: dict[str, object] = {
    "router": "iq",
    "vc_alloc_delay": 1,
    "sw_alloc_delay": 1,
    "st_prepare_delay": 0,
    "st_final_delay": 1,
    "input_speedup": 1,
    "output_speedup": 1,
    "internal_speedup": 1.0,
    "vc_allocator": "islip",
    "sw_allocator": "islip",
    "alloc_iters": 1,
    "wait_for_tail_credit": 0,
    "hold_switch_for_packet": 0,
    "injection_process": "bernoulli",
    "injection_rate_uses_flits": 1,
    "sim_type": "latency",
    "warmup_periods": 3,
    "sample_period": 1000,
    "max_samples": 10,
    "latency_thres": 500.0,
    "include_queuing": 1,
}

_TRAFFIC_NAMES = (
    "uniform",
    "bitcomp",
    "transpose",
    "bitrev",
    "shuffle",
    "randperm",
    "tornado",
    "neighbor",
)


def booksim_config(
    network_file: str | None = None,
    *,
    spec: str | None = None,
    k: int | None = None,
    n: int | None = None,
    **settings,
) -> str:
    """A BookSim2 configuration with the settings of our ``--model booksim``.

    Parameters
    ----------
    network_file : str or None
        The anynet file (``topology = anynet; routing_function = min``); None with ``k``
        and ``n``: BookSim2's built-in ``fattree`` (``routing_function = nca``), the
        same network as ``kant:k=K,n=N`` (docs/booksim.md, "Node numbering").
    spec : str or None
        Written as a comment (the topology it was exported from).
    **settings
        Our option names (keys of :data:`BOOKSIM_KEYS`); the rest are
        :data:`BOOKSIM_DEFAULTS`.

    Raises
    ------
    ParameterError
        An unknown setting, or a traffic pattern BookSim2 has no name for.

    Examples
    --------
    >>> text = booksim_config("kant43.anynet", buffer=5, vcs=2)
    >>> [ln for ln in text.splitlines() if ln.startswith(("vc_buf_size", "num_vcs", "topology"))]
    ['topology = anynet;', 'num_vcs = 2;', 'vc_buf_size = 5;']

    References
    ----------
    BookSim2 ``src/booksim_config.cpp`` (keys and defaults), ``src/networks/anynet.cpp``;
    docs/booksim.md.
    """
    bad = sorted(set(settings) - set(BOOKSIM_KEYS))
    if bad:
        raise ParameterError(
            f"booksim_config: unknown setting {bad[0]!r}; allowed: {', '.join(BOOKSIM_KEYS)}"
        )
    s = {**BOOKSIM_DEFAULTS, **settings}
    traffic = str(s["traffic"])
    if (
        traffic.split(":")[0] not in _TRAFFIC_NAMES
        or ":" in traffic
        and traffic != "uniform:include_self=true"
    ):
        raise ParameterError(
            f"traffic={traffic!r} has no BookSim2 equivalent here; allowed: "
            f"{', '.join(_TRAFFIC_NAMES)}"
        )
    lines = [
        "// BookSim2 (github booksim/booksim2, commit 28f4329) configuration written by fattree"
    ]
    if spec:
        lines.append(f"// network: {spec}")
    if network_file is not None:
        lines += [
            "topology = anynet;",
            f"network_file = {network_file};",
            "routing_function = min;",
        ]
    else:
        if k is None or n is None:
            raise ParameterError(
                "booksim_config: give network_file, or k and n for BookSim2's fattree"
            )
        lines += [
            "topology = fattree;",
            f"k = {int(k)};",
            f"n = {int(n)};",
            "routing_function = nca;",
        ]
    order = [
        "vcs",
        "buffer",
        "packet_flits",
        "speculative",
        "routing_delay",
        "credit_delay",
        "traffic",
        "load",
        "seed",
    ]
    for name in order:
        v = s[name]
        if name == "traffic":
            v = traffic.split(":")[0]
        if isinstance(v, bool):
            v = int(v)
        lines.append(f"{BOOKSIM_KEYS[name]} = {v};")
    lines += [f"{key} = {v};" for key, v in BOOKSIM_FIXED.items()]
    return "\n".join(lines) + "\n"


def booksim_companion(topo: Topology, network_file: str) -> Iterator[bytes]:
    """The ``.cfg`` written beside the anynet file: BookSim2's own ``topology = fattree``
    with ``routing_function = nca`` for a k-ary n-tree (the routing BookSim2 was built
    for), otherwise ``topology = anynet`` on ``network_file`` with ``routing_function =
    min`` (BookSim2 has no other routing for anynet files).

    Parameters
    ----------
    topo : Topology
    network_file : str
        The anynet file's name, written into the anynet configuration.

    Returns
    -------
    iterator of bytes

    Examples
    --------
    >>> import fattree
    >>> cfg = b"".join(booksim_companion(fattree.build("kant:k=4,n=3"), "k.anynet")).decode()
    >>> [ln for ln in cfg.splitlines() if ln.startswith(("topology", "k =", "n =", "routing_f"))]
    ['topology = fattree;', 'k = 4;', 'n = 3;', 'routing_function = nca;']

    References
    ----------
    BookSim2 commit 28f4329: ``src/networks/fattree.cpp``, ``src/routefunc.cpp``
    (``fattree_nca``), ``src/networks/anynet.cpp``; docs/booksim.md.
    """
    if topo.family not in BOOKSIM_NATIVE:
        yield booksim_config(network_file, spec=topo.spec).encode()
        return
    k, n = BOOKSIM_NATIVE.get(topo.family)(topo)
    text = booksim_config(None, spec=topo.spec, k=k, n=n)
    head, rest = text.split("\n", 1)
    yield (
        f"{head}\n// BookSim2's built-in fat tree, the same network as {network_file} (not read "
        f"here); its node b is our node (b mod {k}) * {k ** (n - 1)} + b div {k}\n{rest}"
    ).encode()


# ---------------------------------------------------------------------- public API
def export_bytes(topo: Topology, fmt: str) -> bytes:
    """The whole file of format ``fmt`` as bytes (for small topologies and tests).

    Examples
    --------
    >>> import fattree
    >>> export_bytes(fattree.build("kant:k=2,n=1"), "edgelist").count(b"\\n")
    6
    """
    return b"".join(EXPORTERS.get(fmt).write(topo))


def check_output_path(path: str | os.PathLike, param: str = "output") -> Path:
    """Refuse an output path that cannot be written, before anything is computed."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise ParameterError(f"{param}={str(path)!r} is a directory; give a file name")
    check_output_target(p, param)  # /dev/full, a FIFO: refused before any work
    if not parent.is_dir():
        raise ParameterError(
            f"{param}={str(path)!r} cannot be written: folder {str(parent)!r} does not exist"
        )
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ParameterError(f"{param}={str(path)!r} cannot be written: permission denied")
    return p


def _write_chunks(chunks: Iterator[bytes], path: Path, param: str) -> None:
    # the chunks are produced once: a second pass (to keep the content elsewhere when the
    # target cannot be written) replays what the first pass wrote
    done: list[bytes] = []
    source = iter(chunks)

    def write(fh):
        for c in done:
            fh.write(c)
        for c in source:
            done.append(c)
            fh.write(c)

    write_atomic(path, write, what=param)


def export(topo: Topology, fmt: str, out: str | os.PathLike | BinaryIO) -> list[Path]:
    """Write ``topo`` in format ``fmt`` (see :data:`EXPORTERS`) to a path or binary stream.

    Returns the paths written: the file and, for formats with a sidecar (``booksim``),
    the sidecar next to it. A stream gets the main file only.

    Raises
    ------
    UnknownNameError
        ``fmt`` is no registered format (the message lists them).
    ParameterError
        The path cannot be written, or the format cannot represent the topology.

    Examples
    --------
    >>> import fattree, io
    >>> buf = io.BytesIO()
    >>> export(fattree.build("mikant:k=2,n=2"), "edgelist", buf)
    []
    >>> buf.getvalue().count(b"\\n") - 4  # four header lines, then one line per link
    12

    References
    ----------
    000 §II-IV (labels and ports); BookSim2 anynet (booksim format).
    """
    ex = EXPORTERS.get(fmt)
    if not isinstance(out, (str, os.PathLike)):
        for chunk in ex.write(topo):
            out.write(chunk)
        return []
    path = Path(out)
    if ex.add_suffix and not path.suffix:
        path = path.with_name(path.name + ex.suffix)
    path = check_output_path(path)
    if ex.companion is not None and path.suffix == ex.companion_suffix:
        raise ParameterError(
            f"output={str(out)!r}: format {fmt!r} writes its {ex.companion_suffix} "
            f"next to the network file; give another name (e.g. {path.stem}{ex.suffix})"
        )
    _write_chunks(ex.write(topo), path, "output")
    written = [path]
    if ex.sidecar is not None:
        side = Path(str(path) + ex.sidecar_suffix)
        _write_chunks(ex.sidecar(topo), side, "output")
        written.append(side)
    if ex.companion is not None:
        comp = path.with_suffix(ex.companion_suffix)
        _write_chunks(ex.companion(topo, path.name), comp, "output")
        written.append(comp)
    return written
