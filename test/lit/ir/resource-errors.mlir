// RUN: not xtvm-opt %s --split-input-file 2>&1 | filecheck %s

// A blob that is missing, cut short, not hex or of the wrong size is an
// error at the dense_resource that reads it (or at the blob), never a
// traceback.

// CHECK: resource-errors.mlir:[[# @LINE + 1]]:18: error: dense_resource<missing> : tensor<2xf32>: the file's {-# dialect_resources #-} section has no blob of that name
%w = relay.const dense_resource<missing> : tensor<2xf32>

// -----

// CHECK: resource-errors.mlir:[[# @LINE + 1]]:18: error: dense_resource<short> : tensor<2xf32>: the type needs 8 bytes, but the blob holds 4
%w = relay.const dense_resource<short> : tensor<2xf32>
{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F"
    }
  }
#-}

// -----

%w = relay.const dense_resource<cut> : tensor<2xf32>
{-#
  dialect_resources: {
    builtin: {
// CHECK: resource-errors.mlir:[[# @LINE + 1]]:7: error: dense_resource<cut> : tensor<2xf32>: the blob has an odd number of hex digits (23): cut short?
      cut: "0x040000000000803F0000004"
    }
  }
#-}

// -----

%w = relay.const dense_resource<bad> : tensor<2xf32>
{-#
  dialect_resources: {
    builtin: {
// CHECK: resource-errors.mlir:[[# @LINE + 1]]:7: error: dense_resource<bad> : tensor<2xf32>: the blob's digit 10 ('G') is not a hex digit
      bad: "0x0400000000G0803F00000040"
    }
  }
#-}

// CHECK-NOT: Traceback
