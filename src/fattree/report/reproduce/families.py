"""Fault tolerance across families of similar size (docs/faults-families.md).

Not a paper's figure: the flagship's answer to "MiKANT, a k-ary n-tree or a Clos, and how
robust to link faults?". Monte Carlo success ratio and path length against the fault rate
(each family's default local algorithm, MiKANT's papers' best and ``detour`` on its
balanced routing, ``updown-table`` and the oracle;
:func:`fattree.report.fault_comparison.fault_comparison`), and accepted throughput at
saturation against the fault rate, simulated hop by hop, with the channel-load bound of
the surviving routes beside it (:func:`~fattree.report.fault_comparison.saturation_vs_faults`).
"""

from __future__ import annotations

from .base import Context, Outcome, reproduction

# 1,024 nodes each (the full study); 128 / 64 / 128 in the quick one
FULL = ("mikant:k=8,n=3", "kant:k=4,n=5", "clos:k=8,n=3")
QUICK = ("mikant:k=4,n=3", "kant:k=4,n=3", "clos:k=4,n=3")


@reproduction(
    "001-fig8b",
    title="Link faults across families: MiKANT, k-ary n-tree and Clos of similar size",
    paper="001 §5 (the protocol of Figs. 8-9) on three families",
    claim="Success ratio and path length against the link fault rate for each "
    "family's best local algorithm, a table engine and the oracle; accepted "
    "throughput at saturation degrades with the fault rate and stays below the "
    "channel-load bound of the surviving routes.",
    requires=("fattree.faults.montecarlo:evaluate", "fattree.sim:simulate"),
)
def _families(ctx: Context) -> Outcome:
    from ..fault_comparison import (
        fault_comparison,
        plot_fault_comparison,
        plot_saturation_vs_faults,
        saturation_vs_faults,
    )

    specs = QUICK if ctx.quick else FULL  # the reduced flagship keeps the 1,024-node networks
    trials = 2_000 if ctx.quick else 10_000 if ctx.reduced else 20_000
    mc = fault_comparison(specs, "0:0.3:0.05", trials, seed=7)
    sat_rates = (0.0, 0.05, 0.1) if ctx.quick or ctx.reduced else (0.0, 0.02, 0.05, 0.1)
    measure = 300 if ctx.quick or ctx.reduced else 1000
    d = ctx.out / "001-fig8b"
    d.mkdir(parents=True, exist_ok=True)
    # each simulated point kept as it ends (d/points): a resumed study reads them back
    sat = saturation_vs_faults(
        specs,
        sat_rates,
        warmup=measure // 3,
        measure=measure,
        workers=ctx.workers,
        keep=d / "points",
    )
    f1 = plot_fault_comparison(
        mc, d / "success_and_length.png", "link faults: success ratio and path length"
    )
    f2 = plot_saturation_vs_faults(sat, d / "saturation.png")
    ok_bound = bool((sat["accepted"] <= sat["bound"] * 1.02 + 1e-9).all())
    piv = mc.pivot_table(index="rate", columns=["topology", "algorithm"], values="success_ratio")
    at = 0.1 if 0.1 in piv.index else piv.index[len(piv.index) // 2]
    best = piv.loc[at].drop(labels="oracle", level="algorithm", errors="ignore")
    parts = [f"{spec} {alg} {v:.3f}" for (spec, alg), v in best.items()]
    hi = sat[sat.rate == sat.rate.max()]
    deg = [
        f"{r.topology} {r.algorithm} {r.accepted:.3f} (bound {r.bound:.3f})"
        for r in hi.itertuples()
    ]
    finding = (
        f"Success ratio at {at:g} link faults ({trials:,} trials per rate): "
        + ", ".join(parts)
        + f". Saturation throughput at {hi.rate.max():g} faults: "
        + ", ".join(deg)
        + ". Accepted throughput stays at or below the channel-load "
        f"bound of the surviving routes at every point: {ok_bound}."
    )
    return Outcome(
        None if ok_bound else False,
        finding,
        [f1, f2],
        [
            "success ratio and path length against the link fault rate",
            "accepted throughput at saturation (solid) and the channel-load bound of "
            "the surviving routes (dotted) against the link fault rate",
        ],
        {"monte_carlo": mc, "saturation": sat},
    )
