"""Model frontends: import models from other frameworks as relay IR."""

from xtvm.frontend.onnx import OnnxImportError, from_onnx

__all__ = ["OnnxImportError", "from_onnx"]
