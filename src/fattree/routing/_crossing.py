"""Root-crossing rules for MiKANT that spread second crossings over the cross links and
stay deadlock-free with one virtual channel (docs/routing.md, "Channel load").

A same-group route whose digit n-2 differs from the destination's crosses from root y
to the other group's root i = f(y, t), then back to root t. If no cross channel is both a
first crossing (y -> i) and a second crossing (i -> t) of some route, first crossings are
followed only by second crossings and those only by down hops: no cycle. Algorithm 1's
rule f = t uses each straight link for k-1 second crossings; the tables here use every
cross channel at most twice.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError

# k <= 4: f(y, t) by exhaustive search, rows y, columns t (the diagonal is unused)
_SMALL = {2: "0011", 3: "002111102", 4: "0020111330201213"}
# k >= 5: a difference rule i = y + d[t - y] (mod k) found by search over difference sets
_DIFF = {
    5: [1, 4, 1, 4],
    6: [3, 3, 1, 0, 0],
    7: [3, 3, 1, 0, 1, 0],
    8: [2, 4, 4, 1, 0, 0, 2],
    9: [2, 4, 4, 1, 0, 0, 2, 1],
    10: [3, 3, 5, 5, 1, 0, 0, 2, 2],
    11: [3, 3, 5, 5, 1, 0, 0, 2, 1, 2],
    12: [3, 3, 4, 7, 7, 0, 1, 0, 4, 2, 2],
    13: [3, 4, 4, 7, 0, 7, 1, 0, 3, 1, 2, 2],
    14: [4, 4, 5, 5, 8, 0, 0, 1, 3, 1, 2, 2, 3],
    15: [4, 4, 5, 5, 8, 0, 8, 1, 0, 3, 1, 2, 2, 3],
    16: [5, 4, 6, 5, 6, 9, 9, 0, 1, 0, 4, 2, 2, 3, 3],
    17: [4, 6, 5, 5, 6, 9, 9, 0, 1, 0, 4, 1, 2, 2, 3, 3],
    18: [5, 5, 7, 6, 6, 7, 10, 10, 0, 1, 0, 4, 2, 2, 3, 3, 4],
    19: [5, 5, 7, 6, 6, 7, 10, 10, 0, 1, 0, 4, 1, 2, 2, 3, 3, 4],
    20: [5, 7, 6, 6, 8, 7, 8, 12, 0, 0, 1, 1, 2, 5, 2, 3, 3, 4, 4],
    21: [6, 5, 6, 8, 7, 7, 8, 12, 0, 12, 1, 1, 0, 5, 2, 2, 3, 3, 4, 4],
    22: [6, 7, 6, 7, 9, 8, 8, 9, 13, 0, 0, 1, 1, 2, 5, 2, 3, 3, 4, 4, 5],
    23: [6, 7, 6, 7, 9, 8, 8, 9, 13, 0, 13, 1, 1, 0, 5, 2, 2, 3, 3, 4, 4, 5],
    24: [6, 8, 7, 7, 10, 8, 9, 9, 10, 14, 14, 0, 0, 1, 3, 5, 2, 2, 3, 5, 4, 4, 6],
}
MAX_K = max(_DIFF)


def crossing_table(k: int) -> np.ndarray:
    """(k, k) table f[y, t]: the intermediate root of a root crossing from y to t.

    Examples
    --------
    >>> crossing_table(3).tolist()
    [[0, 0, 2], [1, 1, 1], [1, 0, 2]]

    References
    ----------
    docs/mikant-routing.md §6 (why Algorithm 1's crossing is acyclic); docs/routing.md.
    """
    if k in _SMALL:
        return np.array([int(ch) for ch in _SMALL[k]], np.int64).reshape(k, k)
    if k not in _DIFF:
        raise ParameterError(
            f"k={k} is invalid for a balanced root crossing: tables exist for "
            f"k = 2..{MAX_K}; use dmodk or minimal-all (2 VCs)"
        )
    d = np.array([0] + _DIFF[k], np.int64)
    y = np.arange(k)[:, None]
    t = np.arange(k)[None, :]
    return (y + d[(t - y) % k]) % k


def crossing_uses(f: np.ndarray) -> tuple[int, bool]:
    """(most routes on one cross channel, first and second crossings disjoint?)."""
    k = f.shape[0]
    first = np.zeros((k, k), np.int64)
    second = np.zeros((k, k), np.int64)
    for y in range(k):
        for t in range(k):
            if y != t:
                first[y, f[y, t]] += 1
                second[f[y, t], t] += 1
    return int(max(first.max(), second.max())), not np.any((first > 0) & (second > 0))
