"""CAT(k, n) and MiCAT(k, n): a k-ary n-tree / MiKANT whose leaf switches become k-cubes (001 §2).

Shared with :mod:`.kantc`: :func:`build_hybrid` builds "tree positions at level 0 are
intermediate corners of k-cubes" for both, and :func:`hybrid_node_classes` gives their
node classes. Labels (most significant first; ``docs/families/hybrids.md``):

* switch ``<(G,) L, T_{n-2..0}, C_{k-1..0}>``: ``C`` is the cube corner (all-zero above
  level 0); at level 0 ``T`` is the tree position of the corner's nearest intermediate
  switch (for CAT simply the cube's tree position ``D``);
* node ``<(G,) T_{n-2..0}, C_{k-1..0}, P>``: its switch's label without ``L``, then its port.

Ports: tree switches as MiKANT (``0..k-1`` down, ``k..2k-1`` up). Intermediate (transit)
switches: ``0..k-1`` cube, dimension ``b`` (flip ``C_b``) on port ``b``; ``k..2k-1`` up.
Other cube switches: ``0..k-1`` compute nodes, ``k..2k-1`` cube, dimension ``b`` on ``k+b``.
"""

from __future__ import annotations

from .._np import np

from ..core import PORT_CUBE, PORT_DOWN, PORT_NODE, PORT_NONE, PORT_UP, Topology
from ..family import Facets, Param, register_family


def hybrid_size(k: int, n: int, mirrored: bool, per_cube: int) -> tuple[int, int, int]:
    """``(nodes, switches, ports)`` of a hybrid with ``per_cube`` intermediate corners per cube.

    Examples
    --------
    >>> hybrid_size(3, 3, False, 1)  # CAT(3,3), 001 Fig. 1
    (189, 90, 6)

    References
    ----------
    001 Table 1, 004 Table 1.
    """
    K = k ** (n - 1)
    groups = 2 if mirrored else 1
    stages = n - 2 if mirrored else n - 1
    cubes = K // per_cube
    return (groups * cubes * (2**k - per_cube) * k, groups * (cubes * 2**k + stages * K), 2 * k)


def _popcount(x: np.ndarray, bits: int) -> np.ndarray:
    return sum((x >> b) & 1 for b in range(bits))


def _label_table(group, level, tree, corner, port, k: int, n: int) -> np.ndarray:
    """int16 label rows ``[G] [L] T_{n-2..0} C_{k-1..0} [P]`` filled column by column.

    Nodes outnumber switches by far, so the int64 digit matrix is never materialised.
    """
    cols = [x for x in (group, level) if x is not None]
    width = len(cols) + (n - 1) + k + (port is not None)
    out = np.empty((len(tree), width), np.int16)
    j = 0
    for x in cols:
        out[:, j] = x
        j += 1
    for i in range(n - 2, -1, -1):
        out[:, j] = (tree // k**i) % k
        j += 1
    for b in range(k - 1, -1, -1):
        out[:, j] = (corner >> b) & 1
        j += 1
    if port is not None:
        out[:, j] = port
    return out


def nearest_intermediate(k: int, codes: np.ndarray) -> np.ndarray:
    """For every corner of the k-cube, the index of the nearest intermediate code.

    Distance inside a cube is the Hamming distance (any detour leaves through an
    intermediate switch); ties go to the lowest index.

    Examples
    --------
    >>> nearest_intermediate(2, np.array([0, 3])).tolist()
    [0, 0, 0, 1]

    References
    ----------
    ``docs/families/hybrids.md`` (the label of KANTC corners that 004 §2.1 leaves open).
    """
    corners = np.arange(2**k, dtype=np.int64)
    return np.argmin(_popcount(corners[:, None] ^ codes[None, :], k), axis=1)


def build_hybrid(family: str, params: dict, k: int, n: int, mirrored: bool, codes) -> Topology:
    """Tree (k-ary n-tree, or MiKANT if ``mirrored``) whose level-0 positions are cube corners.

    Level-0 tree position ``D`` (``n-1`` digits) is corner ``codes[D % g]`` of cube
    ``D // g`` (``g = len(codes)``): CAT uses ``g = 1, codes = [0]``, KANTC groups the
    ``k`` positions that differ only in digit 0. Every other corner carries ``k`` nodes.
    Going up from level ``L`` changes digit ``L``; in the mirrored tree stage ``n-2``
    links to stage ``n-2`` of the other group instead (000 §II).

    Examples
    --------
    >>> t = build_hybrid("cat", {"k": 2, "n": 2}, 2, 2, False, [0])
    >>> t.n_nodes, t.n_switches, t.n_links, t.meta["intermediate_codes"].tolist()
    (12, 10, 24, [0])

    References
    ----------
    001 §2 (CAT/MiCAT), 004 §2 (KANTC/MiKANTC), 000 §II (MiKANT).
    """
    codes = np.asarray(codes, np.int64)
    g = len(codes)
    M = 1 << k
    K = k ** (n - 1)
    Q = K // g
    NG = 2 if mirrored else 1
    top = n - 2 if mirrored else n - 1  # highest level; levels 1..top are tree switches
    QM = Q * M
    Sg = QM + top * K
    S = NG * Sg
    Mo = M - g
    Ng = Q * Mo * k
    N = NG * Ng

    corner_pos = np.full(M, -1, np.int64)
    corner_pos[codes] = np.arange(g)
    is_int = corner_pos >= 0
    outer = np.flatnonzero(~is_int)
    rank = np.full(M, -1, np.int64)
    rank[outer] = np.arange(Mo)
    near = nearest_intermediate(k, codes)

    sid = np.arange(S, dtype=np.int64)
    G = sid // Sg
    r = sid % Sg
    cube = r < QM
    q = np.where(cube, r // M, 0)
    c = np.where(cube, r % M, 0)
    tr = np.maximum(r - QM, 0)
    L = np.where(cube, 0, 1 + tr // K)
    D = np.where(cube, q * g + near[c], tr % K)
    inter = cube & is_int[c]

    def pos_sid(gv, lv, dv):
        at0 = gv * Sg + (dv // g) * M + codes[dv % g]
        return np.where(lv >= 1, gv * Sg + QM + (lv - 1) * K + dv, at0)

    R = 2 * k
    peer = np.full((S, R), -1, np.int64)
    pport = np.zeros((S, R), np.int64)
    kind = np.full((S, R), PORT_NONE, np.int64)

    # up ports k+i of tree positions: digit L := i (stage n-2 of MiKANT: the other group)
    pw = k ** np.minimum(L, n - 2)
    dl = (D // pw) % k
    cross = (inter | ~cube) & (L == n - 2) if mirrored else np.zeros(S, bool)
    up = (inter | ~cube) & (L < top)
    for i in range(k):
        dn = D + (i - dl) * pw
        peer[up, k + i] = N + pos_sid(G[up], L[up] + 1, dn[up])
        pport[up, k + i] = dl[up]
        peer[cross, k + i] = N + pos_sid(1 - G[cross], L[cross], dn[cross])
        pport[cross, k + i] = k + dl[cross]
        kind[up | cross, k + i] = PORT_UP

    # down ports j of tree switches: digit L-1 := j (at level 1 the child is an intermediate)
    tm = ~cube
    pwd = k ** np.maximum(L - 1, 0)
    dd = (D // pwd) % k
    for j in range(k):
        dn = D + (j - dd) * pwd
        peer[tm, j] = N + pos_sid(G[tm], L[tm] - 1, dn[tm])
        pport[tm, j] = k + dd[tm]
        kind[tm, j] = PORT_DOWN

    # cube ports: dimension b on port b (intermediate) or k+b (node-carrying corner)
    cs = np.flatnonzero(cube)
    cc = c[cs]
    base = np.where(is_int[cc], 0, k)
    for b in range(k):
        nc = cc ^ (1 << b)
        col = base + b
        peer[cs, col] = N + G[cs] * Sg + q[cs] * M + nc
        pport[cs, col] = np.where(is_int[nc], 0, k) + b
        kind[cs, col] = PORT_CUBE

    # node ports of node-carrying corners
    om = cube & ~inter
    for p in range(k):
        peer[om, p] = G[om] * Ng + q[om] * Mo * k + rank[c[om]] * k + p
        kind[om, p] = PORT_NODE

    nid = np.arange(N, dtype=np.int64)
    gn = nid // Ng
    rr = nid % Ng
    qn = rr // (Mo * k)
    rem = rr % (Mo * k)
    cn = outer[rem // k]
    pn = rem % k
    node_digits = _label_table(gn if mirrored else None, None, qn * g + near[cn], cn, pn, k, n)
    switch_digits = _label_table(G if mirrored else None, L, D, c, None, k, n)
    layer = np.where(G == 0, L, 2 * (n - 1) - 1 - L) if mirrored else L
    cube_port_base = np.where(~cube, -1, np.where(inter, 0, k)).astype(np.int8)
    meta = {
        "cube_dim": k,
        "groups": NG,
        "intermediate_codes": codes.copy(),
        "intermediate": inter,
        "cube_port_base": cube_port_base,
    }
    for v in meta.values():
        if isinstance(v, np.ndarray):
            v.flags.writeable = False
    return Topology.create(
        family,
        params,
        node_digits=node_digits,
        switch_digits=switch_digits,
        switch_level=L,
        switch_layer=layer,
        port_peer=peer,
        port_peer_port=pport,
        port_kind=kind,
        node_switch=gn * Sg + qn * M + cn,
        node_port=pn,
        meta=meta,
    )


def _corner_orbits(k: int, codes: np.ndarray) -> np.ndarray:
    """Orbit id (its smallest corner) of every corner under cube automorphisms fixing ``codes``.

    Candidates are bit transpositions, bit reversal, complement and XOR by differences of
    intermediate codes; only those mapping the intermediate set onto itself are kept,
    so the orbits are exact or finer (finer is still exact for distance statistics).
    Any permutation of a cube's intermediate switches extends to the tree, since they
    all link to the same k parents (KANTC) or there is one of them (CAT).
    """
    M = 1 << k
    x = np.arange(M, dtype=np.int64)
    cands = []
    for a in range(k):
        for b in range(a + 1, k):
            flip = ((x >> a) ^ (x >> b)) & 1
            cands.append(x ^ (flip << a) ^ (flip << b))
    cands.append(sum(((x >> b) & 1) << (k - 1 - b) for b in range(k)))
    cands.append(x ^ (M - 1))
    cands.extend(x ^ t for t in np.unique(codes[:, None] ^ codes[None, :]) if t)
    gens = [p for p in cands if np.all(np.isin(p[codes], codes))]
    lab = x.copy()
    while True:
        old = lab
        for p in gens:
            lab = np.minimum(lab, lab[p])
            inv = np.empty_like(p)
            inv[p] = x
            lab = np.minimum(lab, lab[inv])
        lab = lab[lab]
        if np.array_equal(lab, old):
            return lab


def hybrid_node_classes(topo: Topology) -> tuple[np.ndarray, np.ndarray]:
    """Representative nodes and class sizes: one class per orbit of node-carrying corners.

    All cubes (of both groups) are equivalent, and so are the k nodes of one switch.

    Examples
    --------
    >>> import fattree
    >>> reps, sizes = hybrid_node_classes(fattree.build("cat:k=3,n=2"))
    >>> reps.tolist(), sizes.tolist()  # Hamming weight 1, 2, 3 of the corner
    ([0, 6, 18], [27, 27, 9])

    References
    ----------
    ``docs/families/hybrids.md`` (node classes).
    """
    k, n = topo.params["k"], topo.params["n"]
    codes = np.asarray(topo.meta["intermediate_codes"], np.int64)
    orbit = _corner_orbits(k, codes)
    outer = np.flatnonzero(~np.isin(np.arange(1 << k), codes))
    reps, counts = np.unique(orbit[outer], return_counts=True)
    rank = np.searchsorted(outer, reps)
    cubes = topo.meta["groups"] * k ** (n - 1) // len(codes)
    return (rank * k).astype(np.int64), (counts * k * cubes).astype(np.int64)


_PARAMS = [
    Param("k", "cube dimension and tree arity (switch radix 2k)", minimum=2, maximum=16),
    Param("n", "tree levels", minimum=2, maximum=24),
]


@register_family(
    "cat",
    title="k-cube k-ary n-tree CAT(k,n)",
    paper="001 §2.1 / Table 1",
    params=_PARAMS,
    size=lambda p: hybrid_size(p["k"], p["n"], False, 1),
    node_classes=hybrid_node_classes,
    facets=Facets(
        routing="cube-tree",
        forms="cat",
        fault_tolerance="generic",
        fault_walk=None,
        advisor=("cat",),
        drawing="layered",
        example="cat:k=2,n=2",
    ),
)
def cat(k: int, n: int) -> Topology:
    """CAT(k, n): a k-ary n-tree whose leaf switches are the transit corners of k-cubes.

    (2^k-1)k^n nodes, (n+2^k-1)k^(n-1) switches, (3·2^(k-1)+n-2)k^n links, diameter 2n+2k.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("cat:k=3,n=3")
    >>> t.n_nodes, t.n_switches, t.n_links
    (189, 90, 351)
    >>> [t.vertex_label(int(v)) for v in t.port_peer[t.find("s0.1.2.0.0.0") - t.n_nodes]]
    ['s0.1.2.0.0.1', 's0.1.2.0.1.0', 's0.1.2.1.0.0', 's1.1.0.0.0.0', 's1.1.1.0.0.0', 's1.1.2.0.0.0']

    References
    ----------
    001 §2.1 (labels <L, D, C>, Fig. 1 CAT(3,3) with 189 nodes), Table 1.
    """
    return build_hybrid("cat", {"k": k, "n": n}, k, n, False, [0])


@register_family(
    "micat",
    title="mirrored k-cube k-ary n-tree MiCAT(k,n)",
    paper="001 §2.2 / Table 1",
    params=_PARAMS,
    size=lambda p: hybrid_size(p["k"], p["n"], True, 1),
    node_classes=hybrid_node_classes,
    facets=Facets(
        routing="cube-tree",
        forms="micat",
        fault_tolerance="generic",
        fault_walk=None,
        advisor=("micat",),
        drawing="layered",
        example="micat:k=2,n=2",
    ),
)
def micat(k: int, n: int) -> Topology:
    """MiCAT(k, n): MiKANT(k, n) whose stage-0 switches are the transit corners of k-cubes.

    2(2^k-1)k^n nodes, (2n-4+2^(k+1))k^(n-1) switches, (3·2^k+2n-5)k^n links,
    diameter 2n+2k.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("micat:k=4,n=3")
    >>> t.n_nodes, t.n_switches, int((t.meta["intermediate"]).sum())
    (1920, 544, 32)

    References
    ----------
    001 §2.2 (labels <G, L, D, C>; "MiCAT(4,3) has 2k^(n-1) = 32 transit switches"), Table 1.
    """
    return build_hybrid("micat", {"k": k, "n": n}, k, n, True, [0])
