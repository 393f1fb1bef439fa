"""A quiet network is not a deadlock; a reported deadlock names a real cycle; a trace's
late packets are simulated.

At a very low load (or with very long packets) no flit may cross a switch for longer
than the deadlock window; the first packet injected after such a spell used to make the
global rule report a "deadlock" with an empty channel cycle, and the run ended with the
packet never delivered.
"""

from __future__ import annotations

import pytest

from fattree.sim import simulate
from fattree.sim.reference import simulate_reference
from fattree.traffic.trace import MAX_CYCLE, read_trace
from fattree.errors import InputFileError

from .test_reference import KEYS, same


def test_very_low_load_delivers_every_packet():
    # the CLI case: fattree simulate kant:k=2,n=2 --load 1e-4 -P 1
    r = simulate("kant:k=2,n=2", load=1e-4, packets_per_source=1)
    assert not r.deadlock and r.deadlock_cycle == []
    assert r.termination == "papers" and r.delivered == r.created and r.measured == 4


def test_very_long_packets_deliver():
    # fattree simulate kant:k=2,n=2 --packet-flits 4096 --load 0.1 -P 2
    r = simulate("kant:k=2,n=2", packet_flits=4096, load=0.1, packets_per_source=2)
    assert not r.deadlock and r.termination == "papers" and r.measured == 8


@pytest.mark.parametrize(
    "kw",
    [
        dict(load=0.01, deadlock_window=5),
        dict(load=0.02, deadlock_window=3, router_delay=2, credit_delay=1, buffer=3),
        dict(load=0.05, deadlock_window=4, packet_flits=3, vcs=2),
        dict(load=0.01, deadlock_window=5, termination="window", warmup=100, measure=600),
    ],
)
def test_idle_spells_longer_than_the_window_kernel_equals_reference(kw):
    # a tiny window makes idle spells longer than it frequent: every one of them is the
    # old false positive; kernel and reference agree and neither reports a deadlock
    kw = dict(packets_per_source=12, seed=5) | kw
    a = simulate("kant:k=2,n=3", **kw).to_dict()
    b = simulate_reference("kant:k=2,n=3", **kw)
    diff = {k: (a[k], b[k]) for k in KEYS if not same(a[k], b[k])}
    assert not diff, diff
    assert not a["deadlock"] and a["termination"] == kw.get("termination", "papers")
    if a["termination"] == "papers":
        assert a["measured"] == 8 * 12  # every source's first 12 packets


def test_a_real_deadlock_names_its_cycle():
    kw = dict(load=1.0, traffic="tornado", packet_flits=6, buffer=2, algorithm="shortest")
    r = simulate("torus:k=5,n=1", packets_per_source=12, seed=5, deadlock_window=50, **kw)
    assert r.deadlock and len(r.deadlock_cycle) >= 2
    assert all(":in" in c for c in r.deadlock_cycle)


def test_trace_packets_after_cycle_100000_are_simulated(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("0 0 3\n150000 1 2\n250000 2 0\n")
    r = simulate("kant:k=2,n=2", traffic=f"trace:file={f}")
    assert r.delivered == 3 and not r.saturated and r.termination == "papers"
    assert r.cycles > 250_000


def test_trace_cycle_beyond_the_counter_refused(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text(f"0 0 1\n{2**70} 1 0\n")
    with pytest.raises(InputFileError, match=r"t.txt:2: .*out of range"):
        read_trace(f)
    f.write_text(f"{MAX_CYCLE} 0 1\n")
    assert read_trace(f)[0].tolist() == [MAX_CYCLE]
