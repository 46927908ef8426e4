"""Memory formats against torch: channels-last as a real layout (Note [Memory formats])."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import dyngrad

from ..ops.oracle import same

IMG = np.arange(120.0, dtype=np.float32).reshape(2, 3, 4, 5)

LAYOUTS = """x.contiguous(memory_format=t.channels_last).stride()
x.contiguous(memory_format=t.channels_last).is_contiguous()
x.to(memory_format=t.channels_last).stride() | x.to(t.float64, memory_format=t.channels_last).stride()
c.to(t.float64).stride() | c.double().stride() | (c + 1).stride() | c.clone().stride()
c.clone(memory_format=t.contiguous_format).stride() | t.empty_like(c).stride()
t.empty_like(c, memory_format=t.contiguous_format).stride() | t.zeros_like(c).stride()
t.ones_like(c, memory_format=t.contiguous_format).stride() | t.full_like(c, 2.0).stride()
t.rand_like(c).stride() | t.randn_like(x, memory_format=t.channels_last).stride()
t.empty(2, 3, 4, 5, memory_format=t.channels_last).stride() | c.new_zeros(2, 3, 4, 5).stride()
t.clone(x, memory_format=t.channels_last).stride() | c.reshape(-1).shape | c.view(-1)
x.is_contiguous(memory_format=t.contiguous_format) | x.is_contiguous(memory_format=t.channels_last)
x.is_contiguous(memory_format=t.preserve_format) | c.is_contiguous(memory_format=t.preserve_format)
x.is_contiguous(memory_format=t.channels_last_3d) | x.permute(0, 2, 3, 1).is_contiguous(memory_format=t.channels_last)
c.permute(0, 2, 3, 1).is_contiguous() | t.zeros(0, 3, 4, 5).is_contiguous(memory_format=t.channels_last)
t.zeros(2, 1, 4, 5).is_contiguous(memory_format=t.channels_last) | t.zeros(2, 3, 1, 1).is_contiguous(memory_format=t.channels_last)
t.zeros(2, 3).is_contiguous(memory_format=t.channels_last) | t.zeros(2, 3, 4, 5, 6).contiguous(memory_format=t.channels_last_3d).stride()
x.contiguous(memory_format=t.preserve_format).stride() | c.contiguous(memory_format=t.preserve_format)
t.zeros(2, 3).contiguous(memory_format=t.channels_last) | t.zeros(2, 3).to(memory_format=t.channels_last)
t.zeros(2, 3, 4).contiguous(memory_format=t.channels_last_3d) | t.zeros(3).clone(memory_format=t.channels_last)
t.zeros_like(t.zeros(3), memory_format=t.channels_last) | x.contiguous(memory_format=5)
x.contiguous(memory_format=None) | c.float() is c | c.to(memory_format=t.channels_last) is c
c.contiguous(memory_format=t.channels_last) is c | x.to(memory_format=t.channels_last) is x"""


@pytest.mark.parametrize(
    "expr", [e.strip() for line in LAYOUTS.splitlines() for e in line.split("|")]
)
def test_layouts_match_torch(torch, expr):
    same(torch, f"(lambda x, c: {expr})(x, x.contiguous(memory_format=t.channels_last))", x=IMG)


def test_memory_formats_are_pytorchs_objects(lib):
    assert repr(lib.channels_last) == "torch.channels_last" == str(lib.channels_last)
    assert isinstance(lib.contiguous_format, lib.memory_format)
    assert repr(lib.memory_format) == "<class 'torch.memory_format'>"
    assert pickle.loads(pickle.dumps(lib.channels_last)) is lib.channels_last
    with pytest.raises(TypeError, match="^cannot create 'torch.memory_format' instances$"):
        lib.memory_format()


def test_a_channels_last_copy_keeps_values_and_history(lib):
    x = lib.tensor(IMG, requires_grad=True)
    c = x.contiguous(memory_format=lib.channels_last)
    assert c.grad_fn.name() == "CloneBackward0" and c.tolist() == x.tolist()
    (c * 2).sum().backward()
    assert x.grad.is_contiguous() and (x.grad == 2).all()


def test_a_channels_last_model_trains_as_a_contiguous_one():
    """Conv, pooling and batch norm give the same numbers on either layout (dyngrad returns
    contiguous outputs where PyTorch keeps channels-last: Note [Memory formats])."""
    dyngrad.manual_seed(0)
    model = dyngrad.nn.Sequential(
        dyngrad.nn.Conv2d(3, 4, 3), dyngrad.nn.BatchNorm2d(4), dyngrad.nn.MaxPool2d(2)
    )
    x = dyngrad.tensor(IMG / 100)
    expected = model(x)
    expected.sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model.to(memory_format=dyngrad.channels_last)
    assert model[0].weight.is_contiguous(memory_format=dyngrad.channels_last)
    out = model(x.to(memory_format=dyngrad.channels_last))
    out.sum().backward()
    np.testing.assert_allclose(
        out.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6
    )
    for p, g in zip(model.parameters(), grads):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-4, atol=1e-5)
