"""`Target`: what the hardware offers, parsed from TVM-style strings.

```python
Target("llvm")                                   # the host CPU
Target.from_string("llvm -mcpu=skylake-avx512 -mattr=+fma -num-cores=4")
Target.current_host().vector_width              # 256, 512, ... bits
with Target.from_string("llvm -mcpu=haswell -num-cores=1"):
    Target.current()                             # what passes and schedules read
```

Fields: `kind` ("llvm": kernels through LLVM; "c": kernels as C source
compiled by the system C compiler, the rest through LLVM: docs/c-target.md), `mcpu` ("" or "native" = the host CPU),
`mattr` (LLVM feature flags such as "+avx2"), `num_cores` (0 = all cores),
`mtriple` ("" = the host triple). `vector_width` (bits of the widest SIMD
register) is derived from the CPU's features: the host's when `mcpu` names the
host, else the `mattr` flags and a table of well-known x86 CPUs.

A target is also a scope (TVM's `with tvm.target.Target(...)`): `xtvm.build`
compiles inside the scope of its `target` argument, and passes and schedules
read `Target.current()` (the innermost scope, else the host): the x86
schedules take their vector width from it and run loops in parallel unless
`-num-cores=1`. Scopes nest, and each thread has its own (:mod:`xtvm.scope`):
a new thread compiles for the host until it enters a target.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache

from xtvm.scope import Scope

_OPTIONS = ("mcpu", "mattr", "num-cores", "mtriple")
KINDS = ("llvm", "c")

MAX_VECTOR_LANES = 64
"""The widest loop the llvm code generator lowers as one vector (LLVM splits
it into registers); schedules vectorize a whole loop only up to this."""

_AVX512_CPUS = frozenset(
    "skylake-avx512 cascadelake cooperlake cannonlake icelake-client icelake-server "
    "tigerlake rocketlake sapphirerapids emeraldrapids graniterapids znver4 znver5".split()
)
_AVX2_CPUS = frozenset(
    "haswell broadwell skylake alderlake raptorlake meteorlake arrowlake lunarlake "
    "znver1 znver2 znver3 x86-64-v3".split()
)


@cache
def _host() -> tuple[str, frozenset[str]]:
    """The host CPU name and its enabled features (via llvmlite)."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    features = llvm.get_host_cpu_features()
    return llvm.get_host_cpu_name(), frozenset(k for k, on in features.items() if on)


@dataclass(frozen=True)
class Target:
    """A compilation target (TVM's `tvm.target.Target` for the `llvm` and `c` kinds)."""

    kind: str = "llvm"
    mcpu: str = ""
    mattr: tuple[str, ...] = field(default=())
    num_cores: int = 0
    mtriple: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"unsupported target kind '{self.kind}': xtvm compiles for {' or '.join(KINDS)}"
            )
        if self.num_cores < 0:
            raise ValueError(f"target: -num-cores must be >= 0, got {self.num_cores}")
        bad = [a for a in self.mattr if not a.startswith(("+", "-"))]
        if bad:
            raise ValueError(f"target: -mattr flags start with '+' or '-', got {bad}")

    @staticmethod
    def from_string(text: str) -> Target:
        """Parse `"llvm -mcpu=... -mattr=+a,-b -num-cores=N -mtriple=..."`."""
        words = text.split()
        if not words:
            raise ValueError("empty target string; expected e.g. 'llvm -mcpu=native'")
        kind, options = words[0], words[1:]
        values: dict[str, str] = {}
        for word in options:
            key, eq, value = word.lstrip("-").partition("=")
            if not word.startswith("-") or not eq or key not in _OPTIONS:
                raise ValueError(
                    f"target '{text}': cannot read '{word}'; options are "
                    + ", ".join(f"-{o}=..." for o in _OPTIONS)
                )
            values[key] = value
        cores = values.get("num-cores", "0")
        if not cores.isdigit():
            raise ValueError(f"target '{text}': -num-cores must be an integer, got '{cores}'")
        return Target(
            kind,
            mcpu=values.get("mcpu", ""),
            mattr=tuple(a for a in values.get("mattr", "").split(",") if a),
            num_cores=int(cores),
            mtriple=values.get("mtriple", ""),
        )

    @staticmethod
    def of(target: Target | str | None) -> Target:
        """Accept a Target, a target string, or None (the host)."""
        if target is None:
            return Target()
        if isinstance(target, Target):
            return target
        if isinstance(target, str):
            return Target.from_string(target)
        raise TypeError(f"expected a Target or a target string, got {type(target).__name__}")

    def __enter__(self) -> Target:
        return _SCOPE.enter(self)

    def __exit__(self, *exc: object) -> None:
        _SCOPE.exit(self)

    @staticmethod
    def current() -> Target:
        """The target of the innermost `with target:` scope, else the host."""
        return _SCOPE.innermost() or Target.current_host()

    @staticmethod
    def current_host() -> Target:
        """The host CPU, all cores."""
        return Target(mcpu=_host()[0])

    @property
    def is_host_cpu(self) -> bool:
        """Whether the CPU is the host's (`mcpu` empty, "native" or the host name)."""
        return self.mcpu in ("", "native", _host()[0])

    @property
    def cpu_name(self) -> str:
        """The LLVM CPU name to generate code for."""
        return _host()[0] if self.is_host_cpu else self.mcpu

    @property
    def features(self) -> frozenset[str]:
        """Enabled CPU features (without '+'): the host's for the host CPU, plus `mattr`."""
        base = set(_host()[1]) if self.is_host_cpu else set()
        for flag in self.mattr:
            (base.add if flag[0] == "+" else base.discard)(flag[1:])
        return frozenset(base)

    @property
    def llvm_features(self) -> str:
        """The feature string for an LLVM target machine ("+avx2,+fma,...")."""
        if self.is_host_cpu:
            return ",".join(sorted(f"+{f}" for f in self.features))
        return ",".join(self.mattr)

    @property
    def vector_width(self) -> int:
        """Bits of the widest SIMD register (128 at least on x86-64)."""
        feats = self.features
        if "avx512f" in feats or (not self.is_host_cpu and self.mcpu in _AVX512_CPUS):
            return 512
        if feats & {"avx", "avx2"} or (not self.is_host_cpu and self.mcpu in _AVX2_CPUS):
            return 256
        return 128

    @property
    def cores(self) -> int:
        """`num_cores`, or the machine's core count when it is 0."""
        return self.num_cores or os.cpu_count() or 1

    def __str__(self) -> str:
        parts = [self.kind]
        if self.mcpu:
            parts.append(f"-mcpu={self.mcpu}")
        if self.mattr:
            parts.append(f"-mattr={','.join(self.mattr)}")
        if self.num_cores:
            parts.append(f"-num-cores={self.num_cores}")
        if self.mtriple:
            parts.append(f"-mtriple={self.mtriple}")
        return " ".join(parts)


_SCOPE: Scope[Target] = Scope("Target")
