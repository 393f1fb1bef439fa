"""The results store: a folder of Parquet files, one row per finished point.

Layout::

    DIR/manifest.json              format version, fattree versions, the studies run here
    DIR/manifest.log               checksums recorded since manifest.json was last written
    DIR/parts/<config_hash>.parquet  one finished point each (written atomically)
    DIR/data/compact-*.parquet     many parts merged (optional, also atomic)
    DIR/errors/<config_hash>.json  the last failure of a point that did not finish
    DIR/quarantine/                damaged files moved aside on resume (never read)
    DIR/.lock                      held (flock) by the one sweep writing here

The manifest records the SHA-256 and size of every part and compacted file
(``"files": {"parts/<hash>.parquet": {"sha256": ..., "bytes": ...}}``). A resumed
sweep verifies every file (:meth:`ResultStore.verify`): a truncated, empty or
garbage file, or one whose checksum differs, is moved to ``quarantine/`` and its
point is computed again. Readers skip such files with one warning
(:class:`~fattree.errors.DamagedDataWarning`). A file without a recorded checksum
(a sweep killed between writing it and the manifest) is accepted only if it parses
and holds the point its name says.

Each finished point appends one line to ``manifest.log`` (flushed and fsync'ed) instead of
rewriting the manifest, whose size grows with the store: a sweep's cost per point stays
constant. ``manifest.json`` is rewritten (with the log folded in, then the log removed)
when a study is recorded, after verification and compaction, at the end of a sweep and
every :data:`FOLD_AT` lines. Reading replays the log over the manifest (replaying twice
gives the same result, and a torn last line of a killed sweep is ignored).

A manifest field of the wrong type (a hand edit, a damaged copy) is never trusted: a
malformed ``format_version`` or ``written_by`` is one error line; a malformed ``files``
record is dropped (its file is then checked by reading it), malformed ``studies`` are
dropped, each with one warning. A part listed in the manifest but missing on disk is
reported by readers and recomputed by the next sweep.

Every file is written to a temporary name in its own folder, flushed, fsync'ed and
renamed over its final name (``os.replace`` is atomic on POSIX), then the folder is
fsync'ed. A killed sweep therefore leaves whole files or stray temporaries (ignored
and removed later), never a half-written part. Reading concatenates every file and
keeps one row per config hash, so a crash during compaction cannot duplicate rows.

Queries use pandas (``DataFrame.query``): the stores hold thousands of rows, not
billions, pandas is already a dependency, and the plots and reports work on
DataFrames anyway; DuckDB would add a large dependency for no gain at this size.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import uuid
import warnings
from contextlib import contextmanager
from datetime import datetime, UTC
from pathlib import Path
from typing import Any

from ..errors import DamagedDataWarning, InputFileError, ParameterError, closest
from ..fileio import read_input

#: (major, minor) of the folder layout and row schema; a newer major is refused.
FORMAT_VERSION = (1, 0)
_FORMAT_NAME = "fattree-results"
_META_KEY = b"fattree"
#: lines of ``manifest.log`` after which the manifest is rewritten with them folded in
FOLD_AT = 4096
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _version() -> str:
    from ..version import __version__

    return __version__


def _major(version: str) -> int:
    m = re.match(r"\s*(\d+)", str(version))
    return int(m.group(1)) if m else 0


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, write) -> None:
    """Write through ``write(fileobj)`` to a temporary file, fsync, rename over ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.txt"
    >>> atomic_write(p, lambda fh: fh.write(b"ok"))
    >>> p.read_bytes()
    b'ok'
    """
    tmp = path.with_name(f".tmp-{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


class ResultStore:
    """A results folder (see the module docstring for the layout).

    Parameters
    ----------
    path : str or Path
        The folder.
    create : bool
        Create the folder (or adopt an empty one) if it is not a store yet; otherwise
        a missing store is an error.

    Raises
    ------
    InputFileError
        Not a results folder, or written by a newer major format or fattree version
        (nothing is touched then).

    Examples
    --------
    >>> import tempfile
    >>> st = ResultStore(tempfile.mkdtemp() + "/res", create=True)
    >>> _ = st.write_row({"config_hash": "ab" * 32, "load": 0.5, "latency": 12.0},
    ...                  config_columns=["load"], metric_columns=["latency"])
    >>> st.read()[["load", "latency"]].values.tolist(), st.finished() == {"ab" * 32}
    ([[0.5, 12.0]], True)
    """

    def __init__(self, path: str | os.PathLike, *, create: bool = False) -> None:
        self.path = Path(path)
        self.manifest_path = self.path / "manifest.json"
        self.log_path = self.path / "manifest.log"
        self._log_lines = 0
        self.parts = self.path / "parts"
        self.data = self.path / "data"
        self.errors_dir = self.path / "errors"
        if self.manifest_path.exists():
            self.manifest = self._read_manifest()
        elif not create:
            what = (
                "does not exist"
                if not self.path.exists()
                else "is not a fattree results folder (no manifest.json)"
            )
            raise InputFileError(f"results folder {str(self.path)!r} {what}")
        else:
            if self.path.exists() and (not self.path.is_dir() or any(self.path.iterdir())):
                raise InputFileError(
                    f"results folder {str(self.path)!r} exists and is not a fattree results "
                    "folder (no manifest.json); give a new or empty folder"
                )
            self.path.mkdir(parents=True, exist_ok=True)
            now = datetime.now(UTC).isoformat()
            self.manifest = {
                "format": _FORMAT_NAME,
                "format_version": list(FORMAT_VERSION),
                "created_by": _version(),
                "written_by": _version(),
                "created": now,
                "studies": {},
                "files": {},
            }
            self._write_manifest()
        for d in (self.parts, self.data, self.errors_dir):
            d.mkdir(exist_ok=True)
        self.quarantine_dir = self.path / "quarantine"

    # ------------------------------------------------------------------ manifest
    def _read_manifest(self) -> dict:
        try:
            m = json.loads(read_input(self.manifest_path, "results manifest", limit=1 << 30))
        except ValueError as exc:  # JSONDecodeError (InputFileError passes through)
            if isinstance(exc, InputFileError):
                raise
            raise InputFileError(f"{self.manifest_path}: unreadable manifest ({exc})") from None
        except RecursionError:
            raise InputFileError(
                f"{self.manifest_path}: unreadable manifest (nested too deeply)"
            ) from None
        if not isinstance(m, dict) or m.get("format") != _FORMAT_NAME:
            raise InputFileError(f"{self.manifest_path}: not a fattree results manifest")
        fv = m.get("format_version")
        if (
            not isinstance(fv, list)
            or len(fv) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in fv)
        ):
            raise InputFileError(
                f"{self.manifest_path}: format_version={fv!r} is invalid: expected "
                "[major, minor], two non-negative integers (a damaged manifest)"
            )
        by = m.get("written_by")
        if not isinstance(by, str) or not by.strip():
            raise InputFileError(
                f"{self.manifest_path}: written_by={by!r} is invalid: expected the fattree "
                'version that wrote the folder, e.g. "0.9.0" (a damaged manifest)'
            )
        if int(fv[0]) > FORMAT_VERSION[0] or _major(by) > _major(_version()):
            raise InputFileError(
                f"results folder {str(self.path)!r} was written by fattree {by} (store format "
                f"{fv[0]}.{fv[1]}); this is fattree {_version()}, which reads format "
                f"{FORMAT_VERSION[0]}.x written by fattree {_major(_version())}.x: upgrade fattree "
                "to use it (nothing was changed)"
            )
        problems = []
        studies = m.get("studies")
        if not isinstance(studies, dict):
            problems.append(f"'studies' is {type(studies).__name__}, not a table (dropped)")
            studies = {}
        bad = [k for k, v in studies.items() if not isinstance(v, dict)]
        if bad:
            problems.append(f"{len(bad)} malformed 'studies' entries dropped ({bad[0]!r})")
        m["studies"] = {k: v for k, v in studies.items() if isinstance(v, dict)}
        for name, entry in m["studies"].items():  # fields a report reads, each of its type
            for key, kind, empty in (
                ("source", str, ""),
                ("source_hash", str, ""),
                ("last_run", str, "?"),
                ("first_run", str, "?"),
                ("report", dict, {}),
            ):
                if key in entry and not isinstance(entry[key], kind):
                    problems.append(f"studies.{name}.{key} is malformed (ignored)")
                    entry[key] = empty
            rep = entry.get("report", {})
            for key, kind in (("title", str), ("logy", bool), ("plots", list), ("reproduce", list)):
                val = rep.get(key)
                if val is not None and (
                    not isinstance(val, kind)
                    or (kind is list and not all(isinstance(x, str) for x in val))
                ):
                    problems.append(f"studies.{name}.report.{key} is malformed (ignored)")
                    rep.pop(key)
        files = m.get("files")
        if not isinstance(files, dict):
            problems.append(f"'files' is {type(files).__name__}, not a table")
            files = {}
        m["files"] = {}
        dropped = [k for k, rec in files.items() if not self._set_record(m, k, rec)]
        if dropped:
            problems.append(f"{len(dropped)} malformed 'files' records ({dropped[0]!r})")
        for name in ("created_by", "created"):
            if not isinstance(m.get(name), str):
                m[name] = "?"
        self._log_lines = self._replay(m)
        if problems:
            warnings.warn(
                f"{self.manifest_path}: {'; '.join(problems)}; the files are checked by "
                "reading them instead",
                DamagedDataWarning,
                stacklevel=3,
            )
        return m

    @staticmethod
    def _set_record(m: dict, key, rec) -> bool:
        """Store a ``files`` record if well formed (key ``parts/x.parquet`` or
        ``data/x.parquet``, 64 hex digits, a byte count); False if dropped."""
        ok = (
            isinstance(key, str)
            and re.fullmatch(r"(parts|data)/[^/]+\.parquet", key) is not None
            and isinstance(rec, dict)
            and isinstance(rec.get("sha256"), str)
            and _HEX64.fullmatch(rec["sha256"]) is not None
            and isinstance(rec.get("bytes"), int)
            and not isinstance(rec.get("bytes"), bool)
            and rec["bytes"] >= 0
        )
        if ok:
            m["files"][key] = {"sha256": rec["sha256"], "bytes": rec["bytes"]}
        return ok

    def _replay(self, m: dict) -> int:
        """Apply ``manifest.log`` to ``m``; the number of lines (a torn last line, from a
        sweep killed while appending, is ignored: its file is checked by reading it)."""
        try:
            with open(self.log_path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise InputFileError(f"{self.log_path}: cannot be read: {exc.strerror}") from None
        n = 0
        for line in data.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
                continue
            n += 1
            if entry.get("removed"):
                m["files"].pop(entry["file"], None)
            else:
                self._set_record(m, entry["file"], entry)
        return n

    def _write_manifest(self) -> None:
        """Rewrite ``manifest.json`` with the log folded in, then drop the log."""
        text = json.dumps(self.manifest, indent=2, sort_keys=True).encode()
        atomic_write(self.manifest_path, lambda fh: fh.write(text))
        self.log_path.unlink(missing_ok=True)  # after the manifest holding it is on disk
        self._log_lines = 0

    def _append_log(self, entries: list[dict]) -> None:
        if not entries:
            return
        text = "".join(json.dumps(e, sort_keys=True) + "\n" for e in entries).encode()
        fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, text)
            os.fsync(fd)
        finally:
            os.close(fd)
        self._log_lines += len(entries)
        if self._log_lines >= FOLD_AT:
            self._write_manifest()

    def flush(self) -> None:
        """Fold ``manifest.log`` into ``manifest.json`` (at the end of a sweep)."""
        if self._log_lines or self.log_path.exists():
            self._write_manifest()

    def missing(self) -> list[str]:
        """Files the manifest lists that are not on disk (deleted by hand)."""
        return sorted(k for k in self.manifest.get("files", {}) if not (self.path / k).exists())

    def record_study(self, name: str, source: str, source_hash: str, report: dict) -> None:
        """Remember a study run into this folder (its text, for reports and reruns)."""
        now = datetime.now(UTC).isoformat()
        entry = self.manifest["studies"].get(name, {"first_run": now})
        entry.update(
            {"source": source, "source_hash": source_hash, "last_run": now, "report": report}
        )
        self.manifest["studies"][name] = entry
        self.manifest["written_by"] = _version()
        self._write_manifest()

    @property
    def studies(self) -> dict:
        return dict(self.manifest.get("studies", {}))

    # ------------------------------------------------------------------ lock
    @contextmanager
    def lock(self):
        """Hold the folder's write lock (released by the OS even if the process is killed)."""
        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                other = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                raise InputFileError(
                    f"results folder {str(self.path)!r} is being written by "
                    f"another sweep (pid {other})"
                ) from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            self._clean_temporaries()
            yield self
        finally:
            os.close(fd)

    def _clean_temporaries(self) -> None:
        for d in (self.path, self.parts, self.data, self.errors_dir):
            for f in d.glob(".tmp-*"):
                f.unlink(missing_ok=True)

    # ------------------------------------------------------------------ writing
    def write_row(self, row: dict[str, Any], *, config_columns, metric_columns) -> Path:
        """Write one finished point as ``parts/<config_hash>.parquet`` (atomically)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        h = row.get("config_hash")
        if not isinstance(h, str) or not re.fullmatch(r"[0-9a-f]{64}", h):
            raise ParameterError(f"config_hash={h!r} is invalid: expected 64 hex digits")
        table = pa.Table.from_pylist([row])
        meta = {
            "config_columns": list(config_columns),
            "metric_columns": list(metric_columns),
            "format_version": list(FORMAT_VERSION),
        }
        table = table.replace_schema_metadata({_META_KEY: json.dumps(meta).encode()})
        target = self.parts / f"{h}.parquet"
        atomic_write(target, lambda fh: pq.write_table(table, fh))
        self._record_files([target])
        self.clear_error(h)
        return target

    # ------------------------------------------------------------------ checksums
    def _key(self, f: Path) -> str:
        return f"{f.parent.name}/{f.name}"

    def _record_files(self, added=(), removed=(), *, fold: bool = False) -> None:
        files = self.manifest.setdefault("files", {})
        entries = []
        for f in removed:
            files.pop(self._key(f), None)
            entries.append({"file": self._key(f), "removed": True})
        for f in added:
            rec = {"sha256": _sha256(f), "bytes": f.stat().st_size}
            files[self._key(f)] = rec
            entries.append({"file": self._key(f), **rec})
        if fold:
            self._write_manifest()
        else:
            self._append_log(entries)

    def _damage(self, f: Path, full: bool = True) -> str | None:
        """Why ``f`` is damaged, or None. ``full``: also parse a file without a checksum."""
        try:
            size = f.stat().st_size
        except FileNotFoundError:
            return None
        if size == 0:
            return "empty"
        rec = self.manifest.get("files", {}).get(self._key(f))
        if rec is not None:
            if rec.get("bytes") != size:
                return f"{size} bytes, {rec.get('bytes')} recorded (truncated or overwritten)"
            return None if _sha256(f) == rec.get("sha256") else "checksum differs from the manifest"
        if not full:
            return None
        import pyarrow.parquet as pq

        try:
            hashes = pq.read_table(f, columns=["config_hash"]).column(0).to_pylist()
        except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ... on garbage
            return f"not a readable Parquet file ({type(exc).__name__})"
        if f.parent == self.parts and hashes != [f.stem]:
            return "does not hold the point its name says"
        return None

    def verify(self, *, quarantine: bool = True) -> list[tuple[str, str]]:
        """Check every stored file against the manifest; move damaged ones aside.

        Returns ``(file, reason)`` for each damaged file. With ``quarantine`` (call
        under :meth:`lock`) they are moved to ``quarantine/`` so that their points
        count as not done and are computed again; files that parse and hold their
        point but had no recorded checksum get one.

        Examples
        --------
        >>> import tempfile
        >>> st = ResultStore(tempfile.mkdtemp() + "/res", create=True)
        >>> p = st.write_row({"config_hash": "ab" * 32, "x": 1.0}, config_columns=[],
        ...                  metric_columns=["x"])
        >>> _ = p.write_bytes(p.read_bytes()[:20])  # truncated
        >>> [why for _, why in st.verify()], st.finished()  # doctest: +ELLIPSIS
        (['20 bytes, ... recorded (truncated or overwritten)'], set())
        """
        gone = self.missing()  # before anything is moved aside
        bad, adopted = [], []
        for f in self._files():
            why = self._damage(f)
            if why is None:
                if self._key(f) not in self.manifest.get("files", {}) and f.exists():
                    adopted.append(f)
                continue
            bad.append((self._key(f), why))
            if quarantine:
                self.quarantine_dir.mkdir(exist_ok=True)
                stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
                os.replace(f, self.quarantine_dir / f"{f.stem}.{stamp}{f.suffix}")
        bad += [(k, "listed in the manifest but missing (deleted?)") for k in gone]
        if quarantine and (bad or adopted):
            self._record_files(adopted, [self.path / k for k, _ in bad], fold=True)
        return bad

    def write_error(self, chash: str, info: dict) -> None:
        text = json.dumps(info, indent=2, default=str).encode()
        atomic_write(self.errors_dir / f"{chash}.json", lambda fh: fh.write(text))

    def clear_error(self, chash: str) -> None:
        (self.errors_dir / f"{chash}.json").unlink(missing_ok=True)

    def errors(self) -> list[dict]:
        out = []
        for f in sorted(self.errors_dir.glob("*.json")):
            try:
                out.append(json.loads(f.read_text()))
            except (OSError, ValueError):
                continue
        return out

    # ------------------------------------------------------------------ reading
    def _files(self) -> list[Path]:
        return sorted(self.data.glob("compact-*.parquet")) + sorted(self.parts.glob("*.parquet"))

    def finished(self) -> set[str]:
        """Config hashes of every stored point."""
        import pyarrow.parquet as pq

        done = {f.stem for f in self.parts.glob("*.parquet") if f.stat().st_size > 0}
        for f in sorted(self.data.glob("compact-*.parquet")):
            try:
                done.update(pq.read_table(f, columns=["config_hash"]).column(0).to_pylist())
            except Exception:  # damaged: its points are not done (verify() says why)
                continue
        return done

    def read(self, where: str | None = None):
        """All stored rows as a DataFrame, one per config hash, optionally filtered.

        ``df.attrs["config_columns"]`` / ``["metric_columns"]`` name the columns'
        roles. ``where`` is a :func:`query` expression.
        """
        import pandas as pd
        import pyarrow.parquet as pq

        tables, config_cols, metric_cols, damaged = [], [], [], []
        for f in self._files():
            try:
                why = self._damage(f, full=False)
                t = pq.read_table(f) if why is None else None
            except FileNotFoundError:  # compacted away while we listed
                continue
            except Exception as exc:  # pyarrow: ArrowInvalid, OSError... on a damaged file
                why = f"not a readable Parquet file ({type(exc).__name__})"
            if why is not None:
                damaged.append((self._key(f), why))
                continue
            meta = json.loads((t.schema.metadata or {}).get(_META_KEY, b"{}"))
            config_cols += [c for c in meta.get("config_columns", []) if c not in config_cols]
            metric_cols += [c for c in meta.get("metric_columns", []) if c not in metric_cols]
            tables.append(t.replace_schema_metadata(None))
        if not tables:
            df = pd.DataFrame({"config_hash": pd.Series([], dtype=object)})
        else:
            df = _concat(tables)
            df = df.drop_duplicates("config_hash", keep="last").reset_index(drop=True)
            df = _sorted(df, config_cols)
        df.attrs["config_columns"] = config_cols
        df.attrs["metric_columns"] = metric_cols
        damaged += [(k, "listed in the manifest but missing") for k in self.missing()]
        df.attrs["damaged"] = damaged
        if damaged:
            warnings.warn(
                f"{self.path}: skipped {len(damaged)} damaged file"
                f"{'s' if len(damaged) > 1 else ''} ({damaged[0][0]}: {damaged[0][1]}"
                f"{', ...' if len(damaged) > 1 else ''}); run the sweep again to "
                "recompute them",
                DamagedDataWarning,
                stacklevel=2,
            )
        return query(df, where) if where is not None else df

    def compact(self, min_parts: int = 1) -> int:
        """Merge part files into one ``data/compact-*.parquet``; returns parts merged.

        Call under :meth:`lock`. The merged file is written before any part is removed,
        and reading keeps one row per hash, so a crash in between loses nothing.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        parts = sorted(self.parts.glob("*.parquet"))
        if len(parts) < min_parts or not parts:
            return 0
        old = sorted(self.data.glob("compact-*.parquet"))
        if any(self._damage(f) for f in old + parts):
            return 0  # verify() quarantines damaged files first; never merge them
        tables, config_cols, metric_cols = [], [], []
        for f in old + parts:
            t = pq.read_table(f)
            meta = json.loads((t.schema.metadata or {}).get(_META_KEY, b"{}"))
            config_cols += [c for c in meta.get("config_columns", []) if c not in config_cols]
            metric_cols += [c for c in meta.get("metric_columns", []) if c not in metric_cols]
            tables.append(t.replace_schema_metadata(None))
        try:
            table = pa.concat_tables(tables, promote_options="permissive")
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            return 0  # kinds whose columns clash in type stay in their own part files
        last = {h: i for i, h in enumerate(table.column("config_hash").to_pylist())}
        table = table.take(sorted(last.values()))  # one row per hash, the latest
        meta = {
            "config_columns": config_cols,
            "metric_columns": metric_cols,
            "format_version": list(FORMAT_VERSION),
        }
        table = table.replace_schema_metadata({_META_KEY: json.dumps(meta).encode()})
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        target = self.data / f"compact-{stamp}-{uuid.uuid4().hex[:6]}.parquet"
        atomic_write(target, lambda fh: pq.write_table(table, fh))
        self._record_files([target], old + parts, fold=True)
        for f in old + parts:
            f.unlink(missing_ok=True)
        _fsync_dir(self.parts)
        _fsync_dir(self.data)
        return len(parts)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _concat(tables):
    """One DataFrame from many one-row tables; columns whose types clash between
    experiment kinds (a metric of one is a parameter of another) become object."""
    import pandas as pd
    import pyarrow as pa

    try:
        return pa.concat_tables(tables, promote_options="permissive").to_pandas()
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        groups: dict = {}
        for t in tables:
            groups.setdefault(t.schema, []).append(t)
        frames = [pa.concat_tables(g).to_pandas() for g in groups.values()]
        return pd.concat(frames, ignore_index=True, sort=False)


def _sorted(df, config_cols):
    cols = [c for c in ("study", "experiment", *config_cols) if c in df.columns]
    try:
        return df.sort_values(cols + ["config_hash"], kind="stable").reset_index(drop=True)
    except TypeError:  # mixed types in a column (e.g. two kinds sharing a name)
        return df.sort_values("config_hash", kind="stable").reset_index(drop=True)


_WORDS = re.compile(r"\b(AND|OR|NOT|And|Or|Not)\b")


def translate_where(expr: str) -> str:
    """Turn an SQL-like filter into a pandas query: ``=`` becomes ``==``, ``<>`` ``!=``.

    String literals are left alone; ``@`` (local variables) and dunder names are
    refused, so a filter can only compare columns with literals.

    Examples
    --------
    >>> translate_where("family='mikant' AND load >= 0.5")
    "family=='mikant' and load >= 0.5"
    >>> translate_where("traffic <> 'a=b'")
    "traffic != 'a=b'"
    """
    if not isinstance(expr, str) or not expr.strip():
        raise ParameterError(
            f"where={expr!r} is invalid: expected a filter like \"family='mikant'\""
        )
    out, i, quote = [], 0, None
    while i < len(expr):
        c = expr[i]
        if quote:
            out.append(c)
            if c == quote:
                quote = None
            i += 1
            continue
        if c in "'\"":
            quote = c
        elif c in "@;\\" or expr.startswith("__", i):
            raise ParameterError(f"where={expr!r} is invalid: {c!r} is not allowed in a filter")
        if expr.startswith("<>", i):
            out.append("!=")
            i += 2
            continue
        if c == "=" and (i == 0 or expr[i - 1] not in "<>!=") and not expr.startswith("==", i):
            out.append("==")
            i += 1
            continue
        out.append(c)
        i += 1
    if quote:
        raise ParameterError(f"where={expr!r} is invalid: unterminated string")
    text = "".join(out)
    # keywords outside quotes: split on quoted spans and lower-case only the rest
    pieces = re.split(r"('(?:[^']*)'|\"(?:[^\"]*)\")", text)
    return "".join(
        p if p[:1] in "'\"" else _WORDS.sub(lambda m: m.group(1).lower(), p) for p in pieces
    )


def query(df, where: str):
    """Filter a results DataFrame with an SQL-like expression (see :func:`translate_where`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"family": ["mikant", "clos"], "load": [0.5, 0.5]})
    >>> query(df, "family='mikant'")["family"].tolist()
    ['mikant']
    """
    text = translate_where(where)
    try:
        out = df.query(text, engine="python")
    except Exception as exc:  # pandas raises many kinds (UndefinedVariableError, SyntaxError...)
        m = re.search(r"name '([^']+)' is not defined", str(exc))
        if m:
            raise ParameterError(
                f"where={where!r} is invalid: unknown column {m.group(1)!r}"
                f"{closest(m.group(1), map(str, df.columns))}; columns: "
                f"{', '.join(map(str, df.columns))}"
            ) from None
        raise ParameterError(f"where={where!r} is invalid: {type(exc).__name__}: {exc}") from None
    out.attrs = dict(df.attrs)
    return out
