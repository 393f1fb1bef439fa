"""numpy for the family modules, imported on its first use.

The families register themselves (name, parameters, paper, facets) when their modules are
imported; listing them (``fattree families``, ``fattree --help``, shell completion) must not
pay numpy's import, a third of a second's CPU budget. The modules use ``np`` as usual: the
first attribute read imports numpy and copies its names onto this stand-in, so that later
reads are ordinary attribute lookups, as fast as a module's.
"""

from __future__ import annotations

import importlib
from typing import Any


class _Numpy:
    """Stands for the ``numpy`` module until its first attribute read (then mirrors it)."""

    def __getattr__(self, name: str) -> Any:  # only for names not copied yet
        module = importlib.import_module("numpy")
        self.__dict__.update((k, v) for k, v in vars(module).items() if not k.startswith("__"))
        return getattr(module, name)

    def __repr__(self) -> str:
        return "<numpy, imported on first use>"


np: Any = _Numpy()
