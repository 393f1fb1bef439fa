"""Table-driven fuzz of the command line: bad and edge inputs to every command.

Each case is (command line, expected exit code, pattern). A case passes when the
exit code is the expected one, nothing prints a traceback, an error (exit 2) is one
line ``error: ...`` on stderr matching the pattern (which names the parameter or
the value), a success (exit 0) prints something matching it, and the command ends
within its time bound. The commands run in-process through ``fattree.cli.main``
(as the ``fattree`` script does) so the suite stays fast.

``benchmarks/fuzz_cli.py`` runs this table and a larger generated one in
subprocesses with a timeout, and prints the counts.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import time
from pathlib import Path

import pytest

from fattree.cli import main

#: seconds a case may take: a case that runs longer is a hang; the bound leaves room for
# numba's first compile of a kernel on a fresh clone with a loaded 2-core machine (25 s seen in CI), while the hangs
# this suite found ran for minutes
TIME_BOUND = 120.0

STUDY = """\
[study]
name = "fuzz"
kind = "topology"
[parameters]
topology = ["kant:k=2,n=2", "kant:k=2,n=3"]
distances = "none"
"""

#: malformed price files (issue 13: the error names the key and its line)
PRICE_FILES = {
    "price_str": '[switch]\nbase = "x"\n',
    "price_key": "[switch]\nbogus = 3\n",
    "price_neg": "[switch]\nbase = -3\n",
    "price_nan": "[power]\ntransceiver = nan\n",
    "price_toml": "[switch\nbase = 1\n",
    "price_cat": "[switch]\ncatalogue = []\n",
    "price_table": "switch = 3\n",
    "price_rack": "[layout]\nnodes_per_rack = 0\n",
    "price_dup": "[switch]\nbase = 1\nbase = 2\n",
}

#: (command, expected exit code, pattern); {name} are files made by ``files``
CASES: list[tuple[str, int, str]] = [
    # ---------------------------------------------------------------- conventions
    ("--version", 0, r"^fattree \S+"),
    ("--bogus", 2, r"No such option: --bogus"),
    ("bogus-command", 2, r"No such command 'bogus-command'"),
    ("families --bogus", 2, r"No such option"),
    ("info", 2, r"Missing argument 'SPEC'|Missing argument 'spec'"),
    ("info mikant:k=2,n=2 extra", 2, r"unexpected extra argument"),
    ("route kant:k=2,n=2", 2, r"Missing argument"),
    ("simulate kant:k=2,n=2 --load", 2, r"requires an argument"),
    ("simulate kant:k=2,n=2 --load abc", 2, r"--load"),
    ("simulate kant:k=2,n=2 --seed 1.5 --load 0.1", 2, r"--seed"),
    ("design --nodes ten", 2, r"--nodes"),
    ("faults mikant:k=2,n=2 --trials x", 2, r"--trials"),
    ("reproduce --list", 0, r"000-table1"),
    ("reproduce", 2, r"name=None is invalid.*--list"),
    ("study --list", 0, r"flagship"),
    ("routing list --json", 0, r'"algorithm"'),
    ("families", 0, r"mikant"),
    # ---------------------------------------------------------------- topology specs
    ("info ''", 2, r"topology='' is invalid"),
    ("info '   '", 2, r"topology=' *' is invalid"),
    ("info mikant:k=3,k=4,n=3", 2, r"'k' is given twice"),
    ("info kant:k=2,n=2,n=2", 2, r"'n' is given twice"),
    ("compare mikant:k=3,k=4,n=3", 2, r"'k' is given twice"),
    ("info mikant:k=nan,n=3", 2, r"k='nan' is not an integer"),
    ("info mikant:k=inf,n=3", 2, r"k='inf' is not an integer"),
    ("info mikant:k=-inf,n=3", 2, r"k='-inf'"),
    ("info mikant:k=1e3,n=3", 2, r"k='1e3'"),
    ("info mikant:k=99999999999999999999999,n=3", 2, r"too large"),
    ("info mikant:k=18446744073709551616,n=3", 2, r"too large"),
    ("info mikant:k=-3,n=3", 2, r"k=-3|too small"),
    ("info mikant:k=0,n=3", 2, r"too small"),
    ("info mikant:k=3", 2, r"missing parameter 'n'"),
    ("info mikant:", 2, r"missing parameter"),
    ("info :k=3", 2, r"unknown family ''"),
    ("info mikan:k=3,n=3", 2, r"did you mean 'mikant'"),
    ("info mikant:k=,n=3", 2, r"k=''"),
    ("info mikant:k=3,n=3,x=1", 2, r"'x'|x="),
    ("info mikant:k3,n=3", 2, r"not key=value"),
    ("info mikant:k=3;n=3", 2, r"k='3;n=3'|not key=value|n="),
    ("info graph:file={dir}", 2, r"is a directory"),
    ("info graph:file={bin}", 2, r"not UTF-8|cannot be read|GraphML"),
    ("info graph:file={missing}", 2, r"does not exist"),
    ("info graph:file={empty}", 2, r"empty|no edges|no nodes|line|GraphML"),
    ("info graph:file={junk}", 2, r"line 1|GraphML|edge"),
    ("info mikant:k=8,n=40", 2, r"too large|GiB|n=40"),
    # ---------------------------------------------------------------- info options
    ("info mikant:k=3,n=3 --seed -1", 2, r"seed=-1 is invalid"),
    ("info mikant:k=3,n=3 --seed 99999999999999999999999", 2, r"seed=.* is invalid"),
    ("info mikant:k=3,n=3 --samples -5", 2, r"samples=-5"),
    ("info mikant:k=3,n=3 --samples 0", 2, r"samples=0"),
    ("info mikant:k=3,n=3 --exact-limit -1", 2, r"exact_limit=-1"),
    ("info mikant:k=3,n=3 --ilp-time nan", 2, r"ilp_time=nan"),
    ("info mikant:k=3,n=3 --ilp-time inf", 2, r"ilp_time=inf"),
    ("info mikant:k=3,n=3 --ilp-time -1", 2, r"ilp_time=-1"),
    ("info kant:k=2,n=2 --json", 0, r'"nodes": 4'),
    # ---------------------------------------------------------------- export, draw
    ("export kant:k=2,n=2 -f bogus", 2, r"unknown export format 'bogus'"),
    ("export kant:k=2,n=2 -f ''", 2, r"format='' is invalid: an empty value"),
    ("export kant:k=2,n=2 -o {dir}", 2, r"is a (directory|folder)"),
    ("export kant:k=2,n=2 -o {nodir}/x.txt", 2, r"does not exist"),
    ("draw kant:k=2,n=2 -o {tmp}/x.txt", 2, r"unknown suffix"),
    ("draw kant:k=2,n=2 -o {nodir}/x.svg", 2, r"does not exist"),
    ("draw kant:k=2,n=2 -o {tmp}/x.svg --max-vertices 0", 2, r"max_vertices=0"),
    ("draw mikant:k=8,n=6 -o {tmp}/x.svg", 2, r"max.vertices|too large|vertices"),
    # ---------------------------------------------------------------- routing
    ("routing list --family bogus", 2, r"unknown family 'bogus'"),
    ("routing list --family ''", 2, r"family=''"),
    ("routing list --family MIKANT", 0, r"alg1"),
    ("routing check kant:k=2,n=2 -a bogus", 2, r"unknown routing algorithm 'bogus'"),
    ("routing check kant:k=2,n=2 -a ''", 2, r"algorithm|''"),
    ("routing check kant:k=2,n=2 --seed -3", 2, r"seed=-3"),
    ("routing check kant:k=2,n=2 --seed 9223372036854775808", 2, r"seed="),
    ("routing check kant:k=2,n=2 --sample 0", 2, r"sample=0"),
    ("routing check kant:k=2,n=2 --sample -5", 2, r"sample=-5"),
    ("routing check kant:k=2,n=2 --max-seconds 0", 2, r"max_seconds=0"),
    ("routing check kant:k=2,n=2 --max-seconds nan", 2, r"max_seconds=nan"),
    ("routing check mikant:k=8,n=7", 2, r"routing check over .* would take about .*--sample"),
    ("routing check mikant:k=16,n=5", 2, r"would take about"),
    ("routing load mikant:k=8,n=7", 2, r"channel load over .* would take"),
    ("deadlock mikant:k=8,n=7", 2, r"channel dependency graph over .* would take"),
    ("routing check kant:k=2,n=2", 0, r"OK"),
    ("routing check kant:k=2,n=3 --sample 9 --json", 0, r'"sample": 9'),
    ("routing load kant:k=2,n=2 -t bogus", 2, r"unknown traffic pattern 'bogus'"),
    ("routing load kant:k=2,n=2 -t ''", 2, r"traffic=''"),
    ("routing load kant:k=2,n=2 -t trace:file={dir}", 2, r"Is a directory|directory"),
    ("routing load kant:k=2,n=2 -t trace:file={bin}", 2, r"cannot be read|UTF-8|decode"),
    ("routing load kant:k=2,n=2 -t hotspot:node=99,fraction=0.2", 2, r"node=99|node"),
    ("routing load kant:k=2,n=2 -t hotspot:node=0,fraction=nan", 2, r"fraction"),
    ("routing load kant:k=2,n=2 -t hotspot:node=0,fraction=2", 2, r"fraction"),
    ("routing load kant:k=2,n=2 -t uniform:x=1", 2, r"'x'|x="),
    ("route kant:k=2,n=2 n0 n1", 2, r"node label 'n0' does not exist"),
    ("route kant:k=2,n=2 '' n1.1", 2, r"''|label"),
    ("route kant:k=2,n=2 n0.0 n1.1 -a bogus", 2, r"bogus"),
    ("route mikant:k=2,n=2 n0.0.0 n1.1.1 --faults {missing}", 2, r"does not exist"),
    ("route mikant:k=2,n=2 n0.0.0 n1.1.1 --faults {dir}", 2, r"is a directory"),
    ("route mikant:k=2,n=2 n0.0.0 n1.1.1 --faults {bin}", 2, r"not UTF-8 text"),
    ("route kant:k=2,n=2 n0.0 n1.1 --model lookahead", 2, r"model='lookahead'"),
    ("deadlock kant:k=2,n=2 --vcs 0", 2, r"vcs=0"),
    ("deadlock kant:k=2,n=2 --vcs -1", 2, r"vcs=-1"),
    ("deadlock kant:k=2,n=2 --vcs 99999999999999999999", 2, r"vcs=99999999999999999999"),
    ("deadlock kant:k=2,n=2 -a bogus", 2, r"bogus"),
    ("deadlock kant:k=2,n=2 --vc-rule bogus", 2, r"vc_rule|bogus|model"),
    # ---------------------------------------------------------------- simulate
    ("simulate kant:k=2,n=2", 2, r"--load"),
    ("simulate kant:k=2,n=2 --load nan", 2, r"load=nan"),
    ("simulate kant:k=2,n=2 --load inf", 2, r"load=inf"),
    ("simulate kant:k=2,n=2 --load -inf", 2, r"load=-inf"),
    ("simulate kant:k=2,n=2 --load -0.1", 2, r"load=-0.1"),
    ("simulate kant:k=2,n=2 --load 0", 2, r"load=0"),
    ("simulate kant:k=2,n=2 --load 1.5", 2, r"load=1.5"),
    ("simulate kant:k=2,n=2 --load 1e308", 2, r"load="),
    ("simulate kant:k=2,n=2 --load 0.1 --loads 0.1:0.2:0.1", 2, r"either --load or --loads"),
    ("simulate kant:k=2,n=2 --loads 0.1:nan:0.1", 2, r"loads='0.1:nan:0.1'"),
    ("simulate kant:k=2,n=2 --loads 0.1:1:0", 2, r"loads='0.1:1:0'"),
    ("simulate kant:k=2,n=2 --loads 0.1:1:-0.1", 2, r"loads="),
    ("simulate kant:k=2,n=2 --loads 0.5:0.1:0.1", 2, r"loads="),
    ("simulate kant:k=2,n=2 --loads 0.1:inf:0.1", 2, r"loads="),
    ("simulate kant:k=2,n=2 --loads 1e-12:1:1e-12", 2, r"at most 10000"),
    ("simulate kant:k=2,n=2 --loads ''", 2, r"loads=''"),
    ("simulate kant:k=2,n=2 --loads 0.1,0.2", 2, r"loads="),
    ("simulate kant:k=2,n=2 --load 0.1 --seed -1", 2, r"seed=-1"),
    ("simulate kant:k=2,n=2 --load 0.1 --seed 18446744073709551616", 2, r"seed="),
    ("simulate kant:k=2,n=2 --load 0.1 --buffer 0", 2, r"buffer=0"),
    ("simulate kant:k=2,n=2 --load 0.1 --buffer -1", 2, r"buffer=-1"),
    ("simulate kant:k=2,n=2 --load 0.1 --buffer 99999999999", 2, r"buffer="),
    ("simulate kant:k=2,n=2 --load 0.1 --buffer-level0 0", 2, r"buffer_level0=0"),
    ("simulate kant:k=2,n=2 --load 0.1 --vcs 0", 2, r"vcs=0"),
    ("simulate kant:k=2,n=2 --load 0.1 --vcs 1000", 2, r"vcs=1000"),
    ("simulate kant:k=2,n=2 --load 0.1 --packet-flits 0", 2, r"packet_flits=0"),
    ("simulate kant:k=2,n=2 --load 0.1 --router-delay -1", 2, r"router_delay=-1"),
    ("simulate kant:k=2,n=2 --load 0.1 --credit-delay -1", 2, r"credit_delay=-1"),
    ("simulate kant:k=2,n=2 --load 0.1 -P 0", 2, r"packets_per_source=0"),
    ("simulate kant:k=2,n=2 --load 0.1 --max-cycles -5", 2, r"max_cycles=-5"),
    ("simulate kant:k=2,n=2 --load 0.1 --warmup -1", 2, r"warmup=-1"),
    ("simulate kant:k=2,n=2 --load 0.1 --measure 0 --termination window", 2, r"measure=0"),
    ("simulate kant:k=2,n=2 --load 0.1 --termination bogus", 2, r"termination|bogus"),
    ("simulate kant:k=2,n=2 --load 0.1 --arbitration x", 2, r"unknown arbitration 'x'"),
    ("simulate kant:k=2,n=2 --load 0.1 --injection bogus", 2, r"bogus"),
    ("simulate kant:k=2,n=2 --load 0.1 --injection bursty:burst=0", 2, r"burst=0"),
    ("simulate kant:k=2,n=2 --load 0.1 --injection bursty:burst=nan", 2, r"burst"),
    ("simulate kant:k=2,n=2 --load 0.1 -a bogus", 2, r"unknown routing algorithm 'bogus'"),
    ("simulate kant:k=2,n=2 --load 0.1 -t bogus", 2, r"unknown traffic pattern 'bogus'"),
    ("simulate kant:k=2,n=2 --load 0.1 -t ''", 2, r"traffic=''"),
    ("simulate kant:k=2,n=2 -t trace:file={dir}", 2, r"directory"),
    ("simulate kant:k=2,n=2 -t trace:file={bin}", 2, r"cannot be read|UTF-8"),
    ("simulate kant:k=2,n=2 -t trace:file={missing}", 2, r"not exist|No such|cannot"),
    ("simulate kant:k=2,n=2 -t trace:file={junk}", 2, r"line 1|expected"),
    (
        "simulate kant:k=2,n=2 --load 0.1 -t trace:file={trace}",
        2,
        r"does not apply to traffic 'trace.*drop --load",
    ),
    ("simulate kant:k=2,n=2 --loads 0.1:0.2:0.1 -t trace:file={trace}", 2, r"does not apply"),
    ("simulate kant:k=2,n=2 --load 0.1 --fault-rate 0.1", 0, r"detour"),  # every family (issue 11)
    ("simulate mikant:k=2,n=2 --load 0.1 --fault-rate nan", 2, r"fault_rate=nan"),
    ("simulate mikant:k=2,n=2 --load 0.1 --fault-rate 2", 2, r"fault_rate=2"),
    ("simulate mikant:k=2,n=2 --load 0.1 --fault-rate -0.5", 2, r"fault_rate=-0.5"),
    ("simulate mikant:k=2,n=2 --load 0.1 --fault-seed -1", 2, r"fault_seed=-1"),
    ("simulate mikant:k=2,n=2 --load 0.1 --fault-model bogus", 2, r"fault_model 'bogus'"),
    ("simulate mikant:k=2,n=2 --load 0.1 --faults {dir}", 2, r"directory|folder"),
    ("simulate mikant:k=2,n=2 --load 0.1 --faults {bin}", 2, r"UTF-8|cannot be read|line"),
    ("simulate mikant:k=2,n=2 --load 0.1 --faults {missing}", 2, r"not exist|No such"),
    ("simulate kant:k=2,n=2 --load 0.1 --workers 0", 2, r"workers=0"),
    ("simulate kant:k=2,n=2 --load 0.1 -o {dir}", 2, r"is a folder"),
    ("simulate kant:k=2,n=2 --load 0.1 -o {nodir}/x.csv", 2, r"folder '.*' does not exist"),
    ("simulate kant:k=2,n=2 --loads 0.1:0.9:0.1 -o {nodir}/x.csv", 2, r"does not exist"),
    ("simulate kant:k=2,n=2 --load 0.1 -o {bin}/x.csv", 2, r"is a file"),
    ("simulate kant:k=2,n=2 --load 0.1 -o ''", 2, r"output='' is invalid"),
    ("simulate mikant:k=8,n=7 --load 0.1", 2, r"simulating mikant:k=8,n=7 needs about .* GiB"),
    ("simulate mikant:k=64,n=5 --load 0.1", 2, r"GiB"),
    # ---------------------------------------------------------------- faults
    ("faults mikant:k=2,n=2 --trials 0", 2, r"trials=0"),
    ("faults mikant:k=2,n=2 --trials -1", 2, r"trials=-1"),
    ("faults mikant:k=2,n=2 --trials 10 --rates nan", 2, r"rates='nan'"),
    ("faults mikant:k=2,n=2 --trials 10 --rates inf", 2, r"rates='inf'"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0:1:0", 2, r"rates='0:1:0'"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0:1:1e-9", 2, r"at most 10,000"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0:inf:0.1", 2, r"rates='0:inf:0.1'"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0:nan:0.1", 2, r"rates='0:nan:0.1'"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 2", 2, r"outside \[0, 1\]"),
    ("faults mikant:k=2,n=2 --trials 10 --rates -0.1", 2, r"outside \[0, 1\]"),
    ("faults mikant:k=2,n=2 --trials 10 --rates ''", 2, r"rates=''"),
    ("faults mikant:k=2,n=2 --trials 10 --rates a,b", 2, r"rates='a,b'"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 --models bogus", 2, r"bogus"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 -a bogus", 2, r"bogus"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 --links bogus", 2, r"links='bogus'"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 --tie-break x", 2, r"tie_break='x'"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 --seed -1", 2, r"seed=-1"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 -o {tmp}/x.txt", 2, r"\.png"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 -o {nodir}/x.png", 2, r"does not exist"),
    (
        "faults mikant:k=2,n=2 --trials 10 --rates 0.1 --csv {nodir}/x.csv",
        2,
        r"csv=.*does not exist",
    ),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 --csv {dir}", 2, r"csv=.*is a folder"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 --json", 0, r'"success_ratio"'),
    # ---------------------------------------------------------------- analytics
    ("model kncube --nodes 0", 2, r"nodes=0"),
    ("model kncube --nodes -5", 2, r"nodes=-5"),
    ("model kncube --nodes 99999999999999999999", 2, r"nodes="),
    ("model kncube --message-length -1", 2, r"message_length=-1"),
    ("model kncube --message-length 0", 2, r"message_length=0"),
    ("model kncube --message-length nan", 2, r"message_length=nan"),
    ("model kncube --message-length inf", 2, r"message_length=inf"),
    ("model kncube --node-size 0", 2, r"node_size=0"),
    ("model kncube --node-size -3", 2, r"node_size=-3"),
    ("model kncube --wire bogus", 2, r"wire='bogus'"),
    ("model kncube --constraint bogus", 2, r"bogus"),
    ("model fattree --node-size 0", 2, r"node_size=0"),
    ("model fattree --node-size nan", 2, r"node_size=nan"),
    ("model fattree --message-length -1", 2, r"message_length=-1"),
    ("model fattree --nodes 1", 2, r"nodes=1"),
    ("model fattree --width-rule x", 2, r"width_rule='x'"),
    ("model table bogus", 2, r"unknown 002 table 'bogus'"),
    ("model kncube --json", 0, r'"Tnet"'),
    ("design --nodes 0", 2, r"nodes=0"),
    ("design --nodes 1", 2, r"nodes=1"),
    ("design --nodes 99999999999999999999999", 2, r"nodes="),
    ("design --nodes 100 --max-radix 0", 2, r"max_radix=0"),
    ("design --nodes 100 --max-radix -4", 2, r"max_radix=-4"),
    ("design --nodes 100 --families bogus", 2, r"unknown design family 'bogus'"),
    ("design --nodes 100 --families ''", 2, r"famil"),
    ("design --nodes 100 --rank-by bogus", 2, r"rank_by='bogus'"),
    ("design --nodes 100 --top -1", 2, r"top=-1"),
    ("design --nodes 100 --p 0", 2, r"p=0"),
    ("design --nodes 100 --max-n 0", 2, r"max_n=0"),
    ("design --nodes 100 --json", 0, r'"spec"'),
    ("compare bogus:k=2", 2, r"unknown closed-form family 'bogus'"),
    ("compare mikant:k=3,n=3 --p 0", 2, r"p=0"),
    ("compare mikant:k=3,n=3 --p -1", 2, r"p=-1"),
    ("compare ''", 2, r"''"),
    ("compare mikant:k=3,n=3 --json", 0, r'"nodes"'),
    ("plot rcp -o {tmp}/x.txt", 2, r"must end in \.png"),
    ("plot rcp -o {nodir}/x.png", 2, r"does not exist"),
    ("plot rcp -o {dir}", 2, r"is a folder"),
    ("plot rcp -o {tmp}/x.png --n-min 5 --n-max 2", 2, r"n_min=5, n_max=2"),
    ("plot rcp -o {tmp}/x.png --n-max 99999", 2, r"n_max=99999"),
    ("plot rcp -o {tmp}/x.png --family bogus", 2, r"bogus"),
    ("plot rcp -o {tmp}/x.png --mark 99:99", 2, r"mark='99:99'"),
    ("plot rcp -o {tmp}/x.png --mark x", 2, r"mark='x'"),
    ("plot rcp -o {tmp}/x.png --p 0", 2, r"p=0"),
    ("plot cost-ratios -o {tmp}/x.png --k-max 999999", 2, r"k_max=999999"),
    ("plot cost-ratios -o {tmp}/x.png --k-max 1", 2, r"k_max=1"),
    ("plot cost-ratios -o {tmp}/x.png --baseline bogus", 2, r"bogus"),
    ("plot cost-ratios -o {tmp}/x.png --families bogus", 2, r"bogus"),
    ("plot path-diversity -o {tmp}/x.png --k-max 999999", 2, r"k_max=999999"),
    ("plot path-diversity -o {tmp}/x.png --n 999999", 2, r"n=999999"),
    ("plot kncube-latency -o {tmp}/x.png --nodes -1", 2, r"nodes=-1"),
    ("plot kncube-latency -o {tmp}/x.png --message-length nan", 2, r"message_length=nan"),
    ("plot kncube-latency -o {tmp}/x.png --node-size 0", 2, r"node_size=0"),
    # ---------------------------------------------------------------- sweeps and results
    ("sweep {dir} -o {tmp}/s1", 2, r"Is a directory|directory"),
    ("sweep {bin} -o {tmp}/s2", 2, r"cannot be read|UTF-8"),
    ("sweep {missing} -o {tmp}/s3", 2, r"does not exist"),
    ("sweep {empty} -o {tmp}/s4", 2, r"study|empty|\[study\]|table"),
    ("sweep {junk} -o {tmp}/s5", 2, r"TOML|line|study"),
    ("sweep {study_bad_traffic} -o {tmp}/s6", 2, r"bogus"),
    ("sweep {study_bad_topology} -o {tmp}/s7", 2, r"mikan|family"),
    ("sweep {study_nan_range} -o {tmp}/s12", 2, r"must be finite"),
    ("sweep {study_huge} -o {tmp}/s13", 2, r"32,000,000,000 points; at most 1,000,000"),
    ("sweep {study_big_net} -o {tmp}/s14", 2, r"mikant:k=8,n=7 needs about"),
    ("sweep {study_transpose} -o {tmp}/s15", 2, r"traffic='transpose' needs"),
    ("sweep {study} -o {nodir}/res", 2, r"out=.*does not exist"),
    ("sweep {study} -o {bin}", 2, r"out=.*is a file"),
    ("sweep {study} -o {tmp}/s8 --workers -1", 2, r"workers=-1"),
    (
        "sweep {study} -o {tmp}/s9 --connect-timeout 0 --scheduler tcp://127.0.0.1:1",
        2,
        r"connect_timeout",
    ),
    (
        "sweep {study} -o {tmp}/s10 --scheduler tcp://127.0.0.1:1 --connect-timeout 0.5",
        2,
        r"scheduler='tcp://127.0.0.1:1' is unreachable",
    ),
    ("sweep {study} -o {tmp}/s11 --scheduler ''", 2, r"scheduler=''"),
    ("results {missing}", 2, r"does not exist"),
    ("results {dir}", 2, r"not a fattree results folder"),
    ("results {bin}", 2, r"not a fattree results folder|does not exist|file"),
    ("results {store}", 0, r"kant:k=2,n=2"),
    ("results {store} --where 'bogus=1'", 2, r"unknown column 'bogus'"),
    ("results {store} --where ''", 2, r"where=''"),
    ("results {store} --where '__import__'", 2, r"not allowed"),
    ("results {store} --where 'nodes=@x'", 2, r"not allowed"),
    ("results {store} --columns bogus", 2, r"'bogus' is not a column"),
    ("results {store} --csv {nodir}/x.csv", 2, r"csv=.*does not exist"),
    ("results {store} --csv {dir}", 2, r"csv=.*is a folder"),
    ("results {damaged}", 0, r": 1 points"),
    ("report {missing} -o {tmp}/r.html", 2, r"does not exist"),
    ("report {store} -o {nodir}/r.html", 2, r"does not exist"),
    ("report {store} -o {tmp}/r.txt", 2, r"\.html"),
    ("report {dir} -o {tmp}/r.html", 2, r"not a fattree results folder"),
    ("reproduce bogus", 2, r"unknown reproduction 'bogus'"),
    ("reproduce ''", 2, r"name='' is invalid"),
    ("reproduce 000-table1 -o {nodir}/out", 2, r"out=.*does not exist"),
    ("reproduce 000-table1 -o {bin}", 2, r"out=.*is a file"),
    ("study bogus", 2, r"study='bogus'"),
    ("study flagship -o {nodir}/out", 2, r"out=.*does not exist"),
    ("plot latency {store} -o {nodir}/x.png", 2, r"does not exist"),
    ("plot latency {missing} -o {tmp}/x.png", 2, r"does not exist"),
    # ---------------------------------------------------------------- cost and price files (issue 13)
    ("cost kant:k=4,n=3 --json", 0, r'"money"'),
    ("cost ''", 2, r"topology='' is invalid"),
    ("cost kant:k=3,k=4,n=3", 2, r"'k' is given twice"),
    ("cost bogus:k=2", 2, r"unknown family 'bogus'.*valid: .*xgft"),
    (
        "cost kant:k=4,n=3 -a bogus",
        2,
        r"unknown routing algorithm 'bogus'; valid for kant: .*dmodk",
    ),
    ("cost kant:k=4,n=3 --bogus", 2, r"No such option"),
    ("cost kant:k=128,n=2", 2, r"k=128 is too large"),
    ("cost kant:k=4,n=3 --prices ''", 2, r"prices='' is invalid: an empty value"),
    ("cost kant:k=4,n=3 --prices {dir}", 2, r"prices=.*(directory|folder)"),
    ("cost kant:k=4,n=3 --prices {bin}", 2, r"prices=.*cannot read"),
    ("cost kant:k=4,n=3 --prices {missing}", 2, r"prices=.*(No such file|does not exist)"),
    ("cost kant:k=4,n=3 --prices {empty}", 0, r"cost of kant:k=4,n=3"),  # empty: the defaults
    ("cost kant:k=4,n=3 --prices {price_str}", 2, r"line 2: switch\.base = 'x' is invalid"),
    ("cost kant:k=4,n=3 --prices {price_key}", 2, r"line 2: unknown key switch\.bogus; valid keys"),
    ("cost kant:k=4,n=3 --prices {price_neg}", 2, r"line 2: switch\.base = -3 is invalid"),
    ("cost kant:k=4,n=3 --prices {price_nan}", 2, r"line 2: power\.transceiver = nan is invalid"),
    ("cost kant:k=4,n=3 --prices {price_toml}", 2, r"invalid TOML.*line 1"),
    ("cost kant:k=4,n=3 --prices {price_cat}", 2, r"switch\.catalogue = \[\] is invalid"),
    ("cost kant:k=4,n=3 --prices {price_table}", 2, r"line 1: key 'switch' must be a table"),
    (
        "cost kant:k=4,n=3 --prices {price_rack}",
        2,
        r"line 2: layout\.nodes_per_rack = 0 is invalid",
    ),
    ("cost kant:k=4,n=3 --prices {price_dup}", 2, r"invalid TOML.*line 3"),
    ("compare kant:k=4,n=3 --prices {price_key}", 2, r"unknown key switch\.bogus"),
    ("design --nodes 64 --prices {price_str}", 2, r"switch\.base = 'x'"),
    # ---------------------------------------------------------------- XGFT (issue 13)
    ("info xgft:m=4.4,w=1.2.2", 2, r"m=4\.4 has 2 levels but w=1\.2\.2 has 3"),
    ("info xgft:m=4.0.4,w=1.2.2", 2, r"m='4\.0\.4' is invalid: entry 0 is out of range"),
    ("info xgft:m=4.4.4,w=0.2.2", 2, r"w='0\.2\.2' is invalid: entry 0"),
    ("info xgft:m=4.4,w=2.2", 2, r"w_1 must be 1"),
    ("info xgft:m=4.4.4", 2, r"missing parameter 'w'"),
    ("info xgft:w=1.2", 2, r"missing parameter 'm'"),
    ("info xgft:m=,w=", 2, r"m='' is invalid"),
    ("info xgft:m=4..4,w=1.2.2", 2, r"m='4\.\.4' is invalid"),
    ("info xgft:m=-4.4,w=1.1", 2, r"m='-4\.4' is invalid"),
    ("info xgft:m=nan.4,w=1.1", 2, r"m='nan\.4' is invalid"),
    ("info xgft:m=4.4,w=1.99999999999999999999", 2, r"out of range"),
    ("info xgft:m=4.4,w=1.1,m=3.3", 2, r"'m' is given twice"),
    ("info xgft:m=4.4.4,w=1.2.2,h=3", 2, r"unknown parameter 'h'; parameters: m, w"),
    ("info xgft:m=1000.1000.1000,w=1.1000.1000", 2, r"needs about .* GiB"),
    ("info xgft:m=2.2,w=1.2 --json", 0, r'"nodes": 4'),
    ("compare xgft:m=4.4,w=1.1.1", 2, r"levels"),
    ("cost xgft:m=4.4.4,w=0.2.2", 2, r"w='0\.2\.2'"),
    ("simulate xgft:m=2.2,w=1.2 --load 0.1 -P 20", 0, r"xgft:m=2\.2,w=1\.2"),
    ("faults xgft:m=2.2,w=1.2 --trials 10 --rates 0.1 --json", 0, r'"success_ratio"'),
    ("routing check xgft:m=2.2,w=1.2", 0, r"OK"),
    ("routing list --family xgft", 0, r"dmodk"),
    # ---------------------------------------------------------------- design, compare (issue 13)
    (
        "design --nodes 4096 --radix 3",
        2,
        r"radix=3 is invalid: nothing fits.*the smallest radix that fits is 4",
    ),
    (
        "design --nodes 4096 --radix 4 --levels 2",
        2,
        r"and 2 levels; the smallest radix that fits is",
    ),
    ("design --nodes 4096 --radix 0", 2, r"radix=0 is invalid"),
    ("design --nodes 4096 --radix -5", 2, r"radix=-5 is invalid"),
    (
        "design --nodes 4096 --radix 99999999999999999999",
        2,
        r"radix=99999999999999999999 is invalid",
    ),
    ("design --nodes 4096 --levels 0", 2, r"levels=0 is invalid"),
    ("design --nodes 4096 --levels 64", 2, r"levels=64 is invalid"),
    ("design --nodes 4096 --objective bogus", 2, r"objective='bogus' is invalid: one of cost"),
    ("design --nodes 4096 --objective ''", 2, r"objective=''"),
    ("design --nodes 4096 --objective cost --rank-by rcp", 2, r"give one of them"),
    ("design --nodes 4096 --radix 32 --max-radix 8", 2, r"disagree"),
    ("design --nodes 4096 --families xgft-3:1", 2, r"did you mean 'xgft-4:1'"),
    ("design --nodes 64 --radix 8 --pareto --json", 0, r'"spec"'),
    ("compare kant:k=18446744073709551616,n=3", 2, r"k=18446744073709551616 is invalid"),
    ("compare cat:k=18446744073709551616,n=3", 2, r"k=18446744073709551616 is invalid"),
    ("compare cat:k=64,n=3", 2, r"from 2 to 63"),
    ("compare kant:k=2,n=999", 2, r"n=999 is invalid"),
    ("compare kant:k=1000000,n=63", 2, r"10\^378 nodes"),
    ("compare kant:k=4,n=3 --nodes 99999999999999999999", 2, r"nodes=99999999999999999999"),
    ("compare kant:k=4,n=3 --nodes 1", 2, r"nodes=1"),
    # ---------------------------------------------------------------- studies, workers, schedulers
    ("study ''", 2, r"study='' is invalid: shipped studies are"),
    ("study --list --json", 0, r'"equal-cost"'),
    ("study equal-cost -o {bin}", 2, r"out=.*is a file"),
    ("study equal-cost -o {nodir}/x", 2, r"out=.*does not exist"),
    ("study equal-cost -o {tmp}/eq1 --scheduler ''", 2, r"scheduler=''"),
    (
        "study equal-cost -o {tmp}/eq2 --workers 99999999999999999999",
        2,
        r"workers=99999999999999999999",
    ),
    ("study equal-cost-quick -o {tmp}/eq3 --workers -1", 2, r"workers=-1"),
    ("reproduce --list --json", 0, r'"000-table1"'),
    ("reproduce 000-table1 -o {tmp}/rp1 --workers -1", 2, r"workers=-1"),
    ("reproduce 000-table1 -o {tmp}/rp2 --scheduler ''", 2, r"scheduler=''"),
    ("sweep {study} -o {tmp}/s20 --workers 100000", 2, r"workers=100000"),
    (
        "sweep {study} -o {tmp}/s21 --connect-timeout nan --scheduler tcp://127.0.0.1:1",
        2,
        r"connect_timeout=nan",
    ),
    (
        "sweep {study} -o {tmp}/s22 --connect-timeout inf --scheduler tcp://127.0.0.1:1",
        2,
        r"connect_timeout=inf",
    ),
    ("sweep {study_cost_prices} -o {tmp}/s30", 2, r"line 2: switch\.base = 'x' is invalid"),
    (
        "sweep {study_cost_alg} -o {tmp}/s31",
        2,
        r"unknown routing algorithm 'bogus'; valid for kant",
    ),
    ("sweep {study_cost_radix} -o {tmp}/s32", 2, r"switch_radix=-4 is invalid"),
    ("sweep {study_cost_huge} -o {tmp}/s33", 2, r"switch_radix=99999999999999999999 is invalid"),
    ("sweep {study_sim_alg} -o {tmp}/s34", 2, r"algorithm='alg1' is not defined for family 'xgft'"),
    ("sweep {study_xgft_bad} -o {tmp}/s35", 2, r":4: topology = .*2 levels but w=1\.2\.2 has 3"),
    ("sweep {study_seed_neg} -o {tmp}/s36", 2, r"study\.seed = -1 is invalid"),
    ("sweep {study_seed_huge} -o {tmp}/s37", 2, r"study\.seed = 18446744073709551616 is invalid"),
    ("sweep {study_faults_trials} -o {tmp}/s38", 2, r"trials=100000000000000 is invalid"),
    (
        "faults mikant:k=2,n=2 --rates 0.1 --trials 100000000000",
        2,
        r"trials=100000000000 is invalid",
    ),
    ("results {store} --limit -1", 2, r"limit=-1"),
    ("results {store} --limit 99999999999999999999", 2, r"limit="),
    ("results {store} --json", 0, r'"topology"'),
    # ---------------------------------------------------------------- options that do not apply
    (
        "simulate mikant:k=2,n=2 --load 0.1 --fault-model lookahead",
        2,
        r"fault_model='lookahead' does not apply",
    ),
    ("simulate mikant:k=2,n=2 --load 0.1 --fault-seed 3", 2, r"fault_seed=3 does not apply"),
    ("simulate kant:k=2,n=2 --load 0.1 --measure 100", 2, r"measure=100 does not apply"),
    ("simulate kant:k=2,n=2 --load 0.1 --warmup 10", 2, r"warmup=10 does not apply"),
    (
        "simulate kant:k=2,n=2 --load 0.1 --termination window -P 5",
        2,
        r"packets_per_source=5 does not apply",
    ),
    ("simulate kant:k=2,n=2 --loads 0.1:0.2:0.1 --workers 1000", 2, r"workers=1000"),
    ("route kant:k=2,n=2 n0.0 n1.1 --fault-model lookahead", 2, r"model='lookahead'"),
    # ---------------------------------------------------------------- progress: true final line
    ("simulate kant:k=2,n=2 --load 0.1 -P 20", 0, r"simulating kant:k=2,n=2: [\d,]+ cycles in"),
    ("simulate kant:k=2,n=2 --loads 0.1:0.2:0.1 -P 20", 0, r"simulating kant:k=2,n=2: 2/2 loads"),
    ("faults mikant:k=2,n=2 --trials 10 --rates 0:0.1:0.05", 0, r"fault study: 3/3 rates"),
    ("routing check kant:k=2,n=2 --max-seconds inf", 2, r"max_seconds=inf"),
    ("info kant:k=2,n=2", 0, r"info kant:k=2,n=2: measured in \d+\.\d s"),
    ("info kant:k=2,n=2 --ilp-time 1e9", 2, r"ilp_time=1000000000\.0 is invalid"),
    ("faults --list --json", 0, r'"name"'),
    ("plot bogus -o {tmp}/x.png", 2, r"No such command 'bogus'; valid: .*rcp"),
    ("routing bogus", 2, r"No such command 'bogus'; valid: list, check, load"),
    ("simulate kant:k=2,n=2 --load 0.1 --csv {nodir}/x.csv", 2, r"does not exist"),
    ("simulate kant:k=2,n=2 --load 0.1 -P 10 --csv {tmp}/curve.csv", 0, r"curve written to"),
    ("--help", 0, r"--install-completion"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """The files the cases refer to (made once)."""
    return make_files(tmp_path_factory.mktemp("fuzz"))


def make_files(d: Path) -> dict[str, str]:
    """Make the files of the cases in folder ``d``; their names by placeholder."""
    (d / "dir").mkdir()
    (d / "bin").write_bytes(bytes(range(256)) * 8)
    (d / "empty").write_text("")
    (d / "junk").write_text("this is { not [ any format\n")
    (d / "trace.txt").write_text("0 0 1\n1 1 2\n")
    (d / "study.toml").write_text(STUDY)
    for name, text in PRICE_FILES.items():
        (d / f"{name}.toml").write_text(text)
    (d / "bad_traffic.toml").write_text(
        '[study]\nkind = "simulate"\n[parameters]\ntopology = "kant:k=2,n=2"\nload = 0.1\n'
        'traffic = ["uniform", "bogus"]\n'
    )
    (d / "bad_topology.toml").write_text(
        '[study]\nkind = "topology"\n[parameters]\ntopology = ["kant:k=2,n=2", "mikan:k=2,n=2"]\n'
    )
    sim = '[study]\nkind = "simulate"\n[parameters]\n'
    (d / "nan_range.toml").write_text(
        sim + 'topology = "kant:k=2,n=2"\nload = {start = 0.1, stop = nan, step = 0.1}\n'
    )
    (d / "huge.toml").write_text(
        sim + 'topology = "kant:k=2,n=2"\n'
        "load = {start = 0.000001, stop = 1.0, step = 0.000001}\n"
        "buffer = {start = 1, stop = 32000, step = 1}\n"
    )
    (d / "big_net.toml").write_text(
        sim + 'topology = ["kant:k=2,n=2", "mikant:k=8,n=7"]\nload = 0.1\n'
    )
    (d / "transpose.toml").write_text(
        sim + 'topology = "kant:k=2,n=3"\nload = 0.1\ntraffic = "transpose"\n'
    )
    cost = '[study]\nkind = "cost"\n[parameters]\ntopology = ["kant:k=2,n=2", "kant:k=2,n=3"]\n'
    (d / "cost_prices.toml").write_text(cost + f'prices = "{d / "price_str.toml"}"\n')
    (d / "cost_alg.toml").write_text(cost + 'algorithm = "bogus"\n')
    (d / "cost_radix.toml").write_text(cost + "switch_radix = -4\n")
    (d / "cost_huge.toml").write_text(cost + "switch_radix = 99999999999999999999\n")
    topo = '[study]\nkind = "topology"\n{}[parameters]\ntopology = "kant:k=2,n=2"\n'
    (d / "seed_neg.toml").write_text(topo.format("seed = -1\n"))
    (d / "seed_huge.toml").write_text(topo.format("seed = 18446744073709551616\n"))
    (d / "faults_trials.toml").write_text(
        '[study]\nkind = "faults"\n[parameters]\ntopology = "kant:k=2,n=2"\nalgorithm = "default"\n'
        "rate = 0.1\ntrials = 100000000000000\n"
    )
    (d / "sim_alg.toml").write_text(
        sim + 'topology = "xgft:m=2.2,w=1.2"\nload = 0.1\nalgorithm = "alg1"\n'
    )
    (d / "xgft_bad.toml").write_text(cost.replace('"kant:k=2,n=3"', '"xgft:m=4.4,w=1.2.2"'))
    store, damaged = d / "store", d / "damaged"
    for folder in (store, damaged):
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            assert (
                main(["sweep", str(d / "study.toml"), "-o", str(folder), "--workers", "0", "-q"])
                == 0
            )
    part = sorted((damaged / "parts").glob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:40])  # truncated
    return {
        "tmp": str(d),
        "dir": str(d / "dir"),
        "bin": str(d / "bin"),
        "empty": str(d / "empty"),
        "junk": str(d / "junk"),
        "trace": str(d / "trace.txt"),
        "missing": str(d / "no-such-file"),
        "nodir": str(d / "no-such-dir"),
        "study": str(d / "study.toml"),
        "study_bad_traffic": str(d / "bad_traffic.toml"),
        "study_bad_topology": str(d / "bad_topology.toml"),
        "store": str(store),
        "damaged": str(damaged),
        "study_nan_range": str(d / "nan_range.toml"),
        "study_huge": str(d / "huge.toml"),
        "study_big_net": str(d / "big_net.toml"),
        "study_transpose": str(d / "transpose.toml"),
        **{
            f"study_{n}": str(d / f"{n}.toml")
            for n in (
                "cost_prices",
                "cost_alg",
                "cost_radix",
                "cost_huge",
                "sim_alg",
                "xgft_bad",
                "seed_neg",
                "seed_huge",
                "faults_trials",
            )
        },
        **{name: str(d / f"{name}.toml") for name in PRICE_FILES},
    }


def run_cli(argv: list[str]) -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, seconds) of ``fattree ARGV`` run in this process."""
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # pragma: no cover - main returns its code
            rc = exc.code
    return rc, out.getvalue(), err.getvalue(), time.perf_counter() - t0


def judge(
    rc, out: str, err: str, seconds: float, expected: int, pattern: str, bound: float = TIME_BOUND
) -> str | None:
    """Why a case failed (None: it passed): traceback, hang, silent, multi-line, wrong code."""
    if "Traceback" in out or "Traceback" in err or rc == 3:
        return "traceback"
    if seconds > bound:
        return "hang"
    if rc != expected:
        return "silent" if rc == 0 else f"exit {rc}, expected {expected}"
    if expected == 2:
        lines = [x for x in err.splitlines() if x.strip() and not x.startswith("warning: ")]
        if len(lines) != 1 or not lines[0].startswith("error: "):
            return "not one line"
        if not re.search(pattern, lines[0]):
            return "message"
    elif not re.search(pattern, out + err, re.S):
        return "message"
    return None


@pytest.mark.slow
@pytest.mark.parametrize("command,expected,pattern", CASES, ids=[c[0][:60] for c in CASES])
def test_fuzz_case(files, command, expected, pattern):
    argv = [a.format(**files) for a in shlex.split(command)]
    rc, out, err, sec = run_cli(argv)
    why = judge(rc, out, err, sec, expected, pattern)
    assert why is None, f"{why}: fattree {command} -> exit {rc} in {sec:.1f} s\n{err[-2000:]}"


def test_table_is_large():
    assert len(CASES) >= 150
    assert len({c[0] for c in CASES}) == len(CASES)  # no duplicate case


def test_damaged_store_warns_once(files):
    rc, out, err, _ = run_cli(["results", files["damaged"]])
    assert rc == 0 and "Traceback" not in err
    warn = [x for x in err.splitlines() if x.startswith("warning: ")]
    assert len(warn) == 1 and "damaged" in warn[0] and "truncated" in warn[0]
    assert ": 1 points" in out  # the damaged point is not shown, the other one is


def test_output_without_terminal_is_not_cut(files):
    rc, out, _, _ = run_cli(["reproduce", "--list"])
    assert rc == 0
    assert "…" not in out  # rich's ellipsis for a cut cell
    assert max(len(x) for x in out.splitlines()) > 100  # wider than the 80 columns of old


def test_paths_in_fuzz_table_exist(files):
    for key in ("dir", "bin", "empty", "junk", "study", "store", "damaged"):
        assert Path(files[key]).exists()


@pytest.mark.slow
def test_generated_fuzz_pass(files, tmp_path):
    """The generated cases of benchmarks/fuzz_cli.py (every numeric option with values
    outside its range, broken specs of every family, malformed price files), in this
    process: no traceback, no silent success, nothing slower than the time bound. Every
    third case keeps the suite's time reasonable; ``benchmarks/fuzz_cli.py`` runs them all."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_cli.py"
    spec = importlib.util.spec_from_file_location("fuzz_cli", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for i, text in enumerate(mod.PRICES):
        (Path(files["tmp"]) / f"price{i}.toml").write_text(text)
    from fattree.topology import FAMILIES

    cases = mod.generated([f for f in FAMILIES if f not in ("graph", "xgft")])
    assert len(cases) > 1000
    bad = []
    for command, expected, pattern in cases[::3]:
        argv = [a.format(**files) if "{" in a else a for a in shlex.split(command)]
        rc, out, err, sec = run_cli(argv)
        why = judge(rc, out, err, sec, expected, pattern, bound=60.0)
        if why is not None:
            bad.append(f"{why}: fattree {command}: {err.strip()[-200:]}")
    assert not bad, "\n".join(bad[:20])
