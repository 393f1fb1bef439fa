"""LogGOPSim's GOAL text format: read a schedule, write one.

Supported (what LogGOPSim's ``txt2bin`` accepts and its schedgen and Schedgen2 write)::

    num_ranks 2
    rank 0 {
    l1: send 8b to 1 tag 0
    l2: calc 100 cpu 0
    l3: recv 8b from 1 tag 0 cpu 0 nic 0
    l3 requires l1
    l2 irequires l1
    }

``//`` and ``/* ... */`` comments; labels ``[A-Za-z][A-Za-z0-9_]*`` (scoped to their rank
block, as ``txt2bin`` scopes them; Schedgen2 numbers them across the whole file);
operations without a label; ``tag`` (default 0), ``cpu`` and ``nic`` in that order;
``b`` after the size with or without a space; dependency lines after the operations
(or before: they are resolved at the end of the block). Refused, naming the line: the
wildcards ``-1`` (any source, any tag), an operation outside a rank block, a rank out of
range or given twice, an undefined or duplicate label, anything else. Then, before any
simulation, a receive with no matching send and any dependency cycle or deadlock
(:func:`~fattree.traffic.workloads.schedule.check_schedule`).

Reference: T. Hoefler, C. Siebert, A. Lumsdaine, "Group Operation Assembly Language - A
Flexible Way to Express Collective Communication", ICPP-W 2009; LogGOPSim's
``txt2bin.re`` (the grammar).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ...errors import InputFileError
from .schedule import CALC, IREQUIRES, RECV, REQUIRES, SEND, Schedule, check_schedule, make_schedule

_LABEL = r"[A-Za-z][A-Za-z0-9_]*"
_INT = r"-?[0-9]+"
_OP = re.compile(
    rf"^(?:({_LABEL})\s*:\s*)?"
    rf"(?:(send|recv)\s+([0-9]+)\s*b\s+(to|from)\s+({_INT})(?:\s+tag\s+({_INT}))?"
    rf"|(calc)\s+([0-9]+))"
    r"(?:\s+cpu\s+([0-9]+))?(?:\s+nic\s+([0-9]+))?\s*$"
)
_DEP = re.compile(rf"^({_LABEL})\s+(requires|irequires)\s+({_LABEL})\s*$")
_RANK = re.compile(r"^rank\s+([0-9]+)\s*\{\s*$")
_NUM = re.compile(r"^num_ranks\s+([0-9]+)\s*$")
_MAX_FIELD = 32767  # cpu and nic are stored as int16


def _strip_comments(text: str) -> list[str]:
    """Lines with ``/* */`` and ``//`` comments blanked (line numbers kept)."""
    if "/*" in text:
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    lines = text.split("\n")
    if "//" in text:
        lines = [ln.split("//", 1)[0] for ln in lines]
    return lines


def read_goal(path) -> Schedule:
    """Read a GOAL text file into a checked :class:`Schedule`.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    Schedule
        Operations sorted by rank (file order within a rank), sends matched to receives.

    Raises
    ------
    InputFileError
        The file is missing, a line is not supported GOAL (named by number), a receive
        has no matching send, or the dependencies form a cycle or deadlock (named).

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".goal", delete=False)
    >>> _ = f.write("num_ranks 2\\nrank 0 {\\nl1: send 8b to 1 tag 0\\n}\\n"
    ...             "rank 1 {\\nl2: recv 8b from 0 tag 0\\n}\\n")
    >>> f.close()
    >>> s = read_goal(f.name); os.unlink(f.name)
    >>> s.kind.tolist(), s.match.tolist()
    ([0, 1], [1, 0])

    References
    ----------
    Hoefler et al., ICPP-W 2009 (GOAL); LogGOPSim ``txt2bin.re``.
    """
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise InputFileError(f"goal file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(f"goal file {str(p)!r} cannot be read: {exc}") from None
    where = str(p)
    lines = _strip_comments(text)
    num_ranks = None
    cur = -1  # rank of the open block
    seen: set[int] = set()
    rank, kind, peer, nbytes, tag, cpu, nic, lineno = [], [], [], [], [], [], [], []
    deps: list[tuple[int, int, int, int]] = []  # (op, required op, kind, line)
    labels: dict[str, int] = {}
    pending: list[tuple[str, str, int, int]] = []  # (label a, label b, kind, line)

    def fail(no: int, what: str):
        raise InputFileError(f"{where}, line {no}: {what}: {lines[no - 1].strip()!r}")

    def close_block(no: int) -> None:
        for a, b, k, ln in pending:
            for lab in (a, b):
                if lab not in labels:
                    raise InputFileError(
                        f"{where}, line {ln}: label {lab!r} is not defined in rank {cur}"
                    )
            deps.append((labels[a], labels[b], k, ln))
        pending.clear()
        labels.clear()

    for no, raw in enumerate(lines, 1):
        ln = raw.strip()
        if not ln:
            continue
        if cur < 0:
            m = _NUM.match(ln)
            if m:
                if num_ranks is not None:
                    fail(no, "num_ranks is given twice")
                num_ranks = int(m.group(1))
                if num_ranks < 1:
                    fail(no, "num_ranks must be at least 1")
                continue
            m = _RANK.match(ln)
            if m:
                if num_ranks is None:
                    fail(no, "a rank block before num_ranks")
                r = int(m.group(1))
                if r >= num_ranks:
                    fail(no, f"rank {r} is out of range 0..{num_ranks - 1}")
                if r in seen:
                    fail(no, f"rank {r} has a second block")
                seen.add(r)
                cur = r
                continue
            if _OP.match(ln) or _DEP.match(ln):
                fail(no, "an operation outside a 'rank N {' block")
            fail(no, "expected 'num_ranks N' or 'rank N {'")
        if ln == "}":
            close_block(no)
            cur = -1
            continue
        m = _OP.match(ln)
        if m:
            label, sr, size, word, target, tg, calc, amount, c, n = m.groups()
            if sr:
                if (sr == "send") != (word == "to"):
                    fail(no, f"'{sr}' takes '{'to' if sr == 'send' else 'from'}'")
                if target.startswith("-"):
                    fail(no, "the wildcard -1 (any source) is not supported")
                if tg is not None and tg.startswith("-"):
                    fail(no, "the wildcard tag -1 (any tag) is not supported")
                t = int(tg) if tg is not None else 0
                if t >= 2**31:
                    fail(no, "a tag of at most 2**31 - 1")
                kind.append(SEND if sr == "send" else RECV)
                peer.append(int(target))
                nbytes.append(int(size))
                tag.append(t)
            else:
                kind.append(CALC)
                peer.append(-1)
                nbytes.append(int(amount))
                tag.append(0)
            if (c and int(c) > _MAX_FIELD) or (n and int(n) > _MAX_FIELD):
                fail(no, f"cpu and nic are at most {_MAX_FIELD}")
            if nbytes[-1] >= 2**62:
                fail(no, "a size of at most 2**62")
            cpu.append(int(c) if c else 0)
            nic.append(int(n) if n else 0)
            rank.append(cur)
            lineno.append(no)
            if label is not None:
                if label in labels:
                    fail(no, f"label {label!r} is defined twice in rank {cur}")
                labels[label] = len(kind) - 1
            continue
        m = _DEP.match(ln)
        if m:
            pending.append(
                (m.group(1), m.group(3), IREQUIRES if m.group(2) == "irequires" else REQUIRES, no)
            )
            continue
        fail(
            no,
            "not a supported GOAL line (send/recv/calc, 'lA requires lB', "
            "'lA irequires lB' or '}')",
        )
    if cur >= 0:
        raise InputFileError(f"{where}: rank {cur}'s block is not closed with '}}'")
    if num_ranks is None:
        raise InputFileError(f"{where}: no 'num_ranks N' line")
    # operations are already grouped by rank block; sort blocks by rank (stable)
    rank_a = np.asarray(rank, np.int64)
    order = np.argsort(rank_a, kind="stable")
    newpos = np.empty(len(order), np.int64)
    newpos[order] = np.arange(len(order))
    if deps:
        d = np.asarray(deps, np.int64)
        owner = newpos[d[:, 0]]
        req = newpos[d[:, 1]]
        o2 = np.lexsort((d[:, 3], owner))
        owner, req, dk = owner[o2], req[o2], d[o2, 2]
    else:
        owner = req = dk = np.zeros(0, np.int64)
    n_ops = len(order)
    dep_ptr = np.zeros(n_ops + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=n_ops), out=dep_ptr[1:])

    def arr(x, dt):
        return np.asarray(x, dt)[order] if n_ops else np.zeros(0, dt)

    sched = make_schedule(
        num_ranks,
        arr(rank, np.int32),
        arr(kind, np.int8),
        arr(peer, np.int32),
        arr(nbytes, np.int64),
        arr(tag, np.int32),
        dep_ptr,
        req,
        dk,
        cpu=arr(cpu, np.int16),
        nic=arr(nic, np.int16),
        line=arr(lineno, np.int64),
    )
    return check_schedule(sched, where)


def goal_text(s: Schedule):
    """The GOAL text of a schedule, line by line (labels numbered across the file).

    Parameters
    ----------
    s : Schedule

    Yields
    ------
    str
        Lines with their newline, as Schedgen2 writes them: ``num_ranks``, then each
        rank's operations followed by its dependency lines.
    """
    yield f"num_ranks {s.ranks}\n\n"
    kinds, peers, sizes, tags = s.kind.tolist(), s.peer.tolist(), s.nbytes.tolist(), s.tag.tolist()
    cpus, nics = s.cpu.tolist(), s.nic.tolist()
    ptr, idx, dk = s.dep_ptr.tolist(), s.dep_idx.tolist(), s.dep_kind.tolist()
    rp = s.rank_ptr.tolist()
    for r in range(s.ranks):
        lo, hi = rp[r], rp[r + 1]
        out = [f"rank {r} {{\n"]
        for i in range(lo, hi):
            k = kinds[i]
            extra = (f" cpu {cpus[i]}" if cpus[i] or nics[i] else "") + (
                f" nic {nics[i]}" if nics[i] else ""
            )
            if k == SEND:
                out.append(f"l{i + 1}: send {sizes[i]}b to {peers[i]} tag {tags[i]}{extra}\n")
            elif k == RECV:
                out.append(f"l{i + 1}: recv {sizes[i]}b from {peers[i]} tag {tags[i]}{extra}\n")
            else:
                out.append(
                    f"l{i + 1}: calc {sizes[i]}" + (f" cpu {cpus[i]}" if cpus[i] else "") + "\n"
                )
        for i in range(lo, hi):
            for j in range(ptr[i], ptr[i + 1]):
                word = "irequires" if dk[j] == IREQUIRES else "requires"
                out.append(f"l{i + 1} {word} l{idx[j] + 1}\n")
        out.append("}\n\n")
        yield "".join(out)


def write_goal(s: Schedule, path) -> None:
    """Write a schedule as a GOAL text file (``-`` is not special: a path).

    Parameters
    ----------
    s : Schedule
        The schedule (e.g. ``make_workload(...).schedule()``).
    path : str or Path
        Where to write.

    Examples
    --------
    >>> import tempfile, os
    >>> from fattree.traffic.workloads.base import phase
    >>> from fattree.traffic.workloads.schedule import expand
    >>> s = expand([phase("x", [0], [1], 8)], 2)
    >>> f = tempfile.mktemp(suffix=".goal"); write_goal(s, f)
    >>> read_goal(f).nbytes.tolist(); os.unlink(f)
    [8, 8]
    """
    with open(path, "w") as fh:
        for chunk in goal_text(s):
            fh.write(chunk)


__all__ = ["read_goal", "write_goal", "goal_text"]
