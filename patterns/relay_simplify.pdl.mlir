// Relay simplifications written in PDL, for xDSL's PDL interpreter:
//
//   xtvm-opt model.mlir -p 'apply-pdl{pdl_file="patterns/relay_simplify.pdl.mlir"}'
//
// Each pattern pins the exact attributes and types it needs. Rewrites that
// need a check PDL cannot state without native code ("this constant is all
// zeros", "these permutations are inverse", "newshape has no 0 entry") are
// in the Python rule DSL instead: `relay-simplify-expr`
// (xtvm/passes/relay/simplify_expr.py).
// Use apply-pdl only: apply-pdl-interp drops attribute checks and over-matches.

// relu(relu(x)) -> relu(x)
pdl.pattern @relu_relu : benefit(1) {
  %type = pdl.type
  %x = pdl.operand
  %inner = pdl.operation "relay.nn.relu"(%x : !pdl.value) -> (%type : !pdl.type)
  %inner_result = pdl.result 0 of %inner
  %outer = pdl.operation "relay.nn.relu"(%inner_result : !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %outer {
    pdl.replace %outer with (%inner_result : !pdl.value)
  }
}

// transpose(transpose(x, [1, 0]), [1, 0]) -> x
pdl.pattern @transpose_2d_twice : benefit(1) {
  %perm = pdl.attribute = array<i64: 1, 0>
  %x_type = pdl.type
  %t_type = pdl.type
  %x = pdl.operand : %x_type
  %inner = pdl.operation "relay.transpose"(%x : !pdl.value) {"axes" = %perm} -> (%t_type : !pdl.type)
  %inner_result = pdl.result 0 of %inner
  %outer = pdl.operation "relay.transpose"(%inner_result : !pdl.value) {"axes" = %perm} -> (%x_type : !pdl.type)
  pdl.rewrite %outer {
    pdl.replace %outer with (%x : !pdl.value)
  }
}

// NCHW -> NHWC -> NCHW: transpose(transpose(x, [0, 2, 3, 1]), [0, 3, 1, 2]) -> x
pdl.pattern @nchw_nhwc_round_trip : benefit(1) {
  %to_nhwc = pdl.attribute = array<i64: 0, 2, 3, 1>
  %to_nchw = pdl.attribute = array<i64: 0, 3, 1, 2>
  %x_type = pdl.type
  %t_type = pdl.type
  %x = pdl.operand : %x_type
  %inner = pdl.operation "relay.transpose"(%x : !pdl.value) {"axes" = %to_nhwc} -> (%t_type : !pdl.type)
  %inner_result = pdl.result 0 of %inner
  %outer = pdl.operation "relay.transpose"(%inner_result : !pdl.value) {"axes" = %to_nchw} -> (%x_type : !pdl.type)
  pdl.rewrite %outer {
    pdl.replace %outer with (%x : !pdl.value)
  }
}
