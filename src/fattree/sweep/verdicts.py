"""Findings of a results frame: the per-design summary and, for shipped studies, the verdict
in words (``VERDICTS[study name](results) -> sentences``).

:func:`design_summary` reduces a study's results to one row per design and comparison:
price and power per node, zero-load latency, saturation throughput simulated beside the bound
of the very points simulated, random-permutation throughput beside its own permutation's
bound, fault tolerance with its 95 % Wilson interval, and throughput under faults over
several fault draws. The report opens with it (:mod:`fattree.report.findings`); the
equal-cost verdict is read from it. Every number comes from the study's own results.

Comparisons. A ``cost`` point with ``ranks`` belongs to the *equal node count* comparison
(the design runs that many ranks, on nodes 0..ranks-1, the rest idle: prices are per rank);
one with ``budget`` to the *equal budget* comparison (the largest design of its family
within the budget: designs differ in size, and the verdict compares the throughput the
budget buys, nodes x throughput per node). Throughput per dollar is never scaled across
sizes and called equal cost.
"""

from __future__ import annotations

import math

import pandas as pd

from ..registry import Registry

VERDICTS: Registry = Registry("study verdict")

#: most sentences a verdict may have
MAX_SENTENCES = 5


def _num(v) -> float | None:
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def _col(df, name):
    return df[name] if name in df.columns else pd.Series([None] * len(df), index=df.index)


def _kind(df, kind: str):
    if "kind" not in df.columns:
        return df.iloc[0:0]
    return df[df["kind"] == kind]


def _fault_free(sim):
    out = sim
    for c in ("fault_rate", "faults"):
        if c in out.columns:
            out = out[out[c].isna()]
    return out


def _comparisons(df) -> list[tuple[str, str, dict]]:
    """(comparison label, topology, cost row) for every cost point; ``[]`` without cost."""
    cost = _kind(df, "cost")
    out = []
    for _, r in cost.iterrows():
        ranks, budget = _num(r.get("ranks")), _num(r.get("budget"))
        if ranks is not None:
            label = f"equal node count, N = {int(ranks):,}"
        elif budget is not None:
            label = f"equal budget, US${budget:,.0f}"
        else:
            label = "designs priced"
        out.append((label, str(r["topology"]), r.to_dict()))
    return out


def _sim_part(sim, topo: str, algorithm) -> dict:
    """Zero-load latency, saturation and permutation throughput of one design's simulations."""
    rows = sim[sim["topology"] == topo]
    if algorithm is not None and "algorithm" in rows.columns:
        rows = rows[rows["algorithm"] == algorithm]
    free = _fault_free(rows)
    out: dict = {}
    if not len(free) or "accepted_flits" not in free.columns:
        return out
    traffic = free["traffic"].astype(str) if "traffic" in free.columns else None
    uni = free[traffic == "uniform"] if traffic is not None else free
    perm = free[traffic.str.startswith("randperm")] if traffic is not None else free.iloc[0:0]
    zero = uni if len(uni) else free
    if "avg_latency" in zero.columns and "load" in zero.columns and len(zero):
        lo = zero["load"].min()
        out["zero_load_latency"] = _num(zero[zero["load"] == lo]["avg_latency"].mean())
        out["zero_load_saturated"] = bool(
            _col(zero[zero["load"] == lo], "saturated").fillna(False).astype(bool).any()
        )
        out["zero_load_at"] = float(lo)
        out["zero_load_traffic"] = str(zero["traffic"].iloc[0]) if "traffic" in zero.columns else ""
    bounds = _col(uni, "channel_load_bound").dropna()
    if len(uni):
        out["sat_sim"] = _num(uni["accepted_flits"].max())
        out["sat_bound"] = _num(bounds.min()) if len(bounds) else None
        out["saturated"] = bool(_col(uni, "saturated").fillna(False).astype(bool).any())
        ok = _sustained(uni)
        if len(ok):
            out["sat_sustained"] = float(ok["load"].max())
    if len(perm):
        best = perm.loc[perm["accepted_flits"].idxmax()]
        out["perm_peak"] = _num(best["accepted_flits"])
        out["perm_carried"] = _num(best.get("carried_bound"))
        out["perm_bound"] = _num(best.get("channel_load_bound"))
        pb = _col(perm, "channel_load_bound").dropna()
        if len(pb):
            out["perm_bound_min"], out["perm_bound_max"] = float(pb.min()), float(pb.max())
        out["perm_traffic"] = str(best["traffic"])
        out["perm_points"] = int(len(perm))
    if "algorithm" in free.columns and free["algorithm"].notna().any():
        out["routing"] = str(free["algorithm"].dropna().iloc[0])
    if "n_nodes" in free.columns and free["n_nodes"].notna().any():
        out["nodes"] = int(free["n_nodes"].dropna().iloc[0])
    if "n_sources" in free.columns and len(perm) and perm["n_sources"].notna().any():
        out["perm_sources"] = int(perm["n_sources"].max())
    return out


def _sustained(rows):
    """The points the network carried: not flagged saturated (accepted follows offered)."""
    if "saturated" not in rows.columns or "load" not in rows.columns:
        return rows.iloc[0:0]
    return rows[~rows["saturated"].fillna(False).astype(bool)]


def beyond_own_bound(df, tolerance: float = 0.05):
    """Fault-free permutation points whose accepted rate exceeds their own bound by more
    than ``tolerance`` (finite runs fluctuate): ``carried_bound``, the most the routes of
    the very permutation simulated (same seed) carry at its offered load, where it binds
    (below the offered load). Always empty for a correct simulator.

    ``channel_load_bound`` (1/γ_max) is not that bound: it is the load at which the
    pattern's busiest channel saturates, and past it the rate averaged over all sources
    may exceed it, because sources off the busiest channels keep delivering.

    Examples
    --------
    >>> df = pd.DataFrame({"kind": "simulate", "load": [0.2, 1.0], "accepted_flits": [0.2, 0.55],
    ...                    "channel_load_bound": [0.25, 0.25], "carried_bound": [0.2, 0.6]})
    >>> len(beyond_own_bound(df))
    0
    """
    sim = _fault_free(_kind(df, "simulate"))
    if "carried_bound" not in sim.columns:
        return sim.iloc[0:0]
    ok = sim[sim["carried_bound"].notna()]
    if "load" in ok.columns:  # where the bound is the offered load itself, an excess is the
        ok = ok[ok["carried_bound"] < ok["load"] * (1 - 1e-9)]  # injection's own sampling
    return ok[ok["accepted_flits"] > ok["carried_bound"] * (1 + tolerance)]


def _fault_sim_part(sim, topo: str) -> dict:
    """Saturation throughput under random faults: mean and spread over the fault draws."""
    if "fault_rate" not in sim.columns:
        return {}
    rows = sim[(sim["topology"] == topo) & sim["fault_rate"].notna()]
    if not len(rows) or "accepted_flits" not in rows.columns:
        return {}
    rate = float(rows["fault_rate"].max())
    rows = rows[rows["fault_rate"] == rate]
    acc = rows["accepted_flits"].astype(float)
    return {
        "fault_tp_rate": rate,
        "fault_tp_mean": float(acc.mean()),
        "fault_tp_min": float(acc.min()),
        "fault_tp_max": float(acc.max()),
        "fault_tp_draws": int(len(rows)),
        "fault_tp_pool": str(rows["fault_pool"].iloc[0]) if "fault_pool" in rows.columns else "all",
    }


def fault_rate_shown(ft) -> float | None:
    """The fault rate the summary shows: the highest rate <= 10 % (else the lowest > 0)."""
    if not len(ft) or "rate" not in ft.columns:
        return None
    rates = sorted(float(r) for r in ft["rate"].dropna().unique() if float(r) > 0)
    if not rates:
        return None
    low = [r for r in rates if r <= 0.1]
    return low[-1] if low else rates[0]


def _fault_part(ft, topo: str, rate) -> dict:
    """Success ratio (95 % Wilson interval) of the design's fault-tolerant routing: the
    family default where the study ran it, else its best non-oracle algorithm."""
    if rate is None:
        return {}
    rows = ft[(ft["topology"] == topo) & (ft["rate"] == rate)]
    if not len(rows):
        return {}
    algs = rows[rows["algorithm"] != "oracle"]
    pick = algs[algs["algorithm"] == "default"] if (algs["algorithm"] == "default").any() else algs
    if not len(pick):
        return {}
    best = pick.loc[pick["success_ratio"].astype(float).idxmax()]
    out = {
        "ft_rate": float(rate),
        "ft_success": _num(best["success_ratio"]),
        "ft_low": _num(best.get("ci_low")),
        "ft_high": _num(best.get("ci_high")),
        "ft_algorithm": str(best.get("ft_algorithm") or best["algorithm"]),
        "ft_trials": _num(best.get("trials")),
    }
    if "fault_pool" in best.index:
        out["ft_pool"] = str(best["fault_pool"])
    orc = rows[rows["algorithm"] == "oracle"]
    if len(orc):
        out["oracle_success"] = _num(orc["success_ratio"].iloc[0])
    return out


def design_summary(df) -> pd.DataFrame:
    """One row per design and comparison, ranked within each comparison.

    Columns (those the results support): ``comparison``, ``rank``, ``topology``,
    ``routing``, ``nodes`` (built), ``ranks`` (used), ``usd_per_node`` and
    ``watts_per_node`` (per rank used), ``zero_load_latency`` (cycles, at the lowest load
    simulated), ``sat_sim`` (peak accepted uniform flits/node/cycle), ``sat_sustained``
    (the highest uniform load carried unsaturated) and ``sat_bound`` (the channel-load
    bound of those same points), ``perm_peak`` (the highest accepted rate under a random
    permutation) with ``perm_carried`` (the most the routes of *that* permutation carry
    at that load) and ``perm_bound`` (the load at which its busiest channel saturates;
    ``perm_bound_min``, ``perm_bound_max`` over every permutation simulated),
    ``ft_success`` with ``ft_low``,
    ``ft_high`` (95 % Wilson interval), ``fault_tp_mean/min/max`` over ``fault_tp_draws``
    fault draws, ``usd_per_throughput`` (US$ per node / ``sat_sim``) and
    ``throughput_total`` (``ranks x sat_sim``, flits/cycle).

    Ranking: at equal node count and for priced designs, by ``usd_per_throughput``
    (ascending); at equal budget, by ``throughput_total`` (descending); without prices, by
    ``sat_sim`` (descending). Designs without a uniform simulation come last.

    Examples
    --------
    >>> df = pd.DataFrame({"kind": "simulate", "topology": ["kant:k=2,n=2"] * 2,
    ...     "traffic": "uniform", "load": [0.1, 0.9], "avg_latency": [6.0, 30.0],
    ...     "accepted_flits": [0.1, 0.7], "channel_load_bound": [1.0, 1.0]})
    >>> s = design_summary(df).iloc[0]
    >>> float(s["zero_load_latency"]), float(s["sat_sim"]), float(s["sat_bound"])
    (6.0, 0.7, 1.0)
    """
    sim = _kind(df, "simulate")
    ft = _kind(df, "faults")
    rate = fault_rate_shown(ft)
    rows = []
    comps = _comparisons(df)
    if comps:
        for label, topo, c in comps:
            n = int(c["nodes"])
            ranks = int(_num(c.get("ranks")) or n)
            row = {
                "comparison": label,
                "topology": topo,
                "nodes": n,
                "ranks": ranks,
                "usd": _num(c.get("usd")),
                "usd_per_node": (_num(c.get("usd")) or math.nan) / ranks,
                "watts_per_node": (_num(c.get("watts")) or math.nan) / ranks,
                "cost_bound": _num(c.get("bound_uniform")) or _num(c.get("cut_bound")),
                "cut_bound": _num(c.get("cut_bound")),
                "routing": c.get("routing"),
            }
            row |= _sim_part(sim, topo, None) if len(sim) else {}
            row["nodes"] = n
            row |= _fault_sim_part(sim, topo) if len(sim) else {}
            row |= _fault_part(ft, topo, rate) if len(ft) else {}
            rows.append(row)
    else:
        keys = []
        if len(sim) and "topology" in sim.columns:
            cols = [c for c in ("topology", "algorithm") if c in sim.columns]
            keys = [
                tuple(k) for k in _fault_free(sim)[cols].drop_duplicates().itertuples(index=False)
            ]
        seen = {k[0] for k in keys}
        if len(ft) and "topology" in ft.columns:
            keys += [(t,) for t in ft["topology"].drop_duplicates() if t not in seen]
        for key in keys:
            topo, alg = key[0], (key[1] if len(key) > 1 else None)
            row = {"comparison": "designs", "topology": topo}
            row |= _sim_part(sim, topo, alg) if len(sim) else {}
            row |= _fault_sim_part(sim, topo) if len(sim) else {}
            row |= _fault_part(ft, topo, rate) if len(ft) else {}
            if "nodes" in row:
                row["ranks"] = row["nodes"]
            rows.append(row)
    out = pd.DataFrame(rows)
    if not len(out):
        return out
    for c in ("sat_sim", "usd_per_node", "ranks"):
        if c not in out.columns:
            out[c] = math.nan
    out["usd_per_throughput"] = out["usd_per_node"] / out["sat_sim"]
    out["throughput_total"] = out["ranks"] * out["sat_sim"]
    ranked = []
    for label, g in out.groupby("comparison", sort=False):
        if label.startswith("equal budget"):
            key, asc = "throughput_total", False
        elif g["usd_per_node"].notna().any():
            key, asc = "usd_per_throughput", True
        else:
            key, asc = "sat_sim", False
        g = g.sort_values(key, ascending=asc, na_position="last", kind="stable").copy()
        g["rank"] = range(1, len(g) + 1)
        g["ranked_by"] = key
        ranked.append(g)
    return pd.concat(ranked, ignore_index=True)


def _f(v, digits=3) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}g}"


def _pct(v) -> str:
    return f"{100 * v:.2f} %"


def _ci_groups(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """(designs whose 95 % interval overlaps the best one's, the rest)."""
    rows = sorted(rows, key=lambda r: -r["ft_success"])
    top = rows[0]
    same = [r for r in rows if r["ft_high"] >= top["ft_low"]]
    names = {r["topology"] for r in same}
    return same, [r for r in rows if r["topology"] not in names]


def equal_cost(df) -> list[str]:
    """The equal-cost verdict in at most five sentences, each naming its comparison.

    1. Equal node count: the design that delivers uniform throughput for the least money
       (US$ per node over the simulated saturation throughput), each beside its bound.
    2. Equal budget: the design that buys the most uniform throughput (nodes x simulated
       saturation throughput).
    3. Random permutations (equal node count): the best design, against the bound of the
       very permutation it ran.
    4. Faults: the success ratios with their 95 % Wilson intervals; designs whose
       intervals overlap the best one's are "no significant difference".
    5. Throughput under faults: mean and spread over the fault draws.

    References
    ----------
    docs/analytics.md (the equal-cost study, the price model).
    """
    s = design_summary(df)
    if not len(s) or "comparison" not in s.columns:
        return ["equal-cost verdict: no results"]
    out = []
    eq_n = s[s["comparison"].str.startswith("equal node count")]
    eq_b = s[s["comparison"].str.startswith("equal budget")]
    have = eq_n[eq_n["usd_per_throughput"].notna()] if len(eq_n) else eq_n
    if len(have):
        h = have.sort_values("usd_per_throughput")
        first, rest = h.iloc[0], h.iloc[1:4]
        out.append(
            f"At {first['comparison']} (uniform traffic, simulated), {first['topology']} "
            f"costs the least per unit of throughput: US${first['usd_per_node']:,.0f} per "
            f"node for a saturation throughput of {_f(first['sat_sim'])} (bound "
            f"{_f(first.get('sat_bound'))}), US${first['usd_per_throughput']:,.0f} per node "
            f"per flit/node/cycle; then "
            + ", ".join(
                f"{r['topology']} (US${r['usd_per_throughput']:,.0f})" for _, r in rest.iterrows()
            )
            + "."
        )
    have = eq_b[eq_b["throughput_total"].notna()] if len(eq_b) else eq_b
    if len(have):
        h = have.sort_values("throughput_total", ascending=False)
        first, rest = h.iloc[0], h.iloc[1:4]
        out.append(
            f"At {first['comparison']} (the largest design of each family within it; uniform "
            f"traffic, simulated), {first['topology']} buys the most throughput: "
            f"{int(first['ranks']):,} nodes x {_f(first['sat_sim'])} = "
            f"{first['throughput_total']:.1f} flits/cycle, then "
            + ", ".join(
                f"{r['topology']} ({int(r['ranks']):,} x {_f(r['sat_sim'])} = "
                f"{r['throughput_total']:.1f})"
                for _, r in rest.iterrows()
            )
            + "."
        )
    base = eq_n if len(eq_n) else s
    perm = base[base["perm_peak"].notna()] if "perm_peak" in base.columns else base.iloc[0:0]
    if len(perm):
        p = perm.sort_values("perm_peak", ascending=False).iloc[0]
        over = beyond_own_bound(df)
        out.append(
            f"Under random permutations ({p['comparison']}), {p['topology']} accepts the most, "
            f"{_f(p['perm_peak'])} flits/node/cycle, within {_f(p.get('perm_carried'))}, the "
            f"most its routes carry of the permutation it ran (its busiest channel saturates "
            f"at {_f(p['perm_bound'])}; over the permutations simulated "
            f"{_f(perm['perm_bound_min'].min())} to {_f(perm['perm_bound_max'].max())}); "
            + (
                "no simulation exceeds its own permutation's bound."
                if over.empty
                else f"{len(over)} points exceed their own permutation's bound: "
                + ", ".join(sorted(set(over["topology"])))
                + "."
            )
        )
    ft = (
        s.drop_duplicates("topology")[lambda d: d["ft_success"].notna()]
        if "ft_success" in s.columns
        else s.iloc[0:0]
    )
    if len(ft):
        rows = [r.to_dict() for _, r in ft.iterrows()]
        same, lower = _ci_groups(rows)
        rate = rows[0]["ft_rate"]
        pool = " switch-to-switch" if rows[0].get("ft_pool") == "switch-only" else ""
        trials = rows[0].get("ft_trials")
        txt = (
            f"With {_pct(rate).replace('.00', '')} of{pool} links failed"
            + (f" ({int(trials):,} trials per design)" if trials else "")
            + ", each family's default local routing delivers "
            + ", ".join(
                f"{r['topology']} {_pct(r['ft_success'])} [{_pct(r['ft_low'])}, "
                f"{_pct(r['ft_high'])}]"
                for r in sorted(rows, key=lambda r: -r["ft_success"])
            )
            + " (95 % Wilson intervals): "
        )
        if len(same) > 1:
            txt += "no significant difference among " + ", ".join(r["topology"] for r in same)
        else:
            txt += f"{same[0]['topology']} is significantly the most tolerant"
        if lower:
            txt += "; significantly lower: " + ", ".join(r["topology"] for r in lower)
        out.append(txt + ".")
    if "fault_tp_mean" in s.columns:
        tp = s.drop_duplicates("topology")[lambda d: d["fault_tp_mean"].notna()]
        if len(tp):
            tp = tp.sort_values("fault_tp_mean", ascending=False)
            r0 = tp.iloc[0]
            out.append(
                f"Saturation throughput (uniform, load 1) with "
                f"{_pct(r0['fault_tp_rate']).replace('.00', '')} of"
                f"{' switch-to-switch' if r0.get('fault_tp_pool') == 'switch-only' else ''} links "
                f"failed, mean (min to max) over {int(r0['fault_tp_draws'])} fault draws: "
                + ", ".join(
                    f"{r['topology']} {_f(r['fault_tp_mean'])} ({_f(r['fault_tp_min'])} to "
                    f"{_f(r['fault_tp_max'])}; fault-free {_f(r.get('sat_sim'))})"
                    for _, r in tp.iterrows()
                )
                + "."
            )
    return out[:MAX_SENTENCES]


VERDICTS.add("equal-cost", equal_cost)
VERDICTS.add("equal-cost-quick", equal_cost)


# ----------------------------------------------------------------------------- collectives
def _dur(s: float) -> str:
    """Seconds in the unit that reads best (``12.3 µs``, ``4.56 ms``, ``1.2 s``)."""
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= f:
            return f"{s / f:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def _collective_name(spec: str) -> str:
    """``allreduce:algorithm=ring,ranks=64`` -> ``allreduce (ring)``."""
    name, _, opts = str(spec).partition(":")
    alg = [o.split("=", 1)[1] for o in opts.split(",") if o.startswith("algorithm=")]
    return f"{name} ({alg[0]})" if alg else name


def collectives(df) -> list[str]:
    """The collectives study's findings in words (at most five sentences).

    Read from the ``workload`` points: which design completes the collectives fastest
    without faults (counted over every collective and size), the headline all-reduce at
    the size closest to 1 MiB per design with and without faults, the largest slowdown of
    a design against the fastest, and what failed links did (undelivered messages, and
    the change of the completion time of the messages delivered).

    Parameters
    ----------
    df : pandas.DataFrame
        A results store's rows.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"kind": "workload", "topology": ["kant:k=2,n=2", "clos:k=2,n=2"],
    ...     "collective": "alltoall", "size_bytes": 1024, "time_s": [1e-6, 2e-6],
    ...     "fault_rate": 0.0, "undelivered": 0, "ranks": 4, "level": "flow"})
    >>> collectives(df)[0].split(" (")[0]
    'kant:k=2,n=2 completes the collectives fastest without faults in 1 of 1 cases'
    """
    w = _kind(df, "workload")
    if not len(w) or "time_s" not in w.columns:
        return []
    w = w[w["time_s"].notna()].copy()
    if not len(w):
        return []
    w["fault_rate"] = _col(w, "fault_rate").fillna(0.0).astype(float)
    w["undelivered"] = _col(w, "undelivered").fillna(0).astype(int)
    levels = sorted(map(str, _col(w, "level").dropna().unique())) or ["flow"]
    name = {t: str(t) for t in w["topology"].unique()}  # the report names them (humanize)
    keys = ["collective", "size_bytes"]
    clean = w[w["fault_rate"] == 0].groupby(keys + ["topology"])["time_s"].mean().reset_index()
    out = []
    if len(clean):
        best = clean.loc[clean.groupby(keys)["time_s"].idxmin()]
        wins = best["topology"].value_counts()
        top = wins.index[0]
        out.append(
            f"{name[top]} completes the collectives fastest without faults in {wins.iloc[0]} "
            f"of {len(best)} cases (every collective and size, at {' and '.join(levels)} level)."
        )
        ar = clean[clean["collective"].astype(str).str.startswith("allreduce")]
        if len(ar):
            sizes = sorted(ar["size_bytes"].unique())
            size = min(sizes, key=lambda s: abs(math.log2(s) - 20))
            cols = sorted(ar["collective"].unique(), key=lambda c: ("ring" not in c, c))
            col = cols[0]
            one = ar[(ar["size_bytes"] == size) & (ar["collective"] == col)]
            faulted = (
                w[(w["fault_rate"] > 0) & (w["size_bytes"] == size) & (w["collective"] == col)]
                .groupby("topology")
                .agg(t=("time_s", "mean"), u=("undelivered", "sum"), r=("fault_rate", "first"))
            )
            ranks = _col(w, "ranks").dropna()
            parts = []
            for _, r in one.sort_values("time_s").iterrows():
                txt = f"{_dur(r['time_s'])} on {name[r['topology']]}"
                if r["topology"] in faulted.index:
                    f = faulted.loc[r["topology"]]
                    txt += f" ({_dur(f['t'])} with {f['r'] * 100:g} % failed links"
                    txt += f", {int(f['u']):,} messages undelivered)" if f["u"] else ")"
                parts.append(txt)
            from ..traffic.workloads import format_size

            out.append(
                f"A {format_size(int(size))} {_collective_name(col)}"
                + (f" over {int(ranks.max()):,} ranks" if len(ranks) else "")
                + " takes "
                + ", ".join(parts)
                + "."
            )
        fastest = clean.groupby(keys)["time_s"].transform("min")
        clean["slow"] = clean["time_s"] / fastest
        worst = clean.loc[clean["slow"].idxmax()]
        if worst["slow"] > 1.005:
            from ..traffic.workloads import format_size

            out.append(
                f"The largest gap: {name[worst['topology']]} takes {worst['slow']:.2f}x the "
                f"fastest design's time on the {format_size(int(worst['size_bytes']))} "
                f"{_collective_name(worst['collective'])}."
            )
    f = w[w["fault_rate"] > 0]
    if len(f):
        lost = f[f["undelivered"] > 0]
        ff = f.groupby(keys + ["topology"])["time_s"].mean()
        base = clean.set_index(keys + ["topology"])["time_s"] if len(clean) else None
        change = ""
        if base is not None:
            common = ff.index.intersection(base.index)
            if len(common):
                ratio = ff[common] / base[common]
                change = (
                    f"; the messages delivered took {ratio.min():.2f}x to {ratio.max():.2f}x "
                    "the fault-free time"
                )
        out.append(
            f"With {f['fault_rate'].max() * 100:g} % failed links, {len(lost)} of {len(f)} runs "
            f"left messages undelivered ({int(lost['undelivered'].sum()):,} in all: links are "
            f"drawn among node links too, and a failed one cuts its node off){change}."
        )
    return out[:MAX_SENTENCES]


VERDICTS.add("collectives", collectives)
VERDICTS.add("collectives-full", collectives)
