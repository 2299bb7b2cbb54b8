// RUN: xtvm-opt %s -p relay-fuse-ops,convert-relay-to-tir | filecheck %s
// The x86 schedule of NN matmuls with run-time extents
// (xtvm/topi/x86/dynamic_matmul.py): column blocks of one vector outside the
// rows, 8-row register tiles (cache_write: init, update with the reduction
// outside the tile, write-back with the epilogue) over whole chunks of rows
// and one-row tiles for the last rows; a run-time number of columns leaves a
// scalar tail of columns. A transposed operand keeps its default nest.

// A ? sequence times a weight, with the bias and a residual add as epilogue:
// the matmul is attached to the epilogue's nest although its extent and the
// residual's are two shape variables unified by the add.
// CHECK-LABEL: tir.prim_func @fused_nn_matmul_add_add(%p0: memref<1x?x64xf32>, %p1: memref<64x32xf32>, %p2: memref<32xf32>, %p3: memref<1x?x32xf32>, %T_add: memref<1x?x32xf32>)
// CHECK-NOT:     tir.allocate "global"
// CHECK:         tir.for %i2.0 = %c0 to %c2 kind "parallel" {
// CHECK:           %[[Q:.*]] = arith.divui %p3_n1, %c8 : index
// CHECK:           tir.for %i1.0 = %c0 to %[[Q]] kind "serial" {
// CHECK-NEXT:        %T_matmul_NN_acc = tir.allocate "local" : memref<8x16xf32>
// CHECK:             tir.for %k = %c0 to %c64 kind "serial" {
// CHECK:               tir.for %i1.1 = %c0 to %c8 kind "unrolled" {
// CHECK:                 tir.for %i2.1 = %c0 to %c16 kind "vectorized" {
// CHECK:             tir.for %i1.1_wb = %c0 to %c8 kind "unrolled" {
// CHECK:               tir.for %i2.1_wb = %c0 to %c16 kind "vectorized" {
// CHECK:                 %[[R:.*]] = tir.load %p3
// CHECK:                 tir.store %{{.*}}, %T_add[%i0, %i1_1, %i2_1] : memref<1x?x32xf32>
// CHECK:           tir.for %i1.t = %{{.*}} to %p3_n1 kind "serial" {
// CHECK-NEXT:        %T_matmul_NN_acc_1 = tir.allocate "local" : memref<16xf32>
// CHECK:             tir.for %k_t = %c0 to %c64 kind "serial" {
// CHECK-NEXT:          tir.for %i2.1_t = %c0 to %c16 kind "vectorized" {

// Attention scores ?x16 . 16x?: the heads in parallel, whole column blocks
// with row tiles, then the scalar tail of columns.
// CHECK-LABEL: tir.prim_func @fused_nn_matmul(%p0: memref<1x4x?x16xf32>, %p1: memref<1x4x16x?xf32>, %T_matmul_NN: memref<1x4x?x?xf32>)
// CHECK:         tir.for %i0_i1_fused = %c0 to %c4 kind "parallel" {
// CHECK:           %[[CQ:.*]] = arith.divui %p1_n3, %c16 : index
// CHECK:           %[[CEND:.*]] = arith.muli %[[CQ]], %c16 : index
// CHECK:           tir.for %i3.0 = %c0 to %[[CQ]] kind "serial" {
// CHECK:             tir.for %i2.0 = %c0 to %{{.*}} kind "serial" {
// CHECK-NEXT:          %T_matmul_NN_acc = tir.allocate "local" : memref<8x16xf32>
// CHECK:             tir.for %i2.t = %{{.*}} to %p0_n2 kind "serial" {
// CHECK-NEXT:          %T_matmul_NN_acc_1 = tir.allocate "local" : memref<16xf32>
// CHECK:           tir.for %i3.t = %[[CEND]] to %p1_n3 kind "serial" {
// CHECK-NEXT:        tir.for %i2_t = %c0 to %p0_n2 kind "serial" {
// CHECK-NEXT:          %T_matmul_NN_acc_2 = tir.allocate "local" : memref<1xf32>

// Probabilities ?x? . ?x16: a run-time reduction extent inside the tiles.
// CHECK-LABEL: tir.prim_func @fused_nn_matmul_1(%p0: memref<1x4x?x?xf32>, %p1: memref<1x4x?x16xf32>, %T_matmul_NN: memref<1x4x?x16xf32>)
// CHECK:         tir.for %i0_i1_fused = %c0 to %c4 kind "parallel" {
// CHECK:             %T_matmul_NN_acc = tir.allocate "local" : memref<8x16xf32>
// CHECK:             tir.for %k = %c0 to %p0_n3 kind "serial" {
// CHECK:               tir.for %i3.1 = %c0 to %c16 kind "vectorized" {

// A transposed B (NT) keeps the default nest.
// CHECK-LABEL: tir.prim_func @fused_nn_matmul_2(%p0: memref<1x4x?x16xf32>, %p1: memref<1x4x?x16xf32>, %T_matmul_NT: memref<1x4x?x?xf32>)
// CHECK:         tir.for %i0 = %c0 to %c1 kind "serial" {
// CHECK-NEXT:      tir.for %i1 = %c0 to %c4 kind "serial" {
// CHECK-NEXT:        tir.for %i2 = %c0 to %p0_n2 kind "serial" {
// CHECK-NEXT:          tir.for %i3 = %c0 to %p1_n2 kind "serial" {
// CHECK-NEXT:            %T_matmul_NT_acc = tir.allocate "local" : memref<1xf32>
func.func @main(%x: tensor<1x?x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>, %r: tensor<1x?x32xf32>, %q: tensor<1x4x?x16xf32>, %k: tensor<1x4x16x?xf32>, %p: tensor<1x4x?x?xf32>, %v: tensor<1x4x?x16xf32>) -> (tensor<1x?x32xf32>, tensor<1x4x?x?xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x?xf32>) {
  %m = relay.nn.matmul %x, %w : (tensor<1x?x64xf32>, tensor<64x32xf32>) -> tensor<1x?x32xf32>
  %a = relay.add %m, %b : (tensor<1x?x32xf32>, tensor<32xf32>) -> tensor<1x?x32xf32>
  %res = relay.add %r, %a : (tensor<1x?x32xf32>, tensor<1x?x32xf32>) -> tensor<1x?x32xf32>
  %s = relay.nn.matmul %q, %k : (tensor<1x4x?x16xf32>, tensor<1x4x16x?xf32>) -> tensor<1x4x?x?xf32>
  %c = relay.nn.matmul %p, %v : (tensor<1x4x?x?xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x16xf32>
  %t = relay.nn.matmul %q, %v {transpose_b = true} : (tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x?xf32>
  func.return %res, %s, %c, %t : tensor<1x?x32xf32>, tensor<1x4x?x?xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x?xf32>
}
