"""Closed forms against brute force on the built graphs (the graph is the truth).

Distances come from scipy.sparse.csgraph BFS over ``topo.csr``; shortest-path counts
from a level-by-level propagation over the same adjacency. Families whose topology
module is not registered are skipped, so the checks run once they land.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

import fattree
from fattree.analysis.closed_forms import FORMS, Formula, closed_forms, numeric
from fattree.errors import ParameterError, UnknownNameError
from fattree.topology import FAMILIES


def brute(topo) -> dict:
    """Node-to-node properties of a topology by BFS from every compute node."""
    indptr, indices = topo.csr
    nv, n = topo.n_vertices, topo.n_nodes
    adj = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(nv, nv))
    dist = shortest_path(adj, unweighted=True, indices=np.arange(n))  # (n, nv)
    dn = dist[:, :n]
    # shortest-path counts: sigma_{l+1}[v] = sum over neighbours u at level l of sigma_l[u]
    sigma = np.zeros((n, nv))
    sigma[np.arange(n), np.arange(n)] = 1.0
    level = 0
    at = np.isclose(dist, 0)
    while at.any():
        nxt = np.isclose(dist, level + 1)
        sigma += np.where(nxt, (adj @ (sigma * at).T).T, 0.0)
        at, level = nxt, level + 1
    same_switch = topo.node_switch[:, None] == topo.node_switch[None, :]
    paths = float(np.where(same_switch, 0.0, sigma[:, :n]).sum())
    total = float(dn.sum())
    return {
        "nodes": n,
        "switches": topo.n_switches,
        "links": topo.n_links,
        "radix": int(topo.radix.max()),
        "diameter": int(dn.max()),
        "avg_distance": Fraction(int(total), n * n),
        "avg_distance_distinct": Fraction(int(total), n * (n - 1)),
        "path_diversity": Fraction(int(paths), n**3),
    }


def _needs(family):
    if family not in FAMILIES:
        pytest.skip(f"topology family {family!r} not registered yet")


KN = list(itertools.product((2, 3, 4), (2, 3, 4)))
TREE_KEYS = (
    "nodes",
    "switches",
    "links",
    "radix",
    "diameter",
    "avg_distance",
    "avg_distance_distinct",
    "path_diversity",
)


@pytest.mark.parametrize("family", ["kant", "clos", "mikant"])
@pytest.mark.parametrize("k,n", KN)
def test_tree_families_match_graph(family, k, n):
    topo = fattree.build(family, k=k, n=n)
    got = brute(topo)
    forms = closed_forms(family, {"k": k, "n": n})
    for key in TREE_KEYS:
        assert forms[key].value == got[key], (family, k, n, key, forms[key].value, got[key])


def test_kant_single_switch():
    got = brute(fattree.build("kant", k=3, n=1))
    forms = closed_forms("kant", {"k": 3, "n": 1})
    assert all(
        forms[key].value == got[key]
        for key in ("nodes", "switches", "links", "radix", "diameter", "avg_distance")
    )


# Hybrid instances kept small enough for all-pairs BFS (MiCAT(4,3) has 1,920 nodes).
HYBRID_KN = [(2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (4, 2), (4, 3)]


@pytest.mark.slow
@pytest.mark.parametrize("family", ["cat", "micat"])
@pytest.mark.parametrize("k,n", HYBRID_KN)
def test_cat_micat_match_graph(family, k, n):
    _needs(family)
    got = brute(fattree.build(family, k=k, n=n))
    forms = closed_forms(family, {"k": k, "n": n})
    for key in TREE_KEYS:
        assert forms[key].value == got[key], (family, k, n, key, forms[key].value, got[key])
    # the printed average distance and path diversity are the errata's wrong ones
    assert forms["avg_distance"].paper_is_wrong and forms["path_diversity"].paper_is_wrong


@pytest.mark.parametrize("family", ["kantc", "mikantc"])
@pytest.mark.parametrize("k,n", [(2, 2), (3, 2), (4, 2), (2, 3), (3, 3), (4, 3), (2, 4), (3, 4)])
def test_kantc_mikantc_match_graph(family, k, n):
    _needs(family)
    got = brute(fattree.build(family, k=k, n=n))
    forms = closed_forms(family, {"k": k, "n": n})
    for key in ("nodes", "switches", "links", "radix", "diameter"):
        assert forms[key].value == got[key], (family, k, n, key, forms[key].value, got[key])
    printed = 2 * n + k
    assert (forms["diameter"].printed is not None) == (printed != got["diameter"])


@pytest.mark.parametrize("d,p", [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (3, 2), (4, 3)])
def test_hypercube_matches_graph(d, p):
    _needs("hypercube")
    got = brute(fattree.build("hypercube", d=d, p=p))
    forms = closed_forms("hypercube", {"d": d, "p": p})
    for key in TREE_KEYS:
        assert forms[key].value == got[key], (d, p, key, forms[key].value, got[key])


@pytest.mark.parametrize(
    "k,n,p", [(2, 3, 1), (3, 1, 1), (3, 2, 2), (4, 2, 1), (5, 2, 1), (4, 3, 1), (6, 2, 2)]
)
def test_torus_matches_graph(k, n, p):
    _needs("torus")
    got = brute(fattree.build("torus", k=k, n=n, p=p))
    forms = closed_forms("torus", {"k": k, "n": n, "p": p})
    for key in (
        "nodes",
        "switches",
        "links",
        "radix",
        "diameter",
        "avg_distance",
        "avg_distance_distinct",
    ):
        assert forms[key].value == got[key], (k, n, p, key, forms[key].value, got[key])


@pytest.mark.parametrize("clients", [8, 16, 32, 64])
def test_min_fat_trees_match_graph(clients):
    _needs("minft")
    got = brute(fattree.build("minft", clients=clients))
    forms = closed_forms("minft", {"clients": clients})
    for key in TREE_KEYS:
        assert forms[key].value == got[key], (clients, key, forms[key].value, got[key])
    assert forms["max_routers_visited"].value == got["diameter"] - 1
    _needs("rsminft")
    got = brute(fattree.build("rsminft", clients=clients))
    forms = closed_forms("rsminft", {"clients": clients})
    for key in ("nodes", "switches", "links", "radix", "diameter"):
        assert forms[key].value == got[key], ("rsminft", clients, key, forms[key].value, got[key])


# ------------------------------------------------------------------ API and errata flags
def test_formula_objects_carry_references_and_errata():
    f = closed_forms("clos", {"k": 4, "n": 3})
    assert isinstance(f["bisection_width"], Formula)
    assert f["bisection_width"].value == 64 and f["bisection_width"].printed == 32
    assert f["bisection_width"].paper_is_wrong and "000 Table I" in f["bisection_width"].reference
    assert not f["nodes"].paper_is_wrong and f["nodes"].printed is None
    assert all(x.reference for x in f.values())
    assert isinstance(closed_forms("mikant", {"k": 3, "n": 3})["avg_distance"].value, Fraction)


def test_known_values_and_conventions():
    # 000 Theorem 6 at MiKANT(3,3); the s != t mean is the all-pairs one times N/(N-1)
    f = closed_forms("mikant", {"k": 3, "n": 3})
    assert f["avg_distance"].value == Fraction(6) - Fraction(1, 2) + Fraction(1, 54) - Fraction(
        1, 2
    )
    assert f["avg_distance_distinct"].value == f["avg_distance"].value * 54 / 53
    # errata constants C_2 = -1/9, C_3 = -155/147, C_4 = -739/450
    from fattree.analysis._forms_hybrid import _c

    assert [_c(Fraction(1), k) for k in (2, 3, 4)] == [
        Fraction(-1, 9),
        Fraction(-155, 147),
        Fraction(-739, 450),
    ]
    # odd k: the KANTC diameter differs from the printed 2n + k; even k agrees
    assert closed_forms("kantc", {"k": 5, "n": 3})["diameter"].printed == 11
    assert closed_forms("kantc", {"k": 5, "n": 3})["diameter"].value == 10
    assert closed_forms("kantc", {"k": 6, "n": 3})["diameter"].printed is None
    assert "diameter" not in closed_forms("kantc", {"k": 5, "n": 2})


def test_numeric_agrees_with_exact():
    for fam in FORMS.names():
        entry = FORMS.get(fam)
        params = {p.name: (8 if p.name == "clients" else p.minimum + 1) for p in entry.params}
        exact = closed_forms(fam, params)
        fast = numeric(fam, params)
        for key, f in exact.items():
            assert float(fast[key]) == pytest.approx(float(f.value), rel=1e-12), (fam, key)


@pytest.mark.parametrize(
    "family,params,match",
    [
        ("mikant", {"k": 1, "n": 3}, "k=1"),
        ("mikant", {"k": 3}, "missing parameter 'n'"),
        ("mikant", {"k": 3, "n": 3, "q": 1}, "unknown parameter 'q'"),
        ("mikant", {"k": "x", "n": 3}, "k='x'"),
        ("mikant", {"k": 2.5, "n": 3}, "k=2.5"),
        ("rsminft", {"clients": 12}, "power of two"),
        ("minft", {"clients": 6}, "power of two"),
    ],
)
def test_bad_parameters(family, params, match):
    with pytest.raises(ParameterError, match=match):
        closed_forms(family, params)


def test_unknown_family_lists_valid_ones():
    with pytest.raises(UnknownNameError, match="did you mean 'mikant'"):
        closed_forms("mikantt", {"k": 2, "n": 2})
