"""Monte Carlo evaluation of fault-tolerant routing (001 §5; docs/faults.md, "Evaluation
protocol"): one numba loop over trials for every family, whose draws (``faults/mcdraw.py``)
make results identical whatever the number of threads.
"""

from __future__ import annotations

import math
from collections import namedtuple
import time
from dataclasses import dataclass

import numpy as np
from numba import njit, prange
from numba.extending import overload

from ..version import __version__
from ..errors import ParameterError
from ..topology import Topology
from .algorithms import (
    RULE_SHORTEST_T,
    RULE_SP,
    RULE_UPDOWN_T,
    FTAlgorithm,
    check_model,
    resolve_algorithms,
)
from .generic import generic_walk, route_length, updown_distance, updown_order
from .hooks import FAULT_WALKS, OK, walk_by_type
from .mcdraw import CHUNK, chunk_scratch, draw, oracle_bfs, record_outcome, surviving_csr
from .mcdraw import draw_trial  # noqa: F401  (public here)
from .walkloop import SCR_ROWS, ST_COLS, WalkIn, study_walk, walk_loop, walk_scratch
from .walks import walk_of


# A family's paper walk plugs into the loop through its study context (``FaultWalk.study``,
# a named tuple whose type names the walk; None: the generic rules only). The three kernels
# below are what the loop runs without the walk's own; the walk's own resolve in their
# place when the loop is typed, so a study compiles its own walk and no other.


def _walk(wk):
    return walk_by_type(getattr(wk, "instance_class", None))


def _study_scratch(wk):
    """The walk's scratch ``(ip, scr)`` (one per parallel task)."""
    return np.zeros(1, np.int64), np.zeros((1, 1), np.int64)


@overload(_study_scratch, inline="always")
def _ov_study_scratch(wk):
    # a call: inlined in the parallel loop, the scratch slows MiKANTC's study by ~20 %
    return _study_scratch if _walk(wk) is None else lambda wk: walk_scratch(wk)


def _paper_walk(wk, rt, stamp, cur, flags, look, s, t, out_sw, out_port, ip, scr, seed, pkt):
    """The family's paper walk of ``s -> t`` (``flags``: the algorithm's detours)."""
    return 0, 0, 0


@overload(_paper_walk, inline="always")
def _ov_paper_walk(wk, rt, stamp, cur, flags, look, s, t, out_sw, out_port, ip, scr, seed, pkt):
    return _paper_walk if _walk(wk) is None else study_walk.py_func


def _fault_free(wk, rt, stamp, s, t, minimal, cap, buf, out_sw, out_port, ip, scr, seed, pkt):
    """``(d0, exact)``: the fault-free length of the family's route of ``s -> t`` and
    whether a delivered walk of that length is optimal (faults never shorten a path)."""
    return route_length(rt, rt.node_switch[s], t, cap, buf) + 1, minimal


@overload(_fault_free, inline="always")
def _ov_fault_free(wk, rt, stamp, s, t, minimal, cap, buf, out_sw, out_port, ip, scr, seed, pkt):
    fn = getattr(_walk(wk), "study_fault_free", None)
    return _fault_free if fn is None else fn.py_func


StudyRules = namedtuple(
    "StudyRules", "rules flags looks budget ttl minimal root slevel a1_walks cut_off"
)
StudyRules.__doc__ = (
    "Per algorithm its rule (-1: the paper walk), detour flags and lookahead model; the "
    "generic rules' misroute budget and hop limit, whether the routing is minimal, the "
    "up*/down* root, the switch levels, ``FaultWalk.a1_shortcut`` and ``.cut_off``."
)
StudyGraph = namedtuple("StudyGraph", "indptr nbr nbr_link scsr n_links pool_lo")
StudyGraph.__doc__ = (
    "CSR adjacency with link ids, the switches-only CSR (up*/down*), the link count and "
    "the first link of the fault pool."
)
StudyOutcomes = namedtuple("StudyOutcomes", "succ length oracle_len ttl_count")
StudyOutcomes.__doc__ = (
    "Success and path length (algorithm x trial), the oracle's length (-1: disconnected) "
    "and the hop limits fired per algorithm."
)


@njit(cache=True, parallel=True)
def _trials(wk, rt, sr, sg, n_faults, trials, seed, rate_idx, out):
    """The Monte Carlo loop of every family: per trial its draw, then per algorithm the
    paper walk (``rules[a] < 0``), the generic rules' walk or a table engine's length from
    its recomputed column (checked against the walked tables in tests/faults/test_generic.py),
    then the oracle. ``sr``, ``sg``, ``out``: :class:`StudyRules`, :class:`StudyGraph`,
    the :class:`StudyOutcomes` filled."""
    rules, flags, looks, budget, ttl, minimal, root, slevel, a1_walks, cut_off = sr
    indptr, nbr, nbr_link, scsr, n_links, pool_lo = sg
    succ, length, oracle_len, ttl_count = out
    N = rt.n_nodes
    node_switch = rt.node_switch
    V = indptr.shape[0] - 1
    pool = n_links - pool_lo
    cap = ttl + 2
    R = rt.port_peer.shape[1]
    for c in prange((trials + CHUNK - 1) // CHUNK):
        perm, stamp, swaps, dist, seen, queue, state = chunk_scratch(pool_lo, n_links, n_faults, V)
        out_sw = np.empty(cap, np.int64)
        out_port = np.empty(cap, np.int64)
        order = np.empty(V, np.int64)
        ddown = np.full(V, -1, np.int64)
        q2 = np.empty(2 * V + 1, np.int64)
        buf = np.empty(R + 1, np.int64)
        gscr = np.empty(4 * (R + 1) + 4, np.int64)  # generic.generic_scratch
        lscr = np.zeros((SCR_ROWS, ST_COLS), np.int64)  # generic.loop_scratch
        gip = np.zeros(1, np.int64)
        ip, scr = _study_scratch(wk)
        for tr in range(c * CHUNK, min(trials, (c + 1) * CHUNK)):
            cur = tr + 1
            s, t = draw(seed, rate_idx, tr, perm, swaps, stamp, cur, n_faults, pool, N, state)
            pkt = (np.int64(rate_idx) << 32) + tr  # the key of a walk's own random draws
            best = -1
            dist_st = -2  # BFS distance s -> t (-1: disconnected), computed once if needed
            h_a1 = -1  # MiKANT: Algorithm 1's length when its route is healthy, else -1
            if a1_walks:
                st, h, _ = _paper_walk(
                    wk, rt, stamp, cur, 0, False, s, t, out_sw, out_port, ip, scr, seed, pkt
                )
                h_a1 = h if st == OK else -1
            for a in range(rules.shape[0]):
                rule = rules[a]
                if rule < 0 and h_a1 >= 0:
                    # 001's detours (and escape, lookahead) act only at a faulty port of
                    # Algorithm 1's route: on a healthy one every walk is that route
                    st, h = OK, h_a1
                elif rule < 0:
                    fl, lk = flags[a], looks[a]
                    st, h, _ = _paper_walk(
                        wk, rt, stamp, cur, fl, lk, s, t, out_sw, out_port, ip, scr, seed, pkt
                    )
                elif rule != RULE_UPDOWN_T and rule != RULE_SHORTEST_T:  # a per-hop rule
                    gw = WalkIn(
                        gip, rt.port_peer, rt.link_index, stamp, cur, 0, looks[a], seed, pkt
                    )
                    gk = generic_walk(rt, rule, budget, ttl, gscr)
                    st, h, _ = walk_loop(gk, gw, s, -1, t, out_sw, out_port, lscr)
                elif stamp[s] == cur or stamp[t] == cur:  # a node's only link: cut off
                    st, h = 1, 0
                elif rule == RULE_SHORTEST_T:
                    if dist_st == -2:
                        dist_st = oracle_bfs(
                            indptr, nbr, nbr_link, stamp, cur, s, t, dist, seen, cur, queue
                        )
                    st, h = (OK, dist_st) if dist_st >= 0 else (1, 0)
                else:
                    updown_order(
                        scsr[0], scsr[1], scsr[2], stamp, cur, N, N + root, slevel, order, q2
                    )
                    v = N + node_switch[s]
                    d = updown_distance(
                        indptr, nbr, nbr_link, stamp, cur, N, v, t, order, ddown, q2
                    )
                    st, h = (OK, d + 1) if d >= 0 else (1, 0)
                best = record_outcome(st, h, a, tr, succ, length, ttl_count, best)
            # (two exits, not one store: one store slows MiKANTC's study by ~15 %)
            if cut_off and (stamp[s] == cur or stamp[t] == cur):
                oracle_len[tr] = -1
                continue
            if dist_st != -2:
                oracle_len[tr] = dist_st
                continue
            d0, exact = _fault_free(
                wk, rt, stamp, s, t, minimal, cap, buf, out_sw, out_port, ip, scr, seed, pkt
            )
            if exact and best == d0:
                oracle_len[tr] = d0
            else:
                oracle_len[tr] = oracle_bfs(
                    indptr, nbr, nbr_link, stamp, cur, s, t, dist, seen, cur, queue
                )


def _study(topo: Topology, walks, pool_lo: int, seed: int, tie_break: str):
    """Validate a study of ``topo`` and return the arguments of :func:`_trials`: the
    walk's study context (None: none), the routing context, a :class:`StudyRules` and a
    :class:`StudyGraph`."""
    from ..routing.algorithms import updown_root
    from .rules import context

    walk = walk_of(topo.family)
    if (walk is None or not walk.tie_break) and tie_break != "dimension":
        cubes = ", ".join(n for n, w in FAULT_WALKS.items() if w.tie_break)
        raise ParameterError(
            f"tie_break={tie_break!r} is invalid for {topo.family}: only {cubes} has a "
            f"cube tie-break (Algorithm 1 has no tie to break)"
        )
    for a, m in walks:
        if walk is not None and a.walked_on(topo.family):
            walk.check_model(m, topo.family)
    wk = None if walk is None else walk.study(topo, tie_break)
    ctx = context(topo, seed)
    indptr, nbr, nbr_link = surviving_csr(topo)
    scsr = surviving_csr(topo, switches_only=True)
    rules = np.array(
        [-1 if a.walked_on(topo.family) else a.rule for a, _ in walks] or [RULE_SP],
        np.int64,
    )
    flags = np.array([a.flags for a, _ in walks] or [0], np.int64)
    look = np.array([m == "lookahead" for _, m in walks] or [False], np.bool_)
    root = updown_root(topo) if any(a.rule == RULE_UPDOWN_T for a, _ in walks) else 0
    slevel = topo.switch_level.astype(np.int64)
    a1 = walk is not None and walk.a1_shortcut and bool((rules < 0).any())
    cut_off = walk is None or walk.cut_off
    sr = StudyRules(rules, flags, look, ctx.budget, ctx.ttl, ctx.minimal, root, slevel, a1, cut_off)
    return wk, ctx.rt, sr, StudyGraph(indptr, nbr, nbr_link, scsr, topo.n_links, pool_lo)


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval of a success ratio."""
    if trials == 0:
        return (math.nan, math.nan)
    p = successes / trials
    den = 1 + z * z / trials
    mid = (p + z * z / (2 * trials)) / den
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / den
    lo = 0.0 if successes == 0 else max(0.0, mid - half)
    hi = 1.0 if successes == trials else min(1.0, mid + half)
    return (lo, hi)


@dataclass(frozen=True)
class FaultStudy:
    """Rows (one per algorithm, model and rate) plus the configuration that made them."""

    rows: list[dict]
    config: dict
    wall_seconds: float

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.rows)


#: the most trials per rate (each trial keeps its fault set: beyond, memory runs out)
MAX_TRIALS = 100_000_000


def parse_rates(text: str) -> list[float]:
    """``"0:1:0.05"`` (inclusive range) or ``"0,0.05,0.1"`` into a list of rates."""
    text = str(text).strip()
    try:
        if ":" in text:
            a, b, step = (float(x) for x in text.split(":"))
            if step <= 0:
                raise ParameterError(f"rates={text!r} is invalid: the step must be > 0")
            count = int(math.floor((b - a) / step + 1e-9)) + 1
            rates = [round(a + i * step, 10) for i in range(count)]
        else:
            rates = [float(x) for x in text.split(",") if x.strip()]
    except ParameterError:  # (a ValueError too: its own message, not the general one)
        raise
    except ValueError:
        raise ParameterError(f"rates={text!r} is invalid: use START:STOP:STEP or a,b,c") from None
    if not rates:
        raise ParameterError(f"rates={text!r} is invalid: no rate given")
    for r in rates:
        if not 0.0 <= r <= 1.0:
            raise ParameterError(f"rates={text!r} is invalid: {r} is outside [0, 1]")
    return rates


def _row(algorithm, model, rate, f, ok, length, olen, ttl) -> dict:
    """One row of :func:`evaluate`: ``ok`` the successful trials, ``length`` their lengths,
    ``olen`` the oracle's."""
    lo, hi = wilson(int(ok.sum()), len(ok))
    return {
        "algorithm": algorithm,
        "model": model,
        "rate": rate,
        "faulty_links": f,
        "trials": len(ok),
        "successes": int(ok.sum()),
        "success_ratio": float(ok.mean()),
        "ci_low": lo,
        "ci_high": hi,
        "avg_path_length": float(length[ok].mean()) if ok.any() else math.nan,
        "avg_excess_over_oracle": float((length[ok] - olen[ok]).mean()) if ok.any() else math.nan,
        "ttl_fired": int(ttl),
    }


def evaluate(
    topo: Topology,
    algorithms: str | list[str] = "all",
    rates=(0.0, 0.05, 0.1),
    trials: int = 10_000,
    seed: int = 0,
    *,
    models=("local",),
    switch_only: bool = False,
    progress=None,
    tie_break: str = "dimension",
) -> FaultStudy:
    """Success ratio and path length of every algorithm against the link fault rate.

    Parameters
    ----------
    topo : Topology
        A MiKANT (001's algorithms) or a MiKANTC (004 Algorithm 1, ``faults/mikantc.py``).
    algorithms : str or list of str
        Names (``"sp,gns,gdl,gns+xt+gdl,oracle"``) or ``"all"``.
    rates : sequence of float or str
        Fractions of links made faulty (``"0:1:0.05"`` accepted).
    trials : int
        Trials per rate; all algorithms share every trial's faults and pair.
    seed : int
    models : sequence of {"local", "lookahead"}
    switch_only : bool
        Exclude node links from the fault pool (``--links switch-only``).
    progress : callable(done, total), optional
    tie_break : {"dimension", "random"}
        MiKANTC only: the cube hop among shortest-path dimensions (004 §3.1 "selected at
        random", seeded per packet and switch) or the lowest dimension.

    Examples
    --------
    >>> import fattree
    >>> st = evaluate(fattree.build("mikant:k=3,n=3"), "sp,gns,oracle", [0.0, 0.1], 500, seed=1)
    >>> [r["success_ratio"] for r in st.rows if r["rate"] == 0.0]
    [1.0, 1.0, 1.0]

    References
    ----------
    001 §5 (protocol and Figs. 8–9); docs/mikant-routing.md §5.
    """
    t0 = time.perf_counter()
    if isinstance(rates, str):
        rates = parse_rates(rates)
    rates = [float(r) for r in rates]
    for r in rates:
        if not 0.0 <= r <= 1.0:
            raise ParameterError(f"rate={r!r} is invalid: a fraction in [0, 1]")
    if (
        isinstance(trials, bool)
        or not isinstance(trials, (int, np.integer))
        or not 1 <= trials <= MAX_TRIALS
    ):
        raise ParameterError(
            f"trials={trials!r} is invalid: an integer from 1 to {MAX_TRIALS:,} per rate"
        )
    models = [check_model(m) for m in models]
    algs: list[FTAlgorithm] = resolve_algorithms(algorithms, topo.family)
    # the table engines assume global knowledge: one row each, model "global"
    walks = [
        (a, m)
        for a in algs
        if not a.is_oracle
        for m in (["global"] if a.rule in (RULE_UPDOWN_T, RULE_SHORTEST_T) else models)
    ]
    has_oracle = any(a.is_oracle for a in algs)
    pool_lo = topo.n_nodes if switch_only else 0
    wk, rt, sr, sg = _study(topo, walks, pool_lo, seed, tie_break)
    n_rows = len(sr.rules)  # at least one: the loop needs an algorithm
    rows: list[dict] = []
    for ri, rate in enumerate(rates):
        f = int(math.floor((topo.n_links - pool_lo) * rate + 0.5))
        succ = np.zeros((n_rows, trials), np.int8)
        length = np.zeros((n_rows, trials), np.int64)
        olen = np.zeros(trials, np.int64)
        ttl = np.zeros(n_rows, np.int64)
        _trials(wk, rt, sr, sg, f, trials, seed, ri, StudyOutcomes(succ, length, olen, ttl))
        for i, (a, m) in enumerate(walks):
            rows.append(_row(a.name, m, rate, f, succ[i].astype(bool), length[i], olen, ttl[i]))
        if has_oracle:
            rows.append(_row("oracle", "global", rate, f, olen >= 0, olen, olen, 0))
        if progress is not None:
            progress(ri + 1, len(rates))
    config = {
        "topology": topo.spec,
        "algorithms": [a.name for a in algs],
        "models": models,
        "rates": rates,
        "trials": trials,
        "seed": seed,
        "links": "switch-only" if switch_only else "all",
        "version": __version__,
    }
    walk = walk_of(topo.family)
    if walk is not None and walk.tie_break:
        config["tie_break"] = tie_break
    for r in rows:
        r["topology"] = topo.spec
        r["seed"] = seed
    return FaultStudy(rows, config, time.perf_counter() - t0)
