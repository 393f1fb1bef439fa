"""A workload in the booksim model: the closed-loop run of :func:`fattree.sim.simulate_workload`
with ``model="booksim"``.

The kernel is the booksim model's own (:mod:`fattree.sim.booksim.kernel`: BookSim2's
iq router, credit loops, iSLIP allocation, its routing ``nca`` or ``min``); its node phase
takes its packets from the workload's closed-loop state
(:mod:`fattree.sim.closedloop`, through :mod:`fattree.sim.booksim.closed`) instead of
Bernoulli creation. There is no warm-up or sampling: every packet counts, and the run
ends when the schedule has completed or nothing can move any more. docs/workloads.md
("The BookSim2 model").
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..closedloop import closed_view, grow_pool, start
from ..layout import K_T as PAPERS_K_T
from ..layout import ST_CHUNK
from . import kernel as K
from .closed import NEVER, bcl
from .model import _first_state, _Sim, booksim_traffic
from .routes import booksim_net

CHUNK = 20_000  # cycles per kernel call


def hop_cycles(cfg) -> int:
    """Cycles a head flit spends per router beyond its one cycle on each channel:
    BookSim2's channel (latency 1) is read two cycles after the send, and the router
    routes (``routing_delay``) and allocates in the cycle it reads the flit.

    Parameters
    ----------
    cfg : SimConfig

    Returns
    -------
    int

    Examples
    --------
    >>> from fattree.sim import SimConfig
    >>> hop_cycles(SimConfig(model="booksim"))
    2
    """
    return 2 + int(cfg.routing_delay or 0)


def run_workload(topo, w, cfg, packet_bytes: int, hz: float, progress=None, keep=None):
    """Run workload ``w`` closed loop in the booksim kernel.

    Parameters
    ----------
    topo : Topology
    w : Workload
        Bound to ``topo`` (its ``placement``).
    cfg : SimConfig
        ``model="booksim"``; no faults (refused by the caller).
    packet_bytes : int
        Bytes a packet carries (``packet_flits`` x the flit size).
    hz : float
        The clock (a calc's cycles).
    progress : callable, optional
        ``progress(cycle, cap)`` between kernel chunks.
    keep : array of int, optional
        Ranks whose operations the timeline keeps (default: all).

    Returns
    -------
    tuple
        ``(state, routing, status)`` for :func:`fattree.sim.workload._result`: ``state``
        has the closed-loop view ``wl`` and the cycle counter ``cnt``; ``routing`` the
        registered routing the booksim model laid out (``booksim-nca`` or ``booksim-min``).

    References
    ----------
    BookSim2 commit 28f4329 (``src/trafficmanager.cpp``, ``src/routers/iq_router.cpp``);
    docs/booksim.md.
    """
    net = booksim_net(topo, seed=cfg.seed)
    traffic = booksim_traffic(topo, "uniform", cfg.seed)  # (bound, never drawn from)
    R0 = topo.max_ports
    view = start(
        closed_view(w, topo.n_nodes, topo.n_switches * R0, packet_bytes, 1.0 / hz, 1, keep)
    )
    probe = bcl(view, R0, 1)
    sim = _Sim(topo, cfg, net, traffic, 0.5, wl=probe)
    R = int(sim.args[0].cfg[K.C_R])
    sim.wl = bcl(grow_pool(view, len(sim.args[4].pk)), R0, R)
    nd, st = sim.args[2], sim.args[5]
    nd.nnext[:] = NEVER  # no Bernoulli source: a node is due when a send starts
    nd.nvis[:] = 0
    nd.chead[:] = -1
    st.rng[0] = _first_state(cfg.seed)  # (nca's random up ports)
    c = sim.cnt
    c[K.K_STATE] = K.RUNNING
    cap = cfg.max_cycles if cfg.max_cycles is not None else 2**31 - 16
    status = K.ST_STOP
    while int(c[K.K_T]) < cap:
        status = sim.step(min(CHUNK, cap - int(c[K.K_T])))
        if status == K.ST_DONE:
            break
        if progress is not None:
            progress(int(c[K.K_T]), cap)
    cnt = np.zeros(PAPERS_K_T + 1, np.int64)
    cnt[PAPERS_K_T] = int(c[K.K_T])
    state = SimpleNamespace(wl=sim.wl.w, cnt=cnt, compile_s=sim.load_seconds)
    return state, net.compiled, ST_CHUNK


__all__ = ["run_workload", "hop_cycles"]
