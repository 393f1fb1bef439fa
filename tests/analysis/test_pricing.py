"""The cost and power model: price file, bill of materials (graph vs closed forms), CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import fattree
from fattree.analysis.pricing import bill_from_forms, bill_from_graph, cost, load_prices, price
from fattree.errors import InputFileError


def test_defaults_load_and_every_key_is_documented_as_an_assumption():
    from importlib import resources

    text = resources.files("fattree").joinpath("data/prices.toml").read_text()
    p = load_prices()
    assert p.nodes_per_rack == 32 and p.catalogue[0] == 8
    assert text.count("Assumption") + text.count("ASSUMPTION") >= 6


@pytest.mark.parametrize(
    "spec",
    [
        "kant:k=16,n=3",
        "xgft:m=16.16.16,w=1.8.8",
        "xgft:m=16.16.16,w=1.4.4",
        "mikant:k=8,n=4",
        "clos:k=8,n=4",
        "xgft:m=4.4.4,w=1.2.2",
    ],
)
def test_graph_bill_equals_forms_bill_at_the_default_layout(spec):
    p = load_prices()
    t = fattree.build(spec)
    g = bill_from_graph(t, p)
    f = bill_from_forms(t.family, dict(t.params), p)
    assert (g.switches, g.links, g.switch_ports) == (f.switches, f.links, f.switch_ports)
    if spec != "xgft:m=4.4.4,w=1.2.2":
        assert (g.copper, g.optical) == (f.copper, f.optical)
    else:  # 64 nodes in 2 racks: the level-1 switches serve one rack each -> copper
        assert g.copper > f.copper and g.links == f.links


def test_small_network_in_one_rack_is_all_copper():
    b = bill_from_graph(fattree.build("kant:k=2,n=3"), load_prices())
    assert b.optical == 0 and b.copper == b.links == 24 and b.racks == 1


def test_totals_add_up_by_hand():
    p = load_prices()
    c = price(bill_from_forms("kant", {"k": 16, "n": 3}, p), p)
    # 768 switches x (2000 + 32 x 250) + 4096 DAC x 50 + 8192 fibres x 50 + 16384 modules x 250
    assert c.total == 768 * 10000 + 4096 * 50 + 8192 * 50 + 16384 * 250
    assert c.watts == 768 * 150 + (2 * 12288 - 4096) * 5 + 16384 * 3.5


def test_cost_per_bisection_and_throughput():
    c = cost("xgft:m=4.4.4,w=1.2.2")
    assert c.bisection == 8 and c.algorithm == "dmodk"
    assert c.per_throughput == pytest.approx(c.total / (64 * c.bound))


@pytest.mark.slow
def test_tapering_saves_money():
    full, half = cost("xgft:m=16.16.16,w=1.16.16").total, cost("xgft:m=16.16.16,w=1.8.8").total
    assert half < full


@pytest.mark.parametrize(
    "text,needle",
    [
        ("[switch]\nbase = -5\n", "line 2: switch.base = -5 is invalid"),
        (
            "[layout]\nnodes_per_rack = 32\nracks_per_rows = 3\n",
            "line 3: unknown key layout.racks_per_rows",
        ),
        ("[switch]\ncatalogue = [8, 'x']\n", "line 2: switch.catalogue"),
        ("[cable]\ncopper = \n", "invalid TOML"),
        ("[layout]\nnodes_per_rack = 2.5\n", "line 2: layout.nodes_per_rack = 2.5"),
    ],
)
def test_malformed_price_file_names_key_and_line(tmp_path, text, needle):
    f = tmp_path / "p.toml"
    f.write_text(text)
    with pytest.raises(InputFileError, match=needle.replace("[", r"\[").replace(".", r"\.")):
        load_prices(f)


def test_user_file_overrides_a_subset(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("[transceiver]\nprice = 0\n")
    assert cost("kant:k=4,n=3", load_prices(f)).money["transceivers"] == 0


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "fattree.cli", *args], capture_output=True, text=True
    )


@pytest.mark.slow
def test_cli_cost_json_and_bad_file(tmp_path):
    r = _cli("cost", "xgft:m=4.4.4,w=1.2.2", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["bill"]["nodes"] == 64 and d["total"] > 0 and d["version"]
    f = tmp_path / "bad.toml"
    f.write_text("[power]\nswitch_port = 'five'\n")
    r = _cli("cost", "kant:k=4,n=3", "--prices", str(f))
    assert r.returncode == 2 and r.stderr.startswith("error: ")
    assert (
        len(r.stderr.strip().splitlines()) == 1
        and "line 2" in r.stderr
        and "power.switch_port" in r.stderr
    )
