"""The routing algorithm registry and :func:`compile_routing` (routing contract).

An :class:`Algorithm` describes a routing function (paper, properties) and holds a
compiler ``f(topo, seed) -> (code, iparams, table)``; :func:`register_algorithm`
fills :data:`ALGORITHMS` by decorating such compilers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, UnknownNameError, closest
from ..registry import Registry
from ..topology.core import Topology
from ._consts import IP_KN1, IP_K, IP_N, IP_NODES, IP_POLICY, IP_POW, IP_SEED

Compiler = Callable[[Topology, int], tuple[int, np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Algorithm:
    """A registered routing algorithm.

    ``families`` is ``None`` for algorithms defined on any graph. ``support`` names
    the adaptive algorithm whose candidate sets a randomised algorithm draws from
    (used to count its paths, its dependencies and its expected loads). ``demo``
    marks algorithms kept only to demonstrate a failure (never a default).
    ``per_packet`` marks algorithms whose port depends on the source or the packet
    (``smodk``, ``random``): walks cannot then be shared between the nodes of a leaf.
    """

    name: str
    title: str
    paper: str
    families: tuple[str, ...] | None
    compiler: Compiler
    minimal: bool = True
    adaptive: bool = False
    vcs_required: int = 1
    support: str | None = None
    demo: bool = False
    default_for: tuple[str, ...] = ()
    per_packet: bool = False
    doc: str = ""

    def supports(self, family: str) -> bool:
        return self.families is None or family in self.families


ALGORITHMS: Registry[Algorithm] = Registry("routing algorithm")


def register_algorithm(
    name: str,
    *,
    title: str,
    paper: str,
    families=None,
    minimal=True,
    adaptive=False,
    vcs_required=1,
    support=None,
    demo=False,
    default_for=(),
    per_packet=False,
):
    """Decorator registering a compiler ``f(topo, seed) -> (code, iparams, table)``.

    A compiler may return a fourth item, a dict overriding ``vcs_required`` or
    ``minimal`` for that topology (properties that depend on the parameters).

    Parameters
    ----------
    name : str
        The algorithm's name (``--algorithm NAME``).
    title : str
        One line for listings.
    paper : str
        Paper and section it comes from.
    families : sequence of str, optional
        The families it is defined on (None: any graph).
    minimal, adaptive : bool
        Every route has BFS length; ``route_ports`` may return several candidates.
    vcs_required : int
        Virtual channels needed for deadlock freedom.
    support : str, optional
        The adaptive algorithm whose candidates a randomised one draws from.
    demo : bool
        Kept only to demonstrate a failure (never a default).
    default_for : sequence of str
        Families whose default it is.
    per_packet : bool
        The port depends on the source or the packet.

    Returns
    -------
    callable
        The decorator; it returns the compiler unchanged.
    """

    def deco(fn: Compiler) -> Compiler:
        ALGORITHMS.add(
            name,
            Algorithm(
                name=name,
                title=title,
                paper=paper,
                families=None if families is None else tuple(families),
                compiler=fn,
                minimal=minimal,
                adaptive=adaptive,
                vcs_required=vcs_required,
                support=support,
                demo=demo,
                default_for=tuple(default_for),
                per_packet=per_packet,
                doc=(fn.__doc__ or "").strip(),
            ),
        )
        return fn

    return deco


@dataclass(frozen=True, eq=False)
class CompiledRouting:
    """A routing algorithm bound to one topology: what the numba kernels need.

    Attributes
    ----------
    algorithm : str
        Registered name.
    code : int
        Rule selector of :func:`fattree.routing.kernel.route_ports`.
    iparams : (m,) int64
        The rule's integers (arity, levels, policy, seed, powers of k, ...).
    table : (S, N) or (1, 1) int32
        Next-hop table (irregular graphs only).
    seed : int
        Seed of per-packet random choices.
    minimal, adaptive : bool
        Every route has BFS length; several candidates may be returned per hop.
    vcs_required : int
        Virtual channels needed for an acyclic channel dependency graph.
    support : str or None
        Adaptive algorithm whose candidates a random algorithm draws from.
    """

    algorithm: str
    code: int
    iparams: np.ndarray
    table: np.ndarray
    seed: int
    minimal: bool
    adaptive: bool
    vcs_required: int
    family: str
    support: str | None = None
    per_packet: bool = False

    def __post_init__(self):
        # the kernels' one signature (routing/kernel.py): C-contiguous int64 / int32 arrays
        for name, dtype in (("iparams", np.int64), ("table", np.int32)):
            a = getattr(self, name)
            if a.dtype != dtype or not a.flags.c_contiguous:
                object.__setattr__(self, name, np.ascontiguousarray(a, dtype))


NO_TABLE = np.zeros((1, 1), np.int32)
NO_TABLE.flags.writeable = False


def tree_iparams(topo: Topology, policy: int, seed: int) -> np.ndarray:
    """iparams of the digit rules: k, n, policy, seed, k^(n-1), N and the powers of k.

    Parameters
    ----------
    topo : Topology
        A digit-labelled tree (``k``, ``n`` in ``topo.params``).
    policy : int
        The rule's policy code.
    seed : int
        The routing seed.

    Returns
    -------
    numpy.ndarray of int64
        The integer parameters of :func:`fattree.routing.kernel.route_ports`.
    """
    k, n = int(topo.params["k"]), int(topo.params["n"])
    ip = np.zeros(IP_POW + n + 1, np.int64)
    ip[IP_K], ip[IP_N], ip[IP_POLICY], ip[IP_SEED] = k, n, policy, seed
    ip[IP_KN1] = k ** (n - 1)
    ip[IP_NODES] = topo.n_nodes
    ip[IP_POW:] = k ** np.arange(n + 1, dtype=np.int64)
    return ip


def algorithms_for(family: str, *, include_demo: bool = False) -> list[str]:
    """Names of the algorithms defined on a family (family-specific ones first).

    Parameters
    ----------
    family : str
        A family name (``topo.family``).
    include_demo : bool
        Also list the algorithms kept only to demonstrate a failure.

    Returns
    -------
    list of str
        Algorithm names.

    Examples
    --------
    >>> from fattree.routing import algorithms_for
    >>> algorithms_for("mikant")[:3]
    ['alg1', 'dmodk', 'smodk']

    References
    ----------
    000 Algorithm 1; docs/mikant-routing.md §2.
    """
    own = [
        a.name
        for _, a in ALGORITHMS.items()
        if a.families is not None and family in a.families and (include_demo or not a.demo)
    ]
    generic = [a.name for _, a in ALGORITHMS.items() if a.families is None]
    return own + generic


def default_algorithm(family: str) -> str:
    """The default algorithm of a family (balanced: dmodk on kant and clos, ``balanced`` on
    MiKANT; the papers' Algorithm 1 is ``alg1``, named explicitly by reproductions), else
    ``shortest``.

    Parameters
    ----------
    family : str
        A family name.

    Returns
    -------
    str
        The name of the algorithm used when none is given.

    Examples
    --------
    >>> from fattree.routing import default_algorithm
    >>> default_algorithm("mikant"), default_algorithm("imported")
    ('balanced', 'shortest')
    """
    for _, a in ALGORITHMS.items():
        if family in a.default_for:
            return a.name
    return "shortest"


def get_algorithm(name: str, family: str | None = None) -> Algorithm:
    """The registered algorithm ``name``, checked against ``family`` if given.

    Parameters
    ----------
    name : str
        A registered algorithm name.
    family : str, optional
        The family it must be defined on.

    Returns
    -------
    Algorithm
        The registry entry.

    Raises
    ------
    UnknownNameError
        If ``name`` is not registered (the message lists the valid names).
    ParameterError
        If ``name`` is not a string, or the algorithm is not defined on ``family``.
    """
    if not isinstance(name, str):
        raise ParameterError(f"algorithm={name!r} is invalid: expected a name such as 'alg1'")
    if name not in ALGORITHMS:
        valid = algorithms_for(family, include_demo=True) if family else ALGORITHMS.names()
        raise UnknownNameError(
            f"unknown routing algorithm {name!r}{closest(name, valid)}; valid"
            f"{' for ' + family if family else ''}: {', '.join(valid)}"
        )
    alg = ALGORITHMS.get(name)
    if family is not None and not alg.supports(family):
        raise ParameterError(
            f"algorithm={name!r} is not defined for family {family!r}; valid: "
            f"{', '.join(algorithms_for(family, include_demo=True))}"
        )
    return alg


def compile_routing(topo: Topology, algorithm: str | None = None, seed: int = 0) -> CompiledRouting:
    """Bind a routing algorithm to a topology for the numba kernels.

    Parameters
    ----------
    topo : Topology
        The network.
    algorithm : str, optional
        A name from :func:`algorithms_for`; default :func:`default_algorithm`.
    seed : int
        Seed of per-packet random choices (``random``), ``0 <= seed < 2**63``.

    Returns
    -------
    CompiledRouting

    Examples
    --------
    >>> import fattree
    >>> from fattree.routing import compile_routing
    >>> cr = compile_routing(fattree.build("mikant:k=3,n=4"), "alg1")
    >>> cr.algorithm, cr.minimal, cr.adaptive, cr.vcs_required, cr.table.shape
    ('alg1', True, False, 1, (1, 1))

    References
    ----------
    000 Algorithm 1; docs/mikant-routing.md §2; docs/routing.md.
    """
    if not isinstance(topo, Topology):
        raise ParameterError(f"topo={type(topo).__name__} is invalid: expected a fattree Topology")
    if algorithm is None:
        algorithm = default_algorithm(topo.family)
    alg = get_algorithm(algorithm, topo.family)
    if (
        isinstance(seed, bool)
        or not isinstance(seed, (int, np.integer))
        or not 0 <= int(seed) < 2**63
    ):
        raise ParameterError(f"seed={seed!r} is invalid: expected an integer 0 <= seed < 2**63")
    code, iparams, table, *extra = alg.compiler(topo, int(seed))
    props = {"minimal": alg.minimal, "vcs_required": alg.vcs_required}
    props.update(extra[0] if extra else {})
    iparams = np.ascontiguousarray(iparams, np.int64)
    table = np.ascontiguousarray(table, np.int32)
    iparams.flags.writeable = False
    table.flags.writeable = False
    return CompiledRouting(
        algorithm=alg.name,
        code=int(code),
        iparams=iparams,
        table=table,
        seed=int(seed),
        minimal=props["minimal"],
        adaptive=alg.adaptive,
        vcs_required=props["vcs_required"],
        family=topo.family,
        support=alg.support,
        per_packet=alg.per_packet,
    )


__all__ = [
    "Compiler",
    "Algorithm",
    "ALGORITHMS",
    "register_algorithm",
    "CompiledRouting",
    "NO_TABLE",
    "tree_iparams",
    "algorithms_for",
    "default_algorithm",
    "get_algorithm",
    "compile_routing",
]
