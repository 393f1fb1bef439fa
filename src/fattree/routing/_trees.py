"""Per-hop rules of the tree families (kant, clos, mikant) on label digits (numba).

Index conventions are those of ``topology/families``: a stage-L switch with digits
``D`` has index ``L*k^(n-1) + D`` (MiKANT: ``(G*(n-1)+L)*k^(n-1) + D``) and a node of
group G with digits ``C`` has index ``G*k^n + C``; digit i of an integer x is
``(x // k**i) % k``, and ``C_{n-1}`` is the port digit of the node at its leaf.
Going up from level L sets digit L (port ``k+i`` sets it to i); going down from level
L sets digit L-1 (port j sets it to j).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..compiling import nrt_free
from ._balanced import _balanced_root
from ._consts import (
    IP_K,
    IP_KN1,
    IP_N,
    IP_POLICY,
    IP_POW,
    IP_SEED,
    POL_ALG1,
    POL_ALLMIN,
    POL_BALANCED,
    POL_DMODK,
    POL_DMODK_BAL,
    POL_LITERAL000,
    POL_RANDOM,
    POL_SMODK,
)


@njit(**nrt_free())
def _mix(x):
    """splitmix64 finaliser (x: uint64)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(**nrt_free())
def _pick(seed, pkt_key, level, count):
    """A choice in ``0..count-1`` fixed by (seed, packet, level): no shared RNG stream."""
    h = _mix(np.uint64(seed) ^ _mix(np.uint64(pkt_key) ^ _mix(np.uint64(level))))
    return np.int64(h % np.uint64(count))


@njit(**nrt_free())
def _up_candidates(iparams, level, dst_c, src_c, pkt_key, out):
    """Up ports ``k+i`` for a packet leaving level ``level`` upwards, by policy.

    ``dst_c`` / ``src_c`` are the node indices inside their group (digits C); a
    negative ``src_c`` (packet started at a switch) falls back to the destination.
    """
    k = iparams[IP_K]
    n = iparams[IP_N]
    pol = iparams[IP_POLICY]
    p0 = IP_POW
    if pol == POL_ALG1 or pol == POL_LITERAL000:
        out[0] = k + (dst_c // iparams[p0 + level]) % k
        return 1
    c = dst_c
    if pol == POL_SMODK and src_c >= 0:
        c = src_c
    # d-mod-k: digit L := T_{L-1}, with T_{-1} = T_{n-1} (the node's port digit)
    if level == 0:
        base = c // iparams[p0 + n - 1]
    else:
        base = (c // iparams[p0 + level - 1]) % k
    if pol == POL_DMODK or pol == POL_SMODK or pol == POL_DMODK_BAL or pol == POL_BALANCED:
        out[0] = k + base
        return 1
    if pol == POL_RANDOM:
        out[0] = k + (base + _pick(iparams[IP_SEED], pkt_key, level, k)) % k
        return 1
    # adaptive / minimal-all: every up port, d-mod-k's first
    for j in range(k):
        out[j] = k + (base + j) % k
    return k


@njit(**nrt_free())
def _down_or_eject(iparams, level, dst_c):
    """Down port at an ancestor: digit L-1 := T_{L-1}; at a leaf the port T_{n-1}."""
    k = iparams[IP_K]
    if level >= 1:
        return (dst_c // iparams[IP_POW + level - 1]) % k
    return dst_c // iparams[IP_KN1]


@njit(cache=True)
def _kant_ports(iparams, sw, src, dst, pkt_key, out):
    """k-ary n-tree: nearest-common-ancestor up*/down*."""
    kn1 = iparams[IP_KN1]
    lev = sw // kn1
    d = sw % kn1
    pw = iparams[IP_POW + lev]
    if d // pw == (dst % kn1) // pw:
        out[0] = _down_or_eject(iparams, lev, dst)
        return 1
    return _up_candidates(iparams, lev, dst, src, pkt_key, out)


@njit(cache=True)
def _clos_ports(iparams, sw, src, dst, pkt_key, out):
    """Bidirectional Clos: up to the nearest common ancestor in the source's half
    (the middle stage for the other group), then down the destination's half."""
    k = iparams[IP_K]
    n = iparams[IP_N]
    kn1 = iparams[IP_KN1]
    kn = kn1 * k
    stage = sw // kn1
    d = sw % kn1
    mid = n - 1
    gt = dst // kn
    c = dst % kn
    if stage == mid:
        # the middle's ports 0..k-1 face group 0, k..2k-1 group 1 (digit n-2 := j)
        return _emit(out, (c // iparams[IP_POW + n - 2]) % k + (k if gt == 1 else 0))
    side = 0 if stage < mid else 1
    lev = stage if stage < mid else 2 * n - 2 - stage
    pw = iparams[IP_POW + lev]
    if side == gt and d // pw == (c % kn1) // pw:
        return _emit(out, _down_or_eject(iparams, lev, c))
    return _up_candidates(iparams, lev, c, src % kn if src >= 0 else -1, pkt_key, out)


@njit(**nrt_free())
def _emit(out, port):
    out[0] = port
    return 1


@njit(**nrt_free())
def _mikant_ports(iparams, sw, src, dst, pkt_key, out):
    """MiKANT: Algorithm 1 (docs/mikant-routing.md §2, 001's printing) with the up-port
    policy inside a group and Algorithm 1's crossing rule at stage n-2."""
    k = iparams[IP_K]
    n = iparams[IP_N]
    pol = iparams[IP_POLICY]
    kn1 = iparams[IP_KN1]
    kn = kn1 * k
    gl = sw // kn1
    d = sw % kn1
    lev = gl % (n - 1)
    g = gl // (n - 1)
    gt = dst // kn
    c = dst % kn
    pw = iparams[IP_POW + lev]
    if g == gt:
        if pol == POL_LITERAL000:
            # 000 as printed: full comparison, down port T_{L_W} (loops; docs/mikant-routing.md §2.1)
            if d == c % kn1:
                if lev >= 1:
                    return _emit(out, (c // pw) % k)
                return _emit(out, c // kn1)
        elif d // pw == (c % kn1) // pw:
            return _emit(out, _down_or_eject(iparams, lev, c))
        if lev == n - 2 and pol == POL_DMODK_BAL:
            # root crossing by the balanced table f[W_{n-2}, T_{n-2}] (routing/_crossing.py)
            return _emit(out, k + iparams[IP_POW + n + 1 + (d // pw) % k * k + (c // pw) % k])
        if lev == n - 2 and pol == POL_BALANCED and (d // pw) % k != (c // pw) % k:
            # root crossing split by a destination digit (routing/_balanced.py)
            return _emit(
                out, k + _balanced_root(iparams, IP_POW + n + 1, g, (d // pw) % k, (c // pw) % k, c)
            )
        if lev == n - 2 and pol == POL_ALLMIN:
            # root crossing: every root of the other group leads back minimally
            t = (c // pw) % k
            for j in range(k):
                out[j] = k + (t + j) % k
            return k
    if lev == n - 2:
        return _emit(out, k + (c // pw) % k)
    return _up_candidates(iparams, lev, c, src % kn if src >= 0 else -1, pkt_key, out)


@njit(cache=True)
def _mikant_vc(iparams, sw, in_port, in_vc, out_port, n_vcs):
    """minimal-all's VC classes: the second crossing of a same-group route and every
    hop after it use VC 1, everything else VC 0 (breaks the cross-link cycles)."""
    if n_vcs < 2:
        return 0
    k = iparams[IP_K]
    n = iparams[IP_N]
    if in_vc >= 1:
        return 1
    lev = (sw // iparams[IP_KN1]) % (n - 1)
    if lev == n - 2 and in_port >= k and out_port >= k:
        return 1
    return 0
