"""Every fault-free vector of mikant-routing-vectors.json, through fattree.routing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fattree
from fattree.routing import compile_routing, route
from fattree.routing.check import check
from fattree.routing.deadlock import deadlock

VECTORS = Path(__file__).resolve().parents[1] / "data" / "mikant-routing-vectors.json"
# the spec's names for fault-free Algorithm 1 and 000's literal printing
NAMES = {"ALG1": "alg1", "SP": "alg1", "ALG1_000_LITERAL": "alg1-literal-000"}


def _vectors(kind):
    if not VECTORS.exists():
        return []
    data = json.loads(VECTORS.read_text())
    return [
        v
        for v in data["vectors"]
        if v["kind"] == kind and not v.get("faulty_links") and v.get("topology") == "MiKANT"
    ]


def _lab(prefix, digits):
    return prefix + ".".join(map(str, digits))


def _topo(vec):
    return fattree.build(f"mikant:k={vec['k']},n={vec['n']}")


def test_vectors_present():
    routes = _vectors("route")
    # 000 Table II (4), its literal-000 discriminators (3) and 001's fault-free example
    assert len(routes) == 8
    assert {v["algorithm"] for v in routes} == set(NAMES)


@pytest.mark.parametrize("vec", _vectors("route"), ids=lambda v: v["id"])
def test_route_vector(vec):
    t = _topo(vec)
    src = _lab("n", vec["src"]) if "src" in vec else _lab("s", vec["start_switch"])
    r = route(
        t, compile_routing(t, NAMES[vec["algorithm"]]), src, _lab("n", vec["dst"]), hop_limit=40
    )
    e = vec["expected"]
    assert r.delivered == e["success"]
    switches = [t.switch_label(s) for s in r.switches]
    if e["success"]:
        assert switches == [_lab("s", s) for s in e["switches"]]
        assert r.hops == e["path_length"]
        if "ports" in e:
            assert r.ports == e["ports"]
        assert r.path[-1] == _lab("n", vec["dst"])
    else:
        # 000's literal rule: a loop, caught by the hop limit
        assert e["failure"] == "TTL" and r.status.startswith("hop limit")
        prefix = [_lab("s", s) for s in e["switches_prefix"]]
        assert switches[: len(prefix)] == prefix


def test_table_ii_ports_and_lengths_as_printed():
    # 000 Table II column 1 prints the ports 5, 5, 5, 2, 2, 2 and "path length 2n-1 = 7"
    t = fattree.build("mikant:k=3,n=4")
    r = route(t, "alg1", "n0.2.0.0.0", "n1.2.2.2.2")
    assert r.ports == [5, 5, 5, 2, 2, 2] and r.hops == 2 * 4 - 1
    lengths = [
        route(t, "alg1", "n0.2.0.0.0", d).hops
        for d in ("n1.2.2.2.2", "n0.2.2.2.2", "n0.2.0.2.2", "n0.2.0.0.2")
    ]
    assert lengths == [7, 8, 6, 4]


def test_literal_000_loops_on_many_pairs():
    """000's printing loops wherever the destination's digits are not all equal."""
    rep = check(fattree.build("mikant:k=3,n=3"), "alg1-literal-000")
    assert not rep.ok and rep.loops > 0 and rep.no_route == 0
    assert rep.delivered + rep.loops == rep.pairs
    # Algorithm 1 as 001 prints it delivers all of them
    assert check(fattree.build("mikant:k=3,n=3"), "alg1").delivered == rep.pairs


@pytest.mark.parametrize("vec", _vectors("cdg"), ids=lambda v: v["id"])
def test_cdg_vector(vec):
    rep = deadlock(_topo(vec), NAMES.get(vec["algorithm"], "alg1"))
    assert rep.acyclic == (not vec["expected"]["cycle"])


@pytest.mark.parametrize(
    "vec",
    [v for v in _vectors("property") if v.get("check_distances", True)],
    ids=lambda v: v["id"],
)
def test_property_vector(vec):
    t = _topo(vec)
    e = vec["expected"]
    rep = check(t, "alg1", count_paths=False)
    assert (t.n_switches, t.n_nodes, t.n_links) == (e["switches"], e["nodes"], e["links"])
    assert max(rep.bfs_hist) == e["diameter"] == max(rep.hist)
    N = t.n_nodes
    incl = e["average_distance_incl_self"]  # the theorem's sum runs over all 2k^n nodes
    assert rep.mean_hops * (N - 1) / N == pytest.approx(incl, abs=1e-8)
    assert rep.paper_mean * (N - 1) / N == pytest.approx(incl, abs=1e-8)
    if "average_distance_excl_self" in e:
        assert rep.mean_hops == pytest.approx(e["average_distance_excl_self"], abs=1e-8)
