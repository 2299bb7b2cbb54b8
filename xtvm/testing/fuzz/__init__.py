"""Fuzzers: seeded, bounded searches for inputs that make xtvm fail badly.

```sh
python -m xtvm.testing.fuzz ir      --minutes 20 --seed 1   # mutated lit files through xtvm-opt
python -m xtvm.testing.fuzz onnx    --count 200 --seed 7    # random ONNX graphs vs onnxruntime
python -m xtvm.testing.fuzz runtime --minutes 5             # runtime API and CLI misuse
```

Every run is deterministic given ``--seed`` (what it finds may still depend
on timing: a hang is a timeout). ``--minutes`` or ``--count`` bounds it.
Each case ends in one category (``report.Category``): ``ok``, ``clean
error`` (an error message, no traceback: what a bad input should get),
``traceback`` (a Python exception escaped), ``crash`` (killed by a signal),
``hang`` (over the timeout) or, for the ONNX fuzzer, a ``mismatch`` with its
class (``xtvm-wrong``, ``ort-wrong``, ``ill-conditioned``). The last four
(xtvm-wrong only among mismatches) are findings: each distinct one (by its
signature: category and where it failed) is reduced (line deletion for IR,
node-subset reduction for ONNX) and written to ``--out`` (default
``fuzz-findings/``), one file per finding, and a summary table is printed
at the end. The exit status is 1 when a finding is attributable to xtvm.

Cases that may crash or hang run in child processes (``worker``), so one
bad case costs a restarted child, not the run.

* ``ir``: ``ir.py``, mutations of ``test/lit/**/*.mlir`` run through each
  file's ``xtvm-opt`` RUN pipeline;
* ``onnx``: ``onnx_graphs.py``, random valid graphs of the supported ONNX
  ops, xtvm against onnxruntime with onnx's reference evaluator as referee;
* ``runtime``: ``runtime.py``, wrong arguments to the runtime API and
  kernels, damaged and foreign libraries, one executor shared by threads,
  bad command lines of ``xtvm-run`` and ``xtvm-compile``.
"""
