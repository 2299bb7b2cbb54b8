"""``xtvm-compile``: a model (ONNX, or relay IR as ``.mlir``) to a shared
library, or, with ``--emit``, the IR of one pipeline stage.

```
xtvm-compile model.onnx -o model.so [--target llvm] [--shape data=1,784] [--header model.h]
xtvm-compile model.onnx --emit relay|relay-opt|tir|llvm-dialect|llvm-ir [-o out.mlir]
xtvm-compile model.onnx --emit relay-opt --elide-large-constants   # for reading
```
Every ``--emit`` output but ``llvm-ir`` parses again with ``xtvm-opt``; its
first line states the command that reproduces it. The output holds the whole
program: the weights are constants in the module (``--emit relay`` binds
them into ``@main``), large ones as ``dense_resource`` blobs
(:mod:`xtvm.ir.printing`), so compiling the file gives the same model.
``--elide-large-constants[=N]`` leaves constants of more than N elements
out (``dense_resource<__elided__>``); such a file does not compile.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from xtvm.driver.pipeline import STAGE_NAMES
from xtvm.ir.printing import ELIDE_DEFAULT


def parse_shapes(items: Sequence[str]) -> dict[str, tuple[int, ...]]:
    shapes = {}
    for item in items:
        name, _, dims = item.partition("=")
        if not dims:
            raise ValueError(f"--shape expects NAME=D0,D1,..., got '{item}'")
        shapes[name] = tuple(int(d) for d in dims.split(","))
    return shapes


def load_model(path: Path, shapes: dict[str, tuple[int, ...]]):
    """(relay module, params) from an ONNX file or a textual relay module."""
    if path.suffix == ".mlir":
        from xtvm.ir.parse import parse_module
        from xtvm.ir.resources import check_not_elided, parse_with_resources

        text = path.read_text()
        module = parse_with_resources(lambda: parse_module(text, str(path)), text, str(path))
        check_not_elided(module)  # compiling needs every value
        return module, {}
    from xtvm.frontend import from_onnx

    return from_onnx(str(path), shape=shapes or None)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="xtvm-compile", description=__doc__.split("\n")[0])
    parser.add_argument("model", type=Path, help="an .onnx model or a relay .mlir module")
    parser.add_argument("-o", "--output", type=Path, help="output .so (or IR file with --emit)")
    parser.add_argument("--target", default="llvm", help="e.g. 'llvm -mcpu=native'")
    parser.add_argument("--emit", choices=STAGE_NAMES, help="print this stage's IR instead")
    parser.add_argument("--shape", action="append", default=[], help="input shape NAME=D0,D1")
    parser.add_argument("--opt-level", type=int, default=3)
    parser.add_argument(
        "--header", type=Path, metavar="FILE.h",
        help="with -o: also write the C header of the library's AOT entry (docs/abi.md)",
    )
    parser.add_argument(
        "--elide-large-constants", type=int, nargs="?", const=ELIDE_DEFAULT, metavar="N",
        help=f"with --emit: print constants of more than N ({ELIDE_DEFAULT}) elements as "
        "dense_resource<__elided__> (for reading; the file does not compile)",
    )
    args = parser.parse_args(argv)
    if args.emit is None and args.output is None:
        parser.error("give -o OUTPUT.so, or --emit STAGE")
    if args.header is not None and args.emit is not None:
        parser.error("--header writes the C header of a library: give -o OUTPUT.so, not --emit")
    if args.elide_large_constants is not None and args.emit in (None, "llvm-ir"):
        parser.error("--elide-large-constants needs --emit with an IR stage")
    try:
        run(args, argv)
    except (ValueError, KeyError, OSError) as e:
        print(f"xtvm-compile: error: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # verifier and pass diagnostics carry their own text
        from xdsl.utils.exceptions import DiagnosticException, ParseError

        if isinstance(e, DiagnosticException | ParseError):
            print(f"xtvm-compile: error: {e}", file=sys.stderr)
            sys.exit(1)
        raise


def run(args: argparse.Namespace, argv: Sequence[str] | None) -> None:
    from xtvm.driver.build_module import bind_params, build, lower
    from xtvm.ir.printing import module_text
    from xtvm.target import Target
    from xtvm.transform import PassContext

    module, params = load_model(args.model, parse_shapes(args.shape))
    with PassContext(opt_level=args.opt_level), Target.of(args.target):
        if args.emit is None:
            lib = build(module, target=args.target, params=params)
            lib.export_library(str(args.output))
            print(f"wrote {args.output}")
            if args.header is not None:
                from xtvm.codegen.c_header import make_header

                args.header.write_text(make_header(lib.header.get("entry")))
                print(f"wrote {args.header}")
            return
        command = " ".join(["xtvm-compile", *(argv if argv is not None else sys.argv[1:])])
        if args.emit == "llvm-ir":
            from xtvm.codegen import emit_llvm_ir

            text = emit_llvm_ir(lower(module, params)) + "\n"
        else:
            if args.emit == "relay":
                if params:
                    bind_params(module, params)  # the file alone is the whole program
            else:
                module = lower(module, params, args.emit)
            text = module_text(module, elide_larger_than=args.elide_large_constants)
    comment = ";" if args.emit == "llvm-ir" else "//"
    out = f"{comment} {command}\n{text}"
    if args.output:
        args.output.write_text(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
