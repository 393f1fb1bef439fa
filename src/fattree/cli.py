"""The ``fattree`` command line: assembles the command modules and maps errors to exit codes.

Library code raises :class:`~fattree.errors.FattreeError`; only this module prints
it, as one line on stderr, with exit code 2.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings

import typer
from typer.core import TyperCommand, TyperGroup

from .commands import COMMANDS, MODULES
from .errors import FattreeError, FattreeWarning

#: exit code of an unexpected exception (a bug); bad input exits with 2
INTERNAL_ERROR = 3

#: where the command modules register their commands, each module once per process
_registered = typer.Typer()
_loaded_modules: set[str] = set()
#: the click commands built so far, by name (shared by every call of :func:`main`)
_built: dict = {}


def _load(name: str):
    """The click command ``name``, importing the modules that register it (every module
    when ``name`` is not in :data:`~fattree.commands.COMMANDS`: a typo pays for them,
    so that its error can suggest the close names). ``None`` if no module has it."""
    import importlib

    import typer.main

    modules = COMMANDS[name][0] if name in COMMANDS else MODULES
    if name in _built or (name in COMMANDS and all(m in _loaded_modules for m in modules)):
        return _built.get(name)
    for module in modules:
        if module not in _loaded_modules:
            importlib.import_module(f"fattree.commands.{module}").register(_registered)
            _loaded_modules.add(module)
    group = typer.main.get_group(_registered)
    for key, cmd in group.commands.items():
        if all(m in _loaded_modules for m in COMMANDS.get(key, ((),))[0]):  # complete
            _built.setdefault(key, cmd)  # (``plot`` waits for both of its modules)
    return _built.get(name)


class _LazyGroup(TyperGroup):
    """The root command: lists every command from :data:`~fattree.commands.COMMANDS` and
    imports a command's module only when that command runs (or shows its own help), so
    that ``fattree --help``, ``--version`` and shell completion stay light."""

    _listing = False  # True while the root help is printed: summaries suffice

    def list_commands(self, ctx) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx, cmd_name: str):
        if cmd_name in _built:
            return _built[cmd_name]
        if cmd_name in COMMANDS and (
            self._listing or (ctx is not None and ctx.resilient_parsing)
        ):  # the root help or a TAB completion: a stand-in with the summary
            return TyperCommand(name=cmd_name, help=COMMANDS[cmd_name][1])
        cmd = _load(cmd_name)
        self.commands.update(_built)  # typer's "did you mean" reads them
        return cmd

    def resolve_command(self, ctx, args):
        if args:  # the real command, also under completion (it parses its options)
            _load(args[0])
            self.commands.update(_built)
        return super().resolve_command(ctx, args)

    def format_help(self, ctx, formatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="fattree",
    cls=_LazyGroup,
    help="Design, analyse and simulate fat-tree-family interconnection networks.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from .version import __version__

        print(f"fattree {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="print the version and exit"
    ),
) -> None:
    """Design, analyse and simulate fat-tree-family interconnection networks."""


def _show_warning(
    message, category, filename, lineno, file=None, line=None, _default=warnings.showwarning
):
    """fattree's own warnings as one line on stderr; others as Python prints them."""
    if issubclass(category, FattreeWarning):
        print(f"warning: {message}", file=sys.stderr)
    else:
        _default(message, category, filename, lineno, file, line)


def _usage_line(exc) -> str:
    """A click usage error as one line: the message and where to find help."""
    ctx = getattr(exc, "ctx", None)
    where = f"'{ctx.command_path} --help'" if ctx is not None else "'fattree --help'"
    msg = " ".join(exc.format_message().split())
    if (
        ctx is not None
        and msg.startswith("No such command")
        and hasattr(ctx.command, "list_commands")
    ):
        msg = msg.rstrip(".") + "; valid: " + ", ".join(ctx.command.list_commands(ctx))
    return f"error: {msg} (see {where})"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``fattree`` script."""
    saved = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        with _compile_notice(sys.argv[1:] if argv is None else argv):
            rc = _main(argv)
        if argv is None:  # the process's entry point (python -m fattree)
            _end_interrupted(rc)
        return rc
    finally:
        warnings.showwarning = saved


# commands that never compile: they must not pay for importing numba
_LIGHT = {"--help", "-h", "--version", "families", "--install-completion", "--show-completion"}


#: a compilation announces itself once it has run this long (seconds)
NOTICE_AFTER_S = 2.0


def _kernel_kind(name: str) -> str:
    parts = name.split(".")
    sub = ".".join(parts[1:3])  # a subpackage's own part ("sim.flow") before the package
    return _KERNEL_KIND.get(sub) or _KERNEL_KIND.get(parts[1], "numeric kernels")


@contextlib.contextmanager
def _compile_notice(argv: list[str]):
    """One line on stderr for each kind of kernel (the routing kernels, the simulator,
    ...) whose numba compilation has run for 2 s (the first run of a kernel on a machine;
    later runs load it from numba's cache)."""
    if not argv or _LIGHT.intersection(argv) or any(k.endswith("_COMPLETE") for k in os.environ):
        yield
        return
    import threading

    from .compiling import watch

    state = {"timer": None, "said": set()}

    def say(name):
        what = _kernel_kind(name)
        state["said"].add(what)
        print(
            f"compiling {what} for this machine, once ({name}; cached for later runs, "
            "`fattree warmup` compiles everything ahead)...",
            file=sys.stderr,
            flush=True,
        )

    def start(name):
        if _kernel_kind(name) not in state["said"] and state["timer"] is None:
            state["timer"] = threading.Timer(NOTICE_AFTER_S, say, (name,))
            state["timer"].daemon = True
            state["timer"].start()

    def end():
        if state["timer"] is not None:
            state["timer"].cancel()
            state["timer"] = None

    with watch(start, end):
        try:
            yield
        finally:
            end()


_KERNEL_KIND = {
    "sim.flow": "the flow-level model",
    "sim": "the simulator",
    "faults": "the fault-tolerant routing",
    "routing": "the routing kernels",
    "analysis": "the analysis kernels",
    "traffic": "the traffic kernels",
}


def _empty_option_value(argv: list[str]) -> None:
    """Refuse an empty string given to an option (``--prices ''``, ``-o ''``) with one line
    naming it, for every command by one rule: click would pass it on, and a path option
    would silently read it as the current folder."""
    import typer.main

    from .errors import ParameterError

    if "" not in argv:
        return
    cmd = typer.main.get_command(app)
    i = 0
    while hasattr(cmd, "commands"):  # descend the groups: fattree routing check ...
        while i < len(argv) and argv[i].startswith("-"):
            i += 1
        sub = cmd.get_command(None, argv[i]) if i < len(argv) else None
        if sub is None:
            return
        cmd, i = sub, i + 1
    takes_value = {
        o: p
        for p in cmd.params
        if not getattr(p, "is_flag", True)
        for o in (*p.opts, *p.secondary_opts)
    }
    for j in range(i, len(argv)):
        if argv[j] == "" and argv[j - 1] in takes_value and (j < 2 or argv[j - 2] != "--"):
            opt = takes_value[argv[j - 1]]
            longs = [o for o in (*opt.opts, *opt.secondary_opts) if o.startswith("--")]
            name = longs[0][2:].replace("-", "_") if longs else opt.name
            raise ParameterError(
                f"{name}='' is invalid: an empty value; give {argv[j - 1]} a "
                "value or leave the option out"
            )


def _main(argv: list[str] | None) -> int:
    try:
        _empty_option_value(list(sys.argv[1:] if argv is None else argv))
        # click returns a command's typer.Exit code instead of raising it here
        rc = app(args=argv, prog_name="fattree", standalone_mode=False)
    except FattreeError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return _exit(2)
    except MemoryError as exc:
        print(f"error: out of memory ({exc})", file=sys.stderr)
        return _exit(2)
    except OSError as exc:  # unreadable input, unwritable output: still one line
        print(
            f"error: {exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""),
            file=sys.stderr,
        )
        return _exit(2)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return _exit(130)
    except Exception as exc:  # click usage errors and the like (typer vendors click)
        name = type(exc).__name__
        if name == "NoArgsIsHelpError" or (
            hasattr(exc, "format_message")
            and hasattr(exc, "exit_code")
            and not exc.format_message().strip()
        ):
            exc.show()  # a group called without a command: its help
            return _exit(exc.exit_code)
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # UsageError & co
            print(_usage_line(exc), file=sys.stderr)
            return _exit(exc.exit_code)
        if name == "Abort":
            return _exit(1)
        if name == "Exit":
            return _exit(getattr(exc, "exit_code", 0))
        if os.environ.get("FATTREE_DEBUG"):
            raise
        # a bug, not bad input: still one line (FATTREE_DEBUG=1 shows the traceback)
        print(
            f"error: internal error, please report it: {type(exc).__name__}: "
            f"{_one_line(exc)[:300]} (FATTREE_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return _exit(INTERNAL_ERROR)
    return _exit(rc if isinstance(rc, int) and not isinstance(rc, bool) else 0)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _exit(code: int) -> int:
    if __name__ == "__main__" or sys.argv and sys.argv[0].endswith("fattree"):
        _end_interrupted(code)
        sys.exit(code)
    return code


def _end_interrupted(code: int) -> None:
    """End an interrupted process (exit 130) without the interpreter's shutdown.

    An interrupt can land inside numba's compiler, leaving LLVM objects whose destructors
    abort the shutdown ("double free"), which turns exit 130 into a crash after the line
    saying what was kept. Everything worth keeping is on disk by then (results are written
    atomically, worker pools are closed), so the process ends at once.
    """
    if code == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    main()
