"""KANTC(k, n) and MiKANTC(k, n): k-ary n-tree / MiKANT whose leaf stage is k-cubes (004 §2).

The ``k`` level-0 tree positions that share the same ``k`` level-1 parents (they differ
only in digit ``T_0``) become the ``k`` intermediate corners of one k-cube, so each cube
joins its level-1 switches as a complete bipartite block; the other ``2^k - k`` corners
carry ``k`` nodes each. Labels and ports as in :mod:`.cat`; intermediate ``j`` (tree
position ``T_0 = j``) is corner :func:`intermediate_codes` ``(k)[j]``.
See ``docs/families/hybrids.md`` for the choices and their evidence.
"""

from __future__ import annotations

from .._np import np

from ..core import Topology
from ..family import Facets, Param, register_family
from .cat import build_hybrid, hybrid_node_classes, hybrid_size


def intermediate_codes(k: int) -> np.ndarray:
    """Cube corners of the k intermediate switches, in tree-position order (004 §2.1).

    The first ``ceil(k/2)`` start at all-zero, each inverting bits ``i..k-1-i`` of the
    previous one; the remaining ``floor(k/2)`` are complements, ``I[k-1-j] = ~I[j]``.

    Examples
    --------
    >>> [format(int(c), "04b") for c in intermediate_codes(4)]
    ['0000', '0110', '1001', '1111']
    >>> [format(int(c), "03b") for c in intermediate_codes(3)]
    ['000', '010', '111']

    References
    ----------
    004 §2.1 (the k = 4 example; the paper lists 1001 twice), errata "Constructions".
    """
    half = (k + 1) // 2
    codes = [0]
    for i in range(1, half):
        codes.append(codes[-1] ^ sum(1 << b for b in range(i, k - i)))
    full = (1 << k) - 1
    codes += [codes[k - 1 - j] ^ full for j in range(half, k)]
    return np.asarray(codes, np.int64)


_PARAMS = [
    Param("k", "cube dimension and tree arity (switch radix 2k)", minimum=2, maximum=16),
    Param("n", "tree levels", minimum=2, maximum=24),
]


@register_family(
    "kantc",
    title="k-ary n-tree k-cube KANTC(k,n)",
    paper="004 §2.1 / Table 1",
    params=_PARAMS,
    size=lambda p: hybrid_size(p["k"], p["n"], False, p["k"]),
    node_classes=hybrid_node_classes,
    facets=Facets(
        routing="cube-tree",
        forms="kantc",
        fault_tolerance="generic",
        fault_walk=None,
        advisor=("kantc",),
        drawing="layered",
        example="kantc:k=2,n=2",
    ),
)
def kantc(k: int, n: int) -> Topology:
    """KANTC(k, n): levels 1..n-1 of a k-ary n-tree above k^(n-2) k-cubes.

    (2^k-k)k^(n-1) nodes, (n-1)k^(n-1) + 2^k k^(n-2) switches,
    (n-1)k^n + (2^(k-1)+2^k-k)k^(n-1) links.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("kantc:k=3,n=3")
    >>> t.n_nodes, t.n_switches, t.n_links
    (45, 42, 135)
    >>> [t.vertex_label(int(v)) for v in t.port_peer[t.find("s1.2.0.0.0.0") - t.n_nodes]]
    ['s0.2.0.0.0.0', 's0.2.1.0.1.0', 's0.2.2.1.1.1', 's2.0.0.0.0.0', 's2.1.0.0.0.0', 's2.2.0.0.0.0']

    References
    ----------
    004 §2.1 (labels <L, T, C>, KANTC(3,3) with 3 cubes and 45 nodes), Table 1.
    """
    return build_hybrid("kantc", {"k": k, "n": n}, k, n, False, intermediate_codes(k))


@register_family(
    "mikantc",
    title="mirrored k-ary n-tree k-cube MiKANTC(k,n)",
    paper="004 §2.2 / Table 1",
    params=_PARAMS,
    size=lambda p: hybrid_size(p["k"], p["n"], True, p["k"]),
    node_classes=hybrid_node_classes,
    facets=Facets(
        routing="cube-tree",
        forms="mikantc",
        fault_tolerance="rules",
        fault_walk="mikantc",
        advisor=("mikantc",),
        drawing="layered",
        example="mikantc:k=2,n=2",
    ),
)
def mikantc(k: int, n: int) -> Topology:
    """MiKANTC(k, n): MiKANT(k, n) whose stage-0 switches are the intermediates of k-cubes.

    2(2^k-k)k^(n-1) nodes, (2n-4)k^(n-1) + 2^(k+1)k^(n-2) switches,
    (2n-3)k^n + (3·2^k-2k)k^(n-1) links.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("mikantc:k=3,n=4")
    >>> t.n_nodes
    270
    >>> s = t.find("s0.2.1.1.0.0.0.0") - t.n_nodes
    >>> [t.vertex_label(int(v)) for v in t.port_peer[s, 3:]]
    ['s1.2.0.1.0.0.0.0', 's1.2.1.1.0.0.0.0', 's1.2.2.1.0.0.0.0']

    References
    ----------
    004 §2.2 (labels <G, L, T, C>; the MiKANTC(3,4) example: 18 cubes, 270 nodes), Table 1.
    """
    return build_hybrid("mikantc", {"k": k, "n": n}, k, n, True, intermediate_codes(k))
