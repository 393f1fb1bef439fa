"""fattree: design, analyse and simulate fat-tree-family interconnection networks.

The public names below are loaded on first use (PEP 562), so that ``import fattree.cli``
(every ``fattree --help``, every shell TAB) does not pay for numba, pandas and scipy.
"""

from __future__ import annotations

from importlib import import_module

from .compiling import use_source_cache as _use_source_cache

_use_source_cache()  # before any kernel module: numba's cache, one folder per source version

from .errors import FattreeError, ParameterError  # noqa: E402

#: public name -> the module that defines it
_LAZY = {
    "__version__": "fattree.version",  # importlib.metadata: a tenth of a second
    "Properties": "fattree.api",
    "fault_study": "fattree.api",
    "properties": "fattree.api",
    "read_results": "fattree.api",
    "simulate": "fattree.api",
    "simulate_loads": "fattree.api",
    "Topology": "fattree.topology",
    "build": "fattree.topology",
    "flow": "fattree.api",
    "saturation_load": "fattree.api",
}

__all__ = [
    "__version__",
    "FattreeError",
    "ParameterError",
    "Topology",
    "build",
    "simulate",
    "simulate_loads",
    "flow",
    "fault_study",
    "properties",
    "Properties",
    "read_results",
    "saturation_load",
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fattree' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # once loaded, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
