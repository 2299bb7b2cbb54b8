"""The virtual machine: runs an :class:`Executable`'s bytecode, calling the
kernel library for every ``invoke_packed`` (TVM's ``VirtualMachine``).

    vm = VirtualMachine(exe, cpu(0))          # or VirtualMachine(load_module("m.so"), cpu(0))
    out = vm.invoke("main", x)                # one result: an NDArray; several: a tuple
    vm.set_input("data", x); vm.run(); vm.get_output(0)   # as the graph executor

Each instruction is decoded once, when the VM is created, into a closure
over its operands; the interpreter loop is one call per instruction. The
cost per instruction stays small where shapes are static:

* a storage of static size, or for one tensor of a run-time shape that
  has not changed, is allocated once and kept for the next invocation (a
  second execution within one invocation, in a loop, allocates afresh),
  except when a result of the last ``invoke`` lives in it: ``invoke``'s
  results are the caller's, as in TVM (``run()``'s outputs, as the graph
  executor's, are rewritten by the next run);
* a tensor placed in a kept storage is the same NDArray at every
  execution, so
* a kernel called on the same arrays as last time reuses its bound argument
  list (one native call, no conversion).

A kernel that fails, a bad shape at run time or a malformed value raises an
``XTVMError`` naming the function, the instruction and its source op.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from operator import is_
from typing import Any

import numpy as np

from xtvm.runtime import packing, threads
from xtvm.runtime.allocator import keep_heap_pages
from xtvm.runtime.base import XTVMError
from xtvm.runtime.module import Module
from xtvm.runtime.ndarray import ALIGNMENT, Device, NDArray, alias, array, dtype_name, empty
from xtvm.runtime.packed_func import KernelFunc, PackedFunc, PyFunc
from xtvm.runtime.vm.executable import Executable, Function


class ADT:
    """An ADT value: a tag and fields (a tuple is tag 0)."""

    __slots__ = ("tag", "fields")

    def __init__(self, tag: int, fields: Sequence[Any]):
        self.tag = tag
        self.fields = tuple(fields)

    def __getitem__(self, i: int) -> Any:
        return self.fields[i]

    def __len__(self) -> int:
        return len(self.fields)

    def __repr__(self) -> str:
        return f"ADT(tag={self.tag}, fields={len(self.fields)})"


class _Storage:
    """A block of aligned bytes (``alloc_storage``)."""

    __slots__ = ("buffer", "generation", "start", "end")

    def __init__(self, nbytes: int, generation: int):
        self.buffer = empty((max(nbytes, 1),), "uint8")
        self.generation = generation
        self.start = self.buffer.data_ptr
        self.end = self.start + nbytes

    def holds(self, value: Any) -> bool:
        """Whether ``value`` (a tensor, or an ADT of them) lives in this storage."""
        if isinstance(value, NDArray):
            return self.start <= value.data_ptr < self.end
        if isinstance(value, ADT):
            return any(self.holds(f) for f in value.fields)
        return False


_RET = -1


def _describe(shape: Sequence[int | None], dtype: str) -> str:
    dims = ["?" if d is None else str(d) for d in shape]
    return f"({dims[0]},) {dtype}" if len(dims) == 1 else f"({', '.join(dims)}) {dtype}"


def _shape_from(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, NDArray) or value.ndim != 1:
        raise XTVMError(f"{what}: expected a 1-d shape tensor, got {value!r}")
    dims = tuple(int(d) for d in value.numpy())
    if any(d < 0 for d in dims):
        raise XTVMError(f"{what}: negative dimension in shape {dims}")
    return dims


def _match(static: Sequence[int | None], dims: Sequence[int], what: str) -> None:
    if len(static) != len(dims) or any(s is not None and s != d for s, d in zip(static, dims)):
        shown = "(" + ", ".join("?" if s is None else str(s) for s in static) + ")"
        raise XTVMError(f"{what}: shape {tuple(dims)} does not fit {shown}")


def _truth(value: Any) -> bool:
    if isinstance(value, (int, np.integer)):
        return bool(value)
    if isinstance(value, NDArray) and value._array.size == 1:
        return bool(value._array.reshape(-1)[0])
    raise XTVMError(f"if: the condition must be an integer or a one-element tensor, got {value!r}")


class _Program:
    """A function decoded for the interpreter."""

    __slots__ = ("function", "code", "nregs")

    def __init__(self, function: Function, code: list[Callable[[list], int]]):
        self.function = function
        self.code = code
        self.nregs = function.num_registers


class VirtualMachine(Module):
    """Runs ``exe`` (an :class:`Executable`, or a library that embeds one)
    on ``device``. Every method is also a PackedFunc (``vm["invoke"]``).

    One VM runs one invocation at a time, on the first thread that uses
    it (another thread gets an ``XTVMError``); create one per thread."""

    _PACKED = ("invoke", "set_input", "run", "get_output", "get_num_outputs", "get_input_info")

    def __init__(self, exe: Executable | Module, device: Device):
        super().__init__("VirtualMachine")
        keep_heap_pages()  # the kernels' large buffers, before the first run
        if isinstance(exe, Module):
            exe = Executable.from_library(exe)
        if not isinstance(exe, Executable):
            raise XTVMError(f"VirtualMachine: expected an Executable, got {type(exe).__name__}")
        if not isinstance(device, Device):
            raise XTVMError(f"VirtualMachine: expected a Device, got {type(device).__name__}")
        if exe.lib is None:
            raise XTVMError("VirtualMachine: the executable is bound to no kernel library")
        self.exe = exe
        self.device = device
        lib = exe.lib
        self._kernels: list[PackedFunc] = [lib.get_function(k, query_imports=True) for k in exe.kernels]
        self._consts = [self._constant(c) for c in exe.constants]
        self._generation = 0
        self._kept: list[list[Any]] = []  # the kept-storage slot of each static alloc_storage
        self._programs = [self._decode(f) for f in exe.functions]
        self._inputs: dict[tuple[int, int, tuple[int, ...]], NDArray] = {}
        self._pending: dict[int, NDArray] = {}
        self._outputs: tuple[Any, ...] = ()
        self._owner: int | None = None
        for module in [lib, *lib.imported_modules]:
            threads.apply(module)

    @staticmethod
    def _constant(c: np.ndarray) -> NDArray:
        aligned = c.flags.c_contiguous and c.dtype.isnative and c.ctypes.data % ALIGNMENT == 0
        if aligned and not packing.is_packed(c.dtype.name):
            return NDArray(c)
        # an unaligned buffer (bytes read from a file), or a sub-byte constant to pack
        return array(c)

    # -- the public interface -----------------------------------------------

    def _lookup(self, name: str) -> PackedFunc | None:
        return PyFunc(getattr(self, name), name) if name in self._PACKED else None

    def function_names(self) -> list[str]:
        return list(self._PACKED)

    def _function(self, name: str) -> int:
        index = self.exe.func_index.get(name)
        if index is None:
            raise XTVMError(
                f"VM: no function '{name}'; functions: {', '.join(self.exe.func_index)}"
            )
        return index

    def invoke(self, func_name: str, *args: Any) -> Any:
        """Run ``func_name`` on ``args`` (NDArrays, NumPy arrays, ints):
        one result as itself, several as a tuple. Results are the caller's:
        no later call writes into them."""
        index = self._function(func_name)
        values = self._check_args(index, args, "invoke")
        results = self._top(index, values)
        return results[0] if len(results) == 1 else results

    def set_input(self, key: int | str | None = None, value: Any = None, **named: Any) -> None:
        """Set input ``key`` (index or name) of ``main``, and each ``named`` one."""
        main = self._function("main")
        names = self.exe.functions[main].param_names()
        items = ([(key, value)] if key is not None else []) + list(named.items())
        for k, v in items:
            if isinstance(k, str):
                if k not in names:
                    raise XTVMError(
                        f"set_input: the model has no input named '{k}'; inputs: {', '.join(names) or 'none'}"
                    )
                k = names.index(k)
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < len(names):
                raise XTVMError(
                    f"set_input: input {k!r} out of range; the model has {len(names)} input(s): "
                    f"{', '.join(names)}"
                )
            self._pending[int(k)] = self._convert(main, int(k), v, "set_input")

    def run(self, **inputs: Any) -> None:
        """Run ``main`` on the inputs set (and ``inputs``, by name)."""
        if inputs:
            self.set_input(**inputs)
        main = self._function("main")
        names = self.exe.functions[main].param_names()
        missing = [names[i] for i in range(len(names)) if i not in self._pending]
        if missing:
            raise XTVMError(f"run: input(s) {', '.join(missing)} not set (set_input)")
        self._outputs = self._top(main, [self._pending[i] for i in range(len(names))], fresh=False)

    def get_output(self, index: int | str) -> Any:
        """Result ``index`` (or of that name) of the last ``run``: the VM's
        own array, rewritten by the next ``run`` (as the graph executor's)."""
        if isinstance(index, str):
            names = self.output_names
            if index not in names:
                raise XTVMError(f"get_output: no output named '{index}'; outputs: {', '.join(names)}")
            index = names.index(index)
        if not self._outputs:
            raise XTVMError("get_output: run() has not been called")
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(self._outputs):
            raise XTVMError(f"get_output: index {index!r} out of range; the model has {len(self._outputs)} output(s)")
        return self._outputs[index]

    @property
    def output_names(self) -> list[str]:
        """``main``'s result names (``output<i>`` where the model names none)."""
        results = self.exe.functions[self._function("main")].results
        return [r.get("name") or f"output{i}" for i, r in enumerate(results)]

    def get_num_outputs(self) -> int:
        return len(self.exe.functions[self._function("main")].results)

    def get_input_info(self) -> tuple[dict[str, tuple], dict[str, str]]:
        """``(shapes, dtypes)`` of ``main``'s inputs by name (``-1`` for ``?``)."""
        f = self.exe.functions[self._function("main")]
        shapes, dtypes = {}, {}
        for name, p in zip(f.param_names(), f.params):
            if p.get("kind") == "tensor":
                shapes[name] = tuple(-1 if d is None else d for d in p["shape"])
                dtypes[name] = p["dtype"]
        return shapes, dtypes

    # -- arguments -----------------------------------------------------------

    def _check_args(self, index: int, args: Sequence[Any], what: str) -> list[Any]:
        f = self.exe.functions[index]
        if len(args) != len(f.params):
            raise XTVMError(
                f"{what}: @{f.name} takes {len(f.params)} argument(s) "
                f"({', '.join(f.param_names())}), got {len(args)}"
            )
        return [self._convert(index, i, a, what) for i, a in enumerate(args)]

    def _convert(self, index: int, i: int, value: Any, what: str) -> Any:
        """Argument ``i`` of function ``index`` as a register value, checked:
        NumPy arrays are copied into a VM-owned aligned array (kept for the
        next call of that shape), NDArrays are used as they are."""
        f = self.exe.functions[index]
        spec = f.params[i]
        name = f.param_names()[i]
        kind = spec.get("kind")
        if kind == "int":
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                return int(value)
            raise XTVMError(f"{what}: input '{name}' expects an integer, got {type(value).__name__}")
        if kind == "adt":
            if isinstance(value, ADT):
                return value
            if isinstance(value, (list, tuple)):  # a tuple or sequence of tensors
                return ADT(0, [v if isinstance(v, NDArray) else array(np.asarray(v)) for v in value])
            raise XTVMError(f"{what}: input '{name}' expects a tuple (ADT), got {type(value).__name__}")
        if kind != "tensor":
            return value
        shape, dtype = spec["shape"], spec["dtype"]
        if isinstance(value, NDArray):
            given = value.view()
        elif isinstance(value, np.ndarray):
            given = value
        elif value is None:
            raise XTVMError(f"{what}: no value given for input '{name}'")
        else:
            try:
                given = np.asarray(value, dtype=dtype)
            except (TypeError, ValueError, OverflowError) as err:
                raise XTVMError(f"{what}: input '{name}': {err}") from None
        fits = len(given.shape) == len(shape) and all(
            d is None or d == g for d, g in zip(shape, given.shape)
        )
        if not fits or given.dtype != np.dtype(dtype):
            raise XTVMError(
                f"{what}: input '{name}' expects {_describe(shape, dtype)}, "
                f"got {_describe(list(given.shape), given.dtype.name)}"
            )
        if isinstance(value, NDArray):
            return value
        key = (index, i, tuple(given.shape))
        buffer = self._inputs.get(key)
        if buffer is None:
            buffer = self._inputs[key] = empty(given.shape, dtype, self.device)
        buffer._store(given)
        return buffer

    # -- the interpreter -----------------------------------------------------

    def _top(self, index: int, args: list[Any], fresh: bool = True) -> tuple[Any, ...]:
        """One invocation from outside: a new generation of kept storage.
        With ``fresh``, a storage holding a result is not reused (the
        results stay the caller's); ``run()`` keeps it, so its outputs, as
        the graph executor's, are rewritten by the next run."""
        me = threading.get_ident()
        if self._owner is None:
            self._owner = me
        elif self._owner != me:
            raise XTVMError(
                "this VirtualMachine belongs to another thread (it holds one set of buffers): "
                "create one per thread with VirtualMachine(exe, dev)"
            )
        self._generation += 1
        results = self._call(index, args)
        if fresh:
            for slot in self._kept:
                storage = slot[0]
                if storage is not None and any(storage.holds(r) for r in results):
                    slot[0] = None
        return results

    def _call(self, index: int, args: Sequence[Any]) -> tuple[Any, ...]:
        program = self._programs[index]
        regs: list[Any] = [None] * (program.nregs + 1)
        regs[: len(args)] = args
        code = program.code
        pc = 0
        try:
            while pc >= 0:
                pc = code[pc](regs)
        except XTVMError as err:
            raise self._error(program, pc, str(err)) from None
        except RecursionError:
            raise self._error(program, pc, "vm.invoke calls nest too deeply (unbounded recursion?)") from None
        except (ArithmeticError, IndexError, TypeError, ValueError, AttributeError, MemoryError) as err:
            raise self._error(program, pc, f"{type(err).__name__}: {err}") from None
        return regs[program.nregs]

    @staticmethod
    def _error(program: _Program, pc: int, message: str) -> XTVMError:
        f = program.function
        source = f.source[pc] if f.source else f.code[pc][0]
        return XTVMError(f"VM @{f.name} instruction #{pc} ({source}): {message}")

    def _decode(self, f: Function) -> _Program:
        code = [self._handler(f, pc, ins) for pc, ins in enumerate(f.code)]
        return _Program(f, code)

    def _handler(self, f: Function, pc: int, ins: list[Any]) -> Callable[[list], int]:  # noqa: C901
        """The closure that executes instruction ``ins`` at ``pc``; it
        returns the next pc (``_RET`` after ``ret``)."""
        op, nxt = ins[0], pc + 1
        ret_slot = f.num_registers

        if op == "move":
            dst, src = ins[1], ins[2]

            def move(regs: list) -> int:
                regs[dst] = regs[src]
                return nxt

            return move
        if op == "ret":
            srcs = ins[1]

            def ret(regs: list) -> int:
                regs[ret_slot] = tuple(regs[r] for r in srcs)
                return _RET

            return ret
        if op == "goto":
            target = ins[1]
            return lambda regs: target
        if op == "if":
            cond, then_pc, else_pc = ins[1], ins[2], ins[3]
            return lambda regs: then_pc if _truth(regs[cond]) else else_pc
        if op == "invoke":
            callee, srcs, dsts = ins[1], ins[2], ins[3]

            def invoke(regs: list) -> int:
                results = self._call(callee, [regs[r] for r in srcs])
                for d, v in zip(dsts, results):
                    regs[d] = v
                return nxt

            return invoke
        if op == "invoke_packed":
            return self._invoke_packed(ins, nxt)
        if op == "alloc_storage":
            return self._alloc_storage(ins, nxt)
        if op == "alloc_storage_shape":
            return self._alloc_storage_shape(ins, nxt)
        if op == "alloc_tensor":
            return self._alloc_tensor(ins, nxt)
        if op == "kill":
            reg = ins[1]

            def kill(regs: list) -> int:
                regs[reg] = None
                return nxt

            return kill
        if op == "load_const":
            dst, value = ins[1], self._consts[ins[2]]

            def load_const(regs: list) -> int:
                regs[dst] = value
                return nxt

            return load_const
        if op == "load_consti":
            dst, ivalue = ins[1], ins[2]

            def load_consti(regs: list) -> int:
                regs[dst] = ivalue
                return nxt

            return load_consti
        if op == "shape_of":
            dst, src = ins[1], ins[2]
            shapes: dict[tuple[int, ...], NDArray] = {}

            def shape_of(regs: list) -> int:
                value = regs[src]
                if not isinstance(value, NDArray):
                    raise XTVMError(f"shape_of: expected a tensor, got {value!r}")
                found = shapes.get(value.shape)
                if found is None:
                    found = shapes[value.shape] = array(np.array(value.shape, dtype=np.int64))
                regs[dst] = found
                return nxt

            return shape_of
        if op == "shape_from":
            dst, srcs, pairs = ins[1], ins[2], list(zip(ins[3][::2], ins[3][1::2]))
            made: dict[tuple[int, ...], NDArray] = {}
            # The tensors of the last call and the shape they gave: the same
            # arrays (kept tensors, the same run-time sizes) give it again. As
            # for invoke_packed, tensors that are new at every call are not
            # held (so that they are freed after the run).
            seen: list[Any] = [(), None, 0]

            def shape_from(regs: list) -> int:
                tensors = [regs[r] for r in srcs]
                if len(tensors) == len(seen[0]) and all(map(is_, tensors, seen[0])):
                    regs[dst] = seen[1]
                    seen[2] = 0
                    return nxt
                dims = []
                for src, axis in pairs:
                    if src < 0:
                        dims.append(axis)
                        continue
                    t = tensors[src]
                    if not isinstance(t, NDArray) or axis >= t.ndim:
                        raise XTVMError(f"shape_from: operand {src} has no axis {axis}: {t!r}")
                    dims.append(t.shape[axis])
                key = tuple(dims)
                found = made.get(key)
                if found is None:
                    found = made[key] = array(np.array(key, dtype=np.int64).reshape(len(key)))
                seen[2] += 1
                seen[0], seen[1] = (tensors, found) if seen[2] < 2 else ((), None)
                regs[dst] = found
                return nxt

            return shape_from
        if op == "reshape_tensor":
            dst, src, static, shape_reg = ins[1], ins[2], ins[3], ins[4]

            def reshape(regs: list) -> int:
                value = regs[src]
                if not isinstance(value, NDArray):
                    raise XTVMError(f"reshape_tensor: expected a tensor, got {value!r}")
                dims = static if shape_reg is None else _shape_from(regs[shape_reg], "reshape_tensor")
                _match(static, dims, "reshape_tensor")
                count = int(np.prod(value.shape, dtype=np.int64))
                if int(np.prod(dims, dtype=np.int64)) != count:
                    raise XTVMError(
                        f"reshape_tensor: cannot reshape {value.shape} ({count} elements) to {tuple(dims)}"
                    )
                if packing.is_packed(value.dtype):  # the same packed bytes, another shape
                    regs[dst] = NDArray(value._array, value.device, packed=(dims, value.dtype))
                else:
                    regs[dst] = NDArray(value._array.reshape(dims), value.device)
                return nxt

            return reshape
        if op == "alloc_adt":
            dst, tag, fields = ins[1], ins[2], ins[3]

            def alloc_adt(regs: list) -> int:
                regs[dst] = ADT(tag, [regs[r] for r in fields])
                return nxt

            return alloc_adt
        if op == "get_field":
            dst, src, field = ins[1], ins[2], ins[3]

            def get_field(regs: list) -> int:
                adt = regs[src]
                if not isinstance(adt, ADT):
                    raise XTVMError(f"get_field: expected an ADT, got {adt!r}")
                if not 0 <= field < len(adt.fields):
                    raise XTVMError(f"get_field: index {field} out of range for {adt!r}")
                regs[dst] = adt.fields[field]
                return nxt

            return get_field
        if op == "get_tag":
            dst, src = ins[1], ins[2]

            def get_tag(regs: list) -> int:
                adt = regs[src]
                if not isinstance(adt, ADT):
                    raise XTVMError(f"get_tag: expected an ADT, got {adt!r}")
                regs[dst] = adt.tag
                return nxt

            return get_tag
        raise XTVMError(f"VM: unknown opcode '{op}'")  # the executable's check rules this out

    def _invoke_packed(self, ins: list[Any], nxt: int) -> Callable[[list], int]:
        kernel, srcs = self._kernels[ins[1]], ins[2]
        if not isinstance(kernel, KernelFunc):

            def call_packed(regs: list) -> int:
                kernel(*[regs[r] for r in srcs])
                return nxt

            return call_packed
        # The arrays of the last call and their bound call, and whether the
        # arrays ever repeat: a call on new arrays every time (run-time
        # shapes) keeps nothing, so that its arrays are freed after the run.
        last: list[Any] = [(), None, 0]

        def invoke_packed(regs: list) -> int:
            args = [regs[r] for r in srcs]
            previous = last[0]
            if len(previous) == len(args) and all(map(is_, args, previous)):
                last[1]()
                last[2] = 0
                return nxt
            for i, a in enumerate(args):
                if not isinstance(a, NDArray):
                    raise XTVMError(f"{kernel.name}: argument #{i} is {a!r}, not a tensor")
            bound = kernel.bind(args)
            last[2] += 1
            if last[2] < 2:
                last[0], last[1] = args, bound
            else:
                last[0], last[1] = (), None
            bound()
            return nxt

        return invoke_packed

    def _alloc_storage(self, ins: list[Any], nxt: int) -> Callable[[list], int]:
        dst, size, size_reg = ins[1], ins[2], ins[3]
        if size is None:

            def alloc_dynamic(regs: list) -> int:
                n = regs[size_reg]
                if isinstance(n, NDArray) and n._array.size == 1:
                    n = int(n._array.reshape(-1)[0])
                if not isinstance(n, (int, np.integer)) or n < 0:
                    raise XTVMError(f"alloc_storage: size must be a non-negative integer, got {n!r}")
                regs[dst] = _Storage(int(n), self._generation)
                return nxt

            return alloc_dynamic
        slot: list[Any] = [None]
        self._kept.append(slot)

        def alloc_static(regs: list) -> int:
            storage = slot[0]
            if storage is None or storage.generation == self._generation:
                storage = slot[0] = _Storage(size, self._generation)
            else:
                storage.generation = self._generation
            regs[dst] = storage
            return nxt

        return alloc_static

    def _alloc_storage_shape(self, ins: list[Any], nxt: int) -> Callable[[list], int]:
        """Storage for one tensor of a run-time shape: kept for the next
        invocation as a static one is, as long as the shape stays the same
        (``shape_from`` gives the same array for the same shape)."""
        dst, shape_reg, dtype = ins[1], ins[2], dtype_name(ins[4])
        slot: list[Any] = [None]
        self._kept.append(slot)
        last: list[Any] = [None, None, None]  # the shape array, the size it gave, its values

        def alloc_for_shape(regs: list) -> int:
            shape = regs[shape_reg]
            # A kernel-written shape (a shape function's result) is the same
            # array with new values at every call: compare the values too.
            if shape is not last[0] or shape._array.tolist() != last[2]:
                dims = _shape_from(shape, "alloc_storage")
                last[0], last[1], last[2] = shape, packing.nbytes(dims, dtype), list(dims)
                slot[0] = None
            storage = slot[0]
            if storage is None or storage.generation == self._generation:
                storage = slot[0] = _Storage(last[1], self._generation)
            else:
                storage.generation = self._generation
            regs[dst] = storage
            return nxt

        return alloc_for_shape

    def _alloc_tensor(self, ins: list[Any], nxt: int) -> Callable[[list], int]:
        dst, src, offset, static, shape_reg, dtype = ins[1:7]
        dtype = dtype_name(dtype)
        if shape_reg is None:
            dims = tuple(static)
            last: list[Any] = [None, None]  # storage, tensor

            def alloc_static(regs: list) -> int:
                storage = regs[src]
                if storage is last[0]:
                    regs[dst] = last[1]
                    return nxt
                if not isinstance(storage, _Storage):
                    raise XTVMError(f"alloc_tensor: expected a storage, got {storage!r}")
                tensor = alias(storage.buffer, offset, dims, dtype)
                last[0], last[1] = storage, tensor
                regs[dst] = tensor
                return nxt

            return alloc_static

        kept: list[Any] = [None, None, None, None]  # storage, shape array, tensor, its dims

        def alloc_dynamic(regs: list) -> int:
            storage, shape_value = regs[src], regs[shape_reg]
            if (
                storage is kept[0]
                and shape_value is kept[1]
                and shape_value._array.tolist() == kept[3]
            ):
                regs[dst] = kept[2]
                return nxt
            if not isinstance(storage, _Storage):
                raise XTVMError(f"alloc_tensor: expected a storage, got {storage!r}")
            shape = _shape_from(shape_value, "alloc_tensor")
            _match(static, shape, "alloc_tensor")
            nbytes = packing.nbytes(shape, dtype_name(dtype))
            if offset + nbytes > storage.end - storage.start:
                raise XTVMError(
                    f"alloc_tensor: {shape} {dtype} at offset {offset} needs {offset + nbytes} bytes, "
                    f"the storage has {storage.end - storage.start}"
                )
            tensor = alias(storage.buffer, offset, shape, dtype)
            kept[0], kept[1], kept[2], kept[3] = storage, shape_value, tensor, list(shape)
            regs[dst] = tensor
            return nxt

        return alloc_dynamic
