"""The runtime's error type.

Every failure the runtime detects (a kernel rejecting its arguments, a missing
function, a malformed library or graph) raises `XTVMError` with a message that
names the object at fault, what was expected and what was given.
"""


class XTVMError(Exception):
    """An error raised by the xtvm runtime (TVM's `TVMError`)."""


class Object:
    """Base of the runtime objects that may cross a PackedFunc boundary (Modules)."""
