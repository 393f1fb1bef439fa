"""The simulator's raw row access (fattree.sim.rawmem): unchecked by default, checked as
numba's own indexing is when bounds checks are on (NUMBA_BOUNDSCHECK=1 or
``boundscheck=True``), so that a suite run with them proves every index in range."""

import numpy as np
import pytest
from numba import njit

from fattree.compiling import cache_dir
from fattree.sim.rawmem import ld, st


def _read(a, i):
    return ld(a, i)


def _write(a, i, v):
    st(a, i, v)


checked_read = njit(boundscheck=True)(_read)
checked_write = njit(boundscheck=True)(_write)
plain_read = njit(boundscheck=False)(_read)


def test_in_range_reads_and_writes_the_flat_element():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert checked_read(a, 11) == 11 and plain_read(a, 6) == 6
    checked_write(a, 5, 70)
    assert a[1, 1] == 70


@pytest.mark.parametrize("i", [12, 13, -1, -12])
def test_out_of_range_raises_when_bounds_are_checked(i):
    a = np.zeros((3, 4), np.int32)
    with pytest.raises(IndexError, match="out of bounds"):
        checked_read(a, i)
    with pytest.raises(IndexError, match="out of bounds"):
        checked_write(a, i, 1)
    assert not a.any()


def test_checked_kernels_are_cached_apart(monkeypatch):
    """numba's cache keys a kernel by its signature and machine, not by its bounds checks:
    checked kernels live in a folder of their own."""
    monkeypatch.delenv("NUMBA_BOUNDSCHECK", raising=False)
    plain = cache_dir()
    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "1")
    assert cache_dir() == plain.with_name(plain.name + "-boundscheck")
    monkeypatch.setenv("NUMBA_BOUNDSCHECK", "0")
    assert cache_dir() == plain
