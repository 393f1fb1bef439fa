"""``route --faults`` for the generic fault-tolerant algorithms: one route, explained.

Per switch: the port, where it leads, how it was chosen (the family's routing, another
minimal port, a misroute, a table entry) and its VC layer under the up*/down* turn rule
(:func:`fattree.faults.generic.turn_classes`); events name each faulty routing port, each
misroute and the reason of a failure.
"""

from __future__ import annotations

import numpy as np

from ..routing.kernel import route_ports
from ..topology import Topology
from .algorithms import FTAlgorithm
from .generic import HOW_ALT, HOW_MISROUTE, HOW_NAMES
from .gwalk import GenericRouter
from .kernel import OK, STATUS_NAMES
from .records import FTExplanation


def _faulty_ports(topo, a, faulty) -> str:
    bad = [
        f"{p} (→ {topo.vertex_label(int(topo.port_peer[a, p]))})"
        for p in range(topo.max_ports)
        if topo.link_index[a, p] >= 0 and faulty[topo.link_index[a, p]]
    ]
    return ", ".join(bad) if bad else "none"


def explain_generic(
    topo: Topology, alg: FTAlgorithm, src, dst: int, faulty, model: str, start: int, bad: list
):
    """The :class:`~fattree.faults.explain.FTExplanation` of a generic algorithm's route
    (called by :func:`fattree.faults.explain.explain_route`)."""

    g = GenericRouter(topo, alg, faulty, model)
    st, hops, sws, ports, hows = g.route(src, dst, None if start < 0 else start)
    vcs = g.classes(sws[: len(ports)], ports)
    rt = g.ctx.rt
    buf = np.empty(topo.max_ports + 1, np.int64)
    rows, events = [], []
    if g.is_table:
        events.append(
            {
                "hop": 0,
                "switch": None,
                "event": "table",
                "algorithm": alg.name,
                "text": f"{alg.name}: forwarding tables ({topo.n_switches} switches × "
                f"{topo.n_nodes} destinations) recomputed on the surviving "
                f"graph; VC layers by up*/down* turns",
            }
        )
    if src is not None and len(sws) == 0:
        events.append(
            {
                "hop": 0,
                "switch": None,
                "event": "fail",
                "algorithm": None,
                "text": f"the source's node link {topo.node_label(int(src))}–"
                f"{topo.switch_label(int(topo.node_switch[int(src)]))} is "
                f"faulty: nothing can route around a node's only link",
            }
        )
    used = 0
    for i, (a, p) in enumerate(zip(sws, ports)):
        a, p = int(a), int(p)
        how = int(hows[i])
        here = topo.switch_label(a)
        rows.append(
            {
                "hop": i + 1,
                "switch": here,
                "port": p,
                "to": topo.vertex_label(int(topo.port_peer[a, p])),
                "rule": HOW_NAMES[how] if 0 <= how < len(HOW_NAMES) else "?",
                "vc": vcs[i],
            }
        )
        if how in (HOW_ALT, HOW_MISROUTE):
            c = route_ports(rt.code, rt.iparams, rt.table, rt.port_peer, a, -1, -1, int(dst), 0, buf)
            p0 = int(buf[0]) if c > 0 else -1
            if p0 >= 0 and faulty[topo.link_index[a, p0]]:
                why = (
                    f"{g.ctx.routing}'s port {p0} ({here} – "
                    f"{topo.vertex_label(int(topo.port_peer[a, p0]))}) is faulty"
                )
            else:
                why = f"{g.ctx.routing}'s port {p0} leads back or (lookahead) to a dead end"
            events.append(
                {
                    "hop": i + 1,
                    "switch": here,
                    "event": "fault",
                    "algorithm": None,
                    "port": p0,
                    "text": why,
                }
            )
            if how == HOW_MISROUTE:
                used += 1
                events.append(
                    {
                        "hop": i + 1,
                        "switch": here,
                        "event": "misroute",
                        "algorithm": alg.name,
                        "text": f"no healthy minimal port (faulty here: "
                        f"{_faulty_ports(topo, a, faulty)}); misroute {used} of "
                        f"{g.ctx.budget} to port {p} → "
                        f"{topo.vertex_label(int(topo.port_peer[a, p]))}, then "
                        f"{g.ctx.routing} again",
                    }
                )
            else:
                events.append(
                    {
                        "hop": i + 1,
                        "switch": here,
                        "event": "alternative",
                        "algorithm": alg.name,
                        "text": f"another minimal port: {p} → "
                        f"{topo.vertex_label(int(topo.port_peer[a, p]))} "
                        f"({g.ctx.candidates})",
                    }
                )
    if st != OK and len(sws) > 0:
        a = int(sws[-1])
        events.append(
            {
                "hop": len(sws),
                "switch": topo.switch_label(a),
                "event": "fail",
                "algorithm": None,
                "text": f"{STATUS_NAMES[st]}: no usable port at {topo.switch_label(a)} "
                f"(faulty ports here: {_faulty_ports(topo, a, faulty)})"
                + ("" if alg.rule != 2 else f"; misroutes left: {g.ctx.budget - used}"),
            }
        )
    path = [topo.node_label(int(src))] if src is not None else []
    path += [topo.switch_label(int(x)) for x in sws]
    if st == OK:
        path.append(topo.node_label(dst))
    return FTExplanation(
        alg.name,
        "global" if g.is_table else model,
        None if src is None else topo.node_label(int(src)),
        topo.node_label(dst),
        st == OK,
        STATUS_NAMES[st],
        path,
        [topo.switch_label(int(x)) for x in sws],
        [int(p) for p in ports],
        int(hops),
        rows,
        events,
        bad,
    )
