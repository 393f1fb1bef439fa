"""Every family registers itself on import (see :data:`fattree.topology.FAMILIES`)."""

from . import clos, kant, mikant  # noqa: F401
