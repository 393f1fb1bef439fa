"""Traffic patterns: brute force against bit strings, bijectivity, distributions, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fattree.errors import ParameterError, UnknownNameError
from fattree.sim.reference import _dest
from fattree.traffic import PATTERNS, dest, make_traffic
from fattree.traffic.rng import hash3, py_hash3


def bits(x, b):
    return format(x, f"0{b}b")


def brute(name, n):
    b = n.bit_length() - 1
    out = []
    for s in range(n):
        w = bits(s, b)
        if name == "bitcomp":
            d = "".join("1" if c == "0" else "0" for c in w)
        elif name == "bitrev":
            d = w[::-1]
        elif name == "transpose":
            d = w[b // 2 :] + w[: b // 2]
        elif name == "shuffle":
            d = w[1:] + w[0]
        out.append(int(d, 2))
    return out


@pytest.mark.parametrize("name", ["bitcomp", "bitrev", "shuffle"])
@pytest.mark.parametrize("n", [4, 8, 64, 1024])
def test_bit_patterns_match_bit_strings(name, n):
    assert make_traffic(name, n).table.tolist() == brute(name, n)


@pytest.mark.parametrize("n", [4, 16, 256, 4096])
def test_transpose_matches_bit_strings(n):
    assert make_traffic("transpose", n).table.tolist() == brute("transpose", n)


@pytest.mark.parametrize(
    "name", ["bitcomp", "bitrev", "transpose", "shuffle", "tornado", "neighbor", "randperm"]
)
@pytest.mark.parametrize("n", [16, 64, 256])
def test_permutations_are_bijective(name, n):
    t = make_traffic(name, n, seed=3)
    assert sorted(t.table.tolist()) == list(range(n))
    # fixed points do not send (they would only loop through their own switch)
    assert np.array_equal(t.active, t.table != np.arange(n))


def test_bitcomp_is_the_papers_bit_inversion_on_mikant_labels():
    import fattree

    topo = fattree.build("mikant:k=4,n=5")
    t = make_traffic("bitcomp", topo.n_nodes)
    # every base-4 digit and the group bit are complemented (000 §V.B)
    d = topo.node_digits
    comp = np.concatenate([1 - d[:, :1], 3 - d[:, 1:]], axis=1)
    assert np.array_equal(d[t.table], comp)


@pytest.mark.parametrize("name", ["bitcomp", "bitrev", "transpose", "shuffle"])
def test_power_of_two_patterns_refuse_other_sizes(name):
    with pytest.raises(ParameterError, match="power-of-two number of nodes.*54 nodes"):
        make_traffic(name, 54)


def test_transpose_needs_an_even_number_of_bits():
    with pytest.raises(ParameterError, match="N = 4\\^m"):
        make_traffic("transpose", 32)


def test_tornado_and_neighbor_values():
    assert make_traffic("tornado", 8).table.tolist() == [3, 4, 5, 6, 7, 0, 1, 2]
    assert make_traffic("neighbor:offset=3", 5).table.tolist() == [3, 4, 0, 1, 2]


def test_randperm_is_seeded():
    a, b, c = (make_traffic("randperm", 100, seed=s).table for s in (1, 1, 2))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.array_equal(
        make_traffic("randperm:seed=7", 100, seed=1).table,
        make_traffic("randperm", 100, seed=7).table,
    )


def draws(t, n, src, count, seed=0):
    return np.array(
        [dest(t.code, t.iparams, t.fparams, t.table, n, src, q, seed) for q in range(count)]
    )


def test_uniform_excludes_the_source_and_is_uniform():
    n = 8
    t = make_traffic("uniform", n)
    d = draws(t, n, 3, 16000)
    assert (d != 3).all()
    counts = np.bincount(d, minlength=n)
    assert counts[3] == 0
    expected = 16000 / 7
    chi2 = ((counts[np.arange(n) != 3] - expected) ** 2 / expected).sum()
    assert chi2 < 24.3  # chi-square, 6 degrees of freedom, p = 0.0005


def test_uniform_include_self_reaches_the_source():
    t = make_traffic("uniform:include_self=true", 4)
    counts = np.bincount(draws(t, 4, 2, 8000), minlength=4)
    assert counts.min() > 1800 and counts[2] > 0


def test_hotspot_fraction():
    n = 16
    t = make_traffic("hotspot:node=5,fraction=0.3", n)
    d = draws(t, n, 0, 20000)
    # 30% to the hot node, the rest uniform over the 15 others (1/15 of it hits 5 too)
    share = (d == 5).mean()
    assert abs(share - (0.3 + 0.7 / 15)) < 0.015
    assert (draws(t, n, 5, 2000) != 5).all()  # the hot node itself sends uniformly


def test_alltoone_and_static_alias():
    t = make_traffic("static:node=2", 6)
    assert t.name == "alltoone"
    assert t.table.tolist() == [2] * 6
    assert t.active.tolist() == [True, True, False, True, True, True]


def test_unknown_pattern_lists_valid_names():
    with pytest.raises(UnknownNameError, match="unknown traffic pattern 'unifrom'.*uniform"):
        make_traffic("unifrom", 8)


def test_unknown_and_bad_options():
    with pytest.raises(ParameterError, match="unknown option 'frac'.*fraction"):
        make_traffic("hotspot:frac=0.2", 8)
    with pytest.raises(ParameterError, match="fraction=1.5 is out of range"):
        make_traffic("hotspot:fraction=1.5", 8)
    with pytest.raises(ParameterError, match="node=9 is out of range"):
        make_traffic("alltoone:node=9", 8)


def test_a_pattern_that_sends_nothing_is_refused():
    with pytest.raises(ParameterError, match="sends nothing"):
        make_traffic("neighbor:offset=4", 4)


def test_every_registered_pattern_has_a_title_and_binds():
    for name, pat in PATTERNS.items():
        assert pat.title
        if name != "trace":
            make_traffic(name, 16)


@settings(max_examples=50, deadline=None)
@given(
    st.sampled_from(
        [
            "uniform",
            "uniform:include_self=1",
            "hotspot:node=3,fraction=0.4",
            "bitrev",
            "randperm",
            "alltoone:node=1",
        ]
    ),
    st.integers(0, 15),
    st.integers(0, 10**6),
    st.integers(0, 2**62),
)
def test_numba_destinations_match_the_python_reference(spec, src, seq, seed):
    t = make_traffic(spec, 16, seed=seed % 1000)
    assert int(dest(t.code, t.iparams, t.fparams, t.table, 16, src, seq, seed)) == _dest(
        t, 16, src, seq, seed
    )


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**63 - 1), st.integers(0, 20), st.integers(0, 2**40), st.integers(0, 2**40))
def test_numba_and_python_hashes_agree(seed, stream, a, b):
    assert int(hash3(seed, stream, a, b)) == py_hash3(seed, stream, a, b)
