"""``model="booksim"`` (issue 12) against the stored BookSim2 figures (tests/data/booksim2).

Fast tier: every zero-load figure (within 0.1 cycle), a representative subset of the
matrix (speculative and not, routing delay 0 and 1, the built-in fat tree and an anynet
file), the model's options and bad input. ``slow``: the whole matrix. Tolerances are
issue 12's: zero-load latency 0.1 cycle, latency below 0.8 x saturation 2 %, saturation
throughput 3 %. One run of either simulator is one draw (near the knee of a wide
distribution: BookSim2 itself gives 78.7-140.5 cycles over seeds 1-4 at
kant43-transpose-b2-v1-p4 "high"; its saturation at mikant43-uniform-b8-v2-p8-s spreads
0.059-0.067 over seeds 1-16), so ``seeds.csv`` holds BookSim2's seeds 2-4 of every row and
each comparison takes means over seeds 1-4 on both sides: within the tolerance, or within
two standard errors of the difference of the means when the seeds scatter more than that.
"""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import pytest

import fattree
from fattree.errors import ParameterError, UnknownNameError
from fattree.sim import SimConfig, simulate

DATA = Path(__file__).resolve().parents[1] / "data" / "booksim2"
TOL_ZERO, TOL_LAT, TOL_SAT = 0.1, 0.02, 0.03


def _rows(name):
    with open(DATA / name, newline="") as fh:
        return list(csv.DictReader(fh))


MATRIX = _rows("matrix.csv")
ZERO = _rows("zero_load.csv")
SEEDS: dict = {}  # (case, point): BookSim2's seeds 2-4 (latency; accepted rate at saturation)
for _e in _rows("seeds.csv"):
    _v = _e["accepted"] if _e["point"] == "saturation" else _e["plat"]
    if _e["status"] == "ok" and _v:
        SEEDS.setdefault((_e["case"], _e["point"]), []).append(float(_v))
CASES = {r["case"]: r for r in MATRIX if r["point"] == "saturation"}
_TOPOS: dict = {}


def _topo(network):
    spec = f"graph:file={DATA / 'mikant43.anynet'}" if network == "mikant43" else "kant:k=4,n=3"
    if spec not in _TOPOS:
        _TOPOS[spec] = fattree.build(spec)
    return _TOPOS[spec]


def _cfg(row, load, **kw):
    return SimConfig(
        model="booksim",
        traffic=row["traffic"],
        buffer=int(row["buffer"]),
        vcs=int(row["vcs"]),
        packet_flits=int(row["packet_flits"]),
        speculative=row["speculative"] == "1",
        routing_delay=int(row["routing_delay"]),
        load=load,
        **{"seed": 1, **kw},
    )


def _saturation(row, seed=1):
    return simulate(
        _topo(row["network"]), _cfg(row, 1.0, sim_type="throughput", seed=seed)
    ).accepted_flits


def _latency(row, seed=1):
    return simulate(_topo(row["network"]), _cfg(row, float(row["load"]), seed=seed)).avg_latency


OUR_SEEDS = range(1, 5)


def _agrees(row):
    """Ours (seeds 1-4) against BookSim2's seeds of a matrix row: the means within the
    tolerance (2 % latency, 3 % saturation) or, where the seeds scatter more than that,
    within two standard errors of the difference of the means."""
    import statistics

    sat = row["point"] == "saturation"
    theirs = [float(row["accepted"] if sat else row["plat"])]
    theirs += SEEDS.get((row["case"], row["point"]), [])
    figure = _saturation if sat else _latency
    ours = [figure(row, seed) for seed in OUR_SEEDS]
    diff = abs(statistics.mean(ours) - statistics.mean(theirs))
    se = statistics.variance(ours) / len(ours)
    if len(theirs) > 1:
        se += statistics.variance(theirs) / len(theirs)
    tol = (TOL_SAT if sat else TOL_LAT) * statistics.mean(theirs)
    assert diff <= max(tol, 2 * se**0.5), (ours, theirs)


def _pair(topo, routers):
    """Node 0 and the first node whose path crosses ``routers`` switches."""
    import networkx as nx

    g = nx.Graph()
    g.add_edges_from((int(a), int(b)) for a, b in topo.links)
    dist = nx.single_source_shortest_path_length(g, 0)
    return 0, min(v for v, d in dist.items() if v < topo.n_nodes and d == routers + 1)


@pytest.mark.parametrize("z", ZERO, ids=[f"{z['case']}-{z['routers']}r" for z in ZERO])
def test_zero_load_latency(z, tmp_path):
    """One packet between two nodes that many routers apart (BookSim2's packet traces)."""
    row = CASES[z["case"]]
    topo = _topo(row["network"])
    src, dst = _pair(topo, int(z["routers"]))
    trace = tmp_path / "t.txt"
    trace.write_text(f"10 {src} {dst}\n")
    r = simulate(topo, dataclasses.replace(_cfg(row, None), traffic=f"trace:file={trace}"))
    assert r.measured == 1
    assert abs(r.avg_latency - float(z["plat"])) <= TOL_ZERO


FAST = [
    "kant43-uniform-b2-v1-p1-s-rd0",
    "kant43-uniform-b5-v1-p4-ns-rd0",
    "kant43-uniform-b2-v1-p1-ns-rd1",
    "mikant43-bitcomp-b2-v1-p1-ns-rd0",
]


@pytest.mark.parametrize("case", FAST)
def test_subset_saturation_and_low_load(case):
    _agrees(CASES[case])
    _agrees(next(r for r in MATRIX if r["case"] == case and r["point"] == "low"))


# rows outside the tolerance for a reason docs/booksim.md names (none at present: the two
# 2-VC rows near the knee listed here before came from seeds 1, 2, 3, ... replaying one
# random stream shifted by one draw, so that our four-seed means were one draw; see
# test_consecutive_seeds_start_unrelated_streams)
KNOWN: set = set()


def _matrix_param(r):
    marks = (
        [pytest.mark.xfail(reason="known difference, docs/booksim.md 'Agreement'", strict=False)]
        if (r["case"], r["point"]) in KNOWN
        else []
    )
    return pytest.param(r, id=f"{r['case']}-{r['point']}", marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("row", [_matrix_param(r) for r in MATRIX])
def test_matrix(row):
    if row["point"] != "saturation":
        assert float(row["load"]) < 0.8 * float(CASES[row["case"]]["accepted"])
    _agrees(row)


def test_consecutive_seeds_start_unrelated_streams():
    """Seed s + 1 does not replay seed s's random stream one draw later (the generator's
    state was once linear in the seed: every source's first creation cycle under seed 2
    was its neighbour's under seed 1), so runs over seeds 1..4 are independent draws."""
    import numpy as np

    from fattree.sim.booksim import kernel as K
    from fattree.sim.booksim import model as M

    first = [
        K.first_creations(np.array([M._first_state(s)], np.uint64), 0.01, 64) for s in range(5)
    ]
    for a, b in zip(first, first[1:]):
        assert not np.array_equal(a[1:], b[:-1])
    assert len({M._first_state(s) for s in range(1000)}) == 1000


def test_transpose_pairs_booksims_nodes():
    """Permutations act on BookSim2's node ids: transpose's hop count is BookSim2's."""
    row = next(
        r for r in MATRIX if r["case"] == "kant43-transpose-b8-v1-p1-s-rd0" and r["point"] == "low"
    )
    r = simulate(_topo("kant43"), _cfg(row, float(row["load"])))
    assert r.avg_hops - 1 == pytest.approx(float(row["hops"]), abs=0.05)


def test_model_recorded_deterministic_and_defaults():
    r1 = simulate("kant:k=2,n=2", model="booksim", load=0.05, seed=3)
    r2 = simulate("kant:k=2,n=2", model="booksim", load=0.05, seed=3)
    assert r1.to_dict() | {"wall_seconds": 0, "compile_seconds": 0} == r2.to_dict() | {
        "wall_seconds": 0,
        "compile_seconds": 0,
    }
    assert r1.config["model"] == "booksim" and r1.config["speculative"] is True
    assert r1.config["routing_delay"] == 0 and r1.algorithm == "nca"
    assert r1.flow_control.startswith("booksim") and r1.conservation
    assert SimConfig().model == "papers"
    assert simulate("kant:k=2,n=2", load=0.1, packets_per_source=5).config["model"] == "papers"


def test_non_speculative_vc_allocation_is_a_stage():
    """Non-speculative: 4 cycles per router instead of 3 (docs/booksim.md, Pipeline)."""
    lat = {
        s: simulate("kant:k=2,n=3", model="booksim", load=0.002, speculative=s, seed=1).avg_latency
        for s in (True, False)
    }
    assert lat[False] > lat[True] + 1.5


def test_unknown_model_lists_the_models():
    with pytest.raises(UnknownNameError, match="booksim.*papers|papers.*booksim"):
        SimConfig(model="booksim2")


@pytest.mark.parametrize(
    "kw, named",
    [
        ({"model": "booksim", "arbitration": "roundrobin"}, "arbitration='roundrobin'"),
        ({"model": "booksim", "router_delay": 2, "termination": "window"}, "router_delay=2"),
        ({"model": "booksim", "algorithm": "alg1"}, "algorithm='alg1'"),
        ({"speculative": False}, "speculative=False"),
        ({"routing_delay": 1}, "routing_delay=1"),
        ({"sim_type": "throughput"}, "sim_type='throughput'"),
    ],
)
def test_options_that_contradict_the_model(kw, named):
    with pytest.raises(ParameterError, match=named.replace("(", r"\(")) as e:
        SimConfig(**kw)
    assert "\n" not in str(e.value)


def test_bad_sim_type_and_speculative():
    with pytest.raises(ParameterError, match="sim_type"):
        SimConfig(model="booksim", sim_type="fast")
    with pytest.raises(ParameterError, match="speculative"):
        SimConfig(model="booksim", speculative="yes")


def test_cli_model_booksim(tmp_path, capsys):
    def run(*a):  # the command as typed, in this process (its startup is tested elsewhere)
        from types import SimpleNamespace

        from fattree.cli import main

        capsys.readouterr()
        rc = main(["simulate", *map(str, a)])
        out, err = capsys.readouterr()
        return SimpleNamespace(returncode=rc, stdout=out, stderr=err)

    out = run("kant:k=2,n=2", "--model", "booksim", "--load", "0.05", "--no-speculative")
    assert out.returncode == 0, out.stderr
    assert "model: booksim" in out.stdout and "non-speculative" in out.stdout
    bad = run("kant:k=2,n=2", "--model", "nope", "--load", "0.1")
    assert bad.returncode == 2 and "booksim" in bad.stderr and "papers" in bad.stderr
    bad = run("kant:k=2,n=2", "--model", "booksim", "--arbitration", "roundrobin", "--load", "0.1")
    assert bad.returncode == 2 and "arbitration" in bad.stderr
    f = tmp_path / "x.anynet"
    f.write_text("router 0 node 0 node 1\nrouter x node 2\n")
    bad = run(f"graph:file={f}", "--model", "booksim", "--load", "0.1")
    assert bad.returncode == 2 and "line 2" in bad.stderr


@pytest.mark.parametrize(
    "rd, spec, cd, flits, vcs, buffer",
    [(2, True, 2, 3, 3, 16), (0, False, 1, 1, 3, 1), (1, True, 0, 5, 2, 8)],
)
def test_pipeline_formula_with_odd_parameters(rd, spec, cd, flits, vcs, buffer, tmp_path):
    """Zero load: (routing_delay + (1 if speculative else 2) + 2) per router + 2 + (F - 1),
    also with VC counts and packet lengths that are not powers of two (the kernel pads)."""
    trace = tmp_path / "t.txt"
    trace.write_text("10 0 7\n")  # 5 routers apart in kant(2,3)
    r = simulate(
        "kant:k=2,n=3",
        model="booksim",
        traffic=f"trace:file={trace}",
        load=None,
        routing_delay=rd,
        speculative=spec,
        credit_delay=cd,
        packet_flits=flits,
        vcs=vcs,
        buffer=buffer,
    )
    assert r.avg_hops - 1 == 5
    assert r.avg_latency == (rd + (1 if spec else 2) + 2) * 5 + 2 + flits - 1


def test_other_families_route_with_the_anynet_min_table():
    r = simulate(
        "torus:k=4,n=2", model="booksim", load=0.05, vcs=3, packet_flits=3, buffer=3, seed=2
    )
    assert r.algorithm == "min" and r.conservation and not r.saturated
    assert r.accepted_flits == pytest.approx(0.05, rel=0.1)
