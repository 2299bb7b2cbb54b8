"""The runtime fuzzer: misuse of the runtime API and of the command-line tools.

The parent builds the artifacts once (``prepare``): a small two-input,
two-output model exported as a library (with the outputs NumPy computes for
its inputs), a te kernel library (``scale(A, B)``), a plain C shared
library, and a few foreign files. Each case is one scenario (``SCENARIOS``)
with its own random parameters, run in a child process (``worker``):

* ``set-input``, ``get-output``, ``executor-api``: wrong names, indices,
  shapes, dtypes and types (lists, strings, ``None``, objects, non-contiguous
  and 0-d arrays), bad ``load_params`` bytes, bad devices; afterwards the
  executor must still compute the right outputs;
* ``kernel``: a kernel called with wrong argument counts, shapes, dtypes,
  strides and Python values;
* ``ndarray``: NDArray construction and copies with odd shapes and dtypes;
* ``truncated-library``, ``flipped-library``: the model's library cut short
  or with bytes flipped in its ELF headers and tables or in its metadata,
  loaded (and, if it loads, run) in the child;
* ``foreign-file``: text, empty files, directories, a plain C library,
  libm, odd path types;
* ``shared-executor``: one executor used by several threads (the owner
  works, the others get an ``XTVMError``);
* ``executor-per-thread``: one executor per thread, run concurrently,
  outputs checked;
* ``cli-run``, ``cli-compile``: ``xtvm-run`` / ``xtvm-compile`` with bad
  arguments and files, in subprocesses.

An API call rejected with ``XTVMError``, ``TypeError`` or ``ValueError`` is
a clean error; any other exception is a traceback; a wrong output after
misuse is a mismatch; a killed child (or CLI) is a crash; a CLI printing
``Traceback`` is a traceback. Flipping bytes inside machine code is not
done: a library's code runs when it is loaded or called, so only trusted
libraries may be loaded (``load_module``'s docstring).
"""

from __future__ import annotations

import json
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from xtvm.testing.fuzz.report import (
    Category,
    MismatchClass,
    Outcome,
    Report,
    clip,
    last_exception_line,
    traceback_signature,
)
from xtvm.testing.fuzz.worker import Worker, limit_memory

CLEAN = (TypeError, ValueError)
"""Besides ``XTVMError``: the exceptions a wrong argument may raise."""


class Mismatch(Exception):
    """A result differs from the expected one."""


class Found(Exception):
    """A CLI run ended badly: ``status`` (traceback, crash, hang) and its stderr."""

    def __init__(self, status: str, detail: str, text: str = ""):
        super().__init__(detail)
        self.status, self.detail, self.text = status, detail, text


# --- artifacts (parent) -----------------------------------------------------


def prepare(workdir: Path) -> dict[str, str]:
    """Builds the artifacts the scenarios use; returns their paths."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    import xtvm
    from xtvm import te
    from xtvm.frontend import from_onnx

    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"]),
        helper.make_node("Relu", ["xw"], ["relu"]),
        helper.make_node("Mul", ["n", "n"], ["square"]),
    ]
    graph = helper.make_graph(
        nodes,
        "fuzz_model",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8]),
            helper.make_tensor_value_info("n", TensorProto.INT32, [3]),
        ],
        [
            helper.make_tensor_value_info("relu", TensorProto.FLOAT, [2, 4]),
            helper.make_tensor_value_info("square", TensorProto.INT32, [3]),
        ],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, workdir / "model.onnx")
    mod, params = from_onnx(model)
    xtvm.build(mod, params=params).export_library(workdir / "model.so")
    x = rng.standard_normal((2, 8)).astype(np.float32)
    n = np.array([3, -4, 5], np.int32)
    np.savez(workdir / "io.npz", x=x, n=n, relu=np.maximum(x @ w, 0), square=n * n)
    np.save(workdir / "x.npy", x)
    np.save(workdir / "x_wrong.npy", x[:, :5])

    a = te.placeholder((5, 7), "float32", name="A")
    b = te.compute((5, 7), lambda i, j: a[i, j] * 2.0 + 1.0, name="B")
    xtvm.build(te.create_prim_func([a, b], "scale")).export_library(workdir / "kernel.so")

    (workdir / "plain.c").write_text("int plain(void) { return 42; }\n")
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-o", str(workdir / "plain.so"), str(workdir / "plain.c")],
        check=True,
    )
    (workdir / "text.so").write_text("this is not a library\n")
    (workdir / "empty.so").write_bytes(b"")
    (workdir / "garbage.onnx").write_bytes(bytes(rng.integers(0, 256, 300, dtype=np.uint8)))
    data = (workdir / "model.onnx").read_bytes()
    (workdir / "truncated.onnx").write_bytes(data[: len(data) // 2])
    (workdir / "garbage.mlir").write_text("func.func @main( {{{ relay.nope\n")
    (workdir / "a-directory").mkdir(exist_ok=True)
    return {"dir": str(workdir)}


# --- the child: scenarios ---------------------------------------------------


class Context:
    """The artifacts, as a scenario sees them, and the rejections it collected."""

    def __init__(self, directory: str, rng: random.Random, time_scale: float = 1):
        self.dir = Path(directory)
        self.rng = rng
        self.time_scale = time_scale  # 3 when the worker retries a hang
        self.rejected: list[str] = []
        with np.load(self.dir / "io.npz") as data:
            self.io = {k: data[k] for k in data.files}

    def attempt(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Calls ``fn``; a clean rejection is recorded (and None returned),
        anything else propagates."""
        from xtvm.runtime import XTVMError

        try:
            return fn(*args, **kwargs)
        except (XTVMError, *CLEAN) as err:
            self.rejected.append(f"{what}: {type(err).__name__}: {str(err)[:120]}")
            return None

    def executor(self) -> Any:
        from xtvm.runtime import cpu, load_module

        return load_module(self.dir / "model.so")["default"](cpu(0))

    def check_outputs(self, gmod: Any, when: str) -> None:
        """Feeds the valid inputs, runs, and compares both outputs."""
        gmod.set_input("x", self.io["x"])
        gmod.set_input("n", self.io["n"])
        gmod.run()
        for i, name in enumerate(["relu", "square"]):
            got = gmod.get_output(i).numpy()
            if not np.allclose(got, self.io[name], rtol=1e-5, atol=1e-5):
                raise Mismatch(f"{when}: output {name} is wrong: {got.ravel()[:4]} ...")


def odd_values(rng: random.Random, shape: tuple[int, ...], dtype: str) -> list[Any]:
    """Values a careless caller might pass for a tensor of ``shape``/``dtype``."""
    from xtvm.runtime.ndarray import array as nd_array

    good = np.zeros(shape, dtype)
    wrong_dtype = rng.choice(["float64", "int64", "int32", "float16", "bool", "uint8", "float32"])
    bigger = tuple(d + 1 for d in shape)
    return [
        None,
        1,
        1.5,
        "data",
        b"\x00",
        object(),
        [1, 2],
        [[1.0] * 8] * 2,
        {"x": 1},
        np.zeros(shape, wrong_dtype),
        np.zeros(bigger, dtype),
        np.zeros(shape[::-1], dtype),
        np.zeros((), dtype),
        np.zeros((0,), dtype),
        np.zeros((*shape, 1), dtype),
        np.asfortranarray(np.zeros(shape, dtype)),
        np.zeros(tuple(2 * d for d in shape), dtype)[::2, ::2] if len(shape) == 2 else good[::-1],
        np.zeros(shape, object),
        np.full(shape, np.nan, "float32"),
        np.zeros(shape, "complex64"),
        nd_array(np.zeros(bigger, dtype)),
        nd_array(np.zeros(shape, wrong_dtype)),
        good.tolist(),
        np.zeros(shape, np.dtype(dtype).newbyteorder(">")),
        np.ma.masked_array(good),
        np.datetime64("2020-01-01"),
        float("nan"),
        10**30,
        -1,
        True,
    ]


def scenario_set_input(ctx: Context) -> None:
    gmod = ctx.executor()
    r = ctx.rng
    keys = [
        "x",
        "n",
        0,
        1,
        2,
        -1,
        "nope",
        "w",
        "",
        None,
        1.0,
        True,
        b"x",
        np.int64(0),
        10**20,
        ("x",),
    ]
    for _ in range(r.randint(1, 6)):
        key = r.choice(keys)
        shape, dtype = ((2, 8), "float32") if key in ("x", 0) else ((3,), "int32")
        value = r.choice(odd_values(r, shape, dtype))
        ctx.attempt(f"set_input({key!r}, ...)", gmod.set_input, key, value)
        if r.random() < 0.3:
            ctx.attempt("set_input(**)", gmod.set_input, **{str(key): value})
        if r.random() < 0.2:
            ctx.attempt("run(**)", gmod.run, x=value)
    ctx.check_outputs(gmod, "after rejected set_input calls")


def scenario_get_output(ctx: Context) -> None:
    from xtvm.runtime.ndarray import array as nd_array

    gmod = ctx.executor()
    ctx.check_outputs(gmod, "before")
    r = ctx.rng
    indices = [
        0,
        1,
        2,
        -1,
        10**20,
        "relu",
        "square",
        "nope",
        None,
        1.5,
        True,
        np.int32(1),
        [0],
        b"relu",
    ]
    outs = [
        None,
        nd_array(np.zeros((2, 4), "float32")),
        nd_array(np.zeros((3,), "int32")),
        nd_array(np.zeros((4, 2), "float32")),
        nd_array(np.zeros((2, 4), "float64")),
        np.zeros((2, 4), "float32"),
        "out",
        3,
    ]
    for _ in range(r.randint(1, 6)):
        ctx.attempt("get_output", gmod.get_output, r.choice(indices), r.choice(outs))
    ctx.check_outputs(gmod, "after get_output misuse")


def scenario_executor_api(ctx: Context) -> None:
    from xtvm.runtime import Device, cpu, load_module, save_param_dict

    r = ctx.rng
    factory = load_module(ctx.dir / "model.so")
    devices = [
        lambda: None,
        lambda: 0,
        lambda: "cpu",
        lambda: cpu(5),
        lambda: Device(2, 0),
        lambda: [cpu(0), cpu(0)],
        lambda: [],
        lambda: (cpu(0),),
        lambda: object(),
    ]
    for _ in range(r.randint(1, 3)):
        ctx.attempt("factory['default'](dev)", lambda d: factory["default"](d()), r.choice(devices))
    for name in r.sample(["nope", "", "default", "__xtvm_metadata", "x" * 1000, "\x00", "run"], 2):
        ctx.attempt(f"factory[{name!r}]", lambda n: factory[n], name)
    gmod = ctx.executor()
    valid = save_param_dict({"x": ctx.io["x"]})
    blobs = [
        b"",
        b"\x00" * 8,
        valid[: r.randrange(len(valid))],
        valid + b"junk",
        bytes(r.getrandbits(8) for _ in range(64)),
        save_param_dict({"nope": ctx.io["x"]}),
        save_param_dict({"x": ctx.io["x"][:1]}),
        # a wrong-shaped "w": a right-shaped one would legitimately replace the weights
        save_param_dict({"w": np.zeros((4, 8), "float32")}),
        "text",
        None,
        12,
    ]
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("load_params", lambda: gmod.load_params(r.choice(blobs))),
        ("get_input", lambda: gmod.get_input(r.choice(["x", 5, "nope", None, -1, "w"]))),
        ("get_input_index", lambda: gmod.get_input_index(r.choice(["x", "nope", 3, None]))),
        ("get_input_info", lambda: gmod.get_input_info()),
        ("get_num_outputs", lambda: gmod.get_num_outputs()),
        ("gmod[name]", lambda: gmod[r.choice(["run", "nope", "", 3])]),
        (
            "time_evaluator",
            lambda: gmod.time_evaluator(
                r.choice(["run", "nope"]),
                cpu(0),
                number=r.choice([1, 0, -1]),
                repeat=r.choice([1, 0, -2]),
            )(),
        ),
        ("packed run with args", lambda: gmod["run"](r.choice([1, "x", None]))),
        ("packed set_input", lambda: gmod["set_input"](*r.choice([(), ("x",), (0, 1, 2, 3)]))),
    ]
    for _ in range(r.randint(2, 6)):
        what, call = r.choice(calls)
        ctx.attempt(what, call)
    ctx.check_outputs(gmod, "after executor API misuse")


def scenario_kernel(ctx: Context) -> None:
    from xtvm.runtime import load_module
    from xtvm.runtime.ndarray import array as nd_array

    lib = load_module(ctx.dir / "kernel.so")
    scale = lib["scale"]
    r = ctx.rng
    good_a = np.arange(35, dtype="float32").reshape(5, 7)
    for _ in range(r.randint(1, 6)):
        count = r.choice([0, 1, 2, 2, 2, 3])
        args = [
            r.choice(odd_values(r, (5, 7), "float32") + [nd_array(good_a)]) for _ in range(count)
        ]
        ctx.attempt(f"scale({count} args)", scale, *args)
    out = nd_array(np.zeros((5, 7), "float32"))
    scale(nd_array(good_a), out)
    if not np.allclose(out.numpy(), good_a * 2 + 1):
        raise Mismatch("the kernel computes a wrong result after misuse")


def scenario_ndarray(ctx: Context) -> None:
    from xtvm.runtime.ndarray import array as nd_array
    from xtvm.runtime.ndarray import empty

    r = ctx.rng
    shapes = [(2, 3), (), (0,), -1, (-1, 2), (2**40, 2**40), "3", None, (1.5,), [2, 2], 3]
    dtypes = [
        "float32",
        "int8",
        "bool",
        "float16",
        "complex64",
        "nope",
        None,
        np.float64,
        "object",
        "uint64",
    ]
    for _ in range(r.randint(1, 6)):
        choice = r.randrange(4)
        if choice == 0:
            ctx.attempt("empty", empty, r.choice(shapes), r.choice(dtypes))
        elif choice == 1:
            ctx.attempt("nd.array", nd_array, r.choice(odd_values(r, (2, 3), "float32")))
        elif choice == 2:
            target = nd_array(np.zeros((2, 3), "float32"))
            ctx.attempt("copyfrom", target.copyfrom, r.choice(odd_values(r, (2, 3), "float32")))
        else:
            a = nd_array(np.ones((2, 3), "float32"))
            ctx.attempt(
                "setitem",
                a.__setitem__,
                r.choice([slice(None), 0, (5, 5), "x"]),
                r.choice([1.0, "x", np.zeros((7,)), None]),
            )
    a = nd_array(np.arange(6, dtype="float32").reshape(2, 3))
    if not np.array_equal(a.numpy(), np.arange(6, dtype="float32").reshape(2, 3)):
        raise Mismatch("nd.array does not round-trip")


def _load_and_run(ctx: Context, path: Path, what: str) -> None:
    from xtvm.runtime import cpu, load_module

    print(f"loading {what}", file=sys.stderr, flush=True)  # shown if the child crashes
    lib = ctx.attempt(what, load_module, path)
    if lib is None:
        return
    gmod = ctx.attempt(f"{what}: create", lambda: lib["default"](cpu(0)))
    if gmod is None:
        return
    ctx.attempt(f"{what}: run", ctx.check_outputs, gmod, what)


def scenario_truncated_library(ctx: Context) -> None:
    data = (ctx.dir / "model.so").read_bytes()
    cut = ctx.rng.choice(
        [
            0,
            1,
            4,
            16,
            63,
            64,
            65,
            ctx.rng.randrange(len(data)),
            len(data) - 1,
            len(data) - ctx.rng.randrange(1, 4096),
        ]
    )
    path = Path(tempfile.mkdtemp(prefix="xtvm-fuzz-")) / "cut.so"
    path.write_bytes(data[:cut])
    try:
        _load_and_run(ctx, path, f"a library cut at {cut} of {len(data)} bytes")
    finally:
        shutil.rmtree(path.parent)


def _structure_ranges(data: bytes) -> list[tuple[int, int]]:
    """The ELF header, program header table and section header table of ``data``."""
    phoff, shoff = struct.unpack_from("<QQ", data, 32)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, 54)
    return [(0, 64), (phoff, phoff + phentsize * phnum), (shoff, shoff + shentsize * shnum)]


def _metadata_range(data: bytes) -> list[tuple[int, int]]:
    """Where the version-2 metadata (JSON text) lies in a library: only
    there, and in the structure, is a changed byte the runtime's to catch (a
    changed weight or instruction computes something else, which no loader
    can tell without a digest of the whole library)."""
    start = data.find(b'{"functions"')
    if start < 0:
        return []
    try:
        _, length = json.JSONDecoder().raw_decode(data[start:].decode("latin-1"))
    except ValueError:
        return []
    return [(start, start + length)]


def scenario_flipped_library(ctx: Context) -> None:
    r = ctx.rng
    data = bytearray((ctx.dir / "model.so").read_bytes())
    where = r.choice(["structure", "metadata"])
    if where == "metadata":
        ranges = _metadata_range(bytes(data)) or _structure_ranges(bytes(data))
    else:
        ranges = _structure_ranges(bytes(data))
    flips = []
    for _ in range(r.choice([1, 1, 2, 4, 16])):
        lo, hi = r.choice(ranges)
        at = r.randrange(lo, min(hi, len(data)))
        value = r.choice([0, 0xFF, r.getrandbits(8), data[at] ^ (1 << r.randrange(8))])
        flips.append((at, data[at], value))
        data[at] = value
    path = Path(tempfile.mkdtemp(prefix="xtvm-fuzz-")) / "flipped.so"
    path.write_bytes(bytes(data))
    try:
        _load_and_run(ctx, path, f"a library with {where} bytes changed {flips[:4]}")
    finally:
        shutil.rmtree(path.parent)


def scenario_foreign_file(ctx: Context) -> None:
    from xtvm.runtime import load_module

    libm = next(
        (
            p
            for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6")
            if Path(p).exists()
        ),
        "/nonexistent/libm.so",
    )
    paths: list[Any] = [
        ctx.dir / "plain.so",
        ctx.dir / "text.so",
        ctx.dir / "empty.so",
        ctx.dir / "a-directory",
        ctx.dir / "missing.so",
        libm,
        "/dev/null",
        ctx.dir / "model.onnx",
        __file__,
        "a\x00b.so",
        b"/dev/null",
        3,
        None,
        Path("/proc/self/status"),
        "",
    ]
    path = ctx.rng.choice(paths)
    fmt = ctx.rng.choice(["", "so", "o", "tar"])
    ctx.attempt(f"load_module({path!r}, {fmt!r})", load_module, path, fmt)


def scenario_shared_executor(ctx: Context) -> None:
    from xtvm.runtime import XTVMError

    gmod = ctx.executor()
    ctx.check_outputs(gmod, "owner, before the threads")
    errors: list[str] = []

    def other() -> None:
        for call in ctx.rng.sample(
            [
                lambda: gmod.run(),
                lambda: gmod.set_input("x", ctx.io["x"]),
                lambda: gmod.get_output(0),
                lambda: gmod.get_input(0),
            ],
            2,
        ):
            try:
                call()
            except XTVMError as err:
                if "belongs to another thread" not in str(err):
                    errors.append(f"unexpected message: {err}")
                continue
            except BaseException:  # noqa: BLE001 - reported
                errors.append(traceback.format_exc())
                continue
            errors.append("another thread used the executor without an error")

    workers = [threading.Thread(target=other) for _ in range(ctx.rng.randint(2, 4))]
    for w in workers:
        w.start()
    for _ in range(5):
        ctx.check_outputs(gmod, "owner, while other threads try")
    for w in workers:
        w.join()
    if errors:
        if "Traceback" in errors[0]:
            raise RuntimeError(errors[0])
        raise Mismatch(errors[0])
    ctx.rejected.append("other threads refused")


def scenario_executor_per_thread(ctx: Context) -> None:
    from xtvm.runtime import cpu, load_module

    factory = load_module(ctx.dir / "model.so")
    problems: list[str] = []

    def own() -> None:
        try:
            gmod = factory["default"](cpu(0))
            for _ in range(10):
                ctx.check_outputs(gmod, "an executor per thread")
        except Mismatch as err:
            problems.append(f"mismatch: {err}")
        except BaseException:  # noqa: BLE001 - reported
            problems.append(traceback.format_exc())

    workers = [threading.Thread(target=own) for _ in range(ctx.rng.randint(2, 4))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if problems:
        if problems[0].startswith("mismatch"):
            raise Mismatch(problems[0])
        raise RuntimeError(problems[0])


def _cli(ctx: Context, tool: str, args: list[str], timeout: float = 120) -> None:
    script = Path(sys.executable).parent / tool
    command = [str(script)] if script.exists() else [sys.executable, "-m", f"xtvm.tools.{tool[5:]}"]
    shown = f"{tool} {' '.join(args)}"
    timeout *= ctx.time_scale
    try:
        proc = subprocess.run(
            [*command, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ctx.dir,
            preexec_fn=limit_memory,
            errors="replace",
        )
    except subprocess.TimeoutExpired:
        raise Found("hang", f"{shown}: no answer in {timeout:g} s") from None
    if "Traceback (most recent call last)" in proc.stderr:
        raise Found("traceback", f"{shown}: {last_exception_line(proc.stderr)}", proc.stderr)
    if proc.returncode < 0:
        raise Found("crash", f"{shown}: signal {-proc.returncode}", proc.stderr)
    if proc.returncode != 0:
        ctx.rejected.append(f"{shown}: {last_exception_line(proc.stderr)}")
        if not proc.stderr.strip():
            raise Mismatch(f"{shown} failed (exit {proc.returncode}) without a message")


def scenario_cli_run(ctx: Context) -> None:
    r = ctx.rng
    library = r.choice(
        [
            "model.so",
            "model.so",
            "model.so",
            "kernel.so",
            "plain.so",
            "text.so",
            "empty.so",
            "a-directory",
            "missing.so",
            "model.onnx",
        ]
    )
    args = [library]
    for _ in range(r.randint(0, 3)):
        args += r.choice(
            [
                [
                    "--input",
                    r.choice(
                        [
                            "x=x.npy",
                            "x=x_wrong.npy",
                            "x=missing.npy",
                            "x=text.so",
                            "x",
                            "=x.npy",
                            "nope=x.npy",
                            "n=x.npy",
                            "x=a-directory",
                            "x=model.so",
                        ]
                    ),
                ],
                ["--fill", r.choice(["random", "zeros", "none", "ones"])],
                ["--repeat", r.choice(["1", "0", "-1", "abc", "2"])],
                [
                    "--output",
                    r.choice(["out.npz", "a-directory", "/proc/out.npz", "missing/out.npz"]),
                ],
                [r.choice(["--bogus", "-x", "--input"])],
            ]
        )
    _cli(ctx, "xtvm-run", args)


def scenario_cli_compile(ctx: Context) -> None:
    r = ctx.rng
    model = r.choice(
        [
            "model.onnx",
            "model.onnx",
            "model.onnx",
            "garbage.onnx",
            "truncated.onnx",
            "garbage.mlir",
            "missing.onnx",
            "a-directory",
            "text.so",
        ]
    )
    args = [model]
    options = [
        [
            "--shape",
            r.choice(
                [
                    "x=2,8",
                    "x=a,b",
                    "x=-1,8",
                    "x=",
                    "nope=1,2",
                    "x=2,99999999999",
                    "x",
                    "x=2,8,1",
                    "n=3",
                    "x=0,8",
                ]
            ),
        ],
        [
            "--target",
            r.choice(
                [
                    "llvm",
                    "llvm -mcpu=nope",
                    "cuda",
                    "",
                    "llvm -num-cores=0",
                    "llvm -mattr=+nope",
                    "llvm -mcpu=haswell",
                ]
            ),
        ],
        ["--opt-level", r.choice(["0", "3", "9", "-1", "x"])],
        ["--emit", r.choice(["relay", "tir", "llvm-ir", "nope"])],
        ["-o", r.choice(["out.so", "a-directory", "missing/dir/out.so", "/proc/out.so"])],
        ["--header", r.choice(["out.h", "a-directory"])],
        ["--elide-large-constants", r.choice(["4", "-5", "x"])],
        [r.choice(["--bogus", "-o"])],
    ]
    for _ in range(r.randint(0, 3)):
        args += r.choice(options)
    _cli(ctx, "xtvm-compile", args, timeout=180)


SCENARIOS: dict[str, Callable[[Context], None]] = {
    "set-input": scenario_set_input,
    "get-output": scenario_get_output,
    "executor-api": scenario_executor_api,
    "kernel": scenario_kernel,
    "ndarray": scenario_ndarray,
    "truncated-library": scenario_truncated_library,
    "flipped-library": scenario_flipped_library,
    "foreign-file": scenario_foreign_file,
    "shared-executor": scenario_shared_executor,
    "executor-per-thread": scenario_executor_per_thread,
    "cli-run": scenario_cli_run,
    "cli-compile": scenario_cli_compile,
}


def handle(task: dict[str, Any]) -> dict[str, Any]:
    """The worker's entry: ``{"scenario": name, "seed": s, "dir": artifacts}``."""
    ctx = Context(task["dir"], random.Random(task["seed"]), task.get("time_scale", 1))
    try:
        SCENARIOS[task["scenario"]](ctx)
    except Mismatch as err:
        return {"status": "mismatch", "detail": str(err)[:500]}
    except Found as found:
        return {
            "status": found.status,
            "detail": found.detail[:500],
            "traceback": clip(found.text),
        }
    except Exception:  # noqa: BLE001 - reported
        return {"status": "traceback", "traceback": clip(traceback.format_exc())}
    if ctx.rejected:
        return {"status": "clean-error", "detail": " | ".join(ctx.rejected)[:500]}
    return {"status": "ok"}


# --- the parent -------------------------------------------------------------


def outcome_of(answer: dict[str, Any], scenario: str) -> Outcome:
    status = answer["status"]
    if status == "ok":
        return Outcome(Category.OK)
    if status == "clean-error":
        return Outcome(Category.CLEAN_ERROR, answer["detail"])
    if status == "mismatch":
        return Outcome(
            Category.MISMATCH,
            answer["detail"],
            f"{scenario}: wrong result",
            MismatchClass.XTVM_WRONG,
        )
    if status == "traceback":
        text = answer.get("traceback", "")
        return Outcome(
            Category.TRACEBACK,
            answer.get("detail") or last_exception_line(text),
            f"{scenario}: {traceback_signature(text)}",
        )
    if status == "crash":
        rc = answer.get("returncode")
        detail = answer.get("detail") or f"return code {rc}: {answer.get('stderr', '')[-300:]}"
        return Outcome(Category.CRASH, detail, f"{scenario}: crash")
    return Outcome(
        Category.HANG, answer.get("detail", "no answer within the timeout"), f"{scenario}: hang"
    )


def run(
    report: Report,
    seed: int,
    deadline: float,
    count: int | None,
    timeout: float = 240.0,
    log: Callable[[str], None] = print,
) -> Report:
    """The fuzz loop: scenarios until ``deadline`` (monotonic) or ``count`` cases."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="xtvm-fuzz-runtime-") as tmp:
        artifacts = prepare(Path(tmp))
        worker = Worker("xtvm.testing.fuzz.runtime", timeout, recycle=50)
        names = sorted(SCENARIOS)
        try:
            index = 0
            while time.monotonic() < deadline and (count is None or index < count):
                # every scenario once first, so short runs cover them all
                scenario = names[index] if index < len(names) else rng.choice(names)
                case_seed = rng.getrandbits(32)
                task = {"scenario": scenario, "seed": case_seed, **artifacts}
                outcome = outcome_of(worker.call(task), scenario)
                label = f"case {index} of seed {seed}: {scenario} (scenario seed {case_seed})"
                index += 1
                finding = report.record(label, outcome)
                if finding is None:
                    continue
                log(f"  new finding: [{outcome.label}] {outcome.signature} ({label})")
                report.write(finding, ".py", _reproducer(scenario, case_seed, outcome, label))
        finally:
            worker.close()
    return report


def _reproducer(scenario: str, case_seed: int, outcome: Outcome, label: str) -> str:
    detail = outcome.detail.replace('"""', "'''")
    return f'''"""Runtime fuzz finding: {outcome.label}: {outcome.signature}

case: {label}
{detail}

Run: python THIS_FILE (rebuilds the artifacts and replays the scenario in a child).
"""

import json
import tempfile
from pathlib import Path

from xtvm.testing.fuzz.runtime import prepare
from xtvm.testing.fuzz.worker import Worker

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        artifacts = prepare(Path(tmp))
        with Worker("xtvm.testing.fuzz.runtime", timeout=240) as worker:
            task = {{"scenario": {scenario!r}, "seed": {case_seed}, **artifacts}}
            print(json.dumps(worker.call(task), indent=1))
'''
