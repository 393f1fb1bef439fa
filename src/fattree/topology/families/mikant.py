"""MiKANT(k, n): the Mirrored k-ary n-tree (000 §II).

Switch ``<G, L, D_{n-2..0}>`` (index ``(G*(n-1)+L)*k^(n-1) + D``), node
``<G, C_{n-1}, ..., C_0>`` (index ``G*k^n + C``) on switch ``<G, 0, C_{n-2..0}>`` at
port ``C_{n-1}``. Ports ``0..k-1`` down (digit L-1 := j), ``k..2k-1`` up (digit L := i);
at stage n-2 the up ports are the cross links to ``<1-G, n-2, D[n-2:=i]>``.
"""

from __future__ import annotations

from .._np import np

from ..core import PORT_NODE, PORT_DOWN, PORT_UP, Topology
from ..family import Facets, Param, register_family
from ._digits import all_nodes_one_class, digit, digits_msd, set_digit


def _size(p):
    k, n = p["k"], p["n"]
    return 2 * k**n, 2 * (n - 1) * k ** (n - 1), 2 * k


def uniform_cap(p) -> float:
    """Cap on accepted uniform throughput of MiKANT(k, n) under any routing.

    A group's roots (stage n-2) have no up ports but the k^n cross links, so a pair in
    different groups crosses them at least once, and a pair in one group whose digit n-2
    differs (k^n - k^(n-1) destinations of each node) at least twice: the 2k^n directed
    cross channels carry at least r (k^n + 2(k^n - k^(n-1))) N / (N - 1) flits per cycle,
    so r <= (2k^n - 1) / (3k^n - 2k^(n-1)). A balanced bisection (k^n/2 links) does not
    see this: MiKANT(4,3)'s cut bound is 0.992, its cross links cap it at 0.794.

    Parameters
    ----------
    p : dict
        The family's parameters ``k`` and ``n``.

    Returns
    -------
    float
        Flits per node per cycle.

    Examples
    --------
    >>> round(uniform_cap({"k": 4, "n": 3}), 4)
    0.7937

    References
    ----------
    000 §II (the cross links at stage n-2); Dally & Towles 2004, §3.3 (channel load).
    """
    k, n = int(p["k"]), int(p["n"])
    return (2 * k**n - 1) / (3 * k**n - 2 * k ** (n - 1))


@register_family(
    "mikant",
    title="Mirrored k-ary n-tree MiKANT(k,n)",
    paper="000 §II",
    params=[
        Param("k", "arity (switch radix 2k)", minimum=2, maximum=64),
        Param("n", "tree levels (2n-2 switch stages)", minimum=2, maximum=24),
    ],
    size=_size,
    node_classes=all_nodes_one_class,
    uniform_cap=uniform_cap,
    facets=Facets(
        routing="balanced",
        forms="mikant",
        fault_tolerance="rules",
        fault_walk="mikant",
        advisor=("mikant",),
        drawing="layered",
        example="mikant:k=2,n=2",
    ),
)
def mikant(k: int, n: int) -> Topology:
    """MiKANT(k, n): 2k^n nodes, 2(n-1)k^(n-1) switches of radix 2k, (2n-1)k^n links.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("mikant:k=3,n=4")
    >>> [t.vertex_label(int(v)) for v in t.port_peer[t.find("s0.2.0.0.0") - t.n_nodes]]
    ['s0.1.0.0.0', 's0.1.0.1.0', 's0.1.0.2.0', 's1.2.0.0.0', 's1.2.1.0.0', 's1.2.2.0.0']

    References
    ----------
    000 §II (connection rule, Theorems 1-5), §IV (port labels).
    """
    K = k ** (n - 1)
    N = 2 * k**n
    S = 2 * (n - 1) * K
    sid = np.arange(S, dtype=np.int64)
    D = sid % K
    GL = sid // K
    L = GL % (n - 1)
    G = GL // (n - 1)
    base_gl = sid - D  # index of <G, L, 0>

    peer = np.full((S, 2 * k), -1, np.int64)
    pport = np.zeros((S, 2 * k), np.int64)
    kind = np.full((S, 2 * k), PORT_DOWN, np.int64)
    for j in range(k):
        # down ports: nodes at stage 0, else stage L-1 with digit L-1 := j
        at0 = L == 0
        node = G * k**n + j * K + D
        lower = np.where(at0, 0, base_gl - K)  # <G, L-1, 0>
        dl = np.zeros(S, np.int64)
        for lv in range(1, n - 1):
            m = L == lv
            dl[m] = set_digit(D[m], lv - 1, k, j)
        peer[:, j] = np.where(at0, node, N + lower + dl)
        # back port at the lower switch: k + (our digit L-1); at a node: 0
        back = np.zeros(S, np.int64)
        for lv in range(1, n - 1):
            m = L == lv
            back[m] = k + digit(D[m], lv - 1, k)
        pport[:, j] = np.where(at0, 0, back)
        kind[:, j] = np.where(at0, PORT_NODE, PORT_DOWN)
        # up ports: stage L+1 with digit L := i, or the cross link at stage n-2
        i = j
        top = L == n - 2
        du = np.zeros(S, np.int64)
        bu = np.zeros(S, np.int64)
        for lv in range(0, n - 1):
            m = L == lv
            du[m] = set_digit(D[m], lv, k, i)
            bu[m] = digit(D[m], lv, k)
        up_same = base_gl + K + du
        cross = ((1 - G) * (n - 1) + (n - 2)) * K + du
        peer[:, k + i] = N + np.where(top, cross, up_same)
        pport[:, k + i] = np.where(top, k + bu, bu)
        kind[:, k + i] = PORT_UP

    node_ids = np.arange(N, dtype=np.int64)
    g_node = node_ids // k**n
    c = node_ids % k**n
    node_digits = np.concatenate([g_node[:, None], digits_msd(c, n, k)], axis=1)
    switch_digits = np.concatenate([G[:, None], L[:, None], digits_msd(D, n - 1, k)], axis=1)
    node_switch = (g_node * (n - 1)) * K + c % K
    node_port = c // K
    # drawing layer: group 0 stages 0..n-2 bottom-up, group 1 stacked above, mirrored
    layer = np.where(G == 0, L, 2 * (n - 1) - 1 - L)
    return Topology.create(
        "mikant",
        {"k": k, "n": n},
        node_digits=node_digits,
        switch_digits=switch_digits,
        switch_level=L,
        switch_layer=layer,
        port_peer=peer,
        port_peer_port=pport,
        port_kind=kind,
        node_switch=node_switch,
        node_port=node_port,
    )
