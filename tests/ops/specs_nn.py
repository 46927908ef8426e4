"""Specs for the nn op family: linear, convolution, pooling, normalization, losses, embedding.

Each backward op (convolution_input, max_pool2d_backward, ...) is exercised by the
gradgradcheck of the op whose formula uses it, hence the `covers`.
"""

from __future__ import annotations

from .spec import OpSpec, T

PROB = (0.1, 0.9)


def _f(t):
    return t.nn.functional


SPECS: list[OpSpec] = [
    OpSpec(
        "adaptive_max_pool2d",
        lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (2, 3)),
        [(T((1, 2, 5, 7)),), (T((2, 4, 4), nc=True),)],
    ),
    OpSpec("cummax", lambda t, x: t.cummax(x, 1)[0], [(T((3, 4)),), (T((2, 3), nc=True),)]),
    OpSpec("cummin", lambda t, x: t.cummin(x, 0).values, [(T((3, 4)),), (T((4,)),)]),
    OpSpec("nansum", lambda t, x: t.nansum(x), [(T((3, 4)),), (T((2, 3), nc=True),)]),
    OpSpec(
        "nansum_dim", lambda t, x: t.nansum(x, 1, keepdim=True), [(T((3, 4)),)], covers=("nansum",)
    ),
    OpSpec(
        "rot90", lambda t, x: t.rot90(x, 1, (0, 2)), [(T((2, 3, 4)),), (T((2, 3, 4), nc=True),)]
    ),
    OpSpec("rot90_k", lambda t, x: t.rot90(x, -3), [(T((2, 3)),)], covers=("rot90",)),
    OpSpec(
        "im2col",
        lambda t, x: t.nn.functional.unfold(x, (2, 3), padding=1, stride=(1, 2)),
        [(T((1, 2, 4, 5)),), (T((2, 1, 3, 3), nc=True),)],
    ),
    OpSpec(
        "col2im",
        lambda t, x: t.nn.functional.fold(x, (4, 5), 2, dilation=(1, 2), padding=(1, 0)),
        [(T((2, 8, 15)),)],
    ),
    OpSpec(
        "soft_margin_loss",
        lambda t, x, y: t.nn.functional.soft_margin_loss(x, y.sign()),
        [(T((3, 4)), T((3, 4), grad=False))],
    ),
    OpSpec(
        "soft_margin_loss_none",
        lambda t, x, y: t.nn.functional.soft_margin_loss(x, y.sign(), reduction="none"),
        [(T((3, 4)), T((3, 4), grad=False))],
        covers=("soft_margin_loss",),
    ),
    OpSpec(
        "pixel_shuffle",
        lambda t, x: t.nn.functional.pixel_shuffle(x, 2),
        [(T((1, 8, 2, 3)),), (T((2, 1, 4, 2, 2)),)],
    ),
    OpSpec(
        "pixel_unshuffle",
        lambda t, x: t.nn.functional.pixel_unshuffle(x, 2),
        [(T((1, 2, 4, 6)),), (T((3, 4, 2)),)],
    ),
    # upsampling: each mode's row and its adjoint (the backward row) through double backward
    OpSpec(
        "upsample_nearest2d",
        lambda t, x: t.nn.functional.interpolate(x, scale_factor=2),
        [(T((1, 2, 3, 4)),), (T((2, 1, 3, 3), nc=True),)],
        covers=("upsample_nearest2d_backward",),
    ),
    OpSpec(
        "upsample_nearest1d",
        lambda t, x: t.nn.functional.interpolate(x, size=7),
        [(T((2, 3, 4)),)],
        covers=("upsample_nearest1d_backward",),
    ),
    OpSpec(
        "upsample_nearest_exact2d",
        lambda t, x: t.nn.functional.interpolate(x, size=(5, 3), mode="nearest-exact"),
        [(T((1, 2, 3, 4)),)],
        covers=("upsample_nearest_exact2d_backward",),
    ),
    OpSpec(
        "upsample_nearest_exact1d",
        lambda t, x: t.nn.functional.interpolate(x, scale_factor=1.5, mode="nearest-exact"),
        [(T((1, 2, 4)),)],
        covers=("upsample_nearest_exact1d_backward",),
    ),
    OpSpec(
        "upsample_bilinear2d",
        lambda t, x: t.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"),
        [(T((1, 2, 3, 4)),), (T((2, 1, 3, 3), nc=True),)],
        covers=("upsample_bilinear2d_backward",),
    ),
    OpSpec(
        "upsample_bilinear2d_corners",
        lambda t, x: t.nn.functional.interpolate(
            x, size=(4, 7), mode="bilinear", align_corners=True
        ),
        [(T((1, 2, 3, 4)),)],
        covers=("upsample_bilinear2d",),
    ),
    OpSpec(
        "upsample_linear1d",
        lambda t, x: t.nn.functional.interpolate(x, scale_factor=2.5, mode="linear"),
        [(T((2, 3, 4)),)],
        covers=("upsample_linear1d_backward",),
    ),
    OpSpec(
        "upsample_nearest3d",
        lambda t, x: t.nn.functional.interpolate(x, scale_factor=(1.5, 0.7, 2)),
        [(T((1, 2, 2, 3, 4)),), (T((2, 1, 3, 2, 2), nc=True),)],
        covers=("upsample_nearest3d_backward",),
    ),
    OpSpec(
        "upsample_nearest_exact3d",
        lambda t, x: t.nn.functional.interpolate(x, size=(3, 5, 2), mode="nearest-exact"),
        [(T((1, 2, 2, 3, 4)),)],
        covers=("upsample_nearest_exact3d_backward",),
    ),
    OpSpec(
        "upsample_trilinear3d",
        lambda t, x: t.nn.functional.interpolate(x, scale_factor=1.6, mode="trilinear"),
        [(T((1, 2, 2, 3, 4)),), (T((2, 1, 3, 2, 2), nc=True),)],
        covers=("upsample_trilinear3d_backward",),
    ),
    OpSpec(
        "upsample_trilinear3d_corners",
        lambda t, x: t.nn.functional.interpolate(
            x, size=(3, 2, 5), mode="trilinear", align_corners=True
        ),
        [(T((1, 2, 2, 3, 4)),)],
        covers=("upsample_trilinear3d",),
    ),
    OpSpec(
        "upsample_bicubic2d",
        lambda t, x: t.nn.functional.interpolate(x, scale_factor=1.7, mode="bicubic"),
        [(T((1, 2, 3, 4)),), (T((2, 1, 3, 3), nc=True),)],
        covers=("upsample_bicubic2d_backward",),
    ),
    OpSpec(
        "upsample_bicubic2d_corners",
        lambda t, x: t.nn.functional.interpolate(
            x, size=(2, 7), mode="bicubic", align_corners=True
        ),
        [(T((1, 2, 5, 4)),)],
        covers=("upsample_bicubic2d",),
    ),
    OpSpec(
        "upsample_bilinear2d_aa",
        lambda t, x: t.nn.functional.interpolate(
            x, scale_factor=(0.5, 1.4), mode="bilinear", antialias=True
        ),
        [(T((1, 2, 6, 5)),), (T((2, 1, 4, 4), nc=True),)],
        covers=("upsample_bilinear2d_aa_backward",),
    ),
    OpSpec(
        "upsample_bicubic2d_aa",
        lambda t, x: t.nn.functional.interpolate(
            x, size=(3, 7), mode="bicubic", align_corners=True, antialias=True
        ),
        [(T((1, 2, 6, 5)),)],
        covers=("upsample_bicubic2d_aa_backward",),
    ),
    OpSpec(
        "upsample_lanczos2d_aa",
        lambda t, x: t.nn.functional.interpolate(
            x, scale_factor=(0.4, 1.5), mode="lanczos", antialias=True
        ),
        [(T((1, 2, 6, 5)),)],
        covers=("upsample_lanczos2d_aa_backward",),
    ),
    OpSpec(
        "interpolate_area",
        lambda t, x: t.nn.functional.interpolate(x, size=(4, 3), mode="area"),
        [(T((1, 2, 6, 5)),)],
        covers=("adaptive_avg_pool2d",),
    ),
    OpSpec(
        "linear",
        lambda t, x, w, b: _f(t).linear(x, w, b),
        [
            (T((4, 3)), T((2, 3)), T((2,))),
            (T((3,)), T((2, 3)), T((2,))),
            (T((2, 4, 3)), T((2, 3)), T((2,))),  # flattened into one addmm
            (T((2, 4, 3), nc=True), T((2, 3)), T((1, 2))),  # matmul, then the bias
            (T((4, 3), grad=False), T((2, 3)), T((2,))),
        ],
        ref=lambda np, x, w, b: x @ w.T + b,
        covers=("addmm", "t"),
    ),
    OpSpec(
        "linear_no_bias",
        lambda t, x, w: _f(t).linear(x, w),
        [(T((4, 3)), T((2, 3))), (T((2, 4, 3)), T((2, 3))), (T((2, 4, 3), nc=True), T((2, 3)))],
        ref=lambda np, x, w: x @ w.T,
        covers=("mm", "t", "unsafe_view"),
    ),
    OpSpec(
        "convolution",
        lambda t, x, w, b: _f(t).conv2d(x, w, b, stride=(2, 1), padding=1, groups=2),
        [(T((1, 2, 4, 3)), T((2, 1, 2, 2)), T((2,)))],
        covers=("convolution_input", "convolution_weight"),
    ),
    OpSpec(
        "convolution_1d_dilated",
        lambda t, x, w: _f(t).conv1d(x, w, None, stride=2, padding=2, dilation=2),
        [(T((2, 2, 5)), T((3, 2, 2)))],
        covers=("convolution",),
    ),
    OpSpec(
        "conv_transpose",
        lambda t, x, w, b: _f(t).conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [(T((1, 2, 2, 3)), T((2, 2, 2, 2)), T((2,)))],
        covers=("convolution", "convolution_weight"),
    ),
    OpSpec("constant_pad_nd", lambda t, x: _f(t).pad(x, (1, 2, -1, 1), value=0.5), [(T((3, 4)),)]),
    OpSpec(
        "weight_norm_interface",
        lambda t, v, g: t._weight_norm(v, g, 0),
        [(T((3, 2, 2)), T((3, 1, 1), 0.5, 2.0)), (T((4, 3)), T((4, 1), 0.5, 2.0))],
    ),
    OpSpec(
        "weight_norm_interface_last",
        lambda t, v, g: t._weight_norm(v, g, 2),
        [(T((2, 2, 3), nc=True), T((1, 1, 3), 0.5, 2.0))],
        covers=("weight_norm_interface",),
    ),
    OpSpec(
        "norm",
        lambda t, v: t.norm_except_dim(v, 2, -1),
        [(T((3, 4)),), (T((2, 3), nc=True),)],
    ),
    OpSpec(
        "reflection_pad1d",
        lambda t, x: _f(t).pad(x, (2, 3), mode="reflect"),
        [(T((2, 5)),), (T((2, 3, 4), nc=True),)],
        covers=("reflection_pad1d_backward",),
    ),
    OpSpec(
        "reflection_pad2d",
        lambda t, x: _f(t).pad(x, (1, -1, 2, 0), mode="reflect"),
        [(T((1, 2, 3, 4)),), (T((2, 3, 4), nc=True),)],
        covers=("reflection_pad2d_backward",),
    ),
    OpSpec(
        "reflection_pad3d",
        lambda t, x: _f(t).pad(x, (1, 1, 0, 2, 1, 0), mode="reflect"),
        [(T((1, 2, 2, 3, 3)),)],
        covers=("reflection_pad3d_backward",),
    ),
    OpSpec(
        "replication_pad1d",
        lambda t, x: _f(t).pad(x, (4, 1), mode="replicate"),
        [(T((2, 3)),), (T((2, 3, 4), nc=True),)],
        covers=("replication_pad1d_backward",),
    ),
    OpSpec(
        "replication_pad2d",
        lambda t, x: _f(t).pad(x, (2, 0, -1, 3), mode="replicate"),
        [(T((1, 2, 3, 4)),), (T((2, 3, 4), nc=True),)],
        covers=("replication_pad2d_backward",),
    ),
    OpSpec(
        "replication_pad3d",
        lambda t, x: _f(t).pad(x, (1, 2, 1, 0, 0, 2), mode="replicate"),
        [(T((1, 2, 2, 3, 2)),)],
        covers=("replication_pad3d_backward",),
    ),
    OpSpec(
        "max_pool2d_with_indices",
        lambda t, x: _f(t).max_pool2d(x, 2, stride=1, padding=1, ceil_mode=True),
        [(T((1, 2, 3, 4)),)],
        covers=("max_pool2d_with_indices_backward", "max_pool2d_with_indices_gather"),
    ),
    OpSpec(
        "avg_pool2d",
        lambda t, x: _f(t).avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        [(T((1, 2, 4, 3)),)],
        covers=("avg_pool2d_backward",),
    ),
    OpSpec(
        "adaptive_avg_pool2d",
        lambda t, x: _f(t).adaptive_avg_pool2d(x, (2, 3)),
        [(T((2, 3, 4)),)],
        covers=("adaptive_avg_pool2d_backward",),
    ),
    OpSpec(
        "native_batch_norm",
        lambda t, x, w, b: _f(t).batch_norm(x, None, None, w, b, training=True),
        [(T((3, 2, 2)), T((2,)), T((2,))), (T((4, 3)), None, None)],
    ),
    OpSpec(
        "native_batch_norm_eval",
        lambda t, x, m, v, w, b: _f(t).batch_norm(x, m, v, w, b),
        [(T((3, 2, 2)), T((2,), grad=False), T((2,), 0.5, 2.0, grad=False), T((2,)), T((2,)))],
    ),
    OpSpec(
        "native_layer_norm",
        lambda t, x, w, b: _f(t).layer_norm(x, (2, 3), w, b),
        [(T((3, 2, 3)), T((2, 3)), T((2, 3))), (T((4, 2, 3)), None, None)],
        grad_atol=1e-4,
    ),
    OpSpec(
        "native_group_norm",
        lambda t, x, w, b: _f(t).group_norm(x, 2, w, b),
        [(T((2, 4, 3)), T((4,)), T((4,)))],
        grad_atol=1e-4,
    ),
    OpSpec(
        "mse_loss",
        lambda t, x, y: _f(t).mse_loss(x, y),
        [(T((3, 4)), T((3, 4))), (T((3, 4)), T((3, 4), grad=False))],
        ref=lambda np, x, y: ((x - y) ** 2).mean(),
    ),
    OpSpec(
        "mse_loss_none",
        lambda t, x, y: _f(t).mse_loss(x, y, reduction="none"),
        [(T((3, 4)), T((3, 4)))],
        covers=("mse_loss",),
    ),
    OpSpec(
        "huber_loss",
        lambda t, x, y: _f(t).huber_loss(x, y, reduction="sum", delta=0.8),
        [(T((3, 4)), T((3, 4)))],
    ),
    OpSpec(
        "smooth_l1_loss",
        lambda t, x, y: _f(t).smooth_l1_loss(x, y, beta=0.7),
        [(T((3, 4)), T((3, 4)))],
    ),
    OpSpec(
        "nll_loss",
        lambda t, x, y, w: _f(t).nll_loss(x, y, w),
        [(T((4, 3)), T((4,), 0, 3, kind="int"), T((3,), 0.5, 2.0, grad=False))],
    ),
    OpSpec(
        "nll_loss2d",
        lambda t, x, y: _f(t).nll_loss(x, y, reduction="sum"),
        [(T((2, 3, 2, 2)), T((2, 2, 2), 0, 3, kind="int"))],
    ),
    OpSpec(
        "cross_entropy_probabilities",
        lambda t, x, y: _f(t).cross_entropy(x, y, label_smoothing=0.1),
        [(T((4, 3)), T((4, 3), 0.0, 1.0, grad=False))],
        covers=("loss_div_count", "log_softmax"),
    ),
    OpSpec(
        "binary_cross_entropy",
        lambda t, x, y, w: _f(t).binary_cross_entropy(x, y, w),
        [(T((3, 4), *PROB), T((3, 4), *PROB), T((4,), 0.5, 2.0, grad=False))],
    ),
    OpSpec(
        "binary_cross_entropy_with_logits",
        lambda t, x, y, w, p: _f(t).binary_cross_entropy_with_logits(
            x, y, w, pos_weight=p, reduction="none"
        ),
        [
            (
                T((3, 4), -4.0, 4.0),
                T((3, 4), 0.0, 1.0),
                T((4,), 0.5, 2.0, grad=False),
                T((4,), 0.5, 3.0, grad=False),
            ),
            (T((3, 4)), T((3, 4), 0.0, 1.0), None, None),
        ],
    ),
    # padding_idx is left out: its row's zero gradient is not the numerical derivative
    OpSpec(
        "embedding",
        lambda t, i, w: _f(t).embedding(i, w),
        [(T((2, 3), 0, 4, kind="int"), T((4, 3)))],
        covers=("embedding_backward",),
    ),
    # torch has no double backward for the multi-class hinge losses (their backward rows
    # raise, as tests/nn/test_losses_multiclass.py checks)
    OpSpec(
        "multi_margin_loss",
        lambda t, x, y, w: _f(t).multi_margin_loss(x, y, p=2, margin=0.8, weight=w),
        [(T((4, 5)), T((4,), 0, 5, kind="int"), T((5,), 0.5, 2.0, grad=False))],
        covers=("multi_margin_loss_backward",),
        gradgrad=False,
    ),
    OpSpec(
        "multilabel_margin_loss",
        lambda t, x, y: _f(t).multilabel_margin_loss(x, y, reduction="none"),
        [(T((3, 4)), T((3, 4), -1, 4, kind="int"))],
        covers=("multilabel_margin_loss_backward",),
        gradgrad=False,
    ),
    # PyTorch's CPU attention on 4-d inputs: its fused flash row, whose backward has no
    # derivative (tests/nn/test_flash_attention.py checks the refusal and the kernel choice)
    OpSpec(
        "scaled_dot_product_flash_attention_for_cpu",
        lambda t, q, k, v: _f(t).scaled_dot_product_attention(q, k, v, is_causal=True),
        [(T((1, 2, 3, 4)), T((1, 2, 5, 4)), T((1, 2, 5, 4)))],
        covers=("scaled_dot_product_flash_attention_for_cpu_backward",),
        gradgrad=False,
    ),
    # torch has no double backward for embedding_bag (tests/nn/test_embedding_bag.py)
    OpSpec(
        "embedding_bag",
        lambda t, w, p: _f(t).embedding_bag(
            t.tensor([1, 2, 0, 3, 2]), w, t.tensor([0, 2]), mode="sum", per_sample_weights=p
        ),
        [(T((4, 3)), T((5,)))],
        covers=("embedding_bag_backward", "embedding_bag_per_sample_weights_backward"),
        gradgrad=False,
    ),
    OpSpec(
        "embedding_bag_max",
        lambda t, w: _f(t).embedding_bag(t.tensor([[1, 2, 0], [3, 2, 2]]), w, mode="max"),
        [(T((4, 3)),)],
        covers=("embedding_bag",),
        gradgrad=False,
    ),
    # through log_softmax: PyTorch's CTC gradient is the logits' (Note in ops/nn/ctc.py); it
    # has no double backward
    OpSpec(
        "ctc_loss",
        lambda t, x, y: _f(t).ctc_loss(
            x.log_softmax(2), y, t.tensor([5, 4]), t.tensor([3, 2]), reduction="none"
        ),
        [(T((5, 2, 4)), T((2, 3), 1, 4, kind="int"))],
        covers=("ctc_loss_backward",),
        gradgrad=False,
    ),
]
