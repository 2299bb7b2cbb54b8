"""Regressions the runtime fuzzer found (``python -m xtvm.testing.fuzz runtime``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xtvm.runtime import XTVMError, cpu, load_module
from xtvm.runtime.ndarray import array as nd_array
from xtvm.testing.fuzz.runtime import prepare


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    return Path(prepare(tmp_path_factory.mktemp("fuzz-runtime"))["dir"])


@pytest.mark.parametrize("out", ["out", 3, np.zeros((2, 4), "float32")])
def test_get_output_and_get_input_refuse_an_out_that_is_not_an_ndarray(artifacts: Path, out) -> None:
    # runtime-002 of seed 1: get_output(0, "out") raised AttributeError ('str' has no copyfrom)
    gmod = load_module(artifacts / "model.so")["default"](cpu(0))
    with pytest.raises(XTVMError, match="get_output: 'out' must be an NDArray"):
        gmod.get_output(0, out)
    with pytest.raises(XTVMError, match="get_input: 'out' must be an NDArray"):
        gmod.get_input(0, out)
    copy = nd_array(np.zeros((2, 4), "float32"))
    assert gmod.get_output(0, copy) is copy
