"""Bind a workload spec to a network: :func:`make_workload` (the registration module)."""

from __future__ import annotations

import numpy as np

from ...errors import ParameterError, closest
from .._options import Opt, split_spec, validate_options
from . import collectives as _collectives  # noqa: F401  (fills COLLECTIVES)
from .base import COLLECTIVES, COMMON_OPTIONS, PLACEMENTS, Context, Workload, leaf_groups, place
from .units import format_size, parse_size

#: the options of ``goal:file=...``
GOAL_OPTIONS = (
    Opt("file", "a GOAL text file (LogGOPSim)", "", str),
    Opt("placement", "rank -> node: linear, random (seeded) or leaf", "linear", str),
)


def workload_names() -> list[str]:
    """Every workload name: the collectives, then ``goal``.

    Returns
    -------
    list of str
    """
    return [*COLLECTIVES.names(), "goal"]


def make_workload(spec: str, n_nodes: int, node_switch=None, seed: int = 0) -> Workload:
    """Bind a workload spec to a network of ``n_nodes`` nodes, validating everything first.

    Parameters
    ----------
    spec : str
        ``COLLECTIVE:algorithm=A,size=S,ranks=P,placement=L,...`` (e.g.
        ``"allreduce:algorithm=ring,size=1MiB"``) or ``goal:file=app.goal``.
    n_nodes : int
        Compute nodes of the network.
    node_switch : (N,) int array, optional
        Leaf switch of each node (``placement=leaf`` and ``algorithm=hier``); by default
        every node on its own switch.
    seed : int
        Seed of ``placement=random``.

    Returns
    -------
    Workload

    Raises
    ------
    ParameterError
        An unknown collective, algorithm or option (the valid ones listed), a size with no
        or a wrong unit, more ranks than nodes, a power-of-two algorithm on another count
        (the algorithms that take any count named).
    InputFileError
        A GOAL file that cannot run (:func:`~fattree.traffic.workloads.goal.read_goal`).

    Examples
    --------
    >>> w = make_workload("allreduce:algorithm=ring,size=1KiB", 4)
    >>> w.ranks, w.messages, w.bytes_sent().tolist()
    (4, 24, [1536, 1536, 1536, 1536])

    References
    ----------
    Thakur, Rabenseifner, Gropp, IJHPCA 2005; NCCL; docs/workloads.md.
    """
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, (int, np.integer)) or n_nodes < 2:
        raise ParameterError(f"n_nodes={n_nodes!r} is invalid: a workload needs at least 2 nodes")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ParameterError(f"seed={seed!r} is invalid: expected an integer 0 <= seed < 2**63")
    n_nodes = int(n_nodes)
    ns = np.arange(n_nodes) if node_switch is None else np.asarray(node_switch)
    name, raw = split_spec(spec, "workload")
    if name == "goal":
        return _goal(spec, raw, n_nodes, ns, int(seed))
    if name not in COLLECTIVES:
        valid = workload_names()
        raise ParameterError(
            f"workload={spec!r} is invalid: unknown collective {name!r}"
            f"{closest(name, valid)}; valid: {', '.join(valid)}"
        )
    col = COLLECTIVES.get(name)
    owner = f"workload {name!r}"
    opts = validate_options(owner, COMMON_OPTIONS + col.options, raw)
    alg_name = opts["algorithm"] or col.default
    if alg_name not in col.algorithms:
        valid = ", ".join(col.algorithms)
        raise ParameterError(
            f"{owner}: algorithm={alg_name!r} is invalid{closest(alg_name, col.algorithms)}; "
            f"valid: {valid}"
        )
    alg = col.algorithms[alg_name]
    size = parse_size(opts["size"] if "size" in raw else col.default_size, f"{name}: size")
    opts["size"] = format_size(size)
    p = opts["ranks"] or n_nodes
    if p > n_nodes:
        raise ParameterError(
            f"{owner}: ranks={p} is invalid: the network has {n_nodes} nodes (one rank per node)"
        )
    if p < 2:
        raise ParameterError(f"{owner}: ranks={p} is invalid: a collective needs at least 2 ranks")
    opts["ranks"] = p
    if alg.power_of_two and p & (p - 1):
        others = [a for a, v in col.algorithms.items() if not v.power_of_two]
        raise ParameterError(
            f"{owner}: algorithm={alg_name!r} needs a power-of-two rank count, not {p}; "
            f"on {p} ranks use {' or '.join(others)} (or ranks={1 << (p.bit_length() - 1)})"
        )
    if "root" in opts and not 0 <= opts["root"] < p:
        raise ParameterError(f"{owner}: root={opts['root']} is invalid: ranks are 0..{p - 1}")
    placement = _placement(owner, opts["placement"], n_nodes, p, int(seed), ns)
    ctx = Context(p, size, opts, leaf_groups(placement, ns))
    phases = tuple(ph for ph in alg.build(ctx) if ph.messages and ph.repeat)
    opts["algorithm"] = alg_name
    canon = f"{name}:" + ",".join(f"{k}={v}" for k, v in opts.items())
    return Workload(
        spec=canon,
        kind=name,
        algorithm=alg_name,
        ranks=p,
        size=size,
        placement=placement,
        phases=phases,
        busbw_factor=float(col.busbw(p)),
        options=opts,
        seed=int(seed),
    )


def _placement(owner, how, n_nodes, p, seed, ns) -> np.ndarray:
    if how not in PLACEMENTS:
        raise ParameterError(
            f"{owner}: placement={how!r} is invalid{closest(how, PLACEMENTS)}; "
            f"valid: {', '.join(PLACEMENTS)}"
        )
    if len(ns) != n_nodes:
        raise ParameterError(f"node_switch has {len(ns)} entries, expected {n_nodes}")
    return place(n_nodes, p, how, seed, ns)


def _goal(spec, raw, n_nodes, ns, seed) -> Workload:
    from .goal import read_goal

    opts = validate_options("workload 'goal'", GOAL_OPTIONS, raw)
    if not opts["file"]:
        raise ParameterError(
            f"workload={spec!r} is invalid: goal needs file=PATH (e.g. 'goal:file=app.goal')"
        )
    sched = read_goal(opts["file"])
    p = sched.ranks
    if p > n_nodes:
        raise ParameterError(
            f"workload {spec!r}: the file has num_ranks {p}, more than the network's "
            f"{n_nodes} nodes (one rank per node)"
        )
    placement = _placement("workload 'goal'", opts["placement"], n_nodes, p, seed, ns)
    sent = int(sched.nbytes[sched.kind == 0].sum())
    canon = "goal:" + ",".join(f"{k}={v}" for k, v in opts.items())
    return Workload(
        spec=canon,
        kind="goal",
        algorithm="",
        ranks=p,
        size=sent,
        placement=placement,
        phases=None,
        busbw_factor=1.0,
        options=opts,
        seed=seed,
        ops=sched,
    )


def describe_workloads() -> list[dict]:
    """Every collective with its algorithms and options, for ``fattree workload list``.

    Returns
    -------
    list of dict
        ``name``, ``title``, ``size`` (what it counts), ``algorithms`` (name, title,
        source, power_of_two), ``default``, ``options`` (name, help, default).
    """
    rows = []
    for name, col in COLLECTIVES.items():
        opts = [
            {"name": o.name, "help": o.help, "default": o.default}
            for o in COMMON_OPTIONS + col.options
            if o.name != "algorithm"
        ]
        for o in opts:
            if o["name"] == "size":
                o["default"] = col.default_size
        rows.append(
            {
                "name": name,
                "title": col.title,
                "size": col.size_meaning,
                "default": col.default,
                "algorithms": [
                    {
                        "name": a.name,
                        "title": a.title,
                        "source": a.source,
                        "power_of_two": a.power_of_two,
                    }
                    for a in col.algorithms.values()
                ],
                "options": opts,
            }
        )
    rows.append(
        {
            "name": "goal",
            "title": "a schedule read from a LogGOPSim GOAL text file",
            "size": "total bytes sent",
            "default": "",
            "algorithms": [],
            "options": [
                {"name": o.name, "help": o.help, "default": o.default} for o in GOAL_OPTIONS
            ],
        }
    )
    return rows


__all__ = ["make_workload", "workload_names", "describe_workloads", "GOAL_OPTIONS"]
