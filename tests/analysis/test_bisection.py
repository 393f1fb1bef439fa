"""Bisection width: exact ILP against brute force and the corrected closed forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fattree
from fattree.analysis.bisection import (
    bisection,
    candidate_splits,
    cut_size,
    explicit_cut,
    min_cut_for_split,
)
from fattree.errors import ParameterError


def brute_force_bisection(topo) -> int:
    """Minimum over all 2^S switch placements; nodes then follow their switch where they can.

    With the switch sides fixed, a balanced split puts floor(N/2) nodes on side A; the
    cheapest way moves |(nodes under A-switches) - floor(N/2)| nodes away from their
    switch, one cut node link each.
    """
    n, S = topo.n_nodes, topo.n_switches
    assert S <= 16
    count = np.bincount(topo.node_switch, minlength=S)
    sw = topo.links[n:] - n
    x = ((np.arange(2**S)[:, None] >> np.arange(S)) & 1).astype(bool)  # every placement
    cut = np.count_nonzero(x[:, sw[:, 0]] != x[:, sw[:, 1]], axis=1)
    cut += np.abs(x.astype(np.int64) @ count - n // 2)
    return int(cut.min())


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec",
    [
        "kant:k=2,n=2",
        "kant:k=3,n=2",
        "kant:k=4,n=2",
        "kant:k=2,n=3",
        "mikant:k=2,n=2",
        "mikant:k=3,n=2",
        "mikant:k=4,n=2",
        "mikant:k=2,n=3",
        "clos:k=2,n=2",
        "clos:k=3,n=2",
        "clos:k=4,n=2",
    ],
)
def test_ilp_is_exact_against_brute_force(spec):
    t = fattree.build(spec)
    b = bisection(t)
    assert b.exact and b.method == "ilp"
    assert b.width == brute_force_bisection(t)
    assert cut_size(t, b.side) == b.width
    assert b.side[: t.n_nodes].sum() == t.n_nodes // 2


# Closed forms as corrected in the errata (even k): MiKANT k^n/2 (000 Theorem 7), k-ary
# n-tree k^n/2 (000 Table I), Clos k^n (printed k^n/2 is wrong: full bisection N/2).
@pytest.mark.slow
@pytest.mark.parametrize(
    "family,k,n,want",
    [
        ("mikant", 2, 3, 4),
        ("mikant", 2, 4, 8),
        ("mikant", 4, 2, 8),
        ("mikant", 4, 3, 32),
        ("kant", 2, 3, 4),
        ("kant", 2, 4, 8),
        ("kant", 4, 2, 8),
        ("kant", 4, 3, 32),
        ("clos", 2, 2, 4),
        ("clos", 2, 3, 8),
        ("clos", 4, 2, 16),
    ],
)
def test_exact_bisection_matches_corrected_closed_forms(family, k, n, want):
    assert want == (k**n if family == "clos" else k**n // 2)
    # a generous solver time limit: exactness must not depend on the machine's load
    b = bisection(fattree.build(f"{family}:k={k},n={n}"), time_limit=600)
    assert (b.width, b.exact) == (want, True)


@pytest.mark.slow
@pytest.mark.parametrize(
    "family,k,n",
    [
        ("mikant", 4, 4),
        ("mikant", 2, 6),
        ("mikant", 6, 3),
        ("kant", 4, 4),
        ("clos", 4, 3),
        ("clos", 2, 5),
    ],
)
def test_explicit_cut_attains_closed_form_on_larger_even_k(family, k, n):
    t = fattree.build(f"{family}:k={k},n={n}")
    b = explicit_cut(t)
    assert not b.exact and "upper bound" in b.method
    assert b.width == (k**n if family == "clos" else k**n // 2)
    assert cut_size(t, b.side) == b.width and b.side[: t.n_nodes].sum() == t.n_nodes // 2


def test_mikant_top_digit_cut_is_theorem_7s():
    # errata: Theorem 7's cut is the split on the top digit D_{n-2} < k/2
    t = fattree.build("mikant:k=4,n=3")
    names = dict(candidate_splits(t))
    mask = names["node label digit 2 first"]
    assert np.array_equal(mask, t.node_digits[:, 2] < 2)
    width, side = min_cut_for_split(t, mask)
    assert width == 4**3 // 2
    assert np.array_equal(side[t.n_nodes :], t.switch_digits[:, 2] < 2)


def test_candidate_splits_are_balanced_and_distinct():
    t = fattree.build("clos:k=3,n=3")
    splits = candidate_splits(t)
    keys = {m.tobytes() for _, m in splits}
    assert len(keys) == len(splits) >= 3
    assert all(m.sum() == t.n_nodes // 2 for _, m in splits)


def test_min_cut_is_optimal_for_its_node_split():
    # against brute force over the switch sides with the node split fixed
    t = fattree.build("mikant:k=3,n=2")
    n, S = t.n_nodes, t.n_switches
    rng = np.random.default_rng(3)
    for _ in range(5):
        mask = np.zeros(n, bool)
        mask[rng.choice(n, n // 2, replace=False)] = True
        width, _ = min_cut_for_split(t, mask)
        best = min(
            cut_size(t, np.concatenate([mask, np.array(bits)]))
            for bits in itertools.product((False, True), repeat=S)
        )
        assert width == best


@pytest.mark.slow
def test_odd_node_count_puts_the_floor_on_side_a():
    t = fattree.build("kant:k=3,n=3")  # 27 nodes
    b = bisection(t)
    assert b.exact and b.side[: t.n_nodes].sum() == 13
    assert b.width == cut_size(t, b.side)


@pytest.mark.slow
def test_ilp_time_limit_gives_a_labelled_bound():
    t = fattree.build("clos:k=4,n=3")  # HiGHS needs ~15 s to prove 64 here
    b = bisection(t, time_limit=0.3)
    assert not b.exact and b.width == 64 and "limit" in b.method
    assert b.lower_bound <= 64


def test_large_instances_skip_the_ilp():
    b = bisection(fattree.build("mikant:k=4,n=3"), ilp_max_switches=10)
    assert (b.width, b.exact) == (32, False) and b.method.startswith("explicit balanced cut")


@pytest.mark.parametrize(
    "kwargs,match",
    [({"ilp_max_switches": -1}, "ilp_max_switches"), ({"time_limit": 0}, "time_limit")],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        bisection(fattree.build("kant:k=2,n=2"), **kwargs)


def test_cut_size_checks_its_shape():
    with pytest.raises(ParameterError, match="side"):
        cut_size(fattree.build("kant:k=2,n=2"), np.zeros(3, bool))


@pytest.mark.slow
def test_imported_copy_uses_its_name_fields(tmp_path):
    export = pytest.importorskip("fattree.topology.export")
    from fattree.topology import FAMILIES

    if "graph" not in FAMILIES:
        pytest.skip("graph import not available")
    f = tmp_path / "mk.edges"
    f.write_bytes(export.export_bytes(fattree.build("mikant:k=4,n=4"), "edgelist"))
    t = fattree.build(f"graph:file={f}")
    assert t.node_names is not None
    b = explicit_cut(t)
    assert b.width == 4**4 // 2 and "digit 2" in b.method


# ---------------------------------------------------------------------- flow lower bound
def test_cut_lower_bound_brute_force_on_small_graphs():
    # the bound never exceeds the exact width (ILP) on small instances of every kind
    import fattree
    from fattree.analysis.bisection import bisection, flow_lower_bound

    for spec in [
        "kant:k=2,n=3",
        "mikant:k=2,n=3",
        "torus:k=3,n=2,p=1",
        "hypercube:d=4,p=2",
        "minft:clients=16",
        "rsminft:clients=16",
        "clos:k=2,n=3",
        "xgft:m=3.3,w=1.2",
    ]:
        t = fattree.build(spec)
        b = bisection(t)
        assert b.exact
        lb, _ = flow_lower_bound(t, time_limit=30)
        assert lb <= b.width, spec


def test_cut_lower_bound_formula():
    from fattree.analysis.bisection import cut_lower_bound

    assert cut_lower_bound(64, 32 / 63) == 32  # the 6-cube's channels all carry 32/63
    assert cut_lower_bound(64, 32 / 63 * 1.01) == 32  # ceil: 31.7 -> 32
    assert cut_lower_bound(64, 1.0) == 17  # m = 32: ceil(1024/63) = 17
    assert cut_lower_bound(10, 1e-9) == 5  # cheap switch links: cut the node links of half


@pytest.mark.parametrize(
    "spec,width,switches",
    [("mikant:k=2,n=6", 32, 320), ("rsminft:clients=128", 32, 384), ("torus:k=4,n=3", 32, 64)],
)
def test_bisections_proved_exact_by_a_flow(spec, width, switches):
    import fattree
    from fattree.analysis.bisection import bisection

    t = fattree.build(spec)
    assert t.n_switches == switches
    b = bisection(t, time_limit=1.0)
    assert (b.width, b.exact, b.lower_bound) == (width, True, width)
    assert "proved optimal by a uniform-flow lower bound" in b.method


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec,width", [("mikant:k=2,n=8", 128), ("torus:k=8,n=3", 128), ("rsminft:clients=512", 128)]
)
def test_exact_beyond_the_ilp_range(spec, width):
    import fattree
    from fattree.analysis.bisection import ILP_MAX_SWITCHES, bisection

    t = fattree.build(spec)
    assert t.n_switches > ILP_MAX_SWITCHES
    b = bisection(t)
    assert (b.width, b.exact) == (width, True)


def test_full_bisection_tree_stays_a_bound_above_the_ilp():
    import fattree
    from fattree.analysis.bisection import bisection

    b = bisection(fattree.build("kant:k=4,n=3"), ilp_max_switches=0)
    assert (b.width, b.exact) == (32, False) and b.lower_bound == 18
    assert "flow lower bound 18" in b.method


def test_min_load_lp_matches_ecmp_on_the_torus():
    import fattree
    from fattree.analysis.bisection import _min_load_lp, ecmp_load

    t = fattree.build("torus:k=4,n=2")
    assert _min_load_lp(t, 30) == pytest.approx(ecmp_load(t), rel=1e-6)


def test_info_says_exact(capsys):
    from fattree.cli import main

    assert main(["info", "rsminft:clients=128", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"bisection_exact": true' in out and '"bisection_width": 32' in out


def test_ilp_stops_at_a_node_limit_the_same_on_any_machine(monkeypatch):
    """The ILP's budget is branch-and-bound nodes, not seconds: a busy machine gets the
    same answer as a quiet one."""
    from fattree.analysis import bisection as mod

    monkeypatch.setattr(mod, "ILP_NODE_LIMIT", 20)
    monkeypatch.setattr(mod, "FLOW_TIME_LIMIT", 0.5)
    t = fattree.build("clos:k=4,n=3")  # about 10,000 nodes to prove 64
    runs = [bisection(t) for _ in range(2)]
    for b in runs:
        assert not b.exact and b.width == 64 and "ilp stopped at the 20 nodes limit" in b.method
    assert runs[0].method == runs[1].method
