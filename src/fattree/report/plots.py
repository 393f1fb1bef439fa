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
    """
    from .labels import value_label

    parts = []
    for c, v in zip(series, key):
        if (
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

        fig = Figure(figsize=(6.4, 4.4), layout="constrained")
        ax = fig.subplots()
    log = logy if logy is not None else kind.logy
    extra = [
        c for c in ("topology", "algorithm", "saturated") if c in df.columns and c not in series
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
        if err.notna().any():
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
        ax.legend(fontsize="small", framealpha=0.85)
    return fig if fig is not None else ax.figure


def available(df) -> list[str]:
    """Names of the plots whose x and metric columns the results have (with values).

    Examples
    --------
    >>> import pandas as pd
    >>> available(pd.DataFrame({"load": [0.1], "avg_latency": [9.0]}))
    ['latency']
    """
    out = []
    for name, kind in PLOTS.items():
        has = [c for c in df.columns if df[c].notna().any()]
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
