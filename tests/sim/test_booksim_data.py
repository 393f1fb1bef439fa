"""The stored BookSim2 figures (tests/data/booksim2) and what docs/booksim.md says of BookSim2.

BookSim2 itself is not needed: these tests read the stored data. The agreement of our
``--model booksim`` with them is tested at the end, on a small subset (the whole matrix:
``benchmarks/booksim_compare.py``).
"""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json
from pathlib import Path

import networkx as nx
import pytest

import fattree
from fattree.topology.export import BOOKSIM_FIXED, booksim_config

DATA = Path(__file__).resolve().parents[1] / "data" / "booksim2"
COMMIT = "28f43299f1706a3160ffac721ca461d74eb6e618"


def rows(name):
    if not (DATA / name).exists():  # reported by the tests that need it
        return []
    with open(DATA / name, newline="") as fh:
        return list(csv.DictReader(fh))


MATRIX = rows("matrix.csv")
ZERO = rows("zero_load.csv")
SPEED = rows("speed.csv")


def test_data_is_small_and_names_its_source():
    total = sum(p.stat().st_size for p in DATA.iterdir())
    assert total < 1_000_000
    meta = json.loads((DATA / "meta.json").read_text())
    assert meta["booksim2_commit"] == COMMIT
    assert meta["fixed_keys"] == BOOKSIM_FIXED  # the .cfg we export is what produced the data
    readme = (DATA / "README.md").read_text()
    assert COMMIT[:7] in readme and "saturation" in readme


def test_every_factor_value_appears_and_kant43_covers_the_pairs():
    factors = {
        "network": {"kant43", "mikant43"},
        "buffer": {"2", "5", "8"},
        "vcs": {"1", "2"},
        "packet_flits": {"1", "4", "8"},
        "speculative": {"0", "1"},
        "traffic": {"uniform", "bitcomp", "transpose"},
        "point": {"low", "mid", "high", "saturation"},
        "routing_delay": {"0", "1"},
    }
    for name, values in factors.items():
        assert {r[name] for r in MATRIX} == values, name
    assert {r["network"] for r in SPEED} == {"kant45", "kant83"}
    assert all(
        r["booksim_topology"] == ("anynet" if r["network"] == "mikant43" else "fattree")
        for r in MATRIX
    )
    small = [r for r in MATRIX if r["network"] == "kant43" and r["routing_delay"] == "0"]
    # every (traffic, buffer, speculative) combination ...
    assert {(r["traffic"], r["buffer"], r["speculative"]) for r in small} == set(
        itertools.product(factors["traffic"], factors["buffer"], factors["speculative"])
    )
    # ... and every (VCs, packet flits) pair with every traffic and every buffer depth
    pairs = set(itertools.product(factors["vcs"], factors["packet_flits"]))
    for key in ("traffic", "buffer"):
        for value in factors[key]:
            assert {(r["vcs"], r["packet_flits"]) for r in small if r[key] == value} == pairs, (
                key,
                value,
            )
    assert ZERO and {z["case"] for z in ZERO} <= {r["case"] for r in MATRIX}


def test_loads_are_below_saturation_and_booksim_kept_up():
    by_case = {}
    for r in MATRIX:
        by_case.setdefault(r["case"], {})[r["point"]] = r
    for case, pts in by_case.items():
        sat = float(pts["saturation"]["accepted"])
        assert 0 < sat <= 1, case
        lat = []
        for p, frac in (("low", 0.25), ("mid", 0.5), ("high", 0.75)):
            r = pts[p]
            assert float(r["load"]) == pytest.approx(frac * sat, abs=1e-4), case
            if r["status"] == "ok":
                # below saturation BookSim2 accepts what is offered
                assert float(r["accepted"]) == pytest.approx(float(r["load"]), rel=0.06), (case, p)
                lat.append(float(r["plat"]))
        assert lat == sorted(lat) or max(lat) - min(lat) < 0.5, case


def _per_router(rd: int, spec: int) -> int:
    # routing_delay + VC/switch allocation (together when speculative) + crossbar + link
    return rd + (1 if spec else 2) + 1 + 1


def test_zero_load_is_booksims_pipeline_formula():
    """1-flit packets: plat = per_router * routers + 2 (docs/booksim.md, "Pipeline")."""
    case_of = {r["case"]: r for r in MATRIX}
    checked = 0
    for z in ZERO:
        r = case_of[z["case"]]
        if r["packet_flits"] != "1":
            continue
        h = int(z["routers"])
        assert (
            int(z["plat"]) == _per_router(int(r["routing_delay"]), int(r["speculative"])) * h + 2
        ), z
        checked += 1
    assert checked >= 8


def test_zero_load_of_long_packets_with_deep_buffers_adds_one_cycle_per_flit():
    case_of = {r["case"]: r for r in MATRIX}
    checked = 0
    for z in ZERO:
        r = case_of[z["case"]]
        f = int(r["packet_flits"])
        if (
            f == 1 or int(r["buffer"]) < 5
        ):  # 5 = the credit loop: a shallower buffer throttles the body
            continue
        h = int(z["routers"])
        assert int(z["plat"]) == _per_router(
            int(r["routing_delay"]), int(r["speculative"])
        ) * h + 2 + (f - 1), z
        checked += 1
    assert checked >= 4


def test_speed_figures_for_sim_speed():
    cases = {r["case"] for r in SPEED}
    assert {"kant45-uniform-0.1", "kant45-uniform-0.15", "kant83-uniform-saturated"} <= cases
    assert cases <= {
        "kant45-uniform-0.1",
        "kant45-uniform-0.15",
        "kant45-uniform-saturated",
        "kant83-uniform-saturated",
    }
    for r in SPEED:
        assert float(r["cycles_per_s"]) == pytest.approx(
            int(r["cycles"]) / float(r["user_s"]), rel=0.01
        )
        assert r["measured"] >= "2026-11-25" and r["conditions"]


# ---------------------------------------------------------------------- BookSim2's fattree numbering
def booksim_fattree(k: int, n: int) -> nx.Graph:
    """BookSim2's built-in ``fattree`` (src/networks/fattree.cpp channel arithmetic) as a graph."""
    npos = k ** (n - 1)
    cpd, cpl = k * npos, 2 * k * npos

    def router(level, pos):  # level 0 = roots
        return ("r", level * npos + pos)

    g = nx.Graph()
    for pos in range(npos):
        for i in range(k):
            g.add_edge(("n", pos * k + i), router(n - 1, pos))
    out, inp = {}, {}
    for level in range(n):
        for pos in range(npos):
            for port in range(k):
                if level < n - 1:
                    out[level * cpl + pos * k + port] = router(level, pos)
                if level > 0:
                    out[level * cpl - cpd + pos * k + port] = router(level, pos)
    for level in range(n):
        for up in (False, True):
            if (not up and level == n - 1) or (up and level == 0):
                continue
            rpn = k ** (n - 1 - (level - 1 if up else level))
            rpb = k ** (n - 1 - (level if up else level + 1))
            base = (level - 1) * cpl if up else (level + 1) * cpl - cpd
            for pos in range(npos):
                nb, npp = divmod(pos, rpn)
                for port in range(k):
                    link = base + nb * rpn * k + port * rpb * k + (npp % rpb) * k + npp // rpb
                    inp[link] = router(level, pos)
    for link, a in out.items():
        g.add_edge(a, inp[link])
    return g


@pytest.mark.parametrize("k, n", [(2, 3), (4, 3), (3, 4)])
def test_booksim_fattree_is_kant_with_rotated_node_numbers(k, n):
    """BookSim2 node b = (C mod k^(n-1)) * k + C div k^(n-1) for our kant node C."""
    t = fattree.build(f"kant:k={k},n={n}")
    nodes = t.n_nodes
    ours = nx.Graph()

    def name(v):
        return ("n", int(v)) if v < nodes else ("s", int(v))

    ours.add_edges_from((name(a), name(b)) for a, b in t.links)
    kn1 = k ** (n - 1)
    for v in ours:
        ours.nodes[v]["lab"] = ("n", (v[1] % kn1) * k + v[1] // kn1) if v[0] == "n" else "switch"
    theirs = booksim_fattree(k, n)
    for v in theirs:
        theirs.nodes[v]["lab"] = v if v[0] == "n" else "switch"
    # same size, and every node pair at the same distance under the map (VF2 on these graphs
    # can take minutes depending on hash order, so the check is by distances)
    assert (ours.number_of_nodes(), ours.number_of_edges()) == (
        theirs.number_of_nodes(),
        theirs.number_of_edges(),
    )
    ids = {ours.nodes[v]["lab"]: v for v in ours if v[0] == "n"}
    d_ours = {v: nx.single_source_shortest_path_length(ours, v) for v in ids.values()}
    for b, v in ids.items():
        d_theirs = nx.single_source_shortest_path_length(theirs, b)
        assert all(d_ours[v][ids[c]] == d_theirs[c] for c in ids), (b, v)
    # and not with our own numbering (the permutations pair different nodes): BookSim2's
    # nodes 0..k-1 share a leaf, ours do not (a cheap witness; VF2 cannot prove the negative fast)
    leaf = {v: next(iter(ours[v])) for v in ours if v[0] == "n"}
    assert len({leaf[("n", c)] for c in range(k)}) == k
    assert len({next(iter(theirs[("n", b)])) for b in range(k)}) == 1


def test_stored_mikant_file_is_our_export():
    from fattree.topology.export import export_bytes

    assert (DATA / "mikant43.anynet").read_bytes() == export_bytes(
        fattree.build("mikant:k=4,n=3"), "booksim"
    )


def test_config_of_a_matrix_row():
    r = next(r for r in MATRIX if r["network"] == "kant43" and r["speculative"] == "0")
    text = booksim_config(
        None,
        k=4,
        n=3,
        buffer=int(r["buffer"]),
        vcs=int(r["vcs"]),
        packet_flits=int(r["packet_flits"]),
        speculative=False,
        traffic=r["traffic"],
    )
    assert "speculative = 0;" in text and "routing_function = nca;" in text


# ---------------------------------------------------------------------- ours against the data
def _has_booksim_model() -> bool:
    from fattree.sim.config import SimConfig

    return {"model", "speculative"} <= {f.name for f in dataclasses.fields(SimConfig)}


needs_model = pytest.mark.skipif(
    not _has_booksim_model(), reason="SimConfig has no model='booksim' yet"
)


@needs_model
@pytest.mark.parametrize(
    "case", ["kant43-uniform-b2-v1-p1-s-rd0", "kant43-uniform-b5-v1-p4-ns-rd0"]
)
def test_ours_matches_booksim_on_a_subset(case):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "booksim_compare", Path(__file__).resolve().parents[2] / "benchmarks" / "booksim_compare.py"
    )
    bc = importlib.util.module_from_spec(spec)
    import sys

    sys.modules.setdefault("booksim_compare", bc)  # its dataclasses look their module up
    spec.loader.exec_module(bc)
    from fattree.sim import simulate

    crow = [r for r in MATRIX if r["case"] == case]
    topo = fattree.build("kant:k=4,n=3")
    seeds = range(1, 5)  # one run is one draw: means over seeds 1-4 on both sides

    def theirs(row, key):
        more = [
            float(e[key])
            for e in rows("seeds.csv")
            if (e["case"], e["point"]) == (case, row["point"])
        ]
        return (float(row[key]) + sum(more)) / (1 + len(more))

    sat = next(r for r in crow if r["point"] == "saturation")
    cfgs = [bc.our_config(sat, 1.0, seed=s, sim_type="throughput") for s in seeds]
    ours = sum(simulate(topo, c).accepted_flits for c in cfgs) / len(cfgs)
    assert ours == pytest.approx(theirs(sat, "accepted"), rel=bc.TOL_SAT)
    low = next(r for r in crow if r["point"] == "low")
    cfgs = [bc.our_config(low, float(low["load"]), seed=s) for s in seeds]
    ours = sum(simulate(topo, c).avg_latency for c in cfgs) / len(cfgs)
    assert ours == pytest.approx(theirs(low, "plat"), rel=bc.TOL_LAT)
