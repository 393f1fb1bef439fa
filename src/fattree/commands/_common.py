"""Helpers shared by the command modules (output only; no library logic here)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
from rich.console import Console

console = Console()
err_console = Console(stderr=True)


def _default(o: Any):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return None if not math.isfinite(float(o)) else float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.bool_):
        return bool(o)
    if hasattr(o, "items"):
        return dict(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _clean(o: Any):
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    return o


def print_json(obj: Any) -> None:
    """Print strict JSON (NaN/inf become null) on stdout."""
    print(json.dumps(_clean(json.loads(json.dumps(obj, default=_default))), indent=2))


def warn_routing(topo, cr, traffic: str, bound: float | None, seed: int = 0) -> None:
    """One ``warning:`` line on stderr when the compiled routing ``cr``'s channel-load bound
    is far below the best known routing's (fattree.routing.advice); nothing otherwise."""
    if cr is None or bound is None:
        return
    import sys

    from ..routing.advice import routing_advice

    advice = routing_advice(topo, cr, traffic, bound=bound, seed=seed)
    if advice is not None:
        print(f"warning: {advice.message()}", file=sys.stderr)
