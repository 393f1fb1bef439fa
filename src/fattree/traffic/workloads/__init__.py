"""Workloads: collectives (with the algorithms MPI and NCCL use) and GOAL schedules.

A workload is bound to a network by :func:`make_workload` and consumed by both
simulation models: as *phases* (struct-of-arrays messages, identical steps counted once)
by the flow model, and as per-rank operation lists with dependencies
(:class:`Schedule`, struct-of-arrays numpy) by a closed-loop packet model and the GOAL
writer. See docs/workloads.md.
"""

from .base import (
    COLLECTIVES,
    PLACEMENTS,
    Phase,
    Workload,
    phase,
    register_algorithm,
    register_collective,
)
from .build import describe_workloads, make_workload, workload_names
from .goal import goal_text, read_goal, write_goal
from .schedule import CALC, RECV, SEND, Schedule, check_schedule, expand
from .units import format_size, parse_rate, parse_size, parse_time

__all__ = [
    "COLLECTIVES",
    "PLACEMENTS",
    "Phase",
    "Workload",
    "phase",
    "register_algorithm",
    "register_collective",
    "make_workload",
    "workload_names",
    "describe_workloads",
    "read_goal",
    "write_goal",
    "goal_text",
    "Schedule",
    "check_schedule",
    "expand",
    "SEND",
    "RECV",
    "CALC",
    "parse_size",
    "parse_rate",
    "parse_time",
    "format_size",
]
