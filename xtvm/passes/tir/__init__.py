"""Passes over `tir` loop programs (TVM's `tir.transform`), one module each:

* `flatten_buffer`: `tir-flatten-buffer`
* `simplify`: `tir-simplify`
* `unroll_loop`: `tir-unroll-loop`

Import the module you need; the pass registry imports them lazily.
"""
