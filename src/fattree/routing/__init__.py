"""Routing: per-hop rules (numba), compiled tables for irregular graphs, verification
(:func:`check`), channel dependency graphs (:func:`deadlock`) and channel loads.

The contract used by the simulator and the fault-tolerance code is in
``docs/ARCHITECTURE.md`` ("The routing contract").
"""

from . import algorithms as _algorithms  # noqa: F401  (fills ALGORITHMS)
from . import booksim as _booksim  # noqa: F401  (BookSim2's nca and anynet min)
from .compiled import (
    ALGORITHMS,
    Algorithm,
    CompiledRouting,
    algorithms_for,
    compile_routing,
    default_algorithm,
    get_algorithm,
    register_algorithm,
)
from .kernel import next_vc, route_ports
from .walk import RouteResult, route

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "CompiledRouting",
    "algorithms_for",
    "compile_routing",
    "default_algorithm",
    "get_algorithm",
    "register_algorithm",
    "next_vc",
    "route_ports",
    "RouteResult",
    "route",
]
