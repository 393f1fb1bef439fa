"""Per-rank operation lists with dependencies, as struct-of-arrays numpy.

The form LogGOPSim's GOAL language describes and a closed-loop packet model executes:
each operation is a send, a receive or a local computation of one rank; an operation
starts when the operations it ``requires`` have completed and those it ``irequires``
have started. A receive completes when the matching send's message has arrived; sends
and receives match by (source, destination, tag) in the order each rank lists them
(MPI's non-overtaking rule).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import InputFileError, ResourceError

SEND, RECV, CALC = 0, 1, 2
KIND_NAMES = ("send", "recv", "calc")
REQUIRES, IREQUIRES = 0, 1


@dataclass(frozen=True, eq=False)
class Schedule:
    """Operations of every rank (sorted by rank), their dependencies and their matches.

    Attributes
    ----------
    ranks : int
        Number of ranks.
    rank_ptr : (ranks + 1,) int64
        Operations of rank r are ``rank_ptr[r]:rank_ptr[r + 1]``.
    rank : (n,) int32
        Rank of each operation.
    kind : (n,) int8
        ``SEND``, ``RECV`` or ``CALC``.
    peer : (n,) int32
        Destination of a send, source of a receive, ``-1`` for a computation.
    nbytes : (n,) int64
        Bytes of a send or receive; for a computation its duration in nanoseconds.
    tag : (n,) int32
        Message tag (``0`` for a computation).
    cpu, nic : (n,) int16
        GOAL's optional ``cpu`` and ``nic`` fields (kept for round trips).
    dep_ptr : (n + 1,) int64
        Dependencies of operation i are ``dep_idx[dep_ptr[i]:dep_ptr[i + 1]]``.
    dep_idx : (m,) int64
        Operations required.
    dep_kind : (m,) int8
        ``REQUIRES`` (must have completed) or ``IREQUIRES`` (must have started).
    match : (n,) int64
        The matching receive of a send and the matching send of a receive (``-1``: none,
        or a computation); set by :func:`check_schedule`.
    line : (n,) int64
        Line of each operation in the file it was read from (``0``: generated).
    """

    ranks: int
    rank_ptr: np.ndarray
    rank: np.ndarray
    kind: np.ndarray
    peer: np.ndarray
    nbytes: np.ndarray
    tag: np.ndarray
    cpu: np.ndarray
    nic: np.ndarray
    dep_ptr: np.ndarray
    dep_idx: np.ndarray
    dep_kind: np.ndarray
    match: np.ndarray
    line: np.ndarray

    @property
    def n_ops(self) -> int:
        """Number of operations."""
        return int(self.rank.shape[0])

    def describe(self, i: int) -> str:
        """One operation in words, for messages (``"rank 3 op 2 (recv 8b from 2 tag 0)"``)."""
        i = int(i)
        r = int(self.rank[i])
        k = int(self.kind[i])
        where = f"line {int(self.line[i])}, " if self.line[i] > 0 else ""
        if k == CALC:
            what = f"calc {int(self.nbytes[i])}"
        else:
            word = "to" if k == SEND else "from"
            what = f"{KIND_NAMES[k]} {int(self.nbytes[i])}b {word} {int(self.peer[i])} tag {int(self.tag[i])}"
        return f"{where}rank {r} op {i - int(self.rank_ptr[r])} ({what})"


def make_schedule(
    ranks: int,
    rank,
    kind,
    peer,
    nbytes,
    tag,
    dep_ptr,
    dep_idx,
    dep_kind,
    cpu=None,
    nic=None,
    line=None,
) -> Schedule:
    """Assemble a :class:`Schedule` from arrays already sorted by rank (stable).

    Parameters
    ----------
    ranks : int
        Number of ranks.
    rank, kind, peer, nbytes, tag : array_like
        Per operation, see :class:`Schedule`.
    dep_ptr, dep_idx, dep_kind : array_like
        Dependencies as CSR.
    cpu, nic, line : array_like, optional
        GOAL's fields and source lines (zeros if omitted).

    Returns
    -------
    Schedule
        With ``match`` unset (all ``-1``); :func:`check_schedule` fills it.
    """
    rank = np.ascontiguousarray(rank, np.int32)
    n = rank.shape[0]
    zeros = np.zeros(n, np.int16)
    rank_ptr = np.zeros(ranks + 1, np.int64)
    rank_ptr[1:] = np.cumsum(np.bincount(rank, minlength=ranks))
    return Schedule(
        ranks=int(ranks),
        rank_ptr=rank_ptr,
        rank=rank,
        kind=np.ascontiguousarray(kind, np.int8),
        peer=np.ascontiguousarray(peer, np.int32),
        nbytes=np.ascontiguousarray(nbytes, np.int64),
        tag=np.ascontiguousarray(tag, np.int32),
        cpu=zeros if cpu is None else np.ascontiguousarray(cpu, np.int16),
        nic=zeros if nic is None else np.ascontiguousarray(nic, np.int16),
        dep_ptr=np.ascontiguousarray(dep_ptr, np.int64),
        dep_idx=np.ascontiguousarray(dep_idx, np.int64),
        dep_kind=np.ascontiguousarray(dep_kind, np.int8),
        match=np.full(n, -1, np.int64),
        line=np.zeros(n, np.int64) if line is None else np.ascontiguousarray(line, np.int64),
    )


def expand(phases, ranks: int, max_ops: int = 50_000_000) -> Schedule:
    """Operation lists of a phased collective.

    Step t of the collective (each copy of each phase, in order) becomes, at every rank
    taking part, its sends then its receives of that step, all tagged ``t``; each of them
    requires every operation of the rank's previous step (the data a step forwards was
    received in the step before). Ranks run ahead of one another where the algorithm
    lets them: there is no barrier between steps.

    Parameters
    ----------
    phases : sequence of Phase
        The collective's phases.
    ranks : int
        Number of ranks.
    max_ops : int
        Refuse a schedule of more operations than this (``ResourceError``).

    Returns
    -------
    Schedule
        Checked (``match`` filled).

    Raises
    ------
    ResourceError
        If the schedule has more than ``max_ops`` operations.

    Examples
    --------
    >>> from fattree.traffic.workloads.base import phase
    >>> s = expand([phase("ring", [0, 1], [1, 0], 4, repeat=2)], 2)
    >>> s.kind.tolist(), s.tag.tolist(), s.dep_ptr.tolist()
    ([0, 1, 0, 1, 0, 1, 0, 1], [0, 0, 1, 1, 0, 0, 1, 1], [0, 0, 0, 2, 4, 4, 4, 6, 8])
    """
    total = 2 * sum(ph.messages * ph.repeat for ph in phases)
    if total > max_ops:
        raise ResourceError(
            f"the schedule has {total:,} operations, more than max_ops={max_ops:,}; "
            "use fewer ranks (the flow model runs the phases without expanding them)"
        )
    srcs, dsts, sizes, steps = [], [], [], []
    t = 0
    for ph in phases:
        m, r = ph.messages, ph.repeat
        psrc, pdst, pbytes = ph.arrays()
        srcs.append(np.tile(psrc, r))
        dsts.append(np.tile(pdst, r))
        sizes.append(np.tile(pbytes, r))
        steps.append(np.repeat(np.arange(t, t + r, dtype=np.int64), m))
        t += r
    src = np.concatenate(srcs) if srcs else np.zeros(0, np.int32)
    dst = np.concatenate(dsts) if dsts else np.zeros(0, np.int32)
    size = np.concatenate(sizes) if sizes else np.zeros(0, np.int64)
    step = np.concatenate(steps) if steps else np.zeros(0, np.int64)
    del srcs, dsts, sizes, steps
    m = src.shape[0]
    rank = np.concatenate([src, dst])
    peer = np.concatenate([dst, src])
    kind = np.concatenate([np.zeros(m, np.int8), np.ones(m, np.int8)])
    nbytes = np.concatenate([size, size])
    tag = np.concatenate([step, step])
    order = np.lexsort((np.arange(2 * m), kind, tag, rank))
    rank, peer, kind, nbytes, tag = rank[order], peer[order], kind[order], nbytes[order], tag[order]
    n = 2 * m
    if n:
        new = np.ones(n, bool)
        new[1:] = (rank[1:] != rank[:-1]) | (tag[1:] != tag[:-1])
        starts = np.flatnonzero(new)
        lens = np.diff(np.append(starts, n))
        grank = rank[starts]
        has_prev = np.zeros(len(starts), bool)
        has_prev[1:] = grank[1:] == grank[:-1]
        prev_start = np.where(has_prev, np.roll(starts, 1), 0)
        prev_len = np.where(has_prev, np.roll(lens, 1), 0)
        gid = np.repeat(np.arange(len(starts)), lens)
        ndeps = prev_len[gid]
    else:
        ndeps = np.zeros(0, np.int64)
        prev_start = np.zeros(0, np.int64)
        gid = np.zeros(0, np.int64)
    dep_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(ndeps, out=dep_ptr[1:])
    nnz = int(dep_ptr[-1])
    owner = np.repeat(np.arange(n), ndeps)
    dep_idx = prev_start[gid][owner] + (np.arange(nnz) - dep_ptr[:-1][owner])
    del src, dst, size, step, order, gid, owner, prev_start, ndeps  # before the check's peak
    sched = make_schedule(
        ranks,
        rank,
        kind,
        peer,
        nbytes,
        tag.astype(np.int32),
        dep_ptr,
        dep_idx,
        np.zeros(nnz, np.int8),
    )
    del rank, peer, kind, nbytes, tag, dep_ptr, dep_idx
    # acyclic by construction: a step's operations require the step before, and each
    # message goes from a send to a receive of the same step
    return check_schedule(sched, "schedule", acyclic=False)


def check_schedule(s: Schedule, where: str = "schedule", acyclic: bool = True) -> Schedule:
    """Match sends to receives and refuse a schedule that cannot run to completion.

    Refused, before any simulation: a rank or peer out of range, a message to itself,
    a receive that no send matches (named by rank and operation), a dependency cycle or
    a deadlock through messages (the cycle is named operation by operation).

    Parameters
    ----------
    s : Schedule
        The schedule; its ``match`` array is filled in place.
    where : str
        The file or source, for messages.
    acyclic : bool
        Also look for dependency cycles and deadlocks through messages (False: the
        caller built the schedule acyclic, as :func:`expand` does).

    Returns
    -------
    Schedule
        ``s``.

    Raises
    ------
    InputFileError
        Naming the file, the line (or rank and operation) and what is wrong.
    """
    msg = s.kind != CALC
    bad = msg & ((s.peer < 0) | (s.peer >= s.ranks))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputFileError(
            f"{where}: {s.describe(i)}: peer {int(s.peer[i])} is not a rank 0..{s.ranks - 1}"
        )
    selfmsg = msg & (s.peer == s.rank)
    if selfmsg.any():
        i = int(np.flatnonzero(selfmsg)[0])
        raise InputFileError(f"{where}: {s.describe(i)}: a rank cannot send to itself")
    # match the k-th send (src, dst, tag) with the k-th receive of the same key
    send = np.flatnonzero(s.kind == SEND)
    recv = np.flatnonzero(s.kind == RECV)
    key_s = (s.rank[send].astype(np.int64) * s.ranks + s.peer[send]) * (1 << 32) + s.tag[
        send
    ].astype(np.int64)
    key_r = (s.peer[recv].astype(np.int64) * s.ranks + s.rank[recv]) * (1 << 32) + s.tag[
        recv
    ].astype(np.int64)
    os_ = np.lexsort((send, key_s))
    or_ = np.lexsort((recv, key_r))
    ks, kr = key_s[os_], key_r[or_]
    # occurrence number of each op within its key
    occ_r = np.arange(len(kr)) - np.searchsorted(kr, kr, side="left")
    # position of (key, occ) of each receive among the sends
    lo = np.searchsorted(ks, kr, side="left")
    hi = np.searchsorted(ks, kr, side="right")
    ok = occ_r < (hi - lo)
    if not ok.all():
        j = int(or_[np.flatnonzero(~ok)[0]])
        i = int(recv[j])
        raise InputFileError(
            f"{where}: {s.describe(i)} has no matching send (deadlock: rank "
            f"{int(s.peer[i])} sends no such message)"
        )
    match = s.match
    match[:] = -1
    si = send[os_[lo + occ_r]]
    ri = recv[or_]
    match[ri] = si
    match[si] = ri
    if acyclic:
        _check_acyclic(s, where)
    return s


def _check_acyclic(s: Schedule, where: str) -> None:
    """Kahn's algorithm over dependencies plus send -> receive edges, a frontier at a time."""
    n = s.n_ops
    if n == 0:
        return
    dep_owner = np.repeat(np.arange(n), np.diff(s.dep_ptr))
    recvs = np.flatnonzero((s.kind == RECV) & (s.match >= 0))
    pred = np.concatenate([s.dep_idx, s.match[recvs]])
    succ = np.concatenate([dep_owner, recvs])
    if pred.size and (pred.min() < 0 or pred.max() >= n):
        raise InputFileError(f"{where}: a dependency names an operation that does not exist")
    indeg = np.bincount(succ, minlength=n).astype(np.int64)
    order = np.argsort(pred, kind="stable")
    succ_sorted = succ[order]
    sptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(pred, minlength=n), out=sptr[1:])
    frontier = np.flatnonzero(indeg == 0)
    done = 0
    while frontier.size:
        done += frontier.size
        cnt = sptr[frontier + 1] - sptr[frontier]
        tot = int(cnt.sum())
        if tot == 0:
            break
        base = np.repeat(sptr[frontier], cnt)
        off = np.arange(tot) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        nxt = succ_sorted[base + off]
        dec = np.bincount(nxt, minlength=n)
        touched = np.flatnonzero(dec)
        indeg[touched] -= dec[touched]
        frontier = touched[indeg[touched] == 0]
    if done == n:
        return
    # name one cycle: walk predecessors that are still blocked until one repeats
    blocked = indeg > 0
    preds_of = {}
    for p, q in zip(pred.tolist(), succ.tolist()):
        if blocked[p] and blocked[q]:
            preds_of.setdefault(q, p)
    start = int(np.flatnonzero(blocked)[0])
    seen: dict[int, int] = {}
    path = []
    v = start
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = preds_of.get(v, v)
    cycle = path[seen[v] :][::-1]
    through_msg = any(
        s.kind[b] == RECV and s.match[b] == a for a, b in zip(cycle, cycle[1:] + cycle[:1])
    )
    what = "deadlock (a cycle through messages)" if through_msg else "dependency cycle"
    chain = " -> ".join(s.describe(i) for i in cycle[:8])
    more = f" -> ... ({len(cycle)} operations)" if len(cycle) > 8 else f" -> {s.describe(cycle[0])}"
    raise InputFileError(f"{where}: {what}: {chain}{more}")


__all__ = [
    "SEND",
    "RECV",
    "CALC",
    "KIND_NAMES",
    "REQUIRES",
    "IREQUIRES",
    "Schedule",
    "make_schedule",
    "expand",
    "check_schedule",
]
