"""The margin, embedding and likelihood losses against torch: values, nodes, gradients,
errors, and their modules."""

from __future__ import annotations

import numpy as np
import pytest

from ..ops.oracle import same, same_grads

R = np.random.default_rng(0)
A = R.standard_normal((4, 5))
B = R.standard_normal((4, 5))
N = R.standard_normal((4, 5))
Y = np.array([1.0, -1.0, 1.0, -1.0])
Y5 = np.where(R.random((4, 5)) > 0.5, 1.0, -1.0)
P = R.random((4, 5)) * 3
V = R.random((4, 5)) + 0.1
F = "t.nn.functional."

EXPRS = [
    F + "margin_ranking_loss(a[:, 0], b[:, 0], y)",
    F + "margin_ranking_loss(a, b, y5, margin=0.3)",
    F + "margin_ranking_loss(a, b, y5, reduction='none')",
    F + "margin_ranking_loss(a, b[0], y)",
    F + "hinge_embedding_loss(a, y5)",
    F + "hinge_embedding_loss(a, y5, margin=0.5, reduction='sum')",
    F + "soft_margin_loss(a, y5)",
    F + "soft_margin_loss(a, y5.detach(), reduction='none')",
    F + "soft_margin_loss(a, y5.detach(), reduction='sum')",
    F + "soft_margin_loss(a, y5.detach())",
    F + "cosine_embedding_loss(a, b, y)",
    F + "cosine_embedding_loss(a, b, y, margin=0.2, reduction='none')",
    F + "cosine_embedding_loss(a[0], b[0], y[:1])",
    F + "triplet_margin_loss(a, b, n)",
    F + "triplet_margin_loss(a, b, n, swap=True, p=1)",
    F + "triplet_margin_loss(a, b, n[0])",
    F + "multilabel_soft_margin_loss(a, (y5 > 0).double())",
    F + "multilabel_soft_margin_loss(a, (y5 > 0).double(), weight=p[0], reduction='none')",
    F + "poisson_nll_loss(a, p)",
    F + "poisson_nll_loss(v, p, log_input=False)",
    F + "poisson_nll_loss(a, p, full=True, reduction='sum')",
    F + "gaussian_nll_loss(a, b, v)",
    F + "gaussian_nll_loss(a, b, v[:, 0])",
    F + "gaussian_nll_loss(a, b, v[:, :1], full=True, reduction='sum')",
    F + "gaussian_nll_loss(a, b, v[:, :2])",
    F + "gaussian_nll_loss(a, b, -v)",
    "t.nn.MarginRankingLoss(margin=0.5)(a, b, y5)",
    "t.nn.HingeEmbeddingLoss()(a, y5)",
    "t.nn.SoftMarginLoss()(a, y5.detach())",
    "t.nn.CosineEmbeddingLoss(0.1)(a, b, y)",
    "t.nn.PoissonNLLLoss()(a, p)",
    "t.nn.GaussianNLLLoss()(a, b, v)",
    "t.nn.TripletMarginLoss(margin=2.0)(a, b, n)",
    "t.nn.MultiLabelSoftMarginLoss()(a, (y5 > 0).double())",
    "t.nn.TripletMarginLoss(margin=0.0)",
]


@pytest.mark.parametrize("expr", EXPRS)
def test_margin_losses_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, a=A, b=B, n=N, y=Y, y5=Y5, p=P, v=V)


ERRORS = ("-v", "v[:, :2]", "b[0], y)", "n[0])", "a[0], b[0], y[:1]", "(a, y5)")


@pytest.mark.parametrize("expr", [e for e in EXPRS[:26] if not any(m in e for m in ERRORS)])
def test_margin_loss_gradients_match_torch(torch, expr):
    same_grads(torch, expr, a=A, b=B, n=N, y=Y, y5=Y5, p=P, v=V)
