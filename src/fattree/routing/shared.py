"""Routing kernels other subpackages call (``faults/``, ``sim/``), under public names.

The implementations stay in their private modules; this module is the one place outside
callers import them from, so no private name crosses a subpackage boundary.

* :func:`find_cycle` — one cycle of a channel dependency graph (iterative DFS), channel
  ids ``(sw * R + port) * V + vc``; empty when acyclic (``routing/_cdg.py``).
* :func:`pair_weight` — the traffic weight of an ordered pair in a channel-load sum
  (``routing/_load.py``); :func:`traffic_weights` the arguments it needs for a traffic
  spec (``routing/load.py``).
* :func:`alg1_iparams`, :func:`alg1_port` — MiKANT's Algorithm 1 for the fault-tolerant
  walks (``faults/mikant.py``, ``faults/mikantc.py``): routing's own ``alg1`` rule
  (``_mikant_ports``), with its iparams built inside numba from (k, n).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..compiling import nrt_free
from ._cdg import _find_cycle as find_cycle
from ._consts import IP_K, IP_KN1, IP_N, IP_POLICY, IP_POW, POL_ALG1
from ._load import _weight as pair_weight
from ._trees import _mikant_ports
from .load import _traffic_weights as traffic_weights


@njit(cache=True)
def alg1_iparams(k, n):
    """The iparams of routing's ``alg1`` on MiKANT(k, n) (as ``tree_iparams``; the seed
    and the node count are unused by Algorithm 1).

    Examples
    --------
    >>> import fattree
    >>> from fattree.routing.compiled import tree_iparams
    >>> from fattree.routing._consts import POL_ALG1
    >>> ip = tree_iparams(fattree.build("mikant:k=3,n=3"), POL_ALG1, 0)
    >>> ip[5] = 0  # node count: unused by Algorithm 1
    >>> bool((alg1_iparams(3, 3) == ip).all())
    True

    References
    ----------
    000 Algorithm 1 (001's printing); docs/mikant-routing.md §2.
    """
    ip = np.zeros(IP_POW + n + 1, np.int64)
    ip[IP_K] = k
    ip[IP_N] = n
    ip[IP_POLICY] = POL_ALG1
    ip[IP_KN1] = k ** (n - 1)
    p = 1
    for i in range(n + 1):
        ip[IP_POW + i] = p
        p *= k
    return ip


@njit(**nrt_free())
def alg1_port(ip, sw, dst, out):
    """Algorithm 1's output port of MiKANT switch ``sw`` for node ``dst``: routing's
    ``alg1`` rule (``route_ports`` with code MiKANT), written to ``out[0]`` and returned."""
    _mikant_ports(ip, sw, -1, dst, 0, out)
    return out[0]


__all__ = ["alg1_iparams", "alg1_port", "find_cycle", "pair_weight", "traffic_weights"]
