"""`balanced` (issue 13): MiKANT's root crossings split by a free destination digit;
deterministic, minimal, deadlock-free with 1 VC, and as balanced as the even split."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.routing import compile_routing, default_algorithm, route
from fattree.routing._balanced import MAX_K, balanced_table, crossing_ranks
from fattree.routing.advice import best_routing, routing_advice
from fattree.routing.check import check
from fattree.routing.deadlock import deadlock
from fattree.routing.load import channel_load


@pytest.mark.parametrize("k", range(2, MAX_K + 1))
def test_tables_use_every_cross_channel_equally_and_are_ordered(k):
    f = balanced_table(k)
    assert f.shape == (2, k, k, k) and f.min() >= 0 and f.max() < k
    uses, acyclic = crossing_ranks(f)
    # 2 k^2 (k-1) crossings per direction over k^2 channels: exactly the average each
    assert uses.min() == uses.max() == 2 * (k - 1)
    assert acyclic


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_crossing_order_agrees_with_networkx(k):
    f = balanced_table(k)
    g = nx.DiGraph()
    for grp in range(2):
        for y in range(k):
            for t in range(k):
                if y != t:
                    for h in range(k):
                        i = int(f[grp, y, t, h])
                        g.add_edge((grp, y, i), (1 - grp, i, t))
    assert nx.is_directed_acyclic_graph(g)


def test_crossing_ranks_finds_a_cycle():
    f = balanced_table(3).copy()
    f[:] = (np.arange(3)[None, :, None, None] + 1) % 3  # i = y + 1 for every route
    uses, acyclic = crossing_ranks(f)
    assert not acyclic


@pytest.mark.slow
@pytest.mark.parametrize("k", [25, 31, 64])
def test_greedy_tables_beyond_the_stored_ones(k):
    uses, acyclic = crossing_ranks(balanced_table(k))
    assert acyclic and uses.max() <= 2 * (k - 1) + 1 and uses.min() >= 2 * (k - 1) - 2


@pytest.mark.parametrize("bad", [1, 65, 2.5, True])
def test_bad_k(bad):
    with pytest.raises(ParameterError, match="k="):
        balanced_table(bad)


@pytest.mark.parametrize(
    "spec",
    ["mikant:k=2,n=2", "mikant:k=3,n=3", "mikant:k=4,n=3", "mikant:k=5,n=2", "mikant:k=3,n=4"],
)
def test_minimal_and_deadlock_free_with_one_vc(spec):
    t = fattree.build(spec)
    r = check(t, "balanced")
    assert r.ok and r.delivered == t.n_nodes * (t.n_nodes - 1)
    assert deadlock(t, "balanced", vcs=1).acyclic
    assert compile_routing(t, "balanced").vcs_required == 1


@pytest.mark.parametrize("k,n", [(3, 3), (4, 3), (5, 3), (4, 2), (6, 2)])
def test_reaches_the_even_split(k, n):
    t = fattree.build(f"mikant:k={k},n={n}")
    bal = channel_load(t, "balanced")
    even = channel_load(t, "minimal-all")
    assert bal.gamma_max == pytest.approx(even.gamma_max, rel=1e-9)
    assert bal.bound > channel_load(t, "dmodk-bal").bound + 0.05
    # the cross links carry the same load everywhere
    cross = [c for c in bal.by_class if c["direction"] == "cross"][0]
    assert cross["max"] == pytest.approx(cross["mean"])


def test_crossing_root_follows_the_table():
    """Pure-Python reference: the root where a same-group route turns back is
    f[g, y, t, h], h = the destination's digit n-3 (dmodk leaves it free)."""
    k, n = 4, 3
    t = fattree.build(f"mikant:k={k},n={n}")
    f = balanced_table(k)
    kn = k**n
    seen = 0
    for src in range(0, t.n_nodes, 7):
        for dst in range(0, t.n_nodes, 5):
            if src // kn != dst // kn:
                continue
            g, s, c = src // kn, src % kn, dst % kn
            y, tt = (s // k ** (n - 2)) % k, (c // k ** (n - 2)) % k
            if y == tt:
                continue
            r = route(t, "balanced", src, dst)
            tops = [
                t.switch_label(int(sw)) for sw in r.switches if int(t.switch_level[sw]) == n - 2
            ]
            other = [lab for lab in tops if not lab.startswith(f"s{g}.")]
            assert len(other) == 1
            i = int(other[0].split(".")[2])  # label s<g>.<level>.<digit n-2>....
            assert i == f[g, y, tt, (c // k ** (n - 3)) % k], (src, dst, tops)
            seen += 1
    assert seen > 100


def test_defaults_per_family():
    assert default_algorithm("kant") == "dmodk"
    assert default_algorithm("clos") == "dmodk"
    assert default_algorithm("mikant") == "balanced"
    for fam in ("kant", "clos", "mikant"):
        assert compile_routing(fattree.build(f"{fam}:k=2,n=3")).algorithm == default_algorithm(fam)
        assert best_routing(fam) == default_algorithm(fam)


def test_advice():
    t = fattree.build("kant:k=4,n=3")
    a = routing_advice(t, "alg1")
    assert a.better == "dmodk" and a.bound == pytest.approx(0.2625, abs=1e-4)
    assert a.better_bound == pytest.approx(1.0) and "--algorithm dmodk" in a.message()
    assert routing_advice(t, "dmodk") is None
    m = fattree.build("mikant:k=4,n=3")
    assert routing_advice(m, "alg1").better == "balanced"
    assert routing_advice(m, "dmodk") is None  # 0.496 against 0.794: not far below
    assert routing_advice(m, "dmodk", far_below=0.9).better == "balanced"
    with pytest.raises(ParameterError, match="far_below"):
        routing_advice(m, "dmodk", far_below=0)
