"""Per-family fault rules of the generic kernel: which routing algorithms it builds on.

``FAMILY_RULES`` (family → :class:`FamilyRules`) says which deterministic routing a
fault-tolerant algorithm follows while its port is healthy, which routing lists the
minimal alternatives (an adaptive algorithm of ``fattree.routing``; ``None``: every
port one hop closer by the deterministic routing's fault-free length, which needs no
family code) and the family's default fault-tolerant algorithm (``--fault-rate``
alone). A family without an entry (a new one, e.g. XGFT) gets the generic entry:
its default routing, minimal ports by distance, ``detour``.
"""

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
    candidates: str | None = None  # adaptive routing listing minimal ports (None: by distance)
    default: str = "detour"  # the family's default fault-tolerant algorithm
    # VC rule of the generic algorithms on one VC: "none" (every hop on VC 0; detours may
    # close a channel cycle, reported) or "updown" (a route with a down->up turn of the
    # up*/down* orientation is refused: every admitted route is up*/down*, deadlock-free
    # on one VC; on a fat tree the orientation is the tree's own, so only detours that
    # go down and up again are refused). More VCs: up*/down* turn layers everywhere.
    one_vc: str = "none"


FAMILY_RULES: Registry[FamilyRules] = Registry("family fault rules")
for _fam in ("kant", "clos", "xgft"):
    # the standard fat-tree fault tolerance: d-mod-k on healthy ports (the family's
    # balanced deterministic routing; Algorithm 1 would send all the traffic to one leaf's
    # nodes through one ancestor chain, a bound near 1/k), any healthy up port to an NCA
    # (adaptive's candidates, spread by destination when d-mod-k's is faulty), and a
    # detour (back up, or down and up) to another ancestor; deadlock-free on one VC by
    # refusing the down-and-up detours there (they need a second VC class)
    FAMILY_RULES.add(_fam, FamilyRules("dmodk", "adaptive", "detour", "updown"))
# MiKANT: 001's walks follow Algorithm 1 (their own engine); the generic per-hop rules
# (minimal, detour) follow balanced, the family's default routing: Algorithm 1 sends a
# leaf's traffic to one destination through one ancestor chain (a bound near 1/k)
FAMILY_RULES.add("mikant", FamilyRules("balanced", None, "escape"))
FAMILY_RULES.add("mikantc", FamilyRules("cube-tree", None, "cube+escape"))
FAMILY_RULES.add("graph", FamilyRules("shortest", None, "detour"))


def rules_for(family: str) -> FamilyRules:
    """The family's entry of :data:`FAMILY_RULES` (the generic one when it has none)."""
    return FAMILY_RULES.get(family) if family in FAMILY_RULES else FamilyRules()


def one_vc_layered(family: str) -> bool:
    """Whether the generic fault-tolerant algorithms of ``family`` apply the up*/down*
    turn rule on one VC (:attr:`FamilyRules.one_vc`): the simulator refuses, and
    ``deadlock --faults`` leaves out, the routes that need a second VC class.

    Examples
    --------
    >>> one_vc_layered("kant"), one_vc_layered("hypercube")
    (True, False)

    References
    ----------
    docs/faults-families.md ("Deadlock under faults"); Schroeder et al., Autonet (1991).
    """
    return rules_for(family).one_vc == "updown"


def default_ft_algorithm(family: str) -> str:
    """Name of the family's default fault-tolerant algorithm (``--fault-rate`` alone).

    Examples
    --------
    >>> default_ft_algorithm("kant"), default_ft_algorithm("mikant")
    ('detour', 'escape')

    References
    ----------
    docs/faults.md ("Every family").
    """
    return rules_for(family).default


@dataclass(frozen=True, eq=False)
class FTContext:
    """The routing context of the generic kernel for one topology (``rt`` of
    :mod:`fattree.faults.generic`) and its walk bounds."""

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
            h = route_length(rt, s, t, cap, buf)
            if h > m:
                m = h
    return m


def _code(r):
    """A compiled routing's (code, iparams, table) in a :class:`RouteContext`."""
    return np.int64(r.code), r.iparams, r.table


def context(topo: Topology, seed: int = 0) -> FTContext:
    """Build the generic kernel's routing context for ``topo``.

    Examples
    --------
    >>> import fattree
    >>> c = context(fattree.build("kant:k=2,n=3"))
    >>> c.routing, c.candidates, c.diameter
    ('dmodk', 'adaptive', 6)

    References
    ----------
    docs/faults.md ("Every family"); docs/ARCHITECTURE.md (routing contract).
    """
    fr = rules_for(topo.family)
    cr = compile_routing(topo, fr.routing, seed=seed)
    cc = cr if fr.candidates is None else compile_routing(topo, fr.candidates, seed=seed)
    cmode = 1 if fr.candidates is None else 0  # 1: ports one hop closer by cr's lengths
    cname = f"ports one hop closer by {cr.algorithm}" if cmode else cc.algorithm
    N, S = topo.n_nodes, topo.n_switches
    net = (topo.port_peer, topo.link_index, np.int64(N), topo.node_switch.astype(np.int64))
    rt = RouteContext(*_code(cr), *_code(cc), np.int64(cmode), *net)
    sample = np.unique(
        np.concatenate([topo.node_switch[:: max(1, N // 8)], np.array([0, S // 2, S - 1])])
    ).astype(np.int64)
    big = 4 * S + 16
    dmax = int(_max_length(rt, sample, N, big)) + 1  # + the source's node link
    budget = max(2, dmax)
    ttl = 4 * dmax + 8 + budget * (dmax + 4)
    return FTContext(rt, cr.algorithm, cname, dmax, budget, ttl, bool(cr.minimal))
