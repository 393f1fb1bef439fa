"""Run a study's points on Dask and store each one as soon as it finishes.

By default a ``LocalCluster`` of worker processes (one thread each) runs on this
machine; ``scheduler="tcp://host:8786"`` sends the same tasks to an existing
cluster (``dask scheduler`` / ``dask worker``, or dask-jobqueue: docs/sweeps.md).
``workers=0`` runs the points one after the other in this process (no Dask).

Only the client writes to the store, one atomic file per point, in the order the
points finish. A worker that dies mid-task is replaced by its nanny and the
scheduler runs the task again on a live worker (up to ``allowed_failures`` times);
task errors are recorded in ``errors/`` and the other points go on.
"""

from __future__ import annotations

import logging
import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import FattreeError, ParameterError
from .store import ResultStore
from .study import IDENTITY_KEYS, Point, Study
from .tasks import TASKS, execute


@dataclass(frozen=True)
class Progress:
    """One progress report: ``done`` of ``total`` points to run (skipped ones excluded)."""

    done: int
    total: int
    skipped: int
    config_hash: str | None = None
    ok: bool = True
    message: str = ""


@dataclass
class SweepSummary:
    """What a sweep did."""

    total: int
    skipped: int
    done: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    elapsed_s: float = 0.0
    workers: int = 0
    unavailable: list[str] = field(default_factory=list)
    #: (file, reason) of damaged files moved to ``quarantine/``; their points ran again
    quarantined: list[tuple[str, str]] = field(default_factory=list)


def point_row(study: str, point: Point, outcome: dict) -> tuple[dict, list[str], list[str]]:
    """The stored row of a finished point and the names of its config and metric columns.

    Multi-valued parameters are stored as JSON text; a metric whose name collides with
    a configuration column is stored as ``result_<name>``.
    """
    from .study import canonical_json

    row: dict = {"config_hash": point.config_hash, "study": study, "experiment": point.experiment}
    config_cols = list(IDENTITY_KEYS[:1]) + list(point.params) + list(IDENTITY_KEYS[1:])
    for key in config_cols:
        v = point.config[key]
        row[key] = canonical_json(v) if isinstance(v, (list, dict)) else v
    for key, v in point.columns.items():
        if key not in row:
            row[key] = v
            config_cols.append(key)
    row["seed"] = point.seed
    metric_cols = []
    for key, v in outcome["metrics"].items():
        name = key if key not in row else f"result_{key}"
        row[name] = v
        metric_cols.append(name)
    from ..version import __version__

    row.update(
        {
            "fattree_version": __version__,
            "started_at": outcome["started_at"],
            "finished_at": outcome["finished_at"],
            "elapsed_s": outcome["elapsed_s"],
            "host": outcome["host"],
            "pid": outcome["pid"],
            "config": canonical_json(point.config),
        }
    )
    return row, config_cols, metric_cols


def run_study(
    study: Study,
    out,
    *,
    scheduler: str | None = None,
    workers: int = 2,
    threads_per_worker: int = 1,
    progress: Callable[[Progress], None] | None = None,
    connect_timeout: float = 5.0,
    allowed_failures: int = 3,
    retries: int = 0,
    compact_at: int = 256,
    client=None,
    skip_unavailable: bool = False,
) -> SweepSummary:
    """Run every point of ``study`` not yet in the results folder ``out``.

    Parameters
    ----------
    study : Study
        From :func:`fattree.sweep.study.load_study`.
    out : path
        Results folder (created if new; must be a results folder if it exists).
    scheduler : str, optional
        Address of an existing Dask scheduler (``tcp://host:8786``); unreachable within
        ``connect_timeout`` seconds raises ``ParameterError``.
    workers : int
        Worker processes of the local cluster (ignored with ``scheduler``); ``0`` runs
        the points serially in this process.
    progress : callable, optional
        Called with a :class:`Progress` at the start and after every point.
    allowed_failures : int
        How many worker deaths a point may cause before it is reported as failed
        (Dask's ``distributed.scheduler.allowed-failures``, local cluster only).
    retries : int
        Re-runs of a point whose task raised an unexpected exception.
    client : distributed.Client, optional
        Use this client (its cluster) instead of creating one.
    skip_unavailable : bool
        Skip experiments whose kind cannot run in this build (listed in the summary)
        instead of raising ``ParameterError``.

    Returns
    -------
    SweepSummary

    Examples
    --------
    >>> import tempfile
    >>> from fattree.sweep.study import parse_study
    >>> s = parse_study('[study]\\nkind = "topology"\\n[parameters]\\n'
    ...                 'topology = ["kant:k=2,n=2", "kant:k=2,n=3"]\\ndistances = "none"\\n')
    >>> d = tempfile.mkdtemp()
    >>> r = run_study(s, d, workers=0)
    >>> (r.done, r.skipped), run_study(s, d, workers=0).skipped
    ((2, 0), 2)

    References
    ----------
    Issue 7; docs/sweeps.md.
    """
    top = max(4, 4 * (os.cpu_count() or 1))
    if isinstance(workers, bool) or not isinstance(workers, int) or not 0 <= workers <= top:
        raise ParameterError(
            f"workers={workers!r} is invalid: an integer from 0 (in-process) to "
            f"{top} (4 per core of this machine; a scheduler for a cluster)"
        )
    if (
        isinstance(connect_timeout, bool)
        or not isinstance(connect_timeout, (int, float))
        or not 0 < connect_timeout < float("inf")
    ):
        raise ParameterError(
            f"connect_timeout={connect_timeout!r} is invalid: expected a finite "
            "number of seconds > 0"
        )
    t0 = time.perf_counter()
    kinds = {e.kind for e in study.experiments}
    unavailable = sorted(why for k in kinds if (why := TASKS.get(k).available()))
    if unavailable and not skip_unavailable:
        raise ParameterError("; ".join(unavailable))
    own = None
    if scheduler is not None and client is None:
        # reach the cluster before touching the results folder: a bad address changes nothing
        client = own = connect(scheduler, connect_timeout)
    try:
        return _run(
            study,
            out,
            t0,
            workers,
            threads_per_worker,
            progress,
            allowed_failures,
            retries,
            compact_at,
            client,
            unavailable,
        )
    finally:
        if own is not None:
            own.close()


def _run(
    study,
    out,
    t0,
    workers,
    threads_per_worker,
    progress,
    allowed_failures,
    retries,
    compact_at,
    client,
    unavailable,
) -> SweepSummary:
    store = ResultStore(out, create=True)
    previous = store.manifest.get("written_by")
    with store.lock():
        store.record_study(study.name, study.source, study.source_hash, study.report)
        points = study.points()
        quarantined = store.verify()  # damaged files move aside: their points run again
        if quarantined:
            import warnings

            from ..errors import DamagedDataWarning

            warnings.warn(
                f"{store.path}: {len(quarantined)} damaged or missing file"
                f"{'s' if len(quarantined) > 1 else ''} (damaged ones moved to quarantine/) "
                f"({quarantined[0][0]}: {quarantined[0][1]}"
                f"{', ...' if len(quarantined) > 1 else ''}); recomputing "
                f"{'their' if len(quarantined) > 1 else 'its'} points",
                DamagedDataWarning,
                stacklevel=3,
            )
        done = store.finished()
        todo = [
            p for p in points if p.config_hash not in done and TASKS.get(p.kind).available() is None
        ]
        skipped = sum(p.config_hash in done for p in points)
        from ..version import __version__

        if skipped and previous != __version__:
            import warnings

            from ..errors import StaleResultsWarning

            warnings.warn(
                f"{store.path}: {skipped} point{'s' if skipped > 1 else ''} already "
                f"stored by fattree {previous} {'are' if skipped > 1 else 'is'} reused "
                f"by fattree {__version__}; defaults (e.g. routing) may differ between "
                "versions: give a new folder to recompute",
                StaleResultsWarning,
                stacklevel=3,
            )
        summary = SweepSummary(
            total=len(todo), skipped=skipped, unavailable=unavailable, quarantined=quarantined
        )
        report = progress or (lambda _p: None)
        report(Progress(0, len(todo), skipped))
        try:
            if todo:
                runner = _run_serial if (workers == 0 and client is None) else _run_dask
                runner(
                    study,
                    todo,
                    store,
                    summary,
                    report,
                    workers=workers,
                    threads_per_worker=threads_per_worker,
                    allowed_failures=allowed_failures,
                    retries=retries,
                    client=client,
                )
        except BaseException as exc:  # Ctrl-C, SIGTERM: say what was kept
            try:
                store.flush()  # best effort: the log alone already holds the checksums
            except OSError:
                pass
            exc.sweep_summary = summary  # the CLI words the message from it
            raise
        if len(list(store.parts.glob("*.parquet"))) >= compact_at:
            store.compact()
        store.flush()  # the points' checksums, folded into manifest.json
    summary.elapsed_s = time.perf_counter() - t0
    return summary


def _finish(study, point, outcome, store, summary, report) -> None:
    row, cc, mc = point_row(study.name, point, outcome)
    store.write_row(row, config_columns=cc, metric_columns=mc)
    summary.done += 1
    report(
        Progress(
            summary.done + len(summary.failed),
            summary.total,
            summary.skipped,
            point.config_hash,
            True,
        )
    )


def _fail(study, point, exc, store, summary, report) -> None:
    msg = f"{type(exc).__name__}: {exc}" if not isinstance(exc, FattreeError) else str(exc)
    store.write_error(
        point.config_hash,
        {
            "config_hash": point.config_hash,
            "study": study.name,
            "experiment": point.experiment,
            "config": point.config,
            "seed": point.seed,
            "error": msg,
            "traceback": "".join(traceback.format_exception(exc)) if exc.__traceback__ else "",
        },
    )
    summary.failed.append((point.config_hash, msg))
    report(
        Progress(
            summary.done + len(summary.failed),
            summary.total,
            summary.skipped,
            point.config_hash,
            False,
            msg,
        )
    )


def _interrupted(exc: BaseException) -> bool:
    """An interrupt (Ctrl-C, or SIGTERM made one by the CLI) that arrived inside compiled
    code surfaces as another exception (numba: ``SystemError ... with an exception set``)
    whose cause is the ``KeyboardInterrupt``: it stops the sweep, it is not a failed point."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _run_serial(study, todo, store, summary, report, **_):
    from .interrupts import point_in_progress

    summary.workers = 0
    for p in todo:
        with point_in_progress():  # an interrupt waits until this point is stored
            try:
                outcome = execute(p.kind, p.params, p.seed)
            except Exception as exc:  # recorded per point; the sweep goes on
                if _interrupted(exc):
                    raise KeyboardInterrupt from exc
                _fail(study, p, exc, store, summary, report)
            else:
                _finish(study, p, outcome, store, summary, report)


def check_scheduler(scheduler) -> str:
    """Refuse a scheduler address that is not a non-empty string (before any work)."""
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ParameterError(
            f"scheduler={scheduler!r} is invalid: expected an address like tcp://host:8786"
        )
    return scheduler


def connect(scheduler: str, timeout: float = 5.0):
    """A ``distributed.Client`` for an existing scheduler, or a clear error within ``timeout``."""
    from distributed import Client

    check_scheduler(scheduler)
    try:
        return Client(scheduler, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError, MemoryError) as exc:
        # MemoryError: something that is not a Dask scheduler answered with garbage
        raise ParameterError(
            f"scheduler={scheduler!r} is unreachable: {type(exc).__name__}: "
            f"{str(exc)[:200]} (is `dask scheduler` running there?)"
        ) from None


def _run_dask(
    study,
    todo,
    store,
    summary,
    report,
    *,
    workers,
    threads_per_worker,
    allowed_failures,
    retries,
    client,
):
    import dask
    from distributed import LocalCluster, as_completed

    cluster = None
    own_client = client is None
    if client is None:
        with dask.config.set({"distributed.scheduler.allowed-failures": allowed_failures}):
            cluster = LocalCluster(
                n_workers=max(workers, 1),
                threads_per_worker=threads_per_worker,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            )
        from distributed import Client

        client = Client(cluster, set_as_default=False)
        # Ctrl-C reaches the whole process group: the sweep (this process) stops and says
        # what was kept; its own workers ignore it (no traceback from each of them) and
        # are shut down with the cluster
        from ._workerplugin import IgnoreInterrupt

        client.register_plugin(IgnoreInterrupt(), name="fattree-ignore-sigint")
    try:
        nthreads = sum(client.nthreads().values()) or 1
        summary.workers = len(client.nthreads())
        # a bounded window keeps the scheduler's and client's memory flat on big studies
        window = max(256, 4 * nthreads)
        pending = iter(todo)
        by_key = {}

        def submit(p: Point):
            fut = client.submit(
                execute,
                p.kind,
                p.params,
                p.seed,
                pure=False,
                key=f"fattree-point-{p.config_hash}",
                retries=retries,
            )
            by_key[fut.key] = p
            return fut

        ac = as_completed([submit(p) for p in _take(pending, window)], loop=client.loop)
        for fut in ac:
            p = by_key.pop(fut.key)
            try:
                outcome = fut.result()
            except Exception as exc:  # task error or KilledWorker after allowed failures
                _fail(study, p, exc, store, summary, report)
            else:
                _finish(study, p, outcome, store, summary, report)
            fut.release()
            nxt = next(pending, None)
            if nxt is not None:
                ac.add(submit(nxt))
    finally:
        if own_client:
            client.close()
        if cluster is not None:
            cluster.close()


def _take(it, n):
    for _ in range(n):
        x = next(it, None)
        if x is None:
            return
        yield x
