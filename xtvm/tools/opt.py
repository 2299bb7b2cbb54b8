"""``xtvm-opt``: textual IR in, passes, textual IR out (xtvm's ``mlir-opt``).

```
xtvm-opt model.mlir -p 'relay-infer-type,relay-fuse-ops{max-depth=8}' -o out.mlir
xtvm-opt invalid.mlir --split-input-file --verify-diagnostics
xtvm-opt model.mlir -p relay-fold-constant --print-ir-after-all
```

It is xDSL's ``xdsl-opt`` with xtvm's dialects and passes registered, and
with diagnostics a compiler engineer can act on: a parse error prints
``file:line:col: error: ...`` and the offending line, a verifier or pass
failure prints ``file: error: ...`` with the failing op; both exit 1 and
never show a Python traceback.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, PassFailedException
from xdsl.xdsl_opt_main import xDSLOptMain

from xdsl.dialects.builtin import ModuleOp

from xtvm.dialects.registry import DIALECTS
from xtvm.ir.printing import ELIDE_DEFAULT, print_module
from xtvm.ir.resources import parse_with_resources
from xtvm.passes.registry import PASSES


class XtvmOptMain(xDSLOptMain):
    """xdsl-opt with xtvm's registries, error reporting and IR dumps."""

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in DIALECTS.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in PASSES.items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR after every pass to stderr, with the pipeline that reproduces it",
        )
        arg_parser.add_argument(
            "--elide-large-constants",
            type=int,
            nargs="?",
            const=ELIDE_DEFAULT,
            metavar="N",
            help=f"print constants of more than N ({ELIDE_DEFAULT}) elements as "
            "dense_resource<__elided__> (for reading; the output does not compile)",
        )

    def setup_pipeline(self) -> None:
        if not self.args.print_ir_after_all:
            super().setup_pipeline()
            return
        done: list[str] = []

        def dump(previous: ModulePass | None, module: Operation, _next: ModulePass | None) -> None:
            if not self.args.disable_verify:
                module.verify()
            if previous is None:
                return
            spec = previous.pipeline_pass_spec()
            kebab = type(spec)(spec.name, {k.replace("_", "-"): v for k, v in spec.parameters.items()})
            done.append(str(kebab))
            print(f"// -----// IR Dump After {previous.name} //----- //", file=sys.stderr)
            print(f"// reproduce: xtvm-opt -p '{','.join(done)}'", file=sys.stderr)
            Printer(stream=sys.stderr).print_op(module)
            print(file=sys.stderr)

        self.pipeline = PassPipeline.parse_spec(self.available_passes, self.args.passes, dump)

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        """xDSL's parse, then every dense_resource becomes the dense attribute
        of its blob (:func:`xtvm.ir.resources.parse_with_resources`)."""
        data = chunk.read()
        parse = super().parse_chunk
        return parse_with_resources(
            lambda: parse(io.BytesIO(data), file_extension, start_offset),
            data.decode(),
            self.get_input_name(),
        )

    def output_resulting_program(self, prog: ModuleOp) -> str:
        """The module as text through :func:`xtvm.ir.printing.print_module`
        (large constants as resource blobs, or elided); other ``-t`` targets
        as xDSL prints them."""
        if self.args.target != "mlir":
            return super().output_resulting_program(prog)
        out = io.StringIO()
        print_module(
            prog,
            out,
            elide_larger_than=self.args.elide_large_constants,
            print_generic_format=self.args.print_op_generic,
            print_properties_as_attributes=self.args.print_no_properties,
            print_debuginfo=self.args.print_debuginfo,
        )
        return out.getvalue()

    def run(self) -> None:
        try:
            super().run()
        except ParseError as e:
            sys.exit(report_parse_error(e))
        except (DiagnosticException, PassFailedException) as e:
            print(f"{self.get_input_name()}: error: {e}", file=sys.stderr)
            sys.exit(1)


def report_parse_error(e: ParseError) -> int:
    """Print ``file:line:col: error: message`` and the source line; return 1."""
    loc = e.span.get_location()
    context = e.span.print_with_context(None).split("\n", 1)[1].rstrip("\n")
    print(f"{loc}: error: {e.msg}\n{context}", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> None:
    try:
        XtvmOptMain(description="xtvm modular optimizer driver", args=argv).run()
    except (ValueError, KeyError) as e:  # bad pipeline string, unknown pass or option
        print(f"xtvm-opt: error: {e}", file=sys.stderr)
        sys.exit(1)
    except FileNotFoundError as e:
        print(f"xtvm-opt: error: {e.strerror}: {e.filename}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
