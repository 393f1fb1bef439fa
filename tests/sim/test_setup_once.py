"""One ``fattree simulate`` sets the simulation up once, for either model.

The routing is compiled once, the pattern bound once, the memory estimated once and the
injection process bound once per load (not again inside the library), whether the command
runs one load or a curve; ``simulate`` and ``simulate_loads`` do the same. Each count is
taken at the function every path goes through (``compile_routing`` resolves its algorithm
with ``get_algorithm``; ``make_traffic`` and ``make_process`` validate their options with
``validate_options``; ``check_memory`` estimates with ``estimate_memory``).
"""

from __future__ import annotations

import collections

import pytest
from typer.testing import CliRunner

import fattree.routing.compiled as compiled
import fattree.sim.memory as memory
import fattree.traffic.injection as injection
import fattree.traffic.patterns as patterns
from fattree.cli import app
from fattree.sim import SimConfig, prepare, simulate, simulate_loads
from fattree.sim.setup import SimSetup


@pytest.fixture
def counts(monkeypatch):
    n = collections.Counter()

    def wrap(module, name, key):
        real = getattr(module, name)

        def counted(*a, **k):
            n[key] += 1
            return real(*a, **k)

        monkeypatch.setattr(module, name, counted)

    wrap(compiled, "get_algorithm", "routing")
    wrap(patterns, "validate_options", "traffic")
    wrap(injection, "validate_options", "process")
    wrap(memory, "estimate_memory", "memory")
    return n


@pytest.mark.parametrize(
    "args, model, loads",
    [
        (["--load", "0.1"], "papers", 1),
        (["--loads", "0.1:0.3:0.1"], "papers", 3),
        (["--load", "0.1", "--model", "booksim"], "booksim", 1),
        (["--loads", "0.1:0.2:0.1", "--model", "booksim"], "booksim", 2),
    ],
)
def test_cli_simulate_sets_up_once(counts, args, model, loads):
    short = ["-P", "20"] if model == "papers" else []  # (-P is the papers model's)
    r = CliRunner().invoke(app, ["simulate", "kant:k=2,n=2", *args, *short])
    assert r.exit_code == 0, r.output
    assert counts["routing"] == 1, counts
    assert counts["traffic"] == 1, counts
    assert counts["memory"] == 1, counts
    # one process per load (the booksim model's Bernoulli sources are its own)
    assert counts["process"] == (loads if model == "papers" else 0), counts


def test_simulate_and_curve_set_up_once(counts):
    r = simulate("kant:k=2,n=2", load=0.1, packets_per_source=20, seed=1)
    assert r.delivered > 0
    assert (counts["routing"], counts["traffic"], counts["memory"], counts["process"]) == (
        1,
        1,
        1,
        1,
    )
    counts.clear()
    df = simulate_loads("kant:k=2,n=2", [0.1, 0.2], packets_per_source=20, bound=False)
    assert len(df) == 2
    assert (counts["routing"], counts["traffic"], counts["memory"], counts["process"]) == (
        1,
        1,
        1,
        2,
    )


def test_setup_at_rebinds_only_the_process():
    s = prepare("kant:k=2,n=2", SimConfig(load=0.1))
    t = s.at(0.3)
    assert isinstance(t, SimSetup) and s.at(0.1) is s
    assert t.routing is s.routing and t.traffic is s.traffic and t.memory is s.memory
    assert t.cfg.load == 0.3 and t.process is not s.process
    b = prepare("kant:k=2,n=2", SimConfig(load=0.1, model="booksim"))
    assert b.routing.compiled.algorithm == "booksim-nca" and b.process is None


def test_setup_results_equal_simulate():
    """The setup path gives the results of one simulate call, bit for bit."""
    from fattree.sim import run

    cfg = SimConfig(load=0.2, packets_per_source=30, seed=3)
    s = prepare("kant:k=2,n=3", cfg.with_load(0.1))
    a = run(s.at(0.2)).to_dict()
    b = simulate("kant:k=2,n=3", cfg).to_dict()
    for k in ("wall_seconds", "compile_seconds"):
        a.pop(k), b.pop(k)
    assert repr(a) == repr(b)


def test_cli_simulate_with_faults_checks_memory_once(counts):
    """With faults the memory and the process are set up once too; the fault router
    (sim/faulthop.py) compiles the family's routing and binds the pattern for its bound
    on its own."""
    args = ["--load", "0.1", "--fault-rate", "0.1", "--fault-seed", "1", "-P", "20"]
    r = CliRunner().invoke(app, ["simulate", "kant:k=2,n=2", *args])
    assert r.exit_code == 0, r.output
    assert counts["memory"] == 1 and counts["process"] == 1, counts
