"""The Dask worker plugin of the local cluster (a module of its own: it imports Dask)."""

from __future__ import annotations

import signal
import threading

from distributed import WorkerPlugin


class IgnoreInterrupt(WorkerPlugin):
    """The local cluster's workers ignore SIGINT: Ctrl-C reaches the whole process group,
    the sweep stops and says what was kept, and each worker would otherwise print its
    own traceback. Set up again in every worker the nanny restarts."""

    idempotent = True

    def setup(self, worker) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
