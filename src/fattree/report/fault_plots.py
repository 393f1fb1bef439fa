"""Figures of the fault study, like 001 Figs. 8–9 (success ratio and path length vs rate)."""

from __future__ import annotations

from ..fileio import write_atomic

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..errors import ParameterError  # noqa: E402


def plot_fault_study(frame, path: str | Path, title: str = "") -> Path:
    """Two panels: success ratio (with 95 % CI) and average path length, per algorithm.

    References
    ----------
    001 §5, Figs. 8–9.
    """
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ParameterError(f"output={str(path)!r} is invalid: use a .png, .svg or .pdf file")
    from .plots import LINESTYLES, MARKERS

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    for i, ((alg, model), g) in enumerate(frame.groupby(["algorithm", "model"], sort=False)):
        label = alg if model in ("local", "global") else f"{alg} ({model})"
        # distinct marker and line style per algorithm: curves that coincide stay visible
        style = dict(
            marker=MARKERS[i % len(MARKERS)],
            ls=LINESTYLES[i % len(LINESTYLES)],
            mfc="none",
            ms=4 + i % 3,
        )
        if alg == "oracle":
            style.update(lw=2.5, color="black")
        x = g["rate"] * 100
        ax1.plot(x, g["success_ratio"], label=label, **style)
        ax1.fill_between(
            x,
            g["ci_low"],
            g["ci_high"],
            alpha=0.15,
            **({"color": "black"} if alg == "oracle" else {}),
        )
        ax2.plot(x, g["avg_path_length"], label=label, **style)
    ax1.set_xlabel("link fault rate (%)")
    ax1.set_ylabel("successful routing ratio")
    ax1.set_ylim(0, 1.02)
    ax2.set_xlabel("link fault rate (%)")
    ax2.set_ylabel("average path length of successful routes (links)")
    ax1.grid(alpha=0.3)
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=7, ncol=2)
    from .labels import humanize

    fig.suptitle(humanize(title) if title else "link-fault-tolerant routing")
    ax1.set_title("successful routing ratio", fontsize="medium")
    ax2.set_title("path length of successful routes", fontsize="medium")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(
        path,
        lambda fh: fig.savefig(fh, format=Path(path).suffix.lower().lstrip(".") or "png", dpi=130),
    )
    plt.close(fig)
    return path
