"""The top-level Python API: ``fattree.simulate``, ``simulate_loads``, ``flow``, ``fault_study``,
``properties`` and ``read_results``.

Each function takes a topology spec string (``"mikant:k=4,n=5"``) or a built
:class:`~fattree.topology.Topology`, validates its arguments (a
:class:`~fattree.errors.ParameterError` naming the parameter, the value and what is
allowed) and imports the heavy subpackages only when called, so ``import fattree``
stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import ParameterError


def _topology(topology, param: str = "topology"):
    from .topology import Topology, build

    if isinstance(topology, Topology):
        return topology
    if isinstance(topology, str):
        return build(topology)
    raise ParameterError(
        f"{param}={topology!r} is invalid: expected a Topology or a spec string "
        "such as 'mikant:k=4,n=5'"
    )


def _check_options(func, options: Mapping, what: str, own: tuple[str, ...] = ()) -> None:
    """Refuse keyword options that ``func`` does not take (one line naming the valid ones),
    instead of Python's ``TypeError``."""
    import inspect

    from .errors import closest

    sig = inspect.signature(func)
    valid = [
        n
        for n, p in sig.parameters.items()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        and n not in ("progress", "topo", *own)
    ]
    for name in options:
        if name not in valid:
            raise ParameterError(
                f"{name}={options[name]!r} is invalid: {what} takes no option "
                f"{name!r}{closest(name, [*valid, *own])}; valid: {', '.join(valid)}"
            )
        # a flag (its default is True or False) takes True or False only: the string
        # 'no' is truthy and would silently act as True
        if isinstance(sig.parameters[name].default, bool) and not isinstance(options[name], bool):
            raise ParameterError(
                f"{name}={options[name]!r} is invalid: {what}'s {name} is True or False"
            )


def simulate(topology, config=None, *, workload=None, **params: Any):
    """One cycle-accurate simulation at one offered load (see :func:`fattree.sim.simulate`),
    or of a workload, closed loop (see :func:`fattree.sim.workload.simulate_workload`).

    Parameters
    ----------
    topology : str or Topology
        A spec such as ``"mikant:k=4,n=5"`` or a built network.
    config : SimConfig, optional
        All parameters; keywords override it.
    workload : str or Workload, optional
        A collective or GOAL schedule (``"allreduce:algorithm=ring,size=1MiB"``): run it
        closed loop instead of an offered load; ``link_rate``, ``flit_size`` and ``clock``
        keywords set the units (``"400Gb/s"``, ``"256B"``, ``"1GHz"``).
    **params
        :class:`~fattree.sim.SimConfig` fields (``load``, ``traffic``, ``algorithm``, ...).

    Returns
    -------
    SimResult or PacketResult
        Latency, throughput, conflicts, deadlock flag, with the config, seed and version;
        with a workload, its completion time and the flow model's result fields
        (``to_row()`` for a DataFrame).

    Raises
    ------
    ParameterError
        If the topology or a parameter is invalid.
    ResourceError
        If the run would not fit in memory.

    Examples
    --------
    >>> import fattree
    >>> r = fattree.simulate("kant:k=2,n=2", load=0.1, packets_per_source=20, seed=1)
    >>> r.deadlock, r.conservation
    (False, True)

    References
    ----------
    000 §V.B (model, termination, metrics); docs/simulator.md.
    """
    from .sim import simulate as run
    from .topology import Topology

    if not isinstance(topology, (str, Topology)):
        _topology(topology)
    if workload is not None:
        from .sim.workload import simulate_workload

        return simulate_workload(topology, workload, config, **params)
    return run(topology, config, **params)


def flow(topology, workload, config=None, **params: Any):
    """Completion time of a workload at flow level (see :func:`fattree.sim.flow.flow`).

    Parameters
    ----------
    topology : str or Topology
        A spec such as ``"mikant:k=4,n=5"`` or a built network.
    workload : str or Workload
        ``"allreduce:algorithm=ring,size=1MiB"``, ``"goal:file=app.goal"`` (see
        ``fattree workload list``), or a workload bound by
        :func:`fattree.traffic.workloads.make_workload`.
    config : FlowConfig, optional
        All parameters; keywords override it.
    **params
        :func:`fattree.sim.flow.flow_config` keywords: ``link_rate="400Gb/s"``,
        ``flit_size="256B"``, ``hop_latency="100ns"``, ``algorithm``, ``fault_rate``,
        ``fault_algorithm``, ``seed``, ``engine``.

    Returns
    -------
    FlowResult
        Completion time, per-phase times, slowest rank and bounding link, algorithm and
        bus bandwidth, link utilisation, undelivered messages; ``to_row()`` for a
        DataFrame, with the configuration, seed and version.

    Raises
    ------
    ParameterError
        If the topology, the workload or a parameter is invalid.

    Examples
    --------
    >>> import fattree
    >>> r = fattree.flow("kant:k=2,n=2", "allgather:size=4KiB")
    >>> r.complete, r.ranks
    (True, 4)
    """
    from .sim.flow import flow as _flow
    from .sim.flow import flow_config

    _check_options(flow_config, params, "flow")
    return _flow(_topology(topology), workload, config, **params)


def simulate_loads(topology, loads, config=None, **params: Any):
    """A latency-versus-load curve: one DataFrame row per load (see
    :func:`fattree.sim.simulate_loads`), its columns named as in the results store
    (:func:`store_columns`), so a curve and a sweep's rows can be concatenated.

    Parameters
    ----------
    topology : str or Topology
        A spec such as ``"mikant:k=4,n=5"`` or a built network.
    loads : sequence of float or str
        Offered loads in (0, 1], at most 10,000, or a ``"START:STOP:STEP"`` string as
        ``fattree simulate --loads`` takes (``"0.1:0.5:0.1"``).
    config : SimConfig, optional
        All other parameters; keywords override it.
    **params
        :class:`~fattree.sim.SimConfig` fields.

    Returns
    -------
    pandas.DataFrame
        One row per load.

    Raises
    ------
    ParameterError
        If ``loads`` is not a non-empty sequence, or a parameter is invalid.

    Examples
    --------
    >>> import fattree
    >>> df = fattree.simulate_loads("kant:k=2,n=2", [0.1, 0.2], packets_per_source=10)
    >>> list(df["offered_load"])
    [0.1, 0.2]
    >>> fattree.saturation_load(df) is None
    True

    References
    ----------
    000 Figs. 9-12.
    """
    from .sim import simulate_loads as run
    from .topology import Topology

    if not isinstance(topology, (str, Topology)):
        _topology(topology)
    if isinstance(loads, str):
        from .sim.config import parse_loads

        loads = parse_loads(loads)
    if isinstance(loads, bytes) or not hasattr(loads, "__iter__"):
        raise ParameterError(
            f"loads={loads!r} is invalid: expected a sequence of offered loads in (0, 1] "
            "or a 'START:STOP:STEP' string"
        )
    loads = list(loads)
    if not loads or len(loads) > 10_000:
        raise ParameterError(f"loads has {len(loads)} values: expected 1 to 10,000 loads")
    for x in loads:
        if isinstance(x, bool) or not isinstance(x, (int, float)) and not hasattr(x, "__float__"):
            raise ParameterError(
                f"loads: load={x!r} is invalid: the offered load is a number "
                "in (0, 1] (flits per node per cycle)"
            )
    loads = [float(x) for x in loads]
    return store_columns(run(topology, loads, config, **params))


def store_columns(df):
    """Name a simulation DataFrame's columns as the results store does: the link
    utilisation as ``link_utilisation_<class>`` and one column per parameter (instead
    of ``util_<class>`` and ``config.<name>``).

    Parameters
    ----------
    df : pandas.DataFrame
        As :func:`fattree.sim.results_frame` returns it.

    Returns
    -------
    pandas.DataFrame
        The same rows, columns renamed.

    Examples
    --------
    >>> import pandas as pd
    >>> list(store_columns(pd.DataFrame({"util_0": [0.5], "config.vcs": [2]})).columns)
    ['link_utilisation_0', 'vcs']
    """
    df = df.rename(
        columns={
            c: "link_utilisation_" + c[5:]
            for c in df.columns
            if isinstance(c, str) and c.startswith("util_")
        }
    )
    conf = [c for c in df.columns if isinstance(c, str) and c.startswith("config.")]
    for c in conf:
        if c[7:] not in df.columns:
            df[c[7:]] = df[c]
    return df.drop(columns=conf)


def fault_study(
    topology,
    algorithms="all",
    rates=(0.0, 0.05, 0.1),
    trials: int = 10_000,
    seed: int = 0,
    **options: Any,
):
    """Monte Carlo success ratio and path length of fault-tolerant routing against the
    link fault rate (see :func:`fattree.faults.montecarlo.evaluate`); ``rates`` may be a
    sequence, one number or a ``"START:STOP:STEP"`` string. ``options``: ``models``,
    ``tie_break``, and ``fault_pool="all"|"switch-only"`` (as in study files and
    ``fattree faults --fault-pool``; ``switch_only=True`` alike). Unknown options, bad
    names and values raise :class:`~fattree.errors.ParameterError`.

    Parameters
    ----------
    topology : str or Topology
        A spec or a built network.
    algorithms : str or list of str
        Fault-tolerant routing algorithms (``"all"``: every one of the family).
    rates : sequence of float or str
        Link fault rates in [0, 1].
    trials : int
        Monte Carlo trials per rate (random faults and node pair).
    seed : int
        Seed of the draws, 0 <= seed < 2**63.
    **options
        ``models``, ``switch_only``, ``tie_break``, ``progress`` (see
        :func:`fattree.faults.montecarlo.evaluate`).

    Returns
    -------
    FaultStudy
        One row per algorithm and rate (``rows``), with the configuration and version.

    Raises
    ------
    ParameterError
        If ``rates``, ``seed`` or an option is invalid.

    Examples
    --------
    >>> import fattree
    >>> st = fattree.fault_study("mikant:k=2,n=3", "gns", [0.0], trials=100)
    >>> st.rows[0]["success_ratio"]
    1.0

    References
    ----------
    001 §5, Figs. 8-9; 004 §3.
    """
    from .faults.montecarlo import evaluate, parse_rates

    if isinstance(rates, str):
        parts = rates.split(":")
        if len(parts) == 3:  # refuse a huge or endless range before expanding it
            try:
                a, b, step = (float(x) for x in parts)
                count = (b - a) / step + 1 if step > 0 else float("nan")
            except (ValueError, ZeroDivisionError):
                count = float("nan")
            if not count <= 10_000:
                raise ParameterError(
                    f"rates={rates!r} is invalid: expected START:STOP:STEP with "
                    "finite numbers, STEP > 0 and at most 10,000 rates"
                )
        rates = parse_rates(rates)
    elif isinstance(rates, (int, float)) and not isinstance(rates, bool):
        rates = [rates]
    elif isinstance(rates, bytes) or not hasattr(rates, "__iter__"):
        raise ParameterError(
            f"rates={rates!r} is invalid: expected a sequence of link fault rates "
            "in [0, 1], or a 'START:STOP:STEP' string"
        )
    rates = list(rates)
    for x in rates:
        if isinstance(x, bool) or not isinstance(x, (int, float)) and not hasattr(x, "__float__"):
            raise ParameterError(f"rates: rate={x!r} is invalid: a fraction of links in [0, 1]")
    if not isinstance(algorithms, str) and not (
        isinstance(algorithms, (list, tuple))
        and algorithms
        and all(isinstance(a, str) for a in algorithms)
    ):
        raise ParameterError(
            f"algorithms={algorithms!r} is invalid: expected 'all', a "
            "comma-separated string or a list of algorithm names, e.g. "
            "'sp,gns,oracle'"
        )
    if "fault_pool" in options:  # the study files' name for switch_only
        pool = options.pop("fault_pool")
        if pool not in ("all", "switch-only") or "switch_only" in options:
            raise ParameterError(
                f"fault_pool={pool!r} is invalid: 'all' or 'switch-only' (or "
                "switch_only=True/False, not both)"
            )
        options["switch_only"] = pool == "switch-only"
    _check_options(evaluate, options, "fault_study", ("algorithms", "rates", "trials", "seed"))
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ParameterError(f"seed={seed!r} is invalid: expected an integer 0 <= seed < 2**63")
    return evaluate(_topology(topology), algorithms, list(rates), trials, seed, **options)


@dataclass(frozen=True)
class Properties(Mapping):
    """The properties of a topology computed on its graph (:func:`properties`).

    Attributes are the keys of :func:`fattree.analysis.properties.properties`; the
    object also reads like that dict (``p["diameter"]``, ``dict(p)``), and
    ``formula_checks`` compares them with the papers' closed forms.

    Attributes
    ----------
    spec : str
        The topology.
    nodes, switches, links, diameter : int
    avg_distance, avg_distance_excl_self, path_diversity : Fraction or float
        Exact where computed exactly (``distances_exact``).
    avg_distance_float, ... : float
        Beside every exact fraction, its float (``<name>_float``), for plots and tables
        (:meth:`floats` gives every number as a float).
    bisection_width : int or None
    values : dict
        Every property (the dict of the analysis function).
    formula_checks : list of dict
        One row per closed form: computed, formula, printed, agrees.
    """

    spec: str
    values: dict = field(repr=False)
    formula_checks: list = field(repr=False, default_factory=list)

    def __getitem__(self, key: str):
        return self.values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __getattr__(self, name: str):
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)

    def floats(self) -> dict:
        """Every numeric property as a float (fractions, integers and numpy numbers), the
        rest left out: a dict that plots and tabulates directly.

        Returns
        -------
        dict

        Examples
        --------
        >>> import fattree
        >>> fattree.properties("kant:k=2,n=2", bisection=False).floats()["avg_distance"]
        2.5
        """
        import numbers

        return {
            k: float(v)
            for k, v in self.values.items()
            if isinstance(v, numbers.Number) and not isinstance(v, (bool, complex))
        }

    @property
    def disagreements(self) -> list[str]:
        """Closed forms the graph disagrees with."""
        return [r["name"] for r in self.formula_checks if r["agrees"] is False]


def properties(topology, **options: Any) -> Properties:
    """Every property of a topology computed on its graph, beside the papers' closed forms.

    Parameters
    ----------
    topology : str or Topology
    **options
        ``exact_limit``, ``samples``, ``seed``, ``symmetry``, ``bisection``,
        ``time_limit`` (see :func:`fattree.analysis.properties.properties`).

    Returns
    -------
    Properties

    Examples
    --------
    >>> import fattree
    >>> p = fattree.properties("kant:k=2,n=2")
    >>> p.nodes, p["diameter"], p.disagreements
    (4, 4, [])
    >>> p.avg_distance, p.avg_distance_float  # the exact fraction and its float
    (Fraction(5, 2), 2.5)

    References
    ----------
    000 §III (Table I), 001 §2, 004 §2.
    """
    from .analysis.properties import formula_checks, properties as compute

    from fractions import Fraction

    _check_options(compute, options, "properties")
    topo = _topology(topology)
    values = compute(topo, **options)
    checks = formula_checks(values)
    for key, v in list(values.items()):  # fractions do not plot: a float beside each
        if isinstance(v, Fraction):
            values[f"{key}_float"] = float(v)
    return Properties(topo.spec, values, checks)


def saturation_load(curve) -> float | None:
    """The offered load where a latency-versus-load curve saturates: the lowest load whose
    run is flagged ``saturated`` (deadlocks excluded), as ``fattree simulate --loads``
    prints it (see :func:`fattree.sim.result.saturation_load`).

    Parameters
    ----------
    curve : pandas.DataFrame or iterable of SimResult
        What :func:`simulate_loads` returns (or a sweep's rows of one curve), any order.

    Returns
    -------
    float or None
        That offered load (flits per node per cycle), None when no load saturates.

    Raises
    ------
    ParameterError
        ``curve`` has no ``offered_load`` and ``saturated`` columns.

    Examples
    --------
    >>> import fattree
    >>> df = fattree.simulate_loads("kant:k=4,n=3", "0.2:0.3:0.05", buffer=2, algorithm="alg1")
    >>> fattree.saturation_load(df)
    0.25

    References
    ----------
    docs/simulator.md ("Saturation").
    """
    from .sim.result import saturation_load as find

    return find(curve)


def read_results(folder, where: str | None = None):
    """The rows of a results folder as a DataFrame (damaged files are skipped with a
    :class:`~fattree.errors.DamagedDataWarning`).

    Parameters
    ----------
    folder : str or Path
        A results folder written by a sweep.
    where : str, optional
        An SQL-like filter (:func:`fattree.sweep.store.query`), e.g. ``"load > 0.5"``.

    Returns
    -------
    pandas.DataFrame
        One row per stored point.

    Raises
    ------
    InputFileError
        If the folder is not a results folder.

    Examples
    --------
    >>> import fattree, tempfile
    >>> fattree.read_results(tempfile.mkdtemp())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fattree.errors.InputFileError: results folder ... is not a fattree results folder (no manifest.json)

    References
    ----------
    docs/sweeps.md.
    """
    from .sweep.store import ResultStore

    if not isinstance(folder, (str, bytes)) and not hasattr(folder, "__fspath__"):
        raise ParameterError(f"folder={folder!r} is invalid: expected a path to a results folder")
    if not str(
        folder if not isinstance(folder, bytes) else folder.decode(errors="replace")
    ).strip():
        raise ParameterError(f"folder={folder!r} is invalid: expected a path to a results folder")
    if where is not None and not isinstance(where, str):
        raise ParameterError(
            f"where={where!r} is invalid: expected a filter string such as \"family='mikant'\""
        )
    return ResultStore(folder).read(where)


__all__ = [
    "simulate",
    "simulate_loads",
    "store_columns",
    "fault_study",
    "Properties",
    "properties",
    "read_results",
    "saturation_load",
]
