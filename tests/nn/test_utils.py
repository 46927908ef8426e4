"""nn.utils: clip_grad_norm_, clip_grad_value_, parameters_to_vector and back."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad
from dyngrad import nn


def _twin_grads(torch, grads):
    ours = [nn.Parameter(dyngrad.zeros(*g.shape)) for g in grads]
    theirs = [torch.nn.Parameter(torch.zeros(*g.shape)) for g in grads]
    for o, t, g in zip(ours, theirs, grads):
        o.grad = dyngrad.from_numpy(g.copy())
        t.grad = torch.from_numpy(g.copy())
    return ours, theirs


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, torch):
    rng = np.random.default_rng(0)
    grads = [
        rng.standard_normal((3, 4)).astype(np.float32),
        rng.standard_normal(5).astype(np.float32),
    ]
    ours, theirs = _twin_grads(torch, grads)
    total_ours = nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    total_theirs = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert total_ours.dtype is dyngrad.float32
    np.testing.assert_allclose(total_ours.item(), total_theirs.item(), rtol=1e-6)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-6)


def test_clip_grad_norm_nonfinite_error_text(torch):
    grads = [np.array([1.0, np.nan], np.float32)]
    for norm_type in (2.0, math.inf):
        messages = []
        for lib, params in zip((dyngrad, torch), _twin_grads(torch, grads)):
            with pytest.raises(RuntimeError) as info:
                lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type, error_if_nonfinite=True)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def test_clip_grad_norm_without_grads_returns_zero():
    assert nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    assert nn.utils.clip_grad_norm_(nn.Linear(2, 2).parameters(), 1.0).item() == 0.0


def test_clip_grad_value_clamps_in_place():
    p = nn.Parameter(dyngrad.zeros(4))
    p.grad = dyngrad.tensor([-3.0, -0.5, 0.2, 9.0])
    grad = p.grad
    nn.utils.clip_grad_value_([p], 1.0)
    assert p.grad is grad
    np.testing.assert_array_equal(grad.numpy(), np.array([-1.0, -0.5, 0.2, 1.0], np.float32))


def test_parameters_to_vector_and_back():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    vec = nn.utils.parameters_to_vector(model.parameters())
    assert vec.shape == (13,) and vec.grad_fn.name() == "CatBackward0"
    new = dyngrad.arange(13, dtype=dyngrad.float32)
    nn.utils.vector_to_parameters(new, model.parameters())
    np.testing.assert_array_equal(model[0].weight.detach().numpy(), np.arange(6).reshape(3, 2))
    np.testing.assert_array_equal(model[1].bias.detach().numpy(), [12.0])
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1], model.parameters())


def test_clip_grad_norm_of_half_and_mixed_dtypes_matches_torch(torch):
    def run(lib):
        h = lib.nn.Parameter(lib.ones(2, dtype=lib.float16))
        h.grad = lib.full((2,), 300.0, dtype=lib.float16)  # its square overflows float16
        b = lib.nn.Parameter(lib.ones(3, dtype=lib.bfloat16))
        b.grad = lib.full((3,), 0.1, dtype=lib.bfloat16)
        a = lib.nn.Parameter(lib.ones(2))
        a.grad = lib.ones(2) * 3
        c = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
        c.grad = lib.ones(2, dtype=lib.float64) * 4
        totals = [
            lib.nn.utils.clip_grad_norm_([h], 1.0),
            lib.nn.utils.clip_grad_norm_([b], 10.0),
            lib.nn.utils.clip_grad_norm_([a, c], 1.0),
        ]
        return [(str(t.dtype), t.item()) for t in totals] + [
            p.grad.double().tolist() for p in (h, b, a, c)
        ]

    assert run(dyngrad) == run(torch)
