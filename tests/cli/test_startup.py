"""The light start of the command line: ``fattree --version``, ``--help``, ``families`` and a
shell's TAB import neither numba, pandas nor scipy (numpy neither), and the root help lists
every command from :data:`fattree.commands.COMMANDS`, which must match what the command
modules register. Structural checks (which modules a process loaded), not timings:
``benchmarks/cli_startup.py`` measures the CPU seconds."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest
import typer
import typer.main

from fattree.commands import COMMANDS, MODULES

HEAVY = ("numba", "pandas", "scipy", "numpy", "matplotlib", "dask", "networkx")


def _loaded_after(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; the heavy modules it left loaded, and its output."""
    probe = (
        "import io, json, sys, contextlib\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        + "".join(f"    {line}\n" for line in code.splitlines())
        + f"print(json.dumps({{'heavy': [m for m in {HEAVY!r} if m in sys.modules], "
        "'out': out.getvalue()}))\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_importing_the_cli_loads_no_heavy_module():
    got = _loaded_after("import fattree.cli")
    assert got["heavy"] == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [["--version"], ["--help"], ["families"], ["families", "--json"]],
    ids=["version", "help", "families", "families-json"],
)
def test_light_commands_load_no_heavy_module(argv):
    got = _loaded_after(f"from fattree.cli import main\nmain({argv!r})")
    assert got["heavy"] == [], got["heavy"]
    assert got["out"].strip()


@pytest.mark.slow
def test_root_help_lists_every_command_and_families_lists_every_family():
    got = _loaded_after("from fattree.cli import main\nmain(['--help'])")
    for name in COMMANDS:
        assert f" {name} " in got["out"], name
    fams = json.loads(
        _loaded_after("from fattree.cli import main\nmain(['families', '--json'])")["out"]
    )
    from fattree.topology import FAMILIES

    assert [f["family"] for f in fams] == list(FAMILIES)


def _summary(cmd) -> str:
    return " ".join(inspect.cleandoc(cmd.help or "").split("\n\n")[0].split())


def test_the_command_table_matches_the_registered_commands():
    """Each module's commands are in COMMANDS, under that module, with their own summary
    (a new command is added to the table, or ``fattree --help`` would not list it)."""
    owners: dict[str, set[str]] = {}
    for module in MODULES:
        sub = typer.Typer()
        __import__(f"fattree.commands.{module}", fromlist=["register"]).register(sub)
        for name in typer.main.get_group(sub).commands:
            owners.setdefault(name, set()).add(module)
    assert set(owners) == set(COMMANDS)
    for name, (modules, _) in COMMANDS.items():
        assert owners[name] <= set(modules), name

    full = typer.Typer()
    for module in MODULES:
        __import__(f"fattree.commands.{module}", fromlist=["register"]).register(full)
    group = typer.main.get_group(full)
    for name, (_, summary) in COMMANDS.items():
        assert _summary(group.commands[name]) == summary, name


def test_a_command_runs_after_the_light_root(capsys):
    from fattree.cli import main

    assert main(["families", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["family"] == "kant"
    assert main(["routing", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)


def test_a_typo_still_suggests_the_close_command(capsys):
    from fattree.cli import main

    assert main(["famlies"]) == 2
    err = capsys.readouterr().err
    assert "'families'" in err and "valid: families, info" in err


@pytest.mark.slow
def test_plot_lists_both_modules_commands_whichever_loaded_first():
    """``plot`` has analytic figures (analytics) and results-folder figures (sweep): after
    ``design`` loaded analytics alone, ``plot`` still lists both kinds."""
    code = "from fattree.cli import main\nmain(['design', '--help'])\nmain(['plot', '--help'])"
    out = _loaded_after(code)["out"]
    assert "cost-ratios" in out and "fault-success" in out


@pytest.mark.slow
def test_shell_completion_lists_commands_without_heavy_modules():
    """A TAB on ``fattree fa`` completes from the command table alone."""
    import os

    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print('HEAVY', [m for m in {HEAVY!r} if m in sys.modules], "
        "file=sys.stderr))\n"
        "sys.argv = ['fattree']\n"
        "from fattree.cli import main\n"
        "main()\n"
    )
    env = {**os.environ, "_FATTREE_COMPLETE": "complete_bash", "COMP_WORDS": "fattree fa"}
    env["COMP_CWORD"] = "1"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.stdout.split() == ["families", "faults"], (r.stdout, r.stderr)
    assert "HEAVY []" in r.stderr


def test_a_long_compilation_says_so_once_per_kind_of_kernel(monkeypatch, capsys):
    """A compilation running past ``NOTICE_AFTER_S`` prints one line on stderr naming its
    kind of kernel (the routing kernels, the simulator, ...); a second long one of the
    same kind prints nothing more, a short one nothing at all."""
    import contextlib
    import time

    import fattree.cli as cli
    import fattree.compiling

    calls = {}

    @contextlib.contextmanager
    def fake_watch(on_start, on_end):
        calls["start"], calls["end"] = on_start, on_end
        yield

    def compile_(name, seconds):
        calls["start"](name)
        time.sleep(seconds)
        calls["end"]()

    monkeypatch.setattr(fattree.compiling, "watch", fake_watch)
    monkeypatch.setattr(cli, "NOTICE_AFTER_S", 0.02)
    with cli._compile_notice(["simulate", "kant:k=2,n=2"]):
        compile_("fattree.routing.kernel.route_ports", 0.3)
        compile_("fattree.routing._trees.other", 0.3)  # the same kind: said already
        compile_("fattree.sim.kernel._step", 0.0)  # short: nothing
        compile_("fattree.sim.kernel._run", 0.3)
        compile_("fattree.sim.flow.eventloop._run", 0.3)  # a part of sim/ with its own name
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" for this machine")[0] for line in lines] == [
        "compiling the routing kernels",
        "compiling the simulator",
        "compiling the flow-level model",
    ]
    assert "(fattree.sim.kernel._run;" in lines[1]
    with cli._compile_notice(["--version"]):  # a light command watches nothing
        pass
    assert "start" in calls and capsys.readouterr().err == ""
