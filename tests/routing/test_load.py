"""Channel loads: closed forms, conservation, a pure-Python reference, Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.routing import compile_routing, route
from fattree.routing.deadlock import deadlock
from fattree.routing.load import channel_load


@pytest.mark.parametrize("family", ["kant", "clos"])
@pytest.mark.parametrize("k,n", [(2, 3), (3, 3), (4, 3), (4, 2)])
def test_alg1_one_link_per_leaf_dmodk_lifts_it(family, k, n):
    t = fattree.build(f"{family}:k={k},n={n}")
    N = t.n_nodes
    a = channel_load(t, "alg1")
    # every packet for a leaf's k nodes comes down one link: k (N - k) / (N - 1)
    assert a.gamma_max == pytest.approx(k * (N - k) / (N - 1))
    d = channel_load(t, "dmodk")
    assert d.gamma_max == pytest.approx(1.0)  # only the node links are full
    assert d.bound / a.bound == pytest.approx(k * (N - k) / (N - 1))


@pytest.mark.parametrize("spec", ["mikant:k=3,n=3", "clos:k=2,n=3", "kant:k=3,n=2"])
@pytest.mark.parametrize("alg", ["alg1", "dmodk", "smodk", "random", "adaptive"])
def test_conservation(spec, alg):
    t = fattree.build(spec)
    r = channel_load(t, alg)
    N = t.n_nodes
    assert r.offered == pytest.approx(N) and r.delivered == pytest.approx(N)
    assert np.allclose(r.inject, 1.0)
    eject = r.gamma[t.port_kind == 3]  # PORT_NODE
    assert np.allclose(eject, 1.0)
    hops = np.mean([route(t, "alg1", s, d).hops for s in range(N) for d in range(N) if s != d])
    assert r.mean_hops == pytest.approx(hops)  # every algorithm here is minimal


def _reference_loads(t, alg, perm=None):
    """Plain-Python expectation: enumerate every candidate path with its probability."""
    cr = compile_routing(t, alg if alg != "random" else "adaptive")
    from fattree.routing.kernel import route_ports

    N = t.n_nodes
    load = np.zeros(t.port_peer.shape)
    cand = np.empty(t.max_ports + 1, np.int64)

    def spread(sw, ip, s, d, w):
        c = route_ports(cr.code, cr.iparams, cr.table, t.port_peer, sw, ip, s, d, 0, cand)
        ports = cand[:c].tolist()
        for p in ports:
            load[sw, p] += w / len(ports)
            v = int(t.port_peer[sw, p])
            if v != d:
                spread(v - N, int(t.port_peer_port[sw, p]), s, d, w / len(ports))

    for s in range(N):
        for d in range(N):
            if s == d or (perm is not None and perm[s] != d):
                continue
            spread(int(t.node_switch[s]), -1, s, d, 1.0 / (N - 1) if perm is None else 1.0)
    return load


@pytest.mark.parametrize("alg", ["alg1", "smodk", "random", "adaptive", "minimal-all"])
def test_kernel_matches_pure_python_reference(alg):
    t = fattree.build("mikant:k=2,n=3")
    assert np.allclose(channel_load(t, alg).gamma, _reference_loads(t, alg))
    perm = (t.n_nodes - 1) ^ np.arange(t.n_nodes)
    assert np.allclose(channel_load(t, alg, "bitcomp").gamma, _reference_loads(t, alg, perm))


@pytest.mark.slow
def test_random_expectation_matches_monte_carlo():
    t = fattree.build("kant:k=4,n=3")
    cr = compile_routing(t, "random", seed=5)
    exact = channel_load(t, cr, "bitcomp").gamma
    rounds = 300
    counts = np.zeros(t.port_peer.shape)
    N = t.n_nodes
    for key in range(rounds):
        for s in range(N):
            r = route(t, cr, s, (N - 1) ^ s, pkt_key=key * N + s)
            counts[r.switches, r.ports] += 1
    est = counts / rounds
    # a channel carries up to 4 flows that each take it with p = 1/4: the standard
    # deviation of its mean over 300 rounds is about 0.05
    assert np.abs(est - exact).max() < 0.25
    assert np.abs(est - exact).mean() < 0.05
    assert exact.max() == pytest.approx(1.0)  # a fixed port per flow would give 4


def test_mikant_dmodk_doubles_alg1_and_stays_acyclic():
    t = fattree.build("mikant:k=4,n=3")
    a, d = channel_load(t, "alg1"), channel_load(t, "dmodk")
    assert d.bound > 1.9 * a.bound
    # what remains is Algorithm 1's crossing rule: the straight cross links
    busiest = d.busiest[0][0]
    src, dst = busiest.split("→")
    assert src[1] != dst[1] and src[3:] == dst[3:]  # other group, same digits
    assert deadlock(t, "dmodk").acyclic
    full = channel_load(t, "minimal-all")
    assert full.bound > d.bound and deadlock(t, "minimal-all", vcs=2).acyclic


def test_loads_by_class_cover_every_used_channel():
    t = fattree.build("mikant:k=3,n=3")
    r = channel_load(t, "dmodk", "uniform")
    dirs = {row["direction"] for row in r.by_class}
    assert dirs == {"inject", "up", "cross", "down", "eject"}
    assert sum(row["channels"] for row in r.by_class[1:]) == int((t.port_peer >= 0).sum())


def test_bad_traffic():
    t = fattree.build("mikant:k=3,n=3")  # 54 nodes: no binary address space
    with pytest.raises(ParameterError, match="power-of-two"):
        channel_load(t, "alg1", "bitcomp")
    with pytest.raises(ParameterError, match="traffic pattern"):
        channel_load(t, "alg1", "nope")
    with pytest.raises(ParameterError, match="not minimal"):
        channel_load(
            t,
            compile_routing(t, "alg1-literal-000").__class__(
                **{**compile_routing(t, "adaptive").__dict__, "minimal": False}
            ),
        )


@pytest.mark.parametrize("k", range(2, 25))
def test_balanced_crossing_tables(k):
    from fattree.routing._crossing import crossing_table, crossing_uses

    f = crossing_table(k)
    uses, disjoint = crossing_uses(f)
    assert disjoint and uses <= 2
    assert f.min() >= 0 and f.max() < k


@pytest.mark.parametrize("k,n", [(4, 3), (5, 3), (8, 2), (3, 4)])
def test_dmodk_bal_lifts_the_crossing_bottleneck_with_one_vc(k, n):
    t = fattree.build(f"mikant:k={k},n={n}")
    bal, d = channel_load(t, "dmodk-bal"), channel_load(t, "dmodk")
    # at most two root crossings per cross channel: gamma ~ 1/2 + 2/2 instead of ~ k/2
    assert bal.gamma_max < 1.55
    assert bal.bound >= d.bound - 1e-12
    if k >= 4:
        assert bal.bound > 1.3 * d.bound
    assert deadlock(t, "dmodk-bal", vcs=1).acyclic


def test_dmodk_bal_refuses_k_beyond_its_tables():
    with pytest.raises(ParameterError, match="balanced root crossing"):
        channel_load(fattree.build("mikant:k=25,n=2"), "dmodk-bal")
