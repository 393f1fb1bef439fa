"""Direct networks: the binary hypercube and the k-ary n-cube torus (000/001/004 RCP, 002).

Both are built the same way: switch ``s`` (index ``0 .. S-1``) carries ``p`` compute
nodes, node ``s*p + j`` hangs on port ``cube_ports + j`` of switch ``s``.

* ``hypercube:d,p`` -- switch label ``<b_{d-1}, ..., b_0>`` (the bits of ``s``, most
  significant first); cube port ``i`` (``0 <= i < d``) flips bit ``i`` (weight ``2^i``,
  i.e. the *last* digit of the label for ``i = 0``) and leads back through port ``i``.
* ``torus:k,n,p`` -- switch label ``<a_{n-1}, ..., a_0>`` in base ``k``; for ``k >= 3``
  port ``2i`` goes to ``a_i + 1 (mod k)`` and port ``2i+1`` to ``a_i - 1 (mod k)``, each
  entering the neighbour through the opposite port. For ``k = 2`` the two neighbours
  coincide and the ring of two is one link: port ``i`` flips digit ``i``, exactly as in
  the hypercube (``torus:k=2,n=d`` has the port tables of ``hypercube:d``).

Node label: the switch label followed by the local index ``j``.
``Topology.meta`` records ``cube_ports``, ``ports_per_dim`` and ``node_port_base``.
"""

from __future__ import annotations

from .._np import np

from ...errors import ParameterError
from ..core import PORT_CUBE, PORT_NODE, Topology
from ..family import Facets, Param, register_family
from ._digits import all_nodes_one_class, digit, digits_msd, set_digit

_MAX_VERTICES = 2**31 - 1  # port_peer is int32


def _check_ids(family: str, desc: str, switches: int, p: int) -> None:
    total = switches * (p + 1)
    if total > _MAX_VERTICES:
        raise ParameterError(
            f"{family}: {desc} gives {total:,} vertices; at most {_MAX_VERTICES:,} are allowed "
            f"(vertex ids are int32)"
        )


def _attach_nodes(S: int, p: int, base: int, peer, pport, kind):
    """Fill node ports ``base .. base+p-1``; return node_switch, node_port."""
    sid = np.arange(S, dtype=np.int64)
    for j in range(p):
        peer[:, base + j] = sid * p + j
        pport[:, base + j] = 0
        kind[:, base + j] = PORT_NODE
    node_ids = np.arange(S * p, dtype=np.int64)
    return node_ids // p, base + node_ids % p


def bits_msd(x: np.ndarray, width: int) -> np.ndarray:
    """(len(x), width) int16 bits of ``x``, most significant first (labels of 2^d-sized sets).

    Filled column by column so that no (len(x), width) int64 temporary is made.
    """
    out = np.empty((len(x), width), np.int16)
    for j in range(width):
        out[:, j] = (x >> (width - 1 - j)) & 1
    return out


def _node_digits(switch_digits: np.ndarray, p: int) -> np.ndarray:
    out = np.empty((len(switch_digits) * p, switch_digits.shape[1] + 1), np.int16)
    out[:, :-1] = np.repeat(switch_digits, p, axis=0)
    out[:, -1] = np.tile(np.arange(p, dtype=np.int16), len(switch_digits))
    return out


# ---------------------------------------------------------------- hypercube
def _hc_size(q):
    d, p = q["d"], q["p"]
    return p * 2**d, 2**d, d + p


def _hc_check(q):
    _check_ids("hypercube", f"d={q['d']}, p={q['p']}", 2 ** q["d"], q["p"])


@register_family(
    "hypercube",
    title="binary hypercube (d-cube), p nodes per switch",
    paper="000 §V RCP / 001 / 004",
    params=[
        Param("d", "dimension (cube ports per switch)", minimum=1, maximum=30),
        Param("p", "compute nodes per switch", default=1, minimum=1, maximum=64),
    ],
    size=_hc_size,
    check=_hc_check,
    node_classes=all_nodes_one_class,
    facets=Facets(
        routing="ecube",
        forms="hypercube",
        fault_tolerance="generic",
        fault_walk=None,
        advisor=("hypercube",),
        drawing="layered",
        example="hypercube:d=3,p=1",
    ),
)
def hypercube(d: int, p: int = 1) -> Topology:
    """Binary d-cube with p nodes per switch: 2^d switches of radix d+p, d 2^(d-1) cube links.

    Port ``i < d`` flips bit ``i`` of the switch index (the label's last digit is bit 0);
    ports ``d .. d+p-1`` carry the nodes.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("hypercube:d=3,p=2")
    >>> t.n_nodes, t.n_switches, t.n_switch_links
    (16, 8, 12)
    >>> s = t.find("s0.1.1") - t.n_nodes
    >>> [t.vertex_label(int(v)) for v in t.port_peer[s]]
    ['s0.1.0', 's0.0.1', 's1.1.1', 'n0.1.1.0', 'n0.1.1.1']

    References
    ----------
    000 §V (RCP against the m-cube with p node ports, diameter m+2); 001 §3.2 and 004 §5.2
    (k-cube); Saad & Schultz, "Topological properties of hypercubes", 1988.
    """
    S = 2**d
    sid = np.arange(S, dtype=np.int64)
    peer = np.full((S, d + p), -1, np.int64)
    pport = np.zeros((S, d + p), np.int64)
    kind = np.full((S, d + p), PORT_CUBE, np.int64)
    N = S * p
    for i in range(d):
        peer[:, i] = N + (sid ^ (1 << i))
        pport[:, i] = i
    node_switch, node_port = _attach_nodes(S, p, d, peer, pport, kind)
    sw_digits = bits_msd(sid, d)
    return Topology.create(
        "hypercube",
        {"d": d, "p": p},
        node_digits=_node_digits(sw_digits, p),
        switch_digits=sw_digits,
        switch_level=np.zeros(S, np.int64),
        switch_layer=sw_digits.sum(axis=1, dtype=np.int64),  # drawing rows: Hamming weight
        port_peer=peer,
        port_peer_port=pport,
        port_kind=kind,
        node_switch=node_switch,
        node_port=node_port,
        meta={
            "dims": d,
            "radix_k": 2,
            "ports_per_dim": 1,
            "cube_ports": d,
            "node_port_base": d,
            "nodes_per_switch": p,
        },
    )


# ---------------------------------------------------------------- torus
def _torus_ppd(k: int) -> int:
    # k = 2: the +1 and -1 neighbours coincide; one link, as in the hypercube
    return 1 if k == 2 else 2


def _torus_size(q):
    k, n, p = q["k"], q["n"], q["p"]
    return p * k**n, k**n, _torus_ppd(k) * n + p


def _torus_check(q):
    _check_ids("torus", f"k={q['k']}, n={q['n']}, p={q['p']}", q["k"] ** q["n"], q["p"])


@register_family(
    "torus",
    title="k-ary n-cube torus, p nodes per router",
    paper="002 §1 (Dally 1990)",
    params=[
        Param("k", "routers per ring (radix of each dimension)", minimum=2, maximum=4096),
        Param("n", "dimensions", minimum=1, maximum=30),
        Param("p", "compute nodes per router", default=1, minimum=1, maximum=64),
    ],
    size=_torus_size,
    check=_torus_check,
    node_classes=all_nodes_one_class,
    facets=Facets(
        routing="dor",
        forms="torus",
        fault_tolerance="generic",
        fault_walk=None,
        advisor=("torus",),
        drawing="layered",
        example="torus:k=3,n=2,p=1",
    ),
)
def torus(k: int, n: int, p: int = 1) -> Topology:
    """k-ary n-cube torus: k^n routers in rings of k along each of n dimensions.

    For ``k >= 3`` port ``2i`` is the ``+1`` and ``2i+1`` the ``-1`` neighbour in dimension
    ``i`` (digit weight ``k^i``), radix ``2n+p``; for ``k = 2`` one port per dimension,
    radix ``n+p``. Node ports follow the cube ports.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("torus:k=4,n=2")
    >>> t.n_nodes, t.n_switches, t.n_switch_links
    (16, 16, 32)
    >>> s = t.find("s0.3") - t.n_nodes
    >>> [t.vertex_label(int(v)) for v in t.port_peer[s]]
    ['s0.0', 's0.2', 's1.3', 's3.3', 'n0.3.0']

    References
    ----------
    002 §1 "k-ary n-cube topology" (tori only); W. J. Dally, "Performance analysis of
    k-ary n-cube interconnection networks", IEEE TC 1990.
    """
    S = k**n
    N = S * p
    ppd = _torus_ppd(k)
    cube = ppd * n
    sid = np.arange(S, dtype=np.int64)
    peer = np.full((S, cube + p), -1, np.int64)
    pport = np.zeros((S, cube + p), np.int64)
    kind = np.full((S, cube + p), PORT_CUBE, np.int64)
    for i in range(n):
        a = digit(sid, i, k)
        if ppd == 1:
            peer[:, i] = N + set_digit(sid, i, k, 1 - a)
            pport[:, i] = i
        else:
            peer[:, 2 * i] = N + set_digit(sid, i, k, (a + 1) % k)
            pport[:, 2 * i] = 2 * i + 1
            peer[:, 2 * i + 1] = N + set_digit(sid, i, k, (a - 1) % k)
            pport[:, 2 * i + 1] = 2 * i
    node_switch, node_port = _attach_nodes(S, p, cube, peer, pport, kind)
    sw_digits = digits_msd(sid, n, k).astype(np.int16)
    # drawing rows: ring distance from the origin
    ring = np.minimum(sw_digits, k - sw_digits).astype(np.int64)
    return Topology.create(
        "torus",
        {"k": k, "n": n, "p": p},
        node_digits=_node_digits(sw_digits, p),
        switch_digits=sw_digits,
        switch_level=np.zeros(S, np.int64),
        switch_layer=ring.sum(axis=1),
        port_peer=peer,
        port_peer_port=pport,
        port_kind=kind,
        node_switch=node_switch,
        node_port=node_port,
        meta={
            "dims": n,
            "radix_k": k,
            "ports_per_dim": ppd,
            "cube_ports": cube,
            "node_port_base": cube,
            "nodes_per_switch": p,
        },
    )
