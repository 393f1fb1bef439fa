"""``python -m fattree``: the same as the ``fattree`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
