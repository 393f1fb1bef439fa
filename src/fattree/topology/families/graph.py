"""``graph``: any network imported from a GraphML file, an edge list or a BookSim2 anynet file.

Which vertices are compute nodes: the GraphML vertex attribute ``kind`` (``node`` or
``switch``, as :mod:`fattree.topology.export` and :meth:`Topology.to_networkx` write
it); without it, and in edge lists, labels that start with ``node_prefix`` (default
``n``) are compute nodes and all others switches. Ports are the file's (edge-list
columns 3-4, GraphML edge attributes ``port_a``/``port_b``) or, if the file gives
none, numbered at each switch in the order its links appear. Vertices are numbered
in order of appearance, compute nodes first. Switch levels are the GraphML ``level``
attribute or the hop distance to the nearest compute node minus one. The format is
described in ``docs/export-and-import.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .._np import np

from ...errors import InputFileError, ParameterError
from ...fileio import open_input, read_input
from ..core import PORT_CUBE, PORT_DOWN, PORT_KIND_NAMES, PORT_NODE, PORT_NONE, PORT_UP, Topology
from ..family import Facets, Param, register_family

FORMATS = ("auto", "edgelist", "graphml", "anynet")
MAX_PORT = 2**15 - 1  # ports are stored as int16
LEVEL_MAX = 2**15 - 1  # levels and layers likewise
# a port number read from a file: any integer the arrays hold; 0..MAX_PORT is checked with
# the links (one message for every format)
PORT_PARSE_MAX = 2**31 - 1


def _integer(text, lo: int, hi: int, message) -> int:
    """An integer attribute or field in ``[lo, hi]``: ``"3"`` or ``"3.0"``, never ``"2.5"``
    (a port is not rounded) nor a value beyond the range (stored in 16 bits).
    ``message(why)`` words the error."""
    raw = str(text).strip()
    try:
        value = int(raw)
    except ValueError:
        try:
            f = float(raw)
        except ValueError:
            f = None
        if f is None or not f.is_integer():
            raise InputFileError(message("not an integer")) from None
        value = int(f)
    if not lo <= value <= hi:
        raise InputFileError(message(f"out of range; allowed {lo}..{hi}"))
    return value


_NODE_KINDS = {"node", "host", "compute", "terminal", "endpoint"}
_SWITCH_KINDS = {"switch", "router"}


@dataclass
class _Parsed:
    """What a reader found: names in order of appearance and links between them."""

    names: list[str] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)
    kind: list[bool | None] = field(default_factory=list)  # True: compute node
    where: list[int] = field(default_factory=list)  # line of each vertex's first mention
    level: dict[int, int] = field(default_factory=dict)
    layer: dict[int, int] = field(default_factory=dict)
    a: list[int] = field(default_factory=list)
    b: list[int] = field(default_factory=list)
    pa: list[int] = field(default_factory=list)
    pb: list[int] = field(default_factory=list)
    ka: list[int] = field(default_factory=list)  # port kind at each end (GraphML kind_a/kind_b)
    kb: list[int] = field(default_factory=list)
    line: list[int] = field(default_factory=list)

    def vertex(self, name: str, lineno: int) -> int:
        v = self.ids.get(name)
        if v is None:
            v = self.ids[name] = len(self.names)
            self.names.append(name)
            self.kind.append(None)
            self.where.append(lineno)
        return v


def _check(p: dict) -> None:
    if p["format"] not in FORMATS:
        raise ParameterError(
            f"graph: format={p['format']!r} is invalid; allowed: {', '.join(FORMATS)}"
        )
    if not p["node_prefix"]:
        raise ParameterError(
            "graph: node_prefix='' is invalid: give the label prefix of compute nodes, e.g. 'n'"
        )
    path = Path(p["file"])
    if not path.exists():
        raise InputFileError(f"graph: file={p['file']!r} does not exist")
    if path.is_dir():
        raise InputFileError(
            f"graph: file={p['file']!r} is a directory, not a GraphML, edge-list or anynet file"
        )


@register_family(
    "graph",
    title="imported graph (GraphML, edge list or BookSim2 anynet)",
    paper="user file (docs/export-and-import.md)",
    params=[
        Param(
            "file", "GraphML (.graphml/.xml), BookSim2 anynet (.anynet) or edge-list file", kind=str
        ),
        Param("format", "auto, edgelist, graphml or anynet", default="auto", kind=str),
        Param(
            "node_prefix",
            "labels starting with this are compute nodes (no 'kind' given)",
            default="n",
            kind=str,
        ),
    ],
    check=_check,
    node_classes=None,
    facets=Facets(
        routing="shortest",
        forms=None,
        fault_tolerance="rules",
        fault_walk=None,
        advisor=(),
        drawing="layered",
        example=None,
    ),
)
def graph(file: str, format: str = "auto", node_prefix: str = "n") -> Topology:
    """Import a network (switches, compute nodes, links and ports) from a file.

    Each compute node must have exactly one link, to a switch, and the graph must be
    connected.

    Raises
    ------
    InputFileError
        The file is missing, unreadable or malformed (the message names the file and
        line), or the graph breaks one of the rules above.

    Examples
    --------
    >>> import fattree, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.txt")
    >>> _ = open(path, "w").write("n0 s0\\nn1 s0\\ns0 s1\\nn2 s1\\n")
    >>> t = fattree.build(f"graph:file={path}")
    >>> t.n_nodes, t.n_switches, t.vertex_label(int(t.port_peer[0, 2]))
    (3, 2, 's1')

    References
    ----------
    GraphML 1.0 (graphml.graphdrawing.org); labels and ports as in 000 §II and §IV.
    """
    path = Path(file)
    fmt = format if format != "auto" else _sniff(path)
    if fmt == "graphml":
        parsed = _read_graphml(path)
    elif fmt == "anynet":
        parsed = _read_anynet(path, _decode(path, _read_bytes(path)))
    else:
        parsed = _read_edgelist(path, _decode(path, _read_bytes(path)))
    return _assemble(
        path, parsed, node_prefix, {"file": file, "format": format, "node_prefix": node_prefix}, fmt
    )


# ---------------------------------------------------------------------- readers
def _read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The file's bytes (its first ``limit`` bytes), a regular file only (fattree.fileio)."""
    what = "graph: file="
    if limit is None:
        return read_input(path, what, text=False)
    with open_input(path, what) as fh:
        return fh.read(limit)


def _decode(path: Path, data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):  # a byte-order mark is not part of the first name
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputFileError(
            f"{path}: line {line}: not UTF-8 text (is this a GraphML or edge-list file?)"
        ) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise InputFileError(f"{path}: line {line}: a NUL byte; expected text (a binary file?)")
    return text


def _sniff(path: Path) -> str:
    if path.suffix.lower() in (".graphml", ".xml"):
        return "graphml"
    if path.suffix.lower() == ".anynet":
        return "anynet"
    head = _read_bytes(path, 4096)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    if head.lstrip()[:1] == b"<":
        return "graphml"
    first = next((ln.split() for ln in head.splitlines() if ln.strip()), [])
    if len(first) >= 2 and first[0] in (b"router", b"node") and first[1].isdigit():
        return "anynet"
    return "edgelist"


def _read_anynet(path: Path, text: str) -> _Parsed:
    """BookSim2 ``anynet`` network file (``src/networks/anynet.cpp``).

    ``router R`` or ``node I`` followed by neighbours ``node I`` / ``router J``, each
    optionally followed by a link latency (only 1 is accepted: the simulator's links
    take one cycle). Links named twice (from both ends) are one link, as in BookSim2.
    Node ``I`` becomes compute node ``I`` and router ``R`` switch ``R``; the ids must
    be 0.. without gaps. Ports are numbered as BookSim2 does: a router's nodes by id,
    then its neighbour routers by id.
    """
    nodes: dict[int, tuple[int, int]] = {}  # node -> (router, line)
    routers: dict[int, int] = {}  # router -> first line
    rlinks: dict[tuple[int, int], int] = {}  # (lower, higher) -> line
    for lineno, line in enumerate(text.splitlines(), 1):
        f = line.split()
        if not f:
            continue

        def bad(msg: str):
            raise InputFileError(f"{path}: line {lineno}: {msg}: {line.strip()!r}")  # noqa: B023  (called in this iteration)

        def ident(tok: str) -> int:
            if not tok.isdigit():
                bad(f"expected a non-negative integer id, got {tok!r}")
            return int(tok)

        if f[0] not in ("router", "node"):
            bad(
                f"expected 'router R' or 'node I' at the start (BookSim2's anynet format has no "
                f"comments), got {f[0]!r}"
            )
        if len(f) < 2:
            bad(f"{f[0]} without an id")
        head_kind, head = f[0], ident(f[1])
        if head_kind == "router":
            routers.setdefault(head, lineno)
        i = 2
        while i < len(f):
            kind = f[i]
            if kind not in ("router", "node"):
                bad(f"expected 'router J' or 'node I' (or a latency after one), got {kind!r}")
            if i + 1 >= len(f):
                bad(f"{kind} without an id")
            other = ident(f[i + 1])
            i += 2
            if i < len(f) and f[i] not in ("router", "node"):
                if not f[i].isdigit():
                    bad(f"expected a link latency (integer), got {f[i]!r}")
                if int(f[i]) != 1:
                    bad(
                        f"link latency {f[i]} is not supported; fattree's links take one cycle (latency 1)"
                    )
                i += 1
            if head_kind == "node" and kind == "node":
                bad(f"a link between two compute nodes (node {head} and node {other})")
            if kind == "router":
                routers.setdefault(other, lineno)
            if head_kind == "router" and kind == "router":
                if head == other:
                    bad(f"a link from router {head} to itself")
                rlinks.setdefault((min(head, other), max(head, other)), lineno)
                continue
            node, router = (other, head) if kind == "node" else (head, other)
            if node in nodes and nodes[node][0] != router:
                bad(
                    f"node {node} is connected to router {router} and, on line {nodes[node][1]}, to router "
                    f"{nodes[node][0]}; a compute node has one link"
                )
            nodes.setdefault(node, (router, lineno))
    for what, ids in (("node", sorted(nodes)), ("router", sorted(routers))):
        if ids and ids != list(range(len(ids))):
            gap = next(i for i, x in enumerate(ids) if x != i)
            raise InputFileError(
                f"{path}: {what} ids must be 0..{len(ids) - 1} without gaps (BookSim2 requires "
                f"it); {what} {gap} is missing"
            )
    g = _Parsed()
    for v in range(len(nodes)):
        g.vertex(f"node{v}", nodes[v][1])
        g.kind[-1] = True
    for r in range(len(routers)):
        g.vertex(f"router{r}", routers[r])
        g.kind[-1] = False
    n = len(nodes)
    # BookSim2's ports: nodes by id, then neighbour routers by id
    nbr_nodes: dict[int, list[int]] = {}
    for v in range(n):
        nbr_nodes.setdefault(nodes[v][0], []).append(v)
    nbr_routers: dict[int, list[int]] = {}
    for a, b in rlinks:
        nbr_routers.setdefault(a, []).append(b)
        nbr_routers.setdefault(b, []).append(a)
    port = {}
    for r in routers:
        for p, v in enumerate(nbr_nodes.get(r, [])):
            port[(r, "n", v)] = p
        base = len(nbr_nodes.get(r, []))
        for p, o in enumerate(sorted(nbr_routers.get(r, []))):
            port[(r, "r", o)] = base + p
    for v in range(n):
        r, lineno = nodes[v]
        g.a.append(v)
        g.b.append(n + r)
        g.pa.append(0)
        g.pb.append(port[(r, "n", v)])
        g.line.append(lineno)
    for (a, b), lineno in sorted(rlinks.items(), key=lambda x: x[1]):
        g.a.append(n + a)
        g.b.append(n + b)
        g.pa.append(port[(a, "r", b)])
        g.pb.append(port[(b, "r", a)])
        g.line.append(lineno)
    return g


def _read_edgelist(path: Path, text: str) -> _Parsed:
    """``a b`` or ``a b port_a port_b`` per line; ``#`` starts a comment line."""
    g = _Parsed()
    with_ports: bool | None = None
    first = 0
    ids, vertex = g.ids, g.vertex
    for lineno, line in enumerate(text.splitlines(), 1):
        f = line.split()
        if not f or f[0][0] == "#":
            continue
        nf = len(f)
        if nf not in (2, 4):
            raise InputFileError(
                f"{path}: line {lineno}: expected 'a b' or 'a b port_a port_b', got {nf} fields: {line.strip()!r}"
            )
        if with_ports is None:
            with_ports, first = nf == 4, lineno
        elif with_ports != (nf == 4):
            raise InputFileError(
                f"{path}: line {lineno}: {nf} fields, but line {first} has {4 if with_ports else 2}; "
                f"give ports on every line or on none"
            )
        x, y = f[0], f[1]
        g.a.append(ids[x] if x in ids else vertex(x, lineno))
        g.b.append(ids[y] if y in ids else vertex(y, lineno))
        g.line.append(lineno)
        if with_ports:
            p, q = (
                _integer(
                    tok,
                    -PORT_PARSE_MAX,
                    PORT_PARSE_MAX,
                    lambda why, lineno=lineno, f=f: (
                        f"{path}: line {lineno}: ports must be integers, "
                        f"got {f[2]!r} {f[3]!r} ({why})"
                    ),
                )
                for tok in (f[2], f[3])
            )
            g.pa.append(p)
            g.pb.append(q)
    return g


_VERTEX_ATTRS = ("kind", "level", "layer")
_EDGE_ATTRS = ("port_a", "port_b", "kind_a", "kind_b")


def _read_graphml(path: Path) -> _Parsed:
    """GraphML via expat, so that errors can name the line.

    Only the attributes fattree uses are kept (by ``attr.name``): ``kind``, ``level``,
    ``layer`` of vertices and ``port_a``, ``port_b``, ``kind_a``, ``kind_b`` of edges.
    """
    import xml.parsers.expat  # when a GraphML file is read, not when the family registers

    g = _Parsed()
    keys: dict[str, str] = {}  # key id -> attr.name
    defaults: dict[str, str] = {}  # attr.name -> default value
    vattr = {name: [] for name in _VERTEX_ATTRS}  # raw strings per vertex (None: absent)
    eattr = {name: [] for name in _EDGE_ATTRS}
    cur: dict[str, str] = {}
    state = {"in": None, "data": None, "text": [], "key": None, "graphs": 0}
    parser = xml.parsers.expat.ParserCreate()
    parser.buffer_text = True

    def fail(msg: str):
        raise InputFileError(f"{path}: line {parser.CurrentLineNumber}: {msg}")

    def start(tag, attrs):
        tag = tag.rsplit(":", 1)[-1]
        if tag == "data":
            if "key" not in attrs:
                fail("<data> without a key")
            state["data"], state["text"] = keys.get(attrs["key"], attrs["key"]), []
        elif tag == "edge":
            src, dst = attrs.get("source"), attrs.get("target")
            for end, name in (("source", src), ("target", dst)):
                if name is None:
                    fail(f"<edge> without a {end}")
                if name not in g.ids:
                    fail(f"edge {end} {name!r} is not a declared <node>")
            g.a.append(g.ids[src])
            g.b.append(g.ids[dst])
            g.line.append(parser.CurrentLineNumber)
            cur.clear()
            state["in"] = "edge"
        elif tag == "node":
            if "id" not in attrs:
                fail("<node> without an id")
            if attrs["id"] in g.ids:
                fail(f"vertex {attrs['id']!r} is declared twice")
            g.vertex(attrs["id"], parser.CurrentLineNumber)
            cur.clear()
            state["in"] = "node"
        elif tag == "key":
            if "id" not in attrs:
                fail("<key> without an id")
            keys[attrs["id"]] = attrs.get("attr.name", attrs["id"])
            state["key"] = keys[attrs["id"]]
        elif tag == "default":
            state["data"], state["text"] = None, []
            state["in"] = "default"
        elif tag == "graph":
            state["graphs"] += 1
            if state["graphs"] > 1:
                fail("nested or multiple <graph> elements are not supported")
        elif tag in ("hyperedge", "port", "endpoint"):
            fail(f"<{tag}> is not supported (switch ports are edge attributes port_a/port_b)")

    def end(tag):
        tag = tag.rsplit(":", 1)[-1]
        if tag == "data" and state["data"] is not None:
            cur[state["data"]] = "".join(state["text"]).strip()
            state["data"] = None
        elif tag == "node":
            for name in _VERTEX_ATTRS:
                vattr[name].append(cur.get(name))
            state["in"] = None
        elif tag == "edge":
            for name in _EDGE_ATTRS:
                eattr[name].append(cur.get(name))
            state["in"] = None
        elif tag == "default" and state["key"] is not None:
            defaults[state["key"]] = "".join(state["text"]).strip()
            state["in"] = None
        elif tag == "key":
            state["key"] = None

    def chars(text):
        if state["data"] is not None or state["in"] == "default":
            state["text"].append(text)

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler = chars
    try:
        # streamed: the file is never held in memory whole; a regular file only
        with open_input(path, "graph: file=", limit=None) as fh:
            parser.ParseFile(fh)
    except OSError as exc:
        raise InputFileError(
            f"graph: file={str(path)!r} cannot be read: {exc.strerror or exc}"
        ) from None
    except xml.parsers.expat.ExpatError as exc:
        raise InputFileError(
            f"{path}: line {exc.lineno}: malformed GraphML ({xml.parsers.expat.ErrorString(exc.code)})"
        ) from None
    if not state["graphs"]:
        raise InputFileError(f"{path}: no <graph> element; is this a GraphML file?")
    for attrs in (vattr, eattr):
        for name, values in attrs.items():
            if name in defaults:
                attrs[name] = [defaults[name] if x is None else x for x in values]
    _vertex_attributes(path, g, vattr)
    _edge_attributes(path, g, eattr)
    return g


def _vertex_attributes(path: Path, g: _Parsed, vattr: dict) -> None:
    for v, kind in enumerate(vattr["kind"]):
        if kind is not None:
            kind = kind.lower()
            if kind not in _NODE_KINDS | _SWITCH_KINDS:
                raise InputFileError(
                    f"{path}: line {g.where[v]}: vertex {g.names[v]!r} has kind={kind!r}; "
                    f"allowed: 'node' (compute node) or 'switch'"
                )
            g.kind[v] = kind in _NODE_KINDS
    for name, store in (("level", g.level), ("layer", g.layer)):
        for v, value in enumerate(vattr[name]):
            if value is not None:
                store[v] = _integer(
                    value,
                    -LEVEL_MAX,
                    LEVEL_MAX,
                    lambda why, v=v, name=name, value=value: (
                        f"{path}: line {g.where[v]}: vertex {g.names[v]!r} has "
                        f"{name}={value!r}, {why}"
                    ),
                )


def _edge_attributes(path: Path, g: _Parsed, eattr: dict) -> None:
    pa, pb = eattr["port_a"], eattr["port_b"]
    if any(x is not None for x in pa) or any(x is not None for x in pb):
        for i, (x, y) in enumerate(zip(pa, pb)):
            if x is None or y is None:
                raise InputFileError(
                    f"{path}: line {g.line[i]}: edge without port_a and port_b, while other edges have "
                    f"them; give ports on every edge or on none"
                )
            for val, out in ((x, g.pa), (y, g.pb)):
                out.append(
                    _integer(
                        val,
                        -PORT_PARSE_MAX,
                        PORT_PARSE_MAX,
                        lambda why, i=i, x=x, y=y: (
                            f"{path}: line {g.line[i]}: ports must be integers, "
                            f"got {x!r} {y!r} ({why})"
                        ),
                    )
                )
    ka, kb = eattr["kind_a"], eattr["kind_b"]
    if ka and all(x is not None for x in ka) and all(y is not None for y in kb):
        codes = {name: code for code, name in enumerate(PORT_KIND_NAMES)}
        for i, (x, y) in enumerate(zip(ka, kb)):
            x, y = x.lower(), y.lower()
            if x not in codes or y not in codes:
                raise InputFileError(
                    f"{path}: line {g.line[i]}: port kinds ({x!r}, {y!r}) invalid; "
                    f"allowed: {', '.join(PORT_KIND_NAMES)}"
                )
            g.ka.append(codes[x])
            g.kb.append(codes[y])


# ---------------------------------------------------------------------- assembly
def _assemble(path: Path, g: _Parsed, node_prefix: str, params: dict, fmt: str) -> Topology:
    names = g.names
    nv = len(names)
    if not g.a:
        raise InputFileError(
            f"{path}: no links found (expected lines 'a b [port_a port_b]' or GraphML edges)"
        )
    # compute nodes: the 'kind' attribute where every vertex has one, else the prefix rule
    kinds = g.kind
    if any(k is not None for k in kinds):
        missing = [v for v in range(nv) if kinds[v] is None]
        if missing:
            v = missing[0]
            raise InputFileError(
                f"{path}: line {g.where[v]}: vertex {names[v]!r} has no 'kind' attribute while others do; "
                f"give kind='node' or 'switch' to every vertex"
            )
        is_node = np.array(kinds, bool)
    else:
        is_node = np.fromiter((s.startswith(node_prefix) for s in names), bool, nv)
    if not is_node.any():
        raise InputFileError(
            f"{path}: no compute nodes: no vertex has kind='node' or a label starting with {node_prefix!r} "
            f"(set node_prefix=..., e.g. graph:file={params['file']},node_prefix=h)"
        )
    a = np.asarray(g.a, np.int64)
    b = np.asarray(g.b, np.int64)
    line = np.asarray(g.line, np.int64)
    ports = (np.asarray(g.pa, np.int64), np.asarray(g.pb, np.int64)) if g.pa else None

    def at(mask, msg):
        i = int(np.flatnonzero(mask)[0])
        raise InputFileError(f"{path}: line {line[i]}: {msg(i)}")

    if (a == b).any():
        at(a == b, lambda i: f"link from {names[a[i]]!r} to itself")
    nn = is_node[a] & is_node[b]
    if nn.any():
        at(
            nn,
            lambda i: (
                f"link between two compute nodes {names[a[i]]!r} and {names[b[i]]!r}; "
                f"a compute node connects to one switch"
            ),
        )
    deg = np.bincount(np.concatenate([a, b]), minlength=nv)
    bad = np.flatnonzero(is_node & (deg != 1))
    if len(bad):
        v = int(bad[0])
        where = line[(a == v) | (b == v)][:3].tolist()
        raise InputFileError(
            f"{path}: line {g.where[v]}: compute node {names[v]!r} has {deg[v]} links (lines "
            f"{', '.join(map(str, where))}); a compute node has exactly one link, to a switch"
        )
    if ports is not None:
        pa, pb = ports
        neg = (pa < 0) | (pb < 0) | (pa > MAX_PORT) | (pb > MAX_PORT)
        if neg.any():
            at(neg, lambda i: f"port out of range ({pa[i]}, {pb[i]}); ports are 0..{MAX_PORT}")
    # vertex ids: compute nodes first, each group in order of appearance
    node_old = np.flatnonzero(is_node)
    sw_old = np.flatnonzero(~is_node)
    new = np.empty(nv, np.int64)
    new[node_old] = np.arange(len(node_old))
    new[sw_old] = len(node_old) + np.arange(len(sw_old))
    n, s = len(node_old), len(sw_old)
    a, b = new[a], new[b]
    _check_connected(path, names, node_old, sw_old, a, b, n + s, g.where)
    # each link end at a switch: (switch, port, peer, peer's port)
    ends_sw = np.concatenate([a, b])
    ends_peer = np.concatenate([b, a])
    ends_line = np.concatenate([line, line])
    order_key = np.concatenate([2 * np.arange(len(a)), 2 * np.arange(len(a)) + 1])
    at_switch = ends_sw >= n
    if ports is None:
        port = np.zeros(len(ends_sw), np.int64)
        idx = np.flatnonzero(at_switch)
        srt = idx[np.lexsort((order_key[idx], ends_sw[idx]))]
        grp = ends_sw[srt]
        start = np.r_[0, np.flatnonzero(grp[1:] != grp[:-1]) + 1]
        rank = np.arange(len(srt)) - np.repeat(start, np.diff(np.r_[start, len(srt)]))
        port[srt] = rank
    else:
        port = np.concatenate([ports[0], ports[1]])
        port[~at_switch] = 0  # a compute node has one port
        idx = np.flatnonzero(at_switch)
        srt = idx[np.lexsort((port[idx], ends_sw[idx]))]
        dup = (ends_sw[srt][1:] == ends_sw[srt][:-1]) & (port[srt][1:] == port[srt][:-1])
        if dup.any():
            j = int(np.flatnonzero(dup)[0])
            e1, e2 = srt[j], srt[j + 1]
            raise InputFileError(
                f"{path}: line {ends_line[e2]}: port {port[e2]} of switch {names[sw_old[ends_sw[e2] - n]]!r} "
                f"is already used on line {ends_line[e1]}"
            )
    peer_port = np.concatenate([port[len(a) :], port[: len(a)]])
    if at_switch.any() and int(port[at_switch].max()) > MAX_PORT:
        # numbered in order of appearance: a switch with more links than ports can hold
        e = int(np.flatnonzero(at_switch & (port > MAX_PORT))[0])
        sw = names[sw_old[ends_sw[e] - n]]
        links = int(np.count_nonzero(ends_sw[at_switch] == ends_sw[e]))
        raise InputFileError(
            f"{path}: line {ends_line[e]}: switch {sw!r} has {links:,} links; a switch has "
            f"at most {MAX_PORT + 1:,} ports (0..{MAX_PORT})"
        )
    radix = int(port[at_switch].max()) + 1 if at_switch.any() else 1
    port_peer = np.full((s, radix), -1, np.int64)
    port_peer_port = np.zeros((s, radix), np.int64)
    rows, cols = ends_sw[at_switch] - n, port[at_switch]
    port_peer[rows, cols] = ends_peer[at_switch]
    port_peer_port[rows, cols] = peer_port[at_switch]
    level = _levels(g, sw_old, n, s, a, b)
    layer = (
        np.array([g.layer[v] for v in sw_old], np.int64)
        if s and all(v in g.layer for v in sw_old)
        else level
    )
    kind = np.full((s, radix), PORT_NONE, np.int64)
    used = port_peer >= 0
    peer_sw = np.where(port_peer >= n, port_peer - n, 0)
    peer_level = level[peer_sw]
    mine = level[:, None]
    kind[used] = np.select(
        [port_peer < n, peer_level > mine, peer_level < mine],
        [PORT_NODE, PORT_UP, PORT_DOWN],
        PORT_CUBE,
    )[used]
    if g.ka:  # the file's own port kinds (a port facing a compute node stays PORT_NODE)
        given = np.concatenate([g.ka, g.kb])[at_switch]
        kind[rows, cols] = np.where(port_peer[rows, cols] < n, PORT_NODE, given)
    return Topology.create(
        "graph",
        params,
        node_digits=np.zeros((n, 0), np.int64),
        switch_digits=np.zeros((s, 0), np.int64),
        switch_level=level,
        switch_layer=layer,
        port_peer=port_peer,
        port_peer_port=port_peer_port,
        port_kind=kind,
        node_names=[names[v] for v in node_old],
        switch_names=[names[v] for v in sw_old],
        meta={"source": str(path), "format": fmt},
    )


def _adjacency(a, b, nv):
    import scipy.sparse as sp  # scipy when a file is read, not when the family registers

    data = np.ones(2 * len(a), np.int8)
    return sp.csr_matrix((data, (np.concatenate([a, b]), np.concatenate([b, a]))), shape=(nv, nv))


def _check_connected(path, names, node_old, sw_old, a, b, nv, where) -> None:
    from scipy.sparse import csgraph

    count, comp = csgraph.connected_components(_adjacency(a, b, nv), directed=False)
    if count == 1:
        return
    sizes = np.bincount(comp)
    big = int(np.argmax(sizes))
    v = int(np.flatnonzero(comp != big)[0])
    old = np.concatenate([node_old, sw_old])
    name, other = names[old[v]], names[old[int(np.flatnonzero(comp == big)[0])]]
    raise InputFileError(
        f"{path}: line {where[old[v]]}: the graph is disconnected ({count} components): vertex {name!r} "
        f"is in a component of {sizes[comp[v]]} vertices, not connected to {other!r} "
        f"(largest component, {sizes[big]} vertices)"
    )


def _levels(g: _Parsed, sw_old, n, s, a, b) -> np.ndarray:
    """The file's levels, or hop distance from the nearest compute node minus one."""
    if s and len(g.level) and all(v in g.level for v in sw_old):
        return np.array([g.level[v] for v in sw_old], np.int64)
    if s == 0:
        return np.zeros(0, np.int64)
    from scipy.sparse import csgraph

    dist = csgraph.dijkstra(
        _adjacency(a, b, n + s),
        directed=False,
        indices=np.arange(n),
        unweighted=True,
        min_only=True,
    )
    return (dist[n:] - 1).astype(np.int64)
