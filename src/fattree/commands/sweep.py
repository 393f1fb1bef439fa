"""CLI: sweep, results, report, reproduce, study, and the result plots under ``plot``."""

from __future__ import annotations

from ..fileio import write_atomic

from contextlib import contextmanager
from pathlib import Path

import typer
from rich.table import Table

from ._common import check_number, check_output, check_workers, console, err_console


class _Bar:
    """A rich progress bar on stderr, shown only once there is something to run; without a
    terminal, a progress line at least every 30 s instead (:class:`._common.ProgressLog`).

    Used as the ``progress`` callback of the sweep engine (and as a context manager,
    which stops the bar if it was started).
    """

    def __init__(self, label: str, quiet: bool, intro: str | None = None) -> None:
        self.label = label
        self.quiet = quiet
        self.intro = intro  # printed once the work starts (an error before it stays alone)
        self.bar = None
        self.task = None
        self.log = None

    def _start(self) -> None:
        if self.intro is not None and not self.quiet:
            err_console.print(self.intro, highlight=False, markup=False, soft_wrap=True)
        self.intro = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        if self.log is not None:
            self.log.stop()

    def print(self, msg: str) -> None:
        """Print a stage's line (e.g. "reproduce 000-fig9"); without a terminal, the progress
        lines then follow that stage until it counts its own points."""
        if self.quiet:
            return
        self._start()
        (self.bar.console if self.bar is not None else err_console).print(msg)
        if not err_console.is_terminal and self.log is not None:
            from ._common import ProgressLog

            self.log.stop()
            self.log = ProgressLog(f"{self.label}: {msg}").start()

    def __call__(self, p) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._start()
        if p.done and not p.ok:
            err_console.print(f"[red]point {p.config_hash[:12]} failed:[/red] {p.message}")
        if self.quiet or (p.total == 0 and self.bar is None and self.log is None):
            return
        if not err_console.is_terminal:
            from ._common import ProgressLog

            if p.done == 0 and p.total:  # a new stage: its own count and clock
                if self.log is not None:
                    self.log.stop()
                self.log = ProgressLog(self.label, p.total, "points").start()
            if self.log is not None:
                self.log.update(p.done, p.total)
            return
        if self.bar is None:
            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[status]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=err_console,
            )
            self.bar.start()
        if p.done == 0 and p.total:  # a new stage (e.g. a reproduction's own sweep)
            self.task = self.bar.add_task(
                self.label, total=p.total, status=f"skipped {p.skipped}" if p.skipped else ""
            )
        if self.task is not None:
            self.bar.update(self.task, completed=p.done)


def estimate_line(st, reproductions: int = 0) -> str:
    """What a study will run and how long that is expected to take, printed before it starts:
    its points (and reproductions) and the wall time a fresh run took on a 2-core machine
    when the study states it (``[study] estimated_minutes``), else "unknown"; once points
    finish, the progress estimates the time left from the points done.

    Examples
    --------
    >>> from fattree.sweep.study import builtin_study
    >>> estimate_line(builtin_study("flagship-full"), 12)
    'flagship-full: 355 points and 12 reproductions; estimated run time about 9 min on 2 cores'
    """
    n = len(st.points())
    what = f"{n:,} point{'s' * (n != 1)}"
    if reproductions:
        what += f" and {reproductions} reproduction{'s' * (reproductions != 1)}"
    if st.estimated_minutes:
        when = f"about {st.estimated_minutes} min on 2 cores"
    else:
        when = "unknown (the progress estimates the time left as points finish)"
    return f"{st.name}: {what}; estimated run time {when}"


def _summary_line(summary, out) -> str:
    parts = [f"{summary.done} points stored", f"{summary.skipped} already done"]
    if summary.failed:
        parts.append(f"{len(summary.failed)} failed")
    if getattr(summary, "quarantined", None):
        parts.append(f"{len(summary.quarantined)} damaged moved to quarantine/ and recomputed")
    return f"{', '.join(parts)} in {summary.elapsed_s:.1f} s → {out}"


@contextmanager
def _interruptible(out, resume: str):
    """SIGTERM stops like Ctrl-C; the first of either lets the point in progress finish
    and be stored, then prints one line saying how many points were kept in ``out`` and
    how to resume, and exits with 130 (the points stored are whole: each is written
    atomically and recorded before the next)."""
    from ..sweep.interrupts import stop_between_points

    try:
        with stop_between_points():
            yield
    except KeyboardInterrupt as exc:
        summary = getattr(exc, "sweep_summary", None)
        this_run = f"{summary.done} points of this run stored, " if summary is not None else ""
        try:
            from ..sweep.store import ResultStore

            held = f"{len(ResultStore(out).finished())} in all"
        except Exception:  # the folder was not created yet
            held = "nothing stored yet"
        err_console.print(
            f"interrupted: {this_run}{held} in {out}; run `{resume}` again to resume "
            "(stored points are skipped, nothing is computed twice)"
        )
        raise typer.Exit(130) from None


def sweep(
    study: Path = typer.Argument(..., help="study file (TOML; see docs/sweeps.md)"),
    out: Path = typer.Option(..., "-o", "--out", help="results folder (created or resumed)"),
    scheduler: str | None = typer.Option(
        None, "--scheduler", help="existing Dask scheduler, e.g. tcp://head:8786"
    ),
    workers: int = typer.Option(2, "--workers", help="local worker processes (0: in-process)"),
    connect_timeout: float = typer.Option(
        5.0, "--connect-timeout", help="seconds to reach --scheduler"
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
) -> None:
    """Run every point of a study not yet stored in OUT (resumable; one row per point)."""
    from ..errors import SimulationError
    from ..sweep.engine import run_study
    from ..sweep.study import load_study

    check_workers(workers)
    check_number(connect_timeout, "connect_timeout", low=0, low_open=True)
    check_output(out, "out", folder=True)
    st = load_study(study)
    _check_reproduce(st)
    with (
        _interruptible(out, f"fattree sweep {study} -o {out}"),
        _Bar(st.name, quiet, intro=estimate_line(st)) as bar,
    ):
        summary = run_study(
            st,
            out,
            scheduler=scheduler,
            workers=workers,
            progress=bar,
            connect_timeout=connect_timeout,
            skip_unavailable=False,
        )
    console.print(_summary_line(summary, out))
    if summary.failed:
        raise SimulationError(
            f"{len(summary.failed)} of {summary.total} points failed (details in "
            f"{out / 'errors'}); first: {summary.failed[0][1]}"
        )


def _check_reproduce(st) -> None:
    """Refuse an unknown name in the study's ``[report] reproduce`` (one line, before any
    work): it would be skipped with a note only when the report is written."""
    from ..errors import UnknownNameError, closest
    from ..report.reproduce import REPRODUCTIONS

    for name in st.report.get("reproduce", []):
        if name not in REPRODUCTIONS:
            raise UnknownNameError(
                f"study {st.name!r}: [report] reproduce names {name!r}, not a reproduction"
                f"{closest(name, REPRODUCTIONS.names())}; valid: "
                f"{', '.join(REPRODUCTIONS.names())}"
            )


def results(
    folder: Path = typer.Argument(..., help="results folder"),
    where: str | None = typer.Option(None, "--where", help="filter, e.g. \"family='mikant'\""),
    csv: Path | None = typer.Option(None, "--csv", help="write the rows as CSV"),
    columns: str | None = typer.Option(None, "--columns", help="comma-separated columns"),
    limit: int = typer.Option(40, "--limit", help="rows printed (the CSV has all; 0: all)"),
    as_json: bool = typer.Option(False, "--json", help="print the rows as JSON"),
) -> None:
    """Query the points stored in a results folder."""
    from ..errors import ParameterError, closest
    from ..sweep.store import ResultStore

    check_output(csv, "csv")
    if isinstance(limit, bool) or not 0 <= limit <= 10**9:
        raise ParameterError(
            f"limit={limit!r} is invalid: rows printed, an integer from 0 (all) to 1,000,000,000"
        )
    df = ResultStore(folder).read(where)
    limit = limit or len(df)
    if columns:
        cols = [c.strip() for c in columns.split(",") if c.strip()]
        for c in cols:
            if c not in df.columns:
                raise ParameterError(
                    f"columns: {c!r} is not a column{closest(c, df.columns)}; "
                    f"columns: {', '.join(map(str, df.columns))}"
                )
    else:
        # the topology and the configuration columns that vary, then the kinds' headline
        # metrics (all metrics go to --csv)
        from ..sweep.tasks import TASKS

        kinds = [k for k in df["kind"].dropna().unique() if k in TASKS] if "kind" in df else []
        derived = set()  # family, k, n...: already readable in the topology spec
        for k in kinds:
            t = TASKS.get(k)
            first = df[df["kind"] == k].iloc[0]
            if t.columns is not None and "topology" in df:
                derived |= set(t.columns({"topology": first["topology"]}))
        config = [
            c
            for c in df.attrs.get("config_columns", [])
            if c in df.columns
            and c not in derived
            and df[c].notna().any()
            and (c == "topology" or df[c].astype(str).nunique() > 1)
        ]
        head = [m for k in kinds for m in TASKS.get(k).headline if m in df.columns]
        metrics = [c for c in df.attrs.get("metric_columns", []) if c in df.columns]
        several = "experiment" in df and df["experiment"].nunique() > 1
        cols = (
            list(
                dict.fromkeys(
                    [*(["experiment"] if several else []), *config, *(head or metrics[:8])]
                )
            )
            if len(df)
            else ["config_hash"]
        )
        if len(metrics) > len(head) and csv is None and not as_json and len(df):
            console.print(
                f"({len(metrics) - len(head)} more metric columns: --columns to "
                "choose, --csv for all)"
            )
    if csv is not None:
        out = df.drop(columns=[c for c in ("config",) if c in df and not columns])
        write_atomic(
            csv,
            lambda fh: out.to_csv(fh, index=False, columns=cols if columns else None),
            binary=False,
            what="csv",
        )
        console.print(f"{len(df)} rows written to {csv}")
        return
    if as_json:
        from ._common import print_json

        keep = cols if columns else [c for c in df.columns if c != "config"]
        print_json(
            [
                {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
                for row in df[keep].to_dict("records")
            ]
        )
        return
    # a heading line, not the table's title: a title wraps to the table's width, and a long
    # folder path then breaks across lines
    console.print(
        f"{folder}: {len(df)} points" + (f" where {where}" if where else ""),
        markup=False,
        highlight=False,
    )
    table = Table()
    for c in cols:
        table.add_column(c, overflow="fold")
    for rec in df[cols].head(limit).itertuples(index=False):
        table.add_row(*(f"{v:.4g}" if isinstance(v, float) else str(v) for v in rec))
    console.print(table)
    if len(df) > limit:
        console.print(f"... {len(df) - limit} more rows (--limit, or --csv for all)")


def report(
    folder: Path = typer.Argument(..., help="results folder"),
    output: Path = typer.Option(..., "-o", "--output", help="HTML file to write"),
    title: str | None = typer.Option(None, "--title"),
    logy: bool | None = typer.Option(
        None, "--logy/--linear-y", help="latency axis scale (default: both)"
    ),
) -> None:
    """Write one self-contained HTML report (configurations, tables, figures)."""
    from ..report.html import write_report

    from ..sweep.store import ResultStore

    check_output(output, "output", suffixes=(".html", ".htm"))
    ResultStore(folder)  # a missing or foreign folder is refused before anything is written
    p = write_report(folder, output, title=title, logy=logy)
    console.print(f"report written to {p} ({p.stat().st_size / 1024:.0f} KiB)")


def _status_table(results) -> Table:
    table = Table(title="reproductions")
    for c in ("name", "paper", "status", "finding"):
        table.add_column(c, overflow="fold")
    colour = {"agree": "green", "disagree": "red", "error": "red", "unavailable": "yellow"}
    for r in results:
        first = r.finding.splitlines()[0] if r.finding else ""
        table.add_row(
            r.name, r.paper, f"[{colour.get(r.status, 'white')}]{r.status}[/]", first[:160]
        )
    return table


def reproduce(
    name: str | None = typer.Argument(
        None, help="e.g. 000-table1, 000-fig9, or 'all' (see --list)"
    ),
    out: Path = typer.Option(Path("reproduce"), "-o", "--out", help="output folder"),
    workers: int = typer.Option(2, "--workers", help="local worker processes for simulations"),
    scheduler: str | None = typer.Option(None, "--scheduler", help="existing Dask scheduler"),
    quick: bool = typer.Option(False, "--quick", help="small instances (smoke test)"),
    list_: bool = typer.Option(False, "--list", help="list the registered reproductions"),
    as_json: bool = typer.Option(False, "--json", help="print the list or the verdicts as JSON"),
) -> None:
    """Regenerate tables and figures of the papers, with the paper's claim and our verdict."""
    from ..errors import FattreeError
    from ..report.reproduce import REPRODUCTIONS
    from ..report.reproduce import reproduce as run

    if list_ and as_json:
        from ._common import print_json

        print_json(
            [
                {"name": n, "paper": r.paper, "title": r.title, "available": r.available() or "yes"}
                for n, r in REPRODUCTIONS.items()
            ]
        )
        return
    if list_:
        table = Table(title="reproductions")
        for c in ("name", "paper", "title", "available"):
            table.add_column(c, overflow="fold")
        for n, r in REPRODUCTIONS.items():
            table.add_row(n, r.paper, r.title, r.available() or "yes")
        console.print(table)
        return
    if name is None or not name.strip():
        from ..errors import ParameterError

        raise ParameterError(
            f"name={name!r} is invalid: give a reproduction, e.g. 000-table1, "
            "or 'all' (fattree reproduce --list)"
        )
    check_workers(workers)
    if scheduler is not None:  # a malformed address fails before anything runs
        from ..sweep.engine import check_scheduler

        check_scheduler(scheduler)
    check_output(out, "out", folder=True)
    if name != "all":
        for n in name.split(","):
            REPRODUCTIONS.get(n.strip())  # unknown names: one-line error before anything runs
    with _Bar("sweep", quiet=as_json) as bar:
        res = run(
            name,
            out,
            workers=workers,
            scheduler=scheduler,
            quick=quick,
            progress=bar,
            on_result=lambda r: bar.print(f"{r.name}: {r.status}"),
        )
    if as_json:
        from ._common import print_json

        print_json(
            [
                {"name": r.name, "paper": r.paper, "status": r.status, "finding": r.finding}
                for r in res
            ]
        )
    else:
        console.print(_status_table(res))
    (err_console if as_json else console).print(f"written to {out}/ (index.md)")
    errors = [r for r in res if r.status == "error"]
    if errors:
        raise FattreeError(
            f"{len(errors)} reproduction(s) failed: {errors[0].name}: "
            f"{errors[0].finding.splitlines()[0]}"
        )


def study(
    name: str = typer.Argument("flagship", help="a shipped study (see --list)"),
    full: bool = typer.Option(
        False,
        "--full",
        help="the papers' full scale (study NAME-full, e.g. flagship-full; OUT defaults to out-full)",
    ),
    out: Path | None = typer.Option(None, "-o", "--out", help="output folder (default: out)"),
    workers: int = typer.Option(2, "--workers", help="local worker processes"),
    scheduler: str | None = typer.Option(None, "--scheduler", help="existing Dask scheduler"),
    list_: bool = typer.Option(False, "--list", help="list the shipped studies"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bars"),
    as_json: bool = typer.Option(False, "--json", help="print the list or the outcome as JSON"),
    level: str | None = typer.Option(
        None,
        "--level",
        help="simulation level of a workload study (collectives): flow (its default) or "
        "another registered level",
    ),
) -> None:
    """Run a shipped study and write OUT/report.html (make run: the flagship)."""
    from ..report.flagship import run_shipped
    from ..sweep.study import builtin_studies, builtin_study

    if list_:
        if as_json:
            from ._common import print_json

            print_json(
                [
                    {"name": n, "description": builtin_study(n).description}
                    for n in builtin_studies()
                ]
            )
            return
        for n in builtin_studies():
            console.print(f"{n}: {builtin_study(n).description}")
        return
    if full and not name.endswith("-full"):
        if f"{name}-full" not in builtin_studies():
            from ..errors import ParameterError

            builtin_study(name)  # an unknown name: its own error first
            have = [n[: -len("-full")] for n in builtin_studies() if n.endswith("-full")]
            raise ParameterError(
                f"full=True is invalid for study {name!r}: it has no full-scale version "
                f"({name}-full); studies with one: {', '.join(have) or 'none'}"
            )
        name = f"{name}-full"
    st = builtin_study(name)  # an unknown name fails before anything runs
    if level is not None:  # a level not registered, or a study without workloads: refused now
        from ..sweep.levels import check_level

        st = st.with_value("level", check_level(level))
    out = Path("out-full" if full else "out") if out is None else out
    check_workers(workers)
    if scheduler is not None:  # a malformed address fails before anything runs
        from ..sweep.engine import check_scheduler

        check_scheduler(scheduler)
    check_output(out, "out", folder=True)
    _check_reproduce(st)
    intro = estimate_line(st, len(st.report.get("reproduce", [])))
    with (
        _interruptible(out / "results", f"fattree study {name} -o {out}"),
        _Bar(name, quiet or as_json, intro=intro) as bar,
    ):
        res = run_shipped(
            name,
            out,
            workers=workers,
            scheduler=scheduler,
            progress=bar,
            on_stage=bar.print,
            level=level,
        )
    if as_json:
        from ._common import print_json

        s = res.summary
        print_json(
            {
                "results": str(out / "results"),
                "report": str(res.report),
                "stored": s.done,
                "already_done": s.skipped,
                "failed": len(s.failed),
                "reproductions": [
                    {"name": r.name, "paper": r.paper, "status": r.status, "finding": r.finding}
                    for r in res.reproductions or []
                ],
                "notes": list(res.notes),
            }
        )
        return
    console.print(_summary_line(res.summary, out / "results"))
    if res.reproductions:
        console.print(_status_table(res.reproductions))
    for note in res.notes:
        console.print(f"[yellow]note:[/yellow] {note}")
    console.print(f"report written to {res.report}")


def _plot_command(plot_name: str):
    def command(
        folder: Path = typer.Argument(..., help="results folder"),
        output: Path = typer.Option(..., "-o", "--output", help="figure file (.png/.svg/.pdf)"),
        logy: bool = typer.Option(False, "--logy", help="logarithmic y axis"),
        where: str | None = typer.Option(None, "--where", help="filter the rows first"),
        series: str | None = typer.Option(None, "--series", help="columns that make one line each"),
    ) -> None:
        from ..report.plots import draw, save
        from ..sweep.store import ResultStore

        check_output(output, "output", suffixes=(".png", ".svg", ".pdf"))
        df = ResultStore(folder).read(where)
        cols = [c.strip() for c in series.split(",")] if series else None
        fig = draw(df, plot_name, logy=logy or None, series=cols)
        console.print(f"figure written to {save(fig, output)}")

    from ..report.plots import PLOTS

    command.__doc__ = f"Plot {PLOTS.get(plot_name).title} from a results folder."
    return command


def register(app: typer.Typer) -> None:
    from ..report.plots import PLOTS

    app.command("sweep")(sweep)
    app.command("results")(results)
    app.command("report")(report)
    app.command("reproduce")(reproduce)
    app.command("study")(study)
    from .analytics import plot_app as plot  # ``plot``: analytic figures and these

    taken = {c.name for c in plot.registered_commands}
    for name in PLOTS:
        cli_name = name.replace("_", "-")
        if cli_name not in taken:
            plot.command(cli_name)(_plot_command(name))
