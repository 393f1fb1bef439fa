"""One fault-tolerant route (``fattree route ... --faults``): :func:`ft_route`, and the
validation and walk that ``explain_route`` shares."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..topology import Topology
from .algorithms import FT_ALGORITHMS, check_model, resolve_algorithms
from .hooks import OK, STATUS_NAMES
from .links import fault_mask
from .walkloop import walk_route
from .walks import walk_of


@dataclass(frozen=True)
class FTRoute:
    """The outcome of routing one packet under faults."""

    algorithm: str
    model: str
    success: bool
    status: str
    path: list[str]
    ports: list[int]
    hops: int
    faulty_links: list[tuple[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict:
        return self.__dict__ | {"faulty_links": [list(x) for x in self.faulty_links]}


def ft_route(
    topo: Topology,
    algorithm: str,
    src: int | None,
    dst: int,
    faulty: np.ndarray,
    *,
    model: str = "local",
    start_switch: int | None = None,
    tie_break: str = "dimension",
    seed: int = 0,
    packet: int = 0,
) -> FTRoute:
    """Route src → dst on a MiKANT (001) or MiKANTC (004 Algorithm 1) with faulty links.

    Parameters
    ----------
    topo : Topology
        Any family with fault tolerance (its paper walk, or the generic rules).
    algorithm : str
        A name of :data:`FT_ALGORITHMS` other than ``oracle`` (e.g. ``"gns+xt+gdl"``).
    src, dst : int
        Node ids (``src=None`` with ``start_switch`` starts at a switch, as 001's examples).
    faulty : bool array over ``topo.links``
    model : {"local", "lookahead"}
        Those the family's walk defines (MiKANTC: ``local`` only).
    tie_break, seed, packet
        MiKANTC only: cube hops in dimension order, or the paper's random choice among the
        shortest-path dimensions fixed by (seed, packet, switch) (``faults/mikantc.py``).

    Examples
    --------
    >>> import fattree, numpy as np
    >>> from fattree.faults.links import mikant_link_id
    >>> t = fattree.build("mikant:k=3,n=3")
    >>> bad = np.zeros(t.n_links, bool); bad[mikant_link_id(t, [1, 2, 0, 0, 0])] = True
    >>> r = ft_route(t, "gns", None, t.find("n1.0.0.0"), bad, start_switch=t.find("s0.1.0.0") - t.n_nodes)
    >>> r.path, r.hops
    (['s0.1.0.0', 's0.0.0.1', 's0.1.0.1', 's1.1.0.1', 's1.0.0.0', 'n1.0.0.0'], 5)

    References
    ----------
    001 §4.2 and Algorithm 2; docs/mikant-routing.md §3–4; 004 §3–4 (MiKANTC).
    """
    q = check_route(topo, algorithm, src, dst, faulty, model, start_switch, tie_break, seed, packet)
    return walk_checked(q)[0]


# A route's arguments, validated: ``walk`` None for the generic rules, ``src``/``start``
# -1 for none, ``choices`` the walk's (tie_break, seed, packet).
_Checked = namedtuple("_Checked", "topo alg walk src dst start faulty model choices")


def check_route(topo, algorithm, src, dst, faulty, model, start_switch, tie_break, seed, packet):
    """Validate the arguments of :func:`ft_route` (and of ``explain_route``)."""
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    (alg,) = resolve_algorithms([algorithm], topo.family)
    check_model(model)
    if alg.is_oracle:
        raise ParameterError("algorithm='oracle' is a bound, not a walk; use the Monte Carlo")
    walk = walk_of(topo.family) if alg.walked_on(topo.family) else None
    if walk is not None:
        walk.check_model(model, topo.family)
    for name, v in (("dst", dst), ("src", src)):
        if v is not None and not 0 <= int(v) < topo.n_nodes:
            raise ParameterError(f"{name}={v!r} is invalid: a node id in [0, {topo.n_nodes})")
    if src is None and (start_switch is None or not 0 <= start_switch < topo.n_switches):
        raise ParameterError(
            f"start_switch={start_switch!r} is invalid: a switch id in "
            f"[0, {topo.n_switches}) when src is None"
        )
    s, start = (-1, int(start_switch)) if src is None else (int(src), -1)
    faulty = fault_mask(topo, faulty)
    choices = (tie_break, int(seed), int(packet))
    return _Checked(topo, alg, walk, s, int(dst), start, faulty, model, choices)


def walk_checked(q: _Checked, traced: bool = False):
    """``(FTRoute, switches, ports, how, router)`` of ``q``: by the generic rules (``router``
    their GenericRouter, ``how`` each port's rule) or the family's walk (``router`` None,
    ``how`` its trace if ``traced``, else None)."""
    g = None
    if q.walk is None:
        from .gwalk import GenericRouter

        g = GenericRouter(q.topo, q.alg, q.faulty, q.model)
        st, hops, sws, ports, how = g.route(q.src, q.dst, q.start)
    else:
        how = np.full((q.walk.capacity(q.topo), 4), -1, np.int64) if traced else None
        look, stamp = q.model == "lookahead", q.faulty.astype(np.int64)
        st, hops, nsw, sws, ports = walk_route(
            q.walk, q.topo, q.alg.flags, look, q.src, q.start, q.dst, stamp, *q.choices, how
        )
        sws, ports = sws[:nsw], ports[: nsw if st == OK else max(nsw - 1, 0)]
    path = [] if q.src < 0 else [q.topo.node_label(q.src)]
    path += [q.topo.switch_label(int(s)) for s in sws]
    if st == OK:
        path.append(q.topo.node_label(q.dst))
    model = "global" if g is not None and g.is_table else q.model
    bad = [tuple(x) for x in fault_links(q)]
    r = FTRoute(q.alg.name, model, st == OK, STATUS_NAMES[st], path, ports.tolist(), int(hops), bad)
    return r, sws, ports, how, g


def fault_links(q: _Checked) -> list[list[str]]:
    """The faulty links as pairs of vertex labels."""
    label = q.topo.vertex_label
    return [[label(int(a)), label(int(b))] for a, b in q.topo.links[np.nonzero(q.faulty)[0]]]


__all__ = ["FTRoute", "ft_route", "FT_ALGORITHMS"]
