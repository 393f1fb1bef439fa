"""Routes of many (source, destination) pairs at once, as directed channels.

The flow model needs every message's path; walking pairs one at a time in Python
(:func:`fattree.routing.route`) costs tens of microseconds each, so this walks a batch
inside numba with the same first-preference walk (``walk._walk``) and returns each
route as directed channel ids: channel ``2e`` crosses ``topo.links[e]`` from its first
vertex to its second, ``2e + 1`` back. Node links come first in ``topo.links`` (link
``i`` joins node ``i``), so ``2 * src`` is the source's injection channel and
``2 * dst + 1`` the destination's ejection channel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import ParameterError
from ..topology.core import Topology
from .compiled import CompiledRouting, compile_routing
from .walk import DELIVERED, _walk


@njit(cache=True, nogil=True)
def _walk_pairs(
    code,
    iparams,
    table,
    port_peer,
    peer_port,
    link_index,
    link_a,
    node_switch,
    n_nodes,
    src,
    dst,
    first,
    hop_limit,
    ptr,
    chan,
    pos,
    status,
):
    """Walk pairs ``first..`` writing their channels from ``chan[pos]``; stop at the first
    pair that does not fit and return (that pair, the next free position)."""
    sw_out = np.empty(hop_limit, np.int64)
    port_out = np.empty(hop_limit, np.int64)
    for i in range(first, src.shape[0]):
        s = src[i]
        d = dst[i]
        count, st = _walk(
            code,
            iparams,
            table,
            port_peer,
            peer_port,
            n_nodes,
            node_switch[s],
            s,
            d,
            i,
            hop_limit,
            sw_out,
            port_out,
        )
        if pos + 1 + count > chan.shape[0]:
            return i, pos
        ptr[i] = pos
        status[i] = st
        chan[pos] = 2 * s
        pos += 1
        if st != 0:
            continue
        for h in range(count):
            sw = sw_out[h]
            e = link_index[sw, port_out[h]]
            chan[pos] = 2 * e + (0 if link_a[e] == n_nodes + sw else 1)
            pos += 1
    ptr[src.shape[0]] = pos
    return src.shape[0], pos


class PairRouter:
    """Routes of node pairs as directed channels, set up once per network and routing.

    Parameters
    ----------
    topo : Topology
        The network.
    cr : CompiledRouting or str or None
        Compiled routing, or an algorithm name (compiled with seed 0).
    hop_limit : int, optional
        Switches visited before a walk is declared a loop (default ``4S + 8``, at most
        65,536).

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("kant:k=2,n=2")
    >>> ptr, chan, ok = PairRouter(t, None).channels(np.array([0]), np.array([3]))
    >>> (chan // 2).tolist(), bool(ok[0])
    ([0, 5, 7, 3], True)
    """

    def __init__(
        self, topo: Topology, cr: CompiledRouting | str | None, hop_limit: int | None = None
    ):
        if not isinstance(topo, Topology):
            raise ParameterError(
                f"topo={type(topo).__name__} is invalid: expected a fattree Topology"
            )
        self.topo = topo
        self.cr = cr if isinstance(cr, CompiledRouting) else compile_routing(topo, cr)
        self.limit = min(4 * topo.n_switches + 8, 1 << 16) if hop_limit is None else int(hop_limit)
        if self.limit < 1:
            raise ParameterError(f"hop_limit={hop_limit!r} is invalid: expected a positive integer")
        self._link_a = np.ascontiguousarray(topo.links[:, 0], np.int64)
        self._node_sw = np.ascontiguousarray(topo.node_switch, np.int64)
        self._guess = 8

    def channels(self, src, dst):
        """Channels of the first-preference route of each (src, dst) node pair.

        Parameters
        ----------
        src, dst : (M,) int arrays
            Node ids per pair, ``src[i] != dst[i]``.

        Returns
        -------
        ptr : (M + 1,) int64
            Pair i's channels are ``chan[ptr[i]:ptr[i + 1]]``, injection first, ejection last.
        chan : int64 array
            Directed channel ids (``2e`` along ``topo.links[e]``, ``2e + 1`` against it).
        delivered : (M,) bool
            The walk reached the destination (otherwise only the injection channel is
            listed).

        Raises
        ------
        ParameterError
            If a node id is out of range or a pair's ends are equal.
        """
        topo, cr, limit = self.topo, self.cr, self.limit
        src = np.ascontiguousarray(src, np.int64)
        dst = np.ascontiguousarray(dst, np.int64)
        N = topo.n_nodes
        if src.shape != dst.shape or src.ndim != 1:
            raise ParameterError("src and dst must be 1-D arrays of the same length")
        if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= N):
            raise ParameterError(f"src and dst must be node ids 0..{N - 1}")
        if (src == dst).any():
            raise ParameterError("a pair's source and destination must differ")
        M = src.shape[0]
        ptr = np.zeros(M + 1, np.int64)
        status = np.zeros(M, np.int64)
        chan = np.empty(M * self._guess + limit + 2, np.int64)
        done, pos = 0, 0
        while True:
            done, pos = _walk_pairs(
                cr.code,
                cr.iparams,
                cr.table,
                topo.port_peer,
                topo.port_peer_port,
                topo.link_index,
                self._link_a,
                self._node_sw,
                N,
                src,
                dst,
                done,
                limit,
                ptr,
                chan,
                pos,
                status,
            )
            if done >= M:
                break
            grown = np.empty(2 * chan.shape[0], np.int64)  # routes longer than guessed
            grown[:pos] = chan[:pos]
            chan = grown
        ptr[M] = pos
        if M:
            self._guess = max(self._guess, -(-pos // M) + 1)
        return ptr, chan[:pos], status == DELIVERED


def pair_channels(
    topo: Topology, cr: CompiledRouting | str | None, src, dst, *, hop_limit: int | None = None
):
    """Directed channels of the first-preference route of each (src, dst) node pair.

    Parameters
    ----------
    topo : Topology
        The network.
    cr : CompiledRouting or str or None
        Compiled routing, or an algorithm name (compiled with seed 0).
    src, dst : (M,) int arrays
        Distinct node ids per pair.
    hop_limit : int, optional
        Switches visited before a walk is declared a loop (default ``4S + 8``, at most
        65,536).

    Returns
    -------
    ptr : (M + 1,) int64
        Pair i's channels are ``chan[ptr[i]:ptr[i + 1]]``, injection first, ejection last.
    chan : int64 array
        Directed channel ids (``2e`` along ``topo.links[e]``, ``2e + 1`` against it).
    delivered : (M,) bool
        The walk reached the destination.

    Raises
    ------
    ParameterError
        If a node id is out of range or a pair's ends are equal.

    Examples
    --------
    >>> import fattree, numpy as np
    >>> t = fattree.build("kant:k=2,n=2")
    >>> ptr, chan, ok = pair_channels(t, None, np.array([0]), np.array([3]))
    >>> (chan // 2).tolist(), bool(ok[0])
    ([0, 5, 7, 3], True)

    References
    ----------
    docs/ARCHITECTURE.md ("The routing contract").
    """
    return PairRouter(topo, cr, hop_limit).channels(src, dst)


__all__ = ["PairRouter", "pair_channels"]
