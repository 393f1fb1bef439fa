"""One self-contained HTML report of a results folder: configurations, tables, figures.

Figures are embedded as base64 PNG ``data:`` URIs and the style sheet is inline, so
the file has no external assets and reads offline. The report lists the studies
(with their TOML text), every stored point (configuration and metrics), failures,
the figures that the results support (:mod:`fattree.report.plots`), reproductions
named in a study's ``[report]`` section, and the package versions. It opens with the
findings (:mod:`fattree.report.findings`: each design's key numbers, routing bounds,
fault tolerance, each reproduction's verdict) and a table of contents.
"""

from __future__ import annotations

from ..fileio import write_atomic

import base64
import html
import io
import platform
from datetime import datetime, UTC
from pathlib import Path

from ..errors import ParameterError
from .labels import fmt_number, humanize

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1200px;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.82em;margin:.5em 0 1.5em}
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:right;white-space:nowrap}
th{background:#f3f3f3;position:sticky;top:0}td.s,th.s{text-align:left}
td.s{white-space:normal;max-width:42em;overflow-wrap:anywhere}
nav.toc{background:#f7f7f7;border:1px solid #e3e3e3;padding:.4em 1.2em;font-size:.9em}
nav.toc ul{margin:.2em 0;padding-left:1.2em}ul.findings li{margin:.25em 0}
.wide{overflow-x:auto;max-height:40em;overflow-y:auto}
pre{background:#f7f7f7;padding:.8em;overflow-x:auto;font-size:.85em;white-space:pre-wrap}
p,li,figcaption{overflow-wrap:anywhere}
figure{display:inline-block;margin:.5em 1em 1em 0;vertical-align:top;max-width:562px}
figure img{max-width:560px;border:1px solid #eee}figcaption{font-size:.85em;color:#555}
.agree{color:#176117;font-weight:bold}.disagree{color:#a11;font-weight:bold}
.none{color:#775;font-weight:bold}.meta{color:#666;font-size:.9em}
"""


def figure_data_uri(fig, dpi: int = 110) -> str:
    """A matplotlib Figure as a ``data:image/png;base64,...`` URI.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(); _ = fig.subplots().plot([0, 1])
    >>> figure_data_uri(fig)[:22]
    'data:image/png;base64,'
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _esc(x) -> str:
    return html.escape(str(x))


def table_html(df, max_rows: int | None = None) -> str:
    """A DataFrame as an HTML table (text cells left-aligned, numbers right; escaped).

    Examples
    --------
    >>> import pandas as pd
    >>> 'class="s">a&lt;b</td>' in table_html(pd.DataFrame({"x": ["a<b"]}))
    True
    """
    import pandas as pd

    shown = df if max_rows is None else df.head(max_rows)
    cols = list(shown.columns)
    num = {c: pd.api.types.is_numeric_dtype(shown[c]) for c in cols}
    head = "".join(f'<th class="{"" if num[c] else "s"}">{_esc(c)}</th>' for c in cols)
    rows = []
    for rec in shown.itertuples(index=False):
        cells = []
        for c, v in zip(cols, rec):
            if isinstance(v, float):
                text = fmt_number(v, 5)
            else:
                text = "" if v is None else str(v)
            cells.append(f'<td class="{"" if num[c] else "s"}">{_esc(text)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    more = (
        ""
        if max_rows is None or len(df) <= max_rows
        else f'<p class="meta">first {max_rows} of {len(df)} rows</p>'
    )
    return (
        f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table></div>"
        + more
    )


def _figure(fig, caption: str, anchor: str | None = None) -> str:
    """An embedded figure: a matplotlib Figure, or the path of a PNG file."""
    if isinstance(fig, (str, Path)):
        uri = "data:image/png;base64," + base64.b64encode(Path(fig).read_bytes()).decode()
    else:
        uri = figure_data_uri(fig)
        try:  # the Agg canvas keeps the figure alive otherwise
            import matplotlib.pyplot as plt

            plt.close(fig)
        except Exception:  # noqa: BLE001 - a Figure without pyplot is fine
            pass
    ident = f' id="{_esc(anchor)}"' if anchor else ""
    return (
        f'<figure{ident}><img alt="{_esc(caption)}" src="{uri}">'
        f"<figcaption>{_esc(caption)}</figcaption></figure>"
    )


#: most sentences of the verdict that opens a report
VERDICT_SENTENCES = 5


def summary_html(df, verdict=None, notes=None, findings=None) -> str:
    """The opening of a report: the ranked summary table(s), the verdict in at most five
    sentences (``verdict``, else the first findings), then short notes."""
    from .findings import summary_tables

    parts = ['<h2 id="summary">Summary</h2>']
    tables = summary_tables(df)
    for i, (name, table) in enumerate(tables.items()):
        parts.append(f'<h3 id="summary-{i}">{_esc(name)}</h3>' + table_html(table))
    if tables:
        parts.append(f'<p class="meta">{_esc(_summary_note(tables))}</p>')
    said = list(verdict or [])
    if not said and findings is not None:
        said = list(findings.points)
    said = said[:VERDICT_SENTENCES]
    if said:
        parts.append(
            '<h3 id="verdict">Verdict</h3><ol class="findings">'
            + "".join(f"<li>{_esc(humanize(p))}</li>" for p in said)
            + "</ol>"
        )
    if not tables and not said:
        parts.append("<p>No results to summarise yet.</p>")
    for note in notes or []:
        parts.append(f'<p class="meta">{_esc(note)}</p>')
    return "\n".join(parts)


def _summary_note(tables: dict) -> str:
    """What the summary's columns mean, for the columns shown."""
    heads = {c for t in tables.values() for c in t.columns}
    out = []
    if any("throughput" in h or "permutation" in h for h in heads):
        out.append("Throughputs in flits per node per cycle, averaged over the sources.")
    if "saturation throughput, simulated" in heads:
        out.append(
            "Saturation throughput: the peak accepted rate under uniform traffic. Bound: the "
            "channel-load bound of the very points simulated, the load at which the busiest "
            "channel of that pattern saturates; past it the rate averaged over the sources "
            "may exceed it, as sources off the busiest channels keep delivering."
        )
    if "random permutation, simulated" in heads:
        out.append(
            "Random permutation: the peak accepted rate, beside the most the routes of that "
            "very permutation carry at its load (no simulation exceeds it) and the load at "
            "which its busiest channel saturates."
        )
    if "zero-load latency (cycles)" in heads:
        out.append("Zero-load latency: at the lowest load simulated.")
    if "fault tolerance (95 % CI)" in heads:
        out.append(
            "Fault tolerance: the share of node pairs routed by the family's default (or the "
            "study's best) local fault-tolerant routing, with its 95 % Wilson interval."
        )
    if any(" of " in str(v) for t in tables.values() if "N" in t.columns for v in t["N"]):
        out.append("N = ranks of nodes: the idle nodes are paid for, prices are per rank.")
    return " ".join(out)


def findings_html(df, reproductions=None, *, routing: bool = True, f=None) -> str:
    """The detail tables of the findings (:func:`fattree.report.findings.findings`) as HTML."""
    from .findings import findings

    f = f if f is not None else findings(df, reproductions, routing=routing)
    parts = ['<h2 id="findings">Details</h2>']
    if f.points:
        parts.append(
            '<ul class="findings">' + "".join(f"<li>{_esc(p)}</li>" for p in f.points) + "</ul>"
        )
    if not f.points and not f.tables:
        parts.append("<p>No results to summarise yet.</p>")
    for i, (name, table) in enumerate(f.tables.items()):
        parts.append(f'<h3 id="findings-{i}">{_esc(name)}</h3>' + table_html(table))
    return "\n".join(parts)


def _toc(entries) -> str:
    """A nested table of contents: [(anchor, text, [(anchor, text), ...]), ...]."""
    items = []
    for anchor, text, children in entries:
        sub = "".join(f'<li><a href="#{_esc(a)}">{_esc(t)}</a></li>' for a, t in children)
        items.append(
            f'<li><a href="#{_esc(anchor)}">{_esc(text)}</a>'
            + (f"<ul>{sub}</ul>" if sub else "")
            + "</li>"
        )
    return '<nav class="toc"><b>Contents</b><ul>' + "".join(items) + "</ul></nav>"


def _versions() -> str:
    import matplotlib
    import numpy
    import pandas
    import pyarrow

    from ..version import __version__

    parts = [
        f"fattree {__version__}",
        f"Python {platform.python_version()}",
        f"numpy {numpy.__version__}",
        f"pandas {pandas.__version__}",
        f"pyarrow {pyarrow.__version__}",
        f"matplotlib {matplotlib.__version__}",
    ]
    try:
        import numba

        parts.append(f"numba {numba.__version__}")
    except ImportError:  # pragma: no cover - numba is a dependency
        pass
    return ", ".join(parts)


def outcome_html(result) -> str:
    """A reproduction result (:class:`fattree.report.reproduce.Result`) as HTML."""
    cls = {"agree": "agree", "disagree": "disagree"}.get(result.status, "none")
    parts = [
        f'<h3 id="{_esc(result.name)}">{_esc(result.name)}: {_esc(result.title)}</h3>',
        f'<p class="meta">{_esc(result.paper)}</p>',
        f"<p><b>The paper:</b> {_esc(result.claim)}</p>",
        f'<p><b>We find</b> (<span class="{cls}">{_esc(result.status)}</span>): '
        f"{_esc(result.finding)}</p>",
    ]
    for fig, cap in zip(result.figures, result.captions):
        parts.append(_figure(fig, cap))
    for name, df in result.tables.items():
        parts.append(f"<p><b>{_esc(name)}</b></p>" + table_html(df))
    return "\n".join(parts)


def render(
    df,
    *,
    title: str,
    studies: dict | None = None,
    errors: list | None = None,
    logy: bool | None = None,
    plots: list[str] | None = None,
    reproductions: list | None = None,
    notes: list[str] | None = None,
    verdict: list[str] | None = None,
) -> str:
    """The report HTML for a results DataFrame (see :func:`write_report`).

    It opens with the ranked summary table and the verdict (at most five sentences),
    then the table of contents, the figures (at most six series each), the details.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"config_hash": ["a"], "topology": ["kant:k=2,n=2"], "nodes": [4]})
    >>> page = render(df, title="t")
    >>> page.startswith("<!DOCTYPE html>") and "kant:k=2,n=2" in page and "<script" not in page
    True
    """
    from . import plots as P

    studies = studies or {}
    errors = errors or []
    body = [
        f"<h1>{_esc(title)}</h1>",
        f'<p class="meta">generated {datetime.now(UTC):%Y-%m-%d %H:%M UTC} by '
        f"{_esc(_versions())}</p>",
    ]
    if "fattree_version" in df.columns and len(df):
        writers = sorted(map(str, df["fattree_version"].dropna().unique()))
        body.append(f'<p class="meta">rows written by fattree {_esc(", ".join(writers))}</p>')
    n_fail = len(errors)
    total_s = float(df["elapsed_s"].sum()) if "elapsed_s" in df.columns and len(df) else 0.0
    counts = f"{len(df)} stored points, {n_fail} failed, {total_s:.1f} s of compute."

    figs, fig_toc = [], []

    def add_fig(fig, caption):
        anchor = f"fig-{len(figs) + 1}"
        figs.append(_figure(fig, caption, anchor))
        fig_toc.append((anchor, caption))

    if len(df) and "kind" in df.columns:
        from .workload_plots import KIND_FIGURES

        for kind, sub in df.groupby("kind", sort=True):
            sub = sub.copy()
            sub.attrs = dict(df.attrs)
            if kind in KIND_FIGURES:  # its own figures (a workload study: time against size)
                for fig, caption in KIND_FIGURES[kind](sub):
                    add_fig(fig, caption)
                continue
            names = [p for p in (plots or P.available(sub)) if p in P.available(sub)]
            for name in names:
                for part, what in P.split_series(sub, name):
                    suffix = f"{kind}{', ' + what if what else ''}"
                    add_fig(P.draw(part, name, logy=logy), f"{P.PLOTS.get(name).title} ({suffix})")
                    if logy is None and name == "latency":
                        add_fig(
                            P.draw(part, name, logy=True),
                            f"{P.PLOTS.get(name).title}, log scale ({suffix})",
                        )
    from .findings import findings as _findings

    found = _findings(df, reproductions)
    sections = [("summary", "Summary and verdict", [])]
    rest = []
    if figs:
        rest.append('<h2 id="figures">Figures</h2>' + "\n".join(figs))
        sections.append(("figures", "Figures", fig_toc))
    if reproductions:
        shown = [r for r in reproductions if r.status != "unavailable"]
        rest.append('<h2 id="reproductions">Reproductions of the papers</h2>')
        rest.append('<p>Verdicts: see <a href="#findings">Details</a>.</p>')
        rest.extend(outcome_html(r) for r in shown)
        sections.append(
            (
                "reproductions",
                "Reproductions of the papers",
                [(r.name, f"{r.name}: {r.title} ({r.status})") for r in shown],
            )
        )
    rest.append(findings_html(df, reproductions, f=found))
    sections.append(("findings", "Details: designs, routing, fault tolerance", []))
    rest.append('<h2 id="results">Results</h2>')
    rest.append(_results_tables(df))
    sections.append(("results", "Results (every stored point)", []))
    if errors:
        import pandas as pd

        rest.append('<h2 id="failed">Failed points</h2>')
        rest.append(
            table_html(
                pd.DataFrame(
                    [
                        {
                            "config_hash": e.get("config_hash", "")[:12],
                            "experiment": e.get("experiment"),
                            "config": str(e.get("config")),
                            "error": e.get("error"),
                        }
                        for e in errors
                    ]
                )
            )
        )
        sections.append(("failed", "Failed points", []))
    if studies:
        rest.append('<h2 id="studies">Studies</h2>')
        for name, st in studies.items():
            rest.append(
                f"<h3>{_esc(name)}</h3><p class='meta'>last run {_esc(st.get('last_run'))}"
                f"</p><pre>{_esc(st.get('source', ''))}</pre>"
            )
        sections.append(("studies", "Studies (their TOML)", []))
    sections.append(("versions", "Versions", []))
    rest.append(f'<h2 id="versions">Versions</h2><p class="meta">{_esc(_versions())}</p>')
    body.append(summary_html(df, verdict, notes, found))
    body.append(f'<p class="meta">{_esc(counts)}</p>')
    body.append(_toc(sections))
    body.extend(rest)
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _results_tables(df) -> str:
    if not len(df):
        return "<p>No stored points yet.</p>"
    out = []
    config = df.attrs.get("config_columns", [])
    metrics = df.attrs.get("metric_columns", [])
    groups = df.groupby("kind", sort=True) if "kind" in df.columns else [("", df)]
    for kind, sub in groups:
        cols = ["experiment"] + [
            c
            for c in config
            if c in sub.columns and c not in ("kind", "study_seed") and sub[c].notna().any()
        ]
        cols += [c for c in metrics if c in sub.columns and sub[c].notna().any()]
        cols += ["seed", "elapsed_s", "config_hash"]
        if not config and not metrics:  # a frame that did not come from a store
            cols = [c for c in sub.columns if sub[c].notna().any()]
        cols = [c for c in dict.fromkeys(cols) if c in sub.columns]
        view = sub[cols].copy()
        if "config_hash" in view:
            view["config_hash"] = view["config_hash"].str[:12]
        out.append(f"<h3>{_esc(kind)}: {len(sub)} points</h3>" + table_html(view))
    return "\n".join(out)


def write_report(
    results_dir,
    output,
    *,
    title: str | None = None,
    logy: bool | None = None,
    reproductions: list | None = None,
    notes: list[str] | None = None,
    verdict: list[str] | None = None,
) -> Path:
    """Write the HTML report of a results folder.

    Parameters
    ----------
    results_dir : path
        A folder written by ``fattree sweep``.
    output : path
        The ``.html`` file to write.
    title : str, optional
        Defaults to the study's ``[report] title`` or the folder name.
    logy : bool, optional
        Log-scale latency axes (default: both linear and log are shown).
    reproductions : list of reproduce.Result, optional
        Already computed reproductions to include.
    notes : list of str, optional
        Short notes shown under the verdict (points not run, failures).
    verdict : list of str, optional
        The verdict, at most five sentences; default: the ``VERDICTS`` entry of a study in
        the store (``fattree.sweep.verdicts``), else the first findings.

    Examples
    --------
    >>> import tempfile, os
    >>> from fattree.sweep.study import parse_study
    >>> from fattree.sweep.engine import run_study
    >>> d = tempfile.mkdtemp()
    >>> s = parse_study('[study]\\nkind = "topology"\\n[parameters]\\ntopology = "kant:k=2,n=2"\\n')
    >>> _ = run_study(s, d + "/r", workers=0)
    >>> p = write_report(d + "/r", d + "/report.html")
    >>> "kant:k=2,n=2" in p.read_text()
    True

    References
    ----------
    docs/sweeps.md (reports).
    """
    from ..sweep.store import ResultStore

    out = Path(output)
    if out.suffix.lower() not in (".html", ".htm"):
        raise ParameterError(f"output={str(out)!r} is invalid: the report is an .html file")
    store = ResultStore(results_dir)
    df = store.read()
    studies = store.studies
    cfg = next((s.get("report", {}) for s in studies.values() if s.get("report")), {})
    if verdict is None:  # a shipped study's verdict, as `fattree study` writes it
        from ..sweep.verdicts import VERDICTS

        name = next((n for n in studies if n in VERDICTS), None)
        verdict = list(VERDICTS.get(name)(df)) if name is not None else None
    page = render(
        df,
        title=title or cfg.get("title") or f"fattree results: {store.path.name}",
        studies=studies,
        errors=store.errors(),
        logy=logy if logy is not None else cfg.get("logy"),
        plots=cfg.get("plots") or None,
        reproductions=reproductions,
        notes=notes,
        verdict=verdict,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, lambda fh: fh.write(page), binary=False, what="report")
    return out
