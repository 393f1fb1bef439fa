"""The reproduction registry ``REPRODUCTIONS``, its records and the :func:`reproduction`
decorator; the paper modules (:mod:`.p000` ... :mod:`.p004`) import this module and register
into it, and the package ``__init__`` imports them (the registration module).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...registry import Registry

__all__ = ["Outcome", "Reproduction", "Context", "Result", "REPRODUCTIONS", "reproduction"]


@dataclass
class Outcome:
    """What a reproduction found: a verdict, in words, and its figures and tables.

    ``agree`` is True/False, or None when the claim cannot be judged from our result.
    ``figures`` holds matplotlib Figures or paths of PNG files already drawn.
    """

    agree: bool | None
    finding: str
    figures: list = field(default_factory=list)
    captions: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Reproduction:
    """A registered table or figure of a paper."""

    name: str
    title: str
    paper: str
    claim: str
    make: Callable[[Context], Outcome]
    requires: tuple[str, ...] = ()
    slow: bool = False

    def available(self) -> str | None:
        from ...sweep.tasks import missing

        why = missing(self.requires)
        return f"needs {why}" if why else None


@dataclass
class Context:
    """Where and how reproductions run (simulations go through the sweep engine)."""

    out: Path
    workers: int = 2
    scheduler: str | None = None
    progress: Callable | None = None
    quick: bool = False
    #: shipped study whose experiments the simulation and fault entries run
    study: str = ""
    #: the reduced default of a study with a full-scale version (``fattree study flagship``
    #: without ``--full``): entries with runs of their own make fewer, on the same networks
    reduced: bool = False

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        if not self.study:
            self.study = "flagship-quick" if self.quick else "flagship-full"


@dataclass
class Result:
    """A reproduction run: the entry's text plus its outcome and status."""

    name: str
    title: str
    paper: str
    claim: str
    status: str  # agree | disagree | no verdict | unavailable | error
    finding: str
    figures: list = field(default_factory=list)
    captions: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)
    files: list = field(default_factory=list)


REPRODUCTIONS: Registry[Reproduction] = Registry("reproduction")


def reproduction(name: str, *, title: str, paper: str, claim: str, requires=(), slow=False):
    """Decorator registering ``make(ctx) -> Outcome`` as a reproduction.

    Examples
    --------
    >>> "000-table1" in REPRODUCTIONS
    True
    """

    def deco(make):
        REPRODUCTIONS.add(
            name, Reproduction(name, title, paper, claim, make, tuple(requires), slow)
        )
        return make

    return deco


def _slug(s: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in s).strip("-").lower() or "table"


def _markdown_table(df) -> str:
    cols = [str(c) for c in df.columns]
    rows = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for rec in df.itertuples(index=False):
        rows.append("| " + " | ".join(_fmt(v) for v in rec) + " |")
    return "\n".join(rows)


def _fmt(v) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def _figure(size=(6.4, 4.2)):
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.subplots()


def _adopt_analytic_figures(claims: dict) -> None:
    from ..figures_analytics import ANALYTIC_FIGURES

    for key, fig in ANALYTIC_FIGURES.items():
        if key in REPRODUCTIONS:
            continue
        paper, claim, judge = claims.get(
            key,
            (
                fig.paper,
                "(the paper's claim about this figure is not transcribed yet)",
                lambda: (None, ""),
            ),
        )

        def make(ctx, fig=fig, judge=judge):
            path = fig.draw(ctx.out / fig.key / f"{fig.key}.png")
            agree, finding = judge()
            return Outcome(
                agree, f"{finding} Figure notes: {fig.caption}".strip(), [path], [fig.title]
            )

        REPRODUCTIONS.add(key, Reproduction(key, fig.title, paper, claim, make))
