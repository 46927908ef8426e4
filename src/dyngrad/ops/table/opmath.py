"""float16 and bfloat16 arithmetic as PyTorch's CPU kernels do it: in float32, rounded once.

# Note [Reduced-precision opmath]
# PyTorch's CPU kernels compute a float16 or bfloat16 tensor in float32 (their "opmath"
# type): the inputs are widened, every step of the kernel runs in float32, a Python number
# operand stays a float32 number (it is never rounded to the tensor's dtype first), and the
# result is rounded to the tensor's dtype once, at the end. NumPy (and ml_dtypes' bfloat16)
# instead round after every ufunc and round a Python number to the array's dtype first, so a
# kernel of several steps (softplus, hardswish, var, log_softmax, `x * 0.1`, add with alpha)
# drifts by an ulp or more from PyTorch's result.
#
# The rows named in OPMATH_OPS therefore run their forward with such inputs widened to
# float32 and their float32 results rounded back to the inputs' dtype. The backward of the
# rows in OPMATH_BACKWARD does the same (a row's `ArrayBackward` kernel on widened arrays;
# its Tensor formulas, in a plain backward, on widened tensors: each gradient is rounded
# once, when it is cast to its input's dtype); under create_graph the formulas run as
# recorded, step by step. The other rows are left alone: a
# single ufunc (exp, sigmoid, x * y of two tensors) already rounds once, a view or copy does
# no arithmetic, and a conversion must keep the dtype it converts to. The list is measured, not
# guessed: tests/ops/test_reduced_precision.py compares every row here with PyTorch bit for bit.
"""

from __future__ import annotations

import functools

import numpy as np

from ...runtime.dtypes import LOW_PRECISION

__all__ = [
    "OPMATH_BACKWARD",
    "OPMATH_OPS",
    "ROUNDED_ATTRS",
    "in_float32",
    "kernel_in_float32",
    "widened_env",
]

# rows whose forward and backward are each one PyTorch kernel (or one product) computed in
# float32: mul's, and the activations (silu_backward, softmax's _softmax_backward_data, ...)
_FUSED = {
    "mul",
    "div",
    "mul_scalar",
    "div_scalar",
    "elu",
    "gelu",
    "hardsigmoid",
    "hardswish",
    "leaky_relu",
    "logsigmoid",
    "mish",
    "rrelu_with_noise",
    "silu",
    "softplus",
    "softmax",
    "log_softmax",
}

OPMATH_OPS = frozenset(
    _FUSED
    | {
        # a product or quotient with a Python number or value: the number stays float32
        "addcmul",
        "addcdiv",
        "lerp",
        "reciprocal",
        "rsqrt",
        "deg2rad",
        "rad2deg",
        "sinc",
        "glu",
        # reductions: accumulated in float32
        "sum",
        "sum_dim",
        "mean",
        "mean_dim",
        "nansum",
        "var",
        "std",
        "var_mean",
        "std_mean",
        "cumsum",
        "cumprod",
        "logcumsumexp",
        "trace",
        "dist",
        "norm_dim",
        "linalg_vector_norm",
        "renorm",
        "adaptive_avg_pool2d",
        "adaptive_avg_pool3d",
        "adaptive_avg_pool2d_backward",
        "adaptive_avg_pool3d_backward",
        # losses
        "mse_loss",
        "huber_loss",
        "smooth_l1_loss",
        "nll_loss",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
    }
)

# the rows whose backward the same widening gives; the others' backward is a composite of
# ops in PyTorch, each rounding, as the formulas already do
OPMATH_BACKWARD = frozenset(_FUSED)

# add and subtract with alpha: PyTorch casts alpha to the tensor's dtype first (as it does the
# number of `x + 0.1`, which NumPy's rounding of a weak Python scalar already gives), then
# computes `x + alpha * y` in float32
ROUNDED_ATTRS = frozenset({"add_scaled", "sub_scaled", "rsub_scaled"})

_ndarray = np.ndarray
_FLOAT32 = np.dtype(np.float32)


def _reduced(args):
    """The float16/bfloat16 dtype of the first array among `args`, else None (after promotion
    the float inputs of a row share one dtype, so the first array decides)."""
    for a in args:
        if type(a) is _ndarray:
            return a.dtype if a.dtype in LOW_PRECISION else None
    return None


def _to_dtype(value, dtype):
    return float(dtype.type(value)) if type(value) is float else value


def _widened(args, dtype):
    return [a.astype(_FLOAT32) if type(a) is _ndarray and a.dtype == dtype else a for a in args]


def _rounded(out, dtype):
    if type(out) is _ndarray:
        return out.astype(dtype) if out.dtype == _FLOAT32 else out
    if type(out) is tuple:
        return tuple(_rounded(o, dtype) for o in out)
    if isinstance(out, np.floating) and out.dtype == _FLOAT32:  # a full reduction's scalar
        return np.asarray(out).astype(dtype)
    return out


def in_float32(fwd, round_attrs: bool = False):
    """`fwd(xp, *arrays, **attrs)` computing float16/bfloat16 inputs in float32 and rounding
    its results once (Note [Reduced-precision opmath]); other dtypes call `fwd` as it is.
    `round_attrs`: the Python numbers among the attributes are first rounded to the dtype."""

    @functools.wraps(fwd)  # keeps the signature: the op table reads its parameter names
    def forward(xp, *args, **attrs):
        dtype = _reduced(args)
        if dtype is None:
            return fwd(xp, *args, **attrs)
        if round_attrs:
            attrs = {k: _to_dtype(v, dtype) for k, v in attrs.items()}
        return _rounded(fwd(xp, *_widened(args, dtype), **attrs), dtype)

    # the forward alone, for callers that know their dtypes (a compiled replay's)
    forward.full_precision = fwd
    return forward


def kernel_in_float32(fn):
    """An `ArrayBackward` kernel `fn(xp, needs, g, *saved)` run as `in_float32` runs a forward:
    the gradient and saved arrays widened, the gradients it returns rounded back."""

    def kernel(xp, needs, g, *saved):
        dtype = _reduced((g, *saved)) if type(g) is _ndarray else _reduced(saved)
        if dtype is None:
            return fn(xp, needs, g, *saved)
        if type(g) is _ndarray and g.dtype == dtype:
            g = g.astype(_FLOAT32)
        elif type(g) is tuple:
            g = tuple(_widened(g, dtype))
        out = fn(xp, needs, g, *_widened(saved, dtype))
        return None if out is None else _rounded(tuple(out), dtype)

    return kernel


def widened_env(env: dict, wrap) -> dict:
    """The names a node's formulas read, its float16/bfloat16 gradient and saved tensors of
    that dtype widened to float32 (`wrap` makes a Tensor of an array); else `env` itself."""
    g = env["g"]
    dtype = _reduced([x._data for x in (g if type(g) is tuple else (g,)) if x is not None])
    if dtype is None:
        return env
    out = {}
    for name, value in env.items():
        data = getattr(value, "_data", None)
        if type(data) is _ndarray and data.dtype == dtype:
            value = wrap(data.astype(_FLOAT32))
        elif type(value) is tuple:
            value = tuple(
                wrap(v._data.astype(_FLOAT32))
                if v is not None
                and getattr(v, "_data", None) is not None
                and v._data.dtype == dtype
                else v
                for v in value
            )
        out[name] = value
    return out
