// RUN: xtvm-opt %s -p convert-tir-to-llvm | filecheck %s

// An external (BYOC) kernel: no body of its own; its _impl is a declaration
// carrying the codegen's C source, link flags and ops for code generation,
// and its packed entry checks the DLTensor arguments as for any kernel.
// CHECK: llvm.func @ext_impl(!llvm.ptr, !llvm.ptr) -> i32 attributes {xtvm.external_source = "int32_t ext_impl(float* p0, float* out0) { return 0; }", xtvm.external_link = ["-lm"], xtvm.external_ops = ["relay.nn.relu"]}
// CHECK: llvm.func @ext(%args: !llvm.ptr, %num_args: i32) -> i32 {
// CHECK: llvm.call @ext_impl(
// CHECK-NOT: tir.
tir.prim_func @ext(%p0: memref<4xf32>, %out0: memref<4xf32>) attributes {arg_names = ["p0", "out0"], tir.external = "ccompiler", tir.external_source = "int32_t ext_impl(float* p0, float* out0) { return 0; }", tir.external_link = ["-lm"], tir.external_ops = ["relay.nn.relu"]} {
  tir.return
}
