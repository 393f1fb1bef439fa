"""The one exception hierarchy of fattree.

Every error raised on purpose by the library derives from :class:`FattreeError`;
the CLI turns these (and only these) into one-line messages with exit code 2.
"""

from __future__ import annotations

from collections.abc import Iterable


class FattreeError(Exception):
    """Base class of every error fattree raises on purpose."""


class ParameterError(FattreeError, ValueError):
    """An argument is missing, of the wrong type or out of range.

    The message names the parameter, the value given and what is allowed.
    """


class UnknownNameError(ParameterError, KeyError):
    """A name (family, algorithm, pattern, ...) that no registry knows."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class InputFileError(FattreeError, ValueError):
    """A file given by the user is missing or malformed (names file and line)."""


class OutputFileError(FattreeError, OSError):
    """An output file could not be written (full disk, unwritable sink); the message says
    where the result was kept."""


class ResourceError(FattreeError, MemoryError):
    """A request that would exceed the machine's memory (or a time budget such as
    ``max_seconds``), refused before allocating or starting."""


class SimulationError(FattreeError, RuntimeError):
    """A simulation could not proceed (e.g. a check of its invariants failed)."""


class FattreeWarning(UserWarning):
    """Base class of the warnings fattree issues (the CLI prints them as one line)."""


class DamagedDataWarning(FattreeWarning):
    """Stored data that could not be read (a damaged results file) was skipped."""


class StaleResultsWarning(FattreeWarning):
    """Stored results written by another fattree version are reused on resume."""


def closest(name: str, valid: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest valid name, or ``""``.

    Parameters
    ----------
    name : str
        The name that was not found.
    valid : iterable of str
        The valid names.

    Returns
    -------
    str
        The hint to append to a message, or ``""`` if no valid name is close.
    """
    import difflib  # only when a name was not found: not on every start

    match = difflib.get_close_matches(name, list(valid), n=1)
    return f" (did you mean '{match[0]}'?)" if match else ""


def param_error(param: str, value, allowed: str) -> ParameterError:
    """Build the standard one-line message: parameter, value, what is allowed.

    Parameters
    ----------
    param : str
        The parameter's name.
    value : object
        The value given (shown with ``repr``).
    allowed : str
        What is allowed, in words.

    Returns
    -------
    ParameterError
        The error, to be raised by the caller.
    """
    return ParameterError(f"{param}={value!r} is invalid: {allowed}")


__all__ = [
    "FattreeError",
    "ParameterError",
    "UnknownNameError",
    "InputFileError",
    "OutputFileError",
    "ResourceError",
    "SimulationError",
    "FattreeWarning",
    "DamagedDataWarning",
    "StaleResultsWarning",
    "closest",
    "param_error",
]
