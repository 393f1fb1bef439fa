"""Inputs that broke the tool, one class at a time: what is not a regular file, byte-order
marks and NUL bytes, integers beyond 64 bits, deep nesting, contradictions, unbounded work,
sizes refused before allocating, and outputs on a full disk (write, rename, keep)."""

from __future__ import annotations

import contextlib
import io
import os
import resource
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import fattree
from fattree import fileio
from fattree.cli import main
from fattree.errors import InputFileError, OutputFileError, ParameterError

from .test_fuzz import judge, run_cli

EDGES = "n0 s0\nn1 s0\ns0 s1\nn2 s1\nn3 s1\n"
SIM = '[study]\nkind = "simulate"\n[parameters]\ntopology = "kant:k=2,n=2"\n'


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("inputs")
    (d / "bom.txt").write_bytes(b"\xef\xbb\xbf" + EDGES.encode())
    (d / "nul.txt").write_bytes(b"n0 s0\nn1 s0\x00\ns0 s1\nn2 s1\n")
    (d / "edges.txt").write_text(EDGES)
    gml = (
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key id="pa" for="edge" attr.name="port_a" attr.type="{t}"/>'
        '<key id="pb" for="edge" attr.name="port_b" attr.type="{t}"/>'
        '<key id="lv" for="node" attr.name="level" attr.type="int"/>'
        '<graph edgedefault="undirected"><node id="n0"/><node id="n1"/>'
        '<node id="s0"><data key="lv">{lv}</data></node>'
        '<edge source="n0" target="s0"><data key="pa">0</data><data key="pb">{p}</data></edge>'
        '<edge source="n1" target="s0"><data key="pa">0</data><data key="pb">1</data></edge>'
        "</graph></graphml>"
    )
    (d / "frac.graphml").write_text(gml.format(t="double", p="1.5", lv="0"))
    (d / "portbig.graphml").write_text(gml.format(t="long", p="99999999999999999999999", lv="0"))
    (d / "levelbig.graphml").write_text(gml.format(t="int", p="2", lv="1" + "0" * 25))
    (d / "ok.graphml").write_text(gml.format(t="int", p="2", lv="0"))
    wide = ["s0 s1"] + [f"n{i} s0" for i in range(32_768)] + ["n32768 s1"]
    (d / "wide.txt").write_text("\n".join(wide) + "\n")
    (d / "trace_big.txt").write_text(f"0 0 1\n{2**64} 1 0\n")
    (d / "faults_empty_id.txt").write_text("<1,,0,0>\n")
    deep = "a = " + "[" * 5000 + "]" * 5000 + "\n"
    (d / "deep_study.toml").write_text('[study]\nkind = "topology"\n' + deep)
    (d / "deep_prices.toml").write_text("[switch]\n" + deep.replace("a =", "base ="))
    (d / "frac_range.toml").write_text(
        SIM + "load = 0.1\nbuffer = {start = 1, stop = 4, step = 1.5}\n"
    )
    (d / "warmup_papers.toml").write_text(SIM + "load = 0.1\nwarmup = 5000\n")
    (d / "window_huge.toml").write_text(
        SIM + 'load = 0.1\ntermination = "window"\nwarmup = 1000000000\nmeasure = 1000000000\n'
    )
    (d / "low_load.toml").write_text(SIM + "load = 1e-300\n")
    (d / "reproduce_bad.toml").write_text(
        '[study]\nkind = "topology"\n[parameters]\ntopology = "kant:k=2,n=2"\n'
        'distances = "none"\n[report]\nreproduce = ["000-tabel1"]\n'
    )
    os.mkfifo(d / "fifo")
    os.mkfifo(d / "fifo.png")
    return {k.replace(".", "_"): str(d / k) for k in os.listdir(d)} | {"tmp": str(d)}


CASES = [
    # what is not a regular file: refused at once, never read until memory runs out
    ("info graph:file=/dev/zero", 2, r"'/dev/zero' is a character device, not a regular file"),
    ("info graph:file={fifo}", 2, r"named pipe .* not a regular file"),
    ("simulate kant:k=2,n=2 -t trace:file=/dev/zero", 2, r"character device"),
    ("simulate kant:k=2,n=2 -t trace:file={fifo}", 2, r"named pipe"),
    ("sweep {fifo} -o {tmp}/r1", 2, r"study file .* named pipe"),
    ("sweep /dev/zero -o {tmp}/r2", 2, r"character device"),
    ("deadlock kant:k=2,n=2 --faults {fifo}", 2, r"faults file .* named pipe"),
    ("design --nodes 64 --prices /dev/zero", 2, r"prices='/dev/zero' is a character device"),
    ("export kant:k=2,n=2 -o {fifo}", 2, r"output=.* is a named pipe"),
    ("export kant:k=2,n=2 -o /dev/full", 2, r"output='/dev/full' is a character device"),
    ("simulate kant:k=2,n=2 --load 0.1 -o /dev/full", 2, r"output='/dev/full' is a character"),
    ("draw kant:k=2,n=2 -o {fifo_png}", 2, r"named pipe"),
    # byte-order marks, NUL bytes, fractional or out-of-range numbers in imported graphs
    ("info graph:file={bom_txt} --json", 0, r'"nodes": 4'),
    ("info graph:file={nul_txt}", 2, r"line 2: a NUL byte"),
    (
        "info graph:file={frac_graphml}",
        2,
        r"ports must be integers, got '0' '1\.5' \(not an integer\)",
    ),
    ("info graph:file={portbig_graphml}", 2, r"got '0' '99999999999999999999999' \(out of range"),
    ("info graph:file={levelbig_graphml}", 2, r"level=.* out of range"),
    ("info graph:file={ok_graphml} --json", 0, r'"nodes": 2'),
    ("info graph:file={wide_txt}", 2, r"switch 's0' has 32,769 links; a switch has at most 32,768"),
    # integers beyond 64 bits, empty ids, deep nesting: one line, never an internal error
    (
        "simulate kant:k=2,n=2 --load 0.1 -t neighbor:offset=99999999999999999999999",
        2,
        r"offset='99999999999999999999999' is out of range: beyond a 64-bit integer",
    ),
    (
        "simulate kant:k=2,n=2 --load 0.1 -t randperm:seed=18446744073709551616",
        2,
        r"seed='18446744073709551616' is out of range",
    ),
    ("simulate kant:k=2,n=2 --load 0.1 -t randperm:seed=-2", 2, r"seed=-2 is out of range"),
    ("simulate kant:k=2,n=2 -t trace:file={trace_big_txt}", 2, r"trace_big.txt:2: .*out of range"),
    ("deadlock mikant:k=2,n=2 --faults {faults_empty_id_txt}", 2, r"link id <1,,0,0> is invalid"),
    ("deadlock kant:k=2,n=2 --faults {faults_empty_id_txt}", 2, r"is not a MiKANT"),
    ("sweep {deep_study_toml} -o {tmp}/r3", 2, r"nested more than 32 levels deep"),
    ("design --nodes 64 --prices {deep_prices_toml}", 2, r"nested more than 32 levels deep"),
    # contradictions in study files
    ("sweep {frac_range_toml} -o {tmp}/r4", 2, r"buffer takes integers"),
    ("sweep {warmup_papers_toml} -o {tmp}/r5", 2, r"warmup=5000 does not apply here"),
    ("sweep {reproduce_bad_toml} -o {tmp}/r6", 2, r"reproduce names '000-tabel1'.*did you mean"),
    # unbounded work and sizes: refused before building, naming the estimate and the cap
    ("simulate kant:k=2,n=2 --load 1e-300", 2, r"load=1e-300 .* beyond the cycle cap"),
    ("simulate kant:k=2,n=2 --load 0.1 -P 1000000000", 2, r"packets_per_source=1,000,000,000"),
    (
        "simulate kant:k=2,n=2 --load 0.1 --termination window --warmup 1000000000 "
        "--measure 1000000000",
        2,
        r"8e\+09 node-cycles .* cap of 2e\+09",
    ),
    ("simulate mikant:k=16,n=5 --load 0.1", 2, r"2,097,152 nodes x 2,000 cycles.*cap of 2e\+09"),
    ("simulate hypercube:d=20 --load 0.1", 2, r"1,048,576 nodes x 2,000 cycles"),
    ("sweep {window_huge_toml} -o {tmp}/r7", 2, r"node-cycles"),
    ("sweep {low_load_toml} -o {tmp}/r8", 2, r"beyond the cycle cap"),
    ("routing check kant:k=2,n=2 --max-seconds 1e300", 2, r"max_seconds=1e\+300 .* at most 86,400"),
    ("info kant:k=16,n=6", 2, r"23,068,672 vertices .* beyond the 8,388,608 vertices"),
    ("info cat:k=16,n=2", 2, r"17,825,552 vertices"),
]


@pytest.mark.parametrize("command,expected,pattern", CASES, ids=[c[0][:60] for c in CASES])
def test_case(files, command, expected, pattern):
    argv = [a.format(**files) for a in shlex.split(command)]
    rc, out, err, sec = run_cli(argv)
    why = judge(rc, out, err, sec, expected, pattern, bound=60.0)
    assert why is None, f"{why}: fattree {command} -> exit {rc} in {sec:.1f} s\n{err[-2000:]}"


def test_bom_first_name_stays_a_node(files):
    t = fattree.build(f"graph:file={files['bom_txt']}")
    assert (t.n_nodes, t.n_switches) == (4, 2)
    assert t.node_label(0) == "n0"


def test_process_substitution_is_refused_not_misread():
    # <(cat f) is a pipe under /dev/fd: it was read twice (format sniffing, then parsing)
    # and reported "no links found"
    r, w = os.pipe()
    os.write(w, EDGES.encode())
    os.close(w)
    try:
        with pytest.raises(InputFileError, match="process substitution"):
            fattree.build(f"graph:file=/dev/fd/{r}")
    finally:
        os.close(r)


def test_fifo_without_writer_does_not_block(files):
    done = threading.Event()

    def read():
        with pytest.raises(InputFileError):
            fileio.read_input(files["fifo"], "input")
        done.set()

    t = threading.Thread(target=read, daemon=True)
    t.start()
    assert done.wait(30), "reading a FIFO blocked"


def test_fault_study_flag_takes_true_or_false():
    with pytest.raises(ParameterError, match="switch_only='no' is invalid"):
        fattree.fault_study("mikant:k=2,n=3", "gns", [0.1], trials=10, switch_only="no")


# ------------------------------------------------------------------ outputs
def _full_disk(monkeypatch, tmp_path):
    """Writes next to the target go to /dev/full (ENOSPC); the temporary folder is
    tmp_path/keep, where the result is kept."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    made = []

    def create(target):
        fd = os.open("/dev/full", os.O_WRONLY)
        name = target.parent / f".{target.name}.full.tmp"
        name.write_bytes(b"")  # a regular file the writer may remove
        made.append(name)
        return fd, name

    keep = tmp_path / "keep"
    keep.mkdir()
    monkeypatch.setattr(fileio, "_create_temp", create)
    monkeypatch.setattr(fileio.tempfile, "tempdir", str(keep))
    return keep, made


def test_full_disk_keeps_the_target_and_the_result(monkeypatch, tmp_path):
    keep, made = _full_disk(monkeypatch, tmp_path)
    target = tmp_path / "c.csv"
    target.write_text("old,content\n")
    with pytest.raises(OutputFileError) as exc:
        fileio.write_atomic(target, lambda fh: fh.write("a,b\n" * 1000), binary=False)
    msg = str(exc.value)
    assert "could not be written: No space left on device" in msg and str(keep) in msg
    kept = next(keep.iterdir())
    assert kept.read_text() == "a,b\n" * 1000 and str(kept) in msg
    assert target.read_text() == "old,content\n"  # untouched, never half written
    assert not any(p.exists() for p in made)  # no partial temporary left


def test_written_files_have_a_new_files_permissions(tmp_path):
    """An output is as readable as any file its user writes there (0666 less the umask),
    not the temporary's owner-only 0600; a file it replaces keeps its own permissions."""
    import os
    import stat

    old = os.umask(0o027)
    try:
        fresh = fileio.write_atomic(tmp_path / "r.html", lambda fh: fh.write(b"x"))
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
        os.umask(0o022)
        assert (
            stat.S_IMODE(fileio.write_atomic(fresh, lambda fh: fh.write(b"y")).stat().st_mode)
            == 0o640
        )
        new = fileio.write_atomic(tmp_path / "c.csv", lambda fh: fh.write("a\n"), binary=False)
        assert stat.S_IMODE(new.stat().st_mode) == 0o644 and fileio._umask() == 0o022
    finally:
        os.umask(old)


def test_failed_rename_keeps_the_complete_temporary(monkeypatch, tmp_path):
    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(fileio.os, "replace", refuse)
    target = tmp_path / "r.html"
    with pytest.raises(OutputFileError, match="kept in .*r.html.*tmp") as exc:
        fileio.write_atomic(target, lambda fh: fh.write(b"<html>x</html>"), what="report")
    kept = Path(str(exc.value).rsplit("kept in ", 1)[1])
    assert kept.read_bytes() == b"<html>x</html>" and not target.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "kant:k=2,n=2", "--load", "0.1", "-P", "5", "-o", "{out}/c.csv"],
        ["export", "kant:k=4,n=3", "-o", "{out}/x.json"],
        ["export", "mikant:k=2,n=3", "--format", "booksim", "-o", "{out}/x.anynet"],
        ["draw", "kant:k=2,n=3", "-o", "{out}/x.png"],
    ],
)
def test_cli_on_a_full_disk_is_one_line_and_leaves_no_broken_file(monkeypatch, tmp_path, argv):
    keep, _ = _full_disk(monkeypatch, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    rc, stdout, err, _ = run_cli([a.format(out=out) for a in argv])
    lines = [x for x in err.splitlines() if x.startswith("error: ")]
    assert rc == 2 and len(lines) == 1, err
    assert "No space left on device" in lines[0] and "kept in" in lines[0]
    assert not any(out.iterdir())  # no empty or truncated output
    assert any(p.stat().st_size > 0 for p in keep.iterdir())


@pytest.mark.slow
def test_file_size_limit_in_a_subprocess_leaves_no_partial_file(tmp_path):
    # a real write failure (RLIMIT_FSIZE: EFBIG) in the fattree process itself
    target = tmp_path / "x.json"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run(
        [sys.executable, "-m", "fattree", "export", "kant:k=8,n=3", "-o", str(target)],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=limit,
        timeout=300,
    )
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    assert "could not be written" in lines[0]
    assert not target.exists() and not list(tmp_path.glob(".x.json.*"))


def test_report_html_on_a_full_disk(monkeypatch, tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(
        '[study]\nkind = "topology"\n[parameters]\ntopology = "kant:k=2,n=2"\ndistances = "none"\n'
    )
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["sweep", str(study), "-o", str(tmp_path / "r"), "--workers", "0", "-q"]) == 0
    keep, _ = _full_disk(monkeypatch, tmp_path)
    rc, _, err, _ = run_cli(["report", str(tmp_path / "r"), "-o", str(tmp_path / "rep.html")])
    assert rc == 2 and "report=" in err and "kept in" in err
    assert not (tmp_path / "rep.html").exists()
    kept = next(keep.iterdir())
    assert kept.read_text().rstrip().endswith("</html>")  # the whole page, not a truncated one


def test_bfs_work_cap_samples_or_refuses(monkeypatch):
    import fattree.analysis.properties as props
    from fattree.errors import ResourceError

    monkeypatch.setattr(props, "BFS_WORK_CAP", 1)
    topo = fattree.build("mikant:k=2,n=3")
    p = props.properties(topo, bisection=False)  # too many classes: a sample, said so
    assert "BFS work cap" in p["distance_method"] and not p["distances_exact"]
    with pytest.raises(ResourceError, match=r"beyond the cap of 1 .*--exact-limit"):
        props.properties(topo, symmetry=False, exact_limit=10**12, bisection=False)


def test_work_checks_of_the_library():
    from fattree.errors import ResourceError
    from fattree.sim.config import SimConfig
    from fattree.sim.memory import WORK_CAP, check_curve_work, check_work

    check_work("x", 1000, SimConfig(load=0.1))  # 1000 x 2000 cycles: fine
    with pytest.raises(ResourceError, match="node-cycles"):
        check_work("x", WORK_CAP // 1999, SimConfig(load=0.1))
    with pytest.raises(ResourceError, match=r"at 10,000 loads .* in all"):
        check_curve_work("x", 2000, [SimConfig(load=0.1)] * 10_000)
    # a hard cap set by the user bounds the work: the run ends there, labelled saturated
    check_work("x", 4, SimConfig(load=1e-300, max_cycles=1000))
