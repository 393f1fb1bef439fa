"""The papers' analytic figures (cost ratios, S, RCP, path diversity) and 002's latency curves.

Every figure is drawn from :mod:`fattree.analysis` (closed forms with the errata's
corrections), never from numbers read off the papers. Paper figures are entries of the
registry :data:`ANALYTIC_FIGURES` keyed ``"000-fig5"`` etc.; each entry is callable with an
output path (``.png``, ``.svg`` or ``.pdf``) and carries the caption, which says where the
corrected formulas differ from the printed ones. The generic plots behind them
(:func:`plot_cost_ratios`, :func:`plot_rcp`, :func:`plot_path_diversity`,
:func:`plot_kncube_latency`) serve ``fattree plot``.

matplotlib is used through ``Figure`` objects (no pyplot state), imported when drawing.
"""

from __future__ import annotations

from ..fileio import write_atomic

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..analysis import cost
from ..analysis.closed_forms import FORMS, numeric, printed_numeric
from ..errors import ParameterError
from ..registry import Registry

_FORMATS = ("png", "svg", "pdf")
_LABEL = {
    "kant": "k-ary n-tree",
    "clos": "Clos k-ary n-tree",
    "mikant": "MiKANT(k,n)",
    "cat": "CAT(k,n)",
    "micat": "MiCAT(k,n)",
    "kantc": "KANTC(k,n)",
    "mikantc": "MiKANTC(k,n)",
    "hypercube": "k-cube",
    "torus": "k-ary n-cube",
}


def _style(i: int, points: int = 0) -> dict:
    """Marker and line style of curve ``i`` (distinct per curve, open markers so that
    coinciding curves stay visible); long curves get a marker every few points."""
    from .plots import LINESTYLES, MARKERS

    st = dict(
        marker=MARKERS[i % len(MARKERS)],
        ls=LINESTYLES[i % len(LINESTYLES)],
        mfc="none",
        ms=5 + i % 3,
        mew=1.2,
    )
    if points > 16:
        st["markevery"] = max(1, points // 12)
    return st


def _figure(ncols: int = 1):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.6 * ncols, 4.2), layout="constrained")
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, axes


def _out(path) -> Path:
    p = Path(path)
    fmt = p.suffix.lower().lstrip(".")
    if fmt not in _FORMATS:
        raise ParameterError(f"output={str(p)!r} is invalid: use a .png, .svg or .pdf file")
    return p


def _legends_off_the_data(fig) -> None:
    """Move every axes' legend beside it (right of the last axes, below the others), so no
    legend covers a curve; the figure grows to make room."""
    axes = [ax for ax in fig.axes if ax.get_legend() is not None]
    if not axes:
        return
    w, h = fig.get_size_inches()
    fig.set_size_inches(w + 2.2 * len(axes) / max(len(fig.axes), 1) + 0.6, h)
    for ax in axes:
        old = ax.get_legend()
        handles, labels = ax.get_legend_handles_labels()
        size = old.get_texts()[0].get_fontsize() if old.get_texts() else "small"
        old.remove()
        ax.legend(
            handles,
            labels,
            fontsize=min(float(size), 8.0),
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0,
        )


def _save(fig, path) -> Path:
    p = _out(path)
    _legends_off_the_data(fig)
    p.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(p, lambda fh: fig.savefig(fh, format=p.suffix.lower().lstrip("."), dpi=130))
    return p


def _check_family(family: str, allowed: Sequence[str], what: str) -> None:
    FORMS.get(family)  # unknown names list the valid ones
    if family not in allowed:
        raise ParameterError(
            f"family={family!r} is invalid for {what}: one of {', '.join(allowed)}"
        )


# ------------------------------------------------------------------ cost ratios
COST_FAMILIES = ("mikant", "cat", "micat", "kantc", "mikantc")


def cost_ratio_series(family: str, baseline: str = "kant", ks: Sequence[int] = range(2, 9)):
    """(x, switch ratios, link ratios): MiKANT against n (k-independent), the hybrids at n = k."""
    _check_family(family, COST_FAMILIES, "cost ratios")
    if family == "mikant":
        xs = [n for n in ks if n >= 2]
        rs = [cost.mikant_ratios(n) for n in xs]
        return xs, [float(a) for a, _ in rs], [float(b) for _, b in rs]
    xs = [k for k in ks if k >= 2]
    return (
        xs,
        [float(cost.switch_cost_ratio(family, k, k, baseline)) for k in xs],
        [float(cost.link_cost_ratio(family, k, k, baseline)) for k in xs],
    )


def plot_cost_ratios(
    path,
    families: Sequence[str] = ("cat", "micat"),
    baseline: str = "kant",
    ks: Sequence[int] = range(2, 9),
    title: str | None = None,
) -> Path:
    """Switch and link cost ratios per node against ``baseline`` (two panels).

    Examples
    --------
    >>> import tempfile, os
    >>> p = plot_cost_ratios(os.path.join(tempfile.mkdtemp(), "c.png"), ["kantc"])
    >>> p.stat().st_size > 0
    True

    References
    ----------
    000 Fig. 5 / eqs. (4)-(5); 001 Fig. 2 / §3.1; 004 Figs. 5-6 / §5.1.
    """
    if baseline not in cost.BASELINES:
        raise ParameterError(
            f"baseline={baseline!r} is invalid: one of {', '.join(cost.BASELINES)}"
        )
    _out(path)
    fig, (a_s, a_l) = _figure(2)
    for i, fam in enumerate(families):
        xs, s, li = cost_ratio_series(fam, baseline, ks)
        a_s.plot(xs, s, label=_LABEL[fam], **_style(i))
        a_l.plot(xs, li, label=_LABEL[fam], **_style(i))
    xlabel = "n" if list(families) == ["mikant"] else "k (= n)"
    base = _LABEL[baseline]
    for ax, what in ((a_s, "switches"), (a_l, "links")):
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"cost ratio of {what} per node to {base}")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title or f"Cost ratios of switches and links to {base}")
    return _save(fig, path)


# ------------------------------------------------------------------ RCP
RCP_FAMILIES = ("kant", "clos", "mikant", "cat", "micat", "kantc", "mikantc")


def rcp_series(family: str, n: int, p: int = 1, max_nodes: float = 2**31, printed: bool = False):
    """(nodes, RCP) of ``family(k, n)`` for k = 2, 3, ... up to ``max_nodes`` nodes.

    Points without a closed-form diameter (KANTC/MiKANTC, n = 2, k >= 5) are skipped;
    ``printed`` uses the papers' diameter formulas instead of the corrected ones.
    """
    _check_family(family, RCP_FAMILIES, "RCP")
    xs, ys = [], []
    k = 2
    while True:
        v = (printed_numeric if printed else numeric)(family, {"k": k, "n": n})
        if v["nodes"] > max_nodes:
            break
        if "diameter" in v and v["nodes"] >= 2 * p:
            xs.append(v["nodes"])
            ys.append(cost.rcp_value(v["radix"], v["diameter"], v["nodes"], p))
        k += 1 if k < 64 else k // 16  # geometric steps where the curve is smooth
    return xs, ys


def plot_rcp(
    path,
    family: str = "mikant",
    ns: Sequence[int] = range(2, 9),
    p: int = 1,
    mark: Sequence[tuple[int, int]] = (),
    title: str | None = None,
    max_nodes: float = 2**31,
    ylim: float = 2.0,
) -> Path:
    """RCP against the hypercube versus system size, one curve per n (k varies along it).

    ``mark`` lists (k, n) designs to annotate with their RCP; the y axis stops at ``ylim``
    (curves rise steeply for small n and large k).

    Examples
    --------
    >>> import tempfile, os
    >>> plot_rcp(os.path.join(tempfile.mkdtemp(), "r.svg"), "mikant", [5, 6], mark=[(8, 6)]).suffix
    '.svg'

    References
    ----------
    000 Fig. 7 / eq. (7); 001 Figs. 3-4 / §3.2; 004 Figs. 7-8 / §5.2 (division bar restored).
    """
    _out(path)
    fig, (ax,) = _figure()
    for i, n in enumerate(ns):
        xs, ys = rcp_series(family, n, p, max_nodes)
        if xs:
            ax.plot(xs, ys, label=f"n = {n}", **_style(i, len(xs)))
    for k, n in mark:
        v = numeric(family, {"k": k, "n": n})
        r = cost.rcp(family, {"k": k, "n": n}, p)
        ax.plot([v["nodes"]], [r], "k*", ms=11)
        ax.annotate(
            f"{_LABEL[family].replace('(k,n)', '')}({k},{n})\n{v['nodes']:,} nodes, RCP {r:.4g}",
            (v["nodes"], r),
            textcoords="offset points",
            xytext=(0, -34),
            ha="center",
            fontsize=8,
        )
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_ylim(0, ylim)
    ax.set_xscale("log")
    ax.set_xlabel("number of compute nodes")
    ax.set_ylabel(f"RCP to hypercube (p = {p})")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, ncol=2)
    ax.set_title(title or f"RCP comparison of {_LABEL[family]}")
    return _save(fig, path)


# ------------------------------------------------------------------ path diversity
PD_FAMILIES = ("hypercube", "kant", "clos", "mikant", "cat", "micat")


def pd_series(family: str, n: int, ks: Sequence[int], printed: bool = False):
    """(k, PD) at fixed n; the k-cube uses dimension k (switches only, p = 1)."""
    _check_family(family, PD_FAMILIES, "path diversity")
    fn = printed_numeric if printed else numeric
    out = []
    for k in ks:
        params = {"d": k, "p": 1} if family == "hypercube" else {"k": k, "n": n}
        out.append(float(fn(family, params)["path_diversity"]))
    return list(ks), out


def plot_path_diversity(
    path,
    n: int = 8,
    families: Sequence[str] = ("hypercube", "kant", "mikant", "cat", "micat"),
    ks: Sequence[int] = range(2, 11),
    show_printed: bool = True,
    title: str | None = None,
) -> Path:
    """Path diversity P̃/N against k at fixed n (corrected formulas; printed ones dashed).

    Examples
    --------
    >>> import tempfile, os
    >>> plot_path_diversity(os.path.join(tempfile.mkdtemp(), "pd.png"), 4, ["kant"], range(2, 5)).exists()
    True

    References
    ----------
    001 Fig. 5 / §3.3; 004 Fig. 9 / §5.3; errata (corrected k-cube, CAT, MiCAT formulas).
    """
    _out(path)
    fig, (ax,) = _figure()
    for i, fam in enumerate(families):
        xs, ys = pd_series(fam, n, ks)
        (line,) = ax.plot(xs, ys, label=_LABEL[fam], **_style(i))
        if show_printed and fam in ("hypercube", "cat", "micat"):
            xs, yp = pd_series(fam, n, ks, printed=True)
            ax.plot(
                xs,
                yp,
                ls=(0, (1, 2)),
                lw=2,
                color=line.get_color(),
                alpha=0.6,
                label=f"{_LABEL[fam]} (as printed)",
            )
    ax.set_yscale("log")
    ax.set_xlabel("k")
    ax.set_ylabel("path diversity P̃/N")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title(title or f"Path diversities (n = {n})")
    return _save(fig, path)


# ------------------------------------------------------------------ 002 latency
def plot_kncube_latency(
    path,
    nodes: int = 256,
    constraint: str = "nodesize",
    wire: str = "constant",
    message_length: float = 150.0,
    node_size: float = 640.0,
    title: str | None = None,
) -> Path:
    """T_net of the k-ary n-cube and of the fat tree against n (002 §3 models).

    Examples
    --------
    >>> import tempfile, os
    >>> plot_kncube_latency(os.path.join(tempfile.mkdtemp(), "t.png"), 256).exists()
    True

    References
    ----------
    002 §3 ("K-ary N-Cube for const node" and "K-ary N-Tree for const node size" tables).
    """
    from ..analysis import kncube

    _out(path)
    cube = kncube.kncube_tnet_table(nodes, message_length, constraint, node_size, wire)
    cube = cube[cube["k"] >= 2]
    tree = kncube.fattree_tnet_table(
        nodes,
        message_length,
        node_size,
        wire,
        "bisection" if constraint == "bisection" else "table",
    )
    fig, (ax,) = _figure()
    ax.plot(cube["n"], cube["Tnet"], label="k-ary n-cube (D = n(k-1)/2)", **_style(0))
    ax.plot(tree["n"], tree["Tnet"], label="k-ary n-tree (D = 2n)", **_style(1))
    ax.set_yscale("log")
    ax.set_xlabel("n (dimensions / tree levels), k = N^(1/n)")
    ax.set_ylabel("T_net (cycles)")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    ax.set_title(
        title
        or f"N = {nodes:,}, constant {'bisection' if constraint == 'bisection' else 'node size'}, "
        f"{wire} wire delay, L = {message_length:g}"
    )
    return _save(fig, path)


# ------------------------------------------------------------------ paper figures
@dataclass(frozen=True)
class AnalyticFigure:
    """A paper figure: ``fig(path)`` draws it; ``caption`` names the corrections used."""

    key: str
    paper: str
    title: str
    caption: str
    draw: Callable[[Path], Path]

    def __call__(self, path) -> Path:
        return self.draw(path)


ANALYTIC_FIGURES: Registry[AnalyticFigure] = Registry("analytic figure")


def _figure_entry(key: str, title: str, caption: str):
    def deco(fn):
        ANALYTIC_FIGURES.add(
            key,
            AnalyticFigure(key=key, paper=key.split("-")[0], title=title, caption=caption, draw=fn),
        )
        return fn

    return deco


@_figure_entry(
    "000-fig5",
    "Cost ratios of links and switches (MiKANT / k-ary n-tree)",
    "R_S = 1 - 1/n and R_L = 1 - 1/(2n) (000 eqs. 4-5, correct as printed): MiKANT saves "
    "50% switches and 25% links at n = 2, 12.5% and 6.25% at n = 8.",
)
def fig_000_5(path) -> Path:
    """000 Fig. 5 (cost ratios of MiKANT to the k-ary n-tree against n)."""
    _out(path)
    fig, (ax,) = _figure()
    xs, s, li = cost_ratio_series("mikant", ks=range(2, 9))
    ax.plot(xs, s, label="switch", **_style(0))
    ax.plot(xs, li, label="link", **_style(1))
    ax.set_xlabel("n")
    ax.set_ylabel("cost ratio to k-ary n-tree")
    ax.set_ylim(0.4, 1.0)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title("Cost ratios of links and switches: MiKANT(k,n) / k-ary n-tree")
    return _save(fig, path)


@_figure_entry(
    "000-fig6",
    "Performance improvement of MiKANT(k,n)",
    "S = 2^(1/n) (000 eq. 6, correct as printed): 41.4% at n = 2 down to 9.05% at n = 8.",
)
def fig_000_6(path) -> Path:
    """000 Fig. 6 (cost-performance improvement S - 1 against n)."""
    _out(path)
    fig, (ax,) = _figure()
    xs = list(range(2, 9))
    ys = [100 * (cost.improvement(n) - 1) for n in xs]
    ax.bar(xs, ys, color="tab:blue", alpha=0.8)
    for x, y in zip(xs, ys):
        ax.annotate(f"{y:.1f}%", (x, y), ha="center", va="bottom", fontsize=8)
    ax.set_xlabel("n")
    ax.set_ylabel("performance improvement (%)")
    ax.grid(alpha=0.3, axis="y")
    ax.set_title("Performance improvement of MiKANT(k, n)")
    return _save(fig, path)


@_figure_entry(
    "000-fig7",
    "RCP comparison of Mirrored k-ary n-tree",
    "RCP = 2k 2n / ((log2(N/p) + p)(log2(N/p) + 2)) for 2 <= n <= 8, p = 1 (000 eq. 7, correct "
    "as printed); MiKANT(8,6) with 524,288 nodes has RCP 192/420 = 0.457.",
)
def fig_000_7(path) -> Path:
    """000 Fig. 7 (RCP of MiKANT against system size, n = 2..8)."""
    return plot_rcp(
        path,
        "mikant",
        range(2, 9),
        1,
        mark=[(8, 6)],
        title="RCP comparison of Mirrored k-ary n-tree",
    )


@_figure_entry(
    "001-fig2",
    "Cost ratios of switches and links to k-ary n-tree (CAT, MiCAT)",
    "n = k; 001 §3.1's ratios (correct as printed): at k = n = 8 CAT saves 87.108% switches and "
    "80.882% links, MiCAT 87.157% and 80.907%.",
)
def fig_001_2(path) -> Path:
    """001 Fig. 2."""
    return plot_cost_ratios(
        path,
        ["cat", "micat"],
        "kant",
        range(2, 9),
        "Cost ratios of switches and links to k-ary n-tree",
    )


_RCP_HYBRID = "diameter 2n + 2k (001 Table 1, correct); p = 1, 2 <= n <= 7. "


@_figure_entry(
    "001-fig3",
    "RCP comparison of CAT(k,n)",
    _RCP_HYBRID
    + "CAT(4,7) has 245,760 nodes and RCP 0.4676 - the value 001 attributes to MiCAT(4,7).",
)
def fig_001_3(path) -> Path:
    """001 Fig. 3."""
    return plot_rcp(path, "cat", range(2, 8), 1, mark=[(4, 7)], title="RCP comparison of CAT(k, n)")


@_figure_entry(
    "001-fig4",
    "RCP comparison of MiCAT(k,n)",
    _RCP_HYBRID
    + "MiCAT(4,7) has 491,520 nodes and RCP 0.4229 (001 prints 0.4676, which is CAT(4,7)).",
)
def fig_001_4(path) -> Path:
    """001 Fig. 4."""
    return plot_rcp(
        path, "micat", range(2, 8), 1, mark=[(4, 7)], title="RCP comparison of MiCAT(k, n)"
    )


@_figure_entry(
    "001-fig5",
    "Path diversities (n = 8)",
    "Corrected formulas (errata): k-cube sum k!/((k-i)! 4^k), CAT and MiCAT closed forms; the printed "
    "ones are dashed. With the correct formulas CAT/MiCAT exceed the k-ary n-tree/MiKANT from k = 4, "
    "not k >= 5 as 001 states.",
)
def fig_001_5(path) -> Path:
    """001 Fig. 5."""
    return plot_path_diversity(
        path, 8, ("hypercube", "kant", "mikant", "cat", "micat"), range(2, 11)
    )


@_figure_entry(
    "004-fig5",
    "Cost ratios of switches and links to KANT(k,n)",
    "n = k (004 Table 1 counts, correct): at k = n = 8 KANTC saves 84.27% switches and 78.23% links, "
    "MiKANTC 84.68% and 78.43% (printed '78.%').",
)
def fig_004_5(path) -> Path:
    """004 Fig. 5."""
    return plot_cost_ratios(
        path,
        ["kantc", "mikantc"],
        "kant",
        range(2, 9),
        "Cost ratios of switches and links to KANT(k, n)",
    )


@_figure_entry(
    "004-fig6",
    "Cost ratios of switches and links to MiKANT(k,n)",
    "n = k: at k = n = 8 KANTC saves 82.03% switches and 76.77% links against MiKANT, "
    "MiKANTC 82.49% and 76.99%; reductions start at k = n = 4.",
)
def fig_004_6(path) -> Path:
    """004 Fig. 6."""
    return plot_cost_ratios(
        path,
        ["kantc", "mikantc"],
        "mikant",
        range(2, 9),
        "Cost ratios of switches and links to MiKANT(k, n)",
    )


_RCP_004 = (
    "004's RCP formula is printed without its division bar; restored as in 001. The diameter is "
    "the graph's 2n + 2 floor(k/2) (errata; 004 prints 2n + k, which differs for odd k); n = 2 "
    "points beyond k = 4 have no verified diameter and are omitted. p = 1, 2 <= n <= 7. "
)


@_figure_entry("004-fig7", "KANTC RCP performance", _RCP_004)
def fig_004_7(path) -> Path:
    """004 Fig. 7."""
    return plot_rcp(path, "kantc", range(2, 8), 1, title="KANTC RCP performance")


@_figure_entry(
    "004-fig8", "MiKANTC RCP performance", _RCP_004 + "MiKANTC(6,7): 5,412,096 nodes, RCP 0.42148."
)
def fig_004_8(path) -> Path:
    """004 Fig. 8."""
    return plot_rcp(path, "mikantc", range(2, 8), 1, mark=[(6, 7)], title="MiKANTC RCP performance")


@_figure_entry(
    "004-fig9",
    "Path diversities (n = 8)",
    "k-cube (corrected), k-ary n-tree and MiKANT curves. KANTC/MiKANTC have no closed-form path "
    "diversity: it depends on the cube grouping and intermediate codes that 004 leaves open "
    "(errata), so their curves are not drawn.",
)
def fig_004_9(path) -> Path:
    """004 Fig. 9 (KANTC/MiKANTC omitted; see the caption)."""
    return plot_path_diversity(
        path, 8, ("hypercube", "kant", "mikant"), range(2, 11), title="Path diversities (n = 8)"
    )
