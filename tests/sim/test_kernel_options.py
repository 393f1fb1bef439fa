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
    assert params == ("net", "sw", "arb", "src", "pkt", "stats", "t_stop")
