// Not valid PDL: pipeline-errors.mlir checks that the parse error names this file.
pdl.pattern : benefit(1) {
  %root = pdl.operation "relay.nn.relu"
  pdl.rewrite %root {
    pdl.erase_it %root
  }
}
