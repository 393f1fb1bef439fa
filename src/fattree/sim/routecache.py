"""A (switch, destination) route cache for deterministic destination-based routings.

The digit rules of the routing kernels cost tens of nanoseconds per call (integer
divisions); most deterministic algorithms (``alg1``, ``dmodk``, next-hop tables)
depend only on the switch and the destination. For those, on networks small enough
for an ``S x N`` int8 table, the kernel fills the table lazily and reads it
afterwards. Whether the routing is destination-only is *tested*, never assumed
from its name: on a fixed sample of (switch, destination) pairs, the route must not
change with the source, the packet key or the input port. A routing that fails the
test (``smodk``, ``random``, adaptive ones) is called for every hop as before; the
reference simulator, which never caches, checks the result in the test suite.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..routing.kernel import route_ports

ROUTE_CACHE_MAX = 1 << 25  # entries (int8): 32 MiB
SAMPLES = 4096
NO_CACHE = np.full((1, 1), -1, np.int8)


@njit(cache=True)
def _destination_only(code, iparams, table, port_peer, sws, dsts, srcs, keys, ports):
    R = port_peer.shape[1]
    a = np.zeros(R + 1, np.int64)
    b = np.zeros(R + 1, np.int64)
    for i in range(sws.shape[0]):
        na = route_ports(
            code, iparams, table, port_peer, sws[i], -1, srcs[2 * i], dsts[i], keys[2 * i], a
        )
        nb = route_ports(
            code,
            iparams,
            table,
            port_peer,
            sws[i],
            ports[i],
            srcs[2 * i + 1],
            dsts[i],
            keys[2 * i + 1],
            b,
        )
        if na != nb:
            return False
        for j in range(na):
            if a[j] != b[j]:
                return False
    return True


def route_cache(topo, cr) -> tuple[np.ndarray, bool]:
    """``(cache, destination_only)``: an empty ``(S, N)`` int8 cache (``-1``: unknown),
    or ``(1, 1)`` when the routing is not destination-only or the table too large."""
    S, N, R = topo.n_switches, topo.n_nodes, topo.max_ports
    if cr.adaptive or getattr(cr, "per_packet", False):
        return NO_CACHE, False
    rng = np.random.default_rng(20240601)  # a fixed sample: the decision is reproducible
    sws = rng.integers(0, S, SAMPLES)
    used = topo.port_peer[sws] >= 0
    pick = rng.random((SAMPLES, R)) * used
    ports = pick.argmax(axis=1).astype(np.int64)
    ok = _destination_only(
        cr.code,
        cr.iparams,
        cr.table,
        np.ascontiguousarray(topo.port_peer),
        sws.astype(np.int64),
        rng.integers(0, N, SAMPLES),
        rng.integers(0, N, 2 * SAMPLES),
        rng.integers(0, 2**62, 2 * SAMPLES),
        ports,
    )
    if not ok:
        return NO_CACHE, False
    if S * N > ROUTE_CACHE_MAX or R > 127:
        return NO_CACHE, True  # destination-only, too large to tabulate: still no packet lookups
    return np.full((S, N), -1, np.int8), True
