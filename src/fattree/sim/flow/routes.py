"""Routes of messages as directed channels, rerouted around failed links (:class:`_Router`)."""

from __future__ import annotations


import numpy as np

from ...errors import ParameterError
from ...topology import Topology
from .config import FlowConfig


class _Router:
    """Routes of node pairs as directed channels, rerouted around failed links."""

    def __init__(self, topo: Topology, cfg: FlowConfig) -> None:
        from ...routing import compile_routing
        from ...routing.paths import PairRouter

        self.topo = topo
        self.cr = compile_routing(topo, cfg.algorithm, cfg.seed)
        self.walker = PairRouter(topo, self.cr)
        self.faulty = None
        self.ft = ""
        if cfg.fault_rate > 0:
            from ...faults import random_faults
            from ...faults.rules import default_ft_algorithm

            self.faulty = np.asarray(random_faults(topo, cfg.fault_rate, cfg.seed), bool)
            self.ft = cfg.fault_algorithm or default_ft_algorithm(topo.family)
            from ...faults import resolve_algorithms

            (alg,) = resolve_algorithms([self.ft], topo.family)  # a bad name: refused now
            if alg.is_oracle:
                raise ParameterError(
                    f"fault_algorithm={self.ft!r} is invalid: the oracle is a bound, not a "
                    "route; give a fault-tolerant routing algorithm"
                )
            self._ft()  # set up once, before the phases' threads start

    def paths(self, src: np.ndarray, dst: np.ndarray):
        ptr, chan, ok = self.walker.channels(src, dst)
        if self.faulty is None or not self.faulty.any():
            return ptr, chan, ok
        hit = self.faulty[chan // 2]
        owner = np.repeat(np.arange(len(src)), np.diff(ptr))
        bad = np.unique(owner[hit])
        bad = np.union1d(bad, np.flatnonzero(~ok))
        if bad.size == 0:
            return ptr, chan, ok
        return self._reroute(ptr, chan, ok, src, dst, bad)

    def _ft(self):
        """One route function for the run: the generic engine's router is set up once
        (its setup, not its walks, is the costly part); a paper walk goes through the
        walk loop (``faults/walkloop.py`` ``walk_route``). Returns ``(src, dst) -> (switches, ports) or None``."""
        if getattr(self, "_ft_fn", None) is not None:
            return self._ft_fn
        from ...faults import resolve_algorithms
        from ...faults.hooks import OK
        from ...faults.walkloop import walk_route
        from ...faults.walks import walk_of

        topo = self.topo
        (alg,) = resolve_algorithms([self.ft], topo.family)
        if not alg.walked_on(topo.family):
            from ...faults.gwalk import GenericRouter

            g = GenericRouter(topo, alg, self.faulty)

            def fn(a, b):
                st, _, sws, ports, _ = g.route(a, b)
                return (sws.tolist(), ports.tolist()) if st == 0 else None

        else:  # the family's paper walk, through the walk loop (as ft_route)
            walk = walk_of(topo.family)
            stamp = self.faulty.astype(np.int64)

            def fn(a, b):
                st, _, nsw, sws, ports = walk_route(
                    walk, topo, alg.flags, False, a, -1, b, stamp, "dimension", 0, 0, None
                )
                return (sws[:nsw].tolist(), ports[:nsw].tolist()) if st == OK else None

        self._ft_fn = fn
        return fn

    def _reroute(self, ptr, chan, ok, src, dst, bad):
        topo = self.topo
        N = topo.n_nodes
        lens = np.diff(ptr)
        pieces = {}
        ok = ok.copy()
        fn = self._ft()
        for i in bad.tolist():
            hit = fn(int(src[i]), int(dst[i]))
            if hit is None:
                ok[i] = False
                pieces[i] = np.array([2 * int(src[i])], np.int64)
                continue
            ch = [2 * int(src[i])]
            for sw, port in zip(*hit):
                e = int(topo.link_index[sw, port])
                ch.append(2 * e + (0 if topo.links[e, 0] == N + sw else 1))
            ok[i] = True
            pieces[i] = np.array(ch, np.int64)
        for i, arr in pieces.items():
            lens[i] = len(arr)
        new_ptr = np.zeros(len(src) + 1, np.int64)
        np.cumsum(lens, out=new_ptr[1:])
        new_chan = np.empty(int(new_ptr[-1]), np.int64)
        keep = np.ones(len(src), bool)
        keep[bad] = False
        # copy the untouched routes in one vectorised gather
        kl = np.diff(ptr)[keep]
        src_pos = np.repeat(ptr[:-1][keep], kl) + (
            np.arange(kl.sum()) - np.repeat(np.cumsum(kl) - kl, kl)
        )
        dst_pos = np.repeat(new_ptr[:-1][keep], kl) + (
            np.arange(kl.sum()) - np.repeat(np.cumsum(kl) - kl, kl)
        )
        new_chan[dst_pos] = chan[src_pos]
        for i, arr in pieces.items():
            new_chan[new_ptr[i] : new_ptr[i + 1]] = arr
        return new_ptr, new_chan, ok


def _link_label(topo: Topology, c: int) -> str:
    if c < 0:
        return "-"
    a, b = (int(x) for x in topo.links[c // 2])
    if c % 2:
        a, b = b, a
    return f"{topo.vertex_label(a)} -> {topo.vertex_label(b)}"
