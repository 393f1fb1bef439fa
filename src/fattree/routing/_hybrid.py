"""CAT / MiCAT (001 §2) and KANTC / MiKANTC (004 §3): cube part, tree part, cube part.

Index conventions of ``topology/families/cat.py`` (``build_hybrid``): per group ``Sg``
switches, first ``Q`` cubes of ``M = 2^k`` corners (switch ``q*M + c``), then tree
levels ``1..top`` of ``K = k^(n-1)`` positions; nodes ``g*Ng + q*Mo*k + rank(c)*k + p``.
A level-0 position ``D`` is corner ``codes[D % g]`` of cube ``D // g``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# iparams slots
H_K, H_N, H_POL, H_SEED, H_KN1, H_NODES, H_G, H_M, H_Q, H_TOP, H_MIR, H_SG, H_NG, H_MO, H_QM = (
    range(15)
)
H_POW, H_NEAR, H_OUTER, H_CPOS, H_CODES = range(15, 20)
H_HEAD = 20


def hybrid_iparams(topo, vc_classes: int, seed: int) -> np.ndarray:
    """Scalars (``vc_classes`` = 1: two VC classes, see :func:`_hybrid_vc`), then the
    tables: powers of k, nearest intermediate of every corner, node-carrying corners by
    rank, intermediate index of every corner, the intermediate codes."""
    k, n = int(topo.params["k"]), int(topo.params["n"])
    codes = np.asarray(topo.meta["intermediate_codes"], np.int64)
    g = len(codes)
    M = 1 << k
    K = k ** (n - 1)
    mirrored = topo.meta["groups"] == 2
    top = n - 2 if mirrored else n - 1
    Q = K // g
    Mo = M - g
    corners = np.arange(M, dtype=np.int64)
    dist = np.zeros((M, g), np.int64)
    for b in range(k):
        dist += ((corners[:, None] ^ codes[None, :]) >> b) & 1
    near = np.argmin(dist, axis=1)
    cpos = np.full(M, -1, np.int64)
    cpos[codes] = np.arange(g)
    outer = np.flatnonzero(cpos < 0)
    head = np.zeros(H_HEAD, np.int64)
    head[[H_K, H_N, H_POL, H_SEED, H_KN1, H_NODES, H_G, H_M, H_Q, H_TOP, H_MIR]] = [
        k,
        n,
        vc_classes,
        seed,
        K,
        topo.n_nodes,
        g,
        M,
        Q,
        top,
        int(mirrored),
    ]
    head[H_SG] = Q * M + top * K
    head[H_NG] = Q * Mo * k
    head[H_MO] = Mo
    head[H_QM] = Q * M
    parts = [k ** np.arange(n + 1, dtype=np.int64), near, outer, cpos, codes]
    off = H_HEAD
    for slot, arr in zip(range(H_POW, H_CODES + 1), parts):
        head[slot] = off
        off += len(arr)
    return np.concatenate([head] + parts)


@njit(cache=True)
def _popc(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def _low_bit(x):
    b = 0
    while not (x >> b) & 1:
        b += 1
    return b


@njit(cache=True)
def _tree_step(ip, G, L, D, gt, DT, out):
    """Algorithm 1 on tree positions (000; the tree part of 001 §2 and 004 §3.1-3.2)."""
    k = ip[H_K]
    pw = ip[ip[H_POW] + L]
    if G == gt and D // pw == DT // pw:
        out[0] = (DT // ip[ip[H_POW] + L - 1]) % k
        return 1
    out[0] = k + (DT // pw) % k
    return 1


@njit(cache=True)
def _hybrid_ports(ip, sw, dst, out):
    k = ip[H_K]
    g = ip[H_G]
    M = ip[H_M]
    K = ip[H_KN1]
    Sg = ip[H_SG]
    Ng = ip[H_NG]
    Mo = ip[H_MO]
    QM = ip[H_QM]
    near = ip[H_NEAR]
    codes = ip[H_CODES]
    G = sw // Sg
    r = sw % Sg
    gt = dst // Ng
    rr = dst % Ng
    qt = rr // (Mo * k)
    rem = rr % (Mo * k)
    ct = ip[ip[H_OUTER] + rem // k]
    DT = qt * g + ip[near + ct]
    if r >= QM:
        tr = r - QM
        return _tree_step(ip, G, 1 + tr // K, tr % K, gt, DT, out)
    q = r // M
    c = r % M
    j = ip[ip[H_CPOS] + c]
    base = 0 if j >= 0 else k
    if G == gt and q == qt:
        if c == ct:
            out[0] = rem % k
            return 1
        # inside the destination's cube: straight across (Hamming distance; passing an
        # intermediate on the way is never shorter), or out through the nearest
        # intermediate, up and down into the destination's (2 hops at level 1)
        nc = ip[near + c]
        nt = ip[near + ct]
        if _popc(c ^ ct) <= _popc(c ^ ip[codes + nc]) + 2 + _popc(ip[codes + nt] ^ ct):
            target = ct
        else:
            target = ip[codes + nc]
            if target == c:
                out[0] = k + nt  # up (or across the groups at n = 2) and down to I_nt
                return 1
        out[0] = base + _low_bit(c ^ target)
        return 1
    if j < 0:
        out[0] = k + _low_bit(c ^ ip[codes + ip[near + c]])
        return 1
    return _tree_step(ip, G, 0, q * g + j, gt, DT, out)


@njit(cache=True)
def _hybrid_vc(ip, sw, in_port, in_vc, out_port, n_vcs):
    """VC 1 from the first cube hop out of an intermediate switch on: the cube hops
    towards the destination then never wait on those towards an intermediate."""
    if n_vcs < 2:
        return 0
    if in_vc >= 1:
        return 1
    r = sw % ip[H_SG]
    if r < ip[H_QM] and ip[ip[H_CPOS] + r % ip[H_M]] >= 0 and out_port < ip[H_K]:
        return 1
    return 0
