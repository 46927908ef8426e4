"""`out=`: the functions PyTorch lets write their result into a given tensor, and the writing.

# Note [out= arguments]
# PyTorch's functions that take `out=` compute their result and write it into `out` (resized,
# with a deprecation warning, when its shape differs and it is not empty), refuse a result
# dtype that cannot be cast to `out`'s, and, since nothing records how `out` came to hold its
# values, refuse to run when grad mode is on and any argument requires grad. dyngrad's
# functions compute as usual; `with_out` wraps each function PyTorch gives `out=` (the list
# below, read off torch 2.13) into one that does the rest. The wrapper is generated with the
# function's own signature, so a call without `out` costs one plain call more, and it carries
# the function's name for tracebacks and profilers. Methods take no `out=`, as in PyTorch.
"""

from __future__ import annotations

import functools
import os
import warnings

from ..._tensor import Tensor
from ...graph import saved_hooks
from ...graph.grad_mode import state as grad_state
from ...runtime import dtypes
from .generated import generated_function, parameters

__all__ = ["OUT_FUNCTIONS", "OUT_OPS", "with_out", "write_into"]

# torch 2.13's top-level functions that accept `out=` (and that dyngrad has)
OUT_FUNCTIONS = frozenset(
    {
        "abs",
        "absolute",
        "acos",
        "acosh",
        "add",
        "addbmm",
        "addcdiv",
        "addcmul",
        "addmm",
        "addmv",
        "addr",
        "all",
        "amax",
        "amin",
        "aminmax",
        "any",
        "arange",
        "arccos",
        "arccosh",
        "arcsin",
        "arcsinh",
        "arctan",
        "arctan2",
        "arctanh",
        "argmax",
        "argmin",
        "asin",
        "asinh",
        "atan",
        "atan2",
        "atanh",
        "baddbmm",
        "bitwise_and",
        "bitwise_left_shift",
        "bitwise_not",
        "bitwise_or",
        "bitwise_right_shift",
        "bitwise_xor",
        "bmm",
        "bucketize",
        "cat",
        "chain_matmul",
        "ceil",
        "cholesky",
        "cholesky_inverse",
        "cholesky_solve",
        "clamp",
        "clamp_max",
        "clamp_min",
        "clip",
        "column_stack",
        "concat",
        "concatenate",
        "cos",
        "cosh",
        "cross",
        "cummax",
        "cummin",
        "cumprod",
        "cumsum",
        "deg2rad",
        "diag",
        "diff",
        "digamma",
        "div",
        "divide",
        "dot",
        "dstack",
        "empty",
        "eq",
        "erf",
        "erfc",
        "erfinv",
        "exp",
        "exp2",
        "expm1",
        "eye",
        "fix",
        "floor",
        "floor_divide",
        "fmax",
        "fmin",
        "fmod",
        "frac",
        "frobenius_norm",
        "full",
        "gather",
        "ge",
        "ger",
        "greater",
        "greater_equal",
        "gt",
        "hstack",
        "hypot",
        "igamma",
        "igammac",
        "index_add",
        "index_copy",
        "index_select",
        "inverse",
        "isin",
        "isneginf",
        "isposinf",
        "kron",
        "kthvalue",
        "le",
        "lerp",
        "less",
        "less_equal",
        "lgamma",
        "linspace",
        "log",
        "log10",
        "log1p",
        "log2",
        "log_softmax",
        "lu",
        "lu_solve",
        "lu_unpack",
        "logaddexp",
        "logaddexp2",
        "logical_and",
        "logical_not",
        "logical_or",
        "logical_xor",
        "logit",
        "logspace",
        "logsumexp",
        "lt",
        "masked_select",
        "matmul",
        "max",
        "maximum",
        "mean",
        "median",
        "min",
        "minimum",
        "mm",
        "msort",
        "mul",
        "multinomial",
        "multiply",
        "mv",
        "mvlgamma",
        "nan_to_num",
        "nanmedian",
        "nanmean",
        "nansum",
        "ne",
        "neg",
        "negative",
        "nonzero",
        "nuclear_norm",
        "orgqr",
        "norm",
        "normal",
        "not_equal",
        "ones",
        "outer",
        "polygamma",
        "pow",
        "rad2deg",
        "rand",
        "randint",
        "randn",
        "randperm",
        "reciprocal",
        "remainder",
        "round",
        "row_stack",
        "rsqrt",
        "scatter",
        "scatter_reduce",
        "searchsorted",
        "sgn",
        "sigmoid",
        "sign",
        "signbit",
        "sin",
        "sinc",
        "sinh",
        "softmax",
        "sort",
        "sqrt",
        "square",
        "stack",
        "std",
        "sub",
        "subtract",
        "take",
        "take_along_dim",
        "tan",
        "tanh",
        "tensordot",
        "threshold",
        "topk",
        "triangular_solve",
        "tril",
        "triu",
        "true_divide",
        "trunc",
        "var",
        "vstack",
        "where",
        "xlogy",
        "zeros",
    }
)

# the op PyTorch names when it refuses inputs that require grad, where not the function's own
# name; None where the function is a composite whose writing into `out` is recorded instead
OUT_OPS = {"lu": None, "lu_solve": "linalg_lu_solve", "orgqr": "linalg_householder_product"}
# the view copies (ops/shape/view_copies.py): PyTorch records their writing into `out`
VIEW_COPIES = (
    "alias_copy",
    "as_strided_copy",
    "detach_copy",
    "diagonal_copy",
    "expand_copy",
    "permute_copy",
    "select_copy",
    "slice_copy",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "unbind_copy",
    "unfold_copy",
    "unsqueeze_copy",
    "view_copy",
    "view_as_real_copy",
    "view_as_complex_copy",
    "narrow_copy",
)
OUT_OPS.update(dict.fromkeys(VIEW_COPIES))
OUT_FUNCTIONS = OUT_FUNCTIONS | frozenset(VIEW_COPIES)

_RESIZED = (
    "An output with one or more elements was resized since it had shape {}, which does not "
    "match the required output shape {}. This behavior is deprecated, and in a future PyTorch "
    "release outputs will not be resized unless they have zero elements. You can explicitly "
    "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0)."
)
_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def with_out(fn, name: str, op: str | None = ""):
    """`fn` taking a keyword `out=` as PyTorch's `torch.<name>` does (Note [out= arguments]).

    `op` is the function PyTorch names when it refuses inputs that require grad (`name` by
    default); None for a composite, whose writing into `out` is recorded instead.
    """
    # a file name under the package, so that "the user's line" skips this frame
    filename = os.path.join(os.path.dirname(__file__), f"<out= form of torch.{name}>")
    namespace = {"__name__": __name__, "_fn": fn, "_write_into": write_into}
    op = name if op == "" else op
    source = functools.partial(_out_form_source, fn, name, op)  # written at the first call
    wrapper = generated_function(name, source, filename, namespace)  # Note [Generated functions]
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    return wrapper


def _out_form_source(fn, name: str, op: str | None, namespace: dict) -> str:
    """The source of `fn`'s out= form, its defaults put in `namespace`."""
    params, call, defaults = [], [], {}
    star = False
    for p in parameters(fn, follow_wrapped=False):
        if p.name == "out":  # a function that took out= and ignored it
            continue
        text = p.name
        if p.default is not p.empty:
            defaults[f"_default_{p.name}"] = p.default
            text += f"=_default_{p.name}"
        if p.kind is p.VAR_POSITIONAL:
            text, star = "*" + p.name, True
            call.append("*" + p.name)
        elif p.kind is p.KEYWORD_ONLY:
            if not star:
                params.append("*")
                star = True
            call.append(f"{p.name}={p.name}")
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + p.name
            call.append("**" + p.name)
        else:
            call.append(p.name)
        params.append(text)
    keyword = [] if star else ["*"]
    if params and params[-1].startswith("**"):
        params[-1:-1] = keyword + ["out=None"]
    else:
        params += keyword + ["out=None"]
    args = ", ".join(call)
    inputs = ", ".join(c.lstrip("*").split("=")[-1] for c in call)
    namespace.update(defaults)
    return (
        f"def {name}({', '.join(params)}):\n"
        f"    if out is None:\n"
        f"        return _fn({args})\n"
        f"    return _write_into({op!r}, out, lambda: _fn({args}), ({inputs},))\n"
    )


def write_into(name: str | None, out, compute, inputs: tuple):
    """Run `compute` and write its result(s) into `out`: See Note [out= arguments].

    With `name` None (a composite: `linalg.matrix_norm`, `linalg.cond`), inputs that require
    grad are accepted and the writing is recorded, `out` resized then copied into as PyTorch's
    composites do.
    """
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if name is not None and grad_state.enabled and any(_requires_grad(v) for v in (*inputs, *outs)):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    copy = _copy_into if name is not None else _copy_recorded
    result = compute()
    if isinstance(out, Tensor):
        copy(result, out)
        return out
    results = result if isinstance(result, tuple) else (result,)
    if len(results) != len(outs):
        raise TypeError(f"{name}(): argument 'out' must be tuple of {len(results)} Tensors")
    for r, o in zip(results, outs):
        copy(r, o)
    kind = type(result)
    return kind(*outs) if hasattr(kind, "_fields") else tuple(outs)


def _requires_grad(value) -> bool:
    if isinstance(value, Tensor):
        return value._requires_grad
    if isinstance(value, (tuple, list)):
        return any(isinstance(v, Tensor) and v._requires_grad for v in value)
    return False


def _check_cast(result: Tensor, out) -> None:
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    src = dtypes.from_numpy_dtype(result._data.dtype)
    dst = dtypes.from_numpy_dtype(out._data.dtype)
    if not dtypes.can_cast(src, dst):
        raise RuntimeError(
            f"result type {src._legacy} can't be cast to the desired output type {dst._legacy}"
        )


def _copy_recorded(result: Tensor, out) -> None:
    # out.resize_(shape).copy_(result): a CopyBackwards node when the result requires grad
    _check_cast(result, out)
    shape = tuple(result._data.shape)
    if out._data.shape != shape:
        if out._data.size:
            warnings.warn(
                _RESIZED.format(list(out._data.shape), list(shape)), UserWarning, stacklevel=4
            )
        out.resize_(shape)
    out.copy_(result)


def _copy_into(result: Tensor, out: Tensor) -> None:
    _check_cast(result, out)
    data = result._data
    for watcher in saved_hooks.write_watchers:  # See Note [Writes into saved tensors]
        watcher(out)
    if out._data.shape != data.shape:
        if out._data.size:
            warnings.warn(
                _RESIZED.format(list(out._data.shape), list(data.shape)), UserWarning, stacklevel=4
            )
        out._data = data.astype(out._data.dtype, copy=True)
    else:
        try:
            out._data[...] = data
        except ValueError:  # a read-only array: an expanded view
            raise RuntimeError(_OVERLAP) from None
    out._version_counter.bump("out=")
