"""Experiment kinds: the registry ``TASKS`` of what one point of a study computes.

A kind declares its parameters (:class:`TaskParam`: type, default, check) so that a
study file is validated before anything runs, and a function
``run(config, seed) -> dict of metrics`` executed on a Dask worker. Kinds are added
with the :func:`task` decorator; the simulator, fault and design kinds live beside
their concerns and only need an adapter here.

Metrics are flat: scalars (int, float, str, bool, None). Nested dicts are flattened
with ``_``; lists and arrays are stored as JSON text.
"""

from __future__ import annotations

import json
import math
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, UTC
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..params import TYPE_NAMES, Invalid, Parameter
from ..registry import Registry

#: default of a parameter that is left out of the configuration unless the study sets it
#: (the called library then applies its own default).
OMIT = object()
#: default of a parameter the study must set.
REQUIRED = object()

_TYPE_NAMES = TYPE_NAMES


@dataclass(frozen=True)
class TaskParam(Parameter):
    """One parameter of an experiment kind.

    ``check(value) -> value`` validates one value (after the type test) and returns its
    canonical form (e.g. a normalised topology spec), raising ``ParameterError``.
    ``multi``: the value itself is a list (then a list of lists is a sweep axis).
    ``crn``: left out of the seed derivation, so points differing only in this
    parameter share their random numbers (common random numbers: e.g. several
    fault-tolerant routing algorithms judged on the same faults and pairs).
    """

    name: str
    type: type
    help: str
    default: Any = REQUIRED
    check: Callable[[Any], Any] | None = None
    multi: bool = False
    crn: bool = False

    #: values from a study file carry their type (TOML): no string parsing
    strict = True

    @property
    def kind(self) -> type:
        """The type (:class:`fattree.params.Parameter`'s name for ``type``)."""
        return self.type

    def describe(self) -> str:
        d = "" if self.default in (REQUIRED, OMIT) else f" (default {self.default!r})"
        t = _TYPE_NAMES[self.type] + (" list" if self.multi else "")
        return f"{self.name}: {t}; {self.help}{d}"

    def convert_scalar(self, value: Any) -> Any:
        """Check the type of one value and canonicalise it; raise ``ParameterError``."""
        try:
            value = self.parse(value)
        except Invalid as exc:
            if exc.reason != "type":
                raise ParameterError(
                    f"{self.name}={value!r} is invalid: beyond a 64-bit integer"
                ) from None
            raise ParameterError(
                f"{self.name}={value!r} is invalid: expected {_TYPE_NAMES[self.type]}"
            ) from None
        if self.type is float and not math.isfinite(value):
            raise ParameterError(
                f"{self.name}={value!r} is invalid: expected {_TYPE_NAMES[self.type]}"
            )
        if self.type is int and not -(2**63) <= value < 2**63:
            raise ParameterError(f"{self.name}={value!r} is invalid: beyond a 64-bit integer")
        return self.check(value) if self.check is not None else value

    def convert(self, value: Any) -> Any:
        if self.multi:
            if not isinstance(value, list):
                raise ParameterError(f"{self.name}={value!r} is invalid: expected a list")
            return [self.convert_scalar(v) for v in value]
        return self.convert_scalar(value)


@dataclass(frozen=True)
class Task:
    """A registered experiment kind."""

    name: str
    run: Callable[[dict, int], dict]
    params: tuple[TaskParam, ...]
    doc: str = ""
    #: extra columns derived from a configuration (not hashed), e.g. the family name
    columns: Callable[[dict], dict] | None = None
    #: modules that must import for the kind to run (its concern may not exist yet)
    requires: tuple[str, ...] = ()
    #: the metrics shown first (``fattree results``)
    headline: tuple[str, ...] = ()

    def param(self, name: str) -> TaskParam | None:
        return next((p for p in self.params if p.name == name), None)

    def available(self) -> str | None:
        """``None`` if the kind can run here, else why not."""
        why = missing(self.requires)
        return f"experiment kind {self.name!r} needs {why}" if why else None


TASKS: Registry[Task] = Registry("experiment kind")


def missing(requires) -> str | None:
    """The first of ``"module"`` or ``"module:attribute"`` that does not import, or None.

    Examples
    --------
    >>> missing(["fattree.topology:build"]) is None, missing(["fattree.topology:nope"])
    (True, 'fattree.topology:nope (no attribute nope)')
    """
    import importlib

    for req in requires:
        mod, _, attr = req.partition(":")
        try:
            m = importlib.import_module(mod)
        except ImportError as exc:
            return f"{req} ({exc})"
        if attr and not hasattr(m, attr):
            return f"{req} (no attribute {attr})"
    return None


def task(name: str, *, params: list[TaskParam], columns=None, requires=(), headline=()):
    """Decorator registering ``run(config, seed) -> metrics`` as an experiment kind.

    Examples
    --------
    >>> "topology" in TASKS, TASKS.get("topology").param("distances").default
    (True, 'classes')
    """

    def deco(run):
        TASKS.add(
            name,
            Task(
                name=name,
                run=run,
                params=tuple(params),
                doc=(run.__doc__ or "").strip(),
                columns=columns,
                requires=tuple(requires),
                headline=tuple(headline),
            ),
        )
        return run

    return deco


# ----------------------------------------------------------------------------- helpers
def topology_spec(value: str) -> str:
    """Validate a topology spec without building it and return its canonical form.

    Examples
    --------
    >>> topology_spec("MiKANT:n=5, k=4")
    'mikant:k=4,n=5'
    """
    from ..topology import resolve

    fam, values = resolve(value)
    return fam.name + ":" + ",".join(f"{k}={v}" for k, v in values.items())


def topology_columns(config: dict) -> dict:
    """The family name and its parameters as columns (``family``, ``k``, ``n``...).

    Examples
    --------
    >>> topology_columns({"topology": "mikant:k=4,n=5"})
    {'family': 'mikant', 'k': 4, 'n': 5}
    """
    from ..topology import parse_spec

    family, raw = parse_spec(config["topology"])
    return {"family": family, **{k: _num(v) for k, v in raw.items()}}


def _num(v: str):
    try:
        return int(v)
    except ValueError:
        return v


def flatten_metrics(metrics: dict, prefix: str = "") -> dict:
    """Flatten nested dicts with ``_``; lists and arrays become JSON text.

    Examples
    --------
    >>> flatten_metrics({"a": {"b": 1, "c": [1, 2]}, "d": np.float64(0.5)})
    {'a_b': 1, 'a_c': '[1, 2]', 'd': 0.5}
    """
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten_metrics(value, name + "_"))
        elif isinstance(value, np.ndarray) or isinstance(value, (list, tuple)):
            out[name] = json.dumps(
                np.asarray(value).tolist() if isinstance(value, np.ndarray) else _plain(value)
            )
        else:
            out[name] = _plain(value)
    return out


def _plain(v):
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def execute(kind: str, config: dict, seed: int) -> dict:
    """Run one point (on a worker): the metrics plus where and how long it ran.

    Examples
    --------
    >>> out = execute("topology", {"topology": "kant:k=2,n=2", "distances": "none"}, 1)
    >>> out["metrics"]["nodes"], out["metrics"]["switches"]
    (4, 4)
    """
    t = TASKS.get(kind)
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    metrics = flatten_metrics(t.run(dict(config), int(seed)))
    elapsed = time.perf_counter() - t0
    return {
        "metrics": metrics,
        "started_at": started,
        "finished_at": datetime.now(UTC),
        "elapsed_s": elapsed,
        "host": socket.gethostname(),
        "pid": os.getpid(),
    }


# ----------------------------------------------------------------------------- kinds
def _distances_mode(value: str) -> str:
    if value not in ("none", "classes", "all"):
        raise ParameterError(f"distances={value!r} is invalid: use 'none', 'classes' or 'all'")
    return value


@task(
    "topology",
    columns=topology_columns,
    headline=("nodes", "switches", "links", "max_radix", "diameter", "avg_distance"),
    params=[
        TaskParam("topology", str, "topology spec, e.g. 'mikant:k=4,n=5'", check=topology_spec),
        TaskParam(
            "distances",
            str,
            "node-to-node BFS statistics: 'none', 'classes' (one source "
            "per symmetry class) or 'all' (every node a source, brute force)",
            default="classes",
            check=_distances_mode,
        ),
    ],
)
def _topology(config: dict, seed: int) -> dict:
    """Build the topology and count it from the graph: sizes, radix, distances.

    References: 000 §III, Table I (sizes, diameter, average distance over N² pairs).
    """
    from ..topology import FAMILIES, build

    t0 = time.perf_counter()
    topo = build(config["topology"])
    out: dict[str, Any] = {
        "nodes": topo.n_nodes,
        "switches": topo.n_switches,
        "links": topo.n_links,
        "switch_links": topo.n_switch_links,
        "max_radix": int(topo.radix.max()),
        "min_radix": int(topo.radix.min()),
        "build_s": time.perf_counter() - t0,
    }
    mode = config.get("distances", "classes")
    if mode == "none":
        return out
    from ..analysis.bfs import node_pair_stats

    fam = FAMILIES.get(topo.family)
    if mode == "classes" and fam.node_classes is not None:
        sources, weights = fam.node_classes(topo)
    else:
        sources, weights = np.arange(topo.n_nodes), np.ones(topo.n_nodes, np.int64)
    t0 = time.perf_counter()
    st = node_pair_stats(topo, sources, weights)
    n = topo.n_nodes
    total = float(np.dot(st.dist_sum, st.weights))
    out.update(
        {
            "diameter": int(st.eccentricity.max()),
            "avg_distance": total / n**2,  # 000's convention: N² ordered pairs, s = t included
            "avg_distance_distinct": total / (n * (n - 1)) if n > 1 else 0.0,
            "unreached_pairs": int(np.dot(st.unreached, st.weights)),
            "bfs_sources": int(len(sources)),
            "bfs_s": time.perf_counter() - t0,
        }
    )
    return out


def _load(value: float) -> float:
    if not 0.0 < value <= 1.0:
        raise ParameterError(
            f"load={value!r} is invalid: expected 0 < load <= 1 (flits per node per cycle)"
        )
    return value


def _trials(value: int) -> int:
    from ..faults.montecarlo import MAX_TRIALS

    if not 1 <= value <= MAX_TRIALS:
        raise ParameterError(
            f"trials={value!r} is invalid: an integer from 1 to {MAX_TRIALS:,} per rate"
        )
    return value


def _sim_params() -> list[TaskParam]:
    """The simulator's own parameters (``fattree.sim.config.SimConfig``), each left to the
    simulator's default unless the study sets it, and validated by ``SimConfig`` itself."""
    import dataclasses

    from ..sim.config import SimConfig

    def checker(name):
        def check(value):
            SimConfig(**{name: value})  # raises ParameterError naming the field
            return value

        return check

    out = []
    for f in dataclasses.fields(SimConfig):
        if f.name in ("load", "seed"):
            continue
        ann = str(f.type)
        typ = float if "float" in ann else int if "int" in ann else bool if "bool" in ann else str
        out.append(
            TaskParam(
                f.name,
                typ,
                f"simulator parameter (fattree.sim.config.SimConfig, default {f.default!r})",
                default=OMIT,
                check=checker(f.name),
            )
        )
    return out


@task(
    "simulate",
    columns=topology_columns,
    requires=("fattree.sim:simulate",),
    headline=(
        "avg_latency",
        "accepted_flits",
        "received_ratio",
        "received_per_cycle",
        "port_conflicts_per_cycle",
        "avg_hops",
        "saturated",
        "cycles",
    ),
    params=[
        TaskParam("topology", str, "topology spec, e.g. 'mikant:k=4,n=5'", check=topology_spec),
        TaskParam("load", float, "offered load: flits per node per cycle", check=_load),
        *_sim_params(),
    ],
)
def _simulate(config: dict, seed: int) -> dict:
    """One cycle-accurate simulation (fattree.sim) at one offered load.

    ``channel_load_bound`` is the throughput bound of this very point: its routing and
    its pattern drawn with its seed (a ``randperm`` is the permutation simulated; with
    faults, the routes that survive its fault set), so a simulation is judged against
    its own bound, never another permutation's.

    References: 000 §V.B (the model and its metrics), 001 §3.4, 004 §3.3.
    """
    from .. import sim

    kwargs = {k: v for k, v in config.items() if k != "topology"}
    bound = kwargs.get("model", "papers") == "papers" and not str(
        kwargs.get("traffic", "")
    ).startswith("trace")
    res = sim.simulate(config["topology"], seed=seed, bound=bound, **kwargs)
    out = res.to_dict()
    if bound and not res.fault_rate and not kwargs.get("faults"):
        out["carried_bound"] = _carried_bound(config["topology"], res, seed)
    # the simulator echoes its inputs: keep the effective configuration as one JSON
    # column and drop echoes equal to the point's own parameters
    out["sim_config"] = json.dumps(out.pop("config"), sort_keys=True, default=str)
    return {k: v for k, v in out.items() if not (k in config and config[k] == v)}


def _carried_bound(spec: str, res, seed: int) -> float | None:
    """The most the routes of the simulated permutation carry per source at its offered
    load (``routing.load.carried_bound``); None for rate patterns and split routing."""
    from ..routing import compile_routing
    from ..routing.load import carried_bound
    from ..topology import build
    from ..traffic import make_traffic
    from ..traffic.patterns import T_TABLE

    topo = build(spec)
    tr = make_traffic(res.traffic, topo.n_nodes, seed=seed)
    if tr.code != T_TABLE or topo.n_nodes > 20_000:
        return None
    cr = compile_routing(topo, res.algorithm, seed=seed)
    return carried_bound(topo, cr, tr.table[: topo.n_nodes], float(res.offered_load))


def _ft_algorithm(value: str) -> str:
    from ..faults.algorithms import FT_ALGORITHMS

    if value != "default":  # "default": the family's default (faults.rules), resolved per topology
        FT_ALGORITHMS.get(value)  # raises UnknownNameError listing the valid names
    return value


def _choice(name: str, allowed: tuple[str, ...]):
    def check(value: str) -> str:
        if value not in allowed:
            raise ParameterError(f"{name}={value!r} is invalid: use {' or '.join(allowed)}")
        return value

    return check


def _rate(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise ParameterError(f"rate={value!r} is invalid: a fraction of links in [0, 1]")
    return value


@task(
    "faults",
    columns=topology_columns,
    requires=("fattree.faults.montecarlo:evaluate",),
    headline=("success_ratio", "ci_low", "ci_high", "avg_path_length", "faulty_links"),
    params=[
        TaskParam("topology", str, "a topology spec, e.g. 'mikant:k=3,n=3'", check=topology_spec),
        TaskParam(
            "algorithm",
            str,
            "fault-tolerant routing algorithm (fattree faults SPEC --list), "
            "or 'default': the family's default",
            check=_ft_algorithm,
            crn=True,
        ),
        TaskParam(
            "model",
            str,
            "'local' or 'lookahead' fault knowledge",
            default="local",
            check=_choice("model", ("local", "lookahead")),
            crn=True,
        ),
        TaskParam("rate", float, "fraction of links made faulty", check=_rate),
        TaskParam(
            "trials",
            int,
            "Monte Carlo trials (random faults and node pair)",
            default=10000,
            check=_trials,
        ),
        TaskParam(
            "fault_pool",
            str,
            "links that may fail: 'all' (node links included) or 'switch-only'",
            default="all",
            check=_choice("fault_pool", ("all", "switch-only")),
        ),
    ],
)
def _faults(config: dict, seed: int) -> dict:
    """Monte Carlo success ratio and path length of one fault-tolerant routing algorithm.

    Points that differ only in algorithm or model share their seed, so they are judged
    on the same random faults and pairs (as 001 §5 does).

    References: 001 §5, Figs. 8-9.
    """
    from ..faults.montecarlo import evaluate
    from ..faults.rules import default_ft_algorithm
    from ..topology import build

    topo = build(config["topology"])
    name = config["algorithm"]
    if name == "default":
        name = default_ft_algorithm(topo.family)
    st = evaluate(
        topo,
        name,
        [config["rate"]],
        config["trials"],
        seed,
        models=[config.get("model", "local")],
        switch_only=config.get("fault_pool", "all") == "switch-only",
    )
    row = st.rows[0]
    out = {
        k: v for k, v in row.items() if k not in ("algorithm", "rate", "trials", "topology", "seed")
    }
    out["ft_algorithm"] = name  # what "default" resolved to
    return out


# ----------------------------------------------------------------------------- cost
_COST_TRAFFIC = ("uniform", "randperm", "bitcomp")


def _price_file(value: str) -> str:
    """A price file is read and checked before anything runs (names the key and line)."""
    from ..analysis.pricing import load_prices

    load_prices(value)
    return value


def _switch_radix(value: int) -> int:
    from ..analysis.advisor import MAX_RADIX

    if not 0 <= value <= MAX_RADIX:
        raise ParameterError(
            f"switch_radix={value!r} is invalid: an integer from 0 (the design's "
            f"own radix) to {MAX_RADIX:,}"
        )
    return value


def _ranks(value: int) -> int:
    if not 2 <= value <= 10**9:
        raise ParameterError(f"ranks={value!r} is invalid: a node count from 2 to 10^9")
    return value


def _budget(value: float) -> float:
    if not value > 0:
        raise ParameterError(f"budget={value!r} is invalid: a positive amount of US$")
    return value


@task(
    "cost",
    columns=topology_columns,
    headline=(
        "usd",
        "watts",
        "usd_per_node",
        "switches",
        "links",
        "bisection",
        "avg_distance",
        "bound_uniform",
        "bound_randperm",
        "bound_bitcomp",
    ),
    params=[
        TaskParam(
            "topology", str, "topology spec, e.g. 'xgft:m=16.16.16,w=1.8.16'", check=topology_spec
        ),
        TaskParam(
            "algorithm",
            str,
            "routing whose channel-load bounds are reported (default: the family's)",
            default=OMIT,
        ),
        TaskParam(
            "prices",
            str,
            "price file (TOML) over fattree/data/prices.toml",
            default=OMIT,
            check=_price_file,
        ),
        TaskParam(
            "switch_radix",
            int,
            "price every switch as this product (0: the design's own radix)",
            default=0,
            check=_switch_radix,
        ),
        TaskParam(
            "channel_loads",
            bool,
            "compute the routing's channel-load bounds (off: only the cut bound, for large N)",
            default=True,
        ),
        TaskParam(
            "ranks",
            int,
            "equal node count: the design is compared on this many nodes (ranks on nodes "
            "0..ranks-1, the rest idle); per-node prices are per rank",
            default=OMIT,
            check=_ranks,
        ),
        TaskParam(
            "budget",
            float,
            "equal budget (US$): the design is the largest of its family within it "
            "(fattree design --budget); refused when it costs more",
            default=OMIT,
            check=_budget,
        ),
    ],
)
def _cost(config: dict, seed: int) -> dict:
    """Price model (fattree cost), bisection, zero-load distance and channel-load bounds.

    Channel-load bounds 1/γ_max of the routing under uniform, random-permutation (seeded)
    and bit-complement traffic (N a power of two) come from ``routing.load``; the cut
    bound from ``analysis.designmetrics`` holds for any routing.

    References: docs/analytics.md (cost model); docs/routing.md (channel load).
    """
    from dataclasses import replace as _replace

    from ..analysis.designmetrics import bisection_estimate, uniform_bound
    from ..analysis.pricing import bill_from_graph, load_prices, price
    from ..analysis.properties import properties
    from ..routing import compile_routing
    from ..routing.load import channel_load
    from ..topology import build

    topo = build(config["topology"])
    prices = load_prices(config.get("prices"))
    bill = bill_from_graph(topo, prices)
    if config.get("switch_radix", 0):
        bill = _replace(bill, radix=max(bill.radix, int(config["switch_radix"])))
    c = price(bill, prices)
    width, label = bisection_estimate(topo.spec)
    if label.startswith("upper bound (trivial"):  # the graph is built anyway: cut it
        from ..analysis.bisection import explicit_cut

        b = explicit_cut(topo)
        width, label = int(b.width), f"upper bound (graph: {b.method})"
    props = properties(topo, bisection=False)
    cr = compile_routing(topo, config.get("algorithm"), seed=seed)
    out = {
        "usd": c.total,
        "watts": c.watts,
        "usd_per_node": c.per_node,
        "watts_per_node": c.watts_per_node,
        "nodes": topo.n_nodes,
        "switches": topo.n_switches,
        "links": topo.n_links,
        "radix": int(topo.radix.max()),
        "switch_bought": c.switch_radix_bought,
        "copper": bill.copper,
        "optical": bill.optical,
        "transceivers": bill.transceivers,
        "bisection": width,
        "bisection_label": label,
        "usd_per_bisection_link": c.total / width if width else None,
        "cut_bound": uniform_bound(topo.n_nodes, width, topo.family, dict(topo.params)),
        "avg_distance": float(props["avg_distance_excl_self"]),
        "diameter": int(props["diameter"]),
        "routing": cr.algorithm,
        "prices": prices.source,
    }
    n = topo.n_nodes
    for traffic in _COST_TRAFFIC if config.get("channel_loads", True) else ():
        if traffic == "bitcomp" and n & (n - 1):
            out["bound_bitcomp"] = None
            continue
        rep = channel_load(topo, cr, traffic, seed=seed)
        out[f"bound_{traffic}"] = rep.bound if np.isfinite(rep.bound) else None
    if out.get("bound_uniform"):
        out["usd_per_throughput"] = c.total / (n * out["bound_uniform"])
    ranks = config.get("ranks")
    if ranks is not None:
        if ranks > n:
            raise ParameterError(
                f"ranks={ranks} is invalid for {topo.spec}: it has {n:,} nodes; place at most "
                f"that many ranks"
            )
        out["usd_per_rank"] = c.total / ranks
        out["watts_per_rank"] = c.watts / ranks
    budget = config.get("budget")
    if budget is not None and c.total > budget * (1 + 1e-9):
        raise ParameterError(
            f"budget={budget:,.0f} is invalid for {topo.spec}: it costs ${c.total:,.0f}; an "
            f"equal-budget design fits the budget (fattree design --budget)"
        )
    return out


# ----------------------------------------------------------------------------- workloads
def _collective(value: str) -> str:
    """A collective with its options but no size (``allreduce:algorithm=ring``), checked on
    a small network so that a bad name or option fails before anything runs."""
    from ..traffic.workloads import make_workload

    name, _, opts = value.partition(":")
    kept = [o for o in opts.split(",") if o.strip()] if opts else []
    if any(o.split("=", 1)[0].strip() == "size" for o in kept):
        raise ParameterError(
            f"collective={value!r} is invalid: give the size in the 'size' parameter, "
            "not in the collective"
        )
    if name.strip() == "goal":
        raise ParameterError(
            f"collective={value!r} is invalid: a study runs built-in collectives "
            "(fattree workload list); a GOAL file runs with 'fattree flow --workload goal:...'"
        )
    probe = [o for o in kept if o.split("=", 1)[0].strip() not in ("ranks", "root")]
    make_workload(name + (":" + ",".join(probe) if probe else ""), 16)
    return value.strip()


def _size(value: str) -> str:
    from ..traffic.workloads import format_size, parse_size

    return format_size(parse_size(value, "size"))


def _fraction_below_one(name: str):
    def check(value: float) -> float:
        if not 0.0 <= value < 1.0:
            raise ParameterError(f"{name}={value!r} is invalid: expected 0 <= {name} < 1")
        return value

    return check


def _level(value: str) -> str:
    from .levels import check_level

    return check_level(value)


@task(
    "workload",
    columns=topology_columns,
    headline=("time_s", "busbw_gbps", "algbw_gbps", "undelivered", "max_link_util", "complete"),
    params=[
        TaskParam("topology", str, "topology spec, e.g. 'mikant:k=4,n=3'", check=topology_spec),
        TaskParam(
            "collective",
            str,
            "built-in collective with its options but no size, e.g. 'allreduce:algorithm=ring'",
            check=_collective,
        ),
        TaskParam("size", str, "the collective's size with a unit, e.g. '1MiB'", check=_size),
        TaskParam(
            "level", str, "simulation level (fattree.sweep.levels.LEVELS)", "flow", check=_level
        ),
        TaskParam(
            "fault_rate",
            float,
            "fraction of links failed at random (drawn from the point's seed)",
            0.0,
            check=_fraction_below_one("fault_rate"),
        ),
        TaskParam("fault_algorithm", str, "fault-tolerant routing (default: the family's)", OMIT),
        TaskParam("link_rate", str, "link rate with a unit (default 400Gb/s)", OMIT),
        TaskParam("flit_size", str, "flit size with a unit (default 256B)", OMIT),
        TaskParam("hop_latency", str, "latency per hop with a unit (default 100ns)", OMIT),
    ],
)
def _workload(config: dict, seed: int) -> dict:
    """One collective on one network at the point's level: completion time, nccl-tests'
    algorithm and bus bandwidth, link utilisation, undelivered messages under faults.

    The point's seed draws the rank placement (``placement=random``) and the fault set, so
    the designs of a study are judged on their own draws; replicates draw new ones.

    References: docs/workloads.md (the flow model and its metrics); docs/sweeps.md.
    """
    from .levels import LEVELS

    col = config["collective"]
    spec = f"{col}{',' if ':' in col else ':'}size={config['size']}"
    params = {
        k: config[k]
        for k in ("link_rate", "flit_size", "hop_latency", "fault_algorithm")
        if k in config
    }
    params["fault_rate"] = float(config.get("fault_rate", 0.0))
    return LEVELS.get(config.get("level", "flow")).run(config["topology"], spec, params, seed)
