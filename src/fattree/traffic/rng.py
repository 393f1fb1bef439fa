"""Counter-based random numbers shared by the simulator kernel and its reference.

Every random decision of a simulation is a pure function of ``(seed, stream,
a, b)``: whether node ``i`` creates a packet in cycle ``t``, the destination of the
``j``-th packet of source ``s``, the priority of a request in an arbitration. No
decision depends on how many numbers were drawn before it, so the numba kernel
(which visits only busy buffers, in any order) and the pure-Python reference
(which visits everything in index order) take identical decisions. The mixer is
SplitMix64's finaliser (Steele, Lea & Flood, OOPSLA 2014).

References
----------
docs/simulator.md, "Randomness and the reference simulator".
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..compiling import nrt_free

M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_C1 = 0xBF58476D1CE4E5B9
_C2 = 0x94D049BB133111EB

# stream tags: one per kind of decision, so that no two decisions share a number
S_CREATE = 1  # Bernoulli creation of node i in cycle t
S_EXACT_M = 2  # fractional part of N*lambda in cycle t ("exact" process)
S_EXACT_PICK = 3  # Floyd's sampling of the senders of cycle t
S_BURST = 4  # on/off transition of node i in cycle t
S_BURST_INIT = 5  # initial on/off state of node i
S_DEST = 6  # destination of the seq-th packet of a source
S_DEST_HOT = 7  # hotspot: "to the hot node?" for the seq-th packet of a source
S_ARB_OUT = 8  # priority of input port p at output port o in cycle t
S_ARB_IN = 9  # priority of VC v at input port p in cycle t
S_BURST_SEND = 10  # on-state creation of node i in cycle t (packets longer than 1 flit)

_U62 = float(1 << 62)


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_C1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_C2)
    return z ^ (z >> np.uint64(31))


@njit(**nrt_free())
def hash3(seed, stream, a, b):
    """64-bit hash of four non-negative integers (a uint64)."""
    x = _mix(np.uint64(seed) + np.uint64(_GOLDEN))
    x = _mix((x ^ np.uint64(stream)) + np.uint64(_GOLDEN))
    x = _mix((x ^ np.uint64(a)) + np.uint64(_GOLDEN))
    return _mix((x ^ np.uint64(b)) + np.uint64(_GOLDEN))


@njit(cache=True, inline="always")
def hash_prefix(seed, stream, a):
    """The part of :func:`hash3` that depends on ``(seed, stream, a)`` only: computed once
    per cycle (``a`` = the cycle) instead of once per node or request."""
    x = _mix(np.uint64(seed) + np.uint64(_GOLDEN))
    x = _mix((x ^ np.uint64(stream)) + np.uint64(_GOLDEN))
    return _mix((x ^ np.uint64(a)) + np.uint64(_GOLDEN))


@njit(cache=True, inline="always")
def hash_tail(prefix, b):
    """``hash3(seed, stream, a, b)`` from ``prefix = hash_prefix(seed, stream, a)``.

    Examples
    --------
    >>> int(hash_tail(hash_prefix(1, 2, 3), 4)) == int(hash3(1, 2, 3, 4))
    True
    """
    return _mix((prefix ^ np.uint64(b)) + np.uint64(_GOLDEN))


@njit(**nrt_free())
def bernoulli(seed, stream, a, b, thr):
    """True with probability ``thr / 2**62`` (``thr`` from :func:`threshold`)."""
    return np.int64(hash3(seed, stream, a, b) >> np.uint64(2)) < thr


@njit(**nrt_free())
def randint(seed, stream, a, b, n):
    """An integer uniform on ``0..n-1`` (modulo bias below ``n / 2**64``)."""
    return np.int64(hash3(seed, stream, a, b) % np.uint64(n))


def threshold(p: float) -> int:
    """Integer threshold of a probability for :func:`bernoulli` (exact at 0 and 1).

    Examples
    --------
    >>> threshold(0.0), threshold(1.0) == 1 << 62, threshold(0.5) == 1 << 61
    (0, True, True)
    """
    return int(min(max(p, 0.0), 1.0) * _U62)


# ---------------------------------------------------------------- pure Python
def py_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * _C1) & M64
    z = ((z ^ (z >> 27)) * _C2) & M64
    return z ^ (z >> 31)


def py_hash3(seed: int, stream: int, a: int, b: int) -> int:
    """The same hash as :func:`hash3` in plain Python integers (for the reference).

    Examples
    --------
    >>> py_hash3(1, 2, 3, 4) == int(hash3(1, 2, 3, 4))
    True
    """
    x = py_mix((seed + _GOLDEN) & M64)
    x = py_mix(((x ^ stream) + _GOLDEN) & M64)
    x = py_mix(((x ^ a) + _GOLDEN) & M64)
    return py_mix(((x ^ b) + _GOLDEN) & M64)


def py_bernoulli(seed: int, stream: int, a: int, b: int, thr: int) -> bool:
    return (py_hash3(seed, stream, a, b) >> 2) < thr


def py_randint(seed: int, stream: int, a: int, b: int, n: int) -> int:
    return py_hash3(seed, stream, a, b) % n
