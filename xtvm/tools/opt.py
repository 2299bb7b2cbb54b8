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
import sys
from collections.abc import Sequence

from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, PassFailedException
from xdsl.xdsl_opt_main import xDSLOptMain

from xtvm.dialects.registry import DIALECTS
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
