"""An experiment kind for the kill tests, synchronised on files instead of timing.

A point of kind ``block-for-test`` creates ``<flags>/started-<name>-<pid>`` when it starts;
a point whose name starts with ``long`` then waits until ``<flags>/release`` exists. A test
can thus kill a process while it is surely mid-point (it waits for the ``started`` flag)
and let the retried point finish (it creates ``release``), whatever the machine's load.

Workers register the kind through Dask's preload hook (:func:`dask_setup`: Dask's
``distributed.worker.preload`` names this file, :data:`PRELOAD`); the test's own process
calls :func:`registered`.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

KIND = "block-for-test"
HERE = Path(__file__).resolve().parent
#: the value of Dask's ``distributed.worker.preload`` that registers the kind on workers
PRELOAD = [str(HERE / "blocking_kind.py")]


def _run(config: dict, seed: int) -> dict:
    flags = Path(config["flags"])
    (flags / f"started-{config['name']}-{os.getpid()}").touch()
    if config["name"].startswith("long"):
        deadline = time.monotonic() + 600  # a test that never releases fails, not hangs
        while not (flags / "release").exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{config['name']} was never released")
            time.sleep(0.01)
    return {"value": len(config["name"]) + seed % 7}


def register() -> None:
    """Add the kind to ``TASKS`` (once per process)."""
    from fattree.sweep.tasks import TASKS, TaskParam, task

    if KIND not in TASKS:
        task(
            KIND,
            params=[
                TaskParam("flags", str, "folder of the started/release flags"),
                TaskParam("name", str, "point name; 'long*' waits for release"),
            ],
        )(_run)


@contextlib.contextmanager
def registered():
    """The kind registered in this process for the block, and the environment that makes
    the Dask workers started meanwhile (here or in a child process) register it too."""
    from fattree.sweep.tasks import TASKS

    env = os.environ.get("DASK_DISTRIBUTED__WORKER__PRELOAD")
    added = KIND not in TASKS
    register()
    # read by the Dask of a child process (the CLI in a subprocess)
    os.environ["DASK_DISTRIBUTED__WORKER__PRELOAD"] = json.dumps(PRELOAD)
    try:
        yield
    finally:
        if env is None:
            os.environ.pop("DASK_DISTRIBUTED__WORKER__PRELOAD", None)
        else:
            os.environ["DASK_DISTRIBUTED__WORKER__PRELOAD"] = env
        if added:
            TASKS._entries.pop(KIND, None)  # leave the registry as the other tests expect


def dask_setup(worker) -> None:
    """Dask's preload hook: register the kind on a starting worker."""
    register()


def wait_for(predicate, what: str, timeout: float = 300.0):
    """Poll ``predicate()`` until it returns something true (an event: a file appears)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")
