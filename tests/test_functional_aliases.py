"""torch.conv2d, torch.layer_norm, torch.kl_div, ...: the top-level names of nn.functional's
functions, with ATen's signatures, against torch."""

from __future__ import annotations

import numpy as np
import pytest

from .ops.oracle import exprs, same, same_grads

RNG = np.random.default_rng(0)
ENV = {
    "x": RNG.standard_normal((2, 3, 5)),
    "img": RNG.standard_normal((2, 4, 5, 5)),
    "vol": RNG.standard_normal((1, 2, 4, 4, 4)),
    "w1": RNG.standard_normal((4, 3, 2)),
    "w2": RNG.standard_normal((3, 4, 3, 3)),
    "w3": RNG.standard_normal((2, 2, 2, 2, 2)),
    "wt1": RNG.standard_normal((3, 2, 2)),
    "wt2": RNG.standard_normal((4, 2, 3, 3)),
    "b4": RNG.standard_normal(4),
    "v": RNG.standard_normal(4),
    "m": RNG.standard_normal((3, 4)),
    "m2": RNG.standard_normal((3, 4)),
    "m3": RNG.standard_normal((3, 4)),
    "p": RNG.random((3, 4)),
    "y": np.array([1.0, -1.0, 1.0]),
    "emb": RNG.standard_normal((6, 3)),
    "wb": RNG.standard_normal((2, 4, 4)),
    "bb": RNG.standard_normal(2),
    "ps": RNG.standard_normal((1, 8, 2, 2)),
}

GRADS = """t.conv1d(x, w1) | t.conv1d(x, w1, b4, 2, 1) | t.conv2d(img, w2, padding=1)
t.conv3d(vol, w3) | t.conv_transpose1d(x, wt1) | t.conv_transpose2d(img, wt2, stride=2)
t.layer_norm(x, (5,)) | t.layer_norm(x, [3, 5], None, None, 1e-3, False) | t.group_norm(img, 2)
t.batch_norm(img, b4, b4, None, None, True, 0.1, 1e-5, False)
t.instance_norm(img, b4, b4, None, None, True, 0.1, 1e-5, False)
t.embedding(emb, t.tensor([0, 2, 5])) | t.embedding(emb, t.tensor([[1, 2], [2, 0]]), 2)
t.max_pool1d(x, 2) | t.max_pool1d(x, 2, 1, 1) | t.max_pool2d(img, 3, (), 1) | t.avg_pool1d(x, 2)
t.adaptive_avg_pool1d(x, 2) | t.adaptive_max_pool1d(x, 2) | t.cosine_similarity(m, m2)
t.pairwise_distance(m, m2) | t.pixel_shuffle(ps, 2) | t.pixel_unshuffle(img[..., :4, :4], 2)
t.bilinear(m, m2, wb, bb) | t.kl_div(m, p) | t.kl_div(m, p, 0) | t.kl_div(m, p, 2, log_target=True)
t.binary_cross_entropy_with_logits(m, p) | t.binary_cross_entropy_with_logits(m, p, None, None, 2)
t.hinge_embedding_loss(m, p.round() * 2 - 1) | t.margin_ranking_loss(m[:, 0], m2[:, 0], y)
t.cosine_embedding_loss(m, m2, y, 0.1) | t.triplet_margin_loss(m, m2, m3)
t.triplet_margin_loss(m, m2, m3, 0.5, 1, 1e-6, True, 0) | t.poisson_nll_loss(m, p, True, False, 1e-8, 1)
t.poisson_nll_loss(p + 1, p, False, True, 1e-8, 2) | t.dropout(m, 0.3, False)
t.dist(m, m2) | t.dist(m, v, 3) | t.dist(m, m2, 1) | t.dist(m, m2, float('inf'))
t.pairwise_distance(m, m2, 3, 1e-6, True) | t.hardshrink(m) | m.hardshrink(0.1) | t.prelu(x, v[:3])
t.prelu(img, b4) | m.prelu(v[:1]) | t.channel_shuffle(img, 2) | t.nn.functional.channel_shuffle(x[:, :2], 2)
t.pdist(m) | t.pdist(m, 1) | t.pdist(m, 3) | t.pdist(m, float("inf")) | t.nn.functional.pdist(m, 0.5)
t.rrelu(m) | t.nn.functional.rrelu(m, 0.1, 0.3) | t.rms_norm(x, (5,)) | t.rms_norm(x, [3, 5], None, 1e-3) | t.alpha_dropout(m, 0.5, False) | t.nn.functional.softshrink(m, 0.2) | t.nn.functional.prelu(x, v[:1])"""

CHECKS = """t.detach(m) | t.dist(m, m2, 0) | t.kl_div(m, p, 1) | t.kl_div(m, p, 3) | t.typename(m) | t.typename(1) | t.detach(m).requires_grad
t.dropout(m, 1.0, True) | t.dropout(m, 0.0, True) | t.hardshrink(t.tensor([1, 2]))
t.channel_shuffle(img, 3) | t.channel_shuffle(m, 2) | t.pdist(x) | t.pdist(m, -1) | t.pdist(m[:1])"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_alias_matches_torch_values_gradients_and_nodes(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_alias_arguments_and_errors_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_torch_dropout_trains_like_F_dropout(lib):
    x = lib.ones(1000, requires_grad=True)
    y = lib.dropout(x, 0.5, True)
    assert y.grad_fn.name() == "MulBackward0"
    kept = (y != 0).sum().item()
    assert 350 < kept < 650 and set(y.unique().tolist()) <= {0.0, 2.0}


@pytest.mark.parametrize(
    "expr",
    [
        "t.alpha_dropout(x, 0.3, True)",
        "t.feature_alpha_dropout(img, 0.5, True)",
        "t.nn.functional.alpha_dropout(m, 0.2, True)",
        "t.rrelu(m, training=True)",
        "t.alpha_dropout(m, 1.0, True)",
    ],
)
def test_random_activations_draw_as_torch(torch, expr):
    import dyngrad

    dyngrad.manual_seed(7)
    torch.manual_seed(7)
    same(torch, expr, requires_grad=True, **ENV)
