"""Engine test fixtures: PyTorch as an independent reference.

PyTorch is a test-only dependency (CI installs torch==2.13.0). On a laptop without it the
comparisons skip with a reason; with CI=true a missing torch is a failure, never a silent skip.
"""

import os

import numpy as np
import pytest


@pytest.fixture(scope="module")
def torch():
    """PyTorch with float64 as its default dtype for the module (our engine computes in float64), restored after,
    so a later test elsewhere that builds float32 modules is not handed doubles."""
    try:
        import torch
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("PyTorch is required in CI (.ci/run installs torch==2.13.0) but is not importable")
        pytest.skip("PyTorch not installed: `pip install torch==2.13.0` to run the reference comparisons")
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield torch
    torch.set_default_dtype(previous)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
