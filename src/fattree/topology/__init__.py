"""Topologies: the immutable :class:`Topology`, the family registry and :func:`build`."""

from . import families  # noqa: F401  (fills the registry)
from .core import PORT_CUBE, PORT_DOWN, PORT_NODE, PORT_NONE, PORT_UP, Topology
from .family import FAMILIES, Facets, Family, Param, build, parse_spec, register_family, resolve

__all__ = [
    "Topology",
    "FAMILIES",
    "Facets",
    "Family",
    "Param",
    "build",
    "parse_spec",
    "register_family",
    "resolve",
    "PORT_NONE",
    "PORT_DOWN",
    "PORT_UP",
    "PORT_CUBE",
    "PORT_NODE",
]
