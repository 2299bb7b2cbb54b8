// RUN: not xtvm-opt %s -p 'apply-pdl{pdl_file=rules.pdl.mlir}' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not xtvm-opt %s -p 'apply-pdl{pdl_file="%S/inputs/missing.pdl.mlir"}' 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not xtvm-opt %s -p 'apply-pdl{pdl_file="%S/inputs/bad.pdl.mlir"}' 2>&1 | filecheck %s --check-prefix=BADPDL
// RUN: not xtvm-opt %s -p 'relay-fuse-ops{max-depth=2' 2>&1 | filecheck %s --check-prefix=UNCLOSED
// RUN: not xtvm-opt %s -p 'relay-fuse-op' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// Mistakes in the -p pipeline and in the files it names are one error each,
// never a traceback.

// An unquoted path: where the pipeline stops parsing, and the fix.
// SYNTAX: xtvm-opt: error in the pass pipeline: pass-pipeline:1:25
// SYNTAX-NEXT: apply-pdl{pdl_file=rules.pdl.mlir}
// SYNTAX: Unknown token
// SYNTAX-NEXT: note: quote option values that hold "." or "/": pdl_file="rules.pdl.mlir"
// SYNTAX-NOT: Traceback

// MISSING: pipeline-errors.mlir: error: apply-pdl: cannot read the PDL file '{{.*}}missing.pdl.mlir': No such file or directory
// MISSING-NOT: Traceback

// A PDL file that does not parse: the error is located in that file.
// BADPDL: inputs/bad.pdl.mlir:5:5: error: Operation pdl.erase_it is not registered
// BADPDL-NEXT: {{^}}    pdl.erase_it %root
// BADPDL-NOT: Traceback

// UNCLOSED: xtvm-opt: error in the pass pipeline: pass-pipeline:1:
// UNCLOSED-NOT: Traceback

// UNKNOWN: xtvm-opt: error: Unrecognized passes: ['relay-fuse-op']

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = relay.nn.relu %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
