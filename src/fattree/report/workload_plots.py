"""Figures of workload studies: completion time against size, one figure per collective.

A workload study (experiment kind ``workload``, e.g. ``fattree study collectives``) has
one line per design and fault rate (solid without faults, dashed with), at most six per
figure (more are split over several), on log-log axes, the legend beside the axes. Runs
that left messages undelivered are marked with a cross: their time is that of the
messages that arrived.
"""

from __future__ import annotations

#: most lines one figure draws
MAX_SERIES = 6


def _size_label(v: float) -> str:
    from ..traffic.workloads import format_size

    return format_size(int(v))


def completion_figures(df) -> list[tuple]:
    """Completion time against size per collective and level: ``[(figure, caption)]``.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of a results store with ``collective``, ``size_bytes``, ``time_s`` and
        ``topology`` (``fault_rate``, ``level`` and ``complete`` when present).

    Returns
    -------
    list of (matplotlib.figure.Figure, str)

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"topology": ["kant:k=2,n=2"] * 2, "collective": ["alltoall"] * 2,
    ...                    "size_bytes": [1024, 2048], "time_s": [1e-6, 2e-6]})
    >>> [c for _, c in completion_figures(df)]
    ['completion time against size (alltoall)']
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    from .labels import fmt_number, topology_name
    from .plots import LINESTYLES, MARKERS

    need = ("collective", "size_bytes", "time_s", "topology")
    if not len(df) or any(c not in df.columns for c in need):
        return []
    rows = df[df["time_s"].notna() & df["size_bytes"].notna()].copy()
    if "fault_rate" not in rows.columns:
        rows["fault_rate"] = 0.0
    rows["fault_rate"] = rows["fault_rate"].fillna(0.0).astype(float)
    if "level" not in rows.columns:
        rows["level"] = ""
    rows["level"] = rows["level"].fillna("").astype(str)
    if "complete" not in rows.columns:
        rows["complete"] = True
    levels = rows["level"].nunique()
    topos = sorted(rows["topology"].astype(str).unique())
    out = []
    for (col, level), g in rows.groupby(["collective", "level"], sort=True):
        keys = sorted(
            {(str(t), float(f)) for t, f in zip(g["topology"], g["fault_rate"])},
            key=lambda k: (k[1], topos.index(k[0])),
        )
        chunks = [keys[i : i + MAX_SERIES] for i in range(0, len(keys), MAX_SERIES)]
        for ci, chunk in enumerate(chunks, 1):
            fig = Figure(figsize=(8.4, 4.4), layout="constrained")
            ax = fig.subplots()
            crossed = False
            for topo, rate in chunk:
                s = g[(g["topology"].astype(str) == topo) & (g["fault_rate"] == rate)]
                st = s.groupby("size_bytes", sort=True).agg(
                    t=("time_s", "mean"), ok=("complete", lambda c: bool(c.fillna(True).all()))
                )
                ti = topos.index(topo)
                name = topology_name(topo)
                label = f"{name}, " + (
                    f"{fmt_number(rate * 100)} % failed links" if rate else "no faults"
                )
                xs = st.index.to_numpy(float)
                ys = st["t"].to_numpy(float)
                ax.plot(
                    xs,
                    ys,
                    marker=MARKERS[ti % len(MARKERS)],
                    ls=LINESTYLES[0] if not rate else LINESTYLES[1],
                    color=f"C{ti % 10}",
                    mfc="none",
                    mew=1.3,
                    lw=1.4,
                    label=label,
                )
                bad = ~st["ok"].to_numpy(bool)
                if bad.any():
                    crossed = True
                    ax.plot(xs[bad], ys[bad], ls="none", marker="x", ms=8, mew=1.6, color="C3")
            if crossed:
                ax.plot([], [], ls="none", marker="x", color="C3", label="messages undelivered")
            sizes = sorted(g["size_bytes"].unique())
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.xaxis.set_major_locator(FixedLocator([float(v) for v in sizes]))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: _size_label(v)))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: fmt_number(v, 3)))
            ax.set_xlabel("size (bytes, as nccl-tests counts it)")
            ax.set_ylabel("completion time (s)")
            ranks = g["ranks"].dropna().unique() if "ranks" in g.columns else []
            title = f"completion time against size: {col}"
            if len(ranks) == 1:
                title += f", {int(ranks[0]):,} ranks"
            if level:
                title += f" ({level} level)"
            ax.set_title(title, fontsize="medium")
            ax.grid(True, alpha=0.3, which="both")
            ax.legend(
                fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0
            )
            what = col + (f", {level} level" if levels > 1 and level else "")
            if len(chunks) > 1:
                what += f", part {ci} of {len(chunks)}"
            out.append((fig, f"completion time against size ({what})"))
    return out


#: figures drawn instead of the generic plots for an experiment kind
KIND_FIGURES = {"workload": completion_figures}


__all__ = ["KIND_FIGURES", "MAX_SERIES", "completion_figures"]
