"""Partial deadlock: a wedged part of the network while other packets move (docs/simulator.md)."""

from __future__ import annotations

import pytest

import fattree.sim.engine as engine
from fattree.sim import simulate
from fattree.sim.deadlock import find_cycle, stuck_cycle, wedged
from fattree.sim.layout import FS_HPKT, FS_HREADY, FS_LEN, K_T

STAMP = [FS_LEN, FS_HPKT, FS_HREADY]  # changes whenever a head leaves its FIFO

FAULTED = dict(
    fault_rate=0.05,
    algorithm="gns+xt+gdl",
    vcs=1,
    packets_per_source=300,
    deadlock_window=300,
    max_cycles=12000,
)


def _spy(monkeypatch, disable=False):
    """Count the engine's stale checks; with ``disable`` report none (the old rule)."""
    seen = []

    def spy(st):
        c = stuck_cycle(st)
        seen.append((int(st.cnt[K_T]), c, st, st.fs[c][:, STAMP].copy()))
        return [] if disable else c

    monkeypatch.setattr(engine, "stuck_cycle", spy)
    return seen


def test_wedged_keeps_only_what_waits_on_itself():
    g = {1: [2], 2: [3], 3: [1], 4: [1], 5: [6], 6: [5, 99], 7: []}
    w = wedged(g)
    assert w == {1: [2], 2: [3], 3: [1], 4: [1]}
    assert find_cycle(w) == [1, 2, 3]
    assert wedged({1: [2], 2: [1, 3]}) == {}  # 3 is not stale: 2, then 1, may move


@pytest.mark.parametrize("fault_seed", [15, 12])
def test_partial_fault_deadlock_is_reported(monkeypatch, fault_seed):
    seen = _spy(monkeypatch)
    r = simulate("mikant:k=4,n=3", load=0.35, fault_seed=fault_seed, **FAULTED)
    assert r.deadlock and r.termination == "deadlock" and r.conservation
    assert len(r.deadlock_cycle) >= 2 and all(":in" in c for c in r.deadlock_cycle)
    assert r.cycles < FAULTED["max_cycles"]
    assert seen[-1][1]  # found by the stale-FIFO rule, not the global one (flits still move)
    assert r.delivered > 0


def test_partial_deadlock_is_real(monkeypatch):
    """Without the rule the run reaches the cap, and the cycle's heads never move again."""
    seen = _spy(monkeypatch, disable=True)
    r = simulate("mikant:k=4,n=3", load=0.35, fault_seed=15, **FAULTED)
    assert not r.deadlock and r.termination == "cap"
    t0, cyc, st, stamps = next(s for s in seen if s[1])
    assert int(st.cnt[K_T]) == FAULTED["max_cycles"] > t0
    assert (st.fs[cyc][:, STAMP] == stamps).all()


@pytest.mark.parametrize(
    "spec,traffic,load",
    [
        ("kant:k=2,n=3", "alltoone", 0.9),
        ("kant:k=4,n=2", "hotspot", 0.9),
        ("kant:k=4,n=3", "uniform", 0.9),
    ],
)
def test_saturated_live_network_is_not_deadlocked(monkeypatch, spec, traffic, load):
    seen = _spy(monkeypatch)
    r = simulate(
        spec,
        load=load,
        traffic=traffic,
        packets_per_source=40,
        deadlock_window=20,
        max_cycles=6000,
        seed=3,
    )
    assert not r.deadlock and r.deadlock_cycle == [] and r.conservation
    if traffic == "alltoone":  # heads wait long behind the one ejection port: checked, kept
        assert seen and not any(c for _, c, _, _ in seen)
