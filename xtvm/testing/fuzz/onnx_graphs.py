"""The ONNX fuzzer: random graphs, xtvm against onnxruntime, onnx's reference as referee.

Each case is a random valid graph (``onnx_ops.random_graph``: 1-8 nodes of
the ops the frontend supports, checked by ``onnx.checker`` and strict shape
inference) and its inputs. A child process (``worker``) runs it on
onnxruntime and on xtvm's ONNX backend (``XtvmBackend.prepare(model).run``)
and compares the outputs: equal dtypes and shapes, and values within
``|x - o| <= ATOL * max(1, max|o|) + RTOL * |o|`` (NaN where the other has
NaN). When they disagree, ``onnx.reference.ReferenceEvaluator`` decides
(its pools made to propagate NaN, ``NAN_DROPPING_POOLS``):

* ``xtvm-wrong``: the reference agrees with onnxruntime, not with xtvm, and
  the graph is well-conditioned (onnxruntime's outputs move less than the
  tolerance when the float inputs move by one part in 10^6);
* ``ort-wrong``: the reference agrees with xtvm, not with onnxruntime;
* ``ill-conditioned``: the reference agrees with neither (or fails), or a
  tiny change of the inputs changes the outputs beyond the tolerance (a
  rounding boundary, a cancellation).

A graph onnxruntime refuses is ``invalid`` (not counted against xtvm). An
error from xtvm on a valid graph is a ``compile error`` finding, unless its
message names a documented limitation (``DOCUMENTED_UNSUPPORTED``). Each
distinct finding is reduced to its smallest failing subgraph (keep one
output; cut nodes by feeding their outputs, as onnxruntime computed them,
as graph inputs) and written as a Python script that embeds the model and
its inputs and re-runs the check.
"""

from __future__ import annotations

import base64
import inspect
import io
import re
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, shape_inference

from xtvm.testing.fuzz.onnx_ops import random_graph
from xtvm.testing.fuzz.report import (
    Category,
    MismatchClass,
    Outcome,
    Report,
    clip,
    last_exception_line,
    traceback_signature,
)
from xtvm.testing.fuzz.worker import Worker

RTOL = 1e-4
ATOL = 1e-5

DOCUMENTED_UNSUPPORTED: dict[str, str] = {
    r"only the last 1 to 3 axes may be resized": "Resize of axes other than the last 1 to 3 "
    "(xtvm/frontend/onnx/image.py)",
    r"computes in float between a dequantize and a quantize": "a QDQ region with no integer "
    "form is refused, naming its op (README 'Quantized models', xtvm/passes/qnn)",
}
"""Message pattern of an xtvm error → the documented limitation it is
(``docs/onnx-conformance.md``); such errors count as clean errors."""


# --- the check, in the child ------------------------------------------------


def _ort_run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def compare(got: np.ndarray, want: np.ndarray) -> str | None:
    """None when ``got`` matches ``want``, else what differs."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} instead of {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape} instead of {want.shape}"
    if got.dtype.kind not in "fc":
        bad = got != want
        if bad.any():
            at = tuple(int(i) for i in np.argwhere(bad)[0])
            count = int(bad.sum())
            return f"{count} of {got.size} values differ, e.g. at {at}: {got[at]} vs {want[at]}"
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(g) != np.isnan(w)
    both = np.isfinite(g) & np.isfinite(w)
    inf = (~np.isnan(g) & ~np.isnan(w) & ~both) & (g != w)
    scale = max(1.0, float(np.abs(w[both]).max())) if both.any() else 1.0
    far = both & (np.abs(g - w) > ATOL * scale + RTOL * np.abs(w))
    bad = nan | inf | far
    if not bad.any():
        return None
    at = tuple(int(i) for i in np.argwhere(bad)[0])
    return (
        f"{int(bad.sum())} of {got.size} values differ, e.g. at {at}: {g[at]!r} vs {w[at]!r}"
        f" (max |diff| {float(np.nanmax(np.where(both, np.abs(g - w), 0))):.3g}, scale {scale:.3g})"
    )


def _compare_all(
    got: list[np.ndarray], want: list[np.ndarray], names: list[str]
) -> tuple[str, str] | None:
    """The first output that differs, and how; None when all match."""
    if len(got) != len(want):
        return "", f"{len(got)} outputs instead of {len(want)}"
    for name, g, w in zip(names, got, want):
        why = compare(g, w)
        if why is not None:
            return name, why
    return None


def _perturbed(feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        k: (v * (1 + 1e-6 * rng.choice([-1.0, 1.0], v.shape))).astype(v.dtype)
        if v.dtype.kind == "f"
        else v
        for k, v in feeds.items()
    }


def _float64_model(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` computing in float64: float32 inputs, outputs, initializers,
    casts and constants become float64 (the exact answer's stand-in), and
    the normalizations' ``stash_type`` (the precision of their mean and
    variance, float32 by default: ONNX's function body computes the
    variance as E[x^2] - E[x]^2 in it) is float64."""
    from onnx import TensorProto, helper, numpy_helper

    wide = onnx.ModelProto()
    wide.CopyFrom(model)
    opset = next((o.version for o in wide.opset_import if o.domain in ("", "ai.onnx")), 0)
    for node in wide.graph.node:
        stashes = node.op_type == "LayerNormalization" or (
            node.op_type == "GroupNormalization" and opset >= 21
        )
        if stashes:
            kept = [a for a in node.attribute if a.name != "stash_type"]
            del node.attribute[:]
            node.attribute.extend([*kept, helper.make_attribute("stash_type", TensorProto.DOUBLE)])
    for info in [*wide.graph.input, *wide.graph.output]:
        if info.type.tensor_type.elem_type == TensorProto.FLOAT:
            info.type.tensor_type.elem_type = TensorProto.DOUBLE
    for i, init in enumerate(wide.graph.initializer):
        if init.data_type == TensorProto.FLOAT:
            wide.graph.initializer[i].CopyFrom(
                numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float64), init.name)
            )
    for node in wide.graph.node:
        for attr in node.attribute:
            if attr.name == "to" and attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.DOUBLE
            if attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type == TensorProto.FLOAT:
                attr.t.CopyFrom(
                    numpy_helper.from_array(
                        numpy_helper.to_array(attr.t).astype(np.float64), attr.t.name
                    )
                )
    del wide.graph.value_info[:]
    return wide


NAN_DROPPING_POOLS = ("MaxPool", "AveragePool", "LpPool")
"""onnx's reference pools drop every NaN of a window (they mark padding with
NaN); ONNX does not say so, and its GlobalMaxPool and ReduceMax propagate
NaN, as xtvm's pools do (docs/reliability.md). The referee's pools are
wrapped to propagate it (:func:`_referee`)."""


def _nan_propagating(base: type) -> type:
    """A reference pool ``base`` whose output is NaN for a window holding
    NaN, else ``base``'s. It runs ``base`` twice: on the input with NaN
    replaced by 0 (the answer for windows without NaN), and on the NaN mask
    (positive where a window holds one). ``MaxPool``'s ``Indices`` are left
    as they are (the fuzzer draws no ``Indices`` output; the reference's
    differ from onnxruntime's even without NaN)."""

    # the wrapper is registered under the op's name, so onnx hands it the
    # newest schema's attributes; ``base`` (the model's version) takes its own
    accepted = inspect.signature(base._run).parameters

    def _run(self: Any, x: np.ndarray, *args: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        kwargs = {k: v for k, v in kwargs.items() if k in accepted}
        if x.dtype.kind != "f" or not np.isnan(x).any():
            return base._run(self, x, *args, **kwargs)
        nan = np.isnan(x)
        out = list(base._run(self, np.where(nan, 0, x).astype(x.dtype), *args, **kwargs))
        mask = list(base._run(self, nan.astype(x.dtype), *args, **kwargs))
        out[0] = np.where(mask[0] > 0, np.nan, out[0]).astype(out[0].dtype)
        return tuple(out)

    return type(base.__name__.split("_")[0], (base,), {"_run": _run, "op_domain": ""})


def _referee(model: onnx.ModelProto) -> Any:
    """onnx's ``ReferenceEvaluator`` for ``model``, its pools propagating NaN
    (``NAN_DROPPING_POOLS``)."""
    from onnx.reference import ReferenceEvaluator
    from onnx.reference.ops import load_op

    version = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
    used = {node.op_type for node in model.graph.node}
    pools = [op for op in NAN_DROPPING_POOLS if op in used]
    return ReferenceEvaluator(
        model, new_ops=[_nan_propagating(load_op("", op, version)) for op in pools]
    )


def _float64_verdict(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], k: int, got: np.ndarray, want: np.ndarray
) -> str | None:
    """When the graph computed in float64 (by onnxruntime, else by onnx's
    reference) agrees with xtvm's float32 output and not with onnxruntime's,
    the float32 result is rounding (a cancellation): a description of that,
    else None (also when there is no float64 answer)."""
    if want.dtype != np.float32 and got.dtype != np.float32 and want.dtype.kind != "b":
        return None
    wide = {n: v.astype(np.float64) if v.dtype == np.float32 else v for n, v in feeds.items()}
    try:
        exact = np.asarray(_ort_run(_float64_model(model), wide)[k])
    except Exception:  # noqa: BLE001 - an op onnxruntime lacks in float64: the reference
        try:
            exact = np.asarray(_referee(_float64_model(model)).run(None, wide)[k])
        except Exception:  # noqa: BLE001 - no float64 answer: no verdict
            return None
    if exact.dtype == np.float64:
        exact = exact.astype(np.float32)
    if compare(got, exact) is None and compare(want, exact) is not None:
        return "in float64 the graph gives xtvm's result: the float32 result is rounding"
    return None


def _producer(model: onnx.ModelProto, name: str) -> str:
    for node in model.graph.node:
        if name in node.output:
            return node.op_type
    return "graph input"


def _normalized(message: str) -> str:
    message = re.sub(r"'[^']*'", "'_'", message)
    message = re.sub(r"\d+", "N", message)
    return message[:120]


def check(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, Any]:
    """Runs ``model`` on onnxruntime and xtvm and classifies the outcome
    (see the module docstring). The answer is JSON: ``status`` (``ok``,
    ``invalid``, ``compile-error``, ``traceback``, ``mismatch``) and details."""
    try:
        want = _ort_run(model, feeds)
    except Exception as err:  # noqa: BLE001 - onnxruntime refuses the graph
        return {"status": "invalid", "detail": f"onnxruntime: {str(err)[:300]}"}
    from xtvm.frontend.onnx.backend import XtvmBackend

    try:
        got = list(XtvmBackend.prepare(model).run([feeds[i.name] for i in model.graph.input]))
    except Exception as err:  # noqa: BLE001 - classified here
        text = traceback.format_exc()
        if type(err).__module__.startswith("xtvm"):
            message = f"{type(err).__name__}: {err}"
            return {
                "status": "compile-error",
                "detail": message[:500],
                "traceback": clip(text),
                "signature": f"{type(err).__name__}: {_normalized(str(err))}",
            }
        return {"status": "traceback", "traceback": clip(text)}
    names = [o.name for o in model.graph.output]
    diff = _compare_all(got, want, names)
    if diff is None:
        return {"status": "ok"}
    name, why = diff
    where = f"{_producer(model, name)} output '{name}'" if name else "outputs"
    answer = {
        "status": "mismatch",
        "detail": f"{where}: xtvm vs onnxruntime: {why}",
        "signature": _producer(model, name) if name else "outputs",
    }
    try:
        ref = list(_referee(model).run(None, feeds))
    except Exception as err:  # noqa: BLE001 - no referee
        answer.update(
            cls=MismatchClass.ILL_CONDITIONED.value,
            detail=answer["detail"] + f"; the reference failed: {str(err)[:200]}",
        )
        return answer
    # the referee judges the output where xtvm and onnxruntime differ
    k = names.index(name) if name in names else 0
    ref = [np.asarray(r) for r in ref]
    ref_vs_ort = compare(ref[k], want[k]) if len(ref) == len(want) else "output count"
    ref_vs_xtvm = compare(ref[k], got[k]) if len(ref) == len(got) else "output count"
    if ref_vs_ort is None and ref_vs_xtvm is not None:
        moved = compare(_ort_run(model, _perturbed(feeds))[k], want[k])
        rounding = _float64_verdict(model, feeds, k, got[k], want[k])
        if rounding is not None:
            answer.update(
                cls=MismatchClass.ILL_CONDITIONED.value, detail=answer["detail"] + f"; {rounding}"
            )
        elif moved is not None:
            answer.update(
                cls=MismatchClass.ILL_CONDITIONED.value,
                detail=answer["detail"] + f"; inputs changed by 1e-6 move the result: {moved}",
            )
        else:
            answer["cls"] = MismatchClass.XTVM_WRONG.value
    elif ref_vs_xtvm is None and ref_vs_ort is not None:
        answer["cls"] = MismatchClass.ORT_WRONG.value
    else:
        answer["cls"] = MismatchClass.ILL_CONDITIONED.value
        answer["detail"] += "; the reference agrees with neither"
    return answer


def handle(task: dict[str, Any]) -> dict[str, Any]:
    """The worker's entry: ``{"model": path, "inputs": path.npz}``."""
    model = onnx.load(task["model"])
    with np.load(task["inputs"]) as data:
        feeds = {k: data[k] for k in data.files}
    return check(model, feeds)


# --- the parent: running, classifying, reducing -----------------------------


def outcome_of(answer: dict[str, Any]) -> Outcome:
    status = answer["status"]
    if status == "ok":
        return Outcome(Category.OK)
    if status == "invalid":
        return Outcome(Category.INVALID, answer["detail"])
    if status == "compile-error":
        for pattern, why in DOCUMENTED_UNSUPPORTED.items():
            if re.search(pattern, answer["detail"]):
                return Outcome(Category.CLEAN_ERROR, f"{why}: {answer['detail']}")
        return Outcome(Category.COMPILE_ERROR, answer["detail"], answer["signature"])
    if status == "traceback":
        text = answer.get("traceback", "")
        return Outcome(Category.TRACEBACK, last_exception_line(text), traceback_signature(text))
    if status == "crash":
        rc = answer.get("returncode")
        return Outcome(
            Category.CRASH,
            f"return code {rc}; {answer.get('stderr', '')[-300:]}",
            f"signal {-rc}" if isinstance(rc, int) and rc < 0 else f"exit {rc}",
        )
    if status == "hang":
        detail = answer.get("detail", "no answer within the timeout")
        return Outcome(Category.HANG, detail, "timeout")
    cls = MismatchClass(answer["cls"])
    return Outcome(
        Category.MISMATCH, answer["detail"], f"{cls.value} in {answer['signature']}", cls
    )


class Checker:
    """Runs cases in a worker: writes the model and inputs, asks the child."""

    def __init__(self, timeout: float, workdir: Path):
        self.worker = Worker("xtvm.testing.fuzz.onnx_graphs", timeout)
        self.workdir = workdir
        self.calls = 0

    def __call__(self, model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> Outcome:
        self.calls += 1
        model_path = self.workdir / "case.onnx"
        inputs_path = self.workdir / "case.npz"
        onnx.save(model, model_path)
        np.savez(inputs_path, **feeds)
        return outcome_of(self.worker.call({"model": str(model_path), "inputs": str(inputs_path)}))

    def close(self) -> None:
        self.worker.close()


def _all_values(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every value of the graph as onnxruntime computes it (graph inputs included)."""
    inferred = shape_inference.infer_shapes(model, strict_mode=True)
    exposed = onnx.ModelProto()
    exposed.CopyFrom(inferred)
    known = {o.name for o in exposed.graph.output}
    for info in inferred.graph.value_info:
        if info.name not in known:
            exposed.graph.output.append(info)
    names = [o.name for o in exposed.graph.output]
    values = dict(feeds)
    values.update(zip(names, _ort_run(exposed, feeds)))
    return values


def subgraph(
    model: onnx.ModelProto, values: dict[str, np.ndarray], targets: list[str], cuts: set[str]
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The nodes computing ``targets``, where each value in ``cuts`` becomes
    a graph input (fed its value from ``values``)."""
    producer = {o: n for n in model.graph.node for o in n.output}
    initializers = {i.name: i for i in model.graph.initializer}
    keep: list[onnx.NodeProto] = []
    needed_inputs: list[str] = []
    seen: set[str] = set()
    stack = list(targets)
    while stack:
        name = stack.pop()
        if name in seen or not name:
            continue
        seen.add(name)
        node = producer.get(name)
        if name in cuts or node is None:
            if name not in initializers:
                needed_inputs.append(name)
            continue
        if node not in keep:
            keep.append(node)
            stack.extend(node.input)
    order = [n for n in model.graph.node if n in keep]
    inputs = [
        helper.make_tensor_value_info(
            n, helper.np_dtype_to_tensor_dtype(values[n].dtype), list(values[n].shape)
        )
        for n in sorted(needed_inputs)
    ]
    outputs = [
        helper.make_tensor_value_info(
            n, helper.np_dtype_to_tensor_dtype(values[n].dtype), list(values[n].shape)
        )
        for n in targets
    ]
    used = {i for n in order for i in n.input}
    graph = helper.make_graph(
        order, "reduced", inputs, outputs, [initializers[n] for n in initializers if n in used]
    )
    reduced = helper.make_model(
        graph, opset_imports=list(model.opset_import), producer_name="xtvm-fuzz-reducer"
    )
    reduced.ir_version = model.ir_version
    return reduced, {n: values[n] for n in sorted(needed_inputs)}


def reduce_graph(
    model: onnx.ModelProto,
    feeds: dict[str, np.ndarray],
    fails: Callable[[onnx.ModelProto, dict[str, np.ndarray]], bool],
    budget: int = 30,
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The smallest failing subgraph found within ``budget`` checks: one
    output, then the earliest failing value, then nodes cut away one by one
    (their outputs fed as inputs)."""
    try:
        values = _all_values(model, feeds)
    except Exception:  # noqa: BLE001 - no values: nothing to cut with
        return model, feeds
    best = (model, feeds)
    targets = [o.name for o in model.graph.output]
    # one output, then the earliest value of its cone whose own cone still fails
    for names in ([[t] for t in targets] if len(targets) > 1 else []), None:
        if names is None:
            cone = {o for n in best[0].graph.node for o in n.output}
            names = [
                [o]
                for n in model.graph.node
                for o in n.output
                if o in values and o in cone and [o] != targets
            ]
        for name in names:
            if budget <= 0:
                return best
            budget -= 1
            candidate = subgraph(model, values, name, set())
            if fails(*candidate):
                best, targets = candidate, name
                break
    cuts: set[str] = set()
    current = best[0]
    for node in list(current.graph.node)[:-1]:
        if budget <= 0:
            break
        budget -= 1
        trial = cuts | {o for o in node.output if o}
        candidate = subgraph(current, values, targets, trial)
        if fails(*candidate):
            cuts, best = trial, candidate
    return best


def reproducer(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], outcome: Outcome, case: str
) -> str:
    """A Python script holding the model and inputs that re-runs the check."""
    buffer = io.BytesIO()
    np.savez(buffer, **feeds)
    text = onnx.printer.to_text(model)
    detail = outcome.detail.replace('"""', "'''")
    return f'''"""ONNX fuzz finding: {outcome.label}: {outcome.signature}

case: {case}
{detail}

The model ({len(model.graph.node)} nodes):

{text}

Run: python THIS_FILE (prints xtvm's outcome against onnxruntime).
"""

import base64
import io

import numpy as np
import onnx

MODEL = onnx.load_from_string(base64.b64decode(
    "{base64.b64encode(model.SerializeToString()).decode()}"
))
with np.load(io.BytesIO(base64.b64decode(
    "{base64.b64encode(buffer.getvalue()).decode()}"
))) as _data:
    INPUTS = {{k: _data[k] for k in _data.files}}

if __name__ == "__main__":
    from xtvm.testing.fuzz.onnx_graphs import check

    print(check(MODEL, INPUTS))
'''


def graph_seed(seed: int, index: int) -> int:
    """The seed of case ``index`` of a run seeded ``seed``."""
    return seed * 1_000_003 + index


def run(
    report: Report,
    seed: int,
    deadline: float,
    count: int | None,
    timeout: float = 120.0,
    reduce_budget: int = 30,
    log: Callable[[str], None] = print,
    jobs: int = 1,
    ops: Sequence[str] | None = None,
) -> Report:
    """The fuzz loop: random graphs until ``deadline`` (monotonic) or
    ``count`` graphs, checked by ``jobs`` workers at once (graph ``i`` is
    the same whatever the number of jobs)."""
    lock = threading.Lock()
    next_index = [0]

    def take() -> int | None:
        with lock:
            index = next_index[0]
            if time.monotonic() >= deadline or (count is not None and index >= count):
                return None
            next_index[0] += 1
            return index

    def loop(workdir: Path) -> None:
        checker = Checker(timeout, workdir)
        try:
            while (index := take()) is not None:
                model, feeds, drawn = random_graph(graph_seed(seed, index), ops=ops)
                opset = model.opset_import[0].version
                label = f"graph {index} of seed {seed} (opset {opset}: {', '.join(drawn)})"
                outcome = checker(model, feeds)
                with lock:
                    finding = report.record(label, outcome)
                if finding is None:
                    continue
                log(f"  new finding: [{outcome.label}] {outcome.signature} ({label})")

                def fails(
                    m: onnx.ModelProto, f: dict[str, np.ndarray], want: Outcome = outcome
                ) -> bool:
                    if time.monotonic() > deadline + 120:
                        return False
                    got = checker(m, f)
                    same = got.signature == want.signature or want.category is Category.MISMATCH
                    return got.category == want.category and got.mismatch == want.mismatch and same

                small, small_feeds = reduce_graph(model, feeds, fails, reduce_budget)
                with lock:
                    report.write(finding, ".py", reproducer(small, small_feeds, outcome, label))
        finally:
            checker.close()

    with tempfile.TemporaryDirectory(prefix="xtvm-fuzz-onnx-") as tmp:
        dirs = [Path(tmp) / f"job{j}" for j in range(max(1, jobs))]
        for d in dirs:
            d.mkdir()
        threads = [threading.Thread(target=loop, args=(d,)) for d in dirs[1:]]
        for t in threads:
            t.start()
        loop(dirs[0])
        for t in threads:
            t.join()
    return report
