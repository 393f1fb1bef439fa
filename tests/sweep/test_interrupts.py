"""Interrupts wait for the point in progress (never raised inside compiled code)."""

import os
import signal

import pytest

from fattree.sweep.interrupts import point_in_progress, stop_between_points


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupt_during_a_point_is_raised_after_it(sig, capfd):
    finished = []
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), stop_between_points(), point_in_progress():
        os.kill(os.getpid(), sig)
        finished.append("point stored")  # the work after the signal still runs
    assert finished == ["point stored"]
    assert "stopping after the point in progress" in capfd.readouterr().err
    # the handlers are restored on leaving
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_between_points_an_interrupt_stops_at_once():
    with pytest.raises(KeyboardInterrupt), stop_between_points():
        os.kill(os.getpid(), signal.SIGTERM)
        pytest.fail("not reached: the interrupt is raised at once")  # pragma: no cover


def test_without_the_handlers_a_point_changes_nothing():
    before = signal.getsignal(signal.SIGINT)
    with point_in_progress():
        pass
    assert signal.getsignal(signal.SIGINT) is before
