"""002's models and tables: regenerated values, and the flagged inconsistencies."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from fattree.analysis import kncube
from fattree.analysis._paper002 import agrees
from fattree.analysis.closed_forms import closed_forms
from fattree.errors import ParameterError


def flags(name: str) -> dict:
    """{(k, n): flagged columns} of a table keyed by integer k and n."""
    t = kncube.TABLES_002.get(name)()
    return {(int(row["k"]), int(row["n"])): row["flag"] for _, row in t.iterrows() if row["flag"]}


@pytest.mark.parametrize(
    "name",
    [
        "cube-bisection-4096",
        "cube-nodesize-4096",
        "cube-tnet-256",
        "cube-tnet-16384",
        "fattree-tnet-256",
        "fattree-tnet-16384",
        "hypertree-4096",
    ],
)
def test_tables_reproduced_to_printed_precision(name):
    t = kncube.TABLES_002.get(name)()
    assert (t["flag"] == "").all(), t[t["flag"] != ""]
    printed = [c for c in t.columns if c.endswith("_printed")]
    compared = sum(isinstance(x, str) and agrees(1.0, x) is not None for c in printed for x in t[c])
    assert compared >= 15  # the comparison really happened


def test_cube_tables_need_l_1000():
    t = kncube.TABLES_002.get("cube-tnet-256")()
    assert "L = 1000" in t.attrs["notes"][0]
    # with the L = 150 printed beside the fat-tree tables, the L/W column would not match
    alt = kncube.kncube_tnet_table(256, 150.0, "nodesize", 640.0, n_max=15)
    assert not agrees(float(alt.loc[0, "L/W"]), "3.13")
    assert (t.loc[t["k"] < 2, "note"] != "").all() and (t.loc[t["k"] >= 2, "note"] == "").all()


def test_flat_fattree_flags():
    assert flags("flat-fattree-4096") == {(2, 12): "routers", (8, 4): "leaf_W", (16, 3): "leaf_W"}
    t = kncube.TABLES_002.get("flat-fattree-4096")()
    assert list(t["routers"]) == [4095, 1365, 585, 273, 65]
    # the printed widths are the computed ones rounded *up* (5.33 -> 5.4, 4.55 -> 4.6)
    w = t.set_index("k")["leaf_W"]
    assert math.ceil(w[8] * 10) / 10 == 5.4 and math.ceil(w[16] * 10) / 10 == 4.6


def test_fattree_hop_table_is_eq3_at_integer_arity():
    t = kncube.TABLES_002.get("fattree-hops-16384")()
    flagged = [int(n) for n, f in zip(t["n"], t["flag"]) if f]
    assert flagged == [4, 5, 8, 9, 10, 11, 12, 13]
    both = t.dropna(subset=["D_printed"])
    assert all(agrees(d, p) for d, p in zip(both["D_integer_k"], both["D_printed"]))
    # the printed formula, read literally, matches nothing
    assert not any(
        agrees(d, p) for d, p in zip(both["D_printed_formula"][1:], both["D_printed"][1:])
    )


def test_fattree_hops_equal_000_eq_3():
    for k, n in [(2, 3), (3, 4), (8, 2)]:
        avg = closed_forms("kant", {"k": k, "n": n})["avg_distance"].value
        assert kncube.fattree_avg_hops(k, n) == pytest.approx(float(avg))


def test_dally_contention_reconstruction():
    t = kncube.TABLES_002.get("dally-contention-4096")().set_index("k")
    # the binary 12-cube row is reproduced to printed precision
    assert all(
        agrees(t.loc[2, c], t.loc[2, c + "_printed"])
        for c in ("latency_0.1", "latency_0.2", "latency_0.3")
    )
    # every row within 5% at light load, saturation within 0.05 of Dally's
    for k in t.index:
        assert t.loc[k, "latency_0.1"] == pytest.approx(
            float(t.loc[k, "latency_0.1_printed"]), rel=0.05
        )
        assert abs(t.loc[k, "max_throughput"] - float(t.loc[k, "max_throughput_printed"])) < 0.05
    assert "reconstruction" in t.attrs["notes"][0]
    # zero load is the base latency n k_d + L/W; beyond saturation the latency is infinite
    assert kncube.dally_latency(8, 4, 0.0) == 4 * 3.5 + 200 / 4
    assert math.isinf(kncube.dally_latency(8, 4, 0.5))
    assert kncube.dally_latency(8, 4, 0.2) > kncube.dally_latency(8, 4, 0.1)


def test_dally_minimum_latency_dimensions():
    # "Dally finds that for N = 256, 16384 the minimum latency points are n = 2, 4"
    for nodes, n_best in ((256, 2), (16384, 4)):
        t = kncube.kncube_tnet_table(nodes, 150.0, "bisection")
        t = t[t["k"] >= 2]
        assert int(t.loc[t["Tnet"].idxmin(), "n"]) == n_best


def test_bisection_and_width_models():
    assert kncube.bisection_bandwidth(2, 12, 1) == 4096
    for k, n in kncube.integer_shapes(4096, 2):
        assert kncube.bisection_bandwidth(k, n, kncube.channel_width(k, n, "bisection")) == 4096
        assert 2 * n * kncube.channel_width(k, n, "nodesize") == pytest.approx(24)
    assert kncube.integer_shapes(4096, 2) == [(2, 12), (4, 6), (8, 4), (16, 3), (64, 2)]
    assert kncube.channel_width(8, 4, "nodesize", node_size=640) == 80


def test_wire_models():
    assert kncube.channel_time(16, 3, "constant") == 1
    assert kncube.channel_time(16, 4, "linear") == 16
    assert kncube.channel_time(16, 4, "log") == pytest.approx(1 + math.log(16))
    assert (
        kncube.channel_time(4096, 1, "log") == kncube.channel_time(4096, 1, "linear") == 1
    )  # floor at n = 1
    assert kncube.tnet_kncube(16, 2, 150, 8, "constant") == 15 + 150 / 8


def test_hypertree_router_counts():
    for k, n in [(2, 3), (4, 3), (8, 4)]:
        kant_switches = closed_forms("kant", {"k": k, "n": n})["switches"].value
        assert kncube.hypertree_routers(k, n) == kant_switches
        # 002's (n/k + 1) k^n counts the k^n terminals too (errata)
        assert kncube.hypertree_routers_printed(k, n) == kant_switches + k**n
        # the growth form at G = k is the same tree; as printed it is k times too large
        assert kncube.hypertree_routers(k, n, growth=k) == kant_switches
        assert kncube.hypertree_routers_printed(k, n, growth=k) == k * kant_switches
    assert kncube.flat_fattree_routers(4, 6) == 1365


def test_volume_universal_growth():
    assert kncube.volume_universal_growth(8) == pytest.approx(4)
    assert kncube.volume_universal_bisection(8, 3, 64) == pytest.approx(4096)
    t = kncube.TABLES_002.get("flat-fattree-4096")()
    for k, n, leaf in zip(t["k"], t["n"], t["leaf_B"]):
        assert kncube.volume_universal_bisection(k, n - 1, leaf) == pytest.approx(4096)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: kncube.channel_time(4, 2, "quadratic"), "wire='quadratic'"),
        (lambda: kncube.channel_width(4, 2, "area"), "constraint='area'"),
        (lambda: kncube.kncube_table(3), "nodes=3"),
        (lambda: kncube.avg_hops(1, 2), "k=1"),
        (lambda: kncube.avg_hops(4, 0), "n=0"),
        (lambda: kncube.dally_latency(4, 6, 1.2), "load=1.2"),
        (lambda: kncube.fattree_tnet_table(256, width_rule="pins"), "width_rule='pins'"),
        (lambda: kncube.fattree_tnet(4, 2, 150, 0), "width=0"),
        (lambda: kncube.volume_universal_bisection(4, -1), "level=-1"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_exactness_of_integer_models():
    assert isinstance(kncube.hypertree_routers(4, 3), int)
    assert Fraction(kncube.flat_fattree_routers(2, 12)) == 4095
