"""`torch.signal.windows`: every window, both symmetries and float dtypes, against PyTorch;
their errors; and the graph a `requires_grad=True` window carries."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

WINDOWS = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann", "kaiser",
    "nuttall",
]  # fmt: skip


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("M", [0, 1, 2, 5, 10, 33])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_matches_torch(name, M, sym, dtype, torch):
    ours = getattr(dyngrad.signal.windows, name)(M, sym=sym, dtype=getattr(dyngrad, dtype))
    theirs = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dtype))
    assert ours.dtype.name == dtype and tuple(ours.shape) == tuple(theirs.shape)
    # the same linspace and ops; float32 exp/sin/cos/i0 kernels differ in the last bits
    tolerance = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize(
    "call",
    [
        "W.hann(-1)",
        "W.hann(3, dtype=t.int64)",
        "W.gaussian(3, std=0)",
        "W.exponential(3, center=1.0)",
        "W.exponential(3, tau=-1.0)",
        "W.kaiser(3, beta=-1)",
        "W.general_cosine(3, a=[])",
        "W.general_cosine(3, a=5)",
        "W.hann(3, layout=t.sparse_coo)",
    ],
)
def test_window_errors_match_torch(call, torch):
    def outcome(t):
        try:
            eval(call, {"t": t, "W": t.signal.windows})
        except Exception as exc:  # noqa: BLE001 - the error is what is compared
            return type(exc).__name__, str(exc)
        return None

    assert outcome(dyngrad) == outcome(torch) is not None


def test_window_options_match_torch(torch):
    cases = [
        ("exponential", {"sym": False, "center": 1.0, "tau": 0.5}),
        ("general_cosine", {"a": [0.46, 0.23, 0.31]}),
        ("general_hamming", {"alpha": 0.6, "sym": False}),
        ("gaussian", {"std": 2.5}),
        ("kaiser", {"beta": 3.0, "sym": False}),
    ]
    for name, kwargs in cases:
        ours = getattr(dyngrad.signal.windows, name)(12, dtype=dyngrad.float64, **kwargs)
        theirs = getattr(torch.signal.windows, name)(12, dtype=torch.float64, **kwargs)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-13, atol=1e-15)


def test_window_with_requires_grad_is_built_by_ops():
    w = dyngrad.signal.windows.hann(6, requires_grad=True)
    assert not w.is_leaf and w.grad_fn.name() == "SumBackward1"
    k = dyngrad.signal.windows.kaiser(6, beta=3.0, requires_grad=True)
    assert k.grad_fn.name() == "DivBackward0"
    assert dyngrad.signal.windows.hann(5).tolist() == pytest.approx([0.0, 0.5, 1.0, 0.5, 0.0])
