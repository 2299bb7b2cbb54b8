"""The VM executor (TVM's ``tvm.runtime.vm``): an :class:`Executable`
(bytecode, constants, kernel names) bound to a kernel library, run by a
:class:`VirtualMachine`. Imports nothing of the compiler.

    exe = Executable.load_exec(open("model.vmexe", "rb").read(), load_module("kernels.so"))
    vm = VirtualMachine(exe, cpu(0))        # or VirtualMachine(load_module("model.so"), cpu(0))
    out = vm.invoke("main", x)

docs/vm.md describes the format and the artifacts.
"""

from xtvm.runtime.vm.executable import EXECUTABLE_SYMBOL, MAGIC, VERSION, Executable, Function
from xtvm.runtime.vm.vm import ADT, VirtualMachine


def has_executable(lib) -> bool:
    """Whether a loaded library embeds a VM executable."""
    resolve = getattr(lib, "_resolve", None)
    return bool(resolve is not None and resolve(EXECUTABLE_SYMBOL))


__all__ = [
    "ADT",
    "EXECUTABLE_SYMBOL",
    "MAGIC",
    "VERSION",
    "Executable",
    "Function",
    "VirtualMachine",
    "has_executable",
]
