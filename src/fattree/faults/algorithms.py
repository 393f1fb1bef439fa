"""The link-fault-tolerant routing algorithms of 001 (and extensions), as flag sets.

Each algorithm is a combination of the detours of docs/mikant-routing.md §3, tried in
the precedence order of §4 (crossing faults: GNS → TT → XT; down-phase faults: GDL),
under one of two knowledge models (§3.0): ``local`` (a switch sees only its own links)
or ``lookahead`` (the trigger switch sees every link of its candidate detours).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ParameterError
from ..registry import Registry
from .hooks import CUBE, ESCAPE, GDL, GNS, ORACLE, ROOT, TT, UPALT, XT
from .walks import GENERIC_ENGINE, walk_of

# Rules of the generic per-hop kernel (faults/generic.py), every family but mikant/mikantc
RULE_SP = 0  # the family's routing, no fault handling
RULE_MINIMAL = 1  # first healthy minimal port
RULE_DETOUR = 2  # minimal, then bounded misroutes (escape-style)
RULE_UPDOWN_T = 3  # up*/down* forwarding table recomputed on the surviving graph
RULE_SHORTEST_T = 4  # shortest-path forwarding table recomputed on the surviving graph
RULE_ORACLE = 5
RULE_ADAPTIVE = 6  # minimal's walk; in the simulator every minimal port that still delivers
TABLE_RULES = (RULE_UPDOWN_T, RULE_SHORTEST_T)
# rules the generic kernel serves on mikant too (beside 001's walks): the per-hop
# rules on MiKANT's balanced routing, and the tables
KERNEL_RULES = (RULE_MINIMAL, RULE_DETOUR, RULE_ADAPTIVE) + TABLE_RULES

MODELS = ("local", "lookahead")


@dataclass(frozen=True)
class FTAlgorithm:
    """A fault-tolerant routing algorithm: its detour flags, what it assumes, and the fault
    engines it is defined on (``on``: :data:`fattree.faults.walks.GENERIC_ENGINE` for the
    generic rules, a walk's name for the families that declare that walk,
    ``Facets.fault_walk``; ``"*"``: every engine)."""

    name: str
    flags: int
    origin: str
    knowledge: str
    on: tuple[str, ...] = ("mikant",)
    rule: int = -1  # generic kernel rule (RULE_*), -1: the paper walks only
    walks_as: str = ""  # its walk is this algorithm's ("all" leaves it out: name it)

    @property
    def is_oracle(self) -> bool:
        return bool(self.flags & ORACLE)

    def defined_for(self, family: str) -> bool:
        """Whether ``family`` offers this algorithm through its fault engine (``"*"`` in
        ``on``: every engine; the generic rules also beside a walk that keeps them,
        ``FaultWalk.generic_rules``)."""
        if "*" in self.on:
            return True
        w = walk_of(family)
        if w is None:
            return GENERIC_ENGINE in self.on
        if w.name in self.on or self.name in w.offers:
            return True
        return w.generic_rules and GENERIC_ENGINE in self.on

    @property
    def families(self) -> tuple[str, ...]:
        """The registered families that offer it: those with a paper walk first, then the
        others, each in registry order."""
        from ..topology import FAMILIES

        names = [f for f in FAMILIES.names() if self.defined_for(f)]
        return tuple(sorted(names, key=lambda f: walk_of(f) is None))

    def walked_on(self, family: str) -> bool:
        """Whether on ``family`` this is its paper walk (001's MiKANT detours, 004's
        MiKANTC Algorithm 1; ``sp`` there is Algorithm 1) rather than the generic
        per-hop kernel or a table engine (faults/generic.py)."""
        return walk_of(family) is not None and self.rule not in KERNEL_RULES


FT_ALGORITHMS: Registry[FTAlgorithm] = Registry("fault-tolerant routing algorithm")

_LOCAL = "local: each switch sees the state of its own links only"
_PKT = "; per packet: mode, detour step and two saved digits (W_{n-2}, W_{L_W-1})"


def _register(
    name: str,
    flags: int,
    origin: str,
    knowledge: str = _LOCAL + _PKT,
    on: tuple[str, ...] = ("mikant",),
    rule: int = -1,
    walks_as: str = "",
) -> None:
    FT_ALGORITHMS.add(
        name, FTAlgorithm(name, flags, origin, knowledge, on, rule, walks_as=walks_as)
    )


# every engine: the generic rules and each paper walk (sp is the walk with no detour)
EVERY = ("*",)
# the generic rules (also offered beside a walk with FaultWalk.generic_rules)
RULES = (GENERIC_ENGINE,)


_register(
    "sp",
    0,
    "000 Algorithm 1 (shortest path), no fault handling (MiKANTC: 004 §3); "
    "other families: their default routing (fattree routing list)",
    "none: fails at the first faulty link",
    on=EVERY,
    rule=RULE_SP,
)
_register("gns", GNS, "001 §4.2.1 Go-Neighbor-Switch")
_register("gdl", GDL, "001 §4.2.2 Go-Down-Level")
_register("gns+gdl", GNS | GDL, "001 §5 (their combination)")
_register("gns+xt", GNS | XT, "001 Algorithm 2 (Go-Neighbor-Switch, then X-Turns)")
_register(
    "gns+xt+gdl",
    GNS | XT | GDL,
    "001 §5; 004 Algorithm 1, tree part",
    on=("mikant", "mikantc"),
)
_register("tt", TT, "001 §4.2.4 Three-Turn")
_register("tt+gdl", TT | GDL, "001 §5 (GDL applied to Three-Turn)")
_register("gns+tt", GNS | TT, "001 §4.2.4 (Three-Turn when GNS cannot send)")
_register("gns+tt+gdl", GNS | TT | GDL, "001 §5")
_register("gns+tt+xt+gdl", GNS | TT | XT | GDL, "all four of 001 (GNS → TT → XT; GDL)")
_register(
    "gns+tt+xt+gdl+root",
    GNS | TT | XT | GDL | ROOT,
    "extension (docs/mikant-routing.md §3.5): crossing detours also at root crossings",
)
_register(
    "gns+tt+xt+gdl+upalt",
    GNS | TT | XT | GDL | UPALT,
    "extension (docs/mikant-routing.md §3.5): any healthy up port below the crossing / at a root crossing",
)
_register(
    "upalt",
    UPALT,
    "docs/mikant-routing.md §3.5 UPALT: first healthy up port on the way up (any NCA)",
    _LOCAL,
)
_register(
    "escape",
    GNS | TT | XT | GDL | ROOT | UPALT | ESCAPE,
    "this project: ALL+ROOT+UPALT, and when no rule applies or a detour dies, up to "
    "2n misroutes to a healthy port other than the one it came from, then Algorithm 1 "
    "again (it reaches every node from every switch)",
    _LOCAL + "; per packet: the detour state plus a misroute counter (≤ 2n) and the "
    "previous switch",
)
# Every other family (faults/generic.py): the family's routing plus its fault view.
_register(
    "minimal",
    0,
    "first healthy minimal port (fat trees: any healthy up port towards an "
    "NCA; hypercube/torus: fault-tolerant e-cube / dimension order: any productive "
    "dimension)",
    "local: each switch sees its own links; per packet: the previous switch",
    on=RULES,
    rule=RULE_MINIMAL,
)
_register(
    "detour",
    ESCAPE,
    "this project (escape-style): minimal, and when no minimal port is "
    "healthy a misroute to a healthy switch port other than the way back (fat trees: "
    "back up, or down and up, to descend through another ancestor), then the family's "
    "routing again; at most D misroutes (D = fault-free diameter)",
    "local: own links; per packet: a misroute counter (≤ D), the previous switch and the hop count",
    on=RULES,
    rule=RULE_DETOUR,
)
_register(
    "adaptive",
    0,
    "this project: minimal, and in the simulator the allocator chooses among every "
    "healthy minimal port whose onward route still delivers (within the VC layers), "
    "by free credits as without faults; in the Monte Carlo and route, the route of "
    "its first choice (minimal's); its deadlock graph holds every route it can take",
    "local: own links, and for each candidate whether the minimal rule delivers "
    "from its far switch; per packet: the previous switch",
    on=RULES,
    rule=RULE_ADAPTIVE,
    walks_as="minimal",
)
_register(
    "updown-table",
    0,
    "up*/down* forwarding tables (switch × destination) recomputed on "
    "the surviving graph from a BFS of the fault-free up*/down* root (Autonet)",
    "global: a subnet manager that sees every link recomputes the tables",
    on=RULES,
    rule=RULE_UPDOWN_T,
)
_register(
    "shortest-table",
    0,
    "shortest-path forwarding tables (switch × destination, lowest "
    "port one hop closer) recomputed on the surviving graph; VC layers by up*/down* turns",
    "global: a subnet manager that sees every link recomputes the tables",
    on=RULES,
    rule=RULE_SHORTEST_T,
)

_register(
    "oracle",
    ORACLE,
    "BFS shortest path on the surviving graph (upper bound)",
    "global: every link of the network",
    on=EVERY,
    rule=RULE_ORACLE,
)

# MiKANTC (004 §4, docs/faults-mikantc.md): the tree part is the MiKANT walk on the tree
# digits; cube hops add the hypercube multipath.
_CUBE_K = "local: each switch sees its own links and the static cube codes"
_register(
    "cube",
    CUBE,
    "004 Algorithm 1, cube part only: another shortest-path cube dimension "
    "when the chosen one is faulty",
    _CUBE_K + "; no packet state beyond T",
    on=("mikantc",),
)
_register(
    "cube+gns+xt+gdl",
    CUBE | GNS | XT | GDL,
    "004 Algorithm 1: hypercube multipath; rise: Go-Neighbor, then X-Turns; fall: Go-Down",
    _CUBE_K + _PKT,
    on=("mikantc",),
)
_register(
    "cube+escape",
    CUBE | GNS | TT | XT | GDL | ROOT | UPALT | ESCAPE,
    "this project: 004 Algorithm 1 + TT, ROOT, UPALT, and up to 2n+k misroutes to a "
    "healthy switch port other than the way back when every rule fails",
    _CUBE_K + _PKT + ", a misroute counter (≤ 2n+k) and the previous switch",
    on=("mikantc",),
)


# Other families: the escape-style extension is ``detour`` (accepted as ``escape``).
GENERIC_ALIASES = {"escape": "detour", "updown": "updown-table", "shortest": "shortest-table"}

# The names docs/mikant-routing.md §4 uses, mapped to ours.
SPEC_NAMES = {
    "all4": "gns+tt+xt+gdl",
    "all4+root": "gns+tt+xt+gdl+root",
    "all4+upalt": "gns+tt+xt+gdl+upalt",
}


def resolve_algorithms(names: str | list[str], family: str) -> list[FTAlgorithm]:
    """Parse ``"sp,gns,all,oracle"`` or ``"all"``... into algorithm objects.

    ``"all"`` alone selects every algorithm defined for the family (the spec's
    combination "ALL" of the four detours is named ``gns+tt+xt+gdl``), less those whose
    walk is another's (``adaptive``: ``minimal``'s; named, they run).

    Parameters
    ----------
    names : str or list of str
        Comma-separated names (or a list of names); ``"all"`` alone selects every algorithm
        of the family.
    family : str
        The topology family the algorithms run on.

    Returns
    -------
    list of FTAlgorithm
        In the order given.

    Raises
    ------
    UnknownNameError
        If a name is not an algorithm of the family.
    """
    if isinstance(names, str):
        parts = [p.strip().lower() for p in names.split(",") if p.strip()]
    else:
        parts = [p.strip().lower() for p in names]
    if not parts:
        raise ParameterError("algorithms='' is invalid: name at least one algorithm")
    if parts == ["all"]:
        return [a for _, a in FT_ALGORITHMS.items() if a.defined_for(family) and not a.walks_as]
    if walk_of(family) is None:
        parts = [GENERIC_ALIASES.get(p, p) for p in parts]
    out = []
    for p in parts:
        alg = FT_ALGORITHMS.get(SPEC_NAMES.get(p, p))
        if not alg.defined_for(family):
            valid = ", ".join(n for n, a in FT_ALGORITHMS.items() if a.defined_for(family))
            raise ParameterError(
                f"algorithm {p!r} is not defined for family {family!r}; valid: {valid}"
            )
        if alg not in out:
            out.append(alg)
    return out


def check_model(model: str) -> str:
    """The fault-knowledge model ``model``, checked.

    Parameters
    ----------
    model : str
        ``"local"`` or ``"lookahead"`` (:data:`MODELS`).

    Returns
    -------
    str
        ``model`` unchanged.

    Raises
    ------
    ParameterError
        If ``model`` is not one of :data:`MODELS`.
    """
    if model not in MODELS:
        raise ParameterError(f"model={model!r} is invalid: one of {', '.join(MODELS)}")
    return model


__all__ = [
    "GNS",
    "GDL",
    "XT",
    "TT",
    "ROOT",
    "UPALT",
    "ESCAPE",
    "CUBE",
    "ORACLE",
    "RULE_SP",
    "RULE_MINIMAL",
    "RULE_DETOUR",
    "RULE_UPDOWN_T",
    "RULE_SHORTEST_T",
    "RULE_ORACLE",
    "RULE_ADAPTIVE",
    "TABLE_RULES",
    "KERNEL_RULES",
    "MODELS",
    "FTAlgorithm",
    "FT_ALGORITHMS",
    "EVERY",
    "RULES",
    "GENERIC_ALIASES",
    "SPEC_NAMES",
    "resolve_algorithms",
    "check_model",
]
