"""Reproductions of the papers' tables and figures: the registry ``REPRODUCTIONS``.

Each entry regenerates one table or figure from this package's code and states,
beside it, what the paper claims (in words, as its text says) and whether our
result agrees, explaining disagreements (errata, model choices). ``reproduce`` writes
``<name>/`` with the figure (PNG), tables (CSV) and ``README.md``, plus an index.

Entries are added with the :func:`reproduction` decorator, one module per paper
(:mod:`.p000` ... :mod:`.p004`); an entry whose concern is not importable
(``requires``) is reported as unavailable, not as a failure. Simulation entries of
000 and 001 run a study through the sweep engine, into ``<out>/results``, so they
share and resume one results store. The analytic figures of
:mod:`fattree.report.figures_analytics` are adopted at import with the claims each
paper module lists in ``ANALYTIC_CLAIMS``.
"""

from __future__ import annotations

from ...fileio import write_atomic

import shutil
import traceback
from pathlib import Path

from ...errors import FattreeError

# the paper modules register their entries on import (order: the order of `all`)
from . import p000, p001, p002, p003, p004  # noqa: F401
from . import families  # noqa: F401,E402  (not a paper's figure; after the papers)
from .base import (
    REPRODUCTIONS,
    Context,
    Outcome,
    Reproduction,
    Result,
    _adopt_analytic_figures,
    _markdown_table,
    _slug,
    reproduction,
)
from .p000 import graph_properties  # public since the single module

__all__ = [
    "REPRODUCTIONS",
    "Context",
    "Outcome",
    "Reproduction",
    "Result",
    "reproduction",
    "run",
    "write",
    "reproduce",
    "graph_properties",
]


def run(name: str, ctx: Context) -> Result:
    """Run one reproduction (errors of the entry are caught into its Result)."""
    rep = REPRODUCTIONS.get(name)
    base = dict(name=rep.name, title=rep.title, paper=rep.paper, claim=rep.claim)
    why = rep.available()
    if why:
        return Result(**base, status="unavailable", finding=why)
    try:
        out = rep.make(ctx)
    except FattreeError as exc:
        return Result(**base, status="error", finding=str(exc))
    except Exception as exc:  # a bug in one entry must not stop `reproduce all`
        return Result(
            **base,
            status="error",
            finding=f"{type(exc).__name__}: {exc}\n" + traceback.format_exc(limit=3),
        )
    status = {True: "agree", False: "disagree", None: "no verdict"}[out.agree]
    caps = out.captions or [rep.title] * len(out.figures)
    return Result(
        **base,
        status=status,
        finding=out.finding,
        figures=out.figures,
        captions=caps,
        tables=out.tables,
    )


def write(result: Result, out: Path) -> Result:
    """Write a result's figures (PNG), tables (CSV) and README.md under ``out/<name>/``.

    The result's figures become the PNG files written, so that a report embeds those
    files instead of drawing each figure again."""
    d = Path(out) / result.name
    d.mkdir(parents=True, exist_ok=True)
    files = []
    for i, fig in enumerate(result.figures):
        p = d / (f"{result.name}.png" if len(result.figures) == 1 else f"{result.name}-{i + 1}.png")
        if isinstance(fig, Path):  # already drawn to a file
            if fig.resolve() != p.resolve():
                shutil.copyfile(fig, p)
        else:
            write_atomic(p, lambda fh, fig=fig: fig.savefig(fh, format="png", dpi=130))
        files.append(p)
    result.figures = list(files)
    for tname, df in result.tables.items():
        p = d / f"{_slug(tname)}.csv"
        write_atomic(p, lambda fh, df=df: df.to_csv(fh, index=False), binary=False)
        files.append(p)
    lines = [
        f"# {result.name}: {result.title}",
        "",
        f"Source: {result.paper}",
        "",
        "## What the paper claims",
        "",
        result.claim,
        "",
        f"## What we find: **{result.status}**",
        "",
        result.finding,
        "",
    ]
    for tname, df in result.tables.items():
        lines += [f"### {tname}", "", _markdown_table(df), ""]
    lines += [f"![{result.name}]({p.name})" for p in files if p.suffix == ".png"]
    readme = d / "README.md"
    write_atomic(readme, lambda fh: fh.write("\n".join(lines) + "\n"), binary=False)
    result.files = files + [readme]
    return result


def reproduce(
    names: str | list[str],
    out,
    *,
    workers: int = 2,
    scheduler: str | None = None,
    progress=None,
    quick: bool = False,
    on_result=None,
) -> list[Result]:
    """Run reproductions (``"all"``, one name or a list) and write them under ``out``.

    Writes ``out/<name>/`` per entry and ``out/index.md`` summarising the verdicts.

    Examples
    --------
    >>> import tempfile
    >>> [r.status for r in reproduce("000-table1", tempfile.mkdtemp(), quick=True)]
    ['disagree']
    """
    if isinstance(names, str):
        names = list(REPRODUCTIONS) if names == "all" else [n.strip() for n in names.split(",")]
    for n in names:
        REPRODUCTIONS.get(n)  # unknown names fail before anything runs
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ctx = Context(out=out, workers=workers, scheduler=scheduler, progress=progress, quick=quick)
    results = []
    for n in names:
        r = run(n, ctx)
        if r.status not in ("unavailable",):
            write(r, out)
        results.append(r)
        if on_result is not None:
            on_result(r)
    index = ["# Reproductions", "", "| name | paper | status | finding |", "|---|---|---|---|"]
    for r in results:
        first = r.finding.splitlines()[0] if r.finding else ""
        index.append(
            f"| [{r.name}]({r.name}/README.md) | {r.paper} | {r.status} | "
            f"{first.replace('|', '/')} |"
        )
    write_atomic(out / "index.md", lambda fh: fh.write("\n".join(index) + "\n"), binary=False)
    return results


_adopt_analytic_figures({**p000.ANALYTIC_CLAIMS, **p001.ANALYTIC_CLAIMS, **p004.ANALYTIC_CLAIMS})
