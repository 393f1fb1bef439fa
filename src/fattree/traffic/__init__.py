"""Traffic: patterns (where packets go) and injection processes (when they are created).

Both are bound to a network size in Python (:func:`make_traffic`,
:func:`make_process`) and evaluated inside numba by :func:`dest` and
:func:`create_cycle`; every random decision hashes ``(seed, ...)``
(:mod:`fattree.traffic.rng`), see docs/traffic.md.
"""

from .injection import INJECTIONS, Injection, Process, check_load, create_cycle, make_process
from .patterns import PATTERNS, Pattern, Traffic, dest, make_traffic, place
from .trace import read_trace

__all__ = [
    "PATTERNS",
    "INJECTIONS",
    "Pattern",
    "Injection",
    "Traffic",
    "Process",
    "make_traffic",
    "make_process",
    "dest",
    "create_cycle",
    "check_load",
    "read_trace",
    "place",
]
