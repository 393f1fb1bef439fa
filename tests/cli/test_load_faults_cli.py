"""Channel load under a fault set (`routing load --faults`) and switch-only random faults
in `simulate` (`--fault-pool`), as a user types them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fattree.cli import main


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_routing_load_faults_bound(capsys, tmp_path):
    empty = tmp_path / "none.txt"
    empty.write_text("")
    two = tmp_path / "two.txt"
    two.write_text("s0.0.0 s1.0.0\ns0.0.1 s1.0.1\n")
    code, out, err = run(capsys, "routing", "load", "kant:k=4,n=3", "--faults", empty, "--json")
    assert code == 0, err
    free = json.loads(out)
    assert free["algorithm"] == "detour" and free["faulty_links"] == 0
    assert free["bound"] == pytest.approx(1.0)  # kant(4,3) is non-blocking under uniform
    code, out, err = run(capsys, "routing", "load", "kant:k=4,n=3", "--faults", two, "--json")
    hurt = json.loads(out)
    assert code == 0 and hurt["faulty_links"] == 2
    # two of the 16 links out of leaf s0.0.0 / s0.0.1 are gone: 3 of 4 up links carry them
    assert hurt["bound"] == pytest.approx(0.75)
    code, out, _ = run(capsys, "routing", "load", "kant:k=4,n=3", "--faults", two)
    assert code == 0 and "2 failed links" in out and "0.7500" in out


def test_routing_load_vcs_needs_fault_tolerant_routing(capsys):
    code, _, err = run(capsys, "routing", "load", "kant:k=2,n=2", "--vcs", "2")
    assert code == 2 and "vcs=2" in err and "--faults" in err


def test_simulate_fault_pool_switch_only_spares_node_links():
    from fattree import build
    from fattree.sim.config import SimConfig
    from fattree.sim.engine import fault_mask

    topo = build("kant:k=4,n=3")
    for seed in range(5):
        mask = fault_mask(
            topo, SimConfig(fault_rate=0.2, fault_seed=seed, fault_pool="switch-only")
        )
        assert not mask[: topo.n_nodes].any() and mask.any()
    every = np.zeros(topo.n_links, bool)
    for seed in range(20):
        every |= fault_mask(topo, SimConfig(fault_rate=0.2, fault_seed=seed))
    assert every[: topo.n_nodes].any()  # the default pool includes node links


def test_simulate_fault_pool_refused_without_fault_rate(capsys):
    code, _, err = run(capsys, "simulate", "kant:k=2,n=2", "--fault-pool", "switch-only")
    assert code == 2 and "fault_pool" in err and "--fault-rate" in err
    code, _, err = run(
        capsys, "simulate", "kant:k=2,n=2", "--fault-rate", "0.1", "--fault-pool", "some"
    )
    assert code == 2 and "fault_pool" in err and "switch-only" in err
