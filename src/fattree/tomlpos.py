"""Line numbers of keys in a TOML text (``tomllib`` returns values without positions).

A light scan that follows table headers (``[a.b]``, ``[[a]]``) and finds ``key =``
lines; it is only used to point error messages at the right line, so anything it
cannot place gets no line rather than a wrong one.
"""

from __future__ import annotations

import re

__all__ = ["KeyLines", "MAX_DEPTH", "load_toml"]

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


#: the deepest nesting of arrays and tables a TOML input may have (studies and price files
#: use three or four levels; the parser and the walkers recurse once per level)
MAX_DEPTH = 32


def load_toml(text: str, where: str) -> dict:
    """Parse TOML text for fattree: a syntax error, or nesting deeper than
    :data:`MAX_DEPTH` (which would exhaust the parser's recursion), is one
    :class:`~fattree.errors.InputFileError` naming ``where``.

    Parameters
    ----------
    text : str
        The TOML document.
    where : str
        How messages name the input (a file name).

    Returns
    -------
    dict
        The document.

    Raises
    ------
    InputFileError
        Invalid TOML or nested too deeply.

    Examples
    --------
    >>> load_toml("a = [[1]]", "x.toml")
    {'a': [[1]]}
    >>> load_toml("a = " + "[" * 100 + "]" * 100, "x.toml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fattree.errors.InputFileError: x.toml: nested more than 32 levels deep ...
    """
    import tomllib

    from .errors import InputFileError

    too_deep = InputFileError(
        f"{where}: nested more than {MAX_DEPTH} levels deep (arrays or inline tables); "
        "a study or price file needs a few"
    )
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(f"{where}: invalid TOML: {exc}") from None
    except RecursionError:
        raise too_deep from None
    stack = [(doc, 1)]
    while stack:  # iteratively: a dotted key can nest tables without brackets
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise too_deep
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return doc
