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

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ParameterError, closest
from ..registry import Registry

# Columns that never define a series (bookkeeping of the store and the study).
BOOKKEEPING = ("config_hash", "seed", "replicate", "study_seed", "study", "experiment",
               "fattree_version", "started_at", "finished_at", "elapsed_s", "host", "pid",
               "config")


@dataclass(frozen=True)
class PlotKind:
    """What a plot draws: candidate metric columns, x column, labels."""

    name: str
    title: str
    metrics: tuple[str, ...]
    ylabel: str
    x: tuple[str, ...] = ("load",)
    xlabel: str = "offered load λ (flits per node per cycle)"
    identity: bool = False  # draw y = x (accepted = offered)
    logy: bool = False


PLOTS: Registry[PlotKind] = Registry("plot")


def _add(kind: PlotKind) -> None:
    PLOTS.add(kind.name, kind)


_add(PlotKind("latency", "average packet latency",
              ("latency_avg", "avg_latency", "latency_mean", "latency"),
              "average packet latency (cycles)"))
_add(PlotKind("throughput", "accepted throughput",
              ("accepted_flits", "accepted_throughput", "throughput"),
              "accepted load (flits per node per cycle)", identity=True))
_add(PlotKind("conflicts", "average output-port conflicts",
              ("port_conflicts_per_cycle", "avg_conflicts", "conflicts"),
              "average output-port conflicts per cycle"))
_add(PlotKind("received", "ratio of packets received to packets sent",
              ("received_ratio", "receive_ratio", "ratio_received"),
              "packets received / packets sent"))
_add(PlotKind("received_per_cycle", "average packets received per cycle",
              ("received_per_cycle", "packets_received_per_cycle"),
              "packets received per cycle"))
_add(PlotKind("fault_success", "successful routing ratio",
              ("success_ratio", "successful_ratio", "success"), "successful routing ratio",
              x=("rate", "fault_rate"), xlabel="link fault rate"))
_add(PlotKind("fault_path_length", "average path length of successful routes",
              ("path_length_avg", "avg_path_length", "path_length"), "average path length (hops)",
              x=("rate", "fault_rate"), xlabel="link fault rate"))


def _pick(df, names: Sequence[str], what: str, plot: str) -> str:
    for n in names:
        if n in df.columns and df[n].notna().any():
            return n
    have = [str(c) for c in df.columns if df[c].notna().any()]
    raise ParameterError(f"plot {plot!r}: the results have no {what} column (looked for "
                         f"{', '.join(names)}); columns with values: {', '.join(have)}")


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
        c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])]
    cols = [c for c in config if c in df.columns and c != x and c not in BOOKKEEPING
            and c not in ("family", "kind")]
    cols = [c for c in cols if df[c].astype(str).nunique() > 1]
    kept: list[str] = []
    for c in cols:  # drop columns determined by an earlier one (k and n by the topology)
        text = df[c].astype(str)
        if not any((text.groupby(df[d].astype(str)).nunique() <= 1).all() for d in kept):
            kept.append(c)
    return kept


def draw(df, name: str, *, logy: bool | None = None, series: Sequence[str] | None = None,
         title: str | None = None, ax=None):
    """Draw plot ``name`` (a :data:`PLOTS` entry) of a results DataFrame.

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
    ax : matplotlib Axes, optional
        Draw into it; otherwise a new Figure is made.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"topology": ["a"] * 2 + ["b"] * 2, "load": [0.1, 0.2] * 2,
    ...                    "latency": [10.0, 12.0, 11.0, 15.0]})
    >>> fig = draw(df, "latency")
    >>> [l.get_label() for l in fig.axes[0].get_lines()]
    ['topology=a', 'topology=b']

    References
    ----------
    000 §V.B Figs. 9-12 (latency, conflicts, received ratio, received per cycle).
    """
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
            raise ParameterError(f"series column {c!r} is not in the results"
                                 f"{closest(c, map(str, df.columns))}")
    fig = None
    if ax is None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6.4, 4.2), layout="constrained")
        ax = fig.subplots()
    data = df[series + [x, y]].dropna(subset=[x, y])
    groups = data.groupby(series, sort=True, dropna=False) if series else [((), data)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        stats = g.groupby(x, sort=True)[y].agg(["mean", "std", "count"]).reset_index()
        label = ", ".join(f"{c}={v}" for c, v in zip(series, key)) or y
        err = stats["std"].where(stats["count"] > 1)
        if err.notna().any():
            ax.errorbar(stats[x], stats["mean"], yerr=err.fillna(0), marker="o", ms=3,
                        capsize=2, label=label)
        else:
            ax.plot(stats[x], stats["mean"], marker="o", ms=3, label=label)
    if kind.identity:
        lo, hi = float(data[x].min()), float(data[x].max())
        ax.plot([lo, hi], [lo, hi], ls=":", color="grey", label="accepted = offered")
    if logy if logy is not None else kind.logy:
        ax.set_yscale("log")
    ax.set_xlabel(kind.xlabel if x == kind.x[0] else x)
    ax.set_ylabel(kind.ylabel)
    ax.set_title(title or kind.title)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[1]:
        ax.legend(fontsize="small")
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
    fig.savefig(p, format=fmt, dpi=130)
    return p
