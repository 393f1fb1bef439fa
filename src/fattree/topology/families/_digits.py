"""Vectorised helpers for mixed-radix labels (digit i has weight k**i)."""

from __future__ import annotations

from .._np import np


def digit(x: np.ndarray, i: int, k: int) -> np.ndarray:
    """Digit ``i`` (weight ``k**i``) of the integers ``x``."""
    return (x // k**i) % k


def set_digit(x: np.ndarray, i: int, k: int, value) -> np.ndarray:
    """``x`` with digit ``i`` replaced by ``value`` (array or scalar)."""
    return x + (np.asarray(value) - digit(x, i, k)) * k**i


def digits_msd(x: np.ndarray, width: int, k: int) -> np.ndarray:
    """(len(x), width) digits of ``x``, most significant first."""
    x = np.asarray(x, np.int64)
    if width == 0:
        return np.zeros((len(x), 0), np.int64)
    return np.stack([digit(x, i, k) for i in range(width - 1, -1, -1)], axis=1)


def all_nodes_one_class(topo):
    """Every node is equivalent under the automorphisms (vertex-transitive on nodes)."""
    return np.array([0], np.int64), np.array([topo.n_nodes], np.int64)
