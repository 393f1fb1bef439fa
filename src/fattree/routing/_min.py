"""MIN (butterfly) fat trees of 003 (numba). Router ``(r, c)`` is switch ``r*C + c``;
client ``a`` hangs on port ``a % 2`` of ``(0, a // 2)``; up port ``2+i`` sets bit r of
c to i, down port j sets bit r-1; ``rsminft``'s lateral port 4 flips bit max(r, 1).
"""

from __future__ import annotations

from numba import njit

M_N, M_ROWS, M_LATERAL, M_SEED, M_COLS = 0, 1, 2, 3, 4


@njit(cache=True)
def _min_ports(ip, sw, dst, out):
    """Up to the routing summit, then down (003 §3.1); with ``lateral``: take the lateral
    link when it lands on a router that reaches the destination, after which the
    packet only goes down (003 §4.3); going up then sets bit r to the destination's."""
    C = ip[M_COLS]
    r = sw // C
    c = sw % C
    cd = dst // 2
    if (c >> r) == (cd >> r):  # the destination is in this router's reach range
        out[0] = dst % 2 if r == 0 else (cd >> (r - 1)) & 1
        return 1
    if ip[M_LATERAL]:
        flip = c ^ (1 << max(r, 1))
        if (flip >> r) == (cd >> r):
            out[0] = 4
            return 1
        out[0] = 2 + ((cd >> r) & 1)
        return 1
    out[0] = 2 + ((c >> r) & 1)  # the straight link
    return 1
