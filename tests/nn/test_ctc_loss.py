"""nn.CTCLoss and F.ctc_loss against torch: values, nodes and gradients (PyTorch's, see Note
[CTC's gradient is through a log_softmax]) for padded and concatenated targets, unbatched
input, blanks, repeats, impossible alignments and zero_infinity; errors; double backward."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from ..ops.oracle import same, same_grads

R = np.random.default_rng(8)
T, N, C = 7, 3, 5
LP = R.standard_normal((T, N, C))
TG = np.array([[1, 2, 2, 4], [3, 1, 0, 0], [4, 4, 4, 1]])  # repeats need a blank between
IL = np.array([7, 5, 6])
TL = np.array([4, 2, 3])
TG_FLAT = np.array([1, 2, 2, 4, 3, 1, 4, 4, 4])
INPUTS = dict(x=LP, tg=TG, il=IL, tl=TL, flat=TG_FLAT)
F = "t.nn.functional.ctc_loss"
L = "x.log_softmax(2)"

EXPRS = [
    F + f"({L}, tg, il, tl)",
    F + f"({L}, tg, il, tl, reduction='sum')",
    F + f"({L}, tg, il, tl, reduction='none')",
    F + f"({L}, flat, il, tl, reduction='none')",
    F + f"({L}, tg, [7, 5, 6], [4, 2, 3])",
    F + f"({L}, tg.int(), il.int(), tl)",
    F + f"({L}, tg, il, t.tensor([0, 2, 3]), reduction='none')",
    F + f"({L}, tg, t.tensor([0, 5, 6]), t.tensor([0, 2, 3]), reduction='none')",
    F + f"({L}, (tg + 1) % 5, il, tl, blank=0, reduction='none')",
    F + "(x.log_softmax(2), tg % 4, il, tl, blank=4, reduction='none')",
    F + f"({L}, tg, t.tensor([3, 5, 6]), tl, reduction='none')",  # an impossible alignment
    F + f"({L}, tg, t.tensor([3, 5, 6]), tl, zero_infinity=True, reduction='none')",
    F + f"({L}, tg, t.tensor([3, 5, 6]), tl, zero_infinity=True)",
    F + "(x[:, 0].log_softmax(1), tg[0], il[0], tl[0], reduction='none')",
    F + "(x[:, 0].log_softmax(1), tg[0], il[:1], tl[:1])",
    F + "(x, tg, il, tl, reduction='none')",  # log_probs that are not log-probabilities
    F + f"({L}.float(), tg, il, tl)",
    "t.nn.CTCLoss(blank=3, reduction='sum')(x.log_softmax(2), tg % 3, il, tl)",
    "t.nn.CTCLoss(zero_infinity=True)(x.log_softmax(2), tg, t.tensor([3, 5, 6]), tl)",
]


@pytest.mark.parametrize("expr", EXPRS)
def test_ctc_loss_matches_torch(torch, expr):
    same(torch, expr, requires_grad=True, **INPUTS)
    # (an impossible alignment's gradients are nan, on both; float32 sums round otherwise)
    if ".float()" not in expr:
        same_grads(torch, expr, **INPUTS)


def test_ctc_gradient_with_respect_to_log_probs_is_torchs(torch):
    # not the derivative of the loss in log_probs: PyTorch's logits gradient (see the Note)
    grads = []
    for lib in (dyngrad, torch):
        lp = lib.tensor(LP, requires_grad=True).log_softmax(2).detach().requires_grad_()
        loss = lib.nn.functional.ctc_loss(lp, lib.tensor(TG), lib.tensor(IL), lib.tensor(TL))
        loss.backward()
        grads.append(lp.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(grads[0].sum(2), 0.0, atol=1e-12)


def test_ctc_loss_passes_gradcheck_through_log_softmax():
    x = dyngrad.tensor(LP, requires_grad=True)
    f = dyngrad.nn.functional.ctc_loss
    tg, flat, il, tl = (dyngrad.tensor(v) for v in (TG, TG_FLAT, IL, TL))
    assert dyngrad.autograd.gradcheck(lambda x: f(x.log_softmax(2), tg, il, tl), (x,))
    assert dyngrad.autograd.gradcheck(
        lambda x: f(x.log_softmax(2), flat, il, tl, reduction="none"), (x,)
    )


def test_ctc_loss_double_backward_refused_as_torch(torch):
    messages = []
    for lib in (dyngrad, torch):
        lp = lib.tensor(LP).log_softmax(2).requires_grad_()
        loss = lib.nn.functional.ctc_loss(lp, lib.tensor(TG), lib.tensor(IL), lib.tensor(TL))
        (g,) = lib.autograd.grad(loss, lp, create_graph=True)
        with pytest.raises(RuntimeError) as info:
            g.sum().backward()
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1]


ERRORS = [
    F + f"({L}, tg, il.double(), tl)",
    F + f"({L}, tg, il, tl.double())",
    F + f"({L}, tg, il, tl, blank=5)",
    F + f"({L}, tg, il[:2], tl)",
    F + f"({L}, tg, il, tl[:2])",
    F + f"({L}, tg, il + 1, tl)",
    F + f"({L}, tg, il - 8, tl)",
    F + f"({L}, tg, il, tl + 1)",
    F + f"({L}, tg, il, tl - 5)",
    F + f"({L}, tg[:2], il, tl)",
    F + f"({L}, flat[:8], il, tl)",
    F + f"({L}, tg.reshape(3, 4, 1), il, tl)",
    F + f"({L}, tg, il, tl, reduction='foo')",
    F + f"({L}[0], tg, il, tl)",
    F + f"({L}.reshape(7, 3, 5, 1), tg, il, tl)",
    F + f"({L}.long(), tg, il, tl)",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_ctc_loss_errors_match_torch(torch, expr):
    same(torch, expr, **INPUTS)
