"""The ONNX frontend: ONNX models → relay IR (TVM's ``relay.frontend.onnx``).

* ``importer``: :func:`from_onnx` and the table of supported ops;
* ``converter``: the converter framework (one class per ONNX op, one
  ``_impl_v<N>`` classmethod per op version);
* ``tensor``, ``reduce``, ``nn``, ``conv``, ``pool``, ``transform``,
  ``shape``, ``indexing``: the converters, by relay op category;
* ``testing``: the model zoo the onnx package ships, and random weights;
* ``common``: :class:`OnnxImportError` and the element-type table;
* ``backend``: xtvm as an ``onnx.backend`` (compile and run ONNX models);
* ``conformance``: the ONNX node tests through the backend
  (``python -m xtvm.frontend.onnx.conformance``).

Adding an op: a converter class in its category module and one row in that
module's ``CONVERTERS``.
"""

from xtvm.frontend.onnx.common import OnnxImportError
from xtvm.frontend.onnx.importer import CONVERTERS, from_onnx

__all__ = ["CONVERTERS", "OnnxImportError", "from_onnx"]
