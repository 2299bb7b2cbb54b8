"""Random graph functions of kernel calls, with an independent liveness oracle.

A :class:`RandomGraph` is a DAG of kernels in program order. Kernel ``i``
reads some earlier tensors (graph inputs, constants or kernel outputs) and
writes one or two new tensors of random sizes; some tensors are returned.
It prints as a graph function (``relay.call_lowered``) for the passes and
knows, without any xtvm code, which tensors must be intact together.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from xtvm.driver.pipeline import mlir_context


@dataclass
class Tensor:
    name: str
    elements: int
    kind: str  # "input", "const" or "kernel"
    defined_by: int = -1  # kernel index, -1 for inputs and constants

    @property
    def type(self) -> str:
        return f"tensor<{self.elements}xf32>"

    @property
    def nbytes(self) -> int:
        return 4 * self.elements


@dataclass
class Kernel:
    inputs: list[Tensor]
    outputs: list[Tensor]


@dataclass
class RandomGraph:
    tensors: list[Tensor] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    returned: list[Tensor] = field(default_factory=list)

    @classmethod
    def make(cls, rng: random.Random, num_kernels: int, max_elements: int = 300) -> RandomGraph:
        g = cls()
        for k in range(rng.randint(1, 2)):
            g.tensors.append(Tensor(f"in{k}", rng.randint(1, max_elements), "input"))
        for k in range(rng.randint(0, 2)):
            g.tensors.append(Tensor(f"w{k}", rng.randint(1, max_elements), "const"))
        for i in range(num_kernels):
            # Prefer recent tensors so that chains and diamonds both appear.
            pool = g.tensors[-6:] if rng.random() < 0.8 else g.tensors
            inputs = rng.sample(pool, rng.randint(1, min(3, len(pool))))
            outputs = [
                Tensor(f"t{i}{'ab'[j]}", rng.randint(1, max_elements), "kernel", i)
                for j in range(1 if rng.random() < 0.8 else 2)
            ]
            g.kernels.append(Kernel(inputs, outputs))
            g.tensors += outputs
        produced = [t for t in g.tensors if t.kind == "kernel"]
        g.returned = [produced[-1]] + [t for t in produced[:-1] if rng.random() < 0.1]
        return g

    def text(self) -> str:
        inputs = [t for t in self.tensors if t.kind == "input"]
        args = ", ".join(f"%{t.name}: {t.type}" for t in inputs)
        results = ", ".join(t.type for t in self.returned)
        lines = [f"func.func @main({args}) -> ({results}) {{"]
        for t in self.tensors:
            if t.kind == "const":
                lines.append(f"  %{t.name} = relay.const dense<1.0> : {t.type}")
        for i, k in enumerate(self.kernels):
            outs = ", ".join(f"%{t.name}" for t in k.outputs)
            ins = ", ".join(f"%{t.name}" for t in k.inputs)
            in_types = ", ".join(t.type for t in k.inputs)
            out_types = ", ".join(t.type for t in k.outputs)
            lines.append(
                f"  {outs} = relay.call_lowered @k{i}({ins}) : ({in_types}) -> ({out_types})"
            )
        ret = ", ".join(f"%{t.name}" for t in self.returned)
        lines.append(f"  func.return {ret} : {results}")
        lines.append("}")
        return "\n".join(lines)

    def module(self) -> ModuleOp:
        return Parser(mlir_context(), self.text()).parse_module()

    def interval(self, t: Tensor) -> tuple[int, int]:
        """Kernel indices from the write to the last read (inclusive)."""
        end = len(self.kernels)
        if t.kind != "kernel":
            return -1, end
        if t in self.returned:
            return t.defined_by, end
        reads = [i for i, k in enumerate(self.kernels) if t in k.inputs]
        return t.defined_by, max(reads, default=t.defined_by)

    def must_not_share(self, a: Tensor, b: Tensor) -> bool:
        (s1, e1), (s2, e2) = self.interval(a), self.interval(b)
        return a is not b and s1 <= e2 and s2 <= e1
