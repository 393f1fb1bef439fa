"""Every family registers itself on import (see :data:`fattree.topology.FAMILIES`)."""

from . import clos, kant, mikant  # noqa: F401
from . import cubes  # noqa: F401
from . import minft  # noqa: F401
from . import cat  # noqa: F401
from . import kantc  # noqa: F401
from . import graph  # noqa: F401
from . import xgft  # noqa: F401
