"""Workloads: sizes with units, each collective's messages and bytes against the textbook
counts, placement, schedules and their checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fattree.errors import InputFileError, ParameterError, ResourceError
from fattree.traffic.workloads import (
    COLLECTIVES,
    describe_workloads,
    expand,
    make_workload,
    parse_rate,
    parse_size,
    parse_time,
    phase,
)
from fattree.traffic.workloads.collectives import btree_parent, dtree_parents
from fattree.traffic.workloads.schedule import RECV, SEND, check_schedule, make_schedule


# ---------------------------------------------------------------- units


@pytest.mark.parametrize(
    "text, nbytes",
    [
        ("1MiB", 2**20),
        ("64KiB", 65536),
        ("1KB", 1000),
        ("2GB", 2 * 10**9),
        ("256B", 256),
        ("1GiB", 2**30),
        ("1.5KiB", 1536),
        ("0B", 0),
    ],
)
def test_sizes(text, nbytes):
    assert parse_size(text) == nbytes


@pytest.mark.parametrize(
    "text, why",
    [
        ("1024", "unit is missing"),
        ("1M", "unknown unit 'M'"),
        ("1mb", "unknown unit 'mb'"),
        ("1Mib", "unknown unit"),
        ("1.5B", "whole number"),
        ("MiB", "expected a number"),
        ("-1MiB", "expected a number"),
        (1024, "expected a number"),
    ],
)
def test_bad_sizes_name_the_problem(text, why):
    with pytest.raises(ParameterError, match=why):
        parse_size(text, "size")


def test_rates_and_times():
    assert parse_rate("400Gb/s") == 50e9
    assert parse_rate("25GB/s") == 25e9
    assert parse_time("100ns") == pytest.approx(1e-7)
    assert parse_time("1.5us") == pytest.approx(1.5e-6)
    with pytest.raises(ParameterError, match="unit is missing"):
        parse_rate("400")
    with pytest.raises(ParameterError, match="positive"):
        parse_rate("0Gb/s")
    with pytest.raises(ParameterError, match="unknown unit 'Gbps'"):
        parse_rate("400Gbps")


# ---------------------------------------------------------------- textbook counts


def _w(spec, n, node_switch=None):
    return make_workload(spec, n, node_switch)


@pytest.mark.parametrize("p", [2, 3, 5, 8, 16])
def test_ring_allreduce_sends_2_p_minus_1_over_p_of_the_size(p):
    S = 64 * p * 3  # divisible by p: no padding
    w = _w(f"allreduce:algorithm=ring,size={S}B", p)
    assert w.messages == 2 * p * (p - 1)
    assert (w.bytes_sent() == 2 * (p - 1) * S // p).all()
    assert len(w.phases) == 2 and all(ph.repeat == p - 1 for ph in w.phases)


@pytest.mark.parametrize("p", [2, 4, 8, 32])
def test_rabenseifner_allreduce(p):
    S = 128 * p
    w = _w(f"allreduce:algorithm=rhd,size={S}B", p)
    L = int(math.log2(p))
    assert w.messages == 2 * p * L
    assert (w.bytes_sent() == 2 * (p - 1) * S // p).all()
    # partners are r XOR 2^k, each step exchanges (both directions)
    for ph in w.phases:
        assert (ph.src == np.arange(p)).all()
        assert (ph.dst[ph.dst] == np.arange(p)).all()  # pairs exchange: an involution
        assert ((ph.src ^ ph.dst) & ((ph.src ^ ph.dst) - 1) == 0).all()


@pytest.mark.parametrize("p", [2, 3, 7, 8, 13])
@pytest.mark.parametrize("chunks", [1, 4])
def test_tree_allreduce_moves_the_buffer_over_every_edge_twice(p, chunks):
    S = 96 * chunks
    w = _w(f"allreduce:algorithm=tree,size={S}B,chunks={chunks}", p)
    assert w.messages == 2 * (p - 1) * chunks
    assert int(w.bytes_sent().sum()) == 2 * (p - 1) * S
    # every non-root sends its partial sum up exactly `chunks` times
    up = [ph for ph in w.phases if "reduce" in ph.name]
    senders = np.concatenate([np.repeat(ph.src, ph.repeat) for ph in up])
    assert sorted(np.bincount(senders, minlength=p).tolist()) == [0] + [chunks] * (p - 1)


@pytest.mark.parametrize("p", [2, 3, 4, 8, 9, 16, 24])
def test_double_binary_tree(p):
    S = 64
    w = _w(f"allreduce:algorithm=dtree,size={S}B", p)
    assert w.messages == 4 * (p - 1)
    assert int(w.bytes_sent().sum()) == 2 * (p - 1) * S
    t0, t1 = dtree_parents(p)
    for t in (t0, t1):  # each is a tree: one root, every rank reaches it
        assert (t < 0).sum() == 1
    if p % 2 == 0:  # NCCL's property: no rank has children in both trees
        kids0 = np.bincount(t0[t0 >= 0], minlength=p) > 0
        kids1 = np.bincount(t1[t1 >= 0], minlength=p) > 0
        assert not (kids0 & kids1).any()


def test_nccl_btree():
    # NCCL trees.cc on 8 ranks: 0 -> 4; 4 -> 2, 6; 2 -> 1, 3; 6 -> 5, 7
    assert btree_parent(8, np.arange(8)).tolist() == [-1, 2, 4, 2, 0, 6, 4, 6]
    # 6 ranks: 4's parent would be 8 (beyond), so it hangs on 0
    assert btree_parent(6, np.arange(6)).tolist() == [-1, 2, 4, 2, 0, 4]


def test_hierarchical_allreduce_by_leaf_switch():
    p, g = 16, 4
    ns = np.arange(p) // g
    S = 1024
    w = _w(f"allreduce:algorithm=hier,size={S}B,placement=leaf", p, ns)
    assert (w.bytes_sent() == 2 * (p - 1) * S // p).all()
    names = [ph.name for ph in w.phases]
    assert names == [
        "leaf reduce-scatter",
        "across reduce-scatter",
        "across all-gather",
        "leaf all-gather",
    ]
    intra = w.phases[0]
    assert (ns[intra.src] == ns[intra.dst]).all()  # stays inside the leaf switch
    across = w.phases[1]
    assert (ns[across.src] != ns[across.dst]).all()
    with pytest.raises(ParameterError, match="same number of ranks on every leaf"):
        _w("allreduce:algorithm=hier,ranks=6", p, ns)


@pytest.mark.parametrize(
    "coll, alg",
    [
        (c, a)
        for c in ("reducescatter", "allgather", "alltoall")
        for a in COLLECTIVES.get(c).algorithms
    ],
)
def test_p_minus_1_over_p(coll, alg):
    p, S = 16, 16 * 64
    w = _w(f"{coll}:algorithm={alg},size={S}B", p)
    assert (w.bytes_sent() == (p - 1) * S // p).all()
    if coll == "alltoall":  # every ordered pair exactly once
        pairs = np.concatenate([ph.src.astype(np.int64) * p + ph.dst for ph in w.phases])
        assert np.array_equal(
            np.sort(pairs), np.sort([a * p + b for a in range(p) for b in range(p) if a != b])
        )


@pytest.mark.parametrize("p", [2, 3, 6, 8, 11])
@pytest.mark.parametrize("root", [0, 1])
def test_binomial_broadcast_and_reduce(p, root):
    w = _w(f"broadcast:size=1KiB,root={root}", p)
    assert w.messages == p - 1
    assert len(w.phases) == math.ceil(math.log2(p))
    have = {root}
    for ph in w.phases:  # a rank sends only what it already has; everyone gets it once
        assert set(ph.src.tolist()) <= have
        assert not (set(ph.dst.tolist()) & have)
        have |= set(ph.dst.tolist())
    assert have == set(range(p))
    r = _w(f"reduce:size=1KiB,root={root}", p)
    done = set()
    for ph in r.phases:  # a rank sends once, after its children sent to it
        assert not (set(ph.src.tolist()) & done)
        done |= set(ph.src.tolist())
    assert done == set(range(p)) - {root}


@pytest.mark.parametrize("p", [2, 5, 8])
def test_dissemination_barrier(p):
    w = _w("barrier", p)
    k = math.ceil(math.log2(p))
    assert w.messages == p * k and w.size == 0
    assert int(w.bytes_sent().sum()) == 0


def test_listing_names_every_algorithm():
    rows = {r["name"]: r for r in describe_workloads()}
    assert set(rows) == {*COLLECTIVES.names(), "goal"}
    assert [a["name"] for a in rows["allreduce"]["algorithms"]] == [
        "ring",
        "rhd",
        "tree",
        "dtree",
        "hier",
    ]


# ---------------------------------------------------------------- placement and bad input


def test_placements():
    ns = np.array([1, 0, 1, 0, 2, 2])
    assert make_workload("allgather:ranks=3", 6, ns).placement.tolist() == [0, 1, 2]
    assert make_workload("allgather:ranks=3,placement=leaf", 6, ns).placement.tolist() == [1, 3, 0]
    a = make_workload("allgather:ranks=4,placement=random", 6, ns, seed=3).placement
    b = make_workload("allgather:ranks=4,placement=random", 6, ns, seed=3).placement
    assert np.array_equal(a, b) and len(set(a.tolist())) == 4


@pytest.mark.parametrize(
    "spec, why",
    [
        (
            "allreduse",
            "unknown collective 'allreduse' \\(did you mean 'allreduce'\\?\\); valid: allreduce",
        ),
        (
            "allreduce:algorithm=rign",
            "algorithm='rign' is invalid \\(did you mean 'ring'\\?\\); valid: ring, rhd",
        ),
        ("allreduce:size=1024", "unit is missing"),
        ("allreduce:size=1M", "unknown unit 'M'"),
        ("allreduce:ranks=9", "ranks=9 is invalid: the network has 8 nodes"),
        (
            "allreduce:algorithm=rhd,ranks=6",
            "needs a power-of-two rank count, not 6; on 6 ranks use ring or tree or dtree or hier",
        ),
        ("allgather:algorithm=rd,ranks=5", "on 5 ranks use ring"),
        ("broadcast:root=8", "root=8 is invalid: ranks are 0..7"),
        ("alltoall:placement=diagonal", "placement='diagonal' is invalid"),
        ("alltoall:colour=red", "unknown option 'colour'"),
        ("goal", "goal needs file=PATH"),
    ],
)
def test_bad_specs(spec, why):
    with pytest.raises(ParameterError, match=why):
        make_workload(spec, 8)


# ---------------------------------------------------------------- schedules


def test_expand_dependencies_follow_each_rank_s_steps():
    s = expand([phase("a", [0, 1, 2], [1, 2, 0], 8, repeat=3)], 3)
    assert s.n_ops == 18
    # the matching pairs send (r -> r+1, tag t) with recv at r+1 from r tag t
    for i in np.flatnonzero(s.kind == SEND):
        j = s.match[i]
        assert s.kind[j] == RECV and s.rank[j] == s.peer[i] and s.peer[j] == s.rank[i]
        assert s.tag[j] == s.tag[i]
    # step t's ops of a rank require both ops of its step t - 1
    r0 = np.flatnonzero(s.rank == 0)
    later = r0[s.tag[r0] == 2]
    for i in later:
        deps = s.dep_idx[s.dep_ptr[i] : s.dep_ptr[i + 1]]
        assert sorted(s.tag[deps].tolist()) == [1, 1]


def test_schedule_size_guard():
    w = make_workload("alltoall:algorithm=direct,size=1KiB", 64)
    with pytest.raises(ResourceError, match="max_ops"):
        w.schedule(max_ops=100)


def _sched(ranks, ops, deps=()):
    rank = [o[0] for o in ops]
    kind = [o[1] for o in ops]
    peer = [o[2] for o in ops]
    size = [o[3] for o in ops]
    tag = [o[4] for o in ops]
    n = len(ops)
    ptr = np.zeros(n + 1, np.int64)
    for a, _ in deps:
        ptr[a + 1] += 1
    ptr = np.cumsum(ptr)
    idx = [b for _, b in sorted(deps)]
    return make_schedule(ranks, rank, kind, peer, size, tag, ptr, idx, np.zeros(len(idx), np.int8))


def test_unmatched_receive_is_named():
    s = _sched(2, [(0, SEND, 1, 8, 0), (1, RECV, 0, 8, 0), (1, RECV, 0, 8, 5)])
    with pytest.raises(
        InputFileError, match=r"rank 1 op 1 \(recv 8b from 0 tag 5\) has no matching send"
    ):
        check_schedule(s, "x")


def test_deadlock_through_messages_is_named():
    # each rank receives before it sends: a cycle through the two messages
    s = _sched(
        2,
        [(0, RECV, 1, 8, 0), (0, SEND, 1, 8, 0), (1, RECV, 0, 8, 0), (1, SEND, 0, 8, 0)],
        deps=[(1, 0), (3, 2)],
    )
    with pytest.raises(InputFileError, match="deadlock \\(a cycle through messages\\): rank"):
        check_schedule(s, "x")
