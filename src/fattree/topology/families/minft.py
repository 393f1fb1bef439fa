"""MIN (butterfly) fat trees of 003: Bouhraoua's ``minft`` and the reduced-switch ``rsminft``.

``N = 2^n`` clients, ``C = 2^(n-1)`` columns. Router ``(r, c)`` (003 §3.1, rows from 0 at
the leaves) is switch ``r*C + c``, labelled by ``r`` and the ``n-1`` bits of ``c``, most
significant first: ``(1, 2)`` of 8 clients is ``s1.1.0``. Client address ``a = 2c + s``
(003 §3.1) is node ``a``, labelled by the ``n`` bits of ``a`` (the column's bits, then
``s``): client 5 is ``n1.0.1``, on port ``s`` of leaf router ``(0, c)``. Bits rather than
integers keep every digit within the int16 labels at any size (as ``kant:k=2``).

Ports of every router (the same numbers in both families):

* ``0, 1`` down: at row 0 the clients ``2c``, ``2c+1`` (``PORT_NODE``); above, port ``j``
  leads to ``(r-1, c)`` with bit ``r-1`` of ``c`` set to ``j`` (``PORT_DOWN``), so the
  down port towards destination column ``d`` is bit ``r-1`` of ``d``.
* ``2, 3`` up: port ``2+i`` leads to ``(r+1, c)`` with bit ``r`` set to ``i``
  (``PORT_UP``): port ``2 + bit_r(c)`` is 003's straight link ``(r+1, c)``, the other one
  the cross link ``(r+1, c ± 2^r)``. Unused (``PORT_NONE``) on the top row.
* ``4`` lateral (``rsminft`` only, ``PORT_CUBE``): ``(r, c XOR 2^l)`` with ``l = max(r, 1)``,
  i.e. 003 eq. (3) with levels numbered from 1 (errata); it enters through port 4.

``minft`` has ``n`` rows (``n 2^(n-1)`` routers; it is the 2-ary n-tree with other labels);
``rsminft`` drops the top row (``(n-1) 2^(n-1)`` routers). ``Topology.meta`` holds what
routing needs: ``n``, ``rows``, ``columns``, the port numbers and ``lateral_bits`` per row.
"""

from __future__ import annotations

from .._np import np

from ...errors import ParameterError
from ..core import PORT_CUBE, PORT_DOWN, PORT_NODE, PORT_NONE, PORT_UP, Topology
from ..family import Facets, Param, register_family
from ._digits import all_nodes_one_class
from .cubes import bits_msd

PORT_LATERAL = 4
_CLIENTS = Param(
    "clients", "number of clients N, a power of two (8, 16, 32, ...)", minimum=8, maximum=2**26
)


def _log2_clients(family: str, clients: int) -> int:
    if clients & (clients - 1):
        raise ParameterError(
            f"{family}: clients={clients} is not a power of two; allowed: 2^m clients with "
            f"m >= 3 (8, 16, 32, 64, ...)"
        )
    return clients.bit_length() - 1


def _lateral_bits(rows: int) -> tuple[int, ...]:
    """Bit flipped by the lateral link of each row: 003 eq. (3), levels from 1 (errata)."""
    return tuple(max(r, 1) for r in range(rows))


def _build(family: str, clients: int, reduced: bool) -> Topology:
    n = _log2_clients(family, clients)
    C = clients // 2
    rows = n - 1 if reduced else n
    S = rows * C
    N = clients
    sid = np.arange(S, dtype=np.int64)
    r = sid // C
    c = sid % C
    nport = 5 if reduced else 4
    peer = np.full((S, nport), -1, np.int64)
    pport = np.zeros((S, nport), np.int64)
    kind = np.full((S, nport), PORT_NONE, np.int64)
    leaf = r == 0
    top = r == rows - 1
    # going down from row r sets bit r-1 of c, going up sets bit r (elementwise shifts)
    dmask = np.left_shift(1, np.maximum(r - 1, 0))
    umask = np.left_shift(1, r)
    down_bit = np.where(leaf, 0, (c & dmask) != 0).astype(np.int64)
    up_bit = ((c & umask) != 0).astype(np.int64)
    for j in range(2):
        below = (c & ~dmask) | (j * dmask)
        above = (c & ~umask) | (j * umask)
        peer[:, j] = np.where(leaf, 2 * c + j, N + (r - 1) * C + below)
        pport[:, j] = np.where(leaf, 0, 2 + down_bit)
        kind[:, j] = np.where(leaf, PORT_NODE, PORT_DOWN)
        peer[:, 2 + j] = np.where(top, -1, N + (r + 1) * C + above)
        pport[:, 2 + j] = np.where(top, 0, up_bit)
        kind[:, 2 + j] = np.where(top, PORT_NONE, PORT_UP)
    lateral = _lateral_bits(rows) if reduced else ()
    if reduced:
        flip = np.asarray(lateral, np.int64)[r]
        peer[:, PORT_LATERAL] = N + r * C + (c ^ (1 << flip))
        pport[:, PORT_LATERAL] = PORT_LATERAL
        kind[:, PORT_LATERAL] = PORT_CUBE
    addr = np.arange(N, dtype=np.int64)
    meta = {
        "n": n,
        "rows": rows,
        "columns": C,
        "clients_per_leaf": 2,
        "down_ports": (0, 1),
        "up_ports": (2, 3),
        "lateral_port": PORT_LATERAL if reduced else -1,
        "lateral_bits": lateral,
    }
    sw_digits = np.empty((S, n), np.int16)
    sw_digits[:, 0] = r
    sw_digits[:, 1:] = bits_msd(c, n - 1)
    return Topology.create(
        family,
        {"clients": clients},
        node_digits=bits_msd(addr, n),
        switch_digits=sw_digits,
        switch_level=r,
        port_peer=peer,
        port_peer_port=pport,
        port_kind=kind,
        node_switch=addr // 2,
        node_port=addr % 2,
        meta=meta,
    )


def _check(family: str):
    def check(q):
        _log2_clients(family, q["clients"])

    return check


def _size(rows_less: int):
    def size(q):
        n = q["clients"].bit_length() - 1
        return q["clients"], (n - rows_less) * q["clients"] // 2, 4 + rows_less

    return size


@register_family(
    "minft",
    title="MIN (butterfly) fat tree, 2 clients per leaf router",
    paper="003 §3",
    params=[_CLIENTS],
    size=_size(0),
    check=_check("minft"),
    node_classes=all_nodes_one_class,
    facets=Facets(
        routing="summit",
        forms="minft",
        fault_tolerance="generic",
        fault_walk=None,
        advisor=("minft",),
        drawing="layered",
        example="minft:clients=8",
    ),
)
def minft(clients: int) -> Topology:
    """Bouhraoua's MIN fat tree: N = 2^n clients, n rows of N/2 routers (n 2^(n-1) in all).

    Router ``(r, c)`` joins ``(r+1, c)`` and ``(r+1, c XOR 2^r)``; clients ``2c``, ``2c+1``
    hang on ``(0, c)``. Shortest paths visit at most ``2n-1`` routers.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("minft:clients=8")
    >>> t.n_switches, t.n_links
    (12, 24)
    >>> [t.vertex_label(int(v)) for v in t.port_peer[t.find("s1.1.0") - t.n_nodes]]
    ['s0.1.0', 's0.1.1', 's2.0.0', 's2.1.0']
    >>> [t.vertex_label(int(v)) for v in t.port_peer[t.find("s0.1.0") - t.n_nodes]]
    ['n1.0.0', 'n1.0.1', 's1.1.0', 's1.1.1']

    References
    ----------
    003 §3.1 (router connections, client address 2c+s) and Table 2 (router counts);
    Bouhraoua & Elrabaa 2006/2011.
    """
    return _build("minft", clients, reduced=False)


@register_family(
    "rsminft",
    title="reduced-switch scalable MIN fat tree with lateral links",
    paper="003 §4",
    params=[_CLIENTS],
    size=_size(1),
    check=_check("rsminft"),
    node_classes=all_nodes_one_class,
    facets=Facets(
        routing="lateral",
        forms="rsminft",
        fault_tolerance="generic",
        fault_walk=None,
        advisor=("rsminft",),
        drawing="layered",
        example="rsminft:clients=8",
    ),
)
def rsminft(clients: int) -> Topology:
    """003's reduced-switch MIN fat tree: the top row removed, one lateral link per router.

    ``n-1`` rows of ``N/2`` routers (``(n-1) 2^(n-1)``); the lateral link of ``(r, c)`` goes to
    ``(r, c XOR 2^max(r,1))`` (port 4). Shortest paths visit at most ``2n-2`` routers.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("rsminft:clients=8")
    >>> t.n_switches, t.n_switch_links
    (8, 12)
    >>> [t.vertex_label(int(v)) for v in t.port_peer[t.find("s1.0.0") - t.n_nodes] if v >= 0]
    ['s0.0.0', 's0.0.1', 's1.1.0']

    References
    ----------
    003 §4.2, eqs (2)-(3) (read with levels from 1, see errata), Table 1 (hop counts),
    Table 2 (router counts).
    """
    return _build("rsminft", clients, reduced=True)
