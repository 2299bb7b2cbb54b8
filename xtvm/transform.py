"""TVM's pass infrastructure: ``PassContext`` scopes options, config and
disabled passes for every pass run inside it.

```python
with xtvm.transform.PassContext(opt_level=3, config={"tir.UnrollLoop": {"auto_max_step": 16}}):
    lib = xtvm.build(mod, target="llvm", params=params)
```

Contexts nest; each thread (and asyncio task) has its own stack of them
(:mod:`xtvm.scope`), so a new thread starts with the default context.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xtvm.scope import Scope


@dataclass
class PassContext:
    """The options every pass reads: ``opt_level`` (passes above it are
    skipped by pipelines), ``config`` (per-pass settings such as
    ``"tir.UnrollLoop"``), ``disabled_pass`` (names never run),
    ``required_pass`` (names always run)."""

    opt_level: int = 2
    config: Mapping[str, Any] = field(default_factory=dict)
    disabled_pass: Iterable[str] = ()
    required_pass: Iterable[str] = ()

    def __post_init__(self) -> None:
        self.config = dict(self.config)
        self.disabled_pass = frozenset(self.disabled_pass)
        self.required_pass = frozenset(self.required_pass)

    def __enter__(self) -> PassContext:
        return _SCOPE.enter(self)

    def __exit__(self, *exc: object) -> None:
        _SCOPE.exit(self)

    @staticmethod
    def current() -> PassContext:
        """The innermost active context, or the default one."""
        return _SCOPE.innermost() or _DEFAULT

    def pass_enabled(self, name: str, opt_level: int = 0) -> bool:
        """Whether a pass of that name and minimum opt level should run."""
        if name in self.disabled_pass:
            return False
        return name in self.required_pass or opt_level <= self.opt_level


_SCOPE: Scope[PassContext] = Scope("PassContext")
_DEFAULT = PassContext()
