"""001-fig7, 004-fig4, 003-fig10b: registered, run in quick mode, write their files."""

from __future__ import annotations

import pytest

from fattree.report.reproduce import REPRODUCTIONS, reproduce

MORE = ["001-fig7", "004-fig4", "003-fig10b"]


@pytest.mark.slow
@pytest.mark.parametrize("name", MORE)
def test_entry_runs_quick_and_writes(tmp_path, name):
    assert name in REPRODUCTIONS
    (r,) = reproduce(name, tmp_path, quick=True)
    assert r.status in ("agree", "disagree"), r.finding
    d = tmp_path / name
    assert (d / f"{name}.png").stat().st_size > 0
    assert list(d.glob("*.csv"))
    readme = (d / "README.md").read_text()
    assert "What the paper claims" in readme and r.status in readme


@pytest.mark.slow
def test_001_fig7_counts_from_the_graph(tmp_path):
    (r,) = reproduce("001-fig7", tmp_path)
    df = r.tables["drawn vs graph vs closed form"].set_index("property")
    assert df["drawn"].to_dict() == {"nodes": 54, "switches": 36, "links": 135}
    assert r.status == "agree" and "54 nodes, 36 switches and 135 links" in r.finding


@pytest.mark.slow
def test_004_fig4_shares_faults_and_judges_paper_algorithms(tmp_path):
    (r,) = reproduce("004-fig4", tmp_path, quick=True)
    df = r.tables["success ratio"]
    assert set(df["algorithm"]) == {
        "sp",
        "cube",
        "gns+xt+gdl",
        "cube+gns+xt+gdl",
        "cube+escape",
        "oracle",
    }
    assert len(set(df["rate"])) == 21 and "300 trials" in r.finding
    piv = df.pivot_table(index="rate", columns="algorithm", values="success_ratio")
    assert (piv.loc[0.0] == 1.0).all()
    # the oracle bounds every local algorithm on the same faults and pairs
    assert (piv.drop(columns="oracle").le(piv["oracle"], axis=0)).all().all()


@pytest.mark.slow
def test_003_fig10b_partial_group_equals_summit(tmp_path):
    (r,) = reproduce("003-fig10b", tmp_path, quick=True)
    w = r.tables["average latency"]
    assert set(w["clients"]) == {8, 16}
    assert (w["minft partial-group"] == w["minft summit"]).all()
    assert "all-to-one" in r.finding and "10 packets per source" in r.finding
