"""Build time and peak memory of large topologies, and `fattree info` time (issue 2 targets).

Each measurement runs in a fresh subprocess so peak RSS (``resource.getrusage``) belongs
to that measurement alone. Targets: build MiKANT(8,6) < 5 s and < 1 GB; MiKANT(16,5)
< 30 s; ``info`` on MiKANT(8,6) < 30 s with every property exact except bisection.

Usage: ``python benchmarks/topology_build.py [--quick]`` (``--quick``: MiKANT(8,6) only).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import fattree
from fattree.analysis.properties import properties
t_import = time.perf_counter() - t0
rss_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
spec, what = sys.argv[1], sys.argv[2]
out = {"spec": spec, "import_s": t_import, "rss_after_import_mb": rss_import / 1024}
t0 = time.perf_counter()
topo = fattree.build(spec)
out["build_s"] = time.perf_counter() - t0
out["rss_after_build_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
topo.links, topo.csr
out["links_csr_s"] = time.perf_counter() - t0
out["rss_after_links_csr_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out.update(nodes=topo.n_nodes, switches=topo.n_switches, links=topo.n_links)
if what == "info":
    t0 = time.perf_counter()
    p = properties(topo)
    out["properties_s"] = time.perf_counter() - t0
    out["exact"] = {"distances": p["distances_exact"], "path_counts": p["path_counts_exact"],
                    "bisection": p["bisection_exact"]}
    out["diameter"], out["bisection_width"] = p["diameter"], p["bisection_width"]
    out["avg_distance"] = str(p["avg_distance"])
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def measure(spec: str, what: str = "build") -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, spec, what], capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cli_info(spec: str) -> tuple[float, dict]:
    script = Path(sys.executable).with_name("fattree")
    exe = [str(script)] if script.exists() else [sys.executable, "-m", "fattree.cli"]
    t0 = time.perf_counter()
    proc = subprocess.run(
        exe + ["info", spec, "--json"], capture_output=True, text=True, check=True
    )
    return time.perf_counter() - t0, json.loads(proc.stdout)


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    measure("kant:k=2,n=2", "info")  # warm numba's on-disk cache outside the timings
    specs = ["mikant:k=8,n=6"] + ([] if quick else ["mikant:k=16,n=5"])
    print("build (fresh process each; peak RSS from getrusage)")
    for spec in specs:
        r = measure(spec)
        print(
            f"  {spec:18s} {r['nodes']:>9,} nodes {r['switches']:>9,} switches "
            f"{r['links']:>10,} links | build {r['build_s']:6.2f} s, peak RSS "
            f"{r['rss_after_build_mb']:7.0f} MB | + links/CSR {r['links_csr_s']:5.2f} s, "
            f"peak {r['peak_rss_mb']:7.0f} MB (interpreter+imports {r['rss_after_import_mb']:.0f} MB)"
        )
    r = measure("mikant:k=8,n=6", "info")
    print(
        f"properties mikant:k=8,n=6: build {r['build_s']:.2f} s + tables {r['links_csr_s']:.2f} s + "
        f"properties {r['properties_s']:.2f} s, peak RSS {r['peak_rss_mb']:.0f} MB, exact {r['exact']}, "
        f"diameter {r['diameter']}, avg distance {r['avg_distance']}, bisection <= {r['bisection_width']}"
    )
    wall, d = cli_info("mikant:k=8,n=6")
    print(
        f"`fattree info mikant:k=8,n=6 --json`: {wall:.2f} s wall for the whole command "
        f"(reported wall_seconds {d['wall_seconds']:.2f} s), disagreements {d['disagreements']}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
