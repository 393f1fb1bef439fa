"""Time the design advisor on 1,000 node counts between 8 and 10^7 (target: < 2 s total).

Run: .venv/bin/python benchmarks/design_speed.py
"""

from __future__ import annotations

import time

import numpy as np

from fattree.analysis.advisor import SHAPES, design


def main() -> None:
    counts = [int(x) for x in np.geomspace(8, 10**7, 1000)]
    design(1000)  # warm the imports
    for label, families in (("default families", None), ("all families", SHAPES.names())):
        start = time.perf_counter()
        rows = 0
        for n in counts:
            rows += len(design(n, families=families).rows)
        wall = time.perf_counter() - start
        print(
            f"design, {label}: {len(counts)} node counts in {wall:.3f} s "
            f"({1e3 * wall / len(counts):.2f} ms each, {rows / len(counts):.0f} designs each)"
            f" -> {'OK' if wall < 2.0 else 'SLOWER THAN'} 2 s target"
        )
    start = time.perf_counter()
    for n in counts:
        design(n, max_radix=16)
    print(f"design --max-radix 16: {time.perf_counter() - start:.3f} s")
    best = design(524288, families="mikant", exact=True, max_n=8).best
    print(f"524,288 nodes (000 Fig. 7 range): {best.spec}, RCP {best.rcp:.6f}")
    best = design(5412096, families="kantc,mikantc", max_n=7).best
    print(f"5,412,096 nodes (004 Fig. 8 range): {best.spec}, RCP {best.rcp:.5f}")


if __name__ == "__main__":
    main()
