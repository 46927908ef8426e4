"""In-place ops: version counters, views sharing them, saved-tensor checks, CopySlices.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import re

import pytest

import dyngrad

from .conftest import first_line

MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation: "
HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its "
    "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def chain(fn, depth: int = 3):
    """A node and its inputs' nodes as nested (name, [children]) down to `depth`."""
    if fn is None or depth == 0:
        return None
    return (fn.name(), [chain(n, depth - 1) for n, _ in fn.next_functions])


# ---- version counters ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "write",
    [
        lambda lib, t: t.add_(1),
        lambda lib, t: t.sub_(1),
        lambda lib, t: t.mul_(2),
        lambda lib, t: t.div_(2),
        lambda lib, t: t.pow_(2),
        lambda lib, t: t.zero_(),
        lambda lib, t: t.fill_(3),
        lambda lib, t: t.copy_(lib.ones(2, 3)),
        lambda lib, t: t.clamp_(0, 1),
        lambda lib, t: t.neg_(),
        lambda lib, t: t.exp_(),
        lambda lib, t: t.relu_(),
        lambda lib, t: t.sigmoid_(),
        lambda lib, t: t.__setitem__(0, 5.0),
        lambda lib, t: t.__iadd__(1),
        lambda lib, t: t.__imul__(2),
        lambda lib, t: t.__isub__(1),
        lambda lib, t: t.__itruediv__(2),
        lambda lib, t: t.add_(lib.ones(3), alpha=2),
        lambda lib, t: t.masked_fill_(lib.ones(2, 3, dtype=lib.bool), 0.0),
    ],
)
def test_every_in_place_op_bumps_the_version_once(lib, write):
    t = lib.ones(2, 3)
    write(lib, t)
    assert t._version == 1


@pytest.mark.parametrize(
    "make_view",
    [
        lambda t: t.view(6),
        lambda t: t.reshape(3, 2),
        lambda t: t.transpose(0, 1),
        lambda t: t.t(),
        lambda t: t.permute(1, 0),
        lambda t: t[0],
        lambda t: t[:, 1:],
        lambda t: t[0, 1],
        lambda t: t.unsqueeze(0).squeeze(0),
        lambda t: t.detach(),
        lambda t: t.flatten(),
        lambda t: t[None],
        lambda t: t[...],
    ],
)
def test_views_share_storage_and_version_counter(lib, make_view):
    t = lib.zeros(2, 3)
    v = make_view(t)
    t.add_(1)
    assert v._version == 1 and v.reshape(-1).tolist()[0] == 1.0
    v.mul_(3)
    assert t._version == 2 and v._version == 2
    assert 3.0 in t.reshape(-1).tolist()  # written through the view


def test_expanded_views_share_the_counter_but_refuse_writes(lib):
    t = lib.zeros(1, 3)
    e = t.expand(4, 3)
    t.add_(1)
    assert e._version == 1 and e.tolist() == [[1.0, 1.0, 1.0]] * 4
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        ),
    ):
        e.add_(1)


@pytest.mark.parametrize(
    "make_copy",
    [
        lambda t: t.t().reshape(6),
        lambda t: t.t().contiguous(),
        lambda t: t.clone(),
        lambda t: t[[0, 1]],
        lambda t: t + 0,
    ],
)
def test_copies_have_their_own_counter(lib, make_copy):
    t = lib.zeros(2, 3)
    c = make_copy(t)
    t.add_(1)
    assert c._version == 0 and c.reshape(-1).tolist() == [0.0] * 6


def test_views_report_their_base(lib):
    t = lib.zeros(2, 3)
    assert t.view(6)._base is t and t[0]._base is t and t.t()[0]._base is t
    assert t._base is None and t.clone()._base is None


# ---- saved tensors modified in place ---------------------------------------------------------


def test_modified_saved_output_raises_pytorchs_message(lib):
    x = lib.ones(3, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert first_line(info) == (
        MODIFIED + "[torch.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; "
        "expected version 0 instead. " + HINT
    )


def test_modified_saved_input_names_its_current_history(lib):
    x = lib.ones(3, requires_grad=True)
    y = x.sigmoid()
    y2 = y * y
    y.add_(1)
    with pytest.raises(RuntimeError) as info:
        y2.sum().backward()
    assert first_line(info) == (
        MODIFIED + "[torch.FloatTensor [3]], which is output 0 of Add, is at version 1; "
        "expected version 0 instead. " + HINT
    )


def test_modified_saved_leaf_data_shows_its_dtype_and_shape(lib):
    w = lib.ones(2, 2, dtype=lib.float64, requires_grad=True)
    x = lib.ones(2, 2, dtype=lib.float64)
    y = w * x
    x.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert first_line(info) == (
        MODIFIED
        + "[torch.DoubleTensor [2, 2]] is at version 1; expected version 0 instead. "
        + HINT
    )


def test_unsaved_inputs_may_be_modified(lib):
    x = lib.ones(3, requires_grad=True)
    a = lib.ones(3)
    y = x + a  # add saves nothing
    a.add_(1)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_modification_error_names_the_in_place_op_and_line():
    x = dyngrad.ones(3, requires_grad=True)
    y = x.sigmoid()
    line = _next_line()
    y.mul_(2)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    detail = str(info.value).split("\n")[1]
    assert detail.startswith("[dyngrad] SigmoidBackward0 saved this tensor")
    assert f"It was last modified by mul_ at {__file__}:{line}." in detail


def _next_line() -> int:
    import sys

    return sys._getframe(1).f_lineno + 1


def test_in_place_op_using_self_twice_raises(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.mul_(y)  # mul_ saves `other` (y itself) before the write
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert "which is output 0 of Mul, is at version 1; expected version 0" in first_line(info)


# ---- in-place on leaves ----------------------------------------------------------------------------


def test_in_place_on_a_leaf_that_requires_grad_raises(lib):
    x = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        x.add_(1)
    assert (
        first_line(info)
        == "a leaf Variable that requires grad is being used in an in-place operation."
    )


@pytest.mark.parametrize(
    "write", [lambda x: x[0].add_(1), lambda x: x.view(3).mul_(2), lambda x: x.__setitem__(0, 5.0)]
)
def test_in_place_on_a_view_of_such_a_leaf_raises(lib, write):
    x = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        write(x)
    assert first_line(info) == (
        "a view of a leaf Variable that requires grad is being used in an in-place operation."
    )


def test_in_place_on_a_leaf_under_no_grad_is_allowed(lib):
    x = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        x.add_(1)
        x[0] = 7.0
    assert (x.tolist(), x._version, x.is_leaf, x.requires_grad) == ([7.0, 2.0, 2.0], 2, True, True)


# ---- in-place ops record history --------------------------------------------------------------------


def test_in_place_op_becomes_the_tensors_history(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    y.mul_(w)
    assert chain(y.grad_fn, 2) == (
        "MulBackward0",
        [("MulBackward0", [None, None]), ("torch::autograd::AccumulateGrad", [])],
    )
    y.sum().backward()
    assert (x.grad.tolist(), w.grad.tolist()) == ([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])


def test_in_place_formula_uses_the_value_before_the_write(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    y = x * 1
    y.mul_(w)  # d(y*w)/dw needs y before the write
    y.mul_(2)
    y.sum().backward()
    assert (x.grad.tolist(), w.grad.tolist()) == ([6.0, 8.0], [2.0, 4.0])


def test_in_place_op_with_a_grad_input_on_a_plain_tensor(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.zeros(2)
    b.add_(x * 3)
    assert (b.requires_grad, b.is_leaf, b.grad_fn.name()) == (True, False, "AddBackward0")
    b.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.parametrize(
    "op,name,grad",
    [
        (lambda y: y.exp_(), "ExpBackward0", [2.7182817459106445, 7.389056205749512]),
        (lambda y: y.sigmoid_(), "SigmoidBackward0", [0.1966119408607483, 0.10499356687068939]),
        (lambda y: y.relu_(), "ReluBackward0", [1.0, 1.0]),
        (lambda y: y.pow_(2), "PowBackward0", [2.0, 4.0]),
        (lambda y: y.clamp_(0, 1.5), "ClampBackward1", [1.0, 0.0]),
        (lambda y: y.neg_(), "NegBackward0", [-1.0, -1.0]),
    ],
)
def test_in_place_unary_ops(lib, op, name, grad):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    op(y)
    assert y.grad_fn.name() == name
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx(grad)


# ---- in-place through views: CopySlices ---------------------------------------------------------


def test_in_place_through_a_view_rewrites_the_base(lib):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    v = y[1:3]
    v.mul_(x[1:3])
    assert chain(y.grad_fn) == (
        "torch::autograd::CopySlices",
        [
            ("MulBackward0", [("torch::autograd::AccumulateGrad", []), None]),
            ("SliceBackward0", [("torch::autograd::AccumulateGrad", [])]),
        ],
    )
    assert chain(v.grad_fn, 2) == (
        "AsStridedBackward0",
        [("torch::autograd::CopySlices", [None, None])],
    )
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 4.0, 6.0, 1.0]


def test_stale_views_are_rebuilt_over_the_new_base(lib):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 2
    v, w = y[:2], y[2:]
    y.add_(1)  # v and w were made before the write
    assert chain(v.grad_fn, 2) == ("AsStridedBackward0", [("AddBackward0", [None, None])])
    (v * w).sum().backward()
    assert x.grad.tolist() == [14.0, 18.0, 6.0, 10.0]


def test_setitem_under_grad(lib):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x.clone()
    y[1] = x[0] * 5
    assert y.tolist() == [1.0, 5.0, 3.0, 4.0]
    assert chain(y.grad_fn) == (
        "torch::autograd::CopySlices",
        [
            ("CloneBackward0", [("torch::autograd::AccumulateGrad", [])]),
            ("MulBackward0", [("SelectBackward0", [None]), None]),
        ],
    )
    (y * y).sum().backward()
    assert x.grad.tolist() == [52.0, 0.0, 6.0, 8.0]


def test_setitem_with_a_tensor_index_under_grad(lib):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x.clone()
    y[lib.tensor([0, 2])] = 7.0
    assert chain(y.grad_fn, 2) == ("IndexPutBackward0", [("CloneBackward0", [None]), None])
    (y * y).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 0.0, 8.0]


def test_writing_a_grad_tensor_into_a_plain_buffer(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.zeros(3)
    b[:2] = x
    assert (b.requires_grad, chain(b.grad_fn, 2)) == (
        True,
        ("torch::autograd::CopySlices", [None, ("torch::autograd::AccumulateGrad", [])]),
    )
    (b * b).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]
    c = lib.zeros(3)
    c[1:].copy_(x)
    (c * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [4.0, 7.0]


def test_in_place_through_a_transposed_view(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    y.t()[0].mul_(3)
    assert chain(y.grad_fn, 2) == (
        "torch::autograd::CopySlices",
        [("MulBackward0", [None, None]), None],
    )
    y.sum().backward()
    assert x.grad.tolist() == [[3.0, 1.0], [3.0, 1.0]]


def test_in_place_through_a_view_still_checks_saved_tensors(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.exp()
    y[0].add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert first_line(info) == (
        MODIFIED + "[torch.FloatTensor [2, 2]], which is output 0 of Exp, is at version 1; "
        "expected version 0 instead. " + HINT
    )


def test_detached_alias_write_is_seen_by_the_saved_check(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = y * y
    y.detach().zero_()
    with pytest.raises(RuntimeError, match=re.escape("is at version 1; expected version 0")):
        z.sum().backward()


# ---- retain_grad follows the tensor's history --------------------------------------------------


def test_retain_grad_moves_to_the_node_of_an_in_place_op(lib):
    a = lib.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.mul_(2)
    a.sum().backward()
    assert a.grad.tolist() == [1.0]  # the gradient of the latest version of `a`


def test_retain_grad_of_a_base_moves_to_copy_slices(lib):
    x = lib.tensor([1.0], requires_grad=True).clone()
    x.retain_grad()
    x_view = x[:]
    x_view *= 2
    x *= 2
    x.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_retain_grad_of_views_follows_their_rebuilt_history(lib):
    base = lib.tensor([1.0], requires_grad=True).clone()
    view, view2 = base[:], base[:]
    view.retain_grad()
    view2.retain_grad()
    view.mul_(2)
    (view + view2).sum().backward()
    assert view.grad.tolist() == [1.0] and view2.grad.tolist() == [1.0]


def test_retain_grad_moves_per_output_of_a_multi_output_node(lib):
    b = lib.rand(3, 3, requires_grad=True)
    var, mean = lib.var_mean(b, dim=0)
    var.retain_grad()
    mean.retain_grad()
    var.mul_(2)
    (var + mean).sum().backward()
    a = b.detach().requires_grad_(True)
    var2, mean2 = lib.var_mean(a, dim=0)
    var2.mul_(2)
    expected = lib.autograd.grad((var2 + mean2).sum(), inputs=(var2, mean2))
    assert lib.allclose(var.grad, expected[0]) and lib.allclose(mean.grad, expected[1])


def test_writing_one_element_of_an_expanded_tensor(lib):
    g = lib.ones(1).clone().expand(4)
    g[0] = 0  # the element itself has no overlap: every position sees it
    assert g.tolist() == [0.0, 0.0, 0.0, 0.0]
    g[0] += 2
    assert g.tolist() == [2.0, 2.0, 2.0, 2.0]
    for write in (lambda: g.__setitem__(slice(1, 3), 0), lambda: g.add_(1)):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            write()


@pytest.mark.parametrize(
    ("shape", "key", "value"),
    [((), (), 3.0), ((), ..., 2), ((1,), 0, 3.5), ((2, 2), (0, 1), 5), ((), None, 4.0)],
)
def test_setitem_of_a_python_scalar_into_one_element(lib, shape, key, value):
    x = lib.zeros(shape)
    x[key] = value
    assert x.flatten().tolist().count(float(value)) == 1 and x.sum().item() == value


def test_double_backward_through_an_in_place_op_on_a_view(lib):
    # the output saved by relu_ on a view unpacks with the view's history (through the
    # base's CopySlices), so a second backward runs the relu node once, inside CopySlices
    x = lib.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    y = (x * 2).view(4)
    out = lib.relu_(y[1:])
    (g,) = lib.autograd.grad(out.pow(2).sum(), x, create_graph=True)
    assert g.tolist() == [[0.0, 0.0], [24.0, 4.0]]
    (gg,) = lib.autograd.grad(g.sum(), x)
    assert gg.tolist() == [[0.0, 0.0], [8.0, 8.0]]
    z = lib.tensor([[[[1.0, 1.0]]]], requires_grad=True)
    norm = lib.nn.functional.instance_norm(z)
    (g,) = lib.autograd.grad(
        lib.nn.functional.relu(norm, inplace=True).pow(2),
        z,
        lib.ones(1, 1, 1, 2),
        create_graph=True,
    )
    assert lib.autograd.grad(g.sum(), z)[0].tolist() == [[[[0.0, 0.0]]]]
