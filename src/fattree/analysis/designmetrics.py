"""Per-design figures shared by ``design``, ``compare`` and ``cost``: bisection (exact or
an upper bound, labelled), a uniform-traffic throughput bound from cuts, and the price.

* Bisection: the closed form where one exists (exact; XGFT's whole-subtree cut is an upper bound
  in general, exact on every instance checked); otherwise the best explicit balanced cut
  of the built graph (:func:`fattree.analysis.bisection.explicit_cut`, an upper bound)
  when the design has at most :data:`GRAPH_NODES` nodes; beyond, the trivial bound N/2
  (the node links of half the nodes).
* Throughput bound under uniform traffic, from cuts (any cut gives one): a balanced cut of
  width B carries about N r / 4 each way, so r <= 4B(N-1)/N^2; for XGFT also each level's
  subtree cut, r <= W_{i+1}(N-1) / (P_i (N - P_i)); and a family's own cap where it
  declares one (``uniform_cap``: MiKANT's cross links). Capped at 1 (the node links). It is
  a bound for *any* routing, not the default routing's channel-load bound
  (``routing.load``), which ``fattree cost`` computes on the graph.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod

#: Largest node count for which a missing closed-form bisection is cut on the graph.
GRAPH_NODES = 50_000


@lru_cache(maxsize=4096)
def _bisection(spec: str) -> tuple[int | None, str]:
    from ..topology.family import build, parse_spec, resolve
    from .closed_forms import FORMS, closed_forms

    name, raw = parse_spec(spec)
    forms = closed_forms(name, raw) if name in FORMS else {}
    f = forms.get("bisection_width")
    if f is not None:
        upper = "upper bound" in f"{f.note} {f.reference}"
        return int(f.value), (
            "upper bound" if upper else "exact"
        ) + f" (closed form, {f.reference})"
    if "nodes" in forms and int(forms["nodes"].value) > GRAPH_NODES:
        return int(
            forms["nodes"].value
        ) // 2, "upper bound (trivial: the node links of half the nodes)"
    fam, values = resolve(spec)
    nodes = fam.size(values)[0] if fam.size is not None else None
    if nodes is not None and nodes <= GRAPH_NODES:
        from .bisection import cut_lower_bound, ecmp_load, explicit_cut

        topo = build(spec)
        b = explicit_cut(topo)
        load = ecmp_load(topo, max_work=1 << 22)  # a cheap lower bound: exact if it meets
        if load is not None and cut_lower_bound(topo.n_nodes, load) >= b.width:
            return int(b.width), f"exact (graph: {b.method}; met by a uniform-flow lower bound)"
        return int(b.width), f"{'exact' if b.exact else 'upper bound'} (graph: {b.method})"
    if nodes is None:
        return None, "unknown"
    return nodes // 2, "upper bound (trivial: the node links of half the nodes)"


def bisection_estimate(spec: str) -> tuple[int | None, str]:
    """``(width, label)``: exact closed form, else an upper bound from a cut (labelled).

    Examples
    --------
    >>> bisection_estimate("kant:k=4,n=3")
    (32, 'exact (closed form, 000 Table I (even k))')
    >>> w, label = bisection_estimate("cat:k=3,n=3"); label.startswith("upper bound (graph")
    True

    References
    ----------
    000 Table I, Theorem 7; docs/properties.md (explicit cuts).
    """
    return _bisection(spec)


def _family_cap(family: str, params) -> float | None:
    """The family's own cap on uniform throughput (``Family.uniform_cap``), if it declares one."""
    from ..topology import FAMILIES

    if not family or params is None or family not in FAMILIES:
        return None
    fam = FAMILIES.get(family)
    if fam.uniform_cap is None:
        return None
    # closed-form designs may lie beyond the family's graph limits: no validation here
    return float(fam.uniform_cap(dict(params)))


def uniform_bound(nodes: int, bisection: int | None, family: str = "", params=None) -> float | None:
    """Upper bound on accepted uniform throughput (flits/node/cycle) from cuts.

    Examples
    --------
    >>> uniform_bound(4096, 2048)
    1.0
    >>> round(uniform_bound(64, 8, "xgft", {"m": "4.4.4", "w": "1.2.2"}), 4)   # = dmodk's bound
    0.3281
    >>> round(uniform_bound(128, 32, "mikant", {"k": 4, "n": 3}), 4)   # its cross links
    0.7937

    References
    ----------
    Any cut bounds the traffic through it (Dally & Towles 2004, §3.3).
    """
    if not bisection:
        return None
    N = nodes
    best = 4 * bisection * (N - 1) / (N * N)
    cap = _family_cap(family, params)
    if cap is not None:
        best = min(best, cap)
    if family == "xgft" and params is not None:
        from ..topology.families.xgft import shape

        m, w = shape(params, limits=False)
        for i in range(1, len(m)):
            P = prod(m[:i])
            best = min(best, prod(w[: i + 1]) * (N - 1) / (P * (N - P)))
    return min(1.0, best)
