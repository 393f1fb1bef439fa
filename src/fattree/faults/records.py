"""Result records of the fault engines (``ft_deadlock``, ``explain_route``; one for every
family) and the shortest-cycle search of :mod:`fattree.faults.cdg`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

__all__ = ["FTDeadlockReport", "FTExplanation", "shortest_cycle"]


@njit(cache=True)
def shortest_cycle(port_peer, n_nodes, V, adj, seeds):
    """The shortest cycle through any channel of ``seeds`` (BFS from each), as channel ids."""
    S, R = port_peer.shape
    C, RV = S * R * V, R * V
    dist = np.full(C, -1, np.int64)
    parent = np.full(C, -1, np.int64)
    queue = np.empty(C, np.int64)
    best = np.empty(0, np.int64)
    for root in seeds:
        dist[:] = -1
        dist[root], queue[0] = 0, root
        head, tail, found = 0, 1, -1
        while head < tail and found < 0:
            c = queue[head]
            head += 1
            if best.size and dist[c] + 1 >= best.size:
                break
            v = port_peer[(c // V) // R, (c // V) % R]
            if v < n_nodes:
                continue
            base = (v - n_nodes) * RV
            for j in range(RV):
                if not adj[c, j]:
                    continue
                d = base + j
                if d == root:
                    found = c
                    break
                if dist[d] < 0:
                    dist[d] = dist[c] + 1
                    parent[d] = c
                    queue[tail] = d
                    tail += 1
        if found >= 0:
            m = dist[found] + 1
            cyc = np.empty(m, np.int64)
            x = found
            for i in range(m - 1, -1, -1):
                cyc[i] = x
                x = parent[x]
            best = cyc
    return best


@dataclass
class FTDeadlockReport:
    """Result of :func:`ft_deadlock` (one algorithm, one fault set).

    ``delivered`` routes of the algorithm; ``refused`` of them need more VC classes than
    ``vcs`` under the escape rule and are left out of the graph (the deadlock-free variant
    does not route them); ``classes[j]``: routes in the graph whose highest class is j;
    ``classes_bound``: classes that suffice under any faults (:func:`classes_bound`).
    """

    spec: str
    algorithm: str
    model: str
    vcs: int
    vc_rule: str
    faulty_links: int
    acyclic: bool
    channels: int
    dependencies: int
    pairs: int
    delivered: int
    not_delivered: int
    refused: int
    classes: list[int]
    cycle: list[str] = field(default_factory=list)
    cycle_ids: list[int] = field(default_factory=list)
    routes: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    classes_bound: int | None = None
    layers_needed: int | None = None  # generic algorithms: up*/down* turn layers needed

    @property
    def classes_needed(self) -> int:
        """VC classes the delivered routes use (1 + their most turns); 0 if none."""
        nz = [i for i, c in enumerate(self.classes) if c]
        return nz[-1] + 1 if nz else 0

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["classes_needed"] = self.classes_needed
        return d


@dataclass(frozen=True)
class FTExplanation:
    """A route under faults: the walk, one row per switch, and the events that shaped it."""

    algorithm: str
    model: str
    src: str | None
    dst: str
    success: bool
    status: str
    path: list[str]
    switches: list[str]
    ports: list[int]
    hops: int
    rows: list[dict]
    events: list[dict]
    faulty_links: list[list[str]] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = self.__dict__ | {"delivered": self.success, "hop_rules": self.rows}
        return {k: d[k] for k in _EXPLANATION_KEYS}


# the key order of route --faults --json
_EXPLANATION_KEYS = (
    "algorithm model src dst success delivered status path switches ports hops hop_rules "
    "events faulty_links"
).split()
