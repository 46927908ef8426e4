"""torch._foreach_*: values, gradients, node names, edges and errors match PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

UNARY = (
    "abs acos asin atan ceil cos cosh erf erfc exp expm1 floor frac lgamma log log10 log1p log2 "
    "neg reciprocal round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc"
).split()
_DATA = [np.array([0.3, 0.55, 0.8]), np.array([[0.25, 0.6], [0.7, 0.45]])]


def _leaves(lib, scale=1.0, shift=0.0):
    return [lib.tensor(d * scale + shift, dtype=lib.float64, requires_grad=True) for d in _DATA]


def _grads(lib, outputs, inputs):
    total = sum((o * (k + 1.5)).sum() for k, o in enumerate(outputs))
    grads = lib.autograd.grad(total, inputs, allow_unused=True)
    return [None if g is None else g.detach().numpy() for g in grads]


def _edges(node):
    return [(None if fn is None else fn.name(), nr) for fn, nr in node.next_functions]


def _check(lib, outputs, inputs, node_name, expected_values):
    assert type(outputs) is tuple
    assert outputs[0].grad_fn.name() == node_name
    assert all(o.grad_fn is outputs[0].grad_fn for o in outputs)
    assert [o.output_nr for o in outputs] == list(range(len(outputs)))
    for o, want in zip(outputs, expected_values):
        np.testing.assert_allclose(o.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    return _grads(lib, outputs, inputs), _edges(outputs[0].grad_fn)


def _reference(name, *args):
    """torch's values, grads and edges for the same call (the oracle)."""
    torch = pytest.importorskip("torch")
    return torch, getattr(torch, name)


@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_torch(name, torch):
    results = []
    for lib in (dyngrad, torch):
        xs = _leaves(lib, 0.5, 0.2)
        inputs = [x * 1 for x in xs]
        out = getattr(lib, "_foreach_" + name)(inputs)
        per = [getattr(x, name)() for x in inputs]
        grads, edges = _check(
            lib, out, xs, out[0].grad_fn.name(), [p.detach().numpy() for p in per]
        )
        results.append((out[0].grad_fn.name(), grads, edges))
    (dname, dgrads, dedges), (tname, tgrads, tedges) = results
    assert dname == tname == f"Foreach{tname[7:]}"
    assert dedges == tedges
    for d, t in zip(dgrads, tgrads):
        np.testing.assert_allclose(d, t, rtol=1e-10)


def _compare(torch, call, make_inputs):
    """Run `call(lib, *inputs)` on both; node names, edges, values and grads must agree."""
    seen = []
    for lib in (dyngrad, torch):
        inputs = make_inputs(lib)
        out = call(lib, *inputs)
        leaves = [
            t
            for group in inputs
            for t in (group if isinstance(group, list) else [group])
            if hasattr(t, "requires_grad") and t.requires_grad
        ]
        seen.append(
            (
                out[0].grad_fn.name(),
                _edges(out[0].grad_fn),
                [o.detach().numpy() for o in out],
                _grads(lib, out, leaves),
            )
        )
    (dn, de, dv, dg), (tn, te, tv, tg) = seen
    assert dn == tn
    assert de == te
    for d, t in zip(dv, tv):
        np.testing.assert_allclose(d, t, rtol=1e-10, atol=1e-12)
    for d, t in zip(dg, tg):
        if t is None:
            assert d is None
        else:
            np.testing.assert_allclose(d, t, rtol=1e-10, atol=1e-12)
    return dn


def _two(lib):
    return _leaves(lib, 1.0, 0.5), _leaves(lib, 0.7, 0.9)


BINARY = ["add", "sub", "mul", "div", "clamp_min", "clamp_max", "maximum", "minimum", "pow"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("overload", ["Scalar", "ScalarList", "List"])
def test_binary_overloads_match_torch(name, overload, torch):
    second = {"Scalar": lambda lib: 0.8, "ScalarList": lambda lib: [0.8, 1.3]}
    make = second.get(overload, lambda lib: _leaves(lib, 0.7, 0.9))

    def inputs(lib):
        return [x * 1 for x in _leaves(lib, 1.0, 0.5)], make(lib)

    _compare(torch, lambda lib, a, b: getattr(lib, "_foreach_" + name)(a, b), inputs)


@pytest.mark.parametrize("name", ["add", "mul", "div"])
def test_one_tensor_for_every_element_matches_torch(name, torch):
    def inputs(lib):
        # (PyTorch's backward fails for a Tensor that requires grad: "inconsistent range")
        return _leaves(lib, 1.0, 0.5), lib.tensor(1.7, dtype=lib.float64)

    node = _compare(torch, lambda lib, a, t: getattr(lib, "_foreach_" + name)(a, t), inputs)
    # a 0-dim tensor that doesn't require grad is add's Scalar, mul's and div's Tensor
    assert node.endswith("1Scalar" if name == "add" else "0Tensor")


@pytest.mark.parametrize("name", ["add", "sub"])
def test_alpha_matches_torch(name, torch):
    _compare(torch, lambda lib, a, b: getattr(lib, "_foreach_" + name)(a, b, alpha=2.5), _two)


def test_pow_of_a_number_matches_torch(torch):
    node = _compare(torch, lambda lib, a: lib._foreach_pow(2.5, a), lambda lib: (_leaves(lib),))
    assert node == "ForeachPowBackward2"


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("scalars", [None, 0.5, [0.5, -2.0]])
def test_pointwise_matches_torch(name, scalars, torch):
    def inputs(lib):
        return _leaves(lib, 1.0, 0.5), _leaves(lib, 0.7, 0.9), _leaves(lib, -0.3, 1.2)

    def call(lib, a, b, c):
        fn = getattr(lib, "_foreach_" + name)
        return fn(a, b, c) if scalars is None else fn(a, b, c, scalars)

    _compare(torch, call, inputs)


@pytest.mark.parametrize("weight", [0.3, [0.3, 0.8], "tensors"])
def test_lerp_matches_torch(weight, torch):
    def inputs(lib):
        w = _leaves(lib, 0.5, 0.1) if weight == "tensors" else weight
        return _leaves(lib, 1.0, 0.5), _leaves(lib, 0.7, 0.9), w

    _compare(torch, lambda lib, a, b, w: lib._foreach_lerp(a, b, w), inputs)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, a: lib._foreach_norm(a),
        lambda lib, a: lib._foreach_norm(a, 1),
        lambda lib, a: lib._foreach_norm(a, float("inf")),
        lambda lib, a: lib._foreach_max(a),
        lambda lib, a: lib._foreach_clone(a),
    ],
)
def test_reductions_and_clone_match_torch(call, torch):
    _compare(torch, call, lambda lib: ([x * 1 for x in _leaves(lib, -1.0, 0.4)],))


def test_mm_matches_torch(torch):
    def inputs(lib):
        a = [lib.tensor(np.arange(6.0).reshape(2, 3) / 7, requires_grad=True)] * 2
        b = [lib.tensor(np.arange(12.0).reshape(3, 4) / 5, requires_grad=True) for _ in "ab"]
        return a, b

    assert _compare(torch, lambda lib, a, b: lib._foreach_mm(a, b), inputs) == "ForeachMmBackward0"


def test_inputs_without_grad_leave_edges_empty(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([3.0, 4.0])
    out = lib._foreach_mul([y, y], [x, y])
    assert [o.requires_grad for o in out] == [True, True]
    assert [fn is None for fn, _ in out[0].grad_fn.next_functions] == [True, True, False, True]
    out[0].sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda lib, a: lib._foreach_powsum(a), "aten::_foreach_powsum"),
        (
            lambda lib, a: lib._foreach_addcmul(a, a, a, lib.tensor([2.0, 3.0])),
            "aten::_foreach_addcmul",
        ),
    ],
)
def test_overloads_without_derivative_raise_at_backward(lib, call, name):
    a = [lib.tensor([1.0, -2.0], requires_grad=True), lib.tensor([0.5], requires_grad=True)]
    out = call(lib, a)
    assert out[0].grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match=f"derivative for {name} is not implemented"):
        out[0].sum().backward()


def test_powsum_values(lib):
    x = lib.tensor([1.0, -2.0])
    assert [t.item() for t in lib._foreach_powsum([x, x], 3)] == [9.0, 9.0]


# ---- in place -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, names",
    [
        (lambda lib, c, b: lib._foreach_add_(c, 2.0), "AddBackward1"),
        (lambda lib, c, b: lib._foreach_sub_(c, [2.0, 1.0]), "SubBackward1"),
        (lambda lib, c, b: lib._foreach_mul_(c, 2.0), "MulBackward1"),
        (lambda lib, c, b: lib._foreach_div_(c, [2.0, 4.0]), "DivBackward1"),
        (lambda lib, c, b: lib._foreach_add_(c, b, alpha=2), "AddBackward0"),
        (lambda lib, c, b: lib._foreach_mul_(c, b), "MulBackward0"),
        (lambda lib, c, b: lib._foreach_pow_(c, b), "PowBackward1"),
        (lambda lib, c, b: lib._foreach_clamp_min_(c, 0.9), "ClampMinBackward0"),
        (lambda lib, c, b: lib._foreach_maximum_(c, b), "MaximumBackward0"),
        (lambda lib, c, b: lib._foreach_addcmul_(c, b, b, value=2), "AddcmulBackward0"),
        (lambda lib, c, b: lib._foreach_lerp_(c, b, 0.25), "LerpBackward0"),
        (lambda lib, c, b: lib._foreach_exp_(c), "ExpBackward0"),
        (lambda lib, c, b: lib._foreach_zero_(c), "ZeroBackward0"),
    ],
)
def test_inplace_is_the_per_element_inplace_op(lib, call, names):
    a, b = _leaves(lib, 1.0, 0.5), _leaves(lib, 0.7, 0.9)
    c = [x * 1 for x in a]
    result = call(lib, c, b)
    assert result is c
    assert [x.grad_fn.name() for x in c] == [names, names]
    assert [x._version for x in c] == [1, 1]


@pytest.mark.parametrize("name", ["add", "mul", "lerp", "exp"])
def test_inplace_gradients_match_torch(name, torch):
    calls = {
        "add": lambda lib, c, b: lib._foreach_add_(c, b, alpha=0.5),
        "mul": lambda lib, c, b: lib._foreach_mul_(c, [2.0, 3.0]),
        "lerp": lambda lib, c, b: lib._foreach_lerp_(c, b, b),
        "exp": lambda lib, c, b: lib._foreach_exp_(c),
    }
    seen = []
    for lib in (dyngrad, torch):
        a, b = _leaves(lib, 1.0, 0.5), _leaves(lib, 0.7, 0.9)
        c = [x * 1 for x in a]
        calls[name](lib, c, b)
        seen.append(_grads(lib, c, a + b))
    for d, t in zip(*seen):
        assert (d is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(d, t, rtol=1e-12)


def test_inplace_on_a_leaf_raises(lib):
    a = _leaves(lib)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        lib._foreach_add_(a, 1.0)


def test_inplace_through_views_rewrites_the_base(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = x * 1
    views = [base[:2], base[2:]]
    lib._foreach_mul_(views, [3.0, 5.0])
    assert base.grad_fn.name() == "torch::autograd::CopySlices"
    base.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 5.0]


def test_mutation_on_saved_tensors(lib):
    # PyTorch's test_inplace_foreach: b is saved by the exp; writing it needs the copy
    a = [lib.tensor([0.1, 0.2], requires_grad=True), lib.tensor([0.3], requires_grad=True)]
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        b = lib._foreach_exp(a)
        lib._foreach_add_(b, 1)
        (b[0].sum() + b[1].sum()).backward()
    for x in a:
        np.testing.assert_allclose(x.grad.numpy(), x.detach().exp().numpy(), rtol=1e-6)


def test_saved_output_changed_in_place_is_detected(lib):
    a = [lib.tensor([0.1, 0.2], requires_grad=True)]
    b = lib._foreach_exp(a)
    lib._foreach_add_(b, 1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient"):
        b[0].sum().backward()


# ---- double backward, gradcheck --------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, a, b: lib._foreach_exp(a),
        lambda lib, a, b: lib._foreach_mul(a, b),
        lambda lib, a, b: lib._foreach_pow(a, b),
        lambda lib, a, b: lib._foreach_div(a, [2.0, 3.0]),
        lambda lib, a, b: lib._foreach_addcdiv(a, b, a, value=0.5),
        lambda lib, a, b: lib._foreach_norm(a),
        lambda lib, a, b: lib._foreach_lerp(a, b, 0.3),
    ],
)
def test_gradcheck_and_gradgradcheck(call):
    a, b = _leaves(dyngrad, 1.0, 0.5), _leaves(dyngrad, 0.7, 0.9)

    def fn(*flat):
        return call(dyngrad, list(flat[:2]), list(flat[2:]))

    assert dyngrad.autograd.gradcheck(fn, tuple(a + b))
    assert dyngrad.autograd.gradgradcheck(fn, tuple(a + b))


def test_double_backward_matches_torch(torch):
    seen = []
    for lib in (dyngrad, torch):
        a = _leaves(lib, 1.0, 0.5)
        out = lib._foreach_sigmoid(a)
        g = lib.autograd.grad(sum(o.sum() for o in out), a, create_graph=True)
        seen.append([h.numpy() for h in lib.autograd.grad(sum(x.sum() for x in g), a)])
    for d, t in zip(*seen):
        np.testing.assert_allclose(d, t, rtol=1e-12)


def test_second_backward_is_refused(lib):
    a = _leaves(lib)
    out = lib._foreach_exp(a)
    total = out[0].sum() + out[1].sum()
    total.backward()
    with pytest.raises(
        RuntimeError, match="Trying to backward through the graph a second time"
    ) as e:
        total.backward()
    if lib is dyngrad:
        assert "ForeachExpBackward0 released its saved tensors in backward pass" in str(e.value)


@pytest.mark.parametrize(
    "call, again",
    [
        (lambda lib, a: lib._foreach_neg(a), True),
        (lambda lib, a: lib._foreach_lerp(a, a, 0.5), True),
        (lambda lib, a: lib._foreach_add(a, a), False),  # PyTorch keeps the inputs
        (lambda lib, a: lib._foreach_sub(a, 1.0), False),
        (lambda lib, a: lib._foreach_mul(a, 2.0), False),
    ],
)
def test_second_backward_as_torch(lib, call, again):
    a = _leaves(lib)
    out = call(lib, a)
    total = out[0].sum() + out[1].sum()
    total.backward()
    if again:
        total.backward()
    else:
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
            total.backward()


# ---- errors ---------------------------------------------------------------------------------


def _first_line(exc) -> str:
    return str(exc.value).split("\n")[0]


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, a, b: lib._foreach_exp([]),
        lambda lib, a, b: lib._foreach_zero_([]),
        lambda lib, a, b: lib._foreach_add([], 1),
        lambda lib, a, b: lib._foreach_add(a, b),
        lambda lib, a, b: lib._foreach_add_(a, b),
        lambda lib, a, b: lib._foreach_add(a, [1, 2, 3]),
        lambda lib, a, b: lib._foreach_mul(a, []),
        lambda lib, a, b: lib._foreach_mul(a, lib.tensor([1.0, 2.0])),
        lambda lib, a, b: lib._foreach_addcmul(a, a, b),
        lambda lib, a, b: lib._foreach_addcmul(a, a, a, [1.0]),
        lambda lib, a, b: lib._foreach_addcmul(a, a, a, lib.tensor([1.0])),
        lambda lib, a, b: lib._foreach_addcmul(a, a, a, lib.ones(2, 1)),
        lambda lib, a, b: lib._foreach_lerp(a, b, 0.5),
        lambda lib, a, b: lib._foreach_lerp(a, a, [0.5]),
        lambda lib, a, b: lib._foreach_mm([lib.ones(2, 2)], []),
        lambda lib, a, b: lib._foreach_copy_(a, b),
        lambda lib, a, b: lib._foreach_max([lib.ones(0)]),
        lambda lib, a, b: lib._foreach_norm([lib.ones(3, dtype=lib.int64)]),
        lambda lib, a, b: lib._foreach_add_([lib.ones(2, dtype=lib.int64)], [lib.ones(2) / 2]),
        lambda lib, a, b: lib._foreach_exp(a[0]),
        lambda lib, a, b: lib._foreach_exp([1.0]),
        lambda lib, a, b: lib._foreach_sub(a, lib.tensor(1.0, requires_grad=True)),
        lambda lib, a, b: lib._foreach_pow(a, lib.tensor(1.0, requires_grad=True)),
        lambda lib, a, b: lib._foreach_sub(a, lib.tensor([1.0, 2.0])),
        lambda lib, a, b: lib._foreach_add(a, [lib.ones(4), lib.ones(4)]),
        lambda lib, a, b: lib._foreach_sub([lib.ones(2, dtype=lib.bool)], True),
        lambda lib, a, b: lib._foreach_add_([lib.ones(2, dtype=lib.int64)], 1.5),
        lambda lib, a, b: lib._foreach_div_([lib.ones(2, dtype=lib.int64)], 2),
        lambda lib, a, b: lib._foreach_sub_([lib.ones(2, dtype=lib.int64)], [1.5]),
        lambda lib, a, b: lib._foreach_exp_([lib.ones(2, dtype=lib.int64)]),
        lambda lib, a, b: lib._foreach_mm([lib.ones(2, 3)], [lib.ones(2, 3)]),
        lambda lib, a, b: lib._foreach_norm([lib.ones(0)], float("inf")),
        lambda lib, a, b: lib._foreach_norm([lib.ones(0)], -1),
    ],
)
def test_errors_match_torch(call, torch):
    messages = []
    for lib in (dyngrad, torch):
        a, b = [lib.ones(3), lib.ones(3)], [lib.ones(3)] * 3
        with pytest.raises((RuntimeError, TypeError)) as exc:
            call(lib, a, b)
        messages.append((exc.type, _first_line(exc)))
    assert messages[0] == messages[1]


# ---- overloads PyTorch records without a derivative, in place ---------------------------------


@pytest.mark.parametrize(
    "call, what, edges",
    [
        (lambda lib, c, b: lib._foreach_maximum_(c, 0.5), "_foreach_maximum_", 1),
        (lambda lib, c, b: lib._foreach_minimum_(c, [0.5, 0.2]), "_foreach_minimum_", 1),
        (lambda lib, c, b: lib._foreach_copy_(c, b), "_foreach_copy_", 3),
        (
            lambda lib, c, b: lib._foreach_addcmul_(c, b, b, lib.tensor([1.0, 2.0])),
            "_foreach_addcmul_",
            6,
        ),
        (
            lambda lib, c, b: lib._foreach_addcdiv_(c, b, b, scalars=lib.tensor([1.0, 2.0])),
            "_foreach_addcdiv_",
            6,
        ),
    ],
)
def test_inplace_without_derivative_raises_at_backward(lib, call, what, edges):
    a = [lib.tensor([0.1, 0.7, 0.4], requires_grad=True) for _ in "ab"]
    b = [lib.tensor([0.3, 0.2, 0.9], requires_grad=True) for _ in "ab"]
    c = [x * 1 for x in a]
    call(lib, c, b)
    node = c[1].grad_fn
    assert node is not c[0].grad_fn and node.name() == "torch::autograd::NotImplemented"
    assert len(node.next_functions) == edges
    assert [x._version for x in c] == [1, 1]
    with pytest.raises(RuntimeError, match=f"derivative for {what} is not implemented"):
        c[1].sum().backward()


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, c, b: lib._foreach_maximum_(c, 0.5),
        lambda lib, c, b: lib._foreach_minimum_(c, [0.5, 0.2]),
        lambda lib, c, b: lib._foreach_copy_(c, [b[0], b[1][:1]]),
        lambda lib, c, b: lib._foreach_addcmul_(c, b, b, lib.tensor([1.0, 2.0])),
        lambda lib, c, b: lib._foreach_addcdiv_(c, b, c, lib.tensor([1.0, 2.0])),
        lambda lib, c, b: lib._foreach_addcdiv_(c, b, c, [1.0, 2.0]),
    ],
)
def test_inplace_values_match_torch(call, torch):
    seen = []
    for lib in (dyngrad, torch):
        c = [lib.tensor([0.1, 0.7, 0.4]), lib.tensor([0.5, 0.6, 0.2])]
        b = [lib.tensor([0.3, 0.2, 0.9]), lib.tensor([0.8, 0.1, 0.35])]
        call(lib, c, b)
        seen.append([x.numpy() for x in c])
    for d, t in zip(*seen):
        np.testing.assert_allclose(d, t, rtol=1e-6)


def test_saved_output_error_names_the_foreach_output(torch):
    messages = []
    for lib in (dyngrad, torch):
        a = [lib.tensor([0.1, 0.2], requires_grad=True), lib.tensor([0.3], requires_grad=True)]
        b = lib._foreach_exp(a)
        b[1].add_(1)
        with pytest.raises(RuntimeError) as exc:
            b[1].sum().backward()
        messages.append(_first_line(exc).split(" Hint")[0])
    assert messages[0] == messages[1]
    assert "output 1 of ForeachExp" in messages[0]


def test_scalar_extremum_promotes_as_torch(lib):
    out = lib._foreach_maximum([lib.ones(2, dtype=lib.int64)], 1.5)
    assert out[0].dtype == lib.float32 and out[0].tolist() == [1.5, 1.5]


KEYWORD_CALLS = [
    lambda t, a: t._foreach_add(a, scalar=1.0),
    lambda t, a: t._foreach_add(a, scalars=[1.0]),
    lambda t, a: t._foreach_add(self=a, other=a, alpha=2),
    lambda t, a: t._foreach_pow(self=2, exponent=a),
    lambda t, a: t._foreach_lerp(a, tensors1=a, weight=[0.5]),
    lambda t, a: t._foreach_lerp(a, a, weights=a),
    lambda t, a: t._foreach_addcmul(a, tensor1=a, tensor2=a, scalars=t.tensor([2.0])),
    lambda t, a: t._foreach_addcdiv(a, a, a, value=2),
    lambda t, a: t._foreach_clamp_min(a, scalar=0.5),
    lambda t, a: t._foreach_norm(a, dtype=t.float64),
    lambda t, a: t._foreach_mul(a, scalar=t.tensor(2.0)),
    lambda t, a: t._foreach_div(a, other=t.tensor(2.0)),
    lambda t, a: t._foreach_mm([t.ones(2, 2)], mat2=[t.ones(2, 2)]),
    lambda t, a: t._foreach_add(a),
    lambda t, a: t._foreach_add(a, 1, scalar=2),
    lambda t, a: t._foreach_mul(a, 2, alpha=2),
    lambda t, a: t._foreach_add(a, [1.0], alpha=2),
    lambda t, a: t._foreach_sub(a, scalar=t.tensor([1.0, 2.0])),
    lambda t, a: t._foreach_pow(a, "x"),
    lambda t, a: t._foreach_addcmul(a, a, a, "x"),
]


@pytest.mark.parametrize("call", KEYWORD_CALLS)
def test_keywords_and_bad_arguments_match_torch(call, torch):
    seen = []
    for lib in (dyngrad, torch):
        try:
            seen.append([x.tolist() for x in call(lib, [lib.ones(3) * 0.5])])
        except (TypeError, RuntimeError) as exc:
            seen.append((type(exc), str(exc).split("\n")[0]))
    assert seen[0] == seen[1]


# ---- shared, broadcast, viewed and partly differentiable inputs; double backward ------------

MIXED = {
    "same tensor twice": lambda t, x, y, z: ([x], t._foreach_mul([x, x], [x, x])),
    "broadcast other": lambda t, x, y, z: (
        [x, y, z],
        t._foreach_add([x, y], [z[:1], z[:1]], alpha=0.5),
    ),
    "views": lambda t, x, y, z: ([y], t._foreach_exp([y[0], y.t(), y[:, 1]])),
    "one input without grad": lambda t, x, y, z: ([x], t._foreach_sin([x, y.detach()])),
    "an output unused": lambda t, x, y, z: ([x, z], t._foreach_exp([x, z])[:1]),
    "max ties": lambda t, x, y, z: ([z], t._foreach_maximum([z, z], [z.detach(), z])),
    "pow lists": lambda t, x, y, z: ([y, x], t._foreach_pow([y.t(), x], [y, x])),
    "mm": lambda t, x, y, z: ([y], t._foreach_mm([y, y.t()], [y, y])),
}


@pytest.mark.parametrize("case", sorted(MIXED))
def test_mixed_inputs_and_double_backward_match_torch(case, torch):
    seen = []
    for lib in (dyngrad, torch):
        x = lib.tensor([0.4, 0.9, 1.1], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([[0.5, 0.8], [1.2, 0.6]], dtype=lib.float64, requires_grad=True)
        z = lib.tensor([0.7, 0.3, 0.95], dtype=lib.float64, requires_grad=True)
        leaves, out = MIXED[case](lib, x, y, z)
        total = sum((o * (i + 1.5)).sum() for i, o in enumerate(out))
        grads = lib.autograd.grad(total, leaves, create_graph=True, allow_unused=True)
        grads = [g if g is not None else lib.zeros(()) for g in grads]
        again = sum(g.pow(2).sum() for g in grads if g.requires_grad)
        second = lib.autograd.grad(again, leaves, allow_unused=True) if again else ()
        seen.append(
            (
                out[0].grad_fn.name(),
                _edges(out[0].grad_fn),
                [g.detach().numpy() for g in grads],
                [None if g is None else g.numpy() for g in second],
            )
        )
    (dn, de, dg, dgg), (tn, te, tg, tgg) = seen
    assert (dn, de) == (tn, te)
    for d, t in zip(dg + dgg, tg + tgg):
        if t is None:
            assert d is None or not d.any()
        else:
            np.testing.assert_allclose(d, t, rtol=1e-10, atol=1e-12)


def test_a_leaf_is_refused_before_any_tensor_is_written(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        lib._foreach_add_([b, a], 1)
    assert b._version == 0 and b.tolist() == [1.0, 2.0]


def test_pow_of_a_zero_dim_tensor_is_a_number(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    out = lib._foreach_pow(lib.tensor(2.0), [x])
    assert out[0].grad_fn.name() == "ForeachPowBackward2"
    assert out[0].tolist() == [2.0, 4.0]


def test_norm_with_a_dtype_is_one_node_over_the_inputs(torch):
    # the per-element op records a cast and a norm; the foreach node runs both
    seen = []
    for lib in (dyngrad, torch):
        a = [lib.tensor([0.5, 2.0], requires_grad=True), lib.tensor([1.5], requires_grad=True)]
        out = lib._foreach_norm(a, 2, dtype=lib.float64)
        grads = lib.autograd.grad(out[0] + 2 * out[1], a)
        seen.append((out[0].grad_fn.name(), _edges(out[0].grad_fn), out[0].dtype, grads))
    (dn, de, dd, dg), (tn, te, td, tg) = seen
    assert (dn, de, str(dd)) == (tn, te, str(td))
    for d, t in zip(dg, tg):
        assert str(d.dtype) == str(t.dtype)
        np.testing.assert_allclose(d.numpy(), t.numpy(), rtol=1e-6)


def test_norm_of_a_cast_gradgradcheck():
    # float32 inside: the element casts it back to float64 (its cast and norm nodes both run
    # under the foreach node, also in double backward); float32's precision sets the tolerance
    def fn(x):
        return dyngrad._foreach_norm([x.float()], 3, dtype=dyngrad.float64)[0]

    x = dyngrad.tensor([0.5, 2.0, -1.25], dtype=dyngrad.float64, requires_grad=True)
    assert dyngrad.autograd.gradcheck(fn, (x,), eps=1e-3, atol=1e-3, rtol=1e-3)
    assert dyngrad.autograd.gradgradcheck(fn, (x,), eps=1e-3, atol=1e-3, rtol=1e-3)
