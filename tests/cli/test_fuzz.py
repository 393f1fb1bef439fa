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

#: seconds a case may take (loaded machine; the numba caches exist)
TIME_BOUND = 20.0

STUDY = """\
[study]
name = "fuzz"
kind = "topology"
[parameters]
topology = ["kant:k=2,n=2", "kant:k=2,n=3"]
distances = "none"
"""

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
    ("export kant:k=2,n=2 -f ''", 2, r"export format ''"),
    ("export kant:k=2,n=2 -o {dir}", 2, r"is a (directory|folder)"),
    ("export kant:k=2,n=2 -o {nodir}/x.txt", 2, r"does not exist"),
    ("draw kant:k=2,n=2 -o {tmp}/x.txt", 2, r"unknown suffix"),
    ("draw kant:k=2,n=2 -o {nodir}/x.svg", 2, r"does not exist"),
    ("draw kant:k=2,n=2 -o {tmp}/x.svg --max-vertices 0", 2, r"max_vertices=0"),
    ("draw mikant:k=8,n=6 -o {tmp}/x.svg", 2, r"max.vertices|too large|vertices"),
    # ---------------------------------------------------------------- routing
    ("routing list --family bogus", 2, r"unknown family 'bogus'"),
    ("routing list --family ''", 2, r"unknown family ''"),
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
    ("simulate kant:k=2,n=2 --load 0.1 -t trace:file={dir}", 2, r"directory"),
    ("simulate kant:k=2,n=2 --load 0.1 -t trace:file={bin}", 2, r"cannot be read|UTF-8"),
    ("simulate kant:k=2,n=2 --load 0.1 -t trace:file={missing}", 2, r"not exist|No such|cannot"),
    ("simulate kant:k=2,n=2 --load 0.1 -t trace:file={junk}", 2, r"line 1|expected"),
    ("simulate kant:k=2,n=2 --load 0.1 -t trace:file={trace}", 2,
     r"does not apply to traffic 'trace.*drop --load"),
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
    ("faults mikant:k=2,n=2 --trials 10 --rates 0.1 --csv {nodir}/x.csv", 2, r"csv=.*does not exist"),
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
    ("sweep {study} -o {tmp}/s9 --connect-timeout 0 --scheduler tcp://127.0.0.1:1", 2,
     r"connect_timeout"),
    ("sweep {study} -o {tmp}/s10 --scheduler tcp://127.0.0.1:1 --connect-timeout 0.5", 2,
     r"scheduler='tcp://127.0.0.1:1' is unreachable"),
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
    (d / "bad_traffic.toml").write_text(
        '[study]\nkind = "simulate"\n[parameters]\ntopology = "kant:k=2,n=2"\nload = 0.1\n'
        'traffic = ["uniform", "bogus"]\n')
    (d / "bad_topology.toml").write_text(
        '[study]\nkind = "topology"\n[parameters]\ntopology = ["kant:k=2,n=2", "mikan:k=2,n=2"]\n')
    sim = '[study]\nkind = "simulate"\n[parameters]\n'
    (d / "nan_range.toml").write_text(sim + 'topology = "kant:k=2,n=2"\n'
                                      'load = {start = 0.1, stop = nan, step = 0.1}\n')
    (d / "huge.toml").write_text(sim + 'topology = "kant:k=2,n=2"\n'
                                 'load = {start = 0.000001, stop = 1.0, step = 0.000001}\n'
                                 'buffer = {start = 1, stop = 32000, step = 1}\n')
    (d / "big_net.toml").write_text(sim + 'topology = ["kant:k=2,n=2", "mikant:k=8,n=7"]\n'
                                    'load = 0.1\n')
    (d / "transpose.toml").write_text(sim + 'topology = "kant:k=2,n=3"\nload = 0.1\n'
                                      'traffic = "transpose"\n')
    store, damaged = d / "store", d / "damaged"
    for folder in (store, damaged):
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            assert main(["sweep", str(d / "study.toml"), "-o", str(folder), "--workers", "0",
                         "-q"]) == 0
    part = sorted((damaged / "parts").glob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:40])  # truncated
    return {"tmp": str(d), "dir": str(d / "dir"), "bin": str(d / "bin"),
            "empty": str(d / "empty"), "junk": str(d / "junk"), "trace": str(d / "trace.txt"),
            "missing": str(d / "no-such-file"), "nodir": str(d / "no-such-dir"),
            "study": str(d / "study.toml"), "study_bad_traffic": str(d / "bad_traffic.toml"),
            "study_bad_topology": str(d / "bad_topology.toml"), "store": str(store),
            "damaged": str(damaged), "study_nan_range": str(d / "nan_range.toml"),
            "study_huge": str(d / "huge.toml"), "study_big_net": str(d / "big_net.toml"),
            "study_transpose": str(d / "transpose.toml")}


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


def judge(rc, out: str, err: str, seconds: float, expected: int, pattern: str,
          bound: float = TIME_BOUND) -> str | None:
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
