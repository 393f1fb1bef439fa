"""The classical k-ary n-tree (000 Fig. 1; Petrini & Vanneschi).

Switch ``<L, D_{n-2..0}>`` with stage ``L = 0..n-1`` (0 = leaves, n-1 = roots), index
``L*k^(n-1) + D``; node ``<C_{n-1}, ..., C_0>`` on ``<0, C_{n-2..0}>`` at port
``C_{n-1}``. Going up from stage L changes digit L (as in MiKANT, 000 §II), so up port
``k+i`` leads to ``<L+1, D[L:=i]>`` and down port ``j`` to ``<L-1, D[L-1:=j]>``.
Roots use only their k down ports.
"""

from __future__ import annotations

from .._np import np

from ..core import PORT_DOWN, PORT_NODE, PORT_NONE, PORT_UP, Topology
from ..family import Facets, Param, booksim_native, register_family
from ._digits import all_nodes_one_class, digit, digits_msd, set_digit


def _size(p):
    k, n = p["k"], p["n"]
    return k**n, n * k ** (n - 1), 2 * k


def tree_ports(
    k: int,
    n: int,
    stages: int,
    L: np.ndarray,
    D: np.ndarray,
    base: np.ndarray,
    node_of: np.ndarray,
    up_digit: np.ndarray,
    down_digit: np.ndarray,
    up_stride: int,
    N: int,
):
    """Port tables of a stack of k-ary tree stages (shared by kant and clos).

    ``up_digit[s]`` is the digit changed going from the switch towards the roots,
    ``down_digit[s]`` the digit changed going down (ignored at the leaf stage), and
    ``up_stride`` the index offset of the next stage up (``+K`` or ``-K``).
    ``node_of[s, j]`` is the node on leaf port j (``-1`` where the switch is no leaf).
    """
    S = len(L)
    peer = np.full((S, 2 * k), -1, np.int64)
    pport = np.zeros((S, 2 * k), np.int64)
    kind = np.full((S, 2 * k), PORT_NONE, np.int64)
    leaf = node_of[:, 0] >= 0
    is_top = up_digit < 0
    for j in range(k):
        dd = np.where(leaf, 0, down_digit)
        lower = np.zeros(S, np.int64)
        back = np.zeros(S, np.int64)
        for d in np.unique(dd[~leaf]):
            m = (~leaf) & (dd == d)
            lower[m] = set_digit(D[m], int(d), k, j)
            back[m] = k + digit(D[m], int(d), k)
        peer[:, j] = np.where(leaf, node_of[:, j], N + base - up_stride + lower)
        pport[:, j] = np.where(leaf, 0, back)
        kind[:, j] = np.where(leaf, PORT_NODE, PORT_DOWN)
        upper = np.zeros(S, np.int64)
        bu = np.zeros(S, np.int64)
        for d in np.unique(up_digit[~is_top]):
            m = (~is_top) & (up_digit == d)
            upper[m] = set_digit(D[m], int(d), k, j)
            bu[m] = digit(D[m], int(d), k)
        peer[:, k + j] = np.where(is_top, -1, N + base + up_stride + upper)
        pport[:, k + j] = np.where(is_top, 0, bu)
        kind[:, k + j] = np.where(is_top, PORT_NONE, PORT_UP)
    return peer, pport, kind


@booksim_native("kant")
def _booksim_kn(topo: Topology) -> tuple[int, int]:
    # BookSim2's topology = fattree is the k-ary n-tree (docs/booksim.md, node numbering)
    return int(topo.params["k"]), int(topo.params["n"])


@register_family(
    "kant",
    title="classical k-ary n-tree",
    paper="000 Fig. 1 / Table I",
    params=[
        Param("k", "arity (switch radix 2k, roots k)", minimum=2, maximum=64),
        Param("n", "stages", minimum=1, maximum=24),
    ],
    size=_size,
    node_classes=all_nodes_one_class,
    facets=Facets(
        routing="dmodk",
        forms="kant",
        fault_tolerance="rules",
        fault_walk=None,
        advisor=("kant",),
        drawing="layered",
        example="kant:k=2,n=2",
    ),
)
def kant(k: int, n: int) -> Topology:
    """Classical k-ary n-tree: k^n nodes, n k^(n-1) switches, n k^n links.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("kant:k=3,n=3")
    >>> t.n_nodes, t.n_switches, t.n_links
    (27, 27, 81)

    References
    ----------
    000 §II and Table I; F. Petrini, M. Vanneschi, "k-ary n-trees", 1997.
    """
    K = k ** (n - 1)
    N = k**n
    S = n * K
    sid = np.arange(S, dtype=np.int64)
    D = sid % K
    L = sid // K
    base = sid - D
    node_of = np.full((S, k), -1, np.int64)
    for j in range(k):
        node_of[L == 0, j] = j * K + D[L == 0]
    up_digit = np.where(L == n - 1, -1, L)
    down_digit = L - 1
    peer, pport, kind = tree_ports(k, n, n, L, D, base, node_of, up_digit, down_digit, K, N)
    c = np.arange(N, dtype=np.int64)
    return Topology.create(
        "kant",
        {"k": k, "n": n},
        node_digits=digits_msd(c, n, k),
        switch_digits=np.concatenate([L[:, None], digits_msd(D, n - 1, k)], axis=1),
        switch_level=L,
        port_peer=peer,
        port_peer_port=pport,
        port_kind=kind,
        node_switch=c % K,
        node_port=c // K,
    )
