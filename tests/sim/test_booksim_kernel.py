"""The booksim kernel's fast paths give the general path's results exactly.

The kernel is compiled for one VC and 1-flit packets as constants (``SHAPE_1VC_1FLIT``,
where each output resolves its requests from a bit mask instead of the iSLIP lists), takes
``nca``'s down port without its table when every table is the identity (kant), and places
its arrays on cache lines; none of this may change a result.
"""

from __future__ import annotations

import numpy as np
import pytest

from fattree.sim import simulate
from fattree.sim.booksim import kernel as K
from fattree.sim.booksim import model as M


def _same(a, b):
    skip = {"wall_seconds": 0, "compile_seconds": 0}
    assert a.to_dict() | skip == b.to_dict() | skip


@pytest.mark.parametrize(
    "spec, kw",
    [
        ("kant:k=4,n=3", dict(load=0.3)),
        ("kant:k=4,n=3", dict(load=1.0, sim_type="throughput", traffic="transpose")),
        ("kant:k=3,n=3", dict(load=0.2, speculative=False, routing_delay=1, credit_delay=2)),
        ("mikant:k=4,n=3", dict(load=0.05, traffic="hotspot")),
        ("kant:k=16,n=2", dict(load=0.5, buffer=3, traffic="bitcomp")),  # 32 ports
    ],
)
def test_one_vc_one_flit_kernel_is_the_general_kernel(spec, kw, monkeypatch):
    fast = simulate(spec, model="booksim", seed=5, **kw)
    assert K.shape_of(np.array([0, 0, 1, 0, 1] + [0] * 14)) == K.SHAPE_1VC_1FLIT
    assert K.shape_of(np.array([0, 128, 1, 0, 1] + [0] * 14)) == K.SHAPE_ANY  # > 64 ports
    monkeypatch.setattr(K, "shape_of", lambda cfg: K.SHAPE_ANY)
    _same(fast, simulate(spec, model="booksim", seed=5, **kw))


def test_down_port_table_and_identity_agree(monkeypatch):
    kw = dict(model="booksim", load=0.4, vcs=2, packet_flits=2, seed=3)
    direct = simulate("kant:k=4,n=3", **kw)
    monkeypatch.setattr(M, "_down_identity", lambda *a: False)
    _same(direct, simulate("kant:k=4,n=3", **kw))


def test_down_identity_detects_a_permuted_switch():
    lo = np.array([[0, 4, 8, 12, -1, -1, -1, -1], [16, 20, 24, 28, -1, -1, -1, -1]])
    hi = np.where(lo >= 0, lo + 3, -2)
    dsub, dport = M._down_tiles(lo, hi)
    assert M._down_identity(dsub, dport, lo, hi)
    lo[1, :4], hi[1, :4] = lo[1, [1, 0, 2, 3]], hi[1, [1, 0, 2, 3]]
    dsub, dport = M._down_tiles(lo, hi)
    assert not M._down_identity(dsub, dport, lo, hi)


@pytest.mark.parametrize("dtype", [np.int64, K.IV_DT, K.PP_DT])
def test_arrays_start_on_a_cache_line_in_their_lane(dtype):
    for lane in (0, 9, 70):
        a = M._zeros(100, dtype, lane)
        assert a.ctypes.data % 4096 == lane * 64 % 4096
        assert len(a) == 100 and a.dtype == np.dtype(dtype) and not np.any(a.view(np.uint8))
    b = M._aligned(np.arange(7, dtype=np.int32), 3)
    assert b.ctypes.data % 4096 == 192 and list(b) == list(range(7))
