"""The graph: requires_grad, leaves, grad_fn and next_functions, detach, .data, versions.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import gc
import re
import weakref

import pytest

import dyngrad

from .conftest import first_line


def node_chain(t) -> list:
    """Names along the first input of each node, from `t.grad_fn` down to the leaf."""
    names, fn = [], t.grad_fn
    while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


def leaves(lib):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = lib.tensor([[1.0, 0.5, 2.0], [3.0, 1.0, 1.5]], requires_grad=True)
    return x, y


# ---- requires_grad ----------------------------------------------------------------------------


def test_requires_grad_flags(lib):
    x = lib.tensor([1.0], requires_grad=True)
    assert x.requires_grad and not lib.tensor([1.0]).requires_grad
    t = lib.tensor([1.0])
    assert t.requires_grad_() is t and t.requires_grad
    t.requires_grad_(False)
    assert not t.requires_grad
    t.requires_grad = True
    assert t.requires_grad and t.is_leaf


def test_only_floating_tensors_can_require_grad(lib):
    with pytest.raises(RuntimeError) as info:
        lib.tensor([1, 2], requires_grad=True)
    assert (
        str(info.value) == "Only Tensors of floating point and complex dtype can require gradients"
    )
    with pytest.raises(RuntimeError) as info:
        lib.tensor([1, 2]).requires_grad_()
    assert str(info.value) == "only Tensors of floating point dtype can require gradients"
    assert lib.tensor([1.0], dtype=lib.float16).requires_grad_().requires_grad


def test_requires_grad_of_non_leaves(lib):
    y = lib.ones(2, requires_grad=True) * 2
    assert y.requires_grad_() is y  # the method lets True through
    with pytest.raises(RuntimeError) as info:
        y.requires_grad = True
    assert str(info.value) == "you can only change requires_grad flags of leaf variables."
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "you can only change requires_grad flags of leaf variables. If you want to use a "
            "computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach()."
        ),
    ):
        y.requires_grad_(False)


def test_results_require_grad_when_any_input_does(lib):
    x, c = lib.ones(2, requires_grad=True), lib.ones(2)
    assert (x * c).requires_grad and (c * x).requires_grad and (x + 1).requires_grad
    assert not (c * 2).requires_grad
    assert not (x > 0).requires_grad  # comparisons carry no gradient


# ---- grad_fn names and next_functions -----------------------------------------------------------


NODE_NAMES = [
    ("x + y", ["AddBackward0"]),
    ("x + 1", ["AddBackward0"]),
    ("x - y", ["SubBackward0"]),
    ("x - 1", ["SubBackward0"]),
    ("1 - x", ["RsubBackward1"]),
    ("x * y", ["MulBackward0"]),
    ("x * 2", ["MulBackward0"]),
    ("x / y", ["DivBackward0"]),
    ("x / 2", ["DivBackward0"]),
    ("2 / x", ["MulBackward0", "ReciprocalBackward0"]),
    ("x ** 2", ["PowBackward0"]),
    ("x ** y", ["PowBackward1"]),
    ("2 ** x", ["PowBackward2"]),
    ("-x", ["NegBackward0"]),
    ("x.abs()", ["AbsBackward0"]),
    ("x.exp()", ["ExpBackward0"]),
    ("x.log()", ["LogBackward0"]),
    ("x.sqrt()", ["SqrtBackward0"]),
    ("x.sin()", ["SinBackward0"]),
    ("x.cos()", ["CosBackward0"]),
    ("x.tanh()", ["TanhBackward0"]),
    ("x.sigmoid()", ["SigmoidBackward0"]),
    ("x.relu()", ["ReluBackward0"]),
    ("lib.relu(x)", ["ReluBackward0"]),
    ("lib.sigmoid(x)", ["SigmoidBackward0"]),
    ("x.sum()", ["SumBackward0"]),
    ("x.sum(0)", ["SumBackward1"]),
    ("x.sum(dim=1, keepdim=True)", ["SumBackward1"]),
    ("x.mean()", ["MeanBackward0"]),
    ("x.mean(1)", ["MeanBackward1"]),
    ("x.max()", ["MaxBackward1"]),
    ("x.max(0).values", ["MaxBackward0"]),
    ("x.min()", ["MinBackward1"]),
    ("x.min(dim=1)[0]", ["MinBackward0"]),
    ("x @ y.t()", ["MmBackward0"]),
    ("x[0] @ y[0]", ["DotBackward0", "SelectBackward0"]),
    ("x @ y[0]", ["MvBackward0"]),
    ("x.reshape(3, 2)", ["ViewBackward0"]),
    ("x.t().reshape(6)", ["UnsafeViewBackward0", "CloneBackward0", "TBackward0"]),
    ("x.view(6)", ["ViewBackward0"]),
    ("x.transpose(0, 1)", ["TransposeBackward0"]),
    ("x.t()", ["TBackward0"]),
    ("x.permute(1, 0)", ["PermuteBackward0"]),
    ("x[:1].expand(4, 3)", ["ExpandBackward0", "SliceBackward0"]),
    ("x.reshape(1, 2, 3).squeeze()", ["SqueezeBackward0", "ViewBackward0"]),
    ("x.reshape(1, 2, 3).squeeze(0)", ["SqueezeBackward1", "ViewBackward0"]),
    ("x.unsqueeze(0)", ["UnsqueezeBackward0"]),
    ("x.flatten()", ["ViewBackward0"]),
    ("x[0]", ["SelectBackward0"]),
    ("x[:, 1:]", ["SliceBackward0"]),
    ("x[0, 1:]", ["SliceBackward0", "SelectBackward0"]),
    ("x[[0, 1]]", ["IndexBackward0"]),
    ("x[x > 0]", ["IndexBackward0"]),
    ("x[None]", ["UnsqueezeBackward0"]),
    ("x[...]", ["AliasBackward0"]),
    ("x.clamp(0, 1)", ["ClampBackward1"]),
    ("x.clamp(min=0)", ["ClampBackward1"]),
    ("lib.where(x > 0, x, y)", ["WhereBackward0"]),
    ("x.clone()", ["CloneBackward0"]),
    ("x.detach()", []),
    ("lib.maximum(x, y)", ["MaximumBackward0"]),
    ("x.neg()", ["NegBackward0"]),
]


@pytest.mark.parametrize("expr,names", NODE_NAMES, ids=[e for e, _ in NODE_NAMES])
def test_grad_fn_names(lib, expr, names):
    x, y = leaves(lib)
    assert node_chain(eval(expr, {"x": x, "y": y, "lib": lib})) == names


def test_next_functions_point_to_accumulate_grad_and_none(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    d = c + a
    assert [(type(n).__name__, nr) for n, nr in d.grad_fn.next_functions] == [
        ("MulBackward0", 0),
        ("AccumulateGrad", 0),
    ]
    assert [(n.name() if n else None, nr) for n, nr in (a * 2).grad_fn.next_functions] == [
        ("torch::autograd::AccumulateGrad", 0),
        (None, 0),
    ]
    assert (lib.ones(2) * a).grad_fn.next_functions[0] == (None, 0)
    accumulate = c.grad_fn.next_functions[0][0]
    assert accumulate.variable is a and accumulate.next_functions == ()


def test_a_leaf_has_one_accumulate_grad_across_ops_and_graphs(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    first = (a * 2).grad_fn.next_functions[0][0]
    second = (a.exp() + 1).grad_fn.next_functions[0][0].next_functions[0][0]
    assert first is second
    d = (a * 3) + a
    assert d.grad_fn.next_functions[0][0].next_functions[0][0] is d.grad_fn.next_functions[1][0]


def test_multi_output_nodes_number_their_outputs(lib):
    x = lib.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
    values, indices = x.max(dim=1)
    assert values.grad_fn.name() == "MaxBackward0"
    assert indices.grad_fn is None and not indices.requires_grad
    rows = x.unbind(0)
    assert [r.grad_fn is rows[0].grad_fn for r in rows] == [True, True]
    assert [(lib.zeros(2) + r).grad_fn.next_functions[1][1] for r in rows] == [0, 1]


def test_node_repr_and_metadata(lib):
    y = lib.ones(2, requires_grad=True) * 2
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(y.grad_fn))
    y.grad_fn.metadata["note"] = 1
    assert y.grad_fn.metadata == {"note": 1}


def test_saved_values_are_visible_until_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    z = x * w
    assert z.grad_fn._saved_self.tolist() == [1.0, 2.0]
    assert z.grad_fn._saved_other.tolist() == [3.0, 4.0]
    e = x.exp()
    assert e.grad_fn._saved_result.tolist() == pytest.approx([2.7182818, 7.3890561])
    z.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.grad_fn._saved_self


# ---- leaves -------------------------------------------------------------------------------------


def test_is_leaf(lib):
    x = lib.tensor([1.0], requires_grad=True)
    assert x.is_leaf and lib.tensor([1.0]).is_leaf  # requires_grad=False tensors are leaves
    y = x * 2
    assert not y.is_leaf
    assert y.detach().is_leaf
    with lib.no_grad():
        z = x * 2
    assert (z.is_leaf, z.requires_grad, z.grad_fn) == (True, False, None)
    assert (lib.tensor([1.0]) * 2).is_leaf  # no input requires grad: no node


def test_only_leaves_requiring_grad_accumulate(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    c = lib.tensor([3.0, 4.0])
    y = x * c
    (y * 2).sum().backward()
    assert x.grad.tolist() == [6.0, 8.0] and c.grad is None


def test_retain_grad(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert not y.retains_grad
    y.retain_grad()
    y.retain_grad()  # twice is once
    assert y.retains_grad
    (y * y).sum().backward()
    assert y.grad.tolist() == [4.0, 8.0] and x.grad.tolist() == [8.0, 16.0]
    x.retain_grad()  # a no-op on a leaf
    assert not x.retains_grad


def test_retain_grad_needs_requires_grad(lib):
    with pytest.raises(
        RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"
    ):
        lib.ones(2).retain_grad()


def test_non_leaf_grad_is_none_with_pytorchs_warning(lib):
    y = lib.ones(2, requires_grad=True) * 3
    with pytest.warns(UserWarning) as record:
        assert y.grad is None
    assert str(record[0].message).startswith(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
        "attribute won't be populated during autograd.backward()."
    )


# ---- .grad assignment -----------------------------------------------------------------------------


def test_grad_can_be_assigned_and_cleared(lib):
    x = lib.ones(2, requires_grad=True)
    x.grad = lib.tensor([1.0, 2.0])
    (x * 1).sum().backward()
    assert x.grad.tolist() == [2.0, 3.0]
    x.grad = None
    assert x.grad is None
    plain = lib.ones(2)
    plain.grad = lib.ones(2)
    assert plain.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    "make,message",
    [
        (
            lambda lib: lib.ones(3),
            "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure "
            "that the gradient and the tensor are the same size",
        ),
        (
            lambda lib: lib.ones(2, dtype=lib.float64),
            "attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'.",
        ),
        (
            lambda lib: lib.ones(2, dtype=lib.int64),
            "attempting to assign a gradient with dtype 'long int' to a tensor with grad_dtype 'Float'.",
        ),
        (
            lambda lib: lib.ones(3, dtype=lib.float16),
            "attempting to assign a gradient with dtype 'c10::Half' to a tensor with grad_dtype 'Float'.",
        ),
    ],
)
def test_grad_assignment_checks_size_and_dtype(lib, make, message):
    x = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        x.grad = make(lib)


def test_grad_assignment_needs_a_tensor(lib):
    x = lib.ones(2, requires_grad=True)
    with pytest.raises(
        TypeError, match="assigned grad expected to be a Tensor or None but got grad of type list"
    ):
        x.grad = [1.0, 2.0]


# ---- detach, clone, .data, _version ------------------------------------------------------------


def test_detach_shares_memory_and_version_counter(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert (d.requires_grad, d.is_leaf, d.grad_fn, d._version) == (False, True, None, 0)
    assert d.data_ptr() == x.data_ptr()
    d.zero_()
    assert x.tolist() == [0.0, 0.0] and x._version == 1 and d._version == 1


def test_detach_in_place(lib):
    x = lib.ones(2, requires_grad=True)
    q = x * 1
    assert q.detach_() is q
    assert (q.is_leaf, q.requires_grad, q.grad_fn) == (True, False, None)


def test_detach_in_place_refuses_views(lib):
    y = lib.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError) as info:
        y.view(2).detach_()
    assert first_line(info).startswith("Can't detach views in-place. Use detach() instead.")


def test_clone_copies_and_keeps_history(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    assert c.grad_fn.name() == "CloneBackward0" and c.data_ptr() != x.data_ptr()
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_data_shares_memory_but_not_the_version_counter(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert (d.requires_grad, d.is_leaf, d._version) == (False, True, 0)
    d.mul_(2)
    assert x.tolist() == [2.0, 4.0]
    assert (x._version, d._version) == (0, 1)  # autograd cannot see writes through .data


def test_writes_through_data_go_unnoticed_by_autograd(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.data.zero_()
    y.sum().backward()  # no error: PyTorch's classic silent wrong gradient
    assert x.grad.tolist() == [0.0, 0.0]


def test_setting_data_replaces_the_values(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    old = x.data
    x.data = lib.zeros(3)
    assert (x.tolist(), x.requires_grad, old.tolist()) == ([0.0, 0.0, 0.0], True, [1.0, 2.0])


def test_versions_count_in_place_writes(lib):
    x = lib.zeros(2)
    assert x._version == 0
    x.add_(1)
    x[0] = 5.0
    x.zero_()
    assert x._version == 3
    assert (x + 1)._version == 0


# ---- when the graph is built ------------------------------------------------------------------


def test_no_graph_when_nothing_requires_grad(lib):
    a, b = lib.ones(2), lib.ones(2)
    assert (a * b).grad_fn is None and (a * b).exp().grad_fn is None


def test_no_graph_under_no_grad(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        y = (x * 2).exp()
    assert (y.grad_fn, y.requires_grad) == (None, False)


def test_each_iteration_builds_a_new_graph(lib):
    a = lib.tensor(2.0, requires_grad=True)
    nodes, grads = [], []
    for _ in range(3):
        loss = (a + 1) * (a + 1)
        nodes.append(loss.grad_fn)
        loss.backward()  # no error: the second backward runs on a fresh graph
        grads.append(a.grad.item())
    assert grads == [6.0, 12.0, 18.0]  # seed 004's loop: gradients accumulate
    assert len({id(n) for n in nodes}) == 3


def test_graph_is_freed_by_reference_counting():
    # dyngrad only: PyTorch's nodes take no weak references
    x = dyngrad.ones(3, requires_grad=True)
    y = (x * 2).exp().sum()
    node = weakref.ref(y.grad_fn)
    inner = weakref.ref(y.grad_fn.next_functions[0][0])
    gc.disable()
    try:
        del y
        assert node() is None and inner() is None  # no garbage-collector pass needed
    finally:
        gc.enable()


def test_graph_outlives_backward_while_its_output_lives(lib):
    x = lib.ones(2, requires_grad=True)
    y = (x * 3).sum()
    y.backward()
    assert y.grad_fn.name() == "SumBackward0"  # seed 000 says None; PyTorch keeps it


def test_saved_output_does_not_keep_its_tensor_alive(lib):
    x = lib.ones(2, requires_grad=True)
    y = x.exp()
    z = y.sum()
    ref = weakref.ref(y)
    gc.disable()
    try:
        del y
        assert ref() is None
    finally:
        gc.enable()
    z.backward()
    assert x.grad.tolist() == pytest.approx([2.7182818, 2.7182818])


def test_describe_prints_the_graph():
    x = dyngrad.ones(2, requires_grad=True)
    y = (x * 2).sum()
    from dyngrad.autograd.graph import describe

    assert describe(y) == (
        "SumBackward0\n  MulBackward0\n"
        "    torch::autograd::AccumulateGrad (leaf (2,) torch.float32)"
    )


def test_a_node_can_be_called_by_hand(lib):
    x = lib.ones(2, requires_grad=True)
    w = lib.tensor([2.0, 3.0], requires_grad=True)
    gx, gw = (x * w).grad_fn(lib.ones(2))
    assert (gx.tolist(), gw.tolist()) == ([2.0, 3.0], [1.0, 1.0])
    assert (x * 2).grad_fn(lib.ones(2))[1] is None
    single = x.exp().grad_fn(lib.ones(2))  # one input: the tensor, not a tuple
    assert single.tolist() == pytest.approx([2.7182818, 2.7182818])
