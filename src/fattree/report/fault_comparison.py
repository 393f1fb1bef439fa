"""Fault tolerance across families of similar size (docs/faults-families.md).

MiKANT, a k-ary n-tree and a Clos with the same number of nodes: success ratio and path
length of the successful routes against the link fault rate, for each family's default
(best) local fault-tolerant algorithm, its papers' best where it has one, a table engine
recomputed on the surviving graph where the family has one, and the oracle. One Monte Carlo
(:func:`fattree.faults.montecarlo.evaluate`) per network, same seed, rates and trials.

:func:`saturation_vs_faults` adds accepted throughput at saturation against the fault rate
(graceful degradation), simulated hop by hop under each fault set, with the channel-load
bound of the surviving routes (:func:`fattree.sim.faulthop.router_load_bound`) beside it.
The flagship study reports both (reproduction ``001-fig8b``).
"""

from __future__ import annotations

import contextlib
import functools
import types
from pathlib import Path

from ..errors import ParameterError
from ..fileio import write_atomic

# 1,024 nodes each: MiKANT(8,3) = 2·8³, kant(4,5) = 4⁵, Clos(8,3) = 2·8³
DEFAULT_SPECS = ("mikant:k=8,n=3", "kant:k=4,n=5", "clos:k=8,n=3")
PAPERS_BEST = {"mikant": "gns+tt+xt+gdl", "mikantc": "cube+gns+xt+gdl"}


def comparison_algorithms(family: str) -> list[str]:
    """The algorithms compared on a family: its default local algorithm, its papers' best
    (MiKANT, MiKANTC), ``detour`` where it is not the default (MiKANT: on balanced),
    ``updown-table`` where defined, and the oracle.

    Examples
    --------
    >>> comparison_algorithms("kant")
    ['detour', 'updown-table', 'oracle']
    >>> comparison_algorithms("mikant")
    ['escape', 'gns+tt+xt+gdl', 'detour', 'updown-table', 'oracle']

    References
    ----------
    docs/faults-families.md.
    """
    from ..faults.algorithms import FT_ALGORITHMS
    from ..faults.rules import default_ft_algorithm

    names = [default_ft_algorithm(family)]
    if family in PAPERS_BEST:
        names.append(PAPERS_BEST[family])
    if "detour" not in names and family in FT_ALGORITHMS.get("detour").families:
        # MiKANT: the generic per-hop rules on balanced (its fault-free routing), beside
        # 001's walks, which inherit Algorithm 1's bound near 1/k under load
        names.append("detour")
    if "updown-table" in FT_ALGORITHMS and family in FT_ALGORITHMS.get("updown-table").families:
        names.append("updown-table")
    return names + ["oracle"]


def fault_comparison(
    specs=DEFAULT_SPECS, rates="0:0.3:0.05", trials: int = 20_000, seed: int = 7, progress=None
):
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
    for ax, lab in (
        (ax1, "successful routing ratio"),
        (ax2, "average path length of successful routes (links)"),
    ):
        ax.set_xlabel("link fault rate (%)")
        ax.set_ylabel(lab)
        ax.grid(alpha=0.3)
    ax2.legend(fontsize=6, ncol=1)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    write_atomic(
        path,
        lambda fh: fig.savefig(fh, format=Path(path).suffix.lower().lstrip(".") or "png", dpi=120),
    )
    plt.close(fig)
    return path


def saturation_vs_faults(
    specs=DEFAULT_SPECS,
    rates=(0.0, 0.02, 0.05, 0.1),
    *,
    algorithms: dict | None = None,
    vcs: int = 2,
    warmup: int = 300,
    measure: int = 1000,
    fault_seed: int = 1,
    seed: int = 1,
    progress=None,
    workers: int = 0,
    keep: str | Path | None = None,
):
    """Accepted throughput at saturation against the link fault rate, per network and
    algorithm, with the channel-load bound of the surviving routes beside it.

    Each point simulates offered load 1 (every node always has a packet: the accepted
    rate is the saturation throughput) over a measurement window, routing hop by hop
    under one random fault set (``fault_seed``); ``vcs`` virtual channels layer the
    routes deadlock-free (a route needing more layers is refused: counted unroutable,
    like a disconnected pair). ``algorithms``: family -> names (default: the family's
    default local algorithm, ``detour`` where it is not the default, and
    ``updown-table`` where defined). ``workers`` > 1 runs the points in that many
    processes (the same frame). ``keep``: a folder where each point's row is kept as it
    is computed (:class:`PointFiles`); a later call with the same point, settings and
    version of the sources reads it instead of simulating again (the same frame), so an
    interrupted or repeated study loses nothing it computed.

    Returns a frame: ``topology``, ``family``, ``nodes``, ``algorithm``, ``role``,
    ``rate``, ``faulty_links``, ``accepted`` (flits/node/cycle), ``bound`` (the surviving
    routes' 1/γ_max under uniform traffic), ``unroutable_share`` (of packets created),
    ``deadlock``.

    Examples
    --------
    >>> df = saturation_vs_faults(("kant:k=2,n=3",), (0.0, 0.1), warmup=50, measure=200)
    >>> sorted(df["algorithm"].unique()), bool((df.accepted <= df.bound + 1e-9).all())
    (['detour', 'updown-table'], True)

    References
    ----------
    Dally & Towles §3.3 (channel-load bound); 000 §V.B (accepted throughput); docs/faults-families.md.
    """
    import pandas as pd

    from ..topology import resolve

    if not specs:
        raise ParameterError("specs=() is invalid: name at least one topology")
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 0:
        raise ParameterError(f"workers={workers!r} is invalid: an integer >= 0")
    points = []  # (spec, algorithm, rate), in the frame's order
    for spec in specs:
        fam = resolve(spec)[0].name  # validated here; each point's process builds it
        if algorithms and fam in algorithms:
            algs = list(algorithms[fam])
        else:
            algs = [
                a for a in comparison_algorithms(fam) if a != "oracle" and _role(a, fam) != "papers"
            ]
        points += [(spec, alg, float(rate)) for alg in algs for rate in rates]
    setting = dict(vcs=vcs, warmup=warmup, measure=measure, fault_seed=fault_seed, seed=seed)
    last = {spec: max(i for i, p in enumerate(points) if p[0] == spec) for spec in specs}
    files = PointFiles(keep, setting) if keep is not None else None
    kept = {p: files.read(p) for p in points} if files is not None else {}
    todo = [p for p in points if kept.get(p) is None]
    rows = []
    with _pool(workers) as pool:
        # every point is independent: the same rows in the same order with any workers
        fresh = iter(pool.map(_saturation_point, todo, [setting] * len(todo)))
        for i, point in enumerate(points):
            row = kept.get(point)
            if row is None:
                row = _plain(next(fresh))
                if files is not None:
                    files.write(point, row)
            rows.append(row)
            if progress is not None and i in last.values():
                progress(sum(1 for j in last.values() if j <= i), len(specs))
    return pd.DataFrame(rows)


def _plain(row: dict) -> dict:
    """A row's numpy scalars as Python's (a kept row reads back the same)."""
    return {k: v.item() if hasattr(v, "item") else v for k, v in row.items()}


class PointFiles:
    """The rows of :func:`saturation_vs_faults` kept in a folder, one JSON file a point.

    A file is named after a digest of the point (network, algorithm, fault rate), the
    simulation settings and the version of the sources that compute it (fattree's
    version, :func:`fattree.compiling.source_key` and this module's own source), so a
    row computed by other code or settings is never read back; a damaged file is
    computed again. Rows are written whole (:func:`fattree.fileio.write_atomic`).

    Examples
    --------
    >>> import tempfile
    >>> files = PointFiles(tempfile.mkdtemp(), {"vcs": 2})
    >>> files.read(("kant:k=2,n=2", "detour", 0.1)) is None
    True
    >>> files.write(("kant:k=2,n=2", "detour", 0.1), {"accepted": 0.25})
    >>> files.read(("kant:k=2,n=2", "detour", 0.1))
    {'accepted': 0.25}
    """

    def __init__(self, folder: str | Path, setting: dict) -> None:
        self.folder = Path(folder)
        self.setting = setting

    def path(self, point) -> Path:
        import hashlib
        import json

        h = hashlib.blake2b(digest_size=16)
        h.update(json.dumps([list(point), self.setting, _code_version()]).encode())
        return self.folder / f"{h.hexdigest()}.json"

    def read(self, point) -> dict | None:
        import json

        try:
            row = json.loads(self.path(point).read_text())
        except (OSError, ValueError):
            return None
        return row if isinstance(row, dict) else None

    def write(self, point, row: dict) -> None:
        import json

        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(row)
        write_atomic(self.path(point), lambda fh: fh.write(text), binary=False)


@functools.cache
def _code_version() -> str:
    """What a kept row depends on besides its point and settings: the sources of the
    kernels (:func:`fattree.compiling.source_key`), this module and the package version."""
    import hashlib

    from ..compiling import source_key
    from ..version import __version__

    here = hashlib.blake2b(Path(__file__).read_bytes(), digest_size=8).hexdigest()
    return f"{__version__}-{source_key()}-{here}"


@contextlib.contextmanager
def _pool(workers: int):
    """Worker processes for independent points (an in-process map with 0 or 1)."""
    if workers <= 1:
        yield types.SimpleNamespace(map=map)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield pool


@functools.lru_cache(maxsize=4)
def _built(spec: str):
    """A network built once per process, however many of its points the process runs."""
    from ..topology import build

    return build(spec)


def _saturation_point(point, setting) -> dict:
    """One point of :func:`saturation_vs_faults` (run in a worker process)."""
    from ..sim import simulate
    from ..sim.config import SimConfig
    from ..sim.engine import fault_tables, load_bound

    spec, alg, rate = point
    topo = _built(spec)
    cfg = SimConfig(
        load=1.0,
        fault_rate=rate,
        fault_seed=setting["fault_seed"],
        algorithm=alg,
        vcs=setting["vcs"],
        termination="window",
        warmup=setting["warmup"],
        measure=setting["measure"],
        seed=setting["seed"],
    )
    ft = fault_tables(topo, cfg)
    bound = load_bound(topo, "uniform", setting["seed"], ft=ft, vcs=setting["vcs"])
    r = simulate(topo, cfg, fault_table=ft)
    return dict(
        topology=topo.spec,
        family=topo.family,
        nodes=topo.n_nodes,
        algorithm=alg,
        role=_role(alg, topo.family),
        rate=rate,
        faulty_links=r.faulty_links,
        accepted=r.accepted_flits,
        bound=bound,
        unroutable_share=(r.unroutable + r.livelock) / max(r.created, 1),
        deadlock=r.deadlock,
    )


def plot_saturation_vs_faults(frame, path: str | Path, title: str = "") -> Path:
    """Accepted throughput at saturation (solid) and the surviving routes' channel-load
    bound (dotted) against the link fault rate, one colour per network and algorithm.

    References
    ----------
    Issue 11 ("The comparison").
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ParameterError(f"output={str(path)!r} is invalid: use a .png, .svg or .pdf file")
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for ci, ((spec, alg), g) in enumerate(frame.groupby(["topology", "algorithm"], sort=False)):
        ax.plot(g["rate"] * 100, g["accepted"], "-o", color=f"C{ci}", ms=3, label=f"{spec}: {alg}")
        ax.plot(g["rate"] * 100, g["bound"], ":", color=f"C{ci}")
    ax.set_xlabel("link fault rate (%)")
    ax.set_ylabel("accepted throughput at saturation (flits/node/cycle)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6)
    ax.set_title(
        title or "saturation throughput (solid) and channel-load bound (dotted)", fontsize=9
    )
    fig.tight_layout()
    write_atomic(
        path,
        lambda fh: fig.savefig(fh, format=Path(path).suffix.lower().lstrip(".") or "png", dpi=120),
    )
    plt.close(fig)
    return path
