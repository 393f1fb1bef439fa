"""The Python API's helpers: floats beside fractions, load ranges, did-you-mean,
the saturation load of a curve."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

import fattree
from fattree.errors import ParameterError
from fattree.sim.config import parse_loads


def test_properties_have_floats_beside_fractions():
    p = fattree.properties("mikant:k=2,n=3", bisection=False)
    assert isinstance(p.avg_distance, Fraction)
    assert p.avg_distance_float == float(p.avg_distance)
    assert p["path_diversity_float"] == float(p.path_diversity)
    fl = p.floats()
    assert all(isinstance(v, float) for v in fl.values())
    assert fl["avg_distance"] == p.avg_distance_float and fl["nodes"] == float(p.nodes)
    pd.DataFrame([fl])  # plots and tables take it as is


def test_simulate_loads_takes_the_cli_range():
    assert parse_loads("0.1:0.3:0.1") == [0.1, 0.2, 0.3]
    df = fattree.simulate_loads("kant:k=2,n=2", "0.1:0.2:0.1", packets_per_source=10)
    assert list(df["offered_load"]) == [0.1, 0.2]
    with pytest.raises(ParameterError, match="START:STOP:STEP"):
        fattree.simulate_loads("kant:k=2,n=2", "0.1..0.2")
    with pytest.raises(ParameterError, match="at most 10000"):
        fattree.simulate_loads("kant:k=2,n=2", "0.00001:1:0.00001")


@pytest.mark.parametrize(
    "call,hint",
    [
        (lambda: fattree.simulate("kant:k=2,n=2", lod=0.1), "did you mean 'load'?"),
        (lambda: fattree.simulate_loads("kant:k=2,n=2", [0.1], trafic="uniform"), "'traffic'"),
        (lambda: fattree.fault_study("kant:k=2,n=2", rates=[0.1], trails=3), "'trials'"),
        (lambda: fattree.properties("kant:k=2,n=2", samplse=3), "'samples'"),
    ],
)
def test_misspelled_keywords_get_a_suggestion(call, hint):
    with pytest.raises(ParameterError, match="did you mean") as info:
        call()
    assert hint in str(info.value) and "\n" not in str(info.value)


def test_saturation_load_of_a_frame_and_of_results():
    df = pd.DataFrame(
        {
            "offered_load": [0.4, 0.1, 0.3, 0.2],
            "saturated": [True, False, True, False],
            "deadlock": [False, False, False, False],
        }
    )
    assert fattree.saturation_load(df) == 0.3
    df.loc[2, "deadlock"] = True  # a deadlock is not a saturation
    assert fattree.saturation_load(df) == 0.4
    assert fattree.saturation_load(df.assign(saturated=False)) is None
    with pytest.raises(ParameterError, match="offered_load and saturated"):
        fattree.saturation_load(pd.DataFrame({"load": [0.1]}))
    with pytest.raises(ParameterError, match="not a SimResult"):
        fattree.saturation_load([1, 2])


def test_saturation_load_of_a_simulated_curve():
    # kant(4,3), Algorithm 1, 2-flit buffers accepts at most about 0.233
    rs = [
        fattree.simulate("kant:k=4,n=3", load=x, buffer=2, algorithm="alg1", seed=1)
        for x in (0.2, 0.25)
    ]
    assert fattree.saturation_load(rs) == 0.25
