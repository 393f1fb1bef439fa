"""One fault-tolerant route, explained hop by hop (``fattree route ... --faults``): the
walk's ``trace`` (or the generic rules' port choices) in words; docs/faults-deadlock.md
("route --faults") and docs/faults-families.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..routing import ALGORITHMS
from ..routing.kernel import route_ports
from ..topology import Topology
from ..topology.core import PORT_CUBE, PORT_DOWN, PORT_NODE, PORT_UP
from .algorithms import GDL, GNS, ROOT, RULE_ADAPTIVE, RULE_DETOUR, TT, UPALT, XT
from .generic import HOW_ALT as G_ALT
from .generic import HOW_MISROUTE as G_MISROUTE
from .generic import HOW_NAMES as G_HOW_NAMES
from .generic import AdaptiveAt, adaptive_ports, adaptive_scratch, hop_down
from .hooks import OK, STATUS_NAMES
from .mikant import (
    HOW_CUBE,
    HOW_GODOWN,
    HOW_MISROUTE,
    HOW_MULTIPATH,
    HOW_UPALT,
    KIND_GDL,
    KIND_GNS,
    KIND_TT,
    KIND_TX,
    KIND_XT,
)
from .route import FTRoute, check_route, fault_links, walk_checked
from .rules import default_ft_algorithm, one_vc_layered
from .view import adaptive_rule, fault_router
from .walks import walk_of

# kind: (name, reference, steps, the flag enabling it)
_KINDS = {
    KIND_GNS: ("GNS", "Go-Neighbor-Switch, 001 §4.2.1", ("g1", "g2", "g3"), GNS),
    KIND_GDL: ("GDL", "Go-Down-Level, 001 §4.2.2", ("d1", "d2", "d3"), GDL),
    KIND_TT: ("TT", "Three-Turn, 001 §4.2.4", ("t1", "t2", "t3"), TT),
    KIND_XT: ("XT", "X-Turns, 001 §4.2.3", ("x1", "x2", "x3", "x4", "x5"), XT),
    KIND_TX: ("TT/XT", "Three-Turn or X-Turns (shared first turn), 001 §4.2.3-4", ("t1/x1",), 0),
}
_NAMES = {kd: v[0] for kd, v in _KINDS.items()}
_SKIPPABLE = (KIND_GNS, KIND_TT, KIND_XT, KIND_GDL)  # the detours a fault may fail to start
_RULES = {
    HOW_UPALT: "UPALT",
    HOW_MISROUTE: "misroute",
    HOW_CUBE: "cube",
    HOW_MULTIPATH: "cube multipath",
    HOW_GODOWN: "Go-Down to P_D",
}
# (event, text, algorithm) of the rules whose event says the same every time
_PLAIN = {
    HOW_UPALT: (
        "upalt",
        "UPALT: another healthy up port (every up port below the crossing reaches an "
        "ancestor; at a root crossing any root)",
        "UPALT",
    ),
    HOW_MULTIPATH: (
        "multipath",
        "hypercube multipath: another shortest-path cube dimension (004 Algorithm 1)",
        "cube",
    ),
    HOW_GODOWN: (
        "godown",
        "Go-Down to P_D: another intermediate of the destination cube (004 Algorithm 1, "
        "fall phase)",
        "GDL",
    ),
}


@dataclass(frozen=True)
class FTExplanation(FTRoute):
    """An explained route (:func:`explain_route`): the :class:`FTRoute`, its end points and
    switches, one row per switch and the events that shaped it."""

    src: str | None = None
    dst: str = ""
    switches: list[str] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = self.__dict__ | {"delivered": self.success, "hop_rules": self.rows}
        return {k: d[k] for k in _EXPLANATION_KEYS}


# the key order of route --faults --json
_EXPLANATION_KEYS = (
    "algorithm model src dst success delivered status path switches ports hops hop_rules "
    "events faulty_links"
).split()


def explain_route(
    topo: Topology,
    algorithm: str,
    src: int | None,
    dst: int,
    faulty=None,
    *,
    model: str = "local",
    start_switch: int | None = None,
    tie_break: str = "dimension",
    seed: int = 0,
    packet: int = 0,
) -> FTExplanation:
    """Route src → dst under faulty links and explain every decision.

    Parameters
    ----------
    topo : Topology
        Any family with fault tolerance (see :func:`fattree.faults.ft_route`).
    algorithm : str
        A walkable name of :data:`~fattree.faults.FT_ALGORITHMS` (not ``oracle``).
    src, dst : int
        Node ids (``src=None`` with ``start_switch`` starts at a switch).
    faulty : bool (E,) over ``topo.links``, optional
    model : {"local", "lookahead"}
    tie_break, seed, packet
        MiKANTC cube tie-break (see :func:`fattree.faults.ft_route`).

    Returns
    -------
    FTExplanation
        ``rows``: per switch, the port, where it leads, the rule that chose it and (MiKANT)
        the VC class of the deadlock-free escape rule (:func:`fattree.faults.cdg.ft_vc`);
        ``events``: faulty Algorithm-1 hops and their kind, detours that could not start,
        the detour taken, the reason of a failure.

    Examples
    --------
    >>> import fattree, numpy as np
    >>> from fattree.faults.links import mikant_link_id
    >>> t = fattree.build("mikant:k=3,n=3")
    >>> bad = np.zeros(t.n_links, bool); bad[mikant_link_id(t, [1, 2, 0, 0, 0])] = True
    >>> e = explain_route(t, "gns", t.find("n0.0.0.0"), t.find("n1.0.0.0"), bad)
    >>> e.success, e.hops, [r["rule"] for r in e.rows]
    (True, 7, ['A1', 'GNS g1', 'GNS g2', 'GNS g3 (A1)', 'A1', 'A1'])
    >>> [ev["event"] for ev in e.events]
    ['fault', 'detour']

    References
    ----------
    001 §4.2 and Algorithm 2; docs/mikant-routing.md §3–4; 004 Algorithm 1.
    """
    q = check_route(topo, algorithm, src, dst, faulty, model, start_switch, tie_break, seed, packet)
    if q.src == q.dst:  # as routing's route: nothing to send
        lab = topo.node_label(q.src)
        ok, bad = STATUS_NAMES[OK], fault_links(q)
        return FTExplanation(q.alg.name, model, True, ok, [lab], [], 0, bad, src=lab, dst=lab)
    r, sws, ports, how, g = walk_checked(q, traced=True)
    events = []
    if g is not None and g.is_table:
        text = (
            f"{r.algorithm}: forwarding tables ({topo.n_switches} switches × {topo.n_nodes} "
            f"destinations) recomputed on the surviving graph; VC layers by up*/down* turns"
        )
        events.append(_event(0, None, "table", r.algorithm, text))
    if len(sws) == 0:  # the source's node link is faulty
        text = (
            f"the source's node link {topo.node_label(q.src)}–"
            f"{topo.switch_label(int(topo.node_switch[q.src]))} is faulty: "
            f"nothing can route around a node's only link"
        )
        events.append(_event(0, None, "fail", None, text))
    if g is None:
        vcs = None if q.walk.hop_vcs is None else q.walk.hop_vcs(topo, sws, ports, len(ports))
        rules = [_rule_name(int(how[i, 0]), int(how[i, 1])) for i in range(len(ports))]
        events += _walk_events(q, r, sws, ports, how)
    else:
        vcs = g.classes(sws[: len(ports)], ports)
        rules = [G_HOW_NAMES[h] if 0 <= h < len(G_HOW_NAMES) else "?" for h in how.tolist()]
        events += _generic_events(q, g, r, sws, ports, how, vcs)
    rows = []
    for i, (a, p) in enumerate(zip(sws.tolist(), ports.tolist())):
        row = {"hop": i + 1, "switch": topo.switch_label(a), "port": p, "to": _peer(topo, a, p)}
        rows.append(row | {"rule": rules[i]} | ({} if vcs is None else {"vc": vcs[i]}))
    switches = [topo.switch_label(x) for x in sws.tolist()]
    ends = {"src": None if q.src < 0 else topo.node_label(q.src), "dst": topo.node_label(q.dst)}
    return FTExplanation(**ends, switches=switches, rows=rows, events=events, **r.to_dict())


def _peer(topo, a, p) -> str:
    """The label of the vertex port ``p`` of switch ``a`` leads to."""
    return topo.vertex_label(int(topo.port_peer[a, p]))


def _step(kind, step) -> str:
    steps = _KINDS[kind][2] if kind in _KINDS else ()
    return steps[step] if step < len(steps) else f"step {step + 1}"


def _rule_name(how, step) -> str:
    """The rule column of a paper walk's hop."""
    if how not in _KINDS:
        return "A1" if how == 0 else _RULES.get(how, "?")
    final = how != KIND_TX and step == len(_KINDS[how][2]) - 1
    return f"{_NAMES[how]} {_step(how, step)}" + (" (A1)" if final else "")


def _fault_class(topo, a, p, dst) -> tuple[str, str]:
    """(short class, what covers it) of the faulty port p of switch a."""
    n = int(topo.params["n"])
    kind = int(topo.port_kind[a, p])
    level = int(topo.switch_level[a])
    same = int(topo.switch_digits[a, 0]) == int(topo.node_digits[dst, 0])
    if kind == PORT_NODE:
        return "the destination's node link", "nothing can route around a node's only link"
    if kind == PORT_CUBE:
        return "a cube hop", "004's hypercube multipath applies"
    if kind == PORT_UP and level == n - 2:
        if same:
            return "a root crossing", (
                "001 applies no detour there (Algorithm 2 runs only if "
                "G_W ≠ G_T); the ROOT and UPALT extensions do"
            )
        return "a cross-group crossing", "GNS, TT and XT apply (001 §4.2.1, §4.2.3-4)"
    if kind == PORT_UP:
        return "an up link below the crossing", "001 has no rule; the UPALT extension applies"
    if kind == PORT_DOWN:
        return "a down-phase hop", "GDL applies (001 §4.2.2)"
    return "a link", "no rule applies"


def _faulty_here(q, a) -> str:
    topo, links = q.topo, q.topo.link_index[a]
    bad = [f"{p} (→ {_peer(topo, a, p)})" for p, e in enumerate(links) if e >= 0 and q.faulty[e]]
    return ", ".join(bad) if bad else "none"


def _walk_events(q, r, sws, ports, trace) -> list[dict]:
    """The events of a paper walk's route from its ``trace``."""
    topo, ev, trigger = q.topo, [], 0
    for i, a in enumerate(sws.tolist()):
        how, step, fault, mask = (int(x) for x in trace[i])
        here = topo.switch_label(a)

        def add(event, text, algorithm=None, **extra):
            ev.append(_event(i + 1, here, event, algorithm, text, **extra))  # noqa: B023

        if fault >= 0:
            cls, covers = _fault_class(topo, a, fault, q.dst)
            link = [here, _peer(topo, a, fault)]
            text = f"Algorithm 1's port {fault} ({' – '.join(link)}) is faulty: {cls}; {covers}"
            add("fault", text, port=fault, link=link, fault_class=cls)
            why = "no healthy port for its first step"
            if q.model == "lookahead":
                why = "no fully healthy detour (lookahead)"
            for kd in _SKIPPABLE:
                if mask >= 0 and mask & (1 << kd):
                    add("skip", f"{_NAMES[kd]} cannot start: {why}", _NAMES[kd])
        if how in _NAMES and step == 0:
            (name, ref, _, _), trigger, p = _KINDS[how], how, int(ports[i])
            text = f"{name} detour ({ref}) starts: port {p} to {_peer(topo, a, p)}"
            add("detour", text, name, port=p)
        elif how in (KIND_TT, KIND_XT) and step == 1 and trigger == KIND_TX:
            tt = how == KIND_TT
            text = (
                f"X1 {'can' if tt else 'cannot'} turn back over a healthy allowed cross link: "
                f"{'Three-Turn' if tt else 'X-Turns'} continues"
            )
            add("decide", text, _NAMES[how])
        elif how in _PLAIN:
            add(*_PLAIN[how])
        elif how == HOW_MISROUTE:
            why = f"the {_NAMES.get(mask, 'detour')} detour found no healthy allowed port"
            why = "no rule applies" if fault >= 0 else why
            text = f"escape: {why}; misroute to a healthy port other than the way back, then "
            add("misroute", text + "Algorithm 1 again", "escape")
        elif how == -1:
            add("fail", _failure(q, r.status, a, step, fault, mask))
    return ev


def _failure(q, name, a, step, fault, mask) -> str:
    """Why a paper walk's route failed at switch ``a``."""
    alg = q.alg
    if name == "TTL":
        return "TTL: the hop limit fired (livelock guard; it never fires for the papers' rules)"
    if fault >= 0:
        if mask > 0:
            tried = ", ".join(_NAMES[kd] for kd in _SKIPPABLE if mask & (1 << kd))
            return f"{name}: {tried} could not start and no other enabled rule covers this hop"
        have = [v[0] for v in _KINDS.values() if alg.flags & v[3]]
        have += [x for x, f in (("ROOT", ROOT), ("UPALT", UPALT)) if alg.flags & f]
        have = ", ".join(have) or "none"
        return f"{name}: {alg.name} has no rule for this kind of faulty hop (its rules: {have})"
    return (  # (mask: the detour's kind)
        f"{name}: the {_NAMES.get(mask, 'detour')} detour's step {_step(mask, step)} at "
        f"{q.topo.switch_label(a)} has no healthy allowed port (faulty ports here: "
        f"{_faulty_here(q, a)}; 001 Algorithm 2: 'routing fails')"
    )


def _event(hop, switch, event, algorithm, text, **extra) -> dict:
    return dict(hop=hop, switch=switch, event=event, algorithm=algorithm, text=text) | extra


def _generic_events(q, g, r, sws, ports, hows, vcs) -> list[dict]:
    """The events of a generic algorithm's route (``hows``: the rule of each port): each
    faulty routing port, each alternative port or misroute, the reason of a failure."""
    topo, rt, ctx, name = q.topo, g.ctx.rt, g.ctx, q.alg.name
    buf = np.empty(topo.max_ports + 1, np.int64)
    events, used = [], 0
    for i, (a, p, how) in enumerate(zip(sws.tolist(), ports.tolist(), hows.tolist())):
        if how not in (G_ALT, G_MISROUTE):
            continue
        here = topo.switch_label(a)
        c = route_ports(rt.code, rt.iparams, rt.table, rt.port_peer, a, -1, -1, q.dst, 0, buf)
        p0 = int(buf[0]) if c > 0 else -1
        if p0 >= 0 and q.faulty[topo.link_index[a, p0]]:
            why = f"{ctx.routing}'s port {p0} ({here} – {_peer(topo, a, p0)}) is faulty"
        else:
            why = f"{ctx.routing}'s port {p0} leads back or (lookahead) to a dead end"
        fault = dict(hop=i + 1, switch=here, event="fault", algorithm=None, port=p0, text=why)
        events.append(fault)  # (the port before the text: the key order of route --json)
        if how == G_MISROUTE:
            used += 1
            text = (
                f"no healthy minimal port (faulty here: {_faulty_here(q, a)}); misroute "
                f"{used} of {ctx.budget} to port {p} → {_peer(topo, a, p)}, then "
                f"{ctx.routing} again"
            )
            events.append(_event(i + 1, here, "misroute", name, text))
        else:
            text = f"another minimal port: {p} → {_peer(topo, a, p)} ({ctx.candidates})"
            events.append(_event(i + 1, here, "alternative", name, text))
    if q.alg.rule == RULE_ADAPTIVE:
        events += _adaptive_events(q, g, sws[: len(ports)], vcs)
    if not r.success and len(sws) > 0:
        a = int(sws[-1])
        here = topo.switch_label(a)
        text = f"{r.status}: no usable port at {here} (faulty ports here: {_faulty_here(q, a)})"
        if q.alg.rule == RULE_DETOUR:
            text += f"; misroutes left: {ctx.budget - used}"
        events.append(_event(len(sws), here, "fail", None, text))
    return events


def _adaptive_events(q, g, sws, vcs) -> list[dict]:
    """Where ``adaptive`` offers the simulator's allocator more than its first choice
    (:func:`fattree.faults.generic.adaptive_ports`; the turn layers of one VC)."""
    topo, N = q.topo, q.topo.n_nodes
    fr = fault_router(topo, g.alg.name, g.faulty, model=g.model)
    ar = adaptive_rule(fr.view(), 1 if one_vc_layered(topo.family) else 0)
    out, scr = np.zeros(topo.max_ports + 1, np.int64), adaptive_scratch(topo)
    events, prev, h0 = [], -1, 0 if q.src < 0 else 1
    for i, a in enumerate(sws.tolist()):
        down = prev >= 0 and hop_down(ar.order, N, prev, N + a)
        at = AdaptiveAt(a, prev, h0 + i, q.dst, vcs[i - 1] if i else 0, down)
        m = adaptive_ports(ar, at, out, scr)
        also = [f"{p} → {_peer(topo, a, p)}" for p in out[1:m]]
        if also:
            text = f"the allocator may also take {', '.join(also)} (minimal still delivers)"
            events.append(_event(i + 1, topo.switch_label(a), "adaptive", g.alg.name, text))
        prev = a
    return events


def resolve_route_algorithm(
    topo: Topology, name: str | None, with_faults: bool
) -> tuple[str, str | None]:
    """Which registry serves ``fattree route`` / ``deadlock``: ``("routing", name)`` or
    ``("faults", name)`` (the rules: docs/faults-deadlock.md, name resolution).

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("mikant:k=3,n=3")
    >>> resolve_route_algorithm(t, "alg1", False), resolve_route_algorithm(t, "alg1", True)
    (('routing', 'alg1'), ('faults', 'sp'))
    >>> resolve_route_algorithm(t, "gns", False)
    ('faults', 'gns')
    """
    from .algorithms import FT_ALGORITHMS, GENERIC_ALIASES, SPEC_NAMES

    fam = topo.family
    walkable = [n for n, a in FT_ALGORITHMS.items() if a.defined_for(fam) and not a.is_oracle]
    key = None if name is None else SPEC_NAMES.get(name.strip().lower(), name.strip().lower())
    if not with_faults:
        if key is None or name in ALGORITHMS or key not in walkable:
            return "routing", name
        return "faults", key
    if not walkable:
        fams = sorted({f for _, a in FT_ALGORITHMS.items() for f in a.families})
        raise ParameterError(
            f"faults: fault-tolerant routing is defined for "
            f"{', '.join(fams)}, not {fam!r} ({topo.spec})"
        )
    if walk_of(fam) is None:
        key = default_ft_algorithm(fam) if key is None else GENERIC_ALIASES.get(key, key)
    key = "sp" if key in (None, "alg1") else key
    if key in walkable:
        return "faults", key
    if key == "oracle":
        raise ParameterError(
            "algorithm='oracle' is a bound (BFS with global knowledge), not a "
            f"routing function; valid with --faults: {', '.join(walkable)}"
        )
    kind = "a routing algorithm without fault handling" if key in ALGORITHMS else "unknown"
    raise ParameterError(
        f"algorithm={name!r} is {kind} for --faults on {fam!r}; valid: "
        f"{', '.join(walkable)} (alg1 = sp)"
    )


__all__ = ["FTExplanation", "explain_route", "resolve_route_algorithm"]
