"""Errors from the file system reach the user as one line with exit code 2."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow
def test_unwritable_output_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")  # a file where a folder is expected
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "fattree.cli",
            "faults",
            "mikant:k=2,n=3",
            "--trials",
            "10",
            "--rates",
            "0.1",
            "-o",
            str(blocker / "sub" / "p.png"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr
