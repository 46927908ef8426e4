"""Forward-mode AD (`torch.autograd.forward_ad`): dual tensors, tangents derived from every
row's backward formula (Note [Forward AD from the backward formulas]), custom Functions'
`jvp`, and `gradcheck(check_forward_ad=True)` over the whole op table."""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest

import dyngrad

from ..ops.specs import SPECS

# rows whose backward is not itself differentiable: PyTorch has no forward formula for them
# either (its error, for the same reason), and sparse outputs
NO_FORWARD_AD = {
    "multi_margin_loss",
    "multilabel_margin_loss",
    "scaled_dot_product_flash_attention_for_cpu",
    "embedding_bag",
    "embedding_bag_max",
    "ctc_loss",
}
SKIP = {"sparse_sum", "sparse_sum_dense_dims", "as_strided_inplace"}
CASES = [(s, i) for s in SPECS if s.grad and s.name not in SKIP for i in range(len(s.samples))]


@pytest.mark.parametrize("spec,i", CASES, ids=[f"{s.name}-{i}" for s, i in CASES])
def test_forward_ad_jacobians_match_numerical(spec, i):
    seed = zlib.crc32(f"{spec.name}/{i}".encode())
    inputs = spec.inputs(dyngrad, spec.samples[i], "float64", seed)

    def check():
        return dyngrad.autograd.gradcheck(
            lambda *a: spec.fn(dyngrad, *a),
            inputs,
            atol=spec.grad_atol,
            rtol=spec.grad_rtol,
            check_forward_ad=True,
            check_backward_ad=False,
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec.name in NO_FORWARD_AD:
            with pytest.raises(NotImplementedError, match="Trying to use forward AD with"):
                check()
        else:
            assert check()


def _fw(lib):
    return lib.autograd.forward_ad


def test_dual_level_make_and_unpack(lib):
    fw = _fw(lib)
    x = lib.tensor([0.3, -1.2, 2.0], dtype=lib.float64)
    v = lib.tensor([1.0, 2.0, -1.0], dtype=lib.float64)
    with fw.dual_level() as level:
        assert level == 0
        dual = fw.make_dual(x, v)
        assert dual._base is x
        out = (dual * dual).sin()
        primal, tangent = fw.unpack_dual(out)
        assert type(fw.unpack_dual(out)).__name__ == "UnpackedDualTensor"
        assert primal._base is out
        expected = np.cos(x.numpy() ** 2) * 2 * x.numpy() * v.numpy()
        np.testing.assert_allclose(tangent.numpy(), expected, rtol=1e-12)
        assert fw.unpack_dual(x).tangent is None
        np.testing.assert_array_equal(fw.unpack_dual(dual[1:]).tangent.numpy(), [2.0, -1.0])
        assert fw.unpack_dual(dual.sum()).tangent.item() == 2.0
        assert fw.unpack_dual(dual.argmax()).tangent is None
        written = lib.ones(3, dtype=lib.float64)
        written.mul_(dual)  # in place: the tangent of the old value times dual's
        np.testing.assert_array_equal(fw.unpack_dual(written).tangent.numpy(), v.numpy())
        y = lib.zeros(2, 3, dtype=lib.float64)
        y[1] = dual  # written through a view: the base's tangent
        np.testing.assert_array_equal(fw.unpack_dual(y).tangent.numpy(), [[0, 0, 0], v.numpy()])
    assert fw.unpack_dual(out).tangent is None  # the level's tangents are gone


@pytest.mark.parametrize(
    "call,error,message",
    [
        (
            lambda fw, lib: fw.make_dual(lib.ones(3), lib.ones(3)),
            RuntimeError,
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first.",
        ),
        (
            lambda fw, lib: _in_level(fw, lambda: fw.make_dual(lib.ones(3), lib.ones(2))),
            RuntimeError,
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size [3] while the given "
            "forward gradient is of size [2].",
        ),
        (
            lambda fw, lib: _in_level(fw, lambda: fw.make_dual(lib.ones(3).long(), lib.ones(3))),
            ValueError,
            "Expected primal to be floating point or complex, but got: torch.int64",
        ),
        (
            lambda fw, lib: _in_level(fw, lambda: _in_level(fw, lambda: None)),
            RuntimeError,
            "Nested forward mode AD is not supported at the moment",
        ),
    ],
)
def test_errors_as_torch(lib, call, error, message):
    with pytest.raises(error) as info:
        call(_fw(lib), lib)
    assert str(info.value).splitlines()[0] == message


def _in_level(fw, fn):
    with fw.dual_level():
        return fn()


def test_tangent_keeps_a_graph_when_the_primal_requires_grad(lib):
    fw = _fw(lib)
    x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
    with fw.dual_level():
        out = fw.make_dual(x, lib.ones(2, dtype=lib.float64)).exp()
        tangent = fw.unpack_dual(out).tangent
        assert tangent.requires_grad
        (g,) = lib.autograd.grad(tangent.sum(), x)  # d/dx exp(x) * 1
    np.testing.assert_allclose(g.numpy(), np.exp([0.5, 1.5]), rtol=1e-12)


def test_custom_function_jvp(lib):
    fw = _fw(lib)

    class Sin(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * x.cos()

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = lib.tensor([0.2, 0.7], dtype=lib.float64)
    with fw.dual_level():
        dual = fw.make_dual(x, lib.ones(2, dtype=lib.float64))
        tangent = fw.unpack_dual(Sin.apply(dual)).tangent
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            Double.apply(dual)
    np.testing.assert_allclose(tangent.numpy(), np.cos([0.2, 0.7]), rtol=1e-12)


def test_model_jvp_matches_torch(torch):
    tangents = []
    for lib in (dyngrad, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(
            lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.LayerNorm(8), lib.nn.Linear(8, 3)
        ).double()
        x = lib.from_numpy(np.linspace(-1, 1, 8).reshape(2, 4))
        v = lib.from_numpy(np.linspace(0.5, -0.5, 8).reshape(2, 4))
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            out = model(fw.make_dual(x, v)).log_softmax(-1)
            tangents.append(fw.unpack_dual(out).tangent.detach().numpy())
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-10, atol=1e-12)
