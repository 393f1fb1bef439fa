"""How a family's fault engine is found (the only place that maps a topology to it): its
``Facets.fault_walk``, None for the generic rules (:mod:`fattree.faults.generic`) or a paper
walk whose module, imported here, registers its :class:`~fattree.faults.hooks.FaultWalk`.
"""

from __future__ import annotations

from . import mikant, mikantc  # noqa: F401  (each registers its walk)
from .hooks import FAULT_WALKS, GENERIC_ENGINE, FaultWalk


def walk_of(family: str) -> FaultWalk | None:
    """The paper walk ``family`` declares (``Facets.fault_walk``), or None (the generic
    rules, or not a family).

    Parameters
    ----------
    family : str
        A topology family name.

    Examples
    --------
    >>> walk_of("mikant").models, walk_of("kant")
    (('local', 'lookahead'), None)

    References
    ----------
    001 §4.2 (MiKANT), 004 Algorithm 1 (MiKANTC); docs/ARCHITECTURE.md ("How to add a family").
    """
    from ..topology import FAMILIES

    if family not in FAMILIES:
        return None
    name = FAMILIES.get(family).facets.fault_walk
    return None if name is None else FAULT_WALKS.get(name)


def engine_of(family: str) -> str:
    """The key of ``family``'s fault engine: its walk's name, or :data:`GENERIC_ENGINE`.

    Parameters
    ----------
    family : str
        A topology family name.

    Examples
    --------
    >>> engine_of("mikantc"), engine_of("xgft")
    ('mikantc', 'generic')
    """
    w = walk_of(family)
    return GENERIC_ENGINE if w is None else w.name


__all__ = ["FAULT_WALKS", "FaultWalk", "GENERIC_ENGINE", "engine_of", "walk_of"]
