"""Fault tolerance across families of similar size (issue 11, "The comparison").

MiKANT, a k-ary n-tree and a Clos with the same number of nodes: success ratio and path
length of the successful routes against the link fault rate, for each family's default
(best) local fault-tolerant algorithm, its papers' best where it has one, a table engine
recomputed on the surviving graph where the family has one, and the oracle. One Monte Carlo
(:func:`fattree.faults.montecarlo.evaluate`) per network, same seed, rates and trials.

Not done here (left to the flagship study): accepted throughput at saturation against the
fault rate with the channel-load bound of the surviving routes
(:func:`fattree.sim.faultroutes.fault_load_bound`) beside it.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ParameterError

# 1,024 nodes each: MiKANT(8,3) = 2·8³, kant(4,5) = 4⁵, Clos(8,3) = 2·8³
DEFAULT_SPECS = ("mikant:k=8,n=3", "kant:k=4,n=5", "clos:k=8,n=3")
PAPERS_BEST = {"mikant": "gns+tt+xt+gdl", "mikantc": "cube+gns+xt+gdl"}


def comparison_algorithms(family: str) -> list[str]:
    """The algorithms compared on a family: its default local algorithm, its papers' best
    (MiKANT, MiKANTC), ``updown-table`` where defined, and the oracle.

    Examples
    --------
    >>> comparison_algorithms("kant"), comparison_algorithms("mikant")
    (['detour', 'updown-table', 'oracle'], ['escape', 'gns+tt+xt+gdl', 'updown-table', 'oracle'])

    References
    ----------
    docs/faults-families.md.
    """
    from ..faults.algorithms import FT_ALGORITHMS
    from ..faults.rules import default_ft_algorithm

    names = [default_ft_algorithm(family)]
    if family in PAPERS_BEST:
        names.append(PAPERS_BEST[family])
    if "updown-table" in FT_ALGORITHMS and family in FT_ALGORITHMS.get("updown-table").families:
        names.append("updown-table")
    return names + ["oracle"]


def fault_comparison(specs=DEFAULT_SPECS, rates="0:0.3:0.05", trials: int = 20_000,
                     seed: int = 7, progress=None):
    """One frame of success ratio and path length against the fault rate, per network
    and algorithm (columns of :func:`~fattree.faults.montecarlo.evaluate` plus
    ``family``, ``nodes`` and ``role``: ``local``, ``papers``, ``table`` or ``oracle``).

    Examples
    --------
    >>> df = fault_comparison(("kant:k=2,n=3", "clos:k=2,n=2"), [0.0, 0.1], 200)
    >>> sorted(df["family"].unique()), bool((df[df.rate == 0.0].success_ratio == 1).all())
    (['clos', 'kant'], True)

    References
    ----------
    001 §5 (protocol); docs/faults-families.md.
    """
    import pandas as pd

    from ..faults.montecarlo import evaluate
    from ..topology import build

    if not specs:
        raise ParameterError("specs=() is invalid: name at least one topology")
    frames = []
    for i, spec in enumerate(specs):
        topo = build(spec)
        algs = comparison_algorithms(topo.family)
        st = evaluate(topo, ",".join(algs), rates, trials, seed)
        df = st.to_frame()
        df["family"] = topo.family
        df["nodes"] = topo.n_nodes
        df["role"] = df["algorithm"].map(lambda a, fam=topo.family: _role(a, fam))
        frames.append(df)
        if progress is not None:
            progress(i + 1, len(specs))
    return pd.concat(frames, ignore_index=True)


def _role(alg: str, family: str) -> str:
    if alg == "oracle":
        return "oracle"
    if alg.endswith("-table"):
        return "table"
    return "papers" if PAPERS_BEST.get(family) == alg else "local"


def plot_fault_comparison(frame, path: str | Path, title: str = "") -> Path:
    """Success ratio and path length against the fault rate: one colour per network, one
    line style per role (local solid, papers dash-dot, table dashed, oracle dotted).

    References
    ----------
    docs/faults-families.md.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ParameterError(f"output={str(path)!r} is invalid: use a .png, .svg or .pdf file")
    styles = {"local": "-", "papers": "-.", "table": "--", "oracle": ":"}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    for ci, (spec, g) in enumerate(frame.groupby("topology", sort=False)):
        for alg, h in g.groupby("algorithm", sort=False):
            ls = styles[h["role"].iloc[0]]
            label = f"{spec}: {alg}"
            ax1.plot(h["rate"] * 100, h["success_ratio"], ls, color=f"C{ci}", label=label)
            ax2.plot(h["rate"] * 100, h["avg_path_length"], ls, color=f"C{ci}", label=label)
    for ax, lab in ((ax1, "successful routing ratio"),
                    (ax2, "average path length of successful routes (links)")):
        ax.set_xlabel("link fault rate (%)")
        ax.set_ylabel(lab)
        ax.grid(alpha=0.3)
    ax2.legend(fontsize=6, ncol=1)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
