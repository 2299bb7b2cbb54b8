"""xtvm: a hackable deep-learning compiler on xDSL."""

import importlib
from typing import Any

# Attribute name -> (module, attribute in it, or None for the module itself).
# Imported on first use, so `import xtvm` stays cheap.
_LAZY: dict[str, tuple[str, str | None]] = {
    "runtime": ("xtvm.runtime", None),
    "nd": ("xtvm.nd", None),
    "rpc": ("xtvm.rpc", None),
    "cpu": ("xtvm.runtime.ndarray", "cpu"),
    "device": ("xtvm.runtime.ndarray", "device"),
    "build": ("xtvm.driver.build_module", "build"),
    "transform": ("xtvm.transform", None),
    "frontend": ("xtvm.frontend", None),
    "target": ("xtvm.target", None),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'xtvm' has no attribute '{name}'")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    return module if attribute is None else getattr(module, attribute)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
