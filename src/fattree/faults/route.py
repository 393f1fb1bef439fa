"""One fault-tolerant route, explained (``fattree route ... --faults``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..topology import Topology
from .algorithms import FT_ALGORITHMS, check_model, resolve_algorithms
from .kernel import OK, STATUS_NAMES, ft_walk, walk_scratch
from .walks import engine_of


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


def _require_mikant(topo: Topology) -> tuple[int, int]:
    if engine_of(topo.family) != "mikant":
        raise ParameterError(
            f"fault-tolerant walks of 001 are defined for mikant, not {topo.family!r}"
        )
    return topo.params["k"], topo.params["n"]


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
        A MiKANT.
    algorithm : str
        A name of :data:`FT_ALGORITHMS` other than ``oracle`` (e.g. ``"gns+xt+gdl"``).
    src, dst : int
        Node ids (``src=None`` with ``start_switch`` starts at a switch, as 001's examples).
    faulty : bool array over ``topo.links``
    model : {"local", "lookahead"}
        MiKANTC: ``local`` only.
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
    if not resolve_algorithms([algorithm], topo.family)[0].walked_on(topo.family):
        return _generic_route(topo, algorithm, src, dst, faulty, model, start_switch)
    if engine_of(topo.family) == "mikantc":
        return _mikantc_route(
            topo, algorithm, src, dst, faulty, model, start_switch, tie_break, seed, packet
        )
    k, n = _require_mikant(topo)
    check_model(model)
    (alg,) = resolve_algorithms([algorithm], topo.family)
    if alg.is_oracle:
        raise ParameterError("algorithm='oracle' is a bound, not a walk; use the Monte Carlo")
    faulty = np.asarray(faulty, bool)
    if faulty.shape != (topo.n_links,):
        raise ParameterError(f"faulty has shape {faulty.shape}, expected ({topo.n_links},)")
    stamp = faulty.astype(np.int64)
    cap = 20 * n + 40 + 4 * n * (2 * n + 6)
    sw = np.full(cap, -1, np.int64)
    ports = np.full(cap, -1, np.int64)
    status, hops, nsw = ft_walk(
        k,
        n,
        topo.port_peer,
        topo.link_index,
        stamp,
        1,
        alg.flags,
        model == "lookahead",
        -1 if src is None else src,
        -1 if start_switch is None else start_switch,
        dst,
        sw,
        ports,
        *walk_scratch(k, n),
    )
    path = [topo.node_label(src)] if src is not None else []
    path += [topo.switch_label(int(s)) for s in sw[:nsw]]
    if status == OK:
        path.append(topo.node_label(dst))
    bad = [
        (topo.vertex_label(int(a)), topo.vertex_label(int(b)))
        for a, b in topo.links[np.nonzero(faulty)[0]]
    ]
    return FTRoute(
        alg.name,
        model,
        status == OK,
        STATUS_NAMES[status],
        path,
        [int(p) for p in ports[:nsw] if p >= 0][: nsw if status == OK else nsw],
        int(hops),
        bad,
    )


def _generic_route(topo, algorithm, src, dst, faulty, model, start_switch) -> FTRoute:
    from .gwalk import GenericRouter

    check_model(model)
    (alg,) = resolve_algorithms([algorithm], topo.family)
    if alg.is_oracle:
        raise ParameterError("algorithm='oracle' is a bound, not a walk; use the Monte Carlo")
    g = GenericRouter(topo, alg, faulty, model)
    status, hops, sw, ports, _ = g.route(src, dst, start_switch)
    path = [topo.node_label(src)] if src is not None else []
    path += [topo.switch_label(int(s)) for s in sw]
    if status == OK:
        path.append(topo.node_label(dst))
    bad = [
        (topo.vertex_label(int(a)), topo.vertex_label(int(b)))
        for a, b in topo.links[np.nonzero(g.faulty)[0]]
    ]
    return FTRoute(
        alg.name,
        "global" if g.is_table else model,
        status == OK,
        STATUS_NAMES[status],
        path,
        [int(p) for p in ports],
        int(hops),
        bad,
    )


def _mikantc_route(
    topo, algorithm, src, dst, faulty, model, start_switch, tie_break, seed, packet
) -> FTRoute:
    from .mikantc import mikantc_route_arrays

    if check_model(model) != "local":
        raise ParameterError(f"model={model!r} is not defined for mikantc: only 'local'")
    (alg,) = resolve_algorithms([algorithm], topo.family)
    if alg.is_oracle:
        raise ParameterError("algorithm='oracle' is a bound, not a walk; use the Monte Carlo")
    faulty = np.asarray(faulty, bool)
    if faulty.shape != (topo.n_links,):
        raise ParameterError(f"faulty has shape {faulty.shape}, expected ({topo.n_links},)")
    status, hops, sw, ports = mikantc_route_arrays(
        topo,
        alg.flags,
        src,
        dst,
        faulty,
        start_switch=start_switch,
        tie_break=tie_break,
        seed=seed,
        packet=packet,
    )
    path = [topo.node_label(src)] if src is not None else []
    path += [topo.switch_label(s) for s in sw]
    if status == OK:
        path.append(topo.node_label(dst))
    bad = [
        (topo.vertex_label(int(a)), topo.vertex_label(int(b)))
        for a, b in topo.links[np.nonzero(faulty)[0]]
    ]
    return FTRoute(alg.name, model, status == OK, STATUS_NAMES[status], path, ports, hops, bad)


__all__ = ["FTRoute", "ft_route", "FT_ALGORITHMS"]
