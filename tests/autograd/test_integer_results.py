"""An integer or bool result never requires grad, whatever its inputs (`x.long()`,
`x.to(torch.int32)`, `x.bool()`), as in PyTorch: no ToCopyBackward0 node, no gradient."""

from __future__ import annotations

import pytest

import dyngrad

CONVERSIONS = {
    "int": lambda x: x.int(),
    "long": lambda x: x.long(),
    "to int64": lambda x: x.to(dyngrad.int64),
    "bool": lambda x: x.bool(),
    "type int32": lambda x: x.type(dyngrad.int32),
    "round then long": lambda x: x.round().long(),
    "floor to int8": lambda x: x.floor().to(dyngrad.int8),
    "double then int": lambda x: x.double().int(),
}


@pytest.mark.parametrize("name", list(CONVERSIONS))
def test_integer_conversion_takes_no_gradient(name):
    x = dyngrad.randn(3, requires_grad=True)
    out = CONVERSIONS[name](x)
    assert not out.requires_grad and out.grad_fn is None


def test_float_conversions_keep_their_node():
    x = dyngrad.randn(3, requires_grad=True)
    assert x.double().grad_fn.name() == "ToCopyBackward0"
    assert x.half().requires_grad


def test_integer_path_gives_no_gradient_to_input():
    x = dyngrad.tensor([1.2, 2.7], requires_grad=True)
    w = dyngrad.tensor([3.0, 4.0], requires_grad=True)
    (x.long() * w).sum().backward()
    assert x.grad is None and w.grad.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "expression",
    ["x.int()", "x.long()", "x.to(t.int64)", "x.bool()", "x.type(t.int32)", "x.double()",
     "x.argmax()", "x > 0", "x.floor().to(t.uint8)"],
)  # fmt: skip
def test_requires_grad_matches_torch(expression, torch):
    def run(t):
        out = eval(expression, {"t": t, "x": t.randn(3, requires_grad=True)})
        return out.requires_grad, out.grad_fn.name() if out.grad_fn else None

    assert run(dyngrad) == run(torch)
