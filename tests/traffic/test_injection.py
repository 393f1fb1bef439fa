"""Injection processes: rates, the exact-count process, bursts, traces, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fattree.errors import ParameterError, UnknownNameError
from fattree.sim.reference import _creators
from fattree.traffic import INJECTIONS, create_cycle, make_process, make_traffic


def run(proc, n, cycles, seed=1, active=None):
    ids = np.arange(n) if active is None else np.flatnonzero(active)
    out = np.zeros(max(n, proc.max_creators), np.int64)
    state = proc.state.copy()
    per_cycle = []
    for t in range(cycles):
        c = create_cycle(proc.code, proc.iparams, proc.table, state, ids, t, seed, out)
        per_cycle.append(out[:c].copy())
    return per_cycle


def test_bernoulli_rate_in_packets_is_load_over_flits():
    n, cycles = 32, 4000
    proc = make_process("bernoulli", make_traffic("uniform", n), 0.6, 3)
    total = sum(len(c) for c in run(proc, n, cycles))
    p = 0.6 / 3
    mean, sd = n * cycles * p, math.sqrt(n * cycles * p * (1 - p))
    assert abs(total - mean) < 4 * sd


def test_exact_sends_floor_or_ceil_distinct_senders():
    n, load = 40, 0.33  # 13.2 senders per cycle
    proc = make_process("exact", make_traffic("uniform", n), load, 1)
    counts = []
    for c in run(proc, n, 3000):
        assert len(set(c.tolist())) == len(c)
        counts.append(len(c))
    assert set(counts) == {13, 14}
    assert abs(np.mean(counts) - 13.2) < 0.05


def test_exact_senders_are_uniform_over_nodes():
    n = 10
    proc = make_process("exact", make_traffic("uniform", n), 0.3, 1)
    hits = np.bincount(np.concatenate(run(proc, n, 5000)), minlength=n)
    assert hits.min() > 0.9 * 1500 and hits.max() < 1.1 * 1500


def test_bursty_keeps_the_rate_and_is_bursty():
    n, cycles, load = 64, 6000, 0.2
    proc = make_process("bursty:burst=20", make_traffic("uniform", n), load, 1)
    created = np.zeros((cycles, n), bool)
    for t, c in enumerate(run(proc, n, cycles)):
        created[t, c] = True
    assert abs(created.mean() - load) < 0.02
    # consecutive creations of a node are strongly correlated (Bernoulli: not at all)
    same = (created[1:] & created[:-1]).sum() / created[:-1].sum()
    assert same > 0.8


def test_processes_match_the_python_reference():
    n = 12
    tr = make_traffic("uniform", n)
    for spec in ("bernoulli", "exact", "bursty:burst=5"):
        proc = make_process(spec, tr, 0.45, 2, seed=9)
        state = [int(x) for x in proc.state]
        ptr = [0]
        ids = list(range(n))
        for t, got in enumerate(run(proc, n, 300, seed=9)):
            want = _creators(proc, ids, t, 9, state, None, ptr)
            assert sorted(got.tolist()) == sorted(want)


def test_trace_process_follows_the_file(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("3 1 2\n0 0 1\n3 1 0\n7 2 0\n")
    tr = make_traffic(f"trace:file={path}", 4)
    proc = make_process(None, tr, None, 1)
    assert proc.name == "trace" and proc.max_per_cycle == 2
    got = run(proc, 4, 9)
    assert [c.tolist() for c in got] == [[0], [], [], [1, 1], [], [], [], [2], []]
    assert tr.active.tolist() == [True, True, True, False]


@pytest.mark.parametrize("load", [0, -0.1, 1.5, float("nan"), True])
def test_load_outside_range(load):
    with pytest.raises(ParameterError, match="load=.* 0 < load <= 1"):
        make_process("bernoulli", make_traffic("uniform", 8), load, 1)


def test_trace_and_process_do_not_mix(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("0 0 1\n")
    with pytest.raises(ParameterError, match="gives its own creation times"):
        make_process("bernoulli", make_traffic(f"trace:file={path}", 4), 0.1, 1)
    with pytest.raises(ParameterError, match="gives its own creation times"):
        make_process("trace", make_traffic("uniform", 4), 0.1, 1)


def test_unknown_process_lists_valid_ones():
    with pytest.raises(UnknownNameError, match="unknown injection process 'poisson'.*bernoulli"):
        make_process("poisson", make_traffic("uniform", 8), 0.1, 1)
    assert {"bernoulli", "exact", "bursty"} <= set(INJECTIONS.names())
