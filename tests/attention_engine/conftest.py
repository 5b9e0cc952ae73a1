"""Engine test fixtures: PyTorch as an independent reference.

PyTorch is a test-only dependency (CI installs torch==2.13.0). On a laptop without it the
comparisons skip with a reason; with CI=true a missing torch is a failure, never a silent skip.
"""

import os

import numpy as np
import pytest


@pytest.fixture(scope="session")
def torch():
    try:
        import torch
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("PyTorch is required in CI (.ci/run installs torch==2.13.0) but is not importable")
        pytest.skip("PyTorch not installed: `pip install torch==2.13.0` to run the reference comparisons")
    torch.set_default_dtype(torch.float64)
    return torch


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
