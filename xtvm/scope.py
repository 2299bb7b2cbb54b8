"""Scopes: the one mechanism behind ``with PassContext(...):`` and
``with Target(...):`` (TVM's ``With<PassContext>`` and ``With<Target>``).

A :class:`Scope` is a stack of values kept in a :mod:`contextvars` variable:
``enter`` pushes, ``exit`` pops, ``innermost`` reads the top. Being a
context variable, the stack belongs to the running thread (a new thread
starts with an empty one, so outside every scope) and to each
asyncio task (which starts with a copy of its creator's).

```python
_SCOPE: Scope[PassContext] = Scope("PassContext")
_SCOPE.enter(ctx)       # PassContext.__enter__
_SCOPE.innermost()      # ctx, what PassContext.current() returns (None outside every scope)
_SCOPE.exit(ctx)        # PassContext.__exit__
```

The same value may be entered while it is already open (nested ``with``
statements on one object); scopes must close in the reverse order they
opened, which ``with`` guarantees, exceptions included.
"""

from __future__ import annotations

import contextvars
from typing import Generic, TypeVar

T = TypeVar("T")


class Scope(Generic[T]):
    """A per-thread (per-context) stack of the open scopes of one kind."""

    def __init__(self, name: str):
        self.name = name
        self._stack: contextvars.ContextVar[tuple[T, ...]] = contextvars.ContextVar(
            f"xtvm.scope.{name}", default=()
        )

    def enter(self, value: T) -> T:
        """Open ``value``'s scope (it is now the innermost); returns ``value``."""
        self._stack.set((*self._stack.get(), value))
        return value

    def exit(self, value: T) -> None:
        """Close ``value``'s scope, which must be the innermost one."""
        stack = self._stack.get()
        if not stack:
            raise RuntimeError(f"{self.name} scope of {value!r} closed, but none is open")
        if stack[-1] is not value:
            raise RuntimeError(
                f"{self.name} scope of {value!r} closed out of order: the innermost open "
                f"one is {stack[-1]!r}"
            )
        self._stack.set(stack[:-1])

    def innermost(self) -> T | None:
        """The value of the innermost open scope, None outside every scope."""
        stack = self._stack.get()
        return stack[-1] if stack else None
