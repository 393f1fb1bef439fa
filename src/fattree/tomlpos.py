"""Line numbers of keys in a TOML text (``tomllib`` returns values without positions).

A light scan that follows table headers (``[a.b]``, ``[[a]]``) and finds ``key =``
lines; it is only used to point error messages at the right line, so anything it
cannot place gets no line rather than a wrong one.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_\-.]+)\s*=""")


def _norm(path: str) -> tuple[str, ...]:
    return tuple(p.strip().strip("\"'") for p in path.split("."))


class KeyLines:
    """Index of ``(table path, occurrence, key) -> line`` for a TOML document.

    ``occurrence`` counts the elements of an array of tables (``[[experiment]]``) so
    that the n-th element's keys are found under ``("experiment",)`` occurrence n.

    Examples
    --------
    >>> kl = KeyLines('[study]\\nname = "x"\\n[[experiment]]\\nkind = "a"\\n[[experiment]]\\nkind = "b"\\n')
    >>> kl.line(("study",), "name"), kl.line(("experiment",), "kind", 1)
    (2, 6)
    """

    def __init__(self, text: str) -> None:
        self._lines: dict[tuple, int] = {}
        self._tables: dict[tuple, int] = {}
        counts: dict[tuple[str, ...], int] = {}
        current: tuple[str, ...] = ()
        occ = 0
        for no, raw in enumerate(text.splitlines(), start=1):
            m = _HEADER.match(raw)
            if m and not _KEY.match(raw):
                current = _norm(m.group(2))
                if m.group(1) == "[[":
                    occ = counts.get(current, -1) + 1
                    counts[current] = occ
                else:
                    # a sub-table of an array element belongs to that (latest) element
                    occ = next(
                        (
                            counts[current[:i]]
                            for i in range(len(current), 0, -1)
                            if current[:i] in counts
                        ),
                        0,
                    )
                self._tables.setdefault((current, occ), no)
                continue
            k = _KEY.match(raw)
            if k:
                key = _norm(k.group(1))
                self._lines.setdefault((current + key[:-1], occ, key[-1]), no)

    def line(self, table: tuple[str, ...], key: str, occurrence: int = 0) -> int | None:
        """Line (1-based) of ``key`` in ``table``, or ``None`` if not found."""
        return self._lines.get((tuple(table), occurrence, key))

    def table_line(self, table: tuple[str, ...], occurrence: int = 0) -> int | None:
        return self._tables.get((tuple(table), occurrence))
