"""Helpers shared by several papers' reproductions: graph vs printed tables, cost savings."""

from __future__ import annotations

import math

from ...errors import ParameterError  # noqa: F401
from .base import Context, Outcome, reproduction  # noqa: F401

# ============================================================================ 001/004 Table 1, 003
_GRAPH_KEYS = {
    "nodes": lambda p: p["nodes"],
    "switches": lambda p: p["switches"],
    "links": lambda p: p["links"],
    "radix": lambda p: p["radix"]["max"],
    "diameter": lambda p: p["diameter"],
    "avg_distance": lambda p: p["avg_distance"],
    "path_diversity": lambda p: p["path_diversity"],
}


def _graph_vs_paper(instances, keys) -> tuple[list[tuple], object]:
    """Properties of built graphs beside the paper's printed closed forms.

    ``printed`` comes from :mod:`fattree.analysis.closed_forms` (the printed formula's value
    where it differs from the corrected one, else the formula's value). Returns the rows
    that differ and the table.
    """
    import pandas as pd

    from ...analysis.closed_forms import closed_forms
    from ...analysis.properties import properties
    from ...topology import build

    rows, bad = [], []
    for family, params in instances:
        spec = family + ":" + ",".join(f"{k}={v}" for k, v in params.items())
        props = properties(build(spec), bisection=False)
        forms = closed_forms(family, params)
        for key in keys:
            if key not in forms:
                continue
            f = forms[key]
            printed = f.printed if f.printed is not None else f.value
            graph = _GRAPH_KEYS[key](props)
            ok = math.isclose(float(graph), float(printed), rel_tol=1e-9)
            rows.append(
                {
                    "network": spec,
                    "property": key,
                    "graph": float(graph),
                    "printed": float(printed),
                    "agree": ok,
                    "note": f.note,
                }
            )
            if not ok:
                bad.append((spec, key, float(graph), float(printed), f.note))
    return bad, pd.DataFrame(rows)


def _table_outcome(bad, df, what: str) -> Outcome:
    if not bad:
        return Outcome(
            True, f"Every printed {what} matches the graphs.", tables={"graph vs printed": df}
        )
    props = sorted({k for _, k, *_ in bad})
    notes = "; ".join(sorted({f"{k}: {n}" for _, k, _, _, n in bad if n}))
    return Outcome(
        False,
        f"The graphs disagree with the printed {', '.join(props)} "
        f"({len(bad)} of {len(df)} entries); everything else matches. {notes}",
        tables={"graph vs printed": df},
    )


def _savings(family: str, baseline: str, k: int) -> tuple[float, float]:
    from ...analysis import cost

    return (
        100 * (1 - float(cost.switch_cost_ratio(family, k, k, baseline))),
        100 * (1 - float(cost.link_cost_ratio(family, k, k, baseline))),
    )


def _sim_curves(runs, loads, *, workers: int = 1, **params):
    """Latency-vs-load curves: ``runs`` is [(label, spec, extra params)], one DataFrame.

    Calls :func:`fattree.sim.simulate_loads` directly (no results store): these studies
    are small, and each entry states the scale it ran at in its finding.
    """
    import pandas as pd

    from ...sim import simulate_loads

    frames = []
    for label, spec, extra in runs:
        df = simulate_loads(spec, loads, workers=workers, bound=False, **{**params, **extra})
        df.insert(0, "series", label)
        df.insert(1, "network", spec)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _curve_figure(df, metric: str = "avg_latency", ylabel: str = "average packet latency (cycles)"):
    from .base import _figure

    from ..plots import LINESTYLES, MARKERS

    fig, ax = _figure()
    for i, (label, g) in enumerate(df.groupby("series", sort=False)):
        ax.plot(
            g["offered_load"],
            g[metric],
            marker=MARKERS[i % len(MARKERS)],
            ls=LINESTYLES[i % len(LINESTYLES)],
            mfc="none",
            label=label,
        )
    ax.set_xlabel("offered load λ (flits per node per cycle)")
    ax.set_ylabel(ylabel)
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    return fig


def _buffer_study(ctx, nets, loads, full_packets: int):
    """NB (8 flits everywhere) vs DB (16 at level 0) for each network: (df, scale text)."""
    packets = 10 if ctx.quick else full_packets
    if ctx.quick:
        loads = loads[:: max(1, len(loads) // 2)][:2]
    runs = [
        (f"{fam.upper()}(3,4) {b}", f"{fam}:k=3,n=4", {"buffer_level0": b0})
        for fam in nets
        for b, b0 in (("NB", 8), ("DB", 16))
    ]
    df = _sim_curves(
        runs,
        loads,
        workers=ctx.workers if not ctx.quick else 1,
        buffer=8,
        packets_per_source=packets,
        seed=1,
    )
    scale = (
        f"{len(loads)} loads ({', '.join(f'{x:g}' for x in loads)}), {packets} packets per "
        "source, 1-flit packets, uniform traffic, seed 1"
    )
    return df, scale


def _judge_buffers(df, nets) -> tuple[bool, str]:
    """DB lower than NB at every load, per network (ties count against the claim)."""
    notes, ok = [], True
    for fam in nets:
        nb = df[df["series"] == f"{fam.upper()}(3,4) NB"].set_index("offered_load")["avg_latency"]
        db = df[df["series"] == f"{fam.upper()}(3,4) DB"].set_index("offered_load")["avg_latency"]
        lower = db < nb
        ok = ok and bool(lower.all())
        rel = ((nb - db) / nb).max()
        notes.append(
            f"{fam.upper()}: DB lower at {int(lower.sum())} of {len(lower)} loads "
            f"(largest reduction {rel:.0%}; λ={nb.index[0]:g}: NB {nb.iloc[0]:.1f}, "
            f"DB {db.iloc[0]:.1f} cycles)"
        )
    return ok, "; ".join(notes)
