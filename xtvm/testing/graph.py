"""Run a graph executor factory once, as tests and examples do."""

from __future__ import annotations

import numpy as np


def run_graph(lib, *inputs: np.ndarray, threads: int | None = None) -> np.ndarray:
    """The first output of ``lib["default"]`` on the CPU with ``inputs`` set
    in order (and ``threads`` worker threads, if given)."""
    import xtvm

    if threads is not None:
        xtvm.runtime.set_num_threads(threads)
    gmod = lib["default"](xtvm.cpu(0))
    for index, value in enumerate(inputs):
        gmod.set_input(index, value)
    gmod.run()
    return gmod.get_output(0).numpy()
