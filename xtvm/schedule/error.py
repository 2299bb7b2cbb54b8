"""The error every schedule primitive raises on a request it cannot honour."""

from xdsl.utils.exceptions import DiagnosticException


class ScheduleError(DiagnosticException):
    """A schedule primitive does not apply: the message says which loop or
    buffer and why (`xtvm-opt` prints it as a diagnostic)."""
