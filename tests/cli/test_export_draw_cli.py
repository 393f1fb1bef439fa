"""``fattree export`` and ``fattree draw`` as a user types them, and the drawing layout."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fattree
from fattree.cli import main
from fattree.report.draw import draw, layout
from fattree.topology.export import export_bytes

FATTREE = Path(sys.executable).with_name("fattree")


def run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, *needles):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------------- export
@pytest.mark.slow
def test_export_to_stdout_is_the_library_output():
    res = subprocess.run(
        [str(FATTREE), "export", "mikant:k=2,n=3", "--format", "edgelist"],
        capture_output=True,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout == export_bytes(fattree.build("mikant:k=2,n=3"), "edgelist")


@pytest.mark.parametrize("fmt", ["edgelist", "json", "graphml", "dot", "booksim"])
def test_export_every_format_to_a_file(fmt, tmp_path, capsys):
    out = tmp_path / f"kantc.{fmt}"
    code, _, err = run(["export", "kantc:k=2,n=2", "-f", fmt, "-o", out], capsys)
    assert code == 0 and f"wrote {out}" in err
    assert out.read_bytes() == export_bytes(fattree.build("kantc:k=2,n=2"), fmt)
    assert Path(str(out) + ".labels").exists() == (fmt == "booksim")


def test_export_json_in_process_stdout(capsys):
    code, out, _ = run(["export", "kant:k=2,n=2", "-f", "json"], capsys)
    assert code == 0 and json.loads(out)["family"] == "kant"


def test_export_bad_input_is_one_line_exit_2(tmp_path, capsys):
    code, out, err = run(["export", "mikant:k=3,n=3", "--format", "xml"], capsys)
    one_line_error(
        code, err, "unknown export format 'xml'", "booksim, dot, edgelist, graphml, json"
    )
    assert out == ""
    code, _, err = run(["export", "mikant:k=3,n=3", "-o", tmp_path / "no" / "x.txt"], capsys)
    one_line_error(code, err, "cannot be written", "does not exist")
    code, _, err = run(["export", "mikant:k=3,n=3", "-o", tmp_path], capsys)
    one_line_error(code, err, "is a directory")
    code, _, err = run(["export", "mikant:k=1,n=3"], capsys)
    one_line_error(code, err, "k=1")
    code, _, err = run(["export", "nosuch:k=3"], capsys)
    one_line_error(code, err, "unknown family 'nosuch'")


def test_export_import_via_cli(tmp_path, capsys):
    el = tmp_path / "m.txt"
    assert run(["export", "mikant:k=3,n=3", "-o", el], capsys)[0] == 0
    gm = tmp_path / "m.graphml"
    code, _, err = run(["export", f"graph:file={el}", "-f", "graphml", "-o", gm], capsys)
    assert code == 0, err
    t = fattree.build(f"graph:file={gm}")
    assert (t.n_nodes, t.n_switches, t.n_links) == (54, 36, 135)


@pytest.mark.slow
def test_info_on_an_imported_graph(tmp_path, capsys):
    gm = tmp_path / "c.graphml"
    assert run(["export", "clos:k=2,n=3", "-f", "graphml", "-o", gm], capsys)[0] == 0
    code, out, err = run(["info", f"graph:file={gm}", "--json"], capsys)
    assert code == 0, err
    got = json.loads(out)
    code, out, _ = run(["info", "clos:k=2,n=3", "--json"], capsys)
    ref = json.loads(out)
    for key in ("nodes", "switches", "links", "diameter", "avg_distance", "avg_distance_excl_self"):
        assert got[key] == ref[key], key


def test_import_errors_via_cli(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("n0 s0\nn1 s0\nthis line is wrong\n")
    code, _, err = run(["export", f"graph:file={bad}"], capsys)
    one_line_error(code, err, str(bad), "line 3")
    code, _, err = run(["export", f"graph:file={tmp_path / 'none.graphml'}"], capsys)
    one_line_error(code, err, "does not exist")
    iso = tmp_path / "split.txt"
    iso.write_text("n0 s0\nn1 s0\nn2 s1\n")
    code, _, err = run(["export", f"graph:file={iso}"], capsys)
    one_line_error(code, err, "disconnected", "'n2'")


# ---------------------------------------------------------------------- layout
def test_mikant_layout_like_000_fig3():
    t = fattree.build("mikant:k=3,n=3")
    lay = layout(t)
    n = t.n_nodes
    group = t.node_digits[:, 0]
    sw_y = lay.y[n:]
    # group-0 nodes below every switch, group-1 nodes above (000 Fig. 3)
    assert np.all(lay.y[:n][group == 0] < sw_y.min()) and np.all(lay.y[:n][group == 1] > sw_y.max())
    # four rows of nine switches; group 1 stacked above group 0
    rows = {float(y): int(c) for y, c in zip(*np.unique(sw_y, return_counts=True))}
    assert list(rows.values()) == [9, 9, 9, 9]
    g_sw = t.switch_digits[:, 0]
    assert sw_y[g_sw == 1].min() > sw_y[g_sw == 0].max()
    # each leaf switch sits at the centre of its nodes
    for s in np.flatnonzero(t.switch_level == 0):
        assert lay.x[n + s] == pytest.approx(lay.x[:n][t.node_switch == s].mean())
    # every link joins adjacent rows; cross links join the two middle rows
    row_of = {y: i for i, y in enumerate(sorted(set(lay.y.tolist())))}
    r = np.array([row_of[y] for y in lay.y.tolist()])
    assert np.all(np.abs(r[t.links[:, 0]] - r[t.links[:, 1]]) == 1)


@pytest.mark.parametrize(
    "spec,above", [("kant:k=3,n=3", 0), ("clos:k=2,n=3", 8), ("mikant:k=2,n=4", 16)]
)
def test_nodes_above_and_below(spec, above):
    t = fattree.build(spec)
    lay = layout(t)
    assert int((lay.y[: t.n_nodes] > lay.y[t.n_nodes :].max()).sum()) == above
    assert int((lay.y[: t.n_nodes] < lay.y[t.n_nodes :].min()).sum()) == t.n_nodes - above


def test_cube_nodes_hang_next_to_their_switch():
    t = fattree.build("hypercube:d=3,p=2")
    lay = layout(t)
    n = t.n_nodes
    gap = np.abs(lay.y[:n] - lay.y[n + t.node_switch])
    assert np.all(gap > 0) and np.all(np.abs(lay.x[:n] - lay.x[n + t.node_switch]) < 1.0)


# ---------------------------------------------------------------------- draw
@pytest.mark.slow
def test_draw_svg_with_labels_and_ports(tmp_path, capsys):
    out = tmp_path / "m33.svg"
    code, _, err = run(["draw", "mikant:k=3,n=3", "-o", out, "--ports"], capsys)
    assert code == 0, err
    svg = out.read_text()
    assert svg.startswith("<?xml") and "<svg" in svg
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert {"1.0.0.0", "0.1.2.2"} <= set(texts)  # switch labels <G,L,D1,D0> without the 's'
    ports = [x for x in texts if x.isdigit() and len(x) == 1]
    # one port number at every used switch port (36 switches of radix 6)
    assert len(ports) == int(fattree.build("mikant:k=3,n=3").radix.sum()) == 216


@pytest.mark.slow
def test_draw_png_and_pdf(tmp_path):
    t = fattree.build("clos:k=2,n=2")
    png = draw(t, tmp_path / "c.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert draw(t, tmp_path / "c.pdf").read_bytes()[:5] == b"%PDF-"


def test_draw_refuses_big_networks_before_building(tmp_path, capsys):
    # MiKANT(16,5) has 2 million nodes: refused from its size alone, instantly
    code, _, err = run(["draw", "mikant:k=16,n=5", "-o", tmp_path / "x.svg"], capsys)
    one_line_error(code, err, "2,621,440 vertices", "max_vertices=2,000", "fattree export")
    assert not (tmp_path / "x.svg").exists()


def test_draw_bad_input(tmp_path, capsys):
    code, _, err = run(["draw", "mikant:k=3,n=3", "-o", tmp_path / "x.jpg"], capsys)
    one_line_error(code, err, "unknown suffix", ".svg, .png, .pdf")
    code, _, err = run(["draw", "mikant:k=3,n=3", "-o", tmp_path / "none" / "x.svg"], capsys)
    one_line_error(code, err, "cannot be written")
    code, _, err = run(
        ["draw", "mikant:k=3,n=3", "-o", tmp_path / "x.svg", "--max-vertices", "50"], capsys
    )
    one_line_error(code, err, "90 vertices")
