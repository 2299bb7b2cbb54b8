"""memory → llvm: the planned graph function becomes the model's AOT entry
points (TVM's AOT executor), and the module describes itself to the runtime.

* ``convert_memory_to_llvm``: the pass ``convert-memory-to-llvm``, one
  pattern per source op;
* ``graph_json``: the graph executor's JSON, read off the planned IR;
* ``embed_metadata``: the pass ``llvm-embed-metadata``.
"""
