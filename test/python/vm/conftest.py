"""Fixtures of the VM tests (models in vm_models.py)."""

import pytest
from vm_models import build_both, conv_model, mlp_model


@pytest.fixture(scope="session")
def mlp_exe():
    """The MLP's VM executable and graph-executor library (compiled once)."""
    return build_both(mlp_model())


@pytest.fixture(scope="session")
def conv_exe():
    """The small conv net's VM executable and graph-executor library."""
    return build_both(conv_model())
