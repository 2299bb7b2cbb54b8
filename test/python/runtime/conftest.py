"""Fixtures of the runtime tests: native kernel libraries (see native_kernels.py)."""

import json
import shutil
from pathlib import Path

import pytest
from native_kernels import FUNCTIONS, P0, build_library, graph

from xtvm.runtime import NativeModule, load_module


@pytest.fixture(scope="session")
def has_cc() -> None:
    if shutil.which("cc") is None:
        pytest.skip("needs a C compiler (cc)")


@pytest.fixture(scope="session")
def kernel_lib_path(tmp_path_factory: pytest.TempPathFactory, has_cc: None) -> Path:
    """A plain kernel library (no graph)."""
    header = {"functions": FUNCTIONS, "graph_json": None}
    return build_library(tmp_path_factory.mktemp("kernels"), header, {})


@pytest.fixture(scope="session")
def factory_lib_path(tmp_path_factory: pytest.TempPathFactory, has_cc: None) -> Path:
    """A graph executor factory: the kernels, `graph()` and parameter p0."""
    header = {"functions": FUNCTIONS, "graph_json": json.dumps(graph())}
    return build_library(tmp_path_factory.mktemp("factory"), header, {"p0": P0})


@pytest.fixture
def kernels(kernel_lib_path: Path) -> NativeModule:
    return load_module(kernel_lib_path)
