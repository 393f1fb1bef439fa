"""Max-min fair rates by progressive filling, and one phase of flows run to completion.

Private numba kernels over fixed-dtype arrays; :mod:`fattree.sim.flow.engine` validates
and calls them. Flows are CSR rows of local channel ids ``0..C-1``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _transpose(ptr, chan, n_chan):
    """Flows crossing each channel, as CSR rows ``tflow[tptr[c]:tptr[c + 1]]``."""
    tptr = np.zeros(n_chan + 1, np.int64)
    for e in range(chan.shape[0]):
        tptr[chan[e] + 1] += 1
    for c in range(n_chan):
        tptr[c + 1] += tptr[c]
    fill = tptr[:-1].copy()
    tflow = np.empty(chan.shape[0], np.int64)
    for f in range(ptr.shape[0] - 1):
        for e in range(ptr[f], ptr[f + 1]):
            c = chan[e]
            tflow[fill[c]] = f
            fill[c] += 1
    return tptr, tflow


@njit(cache=True, nogil=True)
def _sift_down(heap, pos, key, i, n):
    while True:
        a = 2 * i + 1
        if a >= n:
            return
        b = a + 1
        j = b if b < n and key[heap[b]] < key[heap[a]] else a
        if key[heap[j]] < key[heap[i]]:
            ci, cj = heap[i], heap[j]
            heap[i], heap[j] = cj, ci
            pos[cj], pos[ci] = i, j
            i = j
        else:
            return


@njit(cache=True, nogil=True)
def _sift_up(heap, pos, key, i):
    while i > 0:
        p = (i - 1) // 2
        if key[heap[i]] < key[heap[p]]:
            ci, cp = heap[i], heap[p]
            heap[i], heap[p] = cp, ci
            pos[cp], pos[ci] = i, p
            i = p
        else:
            return


@njit(cache=True, nogil=True)
def _heap_remove(heap, pos, key, i, n):
    """Remove entry ``i`` of a heap of ``n`` entries; returns the new size."""
    n -= 1
    c = heap[i]
    pos[c] = -1
    if i == n:
        return n
    last = heap[n]
    heap[i] = last
    pos[last] = i
    _sift_down(heap, pos, key, i, n)
    _sift_up(heap, pos, key, pos[last])
    return n


@njit(cache=True, nogil=True)
def _maxmin_t(ptr, chan, cap, active, rate, bott, tptr, tflow):
    """:func:`_maxmin` with the channels' flows given (``_transpose``).

    The channels wait in a min-heap keyed by their fair share ``rem / cnt`` (the same
    division as a sweep over every channel), so a round visits only the channels that
    fill and the flows that cross them, not every rising flow.
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
    key = np.empty(C)
    heap = np.empty(C, np.int64)
    pos = np.full(C, -1, np.int64)
    n = 0
    for c in range(C):
        if cnt[c] > 0:
            key[c] = rem[c] / cnt[c]
            heap[n] = c
            pos[c] = n
            n += 1
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(heap, pos, key, i, n)
    sat = np.zeros(C, np.bool_)
    full = np.empty(C, np.int64)
    newly = np.empty(F, np.int64)
    touched = np.empty(C, np.int64)
    mark = np.zeros(C, np.bool_)
    while left > 0 and n > 0:
        m = key[heap[0]]
        if m < 0.0:
            m = 0.0
        thr = m * (1.0 + 1e-9) + 1e-300
        nf = 0
        while n > 0 and key[heap[0]] <= thr:
            c = heap[0]
            sat[c] = True
            full[nf] = c
            nf += 1
            n = _heap_remove(heap, pos, key, 0, n)
        k = 0
        for j in range(nf):
            for t in range(tptr[full[j]], tptr[full[j] + 1]):
                f = tflow[t]
                if frozen[f]:
                    continue
                frozen[f] = True
                newly[k] = f
                k += 1
                for e in range(ptr[f], ptr[f + 1]):
                    if sat[chan[e]]:
                        rate[f] = m
                        bott[f] = chan[e]
                        break
        nt = 0
        for j in range(k):
            f = newly[j]
            for e in range(ptr[f], ptr[f + 1]):
                c = chan[e]
                cnt[c] -= 1
                rem[c] -= m
                if not mark[c]:
                    mark[c] = True
                    touched[nt] = c
                    nt += 1
        for j in range(nt):
            c = touched[j]
            mark[c] = False
            i = pos[c]
            if i < 0:
                continue
            if cnt[c] == 0:
                n = _heap_remove(heap, pos, key, i, n)
            else:
                key[c] = rem[c] / cnt[c]
                _sift_down(heap, pos, key, i, n)
                _sift_up(heap, pos, key, pos[c])
        for j in range(nf):
            sat[full[j]] = False
        left -= k
    return left


@njit(cache=True, nogil=True)
def _maxmin(ptr, chan, cap, active, rate, bott):
    """Max-min fair rates of the active flows (progressive filling).

    Every unfrozen flow's rate rises together; when a channel fills, the flows crossing
    it freeze at that rate (``bott`` records the channel: the first full one along the
    flow's route). Each round freezes every flow that crosses a channel at the lowest
    fair share (within a relative 1e-9), so rounds = distinct rate levels.
    """
    tptr, tflow = _transpose(ptr, chan, cap.shape[0])
    return _maxmin_t(ptr, chan, cap, active, rate, bott, tptr, tflow)


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
    tptr, tflow = _transpose(ptr, chan, cap.shape[0])
    while left > 0:
        _maxmin_t(ptr, chan, cap, active, rate, b, tptr, tflow)
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
