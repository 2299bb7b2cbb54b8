"""Native test kernels for the runtime tests, built without the xtvm compiler.

`build_library` compiles C kernels that follow docs/abi.md (packed entry
points with the argument checks generated code performs) and links a metadata
blob from `pack_metadata` with an assembler `.incbin`, exactly as the code
generator's artifacts are laid out.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np

from xtvm.runtime import pack_metadata

KERNELS_C = r"""
#include <stdint.h>
#include <stddef.h>

typedef struct {
  void *data;
  int32_t device_type, device_id;
  int32_t ndim;
  uint8_t code, bits;
  uint16_t lanes;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

/* Checks argument i against ndim/shape/float32, as generated code does. */
static int32_t check_f32(void **args, int32_t i, int32_t ndim, const int64_t *shape) {
  DLTensor *t = (DLTensor *)args[i];
  if (!t || !t->data) return (2 << 16) | i;
  if (t->ndim != ndim) return (3 << 16) | i;
  if (t->code != 2 || t->bits != 32 || t->lanes != 1) return (4 << 16) | i;
  for (int32_t k = 0; k < ndim; ++k)
    if (t->shape[k] != shape[k]) return (5 << 16) | i;
  if (t->strides) {
    int64_t stride = 1;
    for (int32_t k = ndim - 1; k >= 0; --k) {
      if (t->strides[k] != stride) return (6 << 16) | i;
      stride *= shape[k];
    }
  }
  return 0;
}

#define TENSOR(i) ((DLTensor *)args[i])
#define DATA(i) ((float *)((char *)TENSOR(i)->data + TENSOR(i)->byte_offset))
static const int64_t SHAPE4[1] = {4};

/* addone(A: f32[4], B: f32[4]): B = A + 1 */
int32_t addone(void **args, int32_t num_args) {
  if (num_args != 2) return (1 << 16) | num_args;
  for (int32_t i = 0; i < 2; ++i) { int32_t rc = check_f32(args, i, 1, SHAPE4); if (rc) return rc; }
  for (int k = 0; k < 4; ++k) DATA(1)[k] = DATA(0)[k] + 1.0f;
  return 0;
}

/* add(A: f32[4], B: f32[4], C: f32[4]): C = A + B */
int32_t add(void **args, int32_t num_args) {
  if (num_args != 3) return (1 << 16) | num_args;
  for (int32_t i = 0; i < 3; ++i) { int32_t rc = check_f32(args, i, 1, SHAPE4); if (rc) return rc; }
  for (int k = 0; k < 4; ++k) DATA(2)[k] = DATA(0)[k] + DATA(1)[k];
  return 0;
}

/* positive(A: f32[4]): assert 0 "A must be positive" */
int32_t positive(void **args, int32_t num_args) {
  if (num_args != 1) return (1 << 16) | num_args;
  int32_t rc = check_f32(args, 0, 1, SHAPE4); if (rc) return rc;
  for (int k = 0; k < 4; ++k) if (!(DATA(0)[k] > 0.0f)) return (7 << 16) | 0;
  return 0;
}

int32_t xtvm_test_num_threads = 0;
void xtvm_set_num_threads(int32_t n) { xtvm_test_num_threads = n; }
"""

F32_4 = {"shape": [4], "dtype": "float32"}
FUNCTIONS: dict[str, Any] = {
    "addone": {"args": [{"name": "A", **F32_4}, {"name": "B", **F32_4}], "asserts": []},
    "add": {
        "args": [{"name": "A", **F32_4}, {"name": "B", **F32_4}, {"name": "C", **F32_4}],
        "asserts": [],
    },
    "positive": {"args": [{"name": "A", **F32_4}], "asserts": ["A must be positive"]},
}

P0 = np.array([10, 20, 30, 40], dtype="float32")


def graph(storage_offset: list[int] | None = None, nop_sid: int = 3) -> dict[str, Any]:
    """x -> add(x, p0) -> addone -> e3; outputs reshape(e3) [2, 2] and add(e3, e3).

    Entry e5 reuses e2's storage id (e2 is dead once addone has run).
    """
    op = {"num_outputs": "1", "flatten_data": "0"}
    nodes = [
        {"op": "null", "name": "x", "inputs": []},
        {"op": "null", "name": "p0", "inputs": []},
        {
            "op": "tvm_op",
            "name": "add0",
            "inputs": [[0, 0, 0], [1, 0, 0]],
            "attrs": {"func_name": "add", "num_inputs": "2", **op},
        },
        {
            "op": "tvm_op",
            "name": "addone0",
            "inputs": [[2, 0, 0]],
            "attrs": {"func_name": "addone", "num_inputs": "1", **op},
        },
        {
            "op": "tvm_op",
            "name": "reshape0",
            "inputs": [[3, 0, 0]],
            "attrs": {"func_name": "__nop", "num_inputs": "1", **op},
        },
        {
            "op": "tvm_op",
            "name": "add1",
            "inputs": [[3, 0, 0], [3, 0, 0]],
            "attrs": {"func_name": "add", "num_inputs": "2", **op},
        },
    ]
    attrs: dict[str, Any] = {
        "shape": ["list_shape", [[4], [4], [4], [4], [2, 2], [4]]],
        "dltype": ["list_str", ["float32"] * 6],
        "storage_id": ["list_int", [0, 1, 2, 3, nop_sid, 2]],
    }
    if storage_offset is not None:
        attrs["storage_offset"] = ["list_int", storage_offset]
    return {
        "nodes": nodes,
        "arg_nodes": [0, 1],
        "heads": [[4, 0, 0], [5, 0, 0]],
        "node_row_ptr": [0, 1, 2, 3, 4, 5, 6],
        "attrs": attrs,
    }


def expected_outputs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    e3 = x + P0 + 1
    return e3.reshape(2, 2), e3 + e3


def build_library(
    directory: Path,
    header: dict[str, Any],
    params: dict[str, np.ndarray],
    name: str = "lib.so",
    source: str = KERNELS_C,
) -> Path:
    """Compile `source` with the metadata blob of `header`/`params` into `directory/name`."""
    directory.mkdir(parents=True, exist_ok=True)
    blob = directory / f"{name}.meta.bin"
    blob.write_bytes(pack_metadata(header, params))
    (directory / f"{name}.c").write_text(source)
    (directory / f"{name}.s").write_text(
        "\t.section .rodata\n\t.balign 64\n\t.globl __xtvm_metadata\n__xtvm_metadata:\n"
        f'\t.incbin "{blob.resolve()}"\n'
        "\t.balign 8\n\t.globl __xtvm_metadata_size\n__xtvm_metadata_size:\n"
        f"\t.quad {blob.stat().st_size}\n"
        '\t.section .note.GNU-stack,"",@progbits\n'
    )
    out = directory / name
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-O1", "-o", str(out), f"{name}.c", f"{name}.s"],
        cwd=directory,
        check=True,
    )
    return out
