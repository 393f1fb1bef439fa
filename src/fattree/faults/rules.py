"""Per-family fault rules of the generic kernel (``FAMILY_RULES``: the routing followed,
the one listing minimal ports, the default algorithm) and its routing context."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..registry import Registry
from ..routing import compile_routing
from ..topology import Topology
from .generic import RouteContext, route_length


@dataclass(frozen=True)
class FamilyRules:
    """How the generic fault-tolerant kernel routes a family."""

    routing: str | None = None  # deterministic routing (None: the family's default)
    candidates: str | None = None  # routing listing the minimal ports (None: by distance)
    default: str = "detour"  # the family's default fault-tolerant algorithm
    # on one VC: "none" (detours may close a channel cycle, reported) or "updown" (a route
    # with a down->up turn of the up*/down* orientation is refused: deadlock-free)
    one_vc: str = "none"


FAMILY_RULES: Registry[FamilyRules] = Registry("family fault rules")
for _fam in ("kant", "clos", "xgft"):
    # d-mod-k on healthy ports (Algorithm 1 would send a leaf's traffic through one
    # ancestor chain), any healthy up port to an NCA, one VC without down-and-up detours
    FAMILY_RULES.add(_fam, FamilyRules("dmodk", "adaptive", "detour", "updown"))
# MiKANT/MiKANTC: the paper walks have their own engine; the per-hop rules follow these
FAMILY_RULES.add("mikant", FamilyRules("balanced", None, "escape"))
FAMILY_RULES.add("mikantc", FamilyRules("cube-tree", None, "cube+escape"))
FAMILY_RULES.add("graph", FamilyRules("shortest", None, "detour"))


def rules_for(family: str) -> FamilyRules:
    """The family's entry of :data:`FAMILY_RULES` (the generic one when it has none)."""
    return FAMILY_RULES.get(family) if family in FAMILY_RULES else FamilyRules()


def one_vc_layered(family: str) -> bool:
    """Whether the generic rules of ``family`` refuse, on one VC, the routes that need a
    second up*/down* turn layer (:attr:`FamilyRules.one_vc`; Autonet)."""
    return rules_for(family).one_vc == "updown"


def default_ft_algorithm(family: str) -> str:
    """Name of the family's default fault-tolerant algorithm (``--fault-rate`` alone)."""
    return rules_for(family).default


@dataclass(frozen=True, eq=False)
class FTContext:
    """The generic kernel's routing context ``rt`` for one topology and its walk bounds."""

    rt: RouteContext
    routing: str
    candidates: str
    diameter: int  # longest fault-free route from a sample of switches (links)
    budget: int  # misroutes of ``detour``
    ttl: int  # hop limit of every walk
    minimal: bool  # the routing is minimal (a walk of its length is optimal)


@njit(cache=True)
def _max_length(rt, sws, N, cap):
    buf = np.empty(rt.port_peer.shape[1] + 1, np.int64)
    m = 0
    for s in sws:
        for t in range(N):
            m = max(m, route_length(rt, s, t, cap, buf))
    return m


def context(topo: Topology, seed: int = 0) -> FTContext:
    """The generic kernel's :class:`FTContext` for ``topo`` (docs/faults.md)."""
    fr = rules_for(topo.family)
    cr = compile_routing(topo, fr.routing, seed=seed)
    cc = cr if fr.candidates is None else compile_routing(topo, fr.candidates, seed=seed)
    cmode = 1 if fr.candidates is None else 0  # 1: ports one hop closer by cr's lengths
    cname = f"ports one hop closer by {cr.algorithm}" if cmode else cc.algorithm
    N, S = topo.n_nodes, topo.n_switches
    codes = [x for r in (cr, cc) for x in (np.int64(r.code), r.iparams, r.table)]
    net = (topo.port_peer, topo.link_index, np.int64(N), topo.node_switch.astype(np.int64))
    rt = RouteContext(*codes, np.int64(cmode), *net)
    sample = np.unique(
        np.concatenate([topo.node_switch[:: max(1, N // 8)], np.array([0, S // 2, S - 1])])
    ).astype(np.int64)
    dmax = int(_max_length(rt, sample, N, 4 * S + 16)) + 1  # + the source's node link
    budget = max(2, dmax)
    ttl = 4 * dmax + 8 + budget * (dmax + 4)
    return FTContext(rt, cr.algorithm, cname, dmax, budget, ttl, bool(cr.minimal))
