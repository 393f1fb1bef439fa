"""Which routing to use: the best known deterministic routing of a family and its bound,
and advice when a chosen routing's channel-load bound is far below it.

The library only returns the information (:class:`RoutingAdvice`); the CLI prints it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ParameterError
from ..topology.core import Topology
from .compiled import CompiledRouting, default_algorithm

# warn when the chosen routing's bound is below this fraction of the best known bound
FAR_BELOW = 0.5
# skip the extra channel-load evaluation above this many (node, switch) pairs
ADVICE_MAX_WORK = 1 << 24


@dataclass(frozen=True)
class RoutingAdvice:
    """A chosen routing's throughput bound beside the best known routing's (same
    topology, same traffic), both ``1/gamma_max`` in flits per node per cycle."""

    spec: str
    traffic: str
    algorithm: str
    bound: float
    better: str
    better_bound: float

    @property
    def ratio(self) -> float:
        return self.bound / self.better_bound

    def message(self) -> str:
        """One line naming the better routing."""
        return (
            f"{self.algorithm}'s channel-load bound on {self.spec} under {self.traffic} is "
            f"{self.bound:.4f}, {self.better_bound / self.bound:.1f}x below {self.better}'s "
            f"{self.better_bound:.4f}: use --algorithm {self.better} unless you are "
            f"reproducing a paper"
        )

    def to_dict(self) -> dict:
        return {**self.__dict__, "ratio": self.ratio}


def best_routing(family: str) -> str:
    """The best known deterministic deadlock-free minimal routing of a family.

    Examples
    --------
    >>> best_routing("kant"), best_routing("mikant"), best_routing("imported")
    ('dmodk', 'balanced', 'shortest')

    References
    ----------
    docs/routing.md ("Channel load and throughput bounds"; ``balanced``).
    """
    return default_algorithm(family)


def routing_advice(
    topo: Topology,
    algorithm: str | CompiledRouting,
    traffic: str = "uniform",
    *,
    bound: float | None = None,
    seed: int = 0,
    far_below: float = FAR_BELOW,
) -> RoutingAdvice | None:
    """Advice when ``algorithm``'s throughput bound is far below the best known routing's.

    Parameters
    ----------
    topo : Topology
    algorithm : str or CompiledRouting
        The chosen routing.
    traffic : str
        A pattern of :mod:`fattree.traffic`.
    bound : float, optional
        The chosen routing's bound if already computed (saves one evaluation).
    seed : int
        Seed of the traffic pattern (``randperm``) and of random routing.
    far_below : float
        Advise when ``bound < far_below * best bound`` (0 < far_below <= 1).

    Returns
    -------
    RoutingAdvice or None
        None when the chosen routing is the best known one, is within ``far_below`` of
        it, or when the network is too large for an exact channel-load evaluation.

    Examples
    --------
    >>> import fattree
    >>> a = routing_advice(fattree.build("kant:k=4,n=3"), "alg1")
    >>> a.better, round(a.bound, 4), round(a.better_bound, 4)
    ('dmodk', 0.2625, 1.0)
    >>> routing_advice(fattree.build("kant:k=4,n=3"), "dmodk") is None
    True

    References
    ----------
    Dally & Towles, Principles and Practices of Interconnection Networks, §3.3
    (channel load bound); docs/routing.md.
    """
    from .load import channel_load

    if not 0 < far_below <= 1:
        raise ParameterError(f"far_below={far_below!r} is invalid: expected 0 < far_below <= 1")
    name = algorithm.algorithm if isinstance(algorithm, CompiledRouting) else algorithm
    better = best_routing(topo.family)
    if name == better or topo.n_nodes * topo.n_switches > ADVICE_MAX_WORK:
        return None
    if bound is None:
        bound = float(channel_load(topo, algorithm, traffic, seed=seed).bound)
    best = float(channel_load(topo, better, traffic, seed=seed).bound)
    if not bound < far_below * best:
        return None
    return RoutingAdvice(
        spec=topo.spec,
        traffic=traffic,
        algorithm=name,
        bound=float(bound),
        better=better,
        better_bound=best,
    )
