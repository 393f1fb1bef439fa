"""Knuth's ran_array as BookSim2 uses it: the published check value and BookSim2's
permutations, against the C code (BookSim2's src/rng.c, compiled, commit 28f4329)."""

from __future__ import annotations

import pytest

import fattree
from fattree.errors import ParameterError
from fattree.sim.booksim.model import booksim_traffic
from fattree.traffic import make_traffic
from fattree.traffic.knuth import KnuthRng, booksim2_randperm


def test_knuths_check_value():
    # rng.c's own test: ran_start(310952), 2010 calls of ran_array(a, 1009): a[0] = 995235265
    r = KnuthRng(310952)
    for _ in range(2010):
        a = r.array(1009)
    assert a[0] == 995235265


def test_ran_arr_next_serves_100_of_each_1009():
    assert KnuthRng(7).draw(250)[-1] == 109601752  # the C code's value


@pytest.mark.parametrize(
    "seed,perm",
    [
        (0, [2, 8, 6, 1, 0, 11, 4, 5, 3, 14, 10, 7, 15, 12, 9, 13]),
        (1, [15, 13, 8, 5, 4, 7, 0, 11, 6, 10, 14, 9, 12, 3, 2, 1]),
        (12345, [6, 2, 11, 5, 7, 14, 9, 0, 3, 4, 13, 10, 15, 1, 8, 12]),
    ],
)
def test_booksim2_randperm_matches_the_c_code(seed, perm):
    assert booksim2_randperm(16, seed) == perm


def test_randperm_under_booksim_is_booksim2s():
    t = fattree.build("kant:k=2,n=4")  # 16 nodes
    tr = booksim_traffic(t, "randperm", seed=9)  # the simulation seed does not enter
    assert tr.table.tolist() == booksim2_randperm(16, 0)
    assert tr.spec == "randperm:generator=booksim2"
    tr = booksim_traffic(t, "randperm:seed=1", seed=9)
    assert tr.table.tolist() == booksim2_randperm(16, 1)
    ours = booksim_traffic(t, "randperm:generator=numpy", seed=9)
    assert ours.table.tolist() == make_traffic("randperm", 16, seed=9).table.tolist()


def test_randperm_generator_is_checked():
    with pytest.raises(ParameterError, match="generator='knuth' is invalid; allowed: numpy"):
        make_traffic("randperm:generator=knuth", 16)
    with pytest.raises(ParameterError, match="modulo 2\\^30"):
        make_traffic(f"randperm:generator=booksim2,seed={1 << 30}", 16)
    assert make_traffic("randperm", 16, seed=3).spec == "randperm"  # papers model unchanged
