"""Topological properties computed from the graph (never copied from a formula).

Conventions (see ``docs/properties.md`` and ``docs/errata.md``):

* hops count links, node links included (000 §III);
* ``avg_distance`` is the papers' mean over all N² ordered node pairs including
  s = t; ``avg_distance_excl_self`` the mean over the N(N-1) pairs s != t;
* ``path_diversity`` is 001 §3.3's PD = P̃/N, P̃ the mean number of shortest paths
  over all N² ordered pairs where pairs on the same switch (s = t included) count 0;
  ``mean_shortest_paths`` is the plain mean over s != t;
* distances and path counts are exact: BFS from one representative per class of
  equivalent nodes (the family's ``node_classes``), or from every node; imported
  graphs above ``exact_limit`` nodes use a seeded sample of sources and report 95%
  confidence intervals.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import ParameterError, ResourceError
from .bfs import node_pair_stats

#: Largest number of nodes for which a graph without node classes is done all-pairs.
EXACT_LIMIT = 20_000
#: Sources sampled above :data:`EXACT_LIMIT`.
SAMPLES = 1_000
_Z95 = 1.959963984540054


def _node_classes(topo):
    from ..topology.family import FAMILIES

    if topo.family not in FAMILIES:
        return None
    fn = FAMILIES.get(topo.family).node_classes
    if fn is None:
        return None
    reps, sizes = fn(topo)
    reps = np.asarray(reps, np.int64)
    sizes = np.asarray(sizes, np.int64)
    if int(sizes.sum()) != topo.n_nodes or reps.shape != sizes.shape:
        raise AssertionError(
            f"node_classes of {topo.family} cover {int(sizes.sum())} of {topo.n_nodes} nodes"
        )
    return reps, sizes


def _choose_sources(topo, exact_limit, samples, seed, symmetry):
    """(sources, weights, method, exact).

    Exact statistics whose BFS work would exceed :data:`BFS_WORK_CAP`: too many node
    classes fall back to a sample (said in the method); all pairs asked by
    ``exact_limit`` are refused (:func:`check_bfs_work`). A sample is cut to the cap."""
    n = topo.n_nodes
    per = topo.n_vertices + 2 * topo.n_links
    why = ""
    classes = _node_classes(topo) if symmetry else None
    if classes is not None:
        reps, sizes = classes
        if len(reps) * per <= BFS_WORK_CAP:
            return (
                reps,
                sizes,
                f"BFS from {len(reps)} class representative(s), weighted by class size",
                True,
            )
        why = f"; {len(reps):,} node classes would exceed the BFS work cap"
    elif n <= exact_limit:
        check_bfs_work(topo, n, "BFS from every node (all pairs, n <= --exact-limit)")
        return (
            np.arange(n, dtype=np.int64),
            np.ones(n, np.int64),
            "BFS from every node (all pairs)",
            True,
        )
    rng = np.random.default_rng(seed)
    m = min(samples, n, max(BFS_WORK_CAP // per, 1))
    if m < min(samples, n):
        why += f"; {min(samples, n):,} samples cut to the BFS work cap"
    src = np.sort(rng.choice(n, size=m, replace=False)).astype(np.int64)
    return (
        src,
        np.ones(m, np.int64),
        f"BFS from {m} sampled nodes (seed {seed}), estimate{why}",
        m == n,
    )


def properties(
    topo,
    *,
    exact_limit: int = EXACT_LIMIT,
    samples: int = SAMPLES,
    seed: int = 0,
    symmetry: bool = True,
    bisection: bool = True,
    ilp_max_switches: int | None = None,
    time_limit: float | None = None,
    progress=None,
) -> dict[str, Any]:
    """Every property of a topology, computed on its graph.

    Parameters
    ----------
    topo : Topology
    exact_limit : int
        Graphs without node classes are done all-pairs up to this many nodes.
    samples : int
        Number of sampled source nodes above ``exact_limit``.
    seed : int
        Seed of that sample.
    symmetry : bool
        Use the family's node classes (False forces all-pairs or sampling).
    bisection : bool
        Compute the bisection width (ILP or explicit cut); False leaves it None.
    ilp_max_switches, time_limit : optional
        Passed to :func:`fattree.analysis.bisection.bisection`.
    progress : callable, optional
        Called with a short text as each stage starts (``"distances: BFS from 12
        sources"``, ``"bisection"``), for a progress line.

    Returns
    -------
    dict
        ``nodes, switches, links, node_links, switch_links, radix {min, max},
        diameter, avg_distance, avg_distance_excl_self, distance_histogram,
        path_diversity, mean_shortest_paths, bisection_width, bisection_exact,
        bisection_method, bisection_lower_bound`` and how they were obtained
        (``distance_method``, ``distances_exact``, ``path_counts_exact``, ``ci95``
        for estimates). Exact averages are :class:`fractions.Fraction`.

    Examples
    --------
    >>> import fattree
    >>> p = properties(fattree.build("mikant:k=2,n=2"))
    >>> p["nodes"], p["links"], p["diameter"], p["avg_distance"], p["bisection_width"]
    (8, 12, 4, Fraction(11, 4), 2)
    >>> p["path_diversity"], p["distance_histogram"]
    (Fraction(1, 8), [8, 0, 8, 32, 16])

    References
    ----------
    000 §III (Theorems 1-7, eqs 1-3); 001 §3.3 (path diversity); errata.md.
    """
    for name, val, lo in (("exact_limit", exact_limit, 0), ("samples", samples, 1)):
        if not isinstance(val, (int, np.integer)) or isinstance(val, bool) or val < lo:
            raise ParameterError(f"{name}={val!r} is invalid: an integer >= {lo}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise ParameterError(f"seed={seed!r} is invalid: an integer")
    if isinstance(topo, str):  # a spec: built here (fattree.properties does the same)
        from ..topology import build

        topo = build(topo)
    if not hasattr(topo, "n_nodes"):
        raise ParameterError(f"topo={topo!r} is invalid: expected a Topology or a spec string")
    n = topo.n_nodes
    if n < 2:
        raise ParameterError(f"{topo.spec} has {n} compute node(s); properties need at least 2")
    radix = topo.radix
    out: dict[str, Any] = {
        "family": topo.family,
        "params": dict(topo.params),
        "spec": topo.spec,
        "nodes": n,
        "switches": topo.n_switches,
        "links": topo.n_links,
        "node_links": topo.n_node_links,
        "switch_links": topo.n_switch_links,
        "radix": {
            "min": int(radix.min()) if radix.size else 0,
            "max": int(radix.max()) if radix.size else 0,
        },
    }
    stage = progress if progress is not None else (lambda _text: None)
    stage("node classes")
    src, w, method, exact = _choose_sources(topo, exact_limit, samples, seed, symmetry)
    stage(f"distances: BFS from {len(src):,} source{'s' if len(src) > 1 else ''}")
    st = node_pair_stats(topo, src, w)
    if st.unreached.any():
        i = int(np.argmax(st.unreached))
        raise ParameterError(
            f"{topo.spec} is disconnected: node {topo.node_label(int(src[i]))} reaches "
            f"{n - int(st.unreached[i])} of {n} compute nodes"
        )
    if exact and len(src) == 1 and n > 1:
        _check_transitive(topo, st)
    out.update(
        distance_method=method,
        distances_exact=exact,
        sources=int(len(src)),
        path_counts_exact=bool(st.exact_counts),
    )
    out["diameter"] = int(st.eccentricity.max())
    out["distance_histogram"] = [int(x) for x in st.histogram]
    if exact:
        out.update(_exact_means(st, n))
    else:
        out.update(_sampled_means(st, n))
    if bisection:
        stage("bisection")
        from .bisection import ILP_MAX_SWITCHES, ILP_TIME_LIMIT
        from .bisection import bisection as _bisection

        b = _bisection(
            topo,
            ilp_max_switches=ILP_MAX_SWITCHES if ilp_max_switches is None else ilp_max_switches,
            time_limit=ILP_TIME_LIMIT if time_limit is None else time_limit,
        )
        out.update(
            bisection_width=b.width,
            bisection_exact=b.exact,
            bisection_method=b.method,
            bisection_lower_bound=b.lower_bound,
        )
    else:
        out.update(
            bisection_width=None,
            bisection_exact=False,
            bisection_method="not computed",
            bisection_lower_bound=None,
        )
    return out


def _check_transitive(topo, st) -> None:
    """With a single node class every node sees the same sums; check the last node."""
    other = node_pair_stats(topo, [topo.n_nodes - 1])
    if (other.dist_sum[0], other.sigma_sum[0], other.sigma_other_switch[0]) != (
        st.dist_sum[0],
        st.sigma_sum[0],
        st.sigma_other_switch[0],
    ):
        raise AssertionError(f"{topo.spec}: node classes claim symmetry the graph does not have")


def _total(weights, values) -> int | float:
    if values.dtype.kind == "f":
        return float(np.dot(weights.astype(float), values))
    return sum(int(a) * int(b) for a, b in zip(weights.tolist(), values.tolist()))


def _ratio(num, den):
    return Fraction(num, den) if isinstance(num, int) else num / den


def _exact_means(st, n: int) -> dict[str, Any]:
    dist = _total(st.weights, st.dist_sum)
    sig_all = _total(st.weights, st.sigma_sum)
    sig_other = _total(st.weights, st.sigma_other_switch)
    return {
        "avg_distance": Fraction(dist, n * n),
        "avg_distance_excl_self": Fraction(dist, n * (n - 1)),
        "path_diversity": _ratio(sig_other, n**3),
        "mean_shortest_paths": _ratio(sig_all, n * (n - 1)),
        "ci95": {},
    }


def _sampled_means(st, n: int) -> dict[str, Any]:
    """Means over sampled sources with normal 95% intervals (finite-population corrected)."""
    m = len(st.sources)
    per_source = {
        "avg_distance": st.dist_sum / n,
        "avg_distance_excl_self": st.dist_sum / (n - 1),
        "path_diversity": st.sigma_other_switch.astype(float) / n**2,
        "mean_shortest_paths": st.sigma_sum.astype(float) / (n - 1),
    }
    out: dict[str, Any] = {"ci95": {}}
    fpc = math.sqrt((n - m) / (n - 1)) if n > 1 else 0.0
    for key, vals in per_source.items():
        mean = float(vals.mean())
        half = _Z95 * float(vals.std(ddof=1)) / math.sqrt(m) * fpc if m > 1 else math.inf
        out[key] = mean
        out["ci95"][key] = [mean - half, mean + half]
    return out


# ------------------------------------------------------------------ closed forms
#: Closed-form key -> how to read the computed value from :func:`properties`' dict.
_COMPUTED = {
    "radix": lambda p: p["radix"]["max"],
    "avg_distance_distinct": lambda p: p["avg_distance_excl_self"],
    # 003's unit: a shortest node-to-node path of d links visits d - 1 routers
    "max_routers_visited": lambda p: p["diameter"] - 1,
}
#: Closed-form key -> key of the 95% interval in ``ci95`` (estimates only).
_CI_KEY = {"avg_distance_distinct": "avg_distance_excl_self"}


def paper_formulas(family: str, params) -> dict[str, Any]:
    """The closed forms of :mod:`fattree.analysis.closed_forms` for a family, or ``{}``.

    Families without closed forms (imported graphs) give an empty mapping.
    """
    from .closed_forms import closed_forms

    try:
        return dict(closed_forms(family, dict(params)))
    except (KeyError, ValueError, LookupError):
        return {}


def _formula_parts(entry) -> tuple[Any, str, Any, str]:
    """(value, reference, printed value or None, note) of a closed-form entry."""
    if isinstance(entry, (int, float, Fraction)):
        return entry, "", None, ""
    if isinstance(entry, dict):
        get = entry.get
    else:

        def get(name, default=None):
            return getattr(entry, name, default)

    return get("value"), get("reference", "") or "", get("printed"), get("note", "") or ""


def _close(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _agreement(key: str, computed, formula, props) -> tuple[bool | None, str]:
    """(agrees, mark): True/False, or None where the computed value is only a bound."""
    if computed is None or not isinstance(formula, (int, float, Fraction)):
        return None, ""
    if key == "bisection_width" and not props.get("bisection_exact", False):
        if _close(computed, formula):
            return True, "✓ (cut attains it)"
        if computed < formula:
            return False, "✗ (smaller cut found)"
        return None, "? (bound above)"
    ci = props.get("ci95", {}).get(_CI_KEY.get(key, key))
    if ci:
        inside = ci[0] - 1e-12 <= float(formula) <= ci[1] + 1e-12
        return inside, "✓ (in 95% CI)" if inside else "✗ (outside 95% CI)"
    if key == "diameter" and not props.get("distances_exact", True):
        if computed > formula:
            return False, "✗"
        return None, "? (sampled: lower bound)"
    ok = _close(computed, formula)
    return ok, "✓" if ok else "✗"


def formula_checks(
    props: dict[str, Any], formulas: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Each closed form beside the computed value, with its agreement.

    Parameters
    ----------
    props : dict
        The output of :func:`properties`.
    formulas : dict, optional
        Closed forms by name; default :func:`paper_formulas` of the family.

    Returns
    -------
    list of dict
        ``name, computed, formula, printed, reference, note, errata, agrees, mark``;
        ``errata`` is True where the paper prints a different value (the row then
        compares against the corrected one).

    Examples
    --------
    >>> import fattree
    >>> p = properties(fattree.build("kant:k=2,n=3"), bisection=False)
    >>> rows = formula_checks(p, {"diameter": 6, "links": 99})
    >>> [(r["name"], r["computed"], r["mark"]) for r in rows]
    [('diameter', 6, '✓'), ('links', 24, '✗')]

    References
    ----------
    000 Table I; 001 §3.3; errata.md (corrected values).
    """
    if formulas is None:
        formulas = paper_formulas(props["family"], props["params"])
    rows = []
    for key, entry in formulas.items():
        value, ref, printed, note = _formula_parts(entry)
        getter = _COMPUTED.get(key)
        computed = getter(props) if getter else props.get(key)
        if isinstance(computed, dict):
            computed = None
        agrees, mark = _agreement(key, computed, value, props)
        errata = printed is not None and not _close(printed, value)
        rows.append(
            {
                "name": key,
                "computed": computed,
                "formula": value,
                "printed": printed if errata else None,
                "reference": ref,
                "note": note,
                "errata": errata,
                "agrees": agrees,
                "mark": mark,
            }
        )
    return rows


#: vertex and edge visits the distance statistics may take (one BFS visits every vertex and
#: edge once): minutes at the BFS kernel's rate of a few million visits per second
BFS_WORK_CAP = 2 * 10**9


def check_bfs_work(topo, sources: int, method: str) -> None:
    """Refuse distance statistics whose BFS work exceeds :data:`BFS_WORK_CAP`, before
    starting (one line naming the estimate, the cap and what to change).

    Parameters
    ----------
    topo : Topology
        The network.
    sources : int
        BFS sources chosen (class representatives, sampled or all nodes).
    method : str
        How they were chosen, for the message.

    Raises
    ------
    ResourceError
        ``sources x (vertices + directed edges)`` above the cap.

    Examples
    --------
    >>> import fattree
    >>> check_bfs_work(fattree.build("kant:k=2,n=2"), 4, "all pairs")
    """
    per = topo.n_vertices + 2 * topo.n_links
    work = sources * per
    if work > BFS_WORK_CAP:
        raise ResourceError(
            f"{topo.spec}: distance statistics by {method} need about {work:.3g} vertex and "
            f"edge visits ({sources:,} BFS x {per:,}), beyond the cap of {BFS_WORK_CAP:.3g} "
            "(tens of minutes or more); lower --exact-limit to sample sources instead"
        )
