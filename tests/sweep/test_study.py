"""Study files: parsing, strict validation with line numbers, zips, ranges, hashes, seeds."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings, strategies as st

from fattree.errors import InputFileError
from fattree.sweep.study import (
    builtin_studies,
    builtin_study,
    config_hash,
    derive_seed,
    load_study,
    parse_study,
)

BASIC = """\
[study]
name = "basic"
kind = "topology"
seed = 3

[parameters]
topology = ["kant:k=2,n=2", "mikant:k=2,n=3"]
distances = ["none", "classes"]
"""


def _err(text: str, name: str = "s.toml") -> str:
    with pytest.raises(InputFileError) as exc:
        parse_study(text, name)
    msg = str(exc.value)
    assert "\n" not in msg  # one line for the CLI
    return msg


def test_product_and_replicates():
    s = parse_study(BASIC)
    pts = s.points()
    assert [(p.params["topology"], p.params["distances"]) for p in pts] == [
        ("kant:k=2,n=2", "none"),
        ("kant:k=2,n=2", "classes"),
        ("mikant:k=2,n=3", "none"),
        ("mikant:k=2,n=3", "classes"),
    ]
    three = parse_study(BASIC.replace("seed = 3", "seed = 3\nreplicates = 3"))
    assert len(three.points()) == 12
    assert len({p.config_hash for p in three.points()}) == 12
    assert len({p.seed for p in three.points()}) == 12
    assert {p.config["replicate"] for p in three.points()} == {0, 1, 2}
    # derived columns: family and its parameters, not part of the hash
    assert pts[2].columns == {"family": "mikant", "k": 2, "n": 3}
    assert "family" not in pts[2].config


def test_unknown_parameter_names_key_line_and_suggestion(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text(BASIC.replace("distances =", "distance ="))
    with pytest.raises(InputFileError) as exc:
        load_study(f)
    msg = str(exc.value)
    assert msg.startswith(f"{f}:8: ")
    assert "'distance'" in msg and "did you mean 'distances'" in msg


def test_unknown_keys_in_study_and_top_level():
    msg = _err(BASIC.replace("seed = 3", "sed = 3"))
    assert msg.startswith("s.toml:4: ") and "'sed'" in msg and "did you mean 'seed'" in msg
    msg = _err(BASIC.replace("[parameters]", "[paramters]"))
    assert "'paramters'" in msg and "did you mean 'parameters'" in msg
    assert msg.startswith("s.toml:6: ")


def test_wrong_types_name_key_and_line():
    msg = _err(BASIC.replace("seed = 3", 'seed = "three"'))
    assert msg.startswith("s.toml:4: ") and "study.seed" in msg and "an integer" in msg
    msg = _err(BASIC.replace('distances = ["none", "classes"]', "distances = 3"))
    assert msg.startswith("s.toml:8: ") and "distances" in msg and "a string" in msg
    msg = _err(BASIC.replace('distances = ["none", "classes"]', 'distances = ["none", 3]'))
    assert msg.startswith("s.toml:8: ")
    # a value of the right type but outside what the kind allows
    msg = _err(BASIC.replace('distances = ["none", "classes"]', 'distances = "most"'))
    assert msg.startswith("s.toml:8: ") and "'most'" in msg
    msg = _err(BASIC.replace('"kant:k=2,n=2"', '"kantt:k=2,n=2"'))
    assert msg.startswith("s.toml:7: ") and "did you mean 'kant'" in msg
    msg = _err(BASIC.replace("[parameters]", "replicates = 0\n[parameters]"))
    assert "replicates = 0" in msg


def test_invalid_toml_and_missing_file(tmp_path):
    msg = _err("[study\nkind = 1\n")
    assert "invalid TOML" in msg and "line 1" in msg
    with pytest.raises(InputFileError, match="does not exist"):
        load_study(tmp_path / "nope.toml")


def test_missing_required_parameter_and_unknown_kind():
    msg = _err('[study]\nkind = "topology"\n[parameters]\ndistances = "none"\n')
    assert "missing parameter 'topology'" in msg
    msg = _err('[study]\nkind = "topolgy"\n[parameters]\n')
    assert msg.startswith("s.toml:2: ") and "did you mean 'topology'" in msg


def test_zip_advances_axes_together():
    text = BASIC.replace("seed = 3", 'seed = 3\nzip = [["topology", "distances"]]')
    pts = parse_study(text).points()
    assert [(p.params["topology"], p.params["distances"]) for p in pts] == [
        ("kant:k=2,n=2", "none"),
        ("mikant:k=2,n=3", "classes"),
    ]
    msg = _err(text.replace('["none", "classes"]', '["none", "classes", "all"]'))
    assert "equal length" in msg and "topology has 2" in msg and msg.startswith("s.toml:5: ")
    msg = _err(text.replace('["topology", "distances"]', '["topology", "distancse"]'))
    assert "'distancse'" in msg and "did you mean 'distances'" in msg


def test_range_matches_hand_written_list():
    base = '[study]\nkind = "simulate"\n[parameters]\ntopology = "kant:k=2,n=2"\n'
    ranged = parse_study(base + "load = {start = 0.05, stop = 1.0, step = 0.05}\n").points()
    listed = ", ".join(f"{0.05 * i:.2f}" for i in range(1, 21))
    by_hand = parse_study(base + f"load = [{listed}]\n").points()
    assert len(ranged) == 20
    assert [p.config_hash for p in ranged] == [p.config_hash for p in by_hand]
    msg = _err(base + "load = {start = 0.1, stop = 0.2, step = 0.03}\n")
    assert "multiple of a positive step" in msg and msg.startswith("s.toml:5: ")
    msg = _err(base + "load = {start = 0.1, stop = 0.2, stepp = 0.05}\n")
    assert "did you mean 'step'" in msg


def test_canonical_topology_spec_gives_same_hash():
    a = parse_study(BASIC).points()
    b = parse_study(BASIC.replace('"mikant:k=2,n=3"', '"MiKANT: n=3, k=2"')).points()
    assert [p.config_hash for p in a] == [p.config_hash for p in b]


def _mapping(text):
    return {p.config_hash: p.seed for p in parse_study(text).points()}


@settings(max_examples=25, deadline=None)
@given(
    st.permutations(["kant:k=2,n=2", "kant:k=2,n=3", "mikant:k=2,n=3", "clos:k=2,n=2"]),
    st.permutations(["none", "classes", "all"]),
)
def test_seeds_do_not_depend_on_order(topos, modes):
    ref = _mapping(
        BASIC.replace(
            '["kant:k=2,n=2", "mikant:k=2,n=3"]',
            '["kant:k=2,n=2", "kant:k=2,n=3", "mikant:k=2,n=3", "clos:k=2,n=2"]',
        ).replace('["none", "classes"]', '["none", "classes", "all"]')
    )
    text = BASIC.replace(
        '["kant:k=2,n=2", "mikant:k=2,n=3"]', str(list(topos)).replace("'", '"')
    ).replace('["none", "classes"]', str(list(modes)).replace("'", '"'))
    lines = text.splitlines()
    # the order of keys in the file does not matter either
    lines[6], lines[7] = lines[7], lines[6]
    assert _mapping("\n".join(lines) + "\n") == ref


def test_seed_depends_on_study_seed_and_config():
    a = _mapping(BASIC)
    b = _mapping(BASIC.replace("seed = 3", "seed = 4"))
    assert set(a).isdisjoint(b)  # the study seed is part of the configuration
    assert len(set(a.values())) == len(a)
    h = "0123456789abcdef" * 4
    assert derive_seed(1, h) != derive_seed(2, h)
    assert 0 <= derive_seed(2**40, h) < 2**63
    assert config_hash({"a": 1.0}) != config_hash({"a": 1.5})


def test_common_random_numbers_share_seeds_across_algorithms():
    text = (
        '[study]\nkind = "faults"\n[parameters]\ntopology = "mikant:k=3,n=3"\n'
        'algorithm = ["sp", "gns"]\nrate = [0.1, 0.2]\ntrials = 10\n'
    )
    pts = parse_study(text).points()
    by = {(p.params["algorithm"], p.params["rate"]): p for p in pts}
    assert by[("sp", 0.1)].seed == by[("gns", 0.1)].seed
    assert by[("sp", 0.1)].config_hash != by[("gns", 0.1)].config_hash
    assert by[("sp", 0.1)].seed != by[("sp", 0.2)].seed
    msg = _err(text.replace('"gns"', '"gnss"'))
    assert msg.startswith("s.toml:5: ") and "'gns'" in msg


EXPERIMENTS = """\
[study]
name = "multi"
seed = 1

[parameters]
distances = "none"

[[experiment]]
name = "small"
kind = "topology"
[experiment.parameters]
topology = ["kant:k=2,n=2"]

[[experiment]]
name = "medium"
kind = "topology"
[experiment.parameters]
topology = ["kant:k=2,n=3", "kant:k=2,n=2"]
"""


def test_experiments_share_parameters_and_dedupe():
    s = parse_study(EXPERIMENTS)
    assert [e.name for e in s.experiments] == ["small", "medium"]
    pts = s.points()
    # kant:k=2,n=2 appears in both experiments: one point (same configuration)
    assert [p.params["topology"] for p in pts] == ["kant:k=2,n=2", "kant:k=2,n=3"]
    assert all(p.params["distances"] == "none" for p in pts)
    assert [p.experiment for p in pts] == ["small", "medium"]
    assert [p.params["topology"] for p in s.select(["medium"]).points()] == [
        "kant:k=2,n=3",
        "kant:k=2,n=2",
    ]


def test_line_numbers_inside_the_second_experiment():
    msg = _err(
        EXPERIMENTS.replace(
            'topology = ["kant:k=2,n=3", "kant:k=2,n=2"]', 'topologie = ["kant:k=2,n=3"]'
        )
    )
    assert msg.startswith("s.toml:18: ") and "did you mean 'topology'" in msg
    msg = _err(EXPERIMENTS.replace('name = "medium"', 'nme = "medium"'))
    assert msg.startswith("s.toml:15: ") and "did you mean 'name'" in msg
    msg = _err(EXPERIMENTS.replace('distances = "none"', 'distances = "nothing"'))
    assert msg.startswith("s.toml:6: ")


def test_report_section_is_checked():
    msg = _err(BASIC + '\n[report]\nplots = ["latncy"]\n')
    assert "did you mean 'latency'" in msg and re.match(r"s\.toml:11: ", msg)
    msg = _err(BASIC + '\n[report]\ntitel = "x"\n')
    assert "did you mean 'title'" in msg


def test_shipped_studies_parse():
    assert {"flagship", "flagship-full", "flagship-quick"} <= set(builtin_studies())
    flag = builtin_study("flagship-full")  # the papers' full scale (--full)
    kinds = {e.name: e.kind for e in flag.experiments}
    assert kinds == {
        "latency": "simulate",
        "balanced": "simulate",
        "faults": "faults",
        "properties": "topology",
    }
    lat = flag.select(["latency"]).points()
    assert len(lat) == 2 * 2 * 20  # MiKANT/Clos(4,5) x uniform/bit-inversion x 20 loads
    assert {p.params["topology"] for p in lat} == {"mikant:k=4,n=5", "clos:k=4,n=5"}
    assert sorted({p.params["load"] for p in lat})[:3] == [0.05, 0.1, 0.15]
    random.seed(0)
    assert builtin_study("flagship-full").points() == flag.points()
    small = builtin_study("flagship").select(["latency"]).points()  # make run's reduced one
    assert len(small) == 2 * 2 * 10 and {p.params["topology"] for p in small} == {
        "mikant:k=4,n=5",
        "clos:k=4,n=5",
    }
