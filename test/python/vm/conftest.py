"""Fixtures of the VM tests (models in vm_models.py)."""

import pytest
from vm_models import build_both, mlp_model


@pytest.fixture(scope="session")
def mlp_exe():
    """The MLP's VM executable and graph-executor library (compiled once)."""
    return build_both(mlp_model())
