"""The immutable topology object shared by every concern.

Vertices live in one id space: compute nodes are ``0 .. N-1`` and switch ``s`` is
vertex ``N + s``. Port tables are per switch; a node has exactly one link.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from ._np import np

from ..errors import ParameterError

# Port kinds, stored in ``Topology.port_kind``.
#: Placements of a workload's ranks on the nodes (:meth:`Topology.node_order`): ``id``
#: (rank r on node r) and ``leaf`` (leaf switch by leaf switch).
PLACEMENTS = ("id", "leaf")
PORT_NONE = -1
PORT_DOWN = 0  # towards the compute nodes of the switch's own side
PORT_UP = 1  # towards the roots (cross links of MiKANT are up ports at both ends)
PORT_CUBE = 2  # hypercube / torus / lateral links between switches of one level
PORT_NODE = 3  # a down port whose peer is a compute node

_PORT_KIND_NAMES = {PORT_DOWN: "down", PORT_UP: "up", PORT_CUBE: "cube", PORT_NODE: "node"}
#: the kinds' names (GraphML, edge lists), indexed by the PORT_* codes
PORT_KIND_NAMES = tuple(_PORT_KIND_NAMES[code] for code in range(len(_PORT_KIND_NAMES)))


def _frozen(a: np.ndarray, dtype) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=dtype)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class Topology:
    """An exact interconnection network: compute nodes, switches, ports and labels.

    Build one with :func:`fattree.build`; the arrays are read-only.

    Attributes
    ----------
    family, params : str, mapping
        The family name and its (validated) parameters.
    node_digits : (N, dn) int array
        Node labels as the papers' tuples, most significant digit first.
    switch_digits : (S, ds) int array
        Switch labels, same convention.
    switch_level : (S,) int array
        The papers' stage of every switch (0 = leaf stage), for per-level metrics.
    switch_layer : (S,) int array
        Row of every switch in the layered drawing (bottom = 0); equals the level
        except in mirrored families, where the second group is drawn above.
    port_peer : (S, R) int32
        Vertex at the far end of each port (``-1``: port unused). Vertex ids below
        ``N`` are nodes, ``N + s`` is switch ``s``.
    port_peer_port : (S, R) int16
        The port of the far end that leads back (``0`` for a node).
    port_kind : (S, R) int8
        ``PORT_DOWN``, ``PORT_UP``, ``PORT_CUBE``, ``PORT_NODE`` or ``PORT_NONE``.
    node_switch, node_port : (N,) arrays
        The switch each node hangs on, and the port of that switch.
    node_names, switch_names : tuple of str or None
        Labels for imported graphs, whose vertices have names instead of digits.
    """

    family: str
    params: MappingProxyType
    node_digits: np.ndarray
    switch_digits: np.ndarray
    switch_level: np.ndarray
    switch_layer: np.ndarray
    port_peer: np.ndarray
    port_peer_port: np.ndarray
    port_kind: np.ndarray
    node_switch: np.ndarray
    node_port: np.ndarray
    node_names: tuple[str, ...] | None = None
    switch_names: tuple[str, ...] | None = None
    meta: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def create(
        cls,
        family: str,
        params: dict[str, Any],
        *,
        node_digits,
        switch_digits,
        switch_level,
        port_peer,
        port_peer_port,
        port_kind,
        node_switch=None,
        node_port=None,
        node_names=None,
        switch_names=None,
        meta=None,
        switch_layer=None,
    ) -> Topology:
        """Freeze arrays and derive the node attachment from the port tables if not given."""
        port_peer = np.asarray(port_peer)
        n_nodes = len(node_digits) if node_names is None else len(node_names)
        if node_switch is None or node_port is None:
            s_idx, p_idx = np.nonzero((port_peer >= 0) & (port_peer < n_nodes))
            node_switch = np.full(n_nodes, -1, np.int64)
            node_port = np.full(n_nodes, -1, np.int64)
            node_switch[port_peer[s_idx, p_idx]] = s_idx
            node_port[port_peer[s_idx, p_idx]] = p_idx
        dig_t = np.int16
        return cls(
            family=family,
            params=MappingProxyType(dict(params)),
            node_digits=_frozen(np.asarray(node_digits).reshape(n_nodes, -1), dig_t),
            switch_digits=_frozen(np.asarray(switch_digits).reshape(len(switch_level), -1), dig_t),
            switch_level=_frozen(switch_level, np.int16),
            switch_layer=_frozen(switch_level if switch_layer is None else switch_layer, np.int16),
            port_peer=_frozen(port_peer, np.int32),
            port_peer_port=_frozen(port_peer_port, np.int16),
            port_kind=_frozen(port_kind, np.int8),
            node_switch=_frozen(node_switch, np.int32),
            node_port=_frozen(node_port, np.int16),
            node_names=tuple(node_names) if node_names is not None else None,
            switch_names=tuple(switch_names) if switch_names is not None else None,
            meta=MappingProxyType(dict(meta or {})),
        )

    # ------------------------------------------------------------------ sizes
    @property
    def n_nodes(self) -> int:
        return int(self.node_switch.shape[0])

    @property
    def n_switches(self) -> int:
        return int(self.port_peer.shape[0])

    @property
    def n_vertices(self) -> int:
        return self.n_nodes + self.n_switches

    @property
    def max_ports(self) -> int:
        return int(self.port_peer.shape[1])

    @cached_property
    def radix(self) -> np.ndarray:
        """Number of used ports of every switch."""
        r = (self.port_peer >= 0).sum(axis=1).astype(np.int32)
        r.flags.writeable = False
        return r

    def leaf_major_order(self) -> np.ndarray:
        """Node ids leaf switch by leaf switch: rank ``r`` of a workload placed leaf-major
        runs on node ``order[r]``.

        The nodes are sorted by the switch they hang on (its index), then by its port, so
        that consecutive ranks share a leaf switch. Node ids themselves follow the papers'
        labels, which in kant, Clos, MiKANT and XGFT put the port digit first: consecutive
        ids sit on different leaf switches there (docs/families/trees.md, "Node numbering").

        Returns
        -------
        ndarray of int64, shape (N,)
            A permutation of ``0..N-1`` (read-only).

        Examples
        --------
        >>> import fattree
        >>> t = fattree.build("kant:k=2,n=2")
        >>> t.node_switch.tolist(), t.leaf_major_order().tolist()
        ([0, 1, 0, 1], [0, 2, 1, 3])

        References
        ----------
        000 §II (node labels <C_{n-1}, ..., C_0>, the port digit first).
        """
        order = np.lexsort((np.asarray(self.node_port), np.asarray(self.node_switch)))
        order = order.astype(np.int64)
        order.flags.writeable = False
        return order

    def node_order(self, placement: str = "id") -> np.ndarray:
        """The node of every rank under a placement: ``"id"`` (rank r on node r) or
        ``"leaf"`` (:meth:`leaf_major_order`).

        Parameters
        ----------
        placement : str
            One of :data:`PLACEMENTS`.

        Returns
        -------
        ndarray of int64, shape (N,)

        Raises
        ------
        ParameterError
            An unknown placement.

        Examples
        --------
        >>> import fattree
        >>> fattree.build("kant:k=2,n=2").node_order("id").tolist()
        [0, 1, 2, 3]
        """
        if placement == "id":
            return np.arange(self.n_nodes, dtype=np.int64)
        if placement == "leaf":
            return self.leaf_major_order()
        raise ParameterError(
            f"placement={placement!r} is invalid; allowed: {', '.join(PLACEMENTS)}"
        )

    @property
    def spec(self) -> str:
        """The spec string that rebuilds this topology, e.g. ``mikant:k=4,n=5``."""
        return self.family + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())

    def __repr__(self) -> str:
        return (
            f"Topology({self.spec!r}, nodes={self.n_nodes}, switches={self.n_switches}, "
            f"links={self.n_links})"
        )

    # ------------------------------------------------------------------ links
    @cached_property
    def links(self) -> np.ndarray:
        """(E, 2) vertex ids of every bidirectional link, each listed once.

        Node links come first (node, switch), then switch-switch links with the
        lower switch id first; both parts sorted.
        """
        n = self.n_nodes
        node_part = np.stack([np.arange(n), n + self.node_switch.astype(np.int64)], axis=1)
        s_idx, p_idx = np.nonzero(self.port_peer >= n)
        peer = self.port_peer[s_idx, p_idx].astype(np.int64)
        me = s_idx.astype(np.int64) + n
        keep = me < peer
        # a switch wired to itself twice or a multi-link keeps one entry per port pair
        sw_part = np.stack([me[keep], peer[keep]], axis=1)
        out = np.concatenate([node_part, sw_part]).astype(np.int64)
        out.flags.writeable = False
        return out

    @cached_property
    def link_ports(self) -> np.ndarray:
        """(E, 2) port used at each end of :attr:`links` (0 at a node)."""
        n = self.n_nodes
        node_part = np.stack([np.zeros(n, np.int64), self.node_port.astype(np.int64)], axis=1)
        s_idx, p_idx = np.nonzero(self.port_peer >= n)
        me = s_idx.astype(np.int64) + n
        keep = me < self.port_peer[s_idx, p_idx]
        sw_part = np.stack([p_idx[keep], self.port_peer_port[s_idx[keep], p_idx[keep]]], axis=1)
        out = np.concatenate([node_part, sw_part]).astype(np.int64)
        out.flags.writeable = False
        return out

    @property
    def n_links(self) -> int:
        return int(self.links.shape[0])

    @property
    def n_node_links(self) -> int:
        return self.n_nodes

    @property
    def n_switch_links(self) -> int:
        return self.n_links - self.n_nodes

    @cached_property
    def link_index(self) -> np.ndarray:
        """(S, R) id of the link behind each port (``-1`` if unused)."""
        n = self.n_nodes
        idx = np.full(self.port_peer.shape, -1, np.int64)
        e = np.arange(self.n_links)
        a, b = self.links[:, 0], self.links[:, 1]
        pa, pb = self.link_ports[:, 0], self.link_ports[:, 1]
        sw_a = a >= n
        idx[a[sw_a] - n, pa[sw_a]] = e[sw_a]
        idx[b - n, pb] = e
        idx.flags.writeable = False
        return idx

    # ------------------------------------------------------------------ graph
    @cached_property
    def csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Adjacency of all vertices as CSR ``(indptr, indices)``, int64, for BFS kernels."""
        e = self.links
        src = np.concatenate([e[:, 0], e[:, 1]])
        dst = np.concatenate([e[:, 1], e[:, 0]])
        order = np.lexsort((dst, src))
        src, dst = src[order], dst[order]
        indptr = np.zeros(self.n_vertices + 1, np.int64)
        np.add.at(indptr, src + 1, 1)
        np.cumsum(indptr, out=indptr)
        dst = np.ascontiguousarray(dst, np.int64)
        indptr.flags.writeable = False
        dst.flags.writeable = False
        return indptr, dst

    def to_networkx(self):
        """Return a ``networkx.Graph`` with string labels and ``kind``/``level`` attributes.

        Examples
        --------
        >>> import fattree
        >>> g = fattree.build("mikant:k=2,n=3").to_networkx()
        >>> g.number_of_nodes(), g.number_of_edges()
        (32, 40)
        """
        import networkx as nx

        g = nx.Graph(family=self.family, **{str(k): v for k, v in self.params.items()})
        names = self.vertex_labels()
        for v in range(self.n_nodes):
            g.add_node(names[v], kind="node")
        for s in range(self.n_switches):
            g.add_node(names[self.n_nodes + s], kind="switch", level=int(self.switch_level[s]))
        for (a, b), (pa, pb) in zip(self.links.tolist(), self.link_ports.tolist()):
            g.add_edge(names[a], names[b], ports=(pa, pb))
        return g

    # ------------------------------------------------------------------ labels
    def node_label(self, i: int) -> str:
        if self.node_names is not None:
            return self.node_names[i]
        return "n" + ".".join(map(str, self.node_digits[i].tolist()))

    def switch_label(self, s: int) -> str:
        if self.switch_names is not None:
            return self.switch_names[s]
        return "s" + ".".join(map(str, self.switch_digits[s].tolist()))

    def vertex_label(self, v: int) -> str:
        return self.node_label(v) if v < self.n_nodes else self.switch_label(v - self.n_nodes)

    def vertex_labels(self) -> list[str]:
        """Labels of all vertices in id order (nodes, then switches)."""
        if self.node_names is not None:
            nodes = list(self.node_names)
        else:
            nodes = _format_rows("n", self.node_digits)
        if self.switch_names is not None:
            sw = list(self.switch_names)
        else:
            sw = _format_rows("s", self.switch_digits)
        return nodes + sw

    @cached_property
    def _names_index(self) -> dict[str, int]:
        labels = list(self.node_names or ()) + list(self.switch_names or ())
        return {name: i for i, name in enumerate(labels)}

    def find(self, label: str) -> int:
        """Vertex id of a label such as ``n1.2.2.2.2`` or ``s0.2.0.0.0``.

        Raises
        ------
        ParameterError
            If no vertex has that label; the message gives an example of a valid one.
        """
        label = label.strip()
        if self.node_names is not None:
            v = self._names_index.get(label)
            if v is None:
                raise ParameterError(
                    f"label {label!r} is not a vertex of {self.spec}; valid labels are the "
                    f"imported names, e.g. {self.node_label(0)!r} or {self.switch_label(0)!r}"
                )
            return v
        kind = label[:1]
        example = f"e.g. {self.node_label(self.n_nodes - 1)!r} or {self.switch_label(0)!r}"
        if kind not in ("n", "s"):
            raise ParameterError(
                f"label {label!r} must start with 'n' (node) or 's' (switch), {example}"
            )
        try:
            digits = [int(x) for x in label[1:].split(".")]
        except ValueError:
            raise ParameterError(
                f"label {label!r} is not dot-separated integers after '{kind}', {example}"
            ) from None
        table = self.node_digits if kind == "n" else self.switch_digits
        i = _lookup_row(table, digits, self._digit_keys(kind))
        if i < 0:
            what = "node" if kind == "n" else "switch"
            raise ParameterError(
                f"{what} label {label!r} does not exist in {self.spec} "
                f"({table.shape[1]} digits, ranges {_ranges(table)}), {example}"
            )
        return i if kind == "n" else self.n_nodes + i

    def find_node(self, label: str, param: str = "node") -> int:
        """Node id of a node label; a switch label is refused with a clear message."""
        v = self.find(label)
        if v >= self.n_nodes:
            raise ParameterError(
                f"{param}={label!r} is a switch, a compute node is expected "
                f"(e.g. {self.node_label(0)!r})"
            )
        return v

    def _digit_keys(self, kind: str):
        cache = self.__dict__.setdefault("_key_cache", {})
        if kind not in cache:
            table = self.node_digits if kind == "n" else self.switch_digits
            cache[kind] = _build_keys(table)
        return cache[kind]


def _format_rows(prefix: str, digits: np.ndarray) -> list[str]:
    if digits.shape[1] == 0:
        return [prefix] * digits.shape[0]
    cols = [digits[:, j].astype(str) for j in range(digits.shape[1])]
    out = np.char.add(prefix, cols[0])
    for c in cols[1:]:
        out = np.char.add(np.char.add(out, "."), c)
    return out.tolist()


def _ranges(table: np.ndarray) -> str:
    if table.size == 0:
        return "none"
    lo, hi = table.min(axis=0), table.max(axis=0)
    return (
        "<"
        + ",".join(f"{a}..{b}" if a != b else f"{a}" for a, b in zip(lo.tolist(), hi.tolist()))
        + ">"
    )


def _build_keys(table: np.ndarray):
    base = (
        table.max(axis=0).astype(np.int64) + 1 if table.size else np.ones(table.shape[1], np.int64)
    )
    mult = np.ones(table.shape[1], np.int64)
    for j in range(table.shape[1] - 2, -1, -1):
        mult[j] = mult[j + 1] * base[j + 1]
    keys = (
        (table.astype(np.int64) * mult).sum(axis=1)
        if table.size
        else np.zeros(len(table), np.int64)
    )
    order = np.argsort(keys, kind="stable")
    return base, mult, keys[order], order


def _lookup_row(table: np.ndarray, digits: list[int], keys) -> int:
    base, mult, sorted_keys, order = keys
    if len(digits) != table.shape[1]:
        return -1
    d = np.asarray(digits, np.int64)
    if np.any(d < 0) or np.any(d >= base):
        return -1
    key = int((d * mult).sum())
    pos = int(np.searchsorted(sorted_keys, key))
    if pos < len(sorted_keys) and sorted_keys[pos] == key:
        return int(order[pos])
    return -1


__all__ = ["PORT_NONE", "PORT_DOWN", "PORT_UP", "PORT_CUBE", "PORT_NODE", "Topology", "PLACEMENTS"]
