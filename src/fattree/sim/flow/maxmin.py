"""Max-min fair rates by progressive filling, and one phase of flows run to completion.

Private numba kernels over fixed-dtype arrays; :mod:`fattree.sim.flow.engine` validates
and calls them. Flows are CSR rows of local channel ids ``0..C-1``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _maxmin(ptr, chan, cap, active, rate, bott):
    """Max-min fair rates of the active flows (progressive filling).

    Every unfrozen flow's rate rises together; when a channel fills, the flows crossing
    it freeze at that rate (``bott`` records the channel). Each round freezes every flow
    that crosses a channel at the lowest fair share, so rounds = distinct rate levels.
    """
    F = ptr.shape[0] - 1
    C = cap.shape[0]
    rem = cap.copy()
    cnt = np.zeros(C, np.int64)
    frozen = np.empty(F, np.bool_)
    left = 0
    for f in range(F):
        frozen[f] = not active[f]
        if active[f]:
            left += 1
            for e in range(ptr[f], ptr[f + 1]):
                cnt[chan[e]] += 1
    sat = np.zeros(C, np.bool_)
    newly = np.empty(F, np.int64)
    while left > 0:
        m = np.inf
        for c in range(C):
            if cnt[c] > 0:
                s = rem[c] / cnt[c]
                if s < m:
                    m = s
        if m < 0.0:
            m = 0.0
        thr = m * (1.0 + 1e-9) + 1e-300
        for c in range(C):
            sat[c] = cnt[c] > 0 and rem[c] / cnt[c] <= thr
        k = 0
        for f in range(F):
            if frozen[f]:
                continue
            for e in range(ptr[f], ptr[f + 1]):
                c = chan[e]
                if sat[c]:
                    rate[f] = m
                    bott[f] = c
                    frozen[f] = True
                    newly[k] = f
                    k += 1
                    break
        for j in range(k):
            f = newly[j]
            for e in range(ptr[f], ptr[f + 1]):
                c = chan[e]
                cnt[c] -= 1
                rem[c] -= m
        left -= k
    return left


@njit(cache=True, nogil=True)
def _run_phase(ptr, chan, cap, nbytes, finish, bott):
    """Flows that all start at time 0, rates recomputed whenever one ends.

    Writes each flow's transfer end (s) to ``finish`` and the channel that bounded it
    when the phase started to ``bott``; returns the number of rate computations.
    """
    F = ptr.shape[0] - 1
    remaining = nbytes.astype(np.float64)
    active = np.empty(F, np.bool_)
    left = 0
    for f in range(F):
        active[f] = remaining[f] > 0.0
        if active[f]:
            left += 1
        else:
            finish[f] = 0.0
            bott[f] = -1
    rate = np.zeros(F)
    b = np.full(F, -1, np.int64)
    t = 0.0
    rounds = 0
    while left > 0:
        _maxmin(ptr, chan, cap, active, rate, b)
        if rounds == 0:
            for f in range(F):
                bott[f] = b[f]
        rounds += 1
        dt = np.inf
        for f in range(F):
            if active[f]:
                d = remaining[f] / rate[f] if rate[f] > 0.0 else np.inf
                if d < dt:
                    dt = d
        if not np.isfinite(dt):
            for f in range(F):  # a zero-capacity channel: never finishes
                if active[f]:
                    finish[f] = np.inf
            break
        t += dt
        lim = dt * (1.0 + 1e-12)
        for f in range(F):
            if active[f]:
                if rate[f] > 0.0 and remaining[f] / rate[f] <= lim:
                    active[f] = False
                    finish[f] = t
                    left -= 1
                else:
                    remaining[f] -= rate[f] * dt
    return rounds


@njit(cache=True, nogil=True)
def _localize(chan, scratch, local, uch):
    """Renumber global channel ids ``0..`` in order of first use; returns how many.

    ``scratch`` (one slot per global channel) must be all ``-1`` and is left so.
    """
    k = 0
    for e in range(chan.shape[0]):
        c = chan[e]
        j = scratch[c]
        if j < 0:
            j = k
            scratch[c] = k
            uch[k] = c
            k += 1
        local[e] = j
    for j in range(k):
        scratch[uch[j]] = -1
    return k


@njit(cache=True, nogil=True)
def _carried(ptr, local, nbytes, k):
    """Bytes each of the ``k`` local channels carries: every flow's bytes on its route
    (summed in route order, as ``np.bincount`` would, without its temporaries)."""
    out = np.zeros(k)
    for f in range(ptr.shape[0] - 1):
        b = float(nbytes[f])
        for e in range(ptr[f], ptr[f + 1]):
            out[local[e]] += b
    return out
