"""MiKANTC routing and link-fault tolerance (004 §3–4): vectors, slow reference, Monte Carlo."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fattree
from fattree.cli import main as cli_main
from fattree.errors import ParameterError
from fattree.faults import ft_route
from fattree.faults.algorithms import FT_ALGORITHMS, resolve_algorithms
from fattree.faults.links import link_between
from fattree.faults.mikantc import cube_tables, fault_free_lengths
from fattree.faults.montecarlo import draw_trial, evaluate

PAPER = ("sp", "cube", "gns+xt+gdl", "cube+gns+xt+gdl")


@pytest.fixture(scope="module")
def m33():
    return fattree.build("mikantc:k=3,n=3")


def _link(t, a, b):
    e = link_between(t, t.find(a), t.find(b))
    assert e >= 0, (a, b)
    return e


# ---------------------------------------------------------------- route vectors
# 004 prints no route with numbers; each vector applies one sentence of 004 §3–4 to concrete
# labels (derived by hand from the rule quoted in "source", docs/faults-mikantc.md).
VECTORS = [
    {
        "id": "004-sec3.1-same-switch",
        "k": 3,
        "n": 3,
        "algorithm": "sp",
        "source": "004 §3.1: 'If the source and destination nodes are located within the same "
        "switch of a cube, the packet will be transmitted directly from the source node "
        "to the target node.'",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n0.0.0.0.0.1.2",
        "faulty": [],
        "expected": {
            "success": True,
            "switches": ["s0.0.0.0.0.0.1"],
            "ports": [2],
            "path_length": 2,
        },
    },
    {
        "id": "004-Alg1-same-cube",
        "k": 3,
        "n": 3,
        "algorithm": "sp",
        "source": "004 Algorithm 1, last branch: a packet in the same group and cube is sent to "
        "D via the cube ('send network data to D via Link_P'); dimension order flips "
        "bits 0, 1, 2 of corner 001 to reach 110 (derived)",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n0.0.1.1.1.0.0",
        "faulty": [],
        "expected": {
            "success": True,
            "ports": [3, 1, 2, 0],
            "path_length": 5,
            "switches": ["s0.0.0.0.0.0.1", "s0.0.0.0.0.0.0", "s0.0.0.1.0.1.0", "s0.0.0.1.1.1.0"],
        },
    },
    {
        "id": "004-sec3.2-different-groups",
        "k": 3,
        "n": 3,
        "algorithm": "sp",
        "source": "004 §3.2: 'if the present switch and the destination switch belong to "
        "different groups, the network data will first be transferred to the n − 2 "
        "layer of the G_D via the present switch. Then, it will be passed along from the "
        "n − 2 layer of the G_D to the destination switch' (through the SIS, §3.1)",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n1.0.0.0.0.1.0",
        "faulty": [],
        "expected": {
            "success": True,
            "ports": [3, 3, 3, 0, 0, 0],
            "path_length": 7,
            "switches": [
                "s0.0.0.0.0.0.1",
                "s0.0.0.0.0.0.0",
                "s0.1.0.0.0.0.0",
                "s1.1.0.0.0.0.0",
                "s1.0.0.0.0.0.0",
                "s1.0.0.0.0.0.1",
            ],
        },
    },
    {
        "id": "004-sec3.1-same-group-other-cube",
        "k": 3,
        "n": 3,
        "algorithm": "sp",
        "source": "004 §3.2: 'In the case where the present switch and the destination switch "
        "are part of the same group, the routing protocol of MiKANTC is equivalent to "
        "that of KANTC' (SIS, up to a nearest common ancestor, down to the DIS); in "
        "MiKANTC(3,3) the common ancestors are the other group's top stage",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n0.1.0.0.0.1.0",
        "faulty": [],
        "expected": {
            "success": True,
            "path_length": 8,
            "switches": [
                "s0.0.0.0.0.0.1",
                "s0.0.0.0.0.0.0",
                "s0.1.0.0.0.0.0",
                "s1.1.1.0.0.0.0",
                "s0.1.1.0.0.0.0",
                "s0.0.1.0.0.0.0",
                "s0.0.1.0.0.0.1",
            ],
        },
    },
    {
        "id": "004-sec2.2-crossing-MiKANTC(3,4)",
        "k": 3,
        "n": 4,
        "algorithm": "sp",
        "source": "004 §2.2: 'the switch P: <0,2,1,1,0,0,0,0> is connected to switches "
        "<1,2,0,1,0,0,0,0>, <1,2,1,1,0,0,0,0>, and <1,2,2,1,0,0,0,0>'; §3.1: P sends "
        "to N with 'P_LP being changed to D_LP' (T_2 := 2 for a destination with T_2 = 2)",
        "start": "s0.2.1.1.0.0.0.0",
        "dst": "n1.2.1.0.0.0.1.0",
        "faulty": [],
        "expected": {
            "success": True,
            "path_length": 5,
            "ports": [5, 1, 0, 0, 0],
            "switches": [
                "s0.2.1.1.0.0.0.0",
                "s1.2.2.1.0.0.0.0",
                "s1.1.2.1.0.0.0.0",
                "s1.0.2.1.0.0.0.0",
                "s1.0.2.1.0.0.0.1",
            ],
        },
    },
    # --- Algorithm 1 under faults
    {
        "id": "004-Alg1-hypercube-multipath",
        "k": 3,
        "n": 3,
        "algorithm": "cube",
        "source": "004 Algorithm 1: 'if Link_P is faulty then use multipath of hypercube via "
        "Link_T'; the next shortest-path dimension (1) replaces dimension 0",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n0.0.1.1.1.0.0",
        "faulty": [["s0.0.0.0.0.0.1", "s0.0.0.0.0.0.0"]],
        "expected": {
            "success": True,
            "path_length": 5,
            "switches": ["s0.0.0.0.0.0.1", "s0.0.0.1.0.1.1", "s0.0.0.1.0.1.0", "s0.0.0.1.1.1.0"],
        },
    },
    {
        "id": "004-Alg1-sp-fails-at-the-fault",
        "k": 3,
        "n": 3,
        "algorithm": "sp",
        "source": "same faults, no fault handling: the first faulty link ends the route",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n0.0.1.1.1.0.0",
        "faulty": [["s0.0.0.0.0.0.1", "s0.0.0.0.0.0.0"]],
        "expected": {
            "success": False,
            "failure": "no applicable detour",
            "switches": ["s0.0.0.0.0.0.1"],
        },
    },
    {
        "id": "004-Alg1-go-neighbor",
        "k": 3,
        "n": 3,
        "algorithm": "cube+gns+xt+gdl",
        "source": "004 Algorithm 1: 'send network data to D+_LP via Link_P; if Link_P is faulty "
        "then use Go-Neighbor to P_N via Link_T'; 001 §4.2.1's example carried over to "
        "the tree digits (spec §3.1: down x ≠ W_0, straight up, cross)",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n1.0.0.0.0.1.0",
        "faulty": [["s0.1.0.0.0.0.0", "s1.1.0.0.0.0.0"]],
        "expected": {
            "success": True,
            "path_length": 9,
            "switches": [
                "s0.0.0.0.0.0.1",
                "s0.0.0.0.0.0.0",
                "s0.1.0.0.0.0.0",
                "s0.0.0.1.0.1.0",
                "s0.1.0.1.0.0.0",
                "s1.1.0.1.0.0.0",
                "s1.0.0.0.0.0.0",
                "s1.0.0.0.0.0.1",
            ],
        },
    },
    {
        "id": "004-Alg1-x-turns",
        "k": 3,
        "n": 3,
        "algorithm": "cube+gns+xt+gdl",
        "source": "004 Algorithm 1: 'if Link_T is faulty then use X-Turns to N(D+_LP)'; every "
        "down link of W is faulty, so Go-Neighbor cannot start (spec §4, local model); "
        "the packet starts at W as in 001's examples",
        "start": "s0.1.0.0.0.0.0",
        "dst": "n1.0.0.0.0.1.0",
        "faulty": [
            ["s0.1.0.0.0.0.0", "s1.1.0.0.0.0.0"],
            ["s0.1.0.0.0.0.0", "s0.0.0.0.0.0.0"],
            ["s0.1.0.0.0.0.0", "s0.0.0.1.0.1.0"],
            ["s0.1.0.0.0.0.0", "s0.0.0.2.1.1.1"],
        ],
        "expected": {
            "success": True,
            "path_length": 8,
            "switches": [
                "s0.1.0.0.0.0.0",
                "s1.1.1.0.0.0.0",
                "s1.0.1.1.0.1.0",
                "s1.1.1.1.0.0.0",
                "s0.1.1.1.0.0.0",
                "s1.1.0.1.0.0.0",
                "s1.0.0.0.0.0.0",
                "s1.0.0.0.0.0.1",
            ],
        },
    },
    {
        "id": "004-Alg1-go-down",
        "k": 3,
        "n": 3,
        "algorithm": "cube+gns+xt+gdl",
        "source": "004 Algorithm 1: 'send network data to D-_LP via Link_P; if Link_P is faulty "
        "then use Go-Down to P_D'; P_D is an intermediate of the destination cube, where "
        "the first test of Algorithm 1 ('in different group or cube') is false, so the "
        "cube delivers; ties in cube distance (010, 111 both 2 from 001) go to the lower",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n1.0.0.0.0.1.0",
        "faulty": [["s1.1.0.0.0.0.0", "s1.0.0.0.0.0.0"]],
        "expected": {
            "success": True,
            "path_length": 8,
            "switches": [
                "s0.0.0.0.0.0.1",
                "s0.0.0.0.0.0.0",
                "s0.1.0.0.0.0.0",
                "s1.1.0.0.0.0.0",
                "s1.0.0.1.0.1.0",
                "s1.0.0.1.0.1.1",
                "s1.0.0.0.0.0.1",
            ],
        },
    },
    {
        "id": "004-Alg1-failed-routing-at-SIS",
        "k": 3,
        "n": 3,
        "algorithm": "cube+gns+xt+gdl",
        "source": "004 Algorithm 1 covers a faulty up link only with Go-Neighbor / X-Turns, "
        "defined at the crossing (spec §3.5): the SIS's faulty up link fails",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n1.0.0.0.0.1.0",
        "faulty": [["s0.0.0.0.0.0.0", "s0.1.0.0.0.0.0"]],
        "expected": {
            "success": False,
            "failure": "no applicable detour",
            "switches": ["s0.0.0.0.0.0.1", "s0.0.0.0.0.0.0"],
        },
    },
    {
        "id": "extension-upalt-at-SIS",
        "k": 3,
        "n": 3,
        "algorithm": "cube+escape",
        "source": "this project (UPALT): every up port of the SIS reaches an ancestor",
        "src": "n0.0.0.0.0.1.0",
        "dst": "n1.0.0.0.0.1.0",
        "faulty": [["s0.0.0.0.0.0.0", "s0.1.0.0.0.0.0"]],
        "expected": {
            "success": True,
            "path_length": 7,
            "switches": [
                "s0.0.0.0.0.0.1",
                "s0.0.0.0.0.0.0",
                "s0.1.0.1.0.0.0",
                "s1.1.0.1.0.0.0",
                "s1.0.0.0.0.0.0",
                "s1.0.0.0.0.0.1",
            ],
        },
    },
]


def _vec_route(v):
    t = fattree.build(f"mikantc:k={v['k']},n={v['n']}")
    mask = np.zeros(t.n_links, bool)
    for a, b in v["faulty"]:
        mask[_link(t, a, b)] = True
    src = t.find(v["src"]) if "src" in v else None
    start = t.find(v["start"]) - t.n_nodes if "start" in v else None
    return ft_route(t, v["algorithm"], src, t.find(v["dst"]), mask, start_switch=start)


@pytest.mark.parametrize("vec", VECTORS, ids=lambda v: v["id"])
def test_route_vector(vec):
    r = _vec_route(vec)
    e = vec["expected"]
    assert r.success == e["success"], r
    assert [p for p in r.path if p.startswith("s")] == e["switches"]
    if e["success"]:
        assert r.hops == e["path_length"]
        assert r.path[-1] == vec["dst"]
        if "ports" in e:
            assert r.ports == e["ports"]
    else:
        assert r.status == e["failure"]


def test_vectors_are_walkable_links():
    """Every consecutive pair of a vector's switches is a link (the vectors are not typos)."""
    for v in VECTORS:
        t = fattree.build(f"mikantc:k={v['k']},n={v['n']}")
        sw = v["expected"]["switches"]
        for a, b in zip(sw, sw[1:]):
            _link(t, a, b)


# ---------------------------------------------------------------- fault-free routing
@pytest.mark.parametrize(
    "spec",
    ["mikantc:k=2,n=2", "mikantc:k=3,n=2", "mikantc:k=3,n=3", "mikantc:k=2,n=4", "mikantc:k=4,n=3"],
)
@pytest.mark.parametrize("tie_break", ["dimension", "random"])
def test_sp_is_shortest_for_k_up_to_4(spec, tie_break):
    t = fattree.build(spec)
    g = t.to_networkx()
    labels = t.vertex_labels()
    L = fault_free_lengths(t, tie_break, seed=5)
    N = t.n_nodes
    for s in range(0, N, max(1, N // 24)):
        d = nx.single_source_shortest_path_length(g, labels[s])
        assert [L[s, x] for x in range(N)] == [d[labels[x]] for x in range(N)]


def test_sp_same_cube_not_minimal_from_k_5():
    """004 routes a same-cube pair inside the cube; for k = 5 the tree is sometimes shorter."""
    t = fattree.build("mikantc:k=5,n=2")
    g = t.to_networkx()
    labels = t.vertex_labels()
    L = fault_free_lengths(t)
    per_cube = (2**5 - 5) * 5
    longer_same, longer_other = 0, 0
    for s in range(0, t.n_nodes, 9):
        d = nx.single_source_shortest_path_length(g, labels[s])
        for x in range(t.n_nodes):
            ex = L[s, x] - d[labels[x]]
            assert ex >= 0
            if ex:
                if s // per_cube == x // per_cube:
                    longer_same += 1
                else:
                    longer_other += 1
    assert longer_same > 0 and longer_other == 0


def test_random_tie_break_is_seeded(m33):
    """Same seed, same paths; other seeds other paths; lengths never change."""
    a = fault_free_lengths(m33, "random", seed=1)
    assert np.array_equal(a, fault_free_lengths(m33, "dimension"))
    free = np.zeros(m33.n_links, bool)
    s, d = m33.find("n0.0.0.0.0.1.0"), m33.find("n0.0.1.1.1.0.0")  # corners 001 → 110
    paths = {
        tuple(ft_route(m33, "sp", s, d, free, tie_break="random", seed=x).path) for x in range(12)
    }
    again = {
        tuple(ft_route(m33, "sp", s, d, free, tie_break="random", seed=x).path) for x in range(12)
    }
    assert paths == again and len(paths) > 1
    assert {len(p) for p in paths} == {6}


# ---------------------------------------------------------------- slow reference (labels)
def _ref_route(t, alg: str, src: int, dst: int, faulty: np.ndarray, start: int | None = None):
    """004 Algorithm 1 on labels, by the spec's tables: (success, hops, switch labels)."""
    k, n = t.params["k"], t.params["n"]
    flags = FT_ALGORITHMS.get(alg).flags
    from fattree.faults.algorithms import CUBE, GDL, GNS, XT

    tb = cube_tables(t)
    codes, near = [int(c) for c in tb.codes], [int(x) for x in tb.near]
    N = t.n_nodes
    nd = [int(x) for x in t.node_digits[dst]]
    Gt, Tt, Ct, Pt = nd[0], nd[1:n][::-1], nd[n : n + k][::-1], nd[-1]  # Tt[i] = T_i
    ct = sum(b << i for i, b in enumerate(Ct))

    def lab(g, level, T, c):
        bits = [(c >> b) & 1 for b in range(k - 1, -1, -1)]
        return "s" + ".".join(map(str, [g, level, *T[::-1], *bits]))

    def dec(s):
        d = [int(x) for x in t.switch_digits[s]]
        return d[0], d[1], d[2 : n + 1][::-1], sum(b << i for i, b in enumerate(d[n + 1 :][::-1]))

    def port_to(s, label):
        v = t.find(label)
        return int(np.nonzero(t.port_peer[s] == v)[0][0])

    def healthy(s, p):
        return not faulty[t.link_index[s, p]]

    def corner(g, T, c2):
        """Cube neighbour: T_0 of a level-0 label is the corner's nearest intermediate."""
        return lab(g, 0, [near[c2], *T[1:]], c2)

    def pos(g, level, T):
        """Label of a tree position (intermediate T_0 at level 0, corner all-zero above)."""
        return lab(g, level, T, codes[T[0]] if level == 0 else 0)

    def tree_nb(g, level, T, up, digit):
        """Tree neighbour: up sets digit L (crossing at n-2), down sets digit L-1."""
        T2 = list(T)
        if up:
            T2[level] = digit
            return pos(1 - g, level, T2) if level == n - 2 else pos(g, level + 1, T2)
        T2[level - 1] = digit
        return pos(g, level - 1, T2)

    def pref(first, banned):
        """``first`` if allowed, then ascending, never ``banned`` (spec §3.0 orders)."""
        return [first] * (first != banned) + [y for y in range(k) if y not in (banned, first)]

    def up_step(digit, banned):
        """A detour step going up (or across): straight (keep ``digit``) first."""
        return lambda g_, l_, T_: [tree_nb(g_, l_, T_, True, y) for y in pref(T_[digit], banned)]

    def a1_step(g_, l_, T_):
        return [tree_nb(g_, l_, T_, *a1(g_, l_, T_))]

    def a1(g, level, T):
        if g != Gt or any(T[i] != Tt[i] for i in range(level, n - 1)):
            return True, Tt[level]
        return False, Tt[level - 1]

    if src is not None:
        if faulty[src]:
            return False, 0, []
        s, hops = int(t.node_switch[src]), 1
    else:
        s, hops = start, 0
    path = []
    plan: list = []  # remaining detour steps: callables (s) -> list of candidate labels
    while hops < 60:
        path.append(t.switch_label(s))
        g, level, T, c = dec(s)
        if level == 0 and g == Gt and T[1:] == Tt[1:]:
            plan = []
            if c == ct:
                return (healthy(s, Pt), hops + 1, path)
            cands = [corner(g, T, c ^ (1 << b)) for b in range(k) if (c ^ ct) >> b & 1]
            cands = cands if flags & CUBE else cands[:1]
        elif plan:
            cands = plan.pop(0)(g, level, T)
        elif level == 0 and c not in codes:
            tgt = codes[near[c]]
            cands = [corner(g, T, c ^ (1 << b)) for b in range(k) if (c ^ tgt) >> b & 1]
            cands = cands if flags & CUBE else cands[:1]
        else:
            up, dig = a1(g, level, T)
            want = tree_nb(g, level, T, up, dig)
            cands = [want]
            if not healthy(s, port_to(s, want)):
                cands = []
                wl = T[n - 3] if n >= 3 else 0
                w2 = T[n - 2]
                if up and level == n - 2 and g != Gt and n >= 3 and flags & (GNS | XT):
                    gns = [
                        tree_nb(g, level, T, False, x)
                        for x in [x for x in range(k) if x != wl] + [wl]
                    ]
                    ok = [x for x in gns if healthy(s, port_to(s, x))]
                    if flags & GNS and ok:
                        cands = ok[:1]
                        plan = [up_step(n - 3, wl), a1_step]  # g2, g3
                    elif flags & XT:
                        cands = [tree_nb(g, level, T, True, a) for a in range(k) if a != Tt[n - 2]]
                        down = [x for x in range(k) if x != wl] + [wl]
                        cross = pref(Tt[n - 2], w2)
                        plan = [
                            lambda g_, l_, T_: [tree_nb(g_, l_, T_, False, x) for x in down],  # noqa: B023  (called in this iteration)
                            up_step(n - 3, wl),
                            lambda g_, l_, T_: [tree_nb(g_, l_, T_, True, x) for x in cross],  # noqa: B023  (called in this iteration)
                            a1_step,
                        ]  # x2..x5
                elif not up and flags & GDL and level == 1:
                    xs = sorted(
                        (x for x in range(k) if x != dig),
                        key=lambda x: (bin(codes[x] ^ ct).count("1"), x),
                    )
                    cands = [tree_nb(g, level, T, False, x) for x in xs]
                elif not up and flags & GDL:
                    wl = T[level - 1]
                    xs = [x for x in range(k) if x not in (wl, dig)] + [wl] * (wl != dig)
                    cands = [tree_nb(g, level, T, False, x) for x in xs]
                    plan = [up_step(level - 1, wl), a1_step]  # d2, d3
                if cands and not any(healthy(s, port_to(s, x)) for x in cands):
                    cands = []
        nxt = [x for x in cands if healthy(s, port_to(s, x))]
        if not nxt:
            return False, hops, path
        s = t.find(nxt[0]) - N
        hops += 1
    raise AssertionError("reference walk did not terminate")


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec,rate,trials",
    [
        ("mikantc:k=3,n=3", 0.12, 120),
        ("mikantc:k=3,n=4", 0.08, 60),
        ("mikantc:k=4,n=3", 0.1, 60),
        ("mikantc:k=2,n=3", 0.15, 80),
        ("mikantc:k=3,n=2", 0.15, 60),
    ],
)
def test_kernel_equals_reference(spec, rate, trials):
    t = fattree.build(spec)
    rescued = {alg: 0 for alg in PAPER}  # successes where sp fails: the rules were exercised
    for tr in range(trials):
        mask, s, d = draw_trial(t, 21, 0, tr, rate)
        for alg in PAPER:
            r = ft_route(t, alg, s, d, mask)
            ok, hops, path = _ref_route(t, alg, s, d, mask)
            assert (r.success, [p for p in r.path if p.startswith("s")]) == (ok, path), (tr, alg)
            if ok:
                assert r.hops == hops
            rescued[alg] += ok and not _ref_route(t, "sp", s, d, mask)[0]
    assert rescued["cube+gns+xt+gdl"] > 0 and rescued["sp"] == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 65))
def test_kernel_equals_reference_from_any_switch(seed, start):
    """Starting anywhere (as 001's examples do), with faults near the start."""
    t = fattree.build("mikantc:k=3,n=3")
    rng = np.random.default_rng(seed)
    mask = np.zeros(t.n_links, bool)
    mask[rng.choice(t.n_links, 30, replace=False)] = True
    d = int(rng.integers(t.n_nodes))
    for alg in PAPER:
        r = ft_route(t, alg, None, d, mask, start_switch=start)
        ok, hops, path = _ref_route(t, alg, None, d, mask, start=start)
        assert (r.success, [p for p in r.path if p.startswith("s")], r.hops) == (
            ok,
            path,
            hops if ok else r.hops,
        ), alg


# ---------------------------------------------------------------- Monte Carlo
@pytest.mark.slow
def test_trials_match_single_routes_and_networkx(m33):
    g = m33.to_networkx()
    labels = m33.vertex_labels()
    rate, n_tr = 0.15, 80
    st_ = evaluate(m33, "sp,cube+gns+xt+gdl,cube+escape,oracle", [rate], n_tr, seed=13)
    by = {r["algorithm"]: r for r in st_.rows}
    succ = {a: 0 for a in ("sp", "cube+gns+xt+gdl", "cube+escape")}
    lengths = {a: 0 for a in succ}
    o_ok, o_len = 0, 0
    for tr in range(n_tr):
        mask, s, d = draw_trial(m33, 13, 0, tr, rate)
        for a in succ:
            r = ft_route(m33, a, s, d, mask, seed=13, packet=tr)
            succ[a] += r.success
            lengths[a] += r.hops if r.success else 0
        h = g.copy()
        h.remove_edges_from((labels[a], labels[b]) for a, b in m33.links[mask])
        if nx.has_path(h, labels[s], labels[d]):
            o_ok += 1
            o_len += nx.shortest_path_length(h, labels[s], labels[d])
    for a in succ:
        assert by[a]["successes"] == succ[a], a
        if succ[a]:
            assert by[a]["avg_path_length"] == pytest.approx(lengths[a] / succ[a])
    assert by["oracle"]["successes"] == o_ok
    assert by["oracle"]["avg_path_length"] == pytest.approx(o_len / o_ok)


def test_fault_free_average_is_bfs(m33):
    # 004 routes are shortest for k = 3: the fault-free mean is the all-pairs s != t mean
    d = dict(nx.all_pairs_shortest_path_length(m33.to_networkx()))
    labels = m33.vertex_labels()[: m33.n_nodes]
    mean = np.mean([d[a][b] for a in labels for b in labels if a != b])
    st_ = evaluate(m33, "sp,oracle", [0.0], 20000, seed=3)
    for r in st_.rows:
        assert r["success_ratio"] == 1.0
        assert r["avg_path_length"] == pytest.approx(mean, abs=0.03)


def test_ordering_and_oracle_bound(m33):
    st_ = evaluate(m33, "all", [0.05, 0.1, 0.3], 6000, seed=9)
    by = {(r["algorithm"], r["rate"]): r for r in st_.rows}
    assert {a for a, _ in by} == {
        "sp",
        "cube",
        "gns+xt+gdl",
        "cube+gns+xt+gdl",
        "cube+escape",
        "oracle",
    }
    for rate in (0.05, 0.1, 0.3):
        ratio = {a: by[(a, rate)]["success_ratio"] for a, r_ in by if r_ == rate}
        for a, row in by.items():
            if a[1] == rate and a[0] != "oracle":
                assert row["success_ratio"] <= ratio["oracle"]
                assert row["avg_excess_over_oracle"] >= 0
                assert row["ttl_fired"] == 0
        # each rule only acts where the simpler algorithm fails: success sets are nested
        assert ratio["sp"] <= ratio["cube"] <= ratio["cube+gns+xt+gdl"]
        assert ratio["sp"] <= ratio["gns+xt+gdl"] <= ratio["cube+gns+xt+gdl"]
        assert ratio["cube+gns+xt+gdl"] > ratio["sp"] + 0.03
        assert ratio["cube+escape"] > ratio["cube+gns+xt+gdl"] + 0.1


@pytest.mark.slow
def test_same_seed_same_result_any_thread_count():
    code = (
        "import json,fattree;from fattree.faults.montecarlo import evaluate;"
        "st=evaluate(fattree.build('mikantc:k=3,n=3'),'all',[0.1,0.4],1500,seed=4,"
        "tie_break='random');print(json.dumps(st.rows))"
    )
    outs = []
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads)
        res = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.append(json.loads(res.stdout))
    assert outs[0] == outs[1]
    other = evaluate(fattree.build("mikantc:k=3,n=3"), "all", [0.1, 0.4], 1500, seed=4).rows
    assert [r["successes"] for r in other] != [r["successes"] for r in outs[0]]


def test_papers_algorithms_never_loop():
    st_ = evaluate(
        fattree.build("mikantc:k=3,n=4"), "all", [0.05, 0.3], 2000, seed=3, switch_only=True
    )
    assert all(r["ttl_fired"] == 0 for r in st_.rows)


def test_algorithms_of_the_family():
    names = [a.name for a in resolve_algorithms("all", "mikantc")]
    assert names == ["sp", "gns+xt+gdl", "oracle", "cube", "cube+gns+xt+gdl", "cube+escape"]
    for a in names:
        assert FT_ALGORITHMS.get(a).knowledge
    with pytest.raises(ParameterError, match="not defined for family 'mikantc'"):
        resolve_algorithms("gns", "mikantc")
    assert "cube" not in [a.name for a in resolve_algorithms("all", "mikant")]


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        (dict(models=("lookahead",)), "model='lookahead' is not defined for mikantc"),
        (dict(tie_break="coin"), "tie_break='coin'"),
        (dict(algorithms="tt"), "not defined for family 'mikantc'"),
    ],
)
def test_bad_study_input(m33, kwargs, fragment):
    args = dict(algorithms="sp", rates=[0.1], trials=10)
    args.update(kwargs)
    with pytest.raises(ParameterError, match=fragment):
        evaluate(m33, **args)


def test_bad_route_input(m33):
    free = np.zeros(m33.n_links, bool)
    with pytest.raises(ParameterError, match="only 'local'"):
        ft_route(m33, "sp", 0, 5, free, model="lookahead")
    with pytest.raises(ParameterError, match="oracle"):
        ft_route(m33, "oracle", 0, 5, free)
    with pytest.raises(ParameterError, match="dst=900"):
        ft_route(m33, "sp", 0, 900, free)
    with pytest.raises(ParameterError, match="tie_break"):
        evaluate(fattree.build("mikant:k=3,n=3"), "sp", [0.1], 10, tie_break="random")


# ---------------------------------------------------------------- CLI
def test_cli_as_typed(capsys):
    assert cli_main(
        [
            "faults",
            "mikantc:k=3,n=3",
            "--algorithms",
            "all",
            "--rates",
            "0:0.5:0.05",
            "--trials",
            "400",
            "--seed",
            "7",
            "--json",
        ]
    ) in (0, None)
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 11 * 6
    assert {r["algorithm"] for r in rows} == {
        "sp",
        "gns+xt+gdl",
        "cube",
        "cube+gns+xt+gdl",
        "cube+escape",
        "oracle",
    }
    first = [r for r in rows if r["rate"] == 0.0]
    assert all(r["success_ratio"] == 1.0 for r in first)
    assert rows[-1]["faulty_links"] == round(0.5 * 243)


@pytest.mark.slow
@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--models", "lookahead"], "not defined for mikantc"),
        (["--algorithms", "gdl"], "not defined for family 'mikantc'"),
    ],
)
def test_cli_bad_input_one_line_exit_2(args, fragment):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "fattree.cli",
            "faults",
            "mikantc:k=3,n=3",
            "--trials",
            "10",
            "--rates",
            "0.1",
            *args,
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert fragment in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
