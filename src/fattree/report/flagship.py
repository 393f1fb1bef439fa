"""Run a shipped study end to end: sweep, reproductions, HTML report (``fattree study``).

``make run`` is ``fattree study flagship -o out``: the sweep goes to ``out/results``
(resumable), the reproductions named in the study's ``[report]`` section to
``out/reproduce/``, and everything to ``out/report.html``. Experiments whose task kind
cannot run here (its ``available()`` says why) are skipped with a note in the report
rather than failing the whole study.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..sweep.engine import SweepSummary, run_study
from ..sweep.study import builtin_study


@dataclass
class ShippedRun:
    summary: SweepSummary
    report: Path
    reproductions: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def _verdict(name: str, results) -> list:
    """Findings in words of studies that register one (``sweep.verdicts.VERDICTS``)."""
    from ..sweep.store import ResultStore
    from ..sweep.verdicts import VERDICTS

    if name not in VERDICTS:
        return []
    return list(VERDICTS.get(name)(ResultStore(results).read()))


def run_shipped(
    name: str,
    out,
    *,
    workers: int = 2,
    scheduler: str | None = None,
    progress=None,
    on_stage=None,
    level: str | None = None,
) -> ShippedRun:
    """Run shipped study ``name`` into ``out`` and write ``out/report.html``.

    ``level`` (a registered simulation level, ``fattree.sweep.levels.LEVELS``) replaces the
    level of the study's workload experiments.

    References
    ----------
    docs/sweeps.md (shipped studies); 000 §V.B, 001 §5.
    """
    from . import reproduce as R
    from .html import write_report

    stage = on_stage or (lambda _msg: None)
    study = builtin_study(name)
    if level is not None:
        study = study.with_value("level", level)
    out = Path(out)
    stage(f"sweep {study.name}: {len(study.points())} points → {out / 'results'}")
    summary = run_study(
        study,
        out / "results",
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        skip_unavailable=True,
    )
    verdict = _verdict(study.name, out / "results")
    notes = list(verdict)
    notes += [f"not run: {why}" for why in summary.unavailable]
    notes += [f"point {h[:12]} failed: {msg}" for h, msg in summary.failed]
    results = []
    from ..sweep.study import builtin_studies

    ctx = R.Context(
        out=out,
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        study=study.name,
        quick=name.endswith("-quick"),
        reduced=f"{name}-full" in builtin_studies(),
    )
    for rname in study.report.get("reproduce", []):
        if rname not in R.REPRODUCTIONS:
            notes.append(f"reproduction {rname} is not registered in this build")
            continue
        stage(f"reproduce {rname}")
        r = R.run(rname, ctx)
        if r.status != "unavailable":
            R.write(r, out / "reproduce")
        else:
            notes.append(f"reproduction {rname} unavailable: {r.finding}")
        results.append(r)
    report = write_report(
        out / "results",
        out / "report.html",
        reproductions=results,
        notes=notes[len(verdict) :],
        verdict=verdict or None,
    )
    return ShippedRun(summary, report, results, notes)
