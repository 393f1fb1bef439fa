"""The timeline of one workload run at packet level: :func:`timeline_figure`.

Each plotted rank is a row; its operations are bars from start to completion (sends,
receives, computations in three colours), the phases' ends are vertical lines and the
slowest rank is marked. matplotlib through ``Figure`` objects (no pyplot state).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .plots import save

_COLOURS = {0: "#1f77b4", 1: "#ff7f0e", 2: "#7f7f7f"}  # send, recv, calc
_NAMES = {0: "send", 1: "recv", 2: "calc"}


def timeline_figure(result, path: str | Path | None = None):
    """Draw a run's timeline (and write it to ``path`` if given).

    Parameters
    ----------
    result : PacketResult
        A packet-level workload result (:func:`fattree.sim.workload.simulate_workload`);
        its ``timeline`` holds up to 32 ranks' operations.
    path : str or Path, optional
        File to write (format from the suffix: .png, .pdf, .svg).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from fattree.sim.workload import simulate_workload
    >>> r = simulate_workload("kant:k=2,n=2", "allgather:size=4KiB", flit_size="64B")
    >>> len(timeline_figure(r).axes)
    1
    """
    from matplotlib.figure import Figure

    tl = result.timeline
    ranks = np.asarray(tl.get("ranks", []), np.int64)
    row = {int(r): i for i, r in enumerate(ranks)}
    fig = Figure(figsize=(9, max(2.5, 0.25 * len(ranks) + 1.5)))
    ax = fig.add_subplot(1, 1, 1)
    scale, unit = _scale(result.time_s)
    kind = np.asarray(tl.get("kind", []))
    rank = np.asarray(tl.get("rank", []))
    start = np.asarray(tl.get("start_s", []), float) * scale
    end = np.asarray(tl.get("end_s", []), float) * scale
    offset = {0: 0.2, 1: -0.2, 2: 0.0}  # sends above receives within a rank's row
    for k, colour in _COLOURS.items():
        sel = kind == k
        if not sel.any():
            continue
        y = np.array([row[int(r)] for r in rank[sel]], float) + offset[k]
        # a zero-length operation still shows as a sliver
        width = np.maximum(end[sel] - start[sel], 1e-3 * max(result.time_s * scale, 1e-12))
        ax.barh(
            y,
            width,
            left=start[sel],
            height=0.38,
            color=colour,
            alpha=0.7,
            label=_NAMES[k],
            linewidth=0,
        )
    ends = np.asarray(tl.get("phase_end_s", []), float)[:-1]
    if len(ends) <= 64:  # more phase boundaries than that only blacken the plot
        for t in ends:
            ax.axvline(t * scale, color="black", linewidth=0.6, linestyle=":")
    slow = tl.get("slowest_rank", -1)
    if slow in row:
        ax.axhline(row[slow], color="red", linewidth=0.8, alpha=0.5)
    ax.set_yticks(range(len(ranks)))
    ax.set_yticklabels([f"{r}*" if r == slow else str(r) for r in ranks.tolist()], fontsize=7)
    ax.set_ylabel("rank (* slowest)")
    ax.set_xlabel(f"time ({unit})")
    ax.set_xlim(0, max(result.time_s * scale, 1e-12))
    ax.set_title(
        f"{result.workload}\non {result.topology}: {result.time_s * scale:.4g} {unit}, "
        f"{result.outcome}",
        fontsize=8,
        wrap=True,
    )
    if len(kind):
        ax.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    if path is not None:
        save(fig, path)
    return fig


def _scale(seconds: float) -> tuple[float, str]:
    for f, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if seconds >= f:
            return 1.0 / f, unit
    return 1e9, "ns"


__all__ = ["timeline_figure"]
