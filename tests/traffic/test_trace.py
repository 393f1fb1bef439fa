"""Trace files: format, errors naming the line."""

from __future__ import annotations

import pytest

from fattree.errors import InputFileError
from fattree.traffic import make_traffic, read_trace


def test_header_comments_commas_and_spaces(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("# my trace\ncycle,src,dst\n\n0,1,2\n4 3 0   # late\n4,0,3\n")
    c, s, d, lines = read_trace(p)
    assert c.tolist() == [0, 4, 4] and s.tolist() == [1, 3, 0] and d.tolist() == [2, 0, 3]
    assert lines.tolist() == [4, 5, 6]


@pytest.mark.parametrize("bad", ["0 1", "0 1 2 3", "a 1 2", "-1 0 1", "0 1 2.5"])
def test_bad_line_names_file_and_line(tmp_path, bad):
    p = tmp_path / "t.txt"
    p.write_text(f"0 0 1\n{bad}\n")
    with pytest.raises(InputFileError, match=r"t\.txt:2: expected three non-negative integers"):
        read_trace(p)


def test_node_out_of_range_names_the_line(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("0 0 1\n1 0 1\n2 9 1\n")
    with pytest.raises(InputFileError, match=r"t\.txt:3: node id out of range 0\.\.7"):
        make_traffic(f"trace:file={p}", 8)


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(InputFileError, match="cannot be read"):
        read_trace(tmp_path / "none.txt")
    p = tmp_path / "e.txt"
    p.write_text("# nothing\n")
    with pytest.raises(InputFileError, match="holds no packets"):
        read_trace(p)


def test_destinations_grouped_by_source_in_creation_order(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("5 0 3\n1 0 2\n1 1 0\n1 0 1\n")
    t = make_traffic(f"trace:file={p}", 4)
    # source 0 creates (cycle 1: 2, then 1 in file order), then cycle 5: 3
    assert t.table[:5].tolist() == [0, 3, 4, 4, 4]
    assert t.table[5:].tolist() == [2, 1, 3, 0]
