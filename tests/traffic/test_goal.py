"""LogGOPSim GOAL text: reading what schedgen and Schedgen2 write, round trips, bad lines."""

from __future__ import annotations

import numpy as np
import pytest

from fattree.errors import InputFileError
from fattree.traffic.workloads import COLLECTIVES, make_workload, read_goal, write_goal
from fattree.traffic.workloads.schedule import CALC, IREQUIRES, RECV, REQUIRES, SEND

# the shapes LogGOPSim's tools write: labels across the file, dependencies after the ops
SCHEDGEN2 = """num_ranks 3

rank 0 {
l1: send 64b to 1 tag 7
l2: send 64b to 2 tag 7
}

rank 1 {
l3: recv 64b from 0 tag 7
l4: calc 250 cpu 1
l5: send 32b to 2 tag 8 cpu 0 nic 1
l4 requires l3
l5 requires l4
}

rank 2 {
// a comment line
l6: recv 64b from 0 tag 7   // trailing comment
/* a block
   comment */
l7: recv 32 b from 1 tag 8
recv 16b from 1
l7 irequires l6
}
"""


def _write(tmp_path, text, name="s.goal"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_reads_schedgen2_output(tmp_path):
    text = SCHEDGEN2.replace("recv 16b from 1\n", "")
    s = read_goal(_write(tmp_path, text))
    assert s.ranks == 3 and s.n_ops == 7
    assert s.kind.tolist() == [SEND, SEND, RECV, CALC, SEND, RECV, RECV]
    assert s.rank.tolist() == [0, 0, 1, 1, 1, 2, 2]
    assert s.nbytes.tolist() == [64, 64, 64, 250, 32, 64, 32]
    assert s.tag.tolist() == [7, 7, 7, 0, 8, 7, 8]
    assert s.cpu.tolist()[3] == 1 and s.nic.tolist()[4] == 1
    assert s.line.tolist() == [4, 5, 9, 10, 11, 18, 21]
    # l4 requires l3, l5 requires l4, l7 irequires l6
    assert s.dep_ptr.tolist() == [0, 0, 0, 0, 1, 2, 2, 3]
    assert s.dep_idx.tolist() == [2, 3, 5]
    assert s.dep_kind.tolist() == [REQUIRES, REQUIRES, IREQUIRES]
    assert s.match.tolist() == [2, 5, 0, -1, 6, 1, 4]


def test_unmatched_receive_names_rank_and_line(tmp_path):
    with pytest.raises(
        InputFileError, match=r"line 22, rank 2 op 2 \(recv 16b from 1 tag 0\) has no matching send"
    ):
        read_goal(_write(tmp_path, SCHEDGEN2))


@pytest.mark.parametrize(
    "line, why",
    [
        ("l9: recv 8b from -1 tag 0", "wildcard -1 \\(any source\\) is not supported"),
        ("l9: recv 8b from 0 tag -1", "wildcard tag -1"),
        ("l9: send 8 to 1", "not a supported GOAL line"),
        ("l9: send 8b from 1", "'send' takes 'to'"),
        ("l9: put 8b to 1", "not a supported GOAL line"),
        ("l1 requires l77", "line 4: label 'l77' is not defined in rank 0"),
        ("l1: calc 5", "label 'l1' is defined twice in rank 0"),
        ("l9: send 8b to 5 tag 0", "peer 5 is not a rank 0..1"),
        ("l9: send 8b to 0 tag 0", "cannot send to itself"),
    ],
)
def test_bad_lines_are_named(tmp_path, line, why):
    text = f"num_ranks 2\nrank 0 {{\nl1: calc 1\n{line}\n}}\n"
    with pytest.raises(InputFileError, match=why) as e:
        read_goal(_write(tmp_path, text))
    assert "s.goal" in str(e.value)


@pytest.mark.parametrize(
    "text, why",
    [
        ("rank 0 {\n}\n", "line 1: a rank block before num_ranks"),
        ("num_ranks 2\nl1: calc 4\n", "line 2: an operation outside a 'rank N \\{' block"),
        ("num_ranks 2\nrank 2 {\n}\n", "line 2: rank 2 is out of range 0..1"),
        ("num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n", "line 4: rank 0 has a second block"),
        ("num_ranks 2\nrank 0 {\nl1: calc 4\n", "rank 0's block is not closed"),
        ("", "no 'num_ranks N' line"),
    ],
)
def test_bad_structure(tmp_path, text, why):
    with pytest.raises(InputFileError, match=why):
        read_goal(_write(tmp_path, text))


def test_dependency_cycle_is_named(tmp_path):
    text = "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 2\nl1 requires l2\nl2 requires l1\n}\n"
    with pytest.raises(
        InputFileError, match=r"dependency cycle: line \d, rank 0 op \d \(calc \d\) -> line"
    ):
        read_goal(_write(tmp_path, text))


def test_deadlock_is_named(tmp_path):
    text = (
        "num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 0\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\n"
        "rank 1 {\nl3: recv 8b from 0 tag 0\nl4: send 8b to 0 tag 0\nl4 requires l3\n}\n"
    )
    with pytest.raises(InputFileError, match="deadlock"):
        read_goal(_write(tmp_path, text))


def test_missing_file():
    with pytest.raises(InputFileError, match="does not exist"):
        read_goal("/no/such/file.goal")


def _all_specs():
    for name, col in COLLECTIVES.items():
        for alg in col.algorithms:
            p = 8
            extra = ",chunks=3" if alg in ("tree", "dtree") else ""
            yield f"{name}:algorithm={alg},size=3KiB,ranks={p}{extra}"


@pytest.mark.parametrize("spec", list(_all_specs()))
def test_round_trip_every_collective(tmp_path, spec):
    w = make_workload(spec, 8, np.arange(8) // 2)
    s = w.schedule()
    f = tmp_path / "x.goal"
    write_goal(s, f)
    r = read_goal(f)
    for a in (
        "rank",
        "kind",
        "peer",
        "nbytes",
        "tag",
        "dep_ptr",
        "dep_idx",
        "dep_kind",
        "match",
        "cpu",
        "nic",
    ):
        assert np.array_equal(getattr(s, a), getattr(r, a)), a
    # and the bytes are the collective's
    sent = np.zeros(8, np.int64)
    np.add.at(sent, r.rank[r.kind == SEND], r.nbytes[r.kind == SEND])
    assert np.array_equal(sent, w.bytes_sent())


def test_round_trip_keeps_cpu_nic_and_irequires(tmp_path):
    s = read_goal(_write(tmp_path, SCHEDGEN2.replace("recv 16b from 1\n", "")))
    f = tmp_path / "y.goal"
    write_goal(s, f)
    r = read_goal(f)
    for a in (
        "rank",
        "kind",
        "peer",
        "nbytes",
        "tag",
        "dep_ptr",
        "dep_idx",
        "dep_kind",
        "cpu",
        "nic",
    ):
        assert np.array_equal(getattr(s, a), getattr(r, a)), a
