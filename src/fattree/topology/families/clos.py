"""The bidirectional Clos k-ary n-tree: 2n-1 stages, nodes at both ends (000 Fig. 2).

Switch ``<L, D_{n-2..0}>`` with ``L = 0..2n-2`` (index ``L*k^(n-1) + D``). Node
``<G, C_{n-1..0}>``: group 0 hangs on ``<0, C_{n-2..0}>``, group 1 on
``<2n-2, C_{n-2..0}>``, at port ``C_{n-1}``. Between stages L and L+1 the digit that
changes is ``L`` for ``L < n-1`` and ``2n-3-L`` above the middle, so each half is a
k-ary n-tree whose roots are the middle stage. Ports ``0..k-1`` face the switch's own
nodes (for the middle stage: group 0), ``k..2k-1`` face the middle (for the middle
stage: group 1).
"""

from __future__ import annotations

from .._np import np

from ..core import Topology
from ..family import Facets, Param, register_family
from ._digits import all_nodes_one_class, digit, digits_msd, set_digit
from .kant import tree_ports


def _size(p):
    k, n = p["k"], p["n"]
    return 2 * k**n, (2 * n - 1) * k ** (n - 1), 2 * k


@register_family(
    "clos",
    title="bidirectional Clos k-ary n-tree (2n-1 stages)",
    paper="000 Fig. 2 / Table I",
    params=[
        Param("k", "arity (switch radix 2k)", minimum=2, maximum=64),
        Param("n", "tree levels (2n-1 stages)", minimum=2, maximum=24),
    ],
    size=_size,
    node_classes=all_nodes_one_class,
    facets=Facets(
        routing="dmodk",
        forms="clos",
        fault_tolerance="rules",
        fault_walk=None,
        advisor=("clos",),
        drawing="layered",
        example="clos:k=2,n=2",
    ),
)
def clos(k: int, n: int) -> Topology:
    """Bidirectional Clos k-ary n-tree: 2k^n nodes, (2n-1)k^(n-1) switches, 2n k^n links.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("clos:k=3,n=3")
    >>> t.n_nodes, t.n_switches, t.n_links
    (54, 45, 162)

    References
    ----------
    000 §II, Fig. 2 and Table I (bisection corrected to k^n, see errata).
    """
    K = k ** (n - 1)
    N = 2 * k**n
    top = 2 * n - 2
    mid = n - 1
    S = (2 * n - 1) * K
    sid = np.arange(S, dtype=np.int64)
    D = sid % K
    L = sid // K
    # Build as two mirrored halves sharing the middle: "up" means towards the middle.
    lower_half = L <= mid
    node_of = np.full((S, k), -1, np.int64)
    for j in range(k):
        node_of[L == 0, j] = j * K + D[L == 0]
        node_of[L == top, j] = k**n + j * K + D[L == top]
    # digit changed towards the middle / towards the own leaves
    up_digit = np.where(L < mid, L, np.where(L > mid, top - L, -1))
    down_digit = np.where(L <= mid, L - 1, top - L - 1)
    peer = np.full((S, 2 * k), -1, np.int64)
    pport = np.zeros((S, 2 * k), np.int64)
    kind = np.zeros((S, 2 * k), np.int64)
    base = sid - D
    p0, q0, k0 = tree_ports(k, n, n, L, D, base, node_of, up_digit, down_digit, K, N)
    p1, q1, k1 = tree_ports(k, n, n, L, D, base, node_of, up_digit, down_digit, -K, N)
    for arr, a, b in ((peer, p0, p1), (pport, q0, q1), (kind, k0, k1)):
        arr[lower_half] = a[lower_half]
        arr[~lower_half] = b[~lower_half]
    # the middle stage: ports k..2k-1 lead to stage mid+1 (the group-1 half)
    m = L == mid
    if n >= 2:
        for j in range(k):
            d = mid - 1  # digit changed between mid and mid+1 (= top - (mid+1))
            peer[m, k + j] = N + base[m] + K + set_digit(D[m], d, k, j)
            pport[m, k + j] = k + digit(D[m], d, k)
            kind[m, k + j] = 1
        # the group-1 half reaches the middle through the middle's ports k..2k-1
        pport[L == mid + 1, k:] += k
    c = np.arange(N, dtype=np.int64)
    g = c // k**n
    cc = c % k**n
    node_switch = np.where(g == 0, 0, top * K) + cc % K
    return Topology.create(
        "clos",
        {"k": k, "n": n},
        node_digits=np.concatenate([g[:, None], digits_msd(cc, n, k)], axis=1),
        switch_digits=np.concatenate([L[:, None], digits_msd(D, n - 1, k)], axis=1),
        switch_level=np.where(L <= mid, L, top - L),
        switch_layer=L,
        port_peer=peer,
        port_peer_port=pport,
        port_kind=kind,
        node_switch=node_switch,
        node_port=cc // K,
    )
