"""Search-based tuning's common parts (TVM's ``autotvm.measure`` and
``autotvm.task``): tasks extracted from a model (:mod:`.task`), the
builder/runner that measure candidates in worker processes
(:mod:`.measure`, :mod:`.workers`), and the records file (:mod:`.record`)."""
