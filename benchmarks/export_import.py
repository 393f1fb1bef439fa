"""Export every format and re-import edge list / GraphML at the papers' largest size.

MiKANT(8,6) (000 §V: 524,288 nodes, 327,680 switches, 2,883,584 links). Prints wall
time, file size and peak memory of each step. Run:
    .venv/bin/python benchmarks/export_import.py [spec] [--no-graphml-import]
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

import fattree
from fattree.topology.export import EXPORTERS, export


def peak_mib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    spec = args[0] if args else "mikant:k=8,n=6"
    t0 = time.perf_counter()
    topo = fattree.build(spec)
    topo.links, topo.link_ports  # noqa: B018  (derived tables, shared by every format)
    print(
        f"{spec}: {topo.n_nodes:,} nodes, {topo.n_switches:,} switches, {topo.n_links:,} links; "
        f"build + links {time.perf_counter() - t0:.2f} s"
    )
    export(
        fattree.build("kant:k=2,n=2"), "edgelist", Path(tempfile.gettempdir()) / "warm.txt"
    )  # numba cache
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for fmt in EXPORTERS:
            t0 = time.perf_counter()
            paths = export(topo, fmt, Path(tmp) / f"net.{fmt}")
            dt = time.perf_counter() - t0
            size = sum(p.stat().st_size for p in paths)
            files[fmt] = paths[0]
            print(
                f"  export {fmt:9s} {dt:6.2f} s  {size / 2**20:7.1f} MiB  peak RSS {peak_mib():,} MiB"
            )
        for fmt in ("edgelist", "graphml"):
            if fmt == "graphml" and "--no-graphml-import" in sys.argv:
                continue
            t0 = time.perf_counter()
            back = fattree.build(f"graph:file={files[fmt]}")
            dt = time.perf_counter() - t0
            same = (back.n_nodes, back.n_switches, back.n_links) == (
                topo.n_nodes,
                topo.n_switches,
                topo.n_links,
            )
            print(
                f"  import {fmt:9s} {dt:6.2f} s  counts equal: {same}  peak RSS {peak_mib():,} MiB"
            )


if __name__ == "__main__":
    main()
