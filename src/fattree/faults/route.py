"""One fault-tolerant route, explained (``fattree route ... --faults``)."""

from __future__ import annotations

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
        return {
            "algorithm": self.algorithm,
            "model": self.model,
            "success": self.success,
            "status": self.status,
            "path": self.path,
            "ports": self.ports,
            "hops": self.hops,
            "faulty_links": [list(x) for x in self.faulty_links],
        }


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
    (alg,) = resolve_algorithms([algorithm], topo.family)
    check_model(model)
    if alg.is_oracle:
        raise ParameterError("algorithm='oracle' is a bound, not a walk; use the Monte Carlo")
    if not alg.walked_on(topo.family):  # the generic rules
        from .gwalk import GenericRouter

        g = GenericRouter(topo, alg, faulty, model)
        status, hops, sw, ports, _ = g.route(src, dst, start_switch)
        model = "global" if g.is_table else model
        return _result(topo, alg, model, status, src, dst, sw, ports, hops, g.faulty)
    walk = walk_of(topo.family)
    walk.check_model(model, topo.family)
    check_ends(topo, src, dst, start_switch)
    faulty = fault_mask(topo, faulty)
    status, hops, nsw, sw, ports = walk_route(
        walk,
        topo,
        alg.flags,
        model == "lookahead",
        -1 if src is None else int(src),
        -1 if start_switch is None else int(start_switch),
        int(dst),
        faulty.astype(np.int64),
        tie_break,
        int(seed),
        int(packet),
        None,
    )
    nport = nsw if status == OK else max(nsw - 1, 0)
    return _result(topo, alg, model, status, src, dst, sw[:nsw], ports[:nport], hops, faulty)


def check_ends(topo: Topology, src: int | None, dst: int, start_switch: int | None) -> None:
    """Refuse a route's end points that are not node ids (``src`` None: ``start_switch``
    must be a switch id).

    Parameters
    ----------
    topo : Topology
    src, dst : int or None, int
    start_switch : int or None

    Raises
    ------
    ParameterError
        Naming the end point and the ids allowed.
    """
    for name, v in (("dst", dst), ("src", src)):
        if v is not None and not 0 <= int(v) < topo.n_nodes:
            raise ParameterError(f"{name}={v!r} is invalid: a node id in [0, {topo.n_nodes})")
    if src is None and (start_switch is None or not 0 <= start_switch < topo.n_switches):
        raise ParameterError(
            f"start_switch={start_switch!r} is invalid: a switch id in "
            f"[0, {topo.n_switches}) when src is None"
        )


def _result(topo, alg, model, status, src, dst, sws, ports, hops, faulty) -> FTRoute:
    path = [topo.node_label(src)] if src is not None else []
    path += [topo.switch_label(int(s)) for s in sws]
    if status == OK:
        path.append(topo.node_label(dst))
    bad = [
        (topo.vertex_label(int(a)), topo.vertex_label(int(b)))
        for a, b in topo.links[np.nonzero(faulty)[0]]
    ]
    ports = [int(p) for p in ports]
    return FTRoute(alg.name, model, status == OK, STATUS_NAMES[status], path, ports, int(hops), bad)


__all__ = ["FTRoute", "check_ends", "ft_route", "FT_ALGORITHMS"]
