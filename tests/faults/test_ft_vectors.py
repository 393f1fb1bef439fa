"""Every route vector of mikant-routing-vectors.json, walked by the fault-tolerant kernel."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import fattree
from fattree.faults import ft_route
from fattree.faults.links import mikant_link_id, parse_link, read_fault_file
from fattree.errors import InputFileError, ParameterError

VECTORS = Path(__file__).resolve().parents[1] / "data" / "mikant-routing-vectors.json"
# The spec's combination names and ours (ALG1_000_LITERAL is a routing/ vector).
NAMES = {
    "ALG1": "sp",
    "SP": "sp",
    "GNS": "gns",
    "GDL": "gdl",
    "TT": "tt",
    "GNS+XT": "gns+xt",
    "ALL": "gns+tt+xt+gdl",
    "ALL+ROOT": "gns+tt+xt+gdl+root",
    "ALL+UPALT": "gns+tt+xt+gdl+upalt",
}


def _route_vectors():
    data = json.loads(VECTORS.read_text())
    return [v for v in data["vectors"] if v["kind"] == "route" and v["algorithm"] in NAMES]


def _lab(prefix, digits):
    return prefix + ".".join(map(str, digits))


def _run(vec):
    t = fattree.build(f"mikant:k={vec['k']},n={vec['n']}")
    mask = np.zeros(t.n_links, bool)
    for lid in vec["faulty_links"]:
        mask[mikant_link_id(t, lid)] = True
    src = t.find(_lab("n", vec["src"])) if "src" in vec else None
    start = t.find(_lab("s", vec["start_switch"])) - t.n_nodes if "start_switch" in vec else None
    return t, ft_route(
        t,
        NAMES[vec["algorithm"]],
        src,
        t.find(_lab("n", vec["dst"])),
        mask,
        model=vec.get("model", "local"),
        start_switch=start,
    )


def test_there_are_many_vectors():
    assert len(_route_vectors()) >= 25


@pytest.mark.parametrize("vec", _route_vectors() if VECTORS.exists() else [], ids=lambda v: v["id"])
def test_route_vector(vec):
    _, r = _run(vec)
    e = vec["expected"]
    assert r.success == e["success"], r
    switches = [p for p in r.path if p.startswith("s")]
    assert switches == [_lab("s", s) for s in e["switches"]]
    if e["success"]:
        assert r.hops == e["path_length"]
        if "ports" in e:
            assert r.ports == e["ports"]
    elif "failure" in e and e["failure"] in ("no applicable detour", "detour dead end"):
        assert r.status == e["failure"]


def test_link_ids_of_001():
    t = fattree.build("mikant:k=3,n=3")
    ends = lambda e: sorted(t.vertex_label(int(v)) for v in t.links[e])  # noqa: E731
    assert ends(mikant_link_id(t, [1, 2, 0, 0, 0])) == ["s0.1.0.0", "s1.1.0.0"]
    assert ends(mikant_link_id(t, [0, 1, 0, 0, 0])) == ["s0.0.0.0", "s0.1.0.0"]
    assert ends(mikant_link_id(t, [0, 0, 1, 2, 2])) == ["n0.2.1.2", "s0.0.1.2"]


def test_fault_file(tmp_path):
    t = fattree.build("mikant:k=3,n=3")
    f = tmp_path / "faults.txt"
    f.write_text("# two faults\ns0.1.0.0 s1.1.0.0\n<0,1,0,0,0>\n\n")
    mask = read_fault_file(t, f)
    assert mask.sum() == 2
    f.write_text("s0.1.0.0 s1.1.0.0\ns0.1.0.0 s0.1.0.1\n")
    with pytest.raises(InputFileError, match=r"faults.txt:2: .*not adjacent"):
        read_fault_file(t, f)
    f.write_text("s0.9.0.0 s1.1.0.0\n")
    with pytest.raises(InputFileError, match=r":1: .*does not exist"):
        read_fault_file(t, f)
    with pytest.raises(InputFileError, match="does not exist"):
        read_fault_file(t, tmp_path / "missing.txt")
    with pytest.raises(ParameterError, match="out of range"):
        parse_link(t, "<1,2,0,0,7>")


def test_papers_algorithms_never_loop():
    # spec §3.0: every route terminates; the TTL must never fire
    from fattree.faults.montecarlo import evaluate

    st = evaluate(
        fattree.build("mikant:k=3,n=4"),
        "all",
        [0.05, 0.2, 0.5],
        3000,
        seed=3,
        models=("local", "lookahead"),
    )
    assert all(r["ttl_fired"] == 0 for r in st.rows if r["algorithm"] != "escape")
