"""The padding layers and the distance layers against torch: values, gradients, nodes, reprs."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .parity import assert_same, twins

R = np.random.default_rng(77)


def x(*shape):
    return R.uniform(-2.0, 2.0, shape)


PAD_CASES = {
    "constant1d": (lambda nn: nn.ConstantPad1d((2, -1), 3.5), x(2, 3, 5)),
    "constant2d": (lambda nn: nn.ConstantPad2d(1, -1.0), x(3, 4, 2)),
    "constant3d": (lambda nn: nn.ConstantPad3d((1, 0, 2, 1, 0, 1), 0.5), x(1, 2, 2, 3, 2)),
    "zero1d": (lambda nn: nn.ZeroPad1d(2), x(3, 4)),
    "zero2d": (lambda nn: nn.ZeroPad2d((1, 1, 2, 0)), x(1, 2, 3, 3)),
    "zero3d": (lambda nn: nn.ZeroPad3d(1), x(2, 2, 2, 3)),
    "reflection1d": (lambda nn: nn.ReflectionPad1d((3, 1)), x(2, 3, 5)),
    "reflection1d_unbatched": (lambda nn: nn.ReflectionPad1d(2), x(3, 4)),
    "reflection2d": (lambda nn: nn.ReflectionPad2d((1, 1, 2, 0)), x(1, 2, 3, 4)),
    "reflection2d_negative": (lambda nn: nn.ReflectionPad2d((-1, 2, 0, -1)), x(2, 4, 4)),
    "reflection3d": (lambda nn: nn.ReflectionPad3d(1), x(1, 2, 3, 2, 3)),
    "replication1d": (lambda nn: nn.ReplicationPad1d((4, 2)), x(2, 3, 3)),
    "replication2d": (lambda nn: nn.ReplicationPad2d(2), x(1, 2, 2, 3)),
    "replication3d": (lambda nn: nn.ReplicationPad3d((1, 2, 0, 1, 2, 0)), x(2, 2, 2, 3)),
    "circular1d": (lambda nn: nn.CircularPad1d((2, 1)), x(2, 3, 4)),
    "circular2d": (lambda nn: nn.CircularPad2d((1, -1, 2, 0)), x(1, 2, 3, 4)),
    "circular3d": (lambda nn: nn.CircularPad3d(1), x(1, 2, 2, 3, 2)),
}


def _names(fn) -> list:
    """The graph's node names, depth first."""
    if fn is None:
        return [None]
    return [type(fn).__name__] + [n for f, _ in fn.next_functions for n in _names(f)]


@pytest.mark.parametrize("name", list(PAD_CASES))
def test_padding_layer_matches_torch(name, torch):
    make, array = PAD_CASES[name]
    theirs, ours = twins(torch, make)
    assert_same(torch, (theirs, ours), [array])
    t_in = torch.from_numpy(array).requires_grad_()
    d_in = dyngrad.from_numpy(array).requires_grad_()
    assert _names(ours(d_in).grad_fn) == _names(theirs(t_in).grad_fn)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_double_backward_match_torch(mode, torch):
    array, cotangent = x(2, 3, 4, 5), x(2, 3, 6, 6)
    grads = []
    for lib in (torch, dyngrad):
        inp = lib.from_numpy(array).requires_grad_()
        out = lib.nn.functional.pad(inp, (1, 0, 2, 0), mode=mode)
        v = lib.from_numpy(cotangent).requires_grad_()
        (g,) = lib.autograd.grad(out, inp, v, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), v)
        grads.append((g.detach().numpy(), gg.numpy(), _names(g.grad_fn)))
    (tg, tgg, tnames), (dg, dgg, dnames) = grads
    np.testing.assert_allclose(dg, tg, rtol=1e-12)
    np.testing.assert_allclose(dgg, tgg, rtol=1e-12)
    if mode != "circular":  # (CopySlices' double-backward graph is not PyTorch's node for node)
        assert dnames == tnames


@pytest.mark.parametrize(
    "mode,padding",
    [("reflect", (2, 1, 0, 1)), ("replicate", (3, 0, 1, 2)), ("circular", (1, 2, -1, 1))],
)
def test_pad_modes_pass_gradcheck(mode, padding):
    inp = dyngrad.randn(2, 3, 3, dtype=dyngrad.float64, requires_grad=True)

    def fn(t):
        return dyngrad.nn.functional.pad(t, padding, mode=mode)

    assert dyngrad.autograd.gradcheck(fn, (inp,))
    assert dyngrad.autograd.gradgradcheck(fn, (inp,))


def test_reflection_pad_saves_input_and_padding(lib):
    inp = lib.randn(1, 2, 4, requires_grad=True)
    fn = lib.nn.ReflectionPad1d((2, 1))(inp).grad_fn
    assert type(fn).__name__ == "ReflectionPad1DBackward0"
    assert fn._saved_padding == (2, 1)
    assert fn._saved_self is inp


def test_padding_layer_reprs(lib):
    nn = lib.nn
    assert repr(nn.ReflectionPad2d((1, 1, 2, 0))) == "ReflectionPad2d((1, 1, 2, 0))"
    assert repr(nn.ReplicationPad1d([1, 2])) == "ReplicationPad1d((1, 2))"
    assert repr(nn.CircularPad3d(1)) == "CircularPad3d((1, 1, 1, 1, 1, 1))"
    assert repr(nn.ConstantPad1d(2, 3.5)) == "ConstantPad1d(padding=(2, 2), value=3.5)"
    assert repr(nn.ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))"
    assert nn.ZeroPad3d(1).value == 0.0
    assert nn.ReflectionPad2d(3).padding == (3, 3, 3, 3)


@pytest.mark.parametrize(
    "make,shape,error,message",
    [
        (
            lambda nn: nn.ReflectionPad2d((1, 2, 3)),
            (1, 2, 3, 4),
            RuntimeError,
            "Padding length must",
        ),
        (
            lambda nn: nn.ReflectionPad1d(3),
            (1, 2, 3),
            RuntimeError,
            "Argument #4: Padding size should be less than the corresponding input dimension",
        ),
        (
            lambda nn: nn.ReplicationPad3d(1),
            (2, 3),
            RuntimeError,
            "Padding length should be less than or equal to two times the input dimension",
        ),
        (
            lambda nn: nn.CircularPad2d(1),
            (2,),
            ValueError,
            "expected 3D or 4D input (got 1D input)",
        ),
        (
            lambda nn: nn.CircularPad1d(4),
            (1, 2, 3),
            RuntimeError,
            "Padding value causes wrapping around more than once.",
        ),
        (
            lambda nn: nn.ReplicationPad2d(1),
            (2, 2, 3, 3, 3),
            NotImplementedError,
            "Padding size 4 is not supported for 5D input tensor.",
        ),
    ],
)
def test_padding_layer_errors(make, shape, error, message, lib):
    with pytest.raises(error) as info:
        make(lib.nn)(lib.zeros(*shape))
    assert str(info.value).startswith(message)


def test_cosine_similarity_layer_matches_torch(torch):
    pair = twins(torch, lambda nn: nn.CosineSimilarity(dim=2, eps=1e-6))
    assert_same(torch, pair, [x(2, 3, 4), x(2, 1, 4)])
    pair = twins(torch, lambda nn: nn.CosineSimilarity())
    assert_same(torch, pair, [x(4, 5), x(4, 5)])


@pytest.mark.parametrize(
    "kwargs", [{}, {"p": 1.0, "keepdim": True}, {"p": 3.0, "eps": 1e-3}, {"p": float("inf")}]
)
def test_pairwise_distance_layer_matches_torch(kwargs, torch):
    pair = twins(torch, lambda nn: nn.PairwiseDistance(**kwargs))
    assert_same(torch, pair, [x(5, 4), x(5, 4)])
    assert_same(torch, pair, [x(3, 2, 4), x(4)])


def test_distance_layer_attributes(lib):
    layer = lib.nn.PairwiseDistance(p=1.0, eps=0.1, keepdim=True)
    assert (layer.norm, layer.eps, layer.keepdim) == (1.0, 0.1, True)
    assert repr(layer) == "PairwiseDistance()"
    cos = lib.nn.CosineSimilarity(dim=0)
    assert (cos.dim, cos.eps, repr(cos)) == (0, 1e-8, "CosineSimilarity()")
