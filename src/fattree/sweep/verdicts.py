"""Findings in words for shipped studies (``VERDICTS[study name](results) -> lines``).

``run_shipped`` puts the lines at the top of the study's notes in ``report.html``. Every
number is read from the study's own results (nothing is typed in).
"""

from __future__ import annotations

import math

import pandas as pd

from ..registry import Registry

VERDICTS: Registry = Registry("study verdict")


def _f(v, digits=3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{digits}g}"


def _sim_peak(df, topo: str, traffic: str):
    if "accepted_flits" not in df.columns:
        return None
    sub = df[(df["kind"] == "simulate") & (df["topology"] == topo) & (df["traffic"] == traffic)]
    sub = sub[sub["accepted_flits"].notna()]
    return None if sub.empty else float(sub["accepted_flits"].max())


def _scale(cost) -> str:
    small = cost[cost["nodes"] <= 20_000]["nodes"]
    return f"{int(small.min()):,}..{int(small.max()):,} nodes" if len(small) else "?"


def _taper(spec: str) -> float | None:
    """m_1 / w_2 of an XGFT spec (the leaf's oversubscription), else None."""
    if not spec.startswith("xgft:"):
        return None
    from ..topology.families.xgft import shape
    from ..topology.family import parse_spec

    m, w = shape(parse_spec(spec)[1], limits=False)
    return m[0] / w[1] if len(m) > 1 else None


def _scale_label(same_radix, n: int, r) -> str:
    """The group a cost row is judged in: N ~ 65,536 (analytic), or the small designs' node
    range at one switch radix."""
    base = "N ~ 65,536" if n > 20_000 else f"N = {_scale(same_radix)}"
    return base + (f", radix {int(r)}" if r else "")


def equal_cost(df) -> list[str]:
    """The equal-cost comparison: per design cost, power, bounds, simulated peaks; the verdict.

    Designs are compared by throughput per dollar, (accepted flits/node/cycle x N) / US$ -
    what an equal budget buys - using the simulated peak under uniform traffic where the
    study simulated the design, else the routing's channel-load bound (said so).

    References
    ----------
    Issue 13 (the equal-cost question); docs/analytics.md (cost model).
    """
    if "kind" not in df.columns or (df["kind"] == "cost").sum() == 0:
        return ["equal-cost verdict: no cost results"]
    lines = []
    out = []
    cost = df[df["kind"] == "cost"].copy()
    radix = cost["switch_radix"] if "switch_radix" in cost.columns else pd.Series(0, cost.index)
    cost["scale"] = [_scale_label(cost[radix == r], n, r) for n, r in zip(cost["nodes"], radix)]
    for exp, rows in cost.groupby("scale", sort=True):
        big = rows["nodes"].max() > 20_000
        lines.append(f"{exp}{' (analytic only: cut bounds, no simulation)' if big else ''}:")
        for _, r in rows.sort_values("usd").iterrows():
            topo = r["topology"]
            sim_u = None if big else _sim_peak(df, topo, "uniform")
            sim_p = None if big else _sim_peak(df, topo, "randperm")
            sim_b = None if big else _sim_peak(df, topo, "bitcomp")
            bound = r.get("bound_uniform")
            bound = (
                None if bound is None or (isinstance(bound, float) and math.isnan(bound)) else bound
            )
            bis = r["bisection"]
            bis_txt = (
                "-"
                if bis is None or (isinstance(bis, float) and math.isnan(bis))
                else ("<=" if str(r["bisection_label"]).startswith("upper") else "")
                + f"{int(bis):,}"
            )
            lines.append(
                f"  {topo}: ${r['usd_per_node']:,.0f}/node, {r['watts_per_node']:.0f} W/node, "
                f"{int(r['switches']):,} switches, {int(r['links']):,} links, "
                f"{r['avg_distance']:.2f} hops, bisection {bis_txt}, cut bound {_f(r['cut_bound'])}"
                + (
                    ""
                    if big
                    else f"; routing {r.get('routing', '-')}: bound uniform {_f(bound)} (sim {_f(sim_u)}), "
                    f"randperm {_f(r.get('bound_randperm'))} of one seeded permutation (sim {_f(sim_p)}, "
                    f"its own permutation), bitcomp {_f(r.get('bound_bitcomp'))} (sim {_f(sim_b)})"
                )
            )
            bnd = bound if bound else r["cut_bound"]
            out.append(
                dict(
                    scale=exp,
                    topo=topo,
                    usd_node=float(r["usd_per_node"]),
                    nodes=int(r["nodes"]),
                    usd=float(r["usd"]),
                    sim=sim_u,
                    bound=float(bnd) if bnd else None,
                    how="channel-load bound" if bound else "cut bound",
                )
            )
    for scale in sorted({o["scale"] for o in out}):
        rows = [o for o in out if o["scale"] == scale]
        for key, what in (("bound", "bound"), ("sim", "simulated peak")):
            have = [o for o in rows if o[key]]
            if not have:
                continue
            for o in have:
                o[key + "_per_musd"] = o[key] * o["nodes"] / o["usd"] * 1e6
            ranked = sorted(have, key=lambda o: -o[key + "_per_musd"])
            label = "cut bound, any routing" if scale.startswith("N ~ 65") else what
            lines.append(
                f"verdict ({scale}, uniform {label}): per dollar {ranked[0]['topo']} delivers the most "
                f"({ranked[0][key + '_per_musd']:.0f} flits/cycle per US$1M), then "
                + ", ".join(f"{o['topo']} ({o[key + '_per_musd']:.0f})" for o in ranked[1:4])
                + "."
            )
            mk = next((o for o in ranked if o["topo"].startswith("mikant:")), None)
            tap = next((o for o in ranked if _taper(o["topo"]) == 2), None)
            if mk and tap:
                cheaper = (1 - mk["usd_node"] / tap["usd_node"]) * 100
                lines.append(
                    f"verdict ({scale}, uniform {label}): MiKANT {mk['topo']} costs {abs(cheaper):.0f}% "
                    f"{'less' if cheaper >= 0 else 'more'} per node than the 2:1 tapered {tap['topo']}; "
                    f"at equal cost it delivers {mk[key + '_per_musd'] / tap[key + '_per_musd']:.2f}x its "
                    f"throughput ({mk[key]:.3f} vs {tap[key]:.3f} flits/node/cycle)."
                )
    lines += _fault_lines(df)
    lines.append(
        "Prices are the default assumptions of fattree/data/prices.toml (every switch priced "
        "as the study's switch_radix product); throughput is per the family's routing named "
        "above; 'sim' is the peak accepted rate over the offered loads."
    )
    return lines


def _fault_lines(df) -> list[str]:
    """Success ratio of each design's default fault-tolerant routing and of the oracle, per
    fault rate, and the ranking at the highest rate (issue 13: 1 % and 5 % link faults)."""
    if "success_ratio" not in df.columns:
        return []
    ft = df[(df["kind"] == "faults") & df["success_ratio"].notna()]
    if ft.empty:
        return []
    rates = sorted(ft["rate"].unique())
    pool = str(ft["fault_pool"].iloc[0]) if "fault_pool" in ft.columns else "all"
    trials = int(ft["trials"].iloc[0]) if "trials" in ft.columns else 0
    lines = [
        f"link faults ({'switch-to-switch links only' if pool == 'switch-only' else 'node links included'}"
        f", {trials:,} trials per rate; success ratio at "
        + " / ".join(f"{r:.0%}" for r in rates)
        + "):"
    ]
    worst = []
    for topo, rows in ft.groupby("topology", sort=False):
        parts = []
        for alg_kind in ("default", "oracle"):
            sub = rows[rows["algorithm"] == alg_kind]
            if sub.empty:
                continue
            name = str(sub["ft_algorithm"].iloc[0]) if "ft_algorithm" in sub.columns else alg_kind
            vals = [sub[sub["rate"] == r]["success_ratio"] for r in rates]
            parts.append(
                f"{name} " + " / ".join(_f(float(v.iloc[0]), 4) if len(v) else "-" for v in vals)
            )
            if alg_kind == "default" and len(vals[-1]):
                worst.append((float(vals[-1].iloc[0]), topo, name))
        lines.append(f"  {topo}: " + "; ".join(parts))
    if worst:
        worst.sort(reverse=True)
        lines.append(
            f"verdict (faults at {rates[-1]:.0%}, each family's default local routing): "
            + ", ".join(f"{t} {v:.4f}" for v, t, _ in worst)
            + "."
        )
    return lines


VERDICTS.add("equal-cost", equal_cost)
VERDICTS.add("equal-cost-quick", equal_cost)
