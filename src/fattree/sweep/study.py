"""Study files: a TOML description of many experiment points, validated strictly.

A study names an experiment kind (:data:`fattree.sweep.tasks.TASKS`) and its
parameters; a parameter given as a list is a sweep axis, and the points are the
cartesian product of the axes, except for axes listed together in ``zip``, which
advance together. Several ``[[experiment]]`` tables may share the study's seed and
``[parameters]``. See docs/sweeps.md for the format.

Every point is a plain dict (``config``) with a stable hash (sha256 of its canonical
JSON) and a seed derived from the study seed and that hash with numpy's
``SeedSequence``; neither depends on the order in which points run nor on the
number of workers. Parameters a kind marks ``crn`` (common random numbers) are left
out of the seed's hash, so e.g. routing algorithms compared at one fault rate see
the same random faults.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FattreeError, InputFileError, ParameterError, closest
from .tasks import OMIT, REQUIRED, TASKS, Task
from ..fileio import read_input
from ..tomlpos import KeyLines, load_toml

#: keys of a point's configuration that are not task parameters
IDENTITY_KEYS = ("kind", "replicate", "study_seed")

_STUDY_KEYS = {
    "name": str,
    "kind": str,
    "seed": int,
    "replicates": int,
    "zip": list,
    "description": str,
    "estimated_minutes": int,  # a fresh run's wall time on a 2-core machine, as measured
}
_EXPERIMENT_KEYS = {
    "name": str,
    "kind": str,
    "replicates": int,
    "zip": list,
    "description": str,
    "parameters": dict,
}
_REPORT_KEYS = {"title": str, "reproduce": list, "plots": list, "logy": bool}
_TOP_KEYS = ("study", "parameters", "experiment", "report")
_TYPE_WORDS = {
    str: "a string",
    int: "an integer",
    list: "a list",
    dict: "a table",
    bool: "true or false",
}


@dataclass(frozen=True)
class Point:
    """One task of a study: the kind's parameters, its identity, hash and seed."""

    experiment: str
    kind: str
    params: dict
    config: dict
    config_hash: str
    seed: int
    columns: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    name: str
    kind: str
    replicates: int
    axes: tuple  # ((names...), [value tuples...]) per axis, zipped ones grouped
    description: str = ""


@dataclass(frozen=True)
class Study:
    """A parsed study: metadata, experiments and the report section."""

    name: str
    seed: int
    experiments: tuple[Experiment, ...]
    report: dict
    description: str = ""
    source: str = ""
    path: str = "<string>"
    #: wall minutes a fresh run took on a 2-core machine (``[study] estimated_minutes``)
    estimated_minutes: int | None = None

    def points(self) -> list[Point]:
        """Every point of every experiment, duplicates (same hash) listed once."""
        seen: set[str] = set()
        out: list[Point] = []
        for exp in self.experiments:
            task = TASKS.get(exp.kind)
            names = [n for group, _ in exp.axes for n in group]
            for combo in itertools.product(*(values for _, values in exp.axes)):
                params = {}
                for (group, _), vals in zip(exp.axes, combo):
                    params.update(zip(group, vals))
                params = {n: params[n] for n in names if params[n] is not OMIT}
                for rep in range(exp.replicates):
                    p = make_point(exp.kind, params, rep, self.seed, exp.name, task)
                    if p.config_hash not in seen:
                        seen.add(p.config_hash)
                        out.append(p)
        return out

    def select(self, names: list[str]) -> Study:
        """The same study restricted to some experiments (by name)."""
        known = [e.name for e in self.experiments]
        for n in names:
            if n not in known:
                raise ParameterError(
                    f"experiment={n!r} is invalid{closest(n, known)}: "
                    f"{self.name} has {', '.join(known)}"
                )
        return replace(self, experiments=tuple(e for e in self.experiments if e.name in names))

    def with_value(self, name: str, value: Any) -> Study:
        """The same study with parameter ``name`` fixed to ``value`` (already valid) in every
        experiment whose kind has that parameter (``fattree study --level packet``).

        Raises
        ------
        ParameterError
            No experiment of the study has the parameter.
        """
        exps, hit = [], False
        for e in self.experiments:
            if TASKS.get(e.kind).param(name) is None:
                exps.append(e)
                continue
            hit = True
            axes = [a for a in e.axes if name not in a[0]]
            zipped = [a for a in e.axes if name in a[0] and len(a[0]) > 1]
            for group, rows in zipped:  # a zipped axis keeps its other columns
                i = group.index(name)
                rows = list(dict.fromkeys(r[:i] + r[i + 1 :] for r in rows))
                axes.append((group[:i] + group[i + 1 :], rows))
            axes.append(((name,), [(value,)]))
            exps.append(replace(e, axes=tuple(axes)))
        if not hit:
            raise ParameterError(
                f"{name}={value!r} is invalid for study {self.name!r}: none of its experiments "
                f"has a {name} (kinds: {', '.join(sorted({e.kind for e in self.experiments}))})"
            )
        return replace(self, experiments=tuple(exps))

    @property
    def source_hash(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()


def canonical_json(obj: Any) -> str:
    """The JSON text hashed for a configuration: sorted keys, no spaces, no NaN.

    Examples
    --------
    >>> canonical_json({"b": 1, "a": [0.5, "x"]})
    '{"a":[0.5,"x"],"b":1}'
    """
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )


def config_hash(config: dict) -> str:
    """sha256 (hex) of the canonical JSON of a configuration.

    Examples
    --------
    >>> config_hash({"a": 1, "b": 2}) == config_hash({"b": 2, "a": 1})
    True
    """
    return hashlib.sha256(canonical_json(config).encode()).hexdigest()


def derive_seed(study_seed: int, chash: str) -> int:
    """The seed of a point: ``SeedSequence(study_seed, spawn_key=hash words)``, 63 bits.

    Examples
    --------
    >>> derive_seed(1, "ab" * 32) == derive_seed(1, "ab" * 32) != derive_seed(2, "ab" * 32)
    True
    """
    words = tuple(int(chash[i : i + 8], 16) for i in range(0, 64, 8))
    hi, lo = np.random.SeedSequence(study_seed, spawn_key=words).generate_state(2, np.uint32)
    return ((int(hi) << 32) | int(lo)) & (2**63 - 1)


def make_point(
    kind: str,
    params: dict,
    replicate: int,
    study_seed: int,
    experiment: str = "",
    task: Task | None = None,
) -> Point:
    """Build one point: configuration, hash, seed and derived columns.

    Examples
    --------
    >>> p = make_point("topology", {"topology": "kant:k=2,n=2", "distances": "none"}, 0, 7)
    >>> sorted(p.config), p.columns["family"], len(p.config_hash)
    (['distances', 'kind', 'replicate', 'study_seed', 'topology'], 'kant', 64)
    """
    task = task or TASKS.get(kind)
    config = {"kind": kind, **params, "replicate": replicate, "study_seed": study_seed}
    h = config_hash(config)
    crn = {p.name for p in task.params if p.crn}
    seed_hash = config_hash({k: v for k, v in config.items() if k not in crn}) if crn else h
    cols = task.columns(params) if task.columns else {}
    return Point(
        experiment, kind, dict(params), config, h, derive_seed(study_seed, seed_hash), cols
    )


# ----------------------------------------------------------------------------- parsing
def load_study(path: str | Path) -> Study:
    """Read and validate a study file.

    Raises
    ------
    InputFileError
        Missing file, invalid TOML, unknown keys (with line and closest valid key),
        values of the wrong type or out of range (with line).

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); f = os.path.join(d, "s.toml")
    >>> _ = open(f, "w").write('[study]\\nkind = "topology"\\n[parameters]\\n'
    ...                        'topology = ["kant:k=2,n=2", "mikant:k=2,n=2"]\\n')
    >>> [p.params["topology"] for p in load_study(f).points()]
    ['kant:k=2,n=2', 'mikant:k=2,n=2']

    References
    ----------
    Issue 7 (declarative sweeps); docs/sweeps.md.
    """
    p = Path(path)
    text = read_input(p, "study file", limit=1 << 24)  # a regular file (fattree.fileio)
    return parse_study(text, str(p), default_name=p.stem)


def parse_study(text: str, source: str = "<string>", default_name: str = "study") -> Study:
    """Parse and validate study TOML text (see :func:`load_study`).

    Examples
    --------
    >>> s = parse_study('[study]\\nkind = "topology"\\nzip = [["topology", "distances"]]\\n'
    ...                 '[parameters]\\ntopology = ["kant:k=2,n=2", "clos:k=2,n=2"]\\n'
    ...                 'distances = ["none", "all"]\\n')
    >>> [(p.params["topology"], p.params["distances"]) for p in s.points()]
    [('kant:k=2,n=2', 'none'), ('clos:k=2,n=2', 'all')]
    """
    doc = load_toml(text, source)  # syntax errors and excessive nesting: one line
    return _Parser(text, source).study(doc, default_name)


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.lines = KeyLines(text)

    def fail(self, msg: str, table=(), key: str | None = None, occ: int = 0) -> InputFileError:
        line = None
        if key is not None:
            line = self.lines.line(table, key, occ)
            if line is None:  # the key names a table ([key] or [[key]])
                line = self.lines.table_line((*table, key), occ)
        if line is None and table:
            line = self.lines.table_line(table, occ)
            if line is None and len(table) > 1:  # an inline table: the line of its key
                line = self.lines.line(table[:-1], table[-1], occ)
        where = f"{self.source}:{line}" if line else self.source
        return InputFileError(f"{where}: {msg}")

    def check_keys(self, data: dict, allowed: dict | tuple, table, occ: int = 0) -> None:
        name = "[" + ".".join(table) + "]" if table else "the top level"
        for key in data:
            if key not in allowed:
                raise self.fail(
                    f"unknown key {key!r} in {name}{closest(key, allowed)}; "
                    f"valid keys: {', '.join(allowed)}",
                    table,
                    key,
                    occ,
                )

    def typed(self, data: dict, schema: dict, table, occ: int = 0) -> None:
        for key, value in data.items():
            want = schema[key]
            ok = isinstance(value, want) and not (want is int and isinstance(value, bool))
            if not ok:
                raise self.fail(
                    f"{'.'.join((*table, key))} = {_show(value)} has the wrong type: "
                    f"expected {_TYPE_WORDS[want]}",
                    table,
                    key,
                    occ,
                )

    def study(self, doc: dict, default_name: str) -> Study:
        self.check_keys(doc, _TOP_KEYS, ())
        meta = doc.get("study", {})
        if not isinstance(meta, dict):
            raise self.fail("'study' must be a table ([study])", (), "study")
        self.check_keys(meta, _STUDY_KEYS, ("study",))
        self.typed(meta, _STUDY_KEYS, ("study",))
        seed = meta.get("seed", 0)
        if not 0 <= seed < 2**63:
            raise self.fail(
                f"study.seed = {seed} is invalid: expected an integer 0 <= seed < 2**63",
                ("study",),
                "seed",
            )
        report = doc.get("report", {})
        if not isinstance(report, dict):
            raise self.fail("'report' must be a table ([report])", (), "report")
        self.check_keys(report, _REPORT_KEYS, ("report",))
        self.typed(report, _REPORT_KEYS, ("report",))
        self.check_report(report)
        shared = doc.get("parameters", {})
        if not isinstance(shared, dict):
            raise self.fail("'parameters' must be a table ([parameters])", (), "parameters")
        raw_exps = doc.get("experiment")
        experiments = []
        if raw_exps is None:
            experiments.append(
                self.experiment(
                    meta, shared, ("study",), ("parameters",), 0, meta.get("name", default_name)
                )
            )
        else:
            if not isinstance(raw_exps, list):
                raise self.fail(
                    "'experiment' must be an array of tables ([[experiment]])", (), "experiment"
                )
            for key in ("replicates", "zip"):
                if key in meta:
                    raise self.fail(
                        f"study.{key} is set per [[experiment]] when there are experiments",
                        ("study",),
                        key,
                    )
            for i, raw in enumerate(raw_exps):
                self.check_keys(raw, _EXPERIMENT_KEYS, ("experiment",), i)
                self.typed(raw, _EXPERIMENT_KEYS, ("experiment",), i)
                merged = {**raw, "kind": raw.get("kind", meta.get("kind", "simulate"))}
                params = {**shared, **raw.get("parameters", {})}
                experiments.append(
                    self.experiment(
                        merged,
                        params,
                        ("experiment",),
                        ("experiment", "parameters"),
                        i,
                        raw.get("name", f"experiment{i + 1}"),
                        shared_keys=set(shared) - set(raw.get("parameters", {})),
                    )
                )
        names = [e.name for e in experiments]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise self.fail(
                f"experiment name {sorted(dup)[0]!r} is used twice", ("experiment",), "name", 1
            )
        study = Study(
            name=meta.get("name", default_name),
            seed=seed,
            experiments=tuple(experiments),
            report=report,
            description=meta.get("description", ""),
            estimated_minutes=meta.get("estimated_minutes"),
            source=self.text,
            path=self.source,
        )
        total = sum(
            e.replicates * int(np.prod([len(v) for _, v in e.axes], dtype=object))
            for e in experiments
        )
        if total > MAX_POINTS:
            raise self.fail(
                f"the study has {total:,} points; at most {MAX_POINTS:,} (split it "
                "into several studies)"
            )
        self.check_points(study)
        return study

    def check_points(self, study: Study) -> None:
        """Check what each parameter alone cannot: a simulation's traffic, injection and
        configuration against its topology's size, and its memory, before anything runs."""
        seen = set()
        checks = {"simulate": _check_simulation, "cost": _check_cost}
        for e in study.experiments:
            if e.kind not in checks:
                continue
            # the load does not change what is checked here (sizes, names, memory)
            for p in e_points(e, skip=("load",)):
                p = {k: v for k, v in p.items() if v is not OMIT and v is not REQUIRED}
                key = repr(sorted(p.items()))
                if key in seen:
                    continue
                seen.add(key)
                try:
                    checks[e.kind](p)
                except FattreeError as exc:
                    where = ", ".join(f"{k}={v}" for k, v in p.items())
                    raise self.fail(f"experiment {e.name!r} ({where}): {exc}") from None

    def check_report(self, report: dict) -> None:
        from .plotkinds import PLOTS

        for key in ("reproduce", "plots"):
            for v in report.get(key, []):
                if not isinstance(v, str):
                    raise self.fail(
                        f"report.{key} must list strings, got {_show(v)}", ("report",), key
                    )
        for name in report.get("plots", []):
            if name not in PLOTS:
                raise self.fail(
                    f"unknown plot {name!r} in report.plots{closest(name, PLOTS)}; "
                    f"valid: {', '.join(PLOTS)}",
                    ("report",),
                    "plots",
                )

    def experiment(
        self,
        meta: dict,
        params: dict,
        table,
        ptable,
        occ: int,
        name: str,
        shared_keys: set = frozenset(),
    ) -> Experiment:
        kind = meta.get("kind", "simulate")
        if kind not in TASKS:
            raise self.fail(
                f"unknown experiment kind {kind!r}{closest(kind, TASKS)}; "
                f"valid: {', '.join(TASKS)}",
                table,
                "kind",
                occ,
            )
        task = TASKS.get(kind)
        reps = meta.get("replicates", 1)
        if reps < 1:
            raise self.fail(
                f"replicates = {reps} is invalid: expected an integer >= 1",
                table,
                "replicates",
                occ,
            )
        valid = [p.name for p in task.params]

        def where(key):  # shared [parameters] keys sit in the top-level table
            return (("parameters",), 0) if key in shared_keys else (ptable, occ)

        for key in params:
            if key not in valid:
                t, o = where(key)
                raise self.fail(
                    f"unknown parameter {key!r} for kind {kind!r}{closest(key, valid)};"
                    f" valid parameters: {', '.join(valid)}",
                    t,
                    key,
                    o,
                )
        values: dict[str, list] = {}
        for p in task.params:
            if p.name not in params:
                if p.default is REQUIRED:
                    raise self.fail(
                        f"missing parameter {p.name!r} for kind {kind!r}: {p.describe()}",
                        ptable,
                        None,
                        occ,
                    )
                values[p.name] = [p.default]
                continue
            t, o = where(p.name)
            values[p.name] = self.axis(p, params[p.name], t, o)
        groups = self.zips(meta.get("zip", []), values, table, occ)
        zipped = {n for g in groups for n in g}
        axes = []
        for n in values:
            group = next((g for g in groups if g[0] == n), None)
            if group is not None:
                axes.append((tuple(group), list(zip(*(values[m] for m in group)))))
            elif n not in zipped:
                axes.append(((n,), [(v,) for v in values[n]]))
        return Experiment(
            name=name,
            kind=kind,
            replicates=reps,
            axes=tuple(axes),
            description=meta.get("description", ""),
        )

    def axis(self, p, raw: Any, table, occ: int) -> list:
        """The list of values a parameter takes (one value: a constant)."""
        if isinstance(raw, dict):
            raw = self.range(p, raw, table, occ)
        is_axis = isinstance(raw, list) and (not p.multi or any(isinstance(v, list) for v in raw))
        items = raw if is_axis else [raw]
        if is_axis and not items:
            raise self.fail(f"{p.name} = [] is empty: give at least one value", table, p.name, occ)
        out = []
        for v in items:
            try:
                out.append(p.convert(v))
            except FattreeError as exc:
                raise self.fail(
                    f"{p.name} = {_show(v)}: {exc}; {p.describe()}", table, p.name, occ
                ) from None
        return out

    def range(self, p, raw: dict, table, occ: int) -> list:
        keys = ("start", "stop", "step")
        self.check_keys(raw, keys, (*table, p.name), occ)
        if (
            set(raw) != set(keys)
            or p.type not in (int, float)
            or not all(
                isinstance(raw[k], (int, float)) and not isinstance(raw[k], bool) for k in keys
            )
        ):
            raise self.fail(
                f"{p.name} = {_show(raw)}: a range needs numeric start, stop and step"
                f" (e.g. {{start = 0.05, stop = 1.0, step = 0.05}}); {p.describe()}",
                table,
                p.name,
                occ,
            )
        start, stop, step = raw["start"], raw["stop"], raw["step"]
        if not all(np.isfinite(float(raw[k])) for k in keys):
            raise self.fail(
                f"{p.name} = {_show(raw)}: start, stop and step must be finite numbers",
                table,
                p.name,
                occ,
            )
        if p.type is int and not all(float(raw[k]).is_integer() for k in keys):
            raise self.fail(
                f"{p.name} = {_show(raw)}: {p.name} takes integers, so start, stop and step "
                "must be integers (a fractional value would be truncated)",
                table,
                p.name,
                occ,
            )
        count = (stop - start) / step if step > 0 else -1
        if count < 0 or abs(count - round(count)) > 1e-9 or round(count) > 1_000_000:
            raise self.fail(
                f"{p.name} = {_show(raw)}: stop - start must be a non-negative "
                "multiple of a positive step",
                table,
                p.name,
                occ,
            )
        vals = [start + i * step for i in range(round(count) + 1)]
        # round away binary drift (0.1 + 2*0.05) so hashes match hand-written lists
        return [round(v, 12) if p.type is float else int(v) for v in vals]

    def zips(self, groups: list, values: dict, table, occ: int) -> list[list[str]]:
        out: list[list[str]] = []
        used: set[str] = set()
        for g in groups:
            if not isinstance(g, list) or len(g) < 2 or not all(isinstance(x, str) for x in g):
                raise self.fail(
                    f"zip = {_show(groups)}: each group is a list of two or more parameter names",
                    table,
                    "zip",
                    occ,
                )
            for name in g:
                if name not in values:
                    raise self.fail(
                        f"zip names unknown parameter {name!r}{closest(name, values)}",
                        table,
                        "zip",
                        occ,
                    )
                if name in used:
                    raise self.fail(f"zip lists {name!r} twice", table, "zip", occ)
                used.add(name)
            lengths = {name: len(values[name]) for name in g}
            if len(set(lengths.values())) != 1:
                desc = ", ".join(f"{k} has {v}" for k, v in lengths.items())
                raise self.fail(
                    f"zip group {g} needs lists of equal length: {desc}", table, "zip", occ
                )
            out.append(list(g))
        return out


#: the most points one study file may define (checked before any is listed)
MAX_POINTS = 1_000_000


def e_points(e, skip: tuple[str, ...] = ()) -> list[dict]:
    """The parameter sets of an experiment (its axes' product, replicates left out); an
    axis of only ``skip`` parameters contributes its first value alone."""
    import itertools

    out = []
    axes = [vals[:1] if set(names) <= set(skip) else vals for names, vals in e.axes]
    for combo in itertools.product(*axes):
        params = {}
        for (names, _), values in zip(e.axes, combo):
            params.update(zip(names, values))
        out.append(params)
    return out


def _check_simulation(params: dict) -> None:
    """Validate one simulation point without building its topology: the configuration,
    the traffic pattern and injection for its number of nodes, and its memory."""
    from ..sim.config import SimConfig
    from ..sim.memory import check_memory
    from ..topology import resolve
    from ..traffic import make_process, make_traffic

    topo = params.get("topology")
    fields = SimConfig.__dataclass_fields__
    cfg = SimConfig(**{k: v for k, v in params.items() if k in fields})
    for name, applies, when in _SIM_APPLIES:  # given, but the configuration ignores it
        if name in params and not applies(cfg):
            raise ParameterError(f"{name}={params[name]!r} does not apply here: it acts {when}")
    fam, values = resolve(topo)
    if cfg.algorithm is not None and not cfg.faulted:  # fault runs name a fault-tolerant one
        from ..routing.compiled import get_algorithm

        get_algorithm(cfg.algorithm, fam.name)
    if fam.size is None:
        return
    nodes = int(fam.size(values)[0])
    tr = make_traffic(cfg.traffic, nodes, seed=cfg.seed, validate_only=True)
    if cfg.load is not None and not tr.timed:
        make_process(cfg.injection, tr, cfg.load, cfg.packet_flits, cfg.seed)
    check_memory(topo, cfg)


#: simulation parameters that act only in some configurations (as the simulate command's)
_SIM_APPLIES = (
    ("warmup", lambda c: c.termination == "window", "with termination = 'window' only"),
    ("measure", lambda c: c.termination == "window", "with termination = 'window' only"),
    (
        "packets_per_source",
        lambda c: c.termination == "papers",
        "with termination = 'papers' only",
    ),
    ("fault_seed", lambda c: c.fault_rate is not None, "with fault_rate (random faults) only"),
)


def _check_cost(params: dict) -> None:
    """Validate one cost point without building its topology: the routing's name for its
    family (the price file and the radix are checked per value)."""
    from ..routing.compiled import get_algorithm
    from ..topology import resolve

    alg = params.get("algorithm")
    if isinstance(alg, str):
        fam, _ = resolve(params.get("topology"))
        get_algorithm(alg, fam.name)


def _show(v: Any) -> str:
    s = json.dumps(v, default=str) if not isinstance(v, str) else repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


def builtin_studies() -> list[str]:
    """Names of the studies shipped with fattree (``fattree study NAME``).

    Examples
    --------
    >>> "flagship" in builtin_studies()
    True
    """
    from importlib.resources import files

    return sorted(
        p.name[:-5]
        for p in files("fattree.sweep").joinpath("studies").iterdir()
        if p.name.endswith(".toml")
    )


def builtin_study(name: str) -> Study:
    """Load a shipped study by name.

    Examples
    --------
    >>> [e.name for e in builtin_study("flagship").experiments]
    ['latency', 'balanced', 'faults', 'properties']
    """
    from importlib.resources import files

    names = builtin_studies()
    if name not in names:
        raise ParameterError(
            f"study={name!r} is invalid{closest(name, names)}: "
            f"shipped studies are {', '.join(names)}"
        )
    res = files("fattree.sweep").joinpath("studies", f"{name}.toml")
    return parse_study(res.read_text(encoding="utf-8"), f"{name}.toml", default_name=name)
