"""The system C compiler: find it, compile C source to objects, link shared libraries.

Code generators that produce C (the ``c`` target, BYOC's ``ccompiler`` and
oneDNN codegens) go through this module, so that every C compilation finds
the compiler the same way, uses the same flags for a target, is cached the
same way and fails with the same kind of message. The API is small and
stable:

```python
from xtvm.codegen import cc

cc.find_c_compiler()                      # "/usr/bin/cc" ($CC, else cc, gcc, clang)
flags = cc.target_flags(target)           # ["-O3", "-march=native", "-fPIC", ...]
obj = cc.compile_object(source, what="kernel @fused_add", flags=[*flags, "-fopenmp"])
objs = cc.compile_objects([(what, source), ...], flags=flags)   # in parallel, cached
cc.link_shared("lib.so", [obj, *objs], libraries=["-lgomp", "-lm"])
```

* ``compile_object(source, what, flags=(), cache=True) -> bytes``: the
  object file (ELF bytes) of one translation unit. ``what`` names the unit
  in errors ("kernel @fused_nn_dense"). The object is looked up in, and
  stored to, the on-disk kernel cache (:mod:`xtvm.codegen.cache`) under the
  sha256 of the source, the flags, the compiler's version and, with
  ``-march=native``, the host CPU and its features.
* ``compile_objects(units, flags=(), jobs=None)``: ``compile_object`` of
  each ``(what, source)`` pair, in up to ``jobs`` compiler processes at once
  (default: :func:`xtvm.codegen.objects.default_jobs`), in order.
* ``link_shared(path, objects, libraries=())``: link object files (bytes or
  paths) into the shared library ``path`` (``-shared``; ``libraries`` are
  extra command-line words such as ``-lgomp`` or ``-L/opt/x/lib -ldnnl``).
* ``target_flags(target)``: ``-O3``, ``-fPIC``, ``-march=``/``-mtune=``
  from the target's ``-mcpu`` (the host CPU: ``-march=native``) and its
  ``-mattr`` flags (``+avx2`` → ``-mavx2``, ``-fma`` → ``-mno-fma``).

Every failure is a :class:`CCompilerError` (a ``CodegenError``): no C
compiler on PATH (it says how to install one or set ``$CC``), or the
compiler rejected the source (it names ``what``, gives the command, the
compiler's messages and the path of a copy of the source kept for reading).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache

from xtvm.codegen.cache import KernelCache, cache_key
from xtvm.codegen.llvm_ir import CodegenError
from xtvm.target import Target

_C_COMPILERS = ("cc", "gcc", "clang")

FAILED_SOURCE_DIR = os.path.join(tempfile.gettempdir(), "xtvm-cc-failed")
"""Where the source of a unit the compiler rejected is kept for reading."""


class CCompilerError(CodegenError):
    """The C compiler is missing or rejected a translation unit."""


def find_c_compiler() -> str:
    """The system C compiler (`$CC`, else cc, gcc or clang on PATH)."""
    candidates = [os.environ["CC"]] if os.environ.get("CC") else list(_C_COMPILERS)
    for name in candidates:
        path = shutil.which(name)
        if path:
            return path
    raise CCompilerError(
        "xtvm needs a C compiler (to compile generated C source and to link shared "
        f"libraries), and none of {', '.join(candidates)} is on PATH; install one "
        "(e.g. gcc) or set CC"
    )


@cache
def compiler_version(compiler: str) -> str:
    """The first line of ``compiler --version`` (part of every cache key)."""
    result = subprocess.run([compiler, "--version"], capture_output=True, text=True)
    lines = result.stdout.splitlines()
    return lines[0] if lines else compiler


def target_flags(target: Target | str | None = None) -> list[str]:
    """The optimisation and code-generation flags for ``target`` (see the
    module docstring): what llvmlite's O3 target machine gets on the llvm
    path, spelled for GCC and Clang."""
    target = Target.of(target)
    flags = ["-O3", "-fPIC", "-std=gnu11", "-fno-math-errno"]
    if target.is_host_cpu:
        flags.append("-march=native")
    else:
        flags += [f"-march={target.mcpu}", f"-mtune={target.mcpu}"]
    for attr in target.mattr:
        flags.append(f"-m{attr[1:]}" if attr[0] == "+" else f"-mno-{attr[1:]}")
    return flags


def _native(flags: Sequence[str]) -> tuple[str, ...]:
    """The host CPU and its features when the flags say "native" (a cache
    shared by machines must not hand one CPU's code to another)."""
    if not any(f.endswith("=native") for f in flags):
        return ()
    from xtvm.target import Target

    host = Target.current_host()
    return (host.cpu_name, host.llvm_features)


def _keep_source(source: str, what: str) -> str:
    os.makedirs(FAILED_SOURCE_DIR, exist_ok=True)
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    stem = "".join(c if c.isalnum() or c in "._-" else "_" for c in what)[:80]
    path = os.path.join(FAILED_SOURCE_DIR, f"{stem}-{digest}.c")
    with open(path, "w") as f:
        f.write(source)
    return path


def compile_object(
    source: str,
    what: str,
    flags: Sequence[str] = (),
    cache: KernelCache | None | bool = True,
) -> bytes:
    """The object file of one C translation unit (see the module docstring)."""
    compiler = find_c_compiler()
    flags = list(flags)
    store = KernelCache.from_env() if cache is True else (cache or None)
    key = cache_key("c-object", compiler_version(compiler), *flags, *_native(flags), source)
    if store is not None:
        hit = store.get(key)
        if hit is not None:
            return hit
    with tempfile.TemporaryDirectory(prefix="xtvm-cc-") as tmp:
        src, obj = os.path.join(tmp, "unit.c"), os.path.join(tmp, "unit.o")
        with open(src, "w") as f:
            f.write(source)
        command = [compiler, *flags, "-c", src, "-o", obj]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            kept = _keep_source(source, what)
            messages = result.stderr.replace(src, kept).strip()
            raise CCompilerError(
                f"the C compiler failed on {what} ({' '.join(command).replace(src, kept)}); its source is "
                f"kept at {kept}:\n{messages}"
            )
        with open(obj, "rb") as f:
            code = f.read()
    if store is not None:
        store.put(key, code)
    return code


def compile_objects(
    units: Sequence[tuple[str, str]],
    flags: Sequence[str] = (),
    jobs: int | None = None,
    cache: KernelCache | None | bool = True,
) -> list[bytes]:
    """``compile_object`` of each ``(what, source)``, several at once, in order."""
    from xtvm.codegen.objects import default_jobs

    if cache is True:
        cache = KernelCache.from_env()
    jobs = default_jobs() if jobs is None else max(1, jobs)
    if jobs == 1 or len(units) <= 1:
        return [compile_object(src, what, flags, cache) for what, src in units]
    with ThreadPoolExecutor(min(jobs, len(units))) as pool:  # the work is in subprocesses
        return list(pool.map(lambda u: compile_object(u[1], u[0], flags, cache), units))


def link_shared(
    path: str | os.PathLike[str],
    objects: Sequence[bytes | str | os.PathLike[str]],
    libraries: Sequence[str] = (),
) -> None:
    """Link object files (their bytes, or paths) into the shared library ``path``."""
    compiler = find_c_compiler()
    with tempfile.TemporaryDirectory(prefix="xtvm-link-") as tmp:
        files = []
        for i, obj in enumerate(objects):
            if isinstance(obj, bytes):
                files.append(os.path.join(tmp, f"unit{i}.o"))
                with open(files[-1], "wb") as f:
                    f.write(obj)
            else:
                files.append(os.fspath(obj))
        command = [compiler, "-shared", "-o", os.fspath(path), *files, *libraries]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise CCompilerError(
                f"linking {os.fspath(path)} failed ({' '.join(command)}):\n{result.stderr}"
            )


__all__ = [
    "CCompilerError",
    "compile_object",
    "compile_objects",
    "compiler_version",
    "find_c_compiler",
    "link_shared",
    "target_flags",
]
