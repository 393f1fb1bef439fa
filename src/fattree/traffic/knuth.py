"""Knuth's lagged-Fibonacci generator ``ran_array`` (TAOCP vol. 2, §3.6), as BookSim2 uses it
for its random permutation pattern, so that ``randperm`` under the booksim model is
BookSim2's permutation for a given ``perm_seed``.

BookSim2 (commit 28f4329) includes Knuth's public-domain ``rng.c`` (the 2002 version with
the 9th-printing modifications); ``RandomInt(max)`` is ``ran_arr_next() % (max + 1)``, and
``ran_arr_next`` serves the first 100 numbers of each 1009-number ``ran_array`` call.
"""

from __future__ import annotations

KK = 100  # the long lag
LL = 37  # the short lag
MM = 1 << 30  # the modulus
QUALITY = 1009  # numbers per ran_array call of ran_arr_cycle
TT = 70  # guaranteed separation between streams


class KnuthRng:
    """``ran_start(seed)`` and ``ran_arr_next()`` of Knuth's ``rng.c``.

    Parameters
    ----------
    seed : int
        ``ran_start``'s seed, ``0 <= seed < 2**30``.

    Examples
    --------
    >>> KnuthRng(7).draw(250)[-1]  # the C code's 250th ran_arr_next() after ran_start(7)
    109601752

    References
    ----------
    D. E. Knuth, *The Art of Computer Programming* vol. 2, 3rd ed., §3.6; BookSim2
    ``src/rng.c``, ``src/random_utils.hpp``.
    """

    def __init__(self, seed: int) -> None:
        self.x = [0] * KK
        x = [0] * (KK + KK - 1)
        ss = (seed + 2) & (MM - 2)
        for j in range(KK):
            x[j] = ss
            ss <<= 1
            if ss >= MM:
                ss -= MM - 2
        x[1] += 1
        ss, t = seed & (MM - 1), TT - 1
        while t:
            for j in range(KK - 1, 0, -1):  # "square"
                x[j + j] = x[j]
                x[j + j - 1] = 0
            for j in range(KK + KK - 2, KK - 1, -1):
                x[j - (KK - LL)] = (x[j - (KK - LL)] - x[j]) & (MM - 1)
                x[j - KK] = (x[j - KK] - x[j]) & (MM - 1)
            if ss & 1:  # "multiply by z"
                for j in range(KK, 0, -1):
                    x[j] = x[j - 1]
                x[0] = x[KK]
                x[LL] = (x[LL] - x[KK]) & (MM - 1)
            if ss:
                ss >>= 1
            else:
                t -= 1
        for j in range(LL):
            self.x[j + KK - LL] = x[j]
        for j in range(LL, KK):
            self.x[j - LL] = x[j]
        for _ in range(10):  # warm things up
            self.array(KK + KK - 1)
        self.buf: list[int] = []

    def array(self, n: int) -> list[int]:
        """``ran_array(aa, n)``: ``n >= KK`` new numbers (the state advances)."""
        aa = self.x[:] + [0] * (n - KK)
        for j in range(KK, n):
            aa[j] = (aa[j - KK] - aa[j - LL]) & (MM - 1)
        x = self.x
        j = n
        for i in range(LL):
            x[i] = (aa[j - KK] - aa[j - LL]) & (MM - 1)
            j += 1
        for i in range(LL, KK):
            x[i] = (aa[j - KK] - x[i - LL]) & (MM - 1)
            j += 1
        return aa

    def draw(self, count: int) -> list[int]:
        """The next ``count`` values of ``ran_arr_next()``."""
        out = []
        while len(out) < count:
            if not self.buf:
                self.buf = self.array(QUALITY)[:KK]  # ran_arr_cycle serves aa[0..KK-1]
                self.buf.reverse()
            out.append(self.buf.pop())
        return out


def booksim2_randperm(n: int, perm_seed: int) -> list[int]:
    """BookSim2's ``RandomPermutationTrafficPattern``: the destination of every node.

    Step ``i`` draws ``ind = RandomInt(n - 1 - i)`` and gives destination ``i`` to the
    ``ind``-th source (in id order) that has none yet.

    Parameters
    ----------
    n : int
        Node count.
    perm_seed : int
        BookSim2's ``perm_seed`` (its default 0), ``0 <= perm_seed < 2**30``.

    Returns
    -------
    list of int

    Examples
    --------
    >>> booksim2_randperm(16, 0)
    [2, 8, 6, 1, 0, 11, 4, 5, 3, 14, 10, 7, 15, 12, 9, 13]

    References
    ----------
    BookSim2 commit 28f4329, ``src/traffic.cpp`` (``RandomPermutationTrafficPattern::
    randomize``).
    """
    rng = KnuthRng(perm_seed)
    draws = rng.draw(n)
    free = list(range(n))
    dest = [-1] * n
    for i in range(n):
        j = free.pop(draws[i] % (n - i))
        dest[j] = i
    return dest


__all__ = ["KnuthRng", "booksim2_randperm"]
