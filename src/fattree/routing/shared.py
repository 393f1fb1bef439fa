"""Routing kernels other subpackages call (``faults/``, ``sim/``), under public names.

The implementations stay in their private modules; this module is the one place outside
callers import them from, so no private name crosses a subpackage boundary.

* :func:`find_cycle` — one cycle of a channel dependency graph (iterative DFS), channel
  ids ``(sw * R + port) * V + vc``; empty when acyclic (``routing/_cdg.py``).
* :func:`pair_weight` — the traffic weight of an ordered pair in a channel-load sum
  (``routing/_load.py``); :func:`traffic_weights` the arguments it needs for a traffic
  spec (``routing/load.py``).
"""

from __future__ import annotations

from ._cdg import _find_cycle as find_cycle
from ._load import _weight as pair_weight
from .load import _traffic_weights as traffic_weights

__all__ = ["find_cycle", "pair_weight", "traffic_weights"]
