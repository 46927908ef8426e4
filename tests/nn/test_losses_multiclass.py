"""multi_margin_loss, multilabel_margin_loss, triplet_margin_with_distance_loss and their
modules (with NLLLoss2d) against torch: values, nodes, gradients, errors, reprs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

from ..ops.oracle import same, same_grads

R = np.random.default_rng(1)
X = R.standard_normal((4, 5))
X1 = R.standard_normal(5)
Y = np.array([0, 2, 4, 1])
W = R.random(5) + 0.5
# class lists ended by -1, a repeated class, every class a target, an empty list
YL = np.array([[0, 3, -1, 1, 1], [1, 1, 2, -1, 0], [4, 2, 1, 0, 3], [-1, 0, 0, 0, 0]])
A, B, N = R.standard_normal((3, 4, 6))
F = "t.nn.functional."
INPUTS = dict(x=X, x1=X1, y=Y, w=W, yl=YL, a=A, b=B, n=N)

EXPRS = [
    F + "multi_margin_loss(x, y)",
    F + "multi_margin_loss(x, y, p=2, margin=0.7)",
    F + "multi_margin_loss(x, y, weight=w.detach(), reduction='sum')",
    F + "multi_margin_loss(x, y, p=2, weight=w.detach(), reduction='none')",
    F + "multi_margin_loss(x1, y[2], reduction='none')",
    F + "multi_margin_loss(x1, y[2:3], reduction='none')",
    F + "multi_margin_loss(x1[0], y[0])",
    F + "multilabel_margin_loss(x, yl)",
    F + "multilabel_margin_loss(x, yl, reduction='none')",
    F + "multilabel_margin_loss(x, yl, reduction='sum')",
    F + "multilabel_margin_loss(x1, yl[1], reduction='none')",
    F + "triplet_margin_with_distance_loss(a, b, n)",
    F + "triplet_margin_with_distance_loss(a, b, n, swap=True, margin=0.5, reduction='none')",
    F + "triplet_margin_with_distance_loss(a, b, n, distance_function="
    "t.nn.CosineSimilarity(), reduction='sum')",
    "t.nn.MultiMarginLoss(p=2, weight=w.detach())(x, y)",
    "t.nn.MultiLabelMarginLoss(reduction='none')(x, yl)",
    "t.nn.TripletMarginWithDistanceLoss(swap=True)(a, b, n)",
    "t.nn.TripletMarginWithDistanceLoss(distance_function=t.nn.PairwiseDistance(p=1))(a, b, n)",
]


@pytest.mark.parametrize("expr", EXPRS)
def test_multiclass_losses_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, **INPUTS)
    same_grads(torch, expr, **INPUTS)


ERRORS = [
    F + "multi_margin_loss(x, y[:2])",
    F + "multi_margin_loss(x, y + 1)",
    F + "multi_margin_loss(x, y, p=3)",
    F + "multi_margin_loss(x, y, weight=w[:3])",
    F + "multi_margin_loss(x, y, weight=w.reshape(5, 1))",
    F + "multi_margin_loss(x.reshape(4, 5, 1), y)",
    F + "multi_margin_loss(x, y.double())",
    F + "multi_margin_loss(x, y, reduction='foo')",
    F + "multi_margin_loss(x.long(), y)",
    F + "multilabel_margin_loss(x, y)",
    F + "multilabel_margin_loss(x, yl + 1)",
    F + "multilabel_margin_loss(x, yl.double())",
    F + "triplet_margin_with_distance_loss(a, b, n[0])",
    F + "triplet_margin_with_distance_loss(a, b, n, reduction='avg')",
    "t.nn.MultiMarginLoss(p=3)",
    "t.nn.MultiMarginLoss(weight=t.ones(2, 2))",
    "t.nn.TripletMarginWithDistanceLoss(margin=0.0)",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_multiclass_loss_errors_match_torch(torch, expr):
    same(torch, expr, **INPUTS)


@pytest.mark.parametrize(
    "call",
    [
        "multi_margin_loss(x, y, p=2, weight=w)",
        "multilabel_margin_loss(x, yl, reduction='sum')",
    ],
)
def test_margin_loss_double_backward_refused_as_torch(torch, call):
    messages = []
    for lib in (dyngrad, torch):
        x = lib.tensor(X, requires_grad=True)
        env = {"x": x, "y": lib.tensor(Y), "w": lib.tensor(W), "yl": lib.tensor(YL)}
        loss = eval("lib.nn.functional." + call, {"lib": lib}, env)
        (g,) = lib.autograd.grad(loss * loss, x, create_graph=True)
        assert g.grad_fn.name().endswith("NotImplemented") or "NotImplemented" in str(g.grad_fn)
        with pytest.raises(RuntimeError) as info:
            g.sum().backward()
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1]


def test_margin_losses_pass_gradcheck():
    x = dyngrad.tensor(X, requires_grad=True)
    y, w, yl = dyngrad.tensor(Y), dyngrad.tensor(W), dyngrad.tensor(YL)
    f = dyngrad.nn.functional
    assert dyngrad.autograd.gradcheck(lambda x: f.multi_margin_loss(x, y, p=2, weight=w), (x,))
    assert dyngrad.autograd.gradcheck(lambda x: f.multi_margin_loss(x, y, reduction="none"), (x,))
    assert dyngrad.autograd.gradcheck(lambda x: f.multilabel_margin_loss(x, yl), (x,))
    a, b, n = (dyngrad.tensor(v, requires_grad=True) for v in (A, B, N))
    fn = f.triplet_margin_with_distance_loss
    assert dyngrad.autograd.gradcheck(lambda a, b, n: fn(a, b, n, swap=True), (a, b, n))
    assert dyngrad.autograd.gradgradcheck(lambda a, b, n: fn(a, b, n, swap=True), (a, b, n))


@pytest.mark.parametrize(
    "make",
    [
        "t.nn.MultiMarginLoss()",
        "t.nn.MultiMarginLoss(p=2, margin=0.5, reduction='sum')",
        "t.nn.MultiLabelMarginLoss()",
        "t.nn.TripletMarginWithDistanceLoss(margin=2.0)",
        "t.nn.CTCLoss(blank=3, zero_infinity=True)",
        "t.nn.RReLU()",
        "t.nn.RReLU(0.1, 0.3, inplace=True)",
        "t.nn.AlphaDropout()",
        "t.nn.FeatureAlphaDropout(0.2, inplace=True)",
    ],
)
def test_module_reprs_and_state_match_torch(torch, make):
    ours, theirs = eval(make, {"t": dyngrad}), eval(make, {"t": torch})
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert {k: v for k, v in vars(ours).items() if not k.startswith("_")} == {
        k: v for k, v in vars(theirs).items() if not k.startswith("_")
    }


def test_multi_margin_loss_weight_is_a_buffer(torch):
    for lib in (dyngrad, torch):
        m = lib.nn.MultiMarginLoss(weight=lib.ones(3))
        assert list(m.state_dict()) == ["weight"]


def test_nll_loss2d_warns_and_is_nll_loss(torch):
    x = R.standard_normal((2, 3, 4, 4))
    y = R.integers(0, 3, (2, 4, 4))
    results = []
    for lib in (dyngrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = lib.nn.NLLLoss2d(reduction="sum")
        assert isinstance(m, lib.nn.NLLLoss)
        assert repr(m) == "NLLLoss2d()"
        results.append((str(caught[0].message), caught[0].category))
        out = m(lib.tensor(x).log_softmax(1), lib.tensor(y))
        results.append(round(out.item(), 10))
    assert results[:2] == results[2:]
