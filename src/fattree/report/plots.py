"""Plots of a results DataFrame (from :meth:`fattree.sweep.store.ResultStore.read`).

Each plot kind is an entry of the registry ``PLOTS``: the metric it draws (the
first of its candidate column names present in the results), the x column and
labels. One line per series: by default every configuration column that varies,
other than x and the replicate/seed bookkeeping (so one line per topology and
traffic pattern in a latency study). Replicates are averaged, with their standard
deviation as error bars.

matplotlib is used through ``Figure`` objects with the Agg canvas (no pyplot
state), imported only when a figure is drawn.
"""

from __future__ import annotations

from ..fileio import write_atomic

from collections.abc import Sequence
from pathlib import Path

from ..errors import ParameterError, closest
from ..sweep.plotkinds import PLOTS, PlotKind  # noqa: F401  (PlotKind re-exported)

# Columns that never define a series (bookkeeping of the store and the study).
BOOKKEEPING = (
    "config_hash",
    "seed",
    "replicate",
    "study_seed",
    "study",
    "experiment",
    "fattree_version",
    "started_at",
    "finished_at",
    "elapsed_s",
    "host",
    "pid",
    "config",
)


def _pick(df, names: Sequence[str], what: str, plot: str) -> str:
    for n in names:
        if n in df.columns and df[n].notna().any():
            return n
    have = [str(c) for c in df.columns if df[c].notna().any()]
    raise ParameterError(
        f"plot {plot!r}: the results have no {what} column (looked for "
        f"{', '.join(names)}); columns with values: {', '.join(have)}"
    )


def series_columns(df, x: str) -> list[str]:
    """Configuration columns that vary (other than ``x`` and bookkeeping).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"topology": ["a", "b"], "load": [0.1, 0.1], "seed": [1, 2],
    ...                    "latency": [1.0, 2.0]})
    >>> df.attrs["config_columns"] = ["topology", "load"]
    >>> series_columns(df, "load")
    ['topology']
    """
    import pandas as pd

    config = df.attrs.get("config_columns") or [
        c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])
    ]
    cols = [
        c
        for c in config
        if c in df.columns and c != x and c not in BOOKKEEPING and c not in ("family", "kind")
    ]
    cols = [c for c in cols if df[c].astype(str).nunique() > 1]
    if x in df.columns:  # a column that is x under another name ("1MiB" for 1048576) is x
        xs = df[x].astype(str)
        cols = [
            c
            for c in cols
            if not (
                (df[c].astype(str).groupby(xs).nunique() <= 1).all()
                and (xs.groupby(df[c].astype(str)).nunique() <= 1).all()
            )
        ]
    kept: list[str] = []
    for c in cols:  # drop columns determined by an earlier one (k and n by the topology)
        text = df[c].astype(str)
        if not any((text.groupby(df[d].astype(str)).nunique() <= 1).all() for d in kept):
            kept.append(c)
    return kept


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
_WRAP = 64  # title width in characters


def _style_key(series: Sequence[str]) -> str | None:
    """The series column that picks a line's marker and style: the topology if it varies."""
    for c in ("topology", "family"):
        if c in series:
            return c
    return series[0] if series else None


def series_label(df, series: Sequence[str], key: tuple) -> str:
    """Human legend text of one series: ``MiKANT(4,5), uniform, alg1``.

    The topology's name replaces its family when the rows of the series have one
    topology, and the routing algorithm is added when the rows have one and it is not a
    series column already.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"family": ["mikant"], "topology": ["mikant:k=4,n=5"],
    ...                    "traffic": ["uniform"], "algorithm": ["alg1"]})
    >>> series_label(df, ["family", "traffic"], ("mikant", "uniform"))
    'MiKANT(4,5), uniform, alg1'
    >>> series_label(pd.DataFrame({"algorithm": ["oracle"]}), ["algorithm", "model"],
    ...              ("oracle", "local"))
    'oracle, global knowledge'
    """
    from .labels import value_label

    parts = []
    algs = set(df["algorithm"].astype(str)) if "algorithm" in df.columns else set()
    for c, v in zip(series, key):
        if c == "model" and algs and all(a == "oracle" or a.endswith("-table") for a in algs):
            parts.append("global knowledge")  # the oracle sees every fault, whatever the model
        elif (
            c == "family"
            and "topology" in df.columns
            and "topology" not in series
            and df["topology"].nunique() == 1
        ):
            parts.append(value_label("topology", df["topology"].iloc[0]))
        else:
            parts.append(value_label(c, v))
    for extra in ("algorithm",):
        if (
            extra in df.columns
            and extra not in series
            and df[extra].nunique() == 1
            and isinstance(df[extra].iloc[0], str)
        ):
            parts.append(str(df[extra].iloc[0]))
    return ", ".join(parts)


def plot_title(df, base: str, series: Sequence[str]) -> str:
    """``base`` followed by the topologies drawn and the settings every line shares."""
    import textwrap

    from .labels import topology_name

    extra = []
    if "topology" in df.columns and df["topology"].notna().any():
        extra.append(
            " vs ".join(topology_name(t) for t in sorted(df["topology"].dropna().unique()))
        )
    for c in ("traffic", "algorithm"):
        if (
            c in df.columns
            and c not in series
            and df[c].nunique() == 1
            and isinstance(df[c].dropna().iloc[0], str)
        ):
            extra.append(str(df[c].dropna().iloc[0]))
    text = base + (": " + ", ".join(extra) if extra else "")
    return "\n".join(textwrap.wrap(text, _WRAP))


def draw(
    df,
    name: str,
    *,
    logy: bool | None = None,
    series: Sequence[str] | None = None,
    title: str | None = None,
    ax=None,
):
    """Draw plot ``name`` (a :data:`PLOTS` entry) of a results DataFrame.

    One line per series, labelled by :func:`series_label`; each topology has its own
    marker and line style (open markers, so coinciding curves stay visible); points
    flagged ``saturated`` are marked with a cross (and, on a linear latency axis, cut
    off when they would flatten the rest); the y = x reference of throughput plots is
    drawn densely so it stays a diagonal on a log axis.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of a results store (one per point).
    name : str
        ``latency``, ``throughput``, ``conflicts``, ``received``, ...
    logy : bool, optional
        Logarithmic y axis (default: the plot's own choice).
    series : list of str, optional
        Columns whose values make one line each (default: the varying config columns).
    title : str, optional
        Default: the plot's title and the topologies drawn (:func:`plot_title`).
    ax : matplotlib Axes, optional
        Draw into it; otherwise a new Figure is made.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"topology": ["mikant:k=2,n=3"] * 2 + ["clos:k=2,n=3"] * 2,
    ...                    "load": [0.1, 0.2] * 2, "latency": [10.0, 12.0, 11.0, 15.0]})
    >>> fig = draw(df, "latency")
    >>> [l.get_label() for l in fig.axes[0].get_lines()]
    ['Clos(2,3)', 'MiKANT(2,3)']

    References
    ----------
    000 §V.B Figs. 9-12 (latency, conflicts, received ratio, received per cycle).
    """
    import numpy as np

    kind = PLOTS.get(name)
    if df is None or len(df) == 0:
        raise ParameterError(f"plot {name!r}: the results are empty")
    x = _pick(df, kind.x, "x", name)
    y = _pick(df, kind.metrics, "metric", name)
    rows = df[df[x].notna() & df[y].notna()].copy()  # e.g. only the simulations of a store
    rows.attrs = dict(df.attrs)
    df = rows
    series = list(series) if series is not None else series_columns(df, x)
    for c in series:
        if c not in df.columns:
            raise ParameterError(
                f"series column {c!r} is not in the results{closest(c, map(str, df.columns))}"
            )
    fig = None
    if ax is None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(8.4, 4.4), layout="constrained")
        ax = fig.subplots()
    log = logy if logy is not None else kind.logy
    extra = [
        c
        for c in ("topology", "algorithm", "saturated", "ci_low", "ci_high")
        if c in df.columns and c not in series and (y == "success_ratio" or "ci" not in c)
    ]
    data = df[series + extra + [x, y]].dropna(subset=[x, y])
    groups = list(data.groupby(series, sort=True, dropna=False)) if series else [((), data)]
    skey = _style_key(series)
    styles = {v: i for i, v in enumerate(sorted(data[skey].astype(str).unique()))} if skey else {}
    colors = [f"C{i % 10}" for i in range(len(groups))]
    sat_top, unsat_top, any_sat, pending = [], [], False, []
    for gi, (key, g) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        stats = g.groupby(x, sort=True)[y].agg(["mean", "std", "count"]).reset_index()
        sat = (
            g.groupby(x, sort=True)["saturated"]
            .agg(lambda s: bool(s.fillna(False).any()))
            .reindex(stats[x])
            .to_numpy(bool)
            if "saturated" in g.columns
            else np.zeros(len(stats), bool)
        )
        label = series_label(g, series, key) or y
        si = styles.get(str(g[skey].iloc[0]), gi) if skey else gi
        style = dict(
            marker=MARKERS[si % len(MARKERS)],
            ls=LINESTYLES[si % len(LINESTYLES)],
            color=colors[gi],
            ms=5 + (si % 3),
            mfc="none",
            mew=1.3,
            lw=1.4,
        )
        err = stats["std"].where(stats["count"] > 1)
        xs, ys = stats[x].to_numpy(float), stats["mean"].to_numpy(float)
        ok = ~sat
        if "ci_low" in g.columns and g["ci_low"].notna().any():
            # a success ratio: its 95 % Wilson interval (001 Figs. 8-9 are read against it)
            ci = g.groupby(x, sort=True)[["ci_low", "ci_high"]].mean().reindex(stats[x])
            span = np.vstack([ys - ci["ci_low"].to_numpy(), ci["ci_high"].to_numpy() - ys])
            ax.errorbar(
                xs[ok], ys[ok], yerr=np.nan_to_num(span)[:, ok], capsize=3, label=label, **style
            )
        elif err.notna().any():
            ax.errorbar(
                xs[ok], ys[ok], yerr=err.fillna(0).to_numpy()[ok], capsize=2, label=label, **style
            )
        else:
            ax.plot(xs[ok], ys[ok], label=label, **style)
        if sat.any():
            any_sat = True
            lo = max(int(np.argmax(sat)) - 1, 0)
            pending.append((xs[lo:], ys[lo:], xs[sat], ys[sat], colors[gi]))
            sat_top.append(float(np.nanmax(ys[sat])))
        if ok.any():
            unsat_top.append(float(np.nanmax(ys[ok])))
    top, crosses = None, False
    if (
        not log
        and name == "latency"
        and sat_top
        and unsat_top
        and max(sat_top) > 3 * max(unsat_top)
    ):
        top = 2.0 * max(unsat_top)  # saturated latencies would flatten the rest
    for seg_x, seg_y, sx, sy, color in pending:
        if top is not None:
            seg_y, high = np.minimum(seg_y, top), sy > top
            ax.plot(
                sx[high],
                np.full(int(high.sum()), top),
                ls="none",
                marker="^",
                ms=7,
                color=color,
                clip_on=False,
            )
            sx, sy = sx[~high], sy[~high]
        ax.plot(seg_x, seg_y, ls=":", lw=1, color=color)
        ax.plot(sx, sy, ls="none", marker="x", ms=7, mew=1.6, color=color)
        crosses = crosses or len(sx) > 0
    if any_sat and crosses:
        ax.plot([], [], ls="none", marker="x", color="grey", label="saturated")
    if top is not None:
        ax.plot([], [], ls="none", marker="^", color="grey", label="saturated, above the axis")
    if kind.identity:
        lo, hi = float(data[x].min()), float(data[x].max())
        xs = np.linspace(lo, hi, 200)  # dense: a diagonal on log axes too
        ax.plot(xs, xs, ls=":", color="grey", lw=1, label="accepted = offered")
    if kind.logx:
        ax.set_xscale("log")
    if log:
        from matplotlib.ticker import FuncFormatter, LogLocator

        from .labels import fmt_number

        ax.set_yscale("log")
        plain = FuncFormatter(lambda v, _pos: fmt_number(v, 3))
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        ax.yaxis.set_minor_formatter(plain)
    elif top is not None:
        ax.set_ylim(bottom=0, top=top)
    ax.set_xlabel(kind.xlabel if x == kind.x[0] else x)
    ax.set_ylabel(kind.ylabel)
    ax.set_title(title or plot_title(df, kind.title, series), fontsize="medium")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[1]:
        if fig is not None:  # our own figure: the legend beside the axes, off the data
            ax.legend(
                fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0
            )
        else:
            ax.legend(fontsize="small", framealpha=0.85)
    return fig if fig is not None else ax.figure


#: most series (lines) one figure draws; more are split over several figures
MAX_SERIES = 6


def split_series(df, name: str, max_series: int = MAX_SERIES) -> list:
    """Split a results frame into parts that each draw at most ``max_series`` lines of plot
    ``name``: by traffic pattern first, then by family (topologies of one family together),
    then in runs of topologies. Returns ``[(part, what)]``, ``what`` naming the part ("" when
    the frame is drawn whole).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"topology": [f"kant:k={k},n=2" for k in range(2, 6)] * 2,
    ...     "traffic": ["uniform"] * 4 + ["randperm"] * 4, "load": 0.1, "latency": 1.0})
    >>> [(len(p), w) for p, w in split_series(df, "latency", max_series=4)]
    [(4, 'randperm'), (4, 'uniform')]
    """
    kind = PLOTS.get(name)
    try:
        x = _pick(df, kind.x, "x", name)
        y = _pick(df, kind.metrics, "metric", name)
    except ParameterError:
        return [(df, "")]
    rows = df[df[x].notna() & df[y].notna()]

    def count(part) -> int:
        cols = series_columns(part, x)
        return len(part[cols].drop_duplicates()) if cols else 1

    def keep(part):
        part = part.copy()
        part.attrs = dict(df.attrs)
        return part

    if "fault_rate" in rows.columns and rows["fault_rate"].notna().any():
        # runs under faults: a curve of their own where they span several x values; single
        # points (throughput at one load over fault draws) are the summary table's business
        faulted = rows[rows["fault_rate"].notna()]
        rows = rows[rows["fault_rate"].isna()]
        per = faulted.groupby("topology")[x].nunique() if "topology" in faulted else None
        extra = (
            split_series(faulted.drop(columns=["fault_rate"]), name, max_series)
            if (per is not None and (per > 1).all())
            else []
        )
        extra = [(p, f"under faults{', ' + w if w else ''}") for p, w in extra]
        if not len(rows):
            return extra
        return [(keep(p), w) for p, w in split_series(keep(rows), name, max_series)] + extra
    series = series_columns(rows, x)
    if not series or count(rows) <= max_series:
        return [(keep(rows) if len(rows) < len(df) else df, "")]
    parts = [(rows, "")]
    if "traffic" in series:
        parts = [(g, str(t)) for t, g in rows.groupby("traffic", sort=True)]
    out = []
    for part, what in parts:
        if count(part) <= max_series or "topology" not in part.columns:
            out.append((keep(part), what))
            continue
        per = max(1, count(part) // max(part["topology"].nunique(), 1))
        fam = part["topology"].astype(str).str.split(":").str[0]
        chunks, cur, cur_n = [], [], 0
        for _, g in part.groupby(fam, sort=True):
            topos = sorted(g["topology"].unique())
            if cur and cur_n + per * len(topos) > max_series:
                chunks.append(cur)  # a family is not split across figures where it fits one
                cur, cur_n = [], 0
            for topo in topos:
                if cur and cur_n + per > max_series:
                    chunks.append(cur)
                    cur, cur_n = [], 0
                cur.append(topo)
                cur_n += per
        if cur:
            chunks.append(cur)
        for i, topos in enumerate(chunks, 1):
            label = f"{what + ', ' if what else ''}part {i} of {len(chunks)}"
            out.append((keep(part[part["topology"].isin(topos)]), label))
    return out


def available(df) -> list[str]:
    """Names of the plots whose x and metric columns the results have (with values).

    Examples
    --------
    >>> import pandas as pd
    >>> available(pd.DataFrame({"load": [0.1], "avg_latency": [9.0]}))
    ['latency']
    """
    out = []
    has = set(df.columns[df.notna().any().to_numpy()])
    for name, kind in PLOTS.items():
        if any(c in has for c in kind.x) and any(c in has for c in kind.metrics):
            out.append(name)
    return out


def save(fig, path: str | Path) -> Path:
    """Write a figure; the format follows the suffix (png, svg, pdf)."""
    p = Path(path)
    fmt = p.suffix.lower().lstrip(".") or "png"
    if fmt not in ("png", "svg", "pdf"):
        raise ParameterError(f"output={str(p)!r} is invalid: use a .png, .svg or .pdf file")
    p.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(p, lambda fh: fig.savefig(fh, format=fmt, dpi=130))
    return p
