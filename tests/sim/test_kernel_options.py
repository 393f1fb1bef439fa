"""The simulator kernel is compiled without reference counting (a 3x speed matter)."""

from fattree.sim import kernel


def test_kernel_is_compiled_without_nrt():
    # numba's private option; if an upgrade removes it the kernel falls back to NRT and
    # runs about 3x slower (benchmarks/sim_speed.py): this test is the alarm
    assert kernel.NO_NRT == {"_nrt": False}
    assert kernel._run.targetoptions.get("_nrt") is False


def test_every_state_array_is_in_exactly_one_named_group():
    # the kernel takes named groups, each filled by field name from State: a new array
    # must be added to one group (and only one), or the kernel never sees it
    from dataclasses import fields

    from fattree.sim.state import GROUPS, State

    grouped = [f for g in GROUPS for f in g._fields]
    assert sorted(grouped) == sorted(f.name for f in fields(State))
    assert len(grouped) == len(set(grouped))
    params = kernel._run.py_func.__code__.co_varnames[: kernel._run.py_func.__code__.co_argcount]
    assert params == ("net", "sw", "arb", "src", "pkt", "stats", "flt", "t_stop")


def test_grow_queues_unwraps_every_ring_in_blocks():
    """Growing the source queues keeps each node's waiting packets in order, head first,
    across the row blocks it unwraps at a time (sim/state.py)."""
    from types import SimpleNamespace

    import numpy as np

    from fattree.sim.state import State

    rng = np.random.default_rng(3)
    n, cap = 300_001, 8  # blocks of 2**20 // 8 rows: three blocks, the last one short
    q = rng.integers(0, 1 << 30, (n, cap)).astype(np.int32)
    qh = rng.integers(0, cap, n).astype(np.int64)
    s = SimpleNamespace(q=q.copy(), qh=qh.copy())
    State.grow_queues(s)
    assert s.q.shape == (n, 2 * cap) and s.q.dtype == np.int32 and not s.qh.any()
    for i in (0, 1, 131_071, 131_072, 262_144, n - 1):
        want = np.roll(q[i], -int(qh[i]))
        assert (s.q[i, :cap] == want).all() and not s.q[i, cap:].any()
    ref = np.take_along_axis(q, (qh[:, None] + np.arange(cap)[None, :]) % cap, axis=1)
    assert (s.q[:, :cap] == ref).all()
