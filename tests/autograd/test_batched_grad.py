"""autograd.grad(is_grads_batched=True): the first dim of each grad_output is a batch; every
gradient gains it (here one backward per row), under dyngrad and torch alike."""

from __future__ import annotations

import numpy as np
import pytest


def _graph(lib):
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    z = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    return x, z, (x * 2).sum() * x.sin()


def test_rows_of_the_jacobian(lib):
    x, _, y = _graph(lib)
    (jac,) = lib.autograd.grad(y, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True)
    expected = 2 * np.sin(x.detach().numpy())[:, None] + np.diag(
        (x.detach() * 2).sum().item() * np.cos(x.detach().numpy())
    )
    np.testing.assert_allclose(jac.numpy(), expected)


def test_create_graph_gives_second_derivatives(lib):
    x, _, y = _graph(lib)
    (jac,) = lib.autograd.grad(
        y, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True, create_graph=True
    )
    (g,) = lib.autograd.grad(jac.sum(), x)
    assert g.shape == (3,) and jac.requires_grad


def test_unused_inputs(lib):
    x, z, y = _graph(lib)
    grads = lib.autograd.grad(
        y, (x, z), lib.eye(3, dtype=lib.float64), is_grads_batched=True, allow_unused=True
    )
    assert grads[0].shape == (3, 3) and grads[1] is None
    x, z, y = _graph(lib)
    grads = lib.autograd.grad(
        y, (x, z), lib.eye(3, dtype=lib.float64), is_grads_batched=True, materialize_grads=True
    )
    assert grads[1].shape == (2,)  # PyTorch's zeros carry no batch dim
    x, z, y = _graph(lib)
    with pytest.raises(RuntimeError, match="index 1 appears to not have been used"):
        lib.autograd.grad(y, (x, z), lib.eye(3, dtype=lib.float64), is_grads_batched=True)


def test_grad_output_without_a_batch_dim(lib):
    x, _, y = _graph(lib)
    with pytest.raises(RuntimeError, match=r"has a shape of torch.Size\(\[\]\) and output\[0\]"):
        lib.autograd.grad(y, x, lib.ones(3, dtype=lib.float64), is_grads_batched=True)
