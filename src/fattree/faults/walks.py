"""The paper walks a family may plug into fault-tolerant routing, and how a family's engine
is found: the only place that maps a topology to its fault engine.

A family declares its fault engine in its facets (``Facets.fault_walk``, in its own module
under ``topology/families/``): ``None`` for the generic rules (:mod:`fattree.faults.generic`:
``sp``, ``minimal``, ``detour`` and the recomputed tables over the family's routing), or the
name of an entry of :data:`FAULT_WALKS`, its paper walk (001's MiKANT detours, 004's
MiKANTC Algorithm 1). Every consumer (the Monte Carlo loop, the explanation, the channel
dependency graph, ``route --faults``, the simulator's per-hop call and its load bound) asks
:func:`walk_of` and reads the entry, so no code outside a family's module compares family
names. The walk's kernels are keyed by the same name where they are compiled
(``STUDY_KERNELS`` of :mod:`fattree.faults.mcdraw`, the engines of ``sim/faulthop.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..registry import Registry

#: the key of the generic rules wherever engines are keyed by name (no paper walk)
GENERIC_ENGINE = "generic"


@dataclass(frozen=True)
class FaultWalk:
    """A paper walk: what it accepts beyond the generic rules.

    Attributes
    ----------
    name : str
        Its key (``Facets.fault_walk``, the algorithms' ``on``, the kernels' registries).
    models : tuple of str
        The fault-knowledge models it defines (``local``, ``lookahead``).
    why : str
        Why other models are refused (shown with the refusal).
    vc_classes : bool
        Whether it has deadlock-free VC classes of its own (``faults/cdg.py`` ``ft_vc``:
        more than one VC in the simulator, ``deadlock --faults`` ranks); without them the
        simulator runs it on one VC.
    generic_rules : bool
        Whether the family also offers the generic rules (``minimal``, ``detour``, the
        tables) beside the walk; without them the names of the generic aliases
        (``escape`` → ``detour``) are not rewritten either.
    tie_break : bool
        Whether it takes ``--tie-break`` (004's random choice among cube dimensions).
    """

    name: str
    models: tuple[str, ...]
    why: str
    vc_classes: bool
    generic_rules: bool
    tie_break: bool = False


FAULT_WALKS: Registry[FaultWalk] = Registry("fault walk")
FAULT_WALKS.add(
    "mikant",
    FaultWalk("mikant", ("local", "lookahead"), "", vc_classes=True, generic_rules=True),
)
FAULT_WALKS.add(
    "mikantc",
    FaultWalk(
        "mikantc",
        ("local",),
        "004's Algorithm 1 is local",
        vc_classes=False,
        generic_rules=False,
        tie_break=True,
    ),
)


def walk_of(family: str) -> FaultWalk | None:
    """The paper walk ``family`` declares (``Facets.fault_walk``), or None (the generic
    rules; also for a name that is not a family).

    Parameters
    ----------
    family : str
        A topology family name.

    Returns
    -------
    FaultWalk or None

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

    Returns
    -------
    str

    Examples
    --------
    >>> engine_of("mikantc"), engine_of("xgft")
    ('mikantc', 'generic')
    """
    w = walk_of(family)
    return GENERIC_ENGINE if w is None else w.name


__all__ = ["FAULT_WALKS", "FaultWalk", "GENERIC_ENGINE", "engine_of", "walk_of"]
