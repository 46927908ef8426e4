"""PyTorch's CPU autocast op policy as one table: which ops run in the lower precision, which
in float32, which at their inputs' widest type; every other op runs as its inputs are.

# Note [Autocast policy]
# Keys are dyngrad's op names: a table row's name (ops/table/registry.py), or the name a
# composite passes to `autocast_entry` (ops/table/record.py). They are PyTorch's names where
# PyTorch has the op (its `aten/src/ATen/autocast_mode.cpp` lists for the CPU); the rows
# dyngrad names differently say which PyTorch op they stand for. The table was read off
# torch 2.13 by running every op of the spec table under `torch.autocast("cpu")` and looking
# at the output dtype (tests/amp/policy_probe.py prints it; tests/amp/test_autocast_policy.py
# checks it op by op against torch).
#
# As in PyTorch, float64 tensors are never cast, and an op runs under the policy of the op
# the user called: `matmul` on two vectors is `dot` inside, but it was called as `matmul`,
# so its inputs are cast at matmul's entry and `dot` itself (not on the list) casts nothing.
"""

from __future__ import annotations

__all__ = ["LOWER_PRECISION_FP", "FP32", "PROMOTE", "POLICY"]

LOWER_PRECISION_FP = "lower_precision_fp"  # cast floating inputs to the autocast dtype
FP32 = "fp32"  # cast low-precision floating inputs up to float32
PROMOTE = "promote"  # cast floating inputs to the widest floating type among them

_LOWER_PRECISION_FP = (
    "mm",
    "bmm",
    "baddbmm",
    "addmm",
    "addbmm",
    "matmul",  # the entry of torch.matmul (products.py)
    "linear",
    "convolution",  # conv1d, conv2d, conv3d, torch's _convolution
    "conv_transpose",  # conv_transpose1d, conv_transpose2d, conv_transpose3d
    "prelu",
    "scaled_dot_product_attention",
    "linalg_vecdot",
    "affine_grid_generator",
    "_mkldnn_rnn",  # an unpacked nn.LSTM's entry (oneDNN's kernel in PyTorch)
)

_FP32 = (
    # reductions and linear algebra that lose too much in 8 mantissa bits
    "prod",
    "prod_dim",  # torch's prod.dim_int
    "trace",
    "cdist",
    "euclidean_dist",  # torch's cdist (compute_mode="use_mm_for_euclid_dist")
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "triangular_solve",
    "linalg_cholesky_ex",
    "linalg_inv",
    "linalg_svd",
    "pinverse",
    "quantile",
    "nanquantile",
    "polar",
    # Fourier transforms (hfftn, ihfftn and their 2-d forms are not on PyTorch's list)
    "fft_fft",
    "fft_ifft",
    "fft_rfft",
    "fft_irfft",
    "fft_hfft",
    "fft_ihfft",
    "fft_fft2",
    "fft_ifft2",
    "fft_rfft2",
    "fft_irfft2",
    "fft_fftn",
    "fft_ifftn",
    "fft_rfftn",
    "fft_irfftn",
    "stft",
    # padding (reflection_pad3d is not on PyTorch's list)
    "reflection_pad1d",
    "reflection_pad2d",
    "replication_pad1d",
    "replication_pad2d",
    "replication_pad3d",
    # 3-d adaptive pooling, unpooling, grid sampling (the 1-d and 2-d adaptive pools are not
    # on PyTorch's list; max_unpool1d is max_unpool2d inside)
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
    "max_unpool2d",
    "max_unpool3d",
    "grid_sampler_2d",  # torch's grid_sampler
    "grid_sampler_3d",
    # losses
    "mse_loss",
    "l1_loss",
    "huber_loss",
    "smooth_l1_loss",
    "nll_loss",
    "nll_loss2d",
    "cross_entropy",  # torch's cross_entropy_loss
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "soft_margin_loss",
    "kl_div",
    "cosine_embedding_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "poisson_nll_loss",
    "triplet_margin_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "ctc_loss",
)

_PROMOTE = ("cat", "stack", "index_copy")

POLICY: dict[str, str] = {
    **dict.fromkeys(_LOWER_PRECISION_FP, LOWER_PRECISION_FP),
    **dict.fromkeys(_FP32, FP32),
    **dict.fromkeys(_PROMOTE, PROMOTE),
}
