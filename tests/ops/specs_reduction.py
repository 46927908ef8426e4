"""Specs for the reduction family: sums, products, extrema, statistics, scans, sorts, softmax."""

from __future__ import annotations

import numpy as np

from .spec import OpSpec, T

S = T((3, 4))
NC = T((3, 4), nc=True)
B = T((2, 3, 4))
_ATTENTION_MASK = np.array([[True, False, True], [False, False, False], [True, True, True]])


def _zeros_at(t, x, where):
    # multiply by a 0/1 mask so the op sees exact zeros (the special path of prod/cumprod)
    mask = np.ones(x.shape)
    mask[where] = 0
    return x * t.tensor(mask, dtype=x.dtype)


SPECS = [
    OpSpec(
        "sum_all_keepdim",
        lambda t, x: x.sum(dim=None, keepdim=True),
        [(S,), (T(()),)],
        covers=("sum_dim",),
        ref=lambda np, x: np.sum(x, keepdims=True),
    ),
    OpSpec(
        "sum_dims",
        lambda t, x: x.sum((-1, 0)),
        [(B,), (NC,), (T((0, 3)),)],
        covers=("sum_dim",),
        ref=lambda np, x: x.sum((0, -1)),
    ),
    OpSpec("sum_dtype", lambda t, x: x.sum(1, dtype=t.float64), [(S,)], covers=("sum_dim",)),
    OpSpec(
        "mean_dims",
        lambda t, x: x.mean((0, 2), keepdim=True),
        [(B,), (T((1, 3, 1)),)],
        covers=("mean_dim",),
        ref=lambda np, x: x.mean((0, 2), keepdims=True),
    ),
    OpSpec("mean_0d", lambda t, x: x.mean(), [(T(()),), (NC,)], covers=("mean",)),
    OpSpec(
        "prod",
        lambda t, x: x.prod(),
        [(S,), (T(()),), (T((0, 2)),), (NC,)],
        ref=lambda np, x: np.prod(x),
    ),
    OpSpec(
        "prod_dim", lambda t, x: x.prod(1), [(S,), (T((3, 1)),)], ref=lambda np, x: np.prod(x, 1)
    ),
    OpSpec("prod_keepdim", lambda t, x: x.prod(-1, keepdim=True), [(B,)], covers=("prod_dim",)),
    OpSpec("prod_one_zero", lambda t, x: _zeros_at(t, x, (1, 2)).prod(), [(S,)], covers=("prod",)),
    OpSpec(
        "prod_two_zeros",
        lambda t, x: _zeros_at(t, x, ([0, 2], [1, 3])).prod(),
        [(S,)],
        covers=("prod",),
    ),
    OpSpec(
        "prod_dim_zeros",
        lambda t, x: _zeros_at(t, x, ([0, 0, 2], [1, 3, 0])).prod(1),
        [(S,)],
        covers=("prod_dim",),
    ),
    OpSpec("amax", lambda t, x: x.amax(), [(S,), (T(()),)], ref=lambda np, x: np.amax(x)),
    OpSpec(
        "amax_dims",
        lambda t, x: x.amax((0, 2), keepdim=True),
        [(B,), (T((2, 3, 4), nc=True),)],
        covers=("amax",),
    ),
    OpSpec("amin", lambda t, x: x.amin(-1), [(S,), (NC,)], ref=lambda np, x: np.amin(x, -1)),
    OpSpec(
        "max_dim_keepdim",
        lambda t, x: x.max(-1, keepdim=True).values,
        [(B,), (T(()),)],
        covers=("max_dim",),
    ),
    OpSpec("min_all", lambda t, x: x.min(), [(NC,)], covers=("min",)),
    OpSpec(
        "logsumexp",
        lambda t, x: x.logsumexp(1),
        [(S,), (NC,), (T((0, 3)),)],
        ref=lambda np, x: np.log(np.exp(x).sum(1)),
    ),
    OpSpec(
        "logsumexp_dims",
        lambda t, x: t.logsumexp(x, (0, 2), keepdim=True),
        [(B,)],
        covers=("logsumexp",),
    ),
    OpSpec("logsumexp_large", lambda t, x: (x * 400).logsumexp(0), [(S,)], covers=("logsumexp",)),
    OpSpec(
        "cumsum",
        lambda t, x: x.cumsum(-1),
        [(S,), (NC,), (T(()),)],
        ref=lambda np, x: np.cumsum(x, -1) if x.ndim else x,
    ),
    OpSpec("cumsum_dtype", lambda t, x: x.cumsum(-1, dtype=t.float64), [(B,)], covers=("cumsum",)),
    OpSpec(
        "cumprod",
        lambda t, x: x.cumprod(0),
        [(S,), (T((5,)),), (T(()),)],
        ref=lambda np, x: np.cumprod(x, 0) if x.ndim else x,
    ),
    OpSpec(
        "cumprod_zeros",
        lambda t, x: _zeros_at(t, x, ([1, 3], [2, 2])).cumprod(0),
        [(T((5, 3)),)],
        covers=("cumprod",),
    ),
    OpSpec("var", lambda t, x: x.var(), [(S,), (NC,)], ref=lambda np, x: np.var(x, ddof=1)),
    OpSpec(
        "var_dim",
        lambda t, x: x.var(1, keepdim=True),
        [(S,)],
        covers=("var",),
        ref=lambda np, x: np.var(x, 1, ddof=1, keepdims=True),
    ),
    OpSpec(
        "var_correction",
        lambda t, x: t.var(x, (0, 2), correction=0),
        [(B,)],
        covers=("var",),
        ref=lambda np, x: np.var(x, (0, 2)),
    ),
    OpSpec("std", lambda t, x: x.std(0), [(S,), (NC,)], ref=lambda np, x: np.std(x, 0, ddof=1)),
    OpSpec("std_unbiased", lambda t, x: x.std(unbiased=False), [(B,)], covers=("std",)),
    OpSpec(
        "var_mean",
        lambda t, x: t.var_mean(x, 1),
        [(S,)],
        ref=lambda np, x: (np.var(x, 1, ddof=1), np.mean(x, 1)),
    ),
    OpSpec(
        "var_mean_all",
        lambda t, x: t.var_mean(x, correction=2, keepdim=True),
        [(B,)],
        covers=("var_mean",),
    ),
    OpSpec(
        "std_mean",
        lambda t, x: t.std_mean(x, (0, 1)),
        [(B,)],
        ref=lambda np, x: (np.std(x, (0, 1), ddof=1), np.mean(x, (0, 1))),
    ),
    OpSpec("var_mean_one", lambda t, x: t.var_mean(x, 0)[1], [(S,)], covers=("var_mean",)),
    OpSpec("std_mean_one", lambda t, x: t.std_mean(x, 0)[0], [(S,)], covers=("std_mean",)),
    OpSpec(
        "median",
        lambda t, x: x.median(),
        [(S,), (T((5,)),)],
        ref=lambda np, x: np.sort(x.reshape(-1))[(x.size - 1) // 2],
    ),
    OpSpec("median_dim", lambda t, x: x.median(1).values, [(S,), (T((2, 1)),)]),
    OpSpec(
        "median_keepdim", lambda t, x: x.median(0, keepdim=True)[0], [(B,)], covers=("median_dim",)
    ),
    OpSpec("sort", lambda t, x: x.sort(1).values, [(S,), (NC,)], ref=lambda np, x: np.sort(x, 1)),
    OpSpec(
        "sort_descending",
        lambda t, x: x.sort(0, descending=True)[0],
        [(B,), (T(()),)],
        covers=("sort",),
    ),
    OpSpec("sort_stable", lambda t, x: x.sort(dim=0, stable=True).values, [(S,)]),
    OpSpec(
        "topk",
        lambda t, x: x.topk(2).values,
        [(S,), (NC,)],
        ref=lambda np, x: -np.sort(-x, -1)[:, :2],
    ),
    OpSpec(
        "topk_smallest",
        lambda t, x: x.topk(3, dim=0, largest=False)[0],
        [(T((4, 2)),)],
        covers=("topk",),
    ),
    OpSpec(
        "kthvalue", lambda t, x: x.kthvalue(2, 0).values, [(S,)], ref=lambda np, x: np.sort(x, 0)[1]
    ),
    OpSpec(
        "kthvalue_keepdim",
        lambda t, x: x.kthvalue(3, keepdim=True)[0],
        [(B,)],
        covers=("kthvalue",),
    ),
    OpSpec(
        "softmax",
        lambda t, x: x.softmax(-1),
        [(S,), (NC,), (T(()),), (T((0, 3)),)],
        ref=lambda np, x: (np.exp(x) / np.exp(x).sum(-1, keepdims=True)) if x.ndim else np.ones(()),
        covers=("softmax_backward_data",),
    ),
    OpSpec("softmax_dim0", lambda t, x: t.softmax(x * 300, 0), [(B,)], covers=("softmax",)),
    OpSpec(
        # attention's softmax: the row whose keys are all masked gives zeros and zero grads
        "safe_softmax",
        lambda t, x: t.nn.functional.scaled_dot_product_attention(
            x, x, x, attn_mask=t.tensor(_ATTENTION_MASK)
        ),
        [(B,)],
        torch_names=False,  # PyTorch's CPU attention is one fused node
    ),
    OpSpec(
        "softmax_dtype", lambda t, x: t.softmax(x, -1, dtype=t.float64), [(S,)], covers=("softmax",)
    ),
    OpSpec(
        "log_softmax",
        lambda t, x: x.log_softmax(-1),
        [(S,), (NC,), (T(()),)],
        ref=lambda np, x: (
            (x - np.log(np.exp(x).sum(-1, keepdims=True))) if x.ndim else np.zeros(())
        ),
        covers=("log_softmax_backward_data",),
    ),
    OpSpec(
        "log_softmax_large", lambda t, x: t.log_softmax(x * 500, 0), [(B,)], covers=("log_softmax",)
    ),
    OpSpec(
        "linalg_vector_norm",
        lambda t, x: t.linalg.vector_norm(x),
        [(S,), (NC,)],
        ref=lambda np, x: np.sqrt((x * x).sum()),
    ),
    OpSpec(
        "norm_p1",
        lambda t, x: x.norm(1, dim=1),
        [(S,)],
        covers=("linalg_vector_norm",),
        ref=lambda np, x: np.abs(x).sum(1),
    ),
    OpSpec(
        "norm_inf",
        lambda t, x: t.norm(x, float("inf"), dim=(0, 2)),
        [(B,)],
        covers=("linalg_vector_norm",),
    ),
    OpSpec(
        "norm_neg_inf",
        lambda t, x: t.linalg.vector_norm(x, -float("inf"), 0),
        [(S,)],
        covers=("linalg_vector_norm",),
    ),
    OpSpec(
        "norm_p3",
        lambda t, x: t.linalg.vector_norm(x, 3, -1, keepdim=True),
        [(B,)],
        covers=("linalg_vector_norm",),
    ),
    OpSpec(
        "norm_fro", lambda t, x: x.norm("fro", dim=(0, 1)), [(S,)], covers=("linalg_vector_norm",)
    ),
    OpSpec(
        "norm_p_half",
        lambda t, x: t.linalg.vector_norm(x, 0.5),
        [(T((3,), 0.5, 2.0),)],
        covers=("linalg_vector_norm",),
    ),
    OpSpec(
        "matrix_norm_fro",
        lambda t, x: t.linalg.matrix_norm(x),
        [(B,)],
        covers=("linalg_vector_norm",),
    ),
    OpSpec(
        "matrix_norm_1",
        lambda t, x: t.linalg.matrix_norm(x, 1),
        [(S,), (B,)],
        covers=("amax", "sum_dim"),
    ),
    OpSpec(
        "matrix_norm_inf",
        lambda t, x: t.linalg.matrix_norm(x, -float("inf"), keepdim=True),
        [(B,)],
        covers=("amin",),
    ),
    OpSpec(
        "linalg_norm",
        lambda t, x: t.linalg.norm(x, float("inf")),
        [(S,), (T((4,)),)],
        covers=("amax", "linalg_vector_norm"),
    ),
]
