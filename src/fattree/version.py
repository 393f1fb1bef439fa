"""The installed version, ``fattree.__version__``.

In a module of its own so that the subpackages that record it in their results import this
module, not the package ``__init__`` (which imports the public API, and so every layer).
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("fattree")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
