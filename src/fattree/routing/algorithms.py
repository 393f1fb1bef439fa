"""Registrations of every routing algorithm (see docs/routing.md for the choices).

kant / clos: nearest-common-ancestor up*/down*; mikant: Algorithm 1 (000, as printed
in 001; docs/mikant-routing.md §2). The up-port policy is the only difference
between ``alg1``, ``dmodk``, ``smodk``, ``random`` and ``adaptive``; on MiKANT all of
them cross between the groups by Algorithm 1's rule at stage n-2. Then the table-based
``shortest`` / ``updown`` (any graph), the cube-tree routing of the hybrids, e-cube,
dimension order on the torus and the MIN fat-tree routings of 003.
"""

from __future__ import annotations

import numpy as np

from ..errors import ResourceError
from ..topology.families.xgft import shape as xgft_shape
from ..topology.family import available_memory
from ._balanced import balanced_table
from ._consts import (
    CODE_CLOS,
    CODE_CUBE,
    CODE_HYBRID,
    CODE_KANT,
    CODE_MIKANT,
    CODE_MIN,
    CODE_TABLE,
    CODE_XGFT,
    POL_ADAPTIVE,
    POL_ALG1,
    POL_ALLMIN,
    POL_BALANCED,
    POL_DMODK,
    POL_DMODK_BAL,
    POL_LITERAL000,
    POL_RANDOM,
    POL_SMODK,
)
from ._crossing import crossing_table
from ._hybrid import hybrid_iparams
from ._tables import _eccentricities, _shortest_table, _updown_table
from ._xgft import xgft_iparams
from .compiled import NO_TABLE, register_algorithm, tree_iparams

TREES = ("kant", "clos", "mikant")
_TREE_CODES = {"kant": CODE_KANT, "clos": CODE_CLOS, "mikant": CODE_MIKANT}
# XGFT (routing/_xgft.py): the up-port policies generalised to m_i children, w_i parents
XGFT = ("xgft",)
UPDOWN = TREES + XGFT


def _tree(policy: int):
    def compile_(topo, seed):
        if topo.family in XGFT:
            return CODE_XGFT, xgft_iparams(*xgft_shape(topo.params), policy, seed), NO_TABLE
        return _TREE_CODES[topo.family], tree_iparams(topo, policy, seed), NO_TABLE

    return compile_


register_algorithm(
    "alg1",
    title="up: digit L := T_L (Algorithm 1)",
    paper="000 Alg. 1 (001's printing)",
    families=TREES,
)(_tree(POL_ALG1))
register_algorithm(
    "dmodk",
    title="up: digit L := T_{L-1} (destination mod k)",
    paper="BookSim/Zahavi d-mod-k; Rodriguez et al. 2009 (XGFT)",
    families=UPDOWN,
    default_for=("kant", "clos") + XGFT,
)(_tree(POL_DMODK))
register_algorithm(
    "smodk",
    title="up: digit L := S_{L-1} (source mod k)",
    paper="s-mod-k",
    families=UPDOWN,
    per_packet=True,
)(_tree(POL_SMODK))
register_algorithm(
    "random",
    title="up: a random port per packet and level",
    paper="BookSim 'nca'",
    families=UPDOWN,
    support="adaptive",
    per_packet=True,
)(_tree(POL_RANDOM))
register_algorithm(
    "adaptive",
    title="up: every minimal port, simulator picks",
    paper="BookSim 'anca'; 001 §4.1",
    families=UPDOWN,
    adaptive=True,
)(_tree(POL_ADAPTIVE))
register_algorithm(
    "minimal-all",
    title="every minimal hop, any root (2 VCs)",
    paper="docs/mikant-routing.md §6 (1 VC: cycle)",
    families=("mikant",),
    adaptive=True,
    vcs_required=2,
)(_tree(POL_ALLMIN))


@register_algorithm(
    "dmodk-bal",
    title="dmodk, root crossings spread (1 VC)",
    paper="this project (docs/routing.md)",
    families=("mikant",),
)
def _dmodk_bal(topo, seed):
    """d-mod-k going up; a root crossing from root y to root t goes through the other
    group's root f[y, t] of :func:`~fattree.routing._crossing.crossing_table`."""
    table = crossing_table(int(topo.params["k"])).ravel()
    return CODE_MIKANT, np.concatenate([tree_iparams(topo, POL_DMODK_BAL, seed), table]), NO_TABLE


@register_algorithm(
    "balanced",
    title="dmodk, root crossings split by a destination digit (1 VC)",
    paper="this project (docs/routing.md)",
    families=("mikant",),
    default_for=("mikant",),
)
def _balanced(topo, seed):
    """d-mod-k going up; a root crossing from root y to root t goes through the other
    group's root f[g, y, t, h] of :func:`~fattree.routing._balanced.balanced_table`
    (h: a destination digit d-mod-k leaves free): the cross channels carry the even
    split's loads with one VC."""
    table = balanced_table(int(topo.params["k"])).ravel()
    return CODE_MIKANT, np.concatenate([tree_iparams(topo, POL_BALANCED, seed), table]), NO_TABLE


register_algorithm(
    "alg1-literal-000",
    title="000's printing taken literally (loops)",
    paper="000 Alg. 1; docs/mikant-routing.md §2.1",
    families=("mikant",),
    minimal=False,
    demo=True,
)(_tree(POL_LITERAL000))

# A next-hop table holds one int32 per (switch, node); refuse beyond this.
TABLE_LIMIT_BYTES = 1 << 30


def _node_lists(topo):
    order = np.argsort(topo.node_switch, kind="stable").astype(np.int64)
    ptr = np.zeros(topo.n_switches + 1, np.int64)
    np.add.at(ptr, topo.node_switch.astype(np.int64) + 1, 1)
    np.cumsum(ptr, out=ptr)
    return ptr, order


def _new_table(topo, name):
    need = 4 * topo.n_switches * topo.n_nodes
    limit = min(TABLE_LIMIT_BYTES, available_memory() // 4)
    if need > limit:
        raise ResourceError(
            f"algorithm={name!r} needs a {topo.n_switches:,} x {topo.n_nodes:,} next-hop table "
            f"({need / 2**20:,.0f} MiB, limit {limit / 2**20:,.0f} MiB) on {topo.spec}; "
            f"use a rule-based algorithm ({'alg1' if topo.family in TREES else 'a family rule'}) "
            f"or a smaller instance"
        )
    return np.full((topo.n_switches, topo.n_nodes), -1, np.int32)


def _peer(topo):
    return np.ascontiguousarray(topo.port_peer, np.int32)


@register_algorithm("shortest", title="shortest path, lowest port (table)", paper="generic (BFS)")
def _shortest(topo, seed):
    """Deterministic shortest paths: at each switch the lowest port one hop closer."""
    table = _new_table(topo, "shortest")
    ptr, lst = _node_lists(topo)
    _shortest_table(_peer(topo), topo.n_nodes, ptr, lst, topo.node_port.astype(np.int64), table)
    return CODE_TABLE, np.array([0, 0, 0, seed], np.int64), table


def updown_root(topo) -> int:
    """Root of the up*/down* tree: highest level, then smallest eccentricity, then id
    (the eccentricities of the highest level's switches only)."""
    level = topo.switch_level.astype(np.int64)
    top = np.flatnonzero(level == level.max()).astype(np.int64)
    ecc = _eccentricities(_peer(topo), topo.n_nodes, top)
    return int(top[np.lexsort((top, ecc))[0]])


@register_algorithm(
    "updown",
    title="up*/down* on a BFS tree (table)",
    paper="Autonet (Schroeder 1991)",
    minimal=False,
)
def _updown(topo, seed):
    """Up*/down* routing; the root is :func:`updown_root`."""
    table = _new_table(topo, "updown")
    ptr, lst = _node_lists(topo)
    root = updown_root(topo)
    _updown_table(_peer(topo), topo.n_nodes, root, ptr, lst, topo.node_port.astype(np.int64), table)
    return CODE_TABLE, np.array([0, 0, 0, seed, root], np.int64), table


def _cube(topo, seed, dateline):
    m = topo.meta
    ip = np.zeros(8, np.int64)
    ip[0], ip[1], ip[2], ip[3] = m["radix_k"], m["dims"], dateline, seed
    ip[4], ip[5] = m["nodes_per_switch"], m["ports_per_dim"]
    return CODE_CUBE, ip, NO_TABLE


@register_algorithm(
    "ecube",
    title="e-cube: lowest differing dimension first",
    paper="Sullivan & Bashkow 1977",
    families=("hypercube",),
    default_for=("hypercube",),
)
def _ecube(topo, seed):
    """Dimension-order routing on the binary hypercube."""
    return _cube(topo, seed, 0)


@register_algorithm(
    "dor",
    title="dimension order, shorter way, dateline VCs",
    paper="Dally & Seitz 1987; 002",
    families=("torus",),
    default_for=("torus",),
    vcs_required=2,
)
def _dor(topo, seed):
    """Dimension-order routing on the torus: VC 1 after the wrap-around link of a ring."""
    return _cube(topo, seed, 1 if topo.meta["ports_per_dim"] == 2 else 0)


HYBRIDS = ("cat", "micat", "kantc", "mikantc")


@register_algorithm(
    "cube-tree",
    title="cube to the nearest intermediate, Algorithm 1, cube",
    paper="001 §2; 004 §3.1-3.2",
    families=HYBRIDS,
    default_for=HYBRIDS,
)
def _cube_tree(topo, seed):
    """Dimension order (lowest bit first) to the nearest intermediate switch, Algorithm 1
    between the intermediate positions, dimension order to the destination corner."""
    # with k >= 5 intermediates per cube the cube hops towards an intermediate and those
    # towards the destination close cycles (KANTC(5,2), (6,3), (8,2) ...): two VC classes
    two = topo.meta["intermediate_codes"].size >= 5
    return (
        CODE_HYBRID,
        hybrid_iparams(topo, int(two), seed),
        NO_TABLE,
        {"vcs_required": 2 if two else 1},
    )


def _min(topo, seed, lateral):
    m = topo.meta
    return CODE_MIN, np.array([m["n"], m["rows"], lateral, seed, m["columns"]], np.int64), NO_TABLE


@register_algorithm(
    "summit",
    title="straight up to the routing summit, then down",
    paper="003 §3.1 (Bouhraoua & Elrabaa)",
    families=("minft",),
    default_for=("minft",),
)
def _summit(topo, seed):
    """Bouhraoua's MIN fat-tree routing: straight links up until the router whose reach
    range holds the destination, then down."""
    return _min(topo, seed, 0)


@register_algorithm(
    "partial-group",
    title="two halves: other half via the top row (= summit's paths)",
    paper="003 §3.2 (Biswas et al.)",
    families=("minft",),
)
def _partial_group(topo, seed):
    """Partial group based routing: a packet for the other half goes straight to the top
    row. The summit of such a packet is the top row anyway, so the paths are summit's;
    the grouping saves range computations in the routers, not hops (docs/routing.md)."""
    return _min(topo, seed, 0)


@register_algorithm(
    "lateral",
    title="lateral link when it reaches the destination, then only down",
    paper="003 §4.3",
    families=("rsminft",),
    default_for=("rsminft",),
)
def _lateral(topo, seed):
    """Reduced-switch MIN fat tree: up (setting bit r to the destination's), across a
    lateral link as soon as it lands in the destination's reach range, then down."""
    return _min(topo, seed, 1)
