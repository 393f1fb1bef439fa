"""CLI command modules, one per concern; each defines ``register(app)``.

:data:`COMMANDS` names every top-level command, the modules that register it and the first
paragraph of its help, so that ``fattree --help`` (and a shell's TAB) lists the commands
without importing them: a command's module, and with it numpy, numba, pandas or scipy, is
imported only when that command runs or its own ``--help`` is asked.
``tests/cli/test_startup.py`` checks this table against the commands the modules register.
"""

#: command -> (the modules of ``fattree.commands`` that register it, its summary)
COMMANDS: dict[str, tuple[tuple[str, ...], str]] = {
    "families": (
        ("topology",),
        "List every family, its parameters and the paper it comes from.",
    ),
    "info": (("topology",), "Properties computed from the graph, beside the papers' closed forms."),
    "export": (
        ("export",),
        "Write the topology with its labels and ports in a format other tools read.",
    ),
    "draw": (
        ("export",),
        "Layered drawing like the papers' figures (switch rows by stage, nodes as circles).",
    ),
    "route": (
        ("routing",),
        "Route one packet: switches, output ports and hops (as 000 Table II). With --faults "
        "(or --explain, or a fault-tolerant --algorithm such as gns), explain every detour.",
    ),
    "deadlock": (
        ("routing",),
        "Channel dependency graph (Dally & Seitz): acyclic, or one cycle and its routes (exit "
        "code 1 when cyclic). With --faults (or --algorithm all / a fault-tolerant name): the "
        "delivered routes of fault-tolerant routing under those faults.",
    ),
    "simulate": (
        ("sim",),
        "Cycle-accurate wormhole simulation: latency, throughput, conflicts versus load.",
    ),
    "flow": (
        ("workload",),
        "Completion time of a workload at flow level (max-min fair flows over the routes).",
    ),
    "faults": (
        ("faults",),
        "Success ratio and path length of fault-tolerant routing against the link fault rate.",
    ),
    "design": (
        ("analytics",),
        "Every feasible (family, k, n) reaching --nodes, ranked by an objective: by default "
        "what one unit of uniform throughput costs ($/node over the throughput bound), or "
        "cost, latency, throughput, RCP (closed forms and the price model; graphs are built "
        "only to cut the bisection of families without a closed form).",
    ),
    "compare": (
        ("analytics",),
        "Side-by-side closed-form properties and the price model (a graph is built only to cut "
        "the bisection of a family without a closed form, up to 50,000 nodes; beyond, N/2 "
        "bounds it).",
    ),
    "cost": (
        ("analytics",),
        "Price a design: switches, cables (in-rack copper, optical), transceivers, watts; per "
        "node, per bisection link and per unit of the routing's throughput bound (every price "
        "is an assumption).",
    ),
    "sweep": (
        ("sweep",),
        "Run every point of a study not yet stored in OUT (resumable; one row per point).",
    ),
    "results": (("sweep",), "Query the points stored in a results folder."),
    "report": (
        ("sweep",),
        "Write one self-contained HTML report (configurations, tables, figures).",
    ),
    "reproduce": (
        ("sweep",),
        "Regenerate tables and figures of the papers, with the paper's claim and our verdict.",
    ),
    "study": (
        ("sweep",),
        "Run a shipped study and write OUT/report.html (make run: the flagship).",
    ),
    "routing": (("routing",), "Routing algorithms: list, verify on every pair, channel load."),
    "workload": (
        ("workload",),
        "Workloads: collectives (MPI and NCCL algorithms) and LogGOPSim GOAL schedules.",
    ),
    "warmup": (
        ("warmup",),
        "Compile every numba kernel ahead of time (once per machine and version of the "
        "sources; `make install`, `make run` and `make test` run it).",
    ),
    "model": (("analytics",), "002's models: k-ary n-cubes versus fat trees."),
    "plot": (
        ("analytics", "sweep"),
        "Figures: analytic models (cost ratios, RCP, path diversity, 002 latency) and results.",
    ),
}

#: every command module, in the order ``fattree --help`` lists their commands
MODULES: tuple[str, ...] = tuple(dict.fromkeys(m for mods, _ in COMMANDS.values() for m in mods))
