"""One parameter system: the four kinds of parameters share fattree.params.Parameter's
conversion and range check, each with its own messages."""

from __future__ import annotations

import pytest

from fattree.analysis.closed_forms import FORMS  # the registration module fills it
from fattree.analysis.formset import ParamSpec
from fattree.errors import ParameterError
from fattree.params import Invalid, Parameter
from fattree.sweep.tasks import TaskParam
from fattree.topology.family import FAMILIES, Param
from fattree.traffic._options import Opt


@pytest.mark.parametrize("cls", [Param, ParamSpec, Opt, TaskParam])
def test_every_parameter_class_is_a_parameter(cls):
    assert issubclass(cls, Parameter)


def test_lenient_conversion():
    p = Opt("x", "", 0, int, minimum=0, maximum=9)
    assert p.parse("4") == 4 and p.parse(4.0) == 4
    for bad in (True, 4.5, "4.0", "x", None, float("inf")):
        with pytest.raises(Invalid) as e:
            p.parse(bad)
        assert e.value.reason == "type"
    assert Opt("b", "", False, bool).parse("Yes") is True
    assert Opt("f", "", 1.0, float).parse("0.25") == 0.25
    with pytest.raises(Invalid):
        Opt("f", "", 1.0, float).parse("nan")
    with pytest.raises(Invalid) as e:
        p.parse_checked("10")
    assert (e.value.reason, e.value.value) == ("high", 10)


def test_strict_conversion():
    t = TaskParam("load", float, "")
    assert t.parse(1) == 1.0 and isinstance(t.parse(1), float)
    with pytest.raises(Invalid):
        t.parse("0.5")  # a study value carries its type
    with pytest.raises(Invalid):
        TaskParam("trials", int, "").parse(True)


def test_each_kind_keeps_its_messages():
    with pytest.raises(ParameterError, match=r"^kant: k=1 is too small; k \[2\.\.64\]"):
        FAMILIES.get("kant").validate({"k": "1", "n": "2"})
    with pytest.raises(ParameterError, match=r"^kant: k='x' is not an integer$"):
        FAMILIES.get("kant").validate({"k": "x", "n": "2"})
    with pytest.raises(
        ParameterError,
        match=r"^mikant: k=1 is invalid: must be an integer from 2 to 1,000,000,000,000$",
    ):
        FORMS.get("mikant").validate({"k": 1, "n": 3})
    with pytest.raises(ParameterError, match=r"^hotspot: fraction=2\.0 is out of range"):
        Opt("fraction", "share", 0.1, float, minimum=0.0, maximum=1.0).convert("hotspot", "2")
    with pytest.raises(ParameterError, match=r"^trials='5' is invalid: expected an integer$"):
        TaskParam("trials", int, "").convert("5")
