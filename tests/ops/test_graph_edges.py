"""The graph is PyTorch's: every op spec's `grad_fn` name and `next_functions` (the child
nodes' names and output numbers, two levels deep) equal torch's, so pictures of the graph
(make_dot, torchviz) and code that walks it see the same graph.

See Note [Edges are differentiable inputs]: a Python number PyTorch takes as a Scalar, a
condition, a mask or an index has no edge; a number PyTorch wraps into a tensor has (None, 0).
"""

from __future__ import annotations

import math
import warnings
import zlib

import numpy as np
import pytest

import dyngrad

from .specs import SPECS

CASES = [(spec, i) for spec in SPECS for i in range(len(spec.samples))]
IDS = [f"{spec.name}-{i}" for spec, i in CASES]

# Where dyngrad's graph would still differ from torch's, with why (strict: a case that starts
# to match must leave the list). Empty: every spec's graph is PyTorch's.
KNOWN: dict = {}


def _outputs(result, module) -> list:
    if isinstance(result, (tuple, list)):
        return [o for o in result if isinstance(o, module.Tensor)]
    return [result]


def describe(fn, depth: int = 2):
    """A node as (name, [(child, output_nr), ...]), children described `depth - 1` deep."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), [(describe(child, depth - 1), nr) for child, nr in fn.next_functions])


def _graph(module, spec, i) -> list:
    seed = zlib.crc32(f"{spec.name}/{i}".encode())
    inputs = spec.inputs(module, spec.samples[i], "float64", seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = spec.fn(module, *inputs)
    return [describe(o.grad_fn) for o in _outputs(result, module)]


def _marks(spec, i):
    reason = KNOWN.get(spec.name)
    if isinstance(reason, dict):
        reason = reason.get(i)
    return [pytest.mark.xfail(reason=reason, strict=True)] if reason else []


@pytest.mark.parametrize(
    "spec,i", [pytest.param(s, i, marks=_marks(s, i)) for s, i in CASES], ids=IDS
)
def test_graph_matches_torch(spec, i, torch):
    try:
        expected = _graph(torch, spec, i)
    except Exception:  # noqa: BLE001 - an input torch refuses says nothing about the graph
        pytest.skip("torch does not run this sample")
    assert _graph(dyngrad, spec, i) == expected


def _x(t):
    return t.tensor([1.5, 2.5, -0.5], dtype=t.float64, requires_grad=True)


def _y(t):
    return t.tensor([0.5, 3.0, 2.0], dtype=t.float64, requires_grad=True)


def _cond(t):
    return t.tensor([True, False, True])


# the calls issue 14 names, and their neighbours: Python numbers and conditions per overload
CALLS = {
    "pow_scalar": lambda t, x, y: x**2,
    "rpow": lambda t, x, y: 2**x,
    "mul_scalar": lambda t, x, y: x * 2,
    "rmul": lambda t, x, y: 2 * x,
    "add_scalar": lambda t, x, y: x + 2,
    "rsub": lambda t, x, y: 2 - x,
    "rsub_alpha": lambda t, x, y: t.rsub(x, 2, alpha=2),
    "sub_scalar": lambda t, x, y: x - 2,
    "div_scalar": lambda t, x, y: x / 2,
    "rdiv": lambda t, x, y: 2 / x,
    "true_divide": lambda t, x, y: t.true_divide(x, 2),
    "fmod_scalar": lambda t, x, y: t.fmod(x, 2),
    "fmod_tensor": lambda t, x, y: t.fmod(x, y),
    "remainder_scalar": lambda t, x, y: t.remainder(x, 2),
    "mod": lambda t, x, y: x % 2,
    "rmod": lambda t, x, y: 2 % x,
    "floordiv": lambda t, x, y: x // 2,
    "rfloordiv": lambda t, x, y: 2 // x,
    "floor_divide_tensor": lambda t, x, y: t.floor_divide(x, y),
    "floor_divide_zero_d": lambda t, x, y: t.floor_divide(x, t.tensor(2.0, dtype=t.float64)),
    "masked_fill": lambda t, x, y: x.masked_fill(_cond(t), 0.5),
    "masked_fill_tensor": lambda t, x, y: x.masked_fill(_cond(t), y.sum()),
    "where_scalar_other": lambda t, x, y: t.where(_cond(t), x, 0.0),
    "where_scalar_self": lambda t, x, y: t.where(_cond(t), 1.0, x),
    "where_tensors": lambda t, x, y: t.where(_cond(t), x, y),
    "where_method": lambda t, x, y: x.where(_cond(t), 0.0),
    "div_mode_none": lambda t, x, y: t.div(x, 2, rounding_mode=None),
    "div_mode_none_tensor": lambda t, x, y: x.div(y, rounding_mode=None),
    "divide_mode_none": lambda t, x, y: t.divide(x, 2, rounding_mode=None),
    "div_floor": lambda t, x, y: x.div(2, rounding_mode="floor"),
    "xlogy_scalar_other": lambda t, x, y: t.xlogy(x, 2.0),
    "xlogy_scalar_self": lambda t, x, y: t.xlogy(2.0, x),
    "xlogy_method": lambda t, x, y: x.xlogy(2.0),
    "special_xlogy": lambda t, x, y: t.special.xlogy(2.0, x),
    "xlog1py_scalar_other": lambda t, x, y: t.special.xlog1py(x, 2.0),
    "float_power_scalar": lambda t, x, y: x.float_power(2),
    "float_power_rscalar": lambda t, x, y: t.float_power(2, x),
    "pow_zero_d": lambda t, x, y: x ** t.tensor(2.0, dtype=t.float64),
    "clamp_scalars": lambda t, x, y: x.clamp(0, 2),
    "clamp_tensor": lambda t, x, y: x.clamp(min=y),
    "lerp_scalar": lambda t, x, y: t.lerp(x, y, 0.5),
    "add_alpha": lambda t, x, y: t.add(x, 2, alpha=3),
    "index_fill_scalar": lambda t, x, y: x.index_fill(0, t.tensor([0, 2]), 2.0),
    "scatter_scalar": lambda t, x, y: x.scatter(0, t.tensor([0, 2]), 2.0),
    "copysign_scalar": lambda t, x, y: t.copysign(x, 2.0),
    "mul_bool_mask": lambda t, x, y: x * (x > 2),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_call_graph_matches_torch(name, torch):
    graphs = []
    for module in (dyngrad, torch):
        x, y = _x(module), _y(module)
        graphs.append(describe(CALLS[name](module, x, y).grad_fn))
    assert graphs[0] == graphs[1]


def test_backward_through_nodes_without_number_edges(lib):
    # the gradients are unchanged by the edges a number no longer has
    x = _x(lib)
    ((x**2).sum() + (2 - x).sum() + lib.where(_cond(lib), x, 0.0).sum()).backward()
    assert x.grad.tolist() == [3.0 - 1 + 1, 5.0 - 1, -1.0 - 1 + 1]
    assert len((x**2).grad_fn.next_functions) == 1


@pytest.mark.parametrize(
    "call,message",
    [
        (
            lambda t, x, w: t.nn.functional.nll_loss(x, t.tensor([0, 1, 3]), weight=w),
            "The function 'nll_loss_forward' is not differentiable with respect to argument "
            "'weight'. This input cannot have requires_grad True.",
        ),
        (
            lambda t, x, w: t.nn.functional.binary_cross_entropy(x.sigmoid(), x.sigmoid(), w),
            "The function 'binary_cross_entropy' is not differentiable with respect to argument "
            "'weight'.",
        ),
        (
            lambda t, x, w: t.nn.functional.batch_norm(x, w * 1, w.detach() + 1),
            "The function 'native_batch_norm' is not differentiable with respect to argument "
            "'running_mean'.",
        ),
    ],
)
def test_an_input_pytorch_does_not_differentiate_refuses_requires_grad(lib, call, message):
    # such an input has no edge; requiring grad is PyTorch's error at the call (not a
    # crash at backward), and under no_grad it is fine
    x = lib.randn(3, 4, dtype=lib.float64)
    w = lib.rand(4, dtype=lib.float64, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        call(lib, x, w)
    assert str(info.value).startswith(message)
    with lib.no_grad():
        assert not call(lib, x, w).requires_grad


def test_tensor_where_takes_self_as_the_values(lib):
    x = _x(lib)
    out = x.where(_cond(lib), 0.0)
    assert out.tolist() == [1.5, 0.0, -0.5]
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]


def test_max_of_a_zero_dim_tensor_along_dim_zero(lib):
    x = lib.tensor(2.5, dtype=lib.float64, requires_grad=True)
    values, indices = x.max(0, keepdim=True)
    assert values.shape == () and indices.item() == 0
    assert values.grad_fn.next_functions[0][0] is not None
    values.backward()
    assert x.grad.item() == 1.0


def test_div_with_rounding_mode_none_is_true_division(lib):
    x = _x(lib)
    out = lib.div(x, 2, rounding_mode=None)
    assert out.grad_fn.name() == "DivBackward2"
    assert out.tolist() == [0.75, 1.25, -0.25]
    out.sum().backward()
    assert x.grad.tolist() == [0.5, 0.5, 0.5]


EINSUMS = [
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i", [(3,), (3,)]),
    ("ij->", [(2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("iij->ji", [(3, 3, 2)]),
    ("ba,ab->", [(3, 2), (2, 3)]),
    ("Ab,bA->A", [(2, 3), (3, 2)]),
    ("i,j,k->ijk", [(2,), (3,), (2,)]),
    ("...i,i->...", [(2, 3, 4), (4,)]),
    ("ij,kl->ijkl", [(2, 1), (1, 3)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ij,jk->ki", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum_graph_values_and_gradients_match_torch(equation, shapes, torch):
    # PyTorch's steps in its order (no opt_einsum): the graph four levels deep, node for node
    results = []
    for module in (dyngrad, torch):
        operands = [
            module.arange(math.prod(s), dtype=module.float64).reshape(s).sin().requires_grad_()
            for s in shapes
        ]
        out = module.einsum(equation, *operands)
        out.sum().backward()
        grads = [x.grad.detach().numpy() for x in operands]
        results.append((describe(out.grad_fn, 4), out.detach().numpy(), grads))
    (graph_d, value_d, grads_d), (graph_t, value_t, grads_t) = results
    assert graph_d == graph_t
    np.testing.assert_allclose(value_d, value_t, rtol=1e-12, atol=1e-12)
    for a, b in zip(grads_d, grads_t):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
