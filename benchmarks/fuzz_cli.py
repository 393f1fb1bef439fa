"""A larger fuzz pass of the command line, each case in its own ``fattree`` process.

Runs the table of ``tests/cli/test_fuzz.py`` plus generated cases (every numeric
option of the commands with values outside its range, NaN, infinities, values beyond
int64/uint64, empty and non-numeric strings; every family with broken specs), each
as a subprocess with a timeout, and prints the counts:

* tried: cases run
* one-line errors: exit 2 with exactly one ``error: ...`` line on stderr
* tracebacks: a Python traceback, an internal error (exit 3) or a crash (signal)
* silent wrong: exit 0 where bad input was given (or not the expected exit code)
* hangs: still running after the timeout

Usage::

    PYTHONPATH=src python benchmarks/fuzz_cli.py [--jobs 2] [--timeout 60] [--only-generated]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the most local workers a command accepts (4 per core; fattree.commands._common)
MAX_WORKERS = max(4, 4 * (os.cpu_count() or 1))

#: (command template with {v}, integer?, low, high, low open?) of numeric options
NUMERIC = [
    ("simulate kant:k=2,n=2 --load 0.1 --buffer {v}", True, 1, 32767, False),
    ("simulate kant:k=2,n=2 --load 0.1 --buffer-level0 {v}", True, 1, 32767, False),
    ("simulate kant:k=2,n=2 --load 0.1 --vcs {v}", True, 1, 64, False),
    ("simulate kant:k=2,n=2 --load 0.1 --packet-flits {v}", True, 1, 4096, False),
    ("simulate kant:k=2,n=2 --load 0.1 --router-delay {v}", True, 0, None, False),
    ("simulate kant:k=2,n=2 --load 0.1 --credit-delay {v}", True, 0, None, False),
    ("simulate kant:k=2,n=2 --load 0.1 -P {v}", True, 1, 10**9, False),
    ("simulate kant:k=2,n=2 --load 0.1 --warmup {v}", True, 0, None, False),
    ("simulate kant:k=2,n=2 --load 0.1 --max-cycles {v}", True, 1, 2147483632, False),
    ("simulate kant:k=2,n=2 --load 0.1 --seed {v}", True, 0, 2**63 - 1, False),
    ("simulate kant:k=2,n=2 --load 0.1 --workers {v}", True, 1, None, False),
    ("simulate kant:k=2,n=2 --load {v}", False, 0, 1, True),
    ("simulate mikant:k=2,n=2 --load 0.1 --fault-rate {v}", False, 0, 1, False),
    (
        "simulate mikant:k=2,n=2 --load 0.1 --fault-rate 0.1 --fault-seed {v}",
        True,
        0,
        2**63 - 1,
        False,
    ),
    ("info mikant:k=3,n=3 --samples {v}", True, 1, None, False),
    ("info mikant:k=3,n=3 --exact-limit {v}", True, 0, None, False),
    ("info mikant:k=3,n=3 --seed {v}", True, 0, 2**63 - 1, False),
    ("info mikant:k=3,n=3 --ilp-time {v}", False, 0, None, True),
    ("routing check kant:k=2,n=2 --seed {v}", True, 0, 2**63 - 1, False),
    ("routing check kant:k=2,n=2 --sample {v}", True, 1, None, False),
    ("routing check kant:k=2,n=2 --max-seconds {v}", False, 0, 86400, True),
    # pattern options: integers beyond 64 bits are one line, not an overflow
    (
        "simulate kant:k=2,n=2 --load 0.1 -t neighbor:offset={v}",
        True,
        -(2**63),
        2**63 - 1,
        False,
    ),
    ("simulate kant:k=2,n=2 --load 0.1 -t randperm:seed={v}", True, -1, 2**63 - 1, False),
    ("routing load kant:k=2,n=2 --seed {v}", True, 0, 2**63 - 1, False),
    ("deadlock kant:k=2,n=2 --vcs {v}", True, 1, 8, False),
    ("faults mikant:k=2,n=2 --rates 0.1 --trials {v}", True, 1, 10**8, False),
    ("faults mikant:k=2,n=2 --rates 0.1 --trials 10 --seed {v}", True, 0, 2**63 - 1, False),
    ("faults mikant:k=2,n=2 --trials 10 --rates {v}", False, 0, 1, False),
    ("design --nodes {v}", True, 2, 10**12, False),
    ("design --nodes 100 --max-radix {v}", True, 1, None, False),
    ("design --nodes 100 --p {v}", True, 1, None, False),
    ("design --nodes 100 --top {v}", True, 0, None, False),
    ("compare mikant:k=3,n=3 --p {v}", True, 1, None, False),
    ("model kncube --nodes {v}", True, 4, 2**40, False),
    ("model kncube --message-length {v}", False, 0, None, True),
    ("model kncube --node-size {v}", False, 0, None, True),
    ("model fattree --nodes {v}", True, 4, 2**40, False),
    ("model fattree --message-length {v}", False, 0, None, True),
    ("model fattree --node-size {v}", False, 0, None, True),
    ("plot rcp -o {tmp}/x.png --n-max {v}", True, 2, 40, False),
    ("plot rcp -o {tmp}/x.png --p {v}", True, 1, None, False),
    ("plot cost-ratios -o {tmp}/x.png --k-max {v}", True, 2, 64, False),
    ("plot path-diversity -o {tmp}/x.png --n {v}", True, 2, 40, False),
    ("plot path-diversity -o {tmp}/x.png --k-max {v}", True, 2, 64, False),
    ("plot kncube-latency -o {tmp}/x.png --nodes {v}", True, 4, 2**40, False),
    ("plot kncube-latency -o {tmp}/x.png --message-length {v}", False, 0, None, True),
    ("plot kncube-latency -o {tmp}/x.png --node-size {v}", False, 0, None, True),
    ("draw kant:k=2,n=2 -o {tmp}/x.svg --max-vertices {v}", True, 1, None, False),
    # issue 13's commands and options, the worker counts and timeouts of the sweeps
    ("design --nodes 4096 --radix {v}", True, 1, 10**6, False),
    ("design --nodes 4096 --levels {v}", True, 1, 63, False),
    ("compare kant:k=4,n=3 --nodes {v}", True, 2, 10**12, False),
    ("results {store} --limit {v}", True, 0, 10**9, False),
    ("sweep {study} -o {tmp}/sw --workers {v}", True, 0, MAX_WORKERS, False),
    (
        "sweep {study} -o {tmp}/sw --scheduler tcp://127.0.0.1:1 --connect-timeout {v}",
        False,
        0,
        None,
        True,
    ),
    ("study equal-cost-quick -o {tmp}/st --workers {v}", True, 0, MAX_WORKERS, False),
    ("reproduce 000-table1 -o {tmp}/rp --workers {v}", True, 0, MAX_WORKERS, False),
    ("simulate kant:k=2,n=2 --loads 0.1:0.2:0.1 --workers {v}", True, 1, MAX_WORKERS, False),
    ("simulate xgft:m=2.2,w=1.2 --load {v}", False, 0, 1, True),
    ("simulate xgft:m=2.2,w=1.2 --load 0.1 --fault-rate {v}", False, 0, 1, False),
    ("faults xgft:m=2.2,w=1.2 --trials 10 --rates {v}", False, 0, 1, False),
    ("faults kant:k=2,n=2 --rates 0.1 --trials {v}", True, 1, 10**8, False),
    ("routing load xgft:m=2.2,w=1.2 --seed {v}", True, 0, 2**63 - 1, False),
    ("deadlock xgft:m=2.2,w=1.2 --vcs {v}", True, 1, 8, False),
]

#: broken XGFT specs (its parameters are dot-separated lists, one entry per level)
XGFT_SPECS = [
    "xgft",
    "xgft:",
    "xgft:m=4.4,w=1.2.2",
    "xgft:m=4.0.4,w=1.2.2",
    "xgft:m=4.4,w=0.2",
    "xgft:m=4.4,w=2.2",
    "xgft:m=nan.4,w=1.2",
    "xgft:m=inf,w=1",
    "xgft:m=-4.4,w=1.2",
    "xgft:m=4.4,w=1.18446744073709551616",
    "xgft:m=4.4,m=4.4,w=1.2",
    "xgft:m=,w=",
    "xgft:m=4..4,w=1.2",
    "xgft:m=4.4,w=1.2,k=3",
    "xgft:m=4 4,w=1 2",
    "xgft:m=" + ".".join(["2"] * 64) + ",w=" + ".".join(["1"] * 64),
]
#: XGFTs the closed forms analyse but that are too large to build or simulate: the
#: commands that accept them (cost prices by the closed forms within the family's ranges)
XGFT_UNBUILDABLE = {
    "xgft:m=" + ".".join(["2"] * 17) + ",w=" + ".".join(["1"] * 17): ("compare",),
    "xgft:m=1024.1024.1024,w=1.1024.1024": ("compare", "cost"),
}

#: malformed price files (TOML bodies), each tried with cost, compare and design
PRICES = [
    '[switch]\nbase = "x"\n',
    "[switch]\nbogus = 3\n",
    "[swtch]\nbase = 3\n",
    "[switch]\nbase = -3\n",
    "[switch]\nbase = nan\n",
    "[switch]\nbase = inf\n",
    "[switch\nbase = 1\n",
    "[switch]\ncatalogue = []\n",
    "[switch]\ncatalogue = [0, -8]\n",
    '[switch]\ncatalogue = [8, "a"]\n',
    "[switch]\ncatalogue = [1e400]\n",
    "[layout]\nnodes_per_rack = 0\n",
    "[layout]\nnodes_per_rack = 2.5\n",
    "[layout]\nnodes_per_rack = true\n",
    "[layout]\nracks_per_row = -1\n",
    "[layout]\nnodes_per_rack = 99999999999999999999\n",
    "switch = 3\n",
    "[power]\ntransceiver = inf\n",
    "[switch]\nbase = 1\nbase = 2\n",
    "[cable]\ncopper = []\n",
    "[transceiver]\nprice = {a = 1}\n",
    "\x00\x01\x02",
]
PRICE_COMMANDS = [
    "cost kant:k=4,n=3 --prices {p}",
    "compare kant:k=4,n=3 --prices {p}",
    "design --nodes 64 --prices {p}",
]

#: broken specs tried on every family with the commands that take a spec
SPEC_VALUES = [
    "{f}",
    "{f}:",
    "{f}:k=0,n=0",
    "{f}:k=nan,n=3",
    "{f}:k=inf,n=3",
    "{f}:k=-1,n=3",
    "{f}:k=18446744073709551616,n=3",
    "{f}:k=2,k=3,n=2",
    "{f}:k=2,n=2,bogus=1",
    "{f}:k=2.5,n=2",
    "{f}:k=,n=",
    "{f}:=,=",
]
SPEC_COMMANDS = ["info {s}", "compare {s}", "simulate {s} --load 0.1", "cost {s}"]

#: files that are not regular files: every input reader and output refuses them at once
#: (a device is never read until memory runs out; nothing is renamed over a device)
SPECIAL_FILES = ["/dev/zero", "/dev/null", "/dev/full"]
INPUT_COMMANDS = [
    "info graph:file={f}",
    "simulate kant:k=2,n=2 -t trace:file={f}",
    "sweep {f} -o {{tmp}}/special",
    "deadlock kant:k=2,n=2 --faults {f}",
    "design --nodes 64 --prices {f}",
]
OUTPUT_COMMANDS = [
    "export kant:k=2,n=2 -o {f}",
    "simulate kant:k=2,n=2 --load 0.1 -P 5 -o {f}",
    "results {{store}} --csv {f}",
    "faults mikant:k=2,n=2 --trials 10 --rates 0.1 --csv {f}",
]


def bad_values(integer: bool, lo, hi, lo_open: bool) -> list[str]:
    vals = ["nan", "inf", "-inf", "", "abc", "1e400"]
    if integer:
        vals += [str(lo - 1), "-1", str(2**63), str(2**64), str(10**30), "1.5"]
        if hi is not None:
            vals.append(str(hi + 1))
    else:
        vals += ["-1", "-1e-300"]
        if lo_open:
            vals.append(str(lo))
        if hi is not None:
            vals += [str(hi + 0.5), "1e300"]
    out = []
    for v in dict.fromkeys(vals):
        try:  # keep only values that really are outside the range
            x = float(v)
        except ValueError:
            out.append(v)
            continue
        if x != x or abs(x) == float("inf") or (integer and not x.is_integer()):
            out.append(v)
        elif x < lo or (lo_open and x == lo) or (hi is not None and x > hi):
            out.append(v)
    return out


def generated(families) -> list[tuple[str, int, str]]:
    cases = []
    for spec in XGFT_SPECS:
        for c in SPEC_COMMANDS:
            cases.append((c.format(s=shlex.quote(spec)), 2, ""))
    for spec, accept in XGFT_UNBUILDABLE.items():
        for c in SPEC_COMMANDS:
            ok = c.split()[0] in accept
            cases.append((c.format(s=shlex.quote(spec)), 0 if ok else 2, ""))
    for i in range(len(PRICES)):
        for c in PRICE_COMMANDS:
            cases.append((c.replace("{p}", f"{{tmp}}/price{i}.toml"), 2, r"price|line|TOML"))
    for template, integer, lo, hi, lo_open in NUMERIC:
        for v in bad_values(integer, lo, hi, lo_open):
            cases.append((template.replace("{v}", shlex.quote(v)), 2, ""))
    for f in SPECIAL_FILES:
        for c in INPUT_COMMANDS:
            cases.append((c.format(f=f), 2, r"not a regular file|character device"))
        for c in OUTPUT_COMMANDS:
            cases.append((c.format(f=f), 2, r"not a regular file"))
    for f in families:
        for s in SPEC_VALUES:
            spec = s.format(f=f)
            for c in SPEC_COMMANDS:
                cases.append((c.format(s=shlex.quote(spec)), 2, ""))
    return cases


def load_table():
    spec = importlib.util.spec_from_file_location("fuzz_table", ROOT / "tests/cli/test_fuzz.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_case(case, files, timeout: float):
    command, expected, pattern = case
    argv = [
        a.replace("{tmp}", files["tmp"]).format(**files) if "{" in a else a
        for a in shlex.split(command)
    ]
    env = dict(os.environ, COLUMNS="")
    env.pop("COLUMNS")
    t0 = time.perf_counter()
    try:
        r = subprocess.run(
            [sys.executable, "-m", "fattree", *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return command, "hang", timeout, ""
    sec = time.perf_counter() - t0
    out, err, rc = r.stdout, r.stderr, r.returncode
    if "Traceback" in out or "Traceback" in err or rc == 3 or rc < 0:
        return command, "traceback", sec, err[-300:]
    if rc != expected:
        return command, "silent" if rc == 0 else f"exit {rc}", sec, err[-300:]
    if expected == 2:
        lines = [x for x in err.splitlines() if x.strip() and not x.startswith("warning: ")]
        if len(lines) != 1 or not lines[0].startswith("error: "):
            return command, "not one line", sec, err[-300:]
        if pattern and not re.search(pattern, lines[0]):
            return command, "message", sec, lines[0]
        return command, "one-line error", sec, lines[0]
    return command, "ok", sec, ""


def run_in_process(case, files, table, timeout: float):
    command, expected, pattern = case
    argv = [a.format(**files) if "{" in a else a for a in shlex.split(command)]
    rc, out, err, sec = table.run_cli(argv)
    why = table.judge(rc, out, err, sec, expected, pattern, bound=timeout)
    if why is None:
        lines = [x for x in err.splitlines() if x.startswith("error: ")]
        return command, "one-line error" if expected == 2 else "ok", sec, (lines or [""])[0]
    return command, why, sec, err[-300:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--only-generated", action="store_true")
    ap.add_argument(
        "--every",
        type=int,
        default=1,
        help="run every Nth case only (a deterministic subset, for slow machines)",
    )
    ap.add_argument(
        "--in-process",
        action="store_true",
        help="run the cases in this process (fast; a hang is then a case slower "
        "than --timeout, not killed)",
    )
    args = ap.parse_args()
    table = load_table()
    from fattree.topology import FAMILIES

    fams = [f for f in FAMILIES if f not in ("graph", "xgft")]  # xgft: XGFT_SPECS
    cases = ([] if args.only_generated else list(table.CASES)) + generated(fams)
    n_table = 0 if args.only_generated else len(table.CASES)
    if args.every > 1:
        n_table = len(range(0, n_table, args.every))
        cases = cases[:: args.every]
    with tempfile.TemporaryDirectory() as d:
        files = table.make_files(Path(d))
        for i, text in enumerate(PRICES):
            (Path(d) / f"price{i}.toml").write_text(text)
        t0 = time.perf_counter()
        if args.in_process:
            results = [run_in_process(c, files, table, args.timeout) for c in cases]
        else:
            with ThreadPoolExecutor(args.jobs) as pool:
                results = list(pool.map(lambda c: run_case(c, files, args.timeout), cases))
        wall = time.perf_counter() - t0
    counts: dict[str, int] = {}
    for _, verdict, _, _ in results:
        counts[verdict] = counts.get(verdict, 0) + 1
    bad = [r for r in results if r[1] not in ("ok", "one-line error")]
    for command, verdict, sec, detail in bad:
        print(f"{verdict:14s} {sec:6.1f} s  fattree {command}\n{'':23s}{detail.strip()[:300]}")
    slowest = max(results, key=lambda r: r[2])
    mode = "in this process" if args.in_process else f"as subprocesses, {args.jobs} jobs"
    print(
        f"tried {len(results)} ({n_table} from the test table, {len(results) - n_table} "
        f"generated{f', every {args.every}th case' if args.every > 1 else ''}) in {wall:.0f} s "
        f"{mode}"
    )
    print(
        f"one-line errors {counts.get('one-line error', 0)}, successes as expected "
        f"{counts.get('ok', 0)}, tracebacks {counts.get('traceback', 0)}, silent wrong "
        f"{counts.get('silent', 0)}, hangs {counts.get('hang', 0)}, other "
        f"{len(bad) - counts.get('traceback', 0) - counts.get('silent', 0) - counts.get('hang', 0)}"
    )
    print(f"slowest case {slowest[2]:.1f} s: fattree {slowest[0]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
