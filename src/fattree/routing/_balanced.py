"""``balanced``: MiKANT's root crossings split over the other group's roots by a destination
digit, deterministic, minimal and deadlock-free with one VC (docs/routing.md, "balanced").

A same-group route whose digit n-2 differs from the destination's crosses from root y
to root i of the other group, then back to root t. ``dmodk-bal`` picks one i per (y, t);
here i also depends on a destination digit h that d-mod-k's climb leaves free
(T_{n-3}, or the port digit T_{n-1} when n = 2), so the k destinations of each h share
the k(k-1) crossings of a group out evenly. Deadlock freedom: every cross channel
(root p -> root q) gets a rank, and a route may follow channel c1 by c2 only if
rank(c1) < rank(c2); the channel dependency graph restricted to the cross channels then
increases the rank along every edge (no cycle), and the other hops are up*/down*.
For k = 2 and k >= 5 the rank of p -> q is (q - p) mod k and the tables are difference
rules i = y + d[t - y, h] (both groups alike); for k = 3, 4 a general table per group and
a rank order were found by integer programming. In both cases every cross channel
carries exactly 2(k-1) of the 2k^2(k-1) (route, h) crossings per direction, the average:
the same cross-channel loads as splitting evenly over all minimal paths
(``minimal-all``, which needs 2 VCs). The tables were found with scipy's HiGHS MILP
(benchmarks/balanced_routing.py prints the bounds); tests check balance and ranks.
Above k = 24 a greedy rule with the same rank order is built on the fly: every cross
channel then carries at most one crossing more than the average.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..compiling import nrt_free
from ..errors import ParameterError
from ._consts import IP_K, IP_N, IP_POW

_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"

# d[D, h] for D = t - y = 1..k-1 (rows of k), base 36: i = y + d (mod k)
_DIFF = {
    2: "00",
    5: "00222003330011100111",
    6: "223333003333111111000011000011",
    7: "233333300000001444444001115511112220001111",
    8: "00022334333344440001111155555555111111220000000022222333",
    9: "000003333000033333044444444166666666000000111111111777222233333122222222",
    10: (
        "002222222333333344444444555556111111111112677777770000001111000000000022222222221444444444"
    ),
    11: (
        "333333333330000000000400000066666555555555550067777777700222222777122223888881111111"
        "11331111111111444444444444"
    ),
    12: (
        "000000000005444444444444000000000007777777777777666666666666111228888888111112222222"
        "229999999999222244444444222222233333111333333555"
    ),
    13: (
        "000002223336644444444555550007777777777111111111777766666666666668888888888888222222"
        "222222222222222999991111111144444000000000000011444444444450003333333334"
    ),
    14: (
        "666677777777770000000033333344777777777777666666666666662222226666666611111111111111"
        "3333888888aaaa3333333333aaaa222244bbbbbbbb111111111111220000000000000022222244444444"
        "00004444444444"
    ),
    15: (
        "444444466666666066666888888888000000000666666005555555555555007777777777777aaaaaaaaa"
        "aaaaaa333333333333333000000000022222000011222222222111111111114444ccccccccccccccc222"
        "223333555555222222225555555111111111111111"
    ),
    16: (
        "222222222222222255555555555555770000000000000000999999999999999966666677777777991111"
        "11111111999900000bbbbbbbbbbbaaaaaaaaaaaaaaaa33333333334444cc111144444444444411111111"
        "111111cc33344444444444440000000004eeeeee22222222222223662777777777777777"
    ),
    17: (
        "5555555557777777733333333333333399666666666999999990aaaaaaaaaaaaaaaa1111116666666666"
        "6122288888888999992222222222222222200000011111111ccc1111111111114444400000000000000d"
        "ddddddddddddddddddd3333333333333333366666666666eeeeee0000222222222222600000001111177"
        "77744444444444444444"
    ),
    18: (
        "0000000999999999994444444444777777776666666666666666aa5555599999aaaaaaaa777777777777"
        "777777222222222222228888bbbccccccccccccccc2222222222222222220000000000000000bb333333"
        "bbbbbbbbbbbb1111111111111333330000000000044444445555555555555555553fffffffffffffffff"
        "111111111111122444133335555555555577333333333333333333"
    ),
    19: (
        "444444444444444444466999999999999999998888888888888888888555555555aaaaaaaaaa22222222"
        "2299999999a2222222777777777777111111111111111aaaa99999999999bccddddd23bbbbbbbbbbbbbb"
        "bbb00000000000000000004444444444cccceeeee555555555555fffffff222222222222222222611666"
        "666666666666660000000000000000055333333333333333333333333355555555555551111111111111"
        "111111"
    ),
    20: (
        "77aaaaaaaaaaaaaaaaaa5555555555555555555544444444444449999999111111111555555555bb9999"
        "99999999999bbbbb00000000000aaaaaaaaa888888cccccccccccccc333333333ddddddddddd00000000"
        "0000000111114444444444ccccccccccdddddddddddddddddddd22222222222444444444111111116666"
        "6666666600000000000033333333777777777777777777gg11111111111114444447333333333333iiii"
        "iiii1112222222222227777722222222222222266666"
    ),
    21: (
        "447777777777777777777aaaaaaaabbbbbbbbbbbbb4444444444444444448881111111cccccccccccccc"
        "666666666666666666666118888888888888888899000000000000000000000bbbbbbbbbbbbbbbbbbbbb"
        "eeeeeeeeeeeeeeeeeeeee11111111111111111111d22222222222222eeeeeee44444444444444444444d"
        "33333333333333333333322222222222223hhhhhhh156666hhhhhhhhhhhhhhh000000000006666666666"
        "111113333333333366666111115555555555555555000000002222222222222555555555555555555555"
    ),
    22: (
        "444444444488aabbbbbbbb33333333333399999999990000000099999999999999000000000099999999"
        "aaaadddddddddddddddddddddd111111111111bbbbbbbbbb11111111aaaaaaaaaaaaaabbcccccccccccc"
        "ccccccccaaaabbbbbbbbbbbbbbbbbb222222222222222222bbbb33333333333333333333332222225555"
        "5555eeeeeeee6666666666666666666666444444gggggggggggggggg2222222222222222226666000000"
        "0044444444444444iiiiiiiiiiiiiiiiiiiiii1111111111111111111111000000000000000099999955"
        "555555555555555555554466666666777777777777"
    ),
    23: (
        "88888888888888888888888ccccccccccccccccccccccc444aaaaaaaaaaaaaaaaaaaa111111115888888"
        "88888cccaaaaaaaaaaaaaaaaaaaaaaa99999999999999999999999000000000000000000000002222222"
        "222222222222222f222bbbbbbbbbbbbbbbbbbbb4444444444444444fffffffffffffffffffffffffffff"
        "f11111111111111111233333111111111111155556666663355555555555iiiiiiiiii22222222222222"
        "2777777ii111111222hhhhhhhhhhhhhh333333333333333333555553333kkkkkkkkkkkkkkkkkkk555555"
        "55555555555555555333333377777799999lllll44444444444444444444444000000000000000000000"
        "44"
    ),
    24: (
        "22223333333333666666666677aaaaaaaaaaaaaaaaaaaaaa444444444444444444444444dddddddddddd"
        "dddddddddddd9999999999999999999999dd222229999999999999999999000000888888888888888888"
        "222222222222333333333333ddgggggggggggggggggggggg33cccccccccccccccccccccc000000000000"
        "000000000000111111111115555555555fff33333333333333333334444404iiiiiiiiiiiiiiiiiiiiii"
        "111111111113344444444444jjjjjjjjjjjjjjjjjjjjjjjj22222222222222222227777j111111111111"
        "111111111111007777777777777777777777666666666666666666666666222222888888888888888888"
        "000000000000038888888888555555555555555555555555"
    ),
}
# k = 3, 4: i = f[g, y, t, h] (the diagonal y = t unused), base 36
_GENERAL = {
    3: "000011002112000222112000000000022000112000222011011000",
    4: (
        "000022330011333313330000111101220233000100001222011322220000000000003333000011130001"
        "00001111333302230000000022221111222222330000"
    ),
}
MAX_K = max(_DIFF)  # exact (integer-programming) tables up to here, greedy ones above
LIMIT_K = 64  # MiKANT's largest arity


def balanced_table(k: int) -> np.ndarray:
    """(2, k, k, k) table f[g, y, t, h]: the intermediate root of a root crossing from
    root y to root t of group g for destinations with free digit h.

    Examples
    --------
    >>> f = balanced_table(4)
    >>> f.shape, sorted(set(f[0, 0, 1].tolist()))
    ((2, 4, 4, 4), [2, 3])

    References
    ----------
    docs/mikant-routing.md §6 (crossings and VCs); docs/routing.md ("balanced").
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 2 <= k <= LIMIT_K:
        raise ParameterError(
            f"k={k!r} is invalid for the balanced root crossing: expected an "
            f"integer 2 <= k <= {LIMIT_K}"
        )
    k = int(k)
    if k in _GENERAL:
        v = np.array([_B36.index(ch) for ch in _GENERAL[k]], np.int64)
        return v.reshape(2, k, k, k)
    if k in _DIFF:
        d = np.zeros((k, k), np.int64)
        d[1:] = np.array([_B36.index(ch) for ch in _DIFF[k]], np.int64).reshape(k - 1, k)
    else:
        d = _greedy_differences(k)
    y = np.arange(k)[:, None, None]
    t = np.arange(k)[None, :, None]
    h = np.arange(k)[None, None, :]
    f = (y + d[(t - y) % k, h]) % k
    return np.stack([f, f])


def _greedy_differences(k: int) -> np.ndarray:
    """d[D, h] for k beyond the stored tables: the rank order (q - p) mod k is kept by
    allowing only first differences a < (D - a) mod k, and each (D, h) takes the allowed
    a whose two channels are least used so far (most constrained D first). Within one
    crossing of the average on every channel for 25 <= k <= 64 (tested)."""
    used = np.zeros(k, np.int64)
    d = np.zeros((k, k), np.int64)
    allowed = {D: [a for a in range(k) if a < (D - a) % k] for D in range(1, k)}
    for D in sorted(allowed, key=lambda D: (len(allowed[D]), D)):
        for h in range(k):
            a = min(
                allowed[D],
                key=lambda a: (max(used[a], used[(D - a) % k]), used[a] + used[(D - a) % k], a),
            )
            d[D, h] = a
            used[a] += 1
            used[(D - a) % k] += 1
    return d


def crossing_ranks(f: np.ndarray) -> tuple[np.ndarray, bool]:
    """Cross-channel uses and a proof of order: ((2, k, k) uses per channel, acyclic?).

    Channel (e, p, q) leaves group e's root p for the other group's root q. A route of
    group g from y through i to t uses (g, y, i) then (1-g, i, t). Returns the number
    of (route, h) uses of every channel and whether the "follows" relation among the
    channels is acyclic (a topological order exists), checked by Kahn's algorithm.
    """
    k = f.shape[1]
    uses = np.zeros((2, k, k), np.int64)
    succ: dict[tuple, set] = {}
    indeg: dict[tuple, int] = {(e, p, q): 0 for e in range(2) for p in range(k) for q in range(k)}
    for g in range(2):
        for y in range(k):
            for t in range(k):
                if y == t:
                    continue
                for h in range(k):
                    i = int(f[g, y, t, h])
                    a, b = (g, y, i), (1 - g, i, t)
                    uses[a] += 1
                    uses[b] += 1
                    if b not in succ.setdefault(a, set()):
                        succ[a].add(b)
                        indeg[b] += 1
    ready = [c for c, v in indeg.items() if v == 0]
    seen = 0
    while ready:
        c = ready.pop()
        seen += 1
        for b in succ.get(c, ()):
            indeg[b] -= 1
            if indeg[b] == 0:
                ready.append(b)
    return uses, seen == len(indeg)


@njit(**nrt_free())
def _balanced_root(iparams, base, g, y, t, c):
    """Intermediate root of a crossing y -> t in group g for destination digits c."""
    k = iparams[IP_K]
    n = iparams[IP_N]
    if n >= 3:
        h = (c // iparams[IP_POW + n - 3]) % k
    else:
        h = c // iparams[IP_POW + n - 1]
    return iparams[base + ((g * k + y) * k + t) * k + h]
