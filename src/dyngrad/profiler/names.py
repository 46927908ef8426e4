"""Event names as PyTorch's: a table op's row name as its ATen operator (`aten::mm`).

Most rows are named as ATen's operator already. Those that are not are one of: an overload
written into the name (`div_floor`, `sum_dim`, `add_scalar`: the operator is the stem), an
in-place form (`squeeze_inplace`: `squeeze_`), or a different spelling of the same kernel
(`log_softmax_backward_data`: ATen's `_log_softmax_backward_data`). Rows that have no ATen
counterpart keep their own name under `aten::`.
"""

from __future__ import annotations

__all__ = ["aten_name"]

_RENAMED = {
    "log_softmax_backward_data": "_log_softmax_backward_data",
    "softmax_backward_data": "_softmax_backward_data",
    "sum_to_size": "sum",  # autograd's sum_to: ATen's reduction
    "to_copy": "_to_copy",
    "unsafe_view": "_unsafe_view",
    "reshape_alias": "_reshape_alias",
    "weight_norm_interface": "_weight_norm_interface",
    "embed": "embedding",
    "conv_transpose": "convolution",
    "convolution_input": "convolution_backward",
    "convolution_weight": "convolution_backward",
    "logsigmoid": "log_sigmoid",
    "rpow": "pow",
    "rremainder": "remainder",
    "loss_div_count": "div",
    "euclidean_dist": "_euclidean_dist",
    "adaptive_avg_pool2d_backward": "_adaptive_avg_pool2d_backward",
    "native_batch_norm_eval": "native_batch_norm",
    "bernoulli_p": "bernoulli",
    "bernoulli_scalar_": "bernoulli_",
    "bernoulli_tensor_": "bernoulli_",
    "squeeze_row": "squeeze",
    "diag_copy": "diag",
    "sort_stable": "sort",
    "random_0": "random_",
    "random_1": "random_",
    "random_2": "random_",
    "sparse_sum": "_sparse_sum",
    # ATen's own names that end like an overload
    "std_mean": "std_mean",
    "var_mean": "var_mean",
    "sparse_coo_tensor": "sparse_coo_tensor",
}
# overloads spelled into a row's name, longest first: the operator is what precedes them
_OVERLOADS = (
    "_scalar_other",
    "_scalar_self",
    "_scaled",
    "_scalar",
    "_tensor",
    "_dims",
    "_dim",
    "_mode",
    "_floor",
    "_trunc",
    "_result",
    "_checked",
    "_decimals",
    "_value",
    "_zeros",
    "_gather",
    "_refused",
    "_amax",
    "_amin",
    "_mean",
    "_prod",
    "_sum",
)
_STEM_ONLY = ("scatter_reduce", "index_reduce", "rsub")  # their suffixes are overloads too
_cache: dict = {}


def aten_name(row: str) -> str:
    """`aten::<operator>` for the table row named `row`."""
    name = _cache.get(row)
    if name is None:
        name = _cache[row] = "aten::" + _operator(row)
    return name


def _operator(row: str) -> str:
    if row in _RENAMED:
        return _RENAMED[row]
    if row.startswith("upsample_nearest_exact") or row.startswith("upsample") and "_aa" in row:
        return "_" + row  # PyTorch's private kernels: _upsample_nearest_exact2d, ..._aa
    if row.startswith("foreach_"):
        return "_foreach_" + _operator(row[len("foreach_") :])
    if row.endswith("_inplace"):
        return _operator(row[: -len("_inplace")]) + "_"
    for stem in _STEM_ONLY:
        if row.startswith(stem + "_"):
            return stem
    for suffix in _OVERLOADS:
        if row.endswith(suffix) and len(row) > len(suffix):
            return row[: -len(suffix)]
    return row
