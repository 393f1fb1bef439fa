"""The findings that open a report: one ranked summary table per comparison (each design's
price, power, zero-load latency, saturation throughput simulated and bound, fault tolerance
with its interval), then the detail tables: the simulated designs, the routing bounds beside
the best known routing's, fault tolerance, each reproduction's verdict."""

from __future__ import annotations

from dataclasses import dataclass, field

from .labels import fmt_number, topology_name


@dataclass
class Findings:
    """Sentences (``points``) and tables (title -> DataFrame) of a results frame."""

    points: list[str] = field(default_factory=list)
    tables: dict = field(default_factory=dict)


def _kind(df, kind: str):
    if "kind" not in df.columns:
        return df.iloc[0:0]
    return df[df["kind"] == kind]


def design_table(df):
    """One row per simulated design (topology, routing, traffic, other varying settings):
    zero-load latency, peak accepted throughput, first saturated load, routing bound.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"kind": "simulate", "topology": "kant:k=2,n=2", "algorithm": "dmodk",
    ...                    "traffic": "uniform", "load": [0.1, 0.5], "avg_latency": [5.0, 9.0],
    ...                    "accepted_flits": [0.1, 0.45], "saturated": [False, True]})
    >>> design_table(df).iloc[0].to_dict()["first saturated load"]
    '0.5'
    """
    import pandas as pd

    sim = _kind(df, "simulate")
    lat = next((c for c in ("avg_latency", "latency_avg") if c in sim.columns), None)
    if not len(sim) or lat is None or "load" not in sim.columns:
        return pd.DataFrame()
    keys = [c for c in ("topology", "algorithm", "traffic") if c in sim.columns]
    rows = []
    for key, g in sim.groupby(keys, sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        d = dict(zip(keys, key))
        by = g.groupby("load", sort=True)
        first = by[lat].mean()
        row = {
            "design": topology_name(d.get("topology", "")),
            "routing": d.get("algorithm", ""),
            "traffic": d.get("traffic", ""),
            "lowest load": fmt_number(first.index[0]),
            "latency there (cycles)": fmt_number(first.iloc[0], 3),
        }
        if "accepted_flits" in g.columns:
            acc = by["accepted_flits"].mean()
            row["peak accepted (flits/node/cycle)"] = fmt_number(acc.max(), 3)
        if "saturated" in g.columns:
            sat = by["saturated"].agg(lambda s: bool(s.fillna(False).any()))
            row["first saturated load"] = (
                fmt_number(sat[sat].index[0])
                if sat.any()
                else f"none up to {fmt_number(sat.index[-1])}"
            )
        if "channel_load_bound" in g.columns and g["channel_load_bound"].notna().any():
            row["routing bound"] = fmt_number(float(g["channel_load_bound"].dropna().iloc[0]), 3)
        rows.append(row)
    return pd.DataFrame(rows)


def routing_table(df, *, max_designs: int = 12):
    """The simulated routing's channel-load bound beside the best known routing's, per
    (topology, traffic), from :func:`fattree.routing.advice.routing_advice` (exact loads;
    large networks are skipped)."""
    import pandas as pd

    from ..errors import FattreeError

    sim = _kind(df, "simulate")
    if not len(sim) or not {"topology", "algorithm", "traffic"} <= set(sim.columns):
        return pd.DataFrame()
    from ..routing.advice import ADVICE_MAX_WORK, best_routing
    from ..topology import build

    rows = []
    combos = sim[["topology", "algorithm", "traffic"]].dropna().drop_duplicates()
    for spec, alg, traffic in combos.itertuples(index=False):
        if len(rows) >= max_designs:
            break
        try:
            topo = build(spec)
            if topo.n_nodes * topo.n_switches > ADVICE_MAX_WORK:
                continue
            best = best_routing(topo.family)
            b = kept_bound(topo, alg, traffic)
            bb = b if best == alg else kept_bound(topo, best, traffic)
        except FattreeError:  # e.g. a trace, or a fault-tolerant algorithm
            continue
        rows.append(
            {
                "design": topology_name(spec),
                "traffic": traffic,
                "routing": alg,
                "bound": fmt_number(b, 3),
                "best known routing": best,
                "best bound": fmt_number(bb, 3),
                "gain": f"×{fmt_number(bb / b, 3)}",
                "_gain": bb / b,
            }
        )
    return pd.DataFrame(rows)


def kept_bound(topo, algorithm: str, traffic: str) -> float:
    """:func:`fattree.routing.load.channel_load`'s throughput bound, kept on disk.

    A report drawn again (a resumed study, ``fattree report``) reads the bound instead
    of computing the exact channel loads again (seconds on 2,048 nodes). The file is named
    after the graph, the routing and the traffic, in a folder of this version of the
    kernels' sources (:func:`fattree.compiling.source_key`), beside numba's cache as the
    kept bisection widths are; a missing or damaged file is computed again, and a
    failure to write it is harmless.

    Parameters
    ----------
    topo : Topology
    algorithm, traffic : str
        A routing algorithm of the family and a traffic pattern's spec.

    Returns
    -------
    float

    Examples
    --------
    >>> import fattree
    >>> from fattree.routing.load import channel_load
    >>> t = fattree.build("kant:k=2,n=3")
    >>> kept_bound(t, "dmodk", "uniform") == float(channel_load(t, "dmodk", "uniform").bound)
    True
    """
    import hashlib
    import json
    from pathlib import Path

    import numpy as np

    from ..compiling import kept_folder
    from ..errors import OutputFileError
    from ..fileio import write_atomic
    from ..routing.load import channel_load

    h = hashlib.blake2b(digest_size=16)
    h.update(json.dumps([topo.spec, algorithm, traffic]).encode())
    h.update(np.ascontiguousarray(topo.links, dtype=np.int64).tobytes())
    path = Path(kept_folder("channel-loads")) / f"{h.hexdigest()}.json"
    try:
        return float(json.loads(path.read_text())["bound"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    bound = float(channel_load(topo, algorithm, traffic).bound)
    text = json.dumps({"bound": bound})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, lambda fh: fh.write(text), binary=False, keep=False)
    except (OSError, OutputFileError):
        pass
    return bound


def topology_table(df):
    """Graph properties of the topology rows: nodes, switches, links, radix, distances."""
    import pandas as pd

    t = _kind(df, "topology")
    if not len(t) or "topology" not in t.columns:
        return pd.DataFrame()
    cols = {
        "nodes": "nodes",
        "switches": "switches",
        "links": "links",
        "max_radix": "radix",
        "diameter": "diameter",
        "avg_distance": "mean distance",
    }
    rows = []
    for spec, g in t.groupby("topology", sort=True):
        r = g.iloc[0]
        row = {"design": topology_name(spec)}
        for c, label in cols.items():
            if c in g.columns and pd.notna(r[c]):
                row[label] = fmt_number(r[c], 4)
        rows.append(row)
    return pd.DataFrame(rows)


def knowledge(algorithm: str, model: str) -> str:
    """The fault knowledge a routing uses: the oracle (BFS on the survivors) and the
    table-driven routings know every fault (global), whatever the study's ``model``.

    Examples
    --------
    >>> knowledge("oracle", "local"), knowledge("gns", "local")
    ('global', 'local')
    """
    if algorithm == "oracle" or str(algorithm).endswith("-table"):
        return "global"
    return model


def fault_table(df, rates=(0.05, 0.25, 0.5)):
    """Successful routing ratio (95 % Wilson interval) per fault-tolerant algorithm at a
    few fault rates."""
    import pandas as pd

    f = _kind(df, "faults")
    if not len(f) or not {"rate", "success_ratio", "algorithm"} <= set(f.columns):
        return pd.DataFrame()
    have = sorted(f["rate"].dropna().unique())
    shown = sorted({min(have, key=lambda r, x=x: abs(r - x)) for x in rates if have} - {0.0})
    keys = [c for c in ("topology", "algorithm", "model") if c in f.columns]
    rows = []
    for key, g in f.groupby(keys, sort=True, dropna=False):
        d = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        row = {"design": topology_name(d.get("topology", "")), "algorithm": d["algorithm"]}
        if "model" in d and isinstance(d["model"], str):
            row["knowledge"] = knowledge(d["algorithm"], d["model"])
        ratio = g.groupby("rate")["success_ratio"].mean()
        lo = g.groupby("rate")["ci_low"].mean() if "ci_low" in g.columns else None
        hi = g.groupby("rate")["ci_high"].mean() if "ci_high" in g.columns else None
        for r in shown:
            text = fmt_number(ratio.get(r), 4)
            if lo is not None and hi is not None and r in lo.index and pd.notna(lo.get(r)):
                text += f" [{fmt_number(lo.get(r), 4)}, {fmt_number(hi.get(r), 4)}]"
            ci = " (95 % CI)" if lo is not None and hi is not None else ""
            row[f"success at {fmt_number(100 * r)} % faults{ci}"] = text
        rows.append((-float(ratio.get(shown[-1], 0.0)) if shown else 0.0, len(rows), row))
    return pd.DataFrame([r for _, _, r in sorted(rows, key=lambda t: t[:2])])


def _leaders(designs) -> list[str]:
    """Per traffic: the highest peak throughput and the lowest zero-load latency."""
    out = []
    peak = "peak accepted (flits/node/cycle)"
    zero = "latency there (cycles)"
    if not len(designs) or peak not in designs.columns:
        return out
    for traffic, g in designs.groupby("traffic", sort=True):
        if len(g) < 2:
            continue
        acc = g[peak].str.replace(",", "").astype(float)
        lat = g[zero].str.replace(",", "").astype(float)
        hi, lo = g.loc[acc.idxmax()], g.loc[lat.idxmin()]
        others = ", ".join(
            f"{r['design']} ({r['routing']}) {r[peak]}"
            for i, r in g.iterrows()
            if i != acc.idxmax()
        )
        out.append(
            f"{traffic}: {hi['design']} ({hi['routing']}) accepts the most, {hi[peak]} "
            f"flits/node/cycle (then {others}); {lo['design']} ({lo['routing']}) has "
            f"the lowest latency at load {lo['lowest load']}, {lo[zero]} cycles."
        )
    return out


#: summary columns: (design_summary column, header, digits); money and watts get their own format
_SUMMARY = (
    ("usd_per_node", "cost per node (US$)"),
    ("watts_per_node", "power per node (W)"),
    ("zero_load_latency", "zero-load latency (cycles)"),
    ("sat_sim", "saturation throughput, simulated"),
    ("sat_bound", "bound"),
    ("perm_peak", "random permutation, simulated"),
    ("perm_carried", "its routes carry at most"),
    ("perm_bound", "its busiest channel saturates at"),
    ("ft", "fault tolerance (95 % CI)"),
    ("fault_tp", "throughput under faults (range)"),
    ("usd_per_throughput", "US$ per node per unit of throughput"),
    ("throughput_total", "throughput bought (flits/cycle)"),
)


def summary_tables(df) -> dict:
    """The ranked summary tables that open a report, one per comparison (title -> frame).

    One row per design (:func:`fattree.sweep.verdicts.design_summary`): N (ranks used, and
    nodes built when some are idle), cost and power per node, zero-load latency,
    saturation throughput simulated (peak accepted) and its bound (the channel-load bound
    of the very points simulated), the best random-permutation point
    beside the bounds of that very permutation, fault tolerance
    with its 95 % Wilson interval, throughput under faults over the fault draws; columns
    with no value are left out. Throughputs are flits per node per cycle.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"kind": "simulate", "topology": ["kant:k=2,n=2"] * 2,
    ...     "traffic": "uniform", "load": [0.1, 0.9], "avg_latency": [6.0, 30.0],
    ...     "accepted_flits": [0.1, 0.7], "channel_load_bound": [1.0, 1.0]})
    >>> t = summary_tables(df)["Designs, ranked by saturation throughput (simulated)"]
    >>> t.iloc[0][["design", "saturation throughput, simulated", "bound"]].tolist()
    ['2-ary 2-tree', '0.7', '1']
    """
    import pandas as pd

    from ..sweep.verdicts import design_summary

    s = design_summary(df)
    out: dict = {}
    if not len(s):
        return out
    by = {
        "usd_per_throughput": "cost per unit of throughput (US$ per node / simulated saturation)",
        "throughput_total": "throughput bought (nodes x simulated saturation)",
        "sat_sim": "saturation throughput (simulated)",
    }
    for comp, g in s.groupby("comparison", sort=False):
        rows = []
        for _, r in g.iterrows():
            row = {"#": str(int(r["rank"])), "design": topology_name(r["topology"])}
            if pd.notna(r.get("routing")) and r.get("routing"):
                row["routing"] = str(r["routing"])
            if pd.notna(r.get("ranks")):
                n, ranks = r.get("nodes"), int(r["ranks"])
                row["N"] = (
                    f"{ranks:,} of {int(n):,}" if pd.notna(n) and int(n) != ranks else f"{ranks:,}"
                )
            key = str(r["ranked_by"])
            for col, head in _SUMMARY:
                if col in ("usd_per_throughput", "throughput_total") and col != key:
                    continue  # each comparison shows the figure it is ranked by
                row[head] = _summary_cell(r, col)
            rows.append(row)
        t = pd.DataFrame(rows)
        t = t[[c for c in t.columns if (t[c] != "").any()]]
        title = "Designs" if comp == "designs" else comp[0].upper() + comp[1:]
        out[f"{title}, ranked by {by.get(str(g['ranked_by'].iloc[0]), 'rank')}"] = t
    return out


def _summary_cell(r, col: str) -> str:
    import math

    def num(c):
        v = r.get(c)
        return None if v is None or (isinstance(v, float) and math.isnan(v)) else v

    if col in ("usd_per_node", "usd_per_throughput"):
        return "" if num(col) is None else f"{num(col):,.0f}"
    if col == "watts_per_node":
        return "" if num(col) is None else f"{num(col):,.1f}"
    if col == "zero_load_latency":
        v = num(col)
        if v is None:
            return ""
        sat = ", saturated" if r.get("zero_load_saturated") else ""
        return f"{fmt_number(v, 3)} (load {fmt_number(r['zero_load_at'])}{sat})"
    if col == "sat_sim":
        v = num(col)
        return (
            "" if v is None else fmt_number(v, 3) + (" (saturated)" if r.get("saturated") else "")
        )
    if col == "perm_bound":
        v = num(col)
        if v is None:
            return ""
        lo, hi = num("perm_bound_min"), num("perm_bound_max")
        spread = (
            f"; {fmt_number(lo, 3)} to {fmt_number(hi, 3)} over {int(r['perm_points'])} "
            "permutations"
            if lo is not None and hi is not None and lo != hi
            else ""
        )
        return fmt_number(v, 3) + spread
    if col == "ft":
        v = num("ft_success")
        if v is None:
            return ""
        lo, hi = num("ft_low"), num("ft_high")
        ci = f" [{fmt_number(lo, 4)}, {fmt_number(hi, 4)}]" if lo is not None else ""
        return f"{fmt_number(v, 4)}{ci} at {fmt_number(100 * r['ft_rate'])} % ({r['ft_algorithm']})"
    if col == "fault_tp":
        v = num("fault_tp_mean")
        if v is None:
            return ""
        return (
            f"{fmt_number(v, 3)} ({fmt_number(r['fault_tp_min'], 3)} to "
            f"{fmt_number(r['fault_tp_max'], 3)}, {int(r['fault_tp_draws'])} draws at "
            f"{fmt_number(100 * r['fault_tp_rate'])} %)"
        )
    v = num(col)
    return "" if v is None else fmt_number(v, 3)


def findings(df, reproductions=None, *, routing: bool = True) -> Findings:
    """The summary of a results frame and its reproductions.

    Examples
    --------
    >>> import pandas as pd
    >>> f = findings(pd.DataFrame({"kind": ["topology"], "topology": ["mikant:k=2,n=3"],
    ...                            "nodes": [16], "switches": [8]}))
    >>> f.tables["Topologies"].iloc[0].to_dict()
    {'design': 'MiKANT(2,3)', 'nodes': '16', 'switches': '8'}

    References
    ----------
    000 §V.B (what the latency and throughput figures compare).
    """
    out = Findings()
    designs = design_table(df)
    if len(designs):
        out.tables["Designs (simulated)"] = designs
        out.points.extend(_leaders(designs))
    if routing:
        rt = routing_table(df)
        if len(rt):
            for _, r in rt.iterrows():
                if r["routing"] != r["best known routing"] and r["_gain"] >= 1.05:
                    out.points.append(
                        f"{r['design']} under {r['traffic']}: {r['routing']} bounds throughput "
                        f"at {r['bound']} flits/node/cycle; {r['best known routing']} would "
                        f"reach {r['best bound']} ({r['gain']})."
                    )
            shown = rt.drop(columns="_gain")
            if (rt["routing"] == rt["best known routing"]).all():
                # every simulated routing is the best known: the comparison says nothing
                shown = shown.drop(columns=["best known routing", "best bound", "gain"])
                title = "Routing: channel-load bounds (flits/node/cycle) of the simulated routing"
            else:
                title = (
                    "Routing: channel-load bounds (flits/node/cycle) of the simulated "
                    "routing and of the best known"
                )
            out.tables[title] = shown
    tt = topology_table(df)
    if len(tt):
        out.tables["Topologies"] = tt
    ft = fault_table(df)
    if len(ft):
        out.tables["Fault tolerance (successful routing ratio, 95 % Wilson interval)"] = ft
        real = ft[ft["algorithm"] != "oracle"]  # the oracle is a reference, not a routing
        if len(real) and len(ft.columns) > 3:
            best = real.iloc[0]
            out.points.append(
                f"fault tolerance on {best['design']}: {best['algorithm']} "
                f"routes the most pairs ({ft.columns[-1]}: "
                f"{best[ft.columns[-1]]})."
            )
    reps = [r for r in (reproductions or [])]
    if reps:
        import pandas as pd

        counts = pd.Series([r.status for r in reps]).value_counts()
        out.points.append(
            "reproductions: "
            + ", ".join(f"{n} {s}" for s, n in counts.items())
            + " (verdicts below)."
        )
        out.tables["Reproductions: verdicts"] = pd.DataFrame(
            [
                {"name": r.name, "paper": r.paper, "verdict": r.status, "finding": r.finding}
                for r in reps
            ]
        )
    return out
