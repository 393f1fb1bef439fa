"""The simulator kernel is compiled without reference counting (a 3x speed matter)."""

from fattree.sim import kernel


def test_kernel_is_compiled_without_nrt():
    # numba's private option; if an upgrade removes it the kernel falls back to NRT and
    # runs about 3x slower (benchmarks/sim_speed.py): this test is the alarm
    assert kernel.NO_NRT == {"_nrt": False}
    assert kernel._run.targetoptions.get("_nrt") is False
