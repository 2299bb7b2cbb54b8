// RUN: xtvm-opt --list-passes | filecheck %s

// xtvm's passes first, each with the first sentence of its docstring and its
// options in -p spelling; then xDSL's.

// CHECK: xtvm passes:
// CHECK: apply-pdl  Apply the PDL patterns of ``pdl_file`` (or of the input module) greedily.
// CHECK-NEXT: pdl-file: str | None = none
// CHECK: relay-fuse-ops  Fuse the ops of every graph function into primitive functions.
// CHECK-NEXT: max-depth: int | None = none
// CHECK: xDSL passes:
// CHECK-NOT: {{^  apply-pdl( |$)}}
// CHECK: canonicalize
// CHECK-NOT: Traceback
