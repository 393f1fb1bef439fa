"""Files in and out: one rule for every input file fattree reads and every file it writes.

Inputs (:func:`open_input`, :func:`read_input`): only a regular file is read. A named pipe
(FIFO), a device (``/dev/zero``), a socket, a process substitution (``<(cat f)``, a pipe
that can be read only once) or a folder is refused with one line, before anything is read:
a pipe would block forever or be consumed by the first look at it, a device never ends.
The file is opened without blocking (a FIFO with no writer returns at once) and checked
on the open descriptor, so what is checked is what is read. A size cap
(:data:`MAX_INPUT_BYTES` unless the reader states its own) refuses a file too large to
hold in memory, naming its size and the cap.

Outputs (:func:`write_atomic`): the content is written to a temporary file next to the
target, flushed to disk and renamed over it, so a reader (or a later run) never sees a
half-written file: on a full disk or an unwritable sink the target is left as it was. On
failure the content is written once more to the system's temporary folder, and the one-line
error names where it was kept (:class:`~fattree.errors.OutputFileError`). An existing
target that is not a regular file (``/dev/full``, a FIFO) is refused before any work
(:func:`check_output_target`).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from .errors import InputFileError, OutputFileError

__all__ = [
    "MAX_INPUT_BYTES",
    "open_input",
    "read_input",
    "check_output_target",
    "write_atomic",
]

#: the largest input file read whole (1 GiB); GraphML is streamed and has its own cap
MAX_INPUT_BYTES = 1 << 30

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO) or a process substitution such as <(cat f)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def _kind(mode: int) -> str:
    for test, words in _KINDS:
        if test(mode):
            return words
    return "not a regular file"


def open_input(path, what: str, *, limit: int | None = MAX_INPUT_BYTES) -> IO[bytes]:
    """Open a user's input file for reading in binary, refusing what is not a regular file.

    Parameters
    ----------
    path : str or Path
        The file.
    what : str
        How messages name it: ``"trace file"`` (``trace file 't.txt' ...``), or a
        parameter ending in ``=`` (``"prices="``: ``prices='p.toml' ...``).
    limit : int or None
        Largest size accepted in bytes (None: no cap, for streamed readers).

    Returns
    -------
    file object
        Open in binary mode, positioned at the start; the caller closes it.

    Raises
    ------
    InputFileError
        Missing or unreadable file, not a regular file, or larger than ``limit``.

    Examples
    --------
    >>> open_input("/dev/zero", "input")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fattree.errors.InputFileError: input '/dev/zero' is a character device, not a regular file; ...
    """
    text = os.fspath(path)
    name = _name(what, text)
    if "\x00" in str(text):
        raise InputFileError(f"{name} is not a valid path (a NUL byte)")
    try:
        # O_NONBLOCK: opening a FIFO that no one writes to returns at once instead of
        # waiting for a writer; the check below then refuses it
        fd = os.open(text, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputFileError(f"{name} cannot be read: it does not exist") from None
    except IsADirectoryError:
        raise InputFileError(f"{name} is a directory, not a file") from None
    except OSError as exc:
        raise InputFileError(f"{name} cannot be read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputFileError(f"{name} is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(
                f"{name} is {_kind(st.st_mode)}, not a regular file; "
                "save the content to a file and give that"
            )
        if limit is not None and st.st_size > limit:
            raise InputFileError(
                f"{name} holds {st.st_size:,} bytes, more than the {limit:,} bytes read at most"
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _name(what: str, path) -> str:
    """``prices='p.toml'`` for a parameter (``what`` ends in ``=``), else ``trace file 't'``."""
    return f"{what}{str(path)!r}" if what.endswith("=") else f"{what} {str(path)!r}"


def read_input(path, what: str, *, limit: int | None = MAX_INPUT_BYTES, text: bool = True) -> Any:
    """Read a whole input file (a regular file, at most ``limit`` bytes; :func:`open_input`).

    Text is UTF-8; a leading byte-order mark (``\\ufeff``, written by some editors) is
    dropped, so it never becomes part of the first name or key.

    Parameters
    ----------
    path : str or Path
        The file.
    what : str
        How messages name it.
    limit : int or None
        Largest size accepted in bytes.
    text : bool
        True: decode UTF-8 and return ``str``; False: return ``bytes``.

    Returns
    -------
    str or bytes
        The content.

    Raises
    ------
    InputFileError
        As :func:`open_input`, or the text is not UTF-8 (the message names the line).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as fh:
    ...     _ = fh.write(b"\\xef\\xbb\\xbfn0 s0\\n")
    >>> read_input(fh.name, "edge list")
    'n0 s0\\n'
    """
    name = _name(what, os.fspath(path))
    with open_input(path, what, limit=limit) as fh:
        try:
            data = fh.read() if limit is None else fh.read(limit + 1)
        except OSError as exc:
            raise InputFileError(f"{name} cannot be read: {exc.strerror or exc}") from None
    if limit is not None and len(data) > limit:  # grew while being read
        raise InputFileError(f"{name} holds more than {limit:,} bytes")
    if not text:
        return data
    try:
        out = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputFileError(
            f"{name}: cannot read line {line}: not UTF-8 text (a binary file?)"
        ) from None
    return out[1:] if out.startswith("\ufeff") else out


def check_output_target(path, param: str = "output") -> None:
    """Refuse an existing output target that is not a regular file (``/dev/full``, a FIFO,
    a socket): writing there loses the result or blocks; renaming over it would replace it.

    Parameters
    ----------
    path : str or Path
        The output file.
    param : str
        The option's name, for the message.

    Raises
    ------
    OutputFileError
        The target exists and is not a regular file.

    Examples
    --------
    >>> check_output_target("/dev/full", "output")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fattree.errors.OutputFileError: output='/dev/full' is a character device, not a regular file; ...
    """
    try:
        st = os.stat(path)
    except OSError:
        return  # does not exist (yet): the folder checks are the caller's
    if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        raise OutputFileError(
            f"{param}={str(path)!r} is {_kind(st.st_mode)}, not a regular file; give a "
            "file name to write"
        )


def _create_temp(target: Path) -> tuple[int, Path]:
    """A new temporary file next to ``target`` (same folder: the rename is atomic), with
    the permissions the target will keep: those of the file it replaces, else those of a
    new file (0666 less the umask), not ``mkstemp``'s owner-only 0600, so that a report or
    a results file is as readable as any other file its user writes there."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    if hasattr(os, "fchmod"):
        try:
            os.fchmod(fd, mode)
        except OSError:
            pass  # (a file system without modes: the file is written all the same)
    return fd, Path(name)


def _umask() -> int:
    """The process's umask, read without changing it where the system shows it."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)  # (elsewhere: set and restore, as the standard library does)
    os.umask(old)
    return old


def _write_file(fd: int, write: Callable[[IO], Any], binary: bool) -> None:
    mode = "wb" if binary else "w"
    kw = {} if binary else {"encoding": "utf-8", "newline": ""}
    with os.fdopen(fd, mode, **kw) as fh:
        write(fh)
        fh.flush()
        os.fsync(fh.fileno())


def _keep_elsewhere(target: Path, write, binary: bool) -> Path | None:
    """Write the content once more in the system's temporary folder; its path, or None."""
    try:
        fd, name = tempfile.mkstemp(prefix=f"fattree-{target.stem}-", suffix=target.suffix)
    except OSError:
        return None
    kept = Path(name)
    try:
        _write_file(fd, write, binary)
    except Exception:
        kept.unlink(missing_ok=True)
        return None
    return kept


def write_atomic(
    path, write: Callable[[IO], Any], *, binary: bool = True, what: str = "output", keep=True
) -> Path:
    """Write a file all at once or not at all: temporary file next to it, fsync, rename.

    Parameters
    ----------
    path : str or Path
        The target file.
    write : callable
        ``write(fileobj)`` writes the content (it may be called a second time to keep the
        content elsewhere when the target cannot be written).
    binary : bool
        Binary file object (True) or UTF-8 text with newlines as written (False).
    what : str
        How the message names the output (``"output"``, ``"report"``).
    keep : bool
        On failure keep the content in the system's temporary folder and say where.

    Returns
    -------
    Path
        The target.

    Raises
    ------
    OutputFileError
        The target cannot be written (full disk, unwritable folder, not a regular
        file); the target is left as it was; the message says where the content was kept.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.txt"
    >>> _ = write_atomic(p, lambda fh: fh.write("ok\\n"), binary=False)
    >>> p.read_text()
    'ok\\n'
    """
    target = Path(path)
    check_output_target(target, what)
    tmp: Path | None = None
    written = False
    try:
        fd, tmp = _create_temp(target)
        _write_file(fd, write, binary)
        written = True
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        why = exc.strerror or str(exc)
        kept = None
        if tmp is not None and written:
            kept = tmp  # written in full, only the rename failed: keep it where it is
        else:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
            if keep:
                kept = _keep_elsewhere(target, write, binary)
        where = (
            f"; the result was kept in {kept}"
            if kept is not None
            else "; nothing could be kept (the temporary folder cannot be written either)"
            if keep
            else ""
        )
        raise OutputFileError(
            f"{what}={str(target)!r} could not be written: {why}{where}"
        ) from None
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise
    try:  # the rename itself on disk (best effort: some file systems refuse a folder fd)
        dfd = os.open(target.parent if str(target.parent) else ".", os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
    return target
