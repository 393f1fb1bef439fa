"""Link-fault tolerance: the papers' algorithms, their combinations, an oracle, Monte Carlo."""

from .algorithms import FT_ALGORITHMS, FTAlgorithm, resolve_algorithms
from .links import parse_link, random_faults, read_fault_file
from .route import FTRoute, ft_route

__all__ = [
    "FT_ALGORITHMS",
    "FTAlgorithm",
    "resolve_algorithms",
    "parse_link",
    "random_faults",
    "read_fault_file",
    "FTRoute",
    "ft_route",
]
