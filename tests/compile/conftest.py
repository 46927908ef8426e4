"""Compile tests run real torch.compile, whose first call switches off argument validation of
torch.distributions for the whole process (Dynamo does so on first use); put it back, and
reset Dynamo so that no frame hook or cache outlives a test (a fullgraph failure otherwise
changes how later tests' Python runs)."""

import sys

import pytest


@pytest.fixture(autouse=True)
def _torch_distribution_validation_restored():
    yield
    torch = sys.modules.get("torch")
    distributions = getattr(torch, "distributions", None) if torch is not None else None
    if distributions is not None and hasattr(distributions, "Distribution"):
        distributions.Distribution.set_default_validate_args(True)
    dynamo = getattr(torch, "_dynamo", None) if torch is not None else None
    if dynamo is not None and hasattr(dynamo, "reset"):
        dynamo.reset()
