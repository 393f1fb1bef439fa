"""Shared test helpers."""

from __future__ import annotations

import os

import numpy as np

# pytest-xdist's workers set COLUMNS=80, which the CLI honours (as it should for a user's
# terminal); the tests expect a pipe's output, as under plain pytest
os.environ.pop("COLUMNS", None)


def assert_ports_consistent(topo) -> None:
    """Port p of A leads to B, whose port back leads to A; node attachments agree."""
    n = topo.n_nodes
    peer, back = topo.port_peer, topo.port_peer_port
    s_idx, p_idx = np.nonzero(peer >= 0)
    v = peer[s_idx, p_idx].astype(np.int64)
    node = v < n
    assert np.array_equal(topo.node_switch[v[node]], s_idx[node])
    assert np.array_equal(topo.node_port[v[node]], p_idx[node])
    sw = ~node
    b = back[s_idx[sw], p_idx[sw]]
    assert np.all(peer[v[sw] - n, b] == n + s_idx[sw])
    assert np.all(back[v[sw] - n, b] == p_idx[sw])
    # every node hangs on exactly one switch port
    assert np.all(topo.node_switch >= 0)
    assert node.sum() == n


#: the suite's longest tests (tens of seconds each on 2 cores; `make test` prints the 15
#: longest), by node id prefix, longest first. They run first: xdist's work stealing then
#: balances the short tests behind them, and no long test is left for the end, when one
#: worker would run it while the other waits
LONGEST = (
    "tests/faults/test_cdg.py::test_random_fault_sets_all_algorithms_acyclic_with_2_vcs[mikant:k=3,n=4]",
    "tests/sim/test_compile_only_what_runs.py::test_each_kernel_compiles_only_its_own_fault",
    "tests/cli/test_sweep_cli.py::test_shipped_quick_study_end_to_end",
    "tests/sim/test_workload_packet.py::test_the_levels_agree_on_512_ranks",
    "tests/sweep/test_equal_cost.py::test_quick_study_writes_the_summary_and_verdict",
    "tests/arch/test_imports.py::test_every_module_imports_in_a_fresh_interpreter",
    "tests/report/test_fault_families.py::test_quick_entry_runs_and_writes",
    "tests/sweep/test_engine.py::test_sigkill_the_sweep_then_resume",
    "tests/analysis/test_design_metrics.py::test_objectives_order_the_rows",
    "tests/analysis/test_bisection.py::test_ilp_stops_at_a_node_limit_the_same_on_any_machine",
    "tests/faults/test_cdg.py::test_random_fault_sets_all_algorithms_acyclic_with_2_vcs",
)


def pytest_collection_modifyitems(config, items):
    """Run :data:`LONGEST` first (in that order); the others keep their order."""

    def rank(item) -> int:
        return next((i for i, p in enumerate(LONGEST) if item.nodeid.startswith(p)), len(LONGEST))

    items.sort(key=rank)  # (stable; every worker collects the same order)
