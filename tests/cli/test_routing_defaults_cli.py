"""Issue 13 as a user types it: balanced default routings, the warning that names a better
routing, and reproductions that keep the papers' Algorithm 1."""

from __future__ import annotations

import json

import pytest

from fattree.cli import main


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "spec,alg",
    [("kant:k=4,n=2", "dmodk"), ("clos:k=2,n=3", "dmodk"), ("mikant:k=2,n=3", "balanced")],
)
def test_simulate_default_is_balanced_and_silent(capsys, spec, alg):
    code, out, err = run(capsys, "simulate", spec, "--load", "0.1", "-P", "10", "--json")
    assert code == 0
    assert json.loads(out)["algorithm"] == alg
    assert "warning" not in err


def test_simulate_alg1_warns_once_naming_a_better_routing(capsys):
    code, out, err = run(
        capsys, "simulate", "kant:k=4,n=3", "--algorithm", "alg1", "--load", "0.05", "-P", "5"
    )
    assert code == 0
    lines = [x for x in err.splitlines() if x.startswith("warning:")]
    assert len(lines) == 1
    assert "alg1" in lines[0] and "0.2625" in lines[0] and "--algorithm dmodk" in lines[0]
    assert "1.0000" in lines[0]


def test_simulate_close_routing_does_not_warn(capsys):
    # dmodk on MiKANT(4,3): 0.496 against balanced's 0.794, not "far below"
    code, out, err = run(
        capsys, "simulate", "mikant:k=4,n=3", "--algorithm", "dmodk", "--load", "0.05", "-P", "5"
    )
    assert code == 0 and "warning" not in err


def test_routing_load_balanced_cli(capsys):
    code, out, err = run(capsys, "routing", "load", "mikant:k=4,n=3", "-a", "balanced", "--json")
    assert code == 0
    assert json.loads(out)["bound"] == pytest.approx(0.7938, abs=1e-4)
    code, out, err = run(capsys, "deadlock", "mikant:k=4,n=3", "-a", "balanced")
    assert code == 0 and "acyclic" in out


@pytest.mark.parametrize("name", ["flagship", "flagship-quick"])
def test_flagship_reproduces_with_alg1(name):
    from fattree.sweep.study import builtin_study

    study = builtin_study(name).select(["latency"])
    points = list(study.points())
    assert points and all(p.config["algorithm"] == "alg1" for p in points)


def test_reproduction_refuses_a_study_without_alg1(monkeypatch, tmp_path):
    import fattree.sweep.study as S
    from fattree.errors import ParameterError
    from fattree.report.reproduce import Context
    from fattree.report.reproduce.p000 import _sim_frame

    text = (
        '[study]\nname = "mine"\n[[experiment]]\nname = "latency"\nkind = "simulate"\n'
        '[experiment.parameters]\ntopology = "mikant:k=2,n=3"\nload = 0.1\n'
    )
    monkeypatch.setattr(S, "builtin_study", lambda name: S.parse_study(text))
    ctx = Context(out=tmp_path, workers=0, scheduler=None, progress=None, study="mine", quick=True)
    with pytest.raises(ParameterError, match='algorithm = "alg1"'):
        _sim_frame(ctx)
