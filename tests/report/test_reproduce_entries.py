"""The reproduction registry after the split: new entries run (tiny scale) and write files."""

from __future__ import annotations

import base64

import pytest

from fattree.analysis.kncube import TABLES_002
from fattree.cli import main
from fattree.report.html import outcome_html
from fattree.report.reproduce import REPRODUCTIONS, reproduce

NEW = ["001-fig6", "004-fig3", "003-table1b", "003-fig10"]


def test_every_paper_has_its_entries():
    names = set(REPRODUCTIONS)
    assert {f"002-table{i}" for i in range(1, len(TABLES_002) + 1)} <= names
    assert REPRODUCTIONS.get("002-table1").title.startswith("cube-bisection-4096:")
    assert set(NEW) <= names
    assert {"003-table1", "003-table2", "000-table1", "001-fig8", "004-fig5"} <= names


@pytest.mark.slow
@pytest.mark.parametrize("name", NEW)
def test_simulation_entries_run_tiny_and_write(tmp_path, name):
    (r,) = reproduce(name, tmp_path, quick=True)
    assert r.status in ("agree", "disagree", "no verdict"), r.finding
    d = tmp_path / name
    assert (d / f"{name}.png").stat().st_size > 0
    readme = (d / "README.md").read_text()
    assert "What the paper claims" in readme and r.status in readme
    assert list(d.glob("*.csv"))
    assert "10 packets per source" in r.finding  # the scale is stated, not hidden
    # the report embeds the PNG written, byte for byte, instead of drawing the figure again
    assert r.figures == [d / f"{name}.png"]
    png = base64.b64encode((d / f"{name}.png").read_bytes()).decode()
    assert f'src="data:image/png;base64,{png}"' in outcome_html(r)


@pytest.mark.slow
def test_003_hops_rsminft_shorter(tmp_path):
    (r,) = reproduce("003-table1b", tmp_path, quick=True)
    df = r.tables["average hops"]
    assert set(df["clients"]) == {8, 16} and (df["rsminft - minft"] < 0).all()
    assert r.status == "agree"


def test_002_tables_flag_inconsistencies(tmp_path):
    res = reproduce(["002-table1", "002-table5"], tmp_path)
    assert [r.status for r in res] == ["agree", "disagree"]
    assert "D" in res[1].finding and "rows differ" in res[1].finding
    assert (tmp_path / "002-table5" / "fattree-hops-16384.csv").exists()
    assert "002-table5" in (tmp_path / "index.md").read_text()


@pytest.mark.slow
def test_cli_as_typed(tmp_path, capsys):
    assert main(["reproduce", "002-table2", "-o", str(tmp_path)]) == 0
    assert (tmp_path / "002-table2" / "README.md").exists()
    assert main(["reproduce", "004-fig3", "-o", str(tmp_path), "--quick"]) == 0
    assert (tmp_path / "004-fig3" / "004-fig3.png").exists()


def test_cli_unknown_name_one_line_exit_2(tmp_path, capsys):
    assert main(["reproduce", "002-tabel1", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error:")
    assert "002-table10" in err and "003-fig10" in err
    assert not (tmp_path / "index.md").exists()
