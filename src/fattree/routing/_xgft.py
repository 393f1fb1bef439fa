"""Per-hop rules of the extended generalized fat tree XGFT(h; m; w) (numba).

Index conventions are those of ``topology/families/xgft.py``: stage L (XGFT level L+1)
switches are stacked from ``off[L]``; a switch's local index is mixed radix over digit
positions ``p = 0..h-2`` (position p = level p+2): the up choice ``y < w_{p+2}`` below L,
the subtree digit ``x < m_{p+2}`` from L up. A node ``c = x_1*M + leaf`` hangs on leaf
switch ``leaf`` at port ``x_1``.

Routing is nearest-common-ancestor up*/down* (minimal, deadlock-free with one VC). The
up port is the only choice; the policies generalise those of the k-ary n-tree so that on
XGFT(n; k..k; 1,k..k) every rule picks kant's port:

* ``dmodk`` (Zahavi; Rodriguez et al. 2009 for XGFTs): going up from stage L take parent
  ``floor(d / (w_2 .. w_{L+1})) mod w_{L+2}``, with ``d = x_1 + m_1 * leaf`` the
  destination's number (leaf port least significant);
* ``smodk``: the same with the source's number; ``random``: dmodk's port plus a hash of
  (seed, packet, level) mod ``w_{L+2}``; ``adaptive``: every parent, dmodk's first.

iparams (int64): ``[h, M, policy, seed, N, 0, 0, 0]`` then ``off[0..h]``, ``m[0..h-1]``,
``w[0..h]`` (``w[h] = 0``), ``W[0..h-1]`` (``W[L] = w_2..w_{L+1}``: weight of digit
position L below the stage) and ``P[0..h-1]`` (``P[L] = m_2..m_{L+1}``: the weight of
position L in a leaf index).
"""

from __future__ import annotations

from math import prod

import numpy as np
from numba import njit

from ._consts import IP_POLICY, IP_SEED, POL_ADAPTIVE, POL_RANDOM, POL_SMODK
from ._trees import _pick

_H = 0
_LEAVES = 1
_NODES = 4
_BASE = 8


def xgft_iparams(m, w, policy: int, seed: int) -> np.ndarray:
    """The rule's integers for XGFT(h; m; w) (layout in the module docstring)."""
    h = len(m)
    sizes = [prod(w[: i + 1]) * prod(m[i + 1 :]) for i in range(h)]
    off = np.concatenate([[0], np.cumsum(sizes)])
    ip = np.zeros(_BASE + (h + 1) + h + (h + 1) + h + h, np.int64)
    ip[_H], ip[_LEAVES], ip[IP_POLICY], ip[IP_SEED] = h, sizes[0], policy, seed
    ip[_NODES] = sizes[0] * m[0]
    b = _BASE
    ip[b : b + h + 1] = off
    b += h + 1
    ip[b : b + h] = m
    b += h
    ip[b : b + h] = w
    b += h + 1
    ip[b : b + h] = [prod(w[1 : L + 1]) for L in range(h)]
    b += h
    ip[b : b + h] = [prod(m[1 : L + 1]) for L in range(h)]
    return ip


@njit(cache=True)
def _xgft_ports(iparams, sw, src, dst, pkt_key, out):
    """Nearest-common-ancestor up*/down* on XGFT; the up port by the policy."""
    h = iparams[_H]
    M = iparams[_LEAVES]
    o_off = _BASE
    o_m = o_off + h + 1
    o_w = o_m + h
    o_W = o_w + h + 1
    o_P = o_W + h
    L = 0
    while L + 1 < h and sw >= iparams[o_off + L + 1]:
        L += 1
    d = sw - iparams[o_off + L]
    leaf = dst % M
    if d // iparams[o_W + L] == leaf // iparams[o_P + L]:
        if L == 0:
            out[0] = dst // M
        else:
            out[0] = (leaf // iparams[o_P + L - 1]) % iparams[o_m + L]
        return 1
    nup = iparams[o_w + L + 1]
    if nup <= 0:
        return 0
    base_port = iparams[o_m + L]
    pol = iparams[IP_POLICY]
    c = dst
    if pol == POL_SMODK and src >= 0:
        c = src
    num = c // M + iparams[o_m] * (c % M)
    first = (num // iparams[o_W + L]) % nup
    if pol == POL_RANDOM:
        out[0] = base_port + (first + _pick(iparams[IP_SEED], pkt_key, L, nup)) % nup
        return 1
    if pol == POL_ADAPTIVE:
        for j in range(nup):
            out[j] = base_port + (first + j) % nup
        return nup
    out[0] = base_port + first
    return 1
