"""The ``adaptive`` fault-tolerant rule: the router lists candidates, the allocator picks.

Its candidates are checked against a brute-force reading of the rule (every healthy
minimal port, not back, from whose far switch the ``minimal`` walk delivers), its channel
dependency graph against the union of the routes it can take, and its simulations
against ``minimal`` (the same pairs delivered, never a stuck packet).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import fattree
from fattree.faults.algorithms import FT_ALGORITHMS, RULE_MINIMAL
from fattree.faults.cdg import ft_deadlock
from fattree.faults.generic import (
    S_BUDGET,
    S_HOPS,
    S_PREV,
    AdaptiveAt,
    adaptive_ports,
    adaptive_scratch,
    candidates,
    ft_hop,
)
from fattree.faults.gwalk import GenericRouter
from fattree.faults.links import random_faults
from fattree.faults.mikant import OK
from fattree.faults.view import adaptive_rule, fault_router


def _minimal_walk(g, sw, prev, hops, dst, scr):
    """The ``minimal`` rule's switches and ports from ``sw`` (came from ``prev``), in
    Python, hop by hop; None when it does not deliver within the hop limit."""
    rt, N = g.ctx.rt, g.topo.n_nodes
    R1 = g.topo.max_ports + 1
    state = np.zeros(4, np.int64)
    path = []
    while hops < g.ctx.ttl:
        state[S_BUDGET], state[S_PREV], state[S_HOPS] = 0, prev, hops
        q = ft_hop(
            rt, RULE_MINIMAL, False, g.stamp, 1, sw, dst, state, g.ctx.ttl,
            scr[:R1], scr[R1 : 2 * R1], scr[2 * R1 : 3 * R1], scr[3 * R1 : 4 * R1],
        )  # fmt: skip
        if q < 0:
            return None
        path.append((sw, int(q)))
        w = int(g.topo.port_peer[sw, q])
        hops += 1
        if w < N:
            return path if w == dst else None
        prev, sw = sw, w - N
    return None


def _expected(g, sw, prev, hops, dst, first, scr):
    """The rule read literally (one VC, no layers): ``first``, then every healthy minimal
    port other than ``first`` and the way back whose far switch's walk delivers."""
    topo, N = g.topo, g.topo.n_nodes
    R1 = topo.max_ports + 1
    lst = np.zeros(R1, np.int64)
    n = candidates(g.ctx.rt, sw, dst, g.ctx.ttl, lst, scr[:R1], scr[R1 : 2 * R1])
    out = {first}
    for p in lst[:n].tolist():
        e = topo.link_index[sw, p]
        w = int(topo.port_peer[sw, p])
        if p == first or e < 0 or g.faulty[e] or w < N or w - N == prev:
            continue
        if _minimal_walk(g, w - N, sw, hops + 1, dst, scr) is not None:
            out.add(p)
    return out


@pytest.mark.parametrize("spec", ["kant:k=3,n=3", "xgft:m=4.4,w=1.3", "hypercube:d=4"])
def test_candidates_are_the_rule_read_literally(spec):
    """At every switch of every delivered ``minimal`` route, the candidates equal the
    brute-force set, and from each of them the walk delivers."""
    topo = fattree.build(spec)
    mask = random_faults(topo, 0.12, 5, switch_only=True)
    g = GenericRouter(topo, FT_ALGORITHMS.get("adaptive"), mask)
    out, scr = np.zeros(topo.max_ports + 1, np.int64), adaptive_scratch(topo)
    ar = adaptive_rule(fault_router(topo, "adaptive", mask).view(), 0)
    N, checked, several = topo.n_nodes, 0, 0
    for s in range(N):
        for t in range(N):
            if s == t:
                continue
            st, hops, sws, ports, _ = g.route(s, t)
            if st != OK:
                continue
            prev = -1
            for i, (sw, p) in enumerate(zip(sws.tolist(), ports.tolist())):
                if sw < 0 or p < 0:
                    break
                at = AdaptiveAt(sw, prev, i + 1, t, 0, False)
                m = adaptive_ports(ar, at, out, scr)
                got = out[:m].tolist()
                assert got[0] == p and len(set(got)) == m
                assert set(got) == _expected(g, sw, prev, i + 1, t, p, scr), (s, t, sw)
                checked += 1
                several += m > 1
                prev = sw
    assert checked > 100 and several > 0


@pytest.mark.parametrize(
    ("spec", "vcs"),
    [("torus:k=4,n=2", 1), ("hypercube:d=4", 1), ("kant:k=3,n=3", 1), ("torus:k=4,n=2", 2)],
)
def test_dependency_graph_holds_every_choice(spec, vcs):
    """The adaptive graph holds the first choices' graph (``minimal``) and the
    dependencies of its alternatives: more channels or dependencies where it has any; a
    cycle of ``minimal`` is a cycle of ``adaptive``; up*/down* layers keep it acyclic."""
    topo = fattree.build(spec)
    mask = random_faults(topo, 0.1, 2, switch_only=True)
    mn = ft_deadlock(topo, "minimal", mask, vcs=vcs)
    ad = ft_deadlock(topo, "adaptive", mask, vcs=vcs)
    assert (ad.delivered, ad.refused, ad.not_delivered) == (
        mn.delivered,
        mn.refused,
        mn.not_delivered,
    )
    assert ad.channels >= mn.channels and ad.dependencies > mn.dependencies
    if not mn.acyclic:
        assert not ad.acyclic
    if vcs > 1:
        assert ad.acyclic


@pytest.mark.parametrize("spec", ["torus:k=4,n=2", "hypercube:d=4"])
def test_dependency_graph_is_the_union_of_every_route(spec):
    """On one VC (no layers) the graph's channels and dependencies are exactly those of
    every route the literal rule can take, enumerated path by path in Python."""
    topo = fattree.build(spec)
    mask = random_faults(topo, 0.1, 2, switch_only=True)
    g = GenericRouter(topo, FT_ALGORITHMS.get("adaptive"), mask)
    scr = adaptive_scratch(topo)
    N = topo.n_nodes
    chans, deps = set(), set()
    for s in range(N):
        for t in range(N):
            if s == t or g.route(s, t)[0] != OK:
                continue
            todo = [(int(topo.node_switch[s]), -1, 1, None)]
            while todo:
                sw, prev, hops, c_in = todo.pop()
                path = _minimal_walk(g, sw, prev, hops, t, scr)
                assert path is not None  # every state reached still delivers
                for p in _expected(g, sw, prev, hops, t, path[0][1], scr):
                    c = (sw, p)
                    chans.add(c)
                    if c_in is not None:
                        deps.add((c_in, c))
                    w = int(topo.port_peer[sw, p])
                    if w >= N:
                        todo.append((w - N, sw, hops + 1, c))
    r = ft_deadlock(topo, "adaptive", mask, vcs=1, vc_rule="none")
    assert (r.channels, r.dependencies) == (len(chans), len(deps))


def _sim(spec, alg, load, **kw):
    return fattree.simulate(
        spec, load=load, packets_per_source=300, seed=3, fault_rate=0.1, algorithm=alg, **kw
    )


def test_simulator_chooses_among_candidates():
    """Under the same faults ``adaptive`` delivers the pairs ``minimal`` delivers (no
    packet stuck, no deadlock), spreads over the healthy alternatives (lower latency at
    a medium load), and is deterministic."""
    a = _sim("kant:k=4,n=3", "adaptive", 0.5)
    m = _sim("kant:k=4,n=3", "minimal", 0.5)
    assert a.ft_algorithm == "adaptive" and not a.deadlock and a.conservation
    assert a.faulty_links == m.faulty_links > 0
    assert a.avg_latency < m.avg_latency
    b = _sim("kant:k=4,n=3", "adaptive", 0.5)
    assert (b.delivered, b.avg_latency, b.cycles) == (a.delivered, a.avg_latency, a.cycles)


def test_simulator_admits_what_minimal_admits():
    """A packet is admitted by the route of its first choices: the pairs the simulator
    injects are ``minimal``'s, on one VC and on two."""
    from fattree.faults.view import fault_router

    topo = fattree.build("kant:k=3,n=3")
    mask = random_faults(topo, 0.15, 4)
    for vcs in (1, 2):
        fa = fault_router(topo, "adaptive", mask, vcs=vcs)
        fm = fault_router(topo, "minimal", mask, vcs=vcs)
        got = [fa.route(s, t, vcs)[0] for s in range(27) for t in range(27) if s != t]
        want = [fm.route(s, t, vcs)[0] for s in range(27) for t in range(27) if s != t]
        assert got == want and len(set(got)) > 1


def test_simulator_layers_adaptive_choices():
    """With two VCs on a torus every candidate keeps within the up*/down* layers: no
    deadlock, every admitted packet delivered."""
    r = _sim("torus:k=4,n=2", "adaptive", 0.6, vcs=2)
    assert not r.deadlock and r.conservation and r.delivered > 0


@pytest.mark.parametrize("spec", ["kant:k=16,n=2", "hypercube:d=5"])
def test_route_word_holds_the_candidates(spec):
    """The head's route word (``fault_port``, int32 in the FIFO state) gives back, through
    ``fault_ports``, exactly the rule's candidates, first choice first: also with 32
    ports a switch, beyond what a mask of ports would fit in."""
    from fattree.sim.faulthop import fault_port, fault_ports
    from fattree.sim.layout import PK_COLS, PK_FT, PK_SRC

    topo = fattree.build(spec)
    mask = random_faults(topo, 0.08, 1, switch_only=True)
    fr = fault_router(topo, "adaptive", mask)
    view = fr.view(fr.ft_ws.copy())
    g = GenericRouter(topo, FT_ALGORITHMS.get("adaptive"), mask)
    out, scr = np.zeros(topo.max_ports + 1, np.int64), adaptive_scratch(topo)
    got = np.zeros(topo.max_ports + 1, np.int64)
    N, several = topo.n_nodes, 0
    for s, t in np.random.default_rng(2).integers(0, N, (60, 2)).tolist():
        st, _, sws, ports, _ = g.route(s, t)
        if s == t or st != OK:
            continue
        sw = int(sws[0])
        pk = np.zeros((1, PK_COLS), np.int64)
        pk[0, PK_SRC], pk[0, PK_FT] = s, fr.ft_i[6]
        word = fault_port(view, pk, 0, sw, -1, 0, t, 0, 1)
        assert np.int32(word) == word  # fits the FIFO state
        n = fault_ports(view, word, sw, t, got)
        at = AdaptiveAt(sw, -1, 1, t, 0, False)
        m = adaptive_ports(adaptive_rule(fr.view(), 1 if "kant" in spec else 0), at, out, scr)
        assert got[0] == ports[0] and sorted(got[:n].tolist()) == sorted(out[:m].tolist())
        several += n > 1
    assert several > 10


def test_cli_as_a_user_types_it(tmp_path):
    """``--algorithm adaptive`` with faults in the simulator; in the Monte Carlo it
    delivers exactly what ``minimal`` delivers (its first choices are minimal's route)."""
    cli = [sys.executable, "-m", "fattree.cli"]
    sim = [*cli, "simulate", "kant:k=4,n=3", "--algorithm", "adaptive", "--fault-rate", "0.1"]
    r = subprocess.run([*sim, "--load", "0.5", "-P", "200"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "fault-tolerant routing adaptive" in r.stdout + r.stderr
    mc = [*cli, "faults", "kant:k=4,n=3", "--algorithms", "minimal,adaptive", "--json"]
    r = subprocess.run([*mc, "--trials", "300", "--rates", "0.1"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = {row["algorithm"]: row for row in json.loads(r.stdout)}
    assert rows["adaptive"]["successes"] == rows["minimal"]["successes"] > 0
    # the explanation names the alternatives the allocator may take, hop by hop
    f = tmp_path / "faults.txt"
    f.write_text("s1.3.3 s0.3.3\ns1.0.0 s2.0.0\n")
    route = [*cli, "route", "kant:k=4,n=3", "n0.0.0", "n3.3.2", "--faults", str(f)]
    r = subprocess.run([*route, "--explain", "-a", "adaptive"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "at s0.0.0 (hop 1): the allocator may also take 4 → s1.0.0, 5 → s1.0.1" in r.stdout


def test_cycle_witnesses_take_the_dependency():
    """Each route shown for a dependency of the cycle is a route of the rule that takes
    that dependency (an alternative, where the first choice does not)."""
    topo = fattree.build("torus:k=5,n=2")
    r = ft_deadlock(topo, "adaptive", random_faults(topo, 0.1, 0, switch_only=True))
    assert not r.acyclic and r.routes
    for w in r.routes:
        x, y = w["dependency"].split(" ⇒ ")
        hops = [x.split(" ")[0], y.split(" ")[0]]  # "sA→sB", "sB→sC"
        a, b, c = hops[0].split("→") + [hops[1].split("→")[1]]
        path = w["path"]
        assert "note" not in w
        assert any(path[i : i + 3] == [a, b, c] for i in range(len(path) - 2)), w


def test_no_load_bound_from_first_choices():
    """The allocator chooses adaptive's routes as it runs: the load of its first choices
    is no bound, and none is given (``minimal``'s is)."""
    from fattree.faults.view import fault_router
    from fattree.sim.faulthop import router_load_bound

    topo = fattree.build("kant:k=3,n=3")
    mask = random_faults(topo, 0.1, 3, switch_only=True)
    assert router_load_bound(topo, fault_router(topo, "adaptive", mask)) is None
    assert router_load_bound(topo, fault_router(topo, "minimal", mask)) > 0
    r = _sim("kant:k=3,n=3", "adaptive", 0.3)
    assert r.channel_load_bound is None
