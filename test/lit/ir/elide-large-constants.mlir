// RUN: xtvm-opt %s --elide-large-constants=4 | filecheck %s
// RUN: xtvm-opt %s --elide-large-constants=4 | xtvm-opt | filecheck %s
// RUN: xtvm-opt %s --elide-large-constants | filecheck %s --check-prefix=DEFAULT
// RUN: xtvm-opt %s -p relay-dead-code-elimination --print-ir-after-all --elide-large-constants=4 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP
// RUN: xtvm-opt %s -p relay-dead-code-elimination --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=BLOB

// --elide-large-constants=N prints constants of more than N elements as MLIR's
// elided form, dense_resource<__elided__>, with no data: a file for reading,
// which parses and prints again unchanged (the second RUN). Constants of at
// most N elements and splats stay; without N, N is 16. The dumps of
// --print-ir-after-all are printed the same way: elided, or whole files with
// their blobs.

// CHECK-LABEL: func.func @main
// CHECK-NEXT: %w = relay.const dense_resource<__elided__> : tensor<128xf32>
// CHECK-NEXT: %b = relay.const dense_resource<__elided__> : tensor<5xf32>
// CHECK-NEXT: %c = relay.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: %z = relay.const dense<0.000000e+00> : tensor<128xf32>
// CHECK-NOT: dialect_resources

// DEFAULT: %w = relay.const dense_resource<__elided__> : tensor<128xf32>
// DEFAULT-NEXT: %b = relay.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf32>
// DEFAULT-NOT: dialect_resources
// DUMP: IR Dump After relay-dead-code-elimination
// DUMP: %w = relay.const dense_resource<__elided__> : tensor<128xf32>
// DUMP-NOT: dialect_resources

// BLOB: IR Dump After relay-dead-code-elimination
// BLOB: %w = relay.const dense_resource<w> : tensor<128xf32>
// BLOB: dialect_resources
// BLOB-NEXT: builtin
// BLOB-NEXT: w: "0x04000000
func.func @main(%x: tensor<128xf32>) -> tensor<128xf32> {
  %w = relay.const dense_resource<w> : tensor<128xf32>
  %b = relay.const dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %c = relay.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %z = relay.const dense<0.0> : tensor<128xf32>
  %y = relay.add %x, %w : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
  %s = relay.add %y, %z : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
  func.return %s : tensor<128xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000000000000003E0000803E0000C03E0000003F0000203F0000403F0000603F0000803F0000903F0000A03F0000B03F0000C03F0000D03F0000E03F0000F03F0000004000000840000010400000184000002040000028400000304000003840000040400000484000005040000058400000604000006840000070400000784000008040000084400000884000008C4000009040000094400000984000009C400000A0400000A4400000A8400000AC400000B0400000B4400000B8400000BC400000C0400000C4400000C8400000CC400000D0400000D4400000D8400000DC400000E0400000E4400000E8400000EC400000F0400000F4400000F8400000FC40000000410000024100000441000006410000084100000A4100000C4100000E41000010410000124100001441000016410000184100001A4100001C4100001E41000020410000224100002441000026410000284100002A4100002C4100002E41000030410000324100003441000036410000384100003A4100003C4100003E41000040410000424100004441000046410000484100004A4100004C4100004E41000050410000524100005441000056410000584100005A4100005C4100005E41000060410000624100006441000066410000684100006A4100006C4100006E41000070410000724100007441000076410000784100007A4100007C4100007E41"
    }
  }
#-}
