"""The built-in collectives and their algorithms, as phases (see :mod:`.base`).

Sizes follow nccl-tests (docs/workloads.md): all-reduce, broadcast and reduce move a
buffer of ``size`` bytes; all-gather's ``size`` is its output (each rank contributes
``size / p``), reduce-scatter's its input (each rank keeps ``size / p``), all-to-all's the
buffer each rank sends (``size / p`` to every peer). Pieces of ``size / p`` are rounded up
to whole bytes, so every step of a ring moves the same bytes (the last piece is padded,
as NCCL pads to its element size).

References: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of Collective
Communication Operations in MPICH", IJHPCA 19(1), 2005 (ring, recursive doubling and
halving, Rabenseifner's all-reduce, pairwise all-to-all, binomial trees, dissemination
barrier); NCCL's ``src/graph/trees.cc`` (the binary tree and the double binary tree);
the two-level ring is the hierarchical all-reduce of Horovod and of NCCL's 2D rings.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ...errors import ParameterError
from .._options import Opt
from .base import (
    Context,
    Phase,
    lazy_phase,
    phase,
    register_algorithm,
    register_collective,
)


def _ceil(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def _log2(p: int) -> int:
    return int(p).bit_length() - 1


def _ring(ctx: Context, name: str, repeat: int, piece: int) -> Phase:
    r = np.arange(ctx.ranks)
    return phase(name, r, (r + 1) % ctx.ranks, piece, repeat)


def _halving(ctx: Context, piece: int) -> list[Phase]:
    """Recursive halving: partners at distance p/2, p/4, ..., 1 exchange half of what is left."""
    p, r = ctx.ranks, np.arange(ctx.ranks)
    out = []
    for k in range(1, _log2(p) + 1):
        d = p >> k
        out.append(phase(f"halving distance {d}", r, r ^ d, piece * d))
    return out


def _doubling(ctx: Context, piece: int) -> list[Phase]:
    """Recursive doubling: partners at distance 1, 2, ..., p/2 exchange all they hold."""
    p, r = ctx.ranks, np.arange(ctx.ranks)
    out = []
    for k in range(_log2(p)):
        d = 1 << k
        out.append(phase(f"doubling distance {d}", r, r ^ d, piece * d))
    return out


# ---------------------------------------------------------------- all-reduce

register_collective(
    "allreduce",
    title="every rank ends with the element-wise sum of every rank's buffer",
    busbw=lambda p: 2 * (p - 1) / p,
    default="ring",
    size_meaning="the buffer each rank reduces",
    options=(Opt("chunks", "pipeline each tree message in this many pieces", 1, int, minimum=1),),
)


@register_algorithm(
    "allreduce",
    "ring",
    title="ring reduce-scatter then ring all-gather, 2(p-1) steps",
    source="Thakur et al. 2005 §4.4; NCCL ring",
)
def _allreduce_ring(ctx: Context) -> list[Phase]:
    piece = _ceil(ctx.size, ctx.ranks)
    return [
        _ring(ctx, "reduce-scatter", ctx.ranks - 1, piece),
        _ring(ctx, "all-gather", ctx.ranks - 1, piece),
    ]


@register_algorithm(
    "allreduce",
    "rhd",
    title="Rabenseifner: recursive-halving reduce-scatter, recursive-doubling all-gather",
    source="Thakur et al. 2005 §4.4 (Rabenseifner's algorithm)",
    power_of_two=True,
)
def _allreduce_rhd(ctx: Context) -> list[Phase]:
    piece = _ceil(ctx.size, ctx.ranks)
    return _halving(ctx, piece) + _doubling(ctx, piece)


def btree_parent(p: int, r: np.ndarray) -> np.ndarray:
    """Parent of each rank in NCCL's binary tree over ranks ``0..p-1`` (root 0: ``-1``).

    The tree is in-order by the lowest set bit: rank r's parent is ``(r ^ b) | (b << 1)``
    (or ``r ^ b`` past the last rank), ``b`` its lowest set bit; odd ranks are leaves.

    Parameters
    ----------
    p : int
        Ranks.
    r : int array
        Ranks whose parent is wanted.

    Returns
    -------
    int64 array

    Examples
    --------
    >>> btree_parent(8, np.arange(8)).tolist()
    [-1, 2, 4, 2, 0, 6, 4, 6]

    References
    ----------
    NCCL ``src/graph/trees.cc`` (``ncclGetBtree``).
    """
    r = np.asarray(r, np.int64)
    bit = r & -r
    up = (r ^ bit) | (bit << 1)
    up = np.where(up >= p, r ^ bit, up)
    return np.where(r == 0, -1, up)


def _depths(parent: np.ndarray) -> np.ndarray:
    depth = np.zeros(parent.shape[0], np.int64)
    cur = parent.copy()
    while (cur >= 0).any():
        depth += cur >= 0
        cur = np.where(cur >= 0, parent[np.maximum(cur, 0)], -1)
    return depth


def _tree_phases(ctx: Context, parents: list[np.ndarray], piece: int, what: str) -> list[Phase]:
    """Reduce up, then broadcast down, each of the trees at once, pipelined in ``chunks``.

    With C chunks and depth D, step t of the reduction moves chunk ``t - (D - l)`` over the
    edges into depth l (child at depth l); the steps whose active levels are equal are one
    phase repeated (the pipeline's steady state).
    """
    C = int(ctx.options.get("chunks", 1))
    chunk = _ceil(piece, C)
    trees = []
    for par in parents:
        child = np.flatnonzero(par >= 0)
        depth = _depths(par)
        trees.append((child, par[child], depth[child], int(depth.max())))
    out: list[Phase] = []
    for up in (True, False):
        steps = C + max(t[3] for t in trees) - 1
        runs: list[tuple[tuple, int]] = []
        for t in range(steps):
            key = []
            for _, _, _, D in trees:
                if up:  # level l active iff D - l <= t < D - l + C
                    lo, hi = max(1, D - t), min(D, D - t + C - 1)
                else:  # level l active iff l - 1 <= t < l - 1 + C
                    lo, hi = max(1, t - C + 2), min(D, t + 1)
                key.append((lo, hi) if lo <= hi else (0, -1))
            key = tuple(key)
            if runs and runs[-1][0] == key:
                runs[-1] = (key, runs[-1][1] + 1)
            else:
                runs.append((key, 1))
        for key, rep in runs:
            srcs, dsts = [], []
            for (child, par, lvl, _), (lo, hi) in zip(trees, key):
                m = (lvl >= lo) & (lvl <= hi)
                a, b = child[m], par[m]
                srcs.append(a if up else b)
                dsts.append(b if up else a)
            name = f"{what} {'reduce' if up else 'broadcast'} levels " + ",".join(
                f"{lo}-{hi}" for lo, hi in key
            )
            out.append(phase(name, np.concatenate(srcs), np.concatenate(dsts), chunk, rep))
    return out


@register_algorithm(
    "allreduce",
    "tree",
    title="binary tree: reduce to the root, broadcast back (chunks pipeline)",
    source="NCCL trees.cc binary tree; Thakur et al. 2005 §4.4",
)
def _allreduce_tree(ctx: Context) -> list[Phase]:
    r = np.arange(ctx.ranks)
    return _tree_phases(ctx, [btree_parent(ctx.ranks, r)], ctx.size, "tree")


def dtree_parents(p: int) -> tuple[np.ndarray, np.ndarray]:
    """Parents in NCCL's double binary tree: the tree, and its mirror (even p) or shift (odd p).

    Every rank is a leaf of one of the two trees, so each tree's interior ranks carry
    half of the data.

    Parameters
    ----------
    p : int
        Ranks.

    Returns
    -------
    (p,) int64, (p,) int64
        Parent of each rank in tree 0 and tree 1 (root: ``-1``).

    Examples
    --------
    >>> [t.tolist() for t in dtree_parents(4)]
    [[-1, 2, 0, 2], [1, 3, 1, -1]]

    References
    ----------
    NCCL ``src/graph/trees.cc`` (``ncclGetDtree``).
    """
    r = np.arange(p, dtype=np.int64)
    t0 = btree_parent(p, r)
    if p % 2:
        u = btree_parent(p, (r - 1) % p)
        t1 = np.where(u < 0, -1, (u + 1) % p)
    else:
        u = btree_parent(p, p - 1 - r)
        t1 = np.where(u < 0, -1, p - 1 - u)
    return t0, t1


@register_algorithm(
    "allreduce",
    "dtree",
    title="double binary tree: half the buffer over each of two complementary trees",
    source="NCCL trees.cc (double binary tree)",
)
def _allreduce_dtree(ctx: Context) -> list[Phase]:
    return _tree_phases(ctx, list(dtree_parents(ctx.ranks)), _ceil(ctx.size, 2), "dtree")


@register_algorithm(
    "allreduce",
    "hier",
    title="two-level: ring reduce-scatter inside each leaf switch, rings across, ring all-gather",
    source="hierarchical (2D-ring) all-reduce of Horovod and NCCL",
)
def _allreduce_hier(ctx: Context) -> list[Phase]:
    groups = ctx.groups
    sizes = np.bincount(groups)
    if (sizes != sizes[0]).any():
        shown = ", ".join(map(str, sizes[:8].tolist())) + (", ..." if len(sizes) > 8 else "")
        raise ParameterError(
            f"algorithm='hier' needs the same number of ranks on every leaf switch; the "
            f"placement gives {shown} (use ranks= a multiple of the nodes per leaf switch "
            "with placement=leaf)"
        )
    G, g = len(sizes), int(sizes[0])
    order = np.lexsort((np.arange(ctx.ranks), groups))
    member = order.reshape(G, g)  # member[j, i]: i-th rank of group j
    out = []
    c1 = _ceil(ctx.size, g)
    if g > 1:
        intra = phase(
            "leaf reduce-scatter", member.ravel(), np.roll(member, -1, axis=1).ravel(), c1, g - 1
        )
        out.append(intra)
    if G > 1:
        c2 = _ceil(c1, G)
        src, dst = member.ravel(), np.roll(member, -1, axis=0).ravel()
        out.append(phase("across reduce-scatter", src, dst, c2, G - 1))
        out.append(phase("across all-gather", src, dst, c2, G - 1))
    if g > 1:
        out.append(phase("leaf all-gather", intra.src, intra.dst, c1, g - 1))
    return out


# ---------------------------------------------------------------- reduce-scatter, all-gather

register_collective(
    "reducescatter",
    title="the element-wise sum, split: rank r keeps piece r",
    busbw=lambda p: (p - 1) / p,
    default="ring",
    size_meaning="the input buffer of each rank (each keeps size/p)",
)


@register_algorithm(
    "reducescatter",
    "ring",
    title="ring, p-1 steps of size/p",
    source="Thakur et al. 2005 §4.3; NCCL ring",
)
def _rs_ring(ctx: Context) -> list[Phase]:
    return [_ring(ctx, "reduce-scatter", ctx.ranks - 1, _ceil(ctx.size, ctx.ranks))]


@register_algorithm(
    "reducescatter",
    "rd",
    title="recursive halving, log2 p steps",
    source="Thakur et al. 2005 §4.3 (recursive halving)",
    power_of_two=True,
)
def _rs_rd(ctx: Context) -> list[Phase]:
    return _halving(ctx, _ceil(ctx.size, ctx.ranks))


register_collective(
    "allgather",
    title="every rank ends with every rank's piece",
    busbw=lambda p: (p - 1) / p,
    default="ring",
    size_meaning="the output buffer of each rank (each contributes size/p)",
)


@register_algorithm(
    "allgather",
    "ring",
    title="ring, p-1 steps of size/p",
    source="Thakur et al. 2005 §4.1; NCCL ring",
)
def _ag_ring(ctx: Context) -> list[Phase]:
    return [_ring(ctx, "all-gather", ctx.ranks - 1, _ceil(ctx.size, ctx.ranks))]


@register_algorithm(
    "allgather",
    "rd",
    title="recursive doubling, log2 p steps",
    source="Thakur et al. 2005 §4.1 (recursive doubling)",
    power_of_two=True,
)
def _ag_rd(ctx: Context) -> list[Phase]:
    return _doubling(ctx, _ceil(ctx.size, ctx.ranks))


# ---------------------------------------------------------------- all-to-all

register_collective(
    "alltoall",
    title="every rank sends a distinct piece to every other rank",
    busbw=lambda p: (p - 1) / p,
    default="pairwise",
    size_meaning="the buffer each rank sends (size/p to each peer)",
)


@register_algorithm(
    "alltoall",
    "pairwise",
    title="p-1 steps; step s pairs r with r XOR s (p a power of two) or r+s mod p",
    source="Thakur et al. 2005 §4.5 (pairwise exchange)",
)
def _a2a_pairwise(ctx: Context) -> list[Phase]:
    p = ctx.ranks
    piece = _ceil(ctx.size, p)
    # lazy: p - 1 distinct steps of p messages are generated one at a time when read
    return [
        lazy_phase(f"pairwise step {s}", partial(_pairwise_step, p, s), p, piece)
        for s in range(1, p)
    ]


def _pairwise_step(p: int, s: int) -> tuple[np.ndarray, np.ndarray]:
    r = np.arange(p, dtype=np.int32)
    return r, (r ^ s) if p & (p - 1) == 0 else (r + s) % p


@register_algorithm(
    "alltoall",
    "direct",
    title="every message at once (one phase of p(p-1) messages)",
    source="Thakur et al. 2005 §4.5 (all sends and receives posted at once)",
)
def _a2a_direct(ctx: Context) -> list[Phase]:
    p = ctx.ranks
    a, b = np.divmod(np.arange(p * p, dtype=np.int64), p)
    keep = a != b
    return [phase("direct", a[keep], b[keep], _ceil(ctx.size, p))]


# ---------------------------------------------------------------- broadcast, reduce, barrier

_ROOT = Opt("root", "the root rank", 0, int, minimum=0)


def _binomial(ctx: Context) -> list[tuple[np.ndarray, np.ndarray]]:
    """Edges (parent, child) of the binomial tree rooted at ``root``, by round."""
    p, root = ctx.ranks, int(ctx.options.get("root", 0))
    v = np.arange(p)
    rounds = []
    for k in range(_log2(p - 1) + 1 if p > 1 else 0):
        d = 1 << k
        senders = v[(v < d) & (v + d < p)]
        rounds.append(((senders + root) % p, (senders + d + root) % p))
    return rounds


register_collective(
    "broadcast",
    title="the root's buffer to every rank",
    busbw=lambda p: 1.0,
    default="binomial",
    size_meaning="the buffer",
    options=(_ROOT,),
)


@register_algorithm(
    "broadcast",
    "binomial",
    title="binomial tree, ceil(log2 p) rounds of the whole buffer",
    source="Thakur et al. 2005 §4.2 (binomial tree)",
)
def _bcast_binomial(ctx: Context) -> list[Phase]:
    return [phase(f"round {k}", a, b, ctx.size) for k, (a, b) in enumerate(_binomial(ctx))]


register_collective(
    "reduce",
    title="the element-wise sum of every rank's buffer at the root",
    busbw=lambda p: 1.0,
    default="binomial",
    size_meaning="the buffer",
    options=(_ROOT,),
)


@register_algorithm(
    "reduce",
    "binomial",
    title="binomial tree, ceil(log2 p) rounds of the whole buffer",
    source="Thakur et al. 2005 §4.2 (binomial tree, reversed)",
)
def _reduce_binomial(ctx: Context) -> list[Phase]:
    rounds = _binomial(ctx)
    return [phase(f"round {k}", b, a, ctx.size) for k, (a, b) in reversed(list(enumerate(rounds)))]


register_collective(
    "barrier",
    title="no rank leaves before every rank has arrived",
    busbw=lambda p: 0.0,
    default="dissemination",
    size_meaning="bytes of each notification (default 0: a header only)",
    default_size="0B",
)


@register_algorithm(
    "barrier",
    "dissemination",
    title="ceil(log2 p) rounds: r notifies r + 2^k mod p",
    source="Hensgen, Finkel, Manber 1988; Thakur et al. 2005 (MPICH barrier)",
)
def _barrier(ctx: Context) -> list[Phase]:
    p, r = ctx.ranks, np.arange(ctx.ranks)
    rounds = _log2(p - 1) + 1 if p > 1 else 0
    return [phase(f"round {k}", r, (r + (1 << k)) % p, ctx.size) for k in range(rounds)]


__all__ = ["btree_parent", "dtree_parents"]
