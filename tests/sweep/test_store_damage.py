"""A damaged results store never passes as complete: checksums, quarantine, recompute."""

from __future__ import annotations

import json
import warnings

import pytest

from fattree.errors import DamagedDataWarning
from fattree.sweep.engine import run_study
from fattree.sweep.store import ResultStore
from fattree.sweep.study import parse_study

STUDY = """\
[study]
name = "damage"
kind = "topology"
[parameters]
topology = ["kant:k=2,n=2", "kant:k=2,n=3", "mikant:k=2,n=3"]
distances = "none"
"""

DAMAGE = {
    "truncated": lambda b: b[: len(b) // 2],
    "empty": lambda b: b"",
    "garbage": lambda b: b"not a parquet file at all" * 10,
    "flipped": lambda b: b[:100] + bytes([b[100] ^ 0xFF]) + b[101:],
}


def _sweep(path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = run_study(parse_study(STUDY), path, workers=0)
    return summary, [w for w in caught if issubclass(w.category, DamagedDataWarning)]


def test_manifest_records_a_checksum_per_part(tmp_path):
    _sweep(tmp_path / "r")
    files = json.loads((tmp_path / "r" / "manifest.json").read_text())["files"]
    parts = sorted((tmp_path / "r" / "parts").glob("*.parquet"))
    assert len(parts) == 3 and sorted(files) == [f"parts/{p.name}" for p in parts]
    assert all(
        len(v["sha256"]) == 64 and v["bytes"] == (tmp_path / "r" / k).stat().st_size
        for k, v in files.items()
    )


@pytest.mark.parametrize("how", sorted(DAMAGE))
def test_damaged_part_is_quarantined_and_recomputed(tmp_path, how):
    out = tmp_path / "r"
    _sweep(out)
    before = ResultStore(out).read().set_index("config_hash")["nodes"].to_dict()
    part = sorted((out / "parts").glob("*.parquet"))[1]
    part.write_bytes(DAMAGE[how](part.read_bytes()))
    # readers skip the damaged file with one warning, no pyarrow error
    with pytest.warns(DamagedDataWarning, match="damaged"):
        df = ResultStore(out).read()
    assert len(df) == 2 and part.stem not in set(df["config_hash"])
    assert df.attrs["damaged"][0][0] == f"parts/{part.name}"
    # a resumed sweep says so, moves the file aside and computes the point again
    summary, warned = _sweep(out)
    assert (summary.done, summary.skipped) == (1, 2)
    assert len(warned) == 1 and "quarantine" in str(warned[0].message)
    assert [q for q, _ in summary.quarantined] == [f"parts/{part.name}"]
    assert len(list((out / "quarantine").iterdir())) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", DamagedDataWarning)
        after = ResultStore(out).read().set_index("config_hash")["nodes"].to_dict()
    assert after == before
    # and a third run has nothing left to do
    summary, warned = _sweep(out)
    assert (summary.done, summary.skipped, warned) == (0, 3, [])


def test_damaged_compacted_file_is_recomputed(tmp_path):
    out = tmp_path / "r"
    _sweep(out)
    st = ResultStore(out)
    with st.lock():
        assert st.compact() == 3
    (data,) = (out / "data").glob("compact-*.parquet")
    data.write_bytes(data.read_bytes()[:50])
    with pytest.warns(DamagedDataWarning):
        assert len(ResultStore(out).read()) == 0
    summary, warned = _sweep(out)
    assert (summary.done, summary.skipped, len(warned)) == (3, 0, 1)
    assert len(ResultStore(out).read()) == 3


def test_part_without_checksum_is_adopted_if_it_holds_its_point(tmp_path):
    out = tmp_path / "r"
    _sweep(out)
    m = json.loads((out / "manifest.json").read_text())
    m["files"] = {}  # a sweep killed between writing a part and the manifest
    (out / "manifest.json").write_text(json.dumps(m))
    summary, warned = _sweep(out)
    assert (summary.done, summary.skipped, warned) == (0, 3, [])
    assert len(json.loads((out / "manifest.json").read_text())["files"]) == 3


def test_renamed_part_is_not_taken_for_another_point(tmp_path):
    out = tmp_path / "r"
    _sweep(out)
    a, b = sorted((out / "parts").glob("*.parquet"))[:2]
    m = json.loads((out / "manifest.json").read_text())
    m["files"].pop(f"parts/{b.name}")
    (out / "manifest.json").write_text(json.dumps(m))
    b.write_bytes(a.read_bytes())  # a valid file, but of another point
    summary, warned = _sweep(out)
    assert summary.done == 1 and "does not hold the point" in str(warned[0].message)


def test_results_of_another_version_are_reused_with_a_warning(tmp_path):
    from fattree.errors import StaleResultsWarning

    out = tmp_path / "r"
    _sweep(out)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # same version: resumed silently
        assert run_study(parse_study(STUDY), out, workers=0).skipped == 3
    m = json.loads((out / "manifest.json").read_text())
    m["written_by"] = "0.0.1"
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.warns(StaleResultsWarning, match="3 points already stored by fattree 0.0.1"):
        run_study(parse_study(STUDY), out, workers=0)
