"""One core's float32 FMA peak: ``python -m xtvm.bench.peak``.

A loop of independent vector FMA chains (enough accumulators to cover the
FMA latency of every pipe), compiled for the host by the same LLVM target
machine as xtvm's kernels, timed on the calling thread's CPU time; the
fastest of a few rounds, in GFLOP/s (an FMA is two FLOPs per lane). It is
the roof a direct convolution's schedule can approach and not pass: the
tuning benchmark states a kernel's speed as a share of it.
"""

from __future__ import annotations

import ctypes
import time

import llvmlite.binding as llvm

ACCUMULATORS = 24
"""Independent FMA chains: latency 4 x 2 pipes needs 8, Zen 5 and Intel's
AVX-512 cores at most 12; 24 leaves the loop overhead negligible."""


def _ir(lanes: int, chains: int) -> str:
    vec = f"<{lanes} x float>"
    lines = [
        f"declare {vec} @llvm.fma.v{lanes}f32({vec}, {vec}, {vec})",
        "define float @fma_loop(i64 %n, float %s) {",
        "entry:",
        f"  %xs = insertelement {vec} undef, float %s, i32 0",
        f"  %x = shufflevector {vec} %xs, {vec} undef, <{lanes} x i32> zeroinitializer",
        f"  %y = fadd {vec} %x, %x",
        "  br label %loop",
        "loop:",
        "  %i = phi i64 [0, %entry], [%next, %loop]",
    ]
    lines += [
        f"  %a{k} = phi {vec} [zeroinitializer, %entry], [%b{k}, %loop]" for k in range(chains)
    ]
    lines += [
        f"  %b{k} = call {vec} @llvm.fma.v{lanes}f32({vec} %x, {vec} %y, {vec} %a{k})"
        for k in range(chains)
    ]
    lines += [
        "  %next = add i64 %i, 1",
        "  %more = icmp ult i64 %next, %n",
        "  br i1 %more, label %loop, label %exit",
        "exit:",
    ]
    total = "%b0"
    for k in range(1, chains):
        lines.append(f"  %s{k} = fadd {vec} {total}, %b{k}")
        total = f"%s{k}"
    lines += [f"  %r = extractelement {vec} {total}, i32 0", "  ret float %r", "}"]
    return "\n".join(lines)


class FmaLoop:
    """The compiled loop: ``run(n, s)`` does ``n`` iterations of
    ``ACCUMULATORS`` FMAs ``a += s * 2s`` on ``lanes``-lane vectors and
    returns lane 0 of the accumulators' sum, ``ACCUMULATORS * n * 2s^2``."""

    def __init__(self, lanes: int | None = None, chains: int = ACCUMULATORS):
        from xtvm.codegen.llvm_ir import target_machine
        from xtvm.target import Target
        from xtvm.topi.x86.config import lanes as target_lanes

        target = Target.of("llvm")
        self.lanes = lanes or target_lanes(target)
        self.chains = chains
        tm = target_machine(target)
        module = llvm.parse_assembly(_ir(self.lanes, chains))
        module.verify()
        self._engine = llvm.create_mcjit_compiler(module, tm)
        self._engine.finalize_object()
        address = self._engine.get_function_address("fma_loop")
        self.run = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_int64, ctypes.c_float)(address)

    def flops(self, n: int) -> float:
        return 2.0 * self.lanes * self.chains * n


def fma_peak_gflops(seconds: float = 0.2, rounds: int = 5, loop: FmaLoop | None = None) -> float:
    """One core's FMA peak in GFLOP/s: the fastest of ``rounds`` runs of
    about ``seconds`` each of ``loop`` (compiled here by default), on the
    thread's CPU time."""
    loop = loop or FmaLoop()
    n = 1 << 16
    while True:  # grow n until a run lasts about `seconds`
        start = time.thread_time()
        loop.run(n, 1e-9)
        elapsed = time.thread_time() - start
        if elapsed >= seconds / 4 or n >= 1 << 34:
            break
        n *= 4
    n = max(int(n * seconds / max(elapsed, 1e-6)), 1)
    best = 0.0
    for _ in range(rounds):
        start = time.thread_time()
        loop.run(n, 1e-9)
        elapsed = time.thread_time() - start
        best = max(best, loop.flops(n) / max(elapsed, 1e-9) / 1e9)
    return best


def main() -> None:
    loop = FmaLoop()
    print(
        f"one core's f32 FMA peak: {fma_peak_gflops(loop=loop):.1f} GFLOP/s "
        f"({loop.lanes} lanes, {loop.chains} chains, {llvm.get_host_cpu_name()}; "
        "thread CPU time, fastest of 5 rounds)"
    )


if __name__ == "__main__":
    main()
