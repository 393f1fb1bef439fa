"""002 (k-ary n-cubes versus fat trees): its tables, from :mod:`fattree.analysis.kncube`.

One entry ``002-<table>`` per table of ``TABLES_002``; the computed values sit beside the
printed ones and the rows that differ are flagged with the reason (errata).
"""

from __future__ import annotations

from .base import REPRODUCTIONS, Context, Outcome, Reproduction


def _make(key: str):
    def make(ctx: Context) -> Outcome:
        from ...analysis.kncube import TABLES_002

        df = TABLES_002.get(key)()
        flagged = df[df["flag"].astype(str) != ""]
        notes = list(df.attrs.get("notes", []))
        text = ("; ".join(notes) + ".") if notes else ""
        if flagged.empty:
            return Outcome(
                True,
                f"Every printed value is reproduced to its printed precision. {text}".strip(),
                tables={key: df},
            )
        cols = sorted({c for f in flagged["flag"] for c in str(f).split(",") if c})
        why = "; ".join(sorted({str(n) for n in flagged["note"] if n}))
        return Outcome(
            False,
            f"{len(flagged)} of {len(df)} rows differ from the printed values "
            f"(columns {', '.join(cols)}; see 'flag' and 'note'): {why}. {text}",
            tables={key: df},
        )

    return make


#: 002 numbers none of its tables; ours follow the text: k-ary n-cubes, then fat trees, then Dally
_ORDER = (
    "cube-bisection-4096",
    "cube-nodesize-4096",
    "cube-tnet-256",
    "cube-tnet-16384",
    "fattree-hops-16384",
    "flat-fattree-4096",
    "hypertree-4096",
    "fattree-tnet-256",
    "fattree-tnet-16384",
    "dally-contention-4096",
)


def _register() -> None:
    from ...analysis.kncube import TABLES_002

    keys = [k for k in _ORDER if k in TABLES_002] + sorted(k for k in TABLES_002 if k not in _ORDER)
    for i, key in enumerate(keys, 1):
        fn, name = TABLES_002.get(key), f"002-table{i}"
        doc = f"{key}: " + (fn.__doc__ or key).strip().splitlines()[0]
        claim = (
            f"002 §3 prints this table: {doc} The printed values are in the '*_printed' "
            "columns; 002 states them as computed from its models (no further claim in "
            "words)."
        )
        REPRODUCTIONS.add(
            name,
            Reproduction(
                name, doc, "002 §3", claim, _make(key), ("fattree.analysis.kncube:TABLES_002",)
            ),
        )


_register()
