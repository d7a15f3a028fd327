"""flamefold's exceptions and warnings (raised by the extension too)."""
from __future__ import annotations

from typing import Optional


class Error(Exception):
    """Anything flamefold could not do; the message is the line the CLI prints after
    ``flamefold: error:``."""


class InputError(Error):
    """Bad input: the message is the CLI's one line ``FILE:PLACE: PROBLEM``; the parts are in
    ``file``, ``place`` (``"line 12"``, ``"byte 3456"``, ``"table NVTX_EVENTS"`` or ``""``) and
    ``problem``."""

    def __init__(self, message: str, file: Optional[str] = None, place: str = "", problem: Optional[str] = None):
        super().__init__(message)
        self.file = file
        self.place = place
        self.problem = problem if problem is not None else message

    def __reduce__(self):
        # Raised on a Dask worker and re-raised here: the parts travel with the message.
        return (type(self), (str(self), self.file, self.place, self.problem))


class UsageError(Error, ValueError):
    """An option the profile or the library cannot take (an unknown weight, format, output kind...)."""


class InputWarning(UserWarning):
    """A recoverable oddity counted while reading (a truncated last sample, a negative duration):
    what the CLI reports as ``flamefold: warning: WHAT: N``."""


for _cls in (Error, InputError, UsageError, InputWarning):
    _cls.__module__ = "flamefold"  # shown as flamefold.InputError in tracebacks
del _cls
