"""Extended generalized fat trees XGFT(h; m_1..m_h; w_1..w_h) (Öhring, Ibel, Das, Kumar 1995).

Level 0 holds the compute nodes, level i (1..h) the switches of stage ``i-1`` (0 = leaves).
A level-i switch has ``m_i`` children and ``w_{i+1}`` parents; level 1's ``m_1`` are the nodes
per leaf switch and ``w_1`` must be 1 (a node has one link). A level-i vertex is
``(x_h, .., x_{i+1}, y_i, .., y_1)`` with ``x_j < m_j``, ``y_j < w_j``; it is joined to the
level-(i+1) vertices ``(.., x_{i+2}, y_{i+1}, y_i, ..)`` for every ``y_{i+1} < w_{i+1}``.

Indexing generalises the k-ary n-tree's (``kant.py``) so that
``XGFT(n; k,..,k; 1,k,..,k)`` is kant(k, n) array for array, labels included. A stage-L
switch has digits ``D_0..D_{h-2}``; digit position ``p`` stands for level ``p+2``: it holds
the up choice ``y_{p+2} < w_{p+2}`` for ``p < L`` and the subtree digit ``x_{p+2} < m_{p+2}``
for ``p >= L``; the index is mixed radix, position 0 least significant, stages stacked.
Node ``c = x_1 * M + leaf`` (``M`` leaf switches, ``leaf`` the leaf's digits) hangs on leaf
``leaf`` at port ``x_1``. Ports ``0..m_{L+1}-1`` go down (port ``j`` sets the digit of
position ``L-1`` to ``x = j``), ports ``m_{L+1} + i`` go up (position ``L`` := ``y = i``).

References
----------
S. R. Öhring, M. Ibel, S. K. Das, M. J. Kumar, "On generalized fat trees", IPPS 1995.
"""

from __future__ import annotations

from math import prod

from .._np import np

from ...errors import ParameterError
from ..core import PORT_DOWN, PORT_NODE, PORT_NONE, PORT_UP, Topology
from ..family import Facets, Param, register_family
from ._digits import all_nodes_one_class

#: Most levels, largest entry and most vertices accepted (int32 vertex ids, int16 ports).
MAX_LEVELS = 16
MAX_ENTRY = 1024
MAX_VERTICES = 2**31 - 2


def parse_levels(
    name: str, raw, max_entry: int | None = MAX_ENTRY, max_levels: int | None = MAX_LEVELS
) -> str:
    """Canonical dot-separated list of positive integers (``"4.4.4"``) from a spec value.

    Accepts a string ``"4.4.4"``, an integer (one level) or a sequence of integers.

    Examples
    --------
    >>> parse_levels("m", "4.4.4"), parse_levels("w", [1, 2, 2]), parse_levels("m", 8)
    ('4.4.4', '1.2.2', '8')

    References
    ----------
    Öhring et al. 1995, §2 (XGFT(h; m_1..m_h; w_1..w_h)).
    """
    top = "" if max_entry is None else f"{max_entry}"
    most = "" if max_levels is None else f" (at most {max_levels})"
    allowed = f"expected a dot-separated list of integers 1..{top}, one per level{most}, e.g. 4.4.4"
    if isinstance(raw, bool):
        raise ParameterError(f"xgft: {name}={raw!r} is invalid: {allowed}")
    if isinstance(raw, (int, np.integer)):
        items = [raw]
    elif isinstance(raw, str):
        items = raw.strip().split(".") if raw.strip() else []
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        raise ParameterError(f"xgft: {name}={raw!r} is invalid: {allowed}")
    out = []
    for it in items:
        try:
            if isinstance(it, bool) or (isinstance(it, float) and not it.is_integer()):
                raise ValueError
            v = int(str(it).strip()) if isinstance(it, str) else int(it)
        except (TypeError, ValueError):
            raise ParameterError(f"xgft: {name}={raw!r} is invalid: {allowed}") from None
        if v < 1 or (max_entry is not None and v > max_entry):
            raise ParameterError(
                f"xgft: {name}={raw!r} is invalid: entry {v} is out of range; {allowed}"
            )
        out.append(v)
    if not out or (max_levels is not None and len(out) > max_levels):
        raise ParameterError(f"xgft: {name}={raw!r} is invalid: {allowed}")
    return ".".join(map(str, out))


def _m_param(raw):
    return parse_levels("m", raw)


def _w_param(raw):
    return parse_levels("w", raw)


def shape(params, limits: bool = True) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(m, w)`` as integer tuples from validated (or raw) parameters.

    Examples
    --------
    >>> shape({"m": "4.4.4", "w": "1.2.2"})
    ((4, 4, 4), (1, 2, 2))

    References
    ----------
    Öhring et al. 1995, §2.
    """
    lim = {} if limits else {"max_entry": None, "max_levels": None}
    m = tuple(int(v) for v in parse_levels("m", params["m"], **lim).split("."))
    w = tuple(int(v) for v in parse_levels("w", params["w"], **lim).split("."))
    return m, w


def stage_sizes(m, w) -> list[int]:
    """Switches per stage: level i has ``prod_{j>i} m_j * prod_{j<=i} w_j``."""
    h = len(m)
    return [prod(w[: i + 1]) * prod(m[i + 1 :]) for i in range(h)]


def stage_radix(m, w) -> list[int]:
    """Ports per stage: ``m_i`` down plus ``w_{i+1}`` up (the top stage has no up ports)."""
    h = len(m)
    return [m[i] + (w[i + 1] if i + 1 < h else 0) for i in range(h)]


def _check(p):
    m, w = shape(p)
    if len(m) != len(w):
        raise ParameterError(
            f"xgft: m={p['m']} has {len(m)} levels but w={p['w']} has {len(w)}; "
            f"give one m and one w per level"
        )
    if w[0] != 1:
        raise ParameterError(
            f"xgft: w={p['w']} is invalid: w_1 must be 1 (a compute node has one link to "
            f"its leaf switch); w_1={w[0]}"
        )
    nodes, switches = prod(m), sum(stage_sizes(m, w))
    if nodes < 2:
        raise ParameterError(f"xgft: m={p['m']} gives {nodes} compute node; at least 2 are needed")
    if nodes + switches > MAX_VERTICES:
        raise ParameterError(
            f"xgft: m={p['m']},w={p['w']} is too large: {nodes:,} nodes and {switches:,} "
            f"switches; at most {MAX_VERTICES:,} vertices in all"
        )


def _size(p):
    m, w = shape(p)
    return prod(m), sum(stage_sizes(m, w)), max(stage_radix(m, w))


def _radices(m, w, L):
    """Digit radices of a stage-L switch, position 0 first (y below L, x from L up)."""
    h = len(m)
    return [w[p + 1] if p < L else m[p + 1] for p in range(h - 1)]


def _split(x, radices):
    x = np.asarray(x, np.int64)
    out = np.zeros((len(x), len(radices)), np.int64)
    for p, r in enumerate(radices):
        out[:, p] = x % r
        x = x // r
    return out


def _join(digits, radices):
    idx = np.zeros(len(digits), np.int64)
    wgt = 1
    for p, r in enumerate(radices):
        idx += digits[:, p] * wgt
        wgt *= r
    return idx


@register_family(
    "xgft",
    title="extended generalized fat tree XGFT(h; m; w)",
    paper="Öhring, Ibel, Das, Kumar 1995",
    params=[
        Param(
            "m",
            "children per switch per level, dot-separated (m_1 = nodes per leaf)",
            kind=_m_param,
        ),
        Param("w", "parents per vertex per level, dot-separated (w_1 = 1)", kind=_w_param),
    ],
    size=_size,
    check=_check,
    node_classes=all_nodes_one_class,
    facets=Facets(
        routing="dmodk",
        forms="xgft",
        fault_tolerance="rules",
        fault_walk=None,
        advisor=("xgft-2:1", "xgft-4:1"),
        drawing="layered",
        example="xgft:m=2.2,w=1.2",
    ),
)
def xgft(m: str, w: str) -> Topology:
    """Extended generalized fat tree XGFT(h; m_1..m_h; w_1..w_h).

    ``prod m`` nodes; level i has ``prod_{j>i} m_j prod_{j<=i} w_j`` switches; tapered
    (slimmed) when ``w_{i+1} < m_i``. XGFT(n; k,..,k; 1,k,..,k) is the k-ary n-tree.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("xgft:m=4.4.4,w=1.2.2")
    >>> t.n_nodes, t.n_switches, t.n_links
    (64, 28, 112)
    >>> bool((fattree.build("xgft:m=3.3.3,w=1.3.3").port_peer == fattree.build("kant:k=3,n=3").port_peer).all())
    True

    References
    ----------
    S. R. Öhring, M. Ibel, S. K. Das, M. J. Kumar, "On generalized fat trees", IPPS 1995.
    """
    mm, ww = shape({"m": m, "w": w})
    h = len(mm)
    sizes = stage_sizes(mm, ww)
    radix = stage_radix(mm, ww)
    R = max(radix)
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    S = int(off[-1])
    M = sizes[0]  # leaf switches
    N = mm[0] * M
    peer = np.full((S, R), -1, np.int64)
    pport = np.zeros((S, R), np.int64)
    kind = np.full((S, R), PORT_NONE, np.int64)
    level = np.zeros(S, np.int64)
    labels = np.zeros((S, h), np.int64)
    for L in range(h):
        rad = _radices(mm, ww, L)
        sl = slice(off[L], off[L + 1])
        loc = np.arange(sizes[L], dtype=np.int64)
        dig = _split(loc, rad)
        level[sl] = L
        labels[sl, 0] = L
        if h > 1:
            labels[sl, 1:] = dig[:, ::-1]
        for j in range(mm[L]):
            if L == 0:
                peer[sl, j] = j * M + loc
                kind[sl, j] = PORT_NODE
            else:
                low = dig.copy()
                back = mm[L - 1] + low[:, L - 1]
                low[:, L - 1] = j
                peer[sl, j] = N + off[L - 1] + _join(low, _radices(mm, ww, L - 1))
                pport[sl, j] = back
                kind[sl, j] = PORT_DOWN
        if L + 1 < h:
            rad_up = _radices(mm, ww, L + 1)
            for i in range(ww[L + 1]):
                up = dig.copy()
                back = up[:, L].copy()
                up[:, L] = i
                peer[sl, mm[L] + i] = N + off[L + 1] + _join(up, rad_up)
                pport[sl, mm[L] + i] = back
                kind[sl, mm[L] + i] = PORT_UP
    c = np.arange(N, dtype=np.int64)
    leaf_digits = _split(c % M, _radices(mm, ww, 0))[:, ::-1]
    node_digits = np.concatenate([(c // M)[:, None], leaf_digits], axis=1)
    return Topology.create(
        "xgft",
        {"m": m, "w": w},
        node_digits=node_digits,
        switch_digits=labels,
        switch_level=level,
        port_peer=peer,
        port_peer_port=pport,
        port_kind=kind,
        node_switch=c % M,
        node_port=c // M,
        meta={"h": h, "m": mm, "w": ww, "stage_offsets": tuple(int(v) for v in off)},
    )
